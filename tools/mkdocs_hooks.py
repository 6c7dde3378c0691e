"""MkDocs hooks of the documentation site (``hooks:`` in mkdocs.yml).

The conformance pages of the site include ``conformance/README.md`` and
``conformance/PROTOCOL.md`` (pymdownx.snippets) under ``docs/conformance/``. Their links to
the engine kit, ``examples/engine.js`` and ``examples/engine.py``, are relative to
``conformance/``, where they work on the repository. `on_files` publishes those files on the
site at the same place, ``conformance/examples/``, so the same links work there too and the
kit can be downloaded from the site; the "Engine kit" page (docs/conformance/engine-kit.md)
shows both skeletons.

`on_files` also publishes the table referee's static page (``flip7ref table --static``) under
``play/``, so the site itself is an install-free referee (docs/table.md links to it).  It needs
Pyodide (`flip7ref.table.static_build.find_pyodide`: ``$FLIP7REF_PYODIDE``, a ``node_modules``
or ``~/.cache/flip7ref/npm``); without it ``play/index.html`` is a page saying how to get it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
# Repository folder -> the folder of the site (under docs_dir) where its files appear.
PUBLISHED = {"conformance/examples": "conformance/examples"}


def published_files() -> dict[str, Path]:
    """The repository files the site publishes: ``{site path: source file}``, e.g.
    ``{"conformance/examples/engine.js": Path(".../conformance/examples/engine.js")}``."""
    found: dict[str, Path] = {}
    for source, target in PUBLISHED.items():
        for path in sorted((ROOT / source).iterdir()):
            if path.is_file():
                found[f"{target}/{path.name}"] = path
    return found


PLAY = "play"
"""The folder of the site that holds the static table referee."""

NO_PYODIDE = """<!doctype html><html lang="en"><meta charset="utf-8"><title>Flip 7 table referee</title>
<p>This copy of the site was built without Pyodide, so the referee that runs in the browser is not
here. Build the site with Pyodide installed ({hint}), or build the page yourself with
<code>flip7ref table --static DIR</code>.</p></html>
"""


def play_files() -> dict[str, bytes]:
    """The static table referee's files (``{path under play/: content}``), or one page saying
    how to get Pyodide when it is not installed."""
    from flip7ref.core.errors import OptionError
    from flip7ref.table.static_build import INSTALL_HINT, find_pyodide, render

    try:
        pyodide = find_pyodide()
    except OptionError:
        return {"index.html": NO_PYODIDE.format(hint=INSTALL_HINT).encode()}
    return render(pyodide)


def on_files(files: Files, config: Any) -> Files:
    """Add every file of `published_files` to the site as a generated file (copied as is),
    and the static table referee under `PLAY` (`play_files`)."""
    for uri, path in published_files().items():
        if files.get_file_from_path(uri) is None:
            files.append(File.generated(config, uri, abs_src_path=str(path)))
    for rel, content in play_files().items():
        uri = f"{PLAY}/{rel}"
        if files.get_file_from_path(uri) is None:
            files.append(File.generated(config, uri, content=content))
    return files
