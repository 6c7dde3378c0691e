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
from itertools import combinations
from typing import Any

import pytest

from flip7ref import CHANCE, CardError, Game, OptionError, State, Status, load_edition

EDITION = load_edition("flip7")

ACTIONS = ("freeze", "flip_three", "second_chance")


# --------------------------------------------------------------------------- helpers


def _game(players: int, option: str, value: str | int) -> Game:
    return Game("flip7", players, {option: value})


def _draw(s: State) -> State:
    """Reveal the top card of the (ordered) pile until a decision or the end."""
    while s.current_player == CHANCE:
        card = s.next_card()
        assert card is not None
        s = s.apply_chance(card)
    return s


def _play(s: State, *moves: str) -> State:
    """Apply decisions in order, drawing the stacked cards between them."""
    s = _draw(s)
    for move in moves:
        s = _draw(s.apply(move))
    return s


def _lines(s: State) -> list[list[str]]:
    return [s.line(i) for i in range(s.num_players)]


def scenario_initial_deal(value: str | int) -> Any:
    """3 seats, dealer 0, stack 5 7 9: dealt lines, who is asked first and what they may do."""
    s = _play(_game(3, "initial_deal", value).new_initial_state(stack=["5", "7", "9"], dealer=0))
    return _lines(s), s.current_player, s.legal_action_strings()


def scenario_deal_after_early_cards(value: str | int) -> Any:
    """Seat 1 is dealt a Flip Three and gives it to seat 2 (not yet dealt), who flips 3 4 6; then 8, 10 follow."""
    g = _game(3, "deal_after_early_cards", value)
    s = _draw(g.new_initial_state(stack=["flip_three", "3", "4", "6", "8", "10"], dealer=0))
    assert s.pending() == ("play", "flip_three") and s.current_player == 1
    s = _play(s, "target 2")
    return _lines(s), s.current_player


def scenario_start_seat(value: str | int) -> Any:
    """3 seats, dealer 0, stack 5 7 9: who gets which deal card and the first offer."""
    s = _play(_game(3, "start_seat", value).new_initial_state(stack=["5", "7", "9"], dealer=0))
    return _lines(s), s.current_player


def scenario_stay_requires(value: str | int) -> Any:
    """Seat 0 holds only +4, seat 1 only a kept Second Chance, seat 2 nothing: the offers each one gets."""
    g = _game(3, "stay_requires", value)
    s = g.new_position(dealer=2, turn=0, lines={0: ["+4"]}, kept={1: ["second_chance"]}, draw=["5", "7"])
    offers = []
    for seat in range(3):
        assert s.current_player == seat and s.pending() == ("offer", None)
        offers.append(s.legal_action_strings())
        if seat < 2:
            s = _play(s, "hit")
    return tuple(tuple(o) for o in offers)


def scenario_self_target(value: str | int) -> Any:
    """Seat 0 hits a Freeze (then, separately, a Flip Three) with seats 1 and 2 still active: the targets offered."""
    g = _game(3, "self_target", value)
    out = []
    for card in ("freeze", "flip_three"):
        s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["7"]}, draw=[card])
        s = _play(s, "hit")
        assert s.pending() == ("play", card) and s.current_player == 0
        out.append(tuple(s.legal_action_strings()))
    return tuple(out)


def scenario_flip_three_bust(value: str | int) -> Any:
    """Seat 0 (holding 5) plays a Flip Three on itself and flips Freeze, 5 (bust): what becomes of the Freeze."""
    g = _game(3, "flip_three_bust", value)
    s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["7"]}, draw=["flip_three", "freeze", "5", "9"])
    s = _play(s, "hit", "target 0")
    assert s.status(0) is Status.BUSTED
    after_bust = (s.current_player, s.pending(), tuple(s.legal_action_strings()))
    if s.pending() == ("assign", "freeze"):
        s = _play(s, "target 2")
    return after_bust, s.status(2), s.kept(2), s.current_player


