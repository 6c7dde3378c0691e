"""Write the code that spells out `State`'s fields, from their one declaration.

The table is ``flip7ref/core/state_fields.py`` (`FIELDS`).  The compiled build needs the
fields written out in a few places; each such place sits between a begin marker
``# state-fields: NAME`` and ``# state-fields: end`` in a module of ``flip7ref/``, and this
tool rewrites what lies between them:

- ``state-data``: the annotations, ``__init__`` and abstract ``_make`` of `State`'s native base
  class `StateData` (below the rule core's modules that read states);
- ``state-class``: `State`'s docstring, ``_make`` and ``_fields``;
- ``work-fields``, ``work-init``, ``work-round``: `Work`'s annotations, its ``__init__`` (one
  argument per field it holds), and ``round_closed`` / ``round_opened`` (the fields a round's
  close and opening set, from the table's ``round_close`` and ``round_open``);
- ``work-copy``, ``work-freeze``: in `State` (which sits above `Work`), the ``Work(...)`` call
  of ``State._work`` (a state's scratch copy) and the ``_make`` call of ``State._freeze`` (the
  state a scratch copy holds);
- ``solver-key``: the fields the table marks ``shapes_round``, in the solver's canonical key
  (`flip7ref.analysis.keys`);
- ``make STATEMENT``: a statement holding one call ``make(SRC, key=expr, ...)`` (continued on
  the following comment lines indented past the ``#``), written out as ``SRC._make(...)``
  with every field in order: the keywords given, else with ``reset="close"`` (a round closed)
  or ``reset="open"`` (closed, then the next one opened) the table's values, else ``SRC.field``.

Usage::

    python tools/gen_state_fields.py            # rewrite the blocks
    python tools/gen_state_fields.py --check    # exit 1 naming each file whose blocks differ
    python tools/gen_state_fields.py --root DIR # the tree at DIR (a copy), not this one

Exit status: 0 (written, or up to date), 1 (``--check`` found differences), 2 (a malformed
table or marker, named with its file and line).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import os
import re
import sys
import textwrap
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 130
_BEGIN = re.compile(r"^(?P<indent> *)# state-fields: (?P<what>.+?)\s*$")
_END = "# state-fields: end"
_RESETS = {"close": ("round_close",), "open": ("round_close", "round_open")}


_ROW_TYPES = (
    ("name", str, "a string"), ("type", str, "a string"), ("doc", str, "a string"), ("default", tuple, "() or (value,)"),
    ("work", str, "a string"), ("json", str, "a string"), ("omit_default", bool, "True or False"),
    ("round_close", tuple, "() or (value,)"), ("round_open", tuple, "() or (value,)"), ("shapes_round", bool, "True or False"),
)  # fmt: skip


class MarkerError(Exception):
    """A malformed table or marker (the message names the file and line)."""


def load_table(root: Path) -> ModuleType:
    """The table module of the tree at ``root``, loaded from its file (not the installed package)."""
    path = root / "flip7ref" / "core" / "state_fields.py"
    spec = importlib.util.spec_from_file_location(f"_state_fields_{abs(hash(str(path)))}", path)
    if spec is None or spec.loader is None:
        raise MarkerError(f"{path}: cannot load the field table")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # a NamedTuple's class needs its module while it is built
    try:
        spec.loader.exec_module(module)
    except OSError as exc:
        raise MarkerError(f"{path}: cannot read the field table ({exc.strerror or exc})") from None
    except SyntaxError as exc:
        raise MarkerError(f"{path}:{exc.lineno}: expected Python source ({exc.msg})") from None
    except Exception as exc:  # the table's own code failed (a malformed row): name its line
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve() == path.resolve()]
        line = f":{frames[-1].lineno}" if frames else ""
        raise MarkerError(f"{path}{line}: expected a table that loads ({type(exc).__name__}: {exc})") from None
    for name in ("FIELDS", "JSON_KINDS", "STATE_DOC"):
        if not hasattr(module, name):
            raise MarkerError(f"{path}: expected a module-level {name}")
    check_table(module.FIELDS, module.JSON_KINDS, path)
    return module


def check_table(fields: tuple[Any, ...], kinds: frozenset[str], path: Path) -> None:
    """Refuse a table the generated code could not follow.

    Raises:
        MarkerError: naming the field and what is wrong.
    """
    if not isinstance(fields, tuple) or not all(isinstance(f, tuple) and hasattr(f, "_fields") for f in fields):
        raise MarkerError(f"{path}: FIELDS: expected a tuple of Field rows")
    for i, f in enumerate(fields):
        for attr, kind, what in _ROW_TYPES:
            if not isinstance(getattr(f, attr), kind):
                raise MarkerError(f"{path}: FIELDS[{i}] ({f.name!r}): {attr}: expected {what}, got {getattr(f, attr)!r}")
    names = [f.name for f in fields]
    if not names or names[-1] != "_log" or len(set(names)) != len(names):
        raise MarkerError(f"{path}: FIELDS: expected distinct names ending with '_log', got {names}")
    for f in fields:
        where = f"{path}: field {f.name!r}"
        if not f.name.isidentifier() or f.name in ("reset", "self", "s"):
            raise MarkerError(f"{where}: expected an identifier other than reset, self or s")
        if f.json not in kinds:
            raise MarkerError(f"{where}: json: expected one of {sorted(kinds)}, got {f.json!r}")
        if f.work not in ("", "list", "none") or (f.work == "list" and not _is_tuple(f.type)):
            raise MarkerError(f"{where}: work: expected '', 'none', or 'list' for a tuple[X, ...] type")
        if f.json in ("bool", "str?", "seat?") and not f.default:
            raise MarkerError(f"{where}: a {f.json} field needs a default (JSON data without it)")
        if f.omit_default and not f.default:
            raise MarkerError(f"{where}: omit_default needs a default")
        for values in (f.default, f.round_close, f.round_open):
            if len(values) > 1:
                raise MarkerError(f"{where}: a default or reset is () or (value,)")


def _is_tuple(annotation: str) -> bool:
    return annotation.startswith("tuple[") and annotation.endswith(", ...]")


def _work_type(f: Any) -> str:
    return f"list[{f.type[len('tuple[') : -len(', ...]')]}]" if f.work == "list" else f.type


def wrap(items: list[str], indent: int, first: str = "", last: str = "") -> list[str]:
    """``items`` joined by commas into lines of at most `WIDTH` characters, each indented by ``indent``
    spaces; ``first`` opens the first line, ``last`` closes the last one."""
    lines: list[str] = []
    line = " " * indent + first
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 or not last else "")
        if line.strip() and len(line) + 1 + len(piece) > WIDTH:
            lines.append(line.rstrip())
            line = " " * indent
        line += ("" if line.endswith((" ", "(")) or not line.strip() else " ") + piece
    lines.append(line.rstrip() + last)
    return lines


def _with_default(fields: tuple[Any, ...]) -> set[str]:
    """The fields the constructor gives a default: the trailing run of fields that have one."""
    out: set[str] = set()
    for f in reversed(fields):
        if not f.default:
            break
        out.add(f.name)
    return out


def state_class(table: ModuleType) -> list[str]:
    """The ``state-class`` block: `State`'s docstring, ``_make`` and ``_fields``."""
    fields = table.FIELDS
    names = [f.name for f in fields]
    doc = ['    """' + table.STATE_DOC[0], "", "    Attributes:"]
    for f in fields:
        if not f.name.startswith("_"):
            doc += textwrap.wrap(f"{f.name}: {f.doc}", 108, initial_indent=" " * 8, subsequent_indent=" " * 12)
    doc += ["", *(("    " + line).rstrip() for line in table.STATE_DOC[1].splitlines()), '    """', ""]
    make = [
        "    def _make(",
        *wrap(["self", *(f"{f.name}: {f.type}" for f in fields)], 8, last=","),
        "    ) -> State:",
        '        """A new state with these fields: the constructor for the modules this one',
        '        imports (`flip7ref.core.lanes`), which cannot import it back."""',
        "        return State(",
        *wrap(names, 12, last=","),
        "        )  # fmt: skip",
    ]
    listed = [
        "    def _fields(self) -> tuple[Any, ...]:",
        '        """Every field in constructor order (the history link last)."""',
        "        return (",
        *wrap([f"self.{name}" for name in names], 12, last=","),
        "        )  # fmt: skip",
    ]
    return [*doc, *make, "", *listed]


