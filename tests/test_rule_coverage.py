"""Every rule id of every edition table is cited by at least one test.

A test cites rule ids with ``@pytest.mark.rules("F7-050", ...)``.  The ids are
read from the test files' syntax trees (:func:`flip7ref.docs.cited_rule_ids`, also
behind ``flip7ref coverage``), so a rule id in a comment or a string elsewhere
does not count.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from flip7ref import edition_ids, load_edition
from flip7ref.docs import cited_rule_ids

TESTS = Path(__file__).parent


@pytest.mark.parametrize("edition", edition_ids())
def test_every_rule_id_is_cited_by_a_test(edition: str) -> None:
    """Each rule id of the edition table appears in some test's rules marker."""
    ids = set(load_edition(edition).rules)
    assert ids, f"{edition} has an empty rule catalogue"
    missing = sorted(ids - set(cited_rule_ids(TESTS)))
    assert not missing, f"rule ids of {edition} cited by no test: {', '.join(missing)}"


def test_tests_cite_only_known_rule_ids() -> None:
    """A rules marker naming an id that no edition defines is a typo."""
    known = {rid for e in edition_ids() for rid in load_edition(e).rules}
    unknown = {rid: sorted(where) for rid, where in cited_rule_ids(TESTS).items() if rid not in known}
    assert not unknown, f"unknown rule ids cited: {unknown}"
