"""Every rule id of every edition table is cited by at least one test.

A test cites rule ids with ``@pytest.mark.rules("F7-050", ...)``.  The ids are
read from the test files' syntax trees, so a rule id in a comment or a string
elsewhere does not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from flip7ref import edition_ids, load_edition

TESTS = Path(__file__).parent


def cited_rule_ids() -> dict[str, set[str]]:
    """Map rule id -> names of the tests (file::function) whose ``rules`` marker cites it."""
    cited: dict[str, set[str]] = {}
    for path in sorted(TESTS.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                continue
            for deco in node.decorator_list:
                if (
                    isinstance(deco, ast.Call)
                    and isinstance(deco.func, ast.Attribute)
                    and deco.func.attr == "rules"
                    and isinstance(deco.func.value, ast.Attribute)
                    and deco.func.value.attr == "mark"
                ):
                    for arg in deco.args:
                        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                            cited.setdefault(arg.value, set()).add(f"{path.name}::{node.name}")
    return cited


@pytest.mark.parametrize("edition", edition_ids())
def test_every_rule_id_is_cited_by_a_test(edition: str) -> None:
    """Each rule id of the edition table appears in some test's rules marker."""
    ids = set(load_edition(edition).rules)
    assert ids, f"{edition} has an empty rule catalogue"
    missing = sorted(ids - set(cited_rule_ids()))
    assert not missing, f"rule ids of {edition} cited by no test: {', '.join(missing)}"


def test_tests_cite_only_known_rule_ids() -> None:
    """A rules marker naming an id that no edition defines is a typo."""
    known = {rid for e in edition_ids() for rid in load_edition(e).rules}
    unknown = {rid: sorted(where) for rid, where in cited_rule_ids().items() if rid not in known}
    assert not unknown, f"unknown rule ids cited: {unknown}"
