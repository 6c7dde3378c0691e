"""Process pools that stop at once on Ctrl-C (``--workers N`` of ``simulate`` and
``tournament``).

A terminal's Ctrl-C sends SIGINT to the whole process group.  Left alone, every worker
of a `concurrent.futures.ProcessPoolExecutor` raises `KeyboardInterrupt` in the middle
of its task (a traceback each), and the pool's shutdown then waits for work that will
never finish.  Here the workers ignore SIGINT (`ignore_interrupts`, run by their
initializer) and the parent, on its `KeyboardInterrupt`, kills them and drops the queued
tasks (`abandon`) before the error goes on to the command's one-line message.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # not at import: concurrent.futures' process pool brings in multiprocessing
    from concurrent.futures import ProcessPoolExecutor


WAKE_SECONDS = 0.2
"""How long the parent waits for a task at a time (``wait(..., timeout=WAKE_SECONDS)``).  A
terminal's SIGINT may be delivered to any thread of the parent, such as the pool's manager
thread; Python then only notes it, and a main thread blocked in an untimed wait would not see
it until a task finished (seen: a run not stopping 10 s after Ctrl-C).  Waking every 0.2 s
lets the main thread raise `KeyboardInterrupt` in time."""


MANAGER_SECONDS = 1.0
"""How long `abandon` waits for a pool's manager thread to see its dead workers and close
its pipes (it takes a few milliseconds on a quiet machine)."""


def ignore_interrupts() -> None:
    """In a worker process: SIGINT is the parent's to handle (it ends the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def abandon(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` now: kill its worker processes and cancel the tasks not started.

    Used when the parent is interrupted; the results in flight are lost.  Raises nothing.
    Waits (at most `MANAGER_SECONDS`) for the pool's manager thread to finish its clean-up:
    left running, it closes its wake-up pipe while the interpreter's exit hook writes to it
    (CPython 3.11's ``_python_exit``), a race that printed an ``OSError: [Errno 9] Bad file
    descriptor`` traceback after "interrupted", and a slow exit.
    """
    processes = getattr(pool, "_processes", None) or {}  # CPython's executor: {pid: Process}
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown() below forgets it
    for process in list(processes.values()):
        with contextlib.suppress(OSError, ValueError):  # already gone, or closed
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in list(processes.values()):
        with contextlib.suppress(OSError, ValueError, AssertionError):
            process.join(timeout=1)
    if manager is not None:
        manager.join(timeout=MANAGER_SECONDS)


@contextlib.contextmanager
def sigint_held() -> Iterator[None]:
    """While inside, SIGINT is blocked in the calling thread (POSIX; elsewhere nothing
    changes): threads and processes started inside (a pool's manager and feeder threads, its
    workers) keep it blocked, so a terminal's Ctrl-C reaches the main thread, which gets it,
    as `KeyboardInterrupt`, on leaving.  Raises nothing itself."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:  # pragma: no cover - Windows
        yield
        return
    old = mask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, old)
