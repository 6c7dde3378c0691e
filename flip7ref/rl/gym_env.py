"""A Gymnasium single-agent environment: one seat against strategies or policies.

The learner plays seat ``seat``; every other seat is played by a strategy of
`flip7ref.play.strategies.parse_strategy` (``threshold:20``, ``random``,
``always-hit``...), a strategy object, or a policy over observations (a callable,
e.g. a frozen copy of the learner).  Chance nodes and the other seats' decisions
are played inside `Flip7GymEnv.step` until the learner must decide again or the
game ends.  Observations, the action index and the mask are those of the
PettingZoo environment (``docs/rl.md``); the mask is also in
``info["action_mask"]`` and `Flip7GymEnv.action_masks` (sb3-contrib's
``MaskablePPO`` reads it).

An illegal action index leaves the game unchanged, gives ``illegal_reward`` and
``info["illegal_action"] = True`` (it counts toward the move cap), so that
unmasked exploration cannot crash a training loop.

``gymnasium.make("flip7ref/Flip7-v0")`` needs ``import flip7ref.rl`` first (Gymnasium 1.x
has no plug-in entry point), or the id with its module: ``gymnasium.make("flip7ref.rl:flip7ref/Flip7-v0")``.
"""

from __future__ import annotations

import math
import random
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from flip7ref.core.errors import IllegalActionError, OptionError
from flip7ref.core.game import Game
from flip7ref.core.state import TERMINAL, State
from flip7ref.play.strategies import Strategy, parse_strategy
from flip7ref.rl.actions import ActionIndex
from flip7ref.rl.encoding import ObservationEncoder
from flip7ref.rl.episode import DEFAULT_MAX_MOVES, DEFAULT_REWARD, check_common, outcome, render_table, step_reward, take_decision

Obs = dict[str, Any]
Policy = Callable[[Obs], Any]
"""An opponent policy: called with that seat's observation (the learner's format) and returning an action index."""
Opponent = str | Strategy | Policy

GYM_ID = "flip7ref/Flip7-v0"
"""The id ``import flip7ref.rl`` registers `Flip7GymEnv` under (``gymnasium.make(GYM_ID, ...)``;
``gymnasium.make("flip7ref.rl:" + GYM_ID, ...)`` imports the module itself)."""


def _opponent(item: object, seat: int) -> Strategy | Policy:
    """A strategy name, a strategy object (with ``choose``) or a policy callable, checked."""
    if isinstance(item, str):
        return parse_strategy(item)
    if callable(getattr(item, "choose", None)) or callable(item):
        return item  # type: ignore[return-value]
    raise OptionError(
        f"opponents: seat {seat}: expected a strategy name, a strategy object (with choose(state, rng)) "
        f"or a policy callable (observation -> action index), got {item!r}"
    )


