"""What the parts of the analysis share: the error they raise, the policy
protocol the solver evaluates, the solver's result, and the shapes of the values
that pass between the solver and its worker processes or Dask tasks."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, Protocol

import attrs

from flip7ref.core.errors import Flip7RefError, LimitReached
from flip7ref.core.state import Action, State


class AnalysisError(Flip7RefError, ValueError):
    """The state does not fit the analysis asked for (e.g. it is not an offer)."""


class _Stopped(AnalysisError, LimitReached):
    """A solve ran past its ``max_seconds`` (raised in a Dask task too, so that
    the client tells it from the other errors of a task)."""


class _TooMany(AnalysisError, LimitReached):
    """A solve met more than its ``max_states`` decision states."""


def _stopped(max_seconds: float | None, states: int) -> _Stopped:
    """The error of a solve past its ``max_seconds`` with ``states`` solved."""
    return _Stopped(
        f"stopped after {max_seconds:g} s (--max-seconds) with {states:,} states solved: "
        "restrict the deck (e.g. --cards numbers,modifiers) or allow more time"
    )


def _too_many(max_states: int) -> AnalysisError:
    """The error of a solve with more than ``max_states`` decision states."""
    return _TooMany(
        f"more than {max_states:,} states to solve: restrict the deck (e.g. --cards numbers), "
        "lengthen the line, or raise the limit (--max-states)"
    )


class Policy(Protocol):
    """Anything with ``choose(state, rng)`` returning a legal action (a strategy)."""

    def choose(self, state: State, rng: random.Random) -> Action:
        """One of ``state.legal_actions()``."""
        ...


@attrs.frozen
class SoloResult:
    """The value of a solo round position.

    Attributes:
        value: expected round score (points) of the player.
        bust: probability that the round ends with the player busted.
        flip7: probability that the player makes Flip 7.
        states: distinct decision states evaluated (memoised).
        seconds: wall time of the computation.
        policy: ``optimal`` or the name of the policy evaluated.
        workers: processes the solve ran in (1 when nothing was shared out: a
            fixed policy, no modifier card to split on, a position solved before).
    """

    value: float | Fraction
    bust: float | Fraction
    flip7: float | Fraction
    states: int
    seconds: float
    policy: str
    workers: int = 1

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form (exact values as ``"p/q"`` strings next to floats)."""
        out: dict[str, Any] = {
            "value": float(self.value),
            "bust": float(self.bust),
            "flip7": float(self.flip7),
            "states": self.states,
            "seconds": self.seconds,
            "policy": self.policy,
            "workers": self.workers,
        }
        if isinstance(self.value, Fraction):
            out["exact"] = {"value": str(self.value), "bust": str(self.bust), "flip7": str(self.flip7)}
        return out


_Number = Any
"""A value of the solver: a float, or a `Fraction` in an exact solve.  Typed ``Any`` on
purpose: compiled with mypyc, a value declared ``float`` (or ``float | Fraction``, which
mypyc may narrow) can be converted to a float where it crosses a compiled boundary, and
an exact solve must stay exact."""
_Triple = tuple[_Number, _Number, _Number]  # (expected score, P(bust), P(Flip 7)), floats or Fractions
_Key = tuple[Any, ...]  # a canonical key (see _canonical), with or without its deck number
_TaskResult = tuple[list[tuple[_Key, _Triple]], list[tuple[_Key, Action]]]
