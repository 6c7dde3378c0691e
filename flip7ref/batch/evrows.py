"""The event rows the compiled kernel (`flip7ref.batch.jit`) writes when a log is kept
(`flip7ref.batch.evlog` reads them): one bounded row write, the room check before a step, and
whether rows are kept, each compiled by the type of the buffer (None: no log, and no trace of
one in the step compiled without it)."""

from __future__ import annotations

from typing import Any

import numba  # type: ignore[import-not-found, unused-ignore]
import numba.extending  # type: ignore[import-not-found, unused-ignore]
import numpy as np

Arr = np.ndarray[Any, Any]


def ev_row(ev: Any, ev_n: Arr, b: int, kind: int, x: int, y: int, z: int) -> None:
    """One event row for game ``b`` when events are kept (`flip7ref.batch.evlog`: the buffer
    ``ev``, None when no log is kept, and its counts ``ev_n``); a row past the buffer's end is
    counted, not written (`flip7ref.batch.evlog.check` raises then).  Compiled only (`_ev_typed`)."""
    raise NotImplementedError


def full(ev: Any, ev_n: Arr, room: int, b: int) -> bool:
    """Events are kept (``ev`` not None) and game ``b``'s buffer lacks the ``room`` of one more
    step: it stops (nothing changed) to have its rows moved aside (`flip7ref.batch.evlog.EventLog.spill`).
    Compiled only (`_full_typed`)."""
    raise NotImplementedError


def keeps(ev: Any) -> bool:
    """Events are kept (``ev`` not None).  Compiled only (`_keeps_typed`)."""
    raise NotImplementedError


def _none(x: Any) -> bool:
    return isinstance(x, numba.types.NoneType)


# The implementations of an overload take the very parameters of its typing function, annotations
# included (numba compares them): every parameter below is annotated ``Any``.


@numba.extending.overload(ev_row)
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


@numba.extending.overload(full)
def _full_typed(ev: Any, ev_n: Any, room: Any, b: Any) -> Any:
    """`full` by the type of ``ev`` (always False when no log is kept)."""
    if _none(ev):

        def never(ev: Any, ev_n: Any, room: Any, b: Any) -> bool:
            return False

        return never

    def full(ev: Any, ev_n: Any, room: Any, b: Any) -> bool:
        return bool(ev_n[b] + room > ev.shape[1])

    return full


@numba.extending.overload(keeps)
def _keeps_typed(ev: Any) -> Any:
    """`keeps` by the type of ``ev``."""
    if _none(ev):

        def no(ev: Any) -> bool:
            return False

        return no

    def yes(ev: Any) -> bool:
        return True

    return yes
