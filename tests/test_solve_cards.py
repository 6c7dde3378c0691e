"""``flip7ref solve --cards`` and `solo_deck_position` with card ids beside the
categories (every copy of the card), e.g. ``numbers,modifiers,second_chance``."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from flip7ref import Game
from flip7ref.analysis import SoloSolver, solo_deck_position
from flip7ref.cli import main
from flip7ref.core.errors import OptionError

SOLO = Game("flip7", 1)


@pytest.mark.rules("F7-080", "F7-090", "F7-092")
def test_a_deck_of_chosen_cards() -> None:
    state = solo_deck_position(SOLO, ["5", "x2", "second_chance"])
    assert sorted(state.draw) == sorted([SOLO.codes["5"]] * 5 + [SOLO.codes["x2"]] + [SOLO.codes["second_chance"]] * 3)
    # a 5 then x2 (10 points) beats any further 5 unless a Second Chance saves it
    assert SoloSolver(exact=True).solve(state).value > 5


def test_solve_takes_card_ids(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--cards", "5,x2,second_chance", "--exact", "--json", "--workers", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cards"] == "5,x2,second_chance" and out["deck"] == 9
    expected = SoloSolver(exact=True).solve(solo_deck_position(SOLO, ["5", "x2", "second_chance"])).value
    assert Fraction(out["exact"]["value"]) == expected


def test_unknown_cards_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--cards", "numbers,jokers"]) == 2
    assert "unknown category 'jokers'; expected a comma-separated list of numbers, modifiers, actions or card ids" in (
        capsys.readouterr().err
    )
    with pytest.raises(OptionError, match="unknown card category 'jokers'"):
        solo_deck_position(SOLO, ["number", "jokers"])
