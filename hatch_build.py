"""Build hook: compile the interpreter's core with mypyc when a wheel is built.

``pip install .`` (or ``pip wheel .``) compiles the modules listed in
``[tool.hatch.build.targets.wheel.hooks.custom] compile`` with mypyc.  The wheel is pure
Python instead when

* the environment variable ``FLIP7REF_PURE`` is set to ``1`` (or ``true``/``yes``),
* the install is editable (``pip install -e .``), or
* the compilation fails, e.g. when no C compiler is available (a warning says so).

The compile runs in a temporary copy of ``flip7ref/``: the checkout is never changed (no file
renamed, written or removed), so killing a build leaves it as it was.  The extension modules
are added to the wheel from that copy.

pip hides a build backend's output unless run with ``-v``; the hook therefore writes its
progress (the compile's step, and a line at least every 20 s) to the terminal (``/dev/tty``)
when there is one, else to standard error.

A Python older than ``requires-python`` is refused before anything is compiled (pip, which
asks hatchling for the wheel's metadata by building the wheel, would otherwise say so only
after the compile).

The extension modules of a compile are kept in the user's cache
(``$XDG_CACHE_HOME/flip7ref/mypyc/KEY``, ``~/.cache/...``), KEY a digest of every source file of
``flip7ref/``, the compile settings, this Python and its platform: a second build of the same
sources (``pip install '.[table]'`` after ``pip install .``, issue 42) reuses them instead of
compiling again, and then needs no mypy either.  The newest `CACHE_KEPT` compiles are kept.
``FLIP7REF_NO_COMPILE_CACHE=1`` compiles anew (and keeps nothing).

``flip7ref.compiled`` tells at run time which build is installed.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from packaging.specifiers import SpecifierSet

# mypy type-checks the compiled modules in the build environment: it needs the typed libraries they import;
# setuptools runs the C compiler (mypyc.build.mypycify makes setuptools extensions)
MYPYC_REQUIRES = ["setuptools>=61", "mypy>=1.10", "mypy_extensions>=1.0", "attrs>=23.1", "types-PyYAML", "types-jsonschema"]
# the seconds between two "still compiling" lines
HEARTBEAT = 20.0
# what the first lines announce (measured on a shared 2-core machine, Python 3.11: 82 s idle, 223 s loaded)
EXPECTED = "usually 1-4 minutes"

# the compiles kept in the user's cache (the newest ones; each some 10-20 MB)
CACHE_KEPT = 4

# the signals that end a build by raising (SIGINT already does): the temporary copy is removed
STOP_SIGNALS = [signal.SIGTERM] + ([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])


def _stop(number: int, frame: object) -> None:
    raise SystemExit(128 + number)


SETUP = """\
from setuptools import setup
from mypyc.build import mypycify

