"""The table referee against hostile requests and damaged files: a slow load does not hold up
other clients, a chunked body is cut off at the limit, damaged save files are listed (not a
500), checkpoint steps are accepted, a strict seed check, stale temporary files removed,
the token checked first and no server path sent, no formula in the CSV, and the checks of a
typed-in score applied to a loaded one.

Skips when the ``[table]`` extra is not installed (fails in CI, which installs it).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from flip7ref.checking.replay import transcript
from flip7ref.core.errors import SpecError
from flip7ref.core.game import Game
from flip7ref.core.state import CHANCE, State
from flip7ref.table.files import STALE_TMP_SECONDS, atomic_write, clean_stale_tmp, saved_games
from flip7ref.table.session import TableError, TableGame
from tests.table_helpers import require_table_extra

require_table_extra()

from starlette.requests import Request  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from flip7ref.table.app import MAX_BODY, _body, create_app  # noqa: E402

THREE = {"edition": "flip7", "names": ["Ann", "Bob", "Cy"], "dealer": 0}
SAVES = Path(__file__).parent / "bad_inputs" / "saves"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "games"


def long_game(players: int = 4, target: str = "1000", seed: int = 7) -> State:
    """A whole game of a few thousand steps (random decisions, seeded)."""
    state = Game("flip7", players, {"target_score": target}).new_initial_state(seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state = state.apply_chance(state.sample_chance())
        else:
            legal = state.legal_action_strings()
            state = state.apply("hit" if "hit" in legal and rng.random() < 0.7 else rng.choice(legal))
    return state


def saved_game(folder: Path, state: State, *, checkpoints: bool = False) -> TableGame:
    """A referee game saved under ``folder`` whose transcript is the game of ``state``."""
    names = [f"P{i}" for i in range(state.num_players)]
    tg = TableGame.create(folder, {"names": names, "options": dict(state.game.non_default_options())})
    tg.path.write_text(json.dumps(transcript(state, checkpoints=checkpoints)), encoding="utf-8")
    meta = folder / f"{tg.id}.table.json"
    steps = len(state.history())
    meta.write_text(json.dumps({**json.loads(meta.read_text(encoding="utf-8")), "version": steps, "steps": steps}))
    return tg


# ------------------------------------------------------------------ a slow load, a chunked body


def test_loading_a_big_game_runs_beside_other_requests(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening a saved game of 1,000+ steps runs in a worker thread: while it loads, another
    client's request is answered (on the event loop it would wait for the whole load)."""
    state = long_game()
    assert len(state.history()) > 1000
    gid = saved_game(folder, state).id
    real_load = TableGame.load
    started, answered = threading.Event(), threading.Event()
    seen: dict[str, Any] = {}

    def slow_load(path: str | Path) -> TableGame:
        started.set()
        seen["answered_meanwhile"] = answered.wait(10)  # the other request, while this load has not ended
        return real_load(path)

    monkeypatch.setattr(TableGame, "load", slow_load)
    with TestClient(create_app(folder)) as client:
        result: dict[str, Any] = {}
        opener = threading.Thread(target=lambda: result.update(r=client.post("/api/games/open", json={"id": gid})))
        opener.start()
        assert started.wait(10)
        t0 = time.perf_counter()
        meta = client.get("/api/meta")
        waited = time.perf_counter() - t0
        answered.set()
        opener.join(30)
    assert meta.status_code == 200 and waited < 5
    assert seen["answered_meanwhile"] is True
    assert result["r"].status_code == 200
    assert result["r"].json()["state"]["version"] == len(state.history())


def _chunked_request(chunks: int, size: int) -> tuple[Request, list[int]]:
    """A request whose body arrives in ``chunks`` pieces of ``size`` bytes with no
    Content-Length; the list counts the pieces the server read."""
    read = [0]

    async def receive() -> dict[str, Any]:
        read[0] += 1
        return {"type": "http.request", "body": b" " * size, "more_body": read[0] < chunks}

    scope = {"type": "http", "method": "POST", "path": "/api/games", "headers": [(b"transfer-encoding", b"chunked")],
             "query_string": b""}  # fmt: skip
    return Request(scope, receive), read


