"""Harness defects found by running real engines: forced choices an engine resolves itself,
declared readings checked at the handshake, passes under another reading than the case pins,
skip reasons and perft differences in words."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from flip7ref.checking.conformance import CaseResult, load_cases, observe
from flip7ref.checking.engine_process import EngineError
from flip7ref.checking.harness import implementation, run_engine
from flip7ref.checking.perft import compare_perft
from flip7ref.checking.perft_check import check
from flip7ref.checking.suite import summary
from flip7ref.checking.verdict import check_declaration, failed, prepare, reading_note, verdict
from flip7ref.core.events import TEXT

ENGINES = Path(__file__).parent / "engines"
AUTO = f"{sys.executable} {ENGINES / 'auto_resolving.py'}"

sys.path.insert(0, str(ENGINES))
from auto_resolving import play  # noqa: E402

CASES = {c["id"]: c for c in load_cases()}


def _auto_impl() -> dict[str, Any]:
    return {**implementation(), "auto_resolves_forced_choices": True}


def test_a_case_ending_at_a_forced_choice_passes_on_an_engine_resolving_it() -> None:
    """F7-C0713 stops where seat 0's Freeze has a single target (``target 1``): an engine that
    resolves that choice itself goes on past it, and the reference now does too."""
    case = CASES["F7-C0713"]
    prepared = prepare(case, _auto_impl())
    assert not isinstance(prepared, CaseResult)
    assert prepared.forced_tail == ("target 1",)
    assert prepared.request()["actions"] == ["hit"] and prepared.actions == ("hit", "target 1")
    result = verdict(prepared, play(prepared.request()))
    assert result.status == "pass", result.diffs
    # without auto-resolution the case is unchanged: the reference stops at the choice
    plain = prepare(case, implementation())
    assert not isinstance(plain, CaseResult) and plain.forced_tail == () and plain.expect == case["expect"]


def test_every_case_passes_on_an_engine_resolving_forced_choices() -> None:
    """Every case with a forced choice after its last action, or before a free one, passes on
    an auto-resolving engine (before, 25 cases ending at a forced choice always failed)."""
    auto = _auto_impl()
    ended = 0
    for case in CASES.values():
        if case["kind"] in ("scoring", "perft"):
            continue
        prepared = prepare(case, auto)
        if isinstance(prepared, CaseResult) or len(prepared.sent()) == len(prepared.actions):
            continue
        ended += bool(prepared.forced_tail)
        result = verdict(prepared, play(prepared.request()))
        assert result.status == "pass", (case["id"], result.diffs)
    assert ended >= 20


def test_engine_action_numbers_count_the_actions_sent() -> None:
    """F7-C0204: the third of its four actions is forced, so an auto-resolving engine is sent
    three, and its "action 3" is the case's action 4 (blamed on that node, shown first)."""
    case = CASES["F7-C0204"]
    prepared = prepare(case, _auto_impl())
    assert not isinstance(prepared, CaseResult)
    assert [len(step) == 1 for step in prepared.legal] == [False, False, True, False]
    assert prepared.sent() == [0, 1, 3]
    assert prepared.case_step(3) == 3 and prepared.case_step(4) is None
    result = failed(prepared, f"action 3 ({case['actions'][3]!r}) refused")
    assert result.diffs[1].startswith(f"reference: action 4 {case['actions'][3]!r} is seat")
    assert result.diffs[1].endswith(", sent as action 3)")
    assert any(line.endswith(", forced: not sent)") for line in result.diffs)
    decisions = [s for s, m in zip(prepared.run.states, prepared.run.moves, strict=False) if not m.startswith("chance ")]
    from flip7ref.checking.replay import rules_at

    assert result.blame == (rules_at(decisions[3]) or tuple(case["rules"]))[:3]  # the three shown
    # without auto-resolution the numbers are the case's own
    plain = prepare(case, implementation())
    assert not isinstance(plain, CaseResult) and plain.case_step(3) == 2


