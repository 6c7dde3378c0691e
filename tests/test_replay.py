"""Transcripts: the reference's games round-trip, and foreign games are checked step by step."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from flip7ref import Game, SpecError
from flip7ref.checking.replay import load_transcript, replay, transcript
from flip7ref.cli import main
from flip7ref.core.spec import validate
from flip7ref.play.games import play
from flip7ref.play.strategies import RandomStrategy, ThresholdStrategy


def _game_transcript(edition: str, seed: int) -> dict[str, Any]:
    game = Game(edition, 3)
    final = play(game.new_initial_state(seed=seed, dealer=1), [ThresholdStrategy(18), RandomStrategy()], random.Random(seed))
    data = transcript(final)
    validate(data, "transcript", "<memory>")
    return json.loads(json.dumps(data))


@pytest.mark.parametrize("edition", ["flip7", "vengeance"])
@pytest.mark.rules("F7-120", "V-073")
def test_reference_games_round_trip(edition: str) -> None:
    """A reference game's transcript replays to the same totals and winners."""
    for seed in range(3):
        data = _game_transcript(edition, seed)
        result = replay(data)
        assert result.agrees, result.message
        assert list(result.totals) == data["final"]["totals"]
        assert list(result.winners) == data["final"]["winners"]
        assert result.steps == len(data["steps"])


@pytest.mark.rules("F7-031")
def test_wrong_seat_is_the_first_divergence() -> None:
    """A decision by the wrong seat is reported at its step, with the seat expected."""
    data = _game_transcript("flip7", 0)
    index = next(i for i, s in enumerate(data["steps"]) if "action" in s and s["action"] in ("hit", "stay"))
    bad = copy.deepcopy(data)
    bad["steps"][index]["seat"] = (bad["steps"][index]["seat"] + 1) % 3
    result = replay(bad)
    assert not result.agrees and result.divergence == index
    assert f"it is seat {data['steps'][index]['seat']}'s decision" in result.message
    assert "F7-030" in result.rules


@pytest.mark.rules("F7-004")
def test_impossible_card_is_reported() -> None:
    """A thirteenth 12 (or a card when a decision is due) is a divergence naming the problem."""
    data = _game_transcript("flip7", 1)
    draws = [i for i, s in enumerate(data["steps"]) if "draw" in s]
    bad = copy.deepcopy(data)
    bad["steps"][draws[0]] = {"draw": "13"}
    assert replay(bad).message == (  # no such card, not "no copy is left in the draw pile"
        "unknown card '13' in edition flip7 (known cards: 0 1 2 3 4 5 6 7 8 9 10 11 12 +2 +4 +6 +8 +10 x2 freeze "
        "flip_three second_chance)"
    )
    bad = copy.deepcopy(data)  # a real card with no copy left: the pile's cards are listed
    bad["steps"][draws[0]] = {"draw": "0"}
    bad["steps"][draws[1]] = {"draw": "0"}
    result = replay(bad)
    assert result.divergence == draws[1]
    assert result.message.startswith("'0' cannot be drawn: no copy is left in the draw pile (left: 1 x1, ")
    bad = copy.deepcopy(data)
    first_action = next(i for i, s in enumerate(data["steps"]) if "action" in s)
    bad["steps"].insert(first_action, {"draw": data["steps"][draws[0]]["draw"]})
    result = replay(bad)
    assert result.divergence == first_action and "must decide first" in result.message


def test_illegal_action_and_final_mismatch() -> None:
    """An illegal decision names the legal ones; a different final score is reported at the end."""
    data = _game_transcript("flip7", 2)
    index = next(i for i, s in enumerate(data["steps"]) if s.get("action") == "hit")
    bad = copy.deepcopy(data)
    bad["steps"][index]["action"] = "target 7"
    result = replay(bad)
    assert result.divergence == index and "legal here" in result.message
    bad = copy.deepcopy(data)
    bad["final"]["totals"][0] += 5
    result = replay(bad)
    assert not result.agrees and result.divergence is None and "final totals" in result.message


