"""A strategy plug-in: the ``Cautious`` class the README and docs/tournaments.md load.

Any module with a class that has a ``name`` and a ``choose(state, rng)`` method (the
`flip7ref.play.strategies.Strategy` protocol) can play a seat. From this folder::

    flip7ref simulate --strategy mybots:Cautious --games 200

From anywhere else, give the file's path: ``--strategy path/to/mybots.py:Cautious``.
"""

from __future__ import annotations

import random

from flip7ref.core.model import Action
from flip7ref.core.state import HIT, STAY, State


class Cautious:
    """Stays as soon as the line is worth 12 points; elsewhere takes the first legal action.

    ``choose(state, rng)`` returns one of ``state.legal_actions()``: at a Hit-or-Stay offer
    (F7-030) a Stay once the current line scores 12 or more (when staying is legal), else a
    Hit; at any other decision (a target, a card to pick...) the first legal action.
    """

    name = "cautious"

    def choose(self, state: State, rng: random.Random) -> Action:
        legal = state.legal_actions()
        if state.pending()[0] == "offer":
            worth = state.line_value(state.current_player)
            return STAY if STAY in legal and worth >= 12 else HIT
        return legal[0]
