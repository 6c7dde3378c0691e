"""Shrinking a difference (`shrink`): smaller games that still differ."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import attrs

from flip7ref.checking.fuzz.games import MIN_PLAYERS, Trial, case_base
from flip7ref.checking.fuzz.lockstep import Found, Lockstep
from flip7ref.checking.verdict import engine_options

SHRINK_CANDIDATES = 600
"""The most candidate games tried while shrinking one difference."""


def _candidates(found: Found, positions: bool) -> list[Trial]:
    """Smaller games to try next, the most promising first."""
    t, step = found.trial, found.step
    out: list[Trial] = []
    low = 1 if found.trial.players < MIN_PLAYERS else MIN_PLAYERS
    for n in range(low, t.players):
        fewer = _fewer_seats(t, n)
        if fewer is not None:
            out.append(fewer)
    if positions:
        out.extend(_position_starts(found))
    reached = found.played.states[step].round
    for number in sorted(r for r in found.played.round_starts if t.round < r <= reached):
        state, first = found.played.round_starts[number]
        ids = state.game.card_ids
        later = attrs.evolve(
            t, round=number, dealer=state.dealer, totals=tuple(state.totals), draw=tuple(ids[c] for c in state.draw),
            discard=tuple(ids[c] for c in state.discard), choices=t.choices[first:step],
        )  # fmt: skip
        out.append(attrs.evolve(later, discard=()))
        if positions or not later.discard:
            out.append(later)
    if t.totals is not None and any(t.totals):
        out.append(attrs.evolve(t, totals=None))
    if t.round != 1:
        out.append(attrs.evolve(t, round=1))
    if t.dealer:
        out.append(attrs.evolve(t, dealer=0))
    if t.discard:
        out.append(attrs.evolve(t, discard=()))
    cards = list(t.draw)
    chunk = len(cards) // 2
    while chunk >= 1:
        for start in range(len(cards) - chunk, -1, -chunk):
            out.append(attrs.evolve(t, draw=tuple(cards[:start] + cards[start + chunk :])))
        chunk //= 2
    choices = list(t.choices[:step])
    chunk = len(choices) // 2
    while chunk >= 1:
        out.append(attrs.evolve(t, choices=tuple(choices[: len(choices) - chunk])))
        chunk //= 2
    for i in range(len(choices)):
        out.append(attrs.evolve(t, choices=tuple(choices[:i] + choices[i + 1 :])))
        for other in range(3):
            if other != choices[i]:
                out.append(attrs.evolve(t, choices=(*choices[:i], other, *choices[i + 1 :])))
    for name in sorted(t.options):
        out.append(attrs.evolve(t, options={k: v for k, v in t.options.items() if k != name}))
    return out


def _fewer_seats(t: Trial, n: int) -> Trial | None:
    """The trial with seats ``n`` and above left out (their cards out of play), or None."""
    totals = t.totals[:n] if t.totals is not None else None
    if not t.position:
        return attrs.evolve(t, players=n, dealer=t.dealer % n, totals=totals)
    table = json.loads(t.position)
    if table.get("turn", 0) >= n:
        return None
    for key in ("lines", "kept", "statuses"):
        table[key] = {seat: v for seat, v in (table.get(key) or {}).items() if int(seat) < n}
    return attrs.evolve(t, players=n, dealer=t.dealer % n, totals=totals, position=json.dumps(table, sort_keys=True))


STARTS = 4
"""Mid-round starting points tried when shrinking: the last offers before the difference."""


def _position_starts(found: Found) -> list[Trial]:
    """The game started mid-round at one of the last Hit-or-Stay offers before the difference (for
    engines playing positions): the table there as the setup, the decisions from there on."""
    t, out = found.trial, list[Trial]()
    for index in range(found.step - 1, 0, -1):
        state = found.played.states[index]
        if len(out) >= STARTS:
            break
        if state.pending()[0] != "offer" or any(p.flip7_barred for p in state.players):
            continue
        ids = state.game.card_ids
        table = {
            "lines": {str(i): [ids[c] for c in p.line] for i, p in enumerate(state.players) if p.line},
            "kept": {str(i): [ids[c] for c in p.kept] for i, p in enumerate(state.players) if p.kept},
            "statuses": {str(i): p.status.value for i, p in enumerate(state.players) if p.status.value != "active"},
            "turn": state.current_player,
        }
        start = attrs.evolve(
            t, dealer=state.dealer, draw=tuple(ids[c] for c in state.draw), choices=t.choices[index : found.step],
            totals=tuple(state.totals), round=state.round, discard=tuple(ids[c] for c in state.discard),
            position=json.dumps(table, sort_keys=True),
        )  # fmt: skip
        out.append(start)
    return out


def shrink(
    lockstep: Lockstep, found: Found, stop: float, limit: int = SHRINK_CANDIDATES, avoid: Callable[[Found], bool] | None = None
) -> tuple[Found, int]:
    """Shrink a difference: try smaller games (`_candidates`) and keep any that still differs at
    its last step and is smaller by `Found.size` (and is not a difference ``avoid`` refuses: in an
    engine with several bugs, one already reported), until none is or ``limit`` candidates or the time
    ``stop``; then look for the first differing step of the smallest (a few seconds more at most).

    Returns:
        The smallest difference found and the number of candidates tried.
    """
    positions = lockstep.impl.get("positions") is not False
    tried = 0
    seen: set[tuple[Any, ...]] = set()
    improved = True
    while improved and tried < limit and time.monotonic() < stop:
        improved = False
        for candidate in _candidates(found, positions):
            if candidate.key() in seen:
                continue
            if candidate.options and engine_options(lockstep.impl, case_base(candidate)) != dict(candidate.options):
                continue
            seen.add(candidate.key())
            tried += 1
            smaller = lockstep.replay(candidate, stop, found.step)
            if smaller is not None and smaller.size() < found.size() and (avoid is None or not avoid(smaller)):
                found, improved = smaller, True
                break
            if tried >= limit or time.monotonic() >= stop:
                break
    first = lockstep.first_difference(found.trial, found.played, stop + 10 + found.step, every=False)  # its first differing step
    if first is not None and avoid is not None and avoid(first):
        first = None
    return (first if first is not None else found), tried
