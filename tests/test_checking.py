"""Reading-aware checking, blame and expectations (issue 16 items 1, 2, 4, 6, 7)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from flip7ref.checking import verdict as checking
from flip7ref.checking.conformance import load_cases, observe
from flip7ref.checking.harness import implementation, run_engine
from flip7ref.checking.verdict import REQUEST_KEYS, Prepared, derive_expect, engine_options, prepare, verdict
from flip7ref.cli import main
from flip7ref.core.spec import edition_ids, load_edition
from flip7ref.explore import with_option

WRONG = Path(__file__).parent / "engines" / "wrong_rules.py"


def _flip7() -> list[Any]:
    return [c for c in load_cases() if c["edition"] == "flip7"]


def _declaring(edition: str, option: str, readings: list[str]) -> dict[str, Any]:
    """The reference's description, but offering only ``readings`` of one option."""
    impl = implementation()
    impl["editions"][edition]["options"][option] = readings
    return impl


@pytest.mark.rules("F7-073")
def test_an_engine_breaking_one_rule_is_blamed_on_that_rule_first() -> None:
    """An engine resolving set-aside cards after a bust (breaking F7-073 only) has every
    failure blamed on F7-073 first, though the failing cases cite up to five rules."""
    impl = implementation()
    failures = []
    for case in _flip7():
        prepared = prepare(case, impl)
        assert isinstance(prepared, Prepared), case["id"]
        result = verdict(prepared, observe(with_option(case, "flip_three_bust", "resolve")))
        if result.status != "pass":
            failures.append(result)
    assert len(failures) >= 3
    assert {r.status for r in failures} == {"fail"}
    assert [r.blame[0] for r in failures] == ["F7-073"] * len(failures)
    assert any(len(r.rules) > 2 for r in failures)  # the cited rules stay as context


@pytest.mark.rules("F7-030", "F7-033")
def test_a_refused_action_says_what_the_reference_expected() -> None:
    """An engine refusing a case action: the error names the reference's actor, its legal
    actions there and the expected outcome; the request carried no expect block."""
    cases = [c for c in _flip7() if "stay" in (c.get("actions") or ())][:3] + [c for c in _flip7() if c["id"] == "F7-C0001"]
    _, results = run_engine(f"{sys.executable} {WRONG} no-stay", cases, timeout=60)
    assert [r.status for r in results] == ["error", "error", "error", "pass"]
    for case, r in zip(cases[:3], results[:3], strict=True):
        index = list(case["actions"]).index("stay")
        assert r.message.startswith(f"engine errored: action {index + 1} ('stay')")
        assert r.diffs[1].startswith(f"reference: action {index + 1} 'stay' is seat ")
        assert "(legal there: " in r.diffs[1] and "stay" in r.diffs[1].split("legal there:")[1]
        assert r.diffs[-1].startswith("expected outcome: ")
        assert r.expected is not None and r.expected["outcome"] == dict(case["expect"])
        assert len(r.expected["actors"]) == len(case["actions"])
        assert r.blame  # the rules of the node the engine refused


def test_the_request_holds_no_answers() -> None:
    """The engine gets the setup, options, actions and actors only."""
    for case in load_cases()[:50]:
        prepared = prepare(case, implementation())
        assert isinstance(prepared, Prepared)
        request = prepared.request()
        assert set(request) <= {*REQUEST_KEYS, "actors"}
        assert "expect" not in request and "source" not in request and "rules" not in request
        if "actions" in case:
            assert len(request["actors"]) == len(case["actions"])


