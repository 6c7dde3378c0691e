"""One definition of a reachable position (flip7ref.core.position, issue 14 item 5).

``Game.new_position`` and ``State.from_dict`` refuse the same positions with the
same messages; serialized data is also refused for fields only it can get
wrong (``round_over``, ``bonus_to``, the nesting, the ``edition`` field); and
every state a game reaches passes the checks.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flip7ref import CardError, Game, SerializationError, State
from flip7ref.core.position import MAX_DEPTH, PositionError
from flip7ref.core.spec import spec_dir

FLIP7 = Game("flip7", 3)
VENGEANCE = Game("vengeance", 3)
LUCKY_ONCE = Game("vengeance", 3, {"lucky13_flip7": "once"})
HOLD_TWO = "hold_limit: 1 "


def _as_data(game: Game, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Serialized data of an empty table (the deck out of the game) with the zones of
    ``kwargs`` (the arguments of new_position) written into it."""
    data = game.new_position(turn=0, draw=["1"], rest="out").to_dict(log=False)
    for seat in range(game.players):
        entry = data["seats"][seat]
        entry["line"] = list(kwargs.get("lines", {}).get(seat, ()))
        entry["kept"] = list(kwargs.get("kept", {}).get(seat, ()))
        entry["status"] = kwargs.get("statuses", {}).get(seat, "active")
    data["draw"] = list(kwargs.get("draw", ()))
    data["discard"] = list(kwargs.get("discard", ()))
    active = [seat for seat in range(game.players) if data["seats"][seat]["status"] == "active"]
    data["turn"] = active[0] if active else 0  # the offer goes to an active seat, as new_position settles it
    return data


def _refusals(game: Game, kwargs: dict[str, Any]) -> tuple[PositionError, PositionError]:
    with pytest.raises(PositionError) as built:
        game.new_position(rest="out", **kwargs)
    with pytest.raises(PositionError) as read:
        State.from_dict(json.loads(json.dumps(_as_data(game, kwargs))))
    return built.value, read.value


BAD_POSITIONS = [
    (FLIP7, {"lines": {1: ["5", "5"]}}, "lines[1]: number 5 twice in a line that has not busted", "F7-040"),
    (FLIP7, {"lines": {0: ["3", "freeze"]}}, "lines[0]: 'freeze' is an action card; put it in kept", "F7-062"),
    (FLIP7, {"lines": {0: ["x2", "flip_three"]}}, "lines[0]: 'flip_three' is an action card; put it in kept", "F7-078"),
    (
        FLIP7,
        {"lines": {2: ["0", "1", "2", "3", "4", "5", "6", "7"]}},
        "lines[2]: a Flip 7 ends the round at once; a position mid-round holds fewer numbers",
        "F7-050",
    ),
    (
        FLIP7,
        {"lines": {2: ["5", "6"]}, "statuses": {2: "busted"}},
        "lines[2]: a busted line holds the duplicate that busted it",
        "F7-040",
    ),
    (FLIP7, {"kept": {0: ["second_chance"] * 3}}, "kept[0]: at most 1 'second_chance' per player", "F7-082"),
    (FLIP7, {"kept": {1: ["flip_three"]}}, "kept[1]: 'flip_three' never stays in front of a player", "F7-078"),
    (FLIP7, {"draw": ["x2", "x2"]}, "draw: more copies of 'x2' than the deck holds", "F7-006"),
    (FLIP7, {"lines": {0: ["12"]}, "draw": ["12"] * 12}, "draw: more copies of '12' than the deck holds", "F7-004"),
    (FLIP7, {"lines": {0: ["1"], 1: ["1"]}}, "lines[1]: more copies of '1' than the deck holds", "F7-004"),
    (FLIP7, {"discard": ["freeze"] * 4}, "discard: more copies of 'freeze' than the deck holds", "F7-007"),
    (VENGEANCE, {"lines": {0: ["13", "13"]}}, "lines[0]: number 13 twice in a line that has not busted", "V-036"),
    (VENGEANCE, {"lines": {0: ["13", "lucky13", "13"]}}, "lines[0]: number 13 twice in a line that has not busted", "V-036"),
    (VENGEANCE, {"lines": {1: ["unlucky7", "7"]}}, "lines[1]: number 7 twice in a line that has not busted", "V-034"),
    (
        VENGEANCE,  # lucky13_flip7 twice (default): the pair counts as two of the seven
        {"lines": {1: ["13", "lucky13", "1", "2", "3", "4", "5"]}},
        "lines[1]: a Flip 7 ends the round at once; a position mid-round holds fewer numbers",
        "V-036",
    ),
    (
        VENGEANCE,
        {"lines": {2: ["1", "2"]}, "statuses": {2: "busted"}},
        "lines[2]: a busted line holds the duplicate that busted it",
        "F7-040",
    ),
]


