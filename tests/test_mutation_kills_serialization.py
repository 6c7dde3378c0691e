"""Tests written against mutants of State.to_dict / State.from_dict that survived a mutmut run.

Round trips of positions holding every kind of pending work (each frame type,
set-aside cards, a Brutal Mode Flip 7 choice), the history a state carries
through serialization, and the exact messages with which malformed data is
refused.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

import pytest

from flip7ref import Game, SerializationError, State
from flip7ref.core.state import STATE_FORMAT
from tests.helpers import flip


def _resolve_under_forced_draw() -> State:
    """Flip 7: Bea's Flip Three set two actions aside; she gave the Flip Three to Ada (now drawing), the Freeze waits."""
    g = Game("flip7", 3)
    s = g.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, draw=["flip_three", "flip_three", "freeze", "5", "6"])
    s = flip(s.apply("hit")).apply("target 1")
    s = flip(s, 3).apply("target 0").apply("target 2")
    assert [f.name for f in s.frames] == ["resolve", "forced_draw"]
    return s


def _positions() -> dict[str, State]:
    """A state for each kind of pending work (and a few more), by name."""
    g = Game("flip7", 3)
    v = Game("vengeance", 3)
    brutal = Game("vengeance", 3, {"brutal": True})
    out: dict[str, State] = {}
    out["deal"] = g.new_initial_state(seed=4)
    s = g.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, draw=["flip_three", "flip_three", "freeze", "5", "6"])
    out["draw"] = s.apply("hit")
    s = flip(out["draw"])
    out["choose_target"] = s
    s = s.apply("target 1")
    out["forced_draw"] = s
    s = flip(s)
    out["forced_draw_set_aside"] = s
    s = flip(s, 2)
    out["assign"] = s
    out["assign_half"] = s.apply("target 0")
    out["resolve"] = _resolve_under_forced_draw()
    s = v.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, draw=["flip_four", "-2", "-4", "5", "6", "7"])
    out["in_order"] = flip(flip(s.apply("hit")).apply("target 1"), 4)
    s = v.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, draw=["steal"])
    out["choose_cards"] = flip(s.apply("hit")).apply("target 0")
    s = brutal.new_position(turn=0, lines={0: ["1", "2", "3", "4", "5", "6"], 1: ["9"], 2: ["10"]}, draw=["7"])
    out["flip7_choice"] = flip(s.apply("hit"))
    s = g.new_position(turn=0, lines={0: ["1"], 1: ["2", "x2"], 2: ["3"]}, kept={1: ["second_chance"]}, statuses={2: "stayed"})
    out["statuses"] = s.apply("stay")
    s = g.new_position(turn=0, lines={0: ["5"], 1: ["2"], 2: ["3"]}, statuses={1: "frozen"}, kept={1: ["freeze"]}, draw=["5"])
    out["busted"] = flip(s.apply("hit"))
    return out


POSITIONS = _positions()


def test_the_positions_hold_every_kind_of_pending_work() -> None:
    """The fixtures below reach each frame type (so the round trips cover them all)."""
    names = {f.name for s in POSITIONS.values() for f in s.frames}
    kinds = ("deal", "draw", "forced_draw", "choose_target", "assign", "resolve", "in_order", "choose_cards", "flip7_choice")
    assert names == set(kinds)
    assert POSITIONS["flip7_choice"].flip7 == 0
    assert POSITIONS["in_order"].frames[-1].name == "choose_target"  # a modifier given away (V-050)
    assert [p.status.value for p in POSITIONS["busted"].players] == ["busted", "frozen", "active"]


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_round_trip_keeps_every_field(name: str) -> None:
    """from_dict(to_dict()) gives an equal state, with and without the log, through JSON."""
    s = POSITIONS[name]
    for log in (False, True):
        data = json.loads(json.dumps(s.to_dict(log=log)))
        t = State.from_dict(data)
        assert t == s
        assert t.frames == s.frames and t.players == s.players and t.flip7 == s.flip7
        assert t.round_over is False and s.round_over is False
        assert t.to_dict(log=log) == data
        assert t.cards_in_play() == s.cards_in_play() == Counter(s.game.deck)
        assert t.legal_action_strings() == s.legal_action_strings()
        assert t.pending() == s.pending()


