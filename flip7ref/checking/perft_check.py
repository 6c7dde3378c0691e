"""Checking an engine on a perft case: every deal order of `flip7ref.checking.perft` sent as an
ordinary round case over the protocol, the counts compared with the reference's.

Kept apart from `flip7ref.checking.perft`, which `flip7ref.checking.conformance` imports for the
expectations, because judging an engine needs `flip7ref.checking.verdict` (above conformance).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from flip7ref.checking.conformance import Case, CaseResult, errored
from flip7ref.checking.perft import Leaf, aggregate, compare_perft, leaf_case, leaves, round_scores
from flip7ref.checking.probe import PROBE_SEQ, probe_failure
from flip7ref.checking.shortlist import CITED, short_blame
from flip7ref.checking.verdict import Prepared, engine_options, failed, faulted, prepare, reading_note, verdict
from flip7ref.core.errors import Flip7RefError


class Skipped(str):
    """What ``send`` returns for a deal order the engine skipped (its message)."""


class Faulted(str):
    """What ``send`` returns for a deal order on which the engine broke the protocol (hung, exited,
    printed no valid answer): an engine fault (`flip7ref.checking.verdict.faulted`), no rule blamed."""


def check(case: Case, impl: Mapping[str, Any], send: Callable[[Mapping[str, Any], int], Mapping[str, Any] | str]) -> CaseResult:
    """Check a perft case on an engine: every deal order is sent as a ``round`` case (through
    ``send``, which returns the engine's observed outcome or an error message), and the counts
    of what it observed are compared with the expectations — the case's, or, when the engine
    plays other readings, the reference's under those.  An engine declaring the v2 ``events``
    capability has each deal order judged on those event types only (its round scores are
    then read from ``round_scores`` when it emits no ``round_scored`` events).

    Returns:
        ``pass``; ``fail`` (the count differences, then the first deal order whose round scores
        differ, blamed as an ordinary case); ``error`` (the first deal order the engine failed,
        or a perft case the reference cannot enumerate); ``skip`` (decisions not legal under
        the engine's readings).
    """
    try:
        options = engine_options(impl, case)
        own = {**case, "options": options}
        found = list(leaves(own))
    except Flip7RefError as exc:
        return errored(case, "error", f"the reference cannot enumerate this perft case: {exc}")
    same = options == dict(case.get("options") or {})
    expect = dict(case["expect"]) if same else aggregate([(leaf, list(leaf.scores)) for leaf in found])
    observed: list[tuple[Leaf, Any]] = []
    first_bad: CaseResult | None = None
    for index, leaf in enumerate(found):
        prepared = prepare(leaf_case(own, index, leaf), impl)
        if not isinstance(prepared, Prepared):
            return attrs.evolve(prepared, case_id=case["id"])
        answer = send(prepared.request(), index)  # forced actions left out when the engine resolves them
        if isinstance(answer, Skipped):
            return errored(case, "skip", f"deal order {index + 1}: {answer}")
        if isinstance(answer, Faulted):
            return attrs.evolve(faulted(prepared, f"deal order {index + 1}: {answer}"), case_id=case["id"])
        if isinstance(answer, str):
            message = f"deal order {index + 1}: {answer}"
            if answer.startswith("engine errored:"):  # probed as an ordinary case: where did it part?
                return attrs.evolve(probe_failure(prepared, impl, message, _prober(send)), case_id=case["id"])
            return attrs.evolve(failed(prepared, message), case_id=case["id"])
        observed.append((leaf, round_scores(answer, own["setup"].get("round", 1))))
        if first_bad is None:
            result = verdict(prepared, answer, impl.get("events"))
            if result.status != "pass":
                first_bad = result
    diffs = compare_perft(expect, aggregate(observed))
    note = reading_note(case, options)
    if not diffs and first_bad is None:
        return CaseResult(case["id"], case["edition"], tuple(case["rules"]), case["source"], "pass", other_reading=note)
    if first_bad is not None:
        diffs.append(f"first deal order that differs: {first_bad.message}")
    blame, reasons = (first_bad.blame, first_bad.reasons) if first_bad is not None else short_blame(case["rules"], first=CITED)
    common = (case["id"], case["edition"], tuple(case["rules"]), case["source"])
    return CaseResult(*common, "fail", diffs[0], tuple(diffs), blame=blame, reasons=reasons, other_reading=note)


def _prober(send: Callable[[Mapping[str, Any], int], Mapping[str, Any] | str],
            ) -> Callable[[Mapping[str, Any]], Mapping[str, Any]]:  # fmt: skip
    """`flip7ref.checking.probe.probe_failure`'s ``send`` over a perft ``send`` (the probe's request
    numbered `flip7ref.checking.probe.PROBE_SEQ`); an error or a skip is raised."""

    def probe(request: Mapping[str, Any]) -> Mapping[str, Any]:
        answer = send(request, PROBE_SEQ)
        if isinstance(answer, str):
            raise Flip7RefError(answer)
        return {"outcome": answer}

    return probe
