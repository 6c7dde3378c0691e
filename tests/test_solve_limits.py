"""Solver usability: --max-seconds, the estimate before a long solve, progress,
and optimal-solo's solve in simulate (issue 18, item 5)."""

from __future__ import annotations

import importlib.util
import signal

import pytest

from flip7ref import Game
from flip7ref.analysis import AnalysisError, SoloSolver, solo_deck_position, solo_estimate
from flip7ref.cli import main
from flip7ref.core.errors import OptionError
from flip7ref.play.strategies import OptimalSoloStrategy


def test_estimates_of_the_solitaire_solves() -> None:
    flip7 = Game("flip7", 1)
    assert solo_estimate(flip7, ["number"])[:2] == (4096, False)  # solve finds 4,095 (the empty line is dealt into)
    assert solo_estimate(flip7, ["number", "modifier"])[:2] == (262_144, False)
    states, rough, cpu = solo_estimate(flip7, ["number", "modifier", "action"])
    assert (states, rough) == (262_144 * 4**3, True)  # three copies of each of the three action cards
    assert cpu > 3600
    # Vengeance: 14 ranks and Lucky 13 (a rank of its own: it may pair with a 13), so 9,949 lines; its one
    # Unlucky 7 wipes a line to the discard pile, a part of the solved state: a rough upper bound, lines squared
    assert solo_estimate(Game("vengeance", 1), ["number"])[:2] == (9_949**2, True)
    assert solo_estimate(Game("vengeance", 1), ["number", "modifier"])[:2] == ((9_949 * 2**6) ** 2, True)


