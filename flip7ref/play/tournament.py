"""Tournaments: strategies playing each other in every seat rotation, and how
much each disputed reading changes the result.

A tournament seats ``players`` players; the lineup is the strategies in order,
repeated to fill the seats (seat ``s`` of rotation 0 plays strategy
``s mod k``).  Every deal is played once in each of the ``players`` rotations
(rotation ``r`` moves every strategy ``r`` seats to the right), so that no
strategy gains from its seat or from the cards of a deal: game ``i`` plays deal
``i // players`` (deck seed `game_seed` ``(seed, deal)``,
dealer ``deal mod players``, the strategies' rng seeded from the deal too) in
rotation ``i mod players``.  ``games`` must therefore be a multiple of
``players``.

Per strategy (an entry of the lineup) it reports the seat-games played, the
win rate (wins / seat-games, a shared win counting for each winner) with its
95 % Wilson score interval, and the mean final total with its 95 % normal
interval (`flip7ref.play.stats`).  Deals are shared by the rotations, so seat-
games are not independent: the intervals are a guide, not a test.

`readings_sweep` plays the same tournament (same seed) once with the
given options and once for each non-default reading of every other option with
named readings (``flip7ref options`` lists them): the "what if we played it the
other way" table of every dispute.

The games can be spread over ``workers`` processes (the standard library's
process pool) or a Dask cluster (`flip7ref.proc.cluster`); the result is the
same, as only integer counts are merged.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import attrs

from flip7ref.core.errors import Flip7RefError, OptionError
from flip7ref.core.game import Game
from flip7ref.core.spec import Edition
from flip7ref.play import stats
from flip7ref.play.games import game_seed, play
from flip7ref.play.strategies import Strategy, prepare_strategies, worker_lost
from flip7ref.proc.pools import WAKE_SECONDS, abandon, check_workers, sigint_held, worker_started

__all__ = [
    "Entry",
    "ReadingResult",
    "TournamentResult",
    "check_games",
    "disputed_readings",
    "games_near",
    "readings_sweep",
    "run_tournament",
]


@attrs.define
class Entry:
    """One strategy of a tournament's lineup and its results.

    Attributes:
        name: the strategy's name (``#2`` is appended when it appears twice).
        seat_games: games times seats it played.
        wins: seat-games it won (a shared win counts for each winner).
        scores: final total -> seat-games that ended with it.
        deals: deal -> ``[wins, sum of final totals]`` over that deal's rotations (what
            `ReadingResult.deltas` pairs: every reading replays the same deals).
    """

    name: str
    seat_games: int = 0
    wins: int = 0
    scores: Counter[int] = attrs.Factory(Counter)
    deals: dict[int, list[int]] = attrs.Factory(dict)

    def merge(self, other: Entry) -> None:
        self.seat_games += other.seat_games
        self.wins += other.wins
        self.scores.update(other.scores)
        for deal, (wins, total) in other.deals.items():
            mine = self.deals.setdefault(deal, [0, 0])
            mine[0] += wins
            mine[1] += total

    @property
    def win_rate(self) -> float:
        """Wins per seat-game (nan with no games)."""
        return self.wins / self.seat_games if self.seat_games else math.nan

    def win_interval(self) -> tuple[float, float]:
        """95 % Wilson score interval of the win rate."""
        return stats.wilson(self.wins, self.seat_games)

    @property
    def mean_score(self) -> float:
        """Mean final total (points) per seat-game (nan with no games)."""
        return sum(v * n for v, n in self.scores.items()) / self.seat_games if self.seat_games else math.nan

    def score_interval(self) -> tuple[float, float]:
        """95 % normal interval of the mean final total."""
        total = sum(v * n for v, n in self.scores.items())
        squares = sum(v * v * n for v, n in self.scores.items())
        return stats.mean_interval(self.seat_games, total, squares)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "seat_games": self.seat_games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "win_rate_ci95": list(self.win_interval()),
            "mean_score": self.mean_score,
            "mean_score_ci95": list(self.score_interval()),
        }


@attrs.define
class TournamentResult:
    """The result of `run_tournament`.

    Attributes:
        edition: edition id.
        players: seats per game.
        options: the options that differ from the defaults.
        games: games played.
        entries: one `Entry` per strategy, in lineup order.
        seconds: wall time.
    """

    edition: str
    players: int
    options: dict[str, str | int]
    games: int
    entries: list[Entry]
    seconds: float = 0.0

    def merge(self, other: TournamentResult) -> None:
        self.games += other.games
        for mine, theirs in zip(self.entries, other.entries, strict=True):
            mine.merge(theirs)

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form; intervals as ``[low, high]``."""
        return {
            "edition": self.edition,
            "players": self.players,
            "options": dict(self.options),
            "games": self.games,
            "rotations": self.players,
            "entries": [e.as_dict() for e in self.entries],
            "interval": "95% Wilson score (win rates), 95% normal (mean scores)",
        }


