"""The compact-key solver (`flip7ref.analysis.compact`) against the interpreter's
`SoloSolver`: the same values (to 1e-12), the same policy, the same state count, on
every deck both solve; the published solitaire values; the estimate against real counts;
refusals before a solve starts."""

from __future__ import annotations

import os

import pytest

from flip7ref import Game
from flip7ref.analysis import AnalysisError, SoloSolver, solo_deck_position
from flip7ref.core.errors import LimitReached
from flip7ref.core.state import HIT, State
from tests.solo_oracles import published_turn

compact = pytest.importorskip("flip7ref.analysis.compact")
pytest.importorskip("numpy")

SLOW = os.environ.get("FLIP7REF_SLOW") == "1"
GAME = Game("flip7", 1)


def _deck(cards: list[str]) -> State:
    """A fresh solo round over exactly ``cards`` (card ids, with repeats)."""
    return GAME.new_position(draw=cards, rest="out", seed=None, deal=True, totals=[GAME.target_score])


def _small_second_chance_deck() -> State:
    """Numbers 0..6 (22 cards), x2, +4 and the three Second Chances."""
    numbers = [str(r) for r in range(7) for _ in range(max(r, 1))]
    return _deck([*numbers, "x2", "+4", "second_chance", "second_chance", "second_chance"])


def _interpreter_policy(solver: SoloSolver) -> dict[tuple[tuple[int, ...], int, tuple[int, ...]], bool]:
    """SoloSolver's best actions in the compact solver's policy keys."""
    out = {}
    for key, action in solver.best_actions().items():
        line, kept, _status = key[1][0]
        out[(tuple(sorted(line)), len(kept), tuple(sorted(key[2])))] = action == HIT
    return out


def _agree(state: State, ties: str) -> None:
    interp = SoloSolver(ties=ties, max_states=2_000_000)
    want = interp.solve(state)
    fast = compact.CompactSolver(ties=ties)
    got = fast.solve(state)
    assert got.value == pytest.approx(want.value, abs=1e-12)
    assert got.bust == pytest.approx(want.bust, abs=1e-12)
    assert got.flip7 == pytest.approx(want.flip7, abs=1e-12)
    assert got.states == want.states
    assert fast.policy() == _interpreter_policy(interp)


@pytest.mark.parametrize("ties", ["hit", "stay"])
def test_numbers_agree_with_the_interpreter(ties: str) -> None:
    _agree(solo_deck_position(GAME, ["number"]), ties)


@pytest.mark.parametrize("ties", ["hit", "stay"])
def test_reduced_second_chance_deck_agrees_with_the_interpreter(ties: str) -> None:
    _agree(_small_second_chance_deck(), ties)


def test_numbers_and_few_modifiers_agree_with_the_interpreter() -> None:
    numbers = [str(r) for r in range(10) for _ in range(max(r, 1))]
    _agree(_deck([*numbers, "x2", "+10"]), "hit")


def test_an_offer_with_a_held_second_chance_agrees() -> None:
    from flip7ref.analysis import line_position

    full = line_position(GAME, ["12", "11", "10", "9", "second_chance"], seen=["freeze"] * 3 + ["flip_three"] * 3)
    assert "action card" in compact.CompactSolver.supports(full) or compact.CompactSolver.supports(full) == ""
    state = GAME.new_position(
        lines={0: ["12", "11", "7", "x2"]}, kept={0: ["second_chance"]},
        draw=[str(r) for r in range(13) for _ in range(max(r, 1) - (r in (12, 11, 7)))] + ["second_chance", "+2"],
        seed=None, rest="out", totals=[GAME.target_score],
    )  # fmt: skip
    _agree(state, "hit")


def test_published_values() -> None:
    numbers = compact.CompactSolver().solve(solo_deck_position(GAME, ["number"]))
    assert numbers.value == pytest.approx(18.5652176141, abs=1e-10)
    mods = compact.CompactSolver().solve(solo_deck_position(GAME, ["number", "modifier"]))
    assert mods.value == pytest.approx(20.2291054307, abs=1e-10)
    assert mods.states == 262_143
    # the secondary figures of the default tie-break (docs/analysis.md)
    assert mods.bust == pytest.approx(0.3263376365, abs=1e-10)
    assert mods.flip7 == pytest.approx(0.0028415833, abs=1e-10)
    stay = compact.CompactSolver(ties="stay").solve(solo_deck_position(GAME, ["number"]))
    assert stay.bust == pytest.approx(0.3134964608, abs=1e-10)


