"""CI's entry point (.ci/run) reports its true exit status (issue 42): its EXIT trap printed the
status of its own `echo` (`(exit 0)` after a failing script).

These tests check the CI script, so they cite no rule ids.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _trap() -> str:
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    found = re.search(r"^ci_exit\(\) \{\n.*?^\}\ntrap ci_exit EXIT\n", text, re.S | re.M)
    assert found, ".ci/run has no ci_exit EXIT trap"
    return found.group(0)


@pytest.mark.parametrize(("command", "status"), [("false", 1), ("(exit 3)", 3), ("true", 0)])
def test_the_exit_trap_prints_and_keeps_the_script_status(command: str, status: int) -> None:
    if not (ROOT / ".ci" / "run").is_file() or shutil.which("bash") is None:
        pytest.skip("no .ci/run (the tests run away from a checkout) or no bash")
    script = f"set -euo pipefail\n_ci_section=tests _ci_start=$SECONDS\n{_trap()}echo before\n{command}\necho after\n"
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == status
    lines = done.stdout.splitlines()
    assert lines[0] == "before"
    assert lines[-2] == "== tests took 0 s"
    assert re.fullmatch(rf"== total \d+ s \(exit {status}\)", lines[-1]), lines[-1]
