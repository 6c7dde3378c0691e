"""Blame on the most specific suspect: the edition's named readings replayed (flip7ref.checking.suspects),
and the situation a decider's several rules were exercised in (flip7ref.checking.blame)."""

from __future__ import annotations

from typing import Any

import pytest

from flip7ref.checking.blame import turn_rules
from flip7ref.checking.harness import implementation
from flip7ref.checking.situation import line_tags, position_rules
from flip7ref.checking.suspects import reading_suspects
from flip7ref.checking.verdict import Prepared, prepare, verdict
from flip7ref.core.spec import load_edition


def _prepared(case: dict[str, Any]) -> Prepared:
    prepared = prepare(case, implementation())
    assert isinstance(prepared, Prepared)
    return prepared


DEAL = {
    "id": "T-DEAL", "title": "a plain deal", "edition": "flip7", "rules": ["F7-020"], "source": "test",
    "kind": "transition", "setup": {"players": 3, "dealer": 0, "deal": True, "draw": ["5", "7", "9", "10", "11"]},
    "actions": [], "expect": {"lines": {"0": ["9"], "1": ["5"], "2": ["7"]}, "next": {"player": 1}},
}  # fmt: skip


@pytest.mark.rules("F7-020", "F7-030")
def test_an_engine_playing_another_named_reading_is_blamed_on_that_options_rules() -> None:
    """An engine dealing from the dealer (seat 0 first) where the reference deals from the
    dealer's left: start_seat=dealer replayed reproduces its lines and next player, so the
    blame starts with that option's rules, F7-020 (the deal) then F7-030."""
    prepared = _prepared(DEAL)
    seen = {"lines": {"0": ["5"], "1": ["7"], "2": ["9"]}, "next": {"player": 0}}
    assert reading_suspects(prepared, seen) == ("F7-020", "F7-030")
    result = verdict(prepared, seen)
    assert result.status == "fail" and result.blame[:2] == ("F7-020", "F7-030")


def test_a_partial_match_with_another_reading_is_no_evidence() -> None:
    """The same engine, but with a line no reading gives: no option is a suspect."""
    prepared = _prepared(DEAL)
    seen = {"lines": {"0": ["5"], "1": ["7"], "2": ["10"]}, "next": {"player": 0}}
    assert reading_suspects(prepared, seen) == ()


