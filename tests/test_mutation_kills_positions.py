"""Tests written against mutants of new_position / new_initial_state that survived a mutmut run.

The argument checks of both constructors with their exact messages, the deal
of a position that starts its round, the seeding of the rest of the deck, and
branches only a house-rule copy of the Flip 7 table reaches.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flip7ref import CardError, Game, OptionError, State
from flip7ref.core.position import PositionError
from flip7ref.core.spec import spec_dir
from tests.helpers import flip, of_type

G = Game("flip7", 3)


def _error(kind: type[Exception], build: Any, **kwargs: Any) -> str:
    with pytest.raises(kind) as info:
        build(**kwargs)
    assert type(info.value) is kind
    return str(info.value)


def _variant(tmp_path: Path, old: str, new: str, options: dict[str, Any] | None = None) -> Game:
    """A three-player game of a copy of the Flip 7 table with one text replaced (a house-rule variant)."""
    text = (spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path = tmp_path / "variant.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return Game(str(path), 3, options)


# --------------------------------------------------------------------------- new_position: arguments


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dealer": 3}, "dealer: expected a seat 0..2, got 3"),
        ({"turn": 5}, "turn: expected a seat 0..2, got 5"),
        ({"totals": [1, 2]}, "totals: expected 3 values (one per seat), got 2"),
        ({"totals": "x"}, "totals: expected a list of 3 whole numbers (points), got 'x'"),
        ({"seed": True}, "seed: expected a whole number or a string, got bool"),
        ({"seed": 1.5}, "seed: expected a whole number or a string, got float"),
        ({"round_number": 0}, "round_number: expected a whole number from 1, got 0"),
        ({"round_number": "2"}, "round_number: expected a whole number from 1, got '2'"),
        ({"round_number": True}, "round_number: expected a whole number from 1, got True"),
        ({"lines": "5"}, "lines: expected a mapping from seat numbers to card lists, or a list with one per seat"),
        ({"kept": 5}, "kept: expected a mapping from seat numbers to card lists, or a list with one per seat"),
        ({"statuses": "active"}, "statuses: expected a mapping from seat numbers to statuses, or a list with one per seat"),
        ({"lines": [[], [], [], ["5"]]}, "lines seat: expected a seat 0..2, got 3"),  # a list: one entry per seat
        ({"lines": {5: ["1"]}}, "lines seat: expected a seat 0..2, got 5"),
        ({"statuses": {-1: "stayed"}}, "statuses seat: expected a seat 0..2, got -1"),
        ({"statuses": {0: "sleeping"}}, "statuses[0]: expected one of active, stayed, frozen, busted"),
        ({"rest": "up"}, "rest: expected 'below', 'discard' or 'out', got 'up'"),
    ],
)
def test_new_position_option_errors(kwargs: dict[str, Any], message: str) -> None:
    assert _error(OptionError, G.new_position, **kwargs) == message


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"lines": {1: "5"}}, "lines[1]: expected a list of card names, got '5'"),
        ({"kept": {0: "second_chance"}}, "kept[0]: expected a list of card names, got 'second_chance'"),
        ({"draw": "5"}, "draw: expected a list of card names, got '5'"),
        ({"lines": ["5"]}, "lines[0]: expected a list of card names, got '5'"),  # a list of seats: seat 0's cards
        ({"discard": ("5", 22)}, "discard: expected card names (strings such as '7' or 'x2') or card codes 0..21, got 22"),
        ({"discard": ("5", True)}, "discard: expected card names (strings such as '7' or 'x2') or card codes 0..21, got True"),
        ({"draw": ["x2", "x2"]}, "draw: more copies of 'x2' than the deck holds"),
        ({"discard": ["x2", "x2"]}, "discard: more copies of 'x2' than the deck holds"),
        ({"lines": {0: ["x2"]}, "draw": ["x2"]}, "draw: more copies of 'x2' than the deck holds"),
        ({"lines": {0: ["x2"], 1: ["x2"]}}, "lines[1]: more copies of 'x2' than the deck holds"),
        (
            {"kept": {0: ["second_chance"], 1: ["second_chance"], 2: ["second_chance", "second_chance"]}},
            "kept[2]: more copies of 'second_chance' than the deck holds",
        ),
        ({"lines": {0: ["freeze"]}}, "lines[0]: 'freeze' is an action card; put it in kept"),
        ({"kept": {1: ["flip_three"]}}, "kept[1]: 'flip_three' never stays in front of a player"),
        ({"kept": {2: ["5"]}}, "kept[2]: '5' never stays in front of a player"),
    ],
)
def test_new_position_card_errors(kwargs: dict[str, Any], message: str) -> None:
    # the argument checks raise CardError; the checks of a reachable position (flip7ref.core.position,
    # shared with State.from_dict) its subclass PositionError
    kind = CardError if "expected" in message else PositionError
    assert _error(kind, G.new_position, **kwargs) == message


@pytest.mark.rules("F7-040", "F7-050", "F7-082")
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"lines": {1: ["5", "5"]}}, "lines[1]: number 5 twice in a line that has not busted"),
        ({"lines": {2: ["5", "6"]}, "statuses": {2: "busted"}}, "lines[2]: a busted line holds the duplicate that busted it"),
        (
            {"lines": {0: ["0", "1", "2", "3", "4", "5", "6"]}},
            "lines[0]: a Flip 7 ends the round at once; a position mid-round holds fewer numbers",
        ),
        ({"kept": {1: ["second_chance", "second_chance"]}}, "kept[1]: at most 1 'second_chance' per player"),
    ],
)
def test_new_position_refuses_lines_no_game_reaches(kwargs: dict[str, Any], message: str) -> None:
    assert _error(PositionError, G.new_position, **kwargs) == message


@pytest.mark.rules("V-036")
def test_lucky_13_pair_is_a_live_line_but_two_plain_13s_are_not() -> None:
    v = Game("vengeance", 3)
    assert v.new_position(lines={1: ["13", "lucky13"]}).line(1) == ["13", "lucky13"]
    message = "lines[1]: number 5 twice in a line that has not busted"
    assert _error(PositionError, v.new_position, lines={1: ["5", "5"]}) == message


# --------------------------------------------------------------------------- new_position: behaviour


@pytest.mark.rules("F7-030")
def test_open_and_seeded_positions() -> None:
    """seed=None makes an open state; a seed orders the rest of the deck, the same way each time."""
    opened = G.new_position(seed=None, draw=["7"])
    assert opened.shuffle_seed is None and opened.next_card() is None
    assert list(opened.draw[1:]) == sorted(opened.draw[1:])  # the rest of an open pile is not shuffled
    a = G.new_position(seed=0, draw=["7"])
    b = G.new_position(seed=0, draw=["7"])
    c = G.new_position(seed=1, draw=["7"])
    assert a.shuffle_seed == "0" and a.next_card() == "7"
    assert a.draw == b.draw and a.draw != c.draw
    assert list(a.draw[1:]) != sorted(a.draw[1:])


@pytest.mark.rules("F7-020")
def test_start_seat_dealer_gives_the_dealer_the_first_offer() -> None:
    assert G.new_position(dealer=1).turn == 2
    assert Game("flip7", 3, {"start_seat": "dealer"}).new_position(dealer=1).turn == 1


@pytest.mark.rules("F7-020", "F7-021")
def test_a_position_that_starts_with_its_deal() -> None:
    """deal=True deals from ``draw`` from the dealer's left, with the given dealer and round number."""
    g = Game("flip7", 3, {"deck_between_rounds": "fresh-shuffle"})
    s = g.new_position(dealer=1, round_number=3, deal=True, draw=["4", "5", "6"])
    while s.is_chance_node():
        s = flip(s)
    assert (s.dealer, s.round, s.turn) == (1, 3, 2)
    assert [s.line(i) for i in range(3)] == [["5"], ["6"], ["4"]]
    assert of_type(s.events(), "round_started") == [{"round": 3, "dealer": 1}]
    assert s.history() == ["chance 4", "chance 5", "chance 6"]


