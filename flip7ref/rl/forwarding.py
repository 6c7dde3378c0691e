"""PettingZoo's classic-game wrappers with a direct path for the attributes read at every step.

A PettingZoo wrapper has no ``agent_selection``, ``terminations``... of its own: a read
fails the normal lookup (an `AttributeError` raised and caught inside Python) and lands in
``BaseWrapper.__getattr__``, which asks the next layer, where the same happens again.  With
the three wrappers of the classic games, one ``env.terminations`` costs four Python calls and
three failed lookups, and a PettingZoo step reads such attributes about thirty times: that
was about half of a step of `flip7ref.rl.env` (measured in ``docs/benchmarks.md``).

The classes here are subclasses of PettingZoo's own (``isinstance`` holds, and every method
of PettingZoo's wrappers runs unchanged); each only adds, for the attributes in `FORWARDED`,
a *non-data* descriptor that reads the attribute of the next layer (``self.env``) directly.
A non-data descriptor comes after the instance's own dictionary in Python's lookup, so the
order of the lookup is PettingZoo's: the wrapper's own attribute if one was set on it, else
the next layer's.  ``OrderEnforcingWrapper``'s refusal of these names before ``reset()``
is kept (its message, an `AttributeError`).
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

FORWARDED = ("agent_selection", "agents", "terminations", "truncations", "rewards", "infos", "_cumulative_rewards")
"""The attributes of the bare environment that a step reads through the wrappers."""

_BEFORE_RESET = frozenset({"rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents"})
"""The names `wrappers.OrderEnforcingWrapper` refuses before ``reset()`` (its own list)."""


class _Next:
    """A non-data descriptor: the attribute ``name`` of the wrapper's next layer (``env``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return _read(obj.env, self.name)


def _read(env: Any, name: str) -> Any:
    """``getattr(env, name)``, skipping the layers of this module that hold no ``name`` of
    their own (their descriptor would only ask the next layer: the same answer, one call less)."""
    while type(env) in _FORWARDING and name not in env.__dict__:
        env = env.env
    return getattr(env, name)


class _NextAfterReset(_Next):
    """`_Next` that refuses the read before ``reset()``, as ``OrderEnforcingWrapper`` does."""

    __slots__ = ()

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        if self.name in _BEFORE_RESET and not obj._has_reset:
            raise AttributeError(f"{self.name} cannot be accessed before reset")
        return _read(obj.env, self.name)


class TerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):  # type: ignore[misc]
    """PettingZoo's ``TerminateIllegalWrapper``, the attributes of `FORWARDED` read directly."""


class AssertOutOfBoundsWrapper(wrappers.AssertOutOfBoundsWrapper):  # type: ignore[misc]
    """PettingZoo's ``AssertOutOfBoundsWrapper``, the attributes of `FORWARDED` read directly."""


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper``, the attributes of `FORWARDED` read directly
    (refused before ``reset()`` as PettingZoo's own refuses them)."""

    def __str__(self) -> str:
        # PettingZoo's own names the bare environment only when the class is exactly its own
        return str(self.env)


_FORWARDING: tuple[type, ...] = (TerminateIllegalWrapper, AssertOutOfBoundsWrapper)
"""The inner wrappers of this module (`_read` skips them)."""

for _name in FORWARDED:
    setattr(TerminateIllegalWrapper, _name, _Next(_name))
    setattr(AssertOutOfBoundsWrapper, _name, _Next(_name))
    setattr(OrderEnforcingWrapper, _name, _NextAfterReset(_name))


def classic_wrappers(bare: AECEnv, illegal_reward: float = -1) -> AECEnv:
    """``bare`` in the wrappers of PettingZoo's classic games, in their order (as
    ``leduc_holdem_v4.env()``): ``TerminateIllegalWrapper(illegal_reward)``, then
    ``AssertOutOfBoundsWrapper``, then ``OrderEnforcingWrapper`` outermost; this module's
    subclasses of them (see the module)."""
    wrapped = TerminateIllegalWrapper(bare, illegal_reward=illegal_reward)
    wrapped = AssertOutOfBoundsWrapper(wrapped)
    return OrderEnforcingWrapper(wrapped)
