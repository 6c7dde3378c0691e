"""Blame by cause (issue 46): what the reference knows of why a step went as it did, put
beside the step's own rules — the seat a round starts from, a seat the step took out, the
journeys of the cards a reshuffle misses, a shared top total, a set-up line at a Flip 7."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from flip7ref.checking.harness import implementation
from flip7ref.checking.shortlist import KEPT, SAME_STEP, WENT
from flip7ref.checking.situation import position_rules
from flip7ref.checking.verdict import Prepared, prepare, verdict
from flip7ref.core.spec import load_edition


def _prepared(case: dict[str, Any]) -> Prepared:
    prepared = prepare(case, implementation())
    assert isinstance(prepared, Prepared)
    return prepared


def _case(edition: str, setup: dict[str, Any], actions: list[str], expect: dict[str, Any],
          options: dict[str, Any] | None = None, kind: str = "transition") -> dict[str, Any]:  # fmt: skip
    return {"id": "T-CAUSE", "title": "hand-made", "edition": edition, "rules": ["F7-001" if edition == "flip7" else "V-001"],
            "source": "test", "kind": kind, "options": options or {}, "setup": setup, "actions": actions,
            "expect": expect}  # fmt: skip


def _events(prepared: Prepared) -> list[dict[str, Any]]:
    return copy.deepcopy(list(prepared.run.observed["events"]))


@pytest.mark.rules("V-011", "V-012")
def test_a_deal_starting_at_another_seat_is_blamed_on_the_deal_then_on_the_seat_rounds_start_from() -> None:
    """Vengeance, dealer 1: the reference deals its first card to seat 2, the engine to seat 1
    (the dealer).  The first card of a deal goes to the seat the round starts from (D-V-19): the
    deal's rule V-011, then V-012 (who is offered first, the same seat); before, V-011 alone."""
    prepared = _prepared(_case("vengeance", {"players": 3, "dealer": 1, "deal": True, "draw": ["4", "5", "6"]}, [],
                               {"events": [{"type": "round_started", "round": 1, "dealer": 1},
                                           {"type": "dealt", "seat": 2, "card": "4", "via": "deal"}]}))  # fmt: skip
    events = _events(prepared)
    assert [e.get("seat") for e in events] == [None, 2, 0, 1]
    for ev, seat in zip(events[1:], (1, 2, 0), strict=True):
        ev["seat"] = seat
    result = verdict(prepared, {"events": events})
    assert result.status == "fail" and result.blame == ("V-011", "V-012")
    later = _events(prepared)  # the first card right, the second to another seat: not the start seat
    later[2]["seat"], later[3]["seat"] = 1, 0
    assert verdict(prepared, {"events": later}).blame == ("V-011",)


FREEZE_THEN_FLIP_THREE = {"players": 3, "dealer": 2, "turn": 0, "lines": {"0": ["1"], "1": ["2"], "2": ["3"]},
                          "draw": ["flip_three", "freeze", "flip_three", "5", "6", "7", "8"]}  # fmt: skip
"""F7-C0704's position: seat 0's Flip Three on seat 1 flips a Freeze and a Flip Three, both
assigned to seat 2: frozen, then the Flip Three discarded (target no longer eligible)."""


@pytest.mark.rules("F7-060", "F7-075")
def test_a_seat_drawing_after_the_step_took_it_out_is_blamed_with_what_took_it_out() -> None:
    """The engine reports seat 2 frozen, then starts the Flip Three assigned to it where the
    reference discards it: blamed on that discard (F7-074), then on what took seat 2 out, the
    Freeze (F7-060, F7-062); before, the discard's rules alone (F7-074, F7-075)."""
    discarded = {"type": "discarded", "card": "flip_three", "seat": 2, "reason": "target no longer eligible"}
    prepared = _prepared(_case("flip7", FREEZE_THEN_FLIP_THREE, ["hit", "target 1", "target 2", "target 2"],
                               {"events_include": [discarded]}))  # fmt: skip
    events = _events(prepared)
    assert events[11] == {"type": "frozen", "seat": 2, "by": 1}
    assert events[12]["type"] == "discarded"
    seen = [*events[:12], {"type": "forced_draw_started", "seat": 2, "by": 1, "card": "flip_three", "count": 3},
            {"type": "dealt", "seat": 2, "card": "6", "via": "flip_three"}]  # fmt: skip
    result = verdict(prepared, {"events": seen})
    assert result.status == "fail" and result.blame == ("F7-074", "F7-060", "F7-062")


