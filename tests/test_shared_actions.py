"""Shared actions: `flip7ref.core.model.target` values are found by identity in `State.apply`, and
an equal action built anew is taken the same way (an `Action` is a value)."""

from __future__ import annotations

import random

import pytest

from flip7ref import Action, Game, IllegalActionError, State
from flip7ref.core.model import target
from flip7ref.play.strategies import ThresholdStrategy


def _first_target_choice(seed: int) -> State:
    """The first decision of a seeded 4-player game that is a target choice."""
    state = Game("flip7", 4).new_initial_state(seed=seed)
    strategy, rng = ThresholdStrategy(20), random.Random(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            state = state.apply_chance(state.next_card())
        elif state.pending()[0] == "play":
            return state
        else:
            state = state.apply(strategy.choose(state, rng))
    raise AssertionError("no target choice in the game")


def test_threshold_targets_are_the_shared_actions_and_a_new_equal_action_plays_the_same() -> None:
    state = _first_target_choice(3)
    legal = state.legal_actions()
    assert [a.verb for a in legal] == ["target"] * len(legal) and len(legal) >= 2
    chosen = ThresholdStrategy(20).choose(state, random.Random(0))
    assert chosen is target(chosen.args[0])  # shared, not built anew
    for shared in legal:
        anew = Action("target", shared.args)
        assert anew is not shared and anew == shared
        assert state.apply(anew).to_dict() == state.apply(shared).to_dict()
    with pytest.raises(IllegalActionError):
        state.apply(Action("target", (9,)))
    with pytest.raises(IllegalActionError):
        state.apply("hit")
