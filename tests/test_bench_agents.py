"""``flip7ref bench-agents`` and `flip7ref.play.bench`: agents rated against a fixed panel."""

from __future__ import annotations

import json
import math
import re

import pytest

from flip7ref import Game
from flip7ref.cli import main
from flip7ref.core.errors import OptionError
from flip7ref.play.bench import PANELS, bench_agent
from flip7ref.play.strategies import parse_strategy


def test_an_agent_against_itself_wins_exactly_half_of_every_deal() -> None:
    """Both seats of a deal are played by the same strategy on the same cards and the same
    random choices: one rotation's winner is the other's loser, deal by deal."""
    game = Game("flip7", 2)
    agent = parse_strategy("threshold:20")
    result = bench_agent(game, agent, [parse_strategy("threshold:20")], 40, seed=3)
    (match,) = result.matches
    assert match.games == 40 and match.shares == [0.5] * 20
    assert match.interval() == (0.5, 0.5) and result.rating == 0.5 and result.fair_share == 0.5


def test_the_rating_pools_every_deal_of_the_panel_and_is_reproducible() -> None:
    game = Game("vengeance", 2)
    panel = [parse_strategy("random"), parse_strategy("threshold:25")]
    one = bench_agent(game, parse_strategy("threshold:20"), panel, 60, seed="word")
    two = bench_agent(game, parse_strategy("threshold:20"), panel, 60, seed="word")
    assert one.as_dict() == {**two.as_dict(), "seconds": one.seconds}
    shares = [s for m in one.matches for s in m.shares]
    assert len(shares) == 60 and one.rating == pytest.approx(math.fsum(shares) / 60)
    assert [m.opponent for m in one.matches] == ["random", "threshold:25"]
    assert one.matches[0].win_rate > 0.9  # a threshold player against random play
    low, high = one.interval()
    assert 0 <= low < one.rating < high <= 1


def test_three_players_the_agent_takes_each_seat_once_per_deal() -> None:
    result = bench_agent(Game("flip7", 3), parse_strategy("threshold:25"), [parse_strategy("random")], 30, seed=1)
    (match,) = result.matches
    assert match.games == 30 and len(match.shares) == 10
    assert all(s in (0, 1 / 3, 2 / 3, 1) for s in match.shares) and result.fair_share == pytest.approx(1 / 3)


def test_bad_calls_are_refused() -> None:
    with pytest.raises(OptionError, match="at least 2 players"):
        bench_agent(Game("flip7", 1), parse_strategy("random"), [parse_strategy("random")], 10)
    with pytest.raises(OptionError, match="panel is empty"):
        bench_agent(Game("flip7", 2), parse_strategy("random"), [], 10)
    with pytest.raises(OptionError, match="multiple of 2"):
        bench_agent(Game("flip7", 2), parse_strategy("random"), [parse_strategy("random")], 7)


def test_the_panels_are_the_shipped_baselines() -> None:
    assert PANELS["flip7"] == ("random", "threshold:15", "threshold:20", "threshold:25", "threshold:30", "optimal-solo")
    assert PANELS["vengeance"] == PANELS["flip7"][:-1]  # the solo solver is Flip 7's
    for names in PANELS.values():
        for name in names:
            parse_strategy(name)


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench-agents", "--edition", "vengeance", "--agent", "threshold:20", "--opponent", "random",
            "--opponent", "threshold:20", "--games", "20", "--seed", "7", "--json"]  # fmt: skip
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["panel"] == ["random", "threshold:20"] and data["seed"] == 7 and data["games_per_opponent"] == 20
    (agent,) = data["agents"]
    assert agent["agent"] == "threshold:20" and agent["players"] == 2
    assert [m["opponent"] for m in agent["matches"]] == ["random", "threshold:20"]
    assert agent["matches"][1]["win_rate"] == 0.5
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["agents"][0]["rating"] == agent["rating"]


def test_cli_rates_the_panel_without_an_agent(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-agents", "--opponent", "random", "--opponent", "threshold:25", "--games", "20", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [a["agent"] for a in data["agents"]] == ["random", "threshold:25"]
    assert data["agents"][0]["matches"][0]["win_rate"] == 0.5


def test_cli_text_gives_the_time_of_play_and_in_all(capsys: pytest.CaptureFixture[str]) -> None:
    """The last line gives both times: optimal-solo's table is solved before the play and not in its time."""
    assert main(["bench-agents", "--opponent", "random", "--agent", "threshold:25", "--games", "20"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert re.fullmatch(r"seed 1; 20 games per opponent; \d+\.\d s of play, \d+\.\d s in all", last), last


def test_cli_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-agents", "--players", "1", "--opponent", "random", "--games", "10"]) == 2
    assert "at least 2 players" in capsys.readouterr().err
    assert main(["bench-agents", "--opponent", "nope:3", "--games", "10"]) == 2
    assert "nope" in capsys.readouterr().err


def test_docs_rl_quotes_the_benchmark_as_it_runs() -> None:
    """docs/rl.md's Vengeance row of threshold:25 is what ``bench-agents --edition vengeance
    --games 400`` prints for it (seed 1): the figures are reproducible by seed."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "rl.md").read_text(encoding="utf-8")
    table = text[text.index("| Vengeance | rating") :]
    row = next(line for line in table.splitlines() if line.startswith("| threshold:25 |"))
    panel = [parse_strategy(n) for n in PANELS["vengeance"]]
    result = bench_agent(Game("vengeance", 2), parse_strategy("threshold:25"), panel, 400, seed=1)
    low, high = result.interval()
    cells = [f"{result.rating:.3f} ({low:.3f}–{high:.3f})", *(f"{m.win_rate:.3f}" for m in result.matches)]
    assert row == "| threshold:25 | " + " | ".join(cells) + " |"
