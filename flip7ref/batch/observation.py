"""The observation of both batched engines (base Flip 7's `flip7ref.batch.core.BatchState`
and `flip7ref.batch.vengeance.VengeanceState`): one layout, the one
`flip7ref.rl.encoding.ObservationEncoder` documents, written once for both."""

from __future__ import annotations

from typing import Any

import numpy as np

from flip7ref.core.seats import absolute_seat, check_seat_layout, relative_seat

__all__ = ["observation", "observation_size"]

Arr = np.ndarray[Any, Any]


def observation_size(players: int, kinds: int, decision_kinds: int) -> int:
    """The length of an observation of ``players`` seats and ``kinds`` card kinds."""
    P, C = players, kinds
    return 3 * C + 2 * P * C + 4 * P + 2 * P + decision_kinds + C + 4 * P + 1


def observation(bs: Any, observer: Arr | int, kept: Arr | None, decision_kinds: int, seats: str = "relative") -> Arr:
    """(B, size) float32 observations of the batched state ``bs`` for seat ``observer`` (one
    per game, or one seat for all).  ``kept``: (B, P, C) counts of the cards lying in front
    of each player beside the line (base Flip 7's Second Chance and Freeze), or None where
    the edition has none (its block stays 0).  ``seats``: ``relative`` (the per-seat blocks
    start with each game's observer, the others in turn order after it) or ``absolute``, as
    `flip7ref.rl.encoding.ObservationEncoder` takes it.

    Raises:
        OptionError: ``seats`` is neither.
    """
    check_seat_layout(seats)
    B, P, C = bs.B, bs.P, bs.C
    obs = np.broadcast_to(np.asarray(observer, dtype=np.int64), (B,))
    if seats == "relative":
        order = absolute_seat(np.arange(P)[None, :], obs[:, None], P)  # (B, P): the absolute seat at each relative one

        def per_seat(block: Arr) -> Arr:
            return np.take_along_axis(block, order.reshape((B, P) + (1,) * (block.ndim - 2)), axis=1)

        def seat_of(seat: Arr) -> Arr:
            return relative_seat(np.asarray(seat, dtype=np.int64), obs, P)
    else:

        def per_seat(block: Arr) -> Arr:
            return block

        def seat_of(seat: Arr) -> Arr:
            return np.asarray(seat, dtype=np.int64)

    out = np.zeros((B, observation_size(P, C, decision_kinds)), np.float32)
    r = np.arange(B)
    i = 0

    def put(block: Arr, width: int) -> None:
        nonlocal i
        out[:, i : i + width] = block.reshape(B, width)
        i += width

    put(bs.unseen, C)
    put(bs.discard, C)
    put(bs.held(), C)
    put(per_seat(bs.line), P * C)
    if kept is None:
        i += P * C
    else:
        put(per_seat(kept), P * C)
    status = np.zeros((B, P, 4), np.float32)
    np.put_along_axis(status, bs.status[:, :, None].astype(np.int64), 1.0, axis=2)
    put(per_seat(status), P * 4)
    put(per_seat(np.clip(bs.totals, -1_000_000, 1_000_000)), P)
    put(per_seat(bs.line_values()), P)
    out[r, i + bs.kind.astype(np.int64)] = 1.0
    i += decision_kinds
    has = bs.card >= 0
    out[r[has], i + bs.card[has].astype(np.int64)] = 1.0
    i += C
    act = bs.actor >= 0
    out[r[act], i + seat_of(bs.actor)[act]] = 1.0
    i += P
    out[r, i + seat_of(obs)] = 1.0
    i += P
    out[r, i + seat_of(bs.dealer)] = 1.0
    i += P
    out[r, i + seat_of(bs.turn)] = 1.0
    i += P
    out[:, i] = np.minimum(bs.rnd, 1_000_000)
    return out