def state_data(table: ModuleType) -> list[str]:
    """The ``state-data`` block: `StateData`'s annotations, ``__init__`` and abstract ``_make``."""
    fields = table.FIELDS
    names = [f.name for f in fields]
    annotations = [f"    {f.name}: Final[{f.type}]" for f in fields]
    defaults = _with_default(fields)
    params = [f"{f.name}: {f.type}" + (f" = {f.default[0]!r}" if f.name in defaults else "") for f in fields]
    init = [
        "    def __init__(",
        *wrap(["self", *params], 8, last=","),
        "    ) -> None:",
        *(f"        self.{name} = {name}" for name in names),
    ]
    make = [
        "    def _make(",
        *wrap(["self", *(f"{f.name}: {f.type}" for f in fields)], 8, last=","),
        "    ) -> StateData:",
        '        """A new state with these fields (`flip7ref.core.state.State._make`)."""',
        "        raise NotImplementedError",
    ]
    return [*annotations, "", *init, "", *make]


def work_fields(table: ModuleType) -> list[str]:
    return [f"    {f.name}: {_work_type(f)}" for f in table.FIELDS if f.work != "none"]


def work_init(table: ModuleType) -> list[str]:
    """The ``work-init`` block: `Work.__init__`, one argument per field the work holds."""
    fields = [f for f in table.FIELDS if f.work != "none"]
    return [
        "    def __init__(",
        *wrap(["self", *(f"{f.name}: {_work_type(f)}" for f in fields)], 8, last=","),
        "    ) -> None:",
        *(f"        self.{f.name} = {f.name}" for f in fields),
    ]


