"""A batched engine: many games of base Flip 7 or Vengeance stepped at once.

A second implementation of the rules, written for reinforcement learning at scale (the
optional ``[batch]`` extra: NumPy and numba; ``[rl]`` adds the Gymnasium vector environment).
Both editions play one scalar rule body, `flip7ref.batch.kernel`, compiled by numba when it
is installed (``backend="python"`` runs it uncompiled), over the arrays of
`flip7ref.batch.state.KernelState`.  It is held to the reference like any foreign engine
(docs/batch.md): it speaks the engine protocol (``python -m flip7ref.batch.engine``), passes
the conformance cases of the readings it declares, and agrees with the reference in lockstep
over random games (`flip7ref.batch.lockstep`).  The reference interpreter stays the authority.

- `init` / `step` (`flip7ref.batch.core`): a pgx-style pure API,
  ``init(seed, batch) -> BatchState`` and ``step(state, actions) -> BatchState``;
- `BatchState`: the games' arrays, stepped in place (`BatchState.step`), with observations
  and masks in the layout of `flip7ref.rl.encoding` (same action indices, same vector);
- `VengeanceState` (`flip7ref.batch.vengeance`, its own ``init``/``step``): the same for
  Vengeance (every card, its default readings, Brutal Mode off);
- `Flip7VectorEnv` and `VengeanceVectorEnv` (`flip7ref.batch.vector_env`): ``gymnasium.vector.VectorEnv``
  classes (``threshold:N`` opponents for Vengeance in `flip7ref.batch.v_policies`);
- `flip7ref.batch.guards`: the checks every entry above makes first (game indices, actions,
  seeds, batch sizes against the memory available): one `OptionError` for every engine and backend.

Covered: base Flip 7 (numbers, modifiers, Freeze, Flip Three, Second Chance) at the
default readings (`SUPPORTED_OPTIONS`), 1 to 18 players; Vengeance at its default readings.

Raises:
    ImportError: on import, when NumPy is missing (the message says how to install it).
"""

from __future__ import annotations

from flip7ref.proc.install import extra_hint

try:
    import numpy as _numpy  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    message = f"flip7ref.batch needs the optional [batch] extra ({exc.name} is missing): {extra_hint('batch')}"
    raise ImportError(message, name=exc.name) from exc

from flip7ref.batch.core import SUPPORTED_OPTIONS, BatchState, init, step
from flip7ref.batch.vengeance import VengeanceState

__all__ = ["SUPPORTED_OPTIONS", "BatchState", "VengeanceState", "init", "step"]