@pytest.mark.parametrize("edition", edition_ids())
def test_an_engine_playing_another_reading_is_checked_under_it(edition: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """For every non-default reading R of every option: an engine declaring only R and
    playing R passes or skips every case (none fails, each skip says why), and at least
    one case is checked with a changed expectation; the same engine playing the
    default reading instead fails some case (the checking is real).

    The reference's own run and outcome of a case (as written, under its own options) are
    the same whatever the engine declares, so each is computed once per case here, not
    once per reading (`flip7ref.checking.verdict.prepare` plays the case as written first)."""
    table = load_edition(edition)
    cases = [c for c in load_cases() if c["edition"] == edition]
    written = {id(c) for c in cases}
    own_runs: dict[int, Any] = {}
    own_outcomes: dict[int, Any] = {}
    real_play = checking._play

    def play_once(case: Any) -> Any:
        if id(case) not in written:
            return real_play(case)
        if id(case) not in own_runs:
            own_runs[id(case)] = real_play(case)
        return own_runs[id(case)]

    def observed_as_written(case: Any) -> Any:
        if id(case) not in own_outcomes:
            own_outcomes[id(case)] = observe(case)
        return own_outcomes[id(case)]

    monkeypatch.setattr(checking, "_play", play_once)
    checked_somewhere = 0
    for name, spec in table.options.items():
        if spec.integer is not None:
            continue
        for reading in spec.readings:
            if reading.name == str(spec.default):
                continue
            impl = _declaring(edition, name, [reading.name])
            changed = caught = 0
            for case in cases:
                prepared = prepare(case, impl)
                if not isinstance(prepared, Prepared):
                    assert prepared.status == "skip"
                    assert "not legal under the engine's readings" in prepared.message or (
                        "depend on how the reshuffled pile is ordered" in prepared.message  # flip7ref.checking.shuffle_order
                    )
                    continue
                assert str(prepared.options.get(name, spec.default)) == reading.name
                played = {**case, "options": dict(prepared.options)}
                result = verdict(prepared, observe(played))
                assert result.status == "pass", (name, reading.name, case["id"], result.message)
                changed += prepared.changed
                if prepared.changed:
                    caught += verdict(prepared, observed_as_written(case)).status == "fail"
            checked_somewhere += changed > 0
            if changed:
                assert caught or name in ("decks",), (name, reading.name)
    assert checked_somewhere > 0


def test_engine_options_follow_the_declaration() -> None:
    """Listed reading -> the case's; unlisted value -> the first listed; unlisted option -> the default."""
    case = {"edition": "flip7", "options": {"tie": "shared-win", "stay_requires": "number-card"}}
    impl = _declaring("flip7", "tie", ["another-round"])
    impl["editions"]["flip7"]["options"].pop("stay_requires")
    assert engine_options(impl, case) == {}
    impl = _declaring("flip7", "tie", ["another-round", "shared-win"])
    assert engine_options(impl, case) == {"tie": "shared-win", "stay_requires": "number-card"}


def test_derive_expect_keeps_what_holds() -> None:
    """Keys that still hold are kept as written; others take the reference's values."""
    observed = {"events": [{"type": "busted", "seat": 0}], "lines": {"0": [], "1": ["5"]}, "round": 2}
    expect = {"events_include": [{"type": "busted"}], "lines": {1: ["6"]}, "round": 1}
    assert derive_expect(expect, observed) == {"events_include": [{"type": "busted"}], "lines": {1: ["5"]}, "round": 2}


def test_a_run_where_nothing_ran_does_not_pass(capsys: pytest.CaptureFixture[str]) -> None:
    """Every case skipped: coverage 0, exit 1; --min-coverage gates a partial run."""
    code = main(
        ["conformance", "run", "--engine", f"{sys.executable} {WRONG} flip7-only", "--edition", "vengeance", "--rule", "V-080"]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "no case ran" in out and "coverage: 0 of " in out
    argv = ["conformance", "run", "--engine", f"{sys.executable} {WRONG} flip7-only", "--case", "F7-C0001", "--case", "V-C0001"]
    assert main([*argv, "--min-coverage", "40"]) == 0
    out = capsys.readouterr().out
    assert "coverage: 1 of 2 cases run (50.0%; flip7 1/1, vengeance 0/1)" in out
    assert main([*argv, "--min-coverage", "60"]) == 1
    assert "below --min-coverage 60%" in capsys.readouterr().out


def test_report_header_and_blame_lines(tmp_path: Path) -> None:
    """The report names the suite and protocol versions; a failure line carries its blame and expectation."""
    report = tmp_path / "r.jsonl"
    cases = ["--case", "F7-C0707", "--case", "F7-C0001"]
    assert (
        main(["conformance", "run", "--engine", f"{sys.executable} {WRONG} resolve-after-bust", *cases, "--report", str(report)])
        == 1
    )
    header, *lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert header["suite"] and header["protocol"] == 1 and header["implementation"]["name"] == "wrong-resolve-after-bust"
    failed = next(line for line in lines if line["case"] == "F7-C0707")
    assert failed["status"] == "fail" and failed["blame"][0] == "F7-073"
    assert failed["expected"]["outcome"]


def test_protocol_v2_capabilities() -> None:
    """players, positions: false, events and auto_resolves_forced_choices change what is sent and compared."""
    from flip7ref.checking.harness import needs_position, supports

    cases = load_cases()
    impl = {**implementation(2), "players": [2, 4], "positions": False}
    for case in cases:
        reason = supports(impl, case)
        setup = case.get("setup") or {}
        if setup and not 2 <= setup["players"] <= 4:
            assert reason is not None and "players" in reason
        elif setup and needs_position(case):
            assert reason is not None and "mid-round positions" in reason
        else:
            assert reason is None, case["id"]
    assert any(not needs_position(c) for c in cases if c.get("setup"))  # fresh-round cases still run
    forced = 0
    for case in cases:
        prepared = prepare(case, implementation())
        assert isinstance(prepared, Prepared)
        if any(len(step) == 1 for step in prepared.legal):
            forced += 1
            sent = prepared.request(auto_resolve=True)
            assert len(sent["actions"]) == sum(1 for step in prepared.legal if len(step) != 1)
            assert len(sent["actors"]) == len(sent["actions"])
        observed = dict(prepared.run.observed)
        if observed.get("events"):
            only = [e for e in observed["events"] if e["type"] in ("busted", "stayed")]
            assert verdict(prepared, {**observed, "events": only}, events=["busted", "stayed"]).status == "pass"
    assert forced > 0


@pytest.mark.rules("F7-060", "F7-062")
def test_an_events_difference_under_the_events_capability_blames_the_compared_event() -> None:
    """An engine declaring only ``frozen`` events (protocol v2 ``events``) that reports the wrong
    Freeze: the difference is ``events[0]`` of the filtered list, which is the reference's
    fourth event (after round_started, dealt, target_chosen), so the blame is Freeze's rules,
    not those of round_started."""
    (case,) = [c for c in load_cases() if c["id"] == "F7-C0202"]
    prepared = prepare(case, implementation())
    assert isinstance(prepared, Prepared)
    observed = dict(prepared.run.observed)
    assert [e["type"] for e in observed["events"]][:4] == ["round_started", "dealt", "target_chosen", "frozen"]
    frozen = [{**e, "seat": 1 - e["seat"]} for e in observed["events"] if e["type"] == "frozen"]
    result = verdict(prepared, {**observed, "events": frozen}, events=["frozen"])
    assert result.status == "fail"
    assert result.message.startswith("events[0]")
    assert result.blame == ("F7-060", "F7-062")