@pytest.mark.rules("F7-004", "F7-006", "F7-007", "F7-040", "F7-050", "F7-062", "F7-078", "F7-082", "V-034", "V-036")
@pytest.mark.parametrize(("game", "kwargs", "message", "rule"), BAD_POSITIONS)
def test_new_position_and_from_dict_refuse_the_same_positions_alike(
    game: Game, kwargs: dict[str, Any], message: str, rule: str
) -> None:
    built, read = _refusals(game, kwargs)
    assert str(built) == str(read) == message
    assert isinstance(read, SerializationError) and isinstance(built, CardError)


@pytest.mark.rules("V-036", "V-033")
@pytest.mark.parametrize(
    ("game", "kwargs"),
    [
        (VENGEANCE, {"lines": {0: ["13", "lucky13"]}}),  # the Lucky 13 pair is a live line
        (VENGEANCE, {"lines": {0: ["lucky13", "13", "-2"]}}),
        (LUCKY_ONCE, {"lines": {1: ["13", "lucky13", "1", "2", "3", "4", "5"]}}),  # the pair counts once: six numbers
        (VENGEANCE, {"lines": {1: ["unlucky7", "3"]}}),
        (FLIP7, {"lines": {0: ["1", "2", "3", "4", "5", "6"]}, "kept": {0: ["second_chance"]}}),
        (FLIP7, {"lines": {0: ["5", "5"]}, "statuses": {0: "busted"}}),
    ],
)
def test_reachable_special_lines_are_accepted_both_ways(game: Game, kwargs: dict[str, Any]) -> None:
    state = game.new_position(rest="out", **kwargs)
    data = _as_data(game, kwargs)
    back = State.from_dict(data)
    assert [back.line(s) for s in range(game.players)] == [data["seats"][s]["line"] for s in range(game.players)]
    assert state.line(0) == list(kwargs["lines"].get(0, ()))


def _base() -> dict[str, Any]:
    return FLIP7.new_position(turn=0, lines={0: ["3"]}, draw=["5"]).to_dict()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("round_over", "no", "state data: round_over: expected true or false, got 'no'"),
        ("round_over", 0, "state data: round_over: expected true or false, got 0"),
        ("bonus_to", 3, "state data: bonus_to: expected a seat 0..2 or null, got 3"),
        ("bonus_to", -1, "state data: bonus_to: expected a seat 0..2 or null, got -1"),
        ("bonus_to", 1, "state data: bonus_to: expected null: only the Flip 7 maker's choice in Brutal Mode sets it (V-082)"),
        ("shuffle_seed", 7, "state data: shuffle_seed: expected a string or null, got 7"),
    ],
)
def test_from_dict_refuses_fields_only_data_gets_wrong(field: str, value: object, message: str) -> None:
    data = _base()
    data[field] = value
    with pytest.raises(PositionError) as info:
        State.from_dict(data)
    assert str(info.value) == message


@pytest.mark.parametrize("where", ["options", "seats", "draw", "log", "start", "bonus_to"])
def test_a_5000_deep_value_is_a_serialization_error(where: str) -> None:
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    data = _base()
    data[where] = deep
    with pytest.raises(SerializationError) as info:
        State.from_dict(data)
    assert str(info.value).startswith(f"state data: nested more than {MAX_DEPTH} levels deep (at /{where}/0/0/")


def test_a_state_with_its_log_and_start_is_well_within_the_depth_limit() -> None:
    s = FLIP7.new_initial_state(seed=3)
    for _ in range(12):
        s = s.apply_chance(s.next_card() or "") if s.is_chance_node() else s.apply(s.legal_actions()[0])
    assert State.from_dict(json.loads(json.dumps(s.to_dict()))) == s


def test_the_edition_field_never_opens_a_file(tmp_path: Path) -> None:
    """A path in the data is refused without being read: its first line is not echoed."""
    secret = tmp_path / "secret.yaml"
    secret.write_text("password: hunter2\n", encoding="utf-8")
    data = _base()
    data["edition"] = str(secret)
    with pytest.raises(SerializationError) as info:
        State.from_dict(data)
    assert "hunter2" not in str(info.value)
    assert str(info.value).startswith("state data: edition: expected one of flip7, vengeance (a table file is used only")
    data["edition"] = 7
    with pytest.raises(SerializationError, match=r"^state data: edition: expected an edition id \(flip7, vengeance\), got 7$"):
        State.from_dict(data)