def _names(strategies: Sequence[Strategy]) -> list[str]:
    seen: Counter[str] = Counter()
    out = []
    for s in strategies:
        seen[s.name] += 1
        out.append(s.name if seen[s.name] == 1 else f"{s.name}#{seen[s.name]}")
    return out


def seating(entries: int, players: int, rotation: int) -> list[int]:
    """The entry (index into the strategies) at each seat in a rotation."""
    lineup = [j % entries for j in range(players)]
    return [lineup[(s + rotation) % players] for s in range(players)]


def tournament_range(
    game: Game, strategies: Sequence[Strategy], seed: int | str, bounds: tuple[int, int]
) -> TournamentResult:
    """Games ``bounds[0]`` to ``bounds[1] - 1`` of a tournament (see the module):
    the unit of work a process or a Dask worker plays."""
    p = game.players
    part = _empty(game, strategies)
    for i in range(*bounds):
        deal, rotation = divmod(i, p)
        seats = seating(len(strategies), p, rotation)
        deck = game_seed(seed, deal)
        final = play(game.new_initial_state(seed=deck, dealer=deal % p), [strategies[e] for e in seats],
                     random.Random(f"{deck}:strategy"))  # fmt: skip
        part.games += 1
        for s, e in enumerate(seats):
            entry = part.entries[e]
            entry.seat_games += 1
            entry.wins += s in final.winners
            entry.scores[final.totals[s]] += 1
            per_deal = entry.deals.setdefault(deal, [0, 0])
            per_deal[0] += s in final.winners
            per_deal[1] += final.totals[s]
    return part


def _empty(game: Game, strategies: Sequence[Strategy]) -> TournamentResult:
    return TournamentResult(game.edition.id, game.players, game.non_default_options(), 0,
                            [Entry(n) for n in _names(strategies)])  # fmt: skip


def check_games(games: int, players: int, flag: str = "--games") -> None:
    """Refuse a number of games that is not a positive multiple of ``players``.

    Every deal is played once in each of the ``players`` seat rotations, so a tournament
    (and a benchmark match) plays a whole number of deals.

    Args:
        games: the games asked for.
        players: the seats of every game.
        flag: the command-line flag named in the message.

    Raises:
        OptionError: ``games`` below 1 or not a multiple of ``players``; the message names
            ``flag``, the multiple expected and the value given.
    """
    if games < 1 or games % players:
        raise OptionError(
            f"{flag}: expected a positive multiple of {players} (every deal is played in each of the {players} "
            f"seat rotations), got {games}"
        )


def games_near(wanted: int, players: int) -> int:
    """``wanted`` rounded down to a multiple of ``players`` (at least ``players``): a command's default
    number of games that every player count accepts (400 becomes 399 for 3 players).

    Args:
        wanted: the default number of games (at least 1).
        players: the seats of every game (at least 1).
    """
    return max(players, wanted - wanted % players)


