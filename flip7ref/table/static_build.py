"""``flip7ref table --static DIR``: the table referee as a plain folder of files that runs
the reference itself in the browser, with no server and nothing to install.

What the folder holds (see docs/table.md):

- ``index.html`` (the server's page with relative addresses and `standalone.js` first),
  ``static/`` (the page's own scripts and texts, as the server sends them);
- ``standalone.js``: answers the page's ``/api`` calls in the browser, by a Web Worker
  (``worker.js``) running Pyodide, which runs `flip7ref.table.browser` -> the server's routes
  (`flip7ref.table.routes`) on the same `TableGame` code; games are saved in the
  browser's IndexedDB, transcripts exported and imported as files;
- ``sw.js``: a service worker that caches every file of the folder, so the page works
  offline once loaded; ``manifest.webmanifest`` lets a phone add it to the home screen;
- ``flip7ref.zip``: this package's Python sources with the spec, attrs and
  mypy_extensions (the core's pure-Python dependencies), and ``editions.pickle``: the
  two edition tables as `load_edition` checked them here (the browser then needs neither
  PyYAML nor jsonschema);
- ``pyodide/``: the Python runtime for the browser, copied from an npm install of the
  ``pyodide`` package (`find_pyodide`).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import zipfile
from pathlib import Path
from typing import Any

import attrs

from ..errors import OptionError

PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json", "package.json")
"""The files of the npm package ``pyodide`` the page needs (no package wheels: the core
needs only the standard library and the pure-Python modules of ``flip7ref.zip``)."""

TESTED_PYODIDE = "314.0.8"
"""The Pyodide version the browser tests run (CI installs this one)."""

LIB = "/lib/flip7ref"
"""Where the worker unpacks ``flip7ref.zip`` in Pyodide's file system."""

MARKER = "flip7ref-static.json"
"""The build's manifest: a folder holding it is a static build (and may be rebuilt)."""

HERE = Path(__file__).parent
PAGE = HERE / "static"
SHIM = HERE / "standalone"
INSTALL_HINT = "npm install --prefix ~/.cache/flip7ref/npm pyodide@" + TESTED_PYODIDE


def _cache_npm() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "flip7ref" / "npm" / "node_modules" / "pyodide"


def find_pyodide(given: str | None = None) -> Path:
    """The folder of the npm package ``pyodide`` (where ``pyodide.asm.wasm`` is).

    Looked for in order: ``given`` (``--pyodide``), ``$FLIP7REF_PYODIDE``,
    ``node_modules/pyodide`` in the working folder or one above it, then
    ``$XDG_CACHE_HOME/flip7ref/npm/node_modules/pyodide`` (``~/.cache/...``), where
    `INSTALL_HINT` puts it.  ``given`` may also be a folder holding ``node_modules/pyodide``.

    Raises:
        OptionError: not found, or a folder that lacks one of `PYODIDE_FILES` (the
            message says how to install it).
    """
    if given or os.environ.get("FLIP7REF_PYODIDE"):
        where = "--pyodide" if given else "$FLIP7REF_PYODIDE"
        path = Path(given or os.environ["FLIP7REF_PYODIDE"]).expanduser()
        if (path / "node_modules" / "pyodide").is_dir():
            path = path / "node_modules" / "pyodide"
        missing = [name for name in PYODIDE_FILES if not (path / name).is_file()]
        if missing:
            raise OptionError(f"{where}: {path} is not the npm package pyodide (no {missing[0]}); get it with: {INSTALL_HINT}")
        return path
    here = Path.cwd()
    for candidate in (*(p / "node_modules" / "pyodide" for p in (here, *here.parents)), _cache_npm()):
        if all((candidate / name).is_file() for name in PYODIDE_FILES):
            return candidate
    raise OptionError(f"--static needs Pyodide (the Python runtime for the browser): install it with: {INSTALL_HINT} "
                      "(or give --pyodide DIR, the folder of node_modules/pyodide)")  # fmt: skip


