"""Batched policies for the other seats: uniformly random legal actions, and the threshold
strategy of `flip7ref.play.strategies.ThresholdStrategy` as array operations (the same choice in
every base Flip 7 decision; `flip7ref.batch.lockstep` checks it against the reference)."""

from __future__ import annotations

from typing import Any

import numpy as np

from flip7ref.batch import guards
from flip7ref.batch.core import GIVE, HIT, OFFER, STAY, BatchState
from flip7ref.core.errors import OptionError

Arr = np.ndarray[Any, Any]


def random_actions(bs: BatchState, games: Arr, rng: np.random.Generator) -> Arr:
    """One uniformly random legal action index for each game of ``games`` (a game with no
    legal action, one that is over, gets 0).

    Raises:
        OptionError: a game index out of range, negative or not a whole number.
    """
    legal = bs.legal[guards.game_indices(games, bs.B, repeats=True)]
    out: Arr = np.argmax(rng.random(legal.shape) * legal, axis=1)
    return out


def threshold_actions(bs: BatchState, games: Arr, threshold: int) -> Arr:
    """`flip7ref.play.strategies.ThresholdStrategy` for each game of ``games``, at its decision:
    Stay once the line is worth ``threshold`` points (when Stay is legal), else Hit; a spare
    Second Chance to the lowest total (lowest seat on a tie); a Freeze, Flip Three or
    set-aside card to the leader (total plus line value; lowest seat on a tie) other than
    itself when possible.

    Raises:
        OptionError: a game index out of range, negative or not a whole number.
    """
    g = guards.game_indices(games, bs.B, repeats=True)
    actor = bs.actor[g].astype(np.int64)
    kind = bs.kind[g]
    legal = bs.legal[g]
    out = np.zeros(g.size, np.int64)
    values = bs.line_values(g)  # (n, P): the games' lines, once
    o = kind == OFFER
    if o.any():
        value = values[o, actor[o]]
        stay = (value >= threshold) & legal[o, STAY]
        out[o] = np.where(stay, STAY, HIT)
    t = ~o
    if t.any():
        gt, at, seats = g[t], actor[t], legal[t, 2:]
        totals = bs.totals[gt].astype(np.int64)
        big = np.int64(1) << 40
        give = kind[t] == GIVE
        low = np.argmin(np.where(seats, totals, big), axis=1)
        others = seats.copy()
        others[np.arange(gt.size), at] = False
        others = np.where(others.any(1, keepdims=True), others, seats)
        standing = totals + values[t]
        lead = np.argmax(np.where(others, standing, -big), axis=1)
        out[t] = 2 + np.where(give, low, lead)
    return out


def parse_policy(name: str, field: str = "opponents") -> tuple[str, int]:
    """``random`` or ``threshold:N`` as ``(kind, N)``.

    Args:
        name: the policy's name.
        field: the argument it was given as, named in the error (``opponents``, ``--policy``,
            ``--opponent`` for ``flip7ref train-agent``).

    Raises:
        OptionError: another name, or a threshold that is not a whole number >= 0 in the
            digits 0-9.
    """
    if name == "random":
        return "random", 0
    kind, _, n = name.partition(":")
    if kind == "threshold" and n.isascii() and n.isdigit():  # not str.isdigit alone: '²' is a digit int() refuses
        return "threshold", int(n)
    raise OptionError(f"{field}: expected 'random' or 'threshold:N' (N a whole number of points), got {name!r}")
