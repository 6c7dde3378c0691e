"""The published solitaire analysis's solo turn (`flip7ref.analysis.published`,
``CompactSolver(turn_model="published")``): against the interpreter's `SoloSolver` on
every small deck where the two turns are the same (values, P(bust), P(Flip 7) to 1e-12),
against an independent brute force where they differ (values and the number of
reachable states), the modes and the estimate of the whole deck, refusals before a
solve allocates, the command line; the 94-card value with ``FLIP7REF_SLOW=1``."""

from __future__ import annotations

import json
import os

import pytest

from flip7ref import Game
from flip7ref.analysis import SoloSolver, solo_deck_position
from flip7ref.core.errors import LimitReached
from flip7ref.core.state import State
from tests.solo_oracles import published_turn

compact = pytest.importorskip("flip7ref.analysis.compact")
pytest.importorskip("numpy")
from flip7ref.analysis import published  # noqa: E402

SLOW = os.environ.get("FLIP7REF_SLOW") == "1"
GAME = Game("flip7", 1)
BASE = ["0", "1", "2", "2", "3", "3", "3", "4", "4", "4", "4", "x2"]


def _deck(cards: list[str]) -> State:
    return GAME.new_position(draw=cards, rest="out", seed=None, deal=True, totals=[GAME.target_score])


def _brute(deck: list[str]) -> tuple[float, int]:
    """``(value, reachable states)`` of the published turn over ``deck`` (`tests.solo_oracles`)."""
    return published_turn(deck)


SAME = [[], ["freeze"], ["flip_three"], ["flip_three", "freeze"], ["flip_three"] * 3, ["second_chance", "flip_three"],
        ["second_chance", "second_chance", "+4", "freeze", "freeze"]]  # fmt: skip
DIFFERENT = [["flip_three", "flip_three", "freeze"], ["flip_three", "flip_three", "freeze", "freeze", "second_chance", "+4"]]


@pytest.mark.parametrize("actions", SAME)
def test_the_interpreter_agrees_where_the_turns_are_the_same(actions: list[str]) -> None:
    """Exact fractions on the interpreter's side: the probabilities depend on how true ties
    (hit and stay worth the same) are broken, which floats summed in another order can
    miss; the published model takes differences within rounding as ties."""
    state = _deck([*BASE, *actions])
    for ties in ("hit", "stay"):
        want = SoloSolver(max_states=2_000_000, exact=True, ties=ties).solve(state)
        got = compact.CompactSolver(turn_model="published", ties=ties).solve(state)
        assert got.value == pytest.approx(float(want.value), abs=1e-12)
        assert got.bust == pytest.approx(float(want.bust), abs=1e-12)
        assert got.flip7 == pytest.approx(float(want.flip7), abs=1e-12)


def test_an_offer_with_a_held_second_chance() -> None:
    """Not only the deal: an offer with a line, a held Second Chance, a Flip Three and a
    Freeze still to come (one of each: the turns are the same), against exact fractions."""
    state = GAME.new_position(
        lines={0: ["4", "3", "x2"]}, kept={0: ["second_chance"]},
        draw=["0", "1", "2", "2", "3", "4", "4", "+4", "flip_three", "freeze", "second_chance"],
        seed=None, rest="out", totals=[GAME.target_score],
    )  # fmt: skip
    assert state.current_player == 0 and compact.CompactSolver.supports(state, "published") == ""
    for ties in ("hit", "stay"):
        want = SoloSolver(exact=True, ties=ties).solve(state)
        got = compact.CompactSolver(turn_model="published", ties=ties).solve(state)
        assert (got.value, got.bust, got.flip7) == pytest.approx(
            (float(want.value), float(want.bust), float(want.flip7)), abs=1e-12
        )


@pytest.mark.parametrize("actions", SAME + DIFFERENT)
def test_the_brute_force_agrees(actions: list[str]) -> None:
    deck = [*BASE, *actions]
    value, states = _brute(deck)
    got = compact.CompactSolver(turn_model="published").solve(_deck(deck))
    assert got.value == pytest.approx(value, abs=1e-12)
    assert got.states == states


