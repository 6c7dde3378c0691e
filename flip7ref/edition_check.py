"""The checks of an edition table beyond its schema: option references and their meaning.

`check_meaning` refuses a table in which some option reading gives a table key a
value the interpreter does not implement for that key; `option_refs` finds every
``{option: NAME}`` reference, so that `flip7ref.spec.parse_edition` can check that
each names an option of the table and gives a value for each of its readings.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .edition import short_repr
from .errors import SpecError
from .schema import load_schema, pointer, strict_validator

if TYPE_CHECKING:
    from .edition import OptionSpec

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