def _pure_sources(module: Any, zip_root: str) -> list[tuple[str, Path]]:
    """``(name in the zip, file)`` for every ``.py`` of an installed package or module."""
    path = Path(module.__file__)
    if path.name != "__init__.py":
        return [(f"{zip_root}{path.name}", path)]
    return [(f"{zip_root}{path.parent.name}/{p.relative_to(path.parent).as_posix()}", p)
            for p in sorted(path.parent.rglob("*.py")) if "__pycache__" not in p.parts]  # fmt: skip


def _library() -> bytes:
    """``flip7ref.zip``: the sources the worker imports, the spec, the texts and the
    pickled edition tables, with fixed timestamps (the same input gives the same bytes).

    Raises:
        OptionError: a module of flip7ref has no Python source here (an installation that
            ships compiled modules only).
    """
    import attr
    import mypy_extensions

    import flip7ref

    from .. import i18n
    from ..spec import load_edition, spec_dir

    package = Path(flip7ref.__file__).parent
    entries: list[tuple[str, Path]] = []
    for p in sorted(package.rglob("*")):
        rel = p.relative_to(package)
        if not p.is_file() or "__pycache__" in rel.parts or rel.parts[0] in ("spec", "_conformance"):
            continue
        if p.suffix in (".py", ".json") or p.name == "py.typed":
            entries.append((f"flip7ref/{rel.as_posix()}", p))
    for source in ("state", "table/routes", "table/session"):
        if not (package / f"{source}.py").is_file():
            raise OptionError(f"--static: the installed flip7ref has no Python source of {source}.py (in {package})")
    spec = spec_dir()
    entries += [(f"flip7ref/spec/{p.relative_to(spec).as_posix()}", p) for p in sorted(spec.rglob("*")) if p.is_file()]
    for module in (attr, attrs, mypy_extensions):
        entries += _pure_sources(module, "")
    editions = {
        e: attrs.evolve(load_edition(e), path=Path(f"{LIB}/flip7ref/spec/editions/{e}.yaml"))  # no folder of this machine
        for e in ("flip7", "vengeance")
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, path in entries:
            z.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), path.read_bytes(), zipfile.ZIP_DEFLATED)
        z.writestr(zipfile.ZipInfo("editions.pickle", (2020, 1, 1, 0, 0, 0)), pickle.dumps(editions, protocol=4),
                   zipfile.ZIP_DEFLATED)  # fmt: skip
        texts = {lang: dict(i18n.catalogue(lang)) for lang in i18n.LANGS}  # the rule texts, read and checked here
        z.writestr(zipfile.ZipInfo("i18n.pickle", (2020, 1, 1, 0, 0, 0)), pickle.dumps(texts, protocol=4),
                   zipfile.ZIP_DEFLATED)  # fmt: skip
    return out.getvalue()


def _page() -> str:
    """The server's ``index.html`` with relative addresses, the manifest and `standalone.js`.

    Raises:
        OptionError: the page lacks a line this rewrite expects (the page changed: fix here).
    """
    html = (PAGE / "index.html").read_text(encoding="utf-8")
    for old, new in (
        ('"/static/', '"static/'),
        ('<script src="static/app.js"', '<script src="standalone.js"></script>\n<script src="static/app.js"'),
        ("</head>", '<link rel="manifest" href="manifest.webmanifest">\n<meta name="theme-color" content="#1b5e20">\n</head>'),
        ('href="/"', 'href="./"'),
    ):
        if old not in html:
            raise OptionError(f"--static: static/index.html has no {old!r} to rewrite for the static page")
        html = html.replace(old, new)
    return html


def _digest(files: dict[str, bytes]) -> str:
    """A digest of the files' names and contents (the build's id, in ``sw.js``)."""
    digest = hashlib.blake2b(digest_size=8)
    for rel in sorted(files):
        digest.update(rel.encode() + b"\0" + hashlib.blake2b(files[rel]).digest())
    return digest.hexdigest()


