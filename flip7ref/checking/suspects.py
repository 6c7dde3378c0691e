"""Counterfactual blame: the edition's own named readings as suspects.

When an engine differs from the reference, one question the reference can answer on its own
is whether the engine simply plays another *reading* of a rule the edition names as
disputed: replay the case under each other named reading of each option (``start_seat``,
``deal_after_early_cards``, ``reshuffles``...) and see whether that run reproduces what the
engine reported.  The rules of an option whose other reading reproduces it are the prime
suspects: they go first in the blame, before the rules of the first differing step.

Only named readings are tried (integer values such as ``target_score`` are not guessed), and
only when the engine's outcome agrees with the replay on everything the engine reported —
a partial match is no evidence.  A reading whose replay differs from the reference's own run
in one observation only, or in scores only (``score``, ``round_scores``, ``totals``, the
``round_scored`` events), is weak evidence: many single-rule faults give that same lone
number or list, so its rules go after the first rule of the differing step, not before it
(`Weak`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flip7ref.checking.conformance import compare_detailed
from flip7ref.checking.prepared import Prepared
from flip7ref.checking.runs import run_case
from flip7ref.core.errors import Flip7RefError
from flip7ref.core.spec import load_edition

_RUNS: dict[str, Any] = {}
"""Replays remembered by case and options (the reference's run does not depend on the engine)."""


def _replay(case: Mapping[str, Any]) -> Mapping[str, Any] | None:
    import json

    key = json.dumps(case, sort_keys=True, default=str)
    if key not in _RUNS:
        if len(_RUNS) > 50_000:
            _RUNS.clear()
        try:
            run = run_case(dict(case))
        except Flip7RefError:
            _RUNS[key] = None
        else:
            _RUNS[key] = None if run.stopped else run.observed
    found: Mapping[str, Any] | None = _RUNS[key]
    return found


SCORE_KEYS = frozenset({"score", "round_scores", "totals"})
"""Outcome keys that are scores: a reading reproducing only these is weak evidence."""


class Weak(tuple[str, ...]):
    """Suspects from a reading that reproduces a lone observation or only scores (module
    docstring): `first_suspects` puts them after the differing step's first rule."""

    __slots__ = ()


def _changed(base: Mapping[str, Any], other: Mapping[str, Any], keys: Sequence[str]) -> set[str]:
    """The keys of ``keys`` whose values differ between two outcomes, ``events`` counted as
    ``round_scores`` when only ``round_scored`` events differ."""
    out: set[str] = set()
    for key in keys:
        if base.get(key) == other.get(key):
            continue
        if key == "events":
            mine = [e for e in base.get(key) or [] if e.get("type") != "round_scored"]
            theirs = [e for e in other.get(key) or [] if e.get("type") != "round_scored"]
            out.add("round_scores" if mine == theirs else key)
        else:
            out.add(key)
    return out


def _narrow(outcome: Mapping[str, Any], types: set[str] | None) -> dict[str, Any]:
    if types is None:
        return dict(outcome)
    return {**outcome, "events": [e for e in outcome.get("events") or [] if e.get("type") in types]}


def _within(mine: object, theirs: object) -> object:
    """``mine`` cut to the sub-keys of ``theirs`` when both are mappings (a ``next`` without
    ``legal``, the seats an engine reported)."""
    if isinstance(mine, Mapping) and isinstance(theirs, Mapping):
        return {k: v for k, v in mine.items() if k in theirs}
    return mine


def reading_suspects(prepared: Prepared, seen: Mapping[str, Any], types: Sequence[str] | None = None) -> tuple[str, ...]:
    """The rule ids of the options one of whose other named readings, replayed on the
    reference, reproduces the engine's outcome ``seen`` (every key it reported), in the
    table's option order; empty when none does.  A `Weak` tuple when every reproducing
    reading changes one observation only, or scores only, of the reference's own run.

    Args:
        prepared: the prepared case (its options are those the engine plays).
        seen: the engine's outcome for ``prepared``'s request.
        types: the event types the engine emits; None: all.
    """
    case = prepared.case
    if case.get("kind") == "perft" or not seen:
        return ()
    edition = load_edition(case["edition"])
    keep = None if types is None else set(types)
    theirs = _narrow(seen, keep)
    played = dict(prepared.options)
    found: list[str] = []
    strong = False
    base = _narrow(prepared.run.observed, keep)
    for name, spec in edition.options.items():
        try:
            current = spec.coerce(played.get(name, spec.default))
        except Flip7RefError:
            continue
        for reading in spec.readings:
            try:
                value = spec.coerce(reading.name)
            except Flip7RefError:
                continue
            if value == current:
                continue
            other = {**{k: case[k] for k in case if k != "expect"}, "expect": {}, "options": {**played, name: value}}
            if "actions" in case:
                other["actions"] = list(prepared.actions)[: len(case.get("actions") or ())]
            outcome = _replay(other)
            if outcome is None:
                continue
            mine = _narrow(outcome, keep)
            expect = {k: _within(v, theirs[k]) for k, v in mine.items() if k in theirs}
            if expect and not compare_detailed(expect, theirs):
                found.extend(spec.rules)
                changed = _changed(base, mine, list(expect))
                strong = strong or (len(changed) > 1 and not changed <= SCORE_KEYS)
                break
    unique = tuple(dict.fromkeys(found))
    return unique if strong or not unique else Weak(unique)


def first_suspects(suspects: Sequence[str], blamed: Sequence[str]) -> tuple[str, ...]:
    """``blamed`` with ``suspects`` put first (no repeats): the suspects the first differing
    step's blame names, in its order (the option's rule that step exercised), then the others
    in the table's order.  `Weak` suspects go after ``blamed``'s first rule instead (unless
    the step names one of them)."""
    named = [r for r in blamed if r in suspects]
    if isinstance(suspects, Weak) and not named:
        return tuple(dict.fromkeys((*blamed[:1], *suspects, *blamed)))
    return tuple(dict.fromkeys((*named, *suspects, *blamed)))
