"""The ``conformance fuzz`` subcommand: its run and what it prints (`flip7ref.checking.fuzz` does the work)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flip7ref.checking.verdict import cut
from flip7ref.cli._common import Terminated, parse_seed, sigterm_raises
from flip7ref.core.errors import OptionError
from flip7ref.proc.exits import EXIT_ENGINE_FAULT, EXIT_FAILED, EXIT_OK

if TYPE_CHECKING:
    from flip7ref.checking.fuzz import Finding


def _sizes(size: tuple[int, ...]) -> str:
    return f"{size[0]} players, {size[3]} cards, {size[4]} actions"


def cmd_fuzz(args: argparse.Namespace) -> int:
    """Run ``conformance fuzz``: 0 no difference, 1 differences written (or nothing could be
    compared), 4 engine faults and no difference (no case written), 143 on SIGTERM
    (`flip7ref.cli._common.sigterm_raises`); `OptionError` for a bad
    flag or an engine that cannot start (exit 2)."""
    from flip7ref.checking.engine_process import EngineError
    from flip7ref.checking.fuzz import fuzz

    if not args.engine.strip():
        raise OptionError("--engine: the command is empty")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise OptionError(f"--out {args.out}: expected a folder, but this is a file")
    if not out.resolve().parent.is_dir():
        raise OptionError(f"--out {args.out}: the folder {out.resolve().parent} does not exist")
    seed = parse_seed(args.seed)
    try:
        with sigterm_raises():
            report = fuzz(
                args.engine, seed=seed, games=args.games, seconds=args.seconds, shrink_seconds=args.shrink_seconds,
                out=out, timeout=args.timeout, editions=args.edition, keep_going=not args.first,
            )  # fmt: skip
    except EngineError as exc:
        raise OptionError(f"--engine {cut(args.engine, 200)!r}: {exc}") from None
    except Terminated:
        print("flip7ref: terminated; the engine was stopped", file=sys.stderr)
        return 143

    def rerun(path: Path) -> str:
        return f"flip7ref conformance run --engine {shlex.quote(args.engine)} --cases {shlex.quote(str(path))}"

    nothing = report.found is None and report.steps == report.skipped
    status = EXIT_FAILED if report.found is not None or (nothing and not report.faults) else EXIT_OK
    if report.found is None and report.faults:
        status = EXIT_ENGINE_FAULT
    faults = [{"message": f.message, "request": f.request, "edition": f.edition, "actions": f.actions} for f in report.faults]
    if args.json:
        findings = [_finding_json(f, rerun(f.path)) for f in report.findings]
        print(json.dumps({
            "engine": report.engine, "seed": report.seed, "games": report.games, "steps": report.steps,
            "skipped": report.skipped, "seconds": round(report.seconds, 3), "not_compared": list(report.not_compared),
            "found": findings[0] if findings else None, "findings": findings, "engine_faults": faults,
        }, sort_keys=True))  # fmt: skip
        return status
    print(f"fuzz: {report.engine}, seed {report.seed}: {report.games} games, {report.steps} steps in {report.seconds:.1f} s")
    if report.not_compared:
        print(f"not compared (the engine does not report them): {', '.join(report.not_compared)}")
    if report.skipped:
        print(f"{report.skipped} steps skipped by the engine (each ends its game)")
    if report.faults:
        print(f"engine faults ({len(report.faults)}; not rule differences, no case written):")
        for fault in report.faults:
            print(f"  request {fault.request} ({fault.edition}, {fault.actions} actions): {fault.message}")
    if not report.findings:
        if report.faults:
            print("no rule difference found")
        elif nothing:
            print("nothing was compared: the engine skipped every game")
        else:
            print("no difference found")
        return status
    if len(report.findings) > 1:
        print(f"{len(report.findings)} findings")
    for f in report.findings:
        result = f.found.check.result
        again = f" (seen in {f.repeats} games)" if f.repeats > 1 else ""
        print(f"difference in {f.source} game {f.game}, found after {f.found_after:.1f} s{again}: {result.message}")
        why = dict(zip(result.blame, result.reasons, strict=False))
        print("blamed on " + "; ".join(f"{r} ({why[r]})" if r in why else r for r in f.case["rules"]))
        print(
            f"shrunk from {_sizes(f.original_size)} to {_sizes(f.found.size())} "
            f"({f.shrink_tried} candidates, {f.shrink_seconds:.1f} s)"
        )
        print(f"wrote {f.path} (case {f.case['id']}): {f.verified[0]} on the engine, {f.verified[1]} on the reference")
        print(f"rerun: {rerun(f.path)}")
    return status


def _finding_json(f: Finding, rerun: str) -> dict[str, Any]:
    """One finding as ``--json`` prints it."""
    result = f.found.check.result
    return {
        "rule": f.case["rules"][0], "case": str(f.path), "rerun": rerun,
        "game": f.game, "source": f.source, "after_seconds": round(f.found_after, 3), "repeats": f.repeats,
        "case_id": f.case["id"], "difference": result.message, "blame": list(f.case["rules"]),
        "players": f.found.trial.players, "actions": len(f.case.get("actions") or ()),
        "cards": len(f.found.trial.draw), "shrink_candidates": f.shrink_tried,
        "shrink_seconds": round(f.shrink_seconds, 3), "on_engine": f.verified[0], "on_reference": f.verified[1],
    }  # fmt: skip
