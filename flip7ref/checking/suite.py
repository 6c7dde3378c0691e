"""The suite for implementers in every language: a JSON export, and summaries of reports.

`export_json` writes the conformance suite as JSON (one file per edition, with
each case's ``depends_on``: the disputes its outcome depends on, found by playing it
under every reading), beside the case and protocol schemas, so that an engine needs
only a JSON parser.  The shipped copy is ``conformance/json/`` (a test checks it is
current).  `summary` turns a JSON-lines report of ``flip7ref conformance run``
into Markdown; `badge` into an SVG badge.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from flip7ref.checking.conformance import SUITE_VERSION, Case, cases_dir, load_located_cases
from flip7ref.checking.verdict import dependencies
from flip7ref.core.errors import SpecError
from flip7ref.core.spec import edition_ids, spec_dir
from flip7ref.core.textfiles import AtomicWriter, read_text_file

SUITE_FORMAT = 1
"""The format number of the JSON export."""


def _jsonable(case: Case) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(case))  # YAML seat keys (ints) become strings
    return data


def export_documents(
    cases: Sequence[Case] | None = None, *, located: Sequence[tuple[str, int, Case]] | None = None
) -> dict[str, str]:
    """The JSON export as file name -> text (``flip7.json``, ``vengeance.json``,
    ``case.schema.json``, ``protocol.schema.json``).

    Args:
        cases: the cases to export (default: the shipped suite).
        located: instead of ``cases``, the cases with where each is (``(file, index,
            case)``, as `flip7ref.checking.conformance.load_located_cases` gives them), so that
            a refusal names the file.

    Raises:
        SpecError: a malformed case file, no case at all, or a case the reference cannot
            play (`flip7ref.checking.case_faults.check_cases`: the file, the case and the field).
    """
    from flip7ref.checking.case_faults import check_cases

    if located is None:
        located = load_located_cases() if cases is None else [("the cases given", i, c) for i, c in enumerate(cases)]
    if not located:
        raise SpecError("the cases given", "", "at least one case to export (found none)")
    check_cases(located)
    chosen = [case for _, _, case in located]
    out: dict[str, str] = {}
    for edition in edition_ids():
        mine = [case for case in chosen if case["edition"] == edition]
        docs = []
        for case in mine:
            doc = _jsonable(case)
            doc["depends_on"] = dependencies(case)
            docs.append(doc)
        data = {"format": SUITE_FORMAT, "suite": SUITE_VERSION, "edition": edition, "cases": docs}
        out[f"{edition}.json"] = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    for name in ("case", "protocol"):
        out[f"{name}.schema.json"] = (spec_dir() / "schema" / f"{name}.schema.json").read_text(encoding="utf-8")
    return out


def export_json(
    out: str | Path, cases: Sequence[Case] | None = None, *, located: Sequence[tuple[str, int, Case]] | None = None
) -> list[Path]:
    """Write the JSON export into folder ``out`` (created if missing); returns the files written.

    Every document is computed (and every case checked, see `export_documents`) before
    the first file is written, and each file is written to a temporary file in ``out``
    and then renamed over its name: a refused export writes nothing.

    Raises:
        SpecError: a malformed case file, no case, or a case the reference cannot play.
        WriteError: a file cannot be written (naming it; nothing is renamed then).
        OSError: the folder cannot be made.
    """
    documents = export_documents(cases, located=located)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    staged: list[AtomicWriter] = []
    try:
        for name, text in documents.items():
            staged.append(AtomicWriter(folder / name))
            staged[-1].write(text)
            staged[-1].ready()
        for writer in staged:
            writer.commit()
    finally:
        for writer in staged:
            writer.discard()  # what was not renamed (nothing, when all went well)
    return [writer.path for writer in staged]


def shipped_export() -> Path:
    """The folder of the shipped JSON export (``conformance/json``)."""
    return cases_dir().parent / "json"


# --------------------------------------------------------------------------- reports


def read_report(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Read a JSON-lines report: its header and its result lines.

    Raises:
        SpecError: missing file, a line that is not JSON, no header line, a header whose engine
            description is not an object with lists of readings, or a result whose status is not
            one of `STATUSES` or whose ``blame`` or ``rules`` is not a list of rule ids (file,
            line, field, expectation).
    """
    p = Path(path)
    text = read_text_file(p, "report file").replace("\r\n", "\n")  # a named pipe or a folder: refused unread
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (json.JSONDecodeError, RecursionError, ValueError):
            raise SpecError(str(p), f"line {number}", "a JSON object") from None
        if not isinstance(value, dict):
            raise SpecError(str(p), f"line {number}", "a JSON object")
        rows.append(value)
    if not rows or "report" not in rows[0]:
        raise SpecError(str(p), "line 1", "the report header (a line with 'report')")
    _check_header(p, rows[0])
    for number, row in enumerate(rows[1:], 2):
        _check_result(p, number, row)
    return rows[0], rows[1:]


def _check_header(p: Path, header: Mapping[str, Any]) -> None:
    """The header's engine description has the shape `summary` reads (a report edited by hand, or
    from elsewhere, once ended it in a ``TypeError``)."""
    impl = header.get("implementation")
    if impl is None:
        return
    if not isinstance(impl, dict):
        raise SpecError(str(p), "line 1 /implementation", "the engine's description (an object) or null")
    editions = impl.get("editions") or {}
    if not isinstance(editions, dict):
        raise SpecError(str(p), "line 1 /implementation/editions", "an object of editions")
    for edition, entry in editions.items():
        options = (entry.get("options") or {}) if isinstance(entry, dict) else ({} if entry is None else None)
        if not isinstance(options, dict):
            raise SpecError(str(p), f"line 1 /implementation/editions/{edition}", "an object with the options declared")
        for name, readings in options.items():
            if not isinstance(readings, list):
                raise SpecError(str(p), f"line 1 /implementation/editions/{edition}/options/{name}", "a list of readings")


