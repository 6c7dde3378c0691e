"""How flip7ref is installed (flip7ref.proc.install, docs/install.md): the hints for the optional
extras work as written (flip7ref is on no package index), and ``flip7ref --version`` names
the copy that runs and an installed copy that it hides.

These tests check the packaging and the command line's messages, so they cite no rule ids.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest

import flip7ref
from flip7ref.cli import main, version_text
from flip7ref.proc import install

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(flip7ref.__file__).resolve().parent


def test_extras_are_the_ones_pyproject_declares() -> None:
    """`install.EXTRAS` lists every optional extra but ``dev`` with pyproject.toml's packages."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {name: tuple(reqs) for name, reqs in project["optional-dependencies"].items() if name != "dev"}
    assert declared == install.EXTRAS


def test_install_md_table_of_extras_names_every_extra() -> None:
    """docs/install.md's table of optional extras has a row for each extra pyproject.toml declares
    (``batch``, ``rl-train`` and ``analysis`` were missing though the README names them)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    text = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    section = text.split("## The optional extras", 1)[1].split("\n## ", 1)[0]
    rows = set(re.findall(r"^\| `([a-z-]+)` \|", section, flags=re.MULTILINE))
    assert rows == set(project["optional-dependencies"])


def test_extra_hint_names_the_checkout_and_the_packages() -> None:
    assert install.extra_hint("plot") == (
        "pip install 'matplotlib>=3.7' (keeps the installed flip7ref); or, from a checkout, flip7ref and the extra: "
        "pip install '.[plot]' (builds flip7ref again)"
    )
    assert install.extra_hint("table") == (
        "pip install 'starlette>=0.37' 'uvicorn>=0.29' 'segno>=1.5' (keeps the installed flip7ref); or, from a checkout, "
        "flip7ref and the extra: pip install '.[table]' (builds flip7ref again)"
    )
    with pytest.raises(KeyError):
        install.extra_hint("nope")


def _texts() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "conformance").glob("*.md"))]
    return files + sorted((ROOT / "flip7ref").rglob("*.py"))


def test_no_instruction_installs_flip7ref_from_an_index() -> None:
    """No hint, docstring or page says ``pip install flip7ref`` or ``pip install 'flip7ref[...]'``:
    neither works, the package being on no index (install.py and docs/install.md name the mistake)."""
    wrong = re.compile(r"pip install (?:-\S+ )*['\"]?flip7ref\b")
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in _texts()
        if path.relative_to(ROOT).as_posix() not in {"flip7ref/proc/install.py", "docs/install.md"}
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if wrong.search(line)
    ]
    assert not found, found


def test_version_names_the_folder_it_runs_from(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == f"running from {PACKAGE}"
    assert lines[0].endswith("(compiled with mypyc)" if flip7ref.compiled else "(pure Python)")
    assert "\n".join(lines) == version_text()


def _fake_install(tmp_path: Path, *names: str) -> importlib.metadata.Distribution:
    """An installed flip7ref in ``tmp_path`` whose RECORD lists the given package files."""
    info = tmp_path / "flip7ref-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: flip7ref\nVersion: 0.1.0\n", encoding="utf-8")
    (info / "RECORD").write_text("".join(f"{name},,\n" for name in names), encoding="utf-8")
    return importlib.metadata.PathDistribution(info)


def test_version_names_a_compiled_install_that_the_source_tree_hides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from elsewhere than the installed copy (as ``python -m flip7ref`` in a checkout's root
    is, with the compiled build installed), --version says where that copy is and that it is compiled."""
    dist = _fake_install(
        tmp_path, "flip7ref/__init__.py", "flip7ref/core/state.py", "flip7ref/core/state.cpython-311-x86_64-linux-gnu.so"
    )
    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: dist)
    assert install.installed_copy() == ((tmp_path / "flip7ref").resolve(), True)
    folder, compiled, hidden = install.running_build()
    assert (folder, compiled, hidden) == (PACKAGE, flip7ref.compiled, ((tmp_path / "flip7ref").resolve(), True))
    lines = install.running_text().splitlines()
    assert lines[0] == f"running from {PACKAGE}"
    assert lines[1].startswith(f"note: the flip7ref installed at {(tmp_path / 'flip7ref').resolve()} (compiled with mypyc) "
                               "is hidden by this copy")  # fmt: skip
    assert lines[1].endswith("run from another folder to use it") and len(lines) == 2


