"""The action index and the observation encoding shared by every RL adapter.

Both are derived from a `Game` (its edition table and player
count) and documented in ``docs/rl.md``.  Nothing here reads the order of a
seeded draw pile: the pile is seen as counts of card kinds only.

Action index (`ActionIndex`), for ``P`` players and the ``K`` *line kinds*
(the edition's number and modifier card kinds, in table order), blocks in this
order, each present only when the edition has a card that needs it:

============  =======================  ==========================================
block         size                     index within the block -> action
============  =======================  ==========================================
hit           1                        ``hit``
stay          1                        ``stay``
target        P                        ``s`` -> ``target s``
steal         P x K (Steal cards)      ``s * K + k`` -> ``steal s i``
discard       P x K (Discard cards)    ``s * K + k`` -> ``discard s i``
swap          P(P-1)/2 x K x K (Swap)  ``pair(a, b) * K * K + ka * K + kb`` -> ``swap a i b j``
(a verb)      1, P, or its own         a plug-in primitive's verbs, in the order
                                       they were registered: 1 index for a verb
                                       without arguments, P (a seat) for one with
                                       one, else a block it registers
                                       (`register_action_block`)
============  =======================  ==========================================

``target s`` answers every choice of a seat: the target of a Freeze, Flip
Three, Flip Four, Just One More, Swap, Steal, Discard or modifier card, the
assignment of a set-aside card, giving away (or keeping) a spare Second
Chance, and Brutal Mode's Flip 7 choice (oneself for +15, another seat for
-15).  Swap, Steal and Discard picks name a card by its *kind* ``k`` in the
seat's line; the index maps to the first card of that kind in the line (cards
of one kind in one line are interchangeable), so several positional actions
of the interpreter may share one index.  ``pair(a, b)`` for seats ``a < b`` is
the position of ``(a, b)`` in ``itertools.combinations(range(P), 2)``.

Seats (``seats="relative"``, the default of every adapter): every seat an index names is
*relative* to the seat to act: seat 0 is the seat deciding, 1 the next in turn order, and
so on (`flip7ref.core.seats`), so ``target 0`` is always "myself".  `ActionIndex.absolute_indices`
is the one mapping from relative to absolute indices (a pair of a swap is put back in seat
order).  ``seats="absolute"`` keeps the table's seat numbers (the only layout of 0.1.0).

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

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from flip7ref.core.errors import IllegalActionError, OptionError
from flip7ref.core.game import Game
from flip7ref.core.model import verbs
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
from flip7ref.core.state import Action, State
from flip7ref.rl import incremental


def decision_kinds(game: Game) -> tuple[str, ...]:
    """The kinds of `State.pending` a game's observation tells apart: `DECISION_KINDS`, then
    the kinds its primitives declare (``Effect.decision_kinds``; table order, each once).
    A game of the shipped primitives has exactly `DECISION_KINDS`."""
    extra = [k for e in game.effect if e is not None for k in e.decision_kinds if k not in DECISION_KINDS]
    return (*DECISION_KINDS, *dict.fromkeys(extra))


class ActionBlock:
    """The indices of one verb's actions, for a verb with arguments other than one seat
    (a plug-in registers one with `register_action_block`; a verb without arguments
    gets one index, a verb with one argument one index per seat).

    Args:
        index: the game's `ActionIndex` (players, line kinds, seat pairs).
    """

    def __init__(self, index: ActionIndex) -> None:
        self.index = index

    def size(self) -> int:
        """How many indices the block has."""
        raise NotImplementedError

    def encode(self, state: State, act: Action) -> int:
        """The offset in the block of ``act`` at ``state`` (IndexError, KeyError or ValueError
        when out of range)."""
        raise NotImplementedError

    def decode(self, state: State, offset: int) -> Action:
        """The action at ``offset`` of the block at ``state`` (ValueError: no such card)."""
        raise NotImplementedError

    def describe(self, offset: int) -> str:
        """A readable name of ``offset`` without a state."""
        raise NotImplementedError

    def rotate(self, offset: int, origin: int) -> int:
        """The offset of the same action with its seats absolute, for ``offset`` whose seats
        are relative to seat ``origin`` (`flip7ref.core.seats.absolute_seat`; a bijection of
        the block's offsets).  A block whose actions name no seat keeps the default: unchanged."""
        return offset


class _NoArguments(ActionBlock):
    def __init__(self, index: ActionIndex, verb: str) -> None:
        super().__init__(index)
        self.verb = verb

    def size(self) -> int:
        return 1

    def encode(self, state: State, act: Action) -> int:
        return 0

    def decode(self, state: State, offset: int) -> Action:
        return Action(self.verb)

    def describe(self, offset: int) -> str:
        return self.verb


class _Seat(_NoArguments):
    def size(self) -> int:
        return self.index.players

    def encode(self, state: State, act: Action) -> int:
        (seat,) = act.args
        if not 0 <= seat < self.index.players:
            raise IndexError(seat)
        return seat

    def decode(self, state: State, offset: int) -> Action:
        return Action(self.verb, (offset,))

    def describe(self, offset: int) -> str:
        return f"{self.verb} {offset}"

    def rotate(self, offset: int, origin: int) -> int:
        return absolute_seat(offset, origin, self.index.players)


class _Pick(_NoArguments):
    """``steal s i`` / ``discard s i``: a seat and the kind of a card of its line."""

    def size(self) -> int:
        return self.index.players * len(self.index.line_kinds)

    def encode(self, state: State, act: Action) -> int:
        seat, i = act.args
        return seat * len(self.index.line_kinds) + self.index.kind(state, seat, i)

    def decode(self, state: State, offset: int) -> Action:
        kinds = self.index.line_kinds
        seat, kind = divmod(offset, len(kinds))
        return Action(self.verb, (seat, state.line(seat).index(kinds[kind])))

    def describe(self, offset: int) -> str:
        kinds = self.index.line_kinds
        seat, kind = divmod(offset, len(kinds))
        return f"{self.verb} seat {seat} {kinds[kind]}"

    def rotate(self, offset: int, origin: int) -> int:
        seat, kind = divmod(offset, len(self.index.line_kinds))
        return absolute_seat(seat, origin, self.index.players) * len(self.index.line_kinds) + kind


class _Swap(_NoArguments):
    """``swap a i b j``: a pair of seats and the kinds of one card of each line."""

    def size(self) -> int:
        return len(self.index.pairs) * len(self.index.line_kinds) ** 2

    def encode(self, state: State, act: Action) -> int:
        a, i, b, j = act.args
        k, ix = len(self.index.line_kinds), self.index
        return ix.pair_of[(a, b)] * k * k + ix.kind(state, a, i) * k + ix.kind(state, b, j)

    def decode(self, state: State, offset: int) -> Action:
        kinds = self.index.line_kinds
        k = len(kinds)
        pair, rest = divmod(offset, k * k)
        ka, kb = divmod(rest, k)
        a, b = self.index.pairs[pair]
        return Action("swap", (a, state.line(a).index(kinds[ka]), b, state.line(b).index(kinds[kb])))

    def describe(self, offset: int) -> str:
        kinds = self.index.line_kinds
        k = len(kinds)
        pair, rest = divmod(offset, k * k)
        ka, kb = divmod(rest, k)
        a, b = self.index.pairs[pair]
        return f"swap seat {a} {kinds[ka]} with seat {b} {kinds[kb]}"

    def rotate(self, offset: int, origin: int) -> int:
        ix, k = self.index, len(self.index.line_kinds)
        pair, rest = divmod(offset, k * k)
        ka, kb = divmod(rest, k)
        a, b = (absolute_seat(s, origin, ix.players) for s in ix.pairs[pair])
        if a > b:  # the pair in seat order, its cards with it (swapping a with b is swapping b with a)
            a, b, ka, kb = b, a, kb, ka
        return ix.pair_of[(a, b)] * k * k + ka * k + kb


_STATELESS = (_NoArguments, _Seat)
"""The block types whose index of an action depends on the action alone, not on the state."""

_MASKS_KEPT = 4096
"""At most this many masks (one per set of legal indices met) are kept by an `ActionIndex`."""


ACTION_BLOCKS: dict[str, Callable[[ActionIndex, str], ActionBlock]] = {"steal": _Pick, "discard": _Pick, "swap": _Swap}
"""The block maker of each verb with more than one argument, by verb (``maker(index, verb)``)."""


def register_action_block(verb: str, maker: Callable[[ActionIndex, str], ActionBlock]) -> None:
    """Give the plug-in verb ``verb`` (of two or more arguments) its block of action indices:
    ``maker(index, verb)`` returns an `ActionBlock` for a game's `ActionIndex`.  A block whose
    actions name seats overrides `ActionBlock.rotate`, so that its indices are seat-relative
    under the default layout as the shipped blocks' are."""
    ACTION_BLOCKS[verb] = maker


def action_index(action: object, legal: Sequence[int] = ()) -> int:
    """``action`` as an action index: a Python or NumPy whole number (a 0-d array of one
    too), never a bool, float or text (which ``int()`` would quietly turn into another index).
    ``legal`` (the legal indices now) is named in the error.

    Raises:
        IllegalActionError: ``action`` is not a whole number.
    """
    item = getattr(action, "item", None)
    if getattr(action, "shape", None) == () and callable(item):  # a NumPy scalar or 0-d array
        action = item()
    if isinstance(action, bool) or not isinstance(action, int):
        why = f"an action index is a whole number, not a {type(action).__name__}"
        raise IllegalActionError(repr(action), [str(i) for i in legal], why)
    return action


class ActionIndex:
    """The bounded discrete action space of a game, and its mapping to `Action` values.

    Args:
        game: the game (edition, options, player count).
        seats: ``relative`` (the default) or ``absolute``: whether the seats an index names
            (``target s``, ``steal s i``, ``swap a i b j``...) count from the seat to act
            (relative seat 0 is that seat, 1 the next in turn order...) or are the table's
            seats.  The same position and choice get the same index from any seat under
            ``relative``, so that a policy plays every seat (`absolute_indices` maps one to
            the other).

    Raises:
        OptionError: ``seats`` is neither.

    Attributes:
        size: the number of indices (``Discrete(size)``).
        seats: the seat layout (``relative`` or ``absolute``).
        blocks: ``{name: (start, size)}`` for ``hit``, ``stay``, ``target`` and,
            when the edition has such cards, ``steal``, ``discard`` and ``swap`` (then
            the verbs of plug-in primitives, see the module).
        line_kinds: the card ids a pick can name (numbers and modifiers, table order).

    The layout is in this module's docstring and in ``docs/rl.md``.
    """

    def __init__(self, game: Game, seats: str = "relative") -> None:
        self.game = game
        self.seats = check_seat_layout(seats)
        self.players = game.players
        cards = game.edition.cards
        self.line_kinds: tuple[str, ...] = tuple(c.id for c in cards if c.category in ("number", "modifier"))
        self._kind_of: dict[str, int] = {k: i for i, k in enumerate(self.line_kinds)}
        p = self.players
        self.pairs: tuple[tuple[int, int], ...] = tuple(itertools.combinations(range(p), 2))
        self.pair_of: dict[tuple[int, int], int] = {ab: i for i, ab in enumerate(self.pairs)}
        arity = verbs()
        used = {v for e in game.effect if e is not None for v in e.verbs}
        self._blocks: dict[str, ActionBlock] = {}
        self._last_legal: tuple[State, tuple[int, ...]] | None = None
        for verb in ("hit", "stay", "target", *(v for v in arity if v in used)):  # registry order
            if verb in ACTION_BLOCKS:
                self._blocks[verb] = ACTION_BLOCKS[verb](self, verb)
            elif arity[verb] <= 1:
                self._blocks[verb] = (_Seat if arity[verb] else _NoArguments)(self, verb)
            else:
                raise OptionError(f"verb {verb!r}: {arity[verb]} arguments need an action block (register_action_block)")
        self.blocks: dict[str, tuple[int, int]] = {}
        start = 0
        for name, block in self._blocks.items():
            self.blocks[name] = (start, block.size())
            start += block.size()
        self.size: int = start
        self._verb_at: list[tuple[str, int]] = [(v, i - s) for v, (s, n) in self.blocks.items() for i in range(s, s + n)]
        self._static: dict[tuple[str, tuple[int, ...]], int] = {}  # the index of an action of a stateless block
        self._masks: dict[tuple[int, ...], np.ndarray[Any, np.dtype[np.int8]]] = {}  # mask of a set of legal indices
        self._to_absolute: dict[int, np.ndarray[Any, np.dtype[np.int64]]] = {}  # by origin seat
        self._to_relative: dict[int, np.ndarray[Any, np.dtype[np.int64]]] = {}

    def absolute_indices(self, origin: int) -> np.ndarray[Any, np.dtype[np.int64]]:
        """The seat-relative index mapping of every adapter: a ``(size,)`` int64 array whose
        element ``i`` is the absolute index (seats as the table numbers them) of relative index
        ``i`` when ``origin`` is the seat to act (``target 1`` is ``target origin+1``...; the
        blocks' `ActionBlock.rotate`).  A permutation; the identity for ``origin`` 0.  The
        batched vector env maps its learners' indices with it.

        Raises:
            OptionError: ``origin`` is not a seat of the game.
        """
        table = self._to_absolute.get(origin)
        if table is None:
            if isinstance(origin, bool) or not isinstance(origin, int) or not 0 <= origin < self.players:
                raise OptionError(f"origin: expected a seat 0..{self.players - 1}, got {origin!r}")
            table = np.array([self.blocks[v][0] + self._blocks[v].rotate(o, origin) for v, o in self._verb_at], dtype=np.int64)
            inverse = np.empty_like(table)
            inverse[table] = np.arange(self.size, dtype=np.int64)
            self._to_absolute[origin], self._to_relative[origin] = table, inverse
        return table

    def _origin(self, state: State) -> int:
        """The seat the indices of ``state`` count from: the seat to act under ``relative``
        (0 at chance and terminal nodes, and always under ``absolute``)."""
        who = state.current_player
        return who if self.seats == "relative" and 0 < who < self.players else 0

    def kind(self, state: State, seat: int, position: int) -> int:
        """The line kind (index into ``line_kinds``) of card ``position`` of ``seat``'s line."""
        return self._kind_of[state.line(seat)[position]]

    def encode(self, state: State, action: Action | str) -> int:
        """The index of ``action`` (an `Action` or its string form) at ``state``.

        Raises:
            IllegalActionError: the verb has no block in this game, or a seat or
                card position is out of range at ``state``.
        """
        act = Action.parse(action) if isinstance(action, str) else action
        index = self._encode_absolute(state, act)
        origin = self._origin(state)
        if origin:
            self.absolute_indices(origin)
            return int(self._to_relative[origin][index])
        return index

    def _encode_absolute(self, state: State, act: Action) -> int:
        """`encode` with the seats absolute."""
        block = self.blocks.get(act.verb)
        if block is None:
            raise IllegalActionError(str(act), [], f"{self.game.edition.id} has no {act.verb!r} decisions")
        start, _ = block
        try:
            return start + self._blocks[act.verb].encode(state, act)
        except (IndexError, KeyError, ValueError):
            raise IllegalActionError(str(act), [], "a seat or card position out of range for this state") from None

    def decode(self, state: State, index: int) -> Action:
        """The `Action` that index ``index`` stands for at ``state``.

        A pick (Steal, Discard, Swap) names the first card of the chosen kind in
        the seat's line.  The result is legal when ``mask(state)[index]`` is 1.

        Raises:
            IllegalActionError: ``index`` is outside ``0..size-1``, or names a card
                kind the seat's line does not hold.
        """
        if isinstance(index, bool) or not 0 <= int(index) < self.size:
            raise IllegalActionError(str(index), [], f"an action index must be 0..{self.size - 1}")
        asked = index = int(index)
        origin = self._origin(state)
        if origin:
            index = int(self.absolute_indices(origin)[index])
        verb, offset = self._verb_at[index]
        try:
            return self._blocks[verb].decode(state, offset)
        except ValueError:
            raise IllegalActionError(self.describe(asked), state.legal_action_strings(), "no such card in that line") from None

    def legal_indices(self, state: State) -> list[int]:
        """The sorted indices of ``state.legal_actions()`` (empty at chance and terminal nodes)."""
        last = self._last_legal
        if last is not None and last[0] is state:  # an RL step asks twice (the mask, then the check of the choice)
            return list(last[1])
        static, found = self._static, set()
        for a in state.legal_actions():
            i = static.get((a.verb, a.args), -1)  # hit, stay, target s...: an index that needs no state
            if i < 0:
                i = self._encode_absolute(state, a)
                if type(self._blocks[a.verb]) in _STATELESS:
                    static[(a.verb, a.args)] = i
            found.add(i)
        origin = self._origin(state)
        if origin:
            relative = self._to_relative.get(origin)
            if relative is None:
                self.absolute_indices(origin)
                relative = self._to_relative[origin]
            found = {int(relative[i]) for i in found}
        legal = sorted(found)
        self._last_legal = (state, tuple(legal))  # states are immutable: the same object has the same answer
        return legal

    def mask(self, state: State) -> list[int]:
        """A list of ``size`` zeros and ones: 1 where the index is a legal decision now."""
        out = [0] * self.size
        for i in self.legal_indices(state):
            out[i] = 1
        return out

    def mask_array(self, state: State) -> np.ndarray[Any, np.dtype[np.int8]]:
        """`mask` as a numpy ``int8`` array."""
        self.legal_indices(state)
        assert self._last_legal is not None
        legal = self._last_legal[1]
        mask = self._masks.get(legal)
        if mask is None:
            mask = np.zeros(self.size, dtype=np.int8)
            mask[list(legal)] = 1
            if len(self._masks) < _MASKS_KEPT:
                self._masks[legal] = mask
        return mask.copy()

    def describe(self, index: int) -> str:
        """A readable name of an index that does not need a state: ``"steal seat 2 +4"`` (under
        ``relative`` the seat counts from the seat to act)."""
        for verb, (start, size) in self.blocks.items():
            if start <= index < start + size:
                return self._blocks[verb].describe(index - start)
        raise IllegalActionError(str(index), [], f"an action index must be 0..{self.size - 1}")


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
