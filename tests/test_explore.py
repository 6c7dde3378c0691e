"""The dispute explorer and the step-by-step explanations (``flip7ref dispute``, ``flip7ref explain``)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml

from flip7ref import Game, OptionError, SpecError, edition_ids, load_edition
from flip7ref.checking.conformance import load_cases
from flip7ref.cli import main
from flip7ref.core.spec import load_edition_file, spec_dir
from flip7ref.explore import attached_cases, disputes, event_rules, find_case, find_dispute, play_readings, run_case, walk
from flip7ref.play.games import play
from flip7ref.play.strategies import parse_strategy


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables are printed wide enough that no cell value wraps."""
    monkeypatch.setenv("COLUMNS", "300")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- dispute


def test_dispute_lists_both_editions(capsys: pytest.CaptureFixture[str]) -> None:
    """Without an id, every dispute of both tables is listed with its status and option."""
    code, out, _ = run(capsys, "dispute")
    assert code == 0
    assert "D-F7-10" in out and "D-V-03" in out
    row = next(line for line in out.splitlines() if "D-F7-10" in line)
    assert "option" in row and "flip_three_bust" in row
    row = next(line for line in out.splitlines() if "D-V-03" in line)
    assert "lucky13_flip7" in row


def test_dispute_list_by_edition(capsys: pytest.CaptureFixture[str]) -> None:
    """--edition restricts the list to one table."""
    code, out, _ = run(capsys, "dispute", "--edition", "vengeance")
    assert code == 0
    assert "D-V-22" in out and "D-F7-" not in out


@pytest.mark.rules("F7-073", "F7-131")
def test_flip_three_bust_readings_give_different_outcomes() -> None:
    """D-F7-10: the same case, played under discard and resolve, ends differently."""
    dispute = find_dispute("D-F7-10")
    assert dispute.option == "flip_three_bust"
    assert [r.value for r in dispute.readings] == ["discard", "resolve", None]  # keep-flipping is not modelled
    cases = attached_cases(dispute)
    assert {"F7-C1019", "F7-C1020", "F7-C1021"} <= {c["id"] for c in cases}
    case = next(c for c in cases if c["id"] == "F7-C1019")
    runs = {r.name: run for r, run in play_readings(dispute, case)}
    assert set(runs) == {"discard", "resolve"}
    discard, resolve = runs["discard"].observed, runs["resolve"].observed
    assert discard["next"] == {"player": 1, "legal": ["hit", "stay"]}
    assert resolve["next"] == {"player": 0, "legal": ["target 1", "target 2"]}
    assert {"type": "discarded", "card": "freeze", "seat": 0, "reason": "target busted"} in discard["events"]
    assert not any(e["type"] == "discarded" for e in resolve["events"])
    assert runs["discard"].diffs == ()  # the case is written for discard
    assert runs["resolve"].diffs  # ... and does not hold under resolve


@pytest.mark.rules("F7-073", "F7-131")
def test_dispute_command_shows_outcomes_side_by_side(capsys: pytest.CaptureFixture[str]) -> None:
    """`flip7ref dispute D-F7-10` prints the readings, then each case's outcome per reading."""
    code, out, _ = run(capsys, "dispute", "D-F7-10")
    assert code == 0
    assert "When the target of a Flip Three busts" in out
    assert "discard (default)  [flip_three_bust=discard]" in out
    assert "keep-flipping  [not modelled: not played]" in out
    assert "flip_three_bust=keep-flipping" not in out
    section = out[out.index("F7-C1019:") : out.index("F7-C1020:")]
    row = next(line for line in section.splitlines() if "next" in line)
    assert row.index("seat 1: hit, stay") < row.index("seat 0: target 1, target 2")  # discard column, then resolve
    assert "Freeze! is discarded (seat 0): target busted" in section
    assert "F7-C1019: the readings differ in next, events." in out
    # F7-C1021 is written for resolve: under discard its last action is no longer legal
    section = out[out.index("F7-C1021:") :]
    row = next(line for line in section.splitlines() if "statuses" in line)
    assert row.index("0 busted, 1 active, 2 active") < row.index("0 busted, 1 active, 2 frozen")
    assert "before action 3 (target 2)" in section


