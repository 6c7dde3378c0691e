"""The docs site's layout (mkdocs.yml), checked without MkDocs installed.

CI also builds the site with ``mkdocs build --strict`` (the ``docs`` extra); this test
catches the commonest mistake earlier and names the fix: a page under docs/ that the nav
does not list (add one line to ``nav:`` in mkdocs.yml), or a nav entry without its file.
These tests check the documentation, so they cite no rule ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _nav_files(entries: Any) -> Iterator[str]:
    for entry in entries:
        if isinstance(entry, str):
            yield entry
        elif isinstance(entry, dict):
            for value in entry.values():
                yield from _nav_files(value) if isinstance(value, list) else [value]


def test_nav_lists_every_page_and_only_existing_ones() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = set(_nav_files(config["nav"]))
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    missing = sorted(pages - nav)
    assert not missing, f"pages not in mkdocs.yml's nav (add a line '- Title: PATH' under a section): {missing}"
    assert not sorted(nav - pages), "nav entries without a file under docs/"
    assert {"README.md", "start/implementers.md", "start/players.md", "start/researchers.md", "disputes.md"} <= nav


def test_included_files_exist_and_are_not_copied() -> None:
    """Each snippet page includes an existing repository file, and holds nothing else but a note."""
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r'^--8<-- "([^"]+)"$', text, flags=re.MULTILINE):
            assert (ROOT / target).is_file(), f"{page.relative_to(ROOT)} includes {target}, which does not exist"
            assert len(text.splitlines()) <= 3, f"{page.relative_to(ROOT)}: a snippet page holds only the include"
    protocol = (DOCS / "conformance" / "PROTOCOL.md").read_text(encoding="utf-8")
    assert '--8<-- "conformance/PROTOCOL.md"' in protocol
