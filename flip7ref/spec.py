"""Loading and checking the edition tables under ``spec/``.

An edition table is a YAML file (``spec/editions/<id>.yaml``) validated against
``spec/schema/edition.schema.json`` and then checked for cross references (an
option named by a card exists, a card named by a set-aside list exists, every
rule id cited by a card or option is in the catalogue...).  The result is an
`Edition`, a read-only description the interpreter compiles into a
`flip7ref.Game` once options are chosen.

YAML is read by safe loading only (PyYAML's C loader ``CSafeLoader`` where
libyaml is available, else ``SafeLoader``), and bounded: a file size limit, a
limit on nesting and on the size of the document once its aliases are expanded
(an alias-expansion bomb is refused before it is built), and no duplicate key.
After the schema, a table is checked for meaning: every value an option reading
gives a table key must be one the interpreter implements for that key
(`check_meaning`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pickle
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from .errors import CardError, SpecError

if TYPE_CHECKING:  # jsonschema and yaml are imported when first needed: most runs read the table cache
    import jsonschema.exceptions
    import yaml

CATEGORIES = ("number", "modifier", "action")


def spec_dir() -> Path:
    """Return the folder holding ``editions/`` and ``schema/``.

    An installed wheel carries the spec inside the package (``flip7ref/spec``);
    a source checkout uses the repository's top-level ``spec/``.

    Raises:
        SpecError: when neither folder exists (a broken installation).
    """
    here = Path(__file__).resolve().parent
    for candidate in (here / "spec", here.parent / "spec"):
        if (candidate / "editions").is_dir() and (candidate / "schema").is_dir():
            return candidate
    raise SpecError(str(here), "", "a spec/ folder with editions/ and schema/ beside the package")


def edition_ids() -> tuple[str, ...]:
    """The ids of the edition tables shipped with flip7ref, sorted (e.g. ``("flip7", ...)``)."""
    return tuple(sorted(p.stem for p in (spec_dir() / "editions").glob("*.yaml") if not p.stem.startswith("_")))


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    """Load ``spec/schema/<name>.schema.json`` as a dict.

    Raises:
        SpecError: when the file is missing or not valid JSON.
    """
    path = spec_dir() / "schema" / f"{name}.schema.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SpecError(str(path), "", "an existing JSON Schema file") from None
    except json.JSONDecodeError as exc:
        raise SpecError(str(path), "", f"valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise SpecError(str(path), "", "a JSON object")
    return data


def pointer(parts: Sequence[object]) -> str:
    """Render a list of keys and indexes as a JSON-pointer-like path (``/cards/3/id``)."""
    return "/" + "/".join(str(p) for p in parts)


def validate(data: object, schema_name: str, file: str) -> None:
    """Validate ``data`` against a schema of ``spec/schema``.

    Raises:
        SpecError: naming ``file``, the path of the most relevant violation and
            what the schema expected there.
    """
    import jsonschema.exceptions

    validator = _strict_validator()(load_schema(schema_name))
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        expected = _schema_expectation(error)
        found = _short(error.instance)
        raise SpecError(file, pointer(error.absolute_path), expected, problem=f"found {found}; expected {expected}")


def _whole(text: str) -> bool:
    """Whether ``text`` is a whole number written with ASCII digits (and an optional minus)."""
    digits = text.strip().removeprefix("-")
    return digits.isascii() and digits.isdigit()


def _short(value: object, limit: int = 60) -> str:
    """A value as it would read in a one-line message, cut to ``limit`` characters."""
    text = repr(value).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


@functools.cache
def _strict_validator() -> Any:
    """The validator class: JSON Schema counts 3.0 as an integer; the tables and cases must hold real whole numbers."""
    import jsonschema

    return jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        jsonschema.Draft202012Validator,
        type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
            "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)
        ),
    )


def _schema_expectation(error: jsonschema.exceptions.ValidationError) -> str:
    """Say in words what the schema wanted where validation failed."""
    kind, value = str(error.validator), error.validator_value
    items: list[Any] = list(value) if isinstance(value, (list, tuple)) else [value]
    if kind == "type":
        return f"a value of type {value}"
    if kind == "enum":
        return "one of " + ", ".join(repr(v) for v in items)
    if kind in ("anyOf", "oneOf"):
        enums = [v for sub in items if isinstance(sub, dict) for v in sub.get("enum", ())]
        if enums:
            return "one of " + ", ".join(repr(v) for v in enums) + " (or an option reference)"
    if kind == "required":
        return "the required properties " + ", ".join(repr(v) for v in items)
    if kind == "additionalProperties":
        return "only the properties the schema defines"
    if kind in ("minimum", "maximum", "minItems", "minLength", "minProperties"):
        return f"{kind} {value}"
    if kind == "pattern":
        return f"text matching {value}"
    if kind == "const":
        return repr(value)
    return f"a value valid under the schema's {kind!r} rule"


@attrs.frozen
class CardKind:
    """One kind of card of an edition (e.g. the ``7``, the ``x2``, ``freeze``).

    Attributes:
        index: position of the kind in the edition's card list (internal code).
        id: the stable id used in files, events and the command line.
        category: ``"number"``, ``"modifier"`` or ``"action"``.
        rank: the number on a number card (points and duplicate check); None otherwise.
        count: copies in one deck.
        names: card names by language code (``en``, ``de``, ``fr``, ``no``, ``nl``).
        aliases: extra spellings accepted when parsing (e.g. ``×2``).
        modifier: ``(op, value)`` for modifiers, e.g. ``("add", 4)``; None otherwise.
        effect: the effect entry of the table (primitive and parameters, options
            unresolved); None for cards without one.
        traits: special behaviours of number cards (e.g. ``zero``), empty otherwise.
        rules: the rule ids the card implements.
    """

    index: int
    id: str
    category: str
    rank: int | None
    count: int
    names: tuple[tuple[str, str], ...]
    aliases: tuple[str, ...]
    modifier: tuple[str, int] | None
    effect: Mapping[str, Any] | None = attrs.field(eq=False, hash=False)
    traits: tuple[str, ...]
    rules: tuple[str, ...]

    def name(self, lang: str = "en") -> str:
        """The card's name in ``lang`` (falls back to English, then to the id)."""
        names = dict(self.names)
        return names.get(lang) or names.get("en") or self.id


