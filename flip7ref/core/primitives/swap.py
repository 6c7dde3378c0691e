"""Primitive ``swap`` (Swap, V-045): exchange two cards of two lines."""

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


def _args_of(action: Action) -> tuple[int, ...]:
    return action.args


@primitive("swap", verbs={"swap": 4})
@mypyc_attr(native_class=False)
@attrs.frozen
class Swap(CardPick):
    """Swap card I of seat S with card J of seat T (V-045); both cards enter their new
    line under the receiving rules (V-037).

    Attributes:
        scope: ``any-two`` (any two lines that show cards) or ``own-and-other``
            (the resolver's and another's, D-V-10).
    """

    scope: str = "any-two"

    def executable(self, game: GameTables, players: Sequence[Player], resolver: int) -> bool:
        shown = faceup(game, players)
        if self.scope == "own-and-other":
            return resolver in shown and len(shown) >= 2
        return len(shown) >= 2

    def choices(self, game: GameTables, players: Sequence[Player], frame: ChooseCards) -> list[Action]:
        shown = faceup(game, players)
        me = frame.resolver
        out: list[Action] = []
        for a in shown:
            for b in shown:
                if b <= a or (self.scope == "own-and-other" and me not in (a, b)):
                    continue
                out.extend(Action("swap", (a, i, b, j)) for i in range(len(players[a].line)) for j in range(len(players[b].line)))
        out.sort(key=_args_of)  # all are swaps: the order of Action (verb, then args) is the order of args
        return out

    def move(self, w: Work, frame: ChooseCards, act: Action) -> None:
        a, i, b, j = act.args
        ids = w.game.card_ids
        ca, cb = w.players[a].line[i], w.players[b].line[j]
        take(w, a, i)
        take(w, b, j)
        w.emit(events.swapped(frame.resolver, a, ids[ca], b, ids[cb]))
        enter(w, cb, a, i)  # V-087: where it lies, `entry_place`
        enter(w, ca, b, j)

    def helps_target(self) -> bool:
        return True