def test_version_says_nothing_more_for_the_copy_installed_or_an_editable_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pure = _fake_install(tmp_path, "flip7ref/__init__.py", "flip7ref/core/state.py")
    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: pure)
    assert install.installed_copy() == ((tmp_path / "flip7ref").resolve(), False)
    assert "installed at" in install.running_text() and "(pure Python)" in install.running_text()
    (tmp_path / "editable").mkdir()  # an editable install records a .pth file and some data files, not the package
    editable = _fake_install(tmp_path / "editable", "_editable_impl_flip7ref.pth", "flip7ref/_conformance/README.md")
    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: editable)
    assert install.installed_copy() is None
    assert install.running_text() == f"running from {PACKAGE}"

    def missing(name: str) -> importlib.metadata.Distribution:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    assert install.running_build() == (PACKAGE, flip7ref.compiled, None)


def test_python_m_in_a_checkout_runs_the_source_tree() -> None:
    """``python -m flip7ref --version`` started in the checkout's root runs its source tree."""
    if not (ROOT / "flip7ref" / "__init__.py").is_file():
        pytest.skip("the tests run away from a checkout")
    done = subprocess.run([sys.executable, "-m", "flip7ref", "--version"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[2] == f"running from {ROOT / 'flip7ref'}"
    assert done.stdout.splitlines()[0].endswith("(pure Python)")


# The build (hatch_build.py, issue 42): it never changes the checkout, so a killed build leaves it whole,
# and it refuses a Python older than requires-python before installing or compiling anything.


def _hook() -> object:
    if not (ROOT / "hatch_build.py").is_file():
        pytest.skip("the tests run away from a checkout")
    pytest.importorskip("hatchling")  # the build backend, in pip's build environment (not a dev dependency)
    spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "hatch_build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_hook_refuses_a_python_older_than_requires_python() -> None:
    refusal = _hook().python_refusal  # type: ignore[attr-defined]
    assert refusal(">=3.11", (3, 10, 13)) == (
        f"flip7ref needs Python >=3.11; this is Python 3.10.13 ({sys.executable}): nothing was built"
    )
    assert refusal(">=3.11", (3, 11, 0)) is None and refusal(">=3.11", (3, 13, 1)) is None


def _python(version: str) -> str | None:
    versions = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"), "versions")
    found = sorted(versions.glob(f"{version}.*/bin/python{version}"))
    return str(found[-1]) if found else shutil.which(f"python{version}")


def _checkout_copy(tmp: Path) -> Path:
    """The checkout's tracked files (as they are on disk) copied to ``tmp/src``."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    src = tmp / "src"
    for name in filter(None, names.split("\0")):
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    return src


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(path.relative_to(root)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_a_kept_compile_is_found_by_its_sources_and_the_cache_is_pruned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compile cache (issue 42: adding an extra must not compile again): the key follows every
    source file of flip7ref/ and nothing else; a kept compile lists its extension modules; the
    newest CACHE_KEPT are kept."""
    hook: Any = _hook()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    src = tmp_path / "src"
    (src / "flip7ref" / "core").mkdir(parents=True)
    (src / "flip7ref" / "core" / "state.py").write_text("x = 1\n")
    config = {"compile": ["flip7ref/core/state.py"], "mypy-args": []}
    key = hook.compile_key(src, config)
    (src / "flip7ref" / "__pycache__").mkdir()
    (src / "flip7ref" / "__pycache__" / "state.cpython-311.pyc").write_bytes(b"junk")
    (src / "notes.txt").write_text("outside the package")
    assert hook.compile_key(src, config) == key  # bytecode and files outside flip7ref/ change nothing
    assert hook.compile_key(src, {**config, "mypy-args": ["--strict"]}) != key
    (src / "flip7ref" / "core" / "state.py").write_text("x = 2\n")
    assert hook.compile_key(src, config) != key
    assert hook.cached_compile(key) is None
    work = tmp_path / "work"
    (work / "flip7ref" / "core").mkdir(parents=True)
    (work / "flip7ref" / "core" / "state.cpython-311-x86_64-linux-gnu.so").write_bytes(b"ELF")
    (work / "abc__mypyc.cpython-311-x86_64-linux-gnu.so").write_bytes(b"ELF2")
    built = {str(p): p.relative_to(work).as_posix() for p in work.rglob("*.so")}
    hook.keep_compile(key, work, built)
    kept = hook.cached_compile(key)
    assert kept == tmp_path / "cache" / "flip7ref" / "mypyc" / key
    assert (kept / "COMPLETE").read_text().split() == sorted(built.values())
    assert (kept / "flip7ref/core/state.cpython-311-x86_64-linux-gnu.so").read_bytes() == b"ELF"
    for n in range(hook.CACHE_KEPT + 1):
        time.sleep(0.01)  # distinct modification times: the newest are kept
        hook.keep_compile(f"k{n}", work, built)
    assert sorted(p.name for p in (tmp_path / "cache/flip7ref/mypyc").iterdir()) == sorted(
        f"k{n}" for n in range(1, hook.CACHE_KEPT + 1)
    )
    monkeypatch.setenv("FLIP7REF_NO_COMPILE_CACHE", "1")
    assert not hook.cache_wanted()


def test_python_3_10_is_refused_before_anything_is_compiled(tmp_path: Path) -> None:
    python = _python("3.10")
    if python is None:
        pytest.skip("no Python 3.10 here (pyenv's or on the PATH)")
    subprocess.run([python, "-m", "venv", str(tmp_path / "venv")], check=True)
    done = subprocess.run([str(tmp_path / "venv/bin/pip"), "install", "-v", str(ROOT)],
                          capture_output=True, text=True, check=False, timeout=300)  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode == 1
    assert re.search(r"flip7ref needs Python >=3\.11; this is Python 3\.10\.\d+ \(.*\): nothing was built", out), out
    # refused while pip asks for the build's requirements: mypy is never installed, nothing compiled
    assert "Installing backend dependencies" not in out and "flip7ref: compiling" not in out


@pytest.fixture(scope="module")
def build_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    return venv


def _group_ends(group: int) -> None:
    """Wait up to a minute for the processes of the process group ``group`` to end of themselves."""
    for _ in range(600):
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)


@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_a_build_killed_while_it_compiles_leaves_the_checkout_as_it_was(
    tmp_path: Path, build_venv: Path, signal_number: int
) -> None:
    """``pip install -v .`` killed (the whole process group, as closing a terminal does) once the
    compile has started: every file of the checkout is there, unchanged, and nothing was added."""
    src = _checkout_copy(tmp_path)
    before = _tree(src)
    (tmp_path / "tmp").mkdir()
    pip = subprocess.Popen([str(build_venv / "bin/pip"), "install", "-v", "--no-deps", "."], cwd=src,
                           env={**os.environ, "TMPDIR": str(tmp_path / "tmp"), "FLIP7REF_NO_COMPILE_CACHE": "1"},
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)  # fmt: skip
    assert pip.stdout is not None
    seen: list[str] = []
    try:
        for line in pip.stdout:
            seen.append(line)
            if "flip7ref: compiling" in line:
                assert (src / "pyproject.toml").is_file()
                os.killpg(pip.pid, signal_number)
                break
        pip.wait(timeout=60)
        _group_ends(pip.pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pip.pid, signal.SIGKILL)  # whatever is left of the group
        pip.wait()
    assert any("flip7ref: compiling" in line for line in seen), "".join(seen)
    assert pip.returncode != 0
    assert _tree(src) == before
    if signal_number != signal.SIGKILL:  # the build's copy of the sources is removed (SIGKILL leaves it in TMPDIR)
        assert not list((tmp_path / "tmp").glob("flip7ref-mypyc-*"))


def test_the_quick_start_in_a_terminal_says_a_compile_is_under_way_and_that_it_goes_on(
    tmp_path: Path, build_venv: Path
) -> None:
    """Issue 42: the README's ``pip install .`` in a terminal (no ``-v``: pip hides the backend's
    output) was silent for minutes.  Run in a pseudo-terminal that is the build's controlling
    terminal, the build says on it that a compile is coming (while pip asks for the build's
    requirements, before it installs them) and how long one takes, that it has started, then
    a "still compiling" line (every ``HEARTBEAT`` s, at most 30) with the time so far and the
    step; pyproject.toml is there at every look until then (the whole build's check is the slow
    test below); the build is then ended (SIGTERM) and the checkout is as it was."""
    import fcntl
    import pty
    import termios

    hook: Any = _hook()
    assert hook.HEARTBEAT <= 30
    src = _checkout_copy(tmp_path)
    before = _tree(src)
    (tmp_path / "tmp").mkdir()
    master, slave = pty.openpty()

    def controlling_terminal() -> None:  # in the child, its own session: the pty becomes its terminal
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    pip = subprocess.Popen([str(build_venv / "bin/pip"), "install", "--no-deps", "."], cwd=src,
                           stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                           preexec_fn=controlling_terminal,  # (no threads run here yet)
                           env={**os.environ, "TMPDIR": str(tmp_path / "tmp"), "FLIP7REF_NO_COMPILE_CACHE": "1",
                                "TERM": "xterm"})  # fmt: skip
    os.close(slave)
    missing: list[float] = []
    done = threading.Event()

    def watch() -> None:  # pyproject.toml at each look, 20 a second, until the build is ended
        while not done.wait(0.05):
            if not (src / "pyproject.toml").is_file():
                missing.append(time.monotonic())

    watcher = threading.Thread(target=watch)
    watcher.start()  # after the fork: no thread runs while preexec_fn does
    said = ""
    try:
        while "still compiling" not in said or not said.rstrip(" ").endswith(")"):
            try:
                chunk = os.read(master, 4096).decode(errors="replace")
            except OSError:  # EIO: the build ended and closed the terminal
                break
            if not chunk:
                break
            said += chunk
    finally:
        done.set()
        watcher.join()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pip.pid, signal.SIGTERM)
        pip.wait(timeout=120)
        _group_ends(pip.pid)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pip.pid, signal.SIGKILL)
        os.close(master)
    lines = [line.strip() for line in said.replace("\r", "\n").split("\n") if line.strip().startswith("flip7ref: ")]
    modules = len(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
                  ["hooks"]["custom"]["compile"])  # fmt: skip
    assert lines[0] == f"flip7ref: pip is about to compile the core with mypyc ({hook.EXPECTED}; progress lines follow)"
    assert lines[1] == (
        f"flip7ref: compiling {modules} modules of the core with mypyc, {hook.EXPECTED} (FLIP7REF_PURE=1 pip "
        "install . skips it); a line at least every 20 s"
    ), said
    still = re.fullmatch(r"flip7ref: still compiling, (\d+) s so far \(.+\)", lines[-1])
    assert still and int(still.group(1)) >= hook.HEARTBEAT, said
    assert not missing, f"pyproject.toml was missing {len(missing)} times"
    assert _tree(src) == before


