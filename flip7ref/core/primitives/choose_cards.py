"""The card-picking primitives' shared decision (Swap, Steal, Discard; V-045..V-048).

A `CardPick` effect played on a seat opens a `ChooseCards` frame: its ``chooser``
picks the card(s) the action moves; the primitive lists the legal picks
(`CardPick.choices`) and carries the pick out (`CardPick.move`); the action card
is then discarded (V-040).  With no legal pick left the card is discarded unused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, cast

import attrs
from mypy_extensions import mypyc_attr  # native_class=False: stays a plain Python class when compiled (docs/build.md)

from flip7ref.core import events
from flip7ref.core.frames import Frame, action_card, register_frame
from flip7ref.core.model import Action, Player
from flip7ref.core.primitives.base import Effect

if TYPE_CHECKING:
    from flip7ref.core.game_tables import GameTables
    from flip7ref.core.work import Work


@mypyc_attr(native_class=False)
@attrs.frozen
class CardPick(Effect):
    """Base of the effects that move cards of lines (Swap, Steal, Discard)."""

    def picker(self, chooser: int, seat: int) -> int:
        """Who picks the cards when ``chooser`` played the card on ``seat`` (default: ``seat``)."""
        return seat

    def play(self, w: Work, code: int, chooser: int, seat: int) -> None:
        w.frames.append(ChooseCards(code, self.picker(chooser, seat), seat))

    def choices(self, game: GameTables, players: Sequence[Player], frame: ChooseCards) -> list[Action]:
        """The legal picks at ``frame``, in a stable order."""
        raise NotImplementedError  # pragma: no cover - every card-picking primitive defines it

    def move(self, w: Work, frame: ChooseCards, act: Action) -> None:
        """Carry out the pick ``act``."""
        raise NotImplementedError  # pragma: no cover


def take(w: Work, seat: int, index: int) -> int:
    """Remove and return card ``index`` of ``seat``'s line."""
    line = list(w.players[seat].line)
    code = line.pop(index)
    w.set_line(seat, tuple(line))
    return code


def effect_of(game: GameTables, code: int) -> CardPick:
    """The effect of the card-picking card ``code`` (a ``choose_cards`` frame holds no other)."""
    # a cast, not an isinstance check: compiled code checks a class against the one mypyc
    # built, and the subclasses of another module derive from the class attrs made of it
    return cast(CardPick, game.effect[code])


class ChooseCards(Frame):
    """A decision: ``chooser`` picks the card(s) a Swap, Steal or Discard moves.

    Attributes:
        card: the action card being resolved.
        chooser: who picks.
        resolver: the player the action was played on (who swaps, steals or discards).
    """

    name: ClassVar[str] = "choose_cards"
    FIELDS: ClassVar[tuple[str, ...]] = ("card", "chooser", "resolver")
    KINDS: ClassVar[tuple[str, ...]] = ("int", "int", "int")

    card: Final[int]
    chooser: Final[int]
    resolver: Final[int]

    def __init__(self, card: int, chooser: int, resolver: int) -> None:
        self.card = card
        self.chooser = chooser
        self.resolver = resolver

    def key(self) -> tuple[Any, ...]:
        return (self.card, self.chooser, self.resolver)

    def decider(self) -> int:
        return self.chooser

    def legal(self, game: GameTables, players: Sequence[Player]) -> list[Action]:
        return effect_of(game, self.card).choices(game, players, self)

    def pending(self, game: GameTables) -> tuple[str, str | None]:
        return ("cards", game.card_ids[self.card])

    def check(self, game: GameTables, players: int) -> tuple[str, str] | None:
        return action_card(game, self.card)

    def decide(self, w: Work, act: Action) -> None:
        effect_of(w.game, self.card).move(w, self, act)
        w.to_discard(self.card)  # V-040

    def settle(self, w: Work) -> bool:
        if self.legal(w.game, w.players):
            return False
        w.frames.pop()
        w.to_discard(self.card)
        w.emit(events.discarded(w.cid(self.card), self.resolver, "no valid target"))
        return True

    def held_cards(self) -> tuple[int, ...]:
        return (self.card,)


register_frame(ChooseCards)
