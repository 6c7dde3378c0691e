"""The checks of an edition table beyond its schema: option references and their meaning.

`check_meaning` refuses a table in which some option reading gives a table key a
value the interpreter does not implement for that key; `option_refs` finds every
``{option: NAME}`` reference, so that `flip7ref.core.spec.parse_edition` can check that
each names an option of the table and gives a value for each of its readings.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from flip7ref.core.edition import short_repr
from flip7ref.core.errors import SpecError
from flip7ref.core.schema import load_schema, pointer, strict_validator

if TYPE_CHECKING:
    from flip7ref.core.edition import OptionSpec

def option_refs(value: object, path: list[object]) -> list[tuple[str, list[object], object]]:
    """Find every ``{option: NAME}`` reference inside a table section."""
    found: list[tuple[str, list[object], object]] = []
    if isinstance(value, dict):
        if set(value) <= {"option", "values"} and isinstance(value.get("option"), str):
            found.append((value["option"], path, value.get("values")))
            if isinstance(value.get("values"), dict):  # a value may itself be another option reference
                for key, item in value["values"].items():
                    if isinstance(item, dict) and "option" in item:
                        found.extend(option_refs(item, [*path, "values", key]))
            return found
        for key, item in value.items():
            found.extend(option_refs(item, [*path, key]))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found.extend(option_refs(item, [*path, i]))
    return found


_OPTION_REF = "#/$defs/optionRef"
_TRUTH_VALUES = (True, False, "true", "false", "yes", "no", "on", "off")
MAX_DECK_CARDS = 10_000
"""The most cards one deck of an edition table may hold (the sum of the card counts)."""


def _literal_schema(schema: Mapping[str, Any], section: str, key: str) -> dict[str, Any] | None:
    """The part of the edition schema a literal value of ``section``/``key`` must match
    (the option-reference branch left out); None for a key the schema does not define."""
    if section == "effect":
        props = schema["$defs"]["effect"]["properties"]
    elif section == "unless":
        return {"enum": list(_TRUTH_VALUES)}
    else:
        props = schema["properties"][section]["properties"]
    sub = props.get(key)
    if not isinstance(sub, dict):
        return None
    if "anyOf" in sub:
        sub = {"anyOf": [b for b in sub["anyOf"] if b.get("$ref") != _OPTION_REF]}
    return {"$defs": schema["$defs"], **sub}


def _describe(schema: Mapping[str, Any]) -> str:
    """Say in words which literal values a (literal) schema allows."""
    parts: list[str] = []
    for branch in schema.get("anyOf", [schema]):
        if "enum" in branch:
            parts.extend(json.dumps(v) if isinstance(v, bool) else repr(v) for v in branch["enum"])
        elif "const" in branch:
            parts.append(repr(branch["const"]))
        elif branch.get("type") == "integer":
            low, high = branch.get("minimum"), branch.get("maximum")
            parts.append(f"a whole number {low if low is not None else ''}..{high if high is not None else ''}".rstrip("."))
        elif branch.get("type") == "boolean":
            parts.extend(["true", "false"])
        elif "$ref" in branch:
            parts.append("a list of card ids or categories")
    return "one of " + ", ".join(parts)


def _reading_values(
    value: object, options: Mapping[str, OptionSpec], path: list[object]
) -> list[tuple[object, list[object], str]]:
    """Every value an entry of the table takes under some choice of readings:
    ``(value, path of the reading that gives it, which readings)``; a literal
    entry gives itself with an empty description."""
    if not (isinstance(value, dict) and set(value) <= {"option", "values"} and isinstance(value.get("option"), str)):
        return [(value, path, "")]
    spec = options[value["option"]]
    values = value.get("values")
    found: list[tuple[object, list[object], str]] = []
    for reading in spec.readings:
        chain = f"reading {reading.name!r} of option {spec.name!r}"
        if isinstance(values, dict):
            for v, where, via in _reading_values(values[reading.name], options, [*path, "values", reading.name]):
                found.append((v, where, chain + (" with " + via if via else "")))
        else:
            found.append((spec.coerce(reading.name), ["options", spec.name, "readings", reading.name], chain))
    return found


def check_meaning(data: Mapping[str, Any], options: Mapping[str, OptionSpec], file: str) -> None:
    """Check that every value an option's reading gives a table key is one the
    interpreter implements for that key (the literal values the edition schema
    lists for it: ``start_seat`` is ``dealer-left`` or ``dealer``, ``targets`` a
    set of players...).  A literal value is checked by the schema already.

    Raises:
        SpecError: naming ``file``, the path of the reading (or of the ``values``
            entry) at fault, the reading, and the allowed values.
    """
    schema = load_schema("edition")
    places: list[tuple[str, str, list[object], object]] = []
    for section in ("round", "game_end"):
        for key, value in (data.get(section) or {}).items():
            places.append((section, key, [section, key], value))
    for i, card in enumerate(data.get("cards") or ()):
        for key, value in (card.get("effect") or {}).items():
            places.append(("effect", key, ["cards", i, "effect", key], value))
    for i, step in enumerate(data.get("scoring") or ()):
        if "unless" in step:
            places.append(("unless", "unless", ["scoring", i, "unless"], step["unless"]))
    for section, key, path, value in places:
        literal = _literal_schema(schema, section, key)
        if literal is None:
            continue
        validator = strict_validator()(literal)
        for v, where, via in _reading_values(value, options, path):
            if via and not validator.is_valid(v):
                allowed = _describe(literal)
                raise SpecError(
                    file,
                    pointer(where),
                    allowed,
                    problem=f"{via} gives {pointer(path)} the value {short_repr(v)}, which the interpreter does not "
                    f"implement; expected {allowed}",
                )



def _spellings(card: Mapping[str, Any]) -> list[tuple[str, list[object], str]]:
    """Every spelling by which a card of the table is looked up: ``(spelling, path in
    the card, what it is in words)`` for the id, each alias and each name (compared
    case-folded, a final ``!`` left off, as `flip7ref.core.edition.Edition.card` does)."""
    found: list[tuple[str, list[object], str]] = [(str(card["id"]), ["id"], "the id")]
    found.extend((str(a), ["aliases", j], "an alias") for j, a in enumerate(card.get("aliases") or ()))
    found.extend((str(n), ["names", lang], f"the {lang} name") for lang, n in (card.get("names") or {}).items())
    return found


def check_structure(data: Mapping[str, Any], file: str) -> None:
    """Check what the schema cannot say about a table's cards, thresholds, scoring and
    rule catalogue: the checks that refuse a schema-valid table of no playable meaning.

    - no alias or name of one card spells the id, an alias or a name of another
      (``Edition.card`` would find the wrong card; ids, aliases and names compare
      case-folded, a final ``!`` left off);
    - the deck holds at least one number card (F7-004, V-005);
    - ``thresholds.flip7_distinct`` is at most what one line can hold without a bust
      (the number ranks of the deck, plus one for each ``pair_allowed`` card; F7-050);
    - the scoring pipeline has each step at most once and a ``sum_numbers`` step (F7-100);
    - a table that cites rule ids (a card's, an option's or an event's ``rules``) has a
      rule catalogue (``rules:``), so that each citation is checked against it;
    - every rule id of the catalogue has the same prefix (``F7-``, ``V-``, a house table's
      own, e.g. ``HR-``), and every dispute id (``disputes:``, an option's ``dispute``) is
      ``D-`` and that prefix (`check_prefix`).

    Args:
        data: the table as plain data, valid by the edition schema.
        file: the file name to put in error messages.

    Raises:
        SpecError: naming ``file``, the path of the field at fault and what was expected.
    """
    cards = list(data.get("cards") or ())
    owner: dict[str, tuple[int, str]] = {}
    for i, card in enumerate(cards):
        for spelling, where, what in _spellings(card):
            for key in {spelling.casefold(), spelling.casefold().rstrip("!")}:
                if not key:
                    continue
                other = owner.get(key)
                if other is not None and other[0] != i:
                    raise SpecError(
                        file,
                        pointer(["cards", i, *where]),
                        f"a spelling no other card uses ({spelling!r} is also {other[1]} of card {cards[other[0]]['id']!r})",
                    )
                owner.setdefault(key, (i, what))
    numbers = [c for c in cards if c.get("category") == "number"]
    if not numbers:
        raise SpecError(file, "/cards", "at least one number card (category: number)")
    ranks = {c.get("rank") for c in numbers}
    reach = len(ranks) + sum(1 for c in numbers if "pair_allowed" in (c.get("traits") or ()))
    needed = (data.get("thresholds") or {}).get("flip7_distinct")
    if isinstance(needed, int) and needed > reach:
        raise SpecError(
            file,
            "/thresholds/flip7_distinct",
            f"at most {reach} (the most numbers one line can hold without a bust: the deck's number cards "
            f"have {len(ranks)} ranks), found {needed}",
        )
    steps = [s.get("step") for s in data.get("scoring") or ()]
    for j, step in enumerate(steps):
        if step in steps[:j]:
            also = f"/scoring/{steps.index(step)}"
            raise SpecError(file, pointer(["scoring", j, "step"]), f"each scoring step once ({step!r} is also at {also})")
    if "sum_numbers" not in steps:
        raise SpecError(file, "/scoring", "a scoring pipeline with a 'sum_numbers' step (the sum of the number cards)")
    check_prefix(data, file)
    if not data.get("rules"):
        cited = [(["cards", i, "rules"], c.get("rules")) for i, c in enumerate(cards)]
        cited += [(["options", n, "rules"], o.get("rules")) for n, o in (data.get("options") or {}).items()]
        cited += [(["events", k], v) for k, v in (data.get("events") or {}).items()]
        for path, ids in cited:
            if ids:
                raise SpecError(
                    file,
                    "/rules",
                    f"a rule catalogue (rules:) to check the cited rule ids against ({pointer(path)} cites {ids[0]})",
                )


def check_prefix(data: Mapping[str, Any], file: str) -> None:
    """Check that a table's rule ids share one prefix and its dispute ids use it.

    The prefix is that of the catalogue's first rule id (``F7`` of ``F7-001``); a table
    without a catalogue names no prefix, and its dispute ids are not compared.

    Args:
        data: the table as plain data, valid by the edition schema (so every id matches
            the schema's ``ruleId`` or dispute pattern).
        file: the file name to put in error messages.

    Raises:
        SpecError: naming ``file``, the rule or dispute id's path and the prefix expected.
    """
    rules = list(data.get("rules") or ())
    if not rules:
        return
    prefix = str(rules[0]).partition("-")[0]
    for rid in rules:
        if str(rid).partition("-")[0] != prefix:
            expected = f"a rule id with this table's prefix {prefix}- (as {rules[0]}), found {rid}"
            raise SpecError(file, pointer(["rules", rid]), expected)
    dispute = f"D-{prefix}-"
    named = [(["disputes", did], did) for did in data.get("disputes") or ()]
    named += [(["options", name, "dispute"], o["dispute"]) for name, o in (data.get("options") or {}).items() if "dispute" in o]
    for path, did in named:
        if not str(did).startswith(dispute):
            raise SpecError(file, pointer(path), f"a dispute id {dispute}NN (this table's rule prefix), found {did}")
