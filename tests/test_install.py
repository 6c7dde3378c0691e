"""How flip7ref is installed (flip7ref.install, docs/install.md): the hints for the optional
extras work as written (flip7ref is on no package index), and ``flip7ref --version`` names
the copy that runs and an installed copy that it hides.

These tests check the packaging and the command line's messages, so they cite no rule ids.
"""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import flip7ref
from flip7ref import install
from flip7ref.cli import main, version_text

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(flip7ref.__file__).resolve().parent


def test_extras_are_the_ones_pyproject_declares() -> None:
    """`install.EXTRAS` lists every optional extra but ``dev`` with pyproject.toml's packages."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {name: tuple(reqs) for name, reqs in project["optional-dependencies"].items() if name != "dev"}
    assert declared == install.EXTRAS


def test_extra_hint_names_the_checkout_and_the_packages() -> None:
    assert install.extra_hint("plot") == "from a checkout: pip install '.[plot]'; anywhere: pip install 'matplotlib>=3.7'"
    assert install.extra_hint("table") == (
        "from a checkout: pip install '.[table]'; anywhere: pip install 'starlette>=0.37' 'uvicorn>=0.29' 'segno>=1.5'"
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
        if path.relative_to(ROOT).as_posix() not in {"flip7ref/install.py", "docs/install.md"}
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
    dist = _fake_install(tmp_path, "flip7ref/__init__.py", "flip7ref/state.py", "flip7ref/state.cpython-311-x86_64-linux-gnu.so")
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
    pure = _fake_install(tmp_path, "flip7ref/__init__.py", "flip7ref/state.py")
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
