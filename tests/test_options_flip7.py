"""Every option of spec/editions/flip7.yaml, every reading: a stacked position whose outcome tells the readings apart.

Each option has a *scenario*: a function that builds a concrete position under one
reading, plays it and returns the outcome.  ``CASES`` holds the outcome each
reading must give; the per-option tests check it, ``test_readings_differ_pairwise``
checks the readings of an option really play out differently, and
``test_cases_cover_every_option_and_reading`` fails when the table gains an
option or a reading without a case here.  Integer options (``target_score``,
``decks``) also get a non-default integer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

import helpers
import pytest
from helpers import HIT, HIT_STAY, all_lines, check_reading, offers_in_turn, play, reading_cases

from flip7ref import Game, Status, load_edition
from flip7ref.checking.conformance import draw_to_decision

EDITION = load_edition("flip7")

ACTIONS = ("freeze", "flip_three", "second_chance")


# --------------------------------------------------------------------------- helpers


def _game(players: int, option: str, value: str | int) -> Game:
    return Game("flip7", players, {option: value})


def scenario_initial_deal(value: str | int) -> Any:
    """3 seats, dealer 0, stack 5 7 9: dealt lines, who is asked first and what they may do."""
    s = play(_game(3, "initial_deal", value).new_initial_state(stack=["5", "7", "9"], dealer=0))
    return all_lines(s), s.current_player, s.legal_action_strings()


def scenario_deal_after_early_cards(value: str | int) -> Any:
    """Seat 1 is dealt a Flip Three and gives it to seat 2 (not yet dealt), who flips 3 4 6; then 8, 10 follow."""
    g = _game(3, "deal_after_early_cards", value)
    s = draw_to_decision(g.new_initial_state(stack=["flip_three", "3", "4", "6", "8", "10"], dealer=0))
    assert s.pending() == ("play", "flip_three") and s.current_player == 1
    s = play(s, "target 2")
    return all_lines(s), s.current_player


def scenario_deal_after_second_chance(value: str | int) -> Any:
    """Seat 0 is dealt a Flip Three, takes it and flips two Second Chances and a 5; the
    spare goes to undealt seat 2; seat 1 is dealt 7: is seat 2 dealt the 8 or asked?"""
    g = _game(3, "deal_after_second_chance", value)
    s = draw_to_decision(g.new_initial_state(stack=["flip_three", "second_chance", "second_chance", "5", "7", "8"], dealer=2))
    s = play(s, "target 0")
    assert s.pending() == ("give", "second_chance")
    s = play(s, "target 2")
    return all_lines(s), s.current_player, s.pending()


def scenario_start_seat(value: str | int) -> Any:
    """3 seats, dealer 0, stack 5 7 9: who gets which deal card and the first offer."""
    s = play(_game(3, "start_seat", value).new_initial_state(stack=["5", "7", "9"], dealer=0))
    return all_lines(s), s.current_player


def scenario_stay_requires(value: str | int) -> Any:
    """Seat 0 holds only +4, seat 1 only a kept Second Chance, seat 2 nothing: the offers each one gets."""
    g = _game(3, "stay_requires", value)
    s = g.new_position(dealer=2, turn=0, lines={0: ["+4"]}, kept={1: ["second_chance"]}, draw=["5", "7"])
    return offers_in_turn(s, 3)


def scenario_self_target(value: str | int) -> Any:
    """Seat 0 hits a Freeze (then, separately, a Flip Three) with seats 1 and 2 still active: the targets offered."""
    g = _game(3, "self_target", value)
    out = []
    for card in ("freeze", "flip_three"):
        s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["7"]}, draw=[card])
        s = play(s, "hit")
        assert s.pending() == ("play", card) and s.current_player == 0
        out.append(tuple(s.legal_action_strings()))
    return tuple(out)


def scenario_flip_three_bust(value: str | int) -> Any:
    """Seat 0 (holding 5) plays a Flip Three on itself and flips Freeze, 5 (bust): what becomes of the Freeze."""
    g = _game(3, "flip_three_bust", value)
    s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["7"]}, draw=["flip_three", "freeze", "5", "9"])
    s = play(s, "hit", "target 0")
    assert s.status(0) is Status.BUSTED
    after_bust = (s.current_player, s.pending(), tuple(s.legal_action_strings()))
    if s.pending() == ("assign", "freeze"):
        s = play(s, "target 2")
    return after_bust, s.status(2), s.kept(2), s.current_player


def scenario_set_aside_assigner(value: str | int) -> Any:
    """Seat 0 plays a Flip Three on seat 1, who flips Freeze, 3, 4: who assigns the Freeze, and to whom it goes."""
    g = _game(3, "set_aside_assigner", value)
    s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["7"]}, draw=["flip_three", "freeze", "3", "4", "9"])
    s = play(s, "hit", "target 1")
    asked = (s.current_player, s.pending(), tuple(s.legal_action_strings()))
    s = play(s, "target 2")
    return asked, s.status(2), s.line(1)


def scenario_second_chance_in_flip_three(value: str | int) -> Any:
    """Seat 1 (holding 6) takes a Flip Three and flips Second Chance, 6, 8: is it saved by that Second Chance?"""
    g = _game(3, "second_chance_in_flip_three", value)
    draw = ["flip_three", "second_chance", "6", "8", "9"]
    s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["7"]}, draw=draw)
    s = play(s, "hit", "target 1")
    return s.status(1), s.line(1), s.kept(1), s.current_player


def scenario_first_second_chance(value: str | int) -> Any:
    """Seat 0 (no Second Chance) hits one; seat 1 has none, seat 2 already has one: what seat 0 is asked."""
    g = _game(3, "first_second_chance", value)
    lines = {0: ["5"], 1: ["6"], 2: ["7"]}
    s = g.new_position(dealer=2, turn=0, lines=lines, kept={2: ["second_chance"]}, draw=["second_chance", "9"])
    s = play(s, "hit")
    return s.current_player, s.pending(), tuple(s.legal_action_strings()), s.kept(0), s.kept(1)


def scenario_deck_between_rounds(value: str | int) -> Any:
    """2 seats holding 5 and 7 both stay over a pile topped 9 10 11 12: round 2's deal and the piles."""
    g = _game(2, "deck_between_rounds", value)
    s = g.new_position(dealer=1, turn=0, lines={0: ["5"], 1: ["7"]}, draw=["9", "10", "11", "12"])
    s = play(s, "stay", "stay")
    assert s.round == 2 and s.round_scores() == (5, 7)
    discard = dict(sorted(Counter(g.card_ids[c] for c in s.discard).items()))
    return all_lines(s), discard, len(s.draw)


