"""The event rows the kernel (`flip7ref.batch.kernel`) writes when a log is kept
(`flip7ref.batch.evlog` reads them): one bounded row write, the room check before a step, and
whether rows are kept.  Compiled, each is chosen by the type of the buffer (None: no log, and
no trace of one in the step compiled without it); the functions themselves are the plain-Python
form the kernel runs uncompiled."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np

Arr = np.ndarray[Any, Any]


def ev_row(ev: Any, ev_n: Arr, b: int, kind: int, x: int, y: int, z: int) -> None:
    """One event row for game ``b`` when events are kept (`flip7ref.batch.evlog`: the buffer
    ``ev``, None when no log is kept, and its counts ``ev_n``); a row past the buffer's end is
    counted, not written (`flip7ref.batch.evlog.check` raises then).  Compiled: `_ev_typed`."""
    if ev is None:
        return
    n = ev_n[b]
    if n < ev.shape[1]:
        ev[b, n] = (kind, x, y, z)
    ev_n[b] = n + 1


def full(ev: Any, ev_n: Arr, room: int, b: int) -> bool:
    """Events are kept (``ev`` not None) and game ``b``'s buffer lacks the ``room`` of one more
    step: it stops (nothing changed) to have its rows moved aside (`flip7ref.batch.evlog.EventLog.spill`).
    Compiled: `_full_typed`."""
    return ev is not None and bool(ev_n[b] + room > ev.shape[1])


def keeps(ev: Any) -> bool:
    """Events are kept (``ev`` not None).  Compiled: `_keeps_typed`."""
    return ev is not None


numba: Any
try:
    import numba  # type: ignore[import-not-found, unused-ignore, no-redef]
    import numba.extending  # type: ignore[import-not-found, unused-ignore]
except ImportError:  # pragma: no cover - depends on the installation: the plain forms only
    numba = None


def _none(x: Any) -> bool:
    return isinstance(x, numba.types.NoneType)


G = TypeVar("G", bound=Callable[..., Any])


def _overload(f: Callable[..., Any]) -> Callable[[G], G]:
    """``numba.extending.overload(f)``, typed."""
    return cast(Callable[[G], G], numba.extending.overload(f))


def _register() -> None:
    """Register the compiled forms of `ev_row`, `full` and `keeps` with numba."""
    # The implementations of an overload take the very parameters of its typing function, annotations
    # included (numba compares them): every parameter below is annotated ``Any``.

    @_overload(ev_row)
    def _ev_typed(ev: Any, ev_n: Any, b: Any, kind: Any, x: Any, y: Any, z: Any) -> Any:
        """`ev_row` by the type of ``ev``: nothing at all when no log is kept (the step without a log
        is compiled apart, with no trace of the log), else the bounded write."""
        if _none(ev):

            def nothing(ev: Any, ev_n: Any, b: Any, kind: Any, x: Any, y: Any, z: Any) -> None:
                return None

            return nothing

        def write(ev: Any, ev_n: Any, b: Any, kind: Any, x: Any, y: Any, z: Any) -> None:
            n = ev_n[b]
            if n < ev.shape[1]:
                ev[b, n, 0] = kind
                ev[b, n, 1] = x
                ev[b, n, 2] = y
                ev[b, n, 3] = z
            ev_n[b] = n + 1

        return write

    @_overload(full)
    def _full_typed(ev: Any, ev_n: Any, room: Any, b: Any) -> Any:
        """`full` by the type of ``ev`` (always False when no log is kept)."""
        if _none(ev):

            def never(ev: Any, ev_n: Any, room: Any, b: Any) -> bool:
                return False

            return never

        def full(ev: Any, ev_n: Any, room: Any, b: Any) -> bool:
            return bool(ev_n[b] + room > ev.shape[1])

        return full

    @_overload(keeps)
    def _keeps_typed(ev: Any) -> Any:
        """`keeps` by the type of ``ev``."""
        if _none(ev):

            def no(ev: Any) -> bool:
                return False

            return no

        def yes(ev: Any) -> bool:
            return True

        return yes


if numba is not None:
    _register()
