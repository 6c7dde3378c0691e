"""The table referee's endpoints (Starlette's TestClient) and its game logic: good, bad,
stale and concurrent requests; saving, resuming, correcting a card; the score pad.

Skips when the ``[table]`` extra is not installed (fails in CI, which installs it).
"""

from __future__ import annotations

import argparse
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from flip7ref.checking.replay import load_transcript, replay
from flip7ref.cli import main
from flip7ref.core.errors import SpecError
from flip7ref.table.server import _defaults_query, is_local
from flip7ref.table.session import TableError, TableGame
from tests.table_helpers import require_table_extra

require_table_extra()

from starlette.testclient import TestClient  # noqa: E402

from flip7ref.table.app import create_app  # noqa: E402

THREE = {"edition": "flip7", "names": ["Ann", "Bob", "Cy"], "dealer": 0}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "games"


@pytest.fixture
def client(folder: Path) -> TestClient:
    return TestClient(create_app(folder))


def new_game(client: TestClient, **fields: Any) -> dict[str, Any]:
    r = client.post("/api/games", json={**THREE, **fields})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


class Play:
    """Steps on one game through the API, each with the version last seen."""

    def __init__(self, client: TestClient, gid: str) -> None:
        self.client, self.gid = client, gid
        self.state = client.get(f"/api/games/{gid}").json()

    def post(self, op: str, expect: int = 200, **body: Any) -> dict[str, Any]:
        r = self.client.post(f"/api/games/{self.gid}/{op}", json={"version": self.state["version"], **body})
        assert r.status_code == expect, r.text
        data: dict[str, Any] = r.json()
        if "state" in data:
            self.state = data["state"]
        return data

    def run(self, *steps: str) -> None:
        for step in steps:
            if step.startswith("@"):
                self.post("act", action=step[1:])
            else:
                self.post("reveal", card=step)


# the round of the browser test: Flip Three on Bob with a Second Chance inside, Ann busts
ROUND = ("5", "flip_three", "@target 1", "8", "second_chance", "8", "0", "@hit", "x2", "@hit", "7", "@hit", "3",
         "@stay", "@stay", "@hit", "3")  # fmt: skip


@pytest.mark.rules("F7-070", "F7-080", "F7-081", "F7-091", "F7-100", "F7-101")
def test_a_round_through_the_api_and_its_score_pad(client: TestClient, folder: Path) -> None:
    gid = new_game(client)["id"]
    play = Play(client, gid)
    assert play.state["current"] == -1 and play.state["receiver"] == 1  # a card for Bob, left of the dealer
    play.run(*ROUND)
    pad = play.state["pad"]
    assert pad["rounds"][0]["scores"] == [0, 26, 7]
    assert pad["totals"] == [0, 26, 7]
    bob = pad["rounds"][0]["breakdown"][1]
    assert (bob["numbers"], bob["multiplied"], bob["modifiers"], bob["bonus"], bob["score"]) == (13, 26, 0, 0, 26)
    assert pad["rounds"][0]["breakdown"][0]["busted"] is True
    csv_text = client.get(f"/api/games/{gid}/scores.csv").text
    assert csv_text.splitlines() == ["round,Ann,Bob,Cy", "1,0,26,7", "total,0,26,7"]
    data = load_transcript(folder / f"{gid}.json")  # the saved file is a valid transcript
    assert replay(data).agrees and replay(data).totals == (0, 26, 7)
    assert main(["replay", str(folder / f"{gid}.json")]) == 0
    assert main(["explain", "--transcript", str(folder / f"{gid}.json")]) == 0


@pytest.mark.rules("F7-004", "F7-007")
def test_a_card_that_cannot_be_there_is_refused_with_the_rule(client: TestClient) -> None:
    play = Play(client, new_game(client)["id"])
    play.run("0")
    before = play.state["version"]
    err = play.post("reveal", expect=400, card="0")
    assert "No 0 can be revealed now" in err["error"] and "1 in front of Bob" in err["error"]
    assert "F7-004" in err["rules"]
    assert [c["left"] for c in play.state["chance"] if c["card"] == "0"] == [0]  # shown dimmed in the fixed grid
    err = play.post("reveal", expect=400, card="nonsense")
    assert "nonsense" in err["error"]
    assert client.get(f"/api/games/{play.gid}").json()["version"] == before


@pytest.mark.rules("F7-007", "F7-080")
def test_a_fourth_second_chance_is_refused(folder: Path) -> None:
    tg = TableGame.create(folder, {**THREE})
    tg.reveal(tg.version, "second_chance")  # Bob keeps it
    tg.reveal(tg.version, "second_chance")  # Cy keeps it
    tg.reveal(tg.version, "second_chance")  # Ann keeps it
    tg.act(tg.version, "hit")  # Bob
    with pytest.raises(TableError) as info:
        tg.reveal(tg.version, "second_chance")
    assert "the deck holds 3, and all are out (1 in front of Ann, 1 in front of Bob, 1 in front of Cy)" in str(info.value)
    assert "F7-007" in info.value.rules


def test_stale_requests_get_state_changed_and_the_new_state(client: TestClient) -> None:
    play = Play(client, new_game(client)["id"])
    old = play.state["version"]
    play.run("5")
    r = client.post(f"/api/games/{play.gid}/reveal", json={"version": old, "card": "6"})
    assert r.status_code == 409
    body = r.json()
    assert body["error"].startswith("state changed")
    assert body["state"]["version"] == old + 1
    assert body["state"]["seats"][1]["line"] == ["5"]
    assert body["state"]["seats"][2]["line"] == []  # the stale 6 was not entered


