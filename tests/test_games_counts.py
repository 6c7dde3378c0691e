"""How many games ``tournament``, ``bench-agents`` and ``train-agent`` play: their defaults fit
every player count (400 or 4,000 rounded down to a multiple of the players, each deal being
played in every seat rotation), and a count that does not fit, or a player count no game has,
is a one-line error before anything is solved or trained.

These tests check the command line, so they cite no rule ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flip7ref.cli import main
from flip7ref.core.errors import OptionError
from flip7ref.play.tournament import check_games, games_near

THREE_NOT_TEN = (
    "flip7ref: error: --games: expected a positive multiple of 3 (every deal is played in each of the 3 seat "
    "rotations), got 10\n"
)


def test_games_near_rounds_down_to_a_multiple_of_the_players() -> None:
    assert [games_near(400, p) for p in (1, 2, 3, 4, 6, 7, 18)] == [400, 400, 399, 400, 396, 399, 396]
    assert games_near(4000, 3) == 3999 and games_near(5, 18) == 18
    check_games(399, 3)
    with pytest.raises(OptionError, match=r"^--games: expected a positive multiple of 3 .*, got 400$"):
        check_games(400, 3)
    with pytest.raises(OptionError, match=r"^--games: expected a positive multiple of 2 .*, got 0$"):
        check_games(0, 2)


def test_tournament_of_three_players_plays_the_default_rounded_down(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue: ``tournament --players 3`` without --games was refused (the default 400 is no multiple of 3)."""
    assert main(["tournament", "--players", "3", "--strategy", "random", "--strategy", "threshold:20", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 399


def test_bench_agents_of_three_players_plays_the_default_rounded_down(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench-agents", "--players", "3", "--agent", "threshold:25", "--opponent", "random", "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["games_per_opponent"] == 399


@pytest.mark.parametrize(
    "argv",
    [
        ["bench-agents", "--players", "3", "--games", "10"],  # the panel holds optimal-solo
        ["tournament", "--players", "3", "--games", "10", "--strategy", "optimal-solo"],
    ],
)
def test_a_count_of_games_that_does_not_fit_is_refused_before_optimal_solo_is_solved(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue: the refusal came after optimal-solo's table was solved (seconds to a minute of CPU)."""
    assert main(argv) == 2
    assert capsys.readouterr().err == THREE_NOT_TEN  # no "solving the optimal-solo policy" note before it


def test_bench_agents_of_one_player_is_refused_before_optimal_solo_is_solved(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-agents", "--players", "1"]) == 2
    assert capsys.readouterr().err == (
        "flip7ref: error: --players: a benchmark needs at least 2 players (the agent and its opponents), got 1\n"
    )


def test_train_agent_with_no_players_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue: ``train-agent --players 0`` ended in a ZeroDivisionError traceback (needs no PyTorch)."""
    assert main(["train-agent", "--players", "0", "--out", str(tmp_path / "a.pt")]) == 2
    assert capsys.readouterr().err == "flip7ref: error: players: 0 is too few for flip7 (at least 1)\n"


def test_train_agent_of_three_players_rates_the_default_rounded_down(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue: ``train-agent --players 3`` was refused: "--bench-games: expected 0 or a positive multiple of
    --players, got 4000", a flag the user never gave. Now 3,999 games pass that check (the run stops at the
    next argument checked, the seed, so no PyTorch is needed)."""
    assert main(["train-agent", "--players", "3", "--seed", "-1", "--out", str(tmp_path / "a.pt")]) == 2
    assert capsys.readouterr().err == "flip7ref: error: --seed: expected a whole number >= 0, got '-1'\n"
