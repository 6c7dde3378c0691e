"""The worked examples of the rules catalogue (§5.1, Flip 7 base), one test each.

Scoring examples use :func:`flip7ref.core.scoring.score_cards`; play examples are
played through the interpreter from stacked piles or explicit positions.
Seats: 0 = Ann, 1 = Ben, 2 = Cat (clockwise, so Ben sits on Ann's left).
"""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import flip, hit, ids, of_type, score_of

from flip7ref import CHANCE, Game, State, Status
from flip7ref.core.scoring import score_cards, score_line

ANN, BEN, CAT = 0, 1, 2
GAME = Game("flip7", 3)


# --------------------------------------------------------------------------- scoring examples


@pytest.mark.example("E-01")
@pytest.mark.rules("F7-100")
def test_e01_plain_numbers() -> None:
    """Line 3, 11, 5, 7, 10 scores 36."""
    result = score_cards(GAME, ["3", "11", "5", "7", "10"])
    assert result.numbers == 36
    assert result.score == 36
    assert result.flip7 is False


@pytest.mark.example("E-02")
@pytest.mark.rules("F7-091", "F7-100")
def test_e02_times_two() -> None:
    """Line 3, 11, 5, 7, 10 with x2 scores 72."""
    result = score_cards(GAME, ["3", "11", "5", "7", "10", "x2"])
    assert result.multiplied == 72
    assert result.score == 72


@pytest.mark.example("E-03")
@pytest.mark.rules("F7-090", "F7-100")
def test_e03_plus_ten() -> None:
    """Line 3, 11, 5, 7, 10 with +10 scores 46."""
    result = score_cards(GAME, ["3", "11", "5", "7", "10", "+10"])
    assert result.modifiers == 10
    assert result.score == 46


@pytest.mark.example("E-04")
@pytest.mark.rules("F7-050", "F7-100")
def test_e04_flip7_bonus() -> None:
    """A Flip 7 of 3, 11, 5, 7, 10, 9, 4 scores 49 + 15 = 64."""
    result = score_cards(GAME, ["3", "11", "5", "7", "10", "9", "4"])
    assert result.flip7 is True
    assert result.numbers == 49
    assert result.bonus == 15
    assert result.score == 64


@pytest.mark.example("E-05")
@pytest.mark.rules("F7-090", "F7-091", "F7-100")
def test_e05_times_two_then_plus_ten() -> None:
    """3, 11, 5, 7, 10 with +10 and x2 scores 36 x 2 + 10 = 82 (the +10 is not doubled)."""
    assert score_of(GAME, ["3", "11", "5", "7", "10", "+10", "x2"]) == 82
    assert score_of(GAME, ["x2", "+10", "3", "11", "5", "7", "10"]) == 82


@pytest.mark.example("E-06")
@pytest.mark.rules("F7-090", "F7-091", "F7-100")
def test_e06_times_two_does_not_double_plus_eight() -> None:
    """7, 11, +8, x2 scores (7 + 11) x 2 + 8 = 44."""
    result = score_cards(GAME, ["7", "11", "+8", "x2"])
    assert result.numbers == 18
    assert result.multiplied == 36
    assert result.score == 44


@pytest.mark.example("E-07")
@pytest.mark.rules("F7-092", "F7-100")
def test_e07_modifiers_without_numbers() -> None:
    """Only +2, +6 and x2 score 8: x2 alone adds nothing."""
    result = score_cards(GAME, ["+2", "+6", "x2"])
    assert result.numbers == 0
    assert result.multiplied == 0
    assert result.score == 8


@pytest.mark.example("E-08")
@pytest.mark.rules("F7-090", "F7-100")
def test_e08_three_numbers_plus_ten() -> None:
    """3, 4, 12 with +10 scores 29."""
    assert score_of(GAME, ["3", "4", "12", "+10"]) == 29


