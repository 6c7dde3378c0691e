"""`flip7ref.rl.league.League`: frozen snapshots of a policy, one drawn per batch (issue 44, item 2)."""

from __future__ import annotations

from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

from flip7ref.core.errors import OptionError  # noqa: E402
from flip7ref.rl.league import League  # noqa: E402


class Fixed:
    """A batched policy that always answers the legal index of rank ``rank`` (0: the first),
    and counts its calls."""

    def __init__(self, rank: int) -> None:
        self.rank = rank
        self.calls = 0

    def __call__(self, obs: Any, mask: Any) -> Any:
        self.calls += 1
        return np.array([np.flatnonzero(row)[min(self.rank, int(row.sum()) - 1)] for row in mask])


def test_a_snapshot_is_a_frozen_copy_and_the_oldest_is_dropped() -> None:
    league = League(capacity=2, latest=1.0, seed=0)
    policy = Fixed(0)
    league.add(policy)
    policy.rank = 1  # training the learner further does not change the snapshot
    assert league.snapshots[0] is not policy and league.snapshots[0].rank == 0  # type: ignore[attr-defined]
    league.add(policy)
    league.add(Fixed(2))
    assert len(league) == 2 and league.added == 3
    assert [s.rank for s in league.snapshots] == [1, 2]  # type: ignore[attr-defined]


def test_draws_are_seeded_and_latest_biased() -> None:
    def draws(latest: float, seed: int) -> list[int]:
        league = League(capacity=4, latest=latest, seed=seed)
        for rank in range(4):
            league.add(Fixed(rank))
        return [league.sample() for _ in range(400)]

    assert draws(0.5, 7) == draws(0.5, 7) != draws(0.5, 8)
    assert draws(1.0, 7) == [3] * 400
    uniform = draws(0.0, 7)
    assert sorted(set(uniform)) == [0, 1, 2, 3] and uniform.count(3) < 150
    assert draws(0.5, 7).count(3) == 249  # seeded; about 0.5 + 0.5/4 of the 400 draws (uniform: 100)


def test_one_snapshot_answers_each_batch_as_a_vector_env_opponent() -> None:
    pytest.importorskip("numba")
    from flip7ref.batch.vector_env import Flip7VectorEnv

    league = League(capacity=3, latest=0.0, seed=1)
    for rank in (0, 1):
        league.add(Fixed(rank))
    env = Flip7VectorEnv(16, 2, seat="random", opponents=league, normalize=True)
    obs, _ = env.reset(seed=3)
    for _ in range(30):
        obs, *_ = env.step(np.argmax(obs["action_mask"], axis=1))
    calls = [s.calls for s in league.snapshots]  # type: ignore[attr-defined]
    assert league.picks == calls and sum(calls) > 30 and min(calls) > 0


def test_bad_arguments_are_one_line_errors() -> None:
    with pytest.raises(OptionError, match=r"^capacity: expected a whole number >= 1, got 0$"):
        League(capacity=0)
    with pytest.raises(OptionError, match=r"^latest: expected a probability 0\.\.1, got 1\.5$"):
        League(latest=1.5)
    with pytest.raises(OptionError, match=r"^seed: expected a whole number >= 0, got -1$"):
        League(seed=-1)
    with pytest.raises(OptionError, match=r"^the league is empty: add a snapshot before it plays$"):
        League()(np.zeros((1, 3), np.float32), np.ones((1, 4), np.int8))
    with pytest.raises(OptionError, match=r"^policy: expected a batched policy"):
        League().add(3)  # type: ignore[arg-type]