def _transition(edition: str, setup: dict[str, Any], actions: list[str], expect: dict[str, Any],
                options: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    return {"id": "T-HAND", "title": "hand-made", "edition": edition, "rules": ["F7-001" if edition == "flip7" else "V-001"],
            "source": "test", "kind": "transition", "options": options or {}, "setup": setup, "actions": actions,
            "expect": expect}  # fmt: skip


def _seats(lines: dict[str, list[str]], **more: Any) -> dict[str, Any]:
    return {"players": 3, "dealer": 2, "turn": 0, "lines": lines, **more}


def _hit(card: str) -> dict[str, Any]:
    return {"type": "dealt", "seat": 0, "card": card, "via": "hit"}


@pytest.mark.rules("F7-005")
def test_a_flip7_missed_on_a_line_holding_the_0_is_blamed_on_the_0_counting() -> None:
    """Seat 0 holds 0-5 and draws a 6: the reference's Flip 7 decider counts the 0 (F7-005) as
    well as the threshold (F7-050).  An engine dealing the 6 and going on without a Flip 7 is
    blamed on F7-005 first — the condition the line exercised — though F7-005 is a rule on the
    box, which the blame otherwise puts last."""
    setup = _seats({"0": ["0", "1", "2", "3", "4", "5"], "1": ["7"], "2": ["8"]}, draw=["6", "9", "10", "11"])
    case = _transition("flip7", setup, ["hit"], {"events_include": [{"type": "flip7", "seat": 0}]})
    result = verdict(_prepared(case), {"events": [_hit("6")], "next": {"player": 1}})
    assert result.status == "fail" and result.blame[:2] == ("F7-005", "F7-050")


@pytest.mark.rules("F7-050", "F7-090")
def test_a_flip7_the_engine_makes_alone_is_blamed_on_the_threshold_or_on_the_modifiers() -> None:
    """Seat 0 holds 1-5 and draws a 6 (six numbers, one short): an engine emitting a Flip 7 is
    blamed on the threshold F7-050; with a +2 beside them (numbers and modifiers reach seven)
    on F7-090 (modifiers never count) first."""
    plain = _transition("flip7", _seats({"0": ["1", "2", "3", "4", "5"], "1": ["7"], "2": ["8"]},
                                        draw=["6", "9", "10", "11"]), ["hit"], {"events": [_hit("6")]})  # fmt: skip
    made = {"events": [_hit("6"), {"type": "flip7", "seat": 0}]}
    assert verdict(_prepared(plain), made).blame[0] == "F7-050"
    plus = {**plain, "setup": {**plain["setup"], "lines": {"0": ["1", "2", "3", "4", "5", "+2"], "1": ["7"], "2": ["8"]}}}
    assert verdict(_prepared(plus), made).blame[:2] == ("F7-090", "F7-050")


@pytest.mark.rules("F7-005", "F7-090")
def test_a_scoring_case_off_by_the_flip7_bonus_is_blamed_on_the_flip7_decision() -> None:
    """A scoring case 0-6 (a Flip 7 with the 0: 21 + 15): an engine scoring 21 without saying
    whether it saw a Flip 7 is off by exactly the bonus, the other outcome of the Flip 7
    decision: blamed on F7-005 first.  Six numbers and a +2 scored as a Flip 7 (+15): F7-090."""
    zero = {"id": "T-S", "title": "t", "edition": "flip7", "rules": ["F7-050"], "source": "test", "kind": "scoring",
            "line": ["0", "1", "2", "3", "4", "5", "6"], "expect": {"score": 36}}  # fmt: skip
    assert verdict(_prepared(zero), {"score": 21}).blame[0] == "F7-005"
    plus = {**zero, "line": ["1", "2", "3", "4", "5", "6", "+2"], "expect": {"score": 23, "flip7": False}}
    assert verdict(_prepared(plus), {"score": 38, "flip7": True}).blame[0] == "F7-090"


@pytest.mark.rules("F7-040")
def test_a_second_chance_not_used_where_the_engine_dealt_on_is_blamed_on_the_duplicate_rule() -> None:
    """Seat 0 holds a 5 and a Second Chance and draws a 5: the reference uses the Second Chance.
    An engine that only deals the 5 never saw a duplicate: F7-040 first (table key
    ``second_chance_used|nothing``); one that busts instead used no Second Chance: F7-080."""
    case = _transition("flip7", _seats({"0": ["5"], "1": ["7"], "2": ["8"]}, kept={"0": ["second_chance"]},
                                       draw=["5", "9", "10", "11"]), ["hit"], {"lines": {"0": ["5"]}})  # fmt: skip
    prepared = _prepared(case)
    assert verdict(prepared, {"events": [_hit("5")], "lines": {"0": ["5", "5"]}}).blame[0] == "F7-040"
    busts = {"events": [_hit("5"), {"type": "busted", "seat": 0, "card": "5"}], "lines": {"0": ["5", "5"]}}
    assert verdict(prepared, busts).blame[0] == "F7-080"


@pytest.mark.rules("F7-120")
def test_a_game_won_where_the_reference_starts_another_round_is_blamed_on_the_game_end() -> None:
    """Totals 160, 1, 2 after the round: under 200 the reference starts round 2; an engine
    declaring a winner instead is blamed on F7-120 (``round_started|game_won``), not on the
    rules of starting a round."""
    setup = _seats({"0": ["10"], "1": ["1"], "2": ["2"]}, statuses={"1": "stayed", "2": "stayed"}, totals=[150, 0, 0],
                   draw=["5", "9", "10", "11"])  # fmt: skip
    prepared = _prepared(_transition("flip7", setup, ["stay"], {"round": 2}))
    events = [e for e in prepared.run.observed["events"] if e["type"] in ("stayed", "round_scored")]
    seen = {"events": [*events, {"type": "game_won", "winners": [0], "totals": [160, 1, 2], "rounds": 1}], "round": 1}
    assert verdict(prepared, seen).blame[0] == "F7-120"


@pytest.mark.rules("V-082")
def test_an_engine_going_past_a_choice_the_reference_waits_for_is_blamed_on_that_choice() -> None:
    """Brutal Mode, a Flip 7: the reference waits for the maker's choice of the 15 points
    (V-082); an engine scoring the round at once is blamed on V-082 first."""
    setup = _seats({"0": ["1", "2", "3", "4", "5", "6"], "1": ["8"], "2": ["9"]}, draw=["7", "10", "11", "12"])
    prepared = _prepared(_transition("vengeance", setup, ["hit"], {"next": {"player": 0}}, {"brutal": "true"}))
    seen = {"events": [_hit("7"), {"type": "flip7", "seat": 0},
                       {"type": "round_scored", "round": 1, "scores": [43, 8, 9], "totals": [43, 8, 9], "flip7": 0}],
            "next": {"player": 1}}  # fmt: skip
    assert verdict(prepared, seen).blame[0] == "V-082"


@pytest.mark.rules("F7-020", "F7-030")
def test_the_first_offer_of_a_round_is_blamed_on_the_seat_the_deal_starts_from() -> None:
    """Right after a deal, who is offered first is the deal's first seat (F7-020, then the
    offer order F7-030); after a Hit, the offer order alone (F7-030 first)."""
    prepared = _prepared(DEAL)
    state = prepared.run.states[-1]
    assert turn_rules(state)[:2] == ("F7-020", "F7-030")
    after = state.apply("hit")
    card = after.next_card()
    assert card is not None
    assert turn_rules(after.apply_chance(card))[0] == "F7-030"
    position = _prepared(_transition("flip7", _seats({"0": ["5"], "1": ["7"], "2": ["8"]}, draw=["9"]), [], {}))
    assert turn_rules(position.run.states[-1], set_turn=True)[0] == "F7-030"  # the set-up named who acts


def test_line_tags_and_a_refused_set_up_name_the_line_nearest_a_boundary() -> None:
    """`line_tags`: the 0, numbers one short, numbers short that modifiers bring to seven.
    `position_rules`: a set-up line one short of a Flip 7 on the threshold (F7-050, V-022),
    a 13 beside Lucky 13 on V-036 (the card allowing the pair) first."""
    flip7, vengeance = load_edition("flip7"), load_edition("vengeance")
    assert line_tags(flip7, ["0", "1", "2", "3", "4", "5", "6"]) == ["zero"]
    assert line_tags(flip7, ["1", "2", "3", "4", "5", "6"]) == ["one_short"]
    assert line_tags(flip7, ["1", "2", "3", "4", "5", "6", "+2"]) == ["modifiers_reach", "one_short"]
    assert line_tags(flip7, ["1", "2"]) == []
    six = {"kind": "transition", "setup": {"lines": {"0": ["1", "2", "3", "4", "5", "6"], "1": ["7"]}}}
    assert position_rules(flip7, six)[0] == "F7-050"
    assert position_rules(vengeance, six)[0] == "V-022"
    pair = {"kind": "transition", "setup": {"lines": {"0": ["lucky13", "13", "4"]}}}
    assert position_rules(vengeance, pair)[:2] == ("V-036", "V-020")
    assert position_rules(flip7, {"kind": "transition", "setup": {"lines": {"0": ["1", "2"]}}}) == ()


@pytest.mark.rules("F7-081")
def test_a_hit_dealt_to_another_seat_is_blamed_on_what_decided_who_acts_next() -> None:
    """Seat 0 holds an 8 and a Second Chance and draws another 8: the Second Chance saves it
    and the next offer goes to seat 1 (F7-081).  An engine dealing the next Hit to seat 0
    again is blamed on F7-081 (``second_chance_used@next``) before the offer order F7-030."""
    setup = _seats({"0": ["8"], "1": ["7"], "2": ["9"]}, kept={"0": ["second_chance"]}, draw=["8", "8", "10", "11"])
    prepared = _prepared(_transition("flip7", setup, ["hit", "hit"], {"lines": {"1": ["7", "8"]}}))
    used = {"type": "second_chance_used", "seat": 0, "card": "8", "shield": "second_chance"}
    assert prepared.run.observed["events"][:3] == [_hit("8"), used, {**_hit("8"), "seat": 1}]
    seen = {"events": [_hit("8"), used, _hit("8")], "lines": {"1": ["7"]}}
    assert verdict(prepared, seen).blame[:2] == ("F7-081", "F7-030")