@pytest.mark.example("E-27")
@pytest.mark.rules("F7-091", "F7-092", "F7-100", "F7-101", "F7-050")
@pytest.mark.parametrize(
    ("cards", "busted", "expected"),
    [
        (["3", "7", "12"], False, 22),
        (["3", "7", "12", "x2"], False, 44),
        (["3", "7", "12", "x2", "+4"], False, 48),
        (["0", "1", "2", "3", "4", "5", "6", "+10"], False, 46),
        (["0", "1", "2", "3", "4", "5", "6", "x2", "+10"], False, 67),
        (["3", "7", "12", "x2", "+4", "7"], True, 0),
        ([], False, 0),
        (["+4"], False, 4),
    ],
    ids=["numbers", "x2", "x2-plus4", "flip7-plus10", "flip7-x2-plus10", "busted", "frozen-empty", "frozen-plus4"],
)
def test_e27_scoring_table(cards: list[str], busted: bool, expected: int) -> None:
    """The SPEC-B scoring table: each line scores the tabled value."""
    codes = [GAME.code(c) for c in cards]
    assert score_line(GAME, codes, busted=busted).score == expected
    if not busted:
        assert score_cards(GAME, cards).score == expected


# --------------------------------------------------------------------------- Flip 7 in play


@pytest.mark.example("E-09")
@pytest.mark.rules("F7-050", "F7-091", "F7-100", "F7-110", "F7-102")
def test_e09_flip7_with_times_two_ends_round() -> None:
    """12..7 with +10 and x2, then a 6: Flip 7 scores 63 x 2 + 10 + 15 = 151 and ends the round."""
    s = GAME.new_position(
        dealer=CAT,
        lines={ANN: ["12", "11", "10", "9", "8", "7", "+10", "x2"], BEN: ["3"], CAT: ["4"]},
        draw=["6", "1", "2", "5"],
    )
    assert s.current_player == ANN
    s = hit(s)
    assert of_type(s.last_events(), "flip7") == [{"seat": ANN}]
    assert s.round_scores() == (151, 3, 4)
    assert s.totals == (151, 3, 4)
    assert of_type(s.last_events(), "round_scored")[0]["flip7"] == ANN
    assert s.round == 2
    assert s.dealer == ANN


@pytest.mark.example("E-10")
@pytest.mark.rules("F7-005", "F7-050", "F7-100")
def test_e10_zero_counts_toward_flip7() -> None:
    """Drawing 0, 1, 2, 3, 4, 5 then 6 is a Flip 7 worth 21 + 15 = 36."""
    solo = Game("flip7", 1)
    s = flip(solo.new_initial_state(stack=["0", "1", "2", "3", "4", "5", "6", "12"]))
    assert s.line(ANN) == ["0"]
    for _ in range(5):
        s = hit(s)
    assert s.line(ANN) == ["0", "1", "2", "3", "4", "5"]
    assert s.round == 1
    s = hit(s)
    assert [e.type for e in s.last_events()][:3] == ["dealt", "flip7", "round_scored"]
    assert s.round_scores() == (36,)
    assert s.round == 2
    assert score_of(GAME, ["0", "1", "2", "3", "4", "5", "6"]) == 36


@pytest.mark.example("E-12")
@pytest.mark.rules("F7-050", "F7-051", "F7-110", "F7-034")
def test_e12_flip7_banks_everyone() -> None:
    """Ann's Flip 7 scores 64; active Ben banks 9 and stayed Cat banks 6."""
    s = GAME.new_position(
        dealer=CAT,
        lines={ANN: ["3", "11", "5", "7", "10", "9"], BEN: ["9"], CAT: ["+6"]},
        statuses={CAT: "stayed"},
        draw=["4", "1", "2", "6"],
    )
    assert s.status(BEN) is Status.ACTIVE
    s = hit(s)
    assert s.round_scores() == (64, 9, 6)
    assert s.totals == (64, 9, 6)
    scored = of_type(s.last_events(), "round_scored")
    assert scored == [{"round": 1, "scores": [64, 9, 6], "totals": [64, 9, 6], "flip7": ANN}]


@pytest.mark.example("E-13")
@pytest.mark.rules("F7-020", "F7-030", "F7-031", "F7-034", "F7-040", "F7-101", "F7-102", "F7-110")
def test_e13_round_ends_when_nobody_is_active() -> None:
    """Ann 11, +4 and stays; Ben 5 then 5 busts; Cat 12 stays: the round scores 15, 0, 12."""
    s = flip(GAME.new_initial_state(stack=["11", "5", "12", "+4", "5", "1", "2", "3"], dealer=CAT), 3)
    assert [s.line(ANN), s.line(BEN), s.line(CAT)] == [["11"], ["5"], ["12"]]
    assert s.current_player == ANN
    s = hit(s)
    assert s.line(ANN) == ["11", "+4"]
    assert s.current_player == BEN
    s = hit(s)
    assert s.status(BEN) is Status.BUSTED
    assert of_type(s.last_events(), "busted") == [{"seat": BEN, "card": "5"}]
    assert s.current_player == CAT
    s = s.apply("stay")
    assert s.status(CAT) is Status.STAYED
    assert s.current_player == ANN
    s = s.apply("stay")
    assert s.round_scores() == (15, 0, 12)
    assert s.totals == (15, 0, 12)
    assert s.round == 2


