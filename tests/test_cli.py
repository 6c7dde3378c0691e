"""The command line: simulate, trace, score and options, and its error handling."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from flip7ref.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.rules("F7-100", "F7-091")
def test_score_prints_breakdown(capsys: pytest.CaptureFixture[str]) -> None:
    """score 3 11 5 7 10 x2 +10 gives 36, doubled to 72, plus 10: 82."""
    code, out, _ = run(capsys, "score", "--edition", "flip7", "3", "11", "5", "7", "10", "x2", "+10")
    assert code == 0
    assert "numbers     36" in out
    assert "x2          72" in out and "÷2" not in out
    assert "score       82" in out


@pytest.mark.rules("F7-050", "F7-100")
def test_score_json_with_flip7(capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints an object with the score; seven different numbers add 15."""
    code, out, _ = run(capsys, "score", "--json", "3", "11", "5", "7", "10", "9", "4")
    assert code == 0
    data = json.loads(out)
    assert data["score"] == 64 and data["flip7"] is True and data["bonus"] == 15


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        (["3", "3"], "busted"),
        (["3", "banana"], "unknown card 'banana'"),
        (["freeze"], "action card"),
        (["x2", "x2"], "copies"),
    ],
)
def test_score_rejects_impossible_lines(capsys: pytest.CaptureFixture[str], cards: list[str], message: str) -> None:
    """A line that cannot exist exits 2 with a one-line error."""
    code, out, err = run(capsys, "score", *cards)
    assert code == 2
    assert out == ""
    assert message in err
    assert err.count("\n") == 1 and err.startswith("flip7ref: error:")


def test_score_accepts_card_names_in_other_languages(capsys: pytest.CaptureFixture[str]) -> None:
    """The multiplication sign spelling of x2 is accepted."""
    code, out, _ = run(capsys, "score", "--json", "12", "×2")
    assert code == 0 and json.loads(out)["score"] == 24


@pytest.mark.rules("F7-120")
def test_simulate_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    """The same seed prints the same summary (throughput aside)."""
    args = ("simulate", "--players", "4", "--games", "40", "--seed", "7", "--strategy", "threshold:20", "--json")
    _, first, _ = run(capsys, *args)
    _, second, _ = run(capsys, *args)
    a, b = json.loads(first), json.loads(second)
    a.pop("games_per_second")
    b.pop("games_per_second")
    assert a == b
    assert a["games"] == 40
    assert abs(sum(a["win_share"]) - 1) < 1e-9
    assert 0 < a["bust_rate"] < 1
    assert a["mean_rounds"] > 1


def test_simulate_text_summary(capsys: pytest.CaptureFixture[str]) -> None:
    """The text summary names every statistic the issue asks for."""
    code, out, _ = run(capsys, "simulate", "--games", "10", "--seed", "1")
    assert code == 0
    for label in ("games", "mean rounds/game", "mean round score", "bust rate", "Flip 7 rate", "win share by seat", "throughput"):
        assert label in out


def test_simulate_options_change_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    """--option target_score=50 shortens games."""
    _, short, _ = run(capsys, "simulate", "--games", "20", "--json", "--option", "target_score=50")
    _, full, _ = run(capsys, "simulate", "--games", "20", "--json")
    assert json.loads(short)["mean_rounds"] < json.loads(full)["mean_rounds"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["simulate", "--edition", "flip8"], "unknown edition 'flip8'"),
        (["simulate", "--option", "tie=coin"], "option tie: unknown value 'coin'"),
        (["simulate", "--option", "nosuch=1"], "unknown option 'nosuch'"),
        (["simulate", "--option", "tie"], "expected NAME=VALUE"),
        (["simulate", "--strategy", "cautious"], "unknown strategy 'cautious'"),
        (["simulate", "--strategy", "threshold:x"], "threshold:N"),
        (["simulate", "--players", "0"], "too few"),
        (["trace", "--dealer", "9"], "dealer"),
    ],
)
def test_user_mistakes_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    """Unknown edition, option, strategy or seat: status 2 and one line, no traceback."""
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert "Traceback" not in err and err.count("\n") == 1


@pytest.mark.rules("F7-030", "F7-050")
def test_trace_prints_a_whole_game(capsys: pytest.CaptureFixture[str]) -> None:
    """trace prints rounds, cards, scores and the winner; --json prints event objects."""
    code, out, _ = run(capsys, "trace", "--players", "3", "--seed", "5")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("--- round 1")
    assert any("is dealt" in line for line in lines)
    assert any(line.startswith("round 1 scores") for line in lines)
    assert "wins after" in lines[-1] or "share the win" in lines[-1]
    code, out, _ = run(capsys, "trace", "--players", "3", "--seed", "5", "--json")
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0] == {"type": "round_started", "round": 1, "dealer": 0}
    assert events[-1]["type"] == "game_won"
    assert len(events) == len(lines)


