"""A small league for self-play: frozen snapshots of a learner, one sampled for each batch.

`League` keeps up to ``capacity`` frozen copies of a policy (the oldest dropped first) and is
itself a batched policy, ``league(observations, masks) -> actions``: each call draws one
snapshot (the newest with probability ``latest``, else any of them uniformly; seeded) and lets
it answer the whole batch.  Given to a vector env as ``opponents=league``
(`flip7ref.batch.vector_env.BatchPolicy`), every call is one batch of the other seats'
decisions, so the opponents change from batch to batch, among the learner's past selves::

    league = League(capacity=8, latest=0.5, seed=0)
    league.add(agent)                                   # a frozen copy (agent.snapshot() if it has one)
    env = Flip7VectorEnv(128, 2, seat="random", opponents=league, normalize=True)
    train_ppo(env, agent, updates=400, on_update=lambda n, a: n % 50 or league.add(a))

A snapshot is any batched policy; `League.add` freezes it with its ``snapshot()`` method
when it has one (`flip7ref.rl.agent.TorchAgent.snapshot`), else with ``copy.deepcopy``.
Needs NumPy only.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from flip7ref.core.errors import OptionError

__all__ = ["League"]

Arr = np.ndarray[Any, Any]


class League:
    """Frozen snapshots of a policy, sampled one per batch.

    Args:
        capacity: snapshots kept (at least 1); adding one more drops the oldest.
        latest: the probability of drawing the newest snapshot (0..1); otherwise one is drawn
            uniformly from all of them (the newest included).
        seed: seeds the draws (the same seed and calls give the same sequence of snapshots).

    Attributes:
        snapshots: the kept snapshots, oldest first.
        added: snapshots added so far (dropped ones included).
        picks: how many times each kept snapshot was drawn, by position in `snapshots`.

    Raises:
        OptionError: a bad ``capacity``, ``latest`` or ``seed``.
    """

    def __init__(self, capacity: int = 8, latest: float = 0.5, seed: int = 0) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise OptionError(f"capacity: expected a whole number >= 1, got {capacity!r}")
        if isinstance(latest, bool) or not isinstance(latest, (int, float)) or not 0.0 <= latest <= 1.0:
            raise OptionError(f"latest: expected a probability 0..1, got {latest!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise OptionError(f"seed: expected a whole number >= 0, got {seed!r}")
        self.capacity, self.latest = capacity, float(latest)
        self.snapshots: list[Callable[[Arr, Arr], Any]] = []
        self.picks: list[int] = []
        self.added = 0
        self._rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        return len(self.snapshots)

    def add(self, policy: Callable[[Arr, Arr], Any]) -> None:
        """Keep a frozen copy of ``policy`` (its ``snapshot()``, else ``copy.deepcopy``): training the
        policy further does not change it.  Drops the oldest snapshot beyond ``capacity``.

        Raises:
            OptionError: ``policy`` is not callable.
        """
        if not callable(policy):
            raise OptionError(f"policy: expected a batched policy (observations, masks) -> actions, got {policy!r}")
        take = getattr(policy, "snapshot", None)
        frozen = take() if callable(take) else copy.deepcopy(policy)
        self.snapshots.append(frozen)
        self.picks.append(0)
        self.added += 1
        if len(self.snapshots) > self.capacity:
            del self.snapshots[0], self.picks[0]

    def sample(self) -> int:
        """Draw the position (in `snapshots`) of the snapshot to play the next batch.

        Raises:
            OptionError: the league is empty.
        """
        if not self.snapshots:
            raise OptionError("the league is empty: add a snapshot before it plays")
        newest = len(self.snapshots) - 1
        if self._rng.random() < self.latest:
            return newest
        return int(self._rng.integers(len(self.snapshots)))

    def __call__(self, observations: Arr, masks: Arr) -> Any:
        """One batch of decisions (a `flip7ref.batch.vector_env.BatchPolicy`): a snapshot drawn
        by `sample` answers them all; returns its actions.

        Raises:
            OptionError: the league is empty.
        """
        i = self.sample()
        self.picks[i] += 1
        return self.snapshots[i](observations, masks)
