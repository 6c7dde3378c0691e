"""flip7ref.rl.env's wrappers (subclasses of PettingZoo's with a direct path for the attributes
of every step) behave as PettingZoo's own, and the action space answers as ``Discrete``."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import pytest

_REASON = "needs the optional [rl] extra: pip install -e '.[rl]'"
np = pytest.importorskip("numpy", reason=_REASON)
pytest.importorskip("gymnasium", reason=_REASON)
pytest.importorskip("pettingzoo", reason=_REASON)

from gymnasium import spaces  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402
from pettingzoo.utils import wrappers  # noqa: E402

import flip7ref.rl as rl  # noqa: E402
from flip7ref.rl.forwarding import FORWARDED  # noqa: E402
from flip7ref.rl.pettingzoo_env import ActionSpace  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
    "ignore:.*illegal move.*:UserWarning",
)


def _stock(edition: str, players: int, options: dict[str, Any]) -> Any:
    """The same bare environment in PettingZoo's own wrappers (as leduc_holdem_v4 builds them)."""
    wrapped = wrappers.TerminateIllegalWrapper(rl.raw_env(edition, players, options, reward="points"), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(wrapped))


def _trace(env: Any, steps: int, seed: int) -> list[Any]:
    """What a loop sees over ``steps`` steps: every read of the forwarded attributes, the
    observations, and now and then an illegal index (which ends the game with -1)."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    out: list[Any] = []
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.last()
        out.append((env.agent_selection, list(env.agents), dict(env.terminations), dict(env.truncations),
                    dict(env.rewards), dict(env._cumulative_rewards), reward, terminated, truncated, dict(info),
                    obs["observation"].tolist(), obs["action_mask"].tolist(), str(env)))  # fmt: skip
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                env.reset()
            continue
        mask = obs["action_mask"]
        illegal = rng.random() < 0.02  # now and then an illegal index: the game ends
        env.step(int(np.flatnonzero(mask == 0)[0]) if illegal else rng.choice(np.flatnonzero(mask).tolist()))
    return out


@pytest.mark.parametrize(("edition", "players", "options"), [("flip7", 3, {}), ("vengeance", 4, {"brutal": "true"})])
def test_the_wrappers_see_what_pettingzoos_own_see(edition: str, players: int, options: dict[str, Any]) -> None:
    options = {**options, "target_score": 60}
    ours = rl.env(edition, players, options, reward="points")
    assert _trace(ours, 1500, 11) == _trace(_stock(edition, players, options), 1500, 11)


def test_the_wrappers_are_pettingzoos_classes_and_refuse_reads_before_reset() -> None:
    env = rl.env("flip7", 2)
    assert type(env) is not wrappers.OrderEnforcingWrapper and isinstance(env, wrappers.OrderEnforcingWrapper)
    for name in ("agent_selection", "agents", "terminations", "truncations", "rewards", "infos"):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(env, name)
    assert not hasattr(env, "agents")
    assert str(env) == str(env.unwrapped) == str(_stock("flip7", 2, {}))
    env.reset(seed=1)
    assert env.agent_selection == env.unwrapped.agent_selection and env.env.agents is env.unwrapped.agents
    assert set(FORWARDED) >= {"agent_selection", "terminations", "_cumulative_rewards"}


def test_an_attribute_set_on_a_wrapper_comes_first_as_in_pettingzoo() -> None:
    env = rl.env("flip7", 2)
    env.reset(seed=1)
    env.env.infos = {"player_0": {"mine": True}, "player_1": {}}  # on the middle wrapper, as PettingZoo allows
    assert env.infos["player_0"] == {"mine": True} and env.unwrapped.infos["player_0"] == {}


def test_api_test_with_an_illegal_move_first() -> None:
    env = rl.env("vengeance", 3)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0]))
    assert all(env.terminations.values()) and sorted(env.rewards.values()) == [-1.0, 0.0, 0.0]
    api_test(rl.env("vengeance", 3), num_cycles=20)


@pytest.mark.parametrize(
    "x", [0, 5, 6, -1, True, False, 2**70, 3.0, "1", None, np.int64(3), np.int8(7), np.int64(-1), np.array(2), np.array([1])]
)
def test_action_space_answers_as_discrete(x: Any) -> None:
    ours, theirs = ActionSpace(6), spaces.Discrete(6)
    assert ours.contains(x) == theirs.contains(x)
    assert ours == theirs and pickle.loads(pickle.dumps(ours)).contains(x) == theirs.contains(x)
    assert copy.deepcopy(ours).contains(x) == theirs.contains(x)
