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
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
SHOTS = ROOT / "docs" / "table"
PHONE = (390, 844)
DESKTOP = (1280, 900)


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

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A ``flip7ref table`` process."""

    def __init__(self, data: Path, *extra: str) -> None:
        self.port = _free_port()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        cmd = [sys.executable, "-m", "flip7ref", "table", "--no-browser", "--port", str(self.port), "--data", str(data), *extra]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        match = re.search(r"(http://\S+)", line)
        assert match, f"the server printed no address: {line!r}"
        self.url = match.group(1)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("the server did not start listening")

    def kill(self) -> None:
        """End the process at once (SIGKILL: nothing is flushed on the way out)."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:  # pragma: no cover
                self.proc.kill()
                self.proc.wait(10)
        assert self.proc.stdout is not None
        return self.proc.stdout.read()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    folder.mkdir()
    return folder


@pytest.fixture
def server(data: Path) -> Iterator[Server]:
    srv = Server(data)
    yield srv
    srv.stop()


def _driver(tmp: Path, size: tuple[int, int]) -> WebDriver:
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={tmp}",
        f"--window-size={size[0]},{size[1]}",
    ):  # fmt: skip
        opts.add_argument(flag)
    drv = webdriver.Chrome(options=opts, service=Service(executable_path=CHROMEDRIVER))
    drv.set_window_size(*size)
    return drv


@pytest.fixture(params=[PHONE, DESKTOP], ids=["phone", "desktop"])
def size(request: pytest.FixtureRequest) -> tuple[int, int]:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def browser(tmp_path: Path, size: tuple[int, int]) -> Iterator[WebDriver]:
    drv = _driver(tmp_path / "profile", size)
    yield drv
    drv.quit()


def _version(drv: WebDriver) -> Any:
    return drv.execute_script("return (typeof G !== 'undefined' && G) ? G.version : null")


def wait_for(drv: WebDriver, css: str, timeout: float = 10) -> Any:
    return WebDriverWait(drv, timeout).until(lambda d: d.find_element(By.CSS_SELECTOR, css))


def tap(drv: WebDriver, css: str) -> None:
    """Click an element and wait for the game's version to change."""
    before = _version(drv)
    element = wait_for(drv, css)
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()
    WebDriverWait(drv, 10).until(lambda d: _version(d) != before)


def card(drv: WebDriver, card_id: str) -> None:
    tap(drv, f"button.card[data-card='{card_id}']")


def act(drv: WebDriver, action: str) -> None:
    tap(drv, f"button.act[data-action='{action}']")


def text(drv: WebDriver, css: str) -> str:
    return str(wait_for(drv, css).text)


def shot(drv: WebDriver, name: str) -> None:
    if os.environ.get("FLIP7REF_SCREENSHOTS"):
        SHOTS.mkdir(parents=True, exist_ok=True)
        drv.save_screenshot(str(SHOTS / f"{name}.png"))


def start_game(drv: WebDriver, srv: Server, *, names: str, edition: str = "flip7", mode: str = "referee",
               lang: str = "en", seed: str = "") -> str:  # fmt: skip
    drv.get(srv.url)
    wait_for(drv, "#start")
    if lang != "en":
        drv.find_element(By.CSS_SELECTOR, f"#lang option[value='{lang}']").click()
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
    if drv.find_elements(By.ID, "deal"):
        tap(drv, "#deal")
    elif drv.find_elements(By.CSS_SELECTOR, "button.act[data-action='hit']"):
        act(drv, "hit")
    else:
        act(drv, drv.find_element(By.CSS_SELECTOR, "button.act").get_attribute("data-action") or "")


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
    assert not drv.find_elements(By.CSS_SELECTOR, "button.card[data-card='0']")  # not offered either
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
    # a tap on a step shows its ruling with the rule ids
    drv.find_element(By.CSS_SELECTOR, "li[data-step='2'] button.step").click()
    ruling = text(drv, "#ruling")
    assert "F7-070" in ruling or "F7-072" in ruling
    if size == DESKTOP:
        shot(drv, "ruling")
    data_ = saved(data, gid)
    assert [s.get("draw") for s in data_["steps"] if "draw" in s][:6] == ["5", "flip_three", "8", "second_chance", "8", "0"]
    from flip7ref.replay import replay

    assert replay(data_).agrees


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
    assert "Ruilen: Bob 5 ⇄ Cy 9" in text(drv, "button.act[data-action='swap 1 0 2 0']")
    shot(drv, "vengeance-swap")
    act(drv, "swap 1 0 2 0")
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


@pytest.mark.parametrize("size", [PHONE], ids=["phone"])
@pytest.mark.rules("F7-120", "F7-121")
def test_manual_score_entry_to_a_win(browser: WebDriver, server: Server, data: Path) -> None:
    """The score pad alone: round scores typed in, a tie for the lead at 200 plays on, then a win."""
    drv = browser
    gid = start_game(drv, server, names="Ann\nBob", mode="manual")

    def enter(*scores: int) -> None:
        for i, s in enumerate(scores):
            box = drv.find_element(By.CSS_SELECTOR, f"input.score-in[data-seat='{i}']")
            box.clear()
            box.send_keys(str(s))
        tap(drv, "#add-round")

    enter(120, 80)
    enter(80, 120)
    assert "another round" in text(drv, "#tie")
    enter(15, 0)
    assert "Ann" in text(drv, "#pad-winner")
    assert [c.text for c in drv.find_elements(By.CSS_SELECTOR, "#totals td")] == ["Total", "215", "200"]
    assert not drv.find_elements(By.ID, "add-round")
    shot(drv, "manual-score-pad")
    meta = json.loads((data / f"{gid}.table.json").read_text())
    assert meta["rounds"] == [[120, 80], [80, 120], [15, 0]]


def chips(drv: WebDriver, seat: int) -> list[str]:
    """The cards in front of a seat, as the page shows them."""
    return [e.text for e in drv.find_elements(By.CSS_SELECTOR, f".seat[data-seat='{seat}'] .line > *")]


def fix(drv: WebDriver, step: int, card_id: str, *, refused: bool = False) -> None:
    """Tap ✎ on a step of the log, type the right card and enter it."""
    before = _version(drv)
    button = wait_for(drv, f"li[data-step='{step}'] button.fix")
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    field = wait_for(drv, f"li[data-step='{step}'] #fix-input")
    field.send_keys(card_id)
    drv.find_element(By.CSS_SELECTOR, f"li[data-step='{step}'] #fix-form button[type=submit]").click()
    if refused:
        WebDriverWait(drv, 10).until(lambda d: d.find_element(By.ID, "msg").text)
        assert _version(drv) == before
    else:
        WebDriverWait(drv, 10).until(lambda d: _version(d) != before)


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
    from flip7ref.replay import replay

    assert replay(saved(data, gid)).agrees