def test_a_chunked_body_is_cut_off_at_the_limit() -> None:
    """200 MB sent in 64 KiB chunks without a Content-Length: 413 after the first chunk past
    16 KiB, not after reading them all."""
    request, read = _chunked_request(3200, 64 * 1024)
    with pytest.raises(TableError) as info:
        asyncio.run(_body(request))
    assert info.value.status == 413 and str(info.value) == f"request body too large (at most {MAX_BODY} bytes)"
    assert read[0] == 1
    request, read = _chunked_request(64, 256)  # 16 KiB exactly: read whole, then parsed
    with pytest.raises(TableError, match="request body is not JSON"):
        asyncio.run(_body(request))
    assert read[0] == 64


def test_a_chunked_body_past_the_limit_answers_413(folder: Path) -> None:
    client = TestClient(create_app(folder))
    r = client.post("/api/games", content=(b"x" * 4096 for _ in range(8)))  # a generator: sent chunked
    assert r.status_code == 413 and r.json()["error"] == f"request body too large (at most {MAX_BODY} bytes)"
    r = client.post("/api/games", content=(json.dumps(THREE).encode()[i : i + 5] for i in range(0, 80, 5)))
    assert r.status_code == 200, r.text


# ------------------------------------------------------------------ damaged save files


DAMAGED = {
    "not_utf8.table.json": "expected UTF-8 text",
    "number_5000_digits.table.json": "expected JSON whose numbers have at most 4,300 digits",
    "nested_5000_deep.table.json": "expected JSON nested at most 32 levels deep",
}


def test_damaged_save_files_are_listed_and_the_good_games_work(folder: Path) -> None:
    good = TableGame.create(folder, THREE)
    for name in DAMAGED:
        (folder / name).write_bytes((SAVES / name).read_bytes())
    (folder / "20990101-000000-aaaa.table.json").write_text('{"id": "../../etc/passwd"}', encoding="utf-8")
    client = TestClient(create_app(folder))
    r = client.get("/api/meta")
    assert r.status_code == 200
    saved = r.json()["saved"]
    damaged = {g["file"]: g["damaged"] for g in saved if "damaged" in g}
    wrong_id = "expected the game's id, the file's name without .table.json"
    assert damaged == {**DAMAGED, "20990101-000000-aaaa.table.json": wrong_id}
    assert [g["id"] for g in saved if "damaged" not in g] == [good.id]
    assert str(folder) not in r.text
    assert client.post("/api/games/open", json={"id": good.id}).status_code == 200
    r = client.post("/api/games/open", json={"id": "not_utf8"})
    assert r.status_code == 400
    assert r.json()["error"] == "game 'not_utf8' cannot be opened: not_utf8.table.json: expected UTF-8 text"


def test_saved_games_lists_a_damaged_file_by_name(folder: Path) -> None:
    folder.mkdir()
    (folder / "deep.table.json").write_text("[" * 100 + "]" * 100, encoding="utf-8")
    (folder / "list.table.json").write_text("[1, 2]", encoding="utf-8")
    assert saved_games(folder) == [
        {"file": "list.table.json", "damaged": "expected a JSON object"},
        {"file": "deep.table.json", "damaged": "expected JSON nested at most 32 levels deep"},
    ]


# ------------------------------------------------------------------ checkpoint steps


