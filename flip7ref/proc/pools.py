"""Process pools that stop at once on Ctrl-C or SIGTERM (``--workers N`` of ``simulate`` and
``tournament``, ``solve``'s workers), and whose workers never outlive their parent.

A terminal's Ctrl-C sends SIGINT to the whole process group.  Left alone, every worker
of a `concurrent.futures.ProcessPoolExecutor` raises `KeyboardInterrupt` in the middle
of its task (a traceback each), and the pool's shutdown then waits for work that will
never finish.  Here the workers ignore SIGINT (`worker_started`, run by their
initializer) and the parent, on its `KeyboardInterrupt` (or `Terminated`, SIGTERM's
exception while `sigterm_raises` holds; or any other error), kills them and drops the queued
tasks (`abandon`) before the error goes on to the command's one-line message.

A parent ended by a signal it cannot handle (``kill -9``) runs no code at all: each worker
is set, when it starts, to be killed with its parent (`worker_started`, which calls
`flip7ref.proc.reaper.die_with_parent`: the Linux parent-death signal; elsewhere only the
parent's SIGTERM handler ends them).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
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


def process_limit() -> int:
    """The most worker processes a command starts on this machine (``--workers N``, ``--cluster
    local:N``): 4 per CPU, at least 8.  Each is a Python process of its own; ``local:100000``
    once started them until the machine gave out."""
    return max(8, 4 * (os.cpu_count() or 1))


def ignore_interrupts() -> None:
    """In a worker process: SIGINT is the parent's to handle (it ends the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def worker_started() -> None:
    """In a worker process started by `multiprocessing` (a pool's initializer, a solver
    worker's first call): ignore SIGINT (`ignore_interrupts`), let SIGTERM end it (the
    default action: the parent's handler, inherited by a fork, is not the worker's) and die
    with the parent
    (`flip7ref.proc.reaper.die_with_parent`; the parent is `multiprocessing.parent_process`, or,
    under the forkserver start method, the server, which ends with that parent).  Raises
    nothing."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker inherits the parent's `sigterm_raises`
    ignore_interrupts()
    import multiprocessing

    from flip7ref.proc.reaper import die_with_parent

    parent = multiprocessing.parent_process()
    die_with_parent(parent.pid if parent is not None else None)


class Terminated(BaseException):
    """SIGTERM reached a command (`sigterm_raises`): unwind, stopping its workers, engine or
    child on the way, and exit 143.  A BaseException, like `KeyboardInterrupt`, so that an
    ``except Exception`` (a strategy's, or the one that reports a strategy's error) does not
    catch it."""


_HANDLER_PID: list[int] = []
"""The process that set `_raise_terminated` (a forked child inherits the handler)."""


def _raise_terminated(signum: int, frame: object) -> None:
    if _HANDLER_PID and os.getpid() != _HANDLER_PID[-1]:  # a worker, forked before it reset SIGTERM
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.raise_signal(signal.SIGTERM)  # the default action: it ends, quietly
        return
    raise Terminated


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """While inside: SIGTERM raises `Terminated` in the main thread (so that ``finally``
    blocks and `abandon` stop the processes this one started), then the old handler is
    back.  In a thread other than the main one (where no signal handler can be set) it
    changes nothing.  Raises nothing itself."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    _HANDLER_PID.append(os.getpid())
    try:
        yield
    finally:
        _HANDLER_PID.pop()
        signal.signal(signal.SIGTERM, previous)


def abandon(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` now: kill its worker processes and cancel the tasks not started.

    Used when the parent is interrupted, terminated or fails; the results in flight are lost.  Raises nothing.
    Waits (at most `MANAGER_SECONDS`) for the pool's manager thread to finish its clean-up:
    left running, it closes its wake-up pipe while the interpreter's exit hook writes to it
    (CPython 3.11's ``_python_exit``), a race that printed an ``OSError: [Errno 9] Bad file
    descriptor`` traceback after "interrupted", and a slow exit.  A manager thread still
    running then is stuck reading bytes a plug-in wrote into the pool's pipes: the
    interpreter's exit is told not to wait for it (`_forget`), or it would wait for ever.
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
        if manager.is_alive():  # stuck reading bytes a plug-in wrote into the pool's pipes
            _forget(manager)


def _forget(thread: threading.Thread) -> None:
    """Let the interpreter exit without joining ``thread``, a pool's manager thread stuck for
    ever (as if it were a daemon thread): it is taken off the lists that
    ``concurrent.futures``' exit hook and ``threading``'s shutdown join (CPython's private
    interface; where it differs nothing changes).  Raises nothing."""
    import concurrent.futures.process as cfp

    with contextlib.suppress(Exception):
        cfp._threads_wakeups.pop(thread, None)
    lock = getattr(thread, "_tstate_lock", None)
    locks = getattr(threading, "_shutdown_locks", None)
    guard = getattr(threading, "_shutdown_locks_lock", None)
    if lock is not None and locks is not None and guard is not None:
        with guard:
            locks.discard(lock)


def check_workers(pool: ProcessPoolExecutor) -> None:
    """Raise if a worker of ``pool`` has ended (a worker never ends while its pool runs).

    The pool notices a dead worker itself, unless its manager thread is stuck: a plug-in
    that wrote bytes into the pool's pipes before ending its process leaves that thread
    waiting for the rest of a message that never comes, and the run would hang.  The
    parent calls this each time it wakes (`WAKE_SECONDS`) with nothing done.

    Raises:
        concurrent.futures.process.BrokenProcessPool: a worker process has exited.
    """
    from concurrent.futures.process import BrokenProcessPool

    processes = getattr(pool, "_processes", None) or {}  # CPython's executor: {pid: Process}
    for process in list(processes.values()):
        with contextlib.suppress(ValueError):  # closed: the pool is shutting down
            if process.exitcode is not None:
                raise BrokenProcessPool(f"a worker process ended (exit code {process.exitcode})")


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