@pytest.mark.rules("V-022", "V-036")
def test_vengeance_dispute_played_under_both_readings(capsys: pytest.CaptureFixture[str]) -> None:
    """D-V-03 (lucky13_flip7) plays its cases under twice and once."""
    code, out, _ = run(capsys, "dispute", "d-v-03")
    assert code == 0
    assert "lucky13_flip7=twice" in out and "lucky13_flip7=once" in out
    assert "the readings differ in" in out


@pytest.mark.rules("F7-091", "F7-100")
def test_settled_dispute_prints_its_note(capsys: pytest.CaptureFixture[str]) -> None:
    """A dispute with no option says it is settled, with its note, and plays nothing."""
    code, out, _ = run(capsys, "dispute", "D-F7-02")
    assert code == 0
    note = load_edition("flip7").disputes["D-F7-02"]["note"]
    assert f"settled: {note}" in out
    assert "follows reading a" in out
    assert "differ in" not in out
    code, out, _ = run(capsys, "dispute", "D-F7-19")
    assert code == 0
    assert "no-play-change: Nothing in play changes under b" in out
    assert "Its readings play the same game" in out


@pytest.mark.rules("F7-034", "F7-122", "V-038", "V-020", "V-048", "V-080")
def test_no_dispute_whose_readings_change_play_is_left_unmodelled() -> None:
    """Issue 14: every dispute is an option, settled, or plays the same game under each
    reading; none is left not-modelled."""

    found = disputes(None)
    assert found
    assert [d.id for d in found if d.status == "not-modelled"] == []
    for d in found:
        if d.status == "no-play-change":
            assert d.option is None and d.note