def test_a_vengeance_solve_past_the_hour_is_refused_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue: `solve --edition vengeance --cards numbers` was estimated at 6,476 states (0.6 s), ran four
    minutes and then stopped at --max-states 1,000,000; its Unlucky 7 makes the count an upper bound."""
    assert main(["solve", "--edition", "vengeance", "--cards", "numbers"]) == 3
    assert capsys.readouterr().err == (
        "flip7ref: limit reached: --cards numbers: estimated at about 3 hours of CPU, more than --max-hours 1: "
        "pass --max-hours 3 to run it anyway (or --max-seconds S to run it S seconds at most), or restrict --cards\n"
    )


def test_max_seconds_stops_a_solve() -> None:
    state = solo_deck_position(Game("flip7", 1), ["number", "modifier"])
    with pytest.raises(AnalysisError, match=r"stopped after 1e-06 s \(--max-seconds\) with 256 states solved"):
        SoloSolver(max_seconds=1e-6).solve(state)
    with pytest.raises(OptionError, match="max_seconds must be a positive number"):
        SoloSolver(max_seconds=0)


def test_max_seconds_stops_a_solve_shared_among_workers() -> None:
    """With workers, the deadline holds while every worker is still busy on its first combination:
    `solve --cards numbers,modifiers,actions --max-seconds 10` (2 workers, the default here) once ran on
    for hours, since the deadline was checked only when a combination came back."""
    state = solo_deck_position(Game("flip7", 1), ["number", "modifier", "action"])

    def hung(*_: object) -> None:
        raise AssertionError("the solve did not stop within 120 s of its 0.5 s limit")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(120)  # fail, rather than hang for hours, if the deadline is ignored
    try:
        with pytest.raises(AnalysisError, match=r"stopped after 0.5 s \(--max-seconds\)"):
            SoloSolver(workers=2, max_seconds=0.5).solve(state)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_solve_pauses_the_garbage_collector_and_restores_it() -> None:
    """The cyclic collector is off during a solve (seen from its progress callback) and
    back on afterwards, also when the solve stops with an error; a caller that had it off
    finds it still off."""
    import gc

    seen: list[bool] = []
    state = solo_deck_position(Game("flip7", 1), ["number"])
    assert gc.isenabled()
    assert SoloSolver(progress=lambda _: seen.append(gc.isenabled())).solve(state).states == 4095
    assert seen and not any(seen) and gc.isenabled()
    with pytest.raises(AnalysisError, match="more than 10 states"):
        SoloSolver(max_states=10).solve(state)
    assert gc.isenabled()
    gc.disable()
    try:
        SoloSolver().solve(state)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_progress_reports_the_states_solved() -> None:
    seen: list[int] = []
    result = SoloSolver(progress=seen.append).solve(solo_deck_position(Game("flip7", 1), ["number"]))
    assert result.states == 4095
    assert seen == list(range(256, 4095, 256))


def test_cli_solve_limits(capsys: pytest.CaptureFixture[str]) -> None:
    """A limit the user set (--max-states, --max-seconds) exits 3 "limit reached", apart from the
    user mistakes (2): refused up front by the estimate, or hit while solving (docs/cli.md)."""
    assert main(["solve", "--cards", "numbers,modifiers", "--max-states", "1000"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("flip7ref: limit reached: --cards numbers,modifiers needs about 262,144 states, more than "
                          "--max-states 1,000")  # fmt: skip
    assert main(["solve", "--cards", "numbers,modifiers,actions", "--max-seconds", "0.01", "--workers", "1"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("flip7ref: estimate: about 16,777,216 states (with action cards only an order of magnitude")
    assert "--max-seconds 0.01 stops it then" in err
    assert err.splitlines()[-1].startswith("flip7ref: limit reached: stopped after 0.01 s (--max-seconds) with 256 states")
    assert main(["odds", "--line", "3", "--cards", "numbers", "--max-states", "10"]) == 3  # hit while solving
    assert capsys.readouterr().err == (
        "flip7ref: limit reached: more than 10 states to solve: restrict the deck (e.g. --cards numbers), "
        "lengthen the line, or raise the limit (--max-states)\n"
    )
    assert main(["solve", "--max-seconds", "-1"]) == 2
    assert "--max-seconds: expected a positive number of seconds" in capsys.readouterr().err
    assert main(["solve", "--cards", "numbers", "--max-seconds", "60", "--json"]) == 0
    assert capsys.readouterr().err == ""  # a short solve: no estimate printed


def test_solve_refuses_an_estimate_over_max_hours(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 44 item 5: `solve --cards numbers,modifiers,actions` printed "about 13 hours" and
    started anyway; now a solve estimated past --max-hours (default 1) is refused at once,
    exit 3, in one line naming the estimate and the flags that let it run."""
    assert main(["solve", "--cards", "numbers,modifiers,actions"]) == 3
    assert capsys.readouterr().err == (
        "flip7ref: limit reached: --cards numbers,modifiers,actions: estimated at about 13 hours of CPU, more than "
        "--max-hours 1: pass --max-hours 13 to run it anyway (or --max-seconds S to run it S seconds at most), "
        "or restrict --cards\n"
    )
    # the flag it names lets it start (stopped here by --max-states while solving, a message of its own)
    assert main(["solve", "--cards", "numbers,modifiers,actions", "--max-hours", "13", "--max-states", "10",
                 "--workers", "1"]) == 3  # fmt: skip
    err = capsys.readouterr().err
    assert "--max-hours" not in err and err.splitlines()[-1].startswith("flip7ref: limit reached: more than 10 states")
    # the compact solver's estimate (about 40 s of CPU with Second Chance) is held to the limit too (it needs
    # NumPy, the [analysis] extra: the compiled build's test venv has none)
    if importlib.util.find_spec("numpy") is not None:
        assert main(["solve", "--cards", "numbers,modifiers,second_chance", "--solver", "compact", "--max-hours", "0.001",
                     "--max-states", "30000000"]) == 3  # fmt: skip
        err = capsys.readouterr().err
        assert err.startswith("flip7ref: limit reached: --cards numbers,modifiers,second_chance: estimated at about ")
        assert err.count("\n") == 1
        assert err.endswith("more than --max-hours 0.001: pass --max-hours 1 to run it anyway, or restrict --cards\n")
    assert main(["solve", "--max-hours", "0"]) == 2
    assert capsys.readouterr().err == "flip7ref: error: --max-hours: expected a positive number of hours (inf: no limit)\n"
    assert main(["solve", "--cards", "numbers", "--json"]) == 0  # a small solve still runs
    assert '"value": 18.56521761' in capsys.readouterr().out


