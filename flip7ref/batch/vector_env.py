"""``Flip7VectorEnv``: ``num_envs`` games of base Flip 7 as one ``gymnasium.vector.VectorEnv``.

The batched engine (`flip7ref.batch.core`) under the interface of
`flip7ref.rl.Flip7GymEnv`, stepped as arrays: the learner plays seat ``seat`` of every
game; the other seats are played inside `Flip7VectorEnv.step` by a batched policy
(``threshold:N`` as `flip7ref.strategies.ThresholdStrategy` plays it, or ``random``).
Observations are ``{"observation": (n, size) float32, "action_mask": (n, A) int8}`` in the
layout of `flip7ref.rl.encoding`; actions are the same indices.

Rewards (``points``) are the changes of the learner's total since the last step, so that
they add up to its final total: points scored before its first decision of a game (the
other seats play first) count in its first reward.  Autoreset is Gymnasium's ``SAME_STEP``
mode: a game that ends is dealt again at once, its last observation and outcome in
``infos["final_obs"]``, ``infos["final_info"]`` (so the observation returned always has a
usable mask).  An illegal index leaves that game as it
was and gives ``illegal_reward``.  Needs the ``[rl]`` extra (gymnasium).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..errors import OptionError
from ..game import Game
from .core import BatchState
from .policies import parse_policy, random_actions, threshold_actions

Arr = np.ndarray[Any, Any]


class Flip7VectorEnv(gym.vector.VectorEnv[dict[str, Arr], Arr, Arr]):
    """``num_envs`` games of base Flip 7, one learner seat each, stepped together.

    Args:
        num_envs: games stepped at once.
        players: seats per game (the learner's included), 1..18.
        options: option values by name (`flip7ref.batch.core.SUPPORTED_OPTIONS`).
        seat: the learner's seat.
        opponents: ``threshold:N`` (default ``threshold:20``) or ``random``.
        reward: ``points`` (change of the learner's total) or ``win`` (+1 / -1 at the end).
        max_moves: learner decisions after which a game is truncated (and dealt again).
        illegal_reward: the reward of an illegal index.
        shuffle: ``numpy`` (default, fastest) or ``reference`` (the reference's deck for
            each game's seed, see `flip7ref.batch.core.BatchState`).

    Raises:
        OptionError: a game the batched engine does not play, or a bad argument.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012 (Gymnasium declares it so)

    def __init__(
        self, num_envs: int = 256, players: int = 4, options: Mapping[str, object] | None = None, *, seat: int = 0,
        opponents: str = "threshold:20", reward: str = "points", max_moves: int = 5_000, illegal_reward: float = -1.0,
        shuffle: str = "numpy",
    ) -> None:  # fmt: skip
        if reward not in ("points", "win"):
            raise OptionError(f"reward: expected 'points' or 'win', got {reward!r}")
        if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
            raise OptionError(f"max_moves: expected a whole number >= 1, got {max_moves!r}")
        game = Game("flip7", players, dict(options or {}))
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise OptionError(f"seat: expected a seat 0..{players - 1}, got {seat!r}")
        self.policy, self.threshold = parse_policy(opponents)
        self.state = BatchState(game, num_envs, 0, shuffle)
        self.num_envs = num_envs
        self.seat = seat
        self.reward_kind = reward
        self.max_moves = max_moves
        self.illegal_reward = float(illegal_reward)
        size = self.state.observation_size()
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-1e6, 1e6, shape=(size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(self.state.A,), dtype=np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(self.state.A)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._rng = np.random.default_rng(0)
        self._learner_moves = np.zeros(num_envs, np.int64)
        self._seen: Arr = np.zeros(num_envs, np.int64)  # the learner's total the rewards have paid out so far

    def _others(self, games: Arr) -> None:
        """Play the other seats of ``games`` until the learner decides or the game ends."""
        bs = self.state
        g = games
        while True:
            g = g[~bs.done[g] & (bs.actor[g] != self.seat)]
            if g.size == 0:
                return
            a = random_actions(bs, g, self._rng) if self.policy == "random" else threshold_actions(bs, g, self.threshold)
            bs.step(a, g)

    def _obs(self) -> dict[str, Arr]:
        bs = self.state
        return {"observation": bs.observe(self.seat), "action_mask": bs.legal.astype(np.int8)}

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Arr], dict[str, Any]]:
        """Deal ``num_envs`` new games (seeded from ``seed``: the same seed, the same games)
        and play the other seats up to the learner's first decision.

        Returns:
            ``(observations, infos)``.
        """
        if isinstance(seed, list):
            seed = seed[0] if seed else None
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self.state.rng = np.random.default_rng(seed)
            self.state.next_seed = int(seed)
        self.state.reset()
        self._learner_moves[:] = 0
        self._seen = np.zeros(self.num_envs, np.int64)
        self._others(np.arange(self.num_envs))
        return self._obs(), {}

    def step(self, actions: Arr) -> tuple[dict[str, Arr], Arr, Arr, Arr, dict[str, Any]]:
        """Take one learner action per game, play the other seats, deal finished games again.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)``; ``infos`` has
            ``illegal_action`` (bool per game) and, where a game ended, ``final_obs`` and
            ``final_info`` (``totals``, ``winners`` per game) with masks ``_final_obs``.
        """
        bs = self.state
        a = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        before = self._seen
        taken = bs.step(a)
        self._learner_moves += 1
        self._others(np.arange(self.num_envs))
        terminated = bs.done.copy()
        truncated = (self._learner_moves >= self.max_moves) & ~terminated
        if self.reward_kind == "points":
            rewards = (bs.totals[:, self.seat] - before).astype(np.float32)
        else:
            rewards = np.where(terminated, np.where(bs.winners[:, self.seat], 1.0, -1.0), 0.0).astype(np.float32)
        rewards[~taken] = self.illegal_reward
        self._seen = bs.totals[:, self.seat].astype(np.int64)
        infos: dict[str, Any] = {"illegal_action": ~taken}
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            final = self._obs()
            mask = terminated | truncated
            infos["final_obs"] = final
            infos["_final_obs"] = mask
            infos["final_info"] = {"totals": bs.totals.copy(), "winners": bs.winners.copy()}
            infos["_final_info"] = mask
            bs.reset(ended)
            self._learner_moves[ended] = 0
            self._seen[ended] = 0  # the points of the next game before the learner's first decision count in its first reward
            self._others(ended)
        return self._obs(), rewards, terminated, truncated, infos