@pytest.mark.parametrize(
    "kwargs",
    [{"lines": {0: ["5"]}}, {"kept": {1: ["second_chance"]}}, {"statuses": {2: "stayed"}}],
)
def test_a_dealt_position_needs_an_empty_table(kwargs: dict[str, Any]) -> None:
    message = "deal: a round that starts with its deal has no cards on the table and no stayed players"
    assert _error(OptionError, G.new_position, deal=True, **kwargs) == message


# --------------------------------------------------------------------------- new_initial_state


@pytest.mark.parametrize(
    ("kwargs", "kind", "message"),
    [
        ({"dealer": 3}, OptionError, "dealer: expected a seat 0..2, got 3"),
        ({"totals": [0]}, OptionError, "totals: expected 3 values (one per seat), got 1"),
        ({"seed": 1.5}, OptionError, "seed: expected a whole number or a string, got float"),
        ({"stack": "5"}, CardError, "stack: expected a list of card names, got '5'"),
        ({"stack": ["x2", "x2"]}, CardError, "stack: more copies of 'x2' than the deck holds"),
    ],
)
def test_new_initial_state_errors(kwargs: dict[str, Any], kind: type[Exception], message: str) -> None:
    assert _error(kind, G.new_initial_state, **kwargs) == message


# --------------------------------------------------------------------------- house-rule tables