def test_resolve_frame_serializes_its_items_by_card_id() -> None:
    """A Resolve frame's items are [card id, target, chooser]; ForcedDraw and Assign cards are ids too."""
    data = POSITIONS["resolve"].to_dict(log=False)
    assert data["frames"] == [
        {"frame": "resolve", "items": [["freeze", 2, 1]]},
        {"frame": "forced_draw", "target": 0, "giver": 1, "card": "flip_three", "remaining": 3, "set_aside": []},
    ]
    assert POSITIONS["assign_half"].to_dict(log=False)["frames"] == [
        {"frame": "assign", "chooser": 1, "owner": 1, "cards": ["flip_three", "freeze"], "targets": [0]}
    ]
    assert POSITIONS["forced_draw_set_aside"].to_dict(log=False)["frames"][-1]["set_aside"] == ["flip_three"]
    assert POSITIONS["in_order"].to_dict(log=False)["frames"][0] == {"frame": "in_order", "chooser": 1, "cards": ["-4"]}


@pytest.mark.rules("V-082")
def test_flip7_choice_state_serializes_the_maker() -> None:
    """A pending Brutal Mode choice carries the Flip 7 maker in ``flip7``; from_dict keeps it."""
    s = POSITIONS["flip7_choice"]
    data = s.to_dict(log=False)
    assert data["flip7"] == 0 and data["bonus_to"] is None and data["round_over"] is False
    t = State.from_dict(data)
    assert t.flip7 == 0
    assert t.apply("target 1").round_scores() == s.apply("target 1").round_scores() == (28, 9 - 15, 10)


def test_bonus_to_and_round_over_are_read_back() -> None:
    """The fields ``bonus_to`` and ``round_over`` survive a round trip; absent ones read as None and False."""
    data = POSITIONS["flip7_choice"].to_dict(log=False)
    data["bonus_to"] = 1
    data["round_over"] = True
    t = State.from_dict(data)
    assert t.bonus_to == 1 and t.round_over is True
    assert t.to_dict(log=False)["bonus_to"] == 1 and t.to_dict(log=False)["round_over"] is True
    del data["bonus_to"], data["round_over"]
    t = State.from_dict(data)
    assert t.bonus_to is None and t.round_over is False and t.flip7 == POSITIONS["flip7_choice"].flip7
    del data["flip7"]  # a line holding a Flip 7 exists only while that Flip 7 ends the round (F7-050)
    with pytest.raises(SerializationError, match=r"^lines\[\d\]: a Flip 7 ends the round at once"):
        State.from_dict(data)


def test_history_and_start_survive_serialization() -> None:
    """The log and the initial state travel with the data; the start is stored without its own log."""
    start = Game("flip7", 3).new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, draw=["7", "8"])
    s = flip(flip(start.apply("hit")).apply("hit"))
    assert s.initial_state() is start
    assert start.initial_state() is start
    data = s.to_dict()
    assert data["start"] == start.to_dict(log=False)
    assert "log" not in data["start"]
    t = State.from_dict(data)
    assert t.history() == s.history() == ["hit", "chance 7", "hit", "chance 8"]
    assert t.events() == s.events()
    assert t.initial_state() == start and t.initial_state() != t
    assert t.initial_state().history() == []
    assert [x.to_dict(log=False) for x in t.replay()] == [x.to_dict(log=False) for x in s.replay()]


def test_from_dict_uses_the_game_it_is_given() -> None:
    """from_dict(data, game) attaches that very game, to the state and to its start."""
    s = POSITIONS["statuses"]
    g = Game("flip7", 3)
    t = State.from_dict(s.to_dict(), g)
    assert t.game is g
    assert t.initial_state().game is g


