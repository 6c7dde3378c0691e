"""End-to-end tests of the table referee in a real browser (Debian's chromium, driven by
Selenium through the system chromedriver; never a downloaded browser).

The server runs as a real ``flip7ref table`` process.  Locally the tests skip with a
reason when chromium, chromedriver, Selenium or the ``[table]`` extra is missing; in CI
(``CI=true``) they fail instead.  Screenshots of the main screens are written to
``docs/table/`` when ``FLIP7REF_SCREENSHOTS=1``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def _missing() -> str | None:
    for module in ("selenium", "starlette", "uvicorn"):
        try:
            __import__(module)
        except ImportError:
            return f"the Python package {module} is not installed (pip install -e '.[table]' selenium)"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(path):
            return f"{path} is missing (apt-get install chromium chromium-driver)"
    return None


_WHY = _missing()
if _WHY is not None:
    if os.environ.get("CI"):
        raise RuntimeError(f"the browser tests must run in CI, but {_WHY}")
    pytest.skip(f"browser tests skipped: {_WHY}", allow_module_level=True)

from browser_helpers import (  # noqa: E402
    DESKTOP,
    PHONE,
    PHONE_IDS,
    PHONES,
    ROOT,
    Server,
    covering,
    downloaded,
    in_view,
    low_contrast,
    tap,
    touch,
    touch_step,
    wait_for,
)
from browser_helpers import driver as _driver  # noqa: E402
from browser_helpers import spaced as _spaced  # noqa: E402
from browser_helpers import version as _version  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from flip7ref.core.spec import edition_ids, load_edition  # noqa: E402

_RERENDERED = (StaleElementReferenceException,)
"""What a wait that finds an element and reads it ignores: the page re-renders the element
between the two (a language switch rebuilds the option rows), so the wait looks again."""

SHOTS = ROOT / "docs" / "table"
DOWNLOADS: dict[tuple[int, int], Path] = {}
"""Where the browser of each screen size saves the files it downloads."""


@pytest.fixture(scope="module")
def shared_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("games")
    return folder


@pytest.fixture
def data(shared_data: Path) -> Path:
    return shared_data


@pytest.fixture(scope="module")
def server(shared_data: Path) -> Iterator[Server]:
    """One server for the module (each test plays its own game on it)."""
    srv = Server(shared_data)
    yield srv
    srv.stop()


@pytest.fixture(params=[PHONE, DESKTOP], ids=["phone", "desktop"])
def size(request: pytest.FixtureRequest) -> tuple[int, int]:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def drivers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[int, int], WebDriver]]:
    """One browser per screen size for the whole module (started when first needed)."""
    made: dict[tuple[int, int], WebDriver] = {}
    yield made
    for drv in made.values():
        drv.quit()


@pytest.fixture
def browser(
    drivers: dict[tuple[int, int], WebDriver], tmp_path_factory: pytest.TempPathFactory, size: tuple[int, int]
) -> WebDriver:
    if size not in drivers:
        DOWNLOADS[size] = tmp_path_factory.mktemp("downloads")
        drivers[size] = _driver(tmp_path_factory.mktemp("profile"), size, downloads=DOWNLOADS[size])
    drv = drivers[size]
    drv.get("about:blank")
    return drv


def card(drv: WebDriver, card_id: str) -> None:
    tap(drv, f"button.card[data-card='{card_id}']")


def act(drv: WebDriver, action: str) -> None:
    tap(drv, f"button.act[data-action='{action}']")


def text(drv: WebDriver, css: str) -> str:
    return str(wait_for(drv, css).text)


def shot(drv: WebDriver, name: str) -> None:
    """With ``FLIP7REF_SCREENSHOTS=1``: the screen as ``docs/table/<name>.png``, kept small (a
    palette of 128 colours where Pillow is installed, as it is with the ``[plot]`` extra)."""
    if not os.environ.get("FLIP7REF_SCREENSHOTS"):
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    drv.save_screenshot(str(path))
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - the full-colour screenshot stays
        return
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(128)
    small.save(path, optimize=True)


def start_game(drv: WebDriver, srv: Server, *, names: str, edition: str = "flip7", mode: str = "referee",
               lang: str = "en", seed: str = "") -> str:  # fmt: skip
    drv.get(srv.url)
    drv.execute_script("localStorage.clear(); sessionStorage.clear()")
    drv.get(srv.url)
    wait_for(drv, "#start")
    if lang != "en":
        drv.find_element(By.CSS_SELECTOR, f"#lang option[value='{lang}']").click()
        # the start page is drawn again once the server's texts come in that language
        WebDriverWait(drv, 10).until(lambda d: d.execute_script("return document.documentElement.lang") == lang)
        wait_for(drv, "#start")
    drv.find_element(By.CSS_SELECTOR, f"#edition option[value='{edition}']").click()
    box = drv.find_element(By.ID, "names")
    box.clear()
    box.send_keys(names)
    drv.find_element(By.CSS_SELECTOR, f"input[name=mode][value='{mode}']").click()
    if seed:
        drv.find_element(By.ID, "seed").send_keys(seed)
    drv.find_element(By.ID, "start").click()
    WebDriverWait(drv, 10).until(lambda d: "/game/" in d.current_url and _version(d) is not None)
    return str(drv.current_url.rsplit("/", 1)[1].split("?")[0])


def advance(drv: WebDriver) -> None:
    """Dealer mode: deal the next card, or take the first legal decision (Hit when offered)."""
    if drv.find_elements(By.ID, "next-round"):
        next_round(drv)
    if drv.find_elements(By.ID, "deal"):
        tap(drv, "#deal")
    elif drv.find_elements(By.CSS_SELECTOR, "button.act[data-action='hit']"):
        act(drv, "hit")
    else:
        act(drv, drv.find_element(By.CSS_SELECTOR, "button.act").get_attribute("data-action") or "")


def press(drv: WebDriver, css: str) -> None:
    """Click an element of the page above the dock (scrolled to the top of the screen)."""
    element = wait_for(drv, css)
    drv.execute_script("arguments[0].scrollIntoView({block: 'start'})", element)
    element.click()


def next_round(drv: WebDriver) -> None:
    """Tap on from the round summary (not a step: the version stays)."""
    button = wait_for(drv, "#next-round")
    _spaced(drv, button)
    button.click()
    WebDriverWait(drv, 10).until(lambda d: not d.find_elements(By.ID, "summary"))


def saved(data: Path, gid: str) -> dict[str, Any]:
    return json.loads((data / f"{gid}.json").read_text())  # type: ignore[no-any-return]


@pytest.mark.rules("F7-070", "F7-080", "F7-081", "F7-100", "F7-091", "F7-101", "F7-004")
def test_three_player_round_card_by_card(browser: WebDriver, server: Server, data: Path, size: tuple[int, int]) -> None:
    """A 3-player Flip 7 round entered card by card: a Flip Three with a Second Chance
    inside it, a mis-entered card undone, a card refused (there is one 0), the score pad."""
    drv = browser
    gid = start_game(drv, server, names="Ann\nBob\nCy")
    assert "Bob" in text(drv, "#prompt")  # the deal starts on the dealer's left
    card(drv, "5")
    card(drv, "flip_three")
    assert text(drv, "#who").startswith("Cy decides")
    act(drv, "target 1")  # Cy plays the Flip Three on Bob
    card(drv, "8")
    card(drv, "second_chance")
    assert "Second Chance" in text(drv, ".seat[data-seat='1']")
    card(drv, "8")  # the Second Chance saves Bob: both cards are discarded
    assert text(drv, ".seat[data-seat='1'] .status") == "active"
    card(drv, "12")  # mis-entered: Ann's card was the 0
    assert "12" in text(drv, ".seat[data-seat='0'] .line")
    tap(drv, "#undo")
    assert "12" not in text(drv, ".seat[data-seat='0'] .line")
    card(drv, "0")
    assert text(drv, "#who").startswith("Bob decides")
    if size == DESKTOP:
        shot(drv, "referee-decision")
    act(drv, "hit")
    card(drv, "x2")
    act(drv, "hit")
    card(drv, "7")
    act(drv, "hit")
    # the only 0 is in front of Ann: typing it is refused with the reason and the rule
    field = wait_for(drv, "#card-input")
    field.send_keys("0")
    drv.find_element(By.ID, "card-enter").click()
    WebDriverWait(drv, 10).until(lambda d: "No 0 can be revealed" in d.find_element(By.ID, "msg").text)
    assert "F7-004" in drv.find_element(By.ID, "msg").text
    # the card grid keeps its place: the 0 is dimmed (none left), and the deck-disagrees override is offered
    assert "out" in (drv.find_element(By.CSS_SELECTOR, "button.card[data-card='0']").get_attribute("class") or "")
    assert drv.find_elements(By.ID, "deck-disagrees")
    if size == DESKTOP:
        shot(drv, "referee-refused")
    card(drv, "3")
    act(drv, "stay")  # Bob
    act(drv, "stay")  # Cy
    act(drv, "hit")  # Ann
    card(drv, "3")  # Ann busts on the second 3: the round ends
    totals = [c.text for c in drv.find_elements(By.CSS_SELECTOR, "#totals td")]
    assert totals == ["Total", "0", "26", "7"]
    row = drv.find_element(By.CSS_SELECTOR, "tr.round-row").text
    assert "numbers 13 → 26" in row and "busted" in row
    drv.execute_script("document.getElementById('pad').scrollIntoView()")
    shot(drv, "score-pad-phone" if size == PHONE else "score-pad")
    # the round summary: each seat's line, score and bust, until someone taps on
    summary = text(drv, "#summary")
    assert "Round 1 is over" in summary and "busted" in summary
    assert [e.text for e in drv.find_elements(By.CSS_SELECTOR, "#summary tbody td:nth-child(3)")] == ["0", "26", "7"]
    exported = None
    if size == PHONE:
        # the score pad's files on a phone: scrolled to, each shows above the dock (the round
        # summary), not under it, and a real tap saves the game's transcript as the server has it
        for css in ("#csv", "#export", "#export-table"):
            link = wait_for(drv, css)
            drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
            assert covering(drv, link) is None, css
        touch(drv, "#export")
        exported = downloaded(DOWNLOADS[size], f"{gid}.json")
        assert exported.read_text(encoding="utf-8") == (data / f"{gid}.json").read_text(encoding="utf-8")
    next_round(drv)
    assert text(drv, "#who").startswith("Card revealed for")
    # a tap on a step shows its ruling with the rule ids
    step = drv.find_element(By.CSS_SELECTOR, "li[data-step='2'] button.step")
    drv.execute_script("arguments[0].scrollIntoView({block: 'start'})", step)
    step.click()
    ruling = text(drv, "#ruling")
    assert "F7-070" in ruling or "F7-072" in ruling
    if size == DESKTOP:
        shot(drv, "ruling")
    data_ = saved(data, gid)
    assert [s.get("draw") for s in data_["steps"] if "draw" in s][:6] == ["5", "flip_three", "8", "second_chance", "8", "0"]
    from flip7ref.checking.replay import replay

    assert replay(data_).agrees
    if exported is not None:  # the server page imports the file again, as a new game at the same step
        drv.get(server.url)
        wait_for(drv, "#import").send_keys(str(exported))
        WebDriverWait(drv, 10).until(lambda d: "/game/" in d.current_url and gid not in d.current_url and _version(d) is not None)
        assert [c.text for c in drv.find_elements(By.CSS_SELECTOR, "#totals td")] == ["Total", "0", "26", "7"]


@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
@pytest.mark.rules("V-040", "V-045")
def test_vengeance_round_with_a_swap(browser: WebDriver, server: Server, data: Path) -> None:
    """A Vengeance round in Dutch with a Swap: the cards change lines, the score pad adds up."""
    drv = browser
    gid = start_game(drv, server, names="Ann\nBob\nCy", edition="vengeance", lang="nl")
    card(drv, "5")
    card(drv, "9")
    card(drv, "swap")
    assert "Ruil" in text(drv, "#who")  # the card's Dutch name
    act(drv, "target 0")
    # pick one card, then the other (not one button for every pair)
    assert "eerste kaart" in text(drv, "#swap-hint")
    assert sorted(e.get_attribute("data-pick") for e in drv.find_elements(By.CSS_SELECTOR, "button.pick")) == ["1 0", "2 0"]
    shot(drv, "vengeance-swap")
    first = wait_for(drv, "button.pick[data-pick='1 0']")
    _spaced(drv, first)
    first.click()
    assert "Bob: 5" in text(drv, "#swap-hint")
    assert [e.get_attribute("data-pick") for e in drv.find_elements(By.CSS_SELECTOR, "button.pick")] == ["2 0"]
    tap(drv, "button.pick[data-pick='2 0']")
    assert text(drv, ".seat[data-seat='1'] .line") == "9"
    assert text(drv, ".seat[data-seat='2'] .line") == "5"
    assert "Ann ruilt 5 van Bob met 9 van Cy" in text(drv, "#log")
    for c in ("3", "4", "6"):
        act(drv, "hit")
        card(drv, c)
    for _ in range(3):
        act(drv, "stay")
    totals = [c.text for c in drv.find_elements(By.CSS_SELECTOR, "#totals td")]
    assert totals == ["Totaal", "6", "12", "9"]
    assert saved(data, gid)["edition"] == "vengeance"


@pytest.mark.parametrize("size", [DESKTOP], ids=["desktop"])
def test_resume_after_killing_the_server(browser: WebDriver, data: Path) -> None:
    """Dealer mode: the server is killed mid-round; --resume brings the game back as it was."""
    srv = Server(data)
    drv = browser
    try:
        gid = start_game(drv, srv, names="Ann\nBob", mode="dealer", seed="7")
        for _ in range(8):
            advance(drv)
        seats_before = [e.text for e in drv.find_elements(By.CSS_SELECTOR, ".seat")]
        steps_before = saved(data, gid)["steps"]
        shot(drv, "dealer-mode")
    finally:
        srv.kill()
    srv2 = Server(data, "--resume", str(data / f"{gid}.json"))
    try:
        assert srv2.url.endswith(f"/game/{gid}")
        drv.get(srv2.url)
        WebDriverWait(drv, 10).until(lambda d: _version(d) is not None)
        assert [e.text for e in drv.find_elements(By.CSS_SELECTOR, ".seat")] == seats_before
        assert saved(data, gid)["steps"] == steps_before
        # the saved game is also listed on the start page
        drv.get(srv2.url.rsplit("/game/", 1)[0] + "/")
        wait_for(drv, f"button.open-saved[data-id='{gid}']")
        shot(drv, "start-page")
        tap(drv, f"button.open-saved[data-id='{gid}']")
        advance(drv)
        assert len(saved(data, gid)["steps"]) == len(steps_before) + 1
    finally:
        out = srv2.stop()
    assert "stopped; every game is saved" in out


def test_the_start_page_lists_the_editions_the_server_sends(browser: WebDriver, server: Server) -> None:
    """The start page's editions are the list ``/api/meta`` sends (the shipped tables), its
    first choice the ``default_edition`` it sends, unless the address names another (the
    address the server prints names its ``--edition``, so the bare one is used here)."""
    drv = browser
    drv.get(server.base + "/")
    drv.execute_script("localStorage.clear(); sessionStorage.clear()")
    drv.get(server.base + "/")
    wait_for(drv, "#start")
    shown = drv.execute_script("return [...document.querySelectorAll('#edition option')].map((o) => o.value)")
    assert shown == list(edition_ids()) == ["flip7", "vengeance"]
    assert drv.execute_script("return document.getElementById('edition').value") == "flip7"
    drv.get(server.base + "/?edition=vengeance")
    wait_for(drv, "#start")
    assert drv.execute_script("return document.getElementById('edition').value") == "vengeance"


@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
@pytest.mark.rules("F7-120", "F7-121")
def test_manual_score_entry_to_a_win(browser: WebDriver, server: Server, data: Path) -> None:
    """The score pad alone: round scores typed in, a tie for the lead at 200 plays on, then a
    win; a round no game can score is refused with the real reason (the most a round can
    score, from the edition table); the screen is kept awake until the game is over."""
    drv = browser
    # the Wake Lock API, recorded: asked for while a game is played, released at its end
    stub = drv.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WAKE_LOCK_STUB})
    try:
        gid = start_game(drv, server, names="Ann\nBob", mode="manual")
        WebDriverWait(drv, 10).until(lambda d: d.execute_script("return window.wakeLog.length") == 1)
    finally:
        drv.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": stub["identifier"]})
    assert drv.execute_script("return window.wakeLog") == ["request screen"]

    def fill(*scores: int) -> None:
        for i, s in enumerate(scores):
            box = drv.find_element(By.CSS_SELECTOR, f"input.score-in[data-seat='{i}']")
            box.clear()
            box.send_keys(str(s))

    def enter(*scores: int) -> None:
        fill(*scores)
        tap(drv, "#add-round")

    fill(1500, 0)
    before = _version(drv)
    touch(drv, "#add-round")  # a real tap
    WebDriverWait(drv, 10).until(lambda d: "171" in d.find_element(By.ID, "msg").text)
    assert drv.find_element(By.ID, "msg").text == (
        "Refused: Ann: 1500 points is more than one round can score in Flip 7. The most is 171: "
        "a Flip 7 of 12 11 10 9 8 7 6 x2 +2 +4 +6 +8 +10, with its bonus. [F7-100, F7-050]")  # fmt: skip
    assert _version(drv) == before
    enter(120, 80)
    enter(80, 120)
    assert "another round" in text(drv, "#tie")
    enter(15, 0)
    assert "Ann" in text(drv, "#pad-winner")
    assert [c.text for c in drv.find_elements(By.CSS_SELECTOR, "#totals td")] == ["Total", "215", "200"]
    assert not drv.find_elements(By.ID, "add-round")
    WebDriverWait(drv, 10).until(lambda d: d.execute_script("return window.wakeLog.length") == 2)
    assert drv.execute_script("return window.wakeLog") == ["request screen", "release"]  # the game is over
    shot(drv, "manual-score-pad")
    meta = json.loads((data / f"{gid}.table.json").read_text())
    assert meta["rounds"] == [[120, 80], [80, 120], [15, 0]]


WAKE_LOCK_STUB = """(() => {
  window.wakeLog = [];
  const lock = { request: async (type) => {
    const held = new EventTarget();
    held.type = type; held.released = false;
    held.release = async () => {
      if (held.released) return;
      held.released = true; window.wakeLog.push("release"); held.dispatchEvent(new Event("release"));
    };
    window.wakeLog.push("request " + type);
    return held;
  } };
  Object.defineProperty(navigator, "wakeLock", { value: lock, configurable: true });
})();"""
"""navigator.wakeLock recorded in ``window.wakeLog`` (headless Chromium may refuse a real lock)."""


def chips(drv: WebDriver, seat: int) -> list[str]:
    """The cards in front of a seat, as the page shows them."""
    return [e.text for e in drv.find_elements(By.CSS_SELECTOR, f".seat[data-seat='{seat}'] .line > *")]


def fix(drv: WebDriver, step: int, card_id: str, *, refused: bool = False) -> str:
    """Tap ✎ on a step of the log, type the right card and enter it."""
    before = _version(drv)
    button = wait_for(drv, f"li[data-step='{step}'] button.fix")
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    field = wait_for(drv, f"li[data-step='{step}'] #fix-input")
    field.send_keys(card_id)
    drv.find_element(By.CSS_SELECTOR, f"li[data-step='{step}'] #fix-form button[type=submit]").click()
    if refused:
        WebDriverWait(drv, 10, ignored_exceptions=_RERENDERED).until(lambda d: d.find_element(By.ID, "msg").text)
        assert _version(drv) == before
        return ""
    # the correction first says what it will change; nothing changes until it is confirmed
    confirm = wait_for(drv, "#fix-confirm")
    plan = str(drv.find_element(By.ID, "fix-plan").text)
    assert _version(drv) == before
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", confirm)
    confirm.click()
    WebDriverWait(drv, 10).until(lambda d: _version(d) != before)
    return plan


@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
@pytest.mark.rules("F7-004", "F7-040", "F7-041")
def test_correcting_a_mis_entered_card(browser: WebDriver, server: Server, data: Path) -> None:
    """The ✎ of a step corrects its card: the later steps are replayed while they stay
    legal, a correction the deck cannot give is refused with the rule, nothing is lost."""
    drv = browser
    gid = start_game(drv, server, names="Ann\nBob\nCy")
    for c in ("5", "6", "0"):  # dealt to Bob, Cy, Ann
        card(drv, c)
    act(drv, "hit")  # Bob
    card(drv, "9")
    # Bob's card was a 0: but the only 0 is in front of Ann, so the correction is refused
    fix(drv, 4, "0", refused=True)
    msg = drv.find_element(By.ID, "msg").text
    assert "No 0 can be revealed" in msg and "1 in front of Ann" in msg and "F7-004" in msg
    assert chips(drv, 1) == ["5", "9"]
    assert len(drv.find_elements(By.ID, "fix-form")) == 1
    # Cy's card was an 8, not a 6: the three later steps are kept
    fix(drv, 1, "8")
    assert chips(drv, 2) == ["8"]
    assert chips(drv, 1) == ["5", "9"]
    assert chips(drv, 0) == ["0"]
    assert "Cy is dealt 8" in text(drv, "li[data-step='1']")
    assert text(drv, "#who").startswith("Cy decides")  # the game goes on where it was
    # Bob's hit was a second 5: he busts, and the correction stands
    fix(drv, 4, "5")
    assert text(drv, ".seat[data-seat='1'] .status") == "busted"
    assert "Bob busts on 5" in text(drv, "li[data-step='4']")
    steps = saved(data, gid)["steps"]
    assert [s["draw"] for s in steps if "draw" in s] == ["5", "8", "0", "5"]
    from flip7ref.checking.replay import replay

    assert replay(saved(data, gid)).agrees


# ---------------------------------------------------------------- the defects found at a real table (phone, real touch)


def steps_of(data: Path, gid: str) -> list[dict[str, Any]]:
    return saved(data, gid)["steps"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("size", PHONES, ids=PHONE_IDS)
@pytest.mark.parametrize("gap", [0.03, 0.15, 0.45])
def test_a_double_tap_records_one_step(browser: WebDriver, server: Server, data: Path, gap: float) -> None:
    """A double tap on Hit (real touch events): the second tap lands on the card button
    that appears under the finger; it must not record a card nobody drew."""
    drv = browser
    gid = start_game(drv, server, names="Ann\nBob\nCy")
    for c in ("5", "6", "7"):
        card(drv, c)
    before = _version(drv)
    touch(drv, "button.act[data-action='hit']", taps=2, gap=gap)
    WebDriverWait(drv, 10).until(lambda d: _version(d) != before)
    time.sleep(0.8)  # time for a second step to land, if it were going to
    assert [s.get("draw", s.get("action")) for s in steps_of(data, gid)] == ["5", "6", "7", "hit"]
    assert _version(drv) == before + 1
    card(drv, "9")  # the next tap, away from the spot, is taken at once
    assert chips(drv, 1) == ["5", "9"]


@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
def test_stale_step_is_refused_and_the_page_shows_the_game_now(browser: WebDriver, server: Server, data: Path) -> None:
    """Every step carries the version it was made against: one made on an older screen
    (another phone moved first) is refused with 409 and the page redraws."""
    import httpx

    drv = browser
    gid = start_game(drv, server, names="Ann\nBob")
    version = _version(drv)
    r = httpx.post(f"{server.base}/api/games/{gid}/reveal", json={"version": version, "card": "4"})
    assert r.status_code == 200
    touch(drv, "button.card[data-card='5']")
    WebDriverWait(drv, 10).until(lambda d: "someone else" in d.find_element(By.ID, "msg").text)
    assert [s["draw"] for s in steps_of(data, gid)] == ["4"]
    assert chips(drv, 1) == ["4"]


@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
@pytest.mark.rules("F7-040", "F7-041")
def test_a_correction_says_what_it_changes_keeps_cards_with_their_players_and_can_be_undone(
    browser: WebDriver, server: Server, data: Path
) -> None:
    """Bob's first hit was a second 5, not a 9: he busts.  His later Hit and 7 cannot be
    kept (the old replay gave that 7 to Cy); Cy's and Ann's later cards stay theirs; undo
    brings the old history back."""
    drv = browser
    gid = start_game(drv, server, names="Ann\nBob\nCy")
    for c in ("5", "6", "0"):
        card(drv, c)
    for c in ("9", "3", "4", "7"):  # Bob 9, Cy 3, Ann 4, Bob 7
        act(drv, "hit")
        card(drv, c)
    before = [s.get("draw", s.get("action")) for s in steps_of(data, gid)]
    plan = fix(drv, 4, "5")
    assert "5 becomes" not in plan and "9 becomes 5" in plan
    assert "kept with the player who made them: 4" in plan
    dropped = [e.get_attribute("data-step") for e in drv.find_elements(By.CSS_SELECTOR, "#fix-dropped li")]
    assert dropped == [] or dropped == ["9", "10"]  # the form closes once the correction is made
    assert text(drv, ".seat[data-seat='1'] .status") == "busted"
    assert chips(drv, 2) == ["6", "3"] and chips(drv, 0) == ["0", "4"]
    assert text(drv, "#who").startswith("Cy decides")  # the 7 did not move to Cy
    tap(drv, "#undo")  # the correction is one step: undo brings the old history back
    assert [s.get("draw", s.get("action")) for s in steps_of(data, gid)] == before
    assert chips(drv, 1) == ["5", "9", "7"]


@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
def test_the_correction_preview_names_the_steps_it_cannot_keep(browser: WebDriver, server: Server) -> None:
    drv = browser
    start_game(drv, server, names="Ann\nBob\nCy")
    for c in ("5", "6", "0"):
        card(drv, c)
    for c in ("9", "3", "4", "7"):
        act(drv, "hit")
        card(drv, c)
    button = wait_for(drv, "li[data-step='4'] button.fix")
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    wait_for(drv, "#fix-input").send_keys("5")
    drv.find_element(By.ID, "fix-check").click()
    wait_for(drv, "#fix-confirm")
    dropped = [e.get_attribute("data-step") for e in drv.find_elements(By.CSS_SELECTOR, "#fix-dropped li")]
    assert dropped == ["9", "10"]
    assert "Bob hits and gets 7" in text(drv, "#fix-dropped")
    shot(drv, "correction-preview")
    drv.find_element(By.ID, "fix-cancel").click()
    assert chips(drv, 1) == ["5", "9", "7"]  # cancelled: nothing changed


@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
def test_dealer_mode_undo_is_shown_to_everyone_and_the_next_card_stays(browser: WebDriver, server: Server, data: Path) -> None:
    """The cheat: Hit, see the card, undo twice, Stay.  Every undo is listed for all to
    see, and the card seen is the one the next player gets."""
    drv = browser
    gid = start_game(drv, server, names="Ann\nBob", mode="dealer", seed="11")
    while not drv.find_elements(By.CSS_SELECTOR, "button.act[data-action='hit']"):
        advance(drv)
    seat = int(drv.execute_script("return G.who"))
    act(drv, "hit")
    tap(drv, "#deal")
    seen = steps_of(data, gid)[-1]["draw"]
    drv.execute_script("window.confirm = () => true")  # the table agrees to undo the card dealt
    tap(drv, "#undo")
    tap(drv, "#undo")
    undone = text(drv, "#undone")
    assert "(2)" in undone and seen in undone
    act(drv, "stay")
    other = 1 - seat
    while drv.find_elements(By.ID, "deal") and int(drv.execute_script("return G.receiver ?? -1")) != other:
        advance(drv)
    if drv.find_elements(By.CSS_SELECTOR, "button.act[data-action='hit']"):
        act(drv, "hit")
    tap(drv, "#deal")
    assert steps_of(data, gid)[-1]["draw"] == seen  # the card under the undo stayed the next card
    meta = json.loads((data / f"{gid}.table.json").read_text())
    assert [u["move"] for u in meta["undone"]] == [f"chance {seen}", "hit"]
    # a second phone sees the undos too
    drv.get(drv.current_url)
    assert "(2)" in text(drv, "#undone")


@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
@pytest.mark.rules("F7-070", "F7-073", "F7-080")
def test_flip_three_progress_set_aside_cards_and_the_used_second_chance(browser: WebDriver, server: Server) -> None:
    drv = browser
    start_game(drv, server, names="Ann\nBob\nCy")
    card(drv, "5")
    card(drv, "flip_three")
    act(drv, "target 1")
    assert "card 1 of 3" in text(drv, "#forced")
    card(drv, "8")
    assert "card 2 of 3" in text(drv, "#forced")
    card(drv, "freeze")
    forced = text(drv, "#forced")
    assert "card 3 of 3" in forced and "set aside" in forced and "Freeze!" in forced
    shot(drv, "flip-three-phone")
    card(drv, "second_chance")
    act(drv, "target 2")  # the Freeze goes to Cy
    card(drv, "8")  # Ann's deal
    # Bob's Second Chance is spent on a second 8 later: shown as used
    act(drv, "hit")
    card(drv, "8")
    assert "used" in text(drv, ".seat[data-seat='1'] .used")
    assert "Second Chance" in text(drv, ".seat[data-seat='1'] .used")


@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
def test_the_language_can_change_during_a_game(browser: WebDriver, server: Server, data: Path) -> None:
    """On the start page the texts from the server follow the language switch at once (what
    was typed stays), a refusal of the new game is in that language; then in a game."""
    from flip7ref.core.i18n import option_summary

    drv = browser
    drv.get(server.url)
    drv.execute_script("localStorage.clear(); sessionStorage.clear()")
    drv.get(server.url)
    wait_for(drv, "#start")
    tie = (option_summary(load_edition("flip7"), "tie", "en"), option_summary(load_edition("flip7"), "tie", "de"))
    assert tie[0] != tie[1] and drv.find_element(By.ID, "opt-tie").get_attribute("title") == tie[0]
    box = drv.find_element(By.ID, "names")
    box.clear()
    box.send_keys("Ann\nAnn")
    drv.find_element(By.CSS_SELECTOR, "#lang option[value='de']").click()
    WebDriverWait(drv, 10, ignored_exceptions=_RERENDERED).until(
        lambda d: d.find_element(By.ID, "opt-tie").get_attribute("title") == tie[1]
    )
    assert drv.find_element(By.ID, "names").get_attribute("value") == "Ann\nAnn"  # kept across the switch
    assert drv.execute_script("return document.documentElement.lang") == "de"
    touch(drv, "#start")
    WebDriverWait(drv, 10, ignored_exceptions=_RERENDERED).until(lambda d: d.find_element(By.ID, "msg").text)
    assert drv.find_element(By.ID, "msg").text == "Zwei Spieler heißen „Ann“: gebt ihnen verschiedene Namen."
    gid = start_game(drv, server, names="Ann\nBob")
    assert drv.execute_script("return document.documentElement.lang") == "en"
    card(drv, "5")
    settings = wait_for(drv, "#settings summary")
    drv.execute_script("arguments[0].scrollIntoView({block: 'start'})", settings)
    settings.click()
    before = _version(drv)
    drv.find_element(By.CSS_SELECTOR, "#game-lang option[value='nl']").click()
    WebDriverWait(drv, 10).until(lambda d: _version(d) != before)
    assert drv.execute_script("return document.documentElement.lang") == "nl"
    assert text(drv, "#who").startswith("Omgedraaide kaart")
    assert text(drv, "button.card[data-card='second_chance']").startswith("Tweede kans")  # Flip 7 in Dutch
    assert "Bob krijgt 5" in text(drv, "#log")
    assert json.loads((data / f"{gid}.table.json").read_text())["lang"] == "nl"


@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
def test_letter_shortcuts_never_fire_while_typing_and_can_be_turned_off(browser: WebDriver, server: Server, data: Path) -> None:
    """Typing a card name in the ✎ field while another phone's step redraws the page: the
    "s" goes into the field, not to a Stay.  Letters can be turned off; focus stays."""
    import httpx
    from selenium.webdriver.common.action_chains import ActionChains

    drv = browser
    gid = start_game(drv, server, names="Ann\nBob\nCy")
    for c in ("5", "6", "7"):
        card(drv, c)
    button = wait_for(drv, "li[data-step='0'] button.fix")
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    wait_for(drv, "#fix-input").send_keys("s")
    # another phone: Bob hits and gets a 9 (the poll redraws this page)
    v = _version(drv)
    assert httpx.post(f"{server.base}/api/games/{gid}/act", json={"version": v, "action": "hit"}).status_code == 200
    assert httpx.post(f"{server.base}/api/games/{gid}/reveal", json={"version": v + 1, "card": "9"}).status_code == 200
    drv.execute_script("api('/api/games/' + G.id).then((v) => render(v))")
    WebDriverWait(drv, 10).until(lambda d: _version(d) == v + 2)
    ActionChains(drv).send_keys("s").perform()  # to whatever has focus now
    time.sleep(0.5)
    assert [s.get("draw", s.get("action")) for s in steps_of(data, gid)] == ["5", "6", "7", "hit", "9"]
    assert drv.execute_script("return document.activeElement.id") == "fix-input"
    # turned off: "s" on the page does nothing; turned on, it stays, and focus is kept
    time.sleep(1.6)  # a letter right after typing in a field is still typing
    drv.execute_script("document.activeElement.blur(); localStorage.setItem('flip7ref-letters', 'off')")
    ActionChains(drv).send_keys("s").perform()
    time.sleep(0.5)
    assert len(steps_of(data, gid)) == 5
    drv.execute_script("localStorage.setItem('flip7ref-letters', 'on')")
    wait_for(drv, "button.act[data-action='stay']")
    drv.execute_script("document.querySelector(\"button.act[data-action='stay']\").focus()")
    before = _version(drv)
    ActionChains(drv).send_keys("s").perform()
    WebDriverWait(drv, 10).until(lambda d: _version(d) != before)
    assert steps_of(data, gid)[-1]["action"] == "stay"
    assert drv.execute_script("return !!document.activeElement.closest('#dock')")


@pytest.mark.parametrize("size", [DESKTOP], ids=["desktop"])
def test_a_keyboard_only_game(browser: WebDriver, server: Server, data: Path) -> None:
    """Tab and Enter only: a round is played to its summary and on to the next round."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    drv = browser
    gid = start_game(drv, server, names="Ann\nBob")
    drv.execute_script("document.activeElement.blur()")

    def press_on(css: str, step: bool = True) -> None:
        before = _version(drv)
        for _ in range(120):
            if drv.execute_script("return document.activeElement.matches(arguments[0])", css):
                break
            ActionChains(drv).send_keys(Keys.TAB).perform()
        else:
            seen = drv.execute_script("return document.activeElement.outerHTML.slice(0, 120)")
            raise AssertionError(f"Tab never reached {css}; focus is on {seen}")
        ActionChains(drv).send_keys(Keys.ENTER).perform()
        if step:
            WebDriverWait(drv, 10).until(lambda d: _version(d) != before)

    for css in ("button.card[data-card='5']", "button.card[data-card='6']", "button.act[data-action='stay']",
                "button.act[data-action='hit']", "button.card[data-card='6']"):  # fmt: skip
        press_on(css)
    assert drv.execute_script("return !!document.getElementById('summary')")
    assert drv.execute_script("return document.activeElement.id") in ("next-round", "")
    press_on("#next-round", step=False)
    WebDriverWait(drv, 10).until(lambda d: not d.find_elements(By.ID, "summary"))
    assert [s.get("draw", s.get("action")) for s in steps_of(data, gid)] == ["5", "6", "stay", "hit", "6"]


