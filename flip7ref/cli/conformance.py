"""The ``conformance run``, ``conformance serve`` and ``replay`` subcommands (for implementers)."""

from __future__ import annotations

import argparse
import json

from ..conformance import CaseResult
from ..errors import OptionError


def cmd_conformance_run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from ..conformance import load_cases, select
    from ..harness import EngineError, run_engine, run_in_process

    cases = select(load_cases(args.cases or None), editions=args.edition, ids=args.case, rules=args.rule)
    if not cases:
        raise OptionError("no case matches the given --edition/--case/--rule filters")
    report = open(args.report, "w", encoding="utf-8") if args.report else None  # noqa: SIM115 - closed below
    try:
        header: dict[str, object] = {"report": 1, "engine": args.engine or "flip7ref (in-process)", "cases": len(cases)}

        def write(result: CaseResult) -> None:
            if report is not None:
                report.write(json.dumps(result.to_dict(), sort_keys=True) + "\n")
                report.flush()

        def start(impl: dict[str, object] | None) -> None:
            if report is not None:
                report.write(json.dumps({**header, "implementation": impl}, sort_keys=True) + "\n")
                report.flush()

        if args.engine:
            try:
                _, results = run_engine(args.engine, cases, timeout=args.timeout, on_start=start, on_result=write)
            except EngineError as exc:
                raise OptionError(f"--engine {args.engine!r}: {exc}") from None
        else:
            start(None)
            results = run_in_process(cases, on_result=write)
    finally:
        if report is not None:
            report.close()
    console = Console(highlight=False, soft_wrap=True)
    groups: dict[tuple[str, str], dict[str, int]] = {}
    for r in results:
        for rule in r.rules:
            counts = groups.setdefault((r.edition, rule), {"pass": 0, "fail": 0, "skip": 0, "error": 0})
            counts[r.status] += 1
    table = Table(title=f"conformance: {args.engine or 'flip7ref (in-process)'}")
    for col in ("edition", "rule", "pass", "fail", "skip", "error"):
        table.add_column(col, justify="right" if col in ("pass", "fail", "skip", "error") else "left")
    for (edition, rule), counts in sorted(groups.items()):
        if args.failures_only and not (counts["fail"] or counts["error"]):
            continue
        table.add_row(edition, rule, *(str(counts[k]) for k in ("pass", "fail", "skip", "error")))
    console.print(table)
    bad = [r for r in results if r.status in ("fail", "error")]
    by_id = {c["id"]: c for c in cases}
    for r in bad:
        case = by_id[r.case_id]
        title = f"{r.case_id} {case['title']}  (rules {', '.join(r.rules)}; source {r.source})"
        console.print(f"[bold]{r.status.upper()}[/bold] {title}")
        for line in r.diffs or (r.message,):
            console.print(f"    {line}", markup=False)
    totals = {k: sum(1 for r in results if r.status == k) for k in ("pass", "fail", "skip", "error")}
    summary = f"{totals['pass']} passed, {totals['fail']} failed, {totals['skip']} skipped, {totals['error']} errored"
    console.print(f"{len(results)} case{'s' if len(results) != 1 else ''}: {summary}")
    return 1 if bad else 0


def cmd_replay(args: argparse.Namespace) -> int:
    from ..replay import load_transcript, replay

    result = replay(load_transcript(args.file))
    if args.json:
        print(json.dumps({
            "agrees": result.agrees, "steps": result.steps, "divergence": result.divergence, "message": result.message,
            "rules": list(result.rules), "totals": list(result.totals), "winners": list(result.winners),
        }, sort_keys=True))  # fmt: skip
    elif result.agrees:
        won = f"; winners {', '.join(f'seat {w}' for w in result.winners)}" if result.winners else " (game not finished)"
        print(f"agrees: {result.steps} steps replayed; totals {', '.join(map(str, result.totals))}{won}")
    else:
        i = result.divergence
        where = f"step {i + 1} (steps[{i}] of the transcript)" if i is not None else "the end"
        print(f"diverges at {where}: {result.message}")
        if result.rules:
            print(f"rules involved: {', '.join(result.rules)}")
        print(f"replayed {result.steps} steps; reference totals then {', '.join(map(str, result.totals))}")
    return 0 if result.agrees else 1


def cmd_conformance_serve(args: argparse.Namespace) -> int:
    from ..harness import serve

    return serve()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``replay`` and ``conformance`` (``run``, ``serve``) to the ``flip7ref`` parser."""
    p = sub.add_parser(
        "replay",
        help="replay a game transcript and report agreement or the first divergence",
        description="Replay a transcript exported by an engine (spec/schema/transcript.schema.json) in the reference. "
        "Prints agreement with the final scores (exit 0), or the first step where the reference disagrees, what it "
        "expected there and the rule ids involved (exit 1).",
    )
    p.add_argument("file", help="the transcript, a JSON file")
    p.add_argument("--json", action="store_true", help="print the verdict as a JSON object")
    p.set_defaults(func=cmd_replay)

    conf = sub.add_parser(
        "conformance",
        help="run the conformance suite, or serve the engine protocol",
        description="Run the conformance suite against the reference or a foreign engine, or make the reference "
        "speak the engine protocol (conformance/PROTOCOL.md).",
    )
    conf_sub = conf.add_subparsers(dest="conformance_command", required=True, metavar="SUBCOMMAND")
    p = conf_sub.add_parser(
        "run",
        help="run the suite (in-process, or against --engine)",
        description="Run conformance cases and print a pass/fail table by edition and rule, then the first "
        "difference of each failure. Exit status 1 when a case failed or errored.",
    )
    p.add_argument("--engine", metavar="COMMAND", help="command starting an engine that speaks the protocol")
    p.add_argument("--edition", action="append", help="only cases of this edition (repeatable)")
    p.add_argument("--case", action="append", metavar="ID", help="only this case id (repeatable)")
    p.add_argument("--rule", action="append", metavar="ID", help="only cases checking this rule id (repeatable)")
    p.add_argument("--cases", action="append", metavar="PATH", help="case files or folders (default: the shipped suite)")
    p.add_argument("--report", metavar="FILE", help="also write a JSON-lines report (a header, then one line per case)")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds an engine may take per case (default %(default)s)")
    p.add_argument("--failures-only", action="store_true", help="list only rules with failures in the table")
    p.set_defaults(func=cmd_conformance_run)
    p = conf_sub.add_parser(
        "serve",
        help="speak the engine protocol on stdin/stdout as the reference",
        description="Read protocol requests on stdin and answer on stdout, as the reference engine.",
    )
    p.set_defaults(func=cmd_conformance_serve)