def scenario_empty_deck(value: str | int) -> Any:
    """Deck and discard empty (the other cards are out of the game); seat 0 (holding 5) hits."""
    g = _game(3, "empty_deck", value)
    s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["7"], 2: ["9", "9"]}, statuses={2: "busted"}, rest="out")
    assert s.draw == () and s.discard == ()
    s = s.apply("hit")
    return s.round, s.status(0), s.round_scores(), s.totals, tuple(e.type for e in s.last_events()[:2])


def scenario_flip7_bonus(value: str | int) -> Any:
    """Seat 0 makes a Flip 7 (0-5 then 6); seat 1 stayed (6 +4), seat 2 busted, seat 3 frozen (8): round scores."""
    g = _game(4, "flip7_bonus", value)
    s = g.new_position(
        dealer=3, turn=0,
        lines={0: ["0", "1", "2", "3", "4", "5"], 1: ["6", "+4"], 2: ["7", "7"], 3: ["8"]},
        statuses={1: "stayed", 2: "busted", 3: "frozen"}, draw=["6"],
    )  # fmt: skip
    s = play(s, "hit")
    assert [e.get("seat") for e in s.events() if e.type == "flip7"] == [0]
    return s.round_scores()


def scenario_set_aside_order(value: str | int) -> Any:
    """Seat 0 hits a Flip Three and plays it on seat 1, who flips Flip Three, Freeze, 5 and
    assigns the Flip Three to seat 0 and the Freeze to seat 2; seat 0 flips Flip Three, 1, 2
    and assigns that Flip Three to seat 2 too: frozen first, or flipping 3 4 6 first?"""
    g = _game(3, "set_aside_order", value)
    s = g.new_position(
        dealer=2, turn=0, lines={0: ["9"], 1: ["10"], 2: ["11"]},
        draw=["flip_three", "flip_three", "freeze", "5", "flip_three", "1", "2", "3", "4", "6", "7"],
    )  # fmt: skip
    s = play(s, "hit", "target 1", "target 0", "target 2", "target 2")
    order = [(e.type, e.get("seat")) for e in s.events() if e.type in ("frozen", "forced_draw_started")]
    return all_lines(s), s.status(2), order, s.current_player