# --------------------------------------------------------------------------- Second Chance and Freeze


@pytest.mark.example("E-14")
@pytest.mark.rules("F7-080", "F7-081")
def test_e14_second_chance_cancels_duplicate() -> None:
    """Ann holds 8 and a Second Chance, draws 8: no bust, both cards discarded, Ben is asked next."""
    s = GAME.new_position(
        dealer=CAT,
        lines={ANN: ["8"], BEN: ["3"], CAT: ["4"]},
        kept={ANN: ["second_chance"]},
        draw=["8", "6", "7"],
    )
    s = hit(s)
    assert s.status(ANN) is Status.ACTIVE
    assert s.line(ANN) == ["8"]
    assert s.kept(ANN) == []
    assert ids(s.game, s.discard) == Counter({"8": 1, "second_chance": 1})
    assert of_type(s.last_events(), "second_chance_used") == [{"seat": ANN, "card": "8", "shield": "second_chance"}]
    assert of_type(s.last_events(), "busted") == []
    assert s.current_player == BEN
    assert s.next_card() == "6"


@pytest.mark.example("E-15")
@pytest.mark.rules("F7-060", "F7-062", "F7-063", "F7-083", "F7-084")
def test_e15_second_chance_does_not_stop_freeze() -> None:
    """Ann's Freeze on Ben freezes him despite his Second Chance, which is discarded at round end."""
    s = GAME.new_position(
        dealer=CAT,
        lines={ANN: ["5"], BEN: ["6"], CAT: ["7"]},
        kept={BEN: ["second_chance"]},
        draw=["freeze", "1", "2", "3"],
    )
    s = hit(s)
    assert s.pending() == ("play", "freeze")
    assert s.current_player == ANN
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = s.apply("target 1")
    assert s.status(BEN) is Status.FROZEN
    assert s.kept(BEN) == ["second_chance", "freeze"]
    assert of_type(s.last_events(), "frozen") == [{"seat": BEN, "by": ANN}]
    assert s.current_player == CAT
    s = s.apply("stay").apply("stay")
    assert s.round_scores() == (5, 6, 7)
    assert s.round == 2
    assert ids(s.game, s.discard) == Counter({"5": 1, "6": 1, "7": 1, "second_chance": 1, "freeze": 1})
    assert s.kept(BEN) == []


@pytest.mark.example("E-16")
@pytest.mark.rules("F7-021", "F7-022", "F7-023", "F7-024", "F7-033")
def test_e16_freeze_in_deal_on_undealt_player() -> None:
    """Ben is dealt Freeze and freezes Cat before Cat has a card: Cat is out with 0, the deal goes on."""
    s = flip(GAME.new_initial_state(stack=["4", "freeze", "9", "6"], dealer=CAT), 2)
    assert s.line(ANN) == ["4"]
    assert s.current_player == BEN
    assert s.pending() == ("play", "freeze")
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = s.apply("target 2")
    assert s.status(CAT) is Status.FROZEN
    assert s.line(CAT) == []
    assert s.line(BEN) == []
    # The deal is over (Cat, the dealer, is frozen): the first offer goes to Ann and the 9 is still on the pile.
    assert s.current_player == ANN
    assert s.pending() == ("offer", None)
    assert s.next_card() == "9"
    s = s.apply("stay")
    assert s.current_player == BEN
    assert s.legal_action_strings() == ["hit"]
    s = hit(s)
    assert s.line(BEN) == ["9"]
    s = s.apply("stay")
    assert s.round_scores() == (4, 9, 0)


# --------------------------------------------------------------------------- Flip Three


def flip_three_position(draw: list[str], *, kept: dict[int, list[str]] | None = None) -> State:
    """Ann (1) to hit, Ben (2), Cat (3); Cat deals; ``draw`` is the top of the pile."""
    return GAME.new_position(dealer=CAT, lines={ANN: ["1"], BEN: ["2"], CAT: ["3"]}, kept=kept, draw=draw)


