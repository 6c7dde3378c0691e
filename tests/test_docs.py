"""The generated rules reference (docs/) and the ``docs``, ``rules`` and ``coverage`` commands.

These tests check the reference tooling, not game behaviour, so they cite no
rule ids: a rule printed by ``flip7ref rules`` is not thereby tested.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from flip7ref import docs, load_edition
from flip7ref.cli import main
from flip7ref.core.errors import OptionError

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_committed_docs_are_current(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/rules/*.md and docs/disputes.md match what `flip7ref docs` generates (CI fails otherwise)."""
    code, out, _ = run(capsys, "docs", "--check", "--out", str(DOCS))
    assert code == 0, f"{out.strip()}: run '.venv-dev/bin/flip7ref docs' and commit docs/"


def test_docs_check_names_stale_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """--check exits 1 naming missing, edited and retired files; writing fixes them all."""
    code, out, _ = run(capsys, "docs", "--out", str(tmp_path))
    assert code == 0 and "rules/flip7.md" in out
    with (tmp_path / "disputes.md").open("a", encoding="utf-8") as f:
        f.write("edited by hand\n")  # the marker line stays: the file is still flip7ref's to rewrite
    (tmp_path / "rules" / "vengeance.md").unlink()
    (tmp_path / "rules" / "retired.md").write_text(docs.GENERATED_NOTE.format(what="an old table") + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "docs", "--check", "--out", str(tmp_path))
    assert code == 1
    for name in ("disputes.md", "rules/vengeance.md", "rules/retired.md"):
        assert name in out
    assert "rules/flip7.md" not in out
    assert f"missing under {tmp_path}: rules/vengeance.md; out of date under {tmp_path}: " in out  # a missing page is named so
    assert run(capsys, "docs", "--out", str(tmp_path))[0] == 0
    assert run(capsys, "docs", "--check", "--out", str(tmp_path))[0] == 0
    assert not (tmp_path / "rules" / "retired.md").exists()


def test_generated_docs_are_deterministic_and_complete() -> None:
    """Two renderings are identical, hold no local path, and list every rule, dispute and option."""
    first, second = docs.generate(), docs.generate()
    assert first == second
    assert sorted(first) == ["disputes.md", "rules/flip7.md", "rules/vengeance.md"]
    assert all(str(ROOT) not in text for text in first.values())
    for edition_id in ("flip7", "vengeance"):
        edition = load_edition(edition_id)
        page = first[f"rules/{edition_id}.md"]
        for rid in edition.rules:
            assert f"\n### {rid}\n" in page
        for did, dispute in edition.disputes.items():
            assert f"\n### {did}\n" in first["disputes.md"]
            if dispute.get("option"):
                assert f"--option {dispute['option']}=" in first["disputes.md"]
        for name in edition.options:
            assert f"`{name}`" in page


def test_rule_page_lists_sources_options_and_cases() -> None:
    """F7-073's entry names its sources with titles, the options touching it and the cases citing it."""
    edition = load_edition("flip7")
    page = docs.render_rules(edition, docs.shipped_cases())
    entry = page.split("\n### F7-073\n", 1)[1].split("\n### ", 1)[0]
    assert edition.rules["F7-073"].text in entry
    assert f"`T-GM` (derived): {edition.sources['T-GM']['title']}" in entry
    assert "`set_aside_assigner` (default `target`" in entry
    assert "`giver`" in entry
    case_ids = docs.cases_by_rule(docs.shipped_cases())["F7-073"]
    assert all(f"`{cid}`" in entry for cid in case_ids)