def test_a_table_file_is_used_when_the_caller_passes_its_game(tmp_path: Path) -> None:
    table = tmp_path / "house.yaml"
    text = (spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8")
    table.write_text(text.replace(HOLD_TWO, "hold_limit: 2 "), encoding="utf-8")
    house = Game(str(table), 3)
    s = house.new_position(turn=0, lines={0: ["3"]}, kept={0: ["second_chance"] * 2})
    data = s.to_dict()
    assert State.from_dict(data, house) == s
    with pytest.raises(PositionError, match=r"^kept\[0\]: at most 1 'second_chance' per player$"):
        State.from_dict(data)  # without the game: the shipped flip7 table, whose limit is one
    with pytest.raises(SerializationError, match="the data is of edition 'flip7', the game given of 'vengeance'"):
        State.from_dict(data, Game("vengeance", 3))


@pytest.mark.parametrize(
    ("edition", "options"),
    [
        ("flip7", {}),
        ("flip7", {"flip_three_bust": "resolve", "second_chance_in_flip_three": "set-aside"}),
        ("flip7", {"empty_deck": "end-round", "first_second_chance": "may-give"}),
        ("vengeance", {}),
        ("vengeance", {"brutal": "true"}),
        ("vengeance", {"brutal": "true", "stayed_targetable": "no", "lucky13_flip7": "once"}),
    ],
)
def test_every_state_a_game_reaches_passes_the_checks(edition: str, options: dict[str, str]) -> None:
    """Random play (seeded) in both editions: every state's data reads back, to the same state."""
    checked = 0
    for players in (1, 3, 6):
        game = Game(edition, players, {**options, "target_score": 120})
        for seed in range(2):
            rng = random.Random(seed)
            s = game.new_initial_state(seed=seed)
            while not s.is_terminal() and checked < 2500:
                assert State.from_dict(json.loads(json.dumps(s.to_dict(log=False)))) == s
                checked += 1
                s = s.apply_chance(s.sample_chance(rng)) if s.is_chance_node() else s.apply(rng.choice(s.legal_actions()))
    assert checked > 400


# --------------------------------------------------------------------------- any zones: the same verdict both ways


@st.composite
def _zones(draw: st.DrawFn) -> tuple[Game, dict[str, Any]]:
    game = draw(st.sampled_from([FLIP7, VENGEANCE, LUCKY_ONCE]))
    cards = st.sampled_from(game.card_ids)
    seats = st.integers(0, game.players - 1)
    kwargs: dict[str, Any] = {
        "lines": draw(st.dictionaries(seats, st.lists(cards, max_size=8), max_size=3)),
        "kept": draw(st.dictionaries(seats, st.lists(cards, max_size=3), max_size=2)),
        "statuses": draw(st.dictionaries(seats, st.sampled_from(["active", "stayed", "frozen", "busted"]), max_size=3)),
        "draw": draw(st.lists(cards, max_size=6)),
        "discard": draw(st.lists(cards, max_size=6)),
    }
    return game, kwargs


@pytest.mark.rules("F7-040", "F7-050", "F7-082", "V-036")
@given(_zones())
def test_any_zones_get_the_same_verdict_from_new_position_and_from_dict(case: tuple[Game, dict[str, Any]]) -> None:
    """Whatever cards lie where, both constructors accept, or both refuse with the same message."""
    game, kwargs = case
    try:
        game.new_position(rest="out", **kwargs)
        built = None
    except PositionError as exc:
        built = str(exc)
    data = _as_data(game, kwargs)
    try:
        State.from_dict(data)
        read = None
    except PositionError as exc:
        read = str(exc)
    if all(seat["status"] != "active" for seat in data["seats"]):
        # nobody left to act: new_position ends the round (F7-110) or refuses the cards, a loaded
        # state is refused first for its turn (found by Hypothesis: no card anywhere, every seat
        # stayed: new_position said "cards: no card anywhere", from_dict the turn)
        turn = "state data: turn: expected an active seat"
        assert read is not None
        if built is None:
            assert read.startswith(turn)
        else:  # both refuse: for the same reason, or the loaded state for its turn first
            assert read == built or read.startswith(turn)
    else:
        assert built == read


def _forced_draw() -> dict[str, Any]:
    """Ann's Flip Three on Ben, three cards still to draw (a chance node inside the frame)."""
    s = FLIP7.new_position(turn=0, lines={0: ["3"], 1: ["4"], 2: ["5"]}, draw=["flip_three", "6", "7", "8"])
    s = s.apply("hit")
    s = s.apply_chance(s.next_card() or "").apply("target 1")
    return s.to_dict(log=False)


@pytest.mark.rules("F7-070")
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("x", "state data: frames/0/remaining: expected a whole number from 0, got 'x'"),
        (-1, "state data: frames/0/remaining: expected a whole number from 0, got -1"),
        (True, "state data: frames/0/remaining: expected a whole number from 0, got True"),
        (4, "state data: frames/0/remaining: expected at most 3 cards still to draw"),
    ],
)
def test_a_frame_field_of_the_wrong_type_or_beyond_the_card_is_refused(value: object, message: str) -> None:
    """A forced draw's cards still to draw: a whole number no larger than the card's count (Flip Three: 3)."""
    data = _forced_draw()
    assert data["frames"][0]["remaining"] == 3
    assert State.from_dict(data).is_chance_node()
    data["frames"][0]["remaining"] = value
    with pytest.raises(PositionError) as info:
        State.from_dict(data)
    assert str(info.value) == message


