"""Indexes over the edition tables and the conformance suite, and finding a rule by id.

Which cases cite a rule or pin a dispute's reading, which options, disputes and
cards touch a rule (`cases_by_rule`, `options_touching`...); `find_rule` looks a
rule id up in every edition.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable, Sequence

from flip7ref.checking.conformance import Case, load_cases
from flip7ref.core.edition import short_repr
from flip7ref.core.errors import OptionError
from flip7ref.core.spec import CardKind, Edition, OptionSpec, Rule, edition_ids, load_edition
from flip7ref.core.text import LANGS as LANGS  # the languages of card names, importable from here as before

CONFIDENCE = {
    "H": "high",
    "M": "medium",
    "L": "low",
    "H/M": "high or medium",
}
"""The confidence codes of the rule catalogue, in words."""


def editions_named(which: str | None) -> list[Edition]:
    """The editions named by an ``--edition`` value: an id, a table path, or ``all``.

    Raises:
        OptionError: unknown edition id.
        SpecError: a malformed table.
    """
    if which is None or which == "all":
        return [load_edition(e) for e in edition_ids()]
    return [load_edition(which)]


@functools.cache
def shipped_cases() -> tuple[Case, ...]:
    """The shipped conformance suite, loaded once per process (treat the cases as read-only).

    Raises:
        SpecError: a malformed case file.
    """
    return tuple(load_cases())


def cases_by_rule(cases: Iterable[Case]) -> dict[str, list[str]]:
    """Map each rule id to the sorted ids of the conformance cases that cite it.

    Args:
        cases: case dicts as returned by `flip7ref.checking.conformance.load_cases`
            (each with ``id`` and ``rules``).

    Returns:
        ``{rule_id: [case_id, ...]}``, case ids sorted; rules no case cites are absent.
    """
    out: dict[str, set[str]] = {}
    for case in cases:
        for rid in case.get("rules") or ():
            out.setdefault(str(rid), set()).add(str(case["id"]))
    return {rid: sorted(ids) for rid, ids in sorted(out.items())}


def cases_by_dispute(cases: Iterable[Case]) -> dict[str, list[tuple[str, str]]]:
    """Map each dispute id to the cases pinning one of its readings.

    Args:
        cases: case dicts; a case pins a reading with ``reading: {option, value, dispute}``.

    Returns:
        ``{dispute_id: [(case_id, value), ...]}`` sorted by case id.
    """
    out: dict[str, list[tuple[str, str]]] = {}
    for case in cases:
        reading = case.get("reading") or {}
        if reading.get("dispute"):
            out.setdefault(str(reading["dispute"]), []).append((str(case["id"]), str(reading.get("value"))))
    return {did: sorted(rows) for did, rows in sorted(out.items())}


def options_touching(edition: Edition, rule_id: str) -> list[OptionSpec]:
    """The options of ``edition`` whose ``rules`` list includes ``rule_id``, in table order."""
    return [o for o in edition.options.values() if rule_id in o.rules]


def disputes_touching(edition: Edition, rule_id: str) -> list[str]:
    """The ids of the disputes of ``edition`` whose ``rules`` list includes ``rule_id``, sorted."""
    return sorted(did for did, d in edition.disputes.items() if rule_id in (d.get("rules") or ()))


def cards_for_rule(edition: Edition, rule_id: str) -> list[CardKind]:
    """The card kinds of ``edition`` that list ``rule_id`` among their rules, in table order."""
    return [c for c in edition.cards if rule_id in c.rules]


def edition_of(rule_id: str, editions: Sequence[Edition]) -> Edition | None:
    for edition in editions:
        if rule_id in edition.rules:
            return edition
    return None


# ---------------------------------------------------------------------------
# Finding and searching rules


MAX_ID_QUERY = 64
"""The longest rule id `find_rule` compares with the known ids for a suggestion (a longer
text is no rule id; the message shows it cut, `short_repr`)."""


def find_rule(rule_id: str, editions: Sequence[Edition] | None = None) -> tuple[Edition, Rule]:
    """Look a rule up by id in any of ``editions`` (default: every shipped edition).

    Args:
        rule_id: a rule id such as ``"F7-073"`` or ``"V-045"`` (case-insensitive).
        editions: the editions to look in.

    Returns:
        ``(edition, rule)``.

    Raises:
        OptionError: no edition has that id; the message suggests close ids.
    """
    pool = list(editions) if editions is not None else editions_named("all")
    wanted = rule_id.strip().upper()
    for edition in pool:
        if wanted in edition.rules:
            return edition, edition.rules[wanted]
    known = sorted(rid for e in pool for rid in e.rules)
    close = difflib.get_close_matches(wanted, known, n=4, cutoff=0.6) if len(wanted) <= MAX_ID_QUERY else []
    # each edition's lowest and highest id: the ids have a fixed width (the schema), so text order is number order
    ranges = "; ".join(f"{min(e.rules)} … {max(e.rules)}" for e in pool if e.rules)
    hint = f"; did you mean {', '.join(close)}?" if close else f" (known ids: {ranges})" if ranges else ""
    where = ", ".join(e.id for e in pool)
    raise OptionError(f"unknown rule id {short_repr(rule_id)} in {where}{hint}")
