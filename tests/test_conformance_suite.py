"""The conformance suite checks itself: valid files, unique ids, full coverage, and the reference passes."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from flip7ref import SpecError, edition_ids, load_edition
from flip7ref.checking.conformance import cases_dir, compare, load_case_file, load_cases, run_reference
from flip7ref.cli import main


def test_every_case_file_validates_and_ids_are_unique() -> None:
    """Each file validates against case.schema.json; no id appears twice (load_cases checks)."""
    files = sorted(cases_dir().rglob("*.yaml"))
    assert files
    ids = [c["id"] for c in load_cases()]
    assert len(ids) == len(set(ids))
    for f in files:
        for case in load_case_file(f):
            assert case["edition"] == f.parent.name, f"{case['id']} lies in the {f.parent.name} folder"


@pytest.mark.parametrize("edition", edition_ids())
def test_every_rule_id_is_checked_by_a_case(edition: str) -> None:
    """Every rule id of each edition table is listed by at least one case of that edition."""
    cited = {r for c in load_cases() if c["edition"] == edition for r in c["rules"]}
    missing = sorted(set(load_edition(edition).rules) - cited)
    assert not missing, f"{edition} rule ids checked by no conformance case: {', '.join(missing)}"


@pytest.mark.parametrize("edition", edition_ids())
def test_every_option_reading_has_a_case(edition: str) -> None:
    """Every reading of every option is selected by at least one case of that edition."""
    ed = load_edition(edition)
    chosen: set[tuple[str, str]] = set()
    for case in load_cases():
        if case["edition"] != edition:
            continue
        options = {name: spec.default for name, spec in ed.options.items()} | dict(case.get("options") or {})
        chosen.update((name, str(value)) for name, value in options.items() if name in (case.get("options") or {}))
        if "reading" in case:
            chosen.add((case["reading"]["option"], str(case["reading"]["value"])))
    missing = [
        f"{name}={r.name}"
        for name, spec in ed.options.items()
        for r in spec.readings
        if (name, r.name) not in chosen and r.name != str(spec.default)
    ]
    assert not missing, f"{edition} option readings with no case: {', '.join(missing)}"


def test_the_reference_passes_every_case_in_process() -> None:
    """100% of the suite passes on the reference interpreter."""
    results = [run_reference(c) for c in load_cases()]
    bad = [(r.case_id, r.status, r.message) for r in results if r.status != "pass"]
    assert not bad
    assert len(results) >= 3


def test_cases_that_pin_a_reading_set_that_option() -> None:
    """A case's `reading` names an option and value the case actually plays under."""
    for case in load_cases():
        if "reading" not in case:
            continue
        reading = case["reading"]
        ed = load_edition(case["edition"])
        spec = ed.options[reading["option"]]
        played = (case.get("options") or {}).get(reading["option"], spec.default)
        assert str(played) == str(reading["value"]), case["id"]


def test_compare_explains_the_first_difference() -> None:
    """compare() names the key, the expected and the observed value."""
    observed = {"statuses": {"0": "busted"}, "events": [{"type": "dealt", "seat": 0, "card": "7"}], "totals": [3]}
    assert compare({"statuses": {"0": "active"}}, observed) == ["statuses[0]: expected active, observed busted"]
    assert compare({"events": [{"type": "dealt", "card": "8"}]}, observed)[0].startswith("events[0]: expected")
    assert compare({"events_include": [{"type": "busted"}]}, observed)[0].endswith("not observed")
    assert compare({"events_exclude": ["dealt"]}, observed) == [
        "events: expected no 'dealt' event, observed one: {'type': 'dealt', 'seat': 0, 'card': '7'}"
    ]
    assert compare({"totals": [3]}, observed) == []


