"""A Gymnasium single-agent environment: one seat against built-in strategies.

The learner plays seat ``seat``; every other seat is played by a strategy of
`flip7ref.strategies.parse_strategy` (``threshold:20``, ``random``,
``always-hit``...).  Chance nodes and the other seats' decisions are played
inside `Flip7GymEnv.step` until the learner must decide again or the game
ends.  Observations, the action index and the mask are those of the PettingZoo
environment (``docs/rl.md``); the mask is also in ``info["action_mask"]``.

An illegal action index leaves the game unchanged, gives ``illegal_reward`` and
``info["illegal_action"] = True`` (it counts toward the move cap), so that
unmasked exploration cannot crash a training loop.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..errors import OptionError
from ..game import Game
from ..state import TERMINAL, State
from ..strategies import Strategy, parse_strategy
from .encoding import ActionIndex, ObservationEncoder
from .episode import DEFAULT_MAX_MOVES, check_common, render_table, step_reward, take_decision

Obs = dict[str, Any]

GYM_ID = "flip7ref/Flip7-v0"
"""The id ``import flip7ref.rl`` registers `Flip7GymEnv` under (``gymnasium.make(GYM_ID, ...)``)."""


class Flip7GymEnv(gym.Env[Obs, np.int64]):
    """One seat of Flip 7 (either edition, any options) as a Gymnasium environment.

    Args:
        edition: an edition id (``flip7``, ``vengeance``) or a table path.
        players: number of seats, the learner's included.
        options: option values by name.
        seat: the learner's seat (0..players-1).
        opponents: one strategy name for every other seat, or a list with one
            name per other seat in seat order (e.g. ``["threshold:20", "random"]``).
        reward: ``points`` (the learner's round scores) or ``win`` (+1 when the
            learner is among the winners, else -1, at the end).
        max_moves: the learner's decisions after which the episode is truncated.
        illegal_reward: the reward of an illegal action index.
        render_mode: None or ``ansi``.

    Raises:
        OptionError: an unknown edition, option, strategy, reward or render
            mode, a seat out of range, or a wrong number of opponents.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 (Gymnasium declares it so)

    def __init__(
        self,
        edition: str = "flip7",
        players: int = 2,
        options: Mapping[str, object] | None = None,
        *,
        seat: int = 0,
        opponents: str | Sequence[str] = "threshold:20",
        reward: str = "points",
        max_moves: int = DEFAULT_MAX_MOVES,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        check_common(reward, max_moves)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise OptionError(f"render_mode: expected None or 'ansi', got {render_mode!r}")
        self.game = Game(edition, players, options)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise OptionError(f"seat: expected a seat 0..{players - 1}, got {seat!r}")
        if not isinstance(opponents, (str, list, tuple)) or not all(isinstance(n, str) for n in opponents):
            raise OptionError(f"opponents: expected a strategy name or a list of them, got {opponents!r}")
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)) or not math.isfinite(illegal_reward):
            raise OptionError(f"illegal_reward: expected a finite number, got {illegal_reward!r}")
        names = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(names) != players - 1:
            raise OptionError(f"opponents: expected one strategy per other seat ({players - 1}), got {len(names)}")
        others = [s for s in range(players) if s != seat]
        self.strategies: dict[int, Strategy] = {s: parse_strategy(n) for s, n in zip(others, names, strict=True)}
        self.seat = seat
        self.reward_kind = reward
        self.max_moves = max_moves
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.actions = ActionIndex(self.game)
        self.encoder = ObservationEncoder(self.game)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    np.array(self.encoder.low, dtype=np.float32), np.array(self.encoder.high, dtype=np.float32), dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, shape=(self.actions.size,), dtype=np.int8),
            }
        )
        self.action_space = spaces.Discrete(self.actions.size)
        self.state: State | None = None
        self.moves = 0
        self._rng = random.Random()

    def _advance(self, state: State) -> State:
        """Draw cards and play the other seats until the learner decides or the game ends."""
        while True:
            player = state.current_player
            if player == TERMINAL or player == self.seat:
                return state
            if state.is_chance_node():
                state = state.apply_chance(state.sample_chance())
            else:
                state = state.apply(self.strategies[player].choose(state, self._rng))

    def _obs(self, state: State) -> Obs:
        obs = np.array(self.encoder.encode(state, self.seat), dtype=np.float32)
        mask = self.actions.mask_array(state)
        return {"observation": obs, "action_mask": mask}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        """Deal a new game; the other seats play until the learner's first decision.

        Args:
            seed: seeds the games and the strategies (the same seed gives the same episode).
            options: unused (Gymnasium's signature).

        Returns:
            ``(observation, info)``; ``info["action_mask"]`` is the mask again.
        """
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**62))
        self._rng = random.Random(int(self.np_random.integers(2**62)))
        state = self._advance(self.game.new_initial_state(seed=game_seed))
        if state.is_terminal():  # pragma: no cover - a game never ends before every seat decided once
            raise OptionError("the game ended before the learner's first decision")
        self.state = state
        self.moves = 0
        obs = self._obs(state)
        return obs, {"action_mask": obs["action_mask"]}

    def step(self, action: np.int64 | int) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """Take decision index ``action`` for the learner, then play on to its next decision.

        Returns:
            ``(observation, reward, terminated, truncated, info)``; an index that is
            not legal now leaves the game as it was and gives ``illegal_reward``.

        Raises:
            OptionError: before `reset`, or after the game ended.
            IllegalActionError: ``action`` is not a whole number (a bool, float, text...).
        """
        if self.state is None:
            raise OptionError("the environment must be reset() before step()")
        state = self.state
        if state.is_terminal():
            raise OptionError("the game has ended (terminated): call reset() before step()")
        after = take_decision(self.actions, state, action)
        self.moves += 1
        truncated = self.moves >= self.max_moves
        if after is None:
            obs = self._obs(state)
            return obs, self.illegal_reward, False, truncated, {"action_mask": obs["action_mask"], "illegal_action": True}
        new = self._advance(after)
        self.state = new
        terminated = new.is_terminal()
        reward = step_reward(self.reward_kind, state, new, self.seat)
        obs = self._obs(new)
        return obs, reward, terminated, truncated and not terminated, {"action_mask": obs["action_mask"]}

    def render(self) -> str | None:
        """The table as text (``ansi``), else None."""
        if self.render_mode is None or self.state is None:
            return None
        s = self.state
        first = f"round {s.round}, dealer {s.dealer}, you are seat {self.seat}, decision: {s.pending()[0]}"
        return render_table(s, first, "seat ")
