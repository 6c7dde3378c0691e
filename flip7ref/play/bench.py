"""A benchmark for agents: a fixed panel of baseline strategies, fixed seeds, every seat.

`bench_agent` seats an agent (any `Strategy`: a shipped one, a plug-in, or a trained policy
wrapped as a strategy) against each opponent of a panel in turn: one seat is the agent's, the
other ``players - 1`` seats are the opponent's, and every deal is played in each of the
``players`` seat rotations (`flip7ref.play.tournament.run_tournament`), so that neither seat
nor cards favour anyone.  Every opponent meets the same deals (the same seed), so two agents'
figures are paired deal by deal.

The figures, per opponent and over the panel:

- the agent's **win rate** (a shared win counting for each winner), whose fair share is
  ``1 / players``;
- its 95 % interval, the normal interval of the mean of the per-deal win shares (deals are the
  independent units: the rotations of one deal share its cards);
- the **rating**: the mean of those per-deal shares over every (opponent, deal) of the panel,
  with its 95 % normal interval.  A rating above ``1 / players`` beats the panel on average.

The default panels (`PANELS`) are the shipped baselines: random, the threshold family and, for
Flip 7, the exact solver's solo policy (``optimal-solo``: it maximises one player's expected
round score, `flip7ref.analysis`).  The same arguments give the same numbers (the seed fixes
every deck and every strategy's random choices), for any number of worker processes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.play import stats
from flip7ref.play.strategies import Strategy
from flip7ref.play.tournament import TournamentResult, check_games, run_tournament

__all__ = ["PANELS", "BenchResult", "Match", "bench_agent", "check_bench"]

PANELS: dict[str, tuple[str, ...]] = {
    "flip7": ("random", "threshold:15", "threshold:20", "threshold:25", "threshold:30", "optimal-solo"),
    "vengeance": ("random", "threshold:15", "threshold:20", "threshold:25", "threshold:30"),
}
"""The baseline panel of each shipped edition (strategy names of `flip7ref.play.strategies.parse_strategy`)."""


def _interval(shares: Sequence[float]) -> tuple[float, float]:
    """The 95 % normal interval of the mean of ``shares``, inside [0, 1] (``(nan, nan)`` for none)."""
    low, high = stats.mean_interval(len(shares), math.fsum(shares), math.fsum(s * s for s in shares))
    return (low, high) if math.isnan(low) else (max(0.0, low), min(1.0, high))


@attrs.define
class Match:
    """The agent against one opponent of the panel.

    Attributes:
        opponent: the opponent's strategy name.
        games: games played (deals times ``players`` rotations).
        shares: the agent's win share of each deal (wins over the deal's rotations divided by
            the rotations), in deal order.
        mean_total: the agent's mean final total (points).
    """

    opponent: str
    games: int
    shares: list[float]
    mean_total: float

    @property
    def win_rate(self) -> float:
        """The agent's win rate against this opponent (mean of `shares`)."""
        return math.fsum(self.shares) / len(self.shares) if self.shares else math.nan

    def interval(self) -> tuple[float, float]:
        """The 95 % normal interval of `win_rate` over the deals."""
        return _interval(self.shares)

    def as_dict(self) -> dict[str, Any]:
        """The match as JSON-ready values (no per-deal shares)."""
        low, high = self.interval()
        return {"opponent": self.opponent, "games": self.games, "win_rate": self.win_rate, "win_rate_ci95": [low, high],
                "mean_total": self.mean_total}  # fmt: skip


@attrs.define
class BenchResult:
    """One agent's benchmark (see the module).

    Attributes:
        agent: the agent's strategy name.
        edition: the edition id.
        players: seats per game.
        seed: the run seed.
        matches: one `Match` per opponent of the panel, in panel order.
        seconds: wall time of the games (seconds).
    """

    agent: str
    edition: str
    players: int
    seed: int | str
    matches: list[Match]
    seconds: float = 0.0

    @property
    def fair_share(self) -> float:
        """The win rate of an agent no better than its opponents: ``1 / players``."""
        return 1 / self.players

    @property
    def rating(self) -> float:
        """The mean win share over every (opponent, deal) of the panel."""
        shares = [s for m in self.matches for s in m.shares]
        return math.fsum(shares) / len(shares) if shares else math.nan

    def interval(self) -> tuple[float, float]:
        """The 95 % normal interval of `rating`."""
        return _interval([s for m in self.matches for s in m.shares])

    def as_dict(self) -> dict[str, Any]:
        """The result as JSON-ready values."""
        low, high = self.interval()
        return {"agent": self.agent, "edition": self.edition, "players": self.players, "seed": self.seed,
                "rating": self.rating, "rating_ci95": [low, high], "fair_share": self.fair_share,
                "matches": [m.as_dict() for m in self.matches], "seconds": self.seconds}  # fmt: skip


def _match(result: TournamentResult, opponent: str, players: int) -> Match:
    agent = result.entries[0]
    shares = [agent.deals[d][0] / players for d in sorted(agent.deals)]
    return Match(opponent, result.games, shares, agent.mean_score)


def check_bench(players: int, games: int) -> None:
    """Refuse a benchmark's player count or games per opponent before anything is played or solved.

    Args:
        players: the seats of every match.
        games: games per opponent.

    Raises:
        OptionError: fewer than 2 players; ``games`` not a positive multiple of ``players``
            (`flip7ref.play.tournament.check_games`).
    """
    if players < 2:
        raise OptionError(f"--players: a benchmark needs at least 2 players (the agent and its opponents), got {players}")
    check_games(games, players)


def bench_agent(
    game: Game,
    agent: Strategy,
    panel: Sequence[Strategy],
    games: int,
    seed: int | str = 1,
    *,
    workers: int = 1,
    cluster: Any = None,
    progress: Callable[[int], None] | None = None,
) -> BenchResult:
    """Benchmark ``agent`` against every strategy of ``panel`` (see the module).

    Args:
        game: the compiled game; its players (at least 2) are the seats of every match.
        agent: the strategy benchmarked (one seat of each game).
        panel: the opponents, one match each (they fill the other seats).
        games: games per opponent, a positive multiple of ``game.players``.
        seed: the run seed: every opponent meets the same deals.
        workers: processes to play in; cluster: a ``dask.distributed.Client`` (as
            `run_tournament`).
        progress: called with the games finished so far, over the whole panel.

    Returns:
        The `BenchResult`.

    Raises:
        OptionError: fewer than 2 players, an empty panel, or ``games`` not a positive multiple of the
            players (as `run_tournament`).
        StrategyError: a strategy chose an illegal action.
        GameTooLongError: a game did not end.
    """
    p = game.players
    check_bench(p, games)
    if not panel:
        raise OptionError("--opponent: the panel is empty: name at least one opponent")
    matches: list[Match] = []
    seconds = 0.0
    for i, opponent in enumerate(panel):
        done = i * games

        def tick(n: int, done: int = done) -> None:
            if progress is not None:
                progress(done + n)

        result = run_tournament(game, [agent, *[opponent] * (p - 1)], games, seed, workers=workers, cluster=cluster,
                                progress=tick)  # fmt: skip
        seconds += result.seconds
        matches.append(_match(result, opponent.name, p))
    return BenchResult(agent.name, game.edition.id, p, seed, matches, seconds)
