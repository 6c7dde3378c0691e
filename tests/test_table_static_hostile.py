"""``flip7ref table --static DIR`` touches nothing outside DIR, whatever DIR holds (issue 41
item 2): a hostile manifest naming ``../x`` or ``/abs/x``, symbolic links inside DIR, a
manifest that is not JSON, not UTF-8 or not an object, and a build that fails midway (a full
disk) all leave every file outside DIR, and the earlier build, as they were."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from flip7ref.cli import main
from flip7ref.table import static_build
from flip7ref.table.static_build import MARKER, PYODIDE_FILES, build


@pytest.fixture
def fake_pyodide(tmp_path: Path) -> Path:
    """A folder with the npm package's file names (the build copies them as they are)."""
    folder = tmp_path / "node_modules" / "pyodide"
    folder.mkdir(parents=True)
    for name in PYODIDE_FILES:
        (folder / name).write_text(json.dumps({"version": "0.0-test"}) if name == "package.json" else f"// {name}\n")
    return folder


def _snapshot(root: Path, skip: Path | None = None) -> dict[str, tuple[str, bytes | str, int]]:
    """Every entry under ``root`` (not following links, leaving out ``skip``): kind, bytes or link, mtime."""
    seen: dict[str, tuple[str, bytes | str, int]] = {}
    for here, dirs, names in os.walk(root):
        for name in [*dirs, *names]:
            path = Path(here) / name
            if skip is not None and (path == skip or skip in path.parents):
                continue
            info = path.lstat()
            if path.is_symlink():
                seen[str(path)] = ("link", os.readlink(path), info.st_mtime_ns)
            elif path.is_dir():
                seen[str(path)] = ("dir", "", info.st_mtime_ns)
            else:
                seen[str(path)] = ("file", path.read_bytes(), info.st_mtime_ns)
    return seen


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _run(out: Path, pyodide: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["table", "--static", str(out), "--pyodide", str(pyodide)])
    return status, capsys.readouterr().err


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the build with the files a hostile build folder points at."""
    folder = tmp_path / "outside"
    (folder / "static").mkdir(parents=True)
    (folder / "x").write_text("the user's file\n")
    (folder / "icon.svg").write_text("<svg>the user's icon</svg>\n")
    (folder / "static" / "app.js").write_text("// the user's script\n")
    return folder


def test_a_hostile_folder_changes_no_file_outside_it(fake_pyodide: Path, tmp_path: Path, outside: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """The issue's test: a folder holding a manifest that names ``../outside/x`` and an absolute
    path, and symbolic links ``static/`` and ``icon.svg`` pointing outside; the build is
    refused in one line and no file outside the folder changed (bytes, links, mtimes)."""
    out = tmp_path / "site"
    build(out, fake_pyodide)
    before = _snapshot(tmp_path, skip=out)
    files = json.loads((out / MARKER).read_text())
    files["files"].update({"../outside/x": 16, str(outside / "x"): 16})
    (out / MARKER).write_text(json.dumps(files))
    status, err = _run(out, fake_pyodide, capsys)
    assert (status, err) == (2, f"flip7ref: error: {out / MARKER}, at /files: expected the names of files inside the "
                                "folder, relative, without '.' or '..' (found '../outside/x')\n")  # fmt: skip
    assert _snapshot(tmp_path, skip=out) == before
    (out / MARKER).write_text(json.dumps({**files, "files": {str(outside / "x"): 16}}))
    status, err = _run(out, fake_pyodide, capsys)
    assert (status, err) == (2, f"flip7ref: error: {out / MARKER}, at /files: expected the names of files inside the "
                                f"folder, relative, without '.' or '..' (found {str(outside / 'x')!r})\n")  # fmt: skip
    assert _snapshot(tmp_path, skip=out) == before


@pytest.mark.parametrize("link", ["static", "icon.svg", "static/app.js"])
def test_a_symbolic_link_in_the_folder_is_not_written_through(
    link: str, fake_pyodide: Path, tmp_path: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    build(out, fake_pyodide)
    if link == "static":
        for p in (out / "static").iterdir():
            p.unlink()
        (out / "static").rmdir()
    else:
        (out / link).unlink()
    (out / link).symlink_to(outside / link)
    before = _snapshot(tmp_path, skip=out)
    inside = _snapshot(out)
    status, err = _run(out, fake_pyodide, capsys)
    assert (status, err) == (2, f"flip7ref: error: --static: {out / link} is a symbolic link, which a static build does "
                                "not write: remove it or give a new folder\n")  # fmt: skip
    assert _snapshot(tmp_path, skip=out) == before and _snapshot(out) == inside


def test_the_manifest_itself_as_a_link_is_refused(fake_pyodide: Path, tmp_path: Path, outside: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    out = tmp_path / "site"
    build(out, fake_pyodide)
    (outside / MARKER).write_bytes((out / MARKER).read_bytes())
    (out / MARKER).unlink()
    (out / MARKER).symlink_to(outside / MARKER)
    before = _snapshot(tmp_path, skip=out)
    status, err = _run(out, fake_pyodide, capsys)
    assert (status, err) == (2, f"flip7ref: error: --static: {out / MARKER} is a symbolic link, which a static build "
                                "does not write: remove it or give a new folder\n")  # fmt: skip
    assert _snapshot(tmp_path, skip=out) == before


def test_a_file_the_earlier_build_did_not_write_is_kept_and_the_build_refused(
        fake_pyodide: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    out = tmp_path / "site"
    build(out, fake_pyodide)
    (out / "static" / "notes.txt").write_text("keep me")
    inside = _snapshot(out)
    status, err = _run(out, fake_pyodide, capsys)
    refused = (
        f"which the earlier static build there did not write (its {MARKER} does not list it): move it out or give a new folder"
    )
    assert (status, err) == (2, f"flip7ref: error: --static: {out} holds static/notes.txt, {refused}\n")
    assert _snapshot(out) == inside
    (out / "static" / "notes.txt").unlink()
    (out / "drafts").mkdir()
    status, err = _run(out, fake_pyodide, capsys)
    assert (status, err) == (2, f"flip7ref: error: --static: {out} holds drafts/, {refused}\n")


BAD_MANIFESTS: list[tuple[str, bytes, str, str]] = [
    (
        "not-json",
        b"{files: []}\n",
        ", at line 1, column 2",
        "expected JSON, the manifest a static build writes (Expecting property name enclosed in double quotes)",
    ),
    ("not-utf8", b'{"files": {"\xff": 1}}\n', "", "expected UTF-8 text"),
    ("a-list", b'["index.html", "../x"]\n', "", "expected a JSON object, the manifest a static build writes (found a list)"),
    (
        "files-a-list",
        b'{"files": ["../x"]}\n',
        ", at /files",
        "expected an object whose keys name the files of the build (found a list)",
    ),
    ("no-files", b'{"version": "1"}\n', ", at /files", "expected an object whose keys name the files of the build (found none)"),
    (
        "empty-name",
        b'{"files": {"static//app.js": 1}}\n',
        ", at /files",
        "expected the names of files inside the folder, relative, without '.' or '..' (found 'static//app.js')",
    ),
    ("deep", b"[" * 100_000 + b"]" * 100_000, "", "expected JSON, the manifest a static build writes (nested too deeply)"),
]


@pytest.mark.parametrize(("content", "where", "expected"), [pytest.param(*m[1:], id=m[0]) for m in BAD_MANIFESTS])
def test_a_bad_manifest_is_one_line(content: bytes, where: str, expected: str, fake_pyodide: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    out = tmp_path / "site"
    build(out, fake_pyodide)
    (out / MARKER).write_bytes(content)
    before = _snapshot(tmp_path)
    status, err = _run(out, fake_pyodide, capsys)
    assert (status, err) == (2, f"flip7ref: error: {out / MARKER}{where}: {expected}\n")
    assert _snapshot(tmp_path) == before


def test_a_failure_midway_leaves_the_earlier_build_and_a_retry_succeeds(fake_pyodide: Path, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A full disk while the new build is written: the earlier build is left as it was,
    nothing is left beside it, and the next build (with room) replaces it."""
    out = tmp_path / "site"
    first = build(out, fake_pyodide)
    (fake_pyodide / "pyodide.mjs").write_text("// a new Pyodide\n")
    before = _snapshot(tmp_path)
    real = static_build._write_new
    written: list[str] = []

    def full(folder: Path, rel: str, data: bytes) -> None:
        if len(written) == 5:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written.append(rel)
        real(folder, rel, data)

    monkeypatch.setattr(static_build, "_write_new", full)
    status, err = _run(out, fake_pyodide, capsys)
    assert (status, err) == (2, f"flip7ref: error: --static: cannot write {out}: No space left on device "
                                f"({out} is left as it was)\n")  # fmt: skip
    assert _snapshot(tmp_path) == before  # no half-written folder beside it either
    monkeypatch.setattr(static_build, "_write_new", real)
    status, _ = _run(out, fake_pyodide, capsys)
    assert status == 0
    again: dict[str, Any] = json.loads((out / MARKER).read_text())
    assert again["build"] != first["build"] and (out / "pyodide" / "pyodide.mjs").read_text() == "// a new Pyodide\n"
    assert set(_tree(out)) == set(first["files"]) and sorted(p.name for p in tmp_path.iterdir()) == ["node_modules", "site"]


