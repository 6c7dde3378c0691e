"""Every command line README.md shows in its ```sh blocks runs as written.

Each line of a ```sh block is split at `` && `` into steps. A step that makes a virtual
environment, installs packages, runs the whole test suite or starts a server is not run
here: `NOT_RUN` lists each such kind with its reason and the check made instead (its flags
and arguments, or that ``.ci/run`` runs it). Every other step runs, in order, through
``bash -o pipefail`` in a scratch copy of the checkout (the data folders linked, the
``examples/`` folder copied, ``.venv/bin`` and ``.venv-dev/bin`` pointing at the Python
environment running the tests), and must exit 0 without a traceback. A plain ``` block
right after a ```sh block is what that block's last line prints, up to a ``...`` line.

The Python examples are run by tests/test_doc_examples.py. These tests check the
documentation, so they cite no rule ids.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from flip7ref.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BIN = Path(sys.executable).parent  # the environment running the tests: flip7ref, python3, pip...
LINKED = (
    "spec", "conformance", "flip7ref", "docs", "mkdocs.yml", "tools", "pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md",
)  # fmt: skip


@dataclass(frozen=True)
class Line:
    """One command line of a ```sh block: its line number in README.md, its text and the output block after it."""

    number: int
    text: str
    output: tuple[str, ...] | None = None


def readme_lines() -> list[Line]:
    """Every non-blank line of README.md's ```sh blocks, with the expected output of a block's last line."""
    lines: list[Line] = []
    rows = README.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(rows):
        if rows[i].strip() != "```sh":
            i += 1
            continue
        j = i + 1
        block: list[Line] = []
        while rows[j].strip() != "```":
            if rows[j].strip():
                block.append(Line(j + 1, rows[j].strip()))
            j += 1
        k = j + 1
        while k < len(rows) and not rows[k].strip():
            k += 1
        if block and k < len(rows) and rows[k].strip() == "```":  # a plain block: the output of the last line
            end = rows.index("```", k + 1)
            shown = tuple(r for r in rows[k + 1 : end])
            block[-1] = Line(block[-1].number, block[-1].text, shown[: shown.index("...")] if "..." in shown else shown)
        lines.extend(block)
        i = j + 1
    return lines


def steps(text: str) -> list[list[str]]:
    """The `` && ``-separated steps of a command line, each as its words (comments dropped;
    leading ``NAME=value`` environment assignments too, as the shell reads them)."""
    out = []
    for part in text.split(" && "):
        words = shlex.split(part, comments=True)
        while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
            words = words[1:]
        out.append(words)
    return out


