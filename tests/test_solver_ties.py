"""The solo solver's tie-break between equal hit and stay values (``ties``, issue 14 item 7).

The published Flip 7 solitaire analysis (Eppie/flip-seven) hits only when hitting
is worth strictly more than staying; our solver used to keep the first legal
action, hit.  On the 79 number cards three decision states are exact ties
(6 numbers worth 34 or 35 points), so the value is the same under both and the
secondary figures, P(bust) and P(Flip 7), are not.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from flip7ref import Game
from flip7ref.analysis import TIES, SoloResult, SoloSolver, solo_deck_position
from flip7ref.cli import main
from flip7ref.core.errors import OptionError
from flip7ref.core.state import HIT, STAY, State

SOLO = Game("flip7", 1)
NUMBERS = solo_deck_position(SOLO, ["number"])
PUBLISHED = {"value": 18.5652176141, "bust": 0.3134965, "flip7": 0.0028113}  # the solitaire analysis, numbers only


def _after(state: State, cards: list[str]) -> State:
    for card in cards:
        state = state.apply_chance(card) if state.current_player == -1 else state.apply("hit").apply_chance(card)
    return state


@pytest.fixture(scope="module")
def solved() -> dict[str, tuple[SoloSolver, SoloResult]]:
    """The exact solve of the 79 number cards under each tie-break."""
    out = {}
    for ties in TIES:
        solver = SoloSolver(exact=True, ties=ties)
        out[ties] = (solver, solver.solve(NUMBERS))
    return out


@pytest.mark.rules("F7-040", "F7-050", "F7-051")
def test_ties_stay_reproduces_the_published_secondary_figures(solved: dict[str, tuple[SoloSolver, SoloResult]]) -> None:
    stay, hit = solved["stay"][1], solved["hit"][1]
    assert stay.value == hit.value == Fraction(154813132069, 8338880550)
    assert float(stay.value) == pytest.approx(PUBLISHED["value"], abs=1e-10)
    assert round(float(stay.bust), 7) == PUBLISHED["bust"]
    assert round(float(stay.flip7), 7) == PUBLISHED["flip7"]
    assert float(hit.bust) == pytest.approx(0.3135023090, abs=1e-10)
    assert float(hit.flip7) == pytest.approx(0.0028201764, abs=1e-10)
    assert stay.states == hit.states == 4095


@pytest.mark.rules("F7-040", "F7-050")
def test_the_tie_break_changes_exactly_the_three_tied_states(solved: dict[str, tuple[SoloSolver, SoloResult]]) -> None:
    """The policies differ only where hit and stay are worth the same, exactly."""
    by_tie = {ties: (solver, solver.best_actions()) for ties, (solver, _) in solved.items()}
    differ = [k for k, a in by_tie["hit"][1].items() if by_tie["stay"][1][k] != a]
    assert sorted(tuple(sorted(SOLO.card_ids[c] for c in k[1][0][0])) for k in differ) == [
        ("0", "1", "11", "12", "3", "7"),
        ("1", "10", "12", "3", "4", "5"),
        ("1", "12", "2", "4", "7", "9"),
    ]
    assert all(by_tie["hit"][1][k] == HIT and by_tie["stay"][1][k] == STAY for k in differ)
    tied = _after(NUMBERS, ["0", "1", "11", "12", "3", "7"])
    values = by_tie["stay"][0].action_values(tied)
    assert values == {"hit": 34, "stay": 34}
    assert by_tie["stay"][0].best_action(tied) == STAY and by_tie["hit"][0].best_action(tied) == HIT


def test_floats_break_the_same_ties() -> None:
    """The three tied values are exact in floating point too: the float solve agrees."""
    stay = SoloSolver(ties="stay").solve(NUMBERS)
    assert stay.bust == pytest.approx(0.3134964608, abs=1e-10)
    assert stay.flip7 == pytest.approx(0.0028113032, abs=1e-10)


@pytest.mark.rules("F7-035", "F7-091")
def test_workers_keep_the_tie_break() -> None:
    state = _after(solo_deck_position(SOLO, ["number", "modifier"]), ["1", "2", "3", "4", "5"])
    one = SoloSolver(ties="stay")
    many = SoloSolver(ties="stay", workers=2)
    assert many.solve(state).bust == one.solve(state).bust
    assert many.best_actions() == one.best_actions()


def test_an_unknown_tie_break_is_refused() -> None:
    with pytest.raises(OptionError, match=r"^ties must be one of hit, stay \(got 'first'\)$"):
        SoloSolver(ties="first")


@pytest.mark.parametrize(("ties", "bust"), [("stay", 0.3134964608), ("hit", 0.3135023090), (None, 0.3135023090)])
def test_solve_ties_on_the_command_line(ties: str | None, bust: float, capsys: Any) -> None:
    args = ["solve", "--json", "--workers", "1"] + (["--ties", ties] if ties else [])
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bust"] == pytest.approx(bust, abs=1e-10)
    assert data["value"] == pytest.approx(18.5652176141, abs=1e-10)
