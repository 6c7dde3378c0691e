# ruff: noqa: E402, E501  (a one-off migration script, kept as run)
"""After rooms.py: the room map's test, page, nav line, CONTRIBUTING layout and ruff's ban on relative imports."""

import re
import shutil
from pathlib import Path

ROOT = Path.cwd()
H = Path(__file__).resolve().parent
shutil.copy(H / "test_rooms.py.draft", ROOT / "tests" / "test_rooms.py")
shutil.copy(H / "rooms.md.draft", ROOT / "docs" / "rooms.md")
m = ROOT / "mkdocs.yml"
t = m.read_text()
old = "      - Inside the interpreter: core.md\n"
assert old in t
m.write_text(t.replace(old, old + "      - The rooms of the package: rooms.md\n", 1))
c = ROOT / "CONTRIBUTING.md"
t = c.read_text()
block = (H / "layout_block.txt").read_text()
t2 = re.sub(r"## Layout\n\n```\n.*?```\n", "## Layout\n\n" + block, t, count=1, flags=re.S)
assert t2 != t
c.write_text(t2)
p = ROOT / "pyproject.toml"
t = p.read_text()
old = 'select = ["E", "F", "W", "I", "B", "UP", "SIM", "RUF"]\n'
assert old in t
t = t.replace(old, 'select = ["E", "F", "W", "I", "B", "UP", "SIM", "RUF", "TID252"]\n', 1)
t = t.replace(
    "[[tool.mypy.overrides]]",
    '[tool.ruff.lint.flake8-tidy-imports]\n# the package imports by absolute names (docs/rooms.md): a module\'s room shows in every import\nban-relative-imports = "all"\n\n[[tool.mypy.overrides]]',
    1,
)
p.write_text(t)
s = ROOT / "tests" / "test_site.py"
t = s.read_text()
old = 'TYPED_IN_DOCSTRINGS = ["game.py", "state.py", "model.py", "scoring.py", "play.py", "strategies.py", "analysis/solver.py"]'
assert old in t
s.write_text(
    t.replace(
        old,
        'TYPED_IN_DOCSTRINGS = [\n    "core/game.py", "core/state.py", "core/model.py", "core/scoring.py", "play/games.py", "play/strategies.py",\n    "analysis/solver.py",\n]',
        1,
    )
)
import subprocess

subprocess.run(["git", "rm", "-q", "tests/test_layout.py"], check=True)  # the room map replaces the line ceiling (issue 43)
print("post done")
ch = ROOT / "CHANGELOG.md"
t = ch.read_text()
line = (
    "- The package is in rooms, one job each: `flip7ref.core` (the rules), `flip7ref.proc` (processes), "
    "`flip7ref.checking.verdict` (conformance), `flip7ref.play.games` (games, strategies, tournaments), beside `analysis`, `batch`, `rl` "
    "and the apps (`cli`, `table`, `explore`, `docs`); only `flip7ref/__init__.py` and `__main__.py` stay loose. "
    "**Breaking**: a module's import path changed (`flip7ref.core.state` is `flip7ref.core.state`, `flip7ref.play.games` is "
    "`flip7ref.play.games.games`, `flip7ref.checking.verdict` is `flip7ref.checking.verdict.verdict`, `flip7ref.core.primitives` is "
    "`flip7ref.core.primitives`...); the names `flip7ref` itself exports are unchanged. `tests/test_rooms.py` holds "
    "[the room map](docs/rooms.md) (which room may import which, every import counted) and replaces the 600-line "
    "ceiling; the package imports by absolute names (ruff TID252).\n"
)
marker = "## [Unreleased]"
i = t.index(marker)
j = t.index("### Changed", i) if "### Changed" in t[i : t.index("\n## [", i + 5)] else None
if j is not None:
    k = t.index("\n", j) + 1
    t = t[:k] + "\n" + line + t[k:] if t[k] != "\n" else t[: k + 1] + line + t[k + 1 :]
else:
    k = t.index("### ", i)
    t = t[:k] + "### Changed\n\n" + line + "\n" + t[k:]
ch.write_text(t)
print("changelog done")
