"""Primitive ``freeze`` (Freeze, F7-060..F7-062): the target is out of the round and
banks their line."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
from mypy_extensions import mypyc_attr  # native_class=False: stays a plain Python class when compiled (docs/build.md)

from flip7ref.core import events
from flip7ref.core.model import FROZEN, make_player
from flip7ref.core.primitives.base import Effect, primitive

if TYPE_CHECKING:
    from flip7ref.core.work import Work


@primitive("freeze")
@mypyc_attr(native_class=False)
@attrs.frozen
class Freeze(Effect):
    """Freeze the chosen seat (F7-060, F7-062).

    Attributes:
        keep_card: whether the card stays in front of its target after use.
    """

    keep_card: bool = False

    def play(self, w: Work, code: int, chooser: int, seat: int) -> None:
        """The one decider of F7-060 and F7-062: the target is frozen (out of the round,
        keeping their line to score) and the card is discarded, or stays in front of
        them under ``keep_card``."""
        p = w.players[seat]
        w.players[seat] = make_player((p.line, (*p.kept, code) if self.keep_card else p.kept, FROZEN, p.flip7_barred))
        if not self.keep_card:
            w.to_discard(code)
        w.emit(events.frozen(seat, chooser))

    def stays_in_front(self) -> bool:
        return self.keep_card