def test_concurrent_taps_one_wins(client: TestClient, folder: Path) -> None:
    gid = new_game(client)["id"]
    version = client.get(f"/api/games/{gid}").json()["version"]
    results: list[int] = []
    barrier = threading.Barrier(6)

    def tap(card: str) -> None:
        barrier.wait()
        r = client.post(f"/api/games/{gid}/reveal", json={"version": version, "card": card})
        results.append(r.status_code)

    threads = [threading.Thread(target=tap, args=(c,)) for c in ("5", "6", "7", "8", "9", "10")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [200, 409, 409, 409, 409, 409]
    state = client.get(f"/api/games/{gid}").json()
    assert state["version"] == version + 1 and len(state["steps"]) == 1
    assert len(load_transcript(folder / f"{gid}.json")["steps"]) == 1


@pytest.mark.parametrize(
    ("op", "body", "status", "words"),
    [
        ("reveal", {"card": "5"}, 400, "version: missing"),
        ("reveal", {"version": "x", "card": "5"}, 400, "version: expected"),
        ("reveal", {"version": 0}, 400, "card: expected"),
        ("reveal", {"version": 0, "card": 5}, 400, "card: expected"),
        ("reveal", {"version": 0, "card": "13"}, 400, "13"),
        ("reveal", {"version": 0, "card": "5", "extra": 1}, 400, "unknown field 'extra'"),
        ("act", {"version": 0, "action": "hit"}, 400, "A card must be revealed first"),
        ("deal", {"version": 0}, 400, "real cards"),
        ("fix", {"version": 0, "step": 0, "card": "5"}, 400, "step: no step to correct yet (no card has been turned over)"),
        ("scores", {"version": 0, "scores": [1, 2, 3]}, 400, "typed in on a score pad only"),
        ("undo", {"version": 0}, 400, "nothing to undo"),
        ("redo", {"version": 0}, 400, "nothing to redo"),
        ("explode", {"version": 0}, 404, "unknown operation"),
    ],
)
def test_bad_requests_get_a_clear_error_and_change_nothing(
    client: TestClient, folder: Path, op: str, body: dict[str, Any], status: int, words: str
) -> None:
    gid = new_game(client)["id"]
    saved = (folder / f"{gid}.json").read_bytes()
    r = client.post(f"/api/games/{gid}/{op}", json=body)
    assert r.status_code == status
    assert words in r.json()["error"]
    assert "Traceback" not in r.text
    assert (folder / f"{gid}.json").read_bytes() == saved
    assert client.get(f"/api/games/{gid}").json()["version"] == 0


def test_a_rule_is_looked_up_by_its_id_in_the_games_language(client: TestClient) -> None:
    """GET /api/games/{id}/rule/{rule}: the rule in words, in the game's language, any case of
    the id; an id the edition does not hold is a 404 naming the edition and an id it has."""
    from flip7ref.core.i18n import rule_text
    from flip7ref.core.spec import load_edition

    gid = new_game(client, lang="nl")["id"]
    r = client.get(f"/api/games/{gid}/rule/f7-004")
    assert r.status_code == 200
    assert r.json() == {"id": "F7-004", "text": rule_text(load_edition("flip7"), "F7-004", "nl")}
    assert r.json()["text"].startswith("79 kaarten zijn getalkaarten")
    for raw in ("F7-999", "V-001", "%C2%B2", ""):
        r = client.get(f"/api/games/{gid}/rule/{raw}")
        assert r.status_code == 404, raw
        assert r.json()["error"].endswith("is not a rule id of Flip 7 (such as F7-001)"), r.json()
    venge = new_game(client, edition="vengeance")["id"]
    assert client.get(f"/api/games/{venge}/rule/v-001").json()["id"] == "V-001"


def test_malformed_bodies_and_unknown_addresses(client: TestClient) -> None:
    gid = new_game(client)["id"]
    for raw in (b"not json", b"[1, 2]", b"\xff\xfe"):
        r = client.post(f"/api/games/{gid}/reveal", content=raw, headers={"content-type": "application/json"})
        assert r.status_code == 400 and "error" in r.json()
    r = client.post(f"/api/games/{gid}/reveal", content=b"{" + b" " * 20000 + b"}", headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert client.get("/api/games/no-such-game").status_code == 404
    assert client.get("/api/games/..%2Fetc").status_code == 404
    assert client.get("/api/nothing").json()["error"].startswith("no such address")
    assert client.get(f"/api/games/{gid}/ruling/99").status_code == 404
    assert client.get(f"/api/games/{gid}/ruling/x").status_code == 404
    assert client.delete(f"/api/games/{gid}").status_code == 405


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"names": []}, "Enter the players' names, one on each line."),
        ({"names": ["A"] * 19}, "A game needs 1 to 18 players; 19 names were entered."),
        ({"names": ["A", "A"]}, "Two players are called “A”: give them different names."),
        ({"names": "Ann"}, "Enter the players' names"),
        ({"names": ["A", " "]}, "Every player needs a name."),
        ({"edition": "chess"}, "edition"),
        ({"mode": "solo"}, "mode"),
        ({"dealer": 3}, "Choose the dealer among the 3 players."),
        ({"options": {"tie": "coin-flip"}}, "tie: “coin-flip” is not one of its choices (Another round, Shared win)."),
        ({"options": {"target_score": "lots"}}, "target_score: “lots” is not possible: enter a whole number from 1 to 10000."),
        ({"mode": "dealer", "seed": "x" * 65}, "The deck's seed is a whole number or a word of at most 64 letters."),
        ({"lang": "nl", "names": ["A", "A"]}, "Twee spelers heten „A”: geef ze verschillende namen."),
        ({"options": {"nope": "x"}}, "unknown option"),
        ({"lang": "xx"}, "lang"),
        ({"colour": "red"}, "unknown field"),
    ],
)
def test_bad_new_games_are_refused(client: TestClient, folder: Path, fields: dict[str, Any], words: str) -> None:
    r = client.post("/api/games", json={**THREE, **fields})
    assert r.status_code == 400
    assert words in r.json()["error"]
    assert not folder.exists() or not list(folder.iterdir())