@pytest.mark.parametrize(("case_id", "forced"), [("V-C5006", 2), ("F7-C5015", 7)])
def test_perft_requests_leave_forced_actions_out(case_id: str, forced: int) -> None:
    """A perft case's deal orders are sent without the forced actions to an engine declaring
    ``auto_resolves_forced_choices`` (V-C5006 has two forced steps, F7-C5015 seven); an
    auto-resolving engine passes them."""
    case = CASES[case_id]
    sent: list[int] = []

    def send(request: Any, index: int) -> Any:
        sent.append(len(request["actions"]))
        return play(dict(request))

    assert check(case, _auto_impl(), send).status == "pass"
    every: list[int] = []

    def send_all(request: Any, index: int) -> Any:
        every.append(len(request["actions"]))
        return observe(dict(request))

    assert check(case, implementation(), send_all).status == "pass"
    assert sum(every) - sum(sent) == forced


def test_an_auto_resolving_engine_over_the_protocol() -> None:
    """End to end: the auto-resolving engine passes cases ending at or holding forced choices,
    and a perft case with forced steps."""
    ids = ["F7-C0713", "F7-C0204", "F7-C1001", "V-C5001"]
    _, results = run_engine(AUTO, [CASES[i] for i in ids], timeout=60)
    assert [(r.case_id, r.status) for r in results] == [(i, "pass") for i in ids]


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        (
            "typo-reading",
            "editions.flip7.options.reshuffles: 'unlimted' is not a reading of reshuffles (did you mean 'unlimited'?)",
        ),
        ("typo-option", "editions.flip7.options.reshufles: 'reshufles' is not an option of flip7 (did you mean 'reshuffles'?)"),
    ],
)
def test_a_misspelt_declaration_is_refused_at_the_handshake(mode: str, words: str, tmp_path: Path) -> None:
    """A misspelt reading or option name stops the run at the handshake (exit 2, one line,
    naming the option and what it has), instead of skipping every case it touches."""
    with pytest.raises(EngineError) as info:
        run_engine(f"{AUTO} {mode}", [CASES["F7-C0100"]], timeout=60)
    assert words in str(info.value) and "\n" not in str(info.value)
    assert "its readings: 1, unlimited, or a whole number" in str(info.value) or "its options: " in str(info.value)
    from flip7ref.cli import main

    report = tmp_path / "r.jsonl"
    assert main(["conformance", "run", "--engine", f"{AUTO} {mode}", "--case", "F7-C0100", "--report", str(report)]) == 2
    assert not report.exists()


def test_check_declaration() -> None:
    """The reference's own declaration is clean; ``unlimited`` and whole numbers are readings of
    ``reshuffles``; ``integer_ranges`` must name an integer option; unknown editions are left alone."""
    impl = implementation()
    assert check_declaration(impl) is None
    flip7 = impl["editions"]["flip7"]
    ok = {**impl, "editions": {"flip7": {"options": {"reshuffles": ["unlimited", "1", 3]}}, "house": {"options": {"x": []}}}}
    assert check_declaration(ok) is None
    bad = {**impl, "editions": {"flip7": {**flip7, "integer_ranges": {"tie": [0, 1]}}}}
    assert check_declaration(bad) == (
        "editions.flip7.integer_ranges.tie: tie is not an integer option (its readings: another-round, shared-win)"
    )


def test_the_unlimited_reshuffles_reading_can_be_declared() -> None:
    """An engine declaring ``reshuffles: [unlimited, 1]`` starts, and a case pinning ``1`` is
    checked under ``1`` (listed) while a default case is checked under ``unlimited``."""
    ids = ["F7-C1106", "F7-C1108"]
    _, results = run_engine(f"{AUTO} unlimited", [CASES[i] for i in ids], timeout=60)
    assert [r.status for r in results] == ["pass", "pass"]
    assert all(r.other_reading == "" for r in results)


def test_a_pass_under_another_reading_than_pinned_is_marked_and_counted_apart() -> None:
    """F7-C1040 pins ``tie: shared-win``; an engine playing only ``another-round`` is checked
    under its reading: the pass is marked, and the summaries count it apart."""
    impl = implementation()
    impl["editions"]["flip7"]["options"]["tie"] = ["another-round"]
    prepared = prepare(CASES["F7-C1040"], impl)
    assert not isinstance(prepared, CaseResult)
    result = verdict(prepared, prepared.run.observed)
    assert result.status == "pass"
    note = "the case pins tie=shared-win, D-F7-22; checked under tie=another-round, the engine's reading"
    assert result.other_reading == note and result.to_dict()["other_reading"] == note
    same = prepare(CASES["F7-C1039"], impl)
    assert not isinstance(same, CaseResult) and verdict(same, same.run.observed).other_reading == ""
    assert reading_note(CASES["F7-C0100"], {}) == ""  # pins nothing
    rows = [result.to_dict(), verdict(same, same.run.observed).to_dict()]
    text = summary({"report": 1, "implementation": {"name": "x"}}, rows)
    assert "| flip7 | 1 | 1 | 0 | 0 | 0 |" in text
    assert "- 1 of the passes are of cases pinning another reading than the engine's" in text


