# ruff: noqa: E501, SIM102  (a one-off migration script, kept as run)
"""Move flip7ref's flat modules into rooms (core, proc, checking, play), rewriting every reference.

Run from a checkout's root: python tools/rooms_move/move.py [--dry], then ruff --fix (I, F401), tools/record_checked_tables.py, python tools/rooms_move/post.py
Single application (not idempotent).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOMS: dict[str, list[str]] = {
    "core": [
        "errors",
        "model",
        "events",
        "frames",
        "history",
        "work",
        "lines",
        "targets",
        "pile",
        "engine",
        "lanes",
        "lane_readings",
        "scoring",
        "game",
        "state",
        "builders",
        "position",
        "serialize",
        "deciders",
        "layout",
        "compiled_docs",
        "edition",
        "edition_check",
        "spec",
        "schema",
        "checked_tables",
        "textfiles",
        "text",
        "i18n",
        "primitives",
    ],
    "proc": ["pools", "supervise", "reaper", "timelimit", "cluster", "exits", "install"],
    "checking": [
        "conformance",
        "checking",
        "blame",
        "suspects",
        "situation",
        "score_blame",
        "zones",
        "probe",
        "perft",
        "perft_check",
        "harness",
        "replay",
        "suite",
        "case_faults",
        "case_index",
        "shuffle_order",
        "fuzz",
    ],
    "play": ["play", "strategies", "tournament", "stats", "plot"],
}
RENAMED = {"checking": "verdict", "play": "games"}  # a module whose name is its room's

DOCSTRINGS = {
    "core": "The rule core: the edition tables read into values, the immutable state, the interpreter's\n"
    "transitions and every rule's one decider (docs/core.md). Compiled with mypyc in a built wheel.\n"
    "It imports no other room.",
    "proc": "Process handling shared by every command: worker pools, the plug-in supervisor, decision time\n"
    "limits, the reaper of engine processes, Dask clusters, the exit statuses and the install hints.\n"
    "It imports the core only.",
    "checking": "Conformance checking: the cases, the engine protocol and its harness, blame, perft, replay of\n"
    "transcripts and fuzzing (docs/conformance/). It imports the core, proc and play.",
    "play": "Playing games: the game loop and simulation, strategies, tournaments, their statistics and\n"
    "plots. It imports the core, proc and analysis.",
}


def new_name(old: str) -> str | None:
    """``flip7ref.X`` (X a flat module or a moved package) -> its new dotted name."""
    for room, mods in ROOMS.items():
        if old in mods:
            return f"flip7ref.{room}.{RENAMED.get(old, old)}"
    return None


MOVES = {f"flip7ref.{m}": new_name(m) for mods in ROOMS.values() for m in mods}
# the cases played and the dispute catalogue: checking needs them, so they leave the explore app
SUB_MOVES = {"flip7ref.checking.runs": "flip7ref.checking.verdict.runs", "flip7ref.checking.catalogue": "flip7ref.checking.verdict.catalogue"}
EXPLORE_NAMES = {
    **{n: "flip7ref.checking.verdict.runs" for n in ("Run", "run_case", "with_option", "play_readings", "find_case")},
    **{n: "flip7ref.checking.verdict.catalogue" for n in ("Dispute", "DisputeReading", "disputes", "find_dispute", "attached_cases")},
}
FROM_EXPLORE = re.compile(r"^(?P<ind>\s*)from flip7ref\.explore import (?P<names>[^()#]+?)(?P<comment>\s*#.*)?$")


def split_explore_imports(text: str) -> str:
    """In the package, ``from flip7ref.explore import run_case`` -> from its new home in checking."""
    out = []
    for line in text.splitlines(keepends=True):
        m = FROM_EXPLORE.match(line.rstrip("\n"))
        if not m:
            out.append(line)
            continue
        groups: dict[str, list[str]] = {}
        for n in (n.strip() for n in m["names"].split(",") if n.strip()):
            groups.setdefault(EXPLORE_NAMES.get(n.partition(" as ")[0].strip(), "flip7ref.explore"), []).append(n)
        nl = "\n" if line.endswith("\n") else ""
        for parent, ns in groups.items():
            out.append(f"{m['ind']}from {parent} import {', '.join(ns)}{m['comment'] or ''}{nl}")
    return "".join(out)


PACKAGES = {"primitives", "fuzz"}

ROOT = Path.cwd()


def module_of(path: Path) -> tuple[str, bool]:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    is_init = parts[-1] == "__init__"
    if is_init:
        parts = parts[:-1]
    return ".".join(parts), is_init


REL = re.compile(r"^(?P<ind>\s*)from (?P<dots>\.+)(?P<mod>[\w.]*) import (?P<rest>.*)$")


def absolutize(path: Path, text: str) -> str:
    name, is_init = module_of(path)
    pkg = name.split(".") if is_init else name.split(".")[:-1]
    out = []
    for line in text.splitlines(keepends=True):
        m = REL.match(line.rstrip("\n"))
        if m:
            up = len(m["dots"]) - 1
            base = pkg[: len(pkg) - up]
            target = ".".join(base + ([m["mod"]] if m["mod"] else []))
            nl = "\n" if line.endswith("\n") else ""
            line = f"{m['ind']}from {target} import {m['rest']}{nl}"
        out.append(line)
    return "".join(out)


FROM_PKG = re.compile(r"^(?P<ind>\s*)from flip7ref import (?P<names>[^()#]+?)(?P<comment>\s*#.*)?$")


def split_package_imports(text: str) -> str:
    out = []
    for line in text.splitlines(keepends=True):
        m = FROM_PKG.match(line.rstrip("\n"))
        if not m:
            out.append(line)
            continue
        names = [n.strip() for n in m["names"].split(",") if n.strip()]
        groups: dict[str, list[str]] = {}
        for n in names:
            base, _, alias = n.partition(" as ")
            base = base.strip()
            new = MOVES.get(f"flip7ref.{base}")
            if new is None:
                groups.setdefault("flip7ref", []).append(n)
            else:
                parent, _, leaf = new.rpartition(".")
                alias = alias.strip() or (base if leaf != base else "")
                groups.setdefault(parent, []).append(f"{leaf} as {alias}" if alias and alias != leaf else leaf)
        if list(groups) == ["flip7ref"]:
            out.append(line)
            continue
        comment = m["comment"] or ""
        nl = "\n" if line.endswith("\n") else ""
        for parent, ns in groups.items():
            out.append(f"{m['ind']}from {parent} import {', '.join(ns)}{comment}{nl}")
    return "".join(out)


ALL_MOVES = {**MOVES, **SUB_MOVES}
_dotted = sorted(ALL_MOVES, key=len, reverse=True)
DOTTED = re.compile(r"(?<![\w.])(" + "|".join(re.escape(d) for d in _dotted) + r")(?![\w])")
_paths = {}
for old, new in MOVES.items():
    leaf = old.split(".")[1]
    newpath = new.replace(".", "/")
    if leaf in PACKAGES:
        _paths[f"flip7ref/{leaf}/"] = f"{newpath}/"
    else:
        _paths[f"flip7ref/{leaf}.py"] = f"{newpath}.py"
_paths["flip7ref/core/checked_tables.json"] = "flip7ref/core/checked_tables.json"
for old, new in SUB_MOVES.items():
    _paths[old.replace(".", "/") + ".py"] = new.replace(".", "/") + ".py"
PATHS = re.compile(r"(?<![\w./])(" + "|".join(re.escape(p) for p in sorted(_paths, key=len, reverse=True)) + r")")


def rename_refs(text: str) -> str:
    text = DOTTED.sub(lambda m: ALL_MOVES[m.group(1)], text)
    text = PATHS.sub(lambda m: _paths[m.group(1)], text)
    return text


TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".cfg", ".ini", ".txt", ".sh", ".js", ".html", ".json", ".pyi"}
SKIP_DIRS = {
    ".git",
    ".venv",
    ".venv-dev",
    "node_modules",
    ".axe",
    "site",
    "mutants",
    ".ci-build",
    ".ci-docs",
    "__pycache__",
    ".hypothesis",
    ".ci-reports",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
}


def text_files() -> list[Path]:
    files = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    out = []
    for f in files:
        p = ROOT / f
        if any(part in SKIP_DIRS for part in p.relative_to(ROOT).parts):
            continue
        if p.name == "CHANGELOG.md":  # history: the names as they were
            continue
        if p.suffix in TEXT_SUFFIXES or p.name in ("run",) or p.parent.name == ".ci":
            if p.is_file() and not p.is_symlink():
                out.append(p)
    return out


FIXUPS: list[tuple[str, str, str]] = [
    # (file after the move, old text, new text): code that finds files beside the package
    (
        "flip7ref/core/edition.py",
        "    here = Path(__file__).resolve().parent\n",
        "    here = Path(__file__).resolve().parent.parent  # the package's folder\n",
    ),
    (
        "flip7ref/checking/conformance.py",
        "    here = Path(__file__).resolve().parent\n",
        "    here = Path(__file__).resolve().parent.parent  # the package's folder\n",
    ),
    (
        "flip7ref/proc/install.py",
        "    folder = Path(__file__).resolve().parent\n",
        "    folder = Path(__file__).resolve().parent.parent  # the package's folder\n",
    ),
    (
        "tools/record_checked_tables.py",
        'ROOT / "flip7ref" / "checked_tables.py"',
        'ROOT / "flip7ref" / "core" / "checked_tables.py"',
    ),
    (
        "tests/test_install.py",
        '    dist = _fake_install(tmp_path, "flip7ref/__init__.py", "flip7ref/core/state.py", "flip7ref/state.cpython-311-x86_64-linux-gnu.so")',
        '    dist = _fake_install(\n        tmp_path, "flip7ref/__init__.py", "flip7ref/core/state.py", "flip7ref/core/state.cpython-311-x86_64-linux-gnu.so"\n    )',
    ),
    (
        "tests/test_first_use.py",
        '"flip7ref.play.games.tournament", "flip7ref.checking.verdict.harness"}',
        '"flip7ref.play.games.tournament",\n              "flip7ref.checking.verdict.harness"}',
    ),
    (
        "tests/test_state_fields.py",
        "PACKAGE = Path(flip7ref.__file__).parent\n",
        'PACKAGE = Path(flip7ref.__file__).parent / "core"  # the rule core\'s room\n',
    ),
    (
        "flip7ref/table/static_build.py",
        'for source in ("state", "table/routes", "table/session"):',
        'for source in ("core/state", "table/routes", "table/session"):',
    ),
]


def main() -> int:
    dry = "--dry" in sys.argv
    # 1. relative imports -> absolute, in the package (before anything moves)
    for p in sorted((ROOT / "flip7ref").rglob("*.py")):
        if "__pycache__" in p.parts:
            continue
        t = p.read_text(encoding="utf-8")
        n = absolutize(p, t)
        if n != t and not dry:
            p.write_text(n, encoding="utf-8")
    # 2. every reference, in every tracked text file
    for p in text_files():
        try:
            t = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        n = rename_refs(t)  # first: the split below writes room names (flip7ref.checking.verdict) the rename would take
        n = split_package_imports(n) if p.suffix in (".py", ".md") else n
        in_package = p.relative_to(ROOT).parts[0] == "flip7ref"
        if p.suffix == ".py" and in_package and p.relative_to(ROOT).as_posix() != "flip7ref/explore/__init__.py":
            n = split_explore_imports(n)
        if n != t and not dry:
            p.write_text(n, encoding="utf-8")
    if dry:
        return 0
    # 3. the moves
    for room, mods in ROOMS.items():
        folder = ROOT / "flip7ref" / room
        if folder.exists() and not (folder / "__init__.py").exists() and room not in ("checking", "play"):
            pass
        # a flat module of the room's own name moves first (flip7ref/play/games.py -> flip7ref/play/games.py)
        if room in RENAMED:
            tmp = ROOT / "flip7ref" / f"_{room}_moving.py"
            subprocess.run(["git", "mv", f"flip7ref/{room}.py", str(tmp.relative_to(ROOT))], check=True)
        folder.mkdir(exist_ok=True)
        init = folder / "__init__.py"
        init.write_text(f'"""{DOCSTRINGS[room]}\n"""\n', encoding="utf-8")
        subprocess.run(["git", "add", str(init.relative_to(ROOT))], check=True)
        for m in mods:
            leaf = RENAMED.get(m, m)
            if room in RENAMED and m == room:
                src = f"flip7ref/_{room}_moving.py"
            elif m in PACKAGES:
                src = f"flip7ref/{m}"
            else:
                src = f"flip7ref/{m}.py"
            dst = f"flip7ref/{room}/{leaf}" + ("" if m in PACKAGES else ".py")
            subprocess.run(["git", "mv", src, dst], check=True)
    subprocess.run(["git", "mv", "flip7ref/core/checked_tables.json", "flip7ref/core/checked_tables.json"], check=True)
    for old, new in SUB_MOVES.items():
        subprocess.run(["git", "mv", old.replace(".", "/") + ".py", new.replace(".", "/") + ".py"], check=True)
    for f, old, new in FIXUPS:
        p = ROOT / f
        t = p.read_text(encoding="utf-8")
        if old not in t:
            print(f"FIXUP NOT APPLIED: {f}: {old!r}")
            continue
        p.write_text(t.replace(old, new, 1), encoding="utf-8")
    left = sorted(p.name for p in (ROOT / "flip7ref").glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    if left:
        print("UNMAPPED flat modules:", left)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
