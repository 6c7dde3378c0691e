"""The observation of both batched engines (base Flip 7's `flip7ref.batch.core.BatchState`
and `flip7ref.batch.vengeance.VengeanceState`): the layout of `flip7ref.core.observation_layout`
(the one `flip7ref.rl.encoding.ObservationEncoder` reads), written once for both."""

from __future__ import annotations

from typing import Any

import numpy as np

from flip7ref.core.observation_layout import POINTS_BOUND, observation_sections, observation_size
from flip7ref.core.seats import absolute_seat, check_seat_layout, relative_seat

__all__ = ["observation", "observation_size"]

Arr = np.ndarray[Any, Any]


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

    at = observation_sections(P, C, decision_kinds)
    out = np.zeros((B, observation_size(P, C, decision_kinds)), np.float32)
    r = np.arange(B)

    def put(name: str, block: Arr) -> None:
        start, size = at[name]
        out[:, start : start + size] = block.reshape(B, size)

    def one_hot(name: str, games: Arr, offset: Arr) -> None:
        out[games, at[name][0] + offset] = 1.0

    put("unseen", bs.unseen)
    put("discard", bs.discard)
    put("set_aside", bs.held())
    put("lines", per_seat(bs.line))
    if kept is not None:
        put("kept", per_seat(kept))
    status = np.zeros((B, P, 4), np.float32)
    np.put_along_axis(status, bs.status[:, :, None].astype(np.int64), 1.0, axis=2)
    put("status", per_seat(status))
    put("totals", per_seat(np.clip(bs.totals, -POINTS_BOUND, POINTS_BOUND)))
    put("line_values", per_seat(bs.line_values()))
    one_hot("decision", r, bs.kind.astype(np.int64))
    has = bs.card >= 0
    one_hot("decision_card", r[has], bs.card[has].astype(np.int64))
    act = bs.actor >= 0
    one_hot("to_act", r[act], seat_of(bs.actor)[act])
    one_hot("observer", r, seat_of(obs))
    one_hot("dealer", r, seat_of(bs.dealer))
    one_hot("turn", r, seat_of(bs.turn))
    out[:, at["round"][0]] = np.minimum(bs.rnd, POINTS_BOUND)
    return out