def scenario_set_aside_assigner(value: str | int) -> Any:
    """Seat 0 plays a Flip Three on seat 1, who flips Freeze, 3, 4: who assigns the Freeze, and to whom it goes."""
    g = _game(3, "set_aside_assigner", value)
    s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["7"]}, draw=["flip_three", "freeze", "3", "4", "9"])
    s = _play(s, "hit", "target 1")
    asked = (s.current_player, s.pending(), tuple(s.legal_action_strings()))
    s = _play(s, "target 2")
    return asked, s.status(2), s.line(1)


def scenario_second_chance_in_flip_three(value: str | int) -> Any:
    """Seat 1 (holding 6) takes a Flip Three and flips Second Chance, 6, 8: is it saved by that Second Chance?"""
    g = _game(3, "second_chance_in_flip_three", value)
    draw = ["flip_three", "second_chance", "6", "8", "9"]
    s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["7"]}, draw=draw)
    s = _play(s, "hit", "target 1")
    return s.status(1), s.line(1), s.kept(1), s.current_player


def scenario_first_second_chance(value: str | int) -> Any:
    """Seat 0 (no Second Chance) hits one; seat 1 has none, seat 2 already has one: what seat 0 is asked."""
    g = _game(3, "first_second_chance", value)
    lines = {0: ["5"], 1: ["6"], 2: ["7"]}
    s = g.new_position(dealer=2, turn=0, lines=lines, kept={2: ["second_chance"]}, draw=["second_chance", "9"])
    s = _play(s, "hit")
    return s.current_player, s.pending(), tuple(s.legal_action_strings()), s.kept(0), s.kept(1)


def scenario_deck_between_rounds(value: str | int) -> Any:
    """2 seats holding 5 and 7 both stay over a pile topped 9 10 11 12: round 2's deal and the piles."""
    g = _game(2, "deck_between_rounds", value)
    s = g.new_position(dealer=1, turn=0, lines={0: ["5"], 1: ["7"]}, draw=["9", "10", "11", "12"])
    s = _play(s, "stay", "stay")
    assert s.round == 2 and s.round_scores() == (5, 7)
    discard = dict(sorted(Counter(g.card_ids[c] for c in s.discard).items()))
    return _lines(s), discard, len(s.draw)


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
    s = _play(s, "hit")
    assert [e.get("seat") for e in s.events() if e.type == "flip7"] == [0]
    return s.round_scores()


def scenario_tie(value: str | int) -> Any:
    """Totals 195/193/150, seats score 10/12/3 (205/205 tie); round 2 deals 2 3 4 and all stay."""
    g = _game(3, "tie", value)
    s = g.new_position(
        dealer=2, turn=0, lines={0: ["10"], 1: ["12"], 2: ["3"]}, statuses={1: "stayed", 2: "stayed"},
        totals=[195, 193, 150], draw=["2", "3", "4"],
    )  # fmt: skip
    s = _play(s, "stay")
    first = s.is_terminal()
    while not s.is_terminal():
        s = _play(s, "stay")
    ties = [e.get("leaders") for e in s.events() if e.type == "tie_another_round"]
    return first, s.winners, s.round, s.totals, ties


def scenario_target_score(value: str | int) -> Any:
    """Totals 40/0; seat 0 stays on 12, seat 1 stayed on 3 (totals 52/3): does the game end?"""
    g = _game(2, "target_score", value)
    s = g.new_position(dealer=1, turn=0, lines={0: ["12"], 1: ["3"]}, statuses={1: "stayed"}, totals=[40, 0])
    s = _play(s, "stay")
    return s.is_terminal(), s.winners, s.round, s.totals


def scenario_decks(value: str | int) -> Any:
    """3 seats: seat 0 holds a 0 and a second 0 is stacked on the pile (only possible with two decks)."""
    g = _game(3, "decks", value)
    try:
        s = g.new_position(dealer=2, turn=0, lines={0: ["0"]}, draw=["0"])
    except CardError as exc:
        assert "0" in str(exc)
        return len(g.deck), "CardError"
    s = _play(s, "hit")
    return len(g.deck), s.status(0), s.line(0), sum(s.cards_in_play().values())