@pytest.mark.rules("F7-007")
def test_card_names_no_published_text_uses_are_marked() -> None:
    """Flip 7's Dutch action names have no source (``unsourced_names``): the rules page says so beside
    each, and only beside them; the sourced German and French names go unmarked."""
    page = docs.render_rules(load_edition("flip7"), docs.shipped_cases())
    cards = page.split("\n### F7-007\n", 1)[1].split("\n### ", 1)[0]
    line = next(x for x in cards.splitlines() if x.startswith("- **Cards:**"))
    assert line == (
        "- **Cards:** Freeze! (`freeze`; German: Stopp, French: Stop, Dutch: Bevries (not from a published text), "
        "Norwegian: Freeze); Flip Three! (`flip_three`; German: Drei am Stück, French: Trois à la suite, "
        "Dutch: Draai drie (not from a published text), Norwegian: Flip Three); Second Chance! (`second_chance`; "
        "German: Zweite Chance, French: Seconde Chance, Dutch: Tweede kans (not from a published text), "
        "Norwegian: Second Chance)"
    )
    assert page.count("(not from a published text)") == sum(
        page.count(f"Dutch: {name} ") for name in ("Bevries", "Draai drie", "Tweede kans")
    )
    vengeance = docs.render_rules(load_edition("vengeance"), docs.shipped_cases())
    assert "Draai vier" in vengeance and "not from a published text" not in vengeance  # SRC-000 names them


def test_rules_shows_one_rule(capsys: pytest.CaptureFixture[str]) -> None:
    """`rules F7-073` prints its text, its sources, the options touching it and its cases."""
    edition = load_edition("flip7")
    code, out, _ = run(capsys, "rules", "F7-073")
    assert code == 0
    assert edition.rules["F7-073"].text in out
    for key in edition.rules["F7-073"].sources:
        assert f"{key}: {edition.sources[key]['title']}" in out
    assert "set_aside_assigner" in out and "flip_three_bust" in out
    assert any(cid in out for cid in docs.cases_by_rule(docs.shipped_cases())["F7-073"])
    assert "F7-C" in out


def test_rules_finds_a_vengeance_rule_without_edition(capsys: pytest.CaptureFixture[str]) -> None:
    """An id of either edition is found without --edition, case-insensitively."""
    code, out, _ = run(capsys, "rules", "v-045")
    assert code == 0 and out.startswith("V-045  ") and "edition     vengeance" in out


def test_rules_lists_an_edition(capsys: pytest.CaptureFixture[str]) -> None:
    """Without arguments every flip7 rule is listed, one per line; --edition all lists both."""
    code, out, _ = run(capsys, "rules")
    assert code == 0
    assert [line.split("  ", 1)[0] for line in out.splitlines()] == sorted(load_edition("flip7").rules)
    code, out, _ = run(capsys, "rules", "--edition", "all")
    assert code == 0 and "F7-001  " in out and "V-083  " in out


def test_rules_search_steal(capsys: pytest.CaptureFixture[str]) -> None:
    """`rules --search steal --edition vengeance` lists the Steal rule V-046."""
    code, out, _ = run(capsys, "rules", "--search", "steal", "--edition", "vengeance")
    assert code == 0
    ids = [line.split("  ", 1)[0] for line in out.splitlines() if not line.startswith(" ")]
    assert "V-046" in ids
    assert all(i.startswith("V-") for i in ids)


def test_rules_search_german_card_name(capsys: pytest.CaptureFixture[str]) -> None:
    """`rules --lang de --search "Zweite Chance"` finds the Second Chance rules through the German card name."""
    code, out, _ = run(capsys, "rules", "--lang", "de", "--search", "Zweite Chance")
    assert code == 0
    ids = [line.split("  ", 1)[0] for line in out.splitlines() if not line.startswith(" ")]
    assert {"F7-080", "F7-081", "F7-082"} <= set(ids)
    assert 'card "Zweite Chance"' in out


def test_rules_search_is_accent_and_case_insensitive() -> None:
    """French card names match without their accents; an empty query is refused."""
    matches = docs.search_rules([load_edition("flip7")], "trois a la SUITE", "fr")
    assert "F7-073" in {m.rule.id for m in matches}
    with pytest.raises(OptionError):
        docs.search_rules([load_edition("flip7")], " !? ")


def test_rules_search_without_match_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    """No match prints one line and exits 1."""
    code, out, _ = run(capsys, "rules", "--search", "xylophone")
    assert code == 1 and out.count("\n") == 1


