"""The pending-work stack's frames: the protocol every frame follows, and their registry.

The base class `Frame` lives in `flip7ref.core.work` beside the `Work` whose stack holds
the frames and on which they act (a module cannot import itself back: issue 43); this module
re-exports it and holds the registry, the decision kinds and a frame's JSON form.

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
from typing import TYPE_CHECKING, Any

from flip7ref.core.errors import SerializationError
from flip7ref.core.work import Frame as Frame  # re-exported: the frame base class lives beside Work
from flip7ref.core.work import guard_fields

if TYPE_CHECKING:
    from flip7ref.core.game_tables import GameTables


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
    guard_fields(cls)


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