def scenario_reshuffles(value: str | int) -> Any:
    """Seat 1 stayed, seat 0 hits on two Flip Threes and nothing else (issue 14): how many
    reshuffles round 1 takes, and that it ends with seat 0 stayed."""
    g = _game(2, "reshuffles", value)
    s = g.new_position(dealer=1, turn=0, lines={0: ["5"], 1: ["6"]}, statuses={1: "stayed"},
                       draw=["flip_three", "flip_three"], rest="out")  # fmt: skip
    s = play(s, "hit")
    moves = 1
    while s.round == 1:
        s = play(s, s.legal_action_strings()[0])
        moves += 1
    events = s.events()
    scored = next(i for i, e in enumerate(events) if e.type == "round_scored")
    guard = any(e.type == "deck_exhausted" and e.get("reason") for e in events[:scored])  # F7-117 / V-076
    return sum(1 for e in events[:scored] if e.type == "reshuffled"), moves, events[scored].get("scores"), guard


SCENARIOS: dict[str, Callable[[str | int], Any]] = {
    "initial_deal": scenario_initial_deal,
    "deal_after_early_cards": scenario_deal_after_early_cards,
    "deal_after_second_chance": scenario_deal_after_second_chance,
    "start_seat": scenario_start_seat,
    "stay_requires": scenario_stay_requires,
    "self_target": scenario_self_target,
    "flip_three_bust": scenario_flip_three_bust,
    "set_aside_assigner": scenario_set_aside_assigner,
    "second_chance_in_flip_three": scenario_second_chance_in_flip_three,
    "first_second_chance": scenario_first_second_chance,
    "deck_between_rounds": scenario_deck_between_rounds,
    "empty_deck": scenario_empty_deck,
    "flip7_bonus": scenario_flip7_bonus,
    "tie": partial(helpers.scenario_tie, "flip7"),
    "target_score": partial(helpers.scenario_target_score, "flip7"),
    "decks": partial(helpers.scenario_decks, "flip7"),
    "set_aside_order": scenario_set_aside_order,
    "reshuffles": scenario_reshuffles,
}


