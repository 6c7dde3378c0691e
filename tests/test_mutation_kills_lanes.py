"""Tests that kill surviving mutants of the interpreter's fast lanes (state.py).

Each test pins exact values on a step a fast lane takes, and checks it against
the general path (``_FAST_LANES`` off).  See docs/mutation-testing.md.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import flip7ref.core.state as state_module
from flip7ref import CardError, Game, IllegalActionError, State, Status
from flip7ref.core.state import Action


def _both_ways(monkeypatch: pytest.MonkeyPatch, step: Callable[[], State]) -> State:
    fast = step()
    monkeypatch.setattr(state_module, "_FAST_LANES", False)
    slow = step()
    monkeypatch.setattr(state_module, "_FAST_LANES", True)
    assert fast == slow and fast.events() == slow.events() and fast.to_dict() == slow.to_dict()
    return fast


@pytest.mark.rules("F7-040", "V-022")
def test_bust_with_seven_number_cards_is_no_flip7(monkeypatch: pytest.MonkeyPatch) -> None:
    """Vengeance counts number cards toward a Flip 7 (lucky13_flip7: twice); a duplicate
    drawn onto six numbers makes seven cards but is a bust, not a Flip 7."""
    game = Game("vengeance", 2)
    s = game.new_position(turn=0, lines={0: ["1", "2", "3", "4", "5", "6"], 1: ["8"]}, draw=["5"], seed=None)
    after = _both_ways(monkeypatch, lambda: s.apply("hit").apply_chance("5"))
    assert after.status(0) is Status.BUSTED and after.flip7 is None
    assert after.round == 1 and after.totals == (0, 0) and after.current_player == 1
    assert [e.type for e in after.last_events()] == ["dealt", "busted"]


@pytest.mark.rules("F7-041", "F7-120")
def test_game_ending_bust_keeps_the_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """The last active player busts and the round's scores end the game: the final state
    keeps the turn the Hit passed on (seat 1), as the general path does."""
    game = Game("flip7", 2)
    s = game.new_position(
        turn=0, lines={0: ["5", "x2"], 1: ["9", "10", "11", "12"]}, statuses={1: "stayed"}, totals=[150, 160],
        draw=["5"], seed=None,
    )  # fmt: skip
    after = _both_ways(monkeypatch, lambda: s.apply("hit").apply_chance("5"))
    assert after.is_terminal() and after.winners == (1,) and after.totals == (150, 202)
    assert after.turn == 1 and after.to_dict()["turn"] == 1


def test_apply_chance_accepts_names_and_aliases() -> None:
    """apply_chance takes a card's id, its name or an alias (only ids are in the quick
    lookup); an unknown card or a non-string is a CardError."""
    game = Game("flip7", 3)
    s = game.new_position(turn=0, draw=["freeze", "7"], seed=None).apply("hit")
    by_id = s.apply_chance("freeze")
    assert s.apply_chance("Freeze") == by_id and s.apply_chance("Freeze").history() == by_id.history()
    assert s.apply_chance("Second Chance") == s.apply_chance("second_chance")
    with pytest.raises(CardError, match="unknown card 'bogus'"):
        s.apply_chance("bogus")
    with pytest.raises(CardError, match="expected a card name"):
        s.apply_chance([1])  # type: ignore[arg-type]


@pytest.mark.rules("F7-033", "F7-120")
def test_stay_lane_refuses_a_finished_game() -> None:
    """With stay_requires: nothing anyone may Stay, but not once the game is over: the
    Stay lane must not take a step from a terminal state."""
    game = Game("flip7", 2, {"stay_requires": "nothing"})
    s = game.new_position(
        turn=0, lines={0: ["5", "x2"], 1: ["9", "10", "11", "12"]}, statuses={1: "stayed"}, totals=[150, 160],
        draw=["5"], seed=None,
    )  # fmt: skip
    over = s.apply("hit").apply_chance("5")
    assert over.is_terminal() and over.frames == () and over.legal_actions() == []
    for stay in ("stay", Action("stay")):
        with pytest.raises(IllegalActionError) as info:
            over.apply(stay)
        assert (info.value.action, info.value.legal, info.value.why) == ("stay", (), "the game is over")


@pytest.mark.rules("F7-034")
def test_stay_lane_refuses_a_stay_with_arguments() -> None:
    """An Action("stay", (1,)) is malformed: refused, not taken as a Stay."""
    s = Game("flip7", 3).new_position(turn=0, lines={0: ["3"], 1: ["7"]}, seed=None)
    assert s.apply(Action("stay")).status(0) is Status.STAYED
    with pytest.raises(IllegalActionError) as info:
        s.apply(Action("stay", (1,)))
    assert (info.value.legal, info.value.why) == (("hit", "stay"), "expected an Action or its string form")
