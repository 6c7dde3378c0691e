"""Playing whole games: a driver loop over the interpreter, and simulation statistics."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any, cast

import attrs
from mypy_extensions import mypyc_attr  # native_class=False: stays a plain Python class when compiled (docs/build.md)

from .errors import GameTooLongError, OptionError
from .game import Game
from .state import HIT, State
from .strategies import Strategy


def play(state: Any, strategies: Any, rng: Any, *, max_moves: Any = 200_000) -> State:
    """Play ``state`` to the end.

    Chance nodes take :meth:`State.sample_chance` (the top of an ordered pile,
    or a random card with ``rng`` in an open state); seat ``s`` decides with
    ``strategies[s % len(strategies)]``.

    Args:
        state: where to start.
        strategies: one or more strategies, used round-robin by seat.
        rng: the randomness of strategies (and of open states' chance nodes).
        max_moves: a safety bound; the game is abandoned after that many moves.

    Returns:
        The terminal state.

    Raises:
        OptionError: ``state`` is not a :class:`State` or ``max_moves`` not a whole number.
        GameTooLongError: the game did not end within ``max_moves`` moves (a
            normal game takes a few hundred; strategies that never score, or a
            huge target score, can play forever).
    """
    if not isinstance(state, State):
        raise OptionError(f"state: expected a flip7ref.State, got {type(state).__name__}")
    if isinstance(max_moves, bool) or not isinstance(max_moves, int):
        raise OptionError(f"max_moves: expected a whole number, got {max_moves!r}")
    count = len(strategies)
    moves = 0
    while moves < max_moves:
        player = state.current_player
        if player == -2:
            return cast(State, state)  # the parameter is typed loosely (docs/build.md)
        moves += 1
        if player == -1:
            state = state.apply_chance(state.sample_chance(rng))
            continue
        action = strategies[player % count].choose(state, rng)
        state = state.apply(action)
        if action is HIT and moves < max_moves and state.current_player == -1:
            # the card of the Hit at once (the loop's next step, without its checks)
            moves += 1
            state = state.apply_chance(state.sample_chance(rng))
    if state.current_player == -2:
        return cast(State, state)
    raise GameTooLongError(
        f"the game did not end within {max_moves} moves (do the strategies ever score? is the target score reachable?)"
    )


def game_seed(run_seed: Any, index: Any) -> str:
    """The seed of game ``index`` of a run: derived from the run seed and the index."""
    return f"{run_seed}:{index}"


@mypyc_attr(native_class=False)
@attrs.define
class Summary:
    """Streaming statistics over many games (memory does not grow with games).

    Attributes:
        players: seats per game.
        games: games played.
        rounds: rounds played in all.
        player_rounds: rounds times players.
        points: round points scored in all.
        busts: player-rounds that ended in a bust.
        flip7s: rounds that ended with a Flip 7.
        wins: per seat, games won (a shared win counts for each winner).
        seconds: wall time spent playing.
    """

    players: int
    games: int = 0
    rounds: int = 0
    player_rounds: int = 0
    points: int = 0
    busts: int = 0
    flip7s: int = 0
    wins: list[int] = attrs.Factory(list)
    seconds: float = 0.0

    def add(self, final: State) -> None:
        """Fold one finished game into the statistics."""
        if not self.wins:
            self.wins = [0] * self.players
        self.games += 1
        for event in final.events():
            if event.type == "busted":
                self.busts += 1
            elif event.type == "round_scored":
                self.rounds += 1
                self.player_rounds += self.players
                self.points += sum(event.get("scores"))
                if event.get("flip7") is not None:
                    self.flip7s += 1
        for seat in final.winners:
            self.wins[seat] += 1

    def merge(self, other: Summary) -> None:
        """Fold another summary of the same player count into this one."""
        if not self.wins:
            self.wins = [0] * self.players
        self.games += other.games
        self.rounds += other.rounds
        self.player_rounds += other.player_rounds
        self.points += other.points
        self.busts += other.busts
        self.flip7s += other.flip7s
        for seat, won in enumerate(other.wins):
            self.wins[seat] += won

    def as_dict(self) -> dict[str, object]:
        """The summary as JSON-able data (rates are fractions of 1)."""
        g = max(self.games, 1)
        pr = max(self.player_rounds, 1)
        return {
            "games": self.games,
            "players": self.players,
            "mean_rounds": self.rounds / g,
            "mean_round_score": self.points / pr,
            "bust_rate": self.busts / pr,
            "flip7_rate": self.flip7s / max(self.rounds, 1),
            "win_share": [w / g for w in (self.wins or [0] * self.players)],
            "games_per_second": self.games / self.seconds if self.seconds > 0 else None,
        }


def simulate(
    game: Any,
    games: Any,
    seed: Any,
    strategies: Any,
    *,
    progress: Callable[[int], None] | None = None,
    workers: Any = 1,
    chunk: Any = 50,
) -> Summary:
    """Play ``games`` seeded games and return their :class:`Summary`.

    Game ``i`` uses seed :func:`game_seed` ``(seed, i)`` for its deck and a
    strategy rng seeded from the same value, dealer ``i % players``; so the same
    arguments give the same statistics, whatever ``workers`` is.

    Args:
        game: the compiled game.
        games: how many games (>= 0).
        seed: the run seed.
        strategies: strategies by seat (round-robin); with ``workers > 1`` they
            must pickle (every shipped strategy does).
        progress: called with the number of games finished so far.
        workers: processes to spread the games over (the standard library's
            process pool), at most one per task of ``chunk`` games; 1 plays in
            this process.
        chunk: games per task sent to a worker.

    Raises:
        OptionError: ``games`` not a whole number >= 0, ``workers`` or ``chunk`` not a whole number >= 1.
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 0:
        raise OptionError(f"games: expected a whole number >= 0, got {games!r}")
    if any(isinstance(v, bool) or not isinstance(v, int) for v in (workers, chunk)) or workers < 1 or chunk < 1:
        raise OptionError(f"workers and chunk must be at least 1 (got workers={workers}, chunk={chunk})")
    for strategy in strategies:
        prepare = getattr(strategy, "prepare", None)
        if prepare is not None:  # e.g. optimal-solo solves its policy once, before any worker starts
            prepare(game)
    workers = min(workers, -(-games // chunk)) or 1  # no more processes than tasks
    summary = Summary(players=game.players)
    start = time.perf_counter()
    if workers == 1:
        for i in range(games):
            summary.add(_play_one(game, seed, i, strategies))
            if progress is not None:
                progress(i + 1)
    else:
        ranges = ((lo, min(lo + chunk, games)) for lo in range(0, games, chunk))
        with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(game, tuple(strategies))) as pool:
            # a bounded window of tasks in flight: memory stays flat however many games;
            # the counts are integers, so the order partial summaries arrive in does not matter
            pending = {pool.submit(_play_range, seed, r) for r in itertools.islice(ranges, 4 * workers)}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    summary.merge(future.result())
                    nxt = next(ranges, None)
                    if nxt is not None:
                        pending.add(pool.submit(_play_range, seed, nxt))
                if progress is not None:
                    progress(summary.games)
    summary.seconds = time.perf_counter() - start
    return summary


def _play_one(game: Game, seed: int | str, i: int, strategies: Sequence[Strategy]) -> State:
    s = game_seed(seed, i)
    rng = random.Random(f"{s}:strategy")
    return play(game.new_initial_state(seed=s, dealer=i % game.players), strategies, rng)


_WORKER: dict[str, Any] = {}


def _init_worker(game: Game, strategies: tuple[Strategy, ...]) -> None:
    _WORKER["game"] = game
    _WORKER["strategies"] = strategies


def _play_range(seed: int | str, bounds: tuple[int, int]) -> Summary:
    game: Game = _WORKER["game"]
    part = Summary(players=game.players)
    for i in range(*bounds):
        part.add(_play_one(game, seed, i, _WORKER["strategies"]))
    return part


def iter_games(game: Any, games: Any, seed: Any, strategies: Any) -> Iterator[State]:
    """Yield the terminal state of each game of a seeded run (see :func:`simulate`)."""
    for i in range(games):
        yield _play_one(game, seed, i, strategies)