setup(name="flip7ref_mypyc", ext_modules=mypycify({args!r}))
"""


def pure_requested() -> bool:
    """Whether ``FLIP7REF_PURE`` asks for a pure-Python build."""
    return os.environ.get("FLIP7REF_PURE", "").strip().lower() in {"1", "true", "yes", "on"}


def python_refusal(requires_python: str, version: tuple[int, int, int] | None = None) -> str | None:
    """The one-line refusal when this Python (or ``version``) is not in ``requires_python``, else ``None``."""
    major, minor, micro = version or sys.version_info[:3]
    if not requires_python or SpecifierSet(requires_python).contains(f"{major}.{minor}.{micro}", prereleases=True):
        return None
    found = f"{major}.{minor}.{micro}"
    return f"flip7ref needs Python {requires_python}; this is Python {found} ({sys.executable}): nothing was built"


def cache_wanted() -> bool:
    """Whether the compile cache may be used (``FLIP7REF_NO_COMPILE_CACHE`` unset)."""
    return os.environ.get("FLIP7REF_NO_COMPILE_CACHE", "").strip().lower() not in {"1", "true", "yes", "on"}


def cache_root() -> Path:
    """The folder of the kept compiles: ``$XDG_CACHE_HOME/flip7ref/mypyc`` (``~/.cache/...``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "flip7ref" / "mypyc"


def compile_key(root: Path, config: dict[str, Any]) -> str:
    """The digest of what a compile's output depends on: every ``.py``/``.pyi`` file of
    ``root/flip7ref`` (path and bytes), the compile settings, this Python and its platform."""
    digest = hashlib.sha256()
    settings = (sys.implementation.cache_tag, sys.version, sysconfig.get_platform(), sysconfig.get_config_var("EXT_SUFFIX"),
                config.get("compile"), config.get("mypy-args"))  # fmt: skip
    digest.update(repr(settings).encode())
    package = root / "flip7ref"
    for path in sorted(package.rglob("*.py*")):
        if path.suffix in (".py", ".pyi") and "__pycache__" not in path.parts:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def cached_compile(key: str) -> Path | None:
    """The folder of a kept compile of ``key`` (its extension modules, as laid out in a wheel), if whole."""
    folder = cache_root() / key
    return folder if (folder / "COMPLETE").is_file() else None


def keep_compile(key: str, work: Path, built: dict[str, str]) -> None:
    """Keep the extension modules ``built`` (path in ``work`` -> path in the wheel) as the compile
    of ``key``, written beside and renamed into place; prune to the newest `CACHE_KEPT`.  A
    cache that cannot be written is skipped silently (the build goes on)."""
    root = cache_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=root))
        for source, rel in built.items():
            target = tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        (tmp / "COMPLETE").write_text("\n".join(sorted(built.values())) + "\n", encoding="utf-8")
        try:
            os.rename(tmp, root / key)
        except OSError:  # another build kept the same compile first
            shutil.rmtree(tmp, ignore_errors=True)
        kept = sorted((p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")),
                      key=lambda p: p.stat().st_mtime, reverse=True)  # fmt: skip
        for old in kept[CACHE_KEPT:]:
            shutil.rmtree(old, ignore_errors=True)
    except OSError:
        return


class Progress:
    """The compile's progress lines, on the terminal if there is one (pip hides the backend's output)."""

    def __init__(self, beat: bool = True) -> None:
        self.beat = beat
        self.start = time.monotonic()
        self.step = "starting"
        self.tty: IO[str] | None = None
        try:
            self.tty = open("/dev/tty", "w", encoding="utf-8")  # noqa: SIM115
        except OSError:
            self.tty = None
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._beat, daemon=True)

    def say(self, text: str) -> None:
        out = self.tty or sys.stderr
        # on a terminal, start on a line of its own: pip's spinner may be at the end of the current one
        out.write(("\n" if self.tty else "") + "flip7ref: " + text + ("" if self.tty else "\n"))
        out.flush()

    def elapsed(self) -> str:
        seconds = int(time.monotonic() - self.start)
        return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"

    def _beat(self) -> None:
        while not self.done.wait(HEARTBEAT):
            self.say(f"still compiling, {self.elapsed()} so far ({self.step})")

    def __enter__(self) -> Progress:
        if self.beat:
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        if self.beat:
            self.thread.join()
        if self.tty:
            self.tty.write("\n")
            self.tty.close()


