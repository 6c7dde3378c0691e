"""flip7ref.proc.pools: a pool abandoned on Ctrl-C leaves nothing running (the reliability of
``--workers``; the command-level test is tests/test_interrupt.py)."""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor

from flip7ref.proc.pools import MANAGER_SECONDS, abandon, ignore_interrupts


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_abandon_kills_the_workers_and_waits_for_the_manager_thread() -> None:
    """After `abandon` the workers are dead and the manager thread has finished, so the
    interpreter's exit hook finds its wake-up pipe closed (the race behind a traceback
    printed after "flip7ref: interrupted")."""
    pool = ProcessPoolExecutor(2, initializer=ignore_interrupts)
    futures = [pool.submit(_sleep, 60.0) for _ in range(6)]
    time.sleep(0.5)  # the workers have started their tasks
    processes = list(pool._processes.values())  # type: ignore[union-attr]
    manager = pool._executor_manager_thread
    wakeup = pool._executor_manager_thread_wakeup
    assert manager is not None and len(processes) == 2
    started = time.monotonic()
    abandon(pool)
    assert time.monotonic() - started < MANAGER_SECONDS + 2.0
    assert [p.is_alive() for p in processes] == [False, False]
    assert not manager.is_alive()
    assert wakeup._closed  # type: ignore[attr-defined]
    assert all(f.done() for f in futures)
