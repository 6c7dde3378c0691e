"""The ``conformance run``, ``conformance serve`` and ``replay`` subcommands (for implementers)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flip7ref.checking.conformance import CaseResult
from flip7ref.checking.verdict import cut
from flip7ref.cli._common import Report, Terminated, add_json, open_report, sigterm_raises, stdout_console, write_json_line
from flip7ref.core.errors import OptionError


def _timeout(text: str) -> float:
    from flip7ref.checking.engine_process import check_timeout

    try:
        return check_timeout(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _max_faults(text: str) -> int:
    from flip7ref.checking.engine_process import check_max_faults

    try:
        return check_max_faults(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percentage from 0 to 100, got {text!r}") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"expected a percentage from 0 to 100, got {text!r}")
    return value


def coverage(results: list[CaseResult], not_run: Sequence[Mapping[str, Any]] = ()) -> dict[str, tuple[int, int]]:
    """Cases run (passed or failed, not skipped or errored) and total, per edition and ``all``;
    ``not_run`` (cases, never started: a run stopped after ``--max-faults``) count in the totals only."""
    out: dict[str, tuple[int, int]] = {}
    for edition, ran_it in [(r.edition, r.status in ("pass", "fail")) for r in results] + [
        (str(c["edition"]), False) for c in not_run
    ]:
        for key in (edition, "all"):
            ran, total = out.get(key, (0, 0))
            out[key] = (ran + ran_it, total + 1)
    return out


def rule_table(results: list[CaseResult]) -> dict[tuple[str, str], dict[str, int]]:
    """Counts by (edition, rule): failures and errors under their blamed rules, engine faults
    under `flip7ref.checking.suite.FAULT_ROW` (no rule blamed), passes and skips under the rules their cases cite."""
    from flip7ref.checking.suite import FAULT_ROW

    groups: dict[tuple[str, str], dict[str, int]] = {}
    for r in results:
        for rule in ((FAULT_ROW,) if r.fault else r.blame or r.rules) if r.status in ("fail", "error") else r.rules:
            counts = groups.setdefault((r.edition, rule), {"pass": 0, "fail": 0, "skip": 0, "error": 0})
            counts[r.status] += 1
    return groups


def _nothing_selected(loaded: Sequence[Mapping[str, Any]], args: argparse.Namespace) -> str:
    """Why ``--edition``/``--case``/``--rule`` select no case of ``loaded``: the first filter that
    matches no case on its own, else the combination."""
    editions = sorted({str(c["edition"]) for c in loaded})
    for edition in args.edition or ():
        if edition not in editions:
            return f"--edition {edition}: no case of that edition (the cases are of {', '.join(editions) or 'none'})"
    ids = {c["id"] for c in loaded}
    for case_id in args.case or ():
        if case_id not in ids:
            return f"--case {case_id}: no case has that id (ids look like F7-C0100 or V-C0045)"
    cited = {rule for c in loaded for rule in c["rules"]}
    for rule in args.rule or ():
        if rule not in cited:
            return f"--rule {rule}: no case cites that rule id ('flip7ref coverage' lists the cases citing each rule)"
    return "no case matches the given --edition/--case/--rule filters together"


def cmd_conformance_run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rich.table import Table

    from flip7ref import __version__
    from flip7ref.checking.conformance import SUITE_VERSION, load_cases, select
    from flip7ref.checking.engine_process import EngineError
    from flip7ref.checking.harness import run_engine, run_in_process

    if args.engine is not None and not args.engine.strip():
        raise OptionError("--engine: the command is empty (leave --engine out to run the reference in-process)")
    if args.report and not Path(args.report).resolve().parent.is_dir():
        raise OptionError(f"--report {args.report}: the folder {Path(args.report).resolve().parent} does not exist")
    loaded = load_cases(args.cases or None)
    cases = select(loaded, editions=args.edition, ids=args.case, rules=args.rule)
    if not cases:
        raise OptionError(_nothing_selected(loaded, args))
    engine_name = args.engine or "flip7ref (in-process)"
    header: dict[str, object] = {
        "report": 1, "engine": engine_name, "cases": len(cases), "suite": SUITE_VERSION, "harness": __version__,
    }  # fmt: skip
    report: list[Report] = []  # opened once the engine has started: a failed start leaves no file

    def write(result: CaseResult) -> None:
        if report:
            write_json_line(report[0], result.to_dict(), flush=True)

    def start(impl: dict[str, object] | None) -> None:
        if args.report:
            report.append(open_report("--report", args.report))  # closed below
            protocol = impl.pop("protocol", None) if impl else None
            write_json_line(report[0], {**header, "protocol": protocol, "implementation": impl}, flush=True)

    try:
        with sigterm_raises():
            if args.engine:
                try:
                    _, results = run_engine(
                        args.engine, cases, timeout=args.timeout or 10.0, version=args.protocol, on_start=start,
                        on_result=write, startup_timeout=args.timeout,  # given: the handshake's limit too
                        max_faults=args.max_faults,
                    )  # fmt: skip
                except EngineError as exc:
                    raise OptionError(f"--engine {cut(args.engine, 200)!r}: {exc}") from None
            else:
                start(None)
                results = run_in_process(cases, on_result=write)
    except Terminated:
        print("flip7ref: terminated; the engine was stopped and the results so far are in the report", file=sys.stderr)
        return 143
    finally:
        for stream in report:
            stream.close()
    not_run = len(cases) - len(results)  # stopped after --max-faults engine faults in a row
    stopped = (
        f"stopped after {args.max_faults} engine fault{'s' if args.max_faults != 1 else ''} in a row: "
        f"{not_run} case{'s' if not_run != 1 else ''} not run"
    )
    bad = [r for r in results if r.status in ("fail", "error")]
    cov = coverage(results, cases[len(results) :])
    ran, total = cov.get("all", (0, 0))
    share = 100 * ran / total if total else 0.0
    below = args.min_coverage is not None and share < args.min_coverage
    status = 1 if ran == 0 or below or bad or not_run else 0
    other = sum(1 for r in results if r.status == "pass" and r.other_reading)
    if args.json:
        totals = {k: sum(1 for r in results if r.status == k) for k in ("pass", "fail", "skip", "error")}
        totals["pass_other_reading"] = other
        print(json.dumps({
            **header, "not_run": not_run, "stopped": stopped if not_run else None, "totals": totals,
            "coverage": {ed: {"ran": r, "cases": t} for ed, (r, t) in sorted(cov.items())},
            "passed": status == 0, "results": [r.to_dict() for r in results],
        }, sort_keys=True))  # fmt: skip
        return status
    console = stdout_console(highlight=False, soft_wrap=True)
    table = Table(title=f"conformance: {cut(engine_name, 100)} (failures counted under their blamed rules)")
    for col in ("edition", "rule", "pass", "fail", "skip", "error"):
        table.add_column(col, justify="right" if col in ("pass", "fail", "skip", "error") else "left")
    for (edition, rule), counts in sorted(rule_table(results).items()):
        if args.failures_only and not (counts["fail"] or counts["error"]):
            continue
        table.add_row(edition, rule, *(str(counts[k]) for k in ("pass", "fail", "skip", "error")))
    console.print(table)
    by_id = {c["id"]: c for c in cases}
    for r in bad:
        case = by_id[r.case_id]
        title = f"{r.case_id} {case['title']}  (rules cited {', '.join(r.rules)}; source {r.source})"
        console.print(f"[bold]{r.status.upper()}[/bold] {title}", markup=True)
        for n, rule in enumerate(r.blame):
            why = f": {r.reasons[n]}" if n < len(r.reasons) else ""
            console.print(f"    {'blamed on' if n == 0 else 'or'} {rule}{why}", markup=False)
        for line in r.diffs or (r.message,):
            console.print(f"    {line}", markup=False)
    if not args.failures_only:
        for r in results:
            if r.status == "pass" and r.other_reading:
                console.print(f"PASS (other reading) {r.case_id}: {r.other_reading}", markup=False)
    totals = {k: sum(1 for r in results if r.status == k) for k in ("pass", "fail", "skip", "error")}
    passed = f"{totals['pass'] - other} passed" + (f", {other} passed under another reading than the case pins" if other else "")
    faults = sum(1 for r in results if r.fault)
    shown = f", {faults} of them {'an engine fault' if faults == 1 else 'engine faults'} (no rule blamed)" if faults else ""
    summary = f"{passed}, {totals['fail']} failed, {totals['skip']} skipped, {totals['error']} errored{shown}"
    console.print(f"{len(results)} case{'s' if len(results) != 1 else ''}: {summary}", markup=False)
    if not_run:
        console.print(stopped, markup=False)
    per = ", ".join(f"{ed} {r}/{t}" for ed, (r, t) in sorted(cov.items()) if ed != "all")
    console.print(f"coverage: {ran} of {total} cases run ({share:.1f}%; {per})", markup=False)
    if ran == 0:
        console.print("no case ran: nothing was checked, so the run does not pass", markup=False)
        return 1
    if below:
        console.print(f"coverage {share:.1f}% is below --min-coverage {args.min_coverage:g}%", markup=False)
    return status


def cmd_replay(args: argparse.Namespace) -> int:
    from flip7ref.checking.replay import load_transcript, replay

    result = replay(load_transcript(args.file), file=args.file)
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
            print(f"rules of the reference's event there: {', '.join(result.rules)}")
        print(f"replayed {result.steps} steps; reference totals then {', '.join(map(str, result.totals))}")
        print(f"hint: flip7ref explain --transcript {args.file} walks the game up to there, naming the rules of every event")
    return 0 if result.agrees else 1


def cmd_conformance_export(args: argparse.Namespace) -> int:
    from flip7ref.checking.conformance import load_located_cases
    from flip7ref.checking.suite import export_json
    from flip7ref.core.errors import SpecError

    located = load_located_cases(args.cases or None)
    if not located:  # an empty folder is a mistake, not an empty suite
        raise SpecError(", ".join(args.cases), "", "at least one case file (*.yaml) with cases to export (found none)")
    written = export_json(args.out, located=located)
    print(f"wrote {len(written)} files to {args.out}: {', '.join(p.name for p in written)}")
    return 0


def cmd_conformance_summary(args: argparse.Namespace) -> int:
    from pathlib import Path

    from flip7ref.checking.suite import badge, read_report, summary
    from flip7ref.core.textfiles import write_file_atomic

    header, results = read_report(args.report)
    print(summary(header, results), end="")
    if args.badge:
        target = Path(args.badge)
        if not target.resolve().parent.is_dir():
            raise OptionError(f"--badge {args.badge}: the folder {target.resolve().parent} does not exist")
        write_file_atomic(target, badge(results))
    return 0


def _positive(kind: type) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not value > 0 or value != value or value == float("inf"):
            what = "a whole number" if kind is int else "a number of seconds"
            raise argparse.ArgumentTypeError(f"expected {what} above 0, got {text!r}")
        return value

    return parse


def cmd_conformance_fuzz(args: argparse.Namespace) -> int:
    from flip7ref.cli.fuzz import cmd_fuzz

    return cmd_fuzz(args)


def cmd_conformance_serve(args: argparse.Namespace) -> int:
    from flip7ref.checking.harness import serve

    return serve()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``replay`` and ``conformance`` (``run``, ``serve``) to the ``flip7ref`` parser."""
    from flip7ref.checking.engine_process import MAX_FAULTS

    p = sub.add_parser(
        "replay",
        help="replay a game transcript and report agreement or the first divergence",
        description="Replay a transcript exported by an engine (spec/schema/transcript.schema.json) in the reference. "
        "Prints agreement with the final scores (exit 0), or the first step where the reference disagrees, what it "
        "expected there and the rule ids involved (exit 1).",
    )
    p.add_argument("file", help="the transcript, a JSON file")
    add_json(p, "the verdict as a JSON object")
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
        description="Run conformance cases and print a pass/fail table by edition and rule (failures under the rule "
        "ids of their first difference), each failure with what the reference expected, and the coverage. Against an "
        "engine, each case is checked under the readings the engine declares. Exit status 1 when a case failed or "
        "errored, when no case ran, when it stopped after --max-faults engine faults in a row, or below "
        "--min-coverage; 2 for a usage error or an engine that cannot start; 143 "
        "on SIGTERM and 130 on Ctrl-C (the engine is stopped; the report keeps the results so far).",
    )
    p.add_argument("--engine", metavar="COMMAND", help="command starting an engine that speaks the protocol")
    p.add_argument("--edition", action="append", help="only cases of this edition (repeatable)")
    p.add_argument("--case", action="append", metavar="ID", help="only this case id (repeatable)")
    p.add_argument("--rule", action="append", metavar="ID", help="only cases checking this rule id (repeatable)")
    p.add_argument("--cases", action="append", metavar="PATH", help="case files or folders (default: the shipped suite)")
    p.add_argument("--report", metavar="FILE", help="also write a JSON-lines report (a header, then one line per case)")
    p.add_argument(
        "--timeout",
        type=_timeout,
        default=None,
        help="seconds an engine may take per answer, the handshake's included, above 0 (default 10 per answer, "
        "30 for the handshake)",
    )
    p.add_argument("--protocol", type=int, choices=(1, 2), default=2, help="protocol version offered first (default 2; else 1)")
    p.add_argument(
        "--max-faults", type=_max_faults, default=MAX_FAULTS, metavar="N",
        help=f"stop starting cases after N engine faults in a row (hangs, exits, malformed lines; a case passed or "
        f"failed on the rules resets the count), counting the rest as not run (default {MAX_FAULTS}, as fuzz; 0: never stop)",
    )  # fmt: skip
    p.add_argument(
        "--min-coverage", type=_percent, metavar="P",
        help="exit 1 when fewer than P%% of the selected cases ran (passed or failed rather than skipped or errored)",
    )  # fmt: skip
    p.add_argument("--failures-only", action="store_true", help="list only rules with failures in the table")
    add_json(
        p,
        "one JSON object instead of the table: the report's header fields, totals, not_run (the cases not started "
        "after --max-faults engine faults in a row) and stopped (that line, or null), coverage per edition, "
        "passed (the exit status is 0) and every case's result as in --report",
    )
    p.set_defaults(func=cmd_conformance_run)
    p = conf_sub.add_parser(
        "export",
        help="write the suite as JSON files (with the schemas), for engines in any language",
        description="Write the conformance suite as JSON: one file per edition (each case with depends_on, the "
        "disputes its outcome depends on, found by playing it under every reading), and the case and protocol "
        "schemas. The shipped copy is conformance/json (regenerate it with --out conformance/json).",
    )
    p.add_argument("--format", choices=("json",), default="json", help="the export format (json)")
    p.add_argument("--out", required=True, metavar="DIR", help="the folder to write (created if missing)")
    p.add_argument("--cases", action="append", metavar="PATH", help="case files or folders (default: the shipped suite)")
    p.set_defaults(func=cmd_conformance_export)
    p = conf_sub.add_parser(
        "summary",
        help="print a Markdown summary of a run's JSON-lines report",
        description="Summarise a report of 'conformance run --report': engine, suite and protocol versions, declared "
        "readings, coverage, pass/fail/skip/error by edition and failures by blamed rule, in Markdown.",
    )
    p.add_argument("report", help="the JSON-lines report")
    p.add_argument("--badge", metavar="FILE.svg", help="also write an SVG badge (passed/total)")
    p.set_defaults(func=cmd_conformance_summary)
    p = conf_sub.add_parser(
        "fuzz",
        help="play random games in lockstep with an engine; shrink each distinct difference to a case file",
        description="Play random seeded games on the reference and, step by step, on --engine, under the readings "
        "the engine declares, with random strategies, player counts and editions it plays. Each distinct difference "
        "(first blamed rule, verdict, first key wrong) is a finding: its game is shrunk (fewer players, rounds, cards and "
        "actions) to a small case, written to --out in the suite's format with the reference's expected outcome and "
        "the blamed rule, and the command to rerun it is printed; the run goes on (--first: stops at the first). An "
        "engine that hangs, exits or prints a malformed or oversized line has an engine fault: no rule is blamed and "
        "no case written. The same --seed plays the same games. Exit status 0 when no difference was found, 1 when "
        "one was found and written (or when the engine skipped every game), 2 for a usage error or an engine that "
        "cannot start, 4 for engine faults and no difference, 130 on Ctrl-C and 143 on SIGTERM (the engine is "
        "stopped).",
    )
    p.add_argument("--engine", metavar="COMMAND", required=True, help="command starting an engine that speaks the protocol")
    p.add_argument("--games", type=_positive(int), metavar="N", help="stop after N games (default: only --seconds)")
    p.add_argument("--first", action="store_true", help="stop at the first difference (default: look for more until the end)")
    p.add_argument(
        "--seconds", type=_positive(float), default=60.0, metavar="T",
        help="stop looking after T seconds (default 60); shrinking a finding takes at most --shrink-seconds more",
    )  # fmt: skip
    p.add_argument(
        "--shrink-seconds", type=_positive(float), default=30.0, metavar="T",
        help="seconds to shrink each finding (default 30); the smallest case so far is written",
    )  # fmt: skip
    p.add_argument("--seed", default="0", help="the seed of the games, a whole number or a word (default 0)")
    p.add_argument("--out", default="fuzz-cases", metavar="DIR", help="folder for the case file (created; default fuzz-cases)")
    p.add_argument("--edition", action="append", help="only games of this edition (repeatable; default: all the engine plays)")
    p.add_argument("--timeout", type=_timeout, default=10.0, help="seconds an engine may take per answer, above 0 (default 10)")
    add_json(
        p,
        "one JSON object: the engine, seed, games, steps, seconds, the first difference found (its case file, "
        "first difference, blamed rules, the rerun command) or null, findings (rule, case, rerun each) and "
        "engine_faults",
    )
    p.set_defaults(func=cmd_conformance_fuzz)
    p = conf_sub.add_parser(
        "serve",
        help="speak the engine protocol on stdin/stdout as the reference",
        description="Read protocol requests on stdin and answer on stdout, as the reference engine.",
    )
    p.set_defaults(func=cmd_conformance_serve)
