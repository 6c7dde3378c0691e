"""The parallel part of `SoloSolver.solve <flip7ref.analysis.SoloSolver.solve>`:
the combinations of modifier cards the solve splits on, the schedule that gives
them to workers (`Schedule`), the worker processes over pipes
(`Workers`) and what a worker does with a combination
(`_presolve_task`, also the body of the Dask task), and `usable_cores`.

The solver is handed in (a worker solves with its own copy of a fresh solver), so
this module does not import `flip7ref.analysis.solver`, which imports it."""

from __future__ import annotations

import itertools
import multiprocessing
import os
import pickle
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection, wait
from typing import Any, Protocol, TypeVar

from flip7ref.analysis.base import AnalysisError, _Key, _Stopped, _TaskResult, _Triple
from flip7ref.core.errors import Flip7RefError
from flip7ref.core.game import MODIFIER
from flip7ref.core.state import CHANCE, HIT, Action, State
from flip7ref.proc.pools import worker_started

_T = TypeVar("_T")


class Presolver(Protocol):
    """What a worker or a Dask task uses of its solver (`flip7ref.analysis.solver.SoloSolver`,
    which this module does not import): the seat solved for, the memo and best actions it
    fills, and the solver's own steps (number the deck, run under its limits, solve a node,
    start the clock)."""

    seat: int
    _memo: dict[tuple[Any, ...], _Triple]
    _best: dict[tuple[Any, ...], Action]

    def _deck_of(self, state: State) -> int: ...

    def _run(self, state: State, compute: Callable[[], _T]) -> _T: ...

    def _node(self, state: State, key: tuple[Any, ...] | None = None) -> _Triple: ...

    def _start_clock(self) -> None: ...


class PresolverClass(Protocol):
    """A solver class (`flip7ref.analysis.solver.SoloSolver`) as a Dask task builds a fresh one."""

    def __call__(self, *, exact: Any, seat: Any, max_states: Any, ties: Any, max_seconds: Any) -> Presolver: ...


