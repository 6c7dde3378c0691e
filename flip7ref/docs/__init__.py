"""The generated rules reference and the ``docs``, ``rules`` and ``coverage`` commands.

Everything here is derived from the edition tables (``spec/editions/*.yaml``) and
the conformance suite (``conformance/cases``), never written by hand:

- `generate` renders ``rules/<edition>.md`` for every shipped edition and
  ``disputes.md``; ``flip7ref docs`` writes them under ``docs/`` and
  ``flip7ref docs --check`` fails when the committed files are out of date.
- `find_rule` and `search_rules` back ``flip7ref rules``: one rule with
  its sources, options, disputes and cases, or the rules matching some words (in
  the rule texts, the options touching a rule, and card names in a language).
- `cited_rule_ids` reads the ``@pytest.mark.rules(...)`` markers of a test
  folder from its syntax trees; `coverage` joins them with the cases for
  ``flip7ref coverage``.

All output is deterministic: sorted, no timestamps, no absolute paths.

The package's modules, one job each (every public name is re-exported here):
`.index` (indexes over the tables and the suite, `find_rule`), `.search`
(`search_rules`), `.render` (the Markdown documents, `generate`), `.writing`
(stale and foreign files, `write_docs`), `.citations` (`cited_rule_ids`,
`coverage`) and `.commands` (the ``docs``, ``rules`` and ``coverage`` commands).
"""

from __future__ import annotations

from flip7ref.docs.citations import RuleCoverage, cited_rule_ids, coverage, default_tests_dir
from flip7ref.docs.commands import cmd_coverage, cmd_docs, cmd_rules, register
from flip7ref.docs.index import (
    LANGS,
    cards_for_rule,
    cases_by_dispute,
    cases_by_rule,
    disputes_touching,
    find_rule,
    options_touching,
    shipped_cases,
)
from flip7ref.docs.render import GENERATED_MARK, GENERATED_NOTE, dispute_holders, generate, render_disputes, render_rules
from flip7ref.docs.search import RuleMatch, search_rules, search_words
from flip7ref.docs.writing import default_docs_dir, foreign_files, is_generated, stale_files, write_docs

__all__ = [
    "GENERATED_MARK",
    "GENERATED_NOTE",
    "LANGS",
    "RuleCoverage",
    "RuleMatch",
    "cards_for_rule",
    "cases_by_dispute",
    "cases_by_rule",
    "cited_rule_ids",
    "cmd_coverage",
    "cmd_docs",
    "cmd_rules",
    "coverage",
    "default_docs_dir",
    "default_tests_dir",
    "dispute_holders",
    "disputes_touching",
    "find_rule",
    "foreign_files",
    "generate",
    "is_generated",
    "options_touching",
    "register",
    "render_disputes",
    "render_rules",
    "search_rules",
    "search_words",
    "shipped_cases",
    "stale_files",
    "write_docs",
]
