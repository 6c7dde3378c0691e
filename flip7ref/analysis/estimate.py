"""How big a solve is before it runs: `solo_estimate` (states and CPU
seconds of the solve of `solo_deck_position`), `position_estimate` (the
same for any one-player position), the measured cost per state they use
(`US_PER_STATE`), and `warn_if_large`, the warning `SoloSolver` gives
before a solve with action cards still unseen (`LargeSolveWarning`)."""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Iterable

from flip7ref.analysis.positions import solo_deck_position
from flip7ref.core.game import ACTION, MODIFIER, Game
from flip7ref.core.state import State

#: CPU microseconds per solved state measured here (benchmarks/solve_cost.py,
#: CPython 3.11 on one core of a 2-core x86_64 sandbox): the estimates of
#: `solo_estimate` divide by these.
US_PER_STATE = {"numbers": 100.0, "actions": 2700.0}  # pure Python; numbers: since the hit table (docs/analysis.md)


def solo_estimate(game: Game, categories: Iterable[str]) -> tuple[int, bool, float]:
    """How big the solve of `solo_deck_position` ``(game, categories)`` is
    likely to be, before solving it: ``(states, rough, cpu_seconds)``.

    Without action cards ``states`` is the number of lines the player can hold at
    an offer (fewer than ``flip7_distinct`` distinct numbers, any sub-multiset
    of the modifier cards; 262,144 for Flip 7's numbers and modifiers, which
    solves 262,143), and ``rough`` is False.  With action cards it is that
    count times every sub-multiset of the action cards, only an order of
    magnitude (``rough`` True): a Freeze ends a solo round, while the positions
    inside a Flip Three and the duplicates a Second Chance discards add many
    more (the whole 94-card Flip 7 deck has about 1.2 x 10^9).  ``cpu_seconds``
    is ``states`` times the cost per state measured here (`US_PER_STATE`).

    Raises:
        OptionError: ``game`` has more than one player, or an unknown category.
    """
    return position_estimate(solo_deck_position(game, categories))


def position_estimate(state: State) -> tuple[int, bool, float]:
    """``(states, rough, cpu_seconds)`` of an exact solve from ``state``, counted from
    its draw pile as `solo_estimate` counts a fresh deck's (an upper bound without
    action cards or cards that wipe the line; otherwise ``rough`` True, an order of magnitude).

    A card that wipes the line when it enters it (trait ``wipe_on_enter``: Vengeance's Unlucky 7,
    V-033) sends the line to the discard pile, which is part of a solved state: each such card
    still unseen multiplies the count by the lines and modifiers that can lie there (an upper
    bound, ``rough``: Vengeance's number cards alone pass a million solved states, where
    the count without it said 6,476).  A card that may pair with its rank (``pair_allowed``:
    Lucky 13, V-016) counts as a rank of its own."""
    solo = state.game
    counts = Counter(state.draw)
    ranks = {solo.rank[c] for c in counts if solo.category[c] != ACTION and solo.modifier[c] is None}
    pairs = sum(1 for c in counts if "pair_allowed" in solo.traits[c])
    lines = sum(math.comb(len(ranks) + pairs, k) for k in range(solo.flip7_distinct))
    mods = math.prod(n + 1 for c, n in counts.items() if solo.category[c] == MODIFIER)
    acts = math.prod(n + 1 for c, n in counts.items() if solo.category[c] == ACTION)
    wipes = sum(n for c, n in counts.items() if "wipe_on_enter" in solo.traits[c])
    states = lines * mods * acts * (lines * mods) ** wipes
    cost = US_PER_STATE["actions" if acts > 1 else "numbers"]
    return states, acts > 1 or wipes > 0, states * cost / 1e6


class LargeSolveWarning(UserWarning):
    """An exact solve about to start with action cards (or a card that wipes the line) still unseen: it may take hours."""


WARN_CPU_SECONDS = 30.0
"""`warn_if_large` warns when the estimate passes this much CPU time (the CLI's threshold too)."""


def warn_if_large(state: State, max_seconds: float | None = None) -> None:
    """Warn (`LargeSolveWarning`, once per call site as Python's warnings do) before an exact
    solve from ``state`` when action cards (or a card that wipes the line) are still unseen and `position_estimate`
    passes `WARN_CPU_SECONDS`: the message gives the estimate and the way out,
    `flip7ref.analysis.restrict_categories` (an approximation: see its caveat) or
    ``SoloSolver(max_seconds=...)``.  No warning with ``max_seconds`` set: the solve is bounded."""
    if max_seconds is not None:
        return
    states, rough, cpu = position_estimate(state)
    if rough and cpu > WARN_CPU_SECONDS:
        hours = cpu / 3600
        when = f"{hours:,.0f} hours" if hours >= 2 else f"{cpu / 60:,.0f} minutes"
        actions = any(state.game.category[c] == ACTION for c in state.draw)
        what, way_out = ("action cards", "restrict_categories(state) drops them (an approximation), or pass max_seconds")
        if not actions:
            what, way_out = "a card that wipes the line", "pass max_seconds"
        warnings.warn(
            f"exact solve with {what} still unseen: about {states:,} states (only an order of magnitude), "
            f"about {when} of CPU; {way_out}",
            LargeSolveWarning,
            stacklevel=4,  # the caller of SoloSolver.solve (warn_if_large, _presolve, solve)
        )