def test_where_the_turns_differ() -> None:
    """Numbers 0-3, x2, two Flip Threes and a Freeze: 3.0458874459 by the published turn,
    3.0608874459 by the interpreter (a Freeze met before the second Flip Three ends the turn)."""
    deck = ["0", "1", "2", "2", "3", "3", "3", "x2", "flip_three", "flip_three", "freeze"]
    got = compact.CompactSolver(turn_model="published").solve(_deck(deck))
    assert got.value == pytest.approx(3.0458874458874456, abs=1e-12)
    assert SoloSolver().solve(_deck(deck)).value == pytest.approx(3.0608874458874458, abs=1e-12)


def test_value_only_and_ties() -> None:
    state = _deck([*BASE, "flip_three", "freeze"])
    both = compact.CompactSolver(turn_model="published").solve(state)
    alone = compact.CompactSolver(turn_model="published", probabilities=False, ties="stay").solve(state)
    assert alone.value == pytest.approx(both.value, abs=1e-12)
    assert alone.bust != alone.bust and alone.flip7 != alone.flip7  # NaN: not solved


def test_modes_and_the_whole_deck_estimate() -> None:
    assert len(published._modes(3, 3, 3)) == 55
    assert published._modes(0, 0, 3) == [(0, 0, 0)]
    state = solo_deck_position(GAME, ["number", "modifier", "action"])
    assert published.published_supports(state) == ""
    states, need = published.published_estimate(state, probabilities=False)
    assert states == 21_980_032 * 55  # bases times modes: 1,208,732,216 of them are reachable
    assert 3e9 < need < 6e9
    with pytest.raises(LimitReached, match="GB"):
        compact.CompactSolver(turn_model="published", max_states=2_000_000_000, probabilities=False).solve(state)
    with pytest.raises(LimitReached):
        compact.CompactSolver(turn_model="published", max_states=1000).solve(state)


def test_not_covered() -> None:
    assert "Freeze" in compact.CompactSolver.supports(_deck([*BASE, "freeze"])) or compact.CompactSolver.supports(
        _deck([*BASE, "freeze"])
    )
    assert compact.CompactSolver.supports(_deck([*BASE, "freeze"]), "published") == ""
    with pytest.raises(compact.AnalysisError, match="turn_model"):
        compact.CompactSolver(turn_model="house")


def test_cli(capsys: pytest.CaptureFixture[str]) -> None:
    from flip7ref.cli import main

    line = ["solve", "--cards", "0,1,2,3,x2,flip_three,freeze", "--json", "--turn-model", "published"]
    assert main([*line, "--solver", "compact"]) == 0
    data = json.loads(capsys.readouterr().out)
    want, states = _brute(["0", "1", "2", "2", "3", "3", "3", "x2"] + ["flip_three"] * 3 + ["freeze"] * 3)
    assert data["value"] == pytest.approx(want, abs=1e-12) and data["states"] == states
    assert main(line) == 0 and json.loads(capsys.readouterr().out)["value"] == data["value"]  # auto: the compact solver
    assert main([*line, "--solver", "interpreter"]) == 2
    assert "--turn-model published" in capsys.readouterr().err
    assert main([*line, "--solver", "compact", "--max-memory", "0.0000001"]) == 3


@pytest.mark.skipif(not SLOW, reason="all 94 cards: 4 min of CPU (20 min on a loaded machine), 4.2 GB: FLIP7REF_SLOW=1")
def test_all_94_cards() -> None:
    state = solo_deck_position(GAME, ["number", "modifier", "action"])
    got = compact.CompactSolver(turn_model="published", max_states=2_000_000_000, max_bytes=8e9,
                                probabilities=False, ties="stay").solve(state)  # fmt: skip
    assert got.value == pytest.approx(20.2980220287, abs=1e-10)
    assert got.states == 1_208_732_216
