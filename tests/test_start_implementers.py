"""The implementers' start page's suite commands run as written (issue 42: its first command
named an engine that does not exist).

Every ``flip7ref conformance run`` line of docs/start/implementers.md's ```sh blocks runs from
the checkout's root, through the environment running the tests, and must exit 0 having run
at least one case. These tests check the documentation, so they cite no rule ids.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "start" / "implementers.md"
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.skipif(not PAGE.is_file(), reason="reads docs/ (a checkout)")


def _suite_lines() -> list[str]:
    text = PAGE.read_text(encoding="utf-8") if PAGE.is_file() else ""
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            line = line.split("   #")[0].strip()
            if line.startswith("flip7ref conformance run"):
                lines.append(line)
    return lines


def test_the_page_shows_suite_commands() -> None:
    assert len(_suite_lines()) >= 2


@pytest.mark.parametrize("line", _suite_lines())
def test_suite_command_runs_as_written(line: str, tmp_path: Path) -> None:
    words = shlex.split(line)
    if "--report" in words:  # written beside the checkout's files otherwise
        words[words.index("--report") + 1] = str(tmp_path / "report.jsonl")
    done = subprocess.run(
        [str(BIN / "flip7ref"), *words[1:]], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    ran = re.search(r"(\d+) cases: (\d+) passed, (\d+) failed", done.stdout + done.stderr)
    assert ran is not None, done.stdout[-2000:]
    assert int(ran.group(2)) >= 1 and int(ran.group(3)) == 0