@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
def test_score_pad_entries_and_switching_to_it_part_way(browser: WebDriver, server: Server, data: Path) -> None:
    """An empty field is not a 0; a referee game goes on as a score pad part way."""
    drv = browser
    gid = start_game(drv, server, names="Ann\nBob")
    for c in ("5", "6"):
        card(drv, c)
    act(drv, "stay")
    act(drv, "stay")
    next_round(drv)
    settings = wait_for(drv, "#settings summary")
    drv.execute_script("arguments[0].scrollIntoView({block: 'start'})", settings)
    settings.click()
    before = _version(drv)
    drv.execute_script("window.confirm = () => true")
    press(drv, "#to-manual")
    WebDriverWait(drv, 10).until(lambda d: _version(d) != before)
    assert [c.text for c in drv.find_elements(By.CSS_SELECTOR, "#totals td")] == ["Total", "6", "5"]
    box = wait_for(drv, "input.score-in[data-seat='0']")
    box.send_keys("12")
    before = _version(drv)
    drv.find_element(By.ID, "add-round").click()
    WebDriverWait(drv, 10).until(lambda d: "Bob" in d.find_element(By.ID, "msg").text)
    assert _version(drv) == before and "Type a score for Bob" in drv.find_element(By.ID, "msg").text
    drv.find_element(By.CSS_SELECTOR, "input.score-in[data-seat='1']").send_keys("0")
    tap(drv, "#add-round")
    assert [c.text for c in drv.find_elements(By.CSS_SELECTOR, "#totals td")] == ["Total", "18", "5"]
    assert json.loads((data / f"{gid}.table.json").read_text())["rounds"] == [[6, 5], [12, 0]]