@pytest.mark.parametrize(
    "state",
    [
        solo_deck_position(GAME, ["number"]),
        solo_deck_position(GAME, ["number", "modifier"]),
        _small_second_chance_deck(),
        _deck([str(r) for r in range(13) for _ in range(max(r, 1))] + ["second_chance"] * 3),
    ],
)
def test_the_estimate_is_the_real_count(state: State) -> None:
    states, _ = compact.compact_estimate(state)
    got = compact.CompactSolver().solve(state).states
    assert got <= states <= got + 1  # the forced first card of a deal is counted by the estimate
    assert states <= 2 * got


def test_the_full_second_chance_estimate() -> None:
    states, _ = compact.compact_estimate(solo_deck_position(GAME, ["number", "modifier", "second_chance"]))
    assert states == 21_980_032  # the decision states solved, 21,980,031, and the deal's first card


def test_refusals_before_the_solve() -> None:
    state = solo_deck_position(GAME, ["number", "modifier", "second_chance"])
    with pytest.raises(LimitReached, match="GB of memory"):
        compact.CompactSolver(max_bytes=1e8).solve(state)
    with pytest.raises(LimitReached, match="more than 1,000 states"):
        compact.CompactSolver(max_states=1000).solve(state)
    whole = solo_deck_position(GAME, ["number", "modifier", "action"])
    assert "freeze" in compact.CompactSolver.supports(whole)
    with pytest.raises(AnalysisError, match="does not cover"):
        compact.CompactSolver().solve(whole)
    with pytest.raises(AnalysisError, match="ties"):
        compact.CompactSolver(ties="never")


def test_a_pile_that_can_run_out_is_not_covered() -> None:
    assert "run out" in compact.CompactSolver.supports(_deck(["3", "5", "x2"]))


@pytest.mark.skipif(not SLOW, reason="about 20 s: FLIP7REF_SLOW=1")
def test_numbers_and_modifiers_agree_with_the_interpreter() -> None:
    _agree(solo_deck_position(GAME, ["number", "modifier"]), "hit")


@pytest.mark.skipif(not SLOW, reason="about 2 min and 1.5 GB: FLIP7REF_SLOW=1")
def test_published_second_chance_value() -> None:
    result = compact.CompactSolver().solve(solo_deck_position(GAME, ["number", "modifier", "second_chance"]))
    assert result.value == pytest.approx(22.2504034143, abs=1e-10)
    assert result.states == 21_980_031


def _published_turn(deck: list[str], freeze_first_wins: bool) -> float:
    """The value of `tests.solo_oracles.published_turn` (its docstring says the turn)."""
    return published_turn(deck, freeze_first_wins)[0]


@pytest.mark.parametrize(
    "actions", [["freeze"], ["flip_three"], ["flip_three", "freeze"], ["flip_three"] * 3, ["second_chance", "flip_three"]]
)
def test_the_interpreters_solo_turn_is_the_published_one(actions: list[str]) -> None:
    deck = ["0", "1", "2", "2", "3", "3", "3", "x2", *actions]
    got = SoloSolver().solve(_deck(deck)).value
    assert got == pytest.approx(_published_turn(deck, False), abs=1e-12)


def test_where_the_interpreters_solo_turn_differs() -> None:
    """Two Flip Threes and a Freeze: the interpreter resolves the cards set aside during a Flip
    Three in order, so a Freeze met before a second Flip Three ends the turn first (F7-074, F7-075);
    the published solver draws the second Flip Three's cards before the Freeze."""
    deck = ["0", "1", "2", "2", "3", "3", "3", "x2", "flip_three", "flip_three", "freeze"]
    got = SoloSolver().solve(_deck(deck)).value
    assert got == pytest.approx(_published_turn(deck, True), abs=1e-12)
    assert got == pytest.approx(3.0608874458874458, abs=1e-12)
    assert _published_turn(deck, False) == pytest.approx(3.0458874458874456, abs=1e-12)


def test_cli(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from flip7ref.cli import main

    assert main(["solve", "--cards", "numbers", "--solver", "compact", "--check", "--json"]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert data["value"] == pytest.approx(18.5652176141, abs=1e-10) and data["states"] == 4095
    assert "the interpreter agrees" in out.err
    assert main(["solve", "--cards", "numbers,actions", "--solver", "compact"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--solver compact: action card 'freeze'" in err
    assert main(["solve", "--cards", "numbers,modifiers,second_chance"]) == 3  # the estimate passes --max-states
    assert "needs about 21,980,032 states" in capsys.readouterr().err
    line = ["odds", "--line", "3,11,5", "--seen", "12,12", "--cards", "numbers,modifiers", "--json"]
    assert main([*line, "--solver", "compact"]) == 0
    fast = json.loads(capsys.readouterr().out)
    assert main([*line, "--solver", "interpreter"]) == 0
    slow = json.loads(capsys.readouterr().out)
    assert fast["values"] == pytest.approx(slow["values"], abs=1e-12)
    assert fast["best"] == slow["best"] == "hit"
    assert fast["states"] == slow["states"] == 11264
