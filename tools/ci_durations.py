"""Where a test run's time goes: per-file totals and the slowest tests of a JUnit XML report.

``.ci/run`` writes ``.ci-reports/tests.xml`` (the README's test command) and
``.ci-reports/compiled.xml`` (the compiled build's tests)::

    python tools/ci_durations.py .ci-reports/tests.xml            # the 40 slowest files
    python tools/ci_durations.py .ci-reports/tests.xml --tests 30  # and the 30 slowest tests
    python tools/ci_durations.py .ci-reports/tests.xml --write     # into tests/durations.json

``tests/durations.json`` orders the test files longest first (``tests/conftest.py``), so that
under ``pytest -n auto --dist loadfile`` the long files start at once; rewrite it with
``--write`` when a file's time changes much.

Prints one line per file: total seconds, number of tests, path. The times are each test's
own (set-up and call), so module fixtures count in the file's first test.
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path


def _file_of(case: ET.Element) -> str:
    """The test file of a ``<testcase>``: its ``file`` attribute, else from ``classname``."""
    if case.get("file"):
        return case.get("file", "")
    parts = case.get("classname", "").split(".")
    # tests.test_x.TestClass -> tests/test_x.py
    for end in range(len(parts), 0, -1):
        if parts[end - 1].startswith("test_"):
            return "/".join(parts[:end]) + ".py"
    return ".".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="a JUnit XML file (pytest --junitxml)")
    parser.add_argument("--files", type=int, default=40, help="how many files to list (default 40)")
    parser.add_argument("--tests", type=int, default=0, help="how many single tests to list (default 0)")
    parser.add_argument("--write", action="store_true", help="write the per-file seconds into tests/durations.json")
    args = parser.parse_args(argv)
    try:
        root = ET.parse(args.report).getroot()
    except (OSError, ET.ParseError) as exc:
        print(f"error: cannot read {args.report}: {exc}", file=sys.stderr)
        return 2
    per_file: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    tests: list[tuple[float, str]] = []
    for case in root.iter("testcase"):
        seconds = float(case.get("time", "0") or 0)
        name = _file_of(case)
        per_file[name] += seconds
        count[name] += 1
        tests.append((seconds, f"{name}::{case.get('name', '')}"))
    total = sum(per_file.values())
    print(f"{total:8.1f} s  {sum(count.values()):5d} tests  in {len(per_file)} files (sum of test times)")
    for name, seconds in sorted(per_file.items(), key=lambda kv: -kv[1])[: args.files]:
        print(f"{seconds:8.1f} s  {count[name]:5d}  {name}")
    if args.tests:
        print()
        for seconds, name in sorted(tests, reverse=True)[: args.tests]:
            print(f"{seconds:8.1f} s  {name}")
    if args.write:
        out = Path(__file__).resolve().parents[1] / "tests" / "durations.json"
        data = {
            "about": "seconds per test file in CI (tools/ci_durations.py --write); tests/conftest.py runs the longest first",
            "seconds_by_file": {name: round(sec, 1) for name, sec in sorted(per_file.items(), key=lambda kv: -kv[1])},
        }
        out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
