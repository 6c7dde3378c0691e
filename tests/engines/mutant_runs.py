"""Running the conformance harness against the mutant engines of `tests.engines.mutants`.

`run_mutant` drives one mutant through the harness's own per-case path
(`flip7ref.checking.harness._run_one`): over the real protocol (a subprocess) or in this process,
where a stand-in for `flip7ref.checking.harness.Engine` hands each request, JSON-encoded and decoded
like a line, to the mutant and validates its answer against the protocol schema as the
harness does.  `figures` turns the results into the kill rate and the blame accuracy.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from flip7ref.checking import harness, perft_check
from flip7ref.checking.conformance import Case, CaseResult
from flip7ref.checking.engine_process import EngineError
from flip7ref.checking.perft import leaves as perft_leaves
from flip7ref.checking.verdict import Prepared, check_declaration, prepare
from flip7ref.core.errors import Flip7RefError

if __package__ in (None, ""):  # run as a script: the repository's root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.engines.mutants import MUTANTS, Mutant

SCRIPT = Path(__file__).with_name("mutants.py")


class InProcessEngine:
    """What `flip7ref.checking.harness._run_one` needs of an engine, answered by a mutant in this process."""

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
            flip7ref.checking.engine_process.EngineError: an answer the schema refuses.
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
                raise EngineError(f"invalid run response {problem}")
        return response

    def close(self) -> None:
        """Nothing to stop."""
        self.proc = None


_PREPARED: dict[str, Prepared | CaseResult] = {}


def _prepare(case: Case, impl: Mapping[str, Any]) -> Prepared | CaseResult:
    """`flip7ref.checking.verdict.prepare`, remembered: every mutant of an edition declares the same
    readings, so the reference's preparation of a case is the same for all of them."""
    key = json.dumps([case, {k: v for k, v in impl.items() if k != "name"}], sort_keys=True, default=str)
    found = _PREPARED.get(key)
    if found is None:
        found = _PREPARED[key] = prepare(case, impl)
    return found


_LEAVES: dict[str, list[Any]] = {}


def _leaves(case: Case) -> list[Any]:
    """`flip7ref.checking.perft.leaves` of a perft case (the reference's deal orders), remembered."""
    key = json.dumps(case, sort_keys=True, default=str)
    if key not in _LEAVES:
        _LEAVES[key] = list(perft_leaves(case))
    return _LEAVES[key]


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
    saved = harness.prepare, perft_check.prepare, perft_check.leaves
    harness.prepare = perft_check.prepare = _prepare  # type: ignore[assignment]
    perft_check.leaves = _leaves  # type: ignore[assignment]
    try:
        return [harness._run_one(engine, impl, seq, case, True) for seq, case in enumerate(cases)]  # type: ignore[arg-type]
    finally:
        harness.prepare, perft_check.prepare, perft_check.leaves = saved


def run_all(names: Sequence[str], cases: Sequence[Case], *, workers: int = 2) -> dict[str, list[CaseResult]]:
    """`run_mutant` in-process (answers unvalidated) for every mutant of ``names``, shared out
    over ``workers`` processes (forked: each mutant runs in one worker, its patch there only)."""
    if workers <= 1:
        return {n: run_mutant(n, cases, validate=False) for n in names}
    import multiprocessing

    done: dict[str, list[CaseResult]] = {}
    for edition in dict.fromkeys(MUTANTS[n].edition for n in names):  # in this process first: the workers
        first = next(n for n in names if MUTANTS[n].edition == edition)  # inherit the remembered preparations
        done[first] = run_mutant(first, cases, validate=False)
    rest = [n for n in names if n not in done]
    context = multiprocessing.get_context("fork")
    with context.Pool(workers) as pool:
        out = pool.starmap(_run_named, [(n, cases) for n in rest], chunksize=1)
    done.update(zip(rest, out, strict=True))
    return {n: done[n] for n in names}


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


@attrs.frozen
class Summary:
    """The suite's figures over every mutant.

    Attributes:
        rows: one `Figures` per mutant, in catalogue order.
        killed: mutants failing at least one case.
        accuracy: the mean over killed mutants of the share of their failing cases blamed
            first on the broken rule.
        among: the same share with the broken rule anywhere among the blamed.
        pooled: the share over all failing cases pooled (first blamed).
    """

    rows: tuple[Figures, ...]
    killed: int
    accuracy: float
    among: float
    pooled: float

    @property
    def kill_rate(self) -> float:
        """Killed mutants over all mutants."""
        return self.killed / len(self.rows)


def summarise(results: Mapping[str, Sequence[CaseResult]]) -> Summary:
    """The `Summary` of every mutant's results (name -> results)."""
    rows = tuple(figures(name, res) for name, res in results.items())
    killed = [r for r in rows if r.failing]
    accuracy = sum(r.first / r.failing for r in killed) / len(killed) if killed else 0.0
    among = sum(r.among / r.failing for r in killed) / len(killed) if killed else 0.0
    failing = sum(r.failing for r in rows)
    pooled = sum(r.first for r in rows) / failing if failing else 0.0
    return Summary(rows, len(killed), accuracy, among, pooled)


