"""Playing whole games: a driver loop over the interpreter, and simulation statistics."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

import attrs
from mypy_extensions import mypyc_attr  # native_class=False: stays a plain Python class when compiled (docs/build.md)

from flip7ref.core import lanes
from flip7ref.core import state as state_module
from flip7ref.core.errors import DecisionTimeoutError, GameTooLongError, IllegalActionError, OptionError, StrategyError
from flip7ref.core.game import Game
from flip7ref.core.state import HIT, State
from flip7ref.play import stats
from flip7ref.play.strategies import Strategy, prepare_strategies, strategy_name, worker_lost
from flip7ref.proc.pools import worker_started


def play(state: Any, strategies: Any, rng: Any, *, max_moves: Any = 200_000) -> State:
    """Play ``state`` to the end.

    Chance nodes take `State.sample_chance` (the top of an ordered pile,
    or a random card with ``rng`` in an open state); seat ``s`` decides with
    ``strategies[s % len(strategies)]``.

    Args:
        state (State): where to start.
        strategies (Sequence[Strategy]): one or more strategies, used round-robin by seat.
        rng (random.Random): the randomness of strategies (and of open states' chance nodes).
        max_moves (int): a safety bound; the game is abandoned after that many moves.

    Returns:
        The terminal state.

    Raises:
        OptionError: ``state`` is not a `State` or ``max_moves`` not a whole number.
        GameTooLongError: the game did not end within ``max_moves`` moves (a
            normal game takes a few hundred; strategies that never score, or a
            huge target score, can play forever).
        StrategyError: a strategy chose an action that is not legal, or its
            ``choose`` raised (or called ``sys.exit``).
    """
    if not isinstance(state, State):
        raise OptionError(f"state: expected a flip7ref.State, got {type(state).__name__}")
    if isinstance(max_moves, bool) or not isinstance(max_moves, int):
        raise OptionError(f"max_moves: expected a whole number, got {max_moves!r}")
    s: State = state  # checked above: a typed name, so compiled code calls State's methods directly
    count = len(strategies)
    lanes_on = state_module._FAST_LANES  # read once a game (tests switch it between games)
    moves = 0
    while moves < max_moves:
        player = s.current_player
        if player == -2:
            return s
        moves += 1
        if player == -1:
            s = _next_card(s, rng, lanes_on)
            continue
        strategy = strategies[player % count]
        try:
            action = strategy.choose(s, rng)
        except DecisionTimeoutError:  # the decision time limit (flip7ref.proc.timelimit): it names the strategy and seat
            raise
        except (Exception, SystemExit) as exc:  # the user's code failed: say whose and where, not a traceback
            name = strategy_name(strategy)
            raise StrategyError(f"strategy {name!r} at seat {player} failed in choose(): {type(exc).__name__}: {exc}") from None
        if action is HIT and lanes_on and moves < max_moves:
            both = lanes.hit_top_card(s)  # the Hit and its card in one step, where the lanes take both
            if both is not None:
                moves += 1
                s = cast(State, both)  # a lane builds with s._make: a State
                continue
        hit = lanes.offer_hit(s) if action is HIT and lanes_on else None  # `State.apply`'s lane for it
        if hit is None:
            try:
                s = s.apply(action)
            except IllegalActionError as exc:
                raise StrategyError(f"strategy {strategy_name(strategy)!r} at seat {player} chose an {exc}") from None
            if action is not HIT or s.current_player != -1:
                continue
        else:
            s = cast(State, hit)  # a chance node: the card of the Hit (F7-031)
        if moves < max_moves:
            # the card of the Hit at once (the loop's next step, without its checks)
            moves += 1
            s = _next_card(s, rng, lanes_on)
    if s.current_player == -2:
        return s
    raise GameTooLongError(
        f"the game did not end within {max_moves} moves (do the strategies ever score? is the target score reachable?)"
    )


def _next_card(s: State, rng: Any, lanes_on: bool) -> State:
    """``s.apply_chance(s.sample_chance(rng))`` at chance node ``s``.  From an ordered pile
    the top card goes straight to the plain-card lane (`flip7ref.core.lanes.plain_card`, which
    `State.apply_chance` would call with it) without naming the card and looking the name
    up again; a card the lane declines goes straight to `State.apply_chance`'s general path
    (``State._card_drawn``), not to the lane a second time.  An open pile, and ``lanes_on``
    False (``flip7ref.core.state._FAST_LANES`` switched off), take the public calls."""
    code = lanes.top_card(s) if lanes_on else None
    if code is None:
        return s.apply_chance(s.sample_chance(rng))
    fast = lanes.plain_card(s, code)
    return s._card_drawn(code, 0) if fast is None else cast(State, fast)  # declined: the general path, not the lane again


def game_seed(run_seed: Any, index: Any) -> str:
    """The seed of game ``index`` of a run: derived from the run seed and the index.

    Args:
        run_seed (int | str): the run's seed (``simulate --seed``).
        index (int): the game's number in the run, from 0.

    Returns:
        The game's seed, ``"RUN_SEED:INDEX"``.
    """
    return f"{run_seed}:{index}"


@mypyc_attr(native_class=False)
@attrs.define
class Summary:
    """Streaming statistics over many games (memory does not grow with games).

    Attributes:
        players: seats per game.
        games: games played.
        rounds: rounds played in all.
        rounds_sq: the sum over games of (rounds in the game) squared, for the
            interval of the mean.
        player_rounds: rounds times players.
        points: round points scored in all.
        points_sq: the sum over player-rounds of the round score squared.
        busts: player-rounds that ended in a bust.
        flip7s: rounds that ended with a Flip 7.
        wins: per seat, games won (a shared win counts for each winner).
        seconds: wall time spent playing.
    """

    players: int
    games: int = 0
    rounds: int = 0
    rounds_sq: int = 0
    player_rounds: int = 0
    points: int = 0
    points_sq: int = 0
    busts: int = 0
    flip7s: int = 0
    wins: list[int] = attrs.Factory(list)
    seconds: float = 0.0

    def add(self, final: State) -> None:
        """Fold one finished game into the statistics."""
        if not self.wins:
            self.wins = [0] * self.players
        self.games += 1
        rounds = 0
        for event in final.events():
            if event.type == "busted":
                self.busts += 1
            elif event.type == "round_scored":
                rounds += 1
                self.player_rounds += self.players
                scores = event.get("scores")
                self.points += sum(scores)
                self.points_sq += sum(x * x for x in scores)
                if event.get("flip7") is not None:
                    self.flip7s += 1
        self.rounds += rounds
        self.rounds_sq += rounds * rounds
        for seat in final.winners:
            self.wins[seat] += 1

    def merge(self, other: Summary) -> None:
        """Fold another summary of the same player count into this one."""
        if not self.wins:
            self.wins = [0] * self.players
        self.games += other.games
        self.rounds += other.rounds
        self.rounds_sq += other.rounds_sq
        self.player_rounds += other.player_rounds
        self.points += other.points
        self.points_sq += other.points_sq
        self.busts += other.busts
        self.flip7s += other.flip7s
        for seat, won in enumerate(other.wins):
            self.wins[seat] += won

    def as_dict(self) -> dict[str, object]:
        """The summary as JSON-able data (rates are fractions of 1).

        ``ci95`` holds the 95 % intervals ``[low, high]`` (`flip7ref.play.stats`):
        Wilson score intervals for ``bust_rate``, ``flip7_rate`` and each seat's
        ``win_share``; normal intervals for ``mean_rounds`` and
        ``mean_round_score``.  Busts and round scores of one game are not
        independent, so their intervals are somewhat too narrow; the win shares'
        and the mean rounds' rest on independent games.
        """
        g = max(self.games, 1)
        pr = max(self.player_rounds, 1)
        wins = self.wins or [0] * self.players
        ci: dict[str, object] = {
            "mean_rounds": list(stats.mean_interval(self.games, self.rounds, self.rounds_sq)),
            "mean_round_score": list(stats.mean_interval(self.player_rounds, self.points, self.points_sq)),
            "bust_rate": list(stats.wilson(self.busts, self.player_rounds)),
            "flip7_rate": list(stats.wilson(self.flip7s, self.rounds)),
            "win_share": [list(stats.wilson(w, self.games)) for w in wins],
        }
        return {
            "games": self.games,
            "players": self.players,
            "mean_rounds": self.rounds / g,
            "mean_round_score": self.points / pr,
            "bust_rate": self.busts / pr,
            "flip7_rate": self.flip7s / max(self.rounds, 1),
            "win_share": [w / g for w in wins],
            "ci95": ci,
            "games_per_second": self.games / self.seconds if self.seconds > 0 else None,
        }


def game_record(final: State, index: int, seed: int | str, strategies: Sequence[Strategy]) -> dict[str, object]:
    """One game of a run as a JSON-able line of ``simulate --log``: its index,
    seed, dealer, strategies by seat, rounds, final totals and winners."""
    count = len(strategies)
    rounds = sum(1 for e in final.events() if e.type == "round_scored")
    return {
        "game": index,
        "seed": game_seed(seed, index),
        "dealer": index % final.num_players,
        "strategies": [strategies[s % count].name for s in range(final.num_players)],
        "rounds": rounds,
        "totals": list(final.totals),
        "winners": list(final.winners),
    }


_Unit = tuple[Summary, list[dict[str, object]] | None]


def play_range(
    game: Game, strategies: Sequence[Strategy], seed: int | str, bounds: tuple[int, int], log: bool = False
) -> _Unit:
    """Games ``bounds[0]`` to ``bounds[1] - 1`` of a run: the unit of work that
    `simulate` hands to a process or a Dask worker.  Returns their
    `Summary` and, with ``log``, their `game_record` lines."""
    part = Summary(players=game.players)
    records: list[dict[str, object]] | None = [] if log else None
    for i in range(*bounds):
        final = _play_one(game, seed, i, strategies)
        part.add(final)
        if records is not None:
            records.append(game_record(final, i, seed, strategies))
    return part, records


def simulate(
    game: Any,
    games: Any,
    seed: Any,
    strategies: Any,
    *,
    progress: Callable[[int], None] | None = None,
    workers: Any = 1,
    chunk: Any = 50,
    log: Callable[[dict[str, object]], None] | None = None,
    cluster: Any = None,
) -> Summary:
    """Play ``games`` seeded games and return their `Summary`.

    Game ``i`` uses seed `game_seed` ``(seed, i)`` for its deck and a
    strategy rng seeded from the same value, dealer ``i % players``; so the same
    arguments give the same statistics, whatever ``workers`` or ``cluster`` is.

    Args:
        game (Game): the game (edition, players, options) to play.
        games (int): how many games (>= 0).
        seed (int | str): the run seed.
        strategies (Sequence[Strategy]): strategies by seat (round-robin); with
            ``workers > 1`` or a cluster they must pickle (every shipped strategy does).
        progress: called with the number of games finished so far.
        workers (int): processes to spread the games over (the standard library's
            process pool), at most one per task of ``chunk`` games; 1 plays in
            this process.
        chunk (int): games per task sent to a worker.
        log: called with the `game_record` of every game, in game order.
        cluster (distributed.Client | None): a ``dask.distributed.Client`` (see `flip7ref.proc.cluster`): the
            same tasks of ``chunk`` games run on its workers instead (``workers``
            is then ignored).

    Raises:
        OptionError: ``games`` not a whole number >= 0, ``workers`` or ``chunk`` not a whole number >= 1.
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 0:
        raise OptionError(f"games: expected a whole number >= 0, got {games!r}")
    if any(isinstance(v, bool) or not isinstance(v, int) for v in (workers, chunk)) or workers < 1 or chunk < 1:
        raise OptionError(f"workers and chunk must be at least 1 (got workers={workers}, chunk={chunk})")
    prepare_strategies(strategies, game)  # e.g. optimal-solo solves its policy once, before any worker starts
    summary = Summary(players=game.players)
    ordered = _InOrder(log)
    start = time.perf_counter()

    def take(lo: int, unit: _Unit) -> None:
        summary.merge(unit[0])
        ordered.put(lo, unit[1])

    def took(args: tuple[Any, ...], unit: _Unit) -> None:  # a cluster's unit: (seed, bounds, log)
        take(args[1][0], unit)
        if progress is not None:
            progress(summary.games)

    ranges = [(lo, min(lo + chunk, games)) for lo in range(0, games, chunk)]
    workers = min(workers, len(ranges)) or 1  # no more processes than tasks
    if cluster is not None:
        from flip7ref.proc.cluster import run_units

        run_units(cluster, play_range, (game, tuple(strategies)), [(seed, r, log is not None) for r in ranges], took)
    elif workers == 1:
        for r in ranges:
            take(r[0], play_range(game, strategies, seed, r, log is not None))
            if progress is not None:
                progress(summary.games)
    else:
        # imported here: concurrent.futures' process pool brings in multiprocessing, which one process does not need
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        from flip7ref.proc.pools import WAKE_SECONDS, abandon, check_workers, sigint_held

        pending: dict[Any, tuple[int, int]] = {}
        try:
            with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(game, tuple(strategies))) as pool:
                try:
                    # a bounded window of tasks in flight: memory stays flat however many games;
                    # the counts are integers, so the order partial summaries arrive in does not matter
                    todo = iter(ranges)
                    with sigint_held():  # the pool's threads start here: Ctrl-C must reach the main thread
                        for r in itertools.islice(todo, 4 * workers):
                            pending[pool.submit(_play_range, seed, r, log is not None)] = r
                    while pending:
                        done, _ = wait(pending, timeout=WAKE_SECONDS, return_when=FIRST_COMPLETED)
                        if not done:
                            check_workers(pool)  # a worker ended and the pool did not notice (flip7ref.proc.pools)
                        for future in done:
                            take(pending[future][0], future.result())
                            del pending[future]
                            nxt = next(todo, None)
                            if nxt is not None:
                                pending[pool.submit(_play_range, seed, nxt, log is not None)] = nxt
                        if progress is not None:
                            progress(summary.games)
                except BaseException:  # Ctrl-C, SIGTERM (flip7ref.proc.pools.Terminated), an error
                    abandon(pool)  # the workers now, not after their tasks
                    raise
        except BrokenProcessPool:
            lo = min((r[0] for r in pending.values()), default=0)
            raise worker_lost(strategies, f"games from {lo} on") from None
    summary.seconds = time.perf_counter() - start
    return summary