def test_trace_in_german(capsys: pytest.CaptureFixture[str]) -> None:
    """--lang de names action cards as the German rules do."""
    _, out, _ = run(capsys, "trace", "--players", "4", "--seed", "2", "--lang", "de")
    assert "Stopp" in out or "Drei am Stück" in out or "Zweite Chance" in out


def test_options_lists_readings(capsys: pytest.CaptureFixture[str]) -> None:
    """options lists each option with its default and readings."""
    code, out, _ = run(capsys, "options")
    assert code == 0
    assert "stay_requires  (default: any-card; dispute D-F7-04)" in out
    assert "- shared-win:" in out


def test_console_script_runs() -> None:
    """python -m flip7ref (and flip7ref.cli) works as a program and usage errors exit 2."""
    done = subprocess.run(
        [sys.executable, "-m", "flip7ref.cli", "score", "12", "+4"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and "score       16" in done.stdout
    done = subprocess.run([sys.executable, "-m", "flip7ref.cli", "nosuch"], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    done = subprocess.run([sys.executable, "-m", "flip7ref", "score", "7", "x2"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "score       14" in done.stdout
    done = subprocess.run([sys.executable, "-m", "flip7ref", "nosuch"], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "usage: flip7ref" in done.stderr


@pytest.mark.example("VE-01")
@pytest.mark.rules("V-060", "V-052")
def test_score_vengeance_official_example(capsys: pytest.CaptureFixture[str]) -> None:
    """score --edition vengeance 3 11 5 7 10 8 4 /2 -4 prints 35 (48, halved 24, -4, +15)."""
    code, out, _ = run(capsys, "score", "--edition", "vengeance", "3", "11", "5", "7", "10", "8", "4", "/2", "-4")
    assert code == 0
    assert "score       35" in out
    assert "÷2          24" in out and "x2 " not in out


@pytest.mark.rules("V-030", "V-032", "V-053")
def test_score_shows_the_steps_that_zero_a_line(capsys: pytest.CaptureFixture[str]) -> None:
    """The text of score names a pipeline step that changes the score beyond numbers,
    x2/÷2 and modifiers (The Zero without a Flip 7, the floor at 0) with its rules."""
    code, out, _ = run(capsys, "score", "--edition", "vengeance", "3", "Geluk 13", "÷2", "The Zero")
    assert code == 0
    assert "÷2          8\n" in out and "zero_unless_flip7 0  [V-030, V-032]\n" in out and out.endswith("score       0\n")
    code, out, _ = run(capsys, "score", "--edition", "vengeance", "3", "-10")
    assert "floor_zero  0  [V-053]\n" in out and out.endswith("score       0\n")
    code, out, _ = run(capsys, "score", "--edition", "vengeance", "--option", "brutal=true", "3", "-10")
    assert "floor_zero" not in out and out.endswith("score       -7\n")
    code, out, _ = run(capsys, "score", "12", "x2", "+4")
    assert out.splitlines()[1:] == ["numbers     12", "x2          24", "modifiers   +4", "Flip 7      no", "score       28"]


@pytest.mark.rules("V-080", "V-082")
def test_simulate_vengeance_with_brutal_mode(capsys: pytest.CaptureFixture[str]) -> None:
    """simulate --edition vengeance works with and without brutal=true, deterministically."""
    args = ("simulate", "--edition", "vengeance", "--players", "5", "--games", "8", "--seed", "3", "--json")
    outs = []
    for extra in ((), ("--option", "brutal=true"), ("--option", "brutal=true")):
        code, out, _ = run(capsys, *args, *extra)
        assert code == 0
        data = json.loads(out)
        data.pop("games_per_second")
        outs.append(data)
    assert outs[1] == outs[2]
    assert outs[1]["options"] == {"brutal": "true"} and outs[0]["options"] == {}


def test_trace_vengeance_in_dutch(capsys: pytest.CaptureFixture[str]) -> None:
    """trace --edition vengeance --lang nl names the cards as the Dutch rules do."""
    code, out, _ = run(capsys, "trace", "--edition", "vengeance", "--players", "4", "--seed", "7", "--lang", "nl")
    assert code == 0
    assert any(name in out for name in ("Nog eentje", "Draai vier", "Ruil", "Steel", "Leg af"))


@pytest.mark.parametrize("command", [["replay"], ["explain", "--transcript"]])
def test_an_unreadable_transcript_is_named_as_unreadable(
    command: list[str], tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A transcript the user may not read: exit 2 and one line saying so, naming the file (not the
    JSON-number message that once swallowed every file error). The permission error is simulated:
    the tests may run as root, who reads any file."""
    import os
    from pathlib import Path

    path = tmp_path / "locked.json"
    path.write_text("{}", encoding="utf-8")
    real_open = os.open

    def refuse(file: Any, *args: Any, **kwargs: Any) -> Any:  # the reader opens with os.open (flip7ref.core.textfiles)
        if Path(file) == path:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    code, out, err = run(capsys, *command, str(path))
    assert code == 2 and out == ""
    assert err == f"flip7ref: error: {path}: expected a readable transcript file (PermissionError: Permission denied)\n"