def _extras() -> set[str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(data["project"]["optional-dependencies"])


def _check_venv(argv: list[str]) -> None:
    assert argv[:3] == ["python3", "-m", "venv"] and len(argv) == 4, argv
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert f"{argv[3]}/" in ignored, f"{argv[3]} is not in .gitignore"


def _check_pip(argv: list[str]) -> None:
    assert argv[0] in {".venv/bin/pip", ".venv-dev/bin/pip", "pip"} and argv[1] == "install", argv
    targets = [a for a in argv[2:] if a != "-e"]
    assert targets, argv
    for target in targets:
        match = re.fullmatch(r"\.(?:\[([a-z,]+)\])?", target)
        assert match, f"pip installs {target!r}, not this checkout"
        unknown = set((match.group(1) or "").split(",")) - {""} - _extras()
        assert not unknown, f"no such extra in pyproject.toml: {sorted(unknown)}"


def _ci_run() -> str:
    return (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def _check_pytest(argv: list[str]) -> None:
    """The README's test command is what .ci/run runs: ``-e '.[dev]'`` installed, then ``pytest``
    on every core (pytest-xdist, a file's tests kept on one worker for their module fixtures)."""
    venv = argv[0].removesuffix("/bin/pytest")
    assert argv == [f"{venv}/bin/pytest", "-n", "auto", "--dist", "loadfile"], argv
    ci = _ci_run()
    ci_venv = re.search(r"^(\S+)/bin/pytest -n auto --dist loadfile$", ci, flags=re.MULTILINE)
    assert ci_venv, ".ci/run does not run the README's pytest command"
    assert f"{ci_venv.group(1)}/bin/python -m pip install --quiet -e '.[dev]'" in ci


def _check_mkdocs_serve(argv: list[str]) -> None:
    assert argv[1:] == ["serve"] and (ROOT / "mkdocs.yml").is_file(), argv


def _check_mkdocs_build(argv: list[str]) -> None:
    """.ci/run builds the site the same way, and without ``--quiet``: that hides the warnings
    from ``--strict``, so a broken link passed the quiet build and failed the README's."""
    assert argv[1:] == ["build", "--strict"], argv
    ci = re.search(r"^.*/bin/mkdocs build --strict\b.*$", _ci_run(), flags=re.MULTILINE)
    assert ci and "--quiet" not in ci.group(0) and " -q" not in ci.group(0), ".ci/run builds the site otherwise"


@dataclass(frozen=True)
class NotRun:
    """A kind of step that is checked, not run, and why."""

    matches: Callable[[list[str]], bool]
    reason: str
    check: Callable[[list[str]], None]
    unless_installed: str | None = None  # ... but run when this module can be imported


NOT_RUN = (
    NotRun(lambda a: a[:3] == ["python3", "-m", "venv"], "makes a virtual environment (these tests run in one)", _check_venv),
    NotRun(lambda a: a[0].endswith("pip") and a[1:2] == ["install"],
           "installs packages (the compiled install takes minutes); checked: it installs this checkout with existing extras",
           _check_pip),
    NotRun(lambda a: a[0].endswith("/pytest"), "the whole test suite, which this test is part of; checked: .ci/run runs it",
           _check_pytest),
    NotRun(lambda a: a[0].endswith("/mkdocs") and a[1:2] == ["serve"], "a web server that runs until Ctrl-C",
           _check_mkdocs_serve),
    NotRun(lambda a: a[0].endswith("/mkdocs") and a[1:2] == ["build"],
           "needs the [docs] extra, which .ci/run installs in a venv of its own and then runs this very build",
           _check_mkdocs_build, unless_installed="mkdocs"),
)  # fmt: skip


def _not_run(argv: list[str]) -> NotRun | None:
    for rule in NOT_RUN:
        if rule.matches(argv):
            if rule.unless_installed and shutil.which(rule.unless_installed, path=str(BIN)):
                return None
            return rule
    return None


def _tournament_takes_repeated_strategy() -> bool:
    sub = build_parser()._subparsers._group_actions[0].choices["tournament"]  # type: ignore[union-attr]
    return "--strategy" in sub._option_string_actions


LINES = readme_lines()


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch copy of the checkout's top folder: data linked, examples copied, both venvs this one."""
    if not (BIN / "flip7ref").exists():
        pytest.skip(f"flip7ref is not installed as a command beside {sys.executable}")
    work = tmp_path_factory.mktemp("checkout")
    for name in LINKED:
        (work / name).symlink_to(ROOT / name)
    shutil.copytree(ROOT / "examples", work / "examples", ignore=shutil.ignore_patterns("__pycache__", "*.jsonl"))
    for venv in (".venv", ".venv-dev"):
        (work / venv).mkdir()
        (work / venv / "bin").symlink_to(BIN)
    return work


def test_readme_has_the_commands_this_test_expects() -> None:
    """The quick start and the test command are found, so a broken parser cannot pass silently."""
    texts = [line.text for line in LINES]
    assert any(t.startswith("python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/flip7ref simulate") for t in texts)
    test_command = "python3 -m venv .venv-dev && .venv-dev/bin/pip install -e '.[dev]' && .venv-dev/bin/pytest"
    assert f"{test_command} -n auto --dist loadfile" in texts
    assert len(LINES) >= 15
    assert LINES[0].output, "the quick start shows what it prints"


def test_readme_is_short_and_free_of_maintainer_history() -> None:
    """README.md is a user document: under 200 lines, no work rounds, sessions, issue numbers or commit ids."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    for pattern in (r"\bsessions? \d", r"\bissues? #?\d", r"\bround \d+ of\b", r"#\d{1,4}\b",
                    r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b"):  # fmt: skip
        found = re.search(pattern, text, flags=re.IGNORECASE)
        assert found is None, f"README.md: {found.group(0)!r} (maintainer history belongs in CHANGELOG.md)"


@pytest.mark.parametrize("line", [pytest.param(line, id=f"README.md:{line.number}") for line in LINES])
def test_readme_command_line_runs_as_written(line: Line, checkout: Path) -> None:
    """Each step runs (exit 0, no traceback), or is one of the NOT_RUN kinds and passes its check."""
    run: list[str] = []
    for part, argv in zip(line.text.split(" && "), steps(line.text), strict=True):
        rule = _not_run(argv)
        if rule is not None:
            rule.check(argv)
        else:
            run.append(part)
    if not run:
        return
    assert not ("tournament" in line.text and "--strategy " in line.text) or _tournament_takes_repeated_strategy()
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    env.pop("FLIP7REF_PURE", None)
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", " && ".join(run)],
        cwd=checkout, env=env, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    where = f"README.md:{line.number}: {line.text}"
    assert done.returncode == 0, f"{where}\nexit status {done.returncode}\n{done.stderr[-2000:]}"
    assert "Traceback" not in done.stderr, f"{where}\n{done.stderr[-2000:]}"
    if line.output is not None:
        shown = [row.rstrip() for row in line.output]
        assert [row.rstrip() for row in done.stdout.splitlines()[: len(shown)]] == shown, (
            f"{where}: README.md shows another output than it prints:\n{done.stdout}"
        )


def test_every_step_that_is_not_run_has_a_reason() -> None:
    """The steps left unrun are exactly the NOT_RUN kinds, each with its reason (printed with -rA)."""
    unrun = [(line.number, " ".join(argv), rule.reason) for line in LINES for argv in steps(line.text)
             if (rule := _not_run(argv)) is not None]  # fmt: skip
    kinds = {reason for _, _, reason in unrun}
    assert all(reason for reason in kinds)
    assert len(unrun) >= 5  # two venvs, two installs at least, the suite, the docs server
    for number, command, reason in unrun:
        print(f"README.md:{number}: not run: {command} ({reason})")


@pytest.mark.parametrize(
    "written",
    ["game.json", "report.jsonl", "examples/games.jsonl", "flip7.pt", "vengeance.pt", "agent.pt", "my-engine.js",
     "my-engine.py", "fuzz-cases/F7-F0001.yaml", "house.yaml", "house.yaml.bak", "flip7-published.policy"],
)  # fmt: skip
def test_what_the_documented_commands_write_in_a_checkout_is_git_ignored(written: str) -> None:
    """README.md and docs/ run commands in the top folder of a checkout that write these files (a transcript,
    a report, agent files of train-agent, the engine skeleton copied, fuzz cases, a house table, a stored
    policy); a new user's `git status` should not list them."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    done = subprocess.run(["git", "check-ignore", "--no-index", "-q", written], cwd=ROOT, timeout=60)
    assert done.returncode == 0, f"{written} is not in .gitignore"
