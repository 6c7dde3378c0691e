"""The interpreter's layout (issue 15): one module per primitive, a registry equal to the
schema, no dispatch on primitive names outside the registry, no import circle."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import flip7ref
from flip7ref.core.primitives import PRIMITIVES, SHIPPED, Effect

PACKAGE = Path(flip7ref.__file__).parent
SCHEMA = json.loads((PACKAGE.parent / "spec" / "schema" / "edition.schema.json").read_text(encoding="utf-8"))
EFFECT = SCHEMA["$defs"]["effect"]


def _shipped_enum() -> list[str]:
    """The schema's enum of the package's own primitives (the first choice of ``primitive``)."""
    choices = EFFECT["properties"]["primitive"]["anyOf"]
    return list(choices[0]["enum"])


def test_registry_equals_the_schema_enum() -> None:
    """A shipped primitive is one module, one registry entry and one schema value: the lists
    agree (primitives a plug-in registered, e.g. by another test, are not the package's)."""
    own = sorted(n for n, cls in PRIMITIVES.items() if cls.__module__.startswith("flip7ref.core.primitives."))
    assert sorted(_shipped_enum()) == sorted(SHIPPED) == own
    # the shipped primitives' parameters are closed by the schema; another name is a plug-in's
    first = EFFECT["allOf"][0]
    assert first["if"]["properties"]["primitive"]["enum"] == _shipped_enum()
    assert first["then"]["propertyNames"]["enum"] == list(EFFECT["properties"])
    assert EFFECT["properties"]["primitive"]["anyOf"][1] == {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_each_primitive_has_its_own_module(name: str) -> None:
    cls = PRIMITIVES[name]
    assert issubclass(cls, Effect) and cls.primitive == name
    assert cls.__module__ == f"flip7ref.core.primitives.{name}"


def test_every_effect_parameter_of_the_schema_belongs_to_a_primitive() -> None:
    import attrs

    params = set(EFFECT["properties"]) - {"primitive"}
    owned = {f.name for name in SHIPPED for f in attrs.fields(PRIMITIVES[name])}
    assert params and params <= owned, f"parameters no primitive reads: {sorted(params - owned)}"
    assert {"count", "scope", "hold_limit", "keep_card"} <= params


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def test_no_dispatch_on_primitive_names_outside_the_registry() -> None:
    """No ``effect.primitive == ...`` (or ``!=``, ``in``) outside flip7ref.core.primitives: the
    interpreter and the tools call the effects' hooks instead."""
    found = []
    for name, path in _modules().items():
        if name.startswith("flip7ref.core.primitives"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(isinstance(s, ast.Attribute) and s.attr == "primitive" for s in sides):
                    found.append(f"{path.name}:{node.lineno}")
    assert found == []


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules ``name`` imports, deferred imports included, TYPE_CHECKING blocks left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
                continue
            if isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                target = f"{base}.{node.module}" if node.level and node.module else (node.module or base)
                for alias in node.names:
                    full = f"{target}.{alias.name}"
                    out.add(full if full in known else target)
            elif isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    visit([child])
                elif hasattr(child, "body") and isinstance(child.body, list):
                    visit([c for c in child.body if isinstance(c, ast.stmt)])  # type: ignore[attr-defined]

    visit(tree.body)
    return {m for m in out if m in known and m != name}


def test_no_import_circle() -> None:
    """No two modules of the package import each other, directly or through others
    (deferred imports count; TYPE_CHECKING imports do not)."""
    modules = _modules()
    known = set(modules)
    graph = {name: _imports(name, path, known) for name, path in modules.items()}
    # a package's __init__ importing its own submodules is the package loading them, not a circle
    for name in graph:
        graph[name] = {m for m in graph[name] if not m.startswith(name + ".")}
    circles = _circles(graph)
    assert circles == []


def _circles(graph: dict[str, set[str]]) -> list[str]:
    """Every import circle of ``graph`` (module -> modules it imports), as ``a -> b -> a`` texts."""
    circles = []
    for start in graph:
        stack = [(start, [start])]
        seen = set()
        while stack:
            node, trail = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    circles.append(" -> ".join([*trail, start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*trail, nxt]))
    return circles


def test_the_circle_check_finds_circles_and_reads_deferred_imports(tmp_path: Path) -> None:
    """The check itself can fail: a circle through three modules is found, a deferred import
    counts, a TYPE_CHECKING import does not."""
    found = _circles({"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}})
    assert found == ["p.a -> p.b -> p.c -> p.a", "p.b -> p.c -> p.a -> p.b", "p.c -> p.a -> p.b -> p.c"]
    assert _circles({"p.a": {"p.b"}, "p.b": set()}) == []
    source = tmp_path / "a.py"
    source.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import X\n\ndef f():\n    from .b import Y\n",
        encoding="utf-8",
    )
    assert _imports("p.a", source, {"p.a", "p.b", "p.c"}) == {"p.b"}
