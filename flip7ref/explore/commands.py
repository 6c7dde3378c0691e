"""The ``dispute`` and ``explain`` commands (`register` adds them to the ``flip7ref`` parser)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from .catalogue import attached_cases, disputes, find_dispute
from .runs import find_case, play_readings
from .side_by_side import reading_table
from .steps import explain_case, explain_transcript

if TYPE_CHECKING:  # rich is imported by the commands that print with it (a fast start for the others)
    from rich.console import Console


def _console() -> Console:
    from rich.console import Console

    width = None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 140
    return Console(highlight=False, width=width, soft_wrap=False)


def cmd_dispute(args: argparse.Namespace) -> int:
    """``flip7ref dispute [ID]``: list the disputes, or show one and play its cases.

    Returns:
        0.

    Raises:
        OptionError: unknown dispute id or edition (exit status 2).
    """
    from rich.table import Table
    from rich.text import Text

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
        table, differing = reading_table(d, case, play_readings(d, case))
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
    if args.case:
        return explain_case(find_case(args.case), args.lang)
    return explain_transcript(args.transcript, args.lang)


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
    p.add_argument(
        "--lang", default="en", choices=["en", "nl", "de", "fr", "no"], help="language of card names (default %(default)s)"
    )
    p.set_defaults(func=cmd_explain)
