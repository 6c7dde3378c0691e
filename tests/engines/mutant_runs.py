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

from flip7ref import harness
from flip7ref.checking import check_declaration
from flip7ref.conformance import Case, CaseResult
from flip7ref.errors import Flip7RefError

from .mutants import MUTANTS, Mutant

SCRIPT = Path(__file__).with_name("mutants.py")


class InProcessEngine:
    """What `flip7ref.harness._run_one` needs of an engine, answered by a mutant in this process."""

    def __init__(self, mutant: Mutant) -> None:
        self.mutant = mutant
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
        response = json.loads(json.dumps(answer, sort_keys=True))
        problem = harness.check_message(response, "runResponse")
        if problem is not None:
            raise harness.EngineError(f"invalid run response {problem}")
        return dict(response)

    def close(self) -> None:
        """Nothing to stop."""
        self.proc = None


def run_mutant(name: str, cases: Sequence[Case], *, protocol: bool = False, timeout: float = 60.0) -> list[CaseResult]:
    """Every case of ``cases`` checked on the mutant ``name``; over the protocol (a subprocess
    running ``mutants.py NAME``) when ``protocol``, else in this process."""
    if protocol:
        _, results = harness.run_engine(f"{sys.executable} {SCRIPT} {name}", cases, timeout=timeout)
        return results
    engine = InProcessEngine(MUTANTS[name])
    impl = engine.start()
    assert check_declaration(impl) is None
    return [harness._run_one(engine, impl, seq, case, True) for seq, case in enumerate(cases)]  # type: ignore[arg-type]


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
