"""Running the conformance harness against the mutant engines of `tests.engines.mutants`.

`run_mutant` drives one mutant through the harness's own per-case path
(`flip7ref.harness._run_one`): over the real protocol (a subprocess) or in this process,
where a stand-in for `flip7ref.harness.Engine` hands each request, JSON-encoded and decoded
like a line, to the mutant and validates its answer against the protocol schema as the
harness does.  `figures` turns the results into the kill rate and the blame accuracy.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from flip7ref import harness, perft_check
from flip7ref.checking import Prepared, check_declaration, prepare
from flip7ref.conformance import Case, CaseResult
from flip7ref.errors import Flip7RefError

from .mutants import MUTANTS, Mutant

SCRIPT = Path(__file__).with_name("mutants.py")


class InProcessEngine:
    """What `flip7ref.harness._run_one` needs of an engine, answered by a mutant in this process."""

    def __init__(self, mutant: Mutant, *, validate: bool = True) -> None:
        self.mutant = mutant
        self.validate = validate
        self.proc: object | None = self
        self.version = harness.PROTOCOL_VERSION

    def start(self) -> dict[str, Any]:
        """The handshake's description."""
        self.proc = self
        return self.mutant.implementation(self.version)

    def run(self, seq: int, case: Mapping[str, Any]) -> dict[str, Any]:
        """One request, as a line each way; the validated response.

        Raises:
            flip7ref.harness.EngineError: an answer the schema refuses.
        """
        request = json.loads(json.dumps({"cmd": "run", "seq": seq, "case": case}))
        try:
            answer: dict[str, Any] = {"seq": seq, "outcome": self.mutant.observe(request["case"])}
        except (Flip7RefError, KeyError, TypeError, ValueError) as exc:
            answer = {"seq": seq, "errored": True, "message": f"{type(exc).__name__}: {exc}"}
        response: dict[str, Any] = json.loads(json.dumps(answer, sort_keys=True))
        if self.validate:
            problem = harness.check_message(response, "runResponse")
            if problem is not None:
                raise harness.EngineError(f"invalid run response {problem}")
        return response

    def close(self) -> None:
        """Nothing to stop."""
        self.proc = None


_PREPARED: dict[str, Prepared | CaseResult] = {}


def _prepare(case: Case, impl: Mapping[str, Any]) -> Prepared | CaseResult:
    """`flip7ref.checking.prepare`, remembered: every mutant of an edition declares the same
    readings, so the reference's preparation of a case is the same for all of them."""
    key = json.dumps([case, {k: v for k, v in impl.items() if k != "name"}], sort_keys=True, default=str)
    found = _PREPARED.get(key)
    if found is None:
        found = _PREPARED[key] = prepare(case, impl)
    return found


def run_mutant(name: str, cases: Sequence[Case], *, protocol: bool = False, timeout: float = 60.0,
               validate: bool = True) -> list[CaseResult]:  # fmt: skip
    """Every case of ``cases`` checked on the mutant ``name``; over the protocol (a subprocess
    running ``mutants.py NAME``) when ``protocol``, else in this process through the harness's
    own per-case path, the reference's preparations remembered across mutants (`_prepare`)
    and, unless ``validate``, the answers not checked against the protocol schema (the
    protocol runs check them)."""
    if protocol:
        _, results = harness.run_engine(f"{sys.executable} {SCRIPT} {name}", cases, timeout=timeout)
        return results
    engine = InProcessEngine(MUTANTS[name], validate=validate)
    impl = engine.start()
    assert check_declaration(impl) is None
    saved = harness.prepare, perft_check.prepare
    harness.prepare = perft_check.prepare = _prepare  # type: ignore[assignment]
    try:
        return [harness._run_one(engine, impl, seq, case, True) for seq, case in enumerate(cases)]  # type: ignore[arg-type]
    finally:
        harness.prepare, perft_check.prepare = saved


def run_all(names: Sequence[str], cases: Sequence[Case], *, workers: int = 2) -> dict[str, list[CaseResult]]:
    """`run_mutant` in-process (answers unvalidated) for every mutant of ``names``, shared out
    over ``workers`` processes (forked: each mutant runs in one worker, its patch there only)."""
    if workers <= 1:
        return {n: run_mutant(n, cases, validate=False) for n in names}
    import multiprocessing

    context = multiprocessing.get_context("fork")
    with context.Pool(workers) as pool:
        out = pool.starmap(_run_named, [(n, cases) for n in names], chunksize=1)
    return dict(zip(names, out, strict=True))


def _run_named(name: str, cases: Sequence[Case]) -> list[CaseResult]:
    return run_mutant(name, cases, validate=False)


@attrs.frozen
class Figures:
    """What a mutant's results say.

    Attributes:
        name: the mutant.
        rule: the rule it breaks.
        failing: cases failed or errored.
        first: of those, blamed first on ``rule``.
        among: of those, with ``rule`` among the blamed.
        cases: the failing case ids.
    """

    name: str
    rule: str
    failing: int
    first: int
    among: int
    cases: tuple[str, ...]


def figures(name: str, results: Sequence[CaseResult]) -> Figures:
    """The kill and blame figures of one mutant's results."""
    rule = MUTANTS[name].rule
    bad = [r for r in results if r.status in ("fail", "error")]
    first = sum(1 for r in bad if r.blame[:1] == (rule,))
    among = sum(1 for r in bad if rule in r.blame)
    return Figures(name, rule, len(bad), first, among, tuple(r.case_id for r in bad))
