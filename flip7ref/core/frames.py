"""The pending-work stack's frames: the protocol every frame follows, and their registry.

A state's pending work is a stack of frames, bottom first (the deal under way, a
card to draw, a Flip Three in progress, a target to choose...).  Each frame kind
is a small value class (a native class when compiled with mypyc) registered under
its ``name`` with `register_frame`; its fields are listed in ``FIELDS`` (the
constructor's order) with their kinds in ``KINDS``; frames are values: equal when
their kind and fields are, hashable, never changed once made.  Its module owns
its rules (`flip7ref.core.engine`: the deal, a draw, the Brutal Mode choice;
`flip7ref.core.targets`: choosing a target; `flip7ref.core.primitives`: the frames of each
primitive).  The protocol (methods of `Frame`, each with a default):

- `Frame.decider`: who acts on it: a seat, or `CHANCE` for a card to draw;
- `Frame.legal`: the legal actions it offers, in a stable order;
- `Frame.pending`: what the decision is about (``State.pending``);
- `Frame.decide` / `Frame.reveal`: a decision or a drawn card taken on it (popped first);
- `Frame.settle`: an automatic step while it is on top (True when one was taken);
- `Frame.held_cards`: the card codes it holds (card conservation, the end of a round);
- `Frame.end_with_round`: what becomes of it when the round ends (F7-052, D-V-09);
- `Frame.exhaust`: what an empty deck and discard pile make of a draw (F7-115);
- `Frame.check`: what a serialized frame of the kind must satisfy beyond its field
  types (the position checks of `flip7ref.core.position` call it); ``automatic`` frames
  (the deal under way, a queue to resolve) are never on top of a settled stack.

A frame kind's decision has a *kind* (the first item of `Frame.pending`); the kinds
beyond the interpreter's own are registered with `register_decision_kind`, with the
words that say what is decided (`DECISION_KINDS`).

`frame_to_dict` and `frame_args` give the JSON form (``{"frame": name, field:
value...}``, card codes as ids: the fields a class names in ``CARD_FIELDS`` and
``CARD_LISTS``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partialmethod
from typing import TYPE_CHECKING, Any, ClassVar

from mypy_extensions import mypyc_attr

from flip7ref.core import events
from flip7ref.core.errors import SerializationError
from flip7ref.core.model import Action, Player

if TYPE_CHECKING:
    from flip7ref.core.game_tables import GameTables
    from flip7ref.core.work import Work


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


def action_card(game: GameTables, code: int) -> tuple[str, str] | None:
    """`Frame.check`'s answer for a frame whose ``card`` must be an action card: None when
    card ``code`` has an effect, else ``("card", "an action card")``."""
    return None if game.effect[code] is not None else ("card", "an action card")


FRAME_TYPES: dict[str, type[Frame]] = {}
"""Every frame class by its ``name`` (filled as the modules that own them load)."""


def register_frame(cls: type[Frame]) -> None:
    """Register a frame class in `FRAME_TYPES` under its ``name``.  A plug-in's frame class
    (a Python class, also in the compiled build) is made immutable as the interpreter's
    are: setting a field again, or any other attribute, raises ``AttributeError``."""
    FRAME_TYPES[cls.name] = cls
    # a class whose instances hold a __dict__ (not a native class of the compiled build, whose
    # fields are Final already), with no rule of its own for attributes and not already
    # guarded (the pure build's Frame is): a plug-in's class in the compiled build, where the
    # guards are compiled functions, which bind to an instance only through partialmethod
    if cls.__dictoffset__ and "__setattr__" not in vars(cls) and cls.__setattr__ is not _set_once:
        cls.__setattr__ = partialmethod(_set_once)  # type: ignore[assignment,method-assign]
        cls.__delattr__ = partialmethod(_refuse_deletion)  # type: ignore[assignment,method-assign]


DECISION_KINDS: dict[str, str] = {
    "offer": "is offered Hit or Stay and chooses {move}",
    "play": "chooses who gets {card}: {move}",
    "give": "must hand the spare {card} on: {move}",
    "keep_or_give": "keeps {card} or hands it on: {move}",
    "assign": "assigns the set-aside {card}: {move}",
    "cards": "picks the cards for {card}: {move}",
    "flip7_bonus": "chooses where the Flip 7 bonus goes: {move}",
    "chance": "",
    "terminal": "",
}
"""Every decision kind (the first item of ``State.pending``) with the words that follow
"seat N" when a step is explained (``{card}``: the card in question, ``{move}``: the
decision taken; empty for ``chance`` and ``terminal``, which are no decisions).  The
interpreter's own kinds come first, in this order; `register_decision_kind` adds a
primitive's."""


def register_decision_kind(kind: str, words: str) -> None:
    """Add the decision kind ``kind`` (what `Frame.pending` of a primitive's frame names)
    with ``words``, a template of what the deciding seat does (``{card}`` and ``{move}``
    may appear, see `DECISION_KINDS`).  Registering a kind again replaces its words.

    Raises:
        ValueError: ``kind`` is empty, or one of the interpreter's own kinds.
    """
    if not kind or kind in OWN_DECISION_KINDS:
        own = ", ".join(OWN_DECISION_KINDS)
        raise ValueError(f"decision kind: expected a new name, got {kind!r} (the interpreter's own: {own})")
    DECISION_KINDS[kind] = words


OWN_DECISION_KINDS: tuple[str, ...] = tuple(DECISION_KINDS)
"""The interpreter's own decision kinds, in order (``flip7ref.rl.encoding.DECISION_KINDS``)."""


def frame_to_dict(f: Frame, ids: Sequence[str]) -> dict[str, Any]:
    """The JSON form of a frame: ``{"frame": name, field: value...}``, cards as ids."""
    data: dict[str, Any] = {"frame": f.name}
    for name, value in zip(f.FIELDS, f.key(), strict=True):
        if name in f.CARD_FIELDS:
            value = ids[value]
        elif name in f.CARD_LISTS:
            value = [ids[c] for c in value]
        elif name == "items":
            value = [[ids[c], t, ch] for c, t, ch in value]
        elif isinstance(value, tuple):
            value = list(value)
        data[name] = value
    return data


def frame_args(cls: type[Frame], data: Any, code: Callable[[object, str], int], where: str) -> list[Any]:
    """The constructor arguments of a ``cls`` frame read from `frame_to_dict` output, in
    ``FIELDS`` order (cards as codes, lists as tuples); ``code(name, where)`` turns a
    card id into its code (raising for an unknown card).  The caller checks their types
    (``flip7ref.core.position.check_frame_args``) before building the frame.

    Raises:
        SerializationError: a card list (``CARD_LISTS``, ``items``) that is not a list.
        KeyError, TypeError, ValueError: a missing or malformed field (the caller words the error).
    """
    args: list[Any] = []
    for name in cls.FIELDS:
        value = data[name]
        if (name in cls.CARD_LISTS or name == "items") and not isinstance(value, list):
            # not read item by item (a string would give its letters): the caller's words
            raise SerializationError(f"state data: {where}/{name}: expected a list, got {type(value).__name__}")
        if name in cls.CARD_FIELDS:
            value = code(value, f"{where}/{name}")
        elif name in cls.CARD_LISTS:
            value = tuple(code(c, f"{where}/{name}") for c in value)
        elif name == "items":
            value = tuple((code(c, f"{where}/items"), int(t), int(ch)) for c, t, ch in value)
        elif isinstance(value, list):
            value = tuple(value)
        args.append(value)
    return args


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