def work_copy(table: ModuleType) -> list[str]:
    """The ``work-copy`` block (in `State._work`): the scratch copy of ``self``."""
    args = [f"list(self.{f.name})" if f.work == "list" else f"self.{f.name}" for f in table.FIELDS if f.work != "none"]
    return ["        return Work(", *wrap(args, 12, last=","), "        )  # fmt: skip"]


def work_freeze(table: ModuleType) -> list[str]:
    """The ``work-freeze`` block (in `State._freeze`): the state the work ``w`` holds, history ``log``."""
    args = ["log" if f.work == "none" else f"tuple(w.{f.name})" if f.work == "list" else f"w.{f.name}" for f in table.FIELDS]
    return ["        return self._make(", *wrap(args, 12, last=","), "        )  # fmt: skip"]


def work_round(table: ModuleType) -> list[str]:
    out: list[str] = []
    for method, attr, what, caller in (
        ("round_closed", "round_close", "close", "end_round"),
        ("round_opened", "round_open", "opening", "start_round"),
    ):
        sets = [f"        self.{f.name} = {getattr(f, attr)[0]!r}" for f in table.FIELDS if getattr(f, attr)]
        out += [
            f"    def {method}(self) -> None:",
            f'        """Set what a round\'s {what} sets (``{attr}`` in the table; `flip7ref.core.engine.{caller}`)."""',
            *(sets or ["        return"]),
            "",
        ]
    return out[:-1]


def make_call(table: ModuleType, spec: str, indent: str, where: str) -> list[str]:
    """A ``make`` block: ``spec`` (a statement with one ``make(SRC, ...)`` call) written out."""
    try:
        tree = ast.parse("def _():\n    " + spec)
    except SyntaxError as exc:
        raise MarkerError(f"{where}: the make statement is not Python ({exc.msg})") from None
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "make"]
    if len(calls) != 1 or len(calls[0].args) != 1:
        raise MarkerError(f"{where}: expected one call make(SRC, field=value, ...)")
    call = calls[0]
    text = "def _():\n    " + spec
    src = ast.get_source_segment(text, call.args[0])
    given = {k.arg: ast.get_source_segment(text, k.value) for k in call.keywords}
    reset = given.pop("reset", None)
    if reset is not None and reset.strip("\"'") not in _RESETS:
        raise MarkerError(f"{where}: reset: expected 'close' or 'open', got {reset}")
    unknown = set(given) - {f.name for f in table.FIELDS}
    if unknown or None in given:
        raise MarkerError(f"{where}: not fields of State: {sorted(str(u) for u in unknown)}")
    args = []
    for f in table.FIELDS:
        value = given.get(f.name)
        if value is None and reset is not None:
            for attr in _RESETS[reset.strip("\"'")]:
                if getattr(f, attr):
                    value = repr(getattr(f, attr)[0])
        args.append(value if value is not None else f"{src}.{f.name}")
    lines = text.splitlines()[1:]
    start = (call.lineno - 2, call.col_offset)
    end = (call.end_lineno - 2 if call.end_lineno else 0, call.end_col_offset or 0)
    if start[0] != 0 or end[0] != 0:
        raise MarkerError(f"{where}: the make statement must be one line")
    line = lines[0][4:]
    head, tail = line[: start[1] - 4], line[end[1] - 4 :]
    width = len(indent) + 4
    return [f"{indent}{head}{src}._make(", *wrap(args, width, last=","), f"{indent}){tail}  # fmt: skip"]


