"""The disputes of the edition tables, each resolved against the option modelling it (`disputes`,
`find_dispute`), and the conformance cases attached to one (`attached_cases`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from flip7ref.checking.conformance import Case
from flip7ref.core.errors import OptionError
from flip7ref.core.spec import Edition, edition_ids, load_edition


@attrs.frozen
class DisputeReading:
    """One reading of a dispute.

    Attributes:
        name: the reading's name in the dispute entry (``discard``).
        summary: what the reading says.
        holders: the source keys holding it.
        value: the option value selecting it, or None when the option does not model it
            (or the dispute has no option).
        default: whether it is the dispute's default reading.
    """

    name: str
    summary: str
    holders: tuple[str, ...]
    value: str | None
    default: bool


@attrs.frozen
class Dispute:
    """A dispute entry of an edition table, with its readings resolved against its option.

    Attributes:
        id: the dispute id (``D-F7-10``).
        edition: the edition table it belongs to.
        question: the disputed question.
        option: the option modelling it, or None (settled or not modelled).
        status: ``option``, ``settled``, ``no-play-change`` (the readings play the
            same game) or ``not-modelled``.
        note: the table's note on the dispute.
        rules: the rule ids it concerns.
        readings: the readings in table order.
    """

    id: str
    edition: Edition = attrs.field(eq=False, repr=False)
    question: str
    option: str | None
    status: str
    note: str
    rules: tuple[str, ...]
    readings: tuple[DisputeReading, ...]

    @property
    def played(self) -> tuple[DisputeReading, ...]:
        """The readings the interpreter models (those with an option value)."""
        return tuple(r for r in self.readings if r.value is not None)


def _dispute(edition: Edition, did: str, raw: Mapping[str, Any]) -> Dispute:
    option = raw.get("option")
    spec = edition.options.get(option) if isinstance(option, str) else None
    modelled = {r.name for r in spec.readings} if spec is not None else set()
    default = str(raw.get("default"))
    readings = tuple(
        DisputeReading(
            name=str(r["name"]),
            summary=str(r.get("summary", "")),
            holders=tuple(str(h) for h in r.get("holders") or ()),
            value=str(r["name"]) if str(r["name"]) in modelled else None,
            default=str(r["name"]) == default,
        )
        for r in raw.get("readings") or ()
    )
    return Dispute(
        id=did,
        edition=edition,
        question=str(raw.get("question", "")),
        option=spec.name if spec is not None else None,
        status=str(raw.get("status", "")),
        note=str(raw.get("note", "")),
        rules=tuple(raw.get("rules") or ()),
        readings=readings,
    )


def disputes(edition: str | None = None) -> list[Dispute]:
    """Every dispute of the shipped edition tables, or of one edition.

    Args:
        edition: an edition id or table path; None for every shipped edition.

    Returns:
        The disputes, edition by edition, in table order.

    Raises:
        OptionError: unknown edition.
        SpecError: a malformed table.
    """
    tables = [load_edition(edition)] if edition is not None else [load_edition(e) for e in edition_ids()]
    return [_dispute(t, did, raw) for t in tables for did, raw in t.disputes.items()]


def _id_order(did: str) -> tuple[str, int]:
    """The order of dispute ids: by prefix, then by number (``D-F7-9`` before ``D-F7-10``),
    not the order a table lists them in."""
    prefix, _, number = did.rpartition("-")
    return (prefix, int(number)) if number.isdigit() else (did, -1)


def find_dispute(did: str, edition: str | None = None) -> Dispute:
    """The dispute with id ``did`` (case-insensitive), e.g. ``"D-F7-10"``.

    Args:
        did: the dispute id.
        edition: restrict the search to this edition (id or table path); None: all shipped.

    Raises:
        OptionError: no such dispute (the message lists the known id ranges) or unknown edition.
    """
    known = disputes(edition)
    for d in known:
        if d.id.casefold() == did.strip().casefold():
            return d
    ranges: dict[str, list[str]] = {}
    for d in known:
        ranges.setdefault(d.edition.id, []).append(d.id)
    listed = "; ".join(f"{min(ids, key=_id_order)} … {max(ids, key=_id_order)}" for ids in ranges.values() if ids)
    raise OptionError(f"unknown dispute {did!r} (known: {listed or 'none'}; 'flip7ref dispute' lists them)")


def attached_cases(dispute: Dispute, cases: Iterable[Case] | None = None) -> list[Case]:
    """The conformance cases attached to a dispute.

    A case is attached when its ``reading.dispute`` is the dispute's id, or (same
    edition) when its ``reading.option`` or its ``options`` name the dispute's option.

    Args:
        dispute: the dispute.
        cases: the cases to search (default: the shipped suite).

    Returns:
        The attached cases, in suite order.

    Raises:
        SpecError: a malformed case file (when loading the shipped suite).
    """
    if cases is None:  # the shipped suite: pick from its index, then load only the files holding them
        from flip7ref.checking.case_index import case_index, load_shipped_cases

        return load_shipped_cases(attached_cases(dispute, case_index()))
    out = []
    for case in cases:
        reading = case.get("reading") or {}
        names_option = dispute.option is not None and (
            reading.get("option") == dispute.option or dispute.option in (case.get("options") or {})
        )
        if reading.get("dispute") == dispute.id or (names_option and case["edition"] == dispute.edition.id):
            out.append(case)
    return out
