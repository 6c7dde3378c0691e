"""The documentation of the compiled classes, put back where ``help()`` reads it.

mypyc gives a native class a ``__doc__`` of its constructor's signature only, and its
methods the same, so in the compiled build ``help(Game)`` showed no documentation.  The
classes are heap types whose ``__doc__`` can be set, so on import (`restore`) each one
listed in `CLASSES` gets its source docstring back, followed by the docstrings of its
public methods (a method's own ``__doc__`` cannot be set on a compiled class).  The
docstrings come from the ``.py`` files the wheel ships beside the compiled modules.  In
the pure build nothing changes (the docstrings are there already).
"""

from __future__ import annotations

import importlib
from pathlib import Path

CLASSES: dict[str, tuple[str, ...]] = {
    "flip7ref.core.game": ("Game",),
    "flip7ref.core.state": ("State",),
    "flip7ref.analysis.solver": ("SoloSolver",),
    "flip7ref.core.model": ("Action", "Player"),
}
"""Module -> the compiled classes of the public API whose documentation `restore` puts back."""


def class_docs(source: str, names: tuple[str, ...]) -> dict[str, str]:
    """``{class name: documentation}`` of the classes ``names`` of a module's ``source``: the
    class docstring, then a ``Methods:`` section with each public method's docstring."""
    import ast  # here, not at import: `SourceDoc` parses only when a documentation is read

    out: dict[str, str] = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef) or node.name not in names:
            continue
        parts = [ast.get_docstring(node) or ""]
        methods = [
            (f.name, ast.get_docstring(f))
            for f in node.body
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and not f.name.startswith("_") and ast.get_docstring(f)
        ]
        if methods:
            parts.append("Methods:")
            parts += [f"{name}:\n" + "\n".join("    " + line for line in (doc or "").splitlines()) for name, doc in methods]
        out[node.name] = "\n\n".join(parts)
    return out


class SourceDoc:
    """A compiled class's documentation, read from its module's ``.py`` file the first time
    it is asked for (``cls.__doc__``, ``help(cls)``): a non-data descriptor, which is what a
    heap type's ``__doc__`` getter calls, so ``import flip7ref`` parses no source.

    ``source``: the ``.py`` file; ``name``: the class; ``names``: every class of `CLASSES`
    in that module (one parse gives them all).  A file that cannot be read or parsed any
    longer gives the empty string."""

    def __init__(self, source: Path, name: str, names: tuple[str, ...]) -> None:
        self.source, self.name, self.names = source, name, names
        self.doc: str | None = None

    def __get__(self, instance: object, owner: type | None = None) -> str:
        if self.doc is None:
            try:
                self.doc = class_docs(self.source.read_text(encoding="utf-8"), self.names).get(self.name, "")
            except (OSError, SyntaxError, ValueError):  # the wheel's file gone or changed under it
                self.doc = ""
        return self.doc


def restore(modules: tuple[str, ...]) -> list[str]:
    """Put the source documentation back on the compiled classes of `CLASSES` in
    ``modules`` (imported already: ``flip7ref`` restores its core's, ``flip7ref.analysis``
    the solver's) whose ``__doc__`` is only a signature; returns the names done (``["Game",
    ...]``).  Each gets a `SourceDoc`, so the source is parsed only when a documentation is
    read.  A module without its ``.py`` beside it, or a class that refuses the assignment,
    is left as it is."""
    done = []
    for name in modules:
        classes = CLASSES[name]
        module = importlib.import_module(name)
        path = Path(str(getattr(module, "__file__", "") or ""))
        if path.suffix == ".py":
            continue  # pure Python: the docstrings are the source's already
        source = path.with_name(name.rpartition(".")[2] + ".py")
        if not source.is_file():
            continue
        for cls_name in classes:
            cls = getattr(module, cls_name, None)
            if cls is None or ("\n--\n" not in (cls.__doc__ or "\n--\n")):
                continue
            try:
                cls.__doc__ = SourceDoc(source, cls_name, classes)
            except (AttributeError, TypeError):  # pragma: no cover - an immutable type
                continue
            done.append(cls_name)
    return done
