"""A light index of the shipped conformance suite, for read-only look-ups.

Listing the cases that cite one rule (``flip7ref rules F7-073``, ``flip7ref coverage``),
finding one case by id (``flip7ref explain --case``) or the cases attached to a dispute
(``flip7ref dispute``) needs only a few fields of each case: its id, edition, cited
rules, pinned reading, option names and the file holding it.  Loading and validating
every case file for that costs seconds; this module reads those fields instead:

* from the *index cache*, a small pickle in `flip7ref.core.spec.cache_dir` (the folder of
  the table cache, off with ``FLIP7REF_NO_CACHE``) keyed by a BLAKE2b digest of every
  shipped case file's path and bytes, this module's code, the package version and the
  Python version — so it is used only for exactly the same suite and code; one file per
  suite folder, so installations sharing the cache folder do not evict each other;
* else from the files themselves, parsed by PyYAML's safe loader (the C loader where
  libyaml is available) without schema validation, and written to the cache.

An entry is a plain mapping with the keys the look-ups read: ``id``, ``edition``,
``rules``, ``reading`` (``{option, value, dispute}`` or absent), ``options``
(``{name: value}``) and ``file`` (the case file, relative to
`flip7ref.checking.conformance.cases_dir`), so `flip7ref.docs.cases_by_rule` and
`flip7ref.docs.cases_by_dispute` accept entries as they accept whole cases.  A
whole case is loaded (and validated) from its file only when it is played:
`load_shipped_case`.  The suite's own test checks that the index agrees with
`flip7ref.checking.conformance.load_cases`.
"""

from __future__ import annotations

import functools
import pickle
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from flip7ref.core.errors import SpecError
from flip7ref.core.spec import touch_cache, write_cache

try:  # the interpreter's built-in BLAKE2, as in flip7ref.core.spec: hashlib would load OpenSSL
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

CaseEntry = Mapping[str, Any]

INDEX_FORMAT = 1
"""The layout of an index entry; part of the cache key."""

def _files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.yaml"))


def _cache_file(root: Path, files: Sequence[Path], blobs: Sequence[bytes]) -> Path | None:
    from flip7ref import __version__
    from flip7ref.core.spec import cache_dir

    folder = cache_dir()
    if folder is None:
        return None
    digest = blake2b(digest_size=32)
    try:
        code = Path(__file__).read_bytes()
    except OSError:
        code = b""
    parts = [f"{INDEX_FORMAT} {__version__} {sys.version} {root}".encode(), code]
    for f, blob in zip(files, blobs, strict=True):
        parts += [f.relative_to(root).as_posix().encode(), blob]
    for part in parts:
        digest.update(len(part).to_bytes(8, "little") + part)
    place = blake2b(str(root).encode(), digest_size=8).hexdigest()  # one index per suite folder (per installation)
    return folder / f"case-index-{place}-{digest.hexdigest()}.pickle"


def _entries_of(rel: str, data: object) -> list[dict[str, Any]] | None:
    """The index entries of one parsed case file, or None when its shape is not a case file's."""
    if not isinstance(data, Mapping) or not isinstance(data.get("cases"), list):
        return None
    out: list[dict[str, Any]] = []
    for case in data["cases"]:
        if not isinstance(case, Mapping) or not isinstance(case.get("id"), str) or not isinstance(case.get("edition"), str):
            return None
        rules = case.get("rules") or []
        reading = case.get("reading")
        options = case.get("options") or {}
        if not isinstance(rules, list) or not isinstance(options, Mapping) or not isinstance(reading, (Mapping, type(None))):
            return None
        entry: dict[str, Any] = {"id": case["id"], "edition": case["edition"], "rules": [str(r) for r in rules],
                                 "options": dict(options), "file": rel}  # fmt: skip
        if reading is not None:
            entry["reading"] = dict(reading)
        out.append(entry)
    return out


def _build(root: Path, files: Sequence[Path], blobs: Sequence[bytes]) -> tuple[dict[str, Any], ...]:
    """Parse the files (no schema validation); a file of another shape is loaded the full way,
    which raises its SpecError (naming the file and the fault)."""
    import yaml

    from flip7ref.checking.conformance import load_case_file
    from flip7ref.core.textfiles import MAX_YAML_BYTES

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    out: list[dict[str, Any]] = []
    seen: dict[str, str] = {}
    for f, blob in zip(files, blobs, strict=True):
        rel = f.relative_to(root).as_posix()
        entries = None
        if len(blob) <= MAX_YAML_BYTES:
            try:
                entries = _entries_of(rel, yaml.load(blob.decode("utf-8"), Loader=loader))
            except (yaml.YAMLError, UnicodeDecodeError, RecursionError, ValueError):
                entries = None
        if entries is None:
            load_case_file(f)  # raises the file's own error
            raise SpecError(str(f), "", "a case file (a mapping with a 'cases' list of cases with ids)")
        for e in entries:
            if e["id"] in seen:
                raise SpecError(str(f), f"id {e['id']}", f"a case id not used before (also in {seen[e['id']]})")
            seen[e["id"]] = str(f)
        out.extend(entries)
    return tuple(out)


