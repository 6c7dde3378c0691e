"""The room map (issue 43): which room of the package may import which, checked against the tree.

The package is a few rooms, one job each (docs/rooms.md has the map and CONTRIBUTING.md the
layout). A room imports only the rooms below it in `MAY_IMPORT`; every import counts here:
at the top of a module, deferred inside a function, or under ``TYPE_CHECKING``. No module
sits loose in ``flip7ref/`` but the package's ``__init__`` and ``__main__``. These tests check
the source tree, so they cite no rule ids.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import flip7ref

PACKAGE = Path(flip7ref.__file__).parent
ROOT = PACKAGE.parent

ROOMS: dict[str, tuple[str, ...]] = {
    "core": ("core",),
    "proc": ("proc",),
    "analysis": ("analysis",),
    "play": ("play",),
    "checking": ("checking",),
    "rl": ("rl",),
    "batch": ("batch",),
    "apps": ("cli", "table", "explore", "docs"),
}
"""Each room and the sub-packages of ``flip7ref`` it holds."""

MAY_IMPORT: dict[str, frozenset[str]] = {
    "core": frozenset(),
    "proc": frozenset({"core"}),
    "analysis": frozenset({"core", "proc"}),
    "play": frozenset({"core", "proc", "analysis"}),
    "checking": frozenset({"core", "proc", "analysis", "play"}),
    "rl": frozenset({"core", "proc", "analysis", "play"}),
    # batch reads the observation layout from core (core.observation_layout), but still the RL
    # action index, the reference's encoder and episode rules (rl.encoding, rl.episode); it is held
    # to the reference by the conformance room's lockstep comparison (checking.lockstep)
    "batch": frozenset({"core", "proc", "analysis", "play", "checking", "rl"}),
    "apps": frozenset({"core", "proc", "analysis", "play", "checking", "rl", "batch"}),
}
"""The rooms each room may import (besides itself and the package's ``__init__``: ``__version__``,
``compiled``). Apps import each other freely, within the module circle check."""

LOOSE = {"__init__.py", "__main__.py", "py.typed"}


def room_of(module: str) -> str | None:
    """The room of a dotted module name of the package (None: the package itself)."""
    parts = module.split(".")
    if len(parts) < 2 or parts[1] == "__main__":
        return None
    return next((room for room, packages in ROOMS.items() if parts[1] in packages), "(no room) " + parts[1])


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imports(path: Path, known: set[str]) -> set[str]:
    """Every module of ``known`` that the file imports, wherever the import statement is."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            assert node.level == 0, f"{path}: a relative import (the package imports by absolute names)"
            found |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found & known


def room_edges() -> list[tuple[str, str, str, str]]:
    """``(room, module, imported module, its room)`` for every import between two rooms."""
    mods = modules()
    known = set(mods)
    edges = []
    for name, path in mods.items():
        here = room_of(name)
        for target in sorted(imports(path, known)):
            there = room_of(target)
            if here is not None and there is not None and here != there:
                edges.append((here, name, target, there))
    return edges


def test_every_sub_package_is_in_a_room() -> None:
    folders = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file())
    placed = {pkg for packages in ROOMS.values() for pkg in packages}
    assert sorted(set(folders) - placed) == [], "a sub-package in no room: add it to ROOMS and docs/rooms.md"
    assert sorted(placed - set(folders)) == []


def test_no_module_is_loose_in_the_package() -> None:
    loose = sorted(p.name for p in PACKAGE.iterdir() if p.is_file() and p.name not in LOOSE and p.suffix == ".py")
    assert loose == [], "modules outside every room: move each into its room's package"


def test_every_import_between_rooms_follows_the_map() -> None:
    bad = [f"{m} ({a}) imports {t} ({b})" for a, m, t, b in room_edges() if b not in MAY_IMPORT.get(a, ())]
    assert bad == [], "imports against the room map (docs/rooms.md): " + "; ".join(bad)


def test_the_map_has_no_circle_of_rooms() -> None:
    order: list[str] = []
    left = dict(MAY_IMPORT)
    while left:
        ready = sorted(r for r, deps in left.items() if deps <= set(order))
        assert ready, f"a circle among the rooms {sorted(left)}"
        order += ready
        for r in ready:
            del left[r]
    assert order[0] == "core" and order[-1] == "apps"


def test_the_check_finds_a_wrong_import(tmp_path: Path) -> None:
    """The check can fail: a core module importing the play room is an edge against the map."""
    mod = tmp_path / "bad.py"
    mod.write_text("def f():\n    from flip7ref.play.strategies import Strategy\n    return Strategy\n", encoding="utf-8")
    found = imports(mod, set(modules()))
    assert "flip7ref.play.strategies" in found
    assert room_of("flip7ref.play.strategies") not in MAY_IMPORT[room_of("flip7ref.core.bad") or ""]


def test_the_map_page_and_contributing_name_every_room() -> None:
    page = ROOT / "docs" / "rooms.md"
    if not page.is_file():
        pytest.skip("reads docs/ (a checkout)")
    text = page.read_text(encoding="utf-8")
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for packages in ROOMS.values():
        for pkg in packages:
            assert f"`flip7ref/{pkg}/`" in text, f"docs/rooms.md does not name flip7ref/{pkg}/"
            assert f"flip7ref/{pkg}/" in contributing, f"CONTRIBUTING.md's layout does not name flip7ref/{pkg}/"
    rows = dict(re.findall(r"^\| (\w+) \| [^|]+ \| ([^|]*) \|$", text, flags=re.M))
    for room, allowed in MAY_IMPORT.items():
        assert room in rows, f"docs/rooms.md has no row for the room {room}"
        shown = {w for w in re.findall(r"\w+", rows[room]) if w in MAY_IMPORT}
        assert shown == set(allowed), f"docs/rooms.md: {room} may import {sorted(allowed)}, the page says {sorted(shown)}"