def test_cli_trace_transcript_and_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """trace --transcript writes a file that replay accepts; a broken one exits 1; a malformed one exits 2."""
    assert main(["trace", "--players", "3", "--seed", "5", "--transcript"]) == 0
    path = tmp_path / "game.json"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.startswith("agrees: ")
    data = load_transcript(path)
    data["steps"] = data["steps"][:5] + data["steps"][6:]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    assert "diverges at step 6 (steps[5] of the transcript)" in capsys.readouterr().out
    path.write_text('{"format": 1, "edition": "flip7"}', encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    assert "required" in capsys.readouterr().err
    with pytest.raises(SpecError):
        load_transcript(tmp_path / "missing.json")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("totals", [0, 0], "at /totals: expected 3 values (one per seat), got 2"),
        ("dealer", 7, "at /dealer: expected a seat 0..2, got 7"),
        ("options", {"tie": "bogus"}, "at /options: option tie: unknown value 'bogus' (expected another-round, shared-win)"),
    ],
)
@pytest.mark.parametrize("command", [["replay"], ["explain", "--transcript"], ["explain", "--json", "--transcript"]])
def test_a_header_the_game_refuses_names_the_file_and_the_field(
    command: list[str], field: str, value: object, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue: a transcript whose totals, dealer or options the game refuses gave "flip7ref: error: totals:
    expected 3 values ..." without naming the file (the schema's own errors named it)."""
    data = _game_transcript("flip7", 2)
    data[field] = value
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main([*command, str(path)]) == 2
    assert capsys.readouterr().err == f"flip7ref: error: {path}, {message}\n"


def test_transcript_cut_short_with_final_scores() -> None:
    """A transcript that stops before the game ends, yet gives final scores, says so."""
    data = _game_transcript("flip7", 0)
    data["steps"] = data["steps"][:-3]
    result = replay(data)
    assert not result.agrees
    assert "ends before the game is over" in result.message
    del data["final"]
    assert replay(data).agrees


@pytest.mark.rules("F7-100", "F7-110")
def test_score_checkpoints_are_checked_when_present() -> None:
    """A transcript with per-round score checkpoints agrees; a wrong checkpoint is the divergence,
    blamed on the rules of the reference's round_scored event."""
    state = play(Game("flip7", 3).new_initial_state(seed=11), [ThresholdStrategy(18)], random.Random(11))
    data = json.loads(json.dumps(transcript(state, checkpoints=True)))
    validate(data, "transcript", "<memory>")
    points = [i for i, s in enumerate(data["steps"]) if "checkpoint" in s]
    assert len(points) == state.round or len(points) == state.round - 1
    assert replay(data).agrees
    bad = copy.deepcopy(data)
    bad["steps"][points[0]]["checkpoint"]["scores"][0] += 1
    result = replay(bad)
    assert not result.agrees and result.divergence == points[0]
    assert "checkpoint: the engine's round scores" in result.message
    assert "F7-100" in result.rules
    early = copy.deepcopy(data)
    early["steps"].insert(0, {"checkpoint": {"round": 1, "scores": [0, 0, 0]}})
    assert "has not finished a round" in replay(early).message


@pytest.mark.rules("F7-031")
def test_divergence_names_the_reference_event_and_the_explain_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """replay names the rules of the reference's event at the divergence and hints at explain --transcript."""
    data = _game_transcript("flip7", 2)
    index = next(i for i, s in enumerate(data["steps"]) if s.get("action") == "hit")
    data["steps"][index]["action"] = "target 7"
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert "rules of the reference's event there: F7-0" in out
    assert f"hint: flip7ref explain --transcript {path}" in out


@pytest.mark.parametrize(
    "step",
    [
        {"seat": -1, "action": "hit"},
        {"seat": True, "action": "hit"},
        {"seat": 0, "action": 3},
        {"draw": 5},
        {"draw": "5", "seat": 0},
        {"checkpoint": {"round": 0}},
        {"checkpoint": {"totals": [1, "x"]}},
        {"checkpoint": {"round": 2, "extra": 1}},
        {"bogus": 1},
        [],
        "hit",
    ],
)
def test_a_bad_step_gives_the_schema_s_own_error(step: object) -> None:
    """Transcript steps are checked one by one in plain Python, and only a step that fails is
    shown to jsonschema (a 10 MB transcript validates in a fraction of a second, not a minute):
    the error is exactly the one validating the whole transcript with jsonschema gives."""
    import jsonschema.exceptions

    from flip7ref.core import schema

    data = transcript(Game("flip7", 2).new_initial_state(seed=1).apply_chance("5"))
    data["steps"] = [*data["steps"], step, {"draw": "7"}]
    whole = schema.strict_validator()(schema.load_schema("transcript"))
    error = jsonschema.exceptions.best_match(whole.iter_errors(data))
    assert error is not None
    with pytest.raises(SpecError) as info:
        schema.validate(data, "transcript", "t.json")
    expected, found = schema._schema_expectation(error), schema.short_repr(error.instance)
    assert str(info.value) == f"t.json, at {schema.pointer(error.absolute_path)}: found {found}; expected {expected}"


def test_good_steps_pass_the_quick_check() -> None:
    """Every step a transcript of the reference writes (draws, decisions, checkpoints) passes
    the quick per-step check, so jsonschema never looks at a good step."""
    from flip7ref.core import schema

    state = Game("vengeance", 3).new_initial_state(seed=4)
    rng = random.Random(4)
    while not state.is_terminal():
        state = state.apply_chance(state.next_card()) if state.is_chance_node() else state.apply(
            rng.choice(state.legal_action_strings())
        )
    steps = transcript(state, checkpoints=True)["steps"]
    assert any("checkpoint" in s for s in steps) and any("seat" in s for s in steps) and any("draw" in s for s in steps)
    assert all(schema._plain_step(s) for s in steps)