SCENARIOS: dict[str, Callable[[str | int], Any]] = {
    "initial_deal": scenario_initial_deal,
    "deal_after_early_cards": scenario_deal_after_early_cards,
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
    "tie": scenario_tie,
    "target_score": scenario_target_score,
    "decks": scenario_decks,
}

HIT_STAY = ("hit", "stay")
HIT = ("hit",)

# option -> reading (or extra integer value) -> the outcome of that option's scenario.
CASES: dict[str, dict[str | int, Any]] = {
    "initial_deal": {
        "deal": ([["9"], ["5"], ["7"]], 1, ["hit", "stay"]),
        "none": ([[], [], []], 1, ["hit"]),
    },
    "deal_after_early_cards": {
        "skip": ([["8"], [], ["3", "4", "6"]], 1),
        "deal": ([["10"], [], ["3", "4", "6", "8"]], 1),
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
}

# option -> the rule ids of its `rules:` entry in flip7.yaml (checked against the table below).
RULES: dict[str, tuple[str, ...]] = {
    "initial_deal": ("F7-020", "F7-021", "F7-022"),
    "deal_after_early_cards": ("F7-025",),
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
}

DEFAULTS: dict[str, str | int] = {
    "initial_deal": "deal",
    "deal_after_early_cards": "skip",
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
}


def _cases(option: str) -> list[Any]:
    return [pytest.param(reading, expected, id=str(reading)) for reading, expected in CASES[option].items()]


def _check(option: str, reading: str | int, expected: Any) -> None:
    assert SCENARIOS[option](reading) == expected


# --------------------------------------------------------------------------- one test per option


@pytest.mark.rules("F7-020", "F7-021", "F7-022")
@pytest.mark.parametrize(("reading", "expected"), _cases("initial_deal"))
def test_initial_deal(reading: str, expected: Any) -> None:
    """initial_deal: with a deal seats 1, 2, 0 get 5, 7, 9 and may Stay; with none nobody has a card and seat 1 must Hit."""
    _check("initial_deal", reading, expected)


@pytest.mark.rules("F7-025")
@pytest.mark.parametrize(("reading", "expected"), _cases("deal_after_early_cards"))
def test_deal_after_early_cards(reading: str, expected: Any) -> None:
    """deal_after_early_cards: the Flip Three target (3 4 6) is passed over (skip) or still dealt the 8 (deal)."""
    _check("deal_after_early_cards", reading, expected)


@pytest.mark.rules("F7-020", "F7-030")
@pytest.mark.parametrize(("reading", "expected"), _cases("start_seat"))
def test_start_seat(reading: str, expected: Any) -> None:
    """start_seat: the first deal card and the first offer go to the dealer's left (seat 1) or to the dealer (seat 0)."""
    _check("start_seat", reading, expected)


@pytest.mark.rules("F7-033")
@pytest.mark.parametrize(("reading", "expected"), _cases("stay_requires"))
def test_stay_requires(reading: str, expected: Any) -> None:
    """stay_requires: a lone +4 or a lone Second Chance allows a Stay under any-card, nothing does under nothing only."""
    _check("stay_requires", reading, expected)


@pytest.mark.rules("F7-033")
def test_stay_requires_nothing_empty_player_scores_zero() -> None:
    """stay_requires nothing: a player with no cards may Stay and scores 0 for the round."""
    g = Game("flip7", 2, {"stay_requires": "nothing"})
    s = g.new_position(dealer=1, turn=0, lines={1: ["9"]}, statuses={1: "stayed"}, totals=[10, 20])
    assert s.legal_action_strings() == ["hit", "stay"]
    s = _play(s, "stay")
    assert s.round == 2
    assert s.round_scores() == (0, 9)
    assert s.totals == (10, 29)


@pytest.mark.rules("F7-061", "F7-072")
@pytest.mark.parametrize(("reading", "expected"), _cases("self_target"))
def test_self_target(reading: str, expected: Any) -> None:
    """self_target: with others active the drawer of a Freeze or Flip Three may pick itself (allowed) or not (only-when-alone)."""
    _check("self_target", reading, expected)


@pytest.mark.rules("F7-061", "F7-072")
@pytest.mark.parametrize("reading", ["allowed", "only-when-alone"])
@pytest.mark.parametrize("card", ["freeze", "flip_three"])
def test_self_target_alone_drawer_must_take_it(reading: str, card: str) -> None:
    """self_target: under both readings a drawer who is the only active player must target itself."""
    g = Game("flip7", 3, {"self_target": reading})
    s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["7"]}, statuses={1: "stayed", 2: "stayed"}, draw=[card])
    s = _play(s, "hit")
    assert s.current_player == 0
    assert s.pending() == ("play", card)
    assert s.legal_action_strings() == ["target 0"]