# option -> reading (or extra integer value) -> the outcome of that option's scenario.
CASES: dict[str, dict[str | int, Any]] = {
    "initial_deal": {
        "deal": ([["9"], ["5"], ["7"]], 1, ["hit", "stay"]),
        "none": ([[], [], []], 1, ["hit"]),
    },
    "deal_after_early_cards": {
        "offer": ([[], [], ["3", "4", "6"]], 2),
        "skip": ([["8"], [], ["3", "4", "6"]], 1),
        "deal": ([["10"], [], ["3", "4", "6", "8"]], 1),
    },
    "deal_after_second_chance": {
        "deal": ([["5"], ["7"], ["8"]], 0, ("offer", None)),
        "early-cards": ([["5"], ["7"], []], 2, ("offer", None)),
    },
    "start_seat": {
        "dealer-left": ([["9"], ["5"], ["7"]], 1),
        "dealer": ([["5"], ["7"], ["9"]], 0),
    },
    "stay_requires": {
        "any-card": (HIT_STAY, HIT_STAY, HIT),
        "number-card": (HIT, HIT, HIT),
        "nothing": (HIT_STAY, HIT_STAY, HIT_STAY),
    },
    "self_target": {
        "allowed": (("target 0", "target 1", "target 2"), ("target 0", "target 1", "target 2")),
        "only-when-alone": (("target 1", "target 2"), ("target 1", "target 2")),
    },
    "flip_three_bust": {
        "discard": ((1, ("offer", None), HIT_STAY), Status.ACTIVE, [], 1),
        "resolve": ((0, ("assign", "freeze"), ("target 1", "target 2")), Status.FROZEN, ["freeze"], 1),
    },
    "set_aside_assigner": {
        "target": ((1, ("assign", "freeze"), ("target 0", "target 1", "target 2")), Status.FROZEN, ["6", "3", "4"]),
        "giver": ((0, ("assign", "freeze"), ("target 0", "target 1", "target 2")), Status.FROZEN, ["6", "3", "4"]),
    },
    "second_chance_in_flip_three": {
        "immediate": (Status.ACTIVE, ["6", "8"], [], 1),
        "set-aside": (Status.BUSTED, ["6", "6"], [], 2),
    },
    "first_second_chance": {
        "keep": (1, ("offer", None), HIT_STAY, ["second_chance"], []),
        "may-give": (0, ("keep_or_give", "second_chance"), ("target 0", "target 1"), [], []),
    },
    "deck_between_rounds": {
        # round 2: dealer 0, the deal starts at seat 1
        "carry-over": ([["10"], ["9"]], {"5": 1, "7": 1}, 90),
        # the whole deck reshuffled (seed "0:1"): 94 - 2 dealt, nothing discarded
        "fresh-shuffle": ([["11"], ["11"]], {}, 92),
    },
    "empty_deck": {
        "stay": (1, Status.STAYED, (), (0, 0, 0), ("deck_exhausted", "stayed")),
        "end-round": (2, Status.ACTIVE, (5, 7, 0), (5, 7, 0), ("deck_exhausted", "round_scored")),
    },
    "flip7_bonus": {
        "maker": (36, 10, 0, 8),
        "all-non-busted": (36, 25, 0, 23),
    },
    "tie": {
        "another-round": (False, (0,), 2, (209, 207, 156), [(0, 1)]),
        "shared-win": (True, (0, 1), 1, (205, 205, 153), []),
    },
    "target_score": {
        "200": (False, (), 2, (52, 3)),
        52: (True, (0,), 1, (52, 3)),
    },
    "decks": {
        "auto": (94, "CardError"),
        2: (188, Status.BUSTED, ["0", "0"], 188),
    },
    "set_aside_order": {
        # the Freeze assigned first acts first: seat 2 is frozen, its Flip Three discarded
        "queue": ([["9", "1", "2"], ["10", "5"], ["11"]], Status.FROZEN,
                  [("forced_draw_started", 1), ("forced_draw_started", 0), ("frozen", 2)], 1),
        # the newest assignment acts first: seat 2 flips 3 4 6, then is frozen
        "newest-first": ([["9", "1", "2"], ["10", "5"], ["11", "3", "4", "6"]], Status.FROZEN,
                         [("forced_draw_started", 1), ("forced_draw_started", 0), ("forced_draw_started", 2), ("frozen", 2)], 1),
    },
    "reshuffles": {
        "1": (1, 5, (5, 6), False),
        0: (0, 4, (5, 6), False),
        2: (2, 6, (5, 6), False),
        # every time the deck runs out, but the second reshuffle would bring no progress: the guard says so
        "unlimited": (1, 5, (5, 6), True),
    },
}

# option -> the rule ids of its `rules:` entry in flip7.yaml (checked against the table below).
RULES: dict[str, tuple[str, ...]] = {
    "initial_deal": ("F7-020", "F7-021", "F7-022"),
    "deal_after_early_cards": ("F7-025",),
    "deal_after_second_chance": ("F7-026",),
    "start_seat": ("F7-020", "F7-030"),
    "stay_requires": ("F7-033",),
    "self_target": ("F7-061", "F7-072"),
    "flip_three_bust": ("F7-073", "F7-131"),
    "set_aside_assigner": ("F7-073",),
    "second_chance_in_flip_three": ("F7-076", "F7-077"),
    "first_second_chance": ("F7-082",),
    "deck_between_rounds": ("F7-111",),
    "empty_deck": ("F7-115",),
    "flip7_bonus": ("F7-050",),
    "tie": ("F7-121",),
    "target_score": ("F7-120",),
    "decks": ("F7-002", "F7-123"),
    "set_aside_order": ("F7-074", "F7-075"),
    "reshuffles": ("F7-116", "F7-117"),
}