@pytest.mark.slow
def test_pyproject_toml_is_there_at_every_moment_of_a_whole_build(tmp_path: Path) -> None:
    """``pip install .`` in a fresh venv, the whole compile: pyproject.toml is present at each look
    (20 a second) and the checkout is unchanged at the end; the package installed is compiled."""
    src = _checkout_copy(tmp_path)
    before = _tree(src)
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True)
    missing: list[float] = []
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.05):
            if not (src / "pyproject.toml").is_file():
                missing.append(time.monotonic())

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        build = subprocess.run([str(tmp_path / "venv/bin/pip"), "install", "."], cwd=src, start_new_session=True,
                               env={**os.environ, "FLIP7REF_NO_COMPILE_CACHE": "1"},  # the whole compile, not a kept one
                               capture_output=True, text=True, check=False)  # fmt: skip (no terminal: progress to stderr)
    finally:
        done.set()
        watcher.join()
    assert build.returncode == 0, build.stdout + build.stderr
    assert not missing, f"pyproject.toml was missing {len(missing)} times"
    assert _tree(src) == before
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the installed copy, not this checkout's
    compiled = subprocess.run([str(tmp_path / "venv/bin/python"), "-c", "import flip7ref; print(flip7ref.compiled)"],
                              cwd=tmp_path, env=clean, capture_output=True, text=True, check=True)  # fmt: skip
    assert compiled.stdout == "True\n"