def _check_result(p: Path, number: int, row: Mapping[str, Any]) -> None:
    """A result line has a status of `STATUSES` and lists of rule ids (a report edited by hand, or
    from elsewhere)."""
    if row.get("status") not in STATUSES:
        raise SpecError(str(p), f"line {number} /status", "one of " + ", ".join(STATUSES))
    for key in ("blame", "rules"):
        value = row.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise SpecError(str(p), f"line {number} /{key}", "a list of rule ids")


STATUSES = ("pass", "fail", "skip", "error")

FAULT_ROW = "(engine fault)"
"""Where a run's tables count engine faults (a report line's ``engine_fault``,
`flip7ref.checking.conformance.CaseResult.fault`): no rule is blamed for them."""


def summary(header: Mapping[str, Any], results: Sequence[Mapping[str, Any]]) -> str:
    """A Markdown summary of a report: engine, versions, declared readings, coverage, the cases
    selected (the header's ``cases``) but not in the report, pass/fail/skip/error by edition and
    by blamed rule."""
    impl = header.get("implementation") or {}
    name = impl.get("name") or header.get("engine") or "?"
    lines = [f"# Conformance: {name} {impl.get('version', '')}".rstrip(), ""]
    lines.append(f"- suite: flip7ref {header.get('suite', '?')}; protocol: {header.get('protocol') or 'in-process'}")
    for edition, entry in sorted((impl.get("editions") or {}).items()):
        options = (entry or {}).get("options") or {}
        shown = "; ".join(f"{k}: {', '.join(map(str, v))}" for k, v in sorted(options.items())) or "table defaults"
        lines.append(f"- {edition} readings declared: {shown}")
    ran = sum(1 for r in results if r.get("status") in ("pass", "fail"))
    share = 100 * ran / len(results) if results else 0.0
    lines.append(f"- coverage: {ran} of {len(results)} cases run ({share:.1f}%)")
    selected = header.get("cases")
    if isinstance(selected, int) and not isinstance(selected, bool) and selected > len(results):
        lines.append(
            f"- not in the report: {selected - len(results)} of the {selected} cases selected (the run stopped "
            "early: after --max-faults engine faults in a row, or it was interrupted)"
        )
    other = [r for r in results if r.get("status") == "pass" and r.get("other_reading")]
    if other:
        lines.append(
            f"- {len(other)} of the passes are of cases pinning another reading than the engine's "
            "(checked under the engine's reading; they say nothing about the pinned one)"
        )
    lines.append("")
    lines += ["| edition | pass | pass (other reading) | fail | skip | error |", "|---|---:|---:|---:|---:|---:|"]
    by_edition: dict[str, Counter[str]] = {}
    for r in results:
        status = str(r.get("status"))
        if status == "pass" and r.get("other_reading"):
            status = "pass-other"
        by_edition.setdefault(str(r.get("edition")), Counter())[status] += 1
    for edition, counts in sorted(by_edition.items()):
        columns = ("pass", "pass-other", "fail", "skip", "error")
        lines.append(f"| {edition} | " + " | ".join(str(counts[s]) for s in columns) + " |")
    blamed: Counter[tuple[str, str]] = Counter()
    for r in results:
        if r.get("status") in ("fail", "error"):
            for rule in [FAULT_ROW] if r.get("engine_fault") else r.get("blame") or r.get("rules") or ["?"]:
                blamed[(str(r.get("edition")), str(rule))] += 1
    if blamed:
        lines += ["", "| edition | blamed rule | failures and errors |", "|---|---|---:|"]
        for (edition, rule), n in sorted(blamed.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"| {edition} | {rule} | {n} |")
    skipped = Counter(" ".join(str(r.get("message", "")).split()) for r in results if r.get("status") == "skip")
    if skipped:
        lines += ["", "| skip reason | cases |", "|---|---:|"]
        lines += [f"| {reason.replace('|', '/')} | {n} |" for reason, n in skipped.most_common(10)]
        if len(skipped) > 10:
            rest = sum(n for _, n in skipped.most_common()[10:])
            lines.append(f"| (another {len(skipped) - 10} reasons) | {rest} |")
    return "\n".join(lines) + "\n"


def badge(results: Sequence[Mapping[str, Any]]) -> str:
    """An SVG badge: ``flip7ref conformance | P/T passed`` (green when every case ran and passed)."""
    passed = sum(1 for r in results if r.get("status") == "pass")
    total = len(results)
    colour = "#4c1" if total and passed == total else "#dfb317" if passed else "#e05d44"
    left, right = "flip7ref conformance", f"{passed}/{total} passed"
    lw, rw = 7 * len(left) + 10, 7 * len(right) + 10
    label = f"{escape(left)}: {escape(right)}"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{lw + rw}" height="20" role="img" aria-label="{label}">'
        f'<rect width="{lw}" height="20" fill="#555"/><rect x="{lw}" width="{rw}" height="20" fill="{colour}"/>'
        f'<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">'
        f'<text x="{lw / 2}" y="14">{escape(left)}</text><text x="{lw + rw / 2}" y="14">{escape(right)}</text></g></svg>\n'
    )
