"""The ``conformance fuzz`` subcommand: its run and what it prints (`flip7ref.fuzz` does the work)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from ..checking import cut
from ..errors import OptionError
from ..exits import EXIT_ENGINE_FAULT, EXIT_FAILED, EXIT_OK
from ._common import Terminated, parse_seed, sigterm_raises


def _sizes(size: tuple[int, ...]) -> str:
    return f"{size[0]} players, {size[3]} cards, {size[4]} actions"


def cmd_fuzz(args: argparse.Namespace) -> int:
    """Run ``conformance fuzz``: 0 no difference, 1 a difference written (or nothing could be
    compared), 4 engine faults and no difference (no case written), 143 on SIGTERM
    (`flip7ref.cli._common.sigterm_raises`); `OptionError` for a bad
    flag or an engine that cannot start (exit 2)."""
    from ..fuzz import fuzz
    from ..harness import EngineError

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
                out=out, timeout=args.timeout, editions=args.edition,
            )  # fmt: skip
    except EngineError as exc:
        raise OptionError(f"--engine {cut(args.engine, 200)!r}: {exc}") from None
    except Terminated:
        print("flip7ref: terminated; the engine was stopped", file=sys.stderr)
        return 143
    rerun = None
    if report.path is not None:
        rerun = f"flip7ref conformance run --engine {shlex.quote(args.engine)} --cases {shlex.quote(str(report.path))}"
    nothing = report.found is None and report.steps == report.skipped
    status = EXIT_FAILED if report.found is not None or (nothing and not report.faults) else EXIT_OK
    if report.found is None and report.faults:
        status = EXIT_ENGINE_FAULT
    faults = [{"message": f.message, "request": f.request, "edition": f.edition, "actions": f.actions} for f in report.faults]
    if args.json:
        found: dict[str, Any] | None = None
        if report.found is not None and report.case is not None:
            result = report.found.check.result
            found = {
                "game": report.game, "source": report.source, "after_seconds": round(report.found_after or 0.0, 3),
                "case": str(report.path),
                "case_id": report.case["id"], "difference": result.message, "blame": list(report.case["rules"]),
                "players": report.found.trial.players, "actions": len(report.case.get("actions") or ()),
                "cards": len(report.found.trial.draw), "shrink_candidates": report.shrink_tried,
                "shrink_seconds": round(report.shrink_seconds, 3), "rerun": rerun,
                "on_engine": report.verified[0] if report.verified else None,
                "on_reference": report.verified[1] if report.verified else None,
            }  # fmt: skip
        print(json.dumps({
            "engine": report.engine, "seed": report.seed, "games": report.games, "steps": report.steps,
            "skipped": report.skipped, "seconds": round(report.seconds, 3), "not_compared": list(report.not_compared),
            "found": found, "engine_faults": faults,
        }, sort_keys=True))  # fmt: skip
        return status
    print(f"fuzz: {report.engine}, seed {report.seed}: {report.games} games, {report.steps} steps in {report.seconds:.1f} s")
    if report.not_compared:
        print(f"not compared (the engine does not report them): {', '.join(report.not_compared)}")
    if report.skipped:
        print(f"{report.skipped} steps skipped by the engine (each ends its game)")
    if report.faults:
        print(f"engine faults ({len(report.faults)}; not rule differences, no case written):")
        for f in report.faults:
            print(f"  request {f.request} ({f.edition}, {f.actions} actions): {f.message}")
    if report.found is None or report.case is None:
        if report.faults:
            print("no rule difference found")
        elif nothing:
            print("nothing was compared: the engine skipped every game")
        else:
            print("no difference found")
        return status
    result = report.found.check.result
    print(f"difference in {report.source} game {report.game}, found after {report.found_after or 0.0:.1f} s: {result.message}")
    print(f"blamed on {', '.join(report.case['rules'])}")
    print(
        f"shrunk from {_sizes(report.original_size)} to {_sizes(report.found.size())} "
        f"({report.shrink_tried} candidates, {report.shrink_seconds:.1f} s)"
    )
    engine_status, reference_status = report.verified or ("?", "?")
    print(f"wrote {report.path} (case {report.case['id']}): {engine_status} on the engine, {reference_status} on the reference")
    print(f"rerun: {rerun}")
    return status
