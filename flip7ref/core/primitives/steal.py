"""Primitive ``steal`` (Steal, V-046): take a card of another line into one's own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs
from mypy_extensions import mypyc_attr  # native_class=False: stays a plain Python class when compiled (docs/build.md)

from flip7ref.core import events
from flip7ref.core.model import Action, Player
from flip7ref.core.primitives.base import primitive
from flip7ref.core.primitives.choose_cards import CardPick, ChooseCards, take
from flip7ref.core.targets import enter, faceup

if TYPE_CHECKING:
    from flip7ref.core.game_tables import GameTables
    from flip7ref.core.work import Work


@primitive("steal", verbs={"steal": 2})
@mypyc_attr(native_class=False)
@attrs.frozen
class Steal(CardPick):
    """The resolver takes card I of seat S's line (V-046); it enters their line under the
    receiving rules (V-037).  Only with another line showing cards (V-048)."""

    def executable(self, game: GameTables, players: Sequence[Player], resolver: int) -> bool:
        return any(s != resolver for s in faceup(game, players))

    def choices(self, game: GameTables, players: Sequence[Player], frame: ChooseCards) -> list[Action]:
        me = frame.resolver
        return [Action("steal", (s, i)) for s in faceup(game, players) if s != me for i in range(len(players[s].line))]

    def move(self, w: Work, frame: ChooseCards, act: Action) -> None:
        seat, index = act.args
        code = take(w, seat, index)
        w.emit(events.stolen(frame.resolver, w.cid(code), seat))
        enter(w, code, frame.resolver, index)  # V-087: where it lies, `entry_place`

    def helps_target(self) -> bool:
        return True
