"""The readings the fast lanes were checked for: the whitelist behind ``Game.fast_lanes``.

`flip7ref.core.lanes` takes the commonest steps without the general path's machinery. A lane
runs only in a game every option of which reads one of the readings listed here:
``tests/test_fast_lanes.py`` plays random games under each reading of every option of the
shipped tables (taken from the tables, not from this list) both ways and checks that the
lane and the general path agree, and that this list names exactly those readings. A new
option, a new reading, or a house table's own option is not listed, so its games take the
general path by construction until it has been checked and added here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

ANY: Final = "*"
"""For an option that also takes integers: every value in its range was checked."""

LANE_READINGS: Final[Mapping[str, frozenset[str]]] = {
    # Flip 7
    "initial_deal": frozenset({"deal", "none"}),
    "deal_after_early_cards": frozenset({"offer", "skip", "deal"}),
    "deal_after_second_chance": frozenset({"deal", "early-cards"}),
    "start_seat": frozenset({"dealer-left", "dealer"}),
    "stay_requires": frozenset({"any-card", "number-card", "nothing"}),
    "self_target": frozenset({"allowed", "only-when-alone"}),
    "flip_three_bust": frozenset({"discard", "resolve"}),
    "set_aside_assigner": frozenset({"target", "giver"}),
    "second_chance_in_flip_three": frozenset({"immediate", "set-aside"}),
    "first_second_chance": frozenset({"keep", "may-give"}),
    "deck_between_rounds": frozenset({"carry-over", "fresh-shuffle"}),
    "empty_deck": frozenset({"stay", "end-round"}),
    "flip7_bonus": frozenset({"maker", "all-non-busted"}),
    "tie": frozenset({"another-round", "shared-win"}),
    "target_score": frozenset({ANY}),
    "decks": frozenset({ANY}),
    "set_aside_order": frozenset({"queue", "newest-first"}),
    "reshuffles": frozenset({ANY}),
    # Flip 7: With a Vengeance
    "brutal": frozenset({"false", "true"}),
    "lucky13_flip7": frozenset({"twice", "once"}),
    "stayed_targetable": frozenset({"yes", "no"}),
    "discard_chooser": frozenset({"giver", "recipient"}),
    "swap_scope": frozenset({"any-two", "own-and-other"}),
    "flip_four_cards": frozenset({"after", "immediate"}),
    "zero_just_one_more": frozenset({"no-flip7", "general-rules"}),
    "busted_cards": frozenset({"keep", "discard"}),
    "unusable_actions": frozenset({"refuse", "fizzle"}),
    "brutal_zero": frozenset({"zero", "negatives"}),
    "brutal_busted": frozenset({"given-after-bust", "all-negatives"}),
    "unlucky7_flip_four": frozenset({"survives", "wiped"}),
    "flip_four_late_bust": frozenset({"all", "actions-only"}),
    "brutal_penalty": frozenset({"any-player", "not-busted"}),
    "zero_own_flip_four": frozenset({"barred", "flip7"}),
    "moved_card_place": frozenset({"end", "in-place"}),
}
"""Option name → the readings (names, or `ANY`) the fast lanes were checked for."""


def lanes_checked(options: Mapping[str, str | int]) -> bool:
    """Whether the fast lanes were checked for every reading of ``options`` (option name →
    reading name or integer, as `Game.options`): False as soon as one option or reading is
    not in `LANE_READINGS`."""
    for name, value in options.items():
        allowed = LANE_READINGS.get(name)
        if allowed is None or not (ANY in allowed or (isinstance(value, str) and value in allowed)):
            return False
    return True