def _section_commands(page: Path, heading: str) -> list[str]:
    """The command lines of the ``sh`` blocks under ``heading`` (to the next heading) of ``page``."""
    text = page.read_text(encoding="utf-8")
    section = text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip() and not line.startswith("#")]


def test_install_md_wheel_commands_work_as_written(tmp_path: Path) -> None:
    """Issue 42: docs/install.md's wheel commands failed as written (two wheels matched the glob:
    ResolutionImpossible; the [table] form: Invalid requirement). Run verbatim in a copy of the
    checkout with a fresh venv's pip first on the PATH (FLIP7REF_PURE=1: both wheels pure, no compile)."""
    commands = _section_commands(ROOT / "docs" / "install.md", "## A wheel, to install elsewhere")
    assert len(commands) == 4 and all(c.startswith(("pip wheel", "FLIP7REF_PURE=1 pip wheel", "pip install")) for c in commands)
    src = _checkout_copy(tmp_path)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "FLIP7REF_PURE": "1"}
    env.pop("PYTHONPATH", None)
    for n, command in enumerate(commands):
        if n == 2:  # both wheels built: the pure one's folder gets the file the compiled build would put beside it
            (pure,) = re.findall(r"^FLIP7REF_PURE=1 pip wheel .*-w (\S+)", "\n".join(commands), re.M)
            (wheel,) = (src / pure).glob("*-py3-none-any.whl")
            tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
            shutil.copy(wheel, wheel.with_name(f"flip7ref-0.1.0-{tag}-{tag}-linux_x86_64.whl"))
        done = subprocess.run(["bash", "-c", command], cwd=src, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{command}\n{done.stdout}{done.stderr}"
    check = "import flip7ref, starlette, uvicorn, segno; print(flip7ref.__file__)"
    done = subprocess.run([str(venv / "bin/python"), "-c", check], cwd=tmp_path, env=env, capture_output=True, text=True,
                          check=True)  # fmt: skip
    assert done.stdout.startswith(str(venv))