DEFAULTS: dict[str, str | int] = {
    "initial_deal": "deal",
    "deal_after_early_cards": "offer",
    "deal_after_second_chance": "deal",
    "start_seat": "dealer-left",
    "stay_requires": "any-card",
    "self_target": "allowed",
    "flip_three_bust": "discard",
    "set_aside_assigner": "target",
    "second_chance_in_flip_three": "immediate",
    "first_second_chance": "keep",
    "deck_between_rounds": "carry-over",
    "empty_deck": "stay",
    "flip7_bonus": "maker",
    "tie": "another-round",
    "target_score": 200,
    "decks": "auto",
    "set_aside_order": "queue",
    "reshuffles": "unlimited",
}


# --------------------------------------------------------------------------- one test per option


@pytest.mark.rules("F7-020", "F7-021", "F7-022")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "initial_deal"))
def test_initial_deal(reading: str, expected: Any) -> None:
    """initial_deal: with a deal seats 1, 2, 0 get 5, 7, 9 and may Stay; with none nobody has a card and seat 1 must Hit."""
    check_reading(SCENARIOS, "initial_deal", reading, expected)


@pytest.mark.rules("F7-025")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "deal_after_early_cards"))
def test_deal_after_early_cards(reading: str, expected: Any) -> None:
    """deal_after_early_cards: the Flip Three target (3 4 6) is asked Hit or Stay at its slot
    before seat 0 is dealt (offer), passed over (skip) or still dealt the 8 (deal)."""
    check_reading(SCENARIOS, "deal_after_early_cards", reading, expected)


@pytest.mark.rules("F7-026")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "deal_after_second_chance"))
def test_deal_after_second_chance(reading: str, expected: Any) -> None:
    """deal_after_second_chance: a player holding only a spare Second Chance is dealt (deal)
    or asked Hit or Stay at the slot like a player with early cards (early-cards)."""
    check_reading(SCENARIOS, "deal_after_second_chance", reading, expected)


@pytest.mark.rules("F7-020", "F7-030")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "start_seat"))
def test_start_seat(reading: str, expected: Any) -> None:
    """start_seat: the first deal card and the first offer go to the dealer's left (seat 1) or to the dealer (seat 0)."""
    check_reading(SCENARIOS, "start_seat", reading, expected)


@pytest.mark.rules("F7-033")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "stay_requires"))
def test_stay_requires(reading: str, expected: Any) -> None:
    """stay_requires: a lone +4 or a lone Second Chance allows a Stay under any-card, nothing does under nothing only."""
    check_reading(SCENARIOS, "stay_requires", reading, expected)


@pytest.mark.rules("F7-033")
def test_stay_requires_nothing_empty_player_scores_zero() -> None:
    """stay_requires nothing: a player with no cards may Stay and scores 0 for the round."""
    g = Game("flip7", 2, {"stay_requires": "nothing"})
    s = g.new_position(dealer=1, turn=0, lines={1: ["9"]}, statuses={1: "stayed"}, totals=[10, 20])
    assert s.legal_action_strings() == ["hit", "stay"]
    s = play(s, "stay")
    assert s.round == 2
    assert s.round_scores() == (0, 9)
    assert s.totals == (10, 29)


@pytest.mark.rules("F7-061", "F7-072")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "self_target"))
def test_self_target(reading: str, expected: Any) -> None:
    """self_target: with others active the drawer of a Freeze or Flip Three may pick itself (allowed) or not (only-when-alone)."""
    check_reading(SCENARIOS, "self_target", reading, expected)


@pytest.mark.rules("F7-061", "F7-072")
@pytest.mark.parametrize("reading", ["allowed", "only-when-alone"])
@pytest.mark.parametrize("card", ["freeze", "flip_three"])
def test_self_target_alone_drawer_must_take_it(reading: str, card: str) -> None:
    """self_target: under both readings a drawer who is the only active player must target itself."""
    g = Game("flip7", 3, {"self_target": reading})
    s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["7"]}, statuses={1: "stayed", 2: "stayed"}, draw=[card])
    s = play(s, "hit")
    assert s.current_player == 0
    assert s.pending() == ("play", card)
    assert s.legal_action_strings() == ["target 0"]


