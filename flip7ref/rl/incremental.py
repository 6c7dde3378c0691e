"""The observation's table part, kept up to date from one state to the next.

An RL loop encodes a chain of states in which each differs from the one before in a few
places: one card left the draw pile and joined one line, the decision moved to another
seat.  A state never changes and its parts are immutable tuples, so a part that is the
*same object* as the last state's (``state.draw is last.draw``, one seat's `Player`) has the
same encoding; `TableVector` rewrites only the sections of the parts that are new objects
and keeps the rest of the vector.  A state met out of order (a tree search jumping between
branches) simply has more new parts; the result is the same vector either way
(``tests/test_rl_observations.py`` checks both against the digests of the former encoder).

The vector holds every section of ``docs/rl.md`` but ``observer`` (left at zero: the
caller sets the one-hot of the seat it encodes for, see `ObservationEncoder.encode_array`),
in the absolute seat layout: the relative layout is this vector rotated for the observer
(`ObservationEncoder.seat_view`), so that one table serves every seat.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np

from flip7ref.core.model import Player, Status
from flip7ref.core.observation_layout import POINTS_BOUND
from flip7ref.core.scoring import seat_score

if TYPE_CHECKING:
    from flip7ref.core.game import Game
    from flip7ref.core.state import State

_NO_PLAYER = Player((-1,), (-1,), cast(Status, None))
"""A seat's part before the first state: no part of it is the same object as a real seat's."""


class Layout(Protocol):
    """What a `TableVector` reads of its encoder (`flip7ref.rl.encoding.ObservationEncoder`,
    which builds one; this module does not import it back).

    Attributes:
        game: the game encoded.
        card_ids: the card kinds, in the order of each per-kind section.
        size: the observation's length.
        _starts: the first index of each section, in the order of ``docs/rl.md``.
        _status_index: each `Status`'s offset within a seat's ``status`` section.
        _kind_index: each decision kind's offset within the ``decision`` section.
    """

    game: Game
    card_ids: tuple[str, ...]
    size: int
    _starts: tuple[int, ...]
    _status_index: dict[Status, int]
    _kind_index: dict[str, int]


class TableVector:
    """The table part of the observation of the last state encoded (float64, ``size`` long),
    with the parts of that state it was computed from.

    Args:
        encoder: the `Layout` (an `ObservationEncoder`) whose sections are filled.

    Attributes:
        vector: the float64 array; valid for `state` only, rewritten in place by `update`
            (callers copy it, e.g. ``vector.astype(np.float32)``).
        state: the state `vector` encodes (None before the first `update`).
    """

    def __init__(self, encoder: Layout) -> None:
        self._enc = encoder
        self._clip = clip_points
        self._c = len(encoder.card_ids)
        self._players = encoder.game.players
        self.forget()

    def forget(self) -> None:
        """Start afresh: the next `update` writes every section (after an error half-way
        through an update, the vector and the parts it remembers would disagree)."""
        self.vector: np.ndarray[Any, np.dtype[np.float64]] = np.zeros(self._enc.size, dtype=np.float64)
        self.state: State | None = None
        # the parts of `state`, held (so that no new object can reuse their ids)
        self._draw: object = None
        self._discard: object = None
        self._frames: object = None
        self._seats: list[Player] = [_NO_PLAYER] * self._players
        self._scored: tuple[object, object] = (object(), object())  # (flip7, bonus_to) the line values were scored with
        self._totals: object = None
        self._draw_counts = [0.0] * self._c
        self._held = [0.0] * self._c  # the set-aside counts written
        self._flags: list[int] = []  # the one-hot positions set last time (decision, card, to_act, dealer, turn)
        self._moved: tuple[object, ...] = ()  # (winners, turn, dealer) the flags were set for
        self._players_seen: object = None
        self._round = -1

    def update(self, state: State) -> np.ndarray[Any, np.dtype[np.float64]]:
        """`vector` made the table part of ``state`` (the sections of new parts rewritten).

        Raises:
            whatever reading ``state`` raises (an unknown decision kind: KeyError); the
            vector is then forgotten (`forget`), so the next call starts afresh.
        """
        if state is self.state:
            return self.vector
        try:
            return self._update(state)
        except BaseException:
            self.forget()
            raise

    def _update(self, state: State) -> np.ndarray[Any, np.dtype[np.float64]]:
        enc, vec, c, clip = self._enc, self.vector, self._c, self._clip
        unseen, discard, aside, lines, kept, status, totals, values, decision, decision_card, to_act, _observer, \
            dealer, turn, round_at = enc._starts
        draw = state.draw
        if draw is not self._draw:
            old = self._draw
            counts = self._draw_counts
            if isinstance(old, tuple) and len(draw) == len(old) - 1 and draw == old[1:]:
                counts[old[0]] -= 1.0  # the commonest change: the top card drawn
                vec[unseen + old[0]] = counts[old[0]]
            else:
                counts = self._draw_counts = _counts(draw, c)
                vec[unseen : unseen + c] = counts
            self._draw = draw
        if state.discard is not self._discard:
            self._discard = state.discard
            vec[discard : discard + c] = _counts(state.discard, c)
        frames = state.frames
        same_frames = frames is self._frames
        if not same_frames:
            # "set aside": the cards pending work holds, the zone `State.cards_in_play` counts beyond the others
            self._frames = frames
            held = [0.0] * c
            for frame in frames:
                for code in frame.held_cards():
                    held[code] += 1.0
            if held != self._held:
                vec[aside : aside + c] = held
                self._held = held
        game, flip7, bonus_to = enc.game, state.flip7, state.bonus_to
        rescore = (flip7, bonus_to) != self._scored
        self._scored = (flip7, bonus_to)
        seats = self._seats
        status_of = enc._status_index
        players = state.players
        if players is self._players_seen and not rescore:
            players = ()  # the same seats as last time (a chance or a decision that moved no card)
        self._players_seen = state.players
        for seat, player in enumerate(players):
            before = seats[seat]
            if player is before and not rescore:
                continue
            line = player.line
            if line is not before.line:
                at = lines + seat * c
                old = before.line
                if len(line) == len(old) + 1 and line[:-1] == old:  # the commonest change: one card added
                    vec[at + line[-1]] += 1.0
                else:
                    vec[at : at + c] = _counts(line, c)
            if player.kept is not before.kept:
                vec[kept + seat * c : kept + seat * c + c] = _counts(player.kept, c)
            if player.status is not before.status:
                at = status + seat * 4
                if before.status is not None:
                    vec[at + status_of[before.status]] = 0.0
                vec[at + status_of[player.status]] = 1.0
            # State.line_value without its seat check (the seat comes from the state itself)
            vec[values + seat] = clip(seat_score(game, seat, line, player.status is Status.BUSTED, flip7, bonus_to))
            seats[seat] = player
        if state.totals is not self._totals:
            self._totals = state.totals
            vec[totals : totals + self._players] = [clip(t) for t in state.totals]
        # the decision, its card and the seat to act follow from the frames, the winners and the turn
        moved = (state.winners, state.turn, state.dealer)
        if not same_frames or moved != self._moved:
            self._moved = moved
            kind, card = state.pending()
            flags = [decision + enc._kind_index[kind], dealer + state.dealer, turn + state.turn]
            if card is not None:
                flags.append(decision_card + game.codes[card])
            who = state.current_player
            if 0 <= who < self._players:
                flags.append(to_act + who)
            if flags != self._flags:
                for at in self._flags:
                    vec[at] = 0.0
                for at in flags:
                    vec[at] = 1.0
                self._flags = flags
        if state.round != self._round:
            self._round = state.round
            vec[round_at] = clip(state.round)
        self.state = state
        return vec


def _counts(pile: tuple[int, ...], c: int) -> list[float]:
    """Cards of each of the ``c`` kinds in ``pile`` (card codes), as floats."""
    counts = [0.0] * c
    for code in pile:
        counts[code] += 1.0
    return counts


def clip_points(value: int) -> float:
    """``value`` as a float, clipped to +-`POINTS_BOUND` (points and the round in an observation)."""
    if -POINTS_BOUND <= value <= POINTS_BOUND:
        return float(value)
    return float(POINTS_BOUND if value > 0 else -POINTS_BOUND)