def combinations(most: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every combination of at most ``most[i]`` copies of the i-th modifier card but
    the empty one (the solver's own process does that last), fullest first."""
    return sorted(itertools.product(*(range(n + 1) for n in most)), key=lambda t: -sum(t))[:-1]


class Schedule:
    """Which worker solves which combination of modifier cards, and when (see
    `SoloSolver.solve`).  A combination is a tuple of counts, one per
    modifier card; it builds on the combinations with one card more.  Its owner
    is the worker named by which of the first few cards it holds, so that a
    worker finds most of what a combination builds on in its own memo; a worker
    with nothing of its own left takes over another's waiting combination."""

    def __init__(self, most: tuple[int, ...], workers: int) -> None:
        self.most = most
        lead = min(len(most), (workers - 1).bit_length())
        self.queues: list[list[tuple[int, ...]]] = [[] for _ in range(workers)]
        for task in combinations(most):
            self.queues[sum(1 << i for i in range(lead) if task[i]) % workers].append(task)
        self.results: dict[tuple[int, ...], list[tuple[_Key, _Triple]]] = {}  # the finished combinations
        self.has: list[set[tuple[int, ...]]] = [set() for _ in range(workers)]  # given to, or sent to, a worker

    def above(self, task: tuple[int, ...]) -> list[tuple[int, ...]]:
        """The combinations with one card more."""
        return [(*task[:i], task[i] + 1, *task[i + 1 :]) for i in range(len(task)) if task[i] < self.most[i]]

    def left(self) -> bool:
        return any(self.queues)

    def _ready(self, task: tuple[int, ...], w: int) -> bool:
        return all(t in self.has[w] or t in self.results for t in self.above(task))

    def next_for(self, w: int) -> tuple[int, ...] | None:
        """A combination worker ``w`` can be given now, taken off its queue, or None."""
        queue = self.queues[w]
        if queue:
            return queue.pop(0) if self._ready(queue[0], w) else None
        for other in self.queues:  # another worker's, but never the one it does next
            for i in range(1, len(other)):
                if self._ready(other[i], w):
                    return other.pop(i)
        return None

    def seeds(self, task: tuple[int, ...], w: int) -> list[tuple[_Key, _Triple]]:
        """What worker ``w``, given ``task``, needs and lacks of the results; it has them from now."""
        out = [entry for t in self.above(task) if t not in self.has[w] for entry in self.results[t]]
        self.has[w].update(self.above(task))
        self.has[w].add(task)
        return out


def modifier_cards(state: State) -> list[tuple[int, int]]:
    """``(card code, copies)`` of each modifier card in the draw pile, by code."""
    category = state.game.category
    return sorted(Counter(c for c in state.draw if category[c] == MODIFIER).items())


def drawn(state: State, seat: int, cards: Iterable[int]) -> State | None:
    """The position after ``seat`` hits and draws each of ``cards`` in turn (the
    first drawn at once if ``state`` is a chance node); None if it is not a
    decision of ``seat`` in the same round."""
    start = state
    for code in cards:
        if state.current_player == seat and HIT in state.legal_actions():
            state = state.apply(HIT)
        if state.current_player != CHANCE:
            return None
        state = state.apply_chance(state.game.card_ids[code])
    if state.current_player != seat or state.round != start.round or state.winners:
        return None
    return state


def combination(split: list[tuple[int, int]], task: tuple[int, ...]) -> tuple[int, ...]:
    """The card codes of a combination: ``task[i]`` copies of the i-th modifier card."""
    return tuple(code for (code, _), n in zip(split, task, strict=True) for _ in range(n))


class Workers:
    """Worker processes of a parallel solve, each with its own solver and memo,
    given one combination at a time over a pipe (see `SoloSolver.solve`);
    ``setup`` is the position and the fresh solver each worker copies.

    Started with the platform's way of starting processes; where that is fork and
    another thread is running (a progress display), with forkserver instead, as
    forking a process with threads can leave the child stuck on a lock.  A worker
    ends when the pipe closes, so none outlives the solver's process."""

    def __init__(self, count: int, setup: tuple[State, Presolver]) -> None:
        method = multiprocessing.get_start_method()
        if method == "fork" and threading.active_count() > 1 and "forkserver" in multiprocessing.get_all_start_methods():
            method = "forkserver"
        context: Any = multiprocessing.get_context(method)  # (typeshed's BaseContext has no Process)
        self.count = count
        self.pipes: list[Connection] = []
        self.processes: list[Any] = []
        self.given: list[tuple[int, ...] | None] = [None] * count  # the combination each worker is solving
        for _ in range(count):
            ours, theirs = context.Pipe()
            # a forked worker holds copies of this process's pipe ends, its own and the earlier
            # workers': it closes them, or no worker would see its pipe close when this process ends
            inherited = [*self.pipes, ours] if method == "fork" else []
            args = (theirs, inherited, *setup)
            process = context.Process(target=_worker_main, args=args, daemon=True, name="flip7ref-solve")
            process.start()
            theirs.close()
            self.pipes.append(ours)
            self.processes.append(process)

    def running(self) -> bool:
        return any(task is not None for task in self.given)

    def idle(self) -> list[int]:
        return [w for w in range(self.count) if self.given[w] is None]

    def send(self, w: int, task: tuple[int, ...], message: object) -> None:
        self.pipes[w].send(message)
        self.given[w] = task

    def results(self, timeout: float | None = None) -> list[tuple[int, tuple[int, ...], bytes]]:
        """Wait for at least one worker to finish, or ``timeout`` seconds (then the list
        may be empty); ``(worker, combination, result)`` for each that did, the result
        still pickled (see `loaded`)."""
        busy = [self.pipes[w] for w in range(self.count) if self.given[w] is not None]
        assert busy, "every combination left waits for another"  # cannot happen: see Schedule
        out = []
        for pipe in wait(busy, None if timeout is None else max(0.0, timeout) + 0.01):
            w = self.pipes.index(pipe)  # type: ignore[arg-type]
            try:
                raw = self.pipes[w].recv_bytes()
            except EOFError:
                raise AnalysisError(f"a solver process ended unexpectedly (exit code {self.processes[w].exitcode})") from None
            task = self.given[w]
            assert task is not None
            out.append((w, task, raw))
            self.given[w] = None
        return out

    def close(self) -> None:
        for pipe in self.pipes:
            pipe.close()  # an idle worker sees the end of its pipe and stops
        for process in self.processes:
            process.join(timeout=0.5)
            if process.is_alive():  # busy with a combination no longer wanted
                process.terminate()
                process.join()


def loaded(raw: bytes) -> _TaskResult:
    """A worker's result from its pickled message; raises what the worker raised
    (e.g. AnalysisError)."""
    ok, payload = pickle.loads(raw)
    if not ok:
        raise payload
    result: _TaskResult = payload
    return result


def _worker_main(pipe: Connection, inherited: list[Connection], state: State, solver: Presolver) -> None:
    """A worker process: solve each combination received until the pipe closes,
    in ``solver`` (the worker's own copy of a fresh solver: its memo grows here)."""
    worker_started()  # Ctrl-C is the solver's process's to handle; dies with it (flip7ref.proc.pools)
    for other in inherited:
        other.close()
    while True:
        try:
            cards, seeds = pipe.recv()
        except (EOFError, OSError):
            return
        try:
            message: tuple[bool, object] = (True, _presolve_task(solver, state, cards, seeds))
        except Flip7RefError as exc:
            message = (False, exc)
        try:
            pipe.send(message)
        except OSError:  # the solver's process is gone
            return


def _presolve_task(
    solver: Presolver, state: State, cards: tuple[int, ...], seeds: list[tuple[_Key, _Triple]]
) -> _TaskResult:
    """In a worker: solve the position after drawing ``cards`` from ``state`` (see
    `SoloSolver.solve`), given the values ``seeds`` of other workers; return
    the states solved here, keys without the deck number."""
    deck = solver._deck_of(state)
    solver._memo.update(((deck, *key), value) for key, value in seeds)
    start = drawn(state, solver.seat, cards)
    if start is None:
        return [], []
    known, decided = len(solver._memo), len(solver._best)
    solver._run(start, lambda: solver._node(start))
    return (
        [(key[1:], value) for key, value in itertools.islice(solver._memo.items(), known, None)],
        [(key[1:], action) for key, action in itertools.islice(solver._best.items(), decided, None)],
    )


def usable_cores() -> int:
    """The processors this process may run on (at least 1)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def solve_combination(
    solver_class: PresolverClass,
    setup: tuple[State, bool, int, int, str, float | None, float | None],
    cards: tuple[int, ...],
    *above: _TaskResult | None,
) -> _TaskResult | None:
    """A Dask task of a parallel solve (`flip7ref.proc.cluster.presolve`; ``solver_class`` is
    `flip7ref.analysis.solver.SoloSolver`, bound by the solver, which this module does
    not import): solve
    the position after drawing ``cards`` in a fresh solver given the states of
    the combinations with one card more (``above``: their tasks' results), and
    return the states solved here, as `_presolve_task` does.

    ``setup`` is ``(state, exact, seat, max_states, ties, seconds, until)``:
    with a limit, ``seconds`` left when the solve was submitted and ``until``,
    the same moment as ``time.time()`` (seconds since the epoch); the task
    gives up (checked every 256 states) at the earlier of ``until`` and
    ``seconds`` after it starts, so no worker goes on past the client's
    ``max_seconds``; it then returns None (as do the tasks after it), which
    the client turns into its `AnalysisError` (a result, not an exception,
    so the workers log no failed task)."""
    state, exact, seat, max_states, ties, seconds, until = setup
    limit = None
    if seconds is not None and until is not None:
        limit = min(seconds, until - time.time())
        if limit <= 0:
            return None
    if any(result is None for result in above):
        return None
    solver = solver_class(exact=exact, seat=seat, max_states=max_states, ties=ties, max_seconds=limit)
    solver._start_clock()
    seeds = [entry for result in above if result is not None for entry in result[0]]
    try:
        return _presolve_task(solver, state, cards, seeds)
    except _Stopped:
        return None
