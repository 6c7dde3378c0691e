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

This module loads tables (`load_edition`, `load_edition_file`, the table cache)
and builds them (`parse_edition`); the parts live in sibling modules and are
re-exported here, so ``from flip7ref.core.spec import X`` keeps working for each:

- `flip7ref.core.edition`: the values (`Edition`, `CardKind`, `OptionSpec`, `Reading`,
  `Rule`) and where the tables are (`spec_dir`, `edition_ids`);
- `flip7ref.core.textfiles`: bounded reading of text and YAML files (`read_text_file`,
  `read_yaml_file`, `parse_yaml`, the ``MAX_*`` limits);
- `flip7ref.core.schema`: JSON Schema validation (`validate`, `load_schema`, `pointer`);
- `flip7ref.core.edition_check`: the checks beyond the schema (`check_meaning`).

Only `flip7ref.core.edition` is imported with this module; the others when first used
(a table read from the cache needs none of them).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

try:  # the interpreter's built-in BLAKE2, as random takes _sha512: hashlib would load OpenSSL at every start
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

from flip7ref.core.edition import CATEGORIES, CardKind, Edition, OptionSpec, Reading, Rule, edition_ids, short_repr, spec_dir
from flip7ref.core.errors import CardError, SpecError

if TYPE_CHECKING:  # imported when first used (see __getattr__ below): most runs read the table cache
    from flip7ref.core.edition_check import MAX_DECK_CARDS, check_meaning
    from flip7ref.core.schema import load_schema, pointer, validate
    from flip7ref.core.textfiles import (
        MAX_INT_CHARS,
        MAX_TEXT_BYTES,
        MAX_YAML_BYTES,
        MAX_YAML_DEPTH,
        MAX_YAML_NODES,
        parse_yaml,
        read_text_file,
        read_yaml_file,
    )

_LAZY = {
    "edition_check": ("MAX_DECK_CARDS", "check_meaning"),
    "schema": ("load_schema", "pointer", "validate"),
    "textfiles": (
        "MAX_INT_CHARS", "MAX_TEXT_BYTES", "MAX_YAML_BYTES", "MAX_YAML_DEPTH", "MAX_YAML_NODES", "parse_yaml",
        "read_text_file", "read_yaml_file",
    ),
}  # fmt: skip
"""The names re-exported from the modules that are imported only when one of them is first used."""

if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        """Import a re-exported name's module when the name is first used (PEP 562)."""
        if name in _LAZY["edition_check"]:
            from flip7ref.core import edition_check as home
        elif name in _LAZY["schema"]:
            from flip7ref.core import schema as home
        elif name in _LAZY["textfiles"]:
            from flip7ref.core import textfiles as home
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(home, name)
        globals()[name] = value
        return value


_SOURCES = ("spec.py", "edition.py", "edition_check.py", "schema.py", "textfiles.py", "checked_tables.py")
"""The modules whose code decides what a table file is read into (their source is part of the cache key)."""


def _read_yaml(path: Path) -> object:
    from flip7ref.core.textfiles import read_yaml_file

    return read_yaml_file(path, "edition table file")


def parse_edition(data: object, file: str, *, schema_checked: bool = False, digest: str = "") -> Edition:
    """Check already-parsed table data and build an `Edition`.

    Args:
        data: the YAML document as plain Python data.
        file: the file name to put in error messages.
        schema_checked: the data is known to pass the JSON Schema and the meaning
            checks (a shipped table listed in `flip7ref.core.checked_tables`): those two
            jsonschema steps are skipped, the other checks run.
        digest: the `Edition.digest` of the table (its file's bytes), or empty.

    Raises:
        SpecError: on any schema violation or broken cross reference, naming
            ``file``, the path inside it and what was expected.
    """
    from flip7ref.core.edition_check import MAX_DECK_CARDS, check_meaning, check_structure, option_refs
    from flip7ref.core.schema import pointer, section_defaults, validate

    if not schema_checked:
        validate(data, "edition", file)
    assert isinstance(data, dict)
    check_structure(data, file)
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
                unsourced_names=tuple(c.get("unsourced_names") or ()),
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
        for opt, path, values in option_refs(data.get(section), [section]):
            if opt not in options:
                raise SpecError(file, pointer([*path, "option"]), f"the name of an option of this table (no option {opt!r})")
            if isinstance(values, dict):
                for reading in options[opt].readings:
                    if reading.name not in values:
                        raise SpecError(file, pointer([*path, "values"]), f"a value for reading {reading.name!r}")
    if not schema_checked:
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
        round=_with_defaults(data.get("round") or {}, section_defaults("edition", "round")),
        scoring=tuple(data["scoring"]),
        game_end=_with_defaults(data.get("game_end") or {}, section_defaults("edition", "game_end")),
        options=options,
        rules=rules,
        disputes=dict(data.get("disputes") or {}),
        sources=dict(data.get("sources") or {}),
        event_rules=event_rules,
        digest=digest,
    )