def test_undo_redo_and_history(client: TestClient) -> None:
    play = Play(client, new_game(client)["id"])
    play.run("5", "6", "7")
    play.post("undo")
    play.post("undo")
    assert [s["move"] for s in play.state["steps"]] == ["chance 5"]
    assert play.state["redo"] is True
    play.post("redo")
    assert [s["move"] for s in play.state["steps"]] == ["chance 5", "chance 6"]
    play.run("9")  # a new step drops what was left to redo
    assert play.state["redo"] is False
    assert play.state["seats"][0]["line"] == ["9"]


@pytest.mark.rules("F7-040")
def test_correcting_an_earlier_card_replays_the_later_steps(client: TestClient) -> None:
    play = Play(client, new_game(client)["id"])
    play.run("5", "6", "7", "@hit", "9")  # Bob 5, 9
    out = play.post("fix", step=1, card="8")  # Cy's card was an 8, not a 6
    assert out["kept"] == 3
    assert [s["line"] for s in play.state["seats"]] == [["7"], ["5", "9"], ["8"]]
    out = play.post("fix", step=4, card="5")  # Bob's hit was a second 5: Bob busts
    assert out["kept"] == 0
    assert play.state["seats"][1]["status"] == "busted"
    err = play.post("fix", expect=400, step=3, card="5")
    assert "decision" in err["error"]
    other = Play(client, new_game(client)["id"])
    other.run("0", "8", "9")
    err = other.post("fix", expect=400, step=2, card="0")  # the only 0 is Bob's
    assert "1 in front of Bob" in err["error"] and "F7-004" in err["rules"]


def test_dealer_mode_deals_the_seeded_deck(client: TestClient) -> None:
    from flip7ref import Game

    play = Play(client, new_game(client, mode="dealer", seed=11)["id"])
    expected = Game("flip7", 3).new_initial_state(11).next_card()
    play.post("deal")
    assert play.state["steps"][0]["card"] == expected
    err = play.post("reveal", expect=400, card="5")
    assert "virtual deck" in err["error"]


@pytest.mark.rules("F7-120", "F7-121")
def test_manual_score_pad_totals_tie_and_winner(client: TestClient, folder: Path) -> None:
    gid = new_game(client, mode="manual", names=["Ann", "Bob"])["id"]
    play = Play(client, gid)
    play.post("scores", scores=[120, 80])
    play.post("scores", scores=[80, 120])
    assert play.state["pad"]["tied"] == [0, 1] and not play.state["finished"]
    err = play.post("scores", expect=400, scores=[-5, 0])
    assert err["error"] == "Ann: -5 points is not possible: a round never scores below 0 in Flip 7."
    err = play.post("scores", expect=400, scores=[1])
    assert err["error"] == "Enter a score for each of the 2 players."
    play.post("scores", scores=[15, 0])
    assert play.state["finished"] and play.state["pad"]["winners"] == [0]
    assert play.state["pad"]["totals"] == [215, 200]
    err = play.post("scores", expect=400, scores=[1, 1])
    assert "over" in err["error"]
    play.post("undo")
    assert not play.state["finished"]
    lines = client.get(f"/api/games/{gid}/scores.csv").text.splitlines()
    assert lines == ["round,Ann,Bob", "1,120,80", "2,80,120", "total,200,200"]
    resumed = TableGame.load(folder / f"{gid}.table.json")
    assert resumed.manual == [[120, 80], [80, 120]] and resumed.manual_redo == [[15, 0]]


def test_shared_win_option_ends_a_tied_manual_game(folder: Path) -> None:
    tg = TableGame.create(folder, {"names": ["A", "B"], "mode": "manual", "options": {"tie": "shared-win"}})
    tg.enter_scores(tg.version, [171, 171])  # the most a round can score (round_bounds)
    tg.enter_scores(tg.version, [29, 29])
    assert tg.view()["pad"]["winners"] == [0, 1] and tg.view()["finished"]


@pytest.mark.rules("V-080")
def test_brutal_mode_manual_scores_may_be_negative(folder: Path) -> None:
    tg = TableGame.create(folder, {"edition": "vengeance", "names": ["A", "B"], "mode": "manual", "options": {"brutal": "true"}})
    tg.enter_scores(tg.version, [-15, 30])
    assert tg.view()["pad"]["totals"] == [-15, 30]


def test_resume_from_the_files_and_the_saved_list(client: TestClient, folder: Path) -> None:
    play = Play(client, new_game(client)["id"])
    play.run("5", "6", "7", "@hit", "9")
    play.post("undo")
    fresh = TestClient(create_app(folder))  # a new server on the same folder
    listed = fresh.get("/api/meta").json()["saved"]
    assert [g["id"] for g in listed] == [play.gid]
    state = fresh.post("/api/games/open", json={"id": play.gid}).json()["state"]
    assert state["seats"] == play.state["seats"] and state["redo"] is True and state["version"] == play.state["version"]
    tg = TableGame.load(folder / f"{play.gid}.json")
    assert tg.state == TableGame.load(folder / f"{play.gid}.json").state
    assert [st.history()[-1] for st in tg.states[1:]] == ["chance 5", "chance 6", "chance 7", "hit"]