def test_a_state_without_log_is_its_own_start() -> None:
    """Loaded without a log, a state has no history, no last events and starts from itself."""
    s = POSITIONS["forced_draw"]
    t = State.from_dict(s.to_dict(log=False))
    assert t.initial_state() is t
    assert t.last_events() == ()
    assert t.history() == [] and t.events() == []


# --------------------------------------------------------------------------- malformed data


def _data(name: str = "statuses") -> dict[str, Any]:
    return copy.deepcopy(POSITIONS[name].to_dict(log=False))


def _refused(data: Any, game: Any = None) -> str:
    with pytest.raises(SerializationError) as info:
        State.from_dict(data, game)
    return str(info.value)


def test_refuses_data_that_is_not_a_state() -> None:
    """Not a mapping, not a game, a wrong format: each named."""
    assert _refused([1, 2]) == "state data: expected a JSON object (a mapping), got list"
    assert _refused(_data(), "flip7") == "game: expected a flip7ref.Game, got str"
    data = _data()
    data["format"] = 99
    assert _refused(data) == f"state data: field 'format' must be {STATE_FORMAT}, got 99"
    data["format"] = True
    assert _refused(data) == f"state data: field 'format' must be {STATE_FORMAT}, got True"
    data = _data()
    data["edition"] = "nope"
    assert _refused(data) == (
        "state data: edition: expected one of flip7, vengeance (a table file is used only when the caller "
        "passes its game), got 'nope'"
    )


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("dealer", "0", "state data: field 'dealer' has the wrong type (str)"),
        ("dealer", True, "state data: field 'dealer' has the wrong type (bool)"),
        ("turn", 1.0, "state data: field 'turn' has the wrong type (float)"),
        ("draw", "7", "state data: field 'draw' has the wrong type (str)"),
        ("shuffles", None, "state data: field 'shuffles' has the wrong type (NoneType)"),
    ],
)
def test_refuses_fields_of_the_wrong_type(field: str, value: Any, message: str) -> None:
    data = _data()
    data[field] = value
    assert _refused(data) == message


def test_refuses_missing_and_malformed_entries() -> None:
    """A missing field, a missing seat key, a seat list of the wrong length, an unknown frame."""
    data = _data()
    del data["draw"]
    assert _refused(data) == "state data: missing field 'draw'"
    data = _data()
    data["seats"] = data["seats"][:2]
    assert _refused(data) == "state data: field 'seats' has 2 entries, expected 3"
    data = _data()
    del data["seats"][0]["status"]
    assert _refused(data) == "state data: seats/0/status: missing"
    for value, got in ((5, "5"), (None, "None"), ("12", "'12'"), ({"a": 1}, "{'a': 1}")):
        data = _data()
        data["seats"][1]["line"] = value  # a string was read letter by letter: "12" became the line 1, 2
        assert _refused(data) == f"state data: seats/1/line: expected a list of card ids, got {got}"
        data = _data()
        data["seats"][2]["kept"] = value
        assert _refused(data) == f"state data: seats/2/kept: expected a list of card ids, got {got}"
    data = _data()
    data["seats"][0] = "seat"
    assert _refused(data) == "state data: seats/0: expected an object, got 'seat'"
    data = _data()
    data["frames"] = [{"frame": "bogus"}]
    assert _refused(data) == "state data: frames/0/frame: unknown frame 'bogus'"
    data["frames"] = [{"frame": ["draw"]}]
    assert _refused(data) == "state data: frames/0/frame: unknown frame ['draw']"
    data["frames"] = ["draw"]
    assert _refused(data) == "state data: frames/0: expected an object, got 'draw'"
    data["frames"] = [{}]
    assert _refused(data) == "state data: frames/0/frame: missing"


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("statuses", "seats/1/line"),
        ("statuses", "seats/1/kept"),
        ("statuses", "draw"),
        ("busted", "discard"),
        ("forced_draw", "frames/0/card"),
        ("forced_draw_set_aside", "frames/0/set_aside"),
        ("assign", "frames/0/cards"),
        ("resolve", "frames/0/items"),
        ("in_order", "frames/0/cards"),
    ],
)
def test_unknown_cards_are_named_with_their_place(name: str, where: str) -> None:
    """An unknown card id is refused with the path of the zone or frame field holding it."""
    data = _data(name)
    if where.startswith("seats/"):
        _, seat, zone = where.split("/")
        data["seats"][int(seat)][zone][0] = "zz"
    elif where.startswith("frames/"):
        _, index, field = where.split("/")
        frame = data["frames"][int(index)]
        if field == "card":
            frame["card"] = "zz"
        elif field == "items":
            frame["items"][0][0] = "zz"
        else:
            frame[field][0] = "zz"
    else:
        data[where] = ["zz", *data[where]]
    assert _refused(data) == f"state data: {where}: unknown card 'zz'"


