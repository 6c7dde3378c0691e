"""The shipped edition tables known to pass the JSON Schema: start-up without the table cache.

A table read without the cache (a fresh machine, ``FLIP7REF_NO_CACHE=1``) is validated
against ``spec/schema/edition.schema.json`` with jsonschema, which costs more than half of
that start-up (importing jsonschema and its reference resolver, then walking the schema).
For the tables shipped with the package the answer is known in advance: `CHECKED` holds a
BLAKE2b digest (`table_digest`) of each one's bytes together with the edition schema and the
source of the modules that read and check a table (the inputs of the table cache's key but
the path and the versions).  A table whose digest is listed here passed the schema and the
meaning checks when the list was written (``python tools/record_checked_tables.py`` checks each
table in full before it records it), so `flip7ref.spec.parse_edition` may skip those two
jsonschema steps for it; every other check still runs.  Any change to a table, the schema or
that code changes the digest, and the table is then validated in full as before
(tests/test_checked_tables.py checks that the list is current).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

try:  # the interpreter's built-in BLAKE2 (hashlib would load OpenSSL), as flip7ref.spec does
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

SOURCES: Final = ("spec.py", "edition.py", "edition_check.py", "schema.py", "textfiles.py")
"""The modules whose code decides what a table file is read into and how it is checked."""

CHECKED: Final[frozenset[str]] = frozenset({
    "65e3f44afd70bfad598e507905980cad7cb9b67e7b61e3f08f6597fa28846a3b",
    "982205310d54df9fc875de305146b9b5e78a919cf7dd00a275fadf937070d4e1",
})  # fmt: skip
"""Digests (`table_digest`) of the shipped tables, written by tools/record_checked_tables.py."""


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


def known_valid(path: Path, schema: Path) -> bool:
    """Whether the table file at ``path`` is one of the checked shipped tables (`CHECKED`),
    with the edition schema at ``schema``.  Raises nothing: an unreadable file is not known."""
    try:
        return table_digest(path.read_bytes(), schema.read_bytes()) in CHECKED
    except OSError:
        return False
