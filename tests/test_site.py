"""The docs site's layout (mkdocs.yml), checked without MkDocs installed.

CI also builds the site with ``mkdocs build --strict`` (the ``docs`` extra); this test
catches the commonest mistake earlier and names the fix: a page under docs/ that the nav
does not list (add one line to ``nav:`` in mkdocs.yml), or a nav entry without its file.
These tests check the documentation, so they cite no rule ids.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
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
    """Each snippet page includes an existing repository file; a page including a Markdown file
    holds nothing else but a note (a code file may be included into a code block of a page)."""
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r'^--8<-- "([^"]+)"$', text, flags=re.MULTILINE):
            assert (ROOT / target).is_file(), f"{page.relative_to(ROOT)} includes {target}, which does not exist"
            if target.endswith(".md"):
                assert len(text.splitlines()) <= 3, f"{page.relative_to(ROOT)}: a snippet page holds only the include"
    protocol = (DOCS / "conformance" / "PROTOCOL.md").read_text(encoding="utf-8")
    assert '--8<-- "conformance/PROTOCOL.md"' in protocol


def test_the_engine_kit_is_on_the_site() -> None:
    """The nav has the Engine kit page, which shows both skeletons, and the site hook publishes
    conformance/examples/* where the links of conformance/README.md and PROTOCOL.md point."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert "conformance/engine-kit.md" in set(_nav_files(config["nav"]))
    assert "tools/mkdocs_hooks.py" in config["hooks"]
    kit = (DOCS / "conformance" / "engine-kit.md").read_text(encoding="utf-8")
    assert '```js\n--8<-- "conformance/examples/engine.js"\n```' in kit
    assert '```python\n--8<-- "conformance/examples/engine.py"\n```' in kit
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        hooks = pytest.importorskip("mkdocs_hooks", reason="MkDocs (the [docs] extra) is not installed")
    finally:
        sys.path.remove(str(ROOT / "tools"))
    published = hooks.published_files()
    assert sorted(published) == ["conformance/examples/engine.js", "conformance/examples/engine.py"]
    for page in ("README.md", "PROTOCOL.md"):
        text = (ROOT / "conformance" / page).read_text(encoding="utf-8")
        for link in re.findall(r"\]\((examples/[^)#]+)\)", text):
            # relative to conformance/ on the repository, and to docs/conformance/ on the site
            assert (ROOT / "conformance" / link).is_file() and f"conformance/{link}" in published, (page, link)


def test_install_page_and_settings_for_every_mkdocs_command() -> None:
    """The Install page is under "Start here"; the site's CSS is listed; every mkdocs command
    shown in README.md and docs/ sets NO_MKDOCS_2_WARNING=1 (the theme's end-of-life banner)."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    start = next(entry["Start here"] for entry in config["nav"] if isinstance(entry, dict) and "Start here" in entry)
    assert {"Install": "install.md"} in start
    assert config["extra_css"] == ["stylesheets/extra.css"] and (DOCS / "stylesheets" / "extra.css").is_file()
    for page in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        for line in page.read_text(encoding="utf-8").splitlines():
            for use in re.finditer(r"[\w./-]*mkdocs (?:build|serve)", line):
                assert line[: use.start()].endswith("NO_MKDOCS_2_WARNING=1 "), f"{page.relative_to(ROOT)}: {line.strip()}"


# The modules whose public signatures say Any (so that the compiled build's own checks give the
# errors) and whose API pages must still give the accepted types, in the docstrings' Args.
TYPED_IN_DOCSTRINGS = [
    "core/game.py", "core/state.py", "core/model.py", "core/scoring.py", "play/games.py", "play/strategies.py",
    "analysis/solver.py",
]


def test_api_pages_give_a_type_for_every_parameter_annotated_any() -> None:
    """A public parameter annotated ``Any`` of a docstring with an Args section has its type there
    (``name (type): ...``), which the API reference's Parameters table shows instead of ``Any``;
    for ``__init__``, in the class docstring."""
    missing = []
    for name in TYPED_IN_DOCSTRINGS:
        tree = ast.parse((ROOT / "flip7ref" / name).read_text(encoding="utf-8"))
        scopes: list[tuple[str, ast.AST, str]] = [("", tree, "")]
        scopes += [(f"{c.name}.", c, ast.get_docstring(c) or "") for c in tree.body if isinstance(c, ast.ClassDef)]
        for prefix, scope, class_doc in scopes:
            for fn in getattr(scope, "body", []):
                if not isinstance(fn, ast.FunctionDef) or (fn.name.startswith("_") and fn.name != "__init__"):
                    continue
                if prefix.startswith("_"):  # a private class
                    continue
                doc = class_doc if fn.name == "__init__" else ast.get_docstring(fn) or ""
                if "Args:" not in doc:  # no Parameters table on the page, so no Any either
                    continue
                args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
                for arg in args:
                    if arg.arg == "self":  # `self: Any` lets a compiled class be subclassed (flip7ref.play.strategies)
                        continue
                    if isinstance(arg.annotation, ast.Name) and arg.annotation.id == "Any" and f"{arg.arg} (" not in doc:
                        missing.append(f"flip7ref/{name}: {prefix}{fn.name}({arg.arg})")
    assert not missing, f"give these parameters' types in the docstring's Args: {missing}"


def test_links_to_site_pages_are_named_by_title_not_file_name() -> None:
    """A link from one site page to another reads as words ("[Disputes](disputes.md)"), not as the
    file name ("[disputes.md](disputes.md)"), which the rendered site shows as a path (issue 42)."""
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for text, target in re.findall(r"\[([^\]]+)\]\(([^)#]+\.md)(?:#[^)]*)?\)", line):
                if text.strip("`").endswith(".md"):
                    found.append(f"{page.relative_to(ROOT)}:{number}: [{text}]({target})")
    assert not found, "name the page in words: " + "; ".join(found)