def test_a_transcript_with_checkpoint_steps_is_resumed_and_opened(folder: Path) -> None:
    state = long_game(players=2, target="60", seed=3)
    tg = saved_game(folder, state, checkpoints=True)
    data = json.loads(tg.path.read_text(encoding="utf-8"))
    points = [s for s in data["steps"] if "checkpoint" in s]
    assert len(points) == state.round
    resumed = TableGame.load(tg.path)
    assert resumed.state.history() == state.history() and resumed.state.totals == state.totals
    client = TestClient(create_app(folder))
    r = client.post("/api/games/open", json={"id": tg.id})
    assert r.status_code == 200 and r.json()["state"]["version"] == len(state.history())
    # a checkpoint that disagrees with the reference names its step
    at = data["steps"].index(points[0])
    points[0]["checkpoint"]["totals"] = [999, 999]
    tg.path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TableError) as info:
        TableGame.load(tg.path)
    assert str(info.value).startswith(f"{tg.path.name}: step {at}: checkpoint: the engine's round totals [999, 999]")


# ------------------------------------------------------------------ the dealer's seed


@pytest.mark.parametrize(("seed", "kept"), [("²", "²"), ("١٢", "١٢"), (" 12 ", 12), ("0042", 42), ("x7", "x7")])
def test_a_dealer_seed_of_other_digits_is_a_word(folder: Path, seed: str, kept: object) -> None:
    client = TestClient(create_app(folder))
    r = client.post("/api/games", json={**THREE, "mode": "dealer", "seed": seed})
    assert r.status_code == 200, r.text
    meta = json.loads((folder / f"{r.json()['id']}.table.json").read_text(encoding="utf-8"))
    assert meta["seed"] == kept


# ------------------------------------------------------------------ temporary files of a killed save


def test_stale_temporary_files_are_removed_at_start_up(folder: Path) -> None:
    folder.mkdir()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    now = time.time()
    files = {
        ".g.json.p1.abc_123.tmp": now - STALE_TMP_SECONDS - 60,  # old: removed whatever its pid
        f".g.json.p{dead.pid}.k2j3.tmp": now,  # of a process that has ended: removed
        ".g.table.json.old4567.tmp": now - 3600,  # old, without a pid (written before pids were named)
        f".g.json.p{os.getpid()}.live.tmp": now,  # this process is writing it: kept
        ".g.json.fresh.tmp": now,  # fresh, no pid: kept
        ".notes.tmp": now - 3600,  # not one of ours: kept
        "g.json": now - 3600,  # kept
    }
    for name, mtime in files.items():
        (folder / name).write_text("{}", encoding="utf-8")
        os.utime(folder / name, (mtime, mtime))
    app = create_app(folder)
    assert sorted(app.state.table.cleaned) == sorted(list(files)[:3])
    assert sorted(p.name for p in folder.iterdir()) == sorted(list(files)[3:])
    assert clean_stale_tmp(folder / "missing") == []


def test_a_temporary_file_names_the_process_writing_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names: list[str] = []
    real_replace = os.replace

    def spy(src: Any, dst: Any) -> None:
        names.append(Path(src).name)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    atomic_write(tmp_path / "g.json", "{}\n")
    assert names[0].startswith(f".g.json.p{os.getpid()}.") and names[0].endswith(".tmp")
    assert clean_stale_tmp(tmp_path) == []


# ------------------------------------------------------------------ the token first, no server path


def test_without_the_token_nothing_tells_which_games_exist(folder: Path) -> None:
    app = create_app(folder, token_required=True)
    table = app.state.table
    client = TestClient(app)
    gid = client.post("/api/games", json=THREE, headers={"X-Table-Token": table.token}).json()["id"]
    for path in ("/api/games/{}", "/api/games/{}/scores.csv", "/api/games/{}/ruling/0"):
        known, unknown = client.get(path.format(gid)), client.get(path.format("20991231-235959-ffff"))
        assert known.status_code == unknown.status_code == 403
        assert known.json() == unknown.json()
    known = client.post(f"/api/games/{gid}/undo", json={"version": 0})
    unknown = client.post("/api/games/20991231-235959-ffff/undo", json={"version": 0})
    assert known.status_code == unknown.status_code == 403 and known.json() == unknown.json()
    # with the server's token an unknown game is 404, and no answer names the data folder
    r = client.get("/api/games/20991231-235959-ffff", headers={"X-Table-Token": table.token})
    assert r.status_code == 404 and r.json()["error"] == "no game '20991231-235959-ffff' in the data folder"
    meta = client.get("/api/meta", headers={"X-Table-Token": table.token})
    assert "folder" not in meta.json() and str(folder) not in meta.text
    view = client.get(f"/api/games/{gid}", headers={"X-Table-Token": table.token})
    assert view.json()["file"] == f"{gid}.json" and str(folder) not in view.text