@attrs.frozen
class Reading:
    """One reading of a disputed point: its value, a summary and who holds it."""

    name: str
    summary: str
    holders: tuple[str, ...]


@attrs.frozen
class OptionSpec:
    """An option of an edition: a disputed point (or a parameter) with its readings.

    Attributes:
        name: option name (``stay_requires``).
        summary: what the option decides.
        default: the default value (a reading name, or an int for integer options).
        readings: the named readings.
        rules: rule ids the option touches.
        dispute: the dispute id it models, if any.
        integer: ``(minimum, maximum)`` when the option also accepts integers
            (``maximum`` may be None); None for purely named options.
    """

    name: str
    summary: str
    default: str | int
    readings: tuple[Reading, ...]
    rules: tuple[str, ...]
    dispute: str | None
    integer: tuple[int, int | None] | None

    def coerce(self, value: object) -> str | int:
        """Check ``value`` and return it in canonical form.

        Args:
            value: a reading name, or an int (or digit string) for integer options;
                ``True``/``False`` stand for readings named ``true``/``false``
                (or ``yes``/``no``, ``on``/``off``), as YAML would read them.

        Returns:
            The reading name (str) or the integer value.

        Raises:
            OptionError: when the value is neither a reading nor an allowed integer.
        """
        from .errors import OptionError

        names = [r.name for r in self.readings]
        if isinstance(value, bool):
            for spelled in (str(value).lower(),) + (("yes",) if value else ("no",)) + (("on",) if value else ("off",)):
                if spelled in names:
                    return spelled
        if isinstance(value, str) and value in names and not (self.integer and _whole(value)):
            return value
        if self.integer is not None:
            number: int | None = None
            if isinstance(value, bool):
                number = None
            elif isinstance(value, int):
                number = value
            elif isinstance(value, str) and _whole(value):
                number = int(value)
            if number is not None:
                low, high = self.integer
                if number < low or (high is not None and number > high):
                    bound = f"{low}..{high}" if high is not None else f">= {low}"
                    raise OptionError(f"option {self.name}: {number} is out of range (expected {bound})")
                return number
        allowed = ", ".join(names)
        if self.integer is not None:
            allowed += ", or a whole number"
        raise OptionError(f"option {self.name}: unknown value {value!r} (expected {allowed})")


