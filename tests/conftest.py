"""Shared test configuration: Hypothesis profiles and the ``rules`` marker.

Every test that checks a rule says so with ``@pytest.mark.rules("F7-050", ...)``;
``tests/test_rule_coverage.py`` fails when a rule id of an edition table is
cited by no test.  Worked examples of the rules catalogue are cited with
``@pytest.mark.example("E-01")``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    max_examples=60,
    stateful_step_count=120,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.register_profile(
    "dev",
    deadline=None,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "deep",
    deadline=None,
    max_examples=600,
    stateful_step_count=300,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
# CI and mutmut runs (mutmut sets MUTANT_UNDER_TEST) use the derandomized ci profile.
_CI = bool(os.environ.get("CI")) or "MUTANT_UNDER_TEST" in os.environ
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if _CI else "dev"))


def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "dist", "no") == "loadfile" and hasattr(config.option, "loadscopereorder"):
        # pytest-xdist hands out the files in collection order, not most-tests-first: the order
        # of _longest_files_first below
        config.option.loadscopereorder = False
    config.addinivalue_line("markers", "rules(*ids): the rule ids of the edition tables this test checks")
    config.addinivalue_line("markers", "example(*ids): the worked-example ids of the rules catalogue this test reproduces")
    config.addinivalue_line(
        "markers", "slow: takes minutes (e.g. the numbers+modifiers solve); runs only with FLIP7REF_SLOW=1"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _fastest_first_under_mutmut(items)
    _longest_files_first(items)
    if os.environ.get("FLIP7REF_SLOW"):
        return
    skip = pytest.mark.skip(reason="slow: set FLIP7REF_SLOW=1 to run it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


DURATIONS = Path(__file__).with_name("durations.json")
"""Seconds each test file took in CI (``python tools/ci_durations.py .ci-reports/tests.xml --write``)."""


def _longest_files_first(items: list[pytest.Item]) -> None:
    """The files that took longest in CI first (`DURATIONS`; a file not listed there counts as
    five seconds), each file's tests in their own order: under ``-n auto --dist loadfile`` the
    longest files start at once and the short ones fill in at the end, so no worker is left
    with a long file while the others idle.  Not under mutmut (its own order, above)."""
    if "MUTANT_UNDER_TEST" in os.environ:
        return
    try:
        with DURATIONS.open(encoding="utf-8") as f:
            seconds: dict[str, float] = json.load(f)["seconds_by_file"]
    except (OSError, ValueError, KeyError):
        return
    items.sort(key=lambda item: -seconds.get(item.nodeid.partition("::")[0], 5.0))


def _fastest_first_under_mutmut(items: list[pytest.Item]) -> None:
    """While mutmut tests a mutant (docs/mutation-testing.md), run its tests fastest first (by the
    durations mutmut recorded in ``mutmut-stats.json`` of its ``mutants/`` folder), so that a
    mutant is usually killed in its first second; the order of a normal run is unchanged."""
    if "__mutmut_" not in os.environ.get("MUTANT_UNDER_TEST", ""):
        return
    try:
        with open("mutmut-stats.json", encoding="utf-8") as f:
            durations: dict[str, float] = json.load(f)["duration_by_test"]
    except (OSError, ValueError, KeyError):
        return
    items.sort(key=lambda item: durations.get(item.nodeid, 0.0))