def test_solve_refusal_from_the_command_line() -> None:
    """The same refusal through the installed entry point: its exit status and one line on stderr."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "flip7ref.cli", "solve", "--cards", "numbers,modifiers,actions"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert (done.returncode, done.stdout) == (3, "")
    assert done.stderr.startswith("flip7ref: limit reached: --cards numbers,modifiers,actions: estimated at about 13 hours")


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--strategy", "optimal-solo", "--games", "2"],
        ["tournament", "--strategy", "optimal-solo", "--games", "4"],
        ["bench-agents", "--agent", "optimal-solo", "--games", "4"],
    ],
)
def test_optimal_solo_is_for_flip7_only(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refusal is the one line on stderr: no note "solving the optimal-solo policy of Flip 7" (of Flip 7,
    in a Vengeance game) comes before it, as it did."""
    monkeypatch.setattr(OptimalSoloStrategy, "_tables", {})
    assert main([*argv, "--edition", "vengeance"]) == 2
    assert capsys.readouterr().err == (
        "flip7ref: error: strategy optimal-solo is for Flip 7 only: the optimal solo policy of vengeance would need "
        "about 405,432,733,696 states; at most 400,000 are solved\n"
    )


def test_simulate_says_it_solves_the_optimal_solo_policy(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import flip7ref.analysis as analysis

    calls: list[object] = []

    def table(game: Game, max_states: int, categories: tuple[str, ...], **kw: object) -> dict[tuple[int, ...], bool]:
        progress = kw["progress"]
        assert callable(progress)
        progress(10, 262_144)
        calls.append(kw["workers"])
        return {}

    monkeypatch.setattr(analysis, "solo_policy_table", table)
    monkeypatch.setattr(OptimalSoloStrategy, "_tables", {})
    assert main(["simulate", "--strategy", "optimal-solo", "--games", "2", "--json"]) == 0
    assert "solving the optimal-solo policy of Flip 7 first" in capsys.readouterr().err
    assert calls == [1]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_seconds": "5"}, "max_seconds must be a positive number of seconds (got '5')"),
        ({"max_seconds": float("nan")}, "max_seconds must be a positive number of seconds (got nan)"),
        ({"max_seconds": True}, "max_seconds must be a positive number of seconds (got True)"),
        ({"max_states": 0}, "max_states must be a whole number of states, at least 1 (got 0)"),
        ({"max_states": 2.5}, "max_states must be a whole number of states, at least 1 (got 2.5)"),
        ({"max_states": "10"}, "max_states must be a whole number of states, at least 1 (got '10')"),
    ],
)
def test_solver_limits_of_the_wrong_type_are_option_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(OptionError) as info:
        SoloSolver(**kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_odds_says_how_large_a_vengeance_solve_may_be_before_it_starts(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue: `odds --edition vengeance --line 3,5` solved for minutes without a word (or, through the
    library's warning, a Python warning line with a file name and source line); now a one-line estimate in
    the command's words comes first, as for `solve`."""
    assert main(["odds", "--edition", "vengeance", "--line", "3,5", "--max-seconds", "0.2"]) == 3
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (
        "flip7ref: estimate: about 405,432,733,696 states (only a rough estimate), about 469 days of CPU in one "
        "process here; --max-seconds 0.2 stops it then"
    )
    assert len(err) == 2 and err[1].startswith("flip7ref: limit reached: stopped after 0.2 s (--max-seconds)")
