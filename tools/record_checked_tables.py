"""Write the digests of the shipped edition tables into flip7ref/core/checked_tables.py.

Each table is first checked in full (JSON Schema, cross references, meaning); only a table
that passes is recorded, with its parsed data in flip7ref/core/checked_tables.json (and that
file's digest in DATA_DIGEST).  Run after changing a table, the edition schema or the modules
that read and check tables (flip7ref.core.checked_tables.SOURCES)::

    python tools/record_checked_tables.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from flip7ref.core.checked_tables import DATA_FILE, blake2b, table_digest  # noqa: E402
from flip7ref.core.edition import edition_ids, spec_dir  # noqa: E402
from flip7ref.core.errors import SpecError  # noqa: E402
from flip7ref.core.spec import _read_yaml, parse_edition  # noqa: E402


def main() -> int:
    """Check every shipped table in full and record its digest; exit status 2 if one fails."""
    schema = spec_dir() / "schema" / "edition.schema.json"
    digests = []
    tables: dict[str, object] = {}
    for name in edition_ids():
        path = spec_dir() / "editions" / f"{name}.yaml"
        try:
            data = _read_yaml(path)
            parse_edition(data, str(path))  # the full check, never the shortcut
        except SpecError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if json.loads(json.dumps(data)) != data:  # e.g. a mapping with a number as key
            print(f"error: {path}: the table's data does not survive JSON unchanged", file=sys.stderr)
            return 2
        digests.append(table_digest(path.read_bytes(), schema.read_bytes()))
        tables[digests[-1]] = data
    raw = (json.dumps(tables, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    DATA_FILE.write_bytes(raw)
    module = ROOT / "flip7ref" / "core" / "checked_tables.py"
    text = module.read_text(encoding="utf-8")
    body = "".join(f'    "{d}",\n' for d in sorted(digests))
    text, count = re.subn(r"(CHECKED: Final\[frozenset\[str\]\] = frozenset\(\{\n)(.*?)(\}\))", lambda m: m[1] + body + m[3],
                          text, count=1, flags=re.S)  # fmt: skip
    line = f'DATA_DIGEST: Final = "{blake2b(raw, digest_size=32).hexdigest()}"'
    text, found = re.subn(r'^DATA_DIGEST: Final = "[0-9a-f]*"', line, text, count=1, flags=re.M)
    if count != 1 or found != 1:
        print(f"error: {module}: the CHECKED set or DATA_DIGEST was not found", file=sys.stderr)
        return 2
    module.write_text(text, encoding="utf-8")
    print(f"recorded {len(digests)} tables in {module.relative_to(ROOT)} and {DATA_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