@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
def test_an_unreachable_server_is_not_a_rules_refusal(browser: WebDriver, data: Path) -> None:
    srv = Server(data)
    drv = browser
    try:
        start_game(drv, srv, names="Ann\nBob")
    finally:
        srv.stop()
    touch(drv, "button.card[data-card='5']")
    WebDriverWait(drv, 10, ignored_exceptions=_RERENDERED).until(lambda d: d.find_element(By.ID, "msg").text)
    msg = drv.find_element(By.ID, "msg").text
    assert "cannot be reached" in msg and "Failed to fetch" not in msg and "Refused" not in msg


@pytest.mark.parametrize("size", PHONES, ids=PHONE_IDS)
def test_no_word_is_split_no_server_path_and_a_favicon(browser: WebDriver, server: Server, data: Path) -> None:
    import httpx

    drv = browser
    start_game(drv, server, names="Annemarie\nBartholomew\nCyrille\nDorothea\nEvangeline")
    for c in ("5", "6", "7", "8", "9"):
        card(drv, c)
    for _ in range(5):
        act(drv, "stay")
    if drv.find_elements(By.ID, "next-round"):
        next_round(drv)
    # every cell of the score pad on as few lines as its words: no word broken inside ("Rou" / "nd")
    split = drv.execute_script("""
        const out = [];
        for (const cell of document.querySelectorAll('table.pad th, table.pad td')) {
          const words = cell.textContent.trim().split(/\\s+/).length;
          const r = document.createRange(); r.selectNodeContents(cell.firstChild || cell);
          const lines = new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size;
          if (lines > words) out.push(cell.textContent);
        }
        return out;""")
    assert split == []
    heights = drv.execute_script("return [...document.querySelectorAll('table.pad thead th')].map((th) => th.offsetHeight)")
    assert max(heights) < 40, heights  # one line each
    page = drv.find_element(By.TAG_NAME, "body").text
    assert str(data) not in page and not re.search(r"[\w-]\.json", page)  # no file's name ("Transcript (.json)" is a label)
    assert not re.search(r"\b(null|undefined)\b", page)  # no empty value shown as a word
    assert httpx.get(f"{server.base}/favicon.ico").status_code == 200
    icon = drv.execute_script("return document.querySelector('link[rel=icon]').href")
    assert httpx.get(icon).headers["content-type"].startswith("image/svg")


