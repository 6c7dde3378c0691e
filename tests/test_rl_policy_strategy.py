"""`flip7ref.rl.policy.PolicyStrategy`: a trained policy (observation -> index) played as a strategy."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from flip7ref import Game
from flip7ref.core.errors import OptionError, StrategyError
from flip7ref.play.bench import bench_agent
from flip7ref.play.games import play
from flip7ref.play.strategies import parse_strategy
from flip7ref.rl import Flip7GymEnv
from flip7ref.rl.policy import PolicyStrategy


def _first_legal(obs: dict[str, np.ndarray[Any, Any]]) -> np.int64:
    return np.flatnonzero(obs["action_mask"])[0]


@pytest.mark.parametrize("edition", ["flip7", "vengeance"])
def test_the_policy_sees_what_the_gym_env_shows_its_learner(edition: str) -> None:
    """At each of the learner's decisions, the strategy's observation of the state equals the
    env's observation (same encoder, same seat layout), and the policy's index becomes the
    action the env would take for it."""
    env = Flip7GymEnv(edition, 3, seat=1, opponents="threshold:20", normalize=True)
    strategy = PolicyStrategy(_first_legal, normalize=True)
    obs, _ = env.reset(seed=4)
    decisions = 0
    done = False
    while not done:
        state = env.game_state
        assert state is not None
        mine = strategy.observation(state)
        assert np.array_equal(mine["observation"], obs["observation"])
        assert np.array_equal(mine["action_mask"], obs["action_mask"])
        index = int(_first_legal(obs))
        assert strategy.choose(state, random.Random(0)) == env.actions.decode(state, index)
        obs, _, terminated, truncated, _ = env.step(index)
        done = terminated or truncated
        decisions += 1
    assert decisions > 3


def test_a_policy_enters_the_benchmark_and_a_game() -> None:
    game = Game("vengeance", 2)
    agent = PolicyStrategy(_first_legal, name="first-legal")
    one = bench_agent(game, agent, [parse_strategy("random")], 20, seed=2)
    two = bench_agent(game, PolicyStrategy(_first_legal, name="first-legal"), [parse_strategy("random")], 20, seed=2)
    assert one.agent == "first-legal" and one.matches[0].shares == two.matches[0].shares
    final = play(Game("flip7", 3).new_initial_state(seed=1), [agent, parse_strategy("threshold:20"), agent], random.Random(1))
    assert final.is_terminal()


def test_bad_policies_are_named() -> None:
    state = Game("flip7", 2).new_initial_state(seed=1)
    while state.is_chance_node():
        state = state.apply_chance(state.sample_chance(random.Random(0)))
    with pytest.raises(StrategyError, match=r"strategy 'p': the policy chose index 999, not legal here \(legal: \["):
        PolicyStrategy(lambda obs: 999, name="p").choose(state, random.Random(0))
    with pytest.raises(StrategyError, match=r"the policy returned 0\.5, expected a whole action index"):
        PolicyStrategy(lambda obs: 0.5, name="p").choose(state, random.Random(0))
    with pytest.raises(StrategyError, match=r"the policy returned 'hit', expected an action index"):
        PolicyStrategy(lambda obs: "hit", name="p").choose(state, random.Random(0))
    with pytest.raises(OptionError, match="policy: expected a callable"):
        PolicyStrategy(3)  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="seats"):
        PolicyStrategy(_first_legal, seats="sideways")
