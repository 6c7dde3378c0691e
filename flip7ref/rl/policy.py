"""A trained policy as a strategy: the bridge from an RL agent to tournaments and the benchmark.

`PolicyStrategy` wraps a *policy* — a callable given one observation in the format of
`flip7ref.rl.Flip7GymEnv` (``{"observation": (size,) float32, "action_mask": (A,) int8}``, from
the deciding seat's own view) that returns an action index — as a `flip7ref.play.strategies.Strategy`,
so that ``flip7ref tournament`` and ``flip7ref bench-agents`` can seat it.  The encoder and the
action index are built for the game of the run (``prepare(game)``), under the same seat layout
and normalisation the policy was trained with.

A plug-in module for the command line (``--agent mymodule:Agent``; a class built with no
arguments)::

    from sb3_contrib import MaskablePPO
    from flip7ref.rl.policy import PolicyStrategy

    class Agent(PolicyStrategy):
        def __init__(self) -> None:
            model = MaskablePPO.load("agent.zip")
            super().__init__(
                lambda obs: int(model.predict(obs, action_masks=obs["action_mask"].astype(bool), deterministic=True)[0]),
                name="ppo", normalize=True,
            )

Needs the ``[rl]`` extra (NumPy, Gymnasium).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from flip7ref.core.errors import OptionError, StrategyError
from flip7ref.core.game import Game, game_of
from flip7ref.core.model import Action
from flip7ref.core.seats import check_seat_layout
from flip7ref.core.state import State
from flip7ref.rl.actions import ActionIndex
from flip7ref.rl.encoding import ObservationEncoder

__all__ = ["Policy", "PolicyStrategy"]

Policy = Callable[[dict[str, np.ndarray[Any, Any]]], Any]
"""A policy: one observation dict (``observation`` float32, ``action_mask`` int8) -> an action index."""


class PolicyStrategy:
    """A policy over `flip7ref.rl.Flip7GymEnv`'s observations, played as a strategy.

    Args:
        policy: the policy (`Policy`): called at each of the strategy's decisions with the
            deciding seat's observation; returns an index its mask allows (an ``int`` or a
            NumPy integer, e.g. ``model.predict(...)[0]``).
        name: how tables name it (default ``"policy"``).
        normalize: observations scaled as the env's ``normalize=True`` scales them.
        seats: ``"relative"`` (the default layout of every adapter) or ``"absolute"``: the
            layout the policy was trained with.

    Raises:
        OptionError: a bad ``seats`` or ``normalize``, or a ``policy`` that is not callable.
    """

    def __init__(self, policy: Policy, *, name: str = "policy", normalize: bool = False, seats: str = "relative") -> None:
        if not callable(policy):
            raise OptionError(f"policy: expected a callable (observation dict -> action index), got {policy!r}")
        if not isinstance(normalize, bool):
            raise OptionError(f"normalize: expected True or False, got {normalize!r}")
        self.policy = policy
        self.name = name
        self.normalize = normalize
        self.seats = check_seat_layout(seats)
        self._game: Game | None = None
        self._encoder: ObservationEncoder | None = None
        self._index: ActionIndex | None = None

    def prepare(self, game: Game) -> None:
        """Build the observation encoder and the action index of ``game`` (called once per run)."""
        self._game = game
        self._encoder = ObservationEncoder(game, self.seats)
        self._index = ActionIndex(game, self.seats)

    def observation(self, state: State) -> dict[str, np.ndarray[Any, Any]]:
        """The deciding seat's observation of ``state``, as the policy is given it."""
        if self._game is not state.game or self._encoder is None or self._index is None:
            self.prepare(game_of(state))
        assert self._encoder is not None and self._index is not None
        seat = state.current_player
        return {
            "observation": self._encoder.encode_array(state, seat, self.normalize),
            "action_mask": self._index.mask_array(state),
        }

    def choose(self, state: State, rng: random.Random) -> Action:
        """The policy's action at ``state`` (a decision node of the seat this strategy plays).

        Raises:
            StrategyError: the policy's answer is not a whole number, or not a legal index
                (the message names the index and the legal ones).
        """
        obs = self.observation(state)
        assert self._index is not None
        answer = self.policy(obs)
        try:
            index = int(answer)
        except (TypeError, ValueError):
            raise StrategyError(f"strategy {self.name!r}: the policy returned {answer!r}, expected an action index") from None
        if isinstance(answer, float) and answer != index:
            raise StrategyError(f"strategy {self.name!r}: the policy returned {answer!r}, expected a whole action index")
        legal = self._index.legal_indices(state)
        if index not in legal:
            raise StrategyError(f"strategy {self.name!r}: the policy chose index {index}, not legal here (legal: {legal})")
        return self._index.decode(state, index)