def _axe() -> str | None:
    for p in (ROOT / ".axe" / "node_modules" / "axe-core" / "axe.min.js", ROOT / "node_modules" / "axe-core" / "axe.min.js"):
        if p.exists():
            return p.read_text(encoding="utf-8")
    if os.environ.get("CI"):
        raise AssertionError("axe-core is missing: npm install --prefix .axe axe-core (.ci/run does)")
    return None


def _too_small(drv: WebDriver) -> list[str]:
    """Every visible control smaller than 44×44 px (a radio, checkbox or file field counts its label)."""
    return drv.execute_script("""
        const out = [];
        for (const el of document.querySelectorAll('button, a[href], input, select, textarea, summary')) {
          const target = (el.matches('input[type=radio], input[type=checkbox], input[type=file]') && el.closest('label')) || el;
          const r = target.getBoundingClientRect();
          if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') continue;
          const name = el.id || el.className || el.tagName;
          if (r.width < 43.5 || r.height < 43.5) out.push(name + ' ' + Math.round(r.width) + 'x' + Math.round(r.height));
        }
        return out;""")  # type: ignore[no-any-return]


def _contrast(drv: WebDriver, css: str, prop: str) -> float:
    """The contrast ratio of ``prop`` (a colour) of ``css`` against the page's background."""
    return float(drv.execute_script("""
        const c = getComputedStyle(document.querySelector(arguments[0]))[arguments[1]];
        const rgb = (s) => s.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number);
        const lin = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
        const lum = (v) => { const [r, g, b] = v.map(lin);
          return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
        const a = lum(rgb(c)), b = lum([255, 255, 255]), bg = lum(rgb(getComputedStyle(document.body).backgroundColor));
        const ratio = (x, y) => (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
        return Math.min(ratio(a, b), ratio(a, bg));""", css, prop))


