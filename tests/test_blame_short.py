"""Blame by cause, shown short (issue 46 item 4): at most three rules, each with its reason;
a reshuffle of the wrong size blamed on where the cards went."""

from __future__ import annotations

import pytest

from flip7ref.checking.shortlist import FIRST, READING, SAME_STEP, WEAK_READING, WENT, short_blame
from tests.engines.mutant_runs import run_mutant
from tests.test_blame import _case


def test_a_long_blame_is_cut_to_three_rules_each_with_its_reason() -> None:
    """Twenty rules of one step: the first three shown, the first as the step's rule."""
    rules = [f"F7-{n:03d}" for n in range(20)]
    assert short_blame(rules) == (("F7-000", "F7-001", "F7-002"), (FIRST, SAME_STEP, SAME_STEP))


def test_a_reading_suspect_says_so_and_how_strong_the_evidence_is() -> None:
    """Rules of an option another reading of which reproduces the engine's outcome say so;
    weak evidence (one difference reproduced) says it is weak."""
    assert short_blame(["V-014", "V-015", "V-042"], ("V-014", "V-015")) == (
        ("V-014", "V-015", "V-042"),
        (READING, READING, FIRST),
    )
    assert short_blame(["V-046", "V-014", "V-040", "V-041"], ("V-014", "V-015"), weak=True) == (
        ("V-046", "V-014", "V-040"),
        (FIRST, WEAK_READING, SAME_STEP),
    )


@pytest.mark.rules("F7-061", "V-042")
def test_other_seats_to_choose_from_are_blamed_on_who_may_be_chosen() -> None:
    """An engine offering a stayed or busted seat as a target (F7-061 broken; V-042 broken in
    Vengeance): the legal actions differ at a target decision.  Who may be chosen for that card
    (``target_chosen/CARD``) and at all (``target_chosen``) is among the three rules shown,
    right after the step's first rule — before, the step's card rules pushed it to fourth."""
    (stayed,) = run_mutant("stayed-targetable", [_case("F7-C0724")])
    assert (stayed.status, stayed.blame) == ("fail", ("F7-073", "F7-061", "F7-023"))
    vengeance = run_mutant("v-stayed-not-targetable", [_case("V-C0100"), _case("V-C0341")])
    assert [(r.status, r.blame) for r in vengeance] == [
        ("error", ("V-050", "V-042", "V-014")),
        ("error", ("V-042", "V-014", "V-015")),
    ]


@pytest.mark.rules("F7-111")
def test_a_short_reshuffle_is_blamed_on_the_cards_that_never_reached_the_discard_pile() -> None:
    """A round's cards leaving the game (F7-111 broken): the next round's reshuffle has 0 cards
    instead of 3.  Blamed first on the journey of those 3 cards (the round's end, F7-111), not
    on the reshuffle rules (F7-113, F7-114), which follow with their reasons."""
    (result,) = run_mutant("round-cards-vanish", [_case("F7-C0802")])
    assert result.status == "fail"
    assert result.blame == ("F7-111", "F7-113", "F7-114")
    assert result.reasons == (WENT, SAME_STEP, SAME_STEP)
    assert result.to_dict()["reasons"] == [WENT, SAME_STEP, SAME_STEP]
