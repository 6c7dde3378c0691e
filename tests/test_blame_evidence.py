"""Blame from what the reference can replay: the scoring pipeline with one step left out or
moved (flip7ref.checking.score_blame), named readings that reproduce only a lone observation
(flip7ref.checking.suspects.Weak), the rule deciding a disputed Stay, and a set-aside card acting
before the last assignment.  Hand-made cases, each with the blamed rule asserted."""

from __future__ import annotations

from typing import Any

import pytest

from flip7ref import Game
from flip7ref.checking.harness import implementation
from flip7ref.checking.score_blame import misplayed_step
from flip7ref.checking.suspects import Weak, first_suspects, reading_suspects
from flip7ref.checking.verdict import Prepared, prepare, verdict


def _prepared(case: dict[str, Any]) -> Prepared:
    prepared = prepare(case, implementation())
    assert isinstance(prepared, Prepared)
    return prepared


def _scoring(edition: str, line: list[str], score: int, **more: Any) -> dict[str, Any]:
    return {"id": "T-S", "title": "t", "edition": edition, "rules": ["F7-100" if edition == "flip7" else "V-060"],
            "source": "test", "kind": "scoring", "line": line, "expect": {"score": score}, **more}  # fmt: skip


def _transition(edition: str, setup: dict[str, Any], actions: list[str], expect: dict[str, Any],
                options: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    return {"id": "T-HAND", "title": "hand-made", "edition": edition, "rules": ["F7-001" if edition == "flip7" else "V-001"],
            "source": "test", "kind": "transition", "options": options or {}, "setup": setup, "actions": actions,
            "expect": expect}  # fmt: skip


# --------------------------------------------------------------------------- the scoring pipeline


def test_the_pipeline_step_whose_absence_or_late_place_gives_the_engines_score() -> None:
    """1-6, 8, ÷2, -10, -6 (29 -> 14 -> -2 -> floor 0 -> +15 = 15): 13 is the score without
    the floor; x2 and +8 alone (8): 16 is x2 applied after the +8; the reference's own score,
    or a score no single change gives, names no step."""
    vengeance = Game("vengeance", 3)
    line = ["1", "2", "3", "4", "5", "6", "8", "/2", "-10", "-6"]
    assert misplayed_step(vengeance, line, True, 13) == "floor_zero"
    assert misplayed_step(vengeance, line, True, 15) is None
    assert misplayed_step(vengeance, line, True, 1000) is None
    flip7 = Game("flip7", 3)
    assert misplayed_step(flip7, ["x2", "+8"], False, 16) == "multiply"
    assert misplayed_step(flip7, ["x2", "+8"], False, "16") is None


@pytest.mark.rules("V-053", "F7-091")
def test_a_score_is_blamed_on_the_step_that_reproduces_it() -> None:
    """The line above scored 13 is blamed on the floor (V-053), not on ÷2 (V-052) that the
    line also holds; x2 and +8 scored 16 on x2's rule (F7-091), not on the +N rules."""
    floor = _scoring("vengeance", ["1", "2", "3", "4", "5", "6", "8", "/2", "-10", "-6"], 15)
    assert verdict(_prepared(floor), {"score": 13}).blame[0] == "V-053"
    double = _scoring("flip7", ["x2", "+8"], 8)
    assert verdict(_prepared(double), {"score": 16}).blame[0] == "F7-091"


@pytest.mark.rules("V-053", "V-045")
def test_a_round_score_follows_the_cards_swapped_in_the_scoring_step() -> None:
    """Seat 2 swaps its 6 for seat 0's -2, which completes seat 0's Flip 7 and ends the
    round: seat 2 scores the -2, floored to 0.  An engine scoring -2 is blamed on the floor
    (V-053): the line scored is the one after the Swap, not seat 2's 6 before it."""
    setup = {"players": 3, "dealer": 0, "turn": 1, "lines": {"0": ["0", "1", "2", "3", "4", "-2"], "1": ["9"], "2": ["6"]},
             "draw": ["just_one_more", "5", "swap", "8", "10"]}  # fmt: skip
    case = _transition("vengeance", setup, ["hit", "target 0", "hit", "target 2", "swap 0 5 2 0"],
                       {"round_scores": [36, 9, 0]}, {"zero_just_one_more": "general-rules"})  # fmt: skip
    result = verdict(_prepared(case), {"round_scores": [36, 9, -2]})
    assert result.status == "fail" and result.blame[0] == "V-053"


# --------------------------------------------------------------------------- weak readings


@pytest.mark.rules("V-053", "V-080")
def test_a_reading_that_reproduces_only_a_score_goes_after_the_steps_rule() -> None:
    """13, -10, -6 scores 0 (floored) outside Brutal Mode; an engine scoring -3 is what Brutal
    Mode gives too, but a lone score is weak evidence: the floor V-053 first, Brutal Mode's
    rules (V-080...) after it, still among the blamed."""
    prepared = _prepared(_scoring("vengeance", ["13", "-10", "-6"], 0))
    suspects = reading_suspects(prepared, {"score": -3})
    assert isinstance(suspects, Weak) and "V-080" in suspects
    blame = verdict(prepared, {"score": -3}).blame
    assert blame[0] == "V-053" and "V-080" in blame
    assert first_suspects(Weak(("V-080",)), ("V-053", "V-051")) == ("V-053", "V-080", "V-051")
    assert first_suspects(("V-080",), ("V-053", "V-051")) == ("V-080", "V-053", "V-051")


def test_a_reading_that_reproduces_several_observations_is_strong() -> None:
    """A deal from the dealer reproduces three lines and the next player: not `Weak`."""
    case = {"id": "T-DEAL", "title": "a plain deal", "edition": "flip7", "rules": ["F7-020"], "source": "test",
            "kind": "transition", "setup": {"players": 3, "dealer": 0, "deal": True, "draw": ["5", "7", "9", "10", "11"]},
            "actions": [], "expect": {"lines": {"0": ["9"], "1": ["5"], "2": ["7"]}, "next": {"player": 1}}}  # fmt: skip
    seen = {"lines": {"0": ["5"], "1": ["7"], "2": ["9"]}, "next": {"player": 0}}
    suspects = reading_suspects(_prepared(case), seen)
    assert suspects == ("F7-020", "F7-030") and not isinstance(suspects, Weak)


# --------------------------------------------------------------------------- legality and timing


@pytest.mark.rules("V-031")
def test_a_stay_offered_to_the_zeros_holder_is_blamed_on_the_zero() -> None:
    """Seat 0 holds The Zero and a 5: the reference offers only Hit.  An engine offering Stay
    too is blamed on V-031 (the card's no_stay trait: ``stayed#no_stay``) before the Stay
    rules; without The Zero, a Stay refused is blamed on the Stay rules."""
    setup = {"players": 3, "dealer": 2, "turn": 0, "lines": {"0": ["0", "5"], "1": ["2"], "2": ["3"]}, "draw": ["9"]}
    case = _transition("vengeance", setup, [], {"next": {"player": 0, "legal": ["hit"]}})
    result = verdict(_prepared(case), {"next": {"player": 0, "legal": ["hit", "stay"]}})
    assert result.status == "fail" and result.blame[0] == "V-031"
    plain = {**setup, "lines": {"0": ["4", "5"], "1": ["2"], "2": ["3"]}}
    case = _transition("vengeance", plain, [], {"next": {"player": 0, "legal": ["hit", "stay"]}})
    assert verdict(_prepared(case), {"next": {"player": 0, "legal": ["hit"]}}).blame[:2] == ("V-014", "V-017")


FLIP_THREE = {"players": 3, "dealer": 2, "lines": {"0": ["1"], "1": ["2"], "2": ["3"]},
              "draw": ["flip_three", "freeze", "flip_three", "5", "6", "7", "8", "9"]}  # fmt: skip
HEAD = [
    {"type": "dealt", "seat": 0, "card": "flip_three", "via": "hit"},
    {"type": "target_chosen", "seat": 0, "card": "flip_three", "target": 1},
    {"type": "forced_draw_started", "seat": 1, "card": "flip_three", "by": 0, "count": 3},
    {"type": "dealt", "seat": 1, "card": "freeze", "via": "flip_three"},
    {"type": "set_aside", "seat": 1, "card": "freeze"},
    {"type": "dealt", "seat": 1, "card": "flip_three", "via": "flip_three"},
    {"type": "set_aside", "seat": 1, "card": "flip_three"},
    {"type": "dealt", "seat": 1, "card": "5", "via": "flip_three"},
    {"type": "forced_draw_ended", "seat": 1, "card": "flip_three", "outcome": "complete"},
    {"type": "assigned", "seat": 1, "card": "freeze", "target": 2},
]


@pytest.mark.rules("F7-074")
def test_a_set_aside_card_acting_before_the_last_assignment_is_blamed_on_the_order_rule() -> None:
    """A Flip Three sets a Freeze and a Flip Three aside; the Freeze is assigned to seat 2.
    An engine freezing seat 2 at once — where the reference assigns the Flip Three first, or
    waits for that assignment — is blamed on F7-074 (none acts until the last is assigned),
    not on F7-073 (they are set aside)."""
    case = _transition("flip7", FLIP_THREE, ["hit", "target 1", "target 2", "target 0"], {"statuses": {"2": "frozen"}})
    early = [*HEAD, {"type": "frozen", "seat": 2, "by": 1}, {"type": "assigned", "seat": 1, "card": "flip_three", "target": 0}]
    assert verdict(_prepared(case), {"events": early}).blame[:2] == ("F7-074", "F7-073")
    waiting = _transition("flip7", FLIP_THREE, ["hit", "target 1", "target 2"], {"statuses": {"2": "active"}})
    seen = {"events": [*HEAD, {"type": "frozen", "seat": 2, "by": 1}], "statuses": {"2": "frozen"}}
    assert verdict(_prepared(waiting), seen).blame[0] == "F7-074"


# --------------------------------------------------------------------------- where the events part


@pytest.mark.rules("V-082")
def test_an_engine_going_past_a_choice_is_blamed_on_the_choice_not_on_later_lines() -> None:
    """Brutal Mode: seat 0 makes a Flip 7 and the reference waits for the +15 / -15 choice.
    An engine that scores the round and deals the next agrees on every event up to there;
    its lines differ only because it went on, so the blame is the choice (V-082), not the
    Flip 7's rules that last changed seat 0's line."""
    setup = {"players": 3, "dealer": 2, "lines": {"0": ["1", "2", "3", "4", "5", "6"], "1": ["10"], "2": ["11"]},
             "draw": ["7", "8", "2", "3"]}  # fmt: skip
    case = _transition("vengeance", setup, ["hit"], {"lines": {"0": ["1", "2", "3", "4", "5", "6", "7"]}}, {"brutal": "true"})
    seen = {"events": [{"type": "dealt", "seat": 0, "card": "7", "via": "hit"}, {"type": "flip7", "seat": 0},
                       {"type": "round_scored", "round": 1, "scores": [43, 10, 11], "totals": [43, 10, 11], "flip7": 0}],
            "lines": {"0": ["3"]}}  # fmt: skip
    result = verdict(_prepared(case), seen)
    assert result.status == "fail" and result.blame[0] == "V-082"


@pytest.mark.rules("F7-041", "F7-111")
def test_a_discard_pile_of_another_size_is_blamed_on_the_journey_of_the_cards_in_question() -> None:
    """Seat 1 busts on a 2 inside a Flip Three; the reference discards the set-aside Freeze
    and the Flip Three card (2) and keeps the busted line in front of seat 1 until the round
    ends.  An engine with 3 cards there also discarded the kept ones: F7-041 (a busted
    line stays).  A Flip 7 ending a round inside a Flip Three: the reference discards the
    round's 9 cards and the Flip Three card; an engine with 1 lost the round's cards: F7-111."""
    lines = {"0": ["1"], "1": ["2"], "2": ["3"]}
    setup = {"players": 3, "dealer": 2, "lines": lines, "draw": ["flip_three", "freeze", "2", "9"]}
    bust = _transition("flip7", setup, ["hit", "target 1"], {"discard_count": 2})
    assert verdict(_prepared(bust), {"discard_count": 3}).blame[0] == "F7-041"
    lines = {"0": ["1"], "1": ["0", "2", "3", "4", "5", "6"], "2": ["3"]}
    setup = {"players": 3, "dealer": 2, "lines": lines, "draw": ["flip_three", "7", "8", "9", "10"]}
    seven = _transition("flip7", setup, ["hit", "target 1"], {"discard_count": 10})
    assert verdict(_prepared(seven), {"discard_count": 1}).blame[0] == "F7-111"


def test_a_discard_pile_one_card_short_with_two_one_card_journeys_blames_both(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat 1 busts inside a Flip Three: the reference discards the Flip Three card (F7-078)
    and the set-aside Freeze (F7-073, F7-131), one card each.  An engine one card short lost
    one of them, and a count cannot say which: both journeys' rules are blamed, the last
    step's first (only F7-078 was, so an engine losing the Freeze was never pointed at it)."""
    import flip7ref.checking.blame as blame_module
    import flip7ref.checking.zones as zones

    found: list[tuple[str, ...]] = []

    def recorded(*args: Any) -> tuple[str, ...]:
        found.append(zones.discard_rules(*args))
        return found[-1]

    monkeypatch.setattr(blame_module, "discard_rules", recorded)
    lines = {"0": ["1"], "1": ["2"], "2": ["3"]}
    setup = {"players": 3, "dealer": 2, "lines": lines, "draw": ["flip_three", "freeze", "2", "9"]}
    bust = _transition("flip7", setup, ["hit", "target 1"], {"discard_count": 2})
    blamed = verdict(_prepared(bust), {"discard_count": 1}).blame
    assert found == [("F7-078", "F7-073", "F7-131")]
    assert {"F7-078", "F7-073"} <= set(blamed)


# --------------------------------------------------------------------------- who is out, who is next


@pytest.mark.rules("F7-060")
def test_a_round_the_engine_does_not_end_after_a_freeze_is_blamed_on_the_freeze() -> None:
    """Seats 1 and 2 stayed; seat 0 freezes themselves, so nobody is left and the round is
    scored.  An engine reporting the Freeze but not the round's end kept the frozen player
    in: F7-060 (``round_scored<frozen``), not the scoring rules."""
    setup = {"players": 3, "dealer": 2, "lines": {"0": ["10"], "1": ["2"], "2": ["3"]},
             "statuses": {"1": "stayed", "2": "stayed"}, "draw": ["freeze", "4", "5", "6"]}  # fmt: skip
    case = _transition("flip7", setup, ["hit", "target 0"], {"round_scores": [10, 2, 3]})
    head = [{"type": "dealt", "seat": 0, "card": "freeze", "via": "hit"},
            {"type": "target_chosen", "seat": 0, "card": "freeze", "target": 0},
            {"type": "frozen", "seat": 0, "by": 0}]  # fmt: skip
    result = verdict(_prepared(case), {"events": head, "round_scores": []})
    assert result.status == "fail" and result.blame[:2] == ("F7-060", "F7-110")


@pytest.mark.rules("F7-060")
def test_an_engine_offering_a_frozen_seat_is_blamed_on_the_freeze() -> None:
    """Seat 0 freezes seat 1: the reference offers seat 2 next.  An engine offering seat 1
    is blamed on what took seat 1 out, the Freeze (F7-060), before the turn rules."""
    setup = {"players": 3, "dealer": 2, "lines": {"0": ["10"], "1": ["2"], "2": ["3"]}, "draw": ["freeze", "4", "5", "6"]}
    case = _transition("flip7", setup, ["hit", "target 1"], {"next": {"player": 2}})
    prepared = _prepared(case)
    assert prepared.run.observed["next"]["player"] == 2
    assert verdict(prepared, {"next": {"player": 1}}).blame[0] == "F7-060"


@pytest.mark.rules("F7-079")
def test_a_next_player_decided_before_the_last_step_is_blamed_on_that_event() -> None:
    """Seat 0 gives a Flip Three to seat 1, which sets a Freeze aside, and the Freeze is
    then assigned to seat 2 (reading set_aside_assigner giver).  The Flip Three ended one
    step before the assignment; play resumes on the drawer's left, seat 1.  An engine
    offering seat 0 is blamed on F7-079 (``forced_draw_ended@next``), not the offer order."""
    setup = {"players": 3, "dealer": 2, "lines": {"0": ["5"], "1": ["6"], "2": ["7"]},
             "draw": ["flip_three", "freeze", "3", "4", "9"]}  # fmt: skip
    case = _transition("flip7", setup, ["hit", "target 1", "target 2"], {"next": {"player": 1}},
                       {"set_aside_assigner": "giver"})  # fmt: skip
    prepared = _prepared(case)
    assert prepared.run.observed["next"]["player"] == 1
    assert verdict(prepared, {"next": {"player": 0}}).blame[0] == "F7-079"


@pytest.mark.rules("F7-081")
def test_a_perft_deal_order_the_engine_refuses_is_probed_like_an_ordinary_case() -> None:
    """A mutant drawing a replacement card after a Second Chance saves a Hit refuses a later
    action of some deal order of perft case F7-C5007; the deal order is probed, cut before
    that action, as an ordinary case is, and blamed on F7-081 (the turn ends), not on the
    offer rules of the refused action."""
    from flip7ref.checking.conformance import load_cases
    from tests.engines.mutant_runs import run_mutant

    case = next(c for c in load_cases() if c["id"] == "F7-C5007")
    (result,) = run_mutant("chance-draws-again", [case])
    assert result.status == "error" and "deal order" in result.message
    assert result.blame[0] == "F7-081"


@pytest.mark.rules("F7-076")
def test_a_second_chance_set_aside_inside_a_flip_three_is_blamed_on_its_rule() -> None:
    """Seat 1, holding a Second Chance, flips another inside a Flip Three: the reference has
    it given on at once (to seat 2).  An engine setting it aside instead is blamed on F7-076
    (``target_chosen/second_chance|set_aside``), not on the giving rule F7-082."""
    setup = {"players": 3, "dealer": 2, "lines": {"0": ["1"], "1": ["2"], "2": ["3"]}, "kept": {"1": ["second_chance"]},
             "draw": ["flip_three", "second_chance", "5", "6", "7"]}  # fmt: skip
    case = _transition("flip7", setup, ["hit", "target 1", "target 2"], {"kept": {"2": ["second_chance"]}})
    head = [{"type": "dealt", "seat": 0, "card": "flip_three", "via": "hit"},
            {"type": "target_chosen", "seat": 0, "card": "flip_three", "target": 1},
            {"type": "forced_draw_started", "seat": 1, "card": "flip_three", "by": 0, "count": 3},
            {"type": "dealt", "seat": 1, "card": "second_chance", "via": "flip_three"},
            {"type": "set_aside", "seat": 1, "card": "second_chance"}]  # fmt: skip
    assert verdict(_prepared(case), {"events": head}).blame[:2] == ("F7-076", "F7-082")


@pytest.mark.rules("F7-051")
def test_a_score_of_0_beside_another_seats_flip7_stays_on_the_flip7_rule() -> None:
    """Leaving out the sum of the numbers would give 0 for nearly any line, so it is no
    counterfactual: a seat scoring 0 where another seat's Flip 7 ended the round is still
    blamed on F7-051 (the others score their lines)."""
    assert misplayed_step(Game("flip7", 3), ["3"], False, 0) is None
