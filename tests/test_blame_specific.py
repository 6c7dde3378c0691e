"""Blame on the most specific suspect: the edition's named readings replayed (flip7ref.suspects),
and the situation a decider's several rules were exercised in (flip7ref.blame)."""

from __future__ import annotations

from typing import Any

import pytest

from flip7ref.checking import Prepared, prepare, verdict
from flip7ref.harness import implementation
from flip7ref.suspects import reading_suspects


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