def run_tournament(
    game: Game,
    strategies: Sequence[Strategy],
    games: int,
    seed: int | str = 1,
    *,
    workers: int = 1,
    cluster: Any = None,
    chunk: int = 40,
    progress: Callable[[int], None] | None = None,
) -> TournamentResult:
    """Play a tournament (see the module) and return its result.

    Args:
        game: the compiled game (its players are the seats).
        strategies: 1 to ``game.players`` strategies, the lineup in order.
        games: games in all, a positive multiple of ``game.players`` (each deal
            is played in every rotation).
        seed: the run seed.
        workers: processes to play in (the standard library's pool); 1: here.
        cluster: a ``dask.distributed.Client``: the same tasks run on its workers.
        chunk: games per task.
        progress: called with the games finished so far.

    Raises:
        OptionError: no strategies or more than seats; ``games`` not a positive
            multiple of the players; ``workers`` or ``chunk`` below 1.
        StrategyError: a strategy chose an illegal action.
        GameTooLongError: a game did not end (strategies that never score).
    """
    p = game.players
    if not 1 <= len(strategies) <= p:
        raise OptionError(f"--strategy: give 1 to {p} strategies for {p} players, got {len(strategies)}")
    check_games(games, p)
    if workers < 1 or chunk < 1:
        raise OptionError(f"workers and chunk must be at least 1 (got workers={workers}, chunk={chunk})")
    prepare_strategies(strategies, game)
    result = _empty(game, strategies)
    start = time.perf_counter()
    ranges = [(lo, min(lo + chunk, games)) for lo in range(0, games, chunk)]
    workers = min(workers, len(ranges))

    def take(part: TournamentResult) -> None:
        result.merge(part)
        if progress is not None:
            progress(result.games)

    if cluster is not None:
        from flip7ref.proc.cluster import run_units

        run_units(cluster, tournament_range, (game, tuple(strategies)), [(seed, r) for r in ranges],
                  lambda _, part: take(part))  # fmt: skip
    elif workers == 1:
        for r in ranges:
            take(tournament_range(game, strategies, seed, r))
    else:
        # the game and the strategies (optimal-solo's table) go to each process once
        try:
            with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(game, tuple(strategies))) as pool:
                try:
                    todo = iter(ranges)
                    with sigint_held():  # the pool's threads start here: Ctrl-C must reach the main thread
                        pending = {pool.submit(_worker_range, seed, r) for r in itertools.islice(todo, 4 * workers)}
                    while pending:
                        done, pending = wait(pending, timeout=WAKE_SECONDS, return_when=FIRST_COMPLETED)
                        if not done:
                            check_workers(pool)  # a worker ended and the pool did not notice (flip7ref.proc.pools)
                        for future in done:
                            take(future.result())
                            nxt = next(todo, None)
                            if nxt is not None:
                                pending.add(pool.submit(_worker_range, seed, nxt))
                except BaseException:  # Ctrl-C, SIGTERM (flip7ref.proc.pools.Terminated), an error
                    abandon(pool)  # the workers now, not after their tasks (flip7ref.proc.pools)
                    raise
        except BrokenProcessPool:
            raise worker_lost(strategies, "the tournament's games") from None
    result.seconds = time.perf_counter() - start
    return result


_WORKER: dict[str, Any] = {}


def _init_worker(game: Game, strategies: tuple[Strategy, ...]) -> None:
    worker_started()  # Ctrl-C is the parent's (it ends the workers); dies with the parent (flip7ref.proc.pools)
    _WORKER["game"], _WORKER["strategies"] = game, strategies


def _worker_range(seed: int | str, bounds: tuple[int, int]) -> TournamentResult:
    return tournament_range(_WORKER["game"], _WORKER["strategies"], seed, bounds)


def disputed_readings(edition: Edition, fixed: Sequence[str] = ()) -> Iterator[tuple[str, str, str | None]]:
    """``(option, reading, dispute id)`` for every non-default named reading of
    every option of ``edition`` not in ``fixed``, in table order."""
    for spec in edition.options.values():
        if spec.name in fixed:
            continue
        default = spec.coerce(spec.default)
        for reading in spec.readings:
            if spec.coerce(reading.name) != default:
                yield spec.name, reading.name, spec.dispute