@pytest.mark.rules("F7-073", "F7-131")
@pytest.mark.parametrize(("reading", "expected"), _cases("flip_three_bust"))
def test_flip_three_bust(reading: str, expected: Any) -> None:
    """flip_three_bust: a Freeze set aside before the target busts is discarded, or still assigned (seat 2 frozen)."""
    _check("flip_three_bust", reading, expected)


@pytest.mark.rules("F7-073")
@pytest.mark.parametrize(("reading", "expected"), _cases("set_aside_assigner"))
def test_set_aside_assigner(reading: str, expected: Any) -> None:
    """set_aside_assigner: the Freeze seat 1 flips in seat 0's Flip Three is assigned by seat 1 (target) or seat 0 (giver)."""
    _check("set_aside_assigner", reading, expected)


@pytest.mark.rules("F7-076", "F7-077")
@pytest.mark.parametrize(("reading", "expected"), _cases("second_chance_in_flip_three"))
def test_second_chance_in_flip_three(reading: str, expected: Any) -> None:
    """second_chance_in_flip_three: a Second Chance flipped first cancels the repeated 6 (immediate) or waits and the 6 busts."""
    _check("second_chance_in_flip_three", reading, expected)


@pytest.mark.rules("F7-082")
@pytest.mark.parametrize(("reading", "expected"), _cases("first_second_chance"))
def test_first_second_chance(reading: str, expected: Any) -> None:
    """first_second_chance: a first Second Chance is kept at once (keep) or may be kept or given to seat 1 (may-give)."""
    _check("first_second_chance", reading, expected)


@pytest.mark.rules("F7-082")
def test_first_second_chance_may_give_hands_it_over() -> None:
    """first_second_chance may-give: choosing seat 1 hands the Second Chance over and the offer passes to seat 1."""
    g = Game("flip7", 3, {"first_second_chance": "may-give"})
    lines = {0: ["5"], 1: ["6"], 2: ["7"]}
    s = g.new_position(dealer=2, turn=0, lines=lines, kept={2: ["second_chance"]}, draw=["second_chance"])
    s = _play(s, "hit", "target 1")
    assert (s.kept(0), s.kept(1), s.kept(2)) == ([], ["second_chance"], ["second_chance"])
    assert s.current_player == 1
    assert [e.to_dict() for e in s.last_events()][:2] == [
        {"type": "target_chosen", "seat": 0, "card": "second_chance", "target": 1},
        {"type": "second_chance_given", "seat": 0, "target": 1, "card": "second_chance"},
    ]


@pytest.mark.rules("F7-111")
@pytest.mark.parametrize(("reading", "expected"), _cases("deck_between_rounds"))
def test_deck_between_rounds(reading: str, expected: Any) -> None:
    """deck_between_rounds: round 2 is dealt 9 and 10 from the passed-on pile (carry-over) or from a fresh 94-card deck."""
    _check("deck_between_rounds", reading, expected)


@pytest.mark.rules("F7-111")
def test_fresh_shuffle_keeps_the_round_one_stack() -> None:
    """deck_between_rounds fresh-shuffle: the stacked cards are still the first cards of round 1."""
    g = Game("flip7", 2, {"deck_between_rounds": "fresh-shuffle"})
    s = _draw(g.new_initial_state(stack=["5", "7"], dealer=1))
    assert _lines(s) == [["5"], ["7"]]