def test_a_corrupt_or_foreign_file_is_refused_clearly(folder: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(Exception) as info:
        TableGame.load(bad)
    assert "JSON" in str(info.value)
    wrong = tmp_path / "wrong.json"
    steps = [{"seat": 0, "action": "hit"}]  # the deal comes first
    wrong.write_text(json.dumps({"format": 1, "edition": "flip7", "players": 2, "dealer": 0, "steps": steps}))
    with pytest.raises(TableError) as info2:
        TableGame.load(wrong)
    assert "step 0 cannot be replayed" in str(info2.value)
    assert main(["table", "--no-browser", "--resume", str(wrong), "--data", str(folder)]) == 2


def test_a_failed_save_leaves_the_game_as_it_was(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tg = TableGame.create(folder, {**THREE})
    tg.reveal(tg.version, "5")
    saved = (folder / f"{tg.id}.json").read_bytes()

    def broken(path: Path, text: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("flip7ref.table.session.atomic_write", broken)
    with pytest.raises(TableError) as info:
        tg.reveal(tg.version, "6")
    assert info.value.status == 500 and "No space left" in str(info.value)
    assert len(tg.states) == 2 and tg.version == 1
    assert (folder / f"{tg.id}.json").read_bytes() == saved


@pytest.mark.rules("F7-020", "F7-030")
def test_rulings_name_rules_options_and_the_readings_played(client: TestClient) -> None:
    play = Play(client, new_game(client)["id"])
    play.run("5")
    ruling = client.get(f"/api/games/{play.gid}/ruling/0").json()
    assert ruling["move"] == "chance 5"
    assert "F7-020" in [r["id"] for r in ruling["rules"]]
    deal = next(o for o in ruling["options"] if o["name"] == "initial_deal")
    assert [r["in_force"] for r in deal["readings"]] == [True, False]
    played = {p["reading"]: p for p in deal["played"]}
    assert played["deal"]["events"] == ["Bob is dealt 5"]
    assert "diverges" in played["none"]  # with no initial deal, no card is dealt first
    start = next(o for o in ruling["options"] if o["name"] == "start_seat")
    assert {p["reading"]: p["events"] for p in start["played"]}["dealer"] == ["Ann is dealt 5"]


def test_a_token_is_required_beyond_this_machine(folder: Path) -> None:
    app = create_app(folder, token_required=True)
    client = TestClient(app)
    table = app.state.table
    assert client.post("/api/games", json=THREE).status_code == 403
    meta = client.get("/api/meta").json()
    assert meta["authorized"] is False and meta["saved"] == []
    r = client.post("/api/games", json=THREE, headers={"X-Table-Token": table.token})
    gid, token = r.json()["id"], r.json()["token"]
    assert client.get(f"/api/games/{gid}").status_code == 403
    assert client.get(f"/api/games/{gid}?token=wrong").status_code == 403
    assert client.get(f"/api/games/{gid}?token={token}").status_code == 200
    other = client.post("/api/games", json=THREE, headers={"X-Table-Token": table.token}).json()["id"]
    assert client.get(f"/api/games/{other}?token={token}").status_code == 403  # a game's token opens that game only


def test_the_command_line(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert is_local("127.0.0.1") and is_local("localhost") and is_local("::1") and not is_local("0.0.0.0")
    args = argparse.Namespace(edition="vengeance", option=["brutal=true"])
    assert _defaults_query(args) == "edition=vengeance&o.brutal=true"
    assert main(["table", "--no-browser", "--option", "tie=x", "--data", str(folder)]) == 2
    assert "tie" in capsys.readouterr().err
    assert main(["table", "--no-browser", "--port", "0", "--data", str(folder)]) == 2


def test_resume_refuses_an_edition_or_option_the_saved_game_contradicts(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`table --resume FILE` once ignored --edition and --option silently (the saved game keeps
    its own): a contradiction is a usage error naming both, an agreeing value is accepted."""
    import uvicorn

    class NoServer:  # no server, no uvicorn.Config either (its logging set-up replaces the process's handlers)
        started = False

        def __init__(self, config: object) -> None:
            pass

        def run(self) -> None:
            self.started = True

    monkeypatch.setattr(uvicorn, "Config", lambda *args, **kwargs: None)
    monkeypatch.setattr(uvicorn, "Server", NoServer)
    tg = TableGame.create(folder, {**THREE, "options": {"tie": "shared-win"}})
    base = ["table", "--no-browser", "--resume", str(tg.path), "--data", str(folder)]
    refused = {
        ("--edition", "vengeance"): f"--edition vengeance: the saved game {tg.path} is flip7; drop --edition or start a "
        "new game",
        ("--option", "tie=another-round"): f"--option tie=another-round: the saved game {tg.path} plays tie=shared-win; "
        "drop --option or start a new game",
    }
    for flag, message in refused.items():
        assert main([*base, *flag]) == 2
        assert capsys.readouterr().err == f"flip7ref: error: {message}\n"
    assert main([*base, "--option", "brutal=true"]) == 2  # a Vengeance option
    err = capsys.readouterr().err
    assert err.startswith("flip7ref: error: --option: unknown option 'brutal' for edition flip7 (known options: ")
    assert err.endswith(f"; the saved game {tg.path} is flip7; drop --option or start a new game\n")
    assert err.count("\n") == 1
    for flags in ([], ["--edition", "flip7"], ["--option", "tie=shared-win", "-o", "target_score=200"]):
        assert main([*base, *flags]) == 0
        assert capsys.readouterr().err == ""


def test_missing_extra_gives_a_one_line_hint(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "starlette" else real(name, *a))
    assert main(["table", "--no-browser"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "flip7ref: error: the table referee needs its extra [table] (Starlette, uvicorn, segno): "
        "pip install 'starlette>=0.37' 'uvicorn>=0.29' 'segno>=1.5' (keeps the installed flip7ref); or, from a checkout, "
        "flip7ref and the extra: pip install '.[table]' (builds flip7ref again)"
    )


def test_listening_beyond_this_machine_warns_and_needs_the_token(folder: Path) -> None:
    """A real server on 0.0.0.0: the warning, the token in the printed address, 403 without it."""
    import signal
    import socket
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "flip7ref", "table", "--host", "0.0.0.0", "--port", str(port), "--no-browser"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([*cmd, "--data", str(folder)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        url = proc.stdout.readline().split()[2]
        assert "WARNING" in proc.stderr.readline()
        token = url.split("token=")[1].split("&")[0]
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(base + "/static/app.js", timeout=2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        request = urllib.request.Request(base + "/api/games", data=json.dumps(THREE).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})  # fmt: skip
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=5)
        assert info.value.code == 403
        request.add_header("X-Table-Token", token)
        with urllib.request.urlopen(request, timeout=5) as r:
            assert json.load(r)["state"]["version"] == 0
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=15)
    assert proc.returncode == 0 and "stopped; every game is saved" in out


@pytest.mark.rules("F7-120")
def test_an_integer_option_as_the_start_page_sends_it(folder: Path) -> None:
    tg = TableGame.create(folder, {"names": ["A", "B"], "mode": "manual", "options": {"target_score": "50"}})
    tg.enter_scores(tg.version, [60, 10])
    assert tg.view()["finished"] and tg.view()["pad"]["winners"] == [0]
    assert tg.meta()["options"] == {"target_score": 50}


@pytest.mark.rules("F7-082", "V-046")
def test_decisions_are_described_for_their_buttons(client: TestClient) -> None:
    """A spare Second Chance to give away, a Steal's card picks: the view names seats and cards."""
    play = Play(client, new_game(client)["id"])
    play.run("second_chance", "5", "6", "@hit", "second_chance")  # Bob already holds one
    assert play.state["pending"] == {"kind": "give", "card": "second_chance"}
    assert play.state["who"] == 1
    assert play.state["actions"] == [{"action": "target 0", "verb": "target", "seat": 0},
                                     {"action": "target 2", "verb": "target", "seat": 2}]  # fmt: skip
    play.run("@target 2")
    assert play.state["seats"][2]["kept"] == ["second_chance"]
    venge = Play(client, new_game(client, edition="vengeance")["id"])
    venge.run("5", "9", "steal", "@target 0")
    assert venge.state["pending"]["kind"] == "cards"
    assert venge.state["actions"] == [{"action": "steal 1 0", "verb": "steal", "seat": 1, "card": "5"},
                                      {"action": "steal 2 0", "verb": "steal", "seat": 2, "card": "9"}]  # fmt: skip
    venge.run("@steal 2 0")
    assert venge.state["seats"][0]["line"] == ["9"] and venge.state["seats"][2]["line"] == []


@pytest.mark.parametrize(
    ("lang", "dealt", "card"),
    [("en", "Bob is dealt 5", "Second Chance!"), ("nl", "Bob krijgt 5", "Tweede kans"),
     ("de", "Bob bekommt 5", "Zweite Chance"), ("fr", "Bob reçoit 5", "Seconde Chance"), ("no", "Bob får 5", "Second Chance")],
)  # fmt: skip
def test_steps_and_card_names_in_the_games_language(client: TestClient, lang: str, dealt: str, card: str) -> None:
    play = Play(client, new_game(client, lang=lang)["id"])
    play.run("5")
    assert play.state["steps"][0]["text"] == [dealt]
    assert play.state["card_names"]["second_chance"] == card
    assert client.get(f"/api/games/{play.gid}/ruling/0").json()["events"][0]["text"] == dealt


# ---------------------------------------------------------------- hostile input (the breaker's findings)


def test_bodies_json_cannot_hold_are_400_not_500(client: TestClient) -> None:
    long_number = b'{"names": ["a", "b"], "dealer": 1' + b"0" * 5000 + b"}"  # json refuses to convert it
    r = client.post("/api/games", content=long_number)
    assert r.status_code == 400 and r.json()["error"].startswith("request body is not JSON: Exceeds the limit")
    r = client.post("/api/games", content=b"[" * 5000 + b"]" * 5000)  # deeper than json's recursion limit
    assert r.status_code == 400
    assert r.json()["error"] == "request body: expected a JSON object, not one nested this deep"


def test_a_ruling_step_of_other_digits_is_404(client: TestClient) -> None:
    gid = new_game(client)["id"]
    for step in ("\u00b2", "\u0661", "1" * 30):  # a superscript two, an Arabic-Indic one, too long
        r = client.get(f"/api/games/{gid}/ruling/{step}")
        assert r.status_code == 404 and r.json()["error"] == "step: expected a step number", step


def test_a_token_of_other_letters_is_refused_not_an_error(folder: Path) -> None:
    client = TestClient(create_app(folder, token_required=True))
    r = client.post("/api/games", json=THREE, params={"token": "\u00e9" * 16})
    assert r.status_code == 403 and "needs its token" in r.json()["error"]


def test_game_ids_end_where_they_seem_to(client: TestClient) -> None:
    from flip7ref.table.session import valid_id

    assert valid_id("20261201-081500-k3f9") and not valid_id("20261201-081500-k3f9\n")
    assert client.post("/api/games/open", json={"id": "x\n"}).status_code == 404


def test_two_games_started_in_the_same_second_keep_both(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = iter(["20261201-081500-aaaa", "20261201-081500-aaaa", "20261201-081500-bbbb"])
    monkeypatch.setattr("flip7ref.table.session.new_game_id", lambda: next(ids))
    first = TableGame.create(folder, {**THREE})
    second = TableGame.create(folder, {**THREE, "names": ["Di", "Ed"]})
    assert (first.id, second.id) == ("20261201-081500-aaaa", "20261201-081500-bbbb")
    assert TableGame.load(folder / f"{first.id}.json").names == ["Ann", "Bob", "Cy"]


def test_moves_undone_are_dropped_when_the_two_files_disagree(folder: Path) -> None:
    tg = TableGame.create(folder, {**THREE})
    tg.reveal(tg.version, "5")
    tg.reveal(tg.version, "6")
    longer = (folder / f"{tg.id}.json").read_text()
    tg.undo(tg.version)
    assert TableGame.load(folder / f"{tg.id}.json").redo_moves == ["chance 6"]
    # the server stopped after writing the .table.json of the undo, before the transcript
    (folder / f"{tg.id}.json").write_text(longer)
    resumed = TableGame.load(folder / f"{tg.id}.json")
    assert len(resumed.states) == 3 and resumed.redo_moves == []  # a redo would deal the 6 twice


@pytest.mark.parametrize(
    ("change", "where", "words"),
    [
        ({"meta": {"seed": [1, 2]}}, ".table.json, at seed", "expected a whole number or a word"),
        ({"transcript": {"dealer": 7}}, ".json, at /dealer", "dealer: expected a seat 0..2, got 7"),
        ({"transcript": {"totals": [1, 2]}}, ".json, at /totals", "expected 3 values (one per seat), got 2"),
        ({"transcript": {"options": {"decks": 8000}}}, ".json, at /options", "option decks: 8000 is out of range"),
        ({"transcript": {"steps": [{"seat": 0, "action": "hit"}]}}, "step 0 cannot be replayed", "a card is due"),
    ],
)
def test_a_hand_edited_saved_game_names_its_file_and_field(
    folder: Path, change: dict[str, dict[str, Any]], where: str, words: str
) -> None:
    tg = TableGame.create(folder, {**THREE, "mode": "dealer", "seed": 3})
    for key, suffix in (("meta", ".table.json"), ("transcript", ".json")):
        path = folder / f"{tg.id}{suffix}"
        path.write_text(json.dumps({**json.loads(path.read_text()), **change.get(key, {})}))
    with pytest.raises(TableError if "replayed" in where else SpecError) as info:
        TableGame.load(folder / f"{tg.id}.json")
    assert where in str(info.value) and words in str(info.value) and "\n" not in str(info.value)
    assert main(["table", "--no-browser", "--resume", str(folder / f"{tg.id}.json"), "--data", str(folder)]) == 2


def test_a_transcript_with_a_number_json_cannot_convert_is_refused(folder: Path) -> None:
    bad = folder / "long.json"
    folder.mkdir(parents=True)
    bad.write_text('{"format": 1' + "0" * 5000 + "}")
    with pytest.raises(SpecError) as info:
        TableGame.load(bad)
    assert str(info.value) == f"{bad}: expected JSON whose numbers have at most 4,300 digits"


@pytest.mark.parametrize(
    ("names", "words"),
    [(["a", "a"], "Two players are called “a”"), (["a", ""], "Every player needs a name."), ([], "Enter the players' names")],
)
def test_a_hand_edited_score_pad_with_bad_names_is_refused(folder: Path, names: list[str], words: str) -> None:
    tg = TableGame.create(folder, {**THREE, "mode": "manual"})
    path = folder / f"{tg.id}.table.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "names": names}))
    with pytest.raises(SpecError) as info:
        TableGame.load(path)
    assert str(info.value).startswith(f"{path}, at names:") and words in str(info.value)


def test_a_token_that_is_not_one_is_replaced_on_resume(folder: Path) -> None:
    tg = TableGame.create(folder, {**THREE})
    path = folder / f"{tg.id}.table.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "token": [1]}))
    token = TableGame.load(folder / f"{tg.id}.json").token
    assert token != "[1]" and len(token) == 16


def test_a_data_folder_that_is_a_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "run", lambda self: None)  # never serve, even where the check is missing
    afile = tmp_path / "afile"
    afile.write_text("")
    assert main(["table", "--no-browser", "--data", str(afile)]) == 2
    assert capsys.readouterr().err == f"flip7ref: error: --data: expected a folder for the saved games, but {afile} is a file\n"


@pytest.mark.rules("V-045", "V-046", "V-020", "F7-100", "F7-101")
@pytest.mark.parametrize(
    ("card", "move", "scores", "ann", "cy"),
    [("swap", "swap 0 0 2 0", [0, 5, 3], ["9", "9"], ["3"]),  # Ann gives her 3 for Cy's 9 and busts
     ("steal", "steal 2 0", [0, 5, 0], ["3", "9", "9"], [])],  # Ann steals Cy's 9 and busts
)  # fmt: skip
def test_the_breakdown_of_a_round_ended_by_a_swap_or_steal(
    folder: Path, card: str, move: str, scores: list[int], ann: list[str], cy: list[str]
) -> None:
    """The pad's breakdown is rebuilt from the round's final lines, after the card moved."""
    tg = TableGame.create(folder, {"edition": "vengeance", "names": ["Ann", "Bob", "Cy"], "dealer": 0})
    for c in ("5", "9", "3"):  # dealt to Bob, Cy, Ann
        tg.reveal(tg.version, c)
    tg.act(tg.version, "stay")  # Bob
    tg.act(tg.version, "stay")  # Cy
    tg.act(tg.version, "hit")  # Ann
    tg.reveal(tg.version, "9")
    tg.act(tg.version, "hit")
    tg.reveal(tg.version, card)
    tg.act(tg.version, "target 0")
    assert [tg.state.line(s) for s in range(3)] == [["3", "9"], ["5"], ["9"]]
    tg.act(tg.version, move)  # Ann's line gets a second 9: the last active player busts, the round ends
    pad = tg.score_pad()
    assert pad["rounds"][0]["scores"] == scores
    bd = pad["rounds"][0]["breakdown"]
    assert bd[0] is not None and bd[0]["busted"] and bd[0]["score"] == 0 and bd[0]["cards"] == ann
    assert bd[1] == {"numbers": 5, "multiplied": 5, "modifiers": 0, "bonus": 0, "flip7": False, "busted": False,
                     "penalty": 0, "score": 5, "cards": ["5"], "modifier_cards": []}  # fmt: skip
    assert bd[2] is not None and bd[2]["numbers"] == scores[2] and bd[2]["cards"] == cy


@pytest.mark.rules("V-082", "V-022")
def test_the_breakdown_shows_a_brutal_mode_penalty(folder: Path) -> None:
    """Bob's Flip 7 in Brutal Mode: he gives Ann −15 instead of taking +15; the pad says so
    (the deal passes over Ann, who holds an early card: reading skip)."""
    options = {"brutal": "true", "deal_after_early_cards": "skip"}
    tg = TableGame.create(folder, {"edition": "vengeance", "names": ["Ann", "Bob", "Cy"], "options": options})
    tg.reveal(tg.version, "1")  # Bob
    tg.reveal(tg.version, "-4")  # Cy's deal card, given to Ann
    tg.act(tg.version, "target 0")
    for seat_move, c in (("hit", "4"), ("hit", "3"), ("stay", None), ("hit", "5"), ("stay", None)):  # Bob, Cy, Ann, Bob, Cy
        tg.act(tg.version, seat_move)
        if c:
            tg.reveal(tg.version, c)
    for c in ("6", "7", "8", "9"):  # Bob: seven different numbers
        tg.act(tg.version, "hit")
        tg.reveal(tg.version, c)
    assert tg.state.pending()[0] == "flip7_bonus"
    tg.act(tg.version, "target 0")  # the choice ends the round in the same step
    row = tg.score_pad()["rounds"][0]
    assert row["scores"] == [-19, 40, 3]
    ann, bob, cy = row["breakdown"]
    assert (ann["modifiers"], ann["penalty"], ann["score"], ann["cards"]) == (-4, -15, -19, ["-4"])
    assert (bob["numbers"], bob["flip7"], bob["bonus"], bob["penalty"], bob["score"]) == (40, True, 0, 0, 40)
    assert (cy["numbers"], cy["score"]) == (3, 3)


# ---------------------------------------------------------------- at a real table: corrections, dealer undos, notes, switches


@pytest.mark.rules("F7-040")
def test_a_correction_keeps_later_cards_with_their_players_and_names_the_rest(client: TestClient, folder: Path) -> None:
    play = Play(client, new_game(client)["id"])
    play.run("5", "6", "0", "@hit", "9", "@hit", "3", "@hit", "4", "@hit", "7")  # Bob 9, Cy 3, Ann 4, Bob 7
    before = [s["move"] for s in play.state["steps"]]
    version = play.state["version"]
    plan = play.post("fix", step=4, card="5", preview=True)["fix"]  # Bob's 9 was a second 5
    assert play.state["version"] == version  # a preview changes nothing
    assert (plan["old"], plan["new"], plan["kept"]) == ("9", "5", [5, 6, 7, 8])
    assert [(d["index"], d["seat"], d["move"]) for d in plan["dropped"]] == [(9, 1, "hit"), (10, 1, "chance 7")]
    assert play.post("fix", expect=400, step=4, card="5", preview="yes")["error"].startswith("preview:")
    out = play.post("fix", step=4, card="5")
    assert out["kept"] == 4
    assert [s["line"] for s in play.state["seats"]] == [["0", "4"], ["5", "5"], ["6", "3"]]
    assert play.state["seats"][1]["status"] == "busted"
    assert play.state["who"] == 2  # Cy decides: the 7 did not go to Cy
    play.post("undo")  # one step: the old history comes back
    assert [s["move"] for s in play.state["steps"]] == before
    meta = json.loads((folder / f"{play.gid}.table.json").read_text())
    assert "fixes" not in meta  # nothing left to undo of the correction


def test_an_undone_correction_survives_a_restart(folder: Path) -> None:
    client = TestClient(create_app(folder))
    play = Play(client, new_game(client)["id"])
    play.run("5", "6", "0", "@hit", "9")
    before = [s["move"] for s in play.state["steps"]]
    play.post("fix", step=1, card="8")
    again = Play(TestClient(create_app(folder)), play.gid)  # a new server reads the correction's record
    again.post("undo")
    assert [s["move"] for s in again.state["steps"]] == before


def test_dealer_mode_undo_is_recorded_and_the_card_under_it_stays_the_next_card(client: TestClient, folder: Path) -> None:
    play = Play(client, new_game(client, mode="dealer", seed=11)["id"])
    while play.state["current"] == -1:
        play.post("deal")
    seat = play.state["who"]
    play.post("act", action="hit")
    play.post("deal")
    seen = play.state["steps"][-1]["card"]
    play.post("undo")
    play.post("undo")
    assert [(u["move"], u["seat"]) for u in play.state["undone"]] == [(f"chance {seen}", seat), ("hit", seat)]
    play.post("act", action="stay")
    while play.state["current"] != -1:
        legal = [a["action"] for a in play.state["actions"]]
        play.post("act", action="hit" if "hit" in legal else legal[0])
    play.post("deal")
    assert play.state["steps"][-1]["card"] == seen and play.state["steps"][-2]["seat"] != seat
    meta = json.loads((folder / f"{play.gid}.table.json").read_text())
    assert len(meta["undone"]) == 2
    assert len(Play(TestClient(create_app(folder)), play.gid).state["undone"]) == 2  # kept across a restart


@pytest.mark.rules("F7-004")
def test_the_deck_disagrees_note_records_the_card_and_changes_nothing(client: TestClient, folder: Path) -> None:
    play = Play(client, new_game(client)["id"])
    play.run("0")
    steps = len(play.state["steps"])
    play.post("reveal", expect=400, card="0")
    play.post("note", card="0")
    assert play.state["notes"] == [{"step": 1, "card": "0", "seat": 2}]
    assert len(play.state["steps"]) == steps
    assert play.post("note", expect=400, card="joker")["error"]


def test_language_and_score_pad_switches_mid_game(client: TestClient, folder: Path) -> None:
    play = Play(client, new_game(client)["id"])
    play.run("5", "6", "7", "@stay", "@stay", "@stay", "3")
    play.post("lang", lang="nl")
    assert play.state["lang"] == "nl" and play.state["card_names"]["freeze"] == "Bevries"
    assert play.state["steps"][0]["text"] == ["Bob krijgt 5"]
    assert play.post("lang", expect=400, lang="xx")["error"].startswith("lang:")
    play.post("to_manual")
    assert play.state["mode"] == "manual" and play.state["pad"]["totals"] == [7, 5, 6]
    play.post("scores", scores=[10, 0, 0])
    assert play.state["pad"]["totals"] == [17, 5, 6]
    again = Play(TestClient(create_app(folder)), play.gid)
    assert again.state["mode"] == "manual" and again.state["pad"]["totals"] == [17, 5, 6]


def test_round_end_flip_three_progress_and_used_second_chance_in_the_view(client: TestClient) -> None:
    play = Play(client, new_game(client)["id"])
    play.run("5", "flip_three", "@target 1", "8")
    assert play.state["forced"] == {"target": 1, "card": "flip_three", "count": 3, "drawn": 1, "set_aside": []}
    play.run("second_chance", "8")
    assert play.state["second_chance_used"] == [[], ["second_chance"], []]
    play.run(*ROUND[6:])
    assert play.state["round_end"] == 1 and play.state["round"] == 2
    play.run("4")
    assert play.state["round_end"] is None


def test_a_forced_draw_of_one_card_is_singular_in_dutch(client: TestClient) -> None:
    play = Play(client, new_game(client, edition="vengeance", lang="nl")["id"])
    play.run("5", "just_one_more")
    play.post("act", action=play.state["actions"][0]["action"])
    assert any("1 kaart nemen" in t for s in play.state["steps"] for t in s["text"])
    assert not any("1 kaarten" in t for s in play.state["steps"] for t in s["text"])


def test_qr_code_of_the_game_address_and_the_favicon(folder: Path) -> None:
    client = TestClient(create_app(folder, token_required=True))
    token = client.app.state.table.token  # type: ignore[attr-defined]
    made = client.post("/api/games", json=THREE, headers={"X-Table-Token": token}).json()
    r = client.get(f"/api/games/{made['id']}/qr.svg", headers={"X-Table-Token": made["token"]})
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert f"/game/{made['id']}?token={made['token']}" in r.text and "<svg" in r.text
    assert client.get(f"/api/games/{made['id']}/qr.svg").status_code == 403
    assert client.get("/favicon.ico").headers["content-type"].startswith("image/svg+xml")


def test_a_long_game_id_is_not_echoed_whole(client: TestClient) -> None:
    """A 5,000-character id came back whole in the 404's message (and so did an address);
    now the message keeps 40 characters (200 of an address) and says the length."""
    r = client.get(f"/api/games/{'x' * 5000}/rule/F7-004")
    assert r.status_code == 404
    assert r.json()["error"] == f"no game {'x' * 40!r}... (5,000 characters)"
    r = client.get(f"/api/games/{'y' * 5000}/nowhere/at/all")
    assert r.status_code == 404
    assert r.json()["error"] == f"no such address: /api/games/{'y' * 189}... (5,026 characters)"
    for gid, words in (("%C3%A9%E2%9C%93", "no game 'é✓'"), ("%00", "no game '\\x00'")):
        r = client.get(f"/api/games/{gid}/rule/F7-004")
        assert (r.status_code, r.json()["error"]) == (404, words)


def test_a_data_folder_that_cannot_be_made_is_refused_before_serving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A --data folder under a file once started the server ("games saved in ..."), and every new
    game then failed with a 500 "could not save the game"; it is a usage error at start."""
    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "run", lambda self: None)  # never serve, even where the check is missing
    afile = tmp_path / "afile"
    afile.write_text("")
    assert main(["table", "--no-browser", "--data", str(afile / "games")]) == 2
    assert capsys.readouterr().err == (
        f"flip7ref: error: --data {afile / 'games'}: expected a folder for the saved games; it cannot be made: Not a directory\n"
    )