class Flip7GymEnv(gym.Env[Obs, np.int64]):
    """One seat of Flip 7 (either edition, any options) as a Gymnasium environment.

    Args:
        edition: an edition id (``flip7``, ``vengeance``) or a table path.
        players: number of seats, the learner's included.
        options: option values by name.
        seat: the learner's seat (0..players-1).
        opponents: what plays every other seat: one opponent for all, or a list with
            one per other seat in seat order.  An opponent is a strategy name
            (``"threshold:20"``, ``"random"``), a strategy object (``choose(state, rng)
            -> Action``, `flip7ref.play.strategies.Strategy`), or a policy: a callable given
            that seat's observation (the learner's format, ``{"observation",
            "action_mask"}``) and returning an action index.
        reward: ``win`` (+1 when the learner is among the winners, else -1, at the
            end; the default of every adapter) or ``points`` (the learner's round scores).
        max_moves: decisions of any seat (the learner's, illegal ones included, and
            the other seats'; chance draws are not counted) after which the episode
            is truncated.
        illegal_reward: the reward of an illegal action index.
        normalize: observations through `ObservationEncoder.normalize` (counts in
            0..1, points over the target score) instead of raw counts and points.
        seats: ``relative`` (the default) or ``absolute``: the seat layout of observations
            and action indices (``relative``: the observing / acting seat first, the others
            in turn order after it, so that one policy plays every seat; ``docs/rl.md``).
        render_mode: None or ``ansi``.

    Raises:
        OptionError: an unknown edition, option, strategy, reward, seat layout or
            render mode, a seat out of range, or a wrong number of opponents.

    Attributes:
        game_state: the interpreter's current `State` (None before `reset`).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 (Gymnasium declares it so)

    def __init__(
        self,
        edition: str = "flip7",
        players: int = 2,
        options: Mapping[str, object] | None = None,
        *,
        seat: int = 0,
        opponents: Opponent | Sequence[Opponent] = "threshold:20",
        reward: str = DEFAULT_REWARD,
        max_moves: int = DEFAULT_MAX_MOVES,
        illegal_reward: float = -1.0,
        normalize: bool = False,
        seats: str = "relative",
        render_mode: str | None = None,
    ) -> None:
        check_common(reward, max_moves)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise OptionError(f"render_mode: expected None or 'ansi', got {render_mode!r}")
        self.game = Game(edition, players, options)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise OptionError(f"seat: expected a seat 0..{players - 1}, got {seat!r}")
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)) or not math.isfinite(illegal_reward):
            raise OptionError(f"illegal_reward: expected a finite number, got {illegal_reward!r}")
        if not isinstance(normalize, bool):
            raise OptionError(f"normalize: expected True or False, got {normalize!r}")
        many = isinstance(opponents, (list, tuple))
        items = list(opponents) if many else [opponents] * (players - 1)  # type: ignore[arg-type]
        if len(items) != players - 1:
            raise OptionError(f"opponents: expected one opponent per other seat ({players - 1}), got {len(items)}")
        others = [s for s in range(players) if s != seat]
        self.opponents: dict[int, Strategy | Policy] = {s: _opponent(o, s) for s, o in zip(others, items, strict=True)}
        self.seat = seat
        self.reward_kind = reward
        self.max_moves = max_moves
        self.illegal_reward = float(illegal_reward)
        self.normalize = normalize
        self.render_mode = render_mode
        self.actions = ActionIndex(self.game, seats)
        self.encoder = ObservationEncoder(self.game, seats)
        enc = self.encoder
        low, high = (enc.normalized_low, enc.normalized_high) if normalize else (enc.low, enc.high)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(np.array(low, dtype=np.float32), np.array(high, dtype=np.float32), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(self.actions.size,), dtype=np.int8),
            }
        )
        self.action_space = spaces.Discrete(self.actions.size)
        self.game_state: State | None = None
        self.moves = 0
        self._rng = random.Random()

    @property
    def strategies(self) -> dict[int, Strategy | Policy]:
        """Deprecated name of ``opponents`` (the opponent of every other seat)."""
        return self.opponents

    @property
    def state(self) -> State | None:
        """Deprecated alias of ``game_state`` (the name PettingZoo's ``state()`` method needs)."""
        warnings.warn("Flip7GymEnv.state is deprecated: use game_state", DeprecationWarning, stacklevel=2)
        return self.game_state

    def _advance(self, state: State) -> State:
        """Draw cards and play the other seats until the learner decides, the game ends or the move cap."""
        while True:
            player = state.current_player
            if player == TERMINAL or player == self.seat:
                return state
            if state.is_chance_node():
                state = state.apply_chance(state.sample_chance())
                continue
            if self.moves >= self.max_moves:
                return state
            opponent = self.opponents[player]
            self.moves += 1
            if hasattr(opponent, "choose"):
                state = state.apply(opponent.choose(state, self._rng))
                continue
            index = opponent(self._obs(state, player))
            after = take_decision(self.actions, state, index)
            if after is None:
                legal = [str(i) for i in self.actions.legal_indices(state)]
                raise IllegalActionError(str(index), legal, f"the policy of seat {player} chose an illegal action index")
            state = after

    def _mask(self, state: State, seat: int) -> np.ndarray[Any, np.dtype[np.int8]]:
        """The legal indices of ``seat`` now; where it is not to act (the game is over, or
        truncated on another seat's decision) index 0 alone, so that masked sampling has
        something to sample (the action is never taken: the episode is over)."""
        if state.current_player == seat:
            return self.actions.mask_array(state)
        mask = np.zeros(self.actions.size, dtype=np.int8)
        mask[0] = 1
        return mask

    def _obs(self, state: State, seat: int | None = None) -> Obs:
        seat = self.seat if seat is None else seat
        obs = self.encoder.encode_array(state, seat, self.normalize)
        return {"observation": obs, "action_mask": self._mask(state, seat)}

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The learner's legal indices now, as booleans (the method sb3-contrib's
        ``MaskablePPO`` calls); index 0 alone once the episode is over.

        Raises:
            OptionError: before `reset`.
        """
        if self.game_state is None:
            raise OptionError("the environment must be reset() before action_masks()")
        return self._mask(self.game_state, self.seat).astype(bool)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        """Deal a new game; the other seats play until the learner's first decision.

        Args:
            seed: seeds the games and the strategies (the same seed gives the same episode).
            options: unused (Gymnasium's signature).

        Returns:
            ``(observation, info)``; ``info["action_mask"]`` is the mask again.  A game
            that ends (or reaches ``max_moves``) before the learner's first decision is
            dealt again, from the same seeded generator.

        Raises:
            OptionError: 100 games in a row ended before the learner decided.
        """
        super().reset(seed=seed)
        for _ in range(100):  # a game can end before the learner decides (a low target score): deal another
            game_seed = int(self.np_random.integers(2**62))
            self._rng = random.Random(int(self.np_random.integers(2**62)))
            self.moves = 0
            state = self._advance(self.game.new_initial_state(seed=game_seed))
            if state.current_player == self.seat:
                break
        else:
            raise OptionError("max_moves or the target score: 100 games in a row ended before the learner's first decision")
        self.game_state = state
        obs = self._obs(state)
        return obs, {"action_mask": obs["action_mask"]}

    def step(self, action: np.int64 | int) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """Take decision index ``action`` for the learner, then play on to its next decision.

        Returns:
            ``(observation, reward, terminated, truncated, info)``; an index that is
            not legal now leaves the game as it was and gives ``illegal_reward``.
            When the episode ends (terminated or truncated) ``info`` also has the
            outcome: ``winners`` (seats; empty when truncated), ``totals`` (points per
            seat) and ``rounds``.

        Raises:
            OptionError: before `reset`, or after the game ended.
            IllegalActionError: ``action`` is not a whole number (a bool, float, text...),
                or an opponent policy chose an illegal index.
        """
        if self.game_state is None:
            raise OptionError("the environment must be reset() before step()")
        state = self.game_state
        if state.is_terminal():
            raise OptionError("the game has ended (terminated): call reset() before step()")
        if state.current_player != self.seat:
            raise OptionError("the episode was truncated at max_moves: call reset() before step()")
        after = take_decision(self.actions, state, action)
        self.moves += 1
        if after is None:
            obs = self._obs(state)
            truncated = self.moves >= self.max_moves
            info: dict[str, Any] = {"action_mask": obs["action_mask"], "illegal_action": True}
            if truncated:
                info.update(outcome(state))
            return obs, self.illegal_reward, False, truncated, info
        new = self._advance(after)
        self.game_state = new
        terminated = new.is_terminal()
        truncated = not terminated and self.moves >= self.max_moves
        reward = step_reward(self.reward_kind, state, new, self.seat)
        obs = self._obs(new)
        info = {"action_mask": obs["action_mask"]}
        if terminated or truncated:
            info.update(outcome(new))
        return obs, reward, terminated, truncated, info

    def render(self) -> str | None:
        """The table as text (``ansi``), else None."""
        if self.render_mode is None or self.game_state is None:
            return None
        s = self.game_state
        first = f"round {s.round}, dealer {s.dealer}, you are seat {self.seat}, decision: {s.pending()[0]}"
        return render_table(s, first, "seat ")