def render(pyodide: Path) -> dict[str, bytes]:
    """Every file of the static page: relative path -> content (``sw.js`` lists the others
    with their digest; `build` writes them and the manifest `MARKER`; the docs site
    publishes them under ``play/``, tools/mkdocs_hooks.py).

    Args:
        pyodide: the npm package ``pyodide`` (see `find_pyodide`).

    Raises:
        OptionError: see `_page` and `_library`.
    """
    version = json.loads((pyodide / "package.json").read_text(encoding="utf-8")).get("version", "?")
    files: dict[str, bytes] = {
        "index.html": _page().encode(),
        "flip7ref.zip": _library(),
        "standalone.js": (SHIM / "standalone.js").read_bytes(),
        "worker.js": (SHIM / "worker.js").read_bytes(),
        "manifest.webmanifest": (SHIM / "manifest.webmanifest").read_bytes(),
        "icon.svg": (SHIM / "icon.svg").read_bytes(),
        "pyodide/NOTICE.txt": (
            f"Pyodide {version} (https://pyodide.org), Mozilla Public License 2.0: the files of this folder are\n"
            "copied unchanged from the npm package pyodide.\n"
        ).encode(),
    }
    for p in sorted(PAGE.iterdir()):
        if p.is_file():
            files[f"static/{p.name}"] = p.read_bytes()
    for name in PYODIDE_FILES:
        files[f"pyodide/{name}"] = (pyodide / name).read_bytes()
    sw = (SHIM / "sw.js").read_text(encoding="utf-8")
    sw = sw.replace('"__BUILD__"', json.dumps(_digest(files))).replace("[/*FILES*/]", json.dumps(["./", *sorted(files)]))
    files["sw.js"] = sw.encode()
    return files


def build(out: str | Path, pyodide: Path) -> dict[str, Any]:
    """Write the static page into the folder ``out`` (created; a previous static build there
    is replaced, any other content refused).

    Args:
        out: the folder to write.
        pyodide: the npm package ``pyodide`` (see `find_pyodide`).

    Returns:
        The manifest written as `MARKER`: ``version``, ``pyodide`` (its version),
        ``build`` (a digest of every file), ``files`` (relative path -> bytes).

    Raises:
        OptionError: ``out`` is a file, or a folder with other files than a static build.
        OSError: the folder cannot be written.
    """
    from .. import __version__

    target = Path(out)
    if target.exists() and not target.is_dir():
        raise OptionError(f"--static: {target} is a file, expected a folder to write the static page into")
    if target.is_dir() and any(target.iterdir()):
        if not (target / MARKER).is_file():
            raise OptionError(f"--static: {target} is not empty and holds no earlier static build ({MARKER}): give a new folder")
        old = json.loads((target / MARKER).read_text(encoding="utf-8")).get("files", {})
        for rel in old:
            (target / rel).unlink(missing_ok=True)
    files = render(pyodide)
    for rel, data in files.items():
        dest = target / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    build_id = _digest({rel: data for rel, data in files.items() if rel != "sw.js"})
    version = json.loads((pyodide / "package.json").read_text(encoding="utf-8")).get("version", "?")
    manifest = {"version": __version__, "pyodide": version, "build": build_id,
                "files": {rel: len(data) for rel, data in sorted(files.items())}}  # fmt: skip
    manifest["files"][MARKER] = 0
    (target / MARKER).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def run(out: str, pyodide: str | None) -> int:
    """``flip7ref table --static DIR [--pyodide PATH]``: build, print one line; exit status 0.

    Raises:
        OptionError: see `find_pyodide` and `build` (exit status 2).
    """
    source = find_pyodide(pyodide)
    try:
        manifest = build(out, source)
    except OSError as exc:
        raise OptionError(f"--static: cannot write {out}: {exc.strerror or exc}") from None
    size = sum(manifest["files"].values())
    print(f"flip7ref table: static page written to {out} ({len(manifest['files'])} files, {size / 1e6:.1f} MB, "
          f"Pyodide {manifest['pyodide']}); serve the folder over HTTP(S) and open it, e.g. "
          f"python3 -m http.server -d {out}")  # fmt: skip
    return 0


__all__ = ["INSTALL_HINT", "MARKER", "PYODIDE_FILES", "TESTED_PYODIDE", "build", "find_pyodide", "render", "run"]
