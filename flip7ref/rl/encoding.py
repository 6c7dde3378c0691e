"""The observation encoding shared by every RL adapter (the action index is
`flip7ref.rl.actions`).

Derived from a `Game` (its edition table and player count) and documented in
``docs/rl.md``.  Nothing here reads the order of a seeded draw pile: the pile is seen as
counts of card kinds only.

Observation (`ObservationEncoder`): one flat ``float32`` vector, the
sections in this order (``C`` = every card kind of the edition, ``P`` seats):

==================  ========  ==================================================
section             size      content
==================  ========  ==================================================
unseen              C         cards of each kind in the draw pile (counts)
discard             C         cards of each kind in the discard pile
set_aside           C         cards held by pending work (set aside in a Flip Three, ...)
lines               P x C     per seat, cards of each kind in the line
kept                P x C     per seat, action cards lying in front (Second Chance, Freeze)
status              P x 4     per seat, one-hot: active, stayed, frozen, busted
totals              P         running totals (points)
line_values         P         what each line would score now (points; 0 when busted)
decision            9 (+E)    one-hot pending kind: offer, play, give, keep_or_give,
                              assign, cards, flip7_bonus, chance, terminal (then the
                              E kinds of the game's plug-in primitives, if any)
decision_card       C         one-hot: the card the decision is about (zeros if none)
to_act              P         one-hot: the seat to decide (zeros at chance/terminal)
observer            P         one-hot: the seat this observation is for
dealer              P         one-hot: the dealer
turn                P         one-hot: the seat whose Hit-or-Stay offer is next
round               1         the round number (from 1)
==================  ========  ==================================================

Seats: under ``seats="relative"`` (the default) every per-seat section (`SEAT_SECTIONS`:
lines, kept, status, totals, line_values, to_act, observer, dealer, turn) lists the observer
first and the other seats after it in turn order, so the observer's own one-hot is always at 0
and a policy learnt in one seat reads every seat's observation alike; ``seats="absolute"``
lists the table's seats 0..P-1.

Points (totals, line values) and the round are clipped to +-1,000,000 so that
the space is bounded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from flip7ref.core.game import Game
from flip7ref.core.observation_layout import (
    DECISION_KINDS,
    NORMALIZED_BOUND,
    NORMALIZED_SECTIONS,
    POINTS_BOUND,
    ROUND_SCALE,
    SEAT_SECTIONS,
    STATUSES,
    observation_sections,
)
from flip7ref.core.seats import absolute_seat, check_seat_layout
from flip7ref.core.state import State
from flip7ref.rl import incremental


def decision_kinds(game: Game) -> tuple[str, ...]:
    """The kinds of `State.pending` a game's observation tells apart: `DECISION_KINDS`, then
    the kinds its primitives declare (``Effect.decision_kinds``; table order, each once).
    A game of the shipped primitives has exactly `DECISION_KINDS`."""
    extra = [k for e in game.effect if e is not None for k in e.decision_kinds if k not in DECISION_KINDS]
    return (*DECISION_KINDS, *dict.fromkeys(extra))


class ObservationEncoder:
    """Encodes a `State` as the flat vector described in this module's docstring.

    Args:
        game: the game (edition, options, player count).
        seats: ``relative`` (the default) or ``absolute``: whether the per-seat sections
            (`SEAT_SECTIONS`) start with the observer and go on in turn order after it
            (the observer's ``observer`` one-hot is then always at 0), or follow the table's
            seats.  An observation without an observer (``encode_array(state, None)``) is
            absolute under both.

    Raises:
        OptionError: ``seats`` is neither.

    Attributes:
        size: the vector's length.
        seats: the seat layout (``relative`` or ``absolute``).
        sections: ``{name: (start, size)}`` in vector order.
        decision_kinds: the pending kinds of the ``decision`` section, in order
            (`decision_kinds`).
        low, high: per-element bounds (lists of ``size`` floats).
        scale: per-element divisors of `normalize` (lists of ``size`` floats).
        normalized_low, normalized_high: per-element bounds of a normalised vector.
    """

    def __init__(self, game: Game, seats: str = "relative") -> None:
        self.game = game
        self.seats = check_seat_layout(seats)
        p = game.players
        self.card_ids: tuple[str, ...] = game.card_ids
        self.decision_kinds: tuple[str, ...] = decision_kinds(game)
        self._kind_index = {k: i for i, k in enumerate(self.decision_kinds)}
        c = len(self.card_ids)
        self.sections: dict[str, tuple[int, int]] = observation_sections(p, c, len(self.decision_kinds))
        self.size: int = sum(size for _, size in self.sections.values())
        copies = Counter(game.deck)
        per_kind = [float(copies[i]) for i in range(c)]
        high = [1.0] * self.size
        low = [0.0] * self.size
        for name in ("unseen", "discard", "set_aside"):
            s, _ = self.sections[name]
            high[s : s + c] = per_kind
        for name in ("lines", "kept"):
            s, _ = self.sections[name]
            high[s : s + p * c] = per_kind * p
        for name in ("totals", "line_values", "round"):
            s, n = self.sections[name]
            high[s : s + n] = [float(POINTS_BOUND)] * n
            if name != "round":
                low[s : s + n] = [-float(POINTS_BOUND)] * n
        self.low: list[float] = low
        self.high: list[float] = high
        # normalised: counts / the deck's copies of the kind, points / the target score, round / ROUND_SCALE
        scale = [h if h > 0 else 1.0 for h in high]
        n_low, n_high = [lo / sc for lo, sc in zip(low, scale, strict=True)], [h / sc for h, sc in zip(high, scale, strict=True)]
        for name, divisor in (("totals", float(max(1, game.target_score))), ("line_values", float(max(1, game.target_score))),
                              ("round", ROUND_SCALE)):  # fmt: skip
            s, n = self.sections[name]
            scale[s : s + n] = [divisor] * n
            n_high[s : s + n] = [NORMALIZED_BOUND] * n
            n_low[s : s + n] = [0.0 if name == "round" else -NORMALIZED_BOUND] * n
        self.scale: list[float] = scale
        self.normalized_low: list[float] = n_low
        self.normalized_high: list[float] = n_high
        self._clipped = [self.sections[name] for name in NORMALIZED_SECTIONS]
        self._starts = tuple(start for start, _ in self.sections.values())
        self._status_index = {status: i for i, status in enumerate(STATUSES)}
        self._observer_at = self.sections["observer"][0]
        self._scale_array = np.array(scale, dtype=np.float64)
        self._table = incremental.TableVector(self)
        self._views: dict[int, np.ndarray[Any, np.dtype[np.int64]]] = {}

    def seat_view(self, observer: int) -> np.ndarray[Any, np.dtype[np.int64]]:
        """A ``(size,)`` int64 array: element ``i`` of the relative observation for seat
        ``observer`` is element ``seat_view(observer)[i]`` of the absolute one (the per-seat
        sections rotated so that relative seat ``r`` is absolute seat
        `flip7ref.core.seats.absolute_seat` ``(r, observer)``; the other sections unchanged)."""
        view = self._views.get(observer)
        if view is None:
            p = self.game.players
            view = np.arange(self.size, dtype=np.int64)
            for name, width in SEAT_SECTIONS.items():
                start, _ = self.sections[name]
                w = len(self.card_ids) if width == 0 else width
                for r in range(p):
                    a = absolute_seat(r, observer, p)
                    view[start + r * w : start + r * w + w] = np.arange(start + a * w, start + a * w + w)
            self._views[observer] = view
        return view

    def normalize(self, vector: Sequence[float]) -> list[float]:
        """``vector`` (an `encode` result) with every element in a small range: card counts
        divided by the deck's copies of their kind (0..1), totals and line values by the
        game's target score and the round by `ROUND_SCALE`, those three clipped to
        +-`NORMALIZED_BOUND`; one-hot sections unchanged.  Bounds: ``normalized_low``,
        ``normalized_high``.

        Raises:
            ValueError: ``vector`` is not ``size`` long.
        """
        if len(vector) != self.size:
            raise ValueError(f"normalize: expected a vector of {self.size} floats, got {len(vector)}")
        out = [v / sc for v, sc in zip(vector, self.scale, strict=True)]
        for s, n in self._clipped:
            out[s : s + n] = [max(-NORMALIZED_BOUND, min(NORMALIZED_BOUND, v)) for v in out[s : s + n]]
        return out

    def encode(self, state: State, observer: int) -> list[float]:
        """The observation of ``state`` for seat ``observer``, as a list of ``size`` floats.

        Every section is public information (the game has no hidden hands); the
        draw pile appears as counts only, never in its order.
        """
        table = self._table.update(state)
        if self.seats == "relative" and observer:
            table = table[self.seat_view(observer)]
        vector: list[float] = table.tolist()
        vector[self._observer_at + (0 if self.seats == "relative" else observer)] = 1.0
        return vector

    def encode_array(self, state: State, observer: int | None, normalize: bool = False) -> np.ndarray[Any, np.dtype[np.float32]]:
        """`encode` (or `normalize` of it) as a new ``float32`` array: the same values, without
        the list.  ``observer=None`` leaves the ``observer`` section all zeros (PettingZoo's
        global state).

        The encoder remembers the last state it encoded and rewrites only the sections of
        the parts that changed since (`flip7ref.rl.incremental`), so a chain of successive
        states, as an RL loop steps through, costs a few sections per state.
        """
        table = self._table.update(state)
        if normalize:
            scaled = table / self._scale_array
            for s, n in self._clipped:
                np.clip(scaled[s : s + n], -NORMALIZED_BOUND, NORMALIZED_BOUND, out=scaled[s : s + n])
            out = scaled.astype(np.float32)
        else:
            out = table.astype(np.float32)
        if observer is not None:
            if self.seats == "relative":
                if observer:
                    out = out[self.seat_view(observer)]
                observer = 0
            out[self._observer_at + observer] = 1.0  # a one-hot: 1 normalised too (its scale is 1)
        return out