@pytest.mark.rules("F7-060", "F7-062")
def test_a_freeze_that_is_not_kept_goes_to_the_discard_pile(tmp_path: Path) -> None:
    """A variant whose Freeze has keep_card false: the frozen player holds nothing, the Freeze is discarded."""
    g = _variant(tmp_path, "keep_card: true ", "keep_card: false ")
    s = flip(g.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, draw=["freeze"]).apply("hit"))
    s = s.apply("target 1")
    assert s.status(1).value == "frozen" and s.kept(1) == []
    assert [g.card_ids[c] for c in s.discard] == ["freeze"]
    standard = flip(G.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, draw=["freeze"]).apply("hit"))
    assert standard.apply("target 1").kept(1) == ["freeze"]


@pytest.mark.rules("F7-082")
def test_a_hold_limit_of_two(tmp_path: Path) -> None:
    """A variant that lets a player hold two Second Chances keeps the second one, refuses a third."""
    g = _variant(tmp_path, "hold_limit: 1 ", "hold_limit: 2 ")
    s = g.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, kept={0: ["second_chance"]}, draw=["second_chance"])
    s = flip(s.apply("hit"))
    assert s.kept(0) == ["second_chance", "second_chance"]
    message = "kept[0]: at most 2 'second_chance' per player"
    assert _error(PositionError, g.new_position, kept={0: ["second_chance"] * 3}) == message


@pytest.mark.rules("F7-061", "F7-073")
def test_assigning_a_set_aside_card_uses_its_own_targets(tmp_path: Path) -> None:
    """A variant whose Freeze may hit stayed players: assigning a set-aside Freeze offers the stayed seat too."""
    g = _variant(tmp_path, "targets: active        # F7-061", "targets: non_busted    # F7-061")
    table: dict[str, Any] = {"turn": 0, "lines": {0: ["1"], 1: ["2"], 2: ["3"]}, "statuses": {2: "stayed"}}
    table["draw"] = ["flip_three", "freeze", "5", "6"]
    s = g.new_position(**table)
    s = flip(flip(s.apply("hit")).apply("target 1"), 3)
    assert s.pending() == ("assign", "freeze")
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    standard = G.new_position(**table)
    assert flip(flip(standard.apply("hit")).apply("target 1"), 3).legal_action_strings() == ["target 0", "target 1"]


def test_states_of_variants_survive_a_round_trip(tmp_path: Path) -> None:
    g = _variant(tmp_path, "hold_limit: 1 ", "hold_limit: 2 ")
    s = g.new_position(kept={0: ["second_chance", "second_chance"]})
    assert State.from_dict(s.to_dict(), g) == s


@pytest.mark.parametrize(
    ("kwargs", "kind", "message"),
    [
        ({"dealer": 1.0}, OptionError, "dealer: expected a seat 0..2, got 1.0"),
        ({"turn": "1"}, OptionError, "turn: expected a seat 0..2, got '1'"),
        ({"totals": (0, 0, "x")}, OptionError, "totals: expected a list of 3 whole numbers (points), got (0, 0, 'x')"),
        ({"totals": [0, 0, True]}, OptionError, "totals: expected a list of 3 whole numbers (points), got [0, 0, True]"),
        ({"draw": {"5"}}, CardError, "draw: expected a list of card names, got {'5'}"),
        ({"lines": {0: (c for c in ["5"])}}, CardError, "lines[0]: expected a list of card names, got <generator"),
    ],
)
def test_new_position_refuses_near_misses(kwargs: dict[str, Any], kind: type[Exception], message: str) -> None:
    """Values that are almost right (a float seat, a bool total, a set of cards) are refused too."""
    assert _error(kind, G.new_position, **kwargs).startswith(message)
