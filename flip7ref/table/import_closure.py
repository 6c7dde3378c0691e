"""Which modules the browser's Python can import, for ``flip7ref table --static``
(`flip7ref.table.static_build`): the import graph of a zip of sources, read line by line
(`imports_of`), its closure from a root module (`closure`), and Pyodide's
``python_stdlib.zip`` trimmed to what the referee can reach (`trim_stdlib`), each source
without comments (`without_comments`) or docstrings (`without_docstrings`).

Pure functions over bytes and strings: nothing here reads or writes a file.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import zipfile

STDLIB_ROOTS = (
    # what Pyodide itself imports as it starts (its own packages in python_stdlib.zip)
    "_pyodide._base", "_pyodide._importhook", "_pyodide._future_helper", "_pyodide.jsbind", "_pyodide.docstring",
    "_pyodide.docs_argspec", "_pyodide._core_docs", "pyodide", "pyodide.code", "pyodide.common", "pyodide.ffi",
    "pyodide.ffi.wrappers", "pyodide.webloop", "pyodide._package_loader", "pyodide._state", "pyodide._core",
    # what Python reads as it starts, or looks up by name rather than by an import statement
    "site", "encodings.aliases", "encodings.utf_8", "encodings.utf_8_sig", "encodings.ascii", "encodings.latin_1",
    "encodings.utf_16", "encodings.utf_16_le", "encodings.utf_16_be", "encodings.utf_32", "encodings.raw_unicode_escape",
    "encodings.unicode_escape", "encodings.idna", "encodings.cp437", "__future__", "traceback", "linecache", "tokenize",
    # imported inside functions the referee runs (found by playing rounds with the trimmed library)
    "_compat_pickle", "_py_warnings",
)  # fmt: skip
"""The standard library's modules the trimmed ``python_stdlib.zip`` keeps whatever the import
statements say (`trim_stdlib`): with them, everything their module-level imports reach."""

STDLIB_NEVER = frozenset({
    "asyncio.windows_events", "asyncio.windows_utils", "asyncio.proactor_events", "encodings._win_cp_codecs",  # Windows
    "pyodide._nodesock_transport",  # Node.js only
    "_pydatetime", "_py_abc", "_threading_local",  # pure-Python stand-ins of modules Pyodide has compiled
})  # fmt: skip
"""Modules an import statement reaches that are never imported in the browser: left out."""

_IMPORT = re.compile(r"from\s+(\.*[\w.]*)\s+import\s+(.*)|import\s+(.*)")
_LAZY = re.compile(r"(async\s+def|def|if\s+(typing\.)?TYPE_CHECKING)\b|if\s+__name__\s*==")


def module_name(path: str) -> str | None:
    """The module a ``.py`` file of a zip is (``a/b/__init__.py`` -> ``a.b``), else None."""
    if not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(name: str, is_package: bool, source: str, lazy: bool) -> set[str]:
    """The modules ``source`` (the module ``name``) imports: every ``import`` statement, or
    with ``lazy`` False only those run when the module is imported (not in the body of a
    ``def``, of ``if __name__ == ...`` nor of ``if TYPE_CHECKING``).  ``from X import y``
    names ``X`` and ``X.y`` (a submodule, when there is one).

    Read line by line, not parsed: the standard library of Pyodide may use a syntax newer
    than this Python's, and the build must not depend on the Python that runs it.  A line of
    a string that reads like an import counts (keeping a module too many is harmless).
    """
    out: set[str] = set()
    lines = source.replace("\\\n", " ").splitlines()
    inside: int | None = None  # the indentation of the def (or if) whose body is being skipped
    for number, line in enumerate(lines):
        text = line.split("#", 1)[0].strip() if "import" in line else line.strip()
        if not text:
            continue
        indent = len(line) - len(line.lstrip())
        if inside is not None and indent > inside:
            continue
        inside = None
        if not lazy and _LAZY.match(text):
            inside = indent
            continue
        found = _IMPORT.match(text)
        if not found:
            continue
        frm, names, plain = found.groups()
        if plain is not None:
            out.update(part.split(" as ")[0].strip() for part in plain.split(","))
            continue
        if names.startswith("(") and ")" not in names:  # from X import (a,\n b)
            following = iter(lines[number + 1 :])
            while ")" not in names:
                names += " " + next(following, ")").split("#", 1)[0]
        level = len(frm) - len(frm.lstrip("."))
        base = frm
        if level:
            package = name.split(".") if is_package else name.split(".")[:-1]
            package = package[: len(package) - (level - 1)]
            base = ".".join([*package, frm[level:]] if frm[level:] else package)
        out.add(base)
        out.update(f"{base}.{part.split(' as ')[0].strip()}" for part in names.strip("() ").split(","))
    return {m for m in out if m and "*" not in m}


def closure(graph: dict[str, set[str]], roots: set[str]) -> set[str]:
    """The modules of ``graph`` (module -> the modules it imports) that importing ``roots``
    imports: each module with its packages and what they import, and so on."""
    seen: set[str] = set()
    pending = list(roots)
    while pending:
        parts = pending.pop().split(".")
        for n in range(1, len(parts) + 1):
            module = ".".join(parts[:n])
            if module in graph and module not in seen:
                seen.add(module)
                pending.extend(graph[module])
    return seen


def sources_of(archive: bytes) -> dict[str, tuple[bool, str]]:
    """Module name -> (is a package, source) for every ``.py`` of a zip."""
    out = {}
    with zipfile.ZipFile(io.BytesIO(archive)) as z:
        for info in z.infolist():
            module = module_name(info.filename)
            if module is not None:
                out[module] = (info.filename.endswith("/__init__.py"), z.read(info).decode("utf-8", "replace"))
    return out


def trim_stdlib(stdlib: bytes, library: bytes, root: str) -> bytes:
    """``python_stdlib.zip`` trimmed to the modules the referee can import: those reached from
    `STDLIB_ROOTS` and from every import of the modules of ``flip7ref.zip`` (``library``) that
    ``root`` (the module the browser imports) reaches (imports in functions too) through the module-level imports of the
    standard library's own sources (its ``_sysconfigdata_*`` kept too), less `STDLIB_NEVER`;
    each source without its comments (`without_comments`) and docstrings
    (`without_docstrings`; Pyodide's own packages keep theirs), in the order of the zip.
    A file that is not a zip is returned unchanged.

    Which sources Python can parse depends on the Python running the build (one of a newer
    syntax keeps its comments or docstrings): the bytes are the same for the same Python."""
    if not zipfile.is_zipfile(io.BytesIO(stdlib)):
        return stdlib
    std = sources_of(stdlib)
    own = sources_of(library)
    graph = {m: imports_of(m, pkg, src, lazy=False) for m, (pkg, src) in std.items()}
    referee = closure({m: imports_of(m, pkg, src, lazy=True) for m, (pkg, src) in own.items()}, {root})
    roots = {*STDLIB_ROOTS, *(m for m in std if m.startswith("_sysconfigdata_"))}
    roots.update(*(imports_of(m, *own[m], lazy=True) for m in referee))
    keep = closure({m: set() if m in STDLIB_NEVER else imports for m, imports in graph.items()}, roots) - STDLIB_NEVER
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(stdlib)) as z, zipfile.ZipFile(out, "w") as trimmed:
        for info in z.infolist():
            if module_name(info.filename) in keep:
                source = z.read(info).decode("utf-8")
                if info.filename.split("/")[0] not in ("pyodide", "_pyodide"):  # Pyodide reads its own docstrings
                    source = without_docstrings(source)
                data = without_comments(source).encode("utf-8")
                trimmed.writestr(info, data, zipfile.ZIP_DEFLATED, compresslevel=9)
    return out.getvalue()


def without_docstrings(source: str) -> str:
    """``source`` without its docstrings, as ``python -OO`` runs it (the standard library is
    tested so): a module's docstring becomes blank lines, a class's or function's the
    statement ``...``; every other line stays where it was.  A source this Python cannot
    parse (a newer syntax) is returned unchanged."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return source
    found: list[tuple[ast.Expr, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found.append((first, isinstance(node, ast.Module)))
    lines = source.splitlines(keepends=True)
    for expr, module in sorted(found, key=lambda f: -f[0].lineno):
        start, end = expr.lineno - 1, (expr.end_lineno or expr.lineno) - 1
        head = lines[start].encode()[: expr.col_offset].decode()  # offsets count UTF-8 bytes
        tail = lines[end].encode()[expr.end_col_offset or 0 :].decode()
        lines[start : end + 1] = [head + ("" if module else "...") + tail] + ["\n"] * (end - start)
    return "".join(lines)


def without_comments(source: str) -> str:
    """``source`` with its comments cut (from the third line on: an encoding line stays), every
    line where it was, so a traceback still names the right line.  A source this Python cannot
    tokenize is returned unchanged."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return source
    lines = source.splitlines(keepends=True)
    for token in reversed(tokens):
        if token.type == tokenize.COMMENT and token.start[0] > 2:
            row, col = token.start
            line = lines[row - 1]
            lines[row - 1] = line[:col].rstrip() + line[len(line.rstrip("\r\n")) :]
    return "".join(lines)


__all__ = ["STDLIB_NEVER", "STDLIB_ROOTS", "closure", "imports_of", "module_name", "sources_of", "trim_stdlib",
           "without_comments", "without_docstrings"]  # fmt: skip
