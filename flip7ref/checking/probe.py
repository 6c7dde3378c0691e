"""Probing an engine that refused a case: where did it part from the reference?

An engine that errors on "action N" has, most of the time, gone astray before that action
(a card dealt to the wrong seat, a player left active): the refusal is where it noticed,
not where it broke.  `probe_failure` asks the engine once more for the same case cut just
before that action, compares everything it reports there with the reference's full outcome
at that point, and blames the first differing observation (`flip7ref.checking.blame.blame`).  When
the engine agrees with the reference there, the blame stays on the refused decision.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from flip7ref.checking.blame import blame
from flip7ref.checking.caused import Caused
from flip7ref.checking.conformance import CaseResult, compare_detailed
from flip7ref.checking.shortlist import FIRST, short_blame
from flip7ref.checking.suspects import Weak, first_suspects, reading_suspects
from flip7ref.checking.verdict import Prepared, failed, prepare

_ACTION = re.compile(r"\baction (\d+)\b")

PROBE_SEQ = 99_999
"""Added to ``seq * 100_000`` for the probe's request (perft deal orders use the indices below)."""


def engine_sender(engine: Any, seq: int) -> Callable[[Mapping[str, Any]], Mapping[str, Any]]:
    """A ``send`` for `probe_failure` over an engine (`flip7ref.checking.harness.Engine`): the request
    goes as ``seq * 100_000 + PROBE_SEQ``; an engine that fails it is closed (restarted for
    the next case) and the failure raised."""

    def send(request: Mapping[str, Any]) -> Mapping[str, Any]:
        try:
            response: Mapping[str, Any] = engine.run(seq * 100_000 + PROBE_SEQ, request)
        except Exception:
            engine.close()
            raise
        return response

    return send


def probe_failure(
    prepared: Prepared, impl: Mapping[str, Any], message: str, send: Callable[[Mapping[str, Any]], Mapping[str, Any]]
) -> CaseResult:
    """The ``error`` result of an engine that refused ``prepared``'s case with ``message``
    (`flip7ref.checking.verdict.failed`), blamed on the first observation in which the engine differs
    just before the refused action, when it differs there.

    Args:
        prepared: the prepared case.
        impl: the engine's description.
        message: the engine's message (``engine errored: action N ...``).
        send: sends one request and returns the engine's response (``outcome``, ``errored``
            or ``skipped``); it may raise, which leaves the result as `failed` made it.
    """
    result = failed(prepared, message)
    named = _ACTION.search(message)
    step = prepared.case_step(int(named.group(1))) if named else None
    if step is None or "actions" not in prepared.case:
        return result
    cut = {**prepared.case, "actions": list(prepared.actions)[:step]}
    cut = {**cut, "expect": {}}
    shorter = prepare(cut, impl)
    if not isinstance(shorter, Prepared):
        return result
    try:
        response = send(shorter.request())
    except Exception:
        return result
    seen = response.get("outcome")
    if not isinstance(seen, Mapping):
        return result
    full = shorter.run.observed
    expect = {k: v for k, v in full.items() if k in seen}
    diffs = compare_detailed(expect, seen)
    if not diffs:
        return result
    rules = blame(diffs, shorter, seen, impl.get("events"))
    suspects = reading_suspects(shorter, seen, impl.get("events"))
    why = rules.reason if isinstance(rules, Caused) else FIRST
    shown, reasons = short_blame(first_suspects(suspects, rules), suspects, isinstance(suspects, Weak), why)
    note = f"before that action the engine already differs: {diffs[0].text}"
    return attrs.evolve(result, blame=shown, reasons=reasons, diffs=(*result.diffs, note))