@attrs.define
class ReadingResult:
    """One reading of a `readings_sweep`: its tournament, or why it could not be played.

    Attributes:
        option: the option changed.
        reading: its reading.
        dispute: the dispute id it models, if any.
        result: the tournament with that reading, or None.
        error: why it was not played (e.g. the reading does not fit the players).
    """

    option: str
    reading: str
    dispute: str | None
    result: TournamentResult | None
    error: str | None = None

    def deltas(self, baseline: TournamentResult) -> list[dict[str, Any]]:
        """Per entry: the change of win rate and mean score against ``baseline``, each
        with the 95 % normal interval of a *paired* difference (`flip7ref.play.stats.paired`):
        both tournaments play the same deals, so the differences are taken deal by deal
        (each over its rotations) and their spread gives the interval.  A reading that
        changes no game gives 0 with the interval [0, 0].

        Raises:
            ValueError: the two tournaments did not play the same deals with the same lineup.
        """
        if self.result is None:
            return []
        out = []
        for base, new in zip(baseline.entries, self.result.entries, strict=True):
            if base.deals.keys() != new.deals.keys() or base.seat_games != new.seat_games:
                raise ValueError(f"{new.name}: the reading's tournament did not play the baseline's deals")
            per_deal = base.seat_games / len(base.deals) if base.deals else 1.0  # seat-games per deal
            win = stats.paired([(new.deals[d][0] - base.deals[d][0]) / per_deal for d in sorted(base.deals)])
            score = stats.paired([(new.deals[d][1] - base.deals[d][1]) / per_deal for d in sorted(base.deals)])
            out.append({"name": new.name, "win_rate": win[0], "win_rate_ci95": [win[1], win[2]],
                        "mean_score": score[0], "mean_score_ci95": [score[1], score[2]]})  # fmt: skip
        return out

    def as_dict(self, baseline: TournamentResult) -> dict[str, Any]:
        return {
            "option": self.option,
            "reading": self.reading,
            "dispute": self.dispute,
            "error": self.error,
            "result": None if self.result is None else self.result.as_dict(),
            "delta": self.deltas(baseline),
        }


def readings_sweep(
    edition: str | Edition,
    players: int,
    options: dict[str, str],
    strategies: Sequence[Strategy],
    games: int,
    seed: int | str = 1,
    *,
    workers: int = 1,
    cluster: Any = None,
    progress: Callable[[str, int], None] | None = None,
) -> tuple[TournamentResult, list[ReadingResult]]:
    """The tournament with ``options``, then once for every reading of
    `disputed_readings` (the other options as given), same seed.

    ``progress(label, games finished)`` is called as each tournament goes
    (label ``baseline`` or ``option=reading``).

    Returns:
        ``(baseline, [ReadingResult, ...])``.

    Raises:
        as `run_tournament` for the baseline; a reading that cannot be
        played (an OptionError or GameTooLongError of its own) is reported in its
        `ReadingResult` instead.
    """
    base_game = Game(edition, players, options)

    def tick(label: str) -> Callable[[int], None] | None:
        return None if progress is None else (lambda n: progress(label, n))

    baseline = run_tournament(base_game, strategies, games, seed, workers=workers, cluster=cluster, progress=tick("baseline"))
    out = []
    for option, reading, dispute in disputed_readings(base_game.edition, tuple(options)):
        label = f"{option}={reading}"
        try:
            game = Game(base_game.edition, players, {**options, option: reading})
            result = run_tournament(game, strategies, games, seed, workers=workers, cluster=cluster, progress=tick(label))
        except Flip7RefError as exc:
            out.append(ReadingResult(option, reading, dispute, None, str(exc)))
            continue
        out.append(ReadingResult(option, reading, dispute, result))
    return baseline, out
