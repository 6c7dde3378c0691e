"""The batched vector envs' callable opponents (self-play with a frozen policy) and their
normalised observations (issue 44, item 5: the friction list)."""

from __future__ import annotations

import re
from typing import Any

import pytest

np = pytest.importorskip("numpy")
gym = pytest.importorskip("gymnasium")

from flip7ref.batch.vector_env import Flip7VectorEnv, VengeanceVectorEnv  # noqa: E402
from flip7ref.core.errors import OptionError  # noqa: E402
from flip7ref.rl import Flip7GymEnv, ObservationEncoder  # noqa: E402

ONE = {"reshuffles": 1}  # the batched engine plays whole numbers of reshuffles (docs/batch.md)
ENVS = [Flip7VectorEnv, VengeanceVectorEnv]


def first_legal(obs: Any, mask: Any) -> Any:
    """A batched policy: the first legal action of each game."""
    return np.argmax(mask, axis=1)


class Linear:
    """A stand-in for a learner's network: a linear score per action, the best legal one."""

    def __init__(self, weights: Any) -> None:
        self.weights = weights

    def __call__(self, obs: Any, mask: Any) -> Any:
        scores = obs @ self.weights
        return np.argmax(np.where(mask.astype(bool), scores, -np.inf), axis=1)


def _random(rng: Any, mask: Any) -> Any:
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


@pytest.mark.parametrize("env_class", ENVS)
def test_a_numpy_policy_plays_the_other_seats_from_their_own_view(env_class: type) -> None:
    calls: list[tuple[Any, Any, Any]] = []

    def policy(obs: Any, mask: Any) -> Any:
        chosen = first_legal(obs, mask)
        calls.append((obs.copy(), mask.copy(), chosen))
        return chosen

    env = env_class(6, 3, seat=1, opponents=policy, options=ONE)
    assert env.policy == "callable"
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(5)
    encoder = ObservationEncoder(env.state.game)
    start, _ = encoder.sections["observer"]
    to_act, _ = encoder.sections["to_act"]
    ended = 0
    for _ in range(60):
        obs, _r, terminated, truncated, _i = env.step(_random(rng, obs["action_mask"]))
        ended += int((terminated | truncated).sum())
    assert calls and ended > 0
    for o, m, chosen in calls:
        assert o.dtype == np.float32 and o.shape == (m.shape[0], encoder.size) and m.dtype == np.int8
        seats = np.argmax(o[:, start : start + 3], axis=1)
        assert (seats != 1).all()  # never the learner's seat
        assert (seats == np.argmax(o[:, to_act : to_act + 3], axis=1)).all()  # the observer is the seat to act
        assert m[np.arange(m.shape[0]), chosen].all()


@pytest.mark.parametrize(("edition", "env_class"), [("flip7", Flip7VectorEnv), ("vengeance", VengeanceVectorEnv)])
def test_the_batched_policy_plays_as_the_single_envs_policy_opponent(edition: str, env_class: type) -> None:
    """Under ``shuffle="reference"`` the batched first-legal policy and the single env's
    first-legal policy opponent lead to the same learner observations, step by step."""
    single = Flip7GymEnv(edition, 3, seat=0, opponents=lambda o: int(np.flatnonzero(o["action_mask"])[0]),
                         reward="points", max_moves=100_000, options=ONE)  # fmt: skip
    s_obs, _ = single.reset(seed=11)
    game_seed = int(np.random.default_rng(11).integers(2**62))  # the single env's deal
    env = env_class(1, 3, seat=0, opponents=first_legal, shuffle="reference", reward="points", max_moves=100_000,
                    options=ONE)  # fmt: skip
    v_obs, _ = env.reset(seed=game_seed)
    rng = np.random.default_rng(11)
    for step in range(10_000):
        assert (v_obs["observation"][0] == s_obs["observation"]).all(), f"step {step}"
        assert (v_obs["action_mask"][0] == s_obs["action_mask"]).all(), f"step {step}"
        a = int(_random(rng, v_obs["action_mask"])[0])
        s_obs, s_reward, s_done, _t, _i = single.step(a)
        v_obs, v_reward, v_done, _vt, infos = env.step(np.array([a]))
        assert (v_reward[0], bool(v_done[0])) == (s_reward, s_done)
        if s_done:
            assert list(infos["final_info"]["totals"][0]) == list(single.game_state.totals)
            return
    pytest.fail("the game did not end")