def test_unknown_dispute_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown id (or one of another edition) is a user error: one line, exit status 2."""
    for argv in (["dispute", "D-F7-99"], ["dispute", "D-F7-10", "--edition", "vengeance"]):
        code, out, err = run(capsys, *argv)
        assert code == 2
        assert out == ""
        assert err.startswith("flip7ref: error: unknown dispute") and err.count("\n") == 1


def test_unknown_dispute_names_the_lowest_and_highest_ids() -> None:
    """The message's ranges run from each edition's lowest id to its highest by number,
    whatever order the table lists them in (D-F7-30 and D-F7-31 were missed: the last
    listed was D-F7-29)."""
    with pytest.raises(OptionError) as err:
        find_dispute("D-F7-99")
    ids = {e: sorted((d.id for d in disputes(e)), key=lambda i: int(i.rsplit("-", 1)[1])) for e in ("flip7", "vengeance")}
    expected = f"{ids['flip7'][0]} … {ids['flip7'][-1]}; {ids['vengeance'][0]} … {ids['vengeance'][-1]}"
    assert expected in str(err.value)


# --------------------------------------------------------------------------- explain


@pytest.mark.rules("F7-040", "F7-041")
def test_explain_bust_case_names_the_bust_rule(capsys: pytest.CaptureFixture[str]) -> None:
    """`explain --case` on a bust case names F7-040 on the step where the player busts."""
    code, out, _ = run(capsys, "explain", "--case", "F7-C0401")
    assert code == 0
    bust = next(line for line in out.splitlines() if "busts on" in line)
    assert "F7-040" in bust
    assert "F7-040  Drawing a number you already have is a bust" in out  # the legend quotes the rule
    assert "The case's expected outcome holds." in out


@pytest.mark.rules("F7-080", "F7-081")
def test_explain_second_chance_step(capsys: pytest.CaptureFixture[str]) -> None:
    """ "Why did I not bust?": the Second Chance step cites F7-080."""
    code, out, _ = run(capsys, "explain", "--case", "F7-C0100")
    assert code == 0
    assert "step   1  seat 0 is offered Hit or Stay and chooses hit (legal: hit, stay)" in out
    line = next(line for line in out.splitlines() if "uses Second Chance!" in line)
    assert "[F7-080, F7-081]" in line
    assert "Now: seat 1 decides (hit, stay)." in out


@pytest.mark.rules("F7-100", "F7-091")
def test_explain_scoring_case(capsys: pytest.CaptureFixture[str]) -> None:
    """A scoring case is explained step by step through the scoring pipeline."""
    code, out, _ = run(capsys, "explain", "--case", "F7-C0002")
    assert code == 0
    assert "multiply             72  [F7-091]" in out
    assert "score 72" in out


@pytest.mark.rules("V-033")
def test_explain_vengeance_names_unlucky_seven(capsys: pytest.CaptureFixture[str]) -> None:
    """A line wiped by Unlucky 7 cites V-033; names follow --lang."""
    cases = [c for c in load_cases() if c["edition"] == "vengeance" and c["kind"] not in ("scoring", "perft")]
    case = next(c for c in cases if "V-033" in c["rules"])
    code, out, _ = run(capsys, "explain", "--case", case["id"], "--lang", "nl")
    assert code == 0
    wiped = [line for line in out.splitlines() if "wordt leeggeveegd" in line]  # the table's Dutch words
    assert wiped and all("V-033" in line for line in wiped)


@pytest.mark.rules("F7-080", "F7-081")
@pytest.mark.parametrize(
    ("lang", "lines"),
    [
        ("nl", ["step   1  stoel 0: Nog één (Nog één of Stoppen)", "step   2  kaart gedraaid: 8",
                "           stoel 0 gebruikt Tweede kans tegen een tweede 8  [F7-080, F7-081]", "Genoemde regels:"]),
        ("de", ["step   1  Platz 0: Weitermachen (Weitermachen oder Aufhören)", "step   2  Karte aufgedeckt: 8",
                "           Platz 0 nutzt Zweite Chance gegen eine zweite 8  [F7-080, F7-081]", "Genannte Regeln:"]),
    ],
)  # fmt: skip
def test_explain_lang_gives_events_decisions_and_rules_in_the_tables_words(
    capsys: pytest.CaptureFixture[str], lang: str, lines: list[str]
) -> None:
    """``explain --lang`` uses the i18n texts: the table's event and decision words, the
    rule texts of spec/i18n; the English rule text is not printed."""
    from flip7ref.core.i18n import rule_text

    code, out, _ = run(capsys, "explain", "--case", "F7-C0100", "--lang", lang)
    assert code == 0
    got = out.splitlines()
    for line in lines:
        assert line in got, line
    edition = load_edition("flip7")
    assert f"  F7-080  {rule_text(edition, 'F7-080', lang)}" in got
    assert rule_text(edition, "F7-080", lang) != edition.rules["F7-080"].text
    assert edition.rules["F7-080"].text not in out


def test_explain_unknown_case_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown case id is a user error."""
    code, out, err = run(capsys, "explain", "--case", "F7-C9999")
    assert code == 2 and out == ""
    assert err.startswith("flip7ref: error: unknown case") and err.count("\n") == 1