def solver_key(table: ModuleType) -> list[str]:
    """The ``solver-key`` block: the fields that shape the rest of the round, in the solver's key."""
    return [f"        state.{f.name}," for f in table.FIELDS if f.shapes_round]


BLOCKS = {"state-class": state_class, "state-data": state_data, "work-fields": work_fields, "work-init": work_init,
          "work-copy": work_copy, "work-freeze": work_freeze, "work-round": work_round, "solver-key": solver_key}  # fmt: skip


def rewrite(text: str, table: ModuleType, name: str) -> str:
    """``text`` (a module's source, file ``name``) with every marked block written anew."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        match = _BEGIN.match(line)
        if match is None or match["what"] == "end":
            if match is not None:
                raise MarkerError(f"{name}:{i + 1}: '{_END}' without its begin marker")
            out.append(line)
            i += 1
            continue
        indent, what = match["indent"], match["what"]
        where, i_begin = f"{name}:{i + 1}", i
        out.append(line)
        i += 1
        while i < len(lines) and lines[i].startswith(indent + "#    "):  # the statement continued
            what += " " + lines[i][len(indent) + 1 :].strip()
            out.append(lines[i])
            i += 1
        stop = next((j for j in range(i, len(lines)) if lines[j].strip() == _END), None)
        if stop is None:
            raise MarkerError(f"{where}: no '{_END}' after this begin marker")
        inner = next((j for j in range(i, stop) if _BEGIN.match(lines[j])), None)
        if inner is not None:
            expected = f"expected '{_END}' of the block begun at line {i_begin + 1} first, found a second begin marker"
            raise MarkerError(f"{name}:{inner + 1}: {expected}")
        if what.startswith("make "):
            out += make_call(table, what[len("make ") :], indent, where)
        elif what.split(" ")[0] in BLOCKS:
            out += BLOCKS[what.split(" ")[0]](table)
        else:
            raise MarkerError(f"{where}: unknown block {what!r} (expected one of {sorted(BLOCKS)} or 'make ...')")
        out.append(lines[stop])
        i = stop + 1
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def _write(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` atomically.  Not `flip7ref.core.textfiles.write_file_atomic`:
    this tool must run while the package cannot be imported (its generated code out of date)."""
    temporary = path.with_name(f".{path.name}.gen-tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise MarkerError(f"{path}: cannot write ({exc.strerror or exc}); the file is as it was") from None


def generate(root: Path, check: bool) -> list[Path]:
    """Rewrite (or with ``check`` only compare) the marked blocks of ``root``'s package.

    Returns:
        The files whose blocks differ from the table (rewritten unless ``check``).
    """
    table = load_table(root)
    changed: list[tuple[Path, str]] = []
    for path in sorted((root / "flip7ref").rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise MarkerError(f"{path.relative_to(root)}: expected UTF-8 text ({exc.reason} at byte {exc.start})") from None
        except OSError as exc:
            raise MarkerError(f"{path.relative_to(root)}: cannot read ({exc.strerror or exc})") from None
        if "# state-fields: " not in text:
            continue
        new = rewrite(text, table, str(path.relative_to(root)))
        if new != text:
            changed.append((path, new))
    if not check:  # every block is written anew before any file is replaced: a malformed one leaves all as they were
        for path, new in changed:
            _write(path, new)
    return [path for path, _ in changed]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only: exit 1 if a block differs")
    parser.add_argument("--root", type=Path, default=ROOT, help="the source tree (default: this one)")
    args = parser.parse_args(argv)
    try:
        changed = generate(args.root, args.check)
    except MarkerError as exc:
        print(f"gen_state_fields: {exc}", file=sys.stderr)
        return 2
    for path in changed:
        print(f"{'differs from the table' if args.check else 'written'}: {path.relative_to(args.root)}")
    if args.check and changed:
        print("run: python tools/gen_state_fields.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
