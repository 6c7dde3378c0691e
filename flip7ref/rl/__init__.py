"""Reinforcement-learning adapters over the reference rules (the optional ``[rl]`` extra).

Install with ``pip install '.[rl]'`` in a checkout (numpy, gymnasium, pettingzoo, open_spiel; docs/install.md).

- `env` — a PettingZoo AEC environment for both editions and any options, in the
  classic games' default wrappers (`raw_env`, the class `Flip7Env`, is the bare one);
- `Flip7GymEnv` — one seat as a Gymnasium environment,
  the other seats played by built-in strategies; registered as ``flip7ref/Flip7-v0``
  (``gymnasium.make("flip7ref/Flip7-v0", edition="vengeance", players=3)`` after this import, or
  ``gymnasium.make("flip7ref.rl:flip7ref/Flip7-v0", ...)`` without it);
- ``flip7ref/Flip7Vector-v0`` and ``flip7ref/VengeanceVector-v0`` (`VECTOR_IDS`): the
  batched vector envs of `flip7ref.batch.vector_env`, for ``gymnasium.make_vec(id, num_envs)``;
- `flip7ref.rl.openspiel_game` — the game registered with OpenSpiel as
  ``python_flip7ref`` (imported on demand: ``import flip7ref.rl.openspiel_game``);
- `flip7ref.rl.actions` — the action index
- `flip7ref.rl.encoding` — the observation encoding
  every adapter shares (documented in ``docs/rl.md``).

Raises:
    ImportError: on import, when the extra is not installed (the message says how to install it;
        ``name`` is the missing module, e.g. ``"gymnasium"``).
"""

from __future__ import annotations

from flip7ref.proc.install import extra_hint

try:
    import gymnasium as _gymnasium
    import numpy as _numpy  # noqa: F401
    import pettingzoo as _pettingzoo  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    message = f"flip7ref.rl needs the optional [rl] extra ({exc.name} is missing): {extra_hint('rl')}"
    raise ImportError(message, name=exc.name) from exc

from flip7ref.rl.actions import ActionIndex
from flip7ref.rl.encoding import ObservationEncoder
from flip7ref.rl.episode import DEFAULT_REWARD
from flip7ref.rl.gym_env import GYM_ID, Flip7GymEnv
from flip7ref.rl.pettingzoo_env import DEFAULT_MAX_MOVES, Flip7Env, env, raw_env
from flip7ref.rl.policy import PolicyStrategy

if GYM_ID not in _gymnasium.registry:
    _gymnasium.register(id=GYM_ID, entry_point="flip7ref.rl.gym_env:Flip7GymEnv")

VECTOR_IDS = {"flip7": "flip7ref/Flip7Vector-v0", "vengeance": "flip7ref/VengeanceVector-v0"}
"""The ids of the batched vector envs (`flip7ref.batch.vector_env`) by edition, for
``gymnasium.make_vec(VECTOR_IDS["vengeance"], num_envs, players=4)`` after this import (the
table's readings unless ``options`` names others)."""
for _vid, _cls in zip(VECTOR_IDS.values(), ("Flip7VectorEnv", "VengeanceVectorEnv"), strict=True):
    if _vid not in _gymnasium.registry:
        _gymnasium.register(id=_vid, vector_entry_point=f"flip7ref.batch.vector_env:{_cls}")

__all__ = [
    "DEFAULT_MAX_MOVES",
    "DEFAULT_REWARD",
    "GYM_ID",
    "VECTOR_IDS",
    "ActionIndex",
    "Flip7Env",
    "Flip7GymEnv",
    "ObservationEncoder",
    "PolicyStrategy",
    "env",
    "raw_env",
]
