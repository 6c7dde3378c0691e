"""simulate --workers: the same statistics for any number of processes; strategies that pickle."""

from __future__ import annotations

import json
import os
import pickle

import pytest

from flip7ref import Game
from flip7ref.cli import main
from flip7ref.core.errors import OptionError
from flip7ref.play.games import Summary, simulate
from flip7ref.play.strategies import OptimalSoloStrategy, parse_strategy
from flip7ref.proc.pools import process_limit

STATS = ("games", "mean_rounds", "mean_round_score", "bust_rate", "flip7_rate", "win_share")


@pytest.mark.parametrize("edition", ["flip7", "vengeance"])
def test_workers_give_the_same_summary(edition: str) -> None:
    """1 process, 2 processes and an odd chunk size fold the same games into the same numbers."""
    game = Game(edition, 3)
    strategies = [parse_strategy("threshold:20"), parse_strategy("random")]
    one = simulate(game, 23, "w", strategies).as_dict()
    two = simulate(game, 23, "w", strategies, workers=2, chunk=5).as_dict()
    assert {k: one[k] for k in STATS} == {k: two[k] for k in STATS}
    assert one["games"] == 23


def test_summary_merge_adds_counts() -> None:
    """Merging partial summaries adds every count and the wins seat by seat."""
    a = Summary(players=2, games=3, rounds=10, player_rounds=20, points=300, busts=4, flip7s=1, wins=[2, 1])
    b = Summary(players=2, games=1, rounds=4, player_rounds=8, points=90, busts=2, flip7s=0, wins=[0, 1])
    a.merge(b)
    assert (a.games, a.rounds, a.player_rounds, a.points, a.busts, a.flip7s, a.wins) == (4, 14, 28, 390, 6, 1, [2, 2])


def test_simulate_command_workers(capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI prints the same JSON statistics with --workers 2 as with --workers 1."""
    outs = []
    for workers in ("1", "2"):
        assert main(["simulate", "--games", "12", "--seed", "9", "--workers", workers, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        outs.append({k: data[k] for k in STATS})
    assert outs[0] == outs[1]
    assert main(["simulate", "--games", "5", "--workers", "0"]) == 2
    expected = f"--workers: expected a whole number of processes from 1 to {process_limit()} (4 per CPU), got 0"
    assert expected in capsys.readouterr().err


def test_simulate_rejects_bad_worker_counts() -> None:
    """The library call refuses workers or chunk below 1."""
    with pytest.raises(OptionError, match="at least 1"):
        simulate(Game("flip7", 2), 3, 1, [parse_strategy("random")], workers=0)


def test_optimal_solo_strategy_pickles_with_its_table() -> None:
    """The solved table travels with the strategy (workers do not solve again)."""
    strategy = OptimalSoloStrategy(categories=("number",))
    table = strategy.prepare(Game("flip7", 2))
    clone = pickle.loads(pickle.dumps(strategy))
    assert clone.name == "optimal-solo[number]" and clone.categories == ("number",)
    assert clone.prepare(Game("flip7", 2)) == table
    summary = simulate(Game("flip7", 2), 6, 3, [strategy], workers=2, chunk=2)
    assert summary.games == 6 and summary.rounds > 0


def test_workers_are_capped_by_the_tasks() -> None:
    """More workers than tasks start no more processes than tasks (same summary)."""
    game = Game("flip7", 2)
    one = simulate(game, 3, 1, [parse_strategy("threshold:20")]).as_dict()
    many = simulate(game, 3, 1, [parse_strategy("threshold:20")], workers=64, chunk=2).as_dict()
    assert {k: one[k] for k in STATS} == {k: many[k] for k in STATS}


@pytest.mark.parametrize("command", [["simulate", "--games", "100000"], ["tournament", "--games", "100000"],
                                     ["bench-agents", "--games", "100000"], ["solve", "--cards", "numbers"]])
def test_more_worker_processes_than_the_machine_can_run_are_refused(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--workers 100000`` once started that many processes (a pool of one per task of games); it
    is a usage error before any starts, at 4 processes per CPU (at least 8)."""
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    assert main([*command, "--workers", "100000"]) == 2
    assert capsys.readouterr().err == (
        "flip7ref: error: --workers: expected a whole number of processes from 1 to 12 (4 per CPU), got 100000\n"
    )
