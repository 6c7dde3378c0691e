"""A house table with rule ids of its own (``HR-``): it loads, plays, lists and looks up its
rules, runs conformance cases with ``HR-C`` ids, and a badly written id is refused with
one line naming the file and the field."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from flip7ref.checking.conformance import load_case_file, run_reference
from flip7ref.cli import main
from flip7ref.core import spec
from flip7ref.core.errors import SpecError
from flip7ref.core.game import Game
from flip7ref.core.spec import load_edition, load_edition_file
from flip7ref.docs.index import find_rule
from flip7ref.docs.render import generate
from tests.helpers import house_text, seeded_trace


@pytest.fixture
def house(tmp_path: Path) -> Path:
    path = tmp_path / "house.yaml"
    path.write_text(house_text(), encoding="utf-8")
    return path


def test_a_house_table_with_its_own_rule_ids_loads_and_plays(house: Path) -> None:
    edition = load_edition(str(house))
    assert edition.id == "house" and edition.rule_prefix == "HR"
    assert load_edition("flip7").rule_prefix == "F7" and load_edition("vengeance").rule_prefix == "V"
    assert set(edition.rules) == {"HR-" + rid[3:] for rid in load_edition("flip7").rules}
    assert edition.event_rules["busted"] == tuple("HR-" + r[3:] for r in load_edition("flip7").event_rules["busted"])
    assert edition.options["flip_three_bust"].dispute == "D-HR-10"
    trace = seeded_trace(Game(edition, 3), 7, lanes=True)
    assert trace[-1].is_terminal() and max(trace[-1].totals) >= 200


def test_a_house_rule_is_looked_up_by_its_id(house: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edition, rule = find_rule("hr-073", [load_edition(str(house))])
    assert (edition.id, rule.id) == ("house", "HR-073") and rule.text == load_edition("flip7").rules["F7-073"].text
    assert main(["rules", "HR-073", "--edition", str(house), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["id"], shown["edition"]) == ("HR-073", "house")
    assert main(["rules", "--edition", str(house)]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert listed[0] == "HR-001" and all(i.startswith("HR-") for i in listed)


def test_the_rules_page_of_a_house_table(house: Path) -> None:
    pages = generate([load_edition(str(house))], [])
    assert list(pages) == ["disputes.md", "rules/house.md"]
    assert "\n### HR-073\n" in pages["rules/house.md"] and "[HR-073](#hr-073)" in pages["rules/house.md"]
    assert "\n### D-HR-10\n" in pages["disputes.md"] and "F7-0" not in pages["rules/house.md"]


RULE_ID = (
    "a rule id: a prefix of capital letters and digits, a hyphen, two digits and a digit or capital letter "
    "(F7-073, HR-12A) (text matching ^[A-Z][A-Z0-9]*-[0-9]{2}[0-9A-Z]$)"
)


@pytest.mark.parametrize(
    ("old", "new", "field", "expected"),
    [
        ("  HR-050:", "  Hr-050:", "/rules", "found 'Hr-050'; expected " + RULE_ID),
        ("  HR-050:", "  HR-50:", "/rules", "found 'HR-50'; expected " + RULE_ID),
        ("  HR-050:", "  F7-050:", "/rules/F7-050", "expected a rule id with this table's prefix HR- (as HR-001), found F7-050"),
        ("  D-HR-10:", "  D-F7-10:", "/disputes/D-F7-10",
         "expected a dispute id D-HR-NN (this table's rule prefix), found D-F7-10"),
        ("dispute: D-HR-10", "dispute: D-X-10", "/options/flip_three_bust/dispute",
         "expected a dispute id D-HR-NN (this table's rule prefix), found D-X-10"),
    ],
)  # fmt: skip
def test_a_bad_rule_id_is_refused_naming_the_file_and_field(
    tmp_path: Path, old: str, new: str, field: str, expected: str
) -> None:
    text = house_text()
    assert text.count(old) == 1
    path = tmp_path / "bad.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(SpecError) as info:
        load_edition_file(path)
    message = str(info.value)
    assert message == f"{path}, at {field}: {expected}"
    assert info.value.file == str(path) and info.value.path == field


def test_a_case_of_a_house_table_has_house_ids(tmp_path: Path, house: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A third table installed beside the shipped two (here put in the shipped-table cache)
    runs cases whose ids and rules carry its prefix."""
    monkeypatch.setitem(spec._SHIPPED, "house", load_edition_file(house))
    cases = tmp_path / "house.yaml"
    cases.write_text(
        "format: 1\nedition: house\ncases:\n"
        "  - id: HR-C0001\n    title: a 7 and a 7 bust\n    edition: house\n    rules: [HR-040]\n"
        "    source: HR-040\n    kind: transition\n"
        "    setup: {players: 2, dealer: 0, turn: 1, lines: {'0': ['3'], '1': ['7']}, draw: ['7']}\n"
        "    actions: [hit]\n"
        "    expect: {statuses: {'1': busted}}\n",
        encoding="utf-8",
    )
    (case,) = load_case_file(cases)
    assert (case["id"], case["rules"]) == ("HR-C0001", ["HR-040"])
    result = run_reference(case)
    assert (result.status, result.message, result.rules) == ("pass", "", ("HR-040",))