class CompiledCoreHook(BuildHookInterface):  # type: ignore[type-arg]
    """Compiles the listed modules with mypyc in a copy of the sources, unless a pure build is asked for."""

    PLUGIN_NAME = "custom"

    def _refuse_old_python(self) -> None:
        refusal = python_refusal(self.metadata.core.requires_python)
        if refusal:
            raise SystemExit(refusal)

    def dependencies(self) -> list[str]:
        self._refuse_old_python()
        if pure_requested():
            return []
        if cache_wanted() and cached_compile(compile_key(Path(self.root), self.config)):
            return []  # the compile is kept: nothing to compile, no mypy to install
        # pip and build run each backend hook as `python _in_process.py <hook> <dir>`: announce the compile
        # as soon as a wheel's requirements are asked for (not an editable install's), before pip installs mypy
        if sys.argv[1:2] == ["get_requires_for_build_wheel"]:
            with Progress(beat=False) as progress:
                progress.say(f"pip is about to compile the core with mypyc ({EXPECTED}; progress lines follow)")
        return list(MYPYC_REQUIRES)

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self._refuse_old_python()
        if self.target_name != "wheel" or version == "editable":
            return
        if pure_requested():
            self.app.display_info("flip7ref: FLIP7REF_PURE is set: building pure Python")
            return
        key = compile_key(Path(self.root), self.config) if cache_wanted() else None
        kept = cached_compile(key) if key else None
        if kept is not None:
            listed = (kept / "COMPLETE").read_text(encoding="utf-8").split()
            self.app.display_info(f"flip7ref: the compiled core of these sources is kept in {kept}: not compiling again")
            build_data["infer_tag"] = True
            build_data["pure_python"] = False
            build_data["force_include"].update({str(kept / rel): rel for rel in listed})
            return
        self.work = tempfile.mkdtemp(prefix="flip7ref-mypyc-")
        # SIGTERM or SIGHUP (a closed terminal) end the build as an exception does: the copy is removed
        previous = {number: signal.signal(number, _stop) for number in STOP_SIGNALS}
        try:
            built = self._compile(Path(self.work))
        except Exception as exc:  # no compiler, or mypyc failed: fall back to pure Python
            first = str(exc).strip().splitlines()
            self.app.display_warning(
                "flip7ref: compiling with mypyc failed, building pure Python instead" + (f" ({first[0]})" if first else "")
            )
            print(str(exc), file=sys.stderr)
            return
        except BaseException:
            shutil.rmtree(self.work, ignore_errors=True)
            raise
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
        if key:
            keep_compile(key, Path(self.work), built)
        build_data["infer_tag"] = True
        build_data["pure_python"] = False
        build_data["force_include"].update(built)

    def _compile(self, work: Path) -> dict[str, str]:
        """Compile in ``work`` (a copy of the package); the built extension modules: path -> path in the wheel."""
        modules = [str(m) for m in self.config.get("compile", [])]
        args = [*map(str, self.config.get("mypy-args", [])), *modules]
        shutil.copytree(
            Path(self.root) / "flip7ref", work / "flip7ref", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd")
        )
        (work / "setup.py").write_text(SETUP.format(args=args), encoding="utf-8")
        ext = ".pyd" if platform.system() == "Windows" else ".so"
        with Progress() as progress:
            progress.say(
                f"compiling {len(modules)} modules of the core with mypyc, {EXPECTED} "
                "(FLIP7REF_PURE=1 pip install . skips it); a line at least every 20 s"
            )
            progress.step = "mypy type-checks the modules and writes C"
            log: list[str] = []
            with subprocess.Popen(
                [sys.executable, "setup.py", "build_ext", "--inplace"],
                cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            ) as process:  # fmt: skip
                assert process.stdout is not None
                try:
                    built = 0
                    for line in process.stdout:
                        log.append(line)
                        if line.startswith("building '"):  # setuptools starts an extension module
                            built += 1
                            name = line.split("'")[1]
                            progress.step = f"the C compiler builds extension {built} of {len(modules) + 1}: {name}"
                            progress.say(f"{progress.elapsed()}: {progress.step}")
                finally:
                    if process.poll() is None:  # interrupted: the compiler goes too
                        process.kill()
            if process.returncode:
                raise RuntimeError("Error while invoking mypyc:\n" + "".join(log))
            progress.say(f"compiled in {progress.elapsed()}")
        return {
            str(path): path.relative_to(work).as_posix()
            for path in sorted(work.rglob(f"*{ext}"))
            if "build" not in path.relative_to(work).parts[:1]
        }

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        work = getattr(self, "work", None)
        if work:
            shutil.rmtree(work, ignore_errors=True)