@pytest.mark.rules("F7-078", "F7-074", "F7-075")
def test_a_pile_short_of_one_of_two_journeys_of_one_card_is_blamed_on_those_journeys_only() -> None:
    """The same step discards two Flip Three cards, one at its Flip Three's end (F7-078), one
    its frozen target could not take (F7-074, F7-075); an engine's pile one card short is blamed
    on both journeys, latest first — not first on the Freeze kept in front in that step
    (F7-062), which moved no card to the pile (before: F7-062, F7-074, F7-075)."""
    prepared = _prepared(_case("flip7", FREEZE_THEN_FLIP_THREE, ["hit", "target 1", "target 2", "target 2"],
                               {"discard_count": 2}))  # fmt: skip
    result = verdict(prepared, {"discard_count": 1})
    assert result.status == "fail" and result.blame == ("F7-074", "F7-075", "F7-078")


@pytest.mark.rules("F7-078", "F7-111")
def test_a_reshuffle_short_of_two_flip_three_cards_is_blamed_on_where_they_went() -> None:
    """F7-C1107: two Flip Three cards reach the discard pile, each at its Flip Three's end
    (F7-078), then the round's three cards at its end in the step that reshuffles five.  An
    engine reshuffling three (the Flip Three cards lost) is blamed on F7-078, the one rule whose
    journeys together moved the two missing cards (before: the reshuffle's F7-113, F7-114)."""
    setup = {"players": 3, "dealer": 2, "turn": 0, "lines": {"0": ["5"], "1": ["6"], "2": ["12"]},
             "statuses": {"1": "stayed", "2": "stayed"}, "draw": ["flip_three", "flip_three"], "rest": "out"}  # fmt: skip
    prepared = _prepared(_case("flip7", setup, ["hit", "target 0", "target 0", "hit"],
                               {"events_include": [{"type": "reshuffled", "cards": 5}]}, {"reshuffles": 0}))  # fmt: skip
    events = _events(prepared)
    at = next(i for i, e in enumerate(events) if e["type"] == "reshuffled")
    assert events[at] == {"type": "reshuffled", "cards": 5}
    seen = [*events[:at], {"type": "reshuffled", "cards": 3}]
    result = verdict(prepared, {"events": seen})
    assert result.status == "fail" and result.blame == ("F7-078", "F7-113", "F7-114")
    assert result.reasons == (WENT, SAME_STEP, SAME_STEP)


@pytest.mark.rules("F7-121")
def test_a_game_won_by_one_of_tied_leaders_is_blamed_on_the_tie_rule() -> None:
    """F7-C1040 (tie shared-win): 205-205 at the end; an engine naming seat 0 alone the winner
    is blamed on the tie rule F7-121, then the game's end F7-120 (before: F7-120 alone)."""
    setup = {"players": 3, "dealer": 2, "turn": 0, "totals": [195, 193, 150],
             "lines": {"0": ["10"], "1": ["12"], "2": ["3"]}, "statuses": {"1": "stayed", "2": "stayed"},
             "draw": ["2", "3", "4"]}  # fmt: skip
    prepared = _prepared(_case("flip7", setup, ["stay"], {"winners": [0, 1]}, {"tie": "shared-win"}, kind="game"))
    events = _events(prepared)
    assert events[-1]["type"] == "game_won" and events[-1]["winners"] == [0, 1]
    events[-1]["winners"] = [0]
    result = verdict(prepared, {"events": events, "winners": [0]})
    assert result.status == "fail" and result.blame == ("F7-121", "F7-120")


@pytest.mark.rules("V-036", "V-022")
def test_a_refused_line_at_a_flip7_with_a_lucky13_pair_names_the_flip7_before_the_plain_bust() -> None:
    """Lucky 13, a 13 and 1-5 (a Flip 7 under lucky13_flip7 twice, V-C0170): the pair's card
    V-036 first, then the Flip 7's V-022 before the plain bust's V-021 (before: V-036, V-020,
    V-021, the Flip 7 cut from the three shown)."""
    vengeance = load_edition("vengeance")
    line = {"kind": "scoring", "line": ["lucky13", "13", "1", "2", "3", "4", "5"]}
    assert position_rules(vengeance, line) == ("V-036", "V-020", "V-022", "V-021")