@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
def test_every_screen_is_accessible(browser: WebDriver, server: Server, data: Path) -> None:
    """axe-core finds nothing serious or critical on any screen; every control is at
    least 44×44 px; the turn outline and the focus ring have 3:1 contrast."""
    axe = _axe()
    drv = browser
    screens: dict[str, list[str]] = {}

    def check(name: str) -> None:
        assert _too_small(drv) == [], name
        if axe is None:
            return
        if not drv.execute_script("return !!window.axe"):
            drv.execute_script(axe)
        found = drv.execute_async_script("""
            const done = arguments[arguments.length - 1];
            axe.run(document, { resultTypes: ['violations'] }).then((r) => done(r.violations
              .filter((v) => v.impact === 'serious' || v.impact === 'critical')
              .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', '))));""")
        screens[name] = found

    drv.get(server.url)
    drv.execute_script("localStorage.clear(); sessionStorage.clear()")
    drv.get(server.url)
    wait_for(drv, "#start")
    check("start page")
    start_game(drv, server, names="Ann\nBob\nCy")
    check("card grid")
    for c in ("5", "6", "7"):
        card(drv, c)
    check("decision")
    assert _contrast(drv, ".seat.turn", "borderTopColor") >= 3
    # the focus ring: the colour of the :focus-visible outline (the turn colour)
    ring = drv.execute_script("""for (const s of document.styleSheets) for (const r of s.cssRules)
        if (r.selectorText === ':focus-visible') return r.style.outlineColor; return null""")
    assert ring == "var(--turn)"
    drv.execute_script("document.querySelector('.seat.turn').style.borderTopColor = 'var(--turn)'")
    assert _contrast(drv, ".seat.turn", "borderTopColor") >= 3
    drv.execute_script("for (const d of document.querySelectorAll('details')) d.open = true")
    check("settings and rules open")
    for _ in range(3):
        act(drv, "stay")
    check("round summary")
    press(drv, "li[data-step='0'] button.step")
    wait_for(drv, "#ruling")
    check("ruling")
    manual = start_game(drv, server, names="Ann\nBob", mode="manual")
    assert manual
    check("score pad")
    assert all(v == [] for v in screens.values()), screens
    if axe is not None:
        assert len(screens) == 7  # axe-core ran on every screen