@pytest.mark.rules("F7-073", "F7-131")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "flip_three_bust"))
def test_flip_three_bust(reading: str, expected: Any) -> None:
    """flip_three_bust: a Freeze set aside before the target busts is discarded, or still assigned (seat 2 frozen)."""
    check_reading(SCENARIOS, "flip_three_bust", reading, expected)


@pytest.mark.rules("F7-073")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "set_aside_assigner"))
def test_set_aside_assigner(reading: str, expected: Any) -> None:
    """set_aside_assigner: the Freeze seat 1 flips in seat 0's Flip Three is assigned by seat 1 (target) or seat 0 (giver)."""
    check_reading(SCENARIOS, "set_aside_assigner", reading, expected)


@pytest.mark.rules("F7-076", "F7-077")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "second_chance_in_flip_three"))
def test_second_chance_in_flip_three(reading: str, expected: Any) -> None:
    """second_chance_in_flip_three: a Second Chance flipped first cancels the repeated 6 (immediate) or waits and the 6 busts."""
    check_reading(SCENARIOS, "second_chance_in_flip_three", reading, expected)


@pytest.mark.rules("F7-082")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "first_second_chance"))
def test_first_second_chance(reading: str, expected: Any) -> None:
    """first_second_chance: a first Second Chance is kept at once (keep) or may be kept or given to seat 1 (may-give)."""
    check_reading(SCENARIOS, "first_second_chance", reading, expected)


@pytest.mark.rules("F7-082")
def test_first_second_chance_may_give_hands_it_over() -> None:
    """first_second_chance may-give: choosing seat 1 hands the Second Chance over and the offer passes to seat 1."""
    g = Game("flip7", 3, {"first_second_chance": "may-give"})
    lines = {0: ["5"], 1: ["6"], 2: ["7"]}
    s = g.new_position(dealer=2, turn=0, lines=lines, kept={2: ["second_chance"]}, draw=["second_chance"])
    s = play(s, "hit", "target 1")
    assert (s.kept(0), s.kept(1), s.kept(2)) == ([], ["second_chance"], ["second_chance"])
    assert s.current_player == 1
    assert [e.to_dict() for e in s.last_events()][:2] == [
        {"type": "target_chosen", "seat": 0, "card": "second_chance", "target": 1},
        {"type": "second_chance_given", "seat": 0, "target": 1, "card": "second_chance"},
    ]


@pytest.mark.rules("F7-082")
def test_first_second_chance_may_give_can_still_keep_it() -> None:
    """first_second_chance may-give: choosing oneself keeps the Second Chance (a kept event, not a given one)."""
    g = Game("flip7", 3, {"first_second_chance": "may-give"})
    lines = {0: ["5"], 1: ["6"], 2: ["7"]}
    s = g.new_position(dealer=2, turn=0, lines=lines, kept={2: ["second_chance"]}, draw=["second_chance"])
    s = play(s, "hit", "target 0")
    assert (s.kept(0), s.kept(1)) == (["second_chance"], [])
    assert [e.type for e in s.last_events()][:2] == ["target_chosen", "second_chance_kept"]


@pytest.mark.rules("F7-111")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "deck_between_rounds"))
def test_deck_between_rounds(reading: str, expected: Any) -> None:
    """deck_between_rounds: round 2 is dealt 9 and 10 from the passed-on pile (carry-over) or from a fresh 94-card deck."""
    check_reading(SCENARIOS, "deck_between_rounds", reading, expected)


@pytest.mark.rules("F7-111")
def test_fresh_shuffle_keeps_the_round_one_stack() -> None:
    """deck_between_rounds fresh-shuffle: the stacked cards are still the first cards of round 1."""
    g = Game("flip7", 2, {"deck_between_rounds": "fresh-shuffle"})
    s = draw_to_decision(g.new_initial_state(stack=["5", "7"], dealer=1))
    assert all_lines(s) == [["5"], ["7"]]


@pytest.mark.rules("F7-115")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "empty_deck"))
def test_empty_deck(reading: str, expected: Any) -> None:
    """empty_deck: a Hit on an empty deck and discard becomes a Stay (stay) or ends the round with scores 5/7/0 (end-round)."""
    check_reading(SCENARIOS, "empty_deck", reading, expected)


