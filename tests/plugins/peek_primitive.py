"""A primitive from outside the package: Peek, "look at the top card, then keep it or discard it".

Importing this module registers everything the primitive brings, through the public
registries of flip7ref (nothing in the package names it):

- the primitive ``peek`` (`Peek`, an effect without parameters of its own), with its
  two verbs ``peek_keep`` and ``peek_discard`` and its decision kind ``peek``;
- its frame ``peek`` (`PeekTop`): first a chance node (the top card of the draw pile
  is revealed to the receiver), then the receiver's decision; its ``check`` holds its
  position checks (used by ``State.from_dict``);
- its four events (``peeked``, ``peek_kept``, ``peek_discarded``, ``peek_empty``)
  with their texts.

An edition table then names it like a shipped primitive: ``effect: {primitive: peek}``
(see ``peek.yaml`` beside this file).

The rules of the card (a house rule, for the test): the player who receives Peek
looks at the top card of the draw pile.  Keeping it, the card arrives for them as if
drawn (numbers may bust or make a Flip 7, an action card is resolved); discarding
it, it goes to the discard pile.  Either way Peek is then discarded.  With the draw
pile empty Peek does nothing and is discarded.  Played on a seat (set aside in a Flip
Three and assigned), the chosen seat peeks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from flip7ref.core import events
from flip7ref.core.frames import Frame, register_frame
from flip7ref.core.model import CHANCE, Action, Event, Player
from flip7ref.core.primitives import Effect, primitive
from flip7ref.core.targets import receive

if TYPE_CHECKING:
    from flip7ref.core.game import Game
    from flip7ref.core.work import Work

KEEP = Action("peek_keep")
"""Keep the card looked at: it arrives for the peeking player."""
DISCARD = Action("peek_discard")
"""Put the card looked at on the discard pile."""


# --------------------------------------------------------------------------- events


def peeked(seat: int, card: str, top: str) -> Event:
    """``seat`` looks at ``top``, the top card of the draw pile, with the Peek ``card``."""
    return events.make("peeked", ("seat", seat), ("card", card), ("top", top))


def peek_kept(seat: int, card: str) -> Event:
    """``seat`` keeps ``card``, the card they looked at (it arrives for them)."""
    return events.make("peek_kept", ("seat", seat), ("card", card))


def peek_discarded(seat: int, card: str) -> Event:
    """``seat`` puts ``card``, the card they looked at, on the discard pile."""
    return events.make("peek_discarded", ("seat", seat), ("card", card))


def peek_empty(seat: int, card: str) -> Event:
    """``seat``'s Peek ``card`` finds no card to look at: the draw pile is empty."""
    return events.make("peek_empty", ("seat", seat), ("card", card))


@events.event_text("peeked")
def _peeked(e: Event, g: Game, lang: str) -> str:
    top = events.card_name(g, e.get("top"), lang)
    return f"seat {e.get('seat')} peeks with {events.card_name(g, e.get('card'), lang)} and sees {top}"


@events.event_text("peek_kept")
def _peek_kept(e: Event, g: Game, lang: str) -> str:
    return f"seat {e.get('seat')} keeps {events.card_name(g, e.get('card'), lang)}"


@events.event_text("peek_discarded")
def _peek_discarded(e: Event, g: Game, lang: str) -> str:
    return f"seat {e.get('seat')} discards {events.card_name(g, e.get('card'), lang)} unseen by the others"


@events.event_text("peek_empty")
def _peek_empty(e: Event, g: Game, lang: str) -> str:
    return f"seat {e.get('seat')}'s {events.card_name(g, e.get('card'), lang)} finds the draw pile empty"


# --------------------------------------------------------------------------- the primitive


@primitive(
    "peek",
    verbs={"peek_keep": 0, "peek_discard": 0},
    decisions={"peek": "looks at {card} on top of the draw pile and chooses {move}"},
)
@attrs.frozen
class Peek(Effect):
    """Look at the top card of the draw pile, then keep it or discard it (no parameters
    beyond an effect's ``targets`` and ``self_target``, used when it is assigned)."""

    def receive(self, w: Work, code: int, seat: int) -> None:
        """The receiver peeks at once (no target to choose)."""
        self.play(w, code, seat, seat)

    def play(self, w: Work, code: int, chooser: int, seat: int) -> None:
        """``seat`` peeks with card ``code``: a chance node reveals the top card to them;
        with the draw pile empty nothing happens and Peek is discarded."""
        if not w.draw:
            w.to_discard(code)
            w.emit(peek_empty(seat, w.cid(code)))
            return
        w.frames.append(PeekTop(code, seat, ()))


def _is_peek(game: Game, code: int) -> bool:
    return isinstance(game.effect[code], Peek)


class PeekTop(Frame):
    """Peek in progress: ``card`` (the Peek card) held for ``seat``; ``top`` is empty until
    the top card is revealed (a chance node), then holds it (``seat``'s decision).

    Attributes:
        card: the Peek card's code.
        seat: the peeking seat.
        top: ``()``, or the code of the card looked at.
    """

    name: ClassVar[str] = "peek"
    FIELDS: ClassVar[tuple[str, ...]] = ("card", "seat", "top")
    KINDS: ClassVar[tuple[str, ...]] = ("int", "int", "tuple[int, ...]")
    CARD_LISTS: ClassVar[tuple[str, ...]] = ("top",)

    card: int
    seat: int
    top: tuple[int, ...]

    def __init__(self, card: int, seat: int, top: tuple[int, ...]) -> None:
        self.card = card
        self.seat = seat
        self.top = top

    def key(self) -> tuple[Any, ...]:
        return (self.card, self.seat, self.top)

    def decider(self) -> int:
        return self.seat if self.top else CHANCE

    def legal(self, game: Game, players: Sequence[Player]) -> list[Action]:
        return [KEEP, DISCARD] if self.top else []

    def pending(self, game: Game) -> tuple[str, str | None]:
        if not self.top:
            return ("chance", None)
        return ("peek", game.card_ids[self.top[0]])

    def reveal(self, w: Work, code: int) -> None:
        w.frames.append(PeekTop(self.card, self.seat, (code,)))
        w.emit(peeked(self.seat, w.cid(self.card), w.cid(code)))

    def decide(self, w: Work, act: Action) -> None:
        (top,) = self.top
        w.to_discard(self.card)
        if act == KEEP:
            w.emit(peek_kept(self.seat, w.cid(top)))
            receive(w, top, self.seat)  # as if drawn: the receiving rules of flip7ref.core.targets
        else:
            w.to_discard(top)
            w.emit(peek_discarded(self.seat, w.cid(top)))

    def settle(self, w: Work) -> bool:
        if self.top or w.draw:
            return False
        w.frames.pop()  # the pile emptied under a pending Peek (never in play: it is settled at once)
        w.to_discard(self.card)
        w.emit(peek_empty(self.seat, w.cid(self.card)))
        return True

    def held_cards(self) -> tuple[int, ...]:
        return (self.card, *self.top)

    def check(self, game: Game, players: int) -> tuple[str, str] | None:
        if not _is_peek(game, self.card):
            return ("card", "a Peek card")
        if len(self.top) > 1:
            return ("top", "at most one card (the one looked at)")
        return None


register_frame(PeekTop)
