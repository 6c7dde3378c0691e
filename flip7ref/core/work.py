"""The scratch copy a transition works on, and the base class of the frames on its stack.

`State.apply` and `State.apply_chance` copy the state into a `Work` (``State._work``),
run the rules on it (`flip7ref.core.engine`, the frames, the primitives) and freeze the
result into a new `State` (``State._freeze``: `flip7ref.core.state` sits above this
module).  A `Work` is the only mutable thing in the interpreter, and it lives for one
transition.  When compiled with mypyc it is a native class with
typed attributes.

A `Work` holds the pending-work stack, and each frame on it acts on the `Work` that holds
it, so the frames' base class `Frame` (the protocol's defaults and value semantics) lives here
too; `flip7ref.core.frames` re-exports it beside the registry, the decision kinds and the JSON
form (a module cannot import itself back: issue 43).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partialmethod
from typing import TYPE_CHECKING, Any, ClassVar

from mypy_extensions import mypyc_attr

from flip7ref.core import events
from flip7ref.core.lines import bar_lasts
from flip7ref.core.model import Action, Event, Player, Status, make_player

if TYPE_CHECKING:
    from flip7ref.core.game_tables import GameTables


@mypyc_attr(allow_interpreted_subclasses=True)  # a plug-in primitive's frames subclass it in Python (docs/core.md)
class Frame:
    """Base of the frame classes: the protocol's defaults, and value semantics from
    ``FIELDS`` (equality, hashing, ``repr``, pickling).

    A frame is an immutable value: its fields are set once, by its constructor (``Final``
    in the interpreter's frames: read-only in the compiled build; the pure build's
    ``__setattr__`` refuses to set a field again), and the pending-work stack shares frames
    between states (`flip7ref.core.engine.draw_frame`).

    Class attributes: ``name`` (the frame's kind, ``Deal.name == "deal"``), ``FIELDS``
    (the field names in constructor order), ``KINDS`` (each field's type as text:
    ``int``, ``str``, ``tuple[int, ...]``, ``tuple[target, ...]`` (seats or -1),
    ``tuple[tuple[int, int, int], ...]``),
    ``CARD_FIELDS`` / ``CARD_LISTS`` (the fields holding one card code / a tuple of
    them, written as card ids in the JSON form), ``automatic`` (True for a frame that
    settling always takes off the top: never the top of a settled stack).
    """

    name: ClassVar[str] = ""
    FIELDS: ClassVar[tuple[str, ...]] = ()
    KINDS: ClassVar[tuple[str, ...]] = ()
    CARD_FIELDS: ClassVar[tuple[str, ...]] = ("card",)
    CARD_LISTS: ClassVar[tuple[str, ...]] = ("set_aside", "cards")
    automatic: ClassVar[bool] = False

    def key(self) -> tuple[Any, ...]:
        """The field values in ``FIELDS`` order."""
        return tuple(getattr(self, f) for f in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and isinstance(other, Frame) and self.key() == other.key()

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash((self.name, self.key()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{f}={v!r}" for f, v in zip(self.FIELDS, self.key(), strict=True))
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), self.key())

    def decider(self) -> int:
        """The seat to decide, or `CHANCE` when a card must be drawn for this frame."""
        raise AssertionError(f"unsettled frame on top: {self!r}")  # pragma: no cover - settling never stops here

    def legal(self, game: GameTables, players: Sequence[Player]) -> list[Action]:
        """The legal actions at this frame, in a stable order (none at a chance node)."""
        return []

    def pending(self, game: GameTables) -> tuple[str, str | None]:
        """``(kind, card id)``: what the decision is about (see ``State.pending``)."""
        return ("chance", None)

    def decide(self, w: Work, act: Action) -> None:
        """Carry out the legal action ``act`` (the frame is already popped off ``w``)."""
        raise AssertionError(self)  # pragma: no cover - legal_actions guards this

    def reveal(self, w: Work, code: int) -> None:
        """Take the drawn card ``code`` (the frame is already popped off ``w``)."""
        raise AssertionError(self)  # pragma: no cover - chance nodes are draws

    def settle(self, w: Work) -> bool:
        """Take one automatic step with this frame on top of ``w``'s stack.

        Returns:
            True when a step was taken (settling goes on); False when the frame
            waits for a decision or a drawn card.
        """
        return False

    def held_cards(self) -> tuple[int, ...]:
        """The card codes this frame holds (on no other zone)."""
        return ()

    def end_with_round(self, w: Work) -> None:
        """The round ends with this frame pending: its cards are discarded (F7-052, D-V-09)."""
        held = self.held_cards()
        for c in held:
            w.emit(events.discarded(w.cid(c), None, "round ended"))
        w.to_discard(*held)

    def exhaust(self, w: Work) -> None:
        """No card is left anywhere to draw for this frame (F7-115, ``empty_deck: stop-drawing``)."""

    def check(self, game: GameTables, players: int) -> tuple[str, str] | None:
        """What is wrong with this frame as part of a position of ``game`` with ``players``
        seats, beyond its field types and seat fields (which `flip7ref.core.position` checks
        for every frame): ``(field, expected)``, e.g. ``("card", "an action card")``, or
        None when nothing is.  `flip7ref.core.position.check_state` words the error."""
        return None


class Work:
    """A mutable copy of a `State` used while one transition runs (the same fields, in
    lists where they change, the draw and discard piles tuples that are replaced, not
    copied in and out), plus the events emitted so far."""

    # state-fields: work-fields
    game: GameTables
    players: list[Player]
    draw: tuple[int, ...]
    discard: tuple[int, ...]
    frames: list[Frame]
    dealer: int
    turn: int
    round: int
    totals: list[int]
    last_scores: tuple[int, ...]
    flip7: int | None
    round_over: bool
    winners: tuple[int, ...]
    shuffle_seed: str | None
    shuffles: int
    bonus_to: int | None
    round_shuffles: int
    shuffle_mark: int
    # state-fields: end
    events: list[Event]

    # state-fields: work-init
    def __init__(
        self, game: GameTables, players: list[Player], draw: tuple[int, ...], discard: tuple[int, ...], frames: list[Frame],
        dealer: int, turn: int, round: int, totals: list[int], last_scores: tuple[int, ...], flip7: int | None, round_over: bool,
        winners: tuple[int, ...], shuffle_seed: str | None, shuffles: int, bonus_to: int | None, round_shuffles: int,
        shuffle_mark: int,
    ) -> None:
        self.game = game
        self.players = players
        self.draw = draw
        self.discard = discard
        self.frames = frames
        self.dealer = dealer
        self.turn = turn
        self.round = round
        self.totals = totals
        self.last_scores = last_scores
        self.flip7 = flip7
        self.round_over = round_over
        self.winners = winners
        self.shuffle_seed = shuffle_seed
        self.shuffles = shuffles
        self.bonus_to = bonus_to
        self.round_shuffles = round_shuffles
        self.shuffle_mark = shuffle_mark
        # state-fields: end
        self.events = []

    # state-fields: work-round
    def round_closed(self) -> None:
        """Set what a round's close sets (``round_close`` in the table; `flip7ref.core.engine.end_round`)."""
        self.flip7 = None
        self.round_over = False
        self.bonus_to = None

    def round_opened(self) -> None:
        """Set what a round's opening sets (``round_open`` in the table; `flip7ref.core.engine.start_round`)."""
        self.round_shuffles = 0
        self.shuffle_mark = -1
    # state-fields: end

    def emit(self, event: Event) -> None:
        """Record ``event`` (built by its constructor in `flip7ref.core.events`)."""
        self.events.append(event)

    def cid(self, code: int) -> str:
        """The card id of ``code``."""
        return self.game.card_ids[code]

    def set_line(self, seat: int, line: tuple[int, ...]) -> None:
        """Give ``seat`` the line ``line`` (card codes), keeping its kept cards and status;
        a barred seat whose line loses The Zero is freed of the bar (V-037, D-V-26: decided
        by `flip7ref.core.lines.bar_lasts`)."""
        p = self.players[seat]
        barred = p.flip7_barred and bar_lasts(self.game, line)
        self.players[seat] = make_player((line, p.kept, p.status, barred))

    def set_kept(self, seat: int, kept: tuple[int, ...]) -> None:
        """Give ``seat`` the kept cards ``kept`` (card codes), keeping its line and status."""
        p = self.players[seat]
        self.players[seat] = make_player((p.line, kept, p.status, p.flip7_barred))

    def set_status(self, seat: int, status: Status) -> None:
        """Give ``seat`` the `Status` ``status``, keeping its cards."""
        p = self.players[seat]
        self.players[seat] = make_player((p.line, p.kept, status, p.flip7_barred))

    def bar_flip7(self, seat: int) -> None:
        """Bar ``seat``'s Flip 7 for the rest of the round (D-V-26), keeping its cards and status."""
        p = self.players[seat]
        self.players[seat] = make_player((p.line, p.kept, p.status, True))

    def to_discard(self, *codes: int) -> None:
        """Put the cards ``codes`` on the discard pile, in that order."""
        if codes:
            self.discard += codes

    def next_seat(self, seat: int) -> int:
        """The seat on ``seat``'s left (seats are numbered clockwise)."""
        return (seat + 1) % len(self.players)

def guard_fields(cls: type[Frame]) -> None:
    """Make the frame class ``cls`` immutable as the interpreter's frames are, if it is a Python
    class (a plug-in's, also in the compiled build): setting a field again, or any other
    attribute, raises ``AttributeError`` (`flip7ref.core.frames.register_frame` calls it)."""
    # a class whose instances hold a __dict__ (not a native class of the compiled build, whose
    # fields are Final already), with no rule of its own for attributes and not already
    # guarded (the pure build's Frame is): a plug-in's class in the compiled build, where the
    # guards are compiled functions, which bind to an instance only through partialmethod
    if cls.__dictoffset__ and "__setattr__" not in vars(cls) and cls.__setattr__ is not _set_once:
        cls.__setattr__ = partialmethod(_set_once)  # type: ignore[assignment,method-assign]
        cls.__delattr__ = partialmethod(_refuse_deletion)  # type: ignore[assignment,method-assign]


def _set_once(self: Frame, name: str, value: object) -> None:
    """The ``__setattr__`` of a frame that is a Python class: its constructor sets each of
    its ``FIELDS`` once; nothing else is set, as the compiled build's ``Final`` fields."""
    fields = self.__dict__  # a frame's fields are plain instance attributes (no descriptors)
    if name in fields or name not in type(self).FIELDS:
        what = "set" if name in fields else "add"
        raise AttributeError(f"{type(self).__name__} is immutable: cannot {what} {name!r} (frames are values)")
    fields[name] = value


def _refuse_deletion(self: Frame, name: str) -> None:
    raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")


if __file__.endswith(".py"):  # the pure build: every frame class is a Python class
    Frame.__setattr__ = _set_once  # type: ignore[method-assign,assignment]
    Frame.__delattr__ = _refuse_deletion  # type: ignore[method-assign,assignment]
