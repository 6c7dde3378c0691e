"""The JSON export (with each case's disputes), report summaries, badges and the reason enums."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from flip7ref.checking.conformance import SUITE_VERSION, load_cases, observe
from flip7ref.checking.suite import badge, export_documents, read_report, shipped_export, summary
from flip7ref.cli import main
from flip7ref.core.spec import load_schema, validate

WRONG = Path(__file__).parent / "engines" / "wrong_rules.py"


def test_the_shipped_json_export_is_current() -> None:
    """conformance/json matches a fresh export; computing it plays every case under every
    modelled reading of every dispute, so each case's depends_on is checked here.
    (Stale after a case or table change: run
    ``flip7ref conformance export --out conformance/json``.)"""
    fresh = export_documents()
    folder = shipped_export()
    stale = [
        name
        for name, text in fresh.items()
        if not (folder / name).is_file() or (folder / name).read_text(encoding="utf-8") != text
    ]
    assert not stale, f"stale JSON export {stale}: run flip7ref conformance export --out conformance/json"
    for edition in ("flip7", "vengeance"):
        data = json.loads(fresh[f"{edition}.json"])
        validate(data, "case", f"{edition}.json")
        assert len(data["cases"]) == sum(1 for c in load_cases() if c["edition"] == edition)
        assert all(isinstance(c["depends_on"], dict) for c in data["cases"])
    flip7 = {c["id"]: c for c in json.loads(fresh["flip7.json"])["cases"]}
    assert "D-F7-10" in flip7["F7-C0707"]["depends_on"]  # resolving set-aside cards after a bust
    assert flip7["F7-C0001"]["depends_on"] == {}  # a plain scoring case depends on nothing


def test_every_event_reason_is_in_the_case_schema() -> None:
    """Each reason and forced-draw outcome the reference emits over the suite is in the schema's enums."""
    event = load_schema("case")["$defs"]["event"]["properties"]
    reasons, outcomes = set(event["reason"]["enum"]), set(event["outcome"]["enum"])
    readme = (shipped_export().parent / "README.md").read_text(encoding="utf-8")
    seen_reasons, seen_outcomes = set(), set()
    for case in load_cases():
        if case["kind"] in ("scoring", "perft"):
            continue
        for ev in observe(case)["events"]:
            if "reason" in ev:
                seen_reasons.add(ev["reason"])
            if ev["type"] == "forced_draw_ended":
                seen_outcomes.add(ev["outcome"])
    assert seen_reasons <= reasons, seen_reasons - reasons
    assert seen_outcomes <= outcomes, seen_outcomes - outcomes
    assert {"target busted", "empty deck"} <= seen_reasons
    for reason in reasons | outcomes:
        assert f"`{reason}`" in readme, reason


def test_summary_and_badge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """summary prints Markdown by edition and blamed rule with the versions; --badge writes an SVG."""
    report = tmp_path / "r.jsonl"
    argv = ["conformance", "run", "--engine", f"{sys.executable} {WRONG} resolve-after-bust", "--report", str(report)]
    assert main([*argv, "--case", "F7-C0707", "--case", "F7-C0001", "--case", "F7-C0712"]) == 1
    capsys.readouterr()
    svg = tmp_path / "badge.svg"
    assert main(["conformance", "summary", str(report), "--badge", str(svg)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Conformance: wrong-resolve-after-bust")
    assert "| flip7 | 1 | 0 | 2 | 0 | 0 |" in out
    assert "| flip7 | F7-073 | 2 |" in out
    assert "coverage: 3 of 3 cases run (100.0%)" in out and "protocol: 1" in out and f"suite: flip7ref {SUITE_VERSION}" in out
    assert "flip7 readings declared: " in out
    text = svg.read_text()
    assert text.startswith("<svg") and "1/3 passed" in text
    header, rows = read_report(report)
    assert "#4c1" in badge([{"status": "pass"}]) and "#e05d44" in badge(rows[:0] or [{"status": "fail"}])
    assert summary(header, rows) == out


def test_summary_of_a_bad_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing report or one that is not JSON lines: one line, exit 2."""
    assert main(["conformance", "summary", str(tmp_path / "none.jsonl")]) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"report": 1}\nnot json\n')
    assert main(["conformance", "summary", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "line 2" in err


def test_export_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """conformance export --format json --out DIR writes the editions and the schemas."""
    case_file = next((Path(__file__).parent.parent / "conformance" / "cases" / "flip7").glob("scoring.yaml"))
    assert main(["conformance", "export", "--format", "json", "--out", str(tmp_path / "out"), "--cases", str(case_file)]) == 0
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == ["case.schema.json", "flip7.json", "protocol.schema.json", "vengeance.json"]
    data = json.loads((tmp_path / "out" / "flip7.json").read_text())
    assert data["cases"] and all(c["kind"] == "scoring" for c in data["cases"])
    assert "wrote 4 files" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("lines", "where"),
    [
        ('{"report": 1, "implementation": {"editions": {"flip7": {"options": {"tie": 5}}}}}',
         "line 1 /implementation/editions/flip7/options/tie: expected a list of readings"),
        ('{"report": 1, "implementation": [1]}', "line 1 /implementation: expected the engine's description (an object) or null"),
        ('{"report": 1}\n{"case": "F7-C0001", "status": ["x"]}', "line 2 /status: expected one of pass, fail, skip, error"),
        ('{"report": 1}\n{"case": "F7-C0001", "status": "fail", "blame": "F7-001"}',
         "line 2 /blame: expected a list of rule ids"),
    ],
)
def test_a_report_of_the_wrong_shape_is_one_line(
    lines: str, where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A report edited by hand or from elsewhere: a header whose declared readings are not lists
    once ended `summary` in a TypeError traceback; a result with a status that is none was counted
    nowhere.  Each is one line naming the file, the line and the field."""
    report = tmp_path / "r.jsonl"
    report.write_text(lines + "\n", encoding="utf-8")
    assert main(["conformance", "summary", str(report)]) == 2
    assert capsys.readouterr().err == f"flip7ref: error: {report}, at {where}\n"