def test_the_cli_counts_passes_under_another_reading_apart(capsys: pytest.CaptureFixture[str]) -> None:
    """``conformance run`` prints the marked passes and counts them apart (text and JSON)."""
    from flip7ref.cli import main

    args = ["conformance", "run", "--engine", f"{AUTO} another-tie", "--case", "F7-C1039", "--case", "F7-C1040"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "PASS (other reading) F7-C1040: the case pins tie=shared-win" in out
    assert "2 cases: 1 passed, 1 passed under another reading than the case pins, 0 failed" in out
    assert main([*args, "--json"]) == 0
    totals = json.loads(capsys.readouterr().out)["totals"]
    assert totals == {"pass": 2, "pass_other_reading": 1, "fail": 0, "skip": 0, "error": 0}


def test_the_summary_keeps_skip_reasons_whole() -> None:
    """A skip reason longer than 120 characters is shown whole in the Markdown summary."""
    reason = "the case's decisions are not legal under the engine's readings (" + "x" * 150 + "): stop"
    rows = [{"case": "A", "edition": "flip7", "status": "skip", "message": reason}]
    assert f"| {reason} | 1 |" in summary({"report": 1}, rows)


def test_perft_differences_in_words() -> None:
    """Perft count differences say what is counted."""
    expect = {"orders": 6, "outcomes": {"[12, 0]": 6}, "scores": {"[12, 0]": "1"}, "divide": {"7": 6}}
    got = {"orders": 6, "outcomes": {"[]": 6}, "scores": {"[]": "1"}, "divide": {"8": 6}}
    assert compare_perft(expect, got) == [
        "deal orders ending with round scores [12, 0]: expected 6, observed 0",
        "deal orders ending with round scores [] (an empty list: no seat scored): expected 0, observed 6",
        "probability of round scores [12, 0]: expected 1, observed 0",
        "probability of round scores [] (an empty list: no seat scored): expected 0, observed 1",
        "deal orders whose first card is 7: expected 6, observed 0",
        "deal orders whose first card is 8: expected 0, observed 6",
    ]
    assert compare_perft({"orders": 6}, {"orders": 5}) == ["deal orders played to the round's end: expected 6, observed 5"]
    assert compare_perft({"outcomes": {"[1]": 1}}, {"outcomes": {"(no round_scores)": 1}})[0] == (
        "deal orders ending with no round scores reported: expected 0, observed 1"
    )


def test_a_declared_event_type_or_range_that_cannot_be_is_refused() -> None:
    """An ``events`` entry the protocol does not have once dropped every event of that kind from
    the comparison silently (a typo, ``delt``, passed every case on events); a ``players`` or an
    ``integer_ranges`` range with its minimum above its maximum skipped cases instead of saying so."""
    impl = implementation()
    flip7 = impl["editions"]["flip7"]
    assert check_declaration({**impl, "events": ["dealt", "busted"]}) is None
    assert check_declaration({**impl, "events": ["dealt", "delt"]}) == (
        "events[1]: 'delt' is not an event type (did you mean 'dealt'?) (the protocol's types: "
        + ", ".join(sorted(TEXT)) + ")"
    )
    assert check_declaration({**impl, "players": [5, 2]}) == "players: [5, 2] is no range (its minimum is above its maximum)"
    assert check_declaration({**impl, "players": [2, None]}) is None
    bad = {**impl, "editions": {"flip7": {**flip7, "integer_ranges": {"target_score": [10, 1]}}}}
    assert check_declaration(bad) == (
        "editions.flip7.integer_ranges.target_score: [10, 1] is no range (its minimum is above its maximum)"
    )