def _with_defaults(section: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """A table section with the schema's default for each key it leaves out (table order, then schema order)."""
    return {**section, **{key: value for key, value in defaults.items() if key not in section}}

def load_edition_file(path: str | Path) -> Edition:
    """Load and check an edition table from a YAML file.

    Raises:
        SpecError: when the file is missing, not YAML, or violates the schema or
            its own cross references.
    """
    if not isinstance(path, (str, Path)):
        raise SpecError(repr(path), "", "the path of an edition table (a string or a Path)")
    p = Path(path)
    from flip7ref.core.textfiles import MAX_YAML_BYTES, read_bytes_file

    raw = read_bytes_file(p, "edition table file", limit=MAX_YAML_BYTES)  # a named pipe or a folder: refused unread
    cache = _cache_file(p, raw)
    if cache is not None:
        import pickle  # here: a start with FLIP7REF_NO_CACHE set imports no pickle

        try:  # read_bytes_file: a named pipe in the cache folder is not waited on
            cached = pickle.loads(read_bytes_file(cache, "table cache file"))
            if isinstance(cached, Edition):
                touch_cache(cache)
                return cached
        except Exception:  # no cache yet, or unreadable: read the table
            pass
    from flip7ref.core.checked_tables import checked_table

    checked, data = checked_table(p, spec_dir() / "schema" / "edition.schema.json", table=raw)
    digest = blake2b(raw, digest_size=16).hexdigest()
    edition = parse_edition(_read_yaml(p) if data is None else data, str(p), schema_checked=checked, digest=digest)
    if cache is not None:
        write_cache(cache, edition)
    return edition


def cache_dir() -> Path | None:
    """The folder of the table cache, or None when ``FLIP7REF_NO_CACHE`` is set.

    ``FLIP7REF_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/flip7ref`` (``~/.cache/flip7ref``).
    A checked table is kept there under a BLAKE2b digest of the table's bytes, its path, the
    edition schema, the source of the modules that read and check it, the package version and the Python version,
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


def _cache_file(path: Path, table: bytes) -> Path | None:
    """The cache file of the table at ``path`` whose bytes are ``table``; None when caching is off."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        from flip7ref import __version__

        digest = blake2b(digest_size=32)
        for part in (
            table,
            str(path).encode(),
            (spec_dir() / "schema" / "edition.schema.json").read_bytes(),
            *(Path(__file__).with_name(name).read_bytes() for name in _SOURCES),
            f"{__version__} {sys.version}".encode(),
        ):
            digest.update(len(part).to_bytes(8, "little") + part)
    except (OSError, SpecError):  # an unreadable table is reported by the normal path
        return None
    place = blake2b(str(path).encode(), digest_size=8).hexdigest()  # one cache file per table path
    return folder / f"edition-{place}-{digest.hexdigest()}.pickle"


# The cache folder's pruning (write_cache): the most recently used cache files kept, and the age (seconds)
# after which a temporary file that an interrupted write left is removed.
CACHE_KEEP = 64
CACHE_STALE_TEMP = 3600.0


def touch_cache(cache: Path) -> None:
    """Mark the cache file ``cache`` as just used (its modification time), so that pruning keeps it.
    Raises nothing."""
    with contextlib.suppress(OSError):
        os.utime(cache)


def prune_cache(folder: Path, keep: int = CACHE_KEEP) -> None:
    """Remove from ``folder`` all but the ``keep`` most recently used ``*.pickle`` cache files
    (by modification time: a cache hit touches its file) and the temporary files (names
    starting with ``.``, no ``.pickle``) older than `CACHE_STALE_TEMP` seconds; subfolders
    (e.g. ``npm/``) and other files are left alone.  Raises nothing."""
    import time

    now = time.time()
    pickles: list[tuple[float, str]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if not entry.is_file(follow_symlinks=False):
                    continue
                mtime = entry.stat(follow_symlinks=False).st_mtime
                if entry.name.endswith(".pickle"):
                    pickles.append((mtime, entry.path))
                elif entry.name.startswith((".edition-", ".case-index-")) and now - mtime > CACHE_STALE_TEMP:
                    Path(entry.path).unlink(missing_ok=True)
        for _, path in sorted(pickles, reverse=True)[keep:]:
            Path(path).unlink(missing_ok=True)
    except OSError:
        pass


def write_cache(cache: Path, value: object, prefix: str = ".edition-") -> None:
    """Pickle ``value`` to the cache file ``cache`` atomically (a temporary file named
    ``prefix``..., then a rename), removing the older files of the same place
    (``NAME-*.pickle`` beside it, e.g. the same table before a change), then pruning the
    folder (`prune_cache`: the `CACHE_KEEP` most recently used files stay); a cache that
    cannot be written is skipped.  Used by the edition-table cache and the case index
    (`flip7ref.checking.case_index`).  Raises nothing."""
    import pickle
    import tempfile  # only when a cache is written (tempfile imports shutil, bz2, lzma...)

    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache.parent, prefix=prefix)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, cache)
        place = cache.name.rsplit("-", 1)[0]
        for older in cache.parent.glob(f"{place}-*.pickle"):
            if older != cache:
                older.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError):
        Path(tmp).unlink(missing_ok=True)
        return
    prune_cache(cache.parent)


