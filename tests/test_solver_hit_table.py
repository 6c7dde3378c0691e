"""The solver's hit table (``SoloSolver._hit``): a Hit's successor that only adds a
plain card to the line is valued by the line it makes, so each position is built
once, not once per parent.  It is a shortcut of the solver, not of the rules: the
solve must be the one that builds every successor, to the last bit of a float and
state for state.  ``_verify`` builds every successor as well and checks each
value the table gives (an AssertionError otherwise); these tests compare that
solve with the ordinary one on decks of both editions, with the cards that do
more than join a line (Second Chance, Freeze, Flip Three, Vengeance's Unlucky 7,
Lucky 13, The Zero, its modifiers given to a chosen player, V-050).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from flip7ref import Game
from flip7ref.analysis import SoloSolver, solo_deck_position
from flip7ref.core.errors import OptionError
from flip7ref.core.state import State
from flip7ref.play.strategies import ThresholdStrategy


def _deck(edition: str, cards: list[str], options: dict[str, Any] | None = None) -> State:
    game = Game(edition, 1, options)
    return game.new_position(draw=cards, rest="out", seed=None, deal=True, totals=[game.target_score])


def _solve(state: State, *, verify: bool, **options: Any) -> tuple[Any, ...]:
    solver = SoloSolver(**options)
    solver._verify = verify
    result = solver.solve(state)
    return result.value, result.bust, result.flip7, result.states, solver.best_actions(), dict(solver._memo)


DECKS = [
    ("flip7", ["1", "2", "2", "3", "3", "3", "4", "x2", "+4", "+10"]),
    ("flip7", ["1", "2", "2", "3", "3", "3", "5", "5", "second_chance", "second_chance", "+2"]),
    ("flip7", ["0", "1", "2", "2", "3", "3", "3", "freeze", "flip_three", "second_chance", "x2"]),
    ("flip7", ["1", "2", "3", "4", "5", "6", "7", "7", "+8"]),  # a Flip 7 reached in many orders
    ("vengeance", ["1", "2", "3", "4", "unlucky7", "-2", "-4", "/2"]),
    ("vengeance", ["0", "1", "2", "2", "13", "lucky13", "-6", "just_one_more"]),
]


@pytest.mark.rules("F7-035", "F7-040", "F7-050", "F7-080", "F7-101", "V-033", "V-050")
@pytest.mark.parametrize(("edition", "cards"), DECKS)
@pytest.mark.parametrize("exact", [False, True])
def test_the_hit_table_gives_the_solve_that_builds_every_successor(edition: str, cards: list[str], exact: bool) -> None:
    state = _deck(edition, cards)
    checked = _solve(state, verify=True, exact=exact)
    assert _solve(state, verify=False, exact=exact) == checked
    assert checked[3] > 10


@pytest.mark.rules("V-081")
def test_busts_that_score_the_modifiers() -> None:
    """Brutal Mode: a busted line scores its modifiers, so busts are told apart by them."""
    state = _deck("vengeance", ["1", "2", "2", "3", "3", "4", "-2", "-4", "/2"], {"brutal": True})
    assert _solve(state, verify=False) == _solve(state, verify=True)


@pytest.mark.rules("F7-035", "F7-090")
def test_the_hit_table_under_a_fixed_policy_and_the_stay_tie_break() -> None:
    state = _deck("flip7", ["1", "2", "2", "3", "3", "3", "4", "5", "x2", "+4", "+6"])
    policy = ThresholdStrategy(7)
    assert _solve(state, verify=False, policy=policy) == _solve(state, verify=True, policy=policy)
    assert _solve(state, verify=False, ties="stay") == _solve(state, verify=True, ties="stay")


def test_the_numbers_solve_builds_each_position_once() -> None:
    """79 number cards: the same value and states with and without the table."""
    state = solo_deck_position(Game("flip7", 1), ["number"])
    assert _solve(state, verify=False) == _solve(state, verify=True)


@pytest.mark.rules("F7-090")
def test_an_exact_solve_gives_fractions_and_a_float_solve_floats() -> None:
    """Both builds (CI runs this file compiled too): exact values stay Fractions, never floats."""
    state = _deck("flip7", ["1", "2", "2", "3", "x2", "+4"])
    exact = SoloSolver(exact=True).solve(state)
    assert all(type(v) is Fraction for v in (exact.value, exact.bust, exact.flip7))
    assert exact.as_dict()["exact"]["value"] == str(exact.value)
    values = SoloSolver(exact=True).action_values(state.apply_chance("1"))
    assert all(type(v) is Fraction for v in values.values()) and set(values) == {"hit", "stay"}
    rough = SoloSolver().solve(state)
    assert all(type(v) is float for v in (rough.value, rough.bust, rough.flip7))
    assert rough.value == float(exact.value)


def test_the_solver_checks_its_arguments_in_both_builds() -> None:
    """A public entry point of a compiled module: wrong types raise OptionError, never a bare TypeError."""
    for bad in (True, -1, 1.5, "0"):
        with pytest.raises(OptionError, match="seat must be a whole number"):
            SoloSolver(seat=bad)
    for workers in (2.5, "2", True):
        with pytest.raises(OptionError, match="workers must be a whole number"):
            SoloSolver(workers=workers)
    with pytest.raises(OptionError, match="max_states must be a whole number"):
        SoloSolver(max_states=10.0)
    with pytest.raises(OptionError, match="ties must be one of"):
        SoloSolver(ties=1)
    solver = SoloSolver(max_seconds=60, exact=1)
    assert solver.max_seconds == 60.0 and solver.exact is True