def _walkthrough_moves(seed: int, threshold: int, players: int = 3) -> list[str]:
    """A whole Flip 7 game of ``players`` to 200: the cards of a seeded shuffle, each player
    hitting until their line is worth ``threshold`` (the other decisions: the first legal)."""
    import random

    from flip7ref import Game
    from flip7ref.play.strategies import ThresholdStrategy

    state = Game("flip7", players).new_initial_state(seed, dealer=0)
    strategy, rng = ThresholdStrategy(threshold), random.Random(seed)
    while not state.is_terminal():
        if state.current_player < 0:
            state = state.apply_chance(state.sample_chance())
        else:
            state = state.apply(strategy.choose(state, rng))
    return state.history()


@pytest.mark.skipif(not os.environ.get("FLIP7REF_TAPS"), reason="the taps-per-game walk-through (3 minutes): FLIP7REF_TAPS=1")
@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
def test_taps_per_game_walkthrough(browser: WebDriver, server: Server, data: Path) -> None:
    """Referee mode, 3 players, to 200, every card and decision tapped with real touch
    events on a phone: one tap per step, no step recorded that was not tapped (the
    figures go to docs/table.md)."""
    moves = _walkthrough_moves(seed=2026, threshold=20)
    drv = browser
    gid = start_game(drv, server, names="Ann\nBob\nCy")
    taps = 0
    started = time.monotonic()
    for move in moves:
        before = _version(drv)
        if move.startswith("chance "):
            touch(drv, f"button.card[data-card='{move.split()[1]}']")
        else:
            touch(drv, f"button.act[data-action='{move}']")
        taps += 1
        WebDriverWait(drv, 10).until(lambda d, want=before + 1: _version(d) == want)
    seconds = time.monotonic() - started
    history = [f"chance {s['draw']}" if "draw" in s else s["action"] for s in steps_of(data, gid)]
    assert history == moves  # every tap one step, none lost, none doubled
    assert drv.find_elements(By.ID, "winner")
    rounds = len(saved(data, gid).get("rounds", [])) or int(drv.execute_script("return G.pad.rounds.length"))
    cards = sum(m.startswith("chance ") for m in moves)
    print(f"\ntaps per game: {taps} ({cards} cards, {taps - cards} decisions, {rounds} rounds, {seconds:.0f} s)")


