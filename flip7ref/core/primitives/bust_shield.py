"""Primitive ``bust_shield`` (Second Chance, F7-080..F7-083): a kept card that cancels a bust.

Every rule of the Second Chance lives here: keeping a first copy or giving it
away (F7-082, D-F7-09), handing a spare on to a player without one (F7-082),
and cancelling a duplicate (F7-080: both cards are discarded, the turn is over,
F7-081).  That no Second Chance carries over to the next round (F7-083) is the
round end clearing the table (`flip7ref.core.engine`); a set-aside copy going to the
forced draw's target is `flip7ref.core.primitives.forced_draw`'s assignment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
from mypy_extensions import mypyc_attr  # native_class=False: stays a plain Python class when compiled (docs/build.md)

from flip7ref.core import events
from flip7ref.core.model import BUSTED, Player
from flip7ref.core.primitives.base import Effect, primitive
from flip7ref.core.targets import ChooseTarget, eligible

if TYPE_CHECKING:
    from flip7ref.core.game_tables import GameTables
    from flip7ref.core.work import Work


def is_shield(game: GameTables, code: int) -> bool:
    """Whether card ``code`` guards against a bust (a Second Chance)."""
    eff = game.effect[code]
    return eff is not None and eff.guards_bust()


def held(game: GameTables, p: Player) -> int:
    """How many bust guards ``p`` holds."""
    return sum(1 for c in p.kept if is_shield(game, c))


@primitive("bust_shield")
@mypyc_attr(native_class=False)
@attrs.frozen
class BustShield(Effect):
    """Keep the card; it cancels the next duplicate (F7-080..F7-082).

    Attributes:
        hold_limit: how many copies a player may hold.
        first_copy: ``keep`` or ``may-give`` (D-F7-09): whether a player drawing
            their first copy may give it away.
    """

    hold_limit: int = 1
    first_copy: str = "keep"

    def receive(self, w: Work, code: int, seat: int) -> None:
        """F7-082: keep a first Second Chance; a spare goes to an eligible player
        without one (the receiver chooses), else it is discarded."""
        p = w.players[seat]
        if held(w.game, p) < self.hold_limit and p.status is not BUSTED:
            if self.first_copy == "may-give":  # D-F7-09 (b)
                others = [s for s in self._receivers(w) if s != seat]
                if others:
                    w.frames.append(ChooseTarget(code, seat, tuple(sorted([seat, *others])), "keep_or_give"))
                    return
            self._keep(w, code, seat)
            return
        receivers = tuple(s for s in self._receivers(w) if s != seat)
        if not receivers:
            w.to_discard(code)
            w.emit(events.discarded(w.cid(code), seat, "no eligible player"))
            return
        w.frames.append(ChooseTarget(code, seat, receivers, "give"))

    def chosen(self, w: Work, frame: ChooseTarget, seat: int) -> None:
        if frame.purpose == "keep_or_give" and seat == frame.chooser:
            self._keep(w, frame.card, seat)
            return
        p = w.players[seat]
        w.set_kept(seat, (*p.kept, frame.card))
        w.emit(events.second_chance_given(frame.chooser, seat, w.cid(frame.card)))

    def assigned(self, w: Work, code: int, chooser: int, seat: int) -> None:
        """A set-aside Second Chance goes to ``seat`` (the forced draw's target) like a drawn one."""
        self.receive(w, code, seat)

    def guards_bust(self) -> bool:
        return True

    def use_guard(self, w: Work, seat: int, code: int, guard: int) -> None:
        """F7-080: the duplicate and the Second Chance are discarded, no bust; F7-081: the turn is over."""
        p = w.players[seat]
        kept = list(p.kept)
        kept.remove(guard)
        w.set_kept(seat, tuple(kept))
        w.to_discard(code, guard)
        w.emit(events.second_chance_used(seat, w.cid(code), w.cid(guard)))

    def stays_in_front(self) -> bool:
        return True

    def most_held(self) -> int | None:
        return self.hold_limit

    def _receivers(self, w: Work) -> list[int]:
        return [s for s in eligible(w.players, self.targets) if held(w.game, w.players[s]) < self.hold_limit]

    def _keep(self, w: Work, code: int, seat: int) -> None:
        p = w.players[seat]
        w.set_kept(seat, (*p.kept, code))
        w.emit(events.second_chance_kept(seat, w.cid(code)))
