"""The engine kit (conformance/examples): protocol skeletons for node and plain Python,
each with a tiny engine behind it, run against a few cases so that they never rot."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from flip7ref.checking.conformance import load_cases
from flip7ref.checking.harness import run_engine

EXAMPLES = Path(__file__).parent.parent / "conformance" / "examples"


def _cases() -> list[object]:
    flip7 = [c for c in load_cases() if c["edition"] == "flip7"]
    scoring = [c for c in flip7 if c["kind"] == "scoring"][:6]
    return [
        *scoring,
        *[c for c in flip7 if c["kind"] != "scoring"][:2],
        next(c for c in load_cases() if c["edition"] == "vengeance"),
    ]


def _command(name: str) -> str:
    if name == "engine.js":
        node = shutil.which("node")
        if node is None:
            if os.environ.get("CI"):
                pytest.fail("node is needed in CI to run the node skeleton")
            pytest.skip("node is not installed")
        return f"{node} {EXAMPLES / name}"
    return f"{sys.executable} {EXAMPLES / name}"


@pytest.mark.parametrize("name", ["engine.js", "engine.py"])
@pytest.mark.parametrize("version", [1, 2])
def test_skeleton_passes_the_scoring_cases_and_skips_the_rest(name: str, version: int) -> None:
    """The tiny engine passes the scoring cases; the others are skipped with a reason (never errored)."""
    cases = _cases()
    _, results = run_engine(_command(name), cases, timeout=30, version=version)  # type: ignore[arg-type]
    scored = [c["kind"] == "scoring" and c["edition"] == "flip7" for c in cases]  # type: ignore[index]
    assert [r.status for r, s in zip(results, scored, strict=True) if s] == ["pass"] * 6
    assert [r.status for r, s in zip(results, scored, strict=True) if not s] == ["skip"] * 3
    assert all(r.message for r in results if r.status == "skip")


@pytest.mark.parametrize("name", ["engine.js", "engine.py"])
def test_skeletons_are_short_and_self_contained(name: str) -> None:
    """Each skeleton is under 150 lines, marks the places to fill in, and needs nothing of flip7ref."""
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    assert len(text.splitlines()) < 150
    assert text.count("FILL IN") >= 3
    assert "flip7ref." not in text.replace("flip7ref conformance", "") and "import flip7ref" not in text
    assert "require(" not in text or text.count("require(") == 1  # node: the readline module only