@pytest.mark.rules("F7-050", "V-082")
@pytest.mark.parametrize(("edition", "options"), [("flip7", {}), ("vengeance", {"brutal": "true"})])
def test_from_dict_refuses_a_flip7_maker_while_the_round_goes_on(edition: str, options: dict[str, str]) -> None:
    """A Flip 7 ends the round in the move that makes it (F7-050), or leaves its maker's Brutal
    Mode choice pending (V-082): no game reaches ``flip7`` set at a plain Hit-or-Stay offer.
    (Accepted before, such a position played differently in the Stay lane, where round 1 went
    on, and in the general path, which scored the round.)"""
    game = Game(edition, 3, options)
    data = game.new_position(turn=1, lines={0: ["5"], 1: ["3"], 2: ["7"]}, seed=None).to_dict(log=False)
    data["flip7"] = 0
    with pytest.raises(PositionError) as info:
        State.from_dict(data)
    assert str(info.value) == (
        "state data: flip7: expected null: a Flip 7 ends the round in the move that makes it (F7-050), unless its "
        "maker's Brutal Mode choice is pending (V-082)"
    )


@pytest.mark.rules("F7-050", "V-082")
def test_a_pending_brutal_mode_choice_keeps_its_flip7_maker_through_from_dict() -> None:
    """The one reachable position with ``flip7`` set: the maker's Brutal Mode choice on top;
    it reads back equal, and with another seat as the maker it is refused."""
    game = Game("vengeance", 3, {"brutal": "true"})
    s = game.new_initial_state(seed=0)
    rng = random.Random(0)
    for _ in range(20_000):
        if s.pending()[0] == "flip7_bonus" or s.is_terminal():
            break
        s = s.apply_chance(s.sample_chance(rng)) if s.is_chance_node() else s.apply(s.legal_actions()[0])
    assert s.pending()[0] == "flip7_bonus" and s.flip7 == s.current_player
    data = s.to_dict(log=False)
    assert State.from_dict(data) == s
    data["flip7"] = (s.flip7 + 1) % 3
    with pytest.raises(PositionError, match="flip7: expected null"):
        State.from_dict(data)


# --------------------------------------------------------------------------- serialized states no game reaches


def _played_to(game: Game, seed: int, wanted: Any) -> State:
    """The first state of a seeded game (first legal action each time) where ``wanted`` holds."""
    s = game.new_initial_state(seed=seed)
    while not wanted(s):
        assert not s.is_terminal(), "the game ended first"
        s = s.apply_chance(s.next_card()) if s.is_chance_node() else s.apply(s.legal_actions()[0])
    return s


def _refused_data(data: dict[str, Any]) -> str:
    with pytest.raises(PositionError) as info:
        State.from_dict(json.loads(json.dumps(data)))
    return str(info.value)


@pytest.mark.rules("F7-113", "F7-115")
def test_a_draw_with_an_empty_pile_is_refused() -> None:
    """A card to draw with nothing on the draw pile: settling reshuffles first or ends the
    draw, so no game reaches it (it loaded, and sample_chance raised IndexError)."""
    s = _played_to(FLIP7, 1, lambda s: s.is_chance_node() and s.pending() == ("chance", None) and s.round > 1)
    data = s.to_dict(log=False)
    data["discard"] += data["draw"]
    data["draw"] = []
    assert _refused_data(data) == (
        "state data: draw: expected a card: a draw with the draw pile empty is reshuffled first or ends (F7-113, F7-115)"
    )


