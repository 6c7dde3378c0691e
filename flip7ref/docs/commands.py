"""The ``docs``, ``rules`` and ``coverage`` commands (`register` adds them to the ``flip7ref`` parser)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from flip7ref.checking.case_index import case_index
from flip7ref.checking.conformance import Case
from flip7ref.cli._common import add_json, add_lang, stdout_console
from flip7ref.core.errors import OptionError, WriteError
from flip7ref.core.spec import Edition, Rule
from flip7ref.docs.citations import coverage, default_tests_dir
from flip7ref.docs.index import (
    CONFIDENCE,
    cards_for_rule,
    cases_by_rule,
    disputes_touching,
    editions_named,
    find_rule,
    options_touching,
)
from flip7ref.docs.render import generate, option_values
from flip7ref.docs.search import RuleMatch, search_rules
from flip7ref.docs.writing import default_docs_dir, stale_files, write_docs


def _shorten(names: Sequence[str], full: bool, limit: int = 3) -> str:
    if full or len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f", … (+{len(names) - limit})"


def cmd_docs(args: argparse.Namespace) -> int:
    """``flip7ref docs``: write the generated docs, or with ``--check`` report stale ones (exit 1)."""
    out = _out_folder(args.out)
    docs = generate()
    if args.json:
        stale = _stale(out, docs) if args.check else []
        written = [] if args.check else _write(out, docs)
        print(json.dumps({"out": str(out), "files": list(docs), "check": args.check, "stale": stale, "written": written},
                         sort_keys=True))  # fmt: skip
        return 1 if stale else 0
    if args.check:
        stale = _stale(out, docs)
        if stale:
            missing = [name for name in stale if not (out / name).is_file()]
            differ = [name for name in stale if name not in missing]
            parts = [f"missing under {out}: {', '.join(missing)}"] if missing else []
            parts += [f"out of date under {out}: {', '.join(differ)}"] if differ else []
            print(f"{'; '.join(parts)} (run 'flip7ref docs' to regenerate)")
            return 1
        print(f"up to date: {', '.join(docs)} under {out}")
        return 0
    changed = _write(out, docs)
    print(f"wrote {', '.join(changed)} under {out}" if changed else f"already up to date under {out}")
    return 0


def _out_folder(text: str | None) -> Path:
    """The folder of ``docs --out`` (the default one without it).

    Raises:
        OptionError: an empty path, or a path that is a file (the message names it).
    """
    if text is None:
        return default_docs_dir()
    if not text.strip():
        raise OptionError("--out: expected the path of a folder, got an empty one")
    out = Path(text)
    if out.exists() and not out.is_dir():
        raise OptionError(f"--out {out}: expected a folder, but this is a file")
    return out


def _write(out: Path, docs: dict[str, str]) -> list[str]:
    """`write_docs`, an OSError turned into an OptionError naming the folder and the reason."""
    try:
        return write_docs(out, docs)
    except WriteError:  # names the file that could not be written
        raise
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        raise OptionError(f"--out {out}: cannot write the docs there{where}: {exc.strerror or exc}") from None


def _stale(out: Path, docs: dict[str, str]) -> list[str]:
    """`stale_files`, an OSError turned into an OptionError naming the folder and the reason."""
    try:
        return stale_files(out, docs)
    except OSError as exc:
        raise OptionError(f"--out {out}: cannot read the docs there: {exc.strerror or exc}") from None


def rule_data(edition: Edition, rule: Rule, lang: str, cases: Sequence[Case]) -> dict[str, object]:
    """What ``flip7ref rules ID --json`` prints: the rule and everything touching it.

    Returns:
        ``{id, text, edition, topic, confidence, cards: [{id, name}], sources: [{key, title}],
        options: [{name, default, dispute, summary, readings}], disputes: [{id, status}],
        cases: [case ids]}`` (card names in ``lang``; ``cases`` sorted).
    """
    return {
        "id": rule.id, "text": rule.text, "edition": edition.id, "topic": rule.topic, "confidence": rule.confidence,
        "cards": [{"id": c.id, "name": c.name(lang)} for c in cards_for_rule(edition, rule.id)],
        "sources": [{"key": k, "title": (edition.sources.get(k) or {}).get("title")} for k in rule.sources],
        "options": [{"name": o.name, "default": o.default, "dispute": o.dispute, "summary": o.summary,
                     "readings": [r.name for r in o.readings]} for o in options_touching(edition, rule.id)],
        "disputes": [{"id": d, "status": edition.disputes[d].get("status")} for d in disputes_touching(edition, rule.id)],
        "cases": cases_by_rule(cases).get(rule.id, []),
    }  # fmt: skip


def _print_rule(edition: Edition, rule: Rule, lang: str, cases: Sequence[Case]) -> None:
    print(f"{rule.id}  {rule.text}")
    confidence = CONFIDENCE.get(rule.confidence, rule.confidence)
    print(f"edition     {edition.id}; topic {rule.topic or 'none'}; confidence {rule.confidence} ({confidence})")
    cards = cards_for_rule(edition, rule.id)
    if cards:
        print(f"cards ({lang})  " + ", ".join(f"{c.name(lang)} ({c.id})" for c in cards))
    print("sources")
    for key in rule.sources:
        title = (edition.sources.get(key) or {}).get("title", "not in the source register")
        print(f"    {key}: {title}")
    options = options_touching(edition, rule.id)
    print("options" + ("" if options else "     none"))
    for o in options:
        dispute = f"; dispute {o.dispute}" if o.dispute else ""
        print(f"    {o.name} (default {o.default}{dispute}): {o.summary}")
        for r in o.readings:
            print(f"      - {r.name}{' (default)' if r.name == str(o.default) else ''}: {r.summary}")
        if o.integer is not None:
            print(f"      - or {option_values(o)}")
    disputes = disputes_touching(edition, rule.id)
    if disputes:
        print("disputes    " + ", ".join(f"{d} ({edition.disputes[d].get('status', '')})" for d in disputes))
    checked = cases_by_rule(cases).get(rule.id, [])
    print(f"cases ({len(checked)})" + (f"  {', '.join(checked)}" if checked else "  none"))


def cmd_rules(args: argparse.Namespace) -> int:
    """``flip7ref rules``: list, show or search the rules."""
    lang = args.lang or "en"
    if args.id is not None:
        if args.search is not None:
            raise OptionError("give a rule id or --search, not both")
        pool = editions_named(args.edition) if args.edition else editions_named("all")
        edition, rule = find_rule(args.id, pool)
        if args.json:
            print(json.dumps(rule_data(edition, rule, lang, case_index()), sort_keys=True, default=str))
        else:
            _print_rule(edition, rule, lang, case_index())
        return 0
    editions = editions_named(args.edition or ("all" if args.search is not None else "flip7"))
    if args.search is not None:
        matches = search_rules(editions, args.search, lang)
        if not matches and args.json:
            print(json.dumps({"rules": []}))
            return 1
        if not matches:
            where = ", ".join(e.id for e in editions)
            print(f"no rule of {where} matches {args.search!r}")
            return 1
    else:
        matches = [RuleMatch(e.id, e.rules[rid], ()) for e in editions for rid in sorted(e.rules)]
    by_id = {e.id: e for e in editions}
    if args.json:
        print(json.dumps({"rules": [{
            "id": m.rule.id, "edition": m.edition, "text": m.rule.text, "matched_in": list(m.via),
            "cards": [{"id": c.id, "name": c.name(lang)} for c in cards_for_rule(by_id[m.edition], m.rule.id)],
        } for m in matches]}, sort_keys=True))  # fmt: skip
        return 0
    for m in matches:
        print(f"{m.rule.id}  {m.rule.text}")
        if m.via:
            print(f"        matched in: {', '.join(m.via)}")
        cards = cards_for_rule(by_id[m.edition], m.rule.id)
        if args.lang and cards:
            print(f"        cards ({lang}): {', '.join(c.name(lang) for c in cards)}")
    return 0


def cmd_coverage(args: argparse.Namespace) -> int:
    """``flip7ref coverage``: tests and cases citing each rule id; exit 1 when one has none."""
    from rich.table import Table

    editions = editions_named(args.edition)
    tests = Path(args.tests) if args.tests else default_tests_dir()
    if tests is not None and not tests.is_dir():
        raise OptionError(f"--tests {args.tests!r}: not a folder")
    rows, unknown = coverage(editions, tests)
    if args.json:
        print(json.dumps({
            "editions": [e.id for e in editions], "tests_read": tests is not None, "unknown": unknown,
            "uncovered": [r.rule for r in rows if not r.covered],
            "rules": [{"edition": r.edition, "rule": r.rule, "tests": list(r.tests), "cases": list(r.cases)} for r in rows],
        }, sort_keys=True))  # fmt: skip
        return 0 if all(r.covered for r in rows) else 1
    console = stdout_console(highlight=False)
    if not console.is_terminal:  # logs and pipes: wide enough for test names, not the 80-column fallback
        console = stdout_console(highlight=False, width=max(console.width, 160))
    table = Table(title="rule coverage: tests and conformance cases citing each rule id")
    for col in ("rule", "tests", "cases"):
        table.add_column(col, overflow="fold")
    for row in rows:
        mark = "" if row.covered else " [bold red]UNCOVERED[/]"
        tests_cell = f"{len(row.tests)}  {_shorten(row.tests, args.full)}" if tests is not None else "-"
        table.add_row(f"{row.rule}{mark}", tests_cell, f"{len(row.cases)}  {_shorten(row.cases, args.full)}".rstrip())
    console.print(table)
    if tests is None:
        console.print("no tests/ folder found (an installed package?): counting conformance cases only; "
                      "--tests DIR reads a checkout's tests/ (flip7ref coverage --tests tests)")
    if unknown:
        console.print(f"cited but defined by no table: {', '.join(unknown)}", markup=False)
    uncovered = [r.rule for r in rows if not r.covered]
    with_tests = sum(1 for r in rows if r.tests)
    with_cases = sum(1 for r in rows if r.cases)
    tested = f"{with_tests} cited by tests, " if tests is not None else ""
    summary = f"{len(rows)} rules of {', '.join(e.id for e in editions)}: {tested}{with_cases} cited by cases"
    if uncovered:
        console.print(f"{summary}; cited by nothing: {', '.join(uncovered)}", markup=False)
        return 1
    console.print(f"{summary}; every rule is covered", markup=False)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``docs``, ``rules`` and ``coverage`` subcommands to the ``flip7ref`` parser.

    Args:
        sub: the subparsers object of the top-level parser; each added parser sets
            ``func`` to a function taking the parsed namespace and returning an exit status.
    """
    p = sub.add_parser(
        "docs",
        help="generate the rules reference and the disputes page (docs/)",
        description="Generate rules/<edition>.md for every edition and disputes.md from the edition tables and the "
        "conformance suite. --check compares instead of writing and exits 1 naming the out-of-date files. Only files "
        "that 'flip7ref docs' wrote (a marker on their first line) are overwritten or deleted: a folder holding one "
        "without it is refused (exit 2) before anything is written.",
    )
    p.add_argument("--out", metavar="DIR", help="the docs folder (default: docs/ of the source checkout, else ./docs)")
    p.add_argument("--check", action="store_true", help="do not write; exit 1 when a generated file is out of date")
    add_json(p, "one JSON object: the folder, the generated files, and those stale (--check) or written")
    p.set_defaults(func=cmd_docs)

    p = sub.add_parser(
        "rules",
        help="list, show or search the rules",
        description="Without arguments, list the rules of an edition (ID  text). With a rule id (of any edition), show "
        "the rule with its sources, the options touching it and the conformance cases checking it. --search finds "
        "rules of every edition (or --edition's) by words in their text, the options touching them and card names in "
        "--lang.",
    )
    p.add_argument("id", nargs="?", metavar="ID", help="a rule id, e.g. F7-073 or V-045")
    p.add_argument(
        "--edition",
        help="edition id, 'all', or a .yaml table (default: flip7 for the list; every edition for --search and an ID)",
    )
    p.add_argument(
        "--search",
        metavar="WORDS",
        help="words that must all occur, in any order (case, accents and endings ignored: 'freeze myself' finds "
        "'freeze themselves')",
    )
    add_lang(p, default=None)
    add_json(p, "the rule (with an ID) or the rules listed or found as one JSON object")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser(
        "coverage",
        help="the tests and conformance cases citing each rule id",
        description="For each rule id, list the tests (@pytest.mark.rules markers in tests/) and conformance cases "
        "citing it. Exit 1 when a rule id is cited by neither. Without a tests/ folder, cases alone count.",
    )
    p.add_argument("--edition", default="all", help="edition id, 'all' or a .yaml table (default %(default)s)")
    p.add_argument("--tests", metavar="DIR", help="the test folder (default: tests/ of the source checkout)")
    p.add_argument("--full", action="store_true", help="list every citing test and case, not the first three")
    add_json(p, "one JSON object: every rule with all its citing tests and cases, the uncovered and unknown ids")
    p.set_defaults(func=cmd_coverage)
