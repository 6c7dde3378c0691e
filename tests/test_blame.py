"""Blame from the first differing observation (flip7ref.checking.blame), and the event-list wording."""

from __future__ import annotations

from typing import Any

import pytest

from flip7ref.checking.conformance import compare_detailed, load_cases, observe
from flip7ref.checking.harness import implementation
from flip7ref.checking.verdict import Prepared, failed, prepare, verdict
from tests.engines.mutants import MUTANTS


def _case(case_id: str) -> dict[str, Any]:
    return dict(next(c for c in load_cases() if c["id"] == case_id))


def _prepared(case: dict[str, Any]) -> Prepared:
    prepared = prepare(case, implementation())
    assert isinstance(prepared, Prepared)
    return prepared


@pytest.mark.rules("F7-062")
def test_blame_follows_the_game_not_the_order_of_the_expect_keys() -> None:
    """An engine discarding the Freeze at once (F7-062 broken) differs first in the frozen
    seat's kept cards, then in the discard pile's size.  Listing ``discard_count`` first in
    ``expect`` does not move the blame: both orders blame F7-062 first (the step that last
    changed seat 0's kept cards, the Freeze's), not the deal's rules nor F7-060."""
    case = _case("F7-C0202")
    mutant = MUTANTS["freeze-discarded"]
    prepared = _prepared(case)
    seen = mutant.observe(prepared.request())
    assert seen["kept"]["0"] == [] and seen["discard_count"] == 1
    plain = verdict(prepared, seen)
    assert plain.status == "fail" and plain.blame[0] == "F7-062"
    first = {**case, "expect": {"discard_count": 0, **case["expect"]}}
    reordered = verdict(_prepared(first), seen)
    assert reordered.message == "discard_count: expected 0, observed 1"
    assert reordered.blame[0] == "F7-062"


@pytest.mark.rules("F7-051")
def test_a_score_is_blamed_on_the_rule_deciding_that_seat() -> None:
    """Players who did not make the Flip 7 scoring 0 (F7-051 broken): the round_scored event
    differs for a non-busted seat of a Flip 7 round, which F7-051 decides — not F7-100."""
    mutant = MUTANTS["flip7-others-score-zero"]
    blamed = []
    for case_id in ("F7-C0500", "F7-C0502"):
        prepared = _prepared(_case(case_id))
        result = verdict(prepared, mutant.observe(prepared.request()))
        blamed.append((result.status, result.blame[0]))
    assert blamed == [("fail", "F7-051"), ("fail", "F7-051")]


def test_an_included_event_seen_out_of_order_is_said_to_be_out_of_order() -> None:
    """``events_include`` finding its second event only before the first says "out of order"
    and where, not "not observed"."""
    first = {"type": "frozen", "seat": 1}
    second = {"type": "dealt", "seat": 2, "card": "5"}
    observed = {"events": [{"type": "dealt", "seat": 2, "card": "5", "via": "hit"}, {"type": "frozen", "seat": 1, "by": 0}]}
    diffs = compare_detailed({"events_include": [first, second]}, observed)
    assert [d.text for d in diffs] == [
        "events: expected {'type': 'dealt', 'seat': 2, 'card': '5'} after {'type': 'frozen', 'seat': 1}, "
        "observed it out of order (at events[0])"
    ]
    assert diffs[0].index == 0
    missing = compare_detailed({"events_include": [{"type": "busted"}]}, observed)
    assert [d.text for d in missing] == ["events: expected {'type': 'busted'} (in this order), not observed"]


@pytest.mark.rules("F7-073")
def test_an_excluded_event_is_blamed_on_the_rule_that_produced_it() -> None:
    """An engine emitting an excluded ``discarded`` event with reason ``target busted`` is blamed
    on the rule behind that event (F7-073, ``discarded/target busted``), not on the rule of
    every ``discarded`` event (F7-111); the difference quotes the engine's event."""
    case = _case("F7-C0404")
    case = {**case, "expect": {**case["expect"], "events_exclude": ["busted", "flip7", "discarded"]}}
    prepared = _prepared(case)
    seen = observe(prepared.request())
    extra = {"type": "discarded", "card": "freeze", "seat": 1, "reason": "target busted"}
    seen = {**seen, "events": [*seen["events"], extra]}
    result = verdict(prepared, seen)
    assert result.status == "fail"
    assert f"events: expected no 'discarded' event, observed one: {extra}" in result.diffs
    assert result.blame == ("F7-073", "F7-131")


@pytest.mark.rules("F7-030")
def test_an_action_refused_as_another_seats_is_blamed_on_the_turn_rules() -> None:
    """An engine saying "action 1 is seat 1's by the case, but it is seat 2's decision" has the
    turn order wrong: blamed on the rules on turns first (F7-030), not on the Stay rule of the
    offer (F7-033) nor on the deck's make-up (F7-007)."""
    prepared = _prepared(_case("F7-C0404"))
    assert prepared.actors[:2] == (0, 1)
    result = failed(prepared, "engine errored: action 2 ('hit') is seat 1's by the case, but it is seat 2's decision")
    assert result.blame[0] == "F7-030"
    assert "F7-007" not in result.blame[:3]