@attrs.frozen
class Rule:
    """One rule of the catalogue: id, one-line paraphrase, sources, confidence, topic."""

    id: str
    text: str
    sources: tuple[str, ...]
    confidence: str
    topic: str


@attrs.frozen(eq=False, slots=False)
class Edition:
    """A loaded, checked edition table.

    Attributes:
        id: edition id (``flip7``).
        title: display title.
        path: the YAML file it came from.
        ruleset: the rulebook edition the table follows (e.g. ``Ruleset Edition 3.1``).
        publisher: the publisher named by the table.
        cards: the card kinds, in table order (their ``index`` is their position).
        thresholds: named numbers (``flip7_distinct``, ``flip7_bonus``, ...).
        round: the round section (literals and option references).
        scoring: the scoring pipeline, a tuple of step mappings in order.
        game_end: the game-end section.
        options: option specs by name, in table order.
        rules: the rule catalogue by id.
        disputes: the dispute entries by id (raw mappings).
        sources: the source register by key (raw mappings).
        event_rules: the rule ids behind each event type (``busted`` -> ``("F7-040", ...)``),
            from the table's optional ``events`` section; a key ``TYPE/DETAIL`` narrows
            an event type by a detail of the event (see `flip7ref.explore`).
    """

    id: str
    title: str
    path: Path
    ruleset: str
    publisher: str
    cards: tuple[CardKind, ...]
    thresholds: Mapping[str, int]
    round: Mapping[str, Any]
    scoring: tuple[Mapping[str, Any], ...]
    game_end: Mapping[str, Any]
    options: Mapping[str, OptionSpec]
    rules: Mapping[str, Rule]
    disputes: Mapping[str, Mapping[str, Any]]
    sources: Mapping[str, Mapping[str, Any]]
    event_rules: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)

    def card(self, name: str) -> CardKind:
        """Find a card kind by id, alias or name in any language (case-insensitive).

        Raises:
            CardError: when no card kind of this edition has that name (or ``name``
                is not a string).
        """
        if not isinstance(name, str):
            raise CardError(f"expected a card name (a string such as '7' or 'x2'), got {_short(name)}")
        found = self._lookup().get(name.strip().casefold())
        if found is None:
            known = " ".join(c.id for c in self.cards)
            raise CardError(f"unknown card {name!r} in edition {self.id} (known cards: {known})")
        return found

    def _lookup(self) -> dict[str, CardKind]:
        table: dict[str, CardKind] | None = getattr(self, "_names", None)
        if table is None:
            table = {}
            for card in self.cards:
                for key in (card.id, *card.aliases, *(n for _, n in card.names)):
                    table.setdefault(key.casefold(), card)
                    table.setdefault(key.casefold().rstrip("!"), card)
            object.__setattr__(self, "_names", table)
        return table

    def deck(self, decks: int = 1) -> tuple[int, ...]:
        """The card-kind indexes of ``decks`` full decks, in table order."""
        return tuple(c.index for c in self.cards for _ in range(c.count * decks))


def _read_yaml(path: Path) -> object:
    return read_yaml_file(path, "edition table file")


MAX_TEXT_BYTES = 16 * 1024 * 1024
"""The largest text file (case file, transcript, serialized state) flip7ref reads, in bytes."""
MAX_YAML_BYTES = 4 * 1024 * 1024
"""The largest YAML file (edition table, case file) flip7ref reads, in bytes."""
MAX_YAML_NODES = 1_000_000
"""The most YAML nodes (scalars, lists, mappings) a document may hold once its aliases are expanded."""
MAX_YAML_DEPTH = 64
"""The deepest nesting of lists and mappings a YAML document may have."""