@pytest.mark.parametrize(
    ("case_id", "rule", "field", "expected"),
    [
        ("hr-C0001", "HR-040", "/cases/0/id",
         "found 'hr-C0001'; expected a case id: the rule-id prefix of its edition, -C and four digits (F7-C0100, HR-C0001) "
         "(text matching ^[A-Z][A-Z0-9]*-C[0-9]{4}$)"),
        ("HR-C0001", "HR-40", "/cases/0/rules/0",
         "found 'HR-40'; expected a rule id of the case's edition (F7-073, HR-012) "
         "(text matching ^[A-Z][A-Z0-9]*-[0-9]{2}[0-9A-Z]$)"),
    ],
)  # fmt: skip
def test_a_bad_case_or_rule_id_in_a_case_file_is_refused(
    tmp_path: Path, case_id: str, rule: str, field: str, expected: str
) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text(
        f"format: 1\ncases:\n  - id: {case_id}\n    title: seven\n    edition: house\n    rules: [{rule}]\n"
        "    source: HR-100\n    kind: scoring\n    line: ['7']\n    expect: {score: 7}\n",
        encoding="utf-8",
    )
    with pytest.raises(SpecError) as info:
        load_case_file(path)
    assert str(info.value) == f"{path}, at {field}: {expected}"


@pytest.mark.parametrize(
    ("edition", "case_id", "rule", "field", "expected"),
    [
        ("flip7", "HR-C0001", "F7-040", "/cases/0/id",
         "expected a case id F7-Cnnnn (the rule prefix of edition 'flip7'), found HR-C0001"),
        ("vengeance", "F7-C0001", "V-030", "/cases/0/id",
         "expected a case id V-Cnnnn (the rule prefix of edition 'vengeance'), found F7-C0001"),
        ("flip7", "F7-C9999", "HR-040", "/cases/0/rules/0",
         "expected a rule id of edition 'flip7' (as F7-001) or of another shipped table, found HR-040"),
        ("flip7", "F7-C9999", "F7-999", "/cases/0/rules/0",
         "expected a rule id of edition 'flip7' (as F7-001) or of another shipped table, found F7-999"),
    ],
)  # fmt: skip
def test_a_case_of_a_shipped_edition_with_foreign_ids_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edition: str, case_id: str, rule: str, field: str, expected: str
) -> None:
    """Since case and rule ids may have any prefix, a case of a shipped table must still carry
    that table's: a house id on a shipped edition (or a rule no table has) is refused."""
    cases = tmp_path / "cases.yaml"
    cases.write_text(
        f"format: 1\nedition: {edition}\ncases:\n"
        f"  - id: {case_id}\n    title: a 7 and a 7 bust\n    edition: {edition}\n    rules: [{rule}]\n"
        f"    source: {rule}\n    kind: transition\n"
        "    setup: {players: 2, dealer: 0, turn: 1, lines: {'0': ['3'], '1': ['7']}, draw: ['7']}\n"
        "    actions: [hit]\n"
        "    expect: {statuses: {'1': busted}}\n",
        encoding="utf-8",
    )
    with pytest.raises(SpecError) as info:
        load_case_file(cases)
    assert str(info.value) == f"{cases}, at {field}: {expected}"
    assert main(["conformance", "run", "--cases", str(cases)]) == 2
    assert capsys.readouterr().err == f"flip7ref: error: {cases}, at {field}: {expected}\n"


def test_a_very_long_rule_id_asked_for_is_cut_in_the_one_line_message(house: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 100,000-character id was echoed whole (and compared with every known id for a hint)."""
    assert main(["rules", "HR-" + "9" * 100_000, "--edition", str(house)]) == 2
    assert capsys.readouterr().err == (
        "flip7ref: error: unknown rule id 'HR-" + "9" * 53 + "... in house (known ids: HR-001 … HR-131)\n"
    )


def test_an_edition_name_too_long_for_a_file_name_is_an_unknown_edition(capsys: pytest.CaptureFixture[str]) -> None:
    """Looking the name up as a file raised OSError (File name too long, exit 1)."""
    assert main(["simulate", "--edition", "x" * 5000, "--games", "1", "--in-process", "--no-progress"]) == 2
    assert capsys.readouterr().err == (
        "flip7ref: error: unknown edition '" + "x" * 56 + "... (expected one of: flip7, vengeance)\n"
    )


def test_the_documented_recipe_makes_a_house_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/usage.md's two ``sed`` lines (done here in Python) make a table that loads as ``house``
    with HR- ids, and its ``rules HR-073`` command shows that rule."""
    usage = (Path(__file__).resolve().parent.parent / "docs" / "usage.md").read_text(encoding="utf-8")
    assert "sed 's/F7-/HR-/g' spec/editions/flip7.yaml > house.yaml" in usage
    assert "sed -i.bak 's/^  id: flip7$/  id: house/' house.yaml" in usage
    text = (spec.spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8").replace("F7-", "HR-")
    path = tmp_path / "house.yaml"
    path.write_text(re.sub(r"(?m)^  id: flip7$", "  id: house", text), encoding="utf-8")
    edition = load_edition_file(path)
    assert (edition.id, edition.rule_prefix) == ("house", "HR")
    assert main(["rules", "HR-073", "--edition", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == "HR-073"