def test_an_error_never_names_a_server_folder(folder: Path) -> None:
    tg = TableGame.create(folder, THREE)
    data = json.loads(tg.path.read_text(encoding="utf-8"))
    data["steps"] = [{"seat": 0, "action": "hit"}]  # a decision where a card is due
    tg.path.write_text(json.dumps(data), encoding="utf-8")
    client = TestClient(create_app(folder))
    r = client.get(f"/api/games/{tg.id}")
    assert r.status_code == 400 and str(folder) not in r.text and str(folder.parent) not in r.text
    assert r.json()["error"].startswith(f"game '{tg.id}' cannot be opened: {tg.id}.json: step 0 cannot be replayed")


# ------------------------------------------------------------------ the CSV and manual score pads


def test_names_that_look_like_formulas_are_text_in_the_csv(folder: Path) -> None:
    names = ["=HYPERLINK(\"http://x\")", "@SUM(A1)", "+1", "-2", "Ann"]
    tg = TableGame.create(folder, {"names": names, "mode": "manual"})
    tg.enter_scores(tg.version, [5, -0, 3, 4, 0])
    header = tg.csv().splitlines()[0]
    assert header == "round,\"'=HYPERLINK(\"\"http://x\"\")\",'@SUM(A1),'+1,'-2,Ann"
    assert tg.names == names  # the page and the files keep the names as typed


@pytest.mark.parametrize(
    ("rounds", "where", "problem"),
    [
        ([[40, -999999]], "rounds/0", "a round score is never negative in this edition"),
        ([[10**400, 0]], "rounds/0", "a round scores at most 171 points in this edition"),
        ([[172, 0]], "rounds/0", "a round scores at most 171 points in this edition"),
        ([[171, 80], [171, 0], [15, 0]], "rounds/2", "a round after the game is over"),
    ],
)
def test_a_loaded_score_pad_gets_the_checks_of_typed_in_scores(
    folder: Path, rounds: list[list[int]], where: str, problem: str
) -> None:
    tg = TableGame.create(folder, {"names": ["Ann", "Bob"], "mode": "manual"})
    meta = folder / f"{tg.id}.table.json"
    data = json.loads(meta.read_text(encoding="utf-8"))
    meta.write_text(json.dumps({**data, "rounds": rounds}), encoding="utf-8")
    with pytest.raises(SpecError) as info:
        TableGame.load(meta)
    assert str(info.value) == f"{meta}, at {where}: {problem}"
    with pytest.raises(TableError, match=r"points is (not possible|more than one round can score)"):  # typed in: refused too
        tg.enter_scores(tg.version, rounds[-1] if len(rounds) == 1 else [172, 0])


def test_a_loaded_brutal_mode_pad_keeps_its_negative_scores(folder: Path) -> None:
    tg = TableGame.create(folder, {"edition": "vengeance", "names": ["A", "B"], "mode": "manual", "options": {"brutal": "true"}})
    tg.enter_scores(tg.version, [-15, 40])
    assert TableGame.load(folder / f"{tg.id}.table.json").manual == [[-15, 40]]
    meta = folder / f"{tg.id}.table.json"
    data = json.loads(meta.read_text(encoding="utf-8"))
    meta.write_text(json.dumps({**data, "redo_rounds": [[-46, 0]]}), encoding="utf-8")
    with pytest.raises(SpecError, match="at redo_rounds/0: a round scores at least -45 points in this edition"):
        TableGame.load(meta)
