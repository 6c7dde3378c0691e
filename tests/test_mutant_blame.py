"""The suite's own accuracy, measured on single-rule mutants (tests/engines/mutants.py).

Every mutant (the reference with one rule broken) is run against the whole suite through
the harness's per-case path: the **kill rate** (mutants failing at least one case) must be
100 %; the **blame accuracy** (of a mutant's failing cases, the share whose first blamed
rule is the broken one; mean over the mutants) has the goal 90 %, with the broken rule among
the (at most three) blamed in 98 %; the measured figures are floors (`ACCURACY_FLOOR`, `AMONG_FLOOR`).
conformance/README.md prints these figures and one row per mutant;
``python tests/engines/mutant_runs.py --update`` regenerates that table.

The whole suite runs in-process (`tests.engines.mutant_runs.InProcessEngine`, two worker
processes); a slice goes over the real protocol, each mutant a subprocess, and must give
the very same results.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from flip7ref.checking.conformance import CaseResult, load_cases
from flip7ref.core.spec import load_edition
from tests.engines.mutant_runs import README, readme_block, run_all, run_mutant, summarise, table
from tests.engines.mutants import MUTANTS

_RUN: dict[str, Any] = {}

ACCURACY_FLOOR = 0.93
"""Blame accuracy (first blamed rule, mean over the mutants) the suite must keep: just under the
93.6 % measured over the 68 mutants (the four naive-form mutants of issue 46 among them; 92.8 %
over 64 before a short reshuffle was blamed on where its cards went, F7-111, and other seats to
choose from on who may be chosen; 93.2 % before position loading asked the F7-040 decider: the
duplicate-no-bust mutant refuses three cases' busted set-up lines, an engine error blamed on F7-050
first); the goal, 0.90, is reached."""

AMONG_FLOOR = 0.98
"""The share with the broken rule among the blamed (the three rules shown,
`flip7ref.checking.shortlist.MAX_BLAMED`) the suite must keep: the goal, 0.98, which the
98.5 % measured over the 68 mutants reaches (98.6 % over 64 among every rule of the step before
the list was cut to three)."""


def _all() -> tuple[list[Any], dict[str, list[CaseResult]], float]:
    if not _RUN:
        cases = load_cases()
        start = time.monotonic()
        _RUN.update(cases=cases, results=run_all(list(MUTANTS), cases), seconds=time.monotonic() - start)
    return _RUN["cases"], _RUN["results"], _RUN["seconds"]


def test_the_catalogue_breaks_one_known_rule_each_and_covers_every_family() -> None:
    """At least 40 mutants; each names a rule of its edition's catalogue; the bug families
    seen in real engines each have one."""
    assert len(MUTANTS) >= 40
    for m in MUTANTS.values():
        assert m.rule in load_edition(m.edition).rules, m.name
        assert m.how in ("table", "patch") and m.description
    rules = {m.rule for m in MUTANTS.values()}
    families = {"F7-062", "F7-030", "F7-074", "F7-076", "F7-078", "F7-114", "F7-116", "F7-051", "F7-111", "F7-041",
                "F7-080", "F7-082", "F7-115", "V-030", "V-031", "V-033", "V-036", "V-052", "V-053", "V-045", "V-046",
                "V-047", "V-043", "V-080", "V-081", "V-082", "V-084", "F7-073", "F7-077", "F7-121"}  # fmt: skip
    assert families <= rules, sorted(families - rules)
    assert {m.edition for m in MUTANTS.values()} == {"flip7", "vengeance"}


@pytest.mark.rules("F7-062", "F7-051", "V-033")
def test_every_mutant_is_killed_and_blamed_on_the_rule_it_breaks() -> None:
    """Kill rate 100 %; blame accuracy not below the measured floors (goals: 90 % first blamed,
    and 98 % among the blamed, both reached); the README's table is the one these results
    give.  (How long the runs take is not asserted: a timed test fails on a loaded machine;
    `python tests/engines/mutant_runs.py --check` prints it on stderr.)"""
    cases, results, _seconds = _all()
    summary = summarise(results)
    survivors = [r.name for r in summary.rows if not r.failing]
    assert survivors == []
    assert summary.kill_rate == 1.0
    # The goals are 90 % and 98 %; the floors keep the figures measured from falling back.
    assert summary.accuracy >= ACCURACY_FLOOR, [(r.name, r.first, r.failing) for r in summary.rows if r.first < r.failing]
    assert summary.among >= AMONG_FLOOR, [(r.name, r.among, r.failing) for r in summary.rows if r.among < r.failing]
    block = readme_block(README.read_text(encoding="utf-8"))
    assert block == table(summary, len(cases)), "run python tests/engines/mutant_runs.py --update"


SLICE = ("freeze-discarded", "first-offer-to-resolver", "flip7-others-score-zero", "unlucky7-busts", "brutal-busted-zero")


@pytest.mark.rules("F7-062", "F7-030", "F7-051", "V-033", "V-081")
def test_a_slice_over_the_protocol_gives_the_same_results() -> None:
    """Five mutants served over the real protocol (``python tests/engines/mutants.py NAME``,
    a subprocess each) on their failing cases and a few passing ones: the same statuses,
    messages and blame as in-process."""
    cases, results, _ = _all()
    by_id = {c["id"]: c for c in cases}
    for name in SLICE:
        inproc = {r.case_id: r for r in results[name]}
        failing = [cid for cid, r in inproc.items() if r.status in ("fail", "error")]
        passing = [cid for cid, r in inproc.items() if r.status == "pass"][:3]
        chosen = [by_id[cid] for cid in failing + passing]
        over = run_mutant(name, chosen, protocol=True)
        assert [(r.case_id, r.status, r.message, r.blame) for r in over] == [
            (inproc[c["id"]].case_id, inproc[c["id"]].status, inproc[c["id"]].message, inproc[c["id"]].blame) for c in chosen
        ], name
