"""The interpreter's basic vocabulary, shared by every module and importing none of them.

``CHANCE`` and ``TERMINAL`` (the special values of ``State.current_player``), a
seat's `Status` and `Player` record, and the card categories
(``NUMBER``, ``MODIFIER``, ``ACTION``: the codes ``Game.category`` holds).  They
are re-exported from their former homes (``flip7ref.state``, ``flip7ref.game``)
and from ``flip7ref``.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

CHANCE = -1
"""``current_player`` at a chance node (a card must be drawn)."""
TERMINAL = -2
"""``current_player`` once the game is over."""

NUMBER, MODIFIER, ACTION = 0, 1, 2
"""Card categories: the values of ``Game.category[code]`` (in the order of ``spec.CATEGORIES``)."""


class Status(enum.Enum):
    """A player's status in the current round (F7-032, F7-034, F7-040, F7-060)."""

    ACTIVE = "active"
    STAYED = "stayed"
    FROZEN = "frozen"
    BUSTED = "busted"


class Player(NamedTuple):
    """One seat's cards and status in the current round (an immutable named tuple).

    Attributes:
        line: card codes of the number and modifier cards in front of the player,
            in the order received (a busted line keeps its duplicate).
        kept: action cards lying in front of the player: a held Second Chance
            (F7-080), the Freeze that froze them (F7-062).
        status: the player's `Status`.
    """

    line: tuple[int, ...] = ()
    kept: tuple[int, ...] = ()
    status: Status = Status.ACTIVE