def test_a_rebuild_replaces_the_folder_and_keeps_a_link_to_it(fake_pyodide: Path, tmp_path: Path) -> None:
    """DIR may itself be a symbolic link (the user named it): the build replaces the folder it
    points at, the link is kept, and a file the earlier build wrote but a newer one does not is gone."""
    real = tmp_path / "real"
    build(real, fake_pyodide)
    (real / "old.js").write_text("// from an earlier version")
    manifest = json.loads((real / MARKER).read_text())
    manifest["files"]["old.js"] = 26
    (real / MARKER).write_text(json.dumps(manifest))
    (tmp_path / "link").symlink_to(real)
    mode = 0o750
    real.chmod(mode)
    build(tmp_path / "link", fake_pyodide)
    assert (tmp_path / "link").is_symlink() and (tmp_path / "link").resolve() == real
    assert not (real / "old.js").exists() and (real / "index.html").is_file()
    assert real.stat().st_mode & 0o777 == mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "node_modules", "real"]


def test_a_link_to_no_folder_and_a_file_are_refused(fake_pyodide: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere" / "site")
    status, err = _run(tmp_path / "dangling", fake_pyodide, capsys)
    assert (status, err) == (2, f"flip7ref: error: --static: {tmp_path / 'dangling'} is a symbolic link to no folder "
                                f"({tmp_path / 'nowhere' / 'site'}): give a folder\n")  # fmt: skip
    assert not (tmp_path / "nowhere").exists()
    (tmp_path / "page.html").write_text("mine")
    (tmp_path / "to-file").symlink_to(tmp_path / "page.html")
    status, err = _run(tmp_path / "to-file", fake_pyodide, capsys)
    assert status == 2 and (tmp_path / "page.html").read_text() == "mine"


def test_a_manifest_is_checked_before_pyodide_is_looked_for(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "site"
    out.mkdir()
    (out / MARKER).write_text("[]")
    assert main(["table", "--static", str(out), "--pyodide", str(tmp_path / "none")]) == 2
    assert capsys.readouterr().err == (f"flip7ref: error: {out / MARKER}: expected a JSON object, the manifest a static "
                                       "build writes (found a list)\n")  # fmt: skip


def test_a_failed_rename_puts_the_earlier_build_back(fake_pyodide: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """The new folder cannot be renamed into place (after the earlier one went aside): the
    earlier build is renamed back, the new folder removed."""
    out = tmp_path / "site"
    build(out, fake_pyodide)
    (fake_pyodide / "pyodide.mjs").write_text("// a new Pyodide\n")
    before = _snapshot(tmp_path, skip=fake_pyodide)
    real = os.rename

    def refuse(src: Any, dst: Any) -> None:
        if ".new-" in str(src):
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))
        real(src, dst)

    monkeypatch.setattr(os, "rename", refuse)
    status, err = _run(out, fake_pyodide, capsys)
    monkeypatch.undo()
    assert (status, err) == (2, f"flip7ref: error: --static: cannot write {out}: {os.strerror(errno.EXDEV)} "
                                f"({out} is left as it was)\n")  # fmt: skip
    assert _snapshot(tmp_path, skip=fake_pyodide) == before


_KILLED = """
import os, signal, sys
from pathlib import Path
from flip7ref.table import static_build
real, written = static_build._write_new, []
def killed(folder, rel, data):
    if len(written) == 4:
        os.kill(os.getpid(), signal.SIGKILL)
    written.append(rel)
    real(folder, rel, data)
static_build._write_new = killed
static_build.build(sys.argv[1], Path(sys.argv[2]))
"""


@pytest.mark.skipif(not hasattr(os, "kill") or os.name != "posix", reason="SIGKILL: POSIX")
def test_a_killed_build_leaves_the_earlier_one_and_a_retry_succeeds(fake_pyodide: Path, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Killed midway (no clean-up runs): the earlier build is as it was, a hidden folder of the
    new one is left beside it, and the next build replaces the earlier one (it used to refuse
    the half-written folder)."""
    import signal
    import subprocess
    import sys

    out = tmp_path / "site"
    build(out, fake_pyodide)
    inside = _snapshot(out)
    done = subprocess.run([sys.executable, "-c", _KILLED, str(out), str(fake_pyodide)], capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})  # fmt: skip
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    assert _snapshot(out) == inside
    (left,) = [p.name for p in tmp_path.iterdir() if p.name.startswith(".site.new-")]
    status, _ = _run(out, fake_pyodide, capsys)
    assert status == 0 and _snapshot(out).keys() == inside.keys()
    assert sorted(p.name for p in tmp_path.iterdir()) == [left, "node_modules", "site"]


def test_a_hard_link_in_the_folder_is_not_written_through(fake_pyodide: Path, tmp_path: Path, outside: Path) -> None:
    """A file of the earlier build that is a hard link to a file outside: the rebuild writes new
    files and unlinks the old name, so the file outside keeps its bytes."""
    out = tmp_path / "site"
    build(out, fake_pyodide)
    (out / "icon.svg").unlink()
    os.link(outside / "icon.svg", out / "icon.svg")
    before = _snapshot(outside)
    build(out, fake_pyodide)
    assert _snapshot(outside) == before and (out / "icon.svg").read_bytes() != (outside / "icon.svg").read_bytes()
