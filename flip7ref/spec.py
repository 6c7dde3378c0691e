"""Loading and checking the edition tables under ``spec/``.

An edition table is a YAML file (``spec/editions/<id>.yaml``) validated against
``spec/schema/edition.schema.json`` and then checked for cross references (an
option named by a card exists, a card named by a set-aside list exists, every
rule id cited by a card or option is in the catalogue...).  The result is an
:class:`Edition`, a read-only description the interpreter compiles into a
:class:`flip7ref.Game` once options are chosen.

YAML is read with ``yaml.safe_load`` only.
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
            an event type by a detail of the event (see :mod:`flip7ref.explore`).
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


def read_text_file(path: Path, what: str) -> str:
    """Read a UTF-8 text file, turning every failure into a SpecError naming the file.

    Args:
        path: the file.
        what: what the file should be, for the message (e.g. ``"case file"``).

    Raises:
        SpecError: missing, a folder or special file, unreadable, or not UTF-8.
    """
    if not path.is_file() and path.exists():
        raise SpecError(str(path), "", f"{what}, not a folder or a special file")
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError(str(path), "", f"an existing {what}") from None
    except UnicodeDecodeError:
        raise SpecError(str(path), "", "UTF-8 text") from None
    except (OSError, ValueError) as exc:
        why = f"{type(exc).__name__}: {getattr(exc, 'strerror', None) or exc}"
        raise SpecError(str(path), "", f"a readable {what} ({why})") from None


def read_yaml_file(path: Path, what: str) -> object:
    """Read a YAML file with ``safe_load``, turning every failure into a SpecError.

    Raises:
        SpecError: missing, unreadable, not UTF-8, too deeply nested, or not YAML.
    """
    import yaml

    text = read_text_file(path, what)
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise SpecError(str(path), where, f"valid YAML ({problem})") from None
    except RecursionError:
        raise SpecError(str(path), "", "YAML nested less deeply") from None


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


def parse_edition(data: object, file: str) -> Edition:
    """Check already-parsed table data and build an :class:`Edition`.

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

    Results for shipped ids are cached; the returned object is read-only.

    Raises:
        SpecError: when the table is malformed (see :func:`load_edition_file`).
        OptionError: when ``name`` is neither a shipped edition id nor a ``.yaml`` path.
    """
    from .errors import OptionError

    if not isinstance(name, str):
        raise OptionError(f"edition: expected an edition id or the path of a .yaml table, got {_short(name)}")
    if name.endswith((".yaml", ".yml")) or "/" in name or "\\" in name or Path(name).is_file():
        return load_edition_file(name)
    if name in _SHIPPED:
        return _SHIPPED[name]
    if name not in edition_ids():
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
    "edition_ids",
    "load_edition",
    "load_edition_file",
    "parse_cards",
    "parse_edition",
    "spec_dir",
]
