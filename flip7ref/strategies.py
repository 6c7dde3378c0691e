"""Strategies that choose decisions, for simulation and traces.

A strategy is any object with a ``name`` and a ``choose(state, rng)`` method
returning one of ``state.legal_actions()``.  :func:`parse_strategy` builds the
ones named on the command line: ``random`` and ``threshold:N``.
"""

from __future__ import annotations

import random
from typing import Protocol

from .errors import OptionError
from .state import STAY, Action, State


class Strategy(Protocol):
    """Chooses a decision at a decision node."""

    name: str

    def choose(self, state: State, rng: random.Random) -> Action:
        """Return one of ``state.legal_actions()`` (the state is a decision node)."""
        ...


class RandomStrategy:
    """Picks a legal action uniformly at random with the given rng."""

    name = "random"

    def choose(self, state: State, rng: random.Random) -> Action:
        """A uniformly random legal action."""
        return rng.choice(state.legal_actions())


class ThresholdStrategy:
    """Hits until the line is worth at least ``threshold`` points, then stays.

    Target choices: Freeze and Flip Three go to the leader (highest running
    total plus current line value) other than itself when possible; a spare
    Second Chance goes to the player with the lowest total; a first Second
    Chance is kept.

    Args:
        threshold: points (>= 0) at which the player stays.
    """

    def __init__(self, threshold: int) -> None:
        self.threshold = threshold
        self.name = f"threshold:{threshold}"

    def choose(self, state: State, rng: random.Random) -> Action:
        """The threshold decision for the player to act (no randomness used)."""
        legal = state.legal_actions()
        seat = state.current_player
        kind, _card = state.pending()
        if kind == "offer":
            if STAY in legal and state.line_value(seat) >= self.threshold:
                return STAY
            return legal[0]
        seats = [a.args[0] for a in legal]
        if kind == "keep_or_give" and seat in seats:
            return Action("target", (seat,))
        if kind == "give":
            pick = min(seats, key=lambda s: (state.totals[s], s))
            return Action("target", (pick,))
        others = [s for s in seats if s != seat] or seats

        def standing(s: int) -> tuple[int, int]:
            return (state.totals[s] + state.line_value(s), -s)

        return Action("target", (max(others, key=standing),))


def parse_strategy(text: str) -> Strategy:
    """Build a strategy from its name: ``random`` or ``threshold:N`` (N >= 0 points).

    Raises:
        OptionError: an unknown strategy name or a malformed threshold.
    """
    name, _, arg = text.strip().partition(":")
    if name == "random" and not arg:
        return RandomStrategy()
    if name == "threshold":
        if not arg.strip().isdigit():
            raise OptionError(f"strategy {text!r}: expected threshold:N with N a whole number of points, e.g. threshold:20")
        return ThresholdStrategy(int(arg))
    raise OptionError(f"unknown strategy {text!r} (expected random or threshold:N)")
