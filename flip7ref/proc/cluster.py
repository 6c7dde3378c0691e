"""Runs on a Dask cluster (the ``[cluster]`` extra, docs/install.md): the glue between
flip7ref's units of work and ``dask.distributed``.

flip7ref does not schedule anything itself here: it cuts the work into the same
units as its standard-library paths and submits them to a Dask scheduler.

- ``simulate`` and ``tournament``: tasks of consecutive games (``play_range``,
  ``tournament_range``), at most a bounded window in flight, their integer
  counts merged as they finish — so the summary is the same as in one process.
- ``solve``: the combinations of modifier cards that
  `flip7ref.analysis.SoloSolver.solve` splits on, one Dask task each,
  every combination depending on the combinations with one card more (Dask
  runs it once those are done and hands it their values).  The values, states
  and best actions are the same as in one process.

`connect` opens a client from a ``--cluster`` value: ``local:N`` starts a
``LocalCluster`` of N worker processes on this machine (one thread each),
anything else is the address of a running scheduler
(``tcp://host:8786``, started with ``dask scheduler`` and ``dask worker``).
Workers must have flip7ref (and any ``module:Class`` strategy) installed.
"""

from __future__ import annotations

import contextlib
import itertools
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from flip7ref.core.errors import Flip7RefError, OptionError
from flip7ref.proc.install import extra_hint
from flip7ref.proc.pools import process_limit

__all__ = [
    "ClusterError", "connect", "describe", "parse_cluster", "presolve", "run_units", "shared_task", "size",
]  # fmt: skip

INSTALL = extra_hint("cluster")

NO_WORKER_SECONDS = 60.0
"""How long, in seconds, a task of a ``local:N`` cluster may wait while the cluster has no
worker at all before it fails with `ClusterError` (Dask's
``distributed.scheduler.no-workers-timeout``).  A worker that dies is started again by its
nanny within seconds; one that could not be started again (a loaded machine, a strategy
ending every new worker) would otherwise leave the run waiting for ever.  A scheduler
given by its address keeps its own setting: workers may join it later."""


class ClusterError(Flip7RefError, RuntimeError):
    """The Dask scheduler cannot be reached, or a cluster cannot be started."""


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise OptionError(f"--cluster needs dask.distributed, which is not installed: {INSTALL}") from None
    return distributed


def parse_cluster(text: str) -> tuple[str, int | str]:
    """``("local", N)`` for ``local:N`` (1 <= N <= `flip7ref.proc.pools.process_limit` worker processes) or
    ``("address", text)``.

    Raises:
        OptionError: ``local:`` without a whole number of workers, more than `flip7ref.proc.pools.process_limit`,
            or an empty value.
    """
    text = text.strip()
    if text.startswith("local"):
        _, sep, count = text.partition(":")
        if text == "local":
            return ("local", 1)
        limit = process_limit()
        if sep and count.isascii() and count.isdigit() and 1 <= int(count) <= limit:
            return ("local", int(count))
        if sep and count.isascii() and count.isdigit() and int(count) > limit:
            raise OptionError(f"--cluster {text!r}: expected local:N with N a whole number of workers from 1 to {limit} "
                              "(4 per CPU; for more, start a Dask cluster and give its scheduler's address)")  # fmt: skip
        raise OptionError(f"--cluster {text!r}: expected local:N with N a whole number of workers, at least 1")
    if not text:
        raise OptionError("--cluster: expected local:N or the address of a Dask scheduler, e.g. tcp://10.0.0.5:8786")
    return ("address", text)


@contextlib.contextmanager
def connect(text: str, *, processes: bool = True, timeout: float = 20) -> Iterator[Any]:
    """A ``dask.distributed.Client`` for a ``--cluster`` value, closed (and a local
    cluster shut down) on leaving the block.

    Args:
        text: ``local:N`` or a scheduler address (see `parse_cluster`).
        processes: for ``local:N``, worker processes (True: the games and the
            solve run in parallel) or threads of this process (False: quick to
            start, for tests; Python runs one thread at a time).
        timeout: seconds to wait for a scheduler address to answer.

    Raises:
        OptionError: dask.distributed is not installed, or a malformed value.
        ClusterError: the scheduler does not answer, or the cluster cannot start.
    """
    kind, value = parse_cluster(text)
    distributed = _distributed()
    with contextlib.ExitStack() as stack:
        try:
            if kind == "local":
                assert isinstance(value, int)
                _quiet_tracker_relaunch()
                import dask

                with dask.config.set({"distributed.scheduler.no-workers-timeout": f"{NO_WORKER_SECONDS}s"}):
                    cluster = stack.enter_context(  # the scheduler reads the setting when it is made
                        distributed.LocalCluster(
                            n_workers=value, threads_per_worker=1, processes=processes, dashboard_address=":0",
                            silence_logs=50,  # logging.CRITICAL: no chatter on stderr, not even a failed task's traceback
                        )
                    )  # fmt: skip
                client = stack.enter_context(distributed.Client(cluster))
                if processes:  # Ctrl-C reaches them too (one process group): the client ends them, quietly
                    client.run(_ignore_interrupt)
            else:
                client = stack.enter_context(distributed.Client(value, timeout=timeout))
        except (OSError, TimeoutError, ValueError) as exc:
            where = f"a local cluster of {value} workers" if kind == "local" else f"the Dask scheduler at {value}"
            raise ClusterError(f"--cluster: cannot reach {where}: {exc}") from None
        yield client