@pytest.mark.rules("F7-060")
def test_a_decision_without_legal_actions_is_refused() -> None:
    """A target to choose among no seats: nobody could ever act (it loaded as a decision
    with no legal action, neither terminal nor a chance node)."""
    s = _played_to(FLIP7, 2, lambda s: s.pending()[0] == "play")
    data = s.to_dict(log=False)
    assert data["frames"][-1]["frame"] == "choose_target" and data["frames"][-1]["allowed"]
    data["frames"][-1]["allowed"] = []
    assert _refused_data(data) == "state data: frames: expected a decision with at least one legal action"


@pytest.mark.rules("F7-120", "F7-121")
def test_winners_are_those_of_a_game_over() -> None:
    """``winners`` must be the leaders `game_end` gives for the totals of an ended game, with
    the table cleared: a repeated seat, another seat, or winners in the middle of a round
    are refused; the real end of a game loads."""
    end = _played_to(FLIP7, 3, State.is_terminal)
    data = end.to_dict(log=False)
    assert State.from_dict(data) == end
    (winner,) = end.winners
    for winners in ([winner, winner], [(winner + 1) % 3]):
        data["winners"] = winners
        assert _refused_data(data) == f"state data: winners: expected [{winner}] for these totals (F7-120, F7-121)"
    data["totals"] = [0, 0, 0]
    data["winners"] = [winner]
    assert _refused_data(data) == "state data: winners: expected empty: these totals do not end the game (F7-120, F7-121)"
    middle = _played_to(FLIP7, 3, lambda s: s.round > 1 and s.pending()[0] == "offer")
    data = middle.to_dict(log=False)
    data["winners"] = [0]
    assert _refused_data(data).startswith("state data: winners: expected empty (no winner yet) while cards are in front")


@pytest.mark.rules("F7-030", "F7-110")
def test_an_offer_to_a_seat_that_is_not_active_is_refused() -> None:
    """With no work pending the turn is an offer, which goes to an active seat: a loaded state
    whose turn is a stayed seat offered it Hit and Stay (`new_position` moves the turn on)."""
    s = FLIP7.new_position(turn=0, lines={0: ["3"], 1: ["4"], 2: ["5"]}, seed=1)
    assert FLIP7.new_position(turn=1, lines={0: ["3"], 1: ["4"]}, statuses={1: "stayed"}, seed=1).current_player == 2
    data = s.to_dict(log=False)
    data["seats"][0]["status"] = "stayed"
    assert _refused_data(data).startswith("state data: turn: expected an active seat: with no work pending")


def test_a_card_list_of_a_frame_must_be_a_list() -> None:
    """A Flip Three's set-aside cards given as a string are refused, not read letter by letter."""
    data = _forced_draw()
    data["frames"][-1]["set_aside"] = "freeze"
    with pytest.raises(SerializationError, match=r"^state data: frames/0/set_aside: expected a list, got str$"):
        State.from_dict(data)


@pytest.mark.rules("F7-031")
def test_a_loaded_history_is_the_one_its_start_plays_to() -> None:
    """The moves of a loaded log, played from its ``start``, must be legal, emit its events
    and reach the state, so that ``replay()`` ends at it (a changed move loaded, and
    ``replay()[-1] == state`` was False); a log of moves needs its start."""
    s = _played_to(FLIP7, 5, lambda s: len(s.history()) >= 40)
    data = s.to_dict()
    back = State.from_dict(data)
    assert back == s and back.history() == s.history() and back.events() == s.events()
    assert back.replay()[-1] == back
    first_draw = next(i for i, entry in enumerate(data["log"]) if entry["move"].startswith("chance "))
    other = next(c for c in ("0", "1", "12") if f"chance {c}" != data["log"][first_draw]["move"])
    for change, message in (
        (lambda d: d["log"][first_draw].update(move=f"chance {other}"), f"state data: log/{first_draw}/events: not the events"),
        (lambda d: d["log"][3].update(events=[{"type": "made_up"}]), "state data: log/3/events: not the events"),
        (lambda d: d.pop("start"), "state data: start: expected the state the history starts from"),
        (lambda d: d["log"].pop(), "state data: log: its moves, played from 'start', reach another position"),
    ):
        changed = json.loads(json.dumps(data))
        change(changed)
        with pytest.raises(SerializationError) as info:
            State.from_dict(changed)
        assert str(info.value).startswith(message)