@pytest.mark.parametrize("bad", ["F7-999", "F7-74", "V-45x"])
def test_unknown_rule_id_exits_2(capsys: pytest.CaptureFixture[str], bad: str) -> None:
    """An unknown id exits 2 with a one-line message suggesting close ids."""
    code, out, err = run(capsys, "rules", bad)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("flip7ref: error: unknown rule id")
    assert "did you mean" in err


def test_unknown_rule_id_far_from_any_names_each_editions_range(capsys: pytest.CaptureFixture[str]) -> None:
    """An id close to none gives each edition's lowest and highest id, not one range across both."""
    code, _, err = run(capsys, "rules", "ZZ-1")
    assert code == 2
    ranges = "; ".join(f"{min(load_edition(e).rules)} … {max(load_edition(e).rules)}" for e in ("flip7", "vengeance"))
    assert ranges == "F7-001 … F7-131; V-001 … V-087"
    assert err.strip().endswith(f"(known ids: {ranges})")


def test_rules_id_and_search_together_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    """A rule id and --search together are a user error."""
    code, _, err = run(capsys, "rules", "F7-073", "--search", "freeze")
    assert code == 2 and err.count("\n") == 1


def test_coverage_is_complete_on_the_repository(capsys: pytest.CaptureFixture[str]) -> None:
    """Every rule id of both editions is cited by a test or a case: exit 0."""
    code, out, _ = run(capsys, "coverage")
    assert code == 0
    assert "every rule is covered" in out
    assert "F7-073" in out and "V-046" in out


def test_coverage_fails_on_an_uncited_rule(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no cases and an empty test folder every rule is uncited: exit 1 naming them."""
    monkeypatch.setattr("flip7ref.docs.citations.case_index", lambda: ())  # where coverage() finds it
    code, out, _ = run(capsys, "coverage", "--edition", "flip7", "--tests", str(tmp_path))
    assert code == 1
    assert "cited by nothing: F7-001" in out


def test_coverage_counts_cases_only_without_tests() -> None:
    """Without a test folder the rows carry cases only, and the suite alone covers every rule."""
    rows, unknown = docs.coverage([load_edition("flip7"), load_edition("vengeance")], None)
    assert unknown == []
    assert all(not r.tests for r in rows)
    assert all(r.covered for r in rows)


def test_coverage_without_a_test_folder_names_the_flag_that_gives_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue: run from a checkout with flip7ref installed (not editable), coverage said "an installed
    package?" and no way to count the checkout's tests; the line now names --tests."""
    import flip7ref.docs.commands as commands

    monkeypatch.setattr(commands, "default_tests_dir", lambda: None)
    assert main(["coverage"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ("no tests/ folder found (an installed package?): counting conformance cases only; --tests DIR reads a "
            "checkout's tests/ (flip7ref coverage --tests tests)") in out  # fmt: skip


def test_cited_rule_ids_reads_markers_only(tmp_path: Path) -> None:
    """Decorator marks, marks inside pytest.param and module pytestmark count; comments and strings do not."""
    (tmp_path / "test_sample.py").write_text(
        "import pytest\n"
        'pytestmark = pytest.mark.rules("F7-001")\n'
        "# F7-002 in a comment\n"
        'TEXT = "F7-003"\n'
        '@pytest.mark.rules("F7-004", "F7-005")\n'
        "def test_a() -> None: ...\n"
        '@pytest.mark.parametrize("x", [pytest.param(1, marks=pytest.mark.rules("F7-006"))])\n'
        "def test_b(x: int) -> None: ...\n"
        "class TestC:\n"
        '    @pytest.mark.rules("F7-007")\n'
        "    async def test_d(self) -> None: ...\n",
        encoding="utf-8",
    )
    (tmp_path / "helper.py").write_text('@pytest.mark.rules("F7-008")\ndef test_x() -> None: ...\n', encoding="utf-8")
    cited = docs.cited_rule_ids(tmp_path)
    assert cited == {
        "F7-001": {"test_sample.py"},
        "F7-004": {"test_sample.py::test_a"},
        "F7-005": {"test_sample.py::test_a"},
        "F7-006": {"test_sample.py::test_b"},
        "F7-007": {"test_sample.py::test_d"},
    }
