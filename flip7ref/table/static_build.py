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

import contextlib
import hashlib
import io
import json
import os
import pickle
import secrets
import shutil
import stat
import sys
import zipfile
from pathlib import Path
from typing import Any

import attrs

from flip7ref.core.errors import OptionError, SpecError
from flip7ref.core.textfiles import read_text_file
from flip7ref.table.import_closure import closure, imports_of, module_name, trim_stdlib, without_comments

PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json", "package.json")
"""The files of the npm package ``pyodide`` the page needs (no package wheels: the core
needs only the standard library and the pure-Python modules of ``flip7ref.zip``)."""

TESTED_PYODIDE = "314.0.8"
"""The Pyodide version the browser tests run (CI installs this one)."""

COUNTED = ("pyodide/pyodide.asm.wasm", "pyodide/python_stdlib.zip", "flip7ref.zip", "pyodide/pyodide-lock.json")
"""The files whose bytes the page counts as they arrive (its progress while loading): the
worker fetches them (``worker.js`` is given their sizes)."""

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
    """``flip7ref.zip``: the sources the worker can import (`BROWSER` and every module its
    imports reach, imports in functions too; comments cut), the spec, the texts and the
    pickled edition tables, with fixed timestamps (the same input gives the same bytes).

    Raises:
        OptionError: a module of flip7ref has no Python source here (an installation that
            ships compiled modules only).
    """
    import attr
    import mypy_extensions

    import flip7ref
    from flip7ref.core import i18n
    from flip7ref.core.spec import load_edition, spec_dir
    from flip7ref.table.record import table_editions

    package = Path(flip7ref.__file__).parent
    entries: list[tuple[str, Path]] = []
    for p in sorted(package.rglob("*")):
        rel = p.relative_to(package)
        if not p.is_file() or "__pycache__" in rel.parts or rel.parts[0] in ("spec", "_conformance"):
            continue
        if p.suffix in (".py", ".json") or p.name == "py.typed":
            entries.append((f"flip7ref/{rel.as_posix()}", p))
    for source in ("core/state", "table/routes", "table/session"):
        if not (package / f"{source}.py").is_file():
            raise OptionError(f"--static: the installed flip7ref has no Python source of {source}.py (in {package})")
    spec = spec_dir()
    entries += [(f"flip7ref/spec/{p.relative_to(spec).as_posix()}", p) for p in sorted(spec.rglob("*"))
                if p.is_file() and p.parent.name != "i18n"]  # the texts come as i18n.pickle  # fmt: skip
    for module in (attr, attrs, mypy_extensions):
        entries += _pure_sources(module, "")
    sources = {module_name(name): (name.endswith("/__init__.py"), path.read_text(encoding="utf-8"))
               for name, path in entries if name.endswith(".py")}  # fmt: skip
    graph = {m: imports_of(m, pkg, src, lazy=True) for m, (pkg, src) in sources.items() if m}
    referee = closure(graph, {BROWSER})  # the modules the browser can import; the CLI, batch, rl... stay out
    entries = [(name, path) for name, path in entries if not name.endswith(".py") or module_name(name) in referee]
    editions = {
        e: attrs.evolve(load_edition(e), path=Path(f"{LIB}/flip7ref/spec/editions/{e}.yaml"))  # no folder of this machine
        for e in table_editions()
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, path in entries:
            data = without_comments(path.read_text(encoding="utf-8")).encode() if name.endswith(".py") else path.read_bytes()
            z.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
        z.writestr(zipfile.ZipInfo("editions.pickle", (2020, 1, 1, 0, 0, 0)), pickle.dumps(editions, protocol=4),
                   zipfile.ZIP_DEFLATED)  # fmt: skip
        texts = {lang: dict(i18n.catalogue(lang)) for lang in i18n.LANGS}  # the rule texts, read and checked here
        z.writestr(zipfile.ZipInfo("i18n.pickle", (2020, 1, 1, 0, 0, 0)), pickle.dumps(texts, protocol=4),
                   zipfile.ZIP_DEFLATED)  # fmt: skip
    return out.getvalue()


BROWSER = "flip7ref.table.browser"
"""The module the worker imports (``worker.js``): the referee's Python side."""


def _lock(lock: bytes) -> bytes:
    """``pyodide-lock.json`` without its list of packages (the page loads none): its ``info``
    only.  A file that is not such JSON is returned unchanged."""
    try:
        data = json.loads(lock)
    except (ValueError, RecursionError):
        return lock
    if not isinstance(data, dict) or not isinstance(data.get("packages"), dict):
        return lock
    return json.dumps({**data, "packages": {}}, sort_keys=True).encode()


def _page() -> str:
    """The server's ``index.html`` with relative addresses, the manifest, the home-screen icon
    of an iPhone (``apple-touch-icon.png``, 180x180) and `standalone.js`.

    Raises:
        OptionError: the page lacks a line this rewrite expects (the page changed: fix here).
    """
    html = (PAGE / "index.html").read_text(encoding="utf-8")
    for old, new in (
        ('"/static/', '"static/'),
        ('<script src="static/app.js"', '<script src="standalone.js"></script>\n<script src="static/app.js"'),
        (
            "</head>",
            '<link rel="manifest" href="manifest.webmanifest">\n<link rel="apple-touch-icon" href="apple-touch-icon.png">\n'
            '<meta name="theme-color" content="#1b5e20">\n</head>',
        ),
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
        "apple-touch-icon.png": (SHIM / "apple-touch-icon.png").read_bytes(),  # 180x180: an iPhone's home screen
        "pyodide/NOTICE.txt": (
            f"Pyodide {version} (https://pyodide.org), Mozilla Public License 2.0: the files of this folder are\n"
            "copied unchanged from the npm package pyodide.\n"
        ).encode(),
    }
    for p in sorted(PAGE.iterdir()):
        # the server's own index.html stays out: its addresses are absolute (/static/...), so opened
        # as static/ of a site it showed an unstyled page (issue 42); the static page is index.html
        if p.is_file() and p.name != "index.html":
            files[f"static/{p.name}"] = p.read_bytes()
    for name in PYODIDE_FILES:
        files[f"pyodide/{name}"] = (pyodide / name).read_bytes()
    files["pyodide/python_stdlib.zip"] = trim_stdlib(files["pyodide/python_stdlib.zip"], files["flip7ref.zip"], BROWSER)
    files["pyodide/pyodide-lock.json"] = _lock(files["pyodide/pyodide-lock.json"])
    counted = {name: len(files[name]) for name in COUNTED}
    files["worker.js"] = files["worker.js"].replace(b"{/*SIZES*/}", json.dumps(counted).encode())
    sw = (SHIM / "sw.js").read_text(encoding="utf-8")
    sw = sw.replace('"__BUILD__"', json.dumps(_digest(files))).replace("[/*FILES*/]", json.dumps(["./", *sorted(files)]))
    files["sw.js"] = sw.encode()
    return files


def _is_name(rel: object) -> bool:
    """Whether ``rel`` names a file inside the folder: a relative POSIX path with no empty,
    ``.`` or ``..`` part, no backslash and no NUL."""
    if not isinstance(rel, str) or not rel or rel.startswith("/") or "\\" in rel or "\0" in rel:
        return False
    return all(part not in ("", ".", "..") for part in rel.split("/"))


def _kind(value: object) -> str:
    """What a JSON value is, in words (for a message)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    kinds = ((dict, "an object"), (list, "a list"), (str, "a string"), ((int, float), "a number"))
    return next((word for types, word in kinds if isinstance(value, types)), type(value).__name__)


def _listed(marker: Path) -> set[str]:
    """The names of the files an earlier build wrote, from its manifest `MARKER`.

    Raises:
        SpecError: naming ``marker``: unreadable, not UTF-8, not JSON, not a JSON object, no
            ``files`` object, or a name in it that is not a file inside the folder
            (absolute, with a ``..``, ``.`` or empty part).
    """
    text = read_text_file(marker, f"manifest of a static build ({MARKER})")
    what = "JSON, the manifest a static build writes"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SpecError(str(marker), f"line {exc.lineno}, column {exc.colno}", f"{what} ({exc.msg})") from None
    except RecursionError:
        raise SpecError(str(marker), "", f"{what} (nested too deeply)") from None
    if not isinstance(data, dict):
        raise SpecError(str(marker), "", f"a JSON object, the manifest a static build writes (found {_kind(data)})")
    files = data.get("files")
    if not isinstance(files, dict):
        found = _kind(files) if "files" in data else "none"
        raise SpecError(str(marker), "/files", f"an object whose keys name the files of the build (found {found})")
    for rel in files:
        if not _is_name(rel):
            raise SpecError(str(marker), "/files",
                            f"the names of files inside the folder, relative, without '.' or '..' (found {rel!r})")  # fmt: skip
    return set(files)


def _refuse_link(path: Path) -> OptionError:
    """The refusal of a symbolic link inside the folder (a build never writes one, nor through one)."""
    why = "which a static build does not write: remove it or give a new folder"
    return OptionError(f"--static: {path} is a symbolic link, {why}")


def check_folder(out: str | Path) -> bool:
    """Check that the folder ``out`` may receive a static build, without changing anything:
    it does not exist, is empty, or holds an earlier static build and nothing else (its
    manifest `MARKER` lists every file; no symbolic link anywhere inside).  ``out`` itself may
    be a symbolic link to a folder (then the folder it points at is meant).

    Args:
        out: the folder ``DIR`` of ``--static DIR``.

    Returns:
        Whether the folder exists (`build` then replaces it).

    Raises:
        OptionError: ``out`` is a file, the root folder or a link to no folder; a folder with
            files but no `MARKER`; a symbolic link, a special file, or a file or folder the
            manifest does not list inside it.
        SpecError: the manifest cannot be read (see `_listed`).
        OSError: the folder cannot be read.
    """
    shown = Path(out)
    target = Path(os.path.realpath(shown))
    if not target.name:
        raise OptionError(f"--static: {shown} is the root folder: give a folder to write the static page into")
    if os.path.islink(shown) and not os.path.isdir(target):  # the folder a link names is meant, not a new one there
        raise OptionError(f"--static: {shown} is a symbolic link to no folder ({os.readlink(shown)}): give a folder")
    try:
        info = target.lstat()
    except FileNotFoundError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        raise OptionError(f"--static: {shown} is a file, expected a folder to write the static page into")
    with os.scandir(target) as it:
        if next(it, None) is None:
            return True
    marker = target / MARKER
    if marker.is_symlink():
        raise _refuse_link(shown / MARKER)
    if not marker.is_file():
        raise OptionError(f"--static: {shown} is not empty and holds no earlier static build ({MARKER}): give a new folder")
    listed = _listed(shown / MARKER)
    folders = {rel.rsplit("/", n)[0] for rel in listed for n in range(1, rel.count("/") + 1)}
    pending = [""]
    while pending:
        prefix = pending.pop()
        with os.scandir(target / prefix if prefix else target) as it:
            entries = sorted(it, key=lambda e: e.name)
        for entry in entries:
            rel = f"{prefix}/{entry.name}" if prefix else entry.name
            if entry.is_symlink():
                raise _refuse_link(shown / rel)
            if entry.is_dir(follow_symlinks=False) and rel in folders:
                pending.append(rel)
            elif not (entry.is_file(follow_symlinks=False) and rel in listed):
                shown_rel = rel + "/" if entry.is_dir(follow_symlinks=False) else rel
                raise OptionError(f"--static: {shown} holds {shown_rel}, which the earlier static build there did not write "
                                  f"(its {MARKER} does not list it): move it out or give a new folder")  # fmt: skip
    return True


def _beside(target: Path, what: str, mode: int = 0o777) -> Path:
    """A new, empty folder next to ``target`` (same file system), named ``.NAME.WHAT-RANDOM``."""
    while True:
        path = target.parent / f".{target.name}.{what}-{secrets.token_hex(4)}"
        try:
            os.mkdir(path, mode)
            return path
        except FileExistsError:  # pragma: no cover - 32 random bits taken
            continue


def _write_new(folder: Path, rel: str, data: bytes) -> None:
    """Write ``data`` as the new file ``folder/rel`` (its folders made as needed), never through
    a symbolic link nor over an existing file, and flush it to disk.

    Raises:
        OSError: it cannot be written (a full disk, ...), or exists already.
    """
    if not _is_name(rel):
        raise ValueError(f"not a file name inside the folder: {rel!r}")
    parts = rel.split("/")
    for n in range(1, len(parts)):
        with contextlib.suppress(FileExistsError):
            os.mkdir(folder.joinpath(*parts[:n]))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(folder.joinpath(*parts), flags, 0o666)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def build(out: str | Path, pyodide: Path) -> dict[str, Any]:
    """Write the static page into the folder ``out``: created, or an earlier static build there
    replaced (`check_folder` says what may be replaced; any other content is refused).

    Nothing outside ``out`` is written or removed: the new build is written into a new folder
    beside ``out`` (no symbolic link followed, no existing file opened), then the earlier
    folder is renamed aside, the new one renamed to ``out`` and the earlier one removed (its
    links unlinked, never followed).  A failure before the rename (a full disk, a kill)
    leaves ``out`` as it was; the new folder is removed, except after a kill, when a hidden
    ``.NAME.new-...`` folder stays beside ``out``.

    Args:
        out: the folder to write (a symbolic link to a folder: that folder is replaced, the
            link kept).
        pyodide: the npm package ``pyodide`` (see `find_pyodide`).

    Returns:
        The manifest written as `MARKER`: ``version``, ``pyodide`` (its version),
        ``build`` (a digest of every file), ``files`` (relative path -> bytes).

    Raises:
        OptionError: ``out`` cannot receive the build (see `check_folder`).
        SpecError: its earlier manifest is not one a build writes (see `check_folder`).
        OSError: the folder or its parent folder cannot be written (``out`` is left as it was).
    """
    from flip7ref import __version__

    check_folder(out)
    target = Path(os.path.realpath(out))
    files = render(pyodide)
    build_id = _digest({rel: data for rel, data in files.items() if rel != "sw.js"})
    version = json.loads((pyodide / "package.json").read_text(encoding="utf-8")).get("version", "?")
    manifest = {"version": __version__, "pyodide": version, "build": build_id,
                "files": {rel: len(data) for rel, data in sorted(files.items())}}  # fmt: skip
    manifest["files"][MARKER] = 0
    files[MARKER] = (json.dumps(manifest, indent=1) + "\n").encode()
    target.parent.mkdir(parents=True, exist_ok=True)
    new = _beside(target, "new")
    try:
        for rel, data in files.items():
            _write_new(new, rel, data)
        existed = check_folder(out)  # again: the folder may have changed while the build was written
        if existed:
            os.chmod(new, stat.S_IMODE(target.stat().st_mode))
        _swap(new, target, existed)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)  # gone already once renamed to ``target``
        raise
    return manifest


def _swap(new: Path, target: Path, existed: bool) -> None:
    """Rename the folder ``new`` to ``target`` (both in one folder), the earlier ``target``
    (when ``existed``) renamed aside first and then removed: its links unlinked, never followed.

    Raises:
        OSError: a rename failed (``target`` is as it was).
        OptionError: putting the earlier build back failed too (the message says where it is).
    """
    if not existed:
        os.rename(new, target)  # refused if a folder with files appeared there meanwhile
        return
    old = target.parent / f".{target.name}.old-{secrets.token_hex(4)}"
    os.rename(target, old)
    try:
        os.rename(new, target)
    except BaseException as exc:
        try:
            os.rename(old, target)
        except OSError:
            why = getattr(exc, "strerror", None) or exc
            raise OptionError(f"--static: cannot write {target}: {why}; the earlier build is in {old}") from None
        raise
    shutil.rmtree(old, ignore_errors=True)
    if old.exists():
        print(f"flip7ref: note: the earlier build could not be removed; it is in {old}", file=sys.stderr)


def run(out: str, pyodide: str | None) -> int:
    """``flip7ref table --static DIR [--pyodide PATH]``: build, print one line; exit status 0.

    Raises:
        OptionError: see `check_folder` (checked before Pyodide is looked for), `find_pyodide`
            and `build` (exit status 2); an OSError as one line saying ``DIR`` is left as it was.
        SpecError: see `check_folder` (exit status 2).
    """
    try:
        check_folder(out)
        source = find_pyodide(pyodide)
        manifest = build(out, source)
    except OSError as exc:
        raise OptionError(f"--static: cannot write {out}: {exc.strerror or exc} ({out} is left as it was)") from None
    size = sum(manifest["files"].values())
    print(f"flip7ref table: static page written to {out} ({len(manifest['files'])} files, {size / 1e6:.1f} MB, "
          f"Pyodide {manifest['pyodide']}); serve the folder over HTTP(S) and open it, e.g. "
          f"python3 -m http.server -d {out}")  # fmt: skip
    return 0


__all__ = ["INSTALL_HINT", "MARKER", "PYODIDE_FILES", "TESTED_PYODIDE", "build", "check_folder", "find_pyodide", "render", "run"]