# ---------------------------------------------------------------- issue 45: seen at a real table (phones, real touch)


def game_to_its_last_step(drv: WebDriver, srv: Server, names: str = "Ann\nBob\nCy") -> str:
    """A whole Flip 7 game of ``names`` (``_walkthrough_moves``) posted to the server but for
    its last step, and the page opened on it; returns the CSS of the last step's button."""
    import httpx

    moves = _walkthrough_moves(seed=2026, threshold=20, players=len(names.split()))
    gid = start_game(drv, srv, names=names)
    v = _version(drv)
    with httpx.Client(base_url=srv.base, timeout=30) as client:
        for move in moves[:-1]:
            card_id = move.split()[1] if move.startswith("chance ") else None
            body = {"version": v, "card": card_id} if card_id else {"version": v, "action": move}
            r = client.post(f"/api/games/{gid}/{'reveal' if card_id else 'act'}", json=body)
            assert r.status_code == 200, r.text
            v = r.json()["state"]["version"]
    drv.refresh()
    WebDriverWait(drv, 10).until(lambda d: _version(d) == v)
    last = moves[-1]
    return f"button.card[data-card='{last.split()[1]}']" if last.startswith("chance ") else f"button.act[data-action='{last}']"


def to_the_bottom(drv: WebDriver) -> None:
    """Scroll the page to its end (the log, the settings), as a player reading the log does."""
    drv.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
    assert drv.execute_script("return window.scrollY") > 200


@pytest.mark.parametrize("size", PHONES, ids=PHONE_IDS)
def test_every_button_has_readable_text_in_every_state(browser: WebDriver, server: Server, data: Path) -> None:
    """Item 1: every shown button's text against the colour behind it (computed in the page,
    WCAG 2) is at least 4.5:1, in a round in play, the correction preview (its "Make this
    correction" was white on white), the round summary and the game's end."""
    drv = browser
    seen: dict[str, tuple[int, list[str]]] = {}
    start_game(drv, server, names="Ann\nBob\nCy")
    seen["card grid"] = low_contrast(drv)
    for c in ("5", "6", "7"):
        touch_step(drv, f"button.card[data-card='{c}']")
    seen["decision"] = low_contrast(drv)
    button = wait_for(drv, "li[data-step='1'] button.fix")
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    touch(drv, "li[data-step='1'] button.fix")
    wait_for(drv, "#fix-input").send_keys("8")
    touch(drv, "#fix-check")
    confirm = wait_for(drv, "#fix-confirm")
    assert in_view(drv, confirm) is None
    seen["correction preview"] = low_contrast(drv)
    touch(drv, "#fix-cancel")
    for _ in range(3):
        touch_step(drv, "button.act[data-action='stay']")
    wait_for(drv, "#summary")
    seen["round summary"] = low_contrast(drv)
    touch_step(drv, game_to_its_last_step(drv, server))
    wait_for(drv, "#winner")
    seen["game end"] = low_contrast(drv)
    assert {k: v[1] for k, v in seen.items()} == {k: [] for k in seen}
    assert all(n >= 5 for n, _ in seen.values()), seen  # buttons were there to check


@pytest.mark.parametrize("size", PHONES, ids=PHONE_IDS)
def test_two_quick_taps_on_one_card_deal_it_to_two_players(browser: WebDriver, server: Server, data: Path) -> None:
    """Item 2: two 9s dealt one after the other (real taps 0.3 s apart on the same card): the
    page still asks for a card after the first, so both are recorded; it says so, naming
    both players, with a one-tap undo of the second."""
    drv = browser
    gid = start_game(drv, server, names="Ann\nBob\nCy")
    before = _version(drv)
    touch(drv, "button.card[data-card='9']", taps=2, gap=0.3)
    WebDriverWait(drv, 10).until(lambda d: _version(d) == before + 2)
    assert [s["draw"] for s in steps_of(data, gid)] == ["9", "9"]
    assert chips(drv, 1) == ["9"] and chips(drv, 2) == ["9"]
    notice = wait_for(drv, "#msg")
    assert notice.text.startswith("9 entered twice in a row: for Bob and for Cy.")
    undo = wait_for(drv, "#undo-twice")
    assert in_view(drv, undo) is None
    touch_step(drv, "#undo-twice")
    assert [s["draw"] for s in steps_of(data, gid)] == ["9"]
    assert chips(drv, 1) == ["9"] and chips(drv, 2) == []