def _yaml_loader() -> Any:
    """PyYAML's safe loader class: libyaml's C parser (CSafeLoader) where available."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_text_file(path: Path, what: str, *, limit: int = MAX_TEXT_BYTES) -> str:
    """Read a UTF-8 text file, turning every failure into a SpecError naming the file.

    Args:
        path: the file.
        what: what the file should be, for the message (e.g. ``"case file"``).
        limit: the largest size accepted, in bytes.

    Raises:
        SpecError: missing, a folder or special file, larger than ``limit``,
            unreadable, or not UTF-8.
    """
    if not path.is_file() and path.exists():
        raise SpecError(str(path), "", f"{what}, not a folder or a special file")
    try:
        with path.open("rb") as handle:
            raw = handle.read(limit + 1)
        if len(raw) > limit:
            raise SpecError(str(path), "", f"at most {limit:,} bytes in the {what}")
        return raw.decode("utf-8")
    except FileNotFoundError:
        raise SpecError(str(path), "", f"an existing {what}") from None
    except UnicodeDecodeError:
        raise SpecError(str(path), "", "UTF-8 text") from None
    except (OSError, ValueError) as exc:
        if isinstance(exc, SpecError):
            raise
        why = f"{type(exc).__name__}: {getattr(exc, 'strerror', None) or exc}"
        raise SpecError(str(path), "", f"a readable {what} ({why})") from None


def read_yaml_file(path: Path, what: str) -> object:
    """Read a YAML file by safe loading, bounded, turning every failure into a SpecError.

    Raises:
        SpecError: missing, unreadable, larger than `MAX_YAML_BYTES`, not
            UTF-8, not YAML, nested deeper than `MAX_YAML_DEPTH`, more than
            `MAX_YAML_NODES` nodes once aliases are expanded (an alias bomb),
            a recursive alias, or a key given twice in one mapping.
    """
    return parse_yaml(read_text_file(path, what, limit=MAX_YAML_BYTES), str(path))


def parse_yaml(text: str, file: str) -> object:
    """Parse YAML text by safe loading, with the bounds of `read_yaml_file`.

    The document is composed into nodes first (aliases stay shared, so a bomb
    costs nothing yet), checked, and only then built into Python values.

    Raises:
        SpecError: naming ``file`` and, where known, the line and column.
    """
    import yaml

    loader = _yaml_loader()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_nodes(node, file)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise SpecError(file, where, f"valid YAML ({problem})") from None
    except RecursionError:
        raise SpecError(file, "", f"YAML nested at most {MAX_YAML_DEPTH} deep") from None
    finally:
        loader.dispose()


def _where(node: yaml.Node) -> str:
    mark = node.start_mark
    return f"line {mark.line + 1}, column {mark.column + 1}"


MAX_INT_CHARS = 4000
"""The longest whole number an edition table may write (Python converts at most 4,300 digits)."""


def _check_nodes(root: yaml.Node, file: str) -> None:
    """Refuse a composed YAML document that is too deep, too large once its
    aliases are expanded, recursive, or has a key twice in a mapping.

    A depth-first walk over the node graph (shared nodes visited once), so the
    cost is the size of the file, not of its expansion."""
    import yaml

    size: dict[int, int] = {}
    started: set[int] = set()
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 0, False)]
    while stack:
        node, depth, done = stack.pop()
        nid = id(node)
        children: list[yaml.Node] = []
        if isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        if done:
            total = 1 + sum(size[id(c)] for c in children)
            if total > MAX_YAML_NODES:
                raise SpecError(
                    file, _where(node), f"at most {MAX_YAML_NODES:,} YAML nodes once aliases are expanded (found {total:,})"
                )
            size[nid] = total
            started.discard(nid)
            continue
        if nid in size:
            continue
        if nid in started:
            raise SpecError(file, _where(node), "YAML without a recursive alias (a node that contains itself)")
        if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:int" and len(node.value) > MAX_INT_CHARS:
            # Python refuses to convert so many digits (ValueError): say where, as for every other fault
            found = f"found {len(node.value):,}"
            raise SpecError(file, _where(node), f"a whole number of at most {MAX_INT_CHARS:,} characters ({found})")
        if depth > MAX_YAML_DEPTH:
            raise SpecError(file, _where(node), f"YAML nested at most {MAX_YAML_DEPTH} deep")
        started.add(nid)
        stack.append((node, depth, True))
        if isinstance(node, yaml.MappingNode):
            seen: dict[tuple[str, str], yaml.Node] = {}
            for key, _value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    ident = (key.tag, key.value)
                    if ident in seen:
                        raise SpecError(
                            file,
                            _where(key),
                            f"each key once in a mapping (key {key.value!r} is also at {_where(seen[ident])})",
                        )
                    seen[ident] = key
        stack.extend((c, depth + 1, False) for c in reversed(children))


def _option_refs(value: object, path: list[object]) -> list[tuple[str, list[object], object]]:
    """Find every ``{option: NAME}`` reference inside a table section."""
    found: list[tuple[str, list[object], object]] = []
    if isinstance(value, dict):
        if set(value) <= {"option", "values"} and isinstance(value.get("option"), str):
            found.append((value["option"], path, value.get("values")))
            if isinstance(value.get("values"), dict):  # a value may itself be another option reference
                for key, item in value["values"].items():
                    if isinstance(item, dict) and "option" in item:
                        found.extend(_option_refs(item, [*path, "values", key]))
            return found
        for key, item in value.items():
            found.extend(_option_refs(item, [*path, key]))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found.extend(_option_refs(item, [*path, i]))
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
        validator = _strict_validator()(literal)
        for v, where, via in _reading_values(value, options, path):
            if via and not validator.is_valid(v):
                allowed = _describe(literal)
                raise SpecError(
                    file,
                    pointer(where),
                    allowed,
                    problem=f"{via} gives {pointer(path)} the value {_short(v)}, which the interpreter does not "
                    f"implement; expected {allowed}",
                )


def parse_edition(data: object, file: str) -> Edition:
    """Check already-parsed table data and build an `Edition`.

    Args:
        data: the YAML document as plain Python data.
        file: the file name to put in error messages.

    Raises:
        SpecError: on any schema violation or broken cross reference, naming
            ``file``, the path inside it and what was expected.
    """
    validate(data, "edition", file)
    assert isinstance(data, dict)
    raw_rules = data.get("rules") or {}
    rules = {
        rid: Rule(rid, r["text"], tuple(r["sources"]), r.get("confidence", "M"), r.get("topic", ""))
        for rid, r in raw_rules.items()
    }
    cards: list[CardKind] = []
    seen: dict[str, int] = {}
    for i, c in enumerate(data["cards"]):
        cid = str(c["id"])
        if cid in seen:
            raise SpecError(file, pointer(["cards", i, "id"]), f"a card id not used before (also at /cards/{seen[cid]})")
        seen[cid] = i
        names = dict(c.get("names") or {})
        names.setdefault("en", cid)
        modifier = c.get("modifier")
        cat = c["category"]
        if cat == "number" and c.get("rank") is None:
            raise SpecError(file, pointer(["cards", i, "rank"]), "a rank for a number card")
        if cat == "modifier" and modifier is None:
            raise SpecError(file, pointer(["cards", i, "modifier"]), "a modifier operation for a modifier card")
        if modifier and modifier["op"] in ("multiply", "divide") and modifier["value"] < 1:
            raise SpecError(file, pointer(["cards", i, "modifier", "value"]), "a factor of 1 or more for multiply and divide")
        for j, rid in enumerate(c.get("rules") or []):
            if rules and rid not in rules:
                raise SpecError(file, pointer(["cards", i, "rules", j]), f"a rule id of the catalogue (no rule {rid})")
        cards.append(
            CardKind(
                index=i,
                id=cid,
                category=cat,
                rank=c.get("rank"),
                count=c["count"],
                names=tuple(sorted(names.items())),
                aliases=tuple(c.get("aliases") or ()),
                modifier=(modifier["op"], modifier["value"]) if modifier else None,
                effect=c.get("effect"),
                traits=tuple(c.get("traits") or ()),
                rules=tuple(c.get("rules") or ()),
            )
        )
    options: dict[str, OptionSpec] = {}
    for name, o in (data.get("options") or {}).items():
        readings = tuple(
            Reading(str(rname), r.get("summary", ""), tuple(str(h) for h in r.get("holders") or ()))
            for rname, r in o["readings"].items()
        )
        integer = None
        if "integer" in o:
            integer = (int(o["integer"].get("minimum", 0)), o["integer"].get("maximum"))
            if integer[1] is not None and integer[1] < integer[0]:
                raise SpecError(file, pointer(["options", name, "integer"]), "a maximum no smaller than the minimum")
        spec = OptionSpec(
            name=name,
            summary=o.get("summary", ""),
            default=o["default"],
            readings=readings,
            rules=tuple(o.get("rules") or ()),
            dispute=o.get("dispute"),
            integer=integer,
        )
        try:
            spec.coerce(spec.default)
        except ValueError:
            raise SpecError(file, pointer(["options", name, "default"]), "one of the option's readings") from None
        for j, rid in enumerate(spec.rules):
            if rules and rid not in rules:
                raise SpecError(file, pointer(["options", name, "rules", j]), f"a rule id of the catalogue (no rule {rid})")
        options[name] = spec
    for section in ("round", "game_end", "cards", "scoring"):
        for opt, path, values in _option_refs(data.get(section), [section]):
            if opt not in options:
                raise SpecError(file, pointer([*path, "option"]), f"the name of an option of this table (no option {opt!r})")
            if isinstance(values, dict):
                for reading in options[opt].readings:
                    if reading.name not in values:
                        raise SpecError(file, pointer([*path, "values"]), f"a value for reading {reading.name!r}")
    check_meaning(data, options, file)
    deck_size = sum(c["count"] for c in data["cards"])
    if deck_size > MAX_DECK_CARDS:
        raise SpecError(file, "/cards", f"at most {MAX_DECK_CARDS:,} cards in one deck (the counts add up to {deck_size:,})")
    for i, c in enumerate(data["cards"]):
        effect = c.get("effect") or {}
        for key in ("set_aside",):
            value = effect.get(key)
            lists = list(value["values"].values()) if isinstance(value, dict) else [value] if value else []
            for lst in lists:
                if not isinstance(lst, list):
                    raise SpecError(file, pointer(["cards", i, "effect", key]), "a list of card ids or categories")
                for ref in lst:
                    if ref not in seen and ref not in CATEGORIES:
                        raise SpecError(file, pointer(["cards", i, "effect", key]), f"card ids or categories (no card {ref!r})")
    event_rules: dict[str, tuple[str, ...]] = {}
    for key, ids in (data.get("events") or {}).items():
        for j, rid in enumerate(ids):
            if rules and rid not in rules:
                raise SpecError(file, pointer(["events", key, j]), f"a rule id of the catalogue (no rule {rid})")
        event_rules[str(key)] = tuple(ids)
    return Edition(
        id=data["edition"]["id"],
        title=data["edition"]["title"],
        path=Path(file),
        ruleset=data["edition"].get("ruleset", ""),
        publisher=data["edition"].get("publisher", ""),
        cards=tuple(cards),
        thresholds=dict(data["thresholds"]),
        round=dict(data.get("round") or {}),
        scoring=tuple(data["scoring"]),
        game_end=dict(data.get("game_end") or {}),
        options=options,
        rules=rules,
        disputes=dict(data.get("disputes") or {}),
        sources=dict(data.get("sources") or {}),
        event_rules=event_rules,
    )


def load_edition_file(path: str | Path) -> Edition:
    """Load and check an edition table from a YAML file.

    Raises:
        SpecError: when the file is missing, not YAML, or violates the schema or
            its own cross references.
    """
    if not isinstance(path, (str, Path)):
        raise SpecError(repr(path), "", "the path of an edition table (a string or a Path)")
    p = Path(path)
    cache = _cache_file(p)
    if cache is not None:
        try:
            with open(cache, "rb") as f:
                cached = pickle.load(f)
            if isinstance(cached, Edition):
                return cached
        except Exception:  # no cache yet, or unreadable: read the table
            pass
    edition = parse_edition(_read_yaml(p), str(p))
    if cache is not None:
        _write_cache(cache, edition)
    return edition


def cache_dir() -> Path | None:
    """The folder of the table cache, or None when ``FLIP7REF_NO_CACHE`` is set.

    ``FLIP7REF_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/flip7ref`` (``~/.cache/flip7ref``).
    A checked table is kept there under a digest of the table's bytes, its path, the
    edition schema, this module's source, the package version and the Python version,
    so a cached table is used only for exactly the same input and code; reading it
    skips YAML, schema validation and the cross-reference checks (docs/build.md).
    """
    if os.environ.get("FLIP7REF_NO_CACHE", "").strip().lower() in {"1", "true", "yes", "on"}:
        return None
    folder = os.environ.get("FLIP7REF_CACHE_DIR")
    if folder:
        return Path(folder)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "flip7ref"


def _cache_file(path: Path) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    try:
        from . import __version__

        digest = hashlib.sha256()
        for part in (
            path.read_bytes(),
            str(path).encode(),
            (spec_dir() / "schema" / "edition.schema.json").read_bytes(),
            Path(__file__).read_bytes(),
            f"{__version__} {sys.version}".encode(),
        ):
            digest.update(len(part).to_bytes(8, "little") + part)
    except (OSError, SpecError):  # an unreadable table is reported by the normal path
        return None
    place = hashlib.sha256(str(path).encode()).hexdigest()[:16]  # one cache file per table path
    return folder / f"edition-{place}-{digest.hexdigest()}.pickle"


def _write_cache(cache: Path, edition: Edition) -> None:
    """Write the cache file atomically; a cache that cannot be written is skipped."""
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache.parent, prefix=".edition-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            pickle.dump(edition, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, cache)
        place = cache.name.rsplit("-", 1)[0]
        for older in cache.parent.glob(f"{place}-*.pickle"):  # the same table before a change
            if older != cache:
                older.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError):
        Path(tmp).unlink(missing_ok=True)


_SHIPPED: dict[str, Edition] = {}


def load_edition(name: str) -> Edition:
    """Load a shipped edition table by id (``"flip7"``) or a table by file path.

    A shipped id always means the shipped table (a file of that name in the working
    folder is not read); any other name ending in ``.yaml``/``.yml``, holding a
    folder separator or naming an existing file is read as a table file.  Results
    for shipped ids are cached; the returned object is read-only.

    Raises:
        SpecError: when the table is malformed (see `load_edition_file`).
        OptionError: when ``name`` is neither a shipped edition id nor a ``.yaml`` path.
    """
    from .errors import OptionError

    if not isinstance(name, str):
        raise OptionError(f"edition: expected an edition id or the path of a .yaml table, got {_short(name)}")
    if name in _SHIPPED:
        return _SHIPPED[name]
    shipped = name in edition_ids()  # a shipped id wins over a file of that name in the working folder
    if not shipped and (name.endswith((".yaml", ".yml")) or "/" in name or "\\" in name or Path(name).is_file()):
        return load_edition_file(name)
    if not shipped:
        raise OptionError(f"unknown edition {name!r} (expected one of: {', '.join(edition_ids())})")
    _SHIPPED[name] = load_edition_file(spec_dir() / "editions" / f"{name}.yaml")
    return _SHIPPED[name]


def parse_cards(edition: Edition, names: Sequence[str]) -> tuple[CardKind, ...]:
    """Parse card names (ids, aliases or names in any language) into card kinds.

    Raises:
        CardError: naming the first unknown card.
    """
    return tuple(edition.card(n) for n in names)


__all__ = [
    "CATEGORIES",
    "CardError",
    "CardKind",
    "Edition",
    "OptionSpec",
    "Reading",
    "Rule",
    "check_meaning",
    "edition_ids",
    "load_edition",
    "load_edition_file",
    "parse_cards",
    "parse_edition",
    "parse_yaml",
    "spec_dir",
]
