"""The Gymnasium vector env of Vengeance (`VengeanceVectorEnv`) and the batched threshold
policy behind its opponents (`flip7ref.batch.v_policies`)."""

from __future__ import annotations

import math

import pytest

np = pytest.importorskip("numpy")
gym = pytest.importorskip("gymnasium")

from flip7ref import Game  # noqa: E402
from flip7ref.batch.lockstep import compare  # noqa: E402
from flip7ref.batch.v_policies import v_threshold_actions  # noqa: E402
from flip7ref.batch.v_rules import CARDS, PLAY  # noqa: E402
from flip7ref.batch.vector_env import Flip7VectorEnv, VengeanceVectorEnv  # noqa: E402
from flip7ref.batch.vengeance import VengeanceState  # noqa: E402
from flip7ref.core.errors import OptionError  # noqa: E402
from flip7ref.rl import Flip7GymEnv  # noqa: E402

ONE = {"reshuffles": 1}  # reading 1 of reshuffles, as these tests were written (the batch plays unlimited too)

def _random(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


# ---------------------------------------------------------------- the threshold policy


@pytest.mark.parametrize(
    ("players", "threshold", "games", "seed"),
    [(4, 20, 60, 0), (3, 0, 40, 100), (2, 35, 40, 200), (1, 25, 20, 300), (6, 15, 20, 400)],
)
def test_the_batched_threshold_policy_decides_as_the_reference_strategy(
    players: int, threshold: int, games: int, seed: int
) -> None:
    """Decision by decision over seeded games: the batched policy's index is the one of
    `ThresholdStrategy`'s action (Difference raised otherwise), the observations and masks agree."""
    result = compare(players, games, seed=seed, batch=games, edition="vengeance", policy=f"threshold:{threshold}", options=ONE)
    assert result["games"] == games and result["decisions"] > 20 * games


def test_threshold_play_meets_card_picks_and_targets() -> None:
    """The lockstep above covers card picks (the one-move lookahead) and target choices: they
    occur in games under threshold play."""
    bs = VengeanceState(Game("vengeance", 4, ONE), 64, seed=0)
    kinds = {PLAY: 0, CARDS: 0}
    for _ in range(400):
        live = ~bs.done
        for k in kinds:
            kinds[k] += int(((bs.kind == k) & live).sum())
        a = v_threshold_actions(bs, np.arange(64), 20)
        assert bs.legal[np.arange(64), a][live].all()
        bs.step(a)
    assert kinds[PLAY] > 100 and kinds[CARDS] > 20


def test_rows_copies_games_and_leaves_the_original_alone() -> None:
    bs = VengeanceState(Game("vengeance", 3, ONE), 4, seed=5)
    before = bs.copy()
    sub = bs.rows(np.array([2, 2, 0]))
    assert sub.B == 3 and (sub.line[0] == bs.line[2]).all() and (sub.deck[2] == bs.deck[0]).all()
    sub.step(np.argmax(sub.legal, 1))
    for name in bs._per_game:
        assert (getattr(bs, name) == getattr(before, name)).all(), name


# ---------------------------------------------------------------- the vector env


def test_spaces_masks_rewards_add_up_and_autoreset() -> None:
    """Random learner play: every returned observation lies in the space with a usable mask
    (same-step autoreset), the rewards of a game add up to its final total (points), games end."""
    env = VengeanceVectorEnv(8, 3, opponents="random", reward="points", options=ONE)
    obs, _ = env.reset(seed=1)
    assert obs["observation"].shape == (8, env.state.observation_size())
    assert obs["action_mask"].shape == (8, env.state.A)
    rng = np.random.default_rng(0)
    earned = np.zeros(8)
    ended = 0
    for _ in range(600):
        assert env.observation_space.contains(obs)
        assert obs["action_mask"].any(1).all()
        obs, reward, terminated, truncated, infos = env.step(_random(rng, obs["action_mask"]))
        assert not truncated.any()
        earned += reward
        if terminated.any():
            final = infos["final_info"]["totals"][terminated, 0]
            assert (earned[terminated] == final).all()
            assert (infos["final_obs"]["action_mask"][terminated] == np.eye(env.state.A, dtype=np.int8)[0]).all()
            assert infos["final_info"]["winners"][terminated].any(1).all()
            earned[terminated] = 0
            ended += int(terminated.sum())
    assert ended >= 8


def test_win_reward_is_plus_or_minus_one_at_the_end_only() -> None:
    env = VengeanceVectorEnv(8, 2, reward="win", opponents="threshold:20", options=ONE)
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(600):
        obs, reward, terminated, _truncated, infos = env.step(_random(rng, obs["action_mask"]))
        assert (reward[~terminated] == 0).all()
        if terminated.any():
            won = infos["final_info"]["winners"][terminated, 0]
            assert (reward[terminated] == np.where(won, 1.0, -1.0)).all()
            seen.update(reward[terminated].tolist())
    assert seen == {1.0, -1.0}


def test_an_illegal_index_leaves_the_game_and_pays_illegal_reward() -> None:
    env = VengeanceVectorEnv(4, 3, illegal_reward=-2.5, options=ONE)
    obs, _ = env.reset(seed=3)
    before = env.state.copy()
    legal = env.state.legal
    bad = np.array([np.argmin(legal[0]), -1, env.state.A + 5, 2 + np.argmin(legal[3, 2:])])  # not legal; out of range twice
    assert not legal[0, bad[0]] and not legal[3, bad[3]]
    obs2, reward, terminated, truncated, infos = env.step(bad)
    assert (reward == -2.5).all() and infos["illegal_action"].all()
    assert not terminated.any() and not truncated.any()
    assert (obs2["observation"] == obs["observation"]).all()
    assert (env.state.totals == before.totals).all() and (env.state.line == before.line).all()


def test_max_moves_truncates_and_deals_again() -> None:
    env = VengeanceVectorEnv(4, 2, max_moves=3, options=ONE)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(2)
    truncs = 0
    for _ in range(3):
        obs, _r, _terminated, truncated, infos = env.step(_random(rng, obs["action_mask"]))
        truncs += int(truncated.sum())
        if truncated.any():
            assert infos["_final_obs"][truncated].all()
    assert truncs >= 1 and obs["action_mask"].any(1).all()


def test_seeded_runs_are_reproducible_under_both_shuffles() -> None:
    for shuffle in ("reference", "numpy"):
        runs = []
        for _ in range(2):
            env = VengeanceVectorEnv(6, 4, opponents="random", shuffle=shuffle, options=ONE)
            obs, _ = env.reset(seed=11)
            rng = np.random.default_rng(5)
            trace = [obs["observation"].copy()]
            for _ in range(80):
                obs, reward, *_ = env.step(_random(rng, obs["action_mask"]))
                trace += [obs["observation"].copy(), reward.copy()]
            runs.append(trace)
        assert all((a == b).all() for a, b in zip(*runs, strict=True)), shuffle


@pytest.mark.parametrize(("players", "seat", "seed"), [(2, 0, 1), (3, 1, 2), (4, 3, 3), (4, 0, 4)])
def test_lockstep_with_the_single_vengeance_gym_env(players: int, seat: int, seed: int) -> None:
    """Under ``shuffle="reference"`` and threshold opponents the learner sees what the single
    env (`Flip7GymEnv`, edition vengeance) shows for the same deck: observations, masks and
    rewards at every step, and the final observation (a learner that plays at random)."""
    single = Flip7GymEnv("vengeance", players, seat=seat, opponents="threshold:20", reward="points", max_moves=100_000)
    for episode in range(2):
        s_obs, _ = single.reset(seed=seed * 10 + episode)
        game_seed = int(np.random.default_rng(seed * 10 + episode).integers(2**62))  # the single env's deal
        env = VengeanceVectorEnv(
            1, players, seat=seat, opponents="threshold:20", shuffle="reference", reward="points", max_moves=100_000, options=ONE
        )
        v_obs, _ = env.reset(seed=game_seed)
        rng = np.random.default_rng(seed)
        for step in range(10_000):
            assert (v_obs["observation"][0] == s_obs["observation"]).all(), f"step {step}"
            assert (v_obs["action_mask"][0] == s_obs["action_mask"]).all(), f"step {step}"
            a = int(_random(rng, v_obs["action_mask"])[0])
            s_obs, s_reward, s_done, _s_trunc, _info = single.step(a)
            v_obs, v_reward, v_done, _v_trunc, infos = env.step(np.array([a]))
            assert v_reward[0] == s_reward and v_done[0] == s_done
            if s_done:
                assert (infos["final_obs"]["observation"][0] == s_obs["observation"]).all()
                assert (infos["final_obs"]["action_mask"][0] == s_obs["action_mask"]).all()
                assert list(infos["final_info"]["totals"][0]) == list(single.game_state.totals)
                break
        else:
            pytest.fail("the game did not end")


@pytest.mark.parametrize(("players", "seat", "cap"), [(3, 1, 9), (4, 0, 14), (2, 1, 5)])
def test_max_moves_counts_every_seats_decisions_as_the_single_env(players: int, seat: int, cap: int) -> None:
    """The same deck, the same learner moves: the vector env truncates at the step the single
    env does (``max_moves`` counts the other seats' decisions too, not only the learner's)."""
    single = Flip7GymEnv("vengeance", players, seat=seat, opponents="threshold:20", reward="points", max_moves=cap)
    single.reset(seed=cap)
    game_seed = int(np.random.default_rng(cap).integers(2**62))  # the single env's deal
    env = VengeanceVectorEnv(
        1, players, seat=seat, opponents="threshold:20", shuffle="reference", reward="points", max_moves=cap, options=ONE
    )
    v_obs, _ = env.reset(seed=game_seed)
    rng = np.random.default_rng(cap)
    for step in range(cap):
        a = int(_random(rng, v_obs["action_mask"])[0])
        _s_obs, _sr, s_done, s_trunc, _ = single.step(a)
        v_obs, _vr, v_done, v_trunc, _infos = env.step(np.array([a]))
        assert (bool(v_done[0]), bool(v_trunc[0])) == (s_done, s_trunc), f"step {step}"
        if s_trunc or s_done:
            break
    assert s_trunc and step < cap - 1, "the cap was reached by the learner's moves alone: the test proves nothing"


def test_registered_for_make_vec() -> None:
    import flip7ref.rl

    env = gym.make_vec(flip7ref.rl.VECTOR_IDS["vengeance"], 5, players=3, opponents="random")
    assert isinstance(env, VengeanceVectorEnv) and env.num_envs == 5
    obs, _ = env.reset(seed=0)
    assert obs["action_mask"].shape == (5, env.state.A)
    assert isinstance(gym.make_vec(flip7ref.rl.VECTOR_IDS["flip7"], 2), Flip7VectorEnv)


def test_the_flip7_vector_env_shares_the_code_and_masks_a_finished_game_as_the_single_env() -> None:
    env = Flip7VectorEnv(8, 2, opponents="random", reward="win", options=ONE)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(400):
        obs, reward, terminated, _t, infos = env.step(_random(rng, obs["action_mask"]))
        if terminated.any():
            assert (infos["final_obs"]["action_mask"][terminated] == np.eye(env.state.A, dtype=np.int8)[0]).all()
            assert set(reward[terminated].tolist()) <= {1.0, -1.0}
            return
    pytest.fail("no game ended")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponents": "greedy"}, "opponents: expected 'random' or 'threshold:N'"),
        ({"reward": "score"}, "reward: expected one of win, points"),
        ({"seat": 4}, r"seat: expected a seat 0\.\.3"),
        ({"max_moves": 0}, "max_moves: expected a whole number >= 1"),
        ({"illegal_reward": math.nan}, "illegal_reward: expected a finite number"),
        ({"options": {"brutal": "true"}}, "options.brutal: the batched engine plays 'false' only"),
        ({"shuffle": "python"}, "shuffle: expected 'reference' or 'numpy'"),
    ],
)
def test_bad_arguments_are_one_clear_option_error(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        VengeanceVectorEnv(2, 4, **{"options": ONE, **kwargs})  # type: ignore[arg-type]


def test_actions_of_the_wrong_shape_are_refused() -> None:
    env = VengeanceVectorEnv(3, 2, options=ONE)
    env.reset(seed=0)
    with pytest.raises(OptionError, match="actions: expected 3 action indices"):
        env.step(np.array([0, 0]))


def test_the_lockstep_command_takes_a_policy(capsys: pytest.CaptureFixture[str]) -> None:
    from flip7ref.batch.lockstep import main

    assert main(["--edition", "vengeance", "--games", "3", "--batch", "3", "--policy", "threshold:20"]) == 0
    assert "3 games" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["--games", "1", "--policy", "greedy"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "python -m flip7ref.batch.lockstep: error: --policy: expected 'random' or 'threshold:N' "
        "(N a whole number of points), got 'greedy'"
    )


@pytest.mark.parametrize("policy", ["threshold:\u00b2", "threshold:\u0663", "threshold:-5", "threshold:"])
def test_the_lockstep_command_refuses_a_threshold_not_in_digits_0_to_9(capsys: pytest.CaptureFixture[str], policy: str) -> None:
    """A superscript or Arabic-Indic digit passed str.isdigit but not int(): a traceback before."""
    from flip7ref.batch.lockstep import main

    with pytest.raises(SystemExit) as exc:
        main(["--games", "1", "--policy", policy])
    assert exc.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "python -m flip7ref.batch.lockstep: error: --policy: expected 'random' or 'threshold:N' "
        f"(N a whole number of points), got {policy!r}"
    )