class _InOrder:
    """Passes the game records of tasks to ``log`` in game order, whatever order
    the tasks finish in (records of later tasks wait, at most a window's worth)."""

    def __init__(self, log: Callable[[dict[str, object]], None] | None) -> None:
        self.log = log
        self.next = 0
        self.waiting: dict[int, list[dict[str, object]]] = {}

    def put(self, lo: int, records: list[dict[str, object]] | None) -> None:
        if self.log is None or records is None:
            return
        self.waiting[lo] = records
        while self.next in self.waiting:
            batch = self.waiting.pop(self.next)
            for record in batch:
                self.log(record)
            self.next += len(batch)


def _play_one(game: Game, seed: int | str, i: int, strategies: Sequence[Strategy]) -> State:
    s = game_seed(seed, i)
    rng = random.Random(f"{s}:strategy")
    return play(game.new_initial_state(seed=s, dealer=i % game.players), strategies, rng)


_WORKER: dict[str, Any] = {}


def _init_worker(game: Game, strategies: tuple[Strategy, ...]) -> None:
    worker_started()  # Ctrl-C is the parent's (it ends the workers); dies with the parent (flip7ref.proc.pools)
    _WORKER["game"] = game
    _WORKER["strategies"] = strategies


def _play_range(seed: int | str, bounds: tuple[int, int], log: bool = False) -> _Unit:
    return play_range(_WORKER["game"], _WORKER["strategies"], seed, bounds, log)


def iter_games(game: Any, games: Any, seed: Any, strategies: Any) -> Iterator[State]:
    """Yield the terminal state of each game of a seeded run (see `simulate`).

    Args:
        game (Game): the game to play.
        games (int): how many games.
        seed (int | str): the run seed.
        strategies (Sequence[Strategy]): strategies by seat (round-robin).
    """
    for i in range(games):
        yield _play_one(game, seed, i, strategies)
