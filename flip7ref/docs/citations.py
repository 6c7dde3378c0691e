"""Rule coverage: the rule ids the tests cite (``@pytest.mark.rules``) joined with the cases (``flip7ref coverage``)."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path

import attrs

from flip7ref.checking.case_index import case_index
from flip7ref.checking.conformance import Case
from flip7ref.core.spec import Edition
from flip7ref.docs.index import cases_by_rule


def _marked_ids(tree: ast.AST) -> list[str]:
    """The string constants passed to every ``<something>.mark.rules(...)`` call inside ``tree``."""
    ids: list[str] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "rules"
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "mark"
        ):
            ids.extend(arg.value for arg in node.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str))
    return ids


def _statements(tree: ast.Module) -> list[ast.stmt]:
    """Every statement of ``tree``, nested ones included (bodies of functions, classes, ifs,
    loops, withs, tries, matches), without walking into expressions: a function or class
    definition is a statement, and the expressions are most of a test file's nodes."""
    out: list[ast.stmt] = []
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        stmt = stack.pop()
        out.append(stmt)
        inner: list[ast.stmt] = []
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list):
                inner += [s for s in block if isinstance(s, ast.stmt)]
        for handler in getattr(stmt, "handlers", None) or ():
            inner += handler.body
        for case in getattr(stmt, "cases", None) or ():
            inner += case.body
        stack.extend(reversed(inner))
    return out


def cited_rule_ids(tests: Path) -> dict[str, set[str]]:
    """Read the rule ids the tests in a folder cite with ``@pytest.mark.rules(...)``.

    The ids come from the syntax trees of ``tests/test_*.py``: string constants
    passed to a ``mark.rules`` call in the decorators of a function or class
    (including ``pytest.param(..., marks=pytest.mark.rules(...))`` inside a
    decorator) or in a module-level ``pytestmark``.  A rule id in a comment or
    an unrelated string does not count, nor do ids computed at run time.

    Args:
        tests: the folder holding the test files.

    Returns:
        ``{rule_id: {"file.py::name", ...}}``; a module-level mark is named ``file.py``.

    Raises:
        SyntaxError: a test file does not parse.
        OSError: a test file cannot be read.
    """
    cited: dict[str, set[str]] = {}
    for path in sorted(tests.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _statements(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for deco in node.decorator_list:
                    for rid in _marked_ids(deco):
                        cited.setdefault(rid, set()).add(f"{path.name}::{node.name}")
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets):
                for rid in _marked_ids(stmt.value):
                    cited.setdefault(rid, set()).add(path.name)
    return cited


def default_tests_dir() -> Path | None:
    """The ``tests/`` folder of the source checkout the package runs from, or None.

    None when flip7ref runs from an installed package without its tests.
    """
    root = Path(__file__).resolve().parents[2]  # flip7ref/docs/this.py -> the checkout
    tests = root / "tests"
    if (root / "pyproject.toml").is_file() and tests.is_dir() and any(tests.glob("test_*.py")):
        return tests
    return None


@attrs.frozen
class RuleCoverage:
    """What cites one rule id.

    Attributes:
        edition: the edition id.
        rule: the rule id.
        tests: ``file.py::name`` of the tests citing it, sorted (empty when tests were not read).
        cases: the conformance case ids citing it, sorted.
    """

    edition: str
    rule: str
    tests: tuple[str, ...]
    cases: tuple[str, ...]

    @property
    def covered(self) -> bool:
        """Whether some test or case cites the rule."""
        return bool(self.tests or self.cases)


def coverage(
    editions: Sequence[Edition], tests: Path | None, cases: Sequence[Case] | None = None
) -> tuple[list[RuleCoverage], list[str]]:
    """Join every rule id of ``editions`` with the tests and cases citing it.

    Args:
        editions: the editions whose rule catalogues to cover.
        tests: the test folder to read markers from, or None to count cases only.
        cases: the conformance cases (default: the shipped suite).

    Returns:
        ``(rows, unknown)``: one row per rule id (edition order, then id order), and
        the sorted ids cited by a test or case that no edition in ``editions`` defines
        (only ids prefixed like one of those editions' ids are considered).

    Raises:
        SpecError: a malformed edition table or case file.
        SyntaxError, OSError: a test file cannot be read.
    """
    suite = list(cases) if cases is not None else case_index()  # the ids and rules of the shipped cases
    cited = cited_rule_ids(tests) if tests is not None else {}
    by_rule = cases_by_rule(suite)
    rows = [
        RuleCoverage(e.id, rid, tuple(sorted(cited.get(rid, ()))), tuple(by_rule.get(rid, ())))
        for e in editions
        for rid in sorted(e.rules)
    ]
    known = {rid for e in editions for rid in e.rules}
    prefixes = {rid.split("-")[0] + "-" for rid in known}
    unknown = sorted(rid for rid in set(cited) | set(by_rule) if rid not in known and any(rid.startswith(p) for p in prefixes))
    return rows, unknown
