"""Primitive ``discard_card`` (Discard, V-047): a card of the resolver's line goes to the discard pile."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs
from mypy_extensions import mypyc_attr  # native_class=False: stays a plain Python class when compiled (docs/build.md)

from flip7ref.core import events
from flip7ref.core.model import Action, Player
from flip7ref.core.primitives.base import primitive
from flip7ref.core.primitives.choose_cards import CardPick, ChooseCards, take
from flip7ref.core.targets import faceup

if TYPE_CHECKING:
    from flip7ref.core.game_tables import GameTables
    from flip7ref.core.work import Work


@primitive("discard_card", verbs={"discard": 2})
@mypyc_attr(native_class=False)
@attrs.frozen
class DiscardCard(CardPick):
    """Discard card I of the resolver's line (V-047); only when their line shows cards (V-048).

    Attributes:
        chooser: who picks the card: ``giver`` (who played the Discard) or
            ``recipient`` (D-V-11).
    """

    chooser: str = "giver"

    def picker(self, chooser: int, seat: int) -> int:
        return chooser if self.chooser == "giver" else seat

    def executable(self, game: GameTables, players: Sequence[Player], resolver: int) -> bool:
        return resolver in faceup(game, players)

    def choices(self, game: GameTables, players: Sequence[Player], frame: ChooseCards) -> list[Action]:
        me = frame.resolver
        return [Action("discard", (me, i)) for i in range(len(players[me].line))]

    def move(self, w: Work, frame: ChooseCards, act: Action) -> None:
        seat, index = act.args
        code = take(w, seat, index)
        w.to_discard(code)
        w.emit(events.card_discarded(seat, w.cid(code), frame.chooser))
