"""Arguments of the wrong type at the public entry points raise the project's errors.

The same in both builds: the compiled core (mypyc checks the declared type of every
argument of a compiled function) must not answer with a bare ``TypeError`` where the
pure-Python build runs the project's own validation (docs/build.md).  A bool is not a seat.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

import flip7ref
from flip7ref import Action, CardError, Game, IllegalActionError, OptionError, SerializationError, State
from flip7ref.core.scoring import score_cards
from flip7ref.play.games import play, simulate
from flip7ref.play.strategies import ThresholdStrategy, parse_strategy

GAME = Game("flip7", 4)
START = GAME.new_initial_state(seed=1)


def _offer() -> State:
    s = START
    while s.is_chance_node():
        s = s.apply_chance(s.sample_chance())
    return s


OFFER = _offer()
BAD: dict[str, tuple[Callable[[], object], type[Exception]]] = {
    "Game players str": (lambda: Game("flip7", "4"), OptionError),
    "Game players bool": (lambda: Game("flip7", True), OptionError),
    "Game players float": (lambda: Game("flip7", 2.0), OptionError),
    "Game edition int": (lambda: Game(5, 4), OptionError),
    "Game options list": (lambda: Game("flip7", 4, []), OptionError),
    "seed float": (lambda: GAME.new_initial_state(seed=1.5), OptionError),
    "dealer str": (lambda: GAME.new_initial_state(seed=1, dealer="0"), OptionError),
    "dealer bool": (lambda: GAME.new_initial_state(seed=1, dealer=True), OptionError),
    "stack str": (lambda: GAME.new_initial_state(seed=1, stack="12"), CardError),
    "stack of codes out of range": (lambda: GAME.new_initial_state(seed=1, stack=[10**6]), CardError),  # codes 0..21 are cards
    "stack of bools": (lambda: GAME.new_initial_state(seed=1, stack=[True]), CardError),
    "totals int": (lambda: GAME.new_initial_state(seed=1, totals=5), OptionError),
    "totals of str": (lambda: GAME.new_initial_state(seed=1, totals=["a"] * 4), OptionError),
    "position dealer str": (lambda: GAME.new_position(dealer="x"), OptionError),
    "position turn bool": (lambda: GAME.new_position(turn=True), OptionError),
    "position lines list of ints": (lambda: GAME.new_position(lines=[1]), CardError),  # a list per seat: each a line
    "position line of bad codes": (lambda: GAME.new_position(lines={0: [-1]}), CardError),
    "position status int": (lambda: GAME.new_position(statuses={0: 1}), OptionError),
    "position draw int": (lambda: GAME.new_position(draw=5), CardError),
    "position totals str": (lambda: GAME.new_position(totals="abcd"), OptionError),
    "position round str": (lambda: GAME.new_position(round_number="1"), OptionError),
    "position rest int": (lambda: GAME.new_position(rest=1), OptionError),
    "apply int": (lambda: OFFER.apply(5), IllegalActionError),
    "apply None": (lambda: OFFER.apply(None), IllegalActionError),
    "apply_chance int": (lambda: START.apply_chance(5), CardError),
    "apply_move int": (lambda: OFFER.apply_move(5), IllegalActionError),
    "status str": (lambda: OFFER.status("0"), OptionError),
    "status bool": (lambda: OFFER.status(True), OptionError),
    "line float": (lambda: OFFER.line(1.0), OptionError),
    "kept None": (lambda: OFFER.kept(None), OptionError),
    "line_value str": (lambda: OFFER.line_value("a"), OptionError),
    "from_dict int": (lambda: State.from_dict(5), SerializationError),
    "from_dict game int": (lambda: State.from_dict(OFFER.to_dict(), game=5), SerializationError),
    "Action.parse int": (lambda: Action.parse(5), IllegalActionError),
    "score_cards str": (lambda: score_cards(GAME, "7"), CardError),
    "score_cards of ints": (lambda: score_cards(GAME, [7]), CardError),
    "load_edition int": (lambda: flip7ref.load_edition(5), OptionError),
    "score_cards game int": (lambda: score_cards(5, ["7"]), OptionError),
    "play state int": (lambda: play(5, [ThresholdStrategy(20)], random.Random(1)), OptionError),
    "play max_moves str": (lambda: play(OFFER, [ThresholdStrategy(20)], random.Random(1), max_moves="x"), OptionError),
    "simulate games str": (lambda: simulate(GAME, "3", 1, [ThresholdStrategy(20)]), OptionError),
    "simulate workers bool": (lambda: simulate(GAME, 3, 1, [ThresholdStrategy(20)], workers=True), OptionError),
    "parse_strategy int": (lambda: parse_strategy(5), OptionError),
    "threshold str": (lambda: ThresholdStrategy("20"), OptionError),
    "threshold bool": (lambda: ThresholdStrategy(True), OptionError),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_wrong_argument_types_raise_the_projects_errors(case: str) -> None:
    call, error = BAD[case]
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error, f"{case}: {type(info.value).__name__}: {info.value} (compiled={flip7ref.compiled})"


def test_compiled_is_a_bool_and_the_version_names_the_build(capsys: pytest.CaptureFixture[str]) -> None:
    from flip7ref.cli import main

    assert isinstance(flip7ref.compiled, bool)
    assert flip7ref.compiled == (not str(flip7ref.core.state.__file__).endswith(".py"))
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    build = "compiled with mypyc" if flip7ref.compiled else "pure Python"
    assert out.splitlines()[0] == f"flip7ref {flip7ref.__version__} ({build})"