_SHIPPED: dict[str, Edition] = {}


def preload_shipped(editions: dict[str, Edition]) -> None:
    """Use ``editions`` (id -> a table `load_edition` returned, e.g. unpickled) for those
    shipped ids from now on, without reading their YAML.  The static build of the table
    referee (`flip7ref.table.browser`) ships the checked tables this way, so the browser
    needs neither PyYAML nor jsonschema.

    Raises:
        OptionError: an id that is not a shipped edition, or a value that is not an `Edition`
            of that id.
    """
    from flip7ref.core.errors import OptionError

    for name, edition in editions.items():
        if name not in edition_ids() or not isinstance(edition, Edition) or edition.id != name:
            raise OptionError(f"preload_shipped: {name!r} is not the shipped edition table of that id")
    _SHIPPED.update(editions)


def _is_file(name: str) -> bool:
    """Whether ``name`` names an existing file; False for a name the system cannot look up
    (too long for a file name, a NUL character)."""
    try:
        return Path(name).is_file()
    except (OSError, ValueError):
        return False


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
    from flip7ref.core.errors import OptionError

    if not isinstance(name, str):
        raise OptionError(f"edition: expected an edition id or the path of a .yaml table, got {short_repr(name)}")
    if name in _SHIPPED:
        return _SHIPPED[name]
    shipped = name in edition_ids()  # a shipped id wins over a file of that name in the working folder
    if not shipped and (name.endswith((".yaml", ".yml")) or "/" in name or "\\" in name or _is_file(name)):
        return load_edition_file(name)
    if not shipped:
        raise OptionError(f"unknown edition {short_repr(name)} (expected one of: {', '.join(edition_ids())})")
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
    "MAX_DECK_CARDS",
    "MAX_INT_CHARS",
    "MAX_TEXT_BYTES",
    "MAX_YAML_BYTES",
    "MAX_YAML_DEPTH",
    "MAX_YAML_NODES",
    "CardError",
    "CardKind",
    "Edition",
    "OptionSpec",
    "Reading",
    "Rule",
    "cache_dir",
    "check_meaning",
    "edition_ids",
    "load_edition",
    "load_edition_file",
    "load_schema",
    "parse_cards",
    "parse_edition",
    "parse_yaml",
    "pointer",
    "preload_shipped",
    "read_text_file",
    "read_yaml_file",
    "spec_dir",
    "validate",
]
