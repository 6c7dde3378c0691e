"""A PettingZoo AEC environment over the reference interpreter (``flip7ref.rl.env``).

As in PettingZoo's classic games (``leduc_holdem_v4``): `raw_env` is the bare
environment and `env` wraps it in ``TerminateIllegalWrapper(illegal_reward=-1)``
(an illegal move ends the game: -1 for the agent that made it, 0 for the others),
``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``.  The bare environment
raises `IllegalActionError` on an illegal move instead.

Agents are ``player_0`` .. ``player_{P-1}`` (seat ``s`` is ``player_s``).  The agent
to act is the seat of the pending decision; the same agent may act several times
in a row (a Hit and then the target of the Freeze it drew).  Chance nodes are
resolved inside the environment: each game is a seeded game of the interpreter
(``Game.new_initial_state(seed=...)``) whose ordered pile the agents never see;
the game seeds come from the ``seed`` given to `Flip7Env.reset`.

Observation: ``{"observation": float32[N], "action_mask": int8[A]}`` with the
encoding of `ObservationEncoder` and the index of
`ActionIndex` (both in ``docs/rl.md``); the mask is
all zeros for an agent that is not to act.

Rewards (``reward=``): ``win`` (the default) gives +1 to every winner and -1 to
every other seat when the game ends; ``points`` gives each seat its round score
when a round ends (the change of its running total, so Brutal Mode's -15 counts
too).  The episode is truncated (every agent) after ``max_moves`` decisions.  At
the end every agent's ``info`` has the outcome (``winners``, ``totals``, ``rounds``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from flip7ref.core.errors import IllegalActionError, OptionError
from flip7ref.core.game import Game
from flip7ref.core.state import State
from flip7ref.rl.actions import ActionIndex
from flip7ref.rl.encoding import ObservationEncoder
from flip7ref.rl.episode import (
    DEFAULT_MAX_MOVES,
    DEFAULT_REWARD,
    REWARDS,
    check_common,
    outcome,
    render_table,
    resolve_chance,
    step_reward,
    take_decision,
)
from flip7ref.rl.forwarding import classic_wrappers


class ActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose `contains` answers a plain Python ``int`` without NumPy (PettingZoo's
    ``AssertOutOfBoundsWrapper`` asks it at every step); every other value is `spaces.Discrete`'s
    to judge, and the answers are the same."""

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self._bounds = (int(self.start), int(self.start + self.n))

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is an index of the space (``start <= x < start + n``)."""
        if type(x) is int:  # not a bool, not a NumPy integer
            low, high = self._bounds
            return low <= x < high
        return bool(super().contains(x))


class Flip7Env(AECEnv):  # type: ignore[misc]
    """Flip 7 (either edition, any options) as a PettingZoo AEC environment.

    Args:
        edition: an edition id (``flip7``, ``vengeance``) or a table path.
        players: number of seats (>= the edition's minimum).
        options: option values by name (see ``flip7ref options``).
        reward: ``win`` (+1 / -1 at the end, the default) or ``points`` (round scores).
        max_moves: decisions (of any seat; chance draws are not counted) after which
            every agent is truncated.
        normalize: observations through `ObservationEncoder.normalize`.
        seats: ``relative`` (the default) or ``absolute``: the seat layout of observations
            and action indices (``relative``: the observing / acting seat first, the others
            in turn order after it, so that one policy plays every seat; ``docs/rl.md``).
        render_mode: None, ``ansi`` (``render()`` returns text) or ``human``
            (``render()`` prints it and returns None; `step` prints too).

    Raises:
        OptionError: an unknown edition, option, reward, seat layout or render mode, or too few players.

    Attributes:
        game: the `Game`.
        game_state: the interpreter's current `State` (None before `reset`);
            ``state()`` is PettingZoo's global state, an array.
        actions: the `ActionIndex`; ``actions.decode(env.game_state, i)`` is the
            interpreter's action for index ``i``.
        encoder: the `ObservationEncoder`.
    """

    metadata: ClassVar[dict[str, Any]] = {"name": "flip7ref_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(
        self,
        edition: str = "flip7",
        players: int = 2,
        options: Mapping[str, object] | None = None,
        *,
        reward: str = DEFAULT_REWARD,
        max_moves: int = DEFAULT_MAX_MOVES,
        normalize: bool = False,
        seats: str = "relative",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(normalize, bool):
            raise OptionError(f"normalize: expected True or False, got {normalize!r}")
        check_common(reward, max_moves)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise OptionError(f"render_mode: expected None, 'ansi' or 'human', got {render_mode!r}")
        self.game = Game(edition, players, options)
        self.reward_kind = reward
        self.max_moves = max_moves
        self.normalize = normalize
        self.render_mode = render_mode
        self.actions = ActionIndex(self.game, seats)
        self.encoder = ObservationEncoder(self.game, seats)
        self.possible_agents: list[str] = [f"player_{s}" for s in range(players)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        enc = self.encoder
        low, high = (enc.normalized_low, enc.normalized_high) if normalize else (enc.low, enc.high)
        box = spaces.Box(np.array(low, dtype=np.float32), np.array(high, dtype=np.float32), dtype=np.float32)
        obs_space = spaces.Dict({"observation": box, "action_mask": spaces.Box(0, 1, shape=(self.actions.size,), dtype=np.int8)})
        self.state_space = box
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: ActionSpace(self.actions.size) for a in self.possible_agents}
        self.game_state: State | None = None
        self.moves = 0
        self._seeds = random.Random()

    def state(self) -> np.ndarray[Any, np.dtype[np.float32]]:
        """PettingZoo's global state: the observation vector with its ``observer`` section
        all zeros (every seat sees the same table; ``state_space`` is its Box).

        Raises:
            OptionError: before `reset`.
        """
        return self.encoder.encode_array(self._require_state(), None, self.normalize)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same object every call).

        Raises:
            OptionError: ``agent`` is not one of ``possible_agents``.
        """
        return self.observation_spaces[self._known(agent)]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent``: ``Discrete(actions.size)``, the same object every call.

        Raises:
            OptionError: ``agent`` is not one of ``possible_agents``.
        """
        return self.action_spaces[self._known(agent)]

    def _known(self, agent: object) -> str:
        """``agent`` if it is one of ``possible_agents`` (OptionError, a ValueError, if not)."""
        if not isinstance(agent, str) or agent not in self._seat:
            raise OptionError(f"agent {agent!r}: expected one of {', '.join(self.possible_agents)}")
        return agent

    def _live(self) -> str:
        """The agent to act, while one is left (OptionError once every agent has stepped out)."""
        self._require_state()
        agent = self.agent_selection
        if not self.agents or agent not in self.terminations:
            raise OptionError("the game is over and every agent has stepped out: call reset() to play another")
        return agent

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``(observation, cumulative reward, terminated, truncated, info)`` of ``agent_selection``.

        Raises:
            OptionError: before `reset`, or once every agent has stepped out after the end.
        """
        agent = self._live()
        observation = self.observe(agent) if observe else None
        return (observation, self._cumulative_rewards[agent], self.terminations[agent], self.truncations[agent],
                self.infos[agent])  # fmt: skip

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game.

        Args:
            seed: seeds the sequence of games: the same seed gives the same games.
                Without one, the next game of the current sequence is dealt.
            options: unused (PettingZoo's signature); the game's options are set
                in the constructor.
        """
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, str)):
                raise OptionError(f"seed: expected a whole number or a word, got {seed!r}")
            self._seeds = random.Random(seed)
        state = resolve_chance(self.game.new_initial_state(seed=self._seeds.getrandbits(64)))
        self.game_state = state
        self.moves = 0
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[state.current_player]

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        """The observation of ``agent``: ``{"observation": ..., "action_mask": ...}``.

        Raises:
            OptionError: before `reset`, or ``agent`` is not one of ``possible_agents``.
        """
        state = self._require_state()
        seat = self._seat[self._known(agent)]
        obs = self.encoder.encode_array(state, seat, self.normalize)
        mask = self.actions.mask_array(state) if state.current_player == seat else np.zeros(self.actions.size, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | np.integer[Any] | None) -> None:
        """Take decision index ``action`` for ``agent_selection`` (None for a finished agent).

        Raises:
            IllegalActionError: ``action`` is not a legal index now, or not a whole
                number at all (the message names it and the legal ones).
            OptionError: before `reset`, or once every agent has stepped out after the end.
        """
        state = self._require_state()
        agent = self._live()
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        after = None if action is None else take_decision(self.actions, state, action)
        if after is None:
            legal = [f"{i} ({self.actions.describe(i)})" for i in self.actions.legal_indices(state)]
            raise IllegalActionError(str(action), legal, f"{agent} must choose a legal action index")
        self._cumulative_rewards[agent] = 0.0
        new = resolve_chance(after)
        self.game_state = new
        self.moves += 1
        rewards = self.rewards
        if self.reward_kind == "win" and not new.winners:
            for a in self.agents:  # step_reward's answer before the end: 0 for every seat
                rewards[a] = 0.0
        else:
            for a in self.agents:
                rewards[a] = step_reward(self.reward_kind, state, new, self._seat[a])
        if new.winners:  # current_player is TERMINAL
            for a in self.agents:
                self.terminations[a] = True
                self.infos[a] = outcome(new)
            self.agent_selection = self.agents[0]
        elif self.moves >= self.max_moves:
            for a in self.agents:
                self.truncations[a] = True
                self.infos[a] = outcome(new)
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[new.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The table as text: returned (``ansi``), or printed with None returned (``human``,
        as PettingZoo's ``render_test`` wants); None without a render mode or before `reset`."""
        if self.render_mode is None or self.game_state is None:
            return None
        s = self.game_state
        first = f"round {s.round}, dealer {s.dealer}, to act: {s.current_player}, decision: {s.pending()[0]}"
        text = render_table(s, first, "player_")
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    def _require_state(self) -> State:
        if self.game_state is None:
            raise OptionError("the environment must be reset() before use")
        return self.game_state


raw_env = Flip7Env
"""The bare environment (PettingZoo's classic-game name): an illegal move raises `IllegalActionError`."""


def env(
    edition: str = "flip7",
    players: int = 2,
    options: Mapping[str, object] | None = None,
    *,
    reward: str = DEFAULT_REWARD,
    max_moves: int = DEFAULT_MAX_MOVES,
    normalize: bool = False,
    seats: str = "relative",
    render_mode: str | None = None,
) -> AECEnv:
    """The PettingZoo AEC environment of ``edition`` for ``players`` seats (`Flip7Env`, the
    arguments are its own) in the classic games' default wrappers: ``TerminateIllegalWrapper``
    (an illegal move ends the game, -1 for the agent that made it, 0 for every other),
    ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper`` (subclasses of PettingZoo's that
    read the attributes of every step without its ``__getattr__`` chain, `flip7ref.rl.forwarding`;
    PettingZoo's code runs unchanged).  The wrappers pass attribute reads through:
    ``env.game_state``, ``env.actions``, ``env.unwrapped`` (the `Flip7Env`).

    Raises:
        OptionError: as `Flip7Env`.
    """
    bare = raw_env(
        edition, players, options, reward=reward, max_moves=max_moves, normalize=normalize, seats=seats, render_mode=render_mode
    )
    return classic_wrappers(bare, illegal_reward=-1)


__all__ = ["DEFAULT_MAX_MOVES", "REWARDS", "Flip7Env", "check_common", "env", "raw_env", "resolve_chance"]