@pytest.mark.rules("F7-115")
@pytest.mark.parametrize(
    ("reading", "expected"),
    [
        pytest.param("stay", (1, (), [["5"], ["7", "9"]], Status.ACTIVE, ("deck_exhausted", "forced_draw_ended")), id="stay"),
        pytest.param("end-round", (2, (5, 16, 0), None, None, ("deck_exhausted", "round_scored")), id="end-round"),
    ],
)
def test_empty_deck_during_flip_three(reading: str, expected: Any) -> None:
    """empty_deck: a Flip Three on seat 1 runs out after one card: it ends early (stay) or the round ends (end-round)."""
    g = Game("flip7", 3, {"empty_deck": reading})
    s = g.new_position(
        dealer=2, turn=0, lines={0: ["5"], 1: ["7"], 2: ["10", "10"]}, statuses={2: "busted"},
        draw=["flip_three", "9"], rest="out",
    )  # fmt: skip
    s = play(s, "hit")
    s = s.apply("target 1")
    s = s.apply_chance("9")
    events = [e.to_dict() for e in s.last_events()]
    kinds = tuple(e["type"] for e in events[1:3])
    if s.round == 1:
        outcome = (s.round, s.round_scores(), all_lines(s)[:2], s.status(1), kinds)
        assert events[2] == {"type": "forced_draw_ended", "seat": 1, "card": "flip_three", "outcome": "exhausted"}
        assert s.current_player == 1
    else:
        outcome = (s.round, s.round_scores(), None, None, kinds)
    assert outcome == expected


@pytest.mark.rules("F7-050")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "flip7_bonus"))
def test_flip7_bonus(reading: str, expected: Any) -> None:
    """flip7_bonus: the +15 goes to the maker only, or also to the stayed and frozen players but never the busted one."""
    check_reading(SCENARIOS, "flip7_bonus", reading, expected)


@pytest.mark.rules("F7-121")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "tie"))
def test_tie(reading: str, expected: Any) -> None:
    """tie: a 205-205 tie at game end leads to another round won by seat 0 alone, or to a shared win of seats 0 and 1."""
    check_reading(SCENARIOS, "tie", reading, expected)


@pytest.mark.rules("F7-120")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "target_score"))
def test_target_score(reading: str | int, expected: Any) -> None:
    """target_score: a 52-point total does not end the game at 200 but does at 52."""
    check_reading(SCENARIOS, "target_score", reading, expected)


@pytest.mark.rules("F7-120")
@pytest.mark.parametrize(("target", "ends"), helpers.TARGET_THRESHOLDS)
def test_target_score_threshold_is_reached_not_passed(target: str | int, ends: bool) -> None:
    """target_score: the game ends when a total reaches the target exactly or passes it, not one point short."""
    helpers.check_target_threshold("flip7", target, ends)


@pytest.mark.rules("F7-002", "F7-123")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "decks"))
def test_decks(reading: str | int, expected: Any) -> None:
    """decks: a second 0 on the pile cannot exist with one deck (auto, 3 players) and busts seat 0 with decks=2."""
    check_reading(SCENARIOS, "decks", reading, expected)


@pytest.mark.rules("F7-002", "F7-123")
@pytest.mark.parametrize(("players", "decks", "expected"), helpers.DECK_COUNTS)
def test_decks_counts(players: int, decks: str | int, expected: int) -> None:
    """decks: auto gives one deck per 18 players; an integer forces that many decks of 94 cards."""
    g = Game("flip7", players, {"decks": decks})
    assert g.decks == expected
    assert len(g.deck) == 94 * expected
    assert Counter(g.card_ids[c] for c in g.deck)["12"] == 12 * expected


# --------------------------------------------------------------------------- the cases themselves


@pytest.mark.parametrize("option", [pytest.param(o, marks=pytest.mark.rules(*RULES[o]), id=o) for o in CASES])
def test_readings_differ_pairwise(option: str) -> None:
    """Every two readings of an option give different outcomes in its scenario (played, not just tabled)."""
    helpers.check_readings_differ(SCENARIOS, CASES, option)


def test_cases_cover_every_option_and_reading() -> None:
    """Every option and reading of flip7.yaml has a case here, integer options a non-default integer too, and the right rules."""
    helpers.check_cases_cover("flip7", SCENARIOS, CASES, RULES, globals())


