"""The one lockstep comparison of an engine with the reference: the outcome the reference has
at a step (`expected_outcome`) and the first difference of an engine's from it (`first_difference`,
in the harness's words: `flip7ref.checking.conformance.compare`).  The fuzzer's lockstep sends
it to an engine process as a case (`flip7ref.checking.fuzz.lockstep`); the batched engine's
compares it in process at the end of each game (`flip7ref.batch.lockstep`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flip7ref.checking.conformance import compare, outcome
from flip7ref.core.state import TERMINAL, State

OUTCOME_KEYS = (
    "events", "statuses", "lines", "kept", "round", "round_scores", "totals", "next", "winners", "draw", "discard_count",
)  # fmt: skip
"""The outcome keys compared at every step (those the engine reports)."""
AT_END_KEYS = ("events", "round", "round_scores", "totals", "winners", "next")
"""The outcome keys compared once the game has ended: how it ended.  The table left behind (the
seats' statuses, lines and kept cards, the piles) is not defined by the protocol after the end,
so it is not compared there."""


def as_written(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Events as the suite's cases write them: a ``round_scored`` without a Flip 7 leaves its
    ``flip7`` key out instead of ``null`` (conformance/PROTOCOL.md; an engine may do either)."""
    return [{k: v for k, v in e.items() if not (k == "flip7" and v is None and e.get("type") == "round_scored")} for e in events]


def expected_outcome(state: State, keys: Sequence[str], written: bool = True) -> dict[str, Any]:
    """The reference's outcome at ``state`` as a case's ``expect``: the keys of `OUTCOME_KEYS`
    among ``keys``, after the game's end only those of `AT_END_KEYS`; with ``written`` the events
    `as_written`, else with every key (``null`` included)."""
    seen, ended = outcome(state), state.current_player == TERMINAL
    expect = {k: seen[k] for k in OUTCOME_KEYS if k in keys and (not ended or k in AT_END_KEYS)}
    if written and "events" in expect:
        expect["events"] = as_written(expect["events"])
    return expect


def first_difference(state: State, observed: Mapping[str, Any], keys: Sequence[str], written: bool = True) -> str | None:
    """The first difference of an engine's ``observed`` outcome (the protocol's shape) from the
    reference's at ``state`` over ``keys`` (`expected_outcome`), as one line
    (``events[3]: expected {...}, observed {...}``), or None when they agree.  Without ``written``
    the events must be equal, a key the reference's event lacks included (the harness allows it)."""
    expect = expected_outcome(state, keys, written)
    found = compare(expect, observed)
    if not found and not written:
        pairs = zip(expect.get("events", ()), observed.get("events", ()), strict=False)
        found = [f"events[{k}]: expected {want}, observed {have}" for k, (want, have) in enumerate(pairs) if want != have]
    return found[0] if found else None