def test_malformed_case_files_are_reported(tmp_path: Path) -> None:
    """A case violating the schema, or a duplicate id, is a SpecError naming file and place."""
    good = {
        "format": 1,
        "cases": [
            {"id": "F7-C9990", "title": "t", "edition": "flip7", "rules": ["F7-100"], "source": "s", "kind": "scoring",
             "line": ["3"], "expect": {"score": 3}},
        ],
    }  # fmt: skip
    path = tmp_path / "a.yaml"
    path.write_text(yaml.safe_dump(good), encoding="utf-8")
    assert load_case_file(path)[0]["id"] == "F7-C9990"
    bad = dict(good, cases=[dict(good["cases"][0], id="case-1")])
    path.write_text(yaml.safe_dump(bad), encoding="utf-8")
    with pytest.raises(SpecError) as info:
        load_case_file(path)
    assert info.value.path == "/cases/0/id" and str(path) in str(info.value)
    assert "text matching" in str(info.value)
    path.write_text(yaml.safe_dump(good), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(yaml.safe_dump(good), encoding="utf-8")
    with pytest.raises(SpecError, match="not used before"):
        load_cases([tmp_path])


PLAYER_COUNT_CASES = {"F7-C0501", "F7-C0907", "V-C0142", "F7-C0306"}
"""The cases about one or two players (solo rounds and games, the two-player game)."""

PLAYER_COUNT_RULES = {"flip7": "F7-122", "vengeance": "V-073"}
"""Each edition's rule on one or two players (the solo challenge; counting rounds to 200)."""


def test_cases_not_about_the_player_count_have_three_players() -> None:
    """Flip 7 is for three or more: a case that is not about one or two players uses at least
    three, so that an engine enforcing the minimum keeps it.  This covers the perft cases too
    (their counts are regenerated by conformance/tools/make_perft.py, which seats three); a
    case with one or two players says what it is about by citing the edition's player-count rule."""
    cases = load_cases()
    few = {c["id"] for c in cases if (c.get("setup") or {}).get("players", 3) < 3}
    assert few == PLAYER_COUNT_CASES
    unmarked = [
        c["id"] for c in cases if c["id"] in few and PLAYER_COUNT_RULES[c["edition"]] not in c["rules"]
    ]
    assert unmarked == [], "cases with one or two players that do not cite the player-count rule"
    assert {c["setup"]["players"] for c in cases if c["kind"] == "perft"} == {3}


def test_cases_for_missed_situations() -> None:
    """The situations real engines got wrong have cases: the first offer after a deal with a
    Flip Three or a Second Chance, a mid-round reshuffle beside a Freeze, a set-aside card left
    by a Flip 7."""
    by_id = {c["id"]: c for c in load_cases()}
    assert by_id["F7-C1110"]["expect"]["next"] == {"player": 1, "legal": ["hit", "stay"]}
    assert by_id["F7-C1111"]["expect"]["next"] == {"player": 1, "legal": ["hit", "stay"]}
    assert {"type": "reshuffled", "cards": 2} in by_id["F7-C1112"]["expect"]["events"]
    assert by_id["F7-C1112"]["expect"]["kept"] == {1: ["freeze"]}
    assert {"type": "discarded", "card": "freeze", "reason": "round ended"} in by_id["F7-C1113"]["expect"]["events_include"]
    results = [run_reference(by_id[i]) for i in ("F7-C1110", "F7-C1111", "F7-C1112", "F7-C1113")]
    assert [r.status for r in results] == ["pass"] * 4


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--rule", "F7-999"],
         "--rule F7-999: no case cites that rule id ('flip7ref coverage' lists the cases citing each rule)"),
        (["--case", "F7-C9999"], "--case F7-C9999: no case has that id (ids look like F7-C0100 or V-C0045)"),
        (["--edition", "flip8"], "--edition flip8: no case of that edition (the cases are of flip7, vengeance)"),
        (["--edition", "vengeance", "--case", "F7-C0100"], "no case matches the given --edition/--case/--rule filters together"),
    ],
)
def test_a_filter_that_selects_nothing_is_named(flags: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue: `conformance run --rule F7-999` said only "no case matches the given --edition/--case/--rule
    filters"; the filter that matches nothing on its own is now named."""
    assert main(["conformance", "run", *flags]) == 2
    assert capsys.readouterr().err == f"flip7ref: error: {message}\n"