def test_table_option_list() -> None:
    """flip7.yaml defines exactly these eighteen options, with these readings, in this order."""
    assert {n: [r.name for r in o.readings] for n, o in EDITION.options.items()} == {
        "initial_deal": ["deal", "none"],
        "deal_after_early_cards": ["offer", "skip", "deal"],
        "deal_after_second_chance": ["deal", "early-cards"],
        "start_seat": ["dealer-left", "dealer"],
        "stay_requires": ["any-card", "number-card", "nothing"],
        "self_target": ["allowed", "only-when-alone"],
        "flip_three_bust": ["discard", "resolve"],
        "set_aside_assigner": ["target", "giver"],
        "second_chance_in_flip_three": ["immediate", "set-aside"],
        "first_second_chance": ["keep", "may-give"],
        "deck_between_rounds": ["carry-over", "fresh-shuffle"],
        "empty_deck": ["stay", "end-round"],
        "flip7_bonus": ["maker", "all-non-busted"],
        "tie": ["another-round", "shared-win"],
        "target_score": ["200"],
        "decks": ["auto"],
        "set_aside_order": ["queue", "newest-first"],
        "reshuffles": ["1", "unlimited"],
    }
    assert list(EDITION.options) == list(CASES)


# --------------------------------------------------------------------------- defaults and errors


def test_default_options() -> None:
    """Game('flip7', 4) takes the table's default for every option."""
    helpers.check_default_options("flip7", DEFAULTS, 94)


def test_unknown_option_name() -> None:
    """An unknown option name raises OptionError naming it and listing the known options."""
    helpers.check_unknown_option_name("flip7", "stay_rule", "any-card")


@pytest.mark.parametrize("option", list(DEFAULTS))
def test_unknown_option_value(option: str) -> None:
    """An unknown value raises OptionError naming the option, the value and every allowed reading."""
    helpers.check_unknown_option_value("flip7", option)


def test_unknown_option_value_messages_exact() -> None:
    """The OptionError messages of a named and an integer option, word for word."""
    expected = r"^option stay_requires: unknown value 'always' \(expected any-card, number-card, nothing\)$"
    helpers.check_option_error("flip7", {"stay_requires": "always"}, expected)
    helpers.check_option_error(
        "flip7", {"decks": "many"}, r"^option decks: unknown value 'many' \(expected auto, or a whole number\)$"
    )
    helpers.check_option_error("flip7", {"tie": True}, r"^option tie: unknown value True \(expected another-round, shared-win\)$")


def test_an_option_value_nested_too_deeply_to_print_is_an_option_error() -> None:
    """A value nested 20,000 deep (whose repr overflows the stack) gets the one-line
    OptionError, abbreviated, not a RecursionError."""
    deep: object = {}
    for _ in range(20_000):
        deep = {"x": deep}
    helpers.check_option_error("flip7", {"tie": deep}, r"^option tie: unknown value \{'x': \{'x': \{.*\(expected another-round")


@pytest.mark.parametrize(("option", "value", "bound"), helpers.INTEGERS_OUT_OF_RANGE)
def test_integer_option_out_of_range(option: str, value: int, bound: str) -> None:
    """An integer outside an integer option's range raises OptionError naming the option and the range."""
    helpers.check_integer_out_of_range("flip7", option, value, bound)


@pytest.mark.parametrize("option", helpers.named_options("flip7"))
def test_named_option_rejects_integers(option: str) -> None:
    """A named (non-integer) option does not accept a number."""
    helpers.check_named_option_rejects_integers("flip7", option)


@pytest.mark.rules("F7-074", "F7-075")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "set_aside_order"))
def test_set_aside_order(reading: str, expected: Any) -> None:
    """set_aside_order: across nested Flip Threes earlier assignments act first (queue:
    the Freeze, then the Flip Three is discarded) or the newest do (newest-first)."""
    check_reading(SCENARIOS, "set_aside_order", reading, expected)


@pytest.mark.rules("F7-116", "F7-117")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "reshuffles"))
def test_reshuffles(reading: str, expected: Any) -> None:
    """reshuffles: the once-endless round (two Flip Threes alone) reshuffles k times and ends."""
    check_reading(SCENARIOS, "reshuffles", reading, expected)