@pytest.mark.rules("F7-115")
@pytest.mark.parametrize(("reading", "expected"), _cases("empty_deck"))
def test_empty_deck(reading: str, expected: Any) -> None:
    """empty_deck: a Hit on an empty deck and discard becomes a Stay (stay) or ends the round with scores 5/7/0 (end-round)."""
    _check("empty_deck", reading, expected)


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
    s = _play(s, "hit")
    s = s.apply("target 1")
    s = s.apply_chance("9")
    events = [e.to_dict() for e in s.last_events()]
    kinds = tuple(e["type"] for e in events[1:3])
    if s.round == 1:
        outcome = (s.round, s.round_scores(), _lines(s)[:2], s.status(1), kinds)
        assert events[2] == {"type": "forced_draw_ended", "seat": 1, "card": "flip_three", "outcome": "exhausted"}
        assert s.current_player == 1
    else:
        outcome = (s.round, s.round_scores(), None, None, kinds)
    assert outcome == expected


@pytest.mark.rules("F7-050")
@pytest.mark.parametrize(("reading", "expected"), _cases("flip7_bonus"))
def test_flip7_bonus(reading: str, expected: Any) -> None:
    """flip7_bonus: the +15 goes to the maker only, or also to the stayed and frozen players but never the busted one."""
    _check("flip7_bonus", reading, expected)


@pytest.mark.rules("F7-121")
@pytest.mark.parametrize(("reading", "expected"), _cases("tie"))
def test_tie(reading: str, expected: Any) -> None:
    """tie: a 205-205 tie at game end leads to another round won by seat 0 alone, or to a shared win of seats 0 and 1."""
    _check("tie", reading, expected)


@pytest.mark.rules("F7-120")
@pytest.mark.parametrize(("reading", "expected"), _cases("target_score"))
def test_target_score(reading: str | int, expected: Any) -> None:
    """target_score: a 52-point total does not end the game at 200 but does at 52."""
    _check("target_score", reading, expected)


@pytest.mark.rules("F7-120")
@pytest.mark.parametrize(
    ("target", "ends"),
    [
        pytest.param(51, True, id="51"),
        pytest.param(52, True, id="52"),
        pytest.param(53, False, id="53"),
        pytest.param("53", False, id="'53'"),
    ],
)
def test_target_score_threshold_is_reached_not_passed(target: str | int, ends: bool) -> None:
    """target_score: the game ends when a total reaches the target exactly or passes it, not one point short."""
    g = Game("flip7", 2, {"target_score": target})
    assert g.options["target_score"] == int(target)
    assert g.target_score == int(target)
    assert scenario_target_score(target)[0] is ends


@pytest.mark.rules("F7-002", "F7-123")
@pytest.mark.parametrize(("reading", "expected"), _cases("decks"))
def test_decks(reading: str | int, expected: Any) -> None:
    """decks: a second 0 on the pile cannot exist with one deck (auto, 3 players) and busts seat 0 with decks=2."""
    _check("decks", reading, expected)


@pytest.mark.rules("F7-002", "F7-123")
@pytest.mark.parametrize(
    ("players", "decks", "expected"),
    [
        pytest.param(18, "auto", 1, id="18-auto"),
        pytest.param(19, "auto", 2, id="19-auto"),
        pytest.param(37, "auto", 3, id="37-auto"),
        pytest.param(19, 1, 1, id="19-one"),
        pytest.param(4, 3, 3, id="4-three"),
    ],
)
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
    played = {reading: SCENARIOS[option](reading) for reading in CASES[option]}
    assert played == CASES[option]
    for a, b in combinations(played, 2):
        assert played[a] != played[b], f"{option}: readings {a!r} and {b!r} give the same outcome"


