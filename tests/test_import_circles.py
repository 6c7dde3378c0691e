"""No module-level import circle (issue 43), counting every import a reader sees.

`tests/test_core_layout.py` checks the circles Python would meet at run time (deferred imports
count, ``TYPE_CHECKING`` ones do not).  This test is stricter: an import under
``TYPE_CHECKING`` counts too, since a circle there is still a circle to a reader.  It reads the
source with `ast` (it imports none of the modules it checks).  These tests check the source
tree, so they cite no rule ids.
"""

from __future__ import annotations

import ast
from pathlib import Path

import flip7ref

PACKAGE = Path(flip7ref.__file__).parent

def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that the module ``name`` (file ``path``) imports anywhere:
    at the top, deferred inside a function, or under ``TYPE_CHECKING``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            target = ".".join(p for p in (base, node.module or "") if p)
            found |= {target, *(f"{target}.{a.name}" for a in node.names)}
    # a package's __init__ importing its own submodules is the package loading them, not a circle
    return {m for m in found & known if m != name and not m.startswith(name + ".")}


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of ``graph`` (module -> modules it imports) with more
    than one module: each is a circle (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, nexts = work[-1]
            step = next(nexts, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def package_circles() -> list[frozenset[str]]:
    mods = modules()
    known = set(mods)
    return circles({name: imports(name, path, known) for name, path in mods.items()})


def test_no_import_circle() -> None:
    """No circle anywhere in the package, the rule core included (issue 43: its data lives in
    native base classes below the modules that act on it, docs/core.md)."""
    found = [" <-> ".join(sorted(c)) for c in package_circles()]
    assert found == [], "import circles (TYPE_CHECKING imports count): " + "; ".join(found)


def test_the_check_finds_circles_through_type_checking_and_deferred_imports(tmp_path: Path) -> None:
    """The check can fail: a circle through three modules is found, a TYPE_CHECKING import and
    a deferred one count, and a package importing its own submodules is no circle."""
    assert circles({"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}, "p.d": {"p.a"}}) == [frozenset({"p.a", "p.b", "p.c"})]
    assert circles({"p.a": {"p.b"}, "p.b": set()}) == []
    source = tmp_path / "a.py"
    source.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.c import X\n\n"
        "def f():\n    from p import b\n    import p.d\n",
        encoding="utf-8",
    )
    assert imports("p.a", source, {"p", "p.a", "p.b", "p.c", "p.d", "p.e"}) == {"p", "p.b", "p.c", "p.d"}
    init = tmp_path / "__init__.py"
    init.write_text("from p.a import X\nfrom p import b\nfrom q import Y\n", encoding="utf-8")
    assert imports("p", init, {"p", "p.a", "p.b", "q"}) == {"q"}
