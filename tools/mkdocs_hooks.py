"""MkDocs hooks of the documentation site (``hooks:`` in mkdocs.yml).

The conformance pages of the site include ``conformance/README.md`` and
``conformance/PROTOCOL.md`` (pymdownx.snippets) under ``docs/conformance/``. Their links to
the engine kit, ``examples/engine.js`` and ``examples/engine.py``, are relative to
``conformance/``, where they work on the repository. `on_files` publishes those files on the
site at the same place, ``conformance/examples/``, so the same links work there too and the
kit can be downloaded from the site; the "Engine kit" page (docs/conformance/engine-kit.md)
shows both skeletons.
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


def on_files(files: Files, config: Any) -> Files:
    """Add every file of `published_files` to the site as a generated file (copied as is)."""
    for uri, path in published_files().items():
        if files.get_file_from_path(uri) is None:
            files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files