def _fits(cached: object, files: set[str]) -> bool:
    """Whether ``cached`` (what the index cache gave back) has the shape `_build` gives for the
    case files ``files`` (relative paths): a tuple of entries (id, edition, rules, options,
    file, reading if any, of their types, ids used once) citing every one of those files and
    no other (every case file holds at least one case).  A cache written by something else
    (a forged, truncated or foreign pickle) does not fit and is built again."""
    if not isinstance(cached, tuple) or not cached:
        return False
    seen_ids: set[str] = set()
    seen_files: set[str] = set()
    for e in cached:
        if not isinstance(e, dict) or not {"id", "edition", "rules", "options", "file"} <= e.keys() <= _ENTRY_KEYS:
            return False
        if not all(isinstance(e[k], str) for k in ("id", "edition", "file")) or e["id"] in seen_ids:
            return False
        if not isinstance(e["rules"], list) or not all(isinstance(r, str) for r in e["rules"]):
            return False
        if not isinstance(e["options"], dict) or not isinstance(e.get("reading", {}), dict):
            return False
        seen_ids.add(e["id"])
        seen_files.add(e["file"])
    return seen_files == files


_ENTRY_KEYS = frozenset({"id", "edition", "rules", "options", "file", "reading"})
"""The keys an index entry may have (`_entries_of`)."""


@functools.cache
def case_index() -> tuple[CaseEntry, ...]:
    """The index entries of the shipped suite, in suite order (files sorted by path), once per process.

    Returns:
        One read-only mapping per case: ``id`` (str), ``edition`` (str), ``rules`` (list of
        rule ids), ``options`` (``{name: value}``, empty when the case sets none), ``reading``
        (present when the case pins one) and ``file`` (relative to `flip7ref.checking.conformance.cases_dir`).

    Raises:
        SpecError: a shipped case file cannot be read or is not a case file (a broken
            installation; the file and the fault are named), or a case id is used twice.
    """
    from flip7ref.checking.conformance import cases_dir
    from flip7ref.core.textfiles import MAX_YAML_BYTES, read_bytes_file

    root = cases_dir()
    files = _files(root)
    # a named pipe, a folder or a device named *.yaml is refused unread (the SpecError names it)
    blobs = [read_bytes_file(f, "case file", limit=MAX_YAML_BYTES) for f in files]
    cache = _cache_file(root, files, blobs)
    if cache is not None:
        try:
            cached = pickle.loads(read_bytes_file(cache, "case index cache file"))  # a named pipe: not waited on
            if _fits(cached, {f.relative_to(root).as_posix() for f in files}):
                touch_cache(cache)
                return cached  # type: ignore[no-any-return]  # _fits checked its shape
        except Exception:  # no cache yet, or unreadable: build it
            pass
    entries = _build(root, files, blobs)  # a cache that does not fit is written again
    if cache is not None:
        write_cache(cache, entries, ".case-index-")  # the suite folder's older indexes go, another install's stay
    return entries


def find_entry(case_id: str, entries: Iterable[CaseEntry] | None = None) -> CaseEntry | None:
    """The index entry of case ``case_id`` (case-insensitive, spaces around ignored), or None."""
    wanted = case_id.strip().casefold()
    for entry in case_index() if entries is None else entries:
        if str(entry["id"]).casefold() == wanted:
            return entry
    return None


def load_shipped_cases(entries: Iterable[CaseEntry]) -> list[Mapping[str, Any]]:
    """The whole cases of ``entries``, loaded and validated from their files (each file read once).

    Args:
        entries: index entries (from `case_index`).

    Returns:
        The cases, in the order of ``entries``.

    Raises:
        SpecError: a case file is malformed, or no longer holds a case of the index.
    """
    from flip7ref.checking.conformance import cases_dir, load_case_file

    root = cases_dir()
    wanted = list(entries)
    by_file: dict[str, dict[str, Mapping[str, Any]]] = {}
    out = []
    for entry in wanted:
        rel = str(entry["file"])
        if rel not in by_file:
            by_file[rel] = {str(c["id"]): c for c in load_case_file(root / rel)}
        case = by_file[rel].get(str(entry["id"]))
        if case is None:
            raise SpecError(str(root / rel), "", f"a case with id {entry['id']} (the case index says so)")
        out.append(case)
    return out