def _quiet_tracker_relaunch() -> None:
    """Make a relaunch of multiprocessing's resource tracker (after that process was killed)
    say one line instead of a warning and, at the cluster's close, a traceback of
    ``KeyError`` for every semaphore the new tracker never saw: the new tracker is
    started with its stderr on the null device.  Does nothing where the standard library's
    private interface differs."""
    try:
        from multiprocessing import resource_tracker

        tracker: Any = resource_tracker._resource_tracker
        alive = tracker._check_alive
        original = tracker.ensure_running
    except (ImportError, AttributeError):  # pragma: no cover - another Python's internals
        return
    if getattr(original, "_flip7ref", False):
        return

    def ensure_running() -> None:
        if tracker._fd is None or alive():
            original()  # first start, or still running: as before
            return
        import io
        import os
        import sys

        saved, saved_fd = sys.stderr, os.dup(2)
        sys.stderr = io.StringIO()  # the warning is caught here
        try:
            with open(os.devnull, "wb") as null:
                os.dup2(null.fileno(), 2)  # the new tracker's stderr, for the moment it is started
            original()
        finally:
            os.dup2(saved_fd, 2)
            os.close(saved_fd)
            sys.stderr = saved
        print("flip7ref: warning: multiprocessing's resource tracker process died and was started again "
              "(some semaphores may be left behind)", file=sys.stderr)  # fmt: skip

    ensure_running._flip7ref = True  # type: ignore[attr-defined]
    tracker.ensure_running = ensure_running


def _ignore_interrupt() -> None:
    """On a local worker process (``Client.run``, in its main thread): ignore
    SIGINT, which the terminal sends to every process of the group on Ctrl-C,
    so that the worker does not print a traceback of it while this process
    closes the cluster (which ends the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def size(client: Any) -> tuple[int, int]:
    """``(workers, threads)`` of a client's cluster."""
    info = client.scheduler_info()
    workers = info.get("workers", {})
    count = int(info.get("n_workers", len(workers)))
    threads = int(info.get("total_threads", sum(w.get("nthreads", 1) for w in workers.values())))
    return count, threads


def describe(client: Any) -> str:
    """``N workers, T threads`` of a client's cluster, for messages."""
    workers, threads = size(client)
    return f"{workers} worker{'s' if workers != 1 else ''}, {threads} thread{'s' if threads != 1 else ''}"


def run_units(
    client: Any,
    func: Callable[..., Any],
    shared: Sequence[Any],
    units: Sequence[tuple[Any, ...]],
    on_result: Callable[[tuple[Any, ...], Any], None],
    *,
    window: int | None = None,
) -> None:
    """Run ``func(*shared, *unit)`` for every unit on the cluster, calling
    ``on_result(unit, result)`` in this process as each finishes.

    ``shared`` (the game and the strategies) is built on the workers by a task of its
    own (`shared_task`), from its pickled form held by the scheduler: a worker that
    needs it and lacks it gets it from another worker, or builds it again, so the run
    goes on when every worker holding it died and new ones joined (a nanny restarts a
    killed worker).  At most ``window`` units are in flight (default: four per worker
    thread), so memory stays flat for long runs.  On an error or Ctrl-C the units
    still queued are cancelled.

    Raises:
        ClusterError: the workers cannot load the game or the strategies (a
            ``module:Class`` strategy not importable there: one line naming it), or
            the workers running a task died again and again, or a ``local:N`` cluster
            was left without any worker for `NO_WORKER_SECONDS`.
        whatever ``func`` raised on a worker (e.g. a StrategyError).
    """
    distributed = _distributed()
    if not units:
        return
    if window is None:
        window = 4 * max(1, size(client)[1])
    for path in _strategy_files(shared):  # a file.py:Class strategy: its file goes to every worker first
        try:
            client.upload_file(path)
        except Exception as exc:
            raise ClusterError(f"--cluster: cannot send the strategy file {path} to the workers: {_short(exc)}") from None
    built = shared_task(client, tuple(shared), "the game and the strategies")
    todo = iter(units)
    futures: dict[Any, tuple[Any, ...]] = {}

    def submit(unit: tuple[Any, ...]) -> Any:
        future = client.submit(_call, func, built, *unit, pure=False)
        futures[future] = unit
        return future

    pending = distributed.as_completed([submit(u) for u in itertools.islice(todo, window)])
    try:
        for future in pending:
            unit = futures.pop(future)
            on_result(unit, _result(future))
            future.release()
            nxt = next(todo, None)
            if nxt is not None:
                pending.add(submit(nxt))
    finally:
        if futures:
            client.cancel(list(futures))