@pytest.mark.parametrize("size", PHONES, ids=PHONE_IDS)
@pytest.mark.rules("F7-004")
def test_a_refusal_is_in_sight_when_the_page_is_scrolled(browser: WebDriver, server: Server, data: Path) -> None:
    """Item 3: scrolled down to the log, a tap on a card the deck cannot give (a second 0) is
    refused; the refusal is on the screen, not above it."""
    drv = browser
    gid = start_game(drv, server, names="Ann\nBob\nCy")
    for c in ("0", "5", "6"):
        touch_step(drv, f"button.card[data-card='{c}']")
    touch_step(drv, "button.act[data-action='hit']")  # Bob
    to_the_bottom(drv)
    touch(drv, "button.card[data-card='0']", scroll=False)  # the dock is in sight at the bottom
    refused = "No 0 can be revealed"
    WebDriverWait(drv, 10, ignored_exceptions=_RERENDERED).until(lambda d: refused in d.find_element(By.ID, "msg").text)
    assert drv.execute_script("return window.scrollY") > 200  # still scrolled down
    assert in_view(drv, drv.find_element(By.ID, "msg")) is None
    assert "F7-004" in drv.find_element(By.ID, "msg").text
    assert [s.get("draw", s.get("action")) for s in steps_of(data, gid)] == ["0", "5", "6", "hit"]


@pytest.mark.parametrize("size", PHONES, ids=PHONE_IDS)
def test_the_winner_is_in_sight_at_the_game_end(browser: WebDriver, server: Server, data: Path) -> None:
    """Item 4: the last card of a whole 5-player game tapped while the page is scrolled down:
    the winner is on the screen, above the last round's (tall) summary."""
    drv = browser
    last = game_to_its_last_step(drv, server, names="Annemarie\nBartholomew\nCyrille\nDorothea\nEvangeline")
    to_the_bottom(drv)
    touch(drv, last, scroll=False)
    winner = wait_for(drv, "#winner")
    assert text(drv, "#winner").startswith("Game over — Winner: ")
    assert in_view(drv, winner) is None
    order = drv.execute_script("return [...document.querySelectorAll('#end, #summary')].map((e) => e.id)")
    assert order == ["end", "summary"]


def dock_share(drv: WebDriver) -> float:
    """How much of the viewport's height the dock (the turn's controls at the bottom) covers."""
    return float(drv.execute_script(
        "const r = document.getElementById('dock').getBoundingClientRect();"
        "return (Math.min(r.bottom, innerHeight) - Math.max(r.top, 0)) / innerHeight"))  # fmt: skip


def card_rows(drv: WebDriver) -> tuple[int, int]:
    """The rows of the card grid, and how many of them show every card whole and uncovered."""
    rows = drv.execute_script("""
        const rows = new Map();
        for (const b of document.querySelectorAll('#cards button.card')) {
          const r = b.getBoundingClientRect(), top = Math.round(r.top);
          const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
          const seen = r.top >= 0 && r.bottom <= innerHeight && !!hit && b.contains(hit);
          rows.set(top, (rows.get(top) ?? true) && seen);
        }
        return [...rows.values()];""")
    return len(rows), sum(bool(x) for x in rows)


@pytest.mark.parametrize("size", PHONES, ids=PHONE_IDS)
def test_the_dock_leaves_the_table_in_sight(browser: WebDriver, server: Server, data: Path, size: tuple[int, int]) -> None:
    """Item 5: the dock covers at most 40% of the screen while a card is asked for, at a
    decision and under the round summary, and every row of the card grid shows whole; a
    card button's name read out starts with its visible text."""
    drv = browser
    start_game(drv, server, names="Ann\nBob\nCy")
    shares = {"card grid": dock_share(drv)}
    rows, whole = card_rows(drv)
    assert rows >= 4 and whole == rows, (rows, whole)
    for c in ("5", "6", "7"):
        touch_step(drv, f"button.card[data-card='{c}']")
    shares["decision"] = dock_share(drv)
    for _ in range(3):
        touch_step(drv, "button.act[data-action='stay']")
    wait_for(drv, "#summary")
    shares["round summary"] = dock_share(drv)
    assert in_view(drv, drv.find_element(By.ID, "summary-title")) is None
    rows, whole = card_rows(drv)
    assert rows >= 4 and whole == rows, (rows, whole)
    assert all(x <= 0.40 for x in shares.values()), shares
    names = drv.execute_script("""return [...document.querySelectorAll('#cards button.card')].map((b) =>
        [b.innerText.replace(/\\s+/g, ' ').trim(), b.getAttribute('aria-label')])""")
    assert names and all(label.startswith(shown) for shown, label in names), names
    assert ["9 ×9", "9 ×9, 9 left"] in names
    if size == PHONE:
        shot(drv, "round-summary-phone")


@pytest.mark.parametrize("size", PHONES, ids=PHONE_IDS)
def test_dealer_mode_says_what_it_trusts_and_asks_before_undoing_a_card(browser: WebDriver, server: Server, data: Path) -> None:
    """Item 7: dealer mode says on the page that any step can be undone (a bust too), and an
    undo of a dealt card needs the table's yes: refused, nothing is undone; agreed, it is."""
    drv = browser
    gid = start_game(drv, server, names="Ann\nBob", mode="dealer", seed="11")
    trust = wait_for(drv, "#dealer-trust")
    assert trust.is_displayed() and trust.text.startswith("Dealer mode trusts the table: any step can be undone, a bust too.")
    touch_step(drv, "#deal")
    dealt = steps_of(data, gid)[-1]["draw"]
    drv.execute_script("window.asked = []; window.confirm = (q) => { window.asked.push(q); return false; }")
    before = _version(drv)
    touch(drv, "#undo")
    WebDriverWait(drv, 10).until(lambda d: d.execute_script("return window.asked.length") == 1)
    time.sleep(0.5)  # time for an undo to land, if it were going to
    assert _version(drv) == before and len(steps_of(data, gid)) == 1
    name = drv.execute_script("return cardName(arguments[0])", dealt)
    assert drv.execute_script("return window.asked[0]").startswith(f"Undo the card just dealt ({name})? Everyone has seen it")
    drv.execute_script("window.confirm = (q) => { window.asked.push(q); return true; }")
    touch_step(drv, "#undo")
    assert steps_of(data, gid) == [] and "(1)" in text(drv, "#undone")


@pytest.mark.parametrize("size", PHONES, ids=PHONE_IDS)
def test_the_dutch_flip7_card_names_are_marked_as_not_published(browser: WebDriver, server: Server, data: Path) -> None:
    """Item 8: Flip 7 has no Dutch edition on file: in Dutch its card names carry a visible
    note; the Dutch Vengeance cards (from the Dutch edition) and English Flip 7 do not.  A
    rule is looked up by its id under Settings, in the game's language."""
    drv = browser
    start_game(drv, server, names="Ann\nBob", lang="nl")
    note = wait_for(drv, "#names-note")
    assert note.is_displayed()
    assert note.text.startswith(
        "De Nederlandse kaartnamen van Flip 7 (Bevries, Draai drie, Tweede kans) komen niet uit een uitgegeven Nederlandse editie"
    )
    touch(drv, "#settings summary")
    wait_for(drv, "#rule-id").send_keys("f7-004")
    touch(drv, "#rule-go")
    WebDriverWait(drv, 10).until(lambda d: d.find_element(By.ID, "rule-found").text)
    assert text(drv, "#rule-found").startswith("F7-004 79 kaarten zijn getalkaarten")
    start_game(drv, server, names="Ann\nBob", edition="vengeance", lang="nl")
    assert not drv.find_elements(By.ID, "names-note")
    start_game(drv, server, names="Ann\nBob")
    assert not drv.find_elements(By.ID, "names-note")
