"""The shipped edition tables known to pass the JSON Schema: start-up without the table cache.

A table read without the cache (a fresh machine, ``FLIP7REF_NO_CACHE=1``) is validated
against ``spec/schema/edition.schema.json`` with jsonschema, which costs more than half of
that start-up (importing jsonschema and its reference resolver, then walking the schema).
For the tables shipped with the package the answer is known in advance: `CHECKED` holds a
BLAKE2b digest (`table_digest`) of each one's bytes together with the edition schema and the
source of the modules that read and check a table (the inputs of the table cache's key but
the path and the versions).  A table whose digest is listed here passed the schema and the
meaning checks when the list was written (``python tools/record_checked_tables.py`` checks each
table in full before it records it), so `flip7ref.core.spec.parse_edition` may skip those two
jsonschema steps for it; every other check still runs.  Any change to a table, the schema or
that code changes the digest, and the table is then validated in full as before
(tests/test_checked_tables.py checks that the list is current).

The same tool writes ``checked_tables.json`` beside this module: the parsed data of each
listed table, keyed by its digest, so that a start without the cache does not import PyYAML
or parse YAML either (about 0.1 s of the 0.23 s such a start took).  `DATA_DIGEST` is the
BLAKE2b digest of that file's bytes: a file that does not match it (changed by hand, cut
short) is not used, and the table is read from its YAML as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from flip7ref.core.errors import SpecError

try:  # the interpreter's built-in BLAKE2 (hashlib would load OpenSSL), as flip7ref.core.spec does
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

SOURCES: Final = ("spec.py", "edition.py", "edition_check.py", "schema.py", "textfiles.py")
"""The modules whose code decides what a table file is read into and how it is checked."""

CHECKED: Final[frozenset[str]] = frozenset({
    "13f1515487d79701271d16813637805bced03e1c472873a5a657fc16cd56d970",
    "2def16e14f42e4498a7f546348673c41550d0e4d0e84585bba20c5bacc5d0285",
})  # fmt: skip
"""Digests (`table_digest`) of the shipped tables, written by tools/record_checked_tables.py."""


DATA_DIGEST: Final = "bc04b63e0c010c26c42c9410e46b730f280618d7a0fd251304121a2fca09979c"
"""The digest (BLAKE2b, 256 bits, hex) of ``checked_tables.json``, written with it by
tools/record_checked_tables.py."""

DATA_FILE: Final = Path(__file__).with_name("checked_tables.json")
"""The parsed data of the `CHECKED` tables, ``{digest: table data}`` (JSON)."""


def table_digest(table: bytes, schema: bytes) -> str:
    """The BLAKE2b digest (256 bits, hex) of a table's bytes, the edition schema's bytes and
    the source of the `SOURCES` modules.

    Raises:
        OSError: a module's source cannot be read (a broken installation).
    """
    digest = blake2b(digest_size=32)
    here = Path(__file__).parent
    for part in (table, schema, *((here / name).read_bytes() for name in SOURCES)):
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()


def _read(path: Path) -> bytes:
    """The bytes of a regular file (`flip7ref.core.textfiles.read_bytes_file`: a named pipe is refused unread).

    Raises:
        SpecError: missing, not a regular file, too large or unreadable.
    """
    from flip7ref.core.textfiles import MAX_YAML_BYTES, read_bytes_file

    return read_bytes_file(path, "edition table file", limit=MAX_YAML_BYTES)


def checked_table(path: Path, schema: Path, *, table: bytes | None = None) -> tuple[bool, object | None]:
    """Whether the table file at ``path`` is one of the checked shipped tables (`CHECKED`),
    with the edition schema at ``schema``, and if so its parsed data from `DATA_FILE` (the
    plain data `yaml.safe_load` gives for the file; None when `DATA_FILE` is missing or does
    not match `DATA_DIGEST`: then read the YAML).  ``table``: the file's bytes when the caller
    has read them already.  Raises nothing: an unreadable file (or not a regular file) is not
    known."""
    try:
        digest = table_digest(_read(path) if table is None else table, schema.read_bytes())
    except (OSError, SpecError):
        return False, None
    if digest not in CHECKED:
        return False, None
    try:
        raw = DATA_FILE.read_bytes()
    except OSError:
        return True, None
    if blake2b(raw, digest_size=32).hexdigest() != DATA_DIGEST:
        return True, None
    import json

    try:
        data = json.loads(raw)
    except ValueError:  # pragma: no cover - the digest matched what the tool wrote
        return True, None
    return True, data.get(digest) if isinstance(data, dict) else None


def known_valid(path: Path, schema: Path) -> bool:
    """Whether the table file at ``path`` is one of the checked shipped tables (`CHECKED`),
    with the edition schema at ``schema``.  Raises nothing: an unreadable file is not known."""
    try:
        return table_digest(_read(path), schema.read_bytes()) in CHECKED
    except (OSError, SpecError):
        return False