TRIPLES = (
    "freeze-discarded+flip7-others-score-zero+dealer-stays",
    "flip-three-immediate+tie-first-seat+bust-card-discarded",
    "chance-ends-flip-three+x2-doubles-modifiers+first-offer-to-resolver",
    "empty-deck-crash+stay-needs-number+busted-scores-modifiers",
    "flip-three-two-cards+used-chance-vanishes+totals-replaced",
    "deal-starts-at-dealer+zero-not-counted+round-cards-vanish",
    "zero-scores+swap-no-receiving-rules+discard-by-recipient",
    "unlucky7-busts+flip-four-three-cards+v-stayed-not-targetable",
    "lucky13-busts+jom-no-stay+no-floor-at-zero",
    "steal-no-receiving-rules+half-after-negatives+v-deal-starts-at-dealer",
)
"""The multi-bug mutants measured (`multi_bug_run`): three bugs each, six of Flip 7 (among them the
naive forms real engines have: a Flip Three resolving its actions at once, F7-073; a Second Chance
ending a Flip Three, F7-077; the first seat winning ties, F7-121; a crash on an empty deck,
F7-115) and four of Flip 7: With a Vengeance."""
MULTI_SECONDS = 60.0
"""The fuzzing seconds of each multi-bug run measured for the README (seed 0)."""
MULTI_JSON = Path(__file__).with_name("multi_bug_figures.json")
"""The multi-bug figures measured last (`python tests/engines/mutant_runs.py --multi` writes them)."""


@attrs.frozen
class MultiRun:
    """One fuzzing run of a multi-bug mutant (`multi_bug_run`).

    Attributes:
        spec: the mutant (``A+B+C``).
        bugs: the member mutants, in order.
        reported: per member, the index of the finding assigned to it (each finding to one
            member at most, a finding's case failing on that member alone), or None.
        findings: the run's findings: their first blamed rules.
        seconds: the run's wall time.
        games: games played.
    """

    spec: str
    bugs: tuple[str, ...]
    reported: tuple[int | None, ...]
    findings: tuple[str, ...]
    seconds: float
    games: int

    @property
    def found(self) -> int:
        """Members reported by a finding of their own."""
        return sum(r is not None for r in self.reported)


def _assign(fails: Sequence[Sequence[bool]]) -> list[int | None]:
    """A largest assignment of findings to bugs (``fails[bug][finding]``: the finding's case fails
    on that bug alone), each finding to one bug at most (augmenting paths)."""
    holder: dict[int, int] = {}

    def place(bug: int, tried: set[int]) -> bool:
        for f, ok in enumerate(fails[bug]):
            if ok and f not in tried:
                tried.add(f)
                if f not in holder or place(holder[f], tried):
                    holder[f] = bug
                    return True
        return False

    for bug in range(len(fails)):
        place(bug, set())
    mine: list[int | None] = [None] * len(fails)
    for f, bug in holder.items():
        mine[bug] = f
    return mine


def multi_bug_run(
    spec: str, seconds: float, *, seed: int | str = 0, shrink_seconds: float = 10.0, games: int | None = None
) -> MultiRun:
    """Fuzz the multi-bug mutant ``spec`` (``A+B+C``, served over the protocol) for ``seconds``
    (or ``games`` games, whichever comes first) and tell which of its bugs were reported: a bug
    is reported when a finding of its own (each finding counts for one bug at most) is a case
    that fails on that bug's single mutant."""
    from flip7ref.checking.conformance import load_case_file
    from flip7ref.checking.fuzz import fuzz
    from tests.engines.mutants import parse

    members = spec.split("+")
    parse(spec)  # a clear error for an unknown name
    with tempfile.TemporaryDirectory() as out:
        report = fuzz(
            f"{sys.executable} {SCRIPT} {spec}", seed=seed, seconds=seconds, shrink_seconds=shrink_seconds, out=out, games=games
        )
        cases = [load_case_file(f.path)[0] for f in report.findings]
        fails = [[r.status in ("fail", "error") for r in run_mutant(name, cases)] if cases else [] for name in members]
    rules = tuple(f.case["rules"][0] for f in report.findings)
    return MultiRun(spec, tuple(members), tuple(_assign(fails)), rules, report.seconds, report.games)


def multi_line(runs: Sequence[Mapping[str, Any]]) -> str:
    """The README's multi-bug row from the recorded runs (`MULTI_JSON`)."""
    bugs = sum(len(r["bugs"]) for r in runs)
    found = sum(r["found"] for r in runs)
    full = sum(r["found"] == len(r["bugs"]) for r in runs)
    seconds = max((r["fuzz_seconds"] for r in runs), default=0)
    editions = sorted({MUTANTS[b].edition for r in runs for b in r["bugs"]})
    return (
        f"Multi-bug mutants (`python tests/engines/mutants.py A+B+C`, {len(runs)} triples of {' and '.join(editions)} "
        f"mutants, `conformance fuzz` with seed 0 for {seconds:g} s of wall time each): **{found / bugs:.0%}** of their "
        f"{bugs} bugs "
        f"reported in one run, each by a finding of its own whose case fails on that bug alone; "
        f"{full} of {len(runs)} triples fully found (`python tests/engines/mutant_runs.py --multi {seconds:g}` measures it)."
    )


