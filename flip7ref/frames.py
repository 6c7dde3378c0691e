"""The pending-work stack's frames: the protocol every frame follows, and their registry.

A state's pending work is a stack of frames, bottom first (the deal under way, a
card to draw, a Flip Three in progress, a target to choose...).  Each frame kind
is a frozen attrs class registered under its ``name`` with `frame_kind`; its
module owns its rules (`flip7ref.engine`: the deal, a draw, the Brutal Mode
choice; `flip7ref.targets`: choosing a target; `flip7ref.primitives`: the frames of
each primitive).  The protocol (methods of `Frame`, each with a default):

- `Frame.decider`: who acts on it: a seat, or `CHANCE` for a card to draw;
- `Frame.legal`: the legal actions it offers, in a stable order;
- `Frame.pending`: what the decision is about (``State.pending``);
- `Frame.decide` / `Frame.reveal`: a decision or a drawn card taken on it (popped first);
- `Frame.settle`: an automatic step while it is on top (True when one was taken);
- `Frame.held_cards`: the card codes it holds (card conservation, the end of a round);
- `Frame.end_with_round`: what becomes of it when the round ends (F7-052, D-V-09);
- `Frame.exhaust`: what an empty deck and discard pile make of a draw (F7-115).

`frame_to_dict` and `frame_from_dict` give the JSON form (``{"frame": name, field:
value...}``, card codes as ids).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

import attrs
from mypy_extensions import mypyc_attr  # native_class=False: stays a plain Python class when compiled (docs/build.md)

from . import events
from .model import Action, Player

if TYPE_CHECKING:
    from .game import Game
    from .work import Work


@mypyc_attr(native_class=False)
class Frame:
    """Base of the frame classes.  ``name`` is the frame's kind (``Deal.name == "deal"``),
    a class attribute set by `frame_kind` (mypyc records class-body attributes as
    annotations, which attrs would take for fields)."""

    __slots__ = ()
    name: ClassVar[str]

    def decider(self) -> int:
        """The seat to decide, or `CHANCE` when a card must be drawn for this frame."""
        raise AssertionError(f"unsettled frame on top: {self!r}")  # pragma: no cover - settling never stops here

    def legal(self, game: Game, players: Sequence[Player]) -> list[Action]:
        """The legal actions at this frame, in a stable order (none at a chance node)."""
        return []

    def pending(self, game: Game) -> tuple[str, str | None]:
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


_FrameClass = TypeVar("_FrameClass", bound=type[Frame])
FRAME_TYPES: dict[str, type[Frame]] = {}
"""Every frame class by its ``name`` (filled as the modules that own them load)."""


def frame_kind(name: str) -> Callable[[_FrameClass], _FrameClass]:
    """Class decorator: name a frame class and register it in `FRAME_TYPES`."""

    def named(cls: _FrameClass) -> _FrameClass:
        cls.name = name
        FRAME_TYPES[name] = cls
        return cls

    return named


_CARD_FIELDS = ("card",)
_CARD_LISTS = ("set_aside", "cards")


def frame_to_dict(f: Frame, ids: Sequence[str]) -> dict[str, Any]:
    """The JSON form of a frame: ``{"frame": name, field: value...}``, cards as ids."""
    data: dict[str, Any] = {"frame": f.name}
    for field in attrs.fields(cast(Any, type(f))):
        value = getattr(f, field.name)
        if field.name in _CARD_FIELDS:
            value = ids[value]
        elif field.name in _CARD_LISTS:
            value = [ids[c] for c in value]
        elif field.name == "items":
            value = [[ids[c], t, ch] for c, t, ch in value]
        elif isinstance(value, tuple):
            value = list(value)
        data[field.name] = value
    return data


def frame_from_dict(cls: type[Frame], data: Any, code: Callable[[object, str], int], where: str) -> Frame:
    """Rebuild a frame of class ``cls`` from `frame_to_dict` output; ``code(name, where)``
    turns a card id into its code (raising for an unknown card).

    Raises:
        KeyError, TypeError, ValueError: a missing or malformed field (the caller words the error).
    """
    kwargs: dict[str, Any] = {}
    for field in attrs.fields(cast(Any, cls)):
        value = data[field.name]
        if field.name in _CARD_FIELDS:
            value = code(value, f"{where}/card")
        elif field.name in _CARD_LISTS:
            value = tuple(code(c, f"{where}/{field.name}") for c in value)
        elif field.name == "items":
            value = tuple((code(c, f"{where}/items"), int(t), int(ch)) for c, t, ch in value)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[field.name] = value
    return cls(**kwargs)