# --------------------------------------------------------------------------- positions no game reaches


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("dealer", 3, "state data: dealer: expected a seat 0..2"),
        ("turn", -1, "state data: turn: expected a seat 0..2"),
        ("totals", [0, 0], "state data: totals: expected 3 whole numbers"),
        ("totals", [0, 0, "1"], "state data: totals: expected 3 whole numbers"),
        ("totals", [0, 0, True], "state data: totals: expected 3 whole numbers"),
        ("last_scores", [1, None, 2], "state data: last_scores: expected 3 whole numbers, or none before a round has ended"),
        ("winners", [5], "state data: winners/flip7: expected seats 0..2"),
        ("flip7", 3, "state data: winners/flip7: expected seats 0..2"),
        ("round", 0, "state data: round/shuffles: expected a round from 1 and a non-negative shuffle count"),
        ("shuffles", -1, "state data: round/shuffles: expected a round from 1 and a non-negative shuffle count"),
    ],
)
def test_refuses_out_of_range_fields(field: str, value: Any, message: str) -> None:
    data = _data()
    data[field] = value
    assert _refused(data) == message


def test_last_scores_hold_one_value_per_seat_or_none() -> None:
    """``last_scores`` are the scores of the last round end, one per seat (a round end scores
    every seat), or none before the first: another length is no reachable position."""
    data = _data()
    for scores in ([], [4, 5, 0]):
        data["last_scores"] = scores
        assert State.from_dict(data).last_scores == tuple(scores)
    for scores in ([4, 5], [7], [1, 2, 3, 4]):
        data["last_scores"] = scores
        assert _refused(data) == "state data: last_scores: expected 3 whole numbers, or none before a round has ended"


@pytest.mark.parametrize(
    ("name", "field"),
    [
        ("draw", "seat"),
        ("forced_draw", "target"),
        ("forced_draw", "giver"),
        ("choose_target", "chooser"),
        ("assign", "chooser"),
        ("assign", "owner"),
        ("choose_cards", "chooser"),
        ("choose_cards", "resolver"),
        ("flip7_choice", "seat"),
    ],
)
def test_refuses_frames_naming_a_seat_out_of_range(name: str, field: str) -> None:
    data = _data(name)
    data["frames"][-1][field] = 9
    index = len(data["frames"]) - 1
    assert _refused(data) == f"state data: frames/{index}/{field}: expected a seat 0..2"


def test_refuses_frames_with_impossible_contents() -> None:
    """A target choice among seats out of range, a forced draw or target choice of a number card, a bare Deal on top."""
    data = _data("choose_target")
    data["frames"][0]["allowed"] = [0, 9]
    assert _refused(data) == "state data: frames/0/allowed: expected seats 0..2"
    data = _data("forced_draw")
    data["frames"][0]["card"] = "5"
    assert _refused(data) == "state data: frames/0/card: expected an action card"
    data = _data("choose_target")
    data["frames"][0]["card"] = "5"
    assert _refused(data) == "state data: frames/0/card: expected an action card"
    data = _data("statuses")
    data["frames"] = [{"frame": "deal", "position": 0}]
    assert _refused(data) == "state data: frames: expected a decision or a draw on top of the pending-work stack"