def _recorded() -> list[dict[str, Any]]:
    if not MULTI_JSON.exists():
        return []
    runs: list[dict[str, Any]] = json.loads(MULTI_JSON.read_text(encoding="utf-8"))
    return runs


BEGIN = "<!-- mutant figures: generated by python tests/engines/mutant_runs.py --update -->"
END = "<!-- end of mutant figures -->"
README = Path(__file__).resolve().parents[2] / "conformance" / "README.md"


def table(summary: Summary, cases: int) -> str:
    """The Markdown block of conformance/README.md: the figures, then one row per mutant."""
    lines = [
        BEGIN,
        "",
        f"{len(summary.rows)} mutants, run against all {cases} cases: kill rate "
        f"**{summary.kill_rate:.0%}** ({summary.killed} of {len(summary.rows)}); blame accuracy "
        f"**{summary.accuracy:.1%}** (first blamed rule the broken one, mean over the mutants), "
        f"**{summary.among:.1%}** with the broken rule among the blamed; "
        f"{summary.pooled:.1%} of all {sum(r.failing for r in summary.rows)} failing cases pooled.",
        "",
        "| mutant | edition | broken rule | what it does | failing cases | blamed first | among blamed |",
        "|---|---|---|---|---:|---:|---:|",
    ]
    for row in summary.rows:
        m = MUTANTS[row.name]
        lines.append(f"| `{m.name}` | {m.edition} | {m.rule} | {m.description} | {row.failing} | {row.first} | {row.among} |")
    runs = _recorded()
    if runs:
        lines += ["", multi_line(runs)]
    lines += ["", END]
    return "\n".join(lines)


def readme_block(text: str) -> str | None:
    """The generated block of a README's text, or None when its markers are missing."""
    if BEGIN not in text or END not in text:
        return None
    return text[text.index(BEGIN) : text.index(END) + len(END)]


def main(argv: Sequence[str] | None = None) -> int:
    """``--update``: run every mutant against the suite and rewrite the block of
    conformance/README.md; ``--check``: exit 1 when the block differs; ``--multi [SECONDS]``:
    fuzz each multi-bug mutant of `TRIPLES` (`MULTI_SECONDS` each by default), record the runs in
    `MULTI_JSON` and rewrite the block's multi-bug row only.  Exit 2 on other arguments."""
    from flip7ref.checking.conformance import load_cases

    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--multi"] and len(args) <= 2:
        return _multi(float(args[1]) if len(args) == 2 else MULTI_SECONDS)
    if args not in (["--update"], ["--check"]):
        print("usage: mutant_runs.py --update | --check | --multi [SECONDS]", file=sys.stderr)
        return 2
    cases = load_cases()
    start = time.monotonic()
    block = table(summarise(run_all(list(MUTANTS), cases)), len(cases))
    seconds = time.monotonic() - start
    text = README.read_text(encoding="utf-8")
    old = readme_block(text)
    if args == ["--check"]:
        print(f"the mutant runs took {seconds:.0f} s", file=sys.stderr)
        return 0 if old == block else 1
    new = text.replace(old, block) if old is not None else text.rstrip("\n") + "\n\n" + block + "\n"
    README.write_text(new, encoding="utf-8")
    print(block.splitlines()[2])
    print(f"the mutant runs took {seconds:.0f} s", file=sys.stderr)
    return 0


def _multi(seconds: float) -> int:
    """Measure the multi-bug row (`--multi`): one fuzzing run per triple; print each."""
    runs = []
    for spec in TRIPLES:
        run = multi_bug_run(spec, seconds)
        missed = [b for b, r in zip(run.bugs, run.reported, strict=True) if r is None]
        print(f"{spec}: {run.found} of {len(run.bugs)} reported ({len(run.findings)} findings, {run.games} games, "
              f"{run.seconds:.0f} s){'; missed ' + ', '.join(missed) if missed else ''}", flush=True)  # fmt: skip
        runs.append({"spec": spec, "bugs": list(run.bugs), "found": run.found, "missed": missed,
                     "findings": list(run.findings), "fuzz_seconds": seconds, "wall_seconds": round(run.seconds, 1)})  # fmt: skip
    MULTI_JSON.write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    text = README.read_text(encoding="utf-8")
    block = readme_block(text)
    if block is None:
        print("conformance/README.md has no mutant figures block: run --update", file=sys.stderr)
        return 1
    kept = block.splitlines()
    at = next((i for i, line in enumerate(kept) if line.startswith("Multi-bug mutants")), None)
    if at is not None:
        del kept[at : at + 2]  # the row and the blank line after it
    kept[-1:-1] = [multi_line(runs), ""]
    README.write_text(text.replace(block, "\n".join(kept)), encoding="utf-8")
    print(multi_line(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