def shared_task(client: Any, shared: Any, what: str) -> Any:
    """A Dask future of ``shared`` built on a worker from its pickled bytes (`_load`; pickled
    with cloudpickle, as Dask does).

    The bytes live in the task, on the scheduler, so the value can be computed again on
    a new worker when every worker holding it is gone (scattered data cannot: it was
    lost with them, and every task needing it was cancelled).  ``what`` names the data
    in the error of a worker that cannot load it.

    Raises:
        ClusterError: ``shared`` cannot be pickled here.
    """
    import cloudpickle  # type: ignore[import-untyped]  # what Dask itself pickles with (a class of a file.py:Class strategy goes by value)

    try:
        payload = cloudpickle.dumps(shared)
    except Exception as exc:
        raise ClusterError(f"--cluster: {what} cannot be sent to the workers: {_short(exc)}") from None
    return client.submit(_load, payload, what, pure=False)


def _load(payload: bytes, what: str) -> Any:
    """On a worker: the shared data back from its pickled bytes; a failure (a strategy's
    module the worker cannot import) is one `ClusterError` line, not Dask's traceback."""
    import pickle

    try:
        return pickle.loads(payload)
    except Exception as exc:
        raise ClusterError(
            f"--cluster: the workers cannot load {what}: {_short(exc)} "
            "(a module:Class strategy, and a plug-in primitive's module, must be importable on every worker: "
            "installed, or on their PYTHONPATH)"
        ) from None


def _call(func: Callable[..., Any], shared: Sequence[Any], *unit: Any) -> Any:
    """On a worker: ``func(*shared, *unit)``."""
    return func(*shared, *unit)


def _result(future: Any) -> Any:
    """A finished task's result; a task lost with its workers is one `ClusterError`
    (flip7ref's own errors raised on a worker pass unchanged)."""
    try:
        return future.result()
    except Flip7RefError:
        raise
    except Exception as exc:
        if type(exc).__name__ in ("KilledWorker", "CancelledError", "FutureCancelledError"):
            raise ClusterError(
                "--cluster: the workers running a task died (did a strategy call os._exit() or crash the "
                "interpreter? was a worker killed or out of memory?)"
            ) from None
        if type(exc).__name__ in ("NoWorkerError", "NoValidWorkerError"):  # no-workers-timeout: queued, unrunnable
            raise ClusterError(
                f"--cluster: no worker was left to run the tasks for {NO_WORKER_SECONDS:g} s (the workers died and "
                "could not be started again: did a strategy end them? is the machine out of memory?)"
            ) from None
        raise


def _short(exc: BaseException) -> str:
    """An exception as one line (Dask's texts can span many)."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


def _strategy_files(shared: Sequence[Any]) -> list[str]:
    """The files of the ``file.py:Class`` strategies among ``shared`` (loaded from a path by
    `flip7ref.play.strategies.load_strategy`; a wrapped strategy counts too), each once."""
    import sys

    found: dict[str, None] = {}
    for item in shared:
        for obj in item if isinstance(item, tuple) else (item,):
            while obj is not None:
                module = sys.modules.get(type(obj).__module__)
                path = getattr(module, "__flip7ref_file__", None)
                if isinstance(path, str):
                    found[path] = None
                obj = getattr(obj, "strategy", None)  # a TimedStrategy's wrapped one
    return list(found)


def presolve(
    client: Any,
    solve: Callable[..., Any],
    setup: tuple[Any, ...],
    tasks: Sequence[tuple[int, ...]],
    cards: Callable[[tuple[int, ...]], tuple[int, ...]],
    above: Callable[[tuple[int, ...]], list[tuple[int, ...]]],
    *,
    timeout: float | None = None,
) -> Iterator[Any]:
    """The parallel part of `SoloSolver.solve` on a cluster: one Dask task
    per combination of modifier cards (``tasks``, fullest first), each
    depending on the tasks of the combinations ``above`` it; yields each task's
    result ``(memo entries, best actions)`` as it finishes (the same pairs the
    standard-library workers send back).

    ``solve(setup, cards, *results above)`` is the task (the solver's own, so
    this module needs nothing of `flip7ref.analysis`); ``setup`` (built on the
    workers by `shared_task`, so that it survives them) is what the task needs besides (see
    `flip7ref.analysis.parallel.solve_combination`); ``cards(task)`` gives the
    card codes a combination draws.

    On leaving, however it ends (the last result, an error, ``timeout``, Ctrl-C
    or the caller closing the generator), every task still queued or running is
    cancelled (``Client.cancel``; a task already running stops at its own
    deadline, see ``setup``).

    Args:
        timeout: seconds (from this call) to wait for all the tasks; None: no limit.

    Raises:
        TimeoutError: the tasks were not all done within ``timeout`` seconds.
        AnalysisError: a task did (e.g. more than ``max_states`` states).
    """
    distributed = _distributed()
    shared = shared_task(client, setup, "the solver's position")
    futures: dict[tuple[int, ...], Any] = {}
    for task in tasks:  # fullest first: a combination's dependencies are submitted before it
        deps = [futures[t] for t in above(task)]
        futures[task] = client.submit(solve, shared, cards(task), *deps, pure=False)
    try:
        for future in distributed.as_completed(list(futures.values()), timeout=timeout):
            yield future.result()
    finally:
        client.cancel(list(futures.values()))
