"""How big a solve is before it runs: `solo_estimate` (states and CPU
seconds of the solve of `solo_deck_position`) and the
measured cost per state it uses (`US_PER_STATE`)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from ..game import ACTION, MODIFIER, Game
from .positions import solo_deck_position

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
    deck = solo_deck_position(game, categories)
    solo = deck.game
    counts = Counter(solo.code(c) for c in (solo.card_ids[x] for x in deck.draw))
    ranks = {solo.rank[c] for c in counts if solo.category[c] != ACTION and solo.modifier[c] is None}
    lines = sum(math.comb(len(ranks), k) for k in range(solo.flip7_distinct))
    mods = math.prod(n + 1 for c, n in counts.items() if solo.category[c] == MODIFIER)
    acts = math.prod(n + 1 for c, n in counts.items() if solo.category[c] == ACTION)
    states = lines * mods * acts
    cost = US_PER_STATE["actions" if acts > 1 else "numbers"]
    return states, acts > 1, states * cost / 1e6
