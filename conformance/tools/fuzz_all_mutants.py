"""Fuzz every mutant engine of tests/engines/mutants.py and print the time each took to find.

Each mutant is served over the protocol (``python tests/engines/mutants.py NAME``) and fuzzed
with `flip7ref.checking.fuzz.fuzz` (``conformance fuzz``): the seconds to the first difference, the
size of the shrunk case and whether it fails on the mutant and passes on the reference.  The
last lines give the median and the range of the times to find, and the mutants not found.

Run from the repository's root:

    python conformance/tools/fuzz_all_mutants.py [--seconds 60] [--shrink-seconds 10] [--seed 0] [--from-json FILE] [NAME ...]
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from flip7ref.checking.fuzz import fuzz  # noqa: E402
from tests.engines.mutants import MUTANTS  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Fuzz the named mutants (default: all); print one line each, then the median and range of
    the times to find.  Exit status 1 when a mutant was not found or its case does not fail on it
    and pass on the reference."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutant names (default: every mutant)")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds to look for each mutant (default 60)")
    parser.add_argument("--shrink-seconds", type=float, default=10.0, help="seconds to shrink each difference (default 10)")
    parser.add_argument("--seed", default="0", help="the fuzzing seed (default 0)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--from-json", metavar="FILE", help="fuzz only the mutants FILE (a --json output) lists as not found")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in MUTANTS]
    if unknown:
        parser.error(f"unknown mutants: {', '.join(unknown)} (see python tests/engines/mutants.py --list)")
    names = args.names or sorted(MUTANTS)
    if args.from_json:
        names = [str(r["mutant"]) for r in json.loads(Path(args.from_json).read_text(encoding="utf-8")) if r["found"] is None]
    script = ROOT / "tests" / "engines" / "mutants.py"
    rows: list[dict[str, object]] = []
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as out:
        for name in names:
            mutant = MUTANTS[name]
            command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {name}"
            report = fuzz(
                command, seed=args.seed, seconds=args.seconds, shrink_seconds=args.shrink_seconds, out=out, keep_going=False
            )
            row: dict[str, object] = {"mutant": name, "rule": mutant.rule, "games": report.games, "source": report.source}
            if report.found is not None and report.case is not None:
                size = report.found.size()
                on_engine, on_reference = report.verified or ("?", "?")
                row.update(
                    found=round(report.found_after or 0.0, 1), players=size[0], cards=size[3], actions=size[4],
                    blame=list(report.case["rules"]), on_mutant=on_engine, on_reference=on_reference,
                )  # fmt: skip
                good = on_engine != "pass" and on_reference == "pass"
                blamed = "right rule" if mutant.rule in report.case["rules"] else "blamed " + ",".join(report.case["rules"])
                print(
                    f"{name:32} {mutant.rule:7} found in {report.found_after or 0.0:5.1f} s "
                    f"({report.source} game {report.game}); "
                    f"case {size[0]} players, {size[3]} cards, {size[4]} actions; {on_engine} on the mutant, "
                    f"{on_reference} on the reference{'' if good else ' (BAD)'}; {blamed}",
                    flush=True,
                )
            else:
                row["found"] = None
                print(f"{name:32} {mutant.rule:7} NOT FOUND in {args.seconds:g} s ({report.games} games)", flush=True)
            rows.append(row)
    times = [float(r["found"]) for r in rows if isinstance(r["found"], float)]  # type: ignore[arg-type]
    missed = [str(r["mutant"]) for r in rows if r["found"] is None]
    bad = [
        str(r["mutant"])
        for r in rows
        if r["found"] is not None and not (r["on_mutant"] != "pass" and r["on_reference"] == "pass")
    ]
    print(f"{len(times)} of {len(rows)} mutants found in {time.monotonic() - began:.0f} s")
    if times:
        print(f"time to find: median {statistics.median(times):.1f} s, range {min(times):.1f} to {max(times):.1f} s")
    if missed:
        print(f"not found: {', '.join(missed)}")
    if bad:
        print(f"case not failing on the mutant or not passing on the reference: {', '.join(bad)}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 1 if missed or bad else 0


if __name__ == "__main__":
    sys.exit(main())