@pytest.mark.example("E-18")
@pytest.mark.rules("F7-070", "F7-073", "F7-074")
def test_e18_set_aside_cards_assigned_then_resolved() -> None:
    """Ben flips Freeze, Flip Three, 5; assigns Freeze to Cat then Flip Three to Ann; then both take effect."""
    s = hit(flip_three_position(["flip_three", "freeze", "flip_three", "5", "6", "7", "8", "9"]))
    assert s.pending() == ("play", "flip_three")
    s = flip(s.apply("target 1"), 3)
    assert s.line(BEN) == ["2", "5"]
    assert [e["card"] for e in of_type(s.events(), "set_aside")] == ["freeze", "flip_three"]
    assert s.current_player == BEN
    assert s.pending() == ("assign", "freeze")
    s = s.apply("target 2")
    # Nothing has taken effect yet: Cat is still active and may still be chosen.
    assert s.status(CAT) is Status.ACTIVE
    assert s.pending() == ("assign", "flip_three")
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = s.apply("target 0")
    assert s.status(CAT) is Status.FROZEN
    assert of_type(s.last_events(), "frozen") == [{"seat": CAT, "by": BEN}]
    assert of_type(s.last_events(), "forced_draw_started") == [{"seat": ANN, "card": "flip_three", "by": BEN, "count": 3}]
    s = flip(s, 3)
    assert s.line(ANN) == ["1", "6", "7", "8"]
    assert s.current_player == BEN  # the seat after Ann, who drew the first Flip Three
    assert s.pending() == ("offer", None)


@pytest.mark.example("E-19")
@pytest.mark.rules("F7-074", "F7-075")
def test_e19_freeze_then_flip_three_to_same_player() -> None:
    """Freeze and Flip Three both assigned to Cat: Cat is frozen and the Flip Three is discarded."""
    s = hit(flip_three_position(["flip_three", "freeze", "flip_three", "5", "6", "7", "8"]))
    s = flip(s.apply("target 1"), 3)
    s = s.apply("target 2").apply("target 2")
    assert s.status(CAT) is Status.FROZEN
    assert s.line(CAT) == ["3"]
    assert of_type(s.last_events(), "forced_draw_started") == []
    discarded = of_type(s.last_events(), "discarded")
    assert discarded == [{"card": "flip_three", "seat": CAT, "reason": "target no longer eligible"}]
    assert ids(s.game, s.discard) == Counter({"flip_three": 2})
    assert s.current_player == BEN
    assert s.next_card() == "6"


@pytest.mark.example("E-20")
@pytest.mark.rules("F7-071", "F7-075", "F7-078")
def test_e20_two_flip_threes_second_discarded_after_bust() -> None:
    """Two set-aside Flip Threes go to Cat; she busts on the first, so the second is discarded."""
    s = hit(flip_three_position(["flip_three", "flip_three", "flip_three", "5", "3", "6", "7"]))
    s = flip(s.apply("target 1"), 3)
    assert s.pending() == ("assign", "flip_three")
    s = s.apply("target 2")
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = flip(s.apply("target 2"))
    assert s.status(CAT) is Status.BUSTED
    assert s.line(CAT) == ["3", "3"]
    events = s.last_events()
    assert of_type(events, "forced_draw_ended") == [{"seat": CAT, "card": "flip_three", "outcome": "bust"}]
    assert of_type(events, "discarded") == [{"card": "flip_three", "seat": CAT, "reason": "target no longer eligible"}]
    assert ids(s.game, s.discard) == Counter({"flip_three": 3})
    assert s.current_player == BEN
    assert s.next_card() == "6"


@pytest.mark.example("E-22")
@pytest.mark.rules("F7-042", "F7-071", "F7-073", "F7-078", "F7-079")
def test_e22_bust_discards_both_flip_threes() -> None:
    """Cat gives a Flip Three to Ben (9): he reveals a Flip Three then a 9, busts; both are discarded; Ann is asked."""
    s = GAME.new_position(
        dealer=BEN, turn=CAT, lines={ANN: ["1"], BEN: ["9"], CAT: ["3"]}, draw=["flip_three", "flip_three", "9", "6"]
    )
    assert s.current_player == CAT
    s = hit(s)
    s = flip(s.apply("target 1"), 2)
    assert s.status(BEN) is Status.BUSTED
    assert s.line(BEN) == ["9", "9"]
    events = s.last_events()
    assert of_type(events, "forced_draw_ended") == [{"seat": BEN, "card": "flip_three", "outcome": "bust"}]
    assert of_type(events, "discarded") == [{"card": "flip_three", "seat": BEN, "reason": "target busted"}]
    assert of_type(s.events(), "assigned") == []
    assert ids(s.game, s.discard) == Counter({"flip_three": 2})
    assert s.current_player == ANN  # after Cat, the original recipient (not after Ben, the target)
    assert s.next_card() == "6"