@pytest.mark.rules("F7-020", "F7-030")
def test_a_card_drawn_on_another_seats_offer_is_blamed_on_who_was_offered() -> None:
    """After the deal (dealer 2) seat 0 is offered first and hits a Second Chance.  An engine
    offering seat 1 first reports the Second Chance in seat 1's ``kept``; the case checks only
    ``kept``.  With the events reported, their first difference (the Hit dealt to seat 1) names
    the turns; without them, the ``kept`` difference alone named the Second Chance's rules
    (F7-080, F7-082).  The card dealt on seat 0's offer lying in another seat's field is that
    earlier, unchecked difference: who is offered first (F7-020, F7-030) comes first."""
    setup = {"players": 3, "dealer": 2, "deal": True, "draw": ["5", "7", "9", "second_chance", "10", "11", "12"]}
    prepared = _prepared(_case("flip7", setup, ["hit"], {"kept": {"0": ["second_chance"], "1": []}}))
    seen: dict[str, Any] = copy.deepcopy(dict(prepared.run.observed))
    for ev in seen["events"]:
        if ev.get("via") == "hit":
            ev["seat"] = 1
    seen["kept"] = {"0": [], "1": ["second_chance"], "2": []}
    seen["next"] = {"player": 2, "legal": ["hit", "stay"]}
    assert verdict(prepared, seen).blame == ("F7-030", "F7-031", "F7-035")
    quiet = {k: v for k, v in seen.items() if k != "events"}
    assert verdict(prepared, quiet, events=[]).blame == ("F7-020", "F7-030", "F7-031")
    assert verdict(prepared, quiet).blame == ("F7-020", "F7-030", "F7-031")
    own = {**quiet, "kept": {"0": [], "1": [], "2": []}}  # the card lost, not drawn elsewhere: its own rules
    assert verdict(prepared, own).blame == ("F7-080", "F7-082")


@pytest.mark.rules("V-036")
def test_an_engine_busting_on_a_lucky13_beside_a_13_is_blamed_on_lucky13() -> None:
    """Seat 0 holds a 13 and a 2 and hits Lucky 13 (V-C5003's first deal order): the reference
    keeps both 13s (V-036) and, the deck empty, goes on; an engine busting seat 0 on the Lucky 13
    is blamed on V-036 first, the special card of the pair (before: the empty deck's V-072)."""
    setup = {"players": 3, "dealer": 2, "turn": 0, "lines": {"0": ["13"], "1": ["2"], "2": ["11"]},
             "draw": ["2", "12", "13", "lucky13"]}  # fmt: skip
    prepared = _prepared(_case("vengeance", setup, ["hit"] * 5, {"statuses": {"0": "active"}}))
    events = _events(prepared)
    assert events[3] == {"type": "dealt", "seat": 0, "card": "lucky13", "via": "hit"}
    assert events[4] == {"type": "deck_exhausted"}
    seen = {"events": [*events[:4], {"type": "busted", "seat": 0, "card": "lucky13"}], "statuses": {"0": "busted"}}
    result = verdict(prepared, seen)
    assert result.status == "fail" and result.blame == ("V-036", "V-020", "V-072")


@pytest.mark.rules("F7-060")
def test_a_round_the_engine_goes_on_with_a_frozen_seat_is_blamed_on_the_freeze() -> None:
    """Seat 0 freezes itself, seats 1 and 2 stay: the reference ends the round (F7-C5012's fourth
    deal order).  An engine going on and offering seat 0 next is blamed on what took seat 0
    out, the Freeze (F7-060, F7-062), before the last Stay (before: F7-034, F7-110)."""
    setup = {"players": 3, "dealer": 2, "turn": 0, "lines": {"0": ["4"], "1": ["9"], "2": ["12"]},
             "draw": ["freeze", "4", "5", "9", "flip_three"]}  # fmt: skip
    prepared = _prepared(_case("flip7", setup, ["hit", "target 0", "stay", "stay"],
                               {"events_include": [{"type": "round_scored", "round": 1, "scores": [4, 9, 12]}]}))  # fmt: skip
    events = _events(prepared)
    assert events[4] == {"type": "stayed", "seat": 2} and events[5]["type"] == "round_scored"
    result = verdict(prepared, {"events": events[:5], "next": {"player": 0, "legal": ["hit", "stay"]}})
    assert result.status == "fail" and result.blame == ("F7-060", "F7-062", "F7-034")
    other = verdict(prepared, {"events": events[:5], "next": {"player": 2, "legal": ["hit", "stay"]}})
    assert other.blame == ("F7-034", "F7-110")  # the seat that stayed last: what ended the round alone


