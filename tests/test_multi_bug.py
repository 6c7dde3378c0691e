"""Issue 46: conformance fuzz finds every bug of an engine in one run.

Multi-bug mutants (``python tests/engines/mutants.py A+B+C``: the reference with every named
mutant's rule broken at once) are fuzzed, and each of their bugs must be reported by a finding
of its own whose written case fails on that bug alone (`tests.engines.mutant_runs.multi_bug_run`).
CI runs two triples, one per edition, for a fixed number of games; all of `TRIPLES`, each for
`MULTI_SECONDS` as the README's figure is measured, run with FLIP7REF_SLOW=1.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from flip7ref.core.errors import Flip7RefError
from tests.engines.mutant_runs import MULTI_SECONDS, SCRIPT, TRIPLES, _assign, multi_bug_run
from tests.engines.mutants import MUTANTS, Combined, UnknownMutant, parse


def test_a_plus_joined_name_breaks_every_named_rule_at_once() -> None:
    """``A+B+C`` combines the named mutants; it declares their editions; one name stays a plain mutant."""
    both = parse("freeze-discarded+zero-scores+dealer-stays")
    assert isinstance(both, Combined)
    assert both.name == "freeze-discarded+zero-scores+dealer-stays"
    assert both.rules == ("F7-062", "V-030", "F7-112")
    assert sorted(both.implementation()["editions"]) == ["flip7", "vengeance"]
    assert both.implementation()["name"] == "mutant-freeze-discarded+zero-scores+dealer-stays"
    assert parse("freeze-discarded") is MUTANTS["freeze-discarded"]


def _outcome(engine: Any, case: Any) -> Any:
    try:
        return engine(case)
    except Flip7RefError as exc:
        return str(exc)


@pytest.mark.rules("F7-062", "F7-091")
def test_a_combined_mutant_plays_each_members_bug() -> None:
    """Cases failing on either member alone differ from the reference on the combination too."""
    from flip7ref.checking.conformance import load_cases, observe
    from tests.engines.mutant_runs import run_mutant

    cases = [c for c in load_cases() if c["edition"] == "flip7" and c["kind"] != "perft"][:200]
    combined = parse("freeze-discarded+x2-doubles-modifiers")
    for name in ("freeze-discarded", "x2-doubles-modifiers"):
        failing = [c for c, r in zip(cases, run_mutant(name, cases), strict=True) if r.status != "pass"][:2]
        assert failing, name
        for case in failing:
            assert _outcome(combined.observe, case) != _outcome(observe, case), (name, case["id"])


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nope+freeze-discarded", "mutants.py: unknown mutant 'nope'; the mutants are: freeze-discarded, "),
        ("freeze-discarded+freeze-discarded", "mutants.py: mutant freeze-discarded named twice in"),
        ("tie-first-seat+tie-shared-win", "mutants.py: mutants of 'tie-first-seat+tie-shared-win' break the same rule F7-121"),
        ("freeze-discarded+freeze-no-effect", "mutants.py: mutants freeze-discarded and freeze-no-effect change the same"),
        ("zero-scores+no-floor-at-zero", "mutants.py: mutants zero-scores and no-floor-at-zero change the same table field"),
    ],
)
def test_a_name_that_cannot_be_served_exits_2_with_one_line(spec: str, message: str) -> None:
    """An unknown name lists the valid ones; a name twice, two bugs of one rule or two members changing
    the same function or table field (one would hide the other) are refused too: exit 2, one line."""
    done = subprocess.run([sys.executable, str(SCRIPT), spec], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(message) and done.stderr.count("\n") == 1
    with pytest.raises(UnknownMutant):
        parse(spec)


def test_findings_are_assigned_to_bugs_one_each() -> None:
    """A finding failing on two bugs alone counts for one of them only."""
    assert _assign([[True, False], [True, False], [False, False]]) == [0, None, None]
    assert _assign([[True, True], [True, False], [False, True]]) in ([None, 0, 1], [1, 0, None], [0, None, 1])
    assert _assign([[True, True, False], [True, False, False], [False, False, True]]) == [1, 0, 2]


CI_TRIPLES = ("freeze-discarded+flip7-others-score-zero+dealer-stays", "zero-scores+swap-no-receiving-rules+discard-by-recipient")


@pytest.mark.parametrize("spec", CI_TRIPLES)
def test_fuzz_reports_each_bug_of_a_triple_as_its_own_finding(spec: str) -> None:
    """One fuzzing run (seed 0, a fixed number of games: the same games on any machine) reports
    all three bugs, each by a finding whose case fails on that bug alone."""
    run = multi_bug_run(spec, 600.0, games=150, shrink_seconds=5.0)
    missed = [b for b, r in zip(run.bugs, run.reported, strict=True) if r is None]
    assert missed == [], (run.findings, run.games)


@pytest.mark.slow
@pytest.mark.parametrize("spec", TRIPLES)
def test_fuzz_reports_each_bug_of_every_triple(spec: str) -> None:
    """Every triple of the README's figure, fuzzed for `MULTI_SECONDS` as measured there."""
    run = multi_bug_run(spec, MULTI_SECONDS)
    missed = [b for b, r in zip(run.bugs, run.reported, strict=True) if r is None]
    assert missed == [], (run.findings, run.games)


def test_the_published_multi_bug_figure_is_the_recorded_one() -> None:
    """conformance/README.md's block and docs/mutation-testing.md quote the runs recorded by
    ``mutant_runs.py --multi`` (tests/engines/multi_bug_figures.json), all of `TRIPLES`."""
    from tests.engines.mutant_runs import README, _recorded, multi_line, readme_block

    runs = _recorded()
    assert [r["spec"] for r in runs] == list(TRIPLES)
    line = multi_line(runs)
    block = readme_block(README.read_text(encoding="utf-8"))
    assert block is not None and line in block
    bugs = sum(len(r["bugs"]) for r in runs)
    share = f"{sum(r['found'] for r in runs) / bugs:.0%}"
    full = sum(r["found"] == len(r["bugs"]) for r in runs)
    page = " ".join((README.parents[1] / "docs" / "mutation-testing.md").read_text(encoding="utf-8").split())
    assert f"**{share}** of their {bugs} bugs" in page and f"{full} of {len(runs)} triples fully found" in page