@pytest.mark.example("E-23")
@pytest.mark.rules("F7-076", "F7-082")
def test_e23a_spare_second_chance_given_at_once() -> None:
    """Ben, holding a Second Chance, reveals another during a Flip Three: he gives it at once; it counts as a card."""
    s = hit(flip_three_position(["flip_three", "second_chance", "5", "6", "7"], kept={BEN: ["second_chance"]}))
    s = flip(s.apply("target 1"))
    assert s.current_player == BEN
    assert s.pending() == ("give", "second_chance")
    assert s.legal_action_strings() == ["target 0", "target 2"]
    s = s.apply("target 2")
    assert s.kept(CAT) == ["second_chance"]
    assert s.kept(BEN) == ["second_chance"]
    assert of_type(s.last_events(), "second_chance_given") == [{"seat": BEN, "target": CAT, "card": "second_chance"}]
    s = flip(s, 2)
    assert s.line(BEN) == ["2", "5", "6"]
    assert of_type(s.last_events(), "forced_draw_ended") == [{"seat": BEN, "card": "flip_three", "outcome": "complete"}]
    assert s.current_player == BEN
    assert s.next_card() == "7"


@pytest.mark.example("E-23")
@pytest.mark.rules("F7-072", "F7-076", "F7-082")
def test_e23b_spare_second_chance_discarded_when_alone() -> None:
    """Ben, the only active player, holds a Second Chance and reveals another in a Flip Three: it is discarded."""
    s = GAME.new_position(
        dealer=ANN,
        lines={ANN: ["1"], BEN: ["2"], CAT: ["3"]},
        kept={BEN: ["second_chance"]},
        statuses={ANN: "stayed", CAT: "stayed"},
        draw=["flip_three", "second_chance", "5", "6", "7"],
    )
    assert s.current_player == BEN
    s = hit(s)
    assert s.legal_action_strings() == ["target 1"]
    s = flip(s.apply("target 1"))
    assert of_type(s.last_events(), "discarded") == [{"card": "second_chance", "seat": BEN, "reason": "no eligible player"}]
    assert s.kept(BEN) == ["second_chance"]
    assert s.current_player == CHANCE
    s = flip(s, 2)
    assert s.line(BEN) == ["2", "5", "6"]
    assert ids(s.game, s.discard) == Counter({"second_chance": 1, "flip_three": 1})
    assert s.current_player == BEN
    assert s.next_card() == "7"


@pytest.mark.example("E-24")
@pytest.mark.rules("F7-076", "F7-077", "F7-080")
def test_e24_second_chance_gained_in_flip_three_saves() -> None:
    """Ben (8) reveals a Second Chance then an 8 in a Flip Three: the 8 is cancelled and one card is left."""
    s = GAME.new_position(
        dealer=CAT, lines={ANN: ["1"], BEN: ["8"], CAT: ["3"]}, draw=["flip_three", "second_chance", "8", "4", "6"]
    )
    s = flip(hit(s).apply("target 1"))
    assert s.kept(BEN) == ["second_chance"]
    assert of_type(s.last_events(), "second_chance_kept") == [{"seat": BEN, "card": "second_chance"}]
    s = flip(s)
    assert s.status(BEN) is Status.ACTIVE
    assert s.kept(BEN) == []
    assert s.line(BEN) == ["8"]
    assert of_type(s.last_events(), "second_chance_used") == [{"seat": BEN, "card": "8", "shield": "second_chance"}]
    assert s.current_player == CHANCE  # the sequence continues with one card left
    s = flip(s)
    assert s.line(BEN) == ["8", "4"]
    assert of_type(s.last_events(), "forced_draw_ended") == [{"seat": BEN, "card": "flip_three", "outcome": "complete"}]
    assert s.current_player == BEN
    assert s.next_card() == "6"
