"""The ``dispute`` and ``explain`` commands (`register` adds them to the ``flip7ref`` parser)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from flip7ref.checking.catalogue import Dispute, attached_cases, disputes, find_dispute
from flip7ref.checking.runs import Run, find_case, play_readings, run_case
from flip7ref.cli._common import add_json, add_lang, stdout_console
from flip7ref.explore.side_by_side import reading_table, side_by_side
from flip7ref.explore.steps import Step, explain_case, explain_transcript, walk

if TYPE_CHECKING:  # rich is imported by the commands that print with it (a fast start for the others)
    from rich.console import Console


def _console() -> Console:
    width = None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 140
    return stdout_console(highlight=False, width=width, soft_wrap=False)


def _dispute_data(d: Dispute, lang: str) -> dict[str, Any]:
    """``dispute ID --json``: the dispute, its readings, and each attached case played under every modelled reading."""
    data: dict[str, Any] = {
        "id": d.id, "edition": d.edition.id, "question": d.question, "status": d.status, "option": d.option,
        "note": d.note, "rules": list(d.rules),
        "readings": [{"name": r.name, "summary": r.summary, "holders": list(r.holders), "value": r.value,
                      "default": r.default} for r in d.readings],
        "sources": {k: (d.edition.sources.get(k) or {}).get("title") for r in d.readings for k in r.holders},
        "cases": [],
    }  # fmt: skip
    if d.option is None:
        return data
    for case in attached_cases(d):
        played = play_readings(d, case)
        _, differing = side_by_side(played, lang)
        data["cases"].append({"id": case["id"], "title": case["title"], "differing": differing, "runs": [
            {"value": r.value, "reading": r.name, "stopped": run.stopped, "observed": dict(run.observed),
             "holds": None if run.diffs is None else not run.diffs} for r, run in played]})  # fmt: skip
    return data


def cmd_dispute(args: argparse.Namespace) -> int:
    """``flip7ref dispute [ID]``: list the disputes, or show one and play its cases.

    Returns:
        0.

    Raises:
        OptionError: unknown dispute id or edition (exit status 2).
    """
    from rich.table import Table
    from rich.text import Text

    if args.json:
        if args.id:
            print(json.dumps(_dispute_data(find_dispute(args.id, args.edition), args.lang), sort_keys=True, default=str))
        else:
            rows = [{"id": d.id, "edition": d.edition.id, "status": d.status, "option": d.option, "question": d.question}
                    for d in disputes(args.edition)]  # fmt: skip
            print(json.dumps({"disputes": rows}, sort_keys=True))
        return 0
    console = _console()
    if not args.id:
        found = disputes(args.edition)
        for edition_id in dict.fromkeys(d.edition.id for d in found):
            group = [d for d in found if d.edition.id == edition_id]
            table = Table(title=Text(f"{group[0].edition.title}: disputes"), title_justify="left")
            for col in ("id", "status", "option", "question"):
                table.add_column(col, overflow="fold", no_wrap=col != "question")
            for d in group:
                table.add_row(d.id, d.status, d.option or "—", Text(d.question))
            console.print(table)
        print("'flip7ref dispute ID' shows a dispute's readings and plays its conformance cases under each.")
        return 0
    d = find_dispute(args.id, args.edition)
    print(f"{d.id} ({d.edition.title}): {d.question}")
    print(f"status: {d.status}; option: {d.option or 'none'}; rules: {', '.join(d.rules) or 'none'}")
    print()
    print("Readings:")
    for r in d.readings:
        if d.option is None:
            how = ""
        elif r.value is None:
            how = "  [not modelled: not played]"
        else:
            how = f"  [{d.option}={r.value}]"
        mark = " (default)" if r.default else ""
        print(f"  {r.name}{mark}{how}: {r.summary}")
        print(f"      held by: {', '.join(r.holders) or 'no source'}")
    print()
    holders = list(dict.fromkeys(h for r in d.readings for h in r.holders))
    if holders:
        print("Sources:")
        for key in holders:
            src = d.edition.sources.get(key) or {}
            kind = f" ({src['kind']})" if src.get("kind") else ""
            print(f"  {key}{kind}: {src.get('title', 'not in the source register')}")
        print()
    if d.option is None:
        print(f"{d.status}: {d.note}")
        default = next((r.name for r in d.readings if r.default), None)
        if d.status == "settled" and default is not None:
            print(f"No option models this dispute, so there is nothing to play: the engine follows reading {default}.")
        elif d.status == "no-play-change":
            print("Its readings play the same game (see the note), so there is nothing to play.")
        else:
            print("No option models this dispute, so there is nothing to play.")
        return 0
    print(f"Note: {d.note}")
    cases = attached_cases(d)
    if not cases:
        print(f"No conformance case is attached to {d.id}.")
        return 0
    print(f"{len(cases)} attached case{'s' if len(cases) != 1 else ''}, each played under every modelled reading:")
    for case in cases:
        table, differing = reading_table(d, case, play_readings(d, case), args.lang)
        console.print()
        console.print(table)
        if differing:
            print(f"{case['id']}: the readings differ in {', '.join(differing)}.")
        else:
            print(f"{case['id']}: the same outcome under every reading.")
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    """``flip7ref explain --case ID | --transcript FILE``; see `explain_case`, `explain_transcript`.

    Returns:
        0, or 1 when the case or transcript cannot be played to its end.

    Raises:
        OptionError: unknown case id (exit status 2).
        SpecError: a malformed transcript (exit status 2).
    """
    if args.json:
        data = _explain_case_data(find_case(args.case), args.lang) if args.case else _explain_transcript_data(args)
        print(json.dumps(data, sort_keys=True, default=str))
        return 0 if data["played_to_end"] else 1
    if args.case:
        return explain_case(find_case(args.case), args.lang)
    return explain_transcript(args.transcript, args.lang)


def _steps_data(steps: Sequence[Step]) -> list[dict[str, Any]]:
    return [{"number": s.number, "move": s.move, "words": s.words, "rules": list(s.rules),
             "events": [{"text": text, "rules": list(rules)} for text, rules in s.events]} for s in steps]  # fmt: skip


def _explain_case_data(case: Any, lang: str) -> dict[str, Any]:
    """``explain --case ID --json``: the case, its steps (as `walk` gives them), and how play ended."""
    run: Run = run_case(case)
    return {
        "case": case["id"], "title": case["title"], "edition": case["edition"], "kind": case["kind"],
        "options": dict(case.get("options") or {}), "rules": list(case["rules"]), "source": case.get("source"),
        "steps": _steps_data(walk(run.states, run.moves, lang)), "stopped": run.stopped,
        "observed": dict(run.observed), "diffs": None if run.diffs is None else list(run.diffs),
        "played_to_end": run.stopped is None and bool(run.observed),
    }  # fmt: skip


def _explain_transcript_data(args: argparse.Namespace) -> dict[str, Any]:
    """``explain --transcript FILE --json``: the transcript's steps and the reference's verdict."""
    from flip7ref.checking.replay import load_transcript, replay

    data = load_transcript(args.transcript)
    result = replay(data, file=args.transcript)
    final = result.state
    return {
        "transcript": args.transcript, "engine": data.get("engine"), "edition": final.game.edition.id,
        "options": dict(data.get("options") or {}), "players": data["players"], "dealer": data["dealer"],
        "steps": _steps_data(walk(final.replay(), final.history(), args.lang)),
        "agrees": result.agrees, "divergence": result.divergence, "message": result.message,
        "divergence_rules": list(result.rules), "played_to_end": result.agrees,
    }  # fmt: skip


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``dispute`` and ``explain`` subcommands to the ``flip7ref`` parser.

    Args:
        sub: the parser's subcommand group (``add_subparsers`` result).
    """
    p = sub.add_parser(
        "dispute",
        help="list the disputed rules, or play one's cases under every reading",
        description="Without ID, list every dispute of the edition tables (id, status, option, question). With ID "
        "(e.g. D-F7-10), show its readings, who holds each and which option value selects it, then play every "
        "conformance case attached to it under every modelled reading and show the outcomes side by side.",
    )
    p.add_argument("id", nargs="?", help="a dispute id, e.g. D-F7-10 or D-V-03")
    p.add_argument("--edition", help="only this edition (id or .yaml table; default: every shipped edition)")
    add_lang(p)
    add_json(p, "the disputes (without ID) or the dispute with every attached case's runs as one JSON object")
    p.set_defaults(func=cmd_dispute)

    p = sub.add_parser(
        "explain",
        help="walk a conformance case or a transcript step by step, naming the rules",
        description="Play a conformance case (or replay a game transcript) and print every step in plain words, "
        "each event with the rule ids that decided it (the edition table's 'events' section). Exit status 1 when "
        "the case or transcript cannot be played to its end.",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--case", metavar="ID", help="a conformance case id, e.g. F7-C0100")
    which.add_argument("--transcript", metavar="FILE", help="a transcript file, e.g. from 'flip7ref trace --transcript'")
    add_lang(p)
    add_json(p, "one JSON object: the case or transcript, every step with its events and rule ids, how play ended")
    p.set_defaults(func=cmd_explain)
