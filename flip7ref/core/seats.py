"""Seat-relative numbering: the seats as one seat sees the table.

Seat ``origin`` is relative seat 0, the next seat in turn order (``origin + 1``, the
engine's next seat) relative seat 1, and so on round the table.  The RL observations
and action indices use it by default (``docs/rl.md``), so that a policy learnt in one
seat plays any seat.  Both functions take Python ints or NumPy integer arrays alike.

Why the rotation does not call the core's decider of turn order: the interpreter decides
who is offered next with `flip7ref.core.engine.offered_next` (F7-030, V-012: the first
active seat from a seat on, going left) and who comes first with
`flip7ref.core.engine.first_seat` (F7-020, V-011), both over one table's players and their
statuses.  These functions rotate seats with no table at hand: a whole observation's
sections at once, or a ``(B, P)`` array of every table of a batch
(`flip7ref.batch.observation`), in NumPy.  So "the seat on the left is ``seat + 1``" is
written here a second time, and ``tests/test_seats_turn_order.py`` holds it to those two
deciders for 2 to 18 players in both editions (relative seat ``r`` of ``origin`` is the
``r``-th seat `offered_next` reaches from ``origin``; the dealer's relative seat 1 is the
`first_seat` of a round).
"""

from __future__ import annotations

from typing import TypeVar

from flip7ref.core.errors import OptionError

SEAT_LAYOUTS = ("relative", "absolute")
"""The seat layouts of an RL observation and action index: ``relative`` (the default) or ``absolute``."""

S = TypeVar("S")


def relative_seat(seat: S, origin: S, players: int) -> S:
    """Absolute ``seat`` as seen from ``origin``: 0 for ``origin`` itself, 1 for the seat
    after it in turn order... (``(seat - origin) mod players``; ints or arrays)."""
    return (seat - origin) % players  # type: ignore[operator, no-any-return]


def absolute_seat(relative: S, origin: S, players: int) -> S:
    """Relative seat ``relative`` of ``origin`` as an absolute seat (the inverse of
    `relative_seat`: ``(origin + relative) mod players``; ints or arrays)."""
    return (origin + relative) % players  # type: ignore[operator, no-any-return]


def check_seat_layout(seats: object) -> str:
    """``seats`` checked: one of `SEAT_LAYOUTS`.

    Raises:
        OptionError: anything else (the message names the choices).
    """
    if not isinstance(seats, str) or seats not in SEAT_LAYOUTS:
        raise OptionError(f"seats: expected 'relative' or 'absolute', got {seats!r}")
    return seats