@pytest.mark.parametrize("env_class", ENVS)
def test_self_play_against_a_frozen_copy_of_the_learner(env_class: type) -> None:
    """The opponents play a frozen copy of the learner's weights: training the learner
    afterwards changes nothing they do, where the live learner as opponent would."""
    probe = env_class(1, 3, options=ONE, normalize=True)
    size, actions = probe.single_observation_space["observation"].shape[0], probe.single_action_space.n
    rng = np.random.default_rng(0)
    learner = Linear(rng.normal(size=(size, actions)).astype(np.float32))
    acting = Linear(learner.weights.copy())  # the learner seat's moves, the same in every run

    def run(opponents: Linear, steps: int = 40) -> list[Any]:
        env = env_class(8, 3, seat=0, opponents=opponents, normalize=True, reward="points", options=ONE)
        obs, _ = env.reset(seed=3)
        trace = []
        for _ in range(steps):
            obs, reward, _t, _tr, _i = env.step(acting(obs["observation"], obs["action_mask"]))
            trace += [obs["observation"].copy(), reward.copy()]
        return trace

    frozen = Linear(learner.weights.copy())
    before = run(frozen)
    assert all((a == b).all() for a, b in zip(before, run(learner), strict=True))  # the same weights: the same games
    learner.weights += rng.normal(size=learner.weights.shape).astype(np.float32)  # the learner trains on
    assert all((a == b).all() for a, b in zip(before, run(frozen), strict=True))
    assert not all((a == b).all() for a, b in zip(before, run(learner), strict=True))


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        (lambda o, m: np.zeros(m.shape[0] + 1, np.int64), r"opponents: expected \d+ action indices, got shape \(\d+,\)"),
        (lambda o, m: np.zeros(m.shape[0], np.float32),
         re.escape("opponents: expected action indices (whole numbers), got a float32 array")),
        (lambda o, m: None, "opponents: expected a 1-D sequence of action indices, got None"),
        (lambda o, m: np.full(m.shape[0], 10_000),
         r"opponents\[0\]: chose action 10000, not legal in that game; expected one of \[\d"),
        (lambda o, m: np.argmin(m, axis=1), r"opponents\[0\]: chose action \d+, not legal in that game; expected one of \[\d"),
    ],
)  # fmt: skip
def test_a_policy_answer_that_is_not_one_legal_index_per_game_is_an_option_error(policy: Any, message: str) -> None:
    env = Flip7VectorEnv(4, 4, seat=3, opponents=policy, options=ONE)  # seats 0-2 decide before the learner
    with pytest.raises(OptionError, match=message):
        env.reset(seed=0)


@pytest.mark.parametrize("env_class", ENVS)
def test_an_opponent_that_is_neither_a_name_nor_a_callable_is_an_option_error(env_class: type) -> None:
    """It was a raw AttributeError (``'int' object has no attribute 'partition'``)."""
    with pytest.raises(OptionError, match=r"^opponents: expected 'random', 'threshold:N' or a batched policy callable "
                       r"\(observations, masks\) -> actions, got 3$"):  # fmt: skip
        env_class(2, 2, opponents=3, options=ONE)
    with pytest.raises(OptionError, match="normalize: expected True or False, got 'yes'"):
        env_class(2, 2, normalize="yes", options=ONE)


@pytest.mark.parametrize("env_class", ENVS)
def test_normalised_observations_stay_within_their_documented_bounds(env_class: type) -> None:
    """``normalize=True``: card counts in 0..1, totals and line values over the target score
    and the round over 10 clipped to +-10 (a low target makes totals pass it), the same values
    as `ObservationEncoder.normalize` gives for the raw observation."""
    options = {**ONE, "target_score": 40}
    raw = env_class(16, 3, opponents="random", reward="points", options=options)
    norm = env_class(16, 3, opponents="random", reward="points", options=options, normalize=True)
    encoder = ObservationEncoder(norm.state.game)
    space = norm.single_observation_space["observation"]
    assert (space.low == np.asarray(encoder.normalized_low, np.float32)).all()
    assert (space.high == np.asarray(encoder.normalized_high, np.float32)).all()
    counts = [encoder.sections[name] for name in ("unseen", "discard", "set_aside", "lines", "kept")]
    totals = slice(*(lambda s, n: (s, s + n))(*encoder.sections["totals"]))
    r_obs, _ = raw.reset(seed=9)
    n_obs, _ = norm.reset(seed=9)
    rng = np.random.default_rng(9)
    top = 0.0
    for _ in range(300):
        r, n = r_obs["observation"], n_obs["observation"]
        assert norm.observation_space["observation"].contains(n)
        for s, k in counts:
            assert n[:, s : s + k].min() >= 0.0 and n[:, s : s + k].max() <= 1.0
        expected = np.array([encoder.normalize(row.tolist()) for row in r], np.float32)
        assert (n == expected).all()
        top = max(top, float(n[:, totals].max()))
        a = _random(rng, r_obs["action_mask"])
        r_obs, *_ = raw.step(a)
        n_obs, *_ = norm.step(a)
    assert top > 1.0  # a total past the target score was seen, and scaled by it (not clipped at 1)


@pytest.mark.parametrize("env_class", ENVS)
def test_a_policy_that_writes_into_its_mask_cannot_make_an_action_legal(env_class: type) -> None:
    """A policy that set every entry of the mask it was given to 1, then chose action 0, had
    its answer checked against that mask: the illegal action passed and ``reset`` never
    returned (the opponent's decision never advanced).  Now the env checks against its own."""

    def cheat(obs: Any, mask: Any) -> Any:
        illegal = np.argmin(mask, axis=1)  # an action not legal in each game
        mask[...] = 1
        obs[...] = np.nan
        return illegal

    env = env_class(4, 4, seat=3, opponents=cheat, options=ONE)  # seats 0-2 decide before the learner
    with pytest.raises(OptionError, match=r"^opponents\[0\]: chose action \d+, not legal in that game; expected one of \["):
        env.reset(seed=0)


@pytest.mark.parametrize("env_class", ENVS)
def test_an_exception_of_the_policy_passes_through_with_a_note(env_class: type) -> None:
    def fails(obs: Any, mask: Any) -> Any:
        raise ValueError("policy boom")

    env = env_class(4, 4, seat=3, opponents=fails, options=ONE)
    with pytest.raises(ValueError, match=r"^policy boom") as err:
        env.reset(seed=0)
    assert str(err.value) == "policy boom"
    assert err.value.__notes__ == [f"raised by the opponents policy {fails!r}"]