def test_cases_cover_every_option_and_reading() -> None:
    """Every option and reading of flip7.yaml has a case here, integer options a non-default integer too, and the right rules."""
    assert set(CASES) == set(EDITION.options)
    assert set(SCENARIOS) == set(EDITION.options)
    assert set(RULES) == set(EDITION.options)
    for name, spec in EDITION.options.items():
        readings = {r.name for r in spec.readings}
        named = {k for k in CASES[name] if isinstance(k, str)}
        assert named == readings, f"{name}: cases {sorted(named)} vs readings {sorted(readings)}"
        extra = [k for k in CASES[name] if isinstance(k, int)]
        if spec.integer is None:
            assert extra == [], f"{name} is not an integer option"
        else:
            assert extra, f"{name}: no case with a non-default integer"
            assert all(spec.coerce(k) == k and k != spec.coerce(spec.default) for k in extra)
        assert RULES[name] == spec.rules
        test = globals()[f"test_{name}"]
        marks = [m.args for m in getattr(test, "pytestmark", []) if m.name == "rules"]
        assert marks == [spec.rules], f"test_{name} cites {marks}, the table says {spec.rules}"


def test_table_option_list() -> None:
    """flip7.yaml defines exactly these fifteen options, with these readings, in this order."""
    assert {n: [r.name for r in o.readings] for n, o in EDITION.options.items()} == {
        "initial_deal": ["deal", "none"],
        "deal_after_early_cards": ["skip", "deal"],
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
    }
    assert list(EDITION.options) == list(CASES)


# --------------------------------------------------------------------------- defaults and errors


def test_default_options() -> None:
    """Game('flip7', 4) takes the table's default for every option."""
    g = Game("flip7", 4)
    assert dict(g.options) == DEFAULTS
    assert dict(g.options) == {n: o.coerce(o.default) for n, o in EDITION.options.items()}
    assert g.non_default_options() == {}
    assert g == Game("flip7", 4, DEFAULTS)
    assert (g.target_score, g.decks, len(g.deck)) == (200, 1, 94)


def test_unknown_option_name() -> None:
    """An unknown option name raises OptionError naming it and listing the known options."""
    with pytest.raises(OptionError) as info:
        Game("flip7", 4, {"stay_rule": "any-card"})
    message = str(info.value)
    assert "'stay_rule'" in message
    for name in EDITION.options:
        assert name in message


@pytest.mark.parametrize("option", list(DEFAULTS))
def test_unknown_option_value(option: str) -> None:
    """An unknown value raises OptionError naming the option, the value and every allowed reading."""
    with pytest.raises(OptionError) as info:
        Game("flip7", 4, {option: "bogus-reading"})
    message = str(info.value)
    assert f"option {option}:" in message
    assert "'bogus-reading'" in message
    for reading in EDITION.options[option].readings:
        assert reading.name in message
    if EDITION.options[option].integer is not None:
        assert "whole number" in message


def test_unknown_option_value_messages_exact() -> None:
    """The OptionError messages of a named and an integer option, word for word."""
    expected = r"^option stay_requires: unknown value 'always' \(expected any-card, number-card, nothing\)$"
    with pytest.raises(OptionError, match=expected):
        Game("flip7", 4, {"stay_requires": "always"})
    with pytest.raises(OptionError, match=r"^option decks: unknown value 'many' \(expected auto, or a whole number\)$"):
        Game("flip7", 4, {"decks": "many"})
    with pytest.raises(OptionError, match=r"^option tie: unknown value True \(expected another-round, shared-win\)$"):
        Game("flip7", 4, {"tie": True})


@pytest.mark.parametrize(
    ("option", "value", "bound"),
    [
        pytest.param("target_score", 0, "expected 1..10000", id="target-0"),
        pytest.param("target_score", -5, "expected 1..10000", id="target-neg"),
        pytest.param("decks", 0, "expected 1..8", id="decks-0"),
        pytest.param("decks", 9, "expected 1..8", id="decks-9"),
    ],
)
def test_integer_option_out_of_range(option: str, value: int, bound: str) -> None:
    """An integer outside an integer option's range raises OptionError naming the option and the range."""
    with pytest.raises(OptionError) as info:
        Game("flip7", 4, {option: value})
    assert str(info.value) == f"option {option}: {value} is out of range ({bound})"


@pytest.mark.parametrize("option", [o for o, spec in EDITION.options.items() if spec.integer is None])
def test_named_option_rejects_integers(option: str) -> None:
    """A named (non-integer) option does not accept a number."""
    with pytest.raises(OptionError, match=rf"^option {option}: unknown value 1 "):
        Game("flip7", 4, {option: 1})