@pytest.mark.rules("F7-041")
def test_a_reshuffle_of_cards_the_reference_kept_in_front_is_blamed_on_where_they_stayed() -> None:
    """Seat 1 busts on a 9 (F7-C5001's first deal order) and the deck runs out: the reference's
    discard pile is empty (the busted line stays in front until the round ends, F7-041), so the
    next Hit finds no card.  An engine reshuffling one card there (the busting 9, discarded at
    once) is blamed on F7-041, the cards the reference kept in play (before: F7-115)."""
    setup = {"players": 3, "dealer": 2, "turn": 0, "lines": {"0": ["5"], "1": ["9"], "2": ["12"]}, "draw": ["7", "9", "x2"]}
    prepared = _prepared(_case("flip7", setup, ["hit", "hit", "hit", "hit"],
                               {"events_include": [{"type": "deck_exhausted"}]}))  # fmt: skip
    events = _events(prepared)
    assert events[2] == {"type": "busted", "seat": 1, "card": "9"} and events[4] == {"type": "deck_exhausted"}
    seen = [*events[:4], {"type": "reshuffled", "cards": 1}, {"type": "dealt", "seat": 0, "card": "9", "via": "hit"}]
    result = verdict(prepared, {"events": seen})
    assert result.status == "fail" and result.blame == ("F7-041", "F7-115", "F7-116")
    assert result.reasons[0] == KEPT


@pytest.mark.rules("F7-079")
def test_the_next_offer_after_a_flip_threes_set_aside_cards_is_blamed_on_where_play_resumes() -> None:
    """Seat 0's Flip Three on seat 1 ends, then its set-aside Freeze and Flip Three are assigned
    (two more steps): play resumes on the left of seat 0, at seat 1.  An engine offering seat 0
    next is blamed on where play resumes after a Flip Three (F7-079), found back to the last Hit
    (before: the offer order, F7-030, F7-031, F7-032, the Flip Three's end two steps back)."""
    prepared = _prepared(_case("flip7", FREEZE_THEN_FLIP_THREE, ["hit", "target 1", "target 2", "target 2"],
                               {"next": {"player": 1}}))  # fmt: skip
    result = verdict(prepared, {"next": {"player": 0, "legal": ["hit", "stay"]}})
    assert result.status == "fail" and result.blame == ("F7-079",)


@pytest.mark.rules("F7-078")
def test_a_reshuffle_is_compared_with_the_engines_of_the_same_round() -> None:
    """F7-C1108's first three actions: a reshuffle of three cards, a Flip Three that ends (its
    card to the pile, F7-078), then a Hit reshuffles that one card.  An engine that lost the
    Flip Three card finds the deck exhausted there, and reshuffles six cards only in round 2:
    its round-1 reshuffles are compared (none: 0 cards, the Flip Three card missing), not its
    round-2 one (before: six cards were no fewer, and the reshuffle rules were blamed)."""
    setup = {"players": 3, "dealer": 2, "turn": 0, "lines": {"0": ["5"], "1": ["6"], "2": ["12"]},
             "statuses": {"1": "stayed", "2": "stayed"}, "draw": ["flip_three"], "discard": ["7", "8", "9"],
             "rest": "out"}  # fmt: skip
    expect = {"events_include": [{"type": "reshuffled", "cards": 1}]}
    prepared = _prepared(_case("flip7", setup, ["hit", "target 0", "hit"], expect, {"reshuffles": "unlimited"}))
    events = _events(prepared)
    assert events[7]["type"] == "forced_draw_ended" and events[8] == {"type": "reshuffled", "cards": 1}
    seen = [*events[:8], {"type": "deck_exhausted"}, {"type": "stayed", "seat": 0, "reason": "empty deck"},
            {"type": "round_scored", "round": 1, "scores": [29, 6, 12], "totals": [29, 6, 12], "flip7": None},
            {"type": "round_started", "round": 2, "dealer": 0}, {"type": "reshuffled", "cards": 6}]  # fmt: skip
    result = verdict(prepared, {"events": seen})
    assert result.status == "fail" and result.blame == ("F7-078", "F7-113", "F7-114")
    assert result.reasons[0] == WENT
