"""Faults of plug-ins and ecosystem adapters that must end in one clear error
(the reliability issue): Action arguments in both builds, the decision time limit
outside the main thread, OpenSpiel chance actions, PettingZoo after the end, the
engine handshake's timeout."""

from __future__ import annotations

import random
import signal
import sys
import threading
import time
from typing import Any

import pytest

from flip7ref import Game, IllegalActionError
from flip7ref.cli import main
from flip7ref.core.errors import DecisionTimeoutError, OptionError
from flip7ref.core.model import Action
from flip7ref.play.games import play
from flip7ref.play.strategies import RandomStrategy
from flip7ref.proc.timelimit import TimedStrategy, check_timeout


@pytest.mark.parametrize("args", [("x",), (True,), (1.0,), [1], (None,)])
def test_an_action_with_arguments_that_are_not_whole_numbers_is_refused_when_built(args: Any) -> None:
    with pytest.raises(IllegalActionError) as info:
        Action("target", args)
    assert "\n" not in str(info.value)
    assert "whole numbers" in str(info.value)


def test_an_action_with_a_verb_that_is_not_text_is_refused() -> None:
    with pytest.raises(IllegalActionError, match="a verb"):
        Action(7, ())  # type: ignore[arg-type]


def test_an_action_of_whole_numbers_is_still_equal_to_the_legal_one() -> None:
    state = Game("flip7", 3).new_initial_state(seed=1)
    while state.current_player == -1 or state.pending()[0] != "offer":
        chance = state.current_player == -1
        state = state.apply_chance(state.sample_chance(random.Random(0))) if chance else state.apply(state.legal_actions()[0])
    assert Action("hit") in state.legal_actions()
    assert state.apply(Action("hit")).to_dict() == state.apply("hit").to_dict()
    assert str(Action("swap", (0, 1, 2, 3))) == "swap 0 1 2 3"


class _Sleeper:
    name = "sleeper"

    def choose(self, state: Any, rng: random.Random) -> Any:
        time.sleep(30)


def _first_decision() -> Any:
    return Game("flip7", 3).new_initial_state(seed=1)


def test_the_decision_time_limit_stops_a_sleeping_strategy_in_the_main_thread() -> None:
    start = time.monotonic()
    with pytest.raises(DecisionTimeoutError) as info:
        play(_first_decision(), [TimedStrategy(_Sleeper(), 0.2)], random.Random(1))
    assert time.monotonic() - start < 5
    assert str(info.value) == (
        "strategy 'sleeper' at seat 1 did not choose within 0.2 s (the decision time limit, --decision-timeout)"
    )


def test_the_decision_time_limit_works_outside_the_main_thread_too() -> None:
    """A Dask worker runs its tasks in threads: there the watchdog thread waits for the decision."""
    box: list[BaseException] = []

    def run() -> None:
        try:
            play(_first_decision(), [TimedStrategy(_Sleeper(), 0.2)], random.Random(1))
        except BaseException as exc:
            box.append(exc)

    start = time.monotonic()
    worker = threading.Thread(target=run)
    worker.start()
    worker.join(10)
    assert time.monotonic() - start < 5
    assert [type(e) for e in box] == [DecisionTimeoutError]
    assert "strategy 'sleeper' at seat 1 did not choose within 0.2 s" in str(box[0])


def test_a_timed_run_plays_the_same_game_and_leaves_other_alarms_alone() -> None:
    game = Game("flip7", 3)
    plain = play(game.new_initial_state(seed=9), [RandomStrategy()], random.Random(3))
    timed = play(game.new_initial_state(seed=9), [TimedStrategy(RandomStrategy(), 5)], random.Random(3))
    assert timed.to_dict() == plain.to_dict()
    fired: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(1))
    try:
        play(game.new_initial_state(seed=9), [TimedStrategy(RandomStrategy(), 5)], random.Random(3))
        signal.setitimer(signal.ITIMER_REAL, 0.05)  # someone else's alarm, after a timed run
        time.sleep(0.3)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert fired == [1]


@pytest.mark.parametrize("value", [0, -1, "nan", "inf", "x", True, 10**7])
def test_a_decision_time_limit_must_be_seconds_above_0(value: object) -> None:
    with pytest.raises(OptionError, match="--decision-timeout: expected"):
        check_timeout(value)


def test_openspiel_refuses_a_chance_action_outside_the_card_codes() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from flip7ref.rl.openspiel_game import register

    register()
    game = pyspiel.load_game("python_flip7ref")
    for action in (999, -22, 22):
        state = game.new_initial_state()
        with pytest.raises(IllegalActionError) as info:
            state.apply_action(action)
        assert str(info.value).startswith(f"illegal action '{action}': a chance action is a card kind's code, 0..21")
        assert str(state) == str(game.new_initial_state())  # not played as another card
    assert game.new_initial_state().action_to_string(-1, 999) == "chance 999 (no such card kind)"


def test_pettingzoo_after_the_end_and_for_an_unknown_agent_is_a_clear_value_error() -> None:
    pytest.importorskip("pettingzoo")
    from flip7ref.rl.pettingzoo_env import raw_env as env  # the bare env: the wrapped one follows PettingZoo's wrappers

    e = env(players=2)
    e.reset(seed=1)
    rng = random.Random(1)
    while e.agents:
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else rng.choice([i for i, m in enumerate(obs["action_mask"]) if m]))
    over = "the game is over and every agent has stepped out: call reset() to play another"
    for call in (lambda: e.step(0), lambda: e.step(None), lambda: e.last()):
        with pytest.raises(OptionError) as info:
            call()
        assert str(info.value) == over
        assert isinstance(info.value, ValueError)
    for call in (lambda: e.observe("player_9"), lambda: e.action_space("x"), lambda: e.observation_space(3)):
        with pytest.raises(OptionError, match="expected one of player_0, player_1"):
            call()
    e.reset(seed=2)
    assert e.last()[0] is not None


def test_the_handshake_is_bounded_by_the_timeout_given(capsys: Any) -> None:
    silent = f"{sys.executable} -c 'import time; time.sleep(60)'"
    start = time.monotonic()
    status = main(["conformance", "run", "--engine", silent, "--timeout", "1", "--case", "F7-C0001"])
    took = time.monotonic() - start
    err = capsys.readouterr().err
    assert status == 2
    assert took < 15  # not the 30 s floor the handshake has without --timeout
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
