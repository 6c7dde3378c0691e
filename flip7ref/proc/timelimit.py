"""A time limit on every decision of a strategy (``--decision-timeout SECONDS``).

`TimedStrategy` wraps a strategy so that each ``choose(state, rng)`` call that
runs longer than the limit stops the run with a `DecisionTimeoutError` naming
the strategy and the seat, instead of hanging it (a plug-in that sleeps or loops
for ever).

How the call is stopped:

- in the main thread of a process (the command itself, and each ``--workers``
  process, which plays its games in its main thread): a ``SIGALRM`` timer
  (``signal.setitimer``) interrupts the call, even a ``time.sleep`` (the
  handler, installed at the first timed decision, passes any other alarm on to
  the handler it found);
- anywhere else (a Dask worker runs its tasks in threads, and a program may call
  `flip7ref.play.games` from a thread): the call runs in a helper thread that is waited
  for at most the limit; one that runs over is left behind (Python cannot stop a
  thread) and ends with its process.

This module is not compiled with mypyc (docs/build.md): the wrapper is plain
Python, like the user strategies it wraps.
"""

from __future__ import annotations

import math
import random
import signal
import threading
from collections.abc import Sequence
from typing import Any

from flip7ref.core.errors import DecisionTimeoutError, OptionError

__all__ = ["TimedStrategy", "check_timeout", "with_time_limit"]


class _Overrun(BaseException):
    """Raised by the timer's signal handler inside the strategy's code: a BaseException, so
    that a strategy's own ``except Exception`` does not swallow it."""


def check_timeout(value: Any, what: str = "--decision-timeout") -> float | None:
    """``value`` as a number of seconds > 0 (None: no limit).

    Raises:
        OptionError: not a finite number greater than 0 (the message names ``what``).
    """
    if value is None:
        return None
    given = value
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            value = None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise OptionError(f"{what}: expected a number of seconds greater than 0, got {given!r}")
    if value > 10**6:  # past a limit of 11 days there is no point; setitimer takes it still
        raise OptionError(f"{what}: expected at most 1000000 seconds, got {given!r}")
    return float(value)


_TIMER: dict[str, Any] = {"running": False, "previous": None}
"""Whether a timed decision runs in the main thread now, and the ``SIGALRM`` handler found
before ours (installed once, on the first timed decision: installing a handler costs more
than a fast strategy's whole decision)."""


def _on_alarm(signum: int, frame: Any) -> None:
    if _TIMER["running"]:
        raise _Overrun
    previous = _TIMER["previous"]  # an alarm of someone else's: what it would have done without us
    if callable(previous):
        previous(signum, frame)
    elif previous != signal.SIG_IGN:  # the default action (end the process), as if we were not there
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.raise_signal(signal.SIGALRM)


def _install_timer() -> None:
    if signal.getsignal(signal.SIGALRM) is not _on_alarm:
        _TIMER["previous"] = signal.signal(signal.SIGALRM, _on_alarm)


class TimedStrategy:
    """A strategy with a time limit on each decision; everything else is the wrapped one's.

    ``name`` is the wrapped strategy's; `prepare` calls the wrapped one's (no limit:
    a policy may take a minute to solve).

    Args:
        strategy: the strategy to wrap (fits `flip7ref.play.strategies.Strategy`).
        seconds (float): the limit of one ``choose`` call, > 0.

    Raises:
        OptionError: ``seconds`` is not a number > 0.
    """

    def __init__(self, strategy: Any, seconds: Any) -> None:
        limit = check_timeout(seconds, "decision timeout")
        assert limit is not None
        self.strategy = strategy
        self.seconds = limit
        self.name = getattr(strategy, "name", type(strategy).__name__)

    def prepare(self, game: Any) -> Any:
        """Call the wrapped strategy's ``prepare(game)``, if it has one."""
        prepare = getattr(self.strategy, "prepare", None)
        return prepare(game) if prepare is not None else None

    def choose(self, state: Any, rng: random.Random) -> Any:
        """The wrapped strategy's decision, if it comes within the limit.

        Raises:
            DecisionTimeoutError: it did not (the message names the strategy, the
                seat and the limit).
        """
        if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
            return self._choose_with_timer(state, rng)
        return self._choose_in_thread(state, rng)

    def _overrun(self, state: Any) -> DecisionTimeoutError:
        return DecisionTimeoutError(
            f"strategy {self.name!r} at seat {state.current_player} did not choose within "
            f"{self.seconds:g} s (the decision time limit, --decision-timeout)"
        )

    def _choose_with_timer(self, state: Any, rng: random.Random) -> Any:
        _install_timer()
        try:
            _TIMER["running"] = True
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
            try:
                return self.strategy.choose(state, rng)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                _TIMER["running"] = False
        except _Overrun:
            raise self._overrun(state) from None

    def _choose_in_thread(self, state: Any, rng: random.Random) -> Any:
        box: list[Any] = []

        def run() -> None:
            try:
                box.append((True, self.strategy.choose(state, rng)))
            except BaseException as exc:  # handed to the caller's thread below
                box.append((False, exc))

        helper = threading.Thread(target=run, name=f"flip7ref decision of {self.name}", daemon=True)
        helper.start()
        helper.join(self.seconds)
        if not box:
            raise self._overrun(state)
        ok, value = box[0]
        if ok:
            return value
        raise value


def with_time_limit(strategies: Sequence[Any], seconds: float | None) -> list[Any]:
    """``strategies`` each wrapped in a `TimedStrategy` of ``seconds`` (unchanged when None)."""
    if seconds is None:
        return list(strategies)
    return [TimedStrategy(s, seconds) for s in strategies]