@pytest.mark.rules("F7-030", "F7-120")
def test_explain_transcript_from_trace(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`explain --transcript` walks a transcript written by `trace --transcript` to the winner."""
    code, out, _ = run(capsys, "trace", "--players", "3", "--seed", "5", "--transcript")
    assert code == 0
    path = tmp_path / "game.json"
    path.write_text(out, encoding="utf-8")
    code, out, _ = run(capsys, "explain", "--transcript", str(path))
    assert code == 0
    data = json.loads(path.read_text(encoding="utf-8"))
    assert f"step {len(data['steps']):>3}" in out
    assert "hits and gets" in out and "[F7-030, F7-031, F7-035]" in out
    assert "Now: the game is over" in out
    assert next(line for line in out.splitlines() if "wins after" in line).endswith("[F7-120]")


def test_explain_transcript_divergence(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A transcript the reference disagrees with is explained up to the divergence; exit 1."""
    code, out, _ = run(capsys, "trace", "--players", "3", "--seed", "5", "--transcript")
    data = json.loads(out)
    data["steps"] = [{"seat": 0, "action": "hit"}, *data["steps"]]  # a decision before the deal's first card
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, _ = run(capsys, "explain", "--transcript", str(path))
    assert code == 1
    assert "The reference disagrees at step 1:" in out


# --------------------------------------------------------------------------- the events map


def _games(edition: str) -> list[tuple[int, dict[str, str]]]:
    """Player counts and option sets that reach the rarer events of an edition."""
    if edition == "flip7":
        return [
            (3, {}),
            (5, {}),
            (4, {"flip_three_bust": "resolve", "second_chance_in_flip_three": "set-aside"}),
            (2, {"first_second_chance": "may-give", "tie": "shared-win"}),
        ]
    return [(3, {}), (5, {}), (4, {"brutal": "true", "flip_four_cards": "immediate"}), (2, {"stayed_targetable": "no"})]


@pytest.mark.parametrize("edition", edition_ids())
def test_every_emitted_event_type_has_rules(edition: str) -> None:
    """Seeded random games and the whole conformance suite emit only event types that the
    edition's `events:` map covers, and every event gets at least one rule id."""
    table = load_edition(edition)
    seen: set[str] = set()
    strategies = [parse_strategy("random")]
    for players, options in _games(edition):
        game = Game(edition, players, options)
        for seed in range(6):
            final = play(game.new_initial_state(seed=f"explore:{seed}"), strategies, random.Random(seed))
            for event in final.events():
                seen.add(event.type)
                assert event_rules(event, table), event
    for case in load_cases():
        if case["edition"] != edition or case["kind"] == "scoring":
            continue
        for state in run_case(case).states[-1:]:
            for event in state.events():
                seen.add(event.type)
                assert event_rules(event, table), (case["id"], event)
    assert {"dealt", "busted", "stayed", "round_scored", "game_won"} <= seen
    missing = sorted(seen - set(table.event_rules))
    assert not missing, f"event types of {edition} with no entry in its events map: {missing}"


def test_event_details_narrow_the_rules() -> None:
    """An entry TYPE/DETAIL wins over TYPE: a dealt card cites the deal, a hit or the forcing card."""
    case = {
        "id": "T-1", "title": "Flip Three on oneself, then a bust", "edition": "flip7", "rules": [], "source": "test",
        "kind": "transition", "actions": ["hit", "target 0"], "expect": {},
        "setup": {"players": 3, "dealer": 2, "lines": {0: ["5"], 1: ["6"], 2: ["7"]}, "draw": ["flip_three", "5", "9"]},
    }  # fmt: skip
    played = run_case(case)
    assert played.stopped is None
    steps = walk(played.states, played.moves)
    texts = {text: rules for step in steps for text, rules in step.events}
    assert texts["seat 0 hits and gets Flip Three!"] == ("F7-030", "F7-031", "F7-035")
    assert texts["seat 0 plays Flip Three! on seat 0"] == ("F7-072",)
    assert texts["seat 0 flips (Flip Three!) 5"] == ("F7-070",)
    assert texts["seat 0 busts on 5"] == ("F7-040", "F7-041", "F7-042")
    assert texts["seat 0's Flip Three! ends (bust)"] == ("F7-071", "F7-078")


def test_events_map_rejects_unknown_rule_ids(tmp_path: Path) -> None:
    """The events section may cite only rule ids of the catalogue."""
    data = yaml.safe_load((spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8"))
    data["events"]["busted"] = ["F7-999"]
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(SpecError) as info:
        load_edition_file(path)
    assert info.value.path == "/events/busted/0"


def test_find_case_is_case_insensitive() -> None:
    """Case ids are matched regardless of letter case."""
    assert find_case("f7-c0100")["id"] == "F7-C0100"
