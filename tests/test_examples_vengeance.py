"""The worked examples of the rules catalogue (§5.2, Flip 7: With a Vengeance) and the Dutch FAQ.

Scoring examples use :func:`flip7ref.core.scoring.score_cards`; play examples are
played through the interpreter from stacked piles or explicit positions.  The
``NL-FAQ-n`` tests reproduce, in order, the answers of the "Veelgestelde vragen"
section of the Dutch rule text (SRC-000), one test per answer paragraph.
Seats: 0 = Ada, 1 = Bea, 2 = Caio (clockwise, so Bea sits on Ada's left).
"""

from __future__ import annotations

from collections import Counter
from functools import partial

import pytest
from helpers import flip, hit, ids, mid_round, of_type, score_of

from flip7ref import CHANCE, Game, IllegalActionError, Status
from flip7ref.core.scoring import score_cards

ADA, BEA, CAIO = 0, 1, 2
GAME = Game("vengeance", 3)
SOLO = Game("vengeance", 1)


# A mid-round position, Caio dealing by default so that Ada is offered first; ``draw`` tops the pile.
position = partial(mid_round, game=GAME, dealer=CAIO)


# --------------------------------------------------------------------------- §5.2 scoring examples


@pytest.mark.example("VE-01")
@pytest.mark.rules("V-022", "V-052", "V-060")
def test_ve01_rulebook_scoring_example() -> None:
    """Flip 7 of 3, 11, 5, 7, 10, 8, 4 with ÷2 and -4: 48 -> 24 -> 20 -> +15 = 35."""
    result = score_cards(SOLO, ["3", "11", "5", "7", "10", "8", "4", "/2", "-4"])
    assert result.numbers == 48
    assert result.multiplied == 24
    assert result.modifiers == -4
    assert result.flip7 is True
    assert result.bonus == 15
    assert result.score == 35
    assert [v for _, v in result.steps] == [48, 24, 20, 20, 20, 35]


@pytest.mark.example("VE-02")
@pytest.mark.rules("V-052", "V-060")
def test_ve02_halve_then_subtract() -> None:
    """13 and 9 with ÷2 and -4: 22 -> 11 -> 7 (and V-EPP's 4, 8, 11 gives 23 -> 11 -> 7)."""
    result = score_cards(SOLO, ["13", "9", "/2", "-4"])
    assert (result.numbers, result.multiplied, result.score) == (22, 11, 7)
    assert score_of(SOLO, ["4", "8", "11", "/2", "-4"]) == 7


@pytest.mark.example("VE-03")
@pytest.mark.rules("V-052", "V-060")
def test_ve03_halve_then_minus_ten() -> None:
    """4, 13, 8, 11 with ÷2 and -10: 36 -> 18 -> 8."""
    result = score_cards(SOLO, ["4", "13", "8", "11", "/2", "-10"])
    assert (result.numbers, result.multiplied, result.score) == (36, 18, 8)


@pytest.mark.example("VE-04")
@pytest.mark.rules("V-053", "V-060")
def test_ve04_floor_at_zero() -> None:
    """1 with -10 and 3 with -10 both score 0, never below."""
    assert score_of(SOLO, ["1", "-10"]) == 0
    assert score_of(SOLO, ["3", "-10"]) == 0
    assert score_cards(SOLO, ["1", "-10"]).steps[2] == ("add_modifiers", -9)


@pytest.mark.example("VE-05")
@pytest.mark.rules("V-052", "V-060")
def test_ve05_halving_rounds_down() -> None:
    """9 with ÷2 scores 4 (4.5 rounded down)."""
    result = score_cards(SOLO, ["9", "/2"])
    assert result.multiplied == 4
    assert result.score == 4


@pytest.mark.example("VE-06")
@pytest.mark.rules("V-030", "V-060")
def test_ve06_zero_without_flip7_scores_nothing() -> None:
    """12, 11 and The Zero score 0."""
    result = score_cards(SOLO, ["12", "11", "0"])
    assert result.numbers == 23
    assert result.flip7 is False
    assert result.score == 0


@pytest.mark.example("VE-07")
@pytest.mark.rules("V-030", "V-032", "V-022")
def test_ve07_zero_in_a_flip7() -> None:
    """The Zero with 1..6 is a Flip 7 worth 21 + 15 = 36, also when drawn in play."""
    assert score_of(SOLO, ["0", "1", "2", "3", "4", "5", "6"]) == 36
    s = position({ADA: ["0", "1", "2", "3", "4", "5"], BEA: ["9"], CAIO: ["10"]}, ["6", "12"])
    assert s.legal_action_strings() == ["hit"]
    s = hit(s)
    assert of_type(s.last_events(), "flip7") == [{"seat": ADA}]
    assert s.round_scores() == (36, 9, 10)


@pytest.mark.example("VE-08")
@pytest.mark.rules("V-030", "V-032")
def test_ve08_zero_flip7_with_high_numbers() -> None:
    """The Zero, 2, 5, 7, 9, 11, 13 is a Flip 7 worth 47 + 15 = 62."""
    result = score_cards(SOLO, ["0", "2", "5", "7", "9", "11", "13"])
    assert result.flip7 is True
    assert result.numbers == 47
    assert result.score == 62


# --------------------------------------------------------------------------- §5.2 play examples


@pytest.mark.example("VE-09")
@pytest.mark.rules("V-036", "V-020")
def test_ve09_lucky13_pair_then_third_busts() -> None:
    """Ada holds Lucky 13 and draws a 13: no bust, 26 points; a third 13 busts her."""
    s = position({ADA: ["lucky13"], BEA: ["2"], CAIO: ["3"]}, ["13", "13", "4"])
    s = hit(s)
    assert s.status(ADA) is Status.ACTIVE
    assert s.line(ADA) == ["lucky13", "13"]
    assert s.line_value(ADA) == 26
    assert of_type(s.last_events(), "busted") == []
    s = s.apply("stay").apply("stay")  # Bea, Caio
    s = hit(s)  # Ada busts, nobody is active: the round is scored and round 2 begins
    assert of_type(s.last_events(), "busted") == [{"seat": ADA, "card": "13"}]
    assert s.round_scores() == (0, 2, 3)


@pytest.mark.example("VE-10")
@pytest.mark.rules("V-033", "V-034")
def test_ve10_unlucky7_beside_a_seven() -> None:
    """Ada (7, -2) receives Unlucky 7: no bust, only Unlucky 7 remains (7 points); a later 7 busts."""
    s = position({ADA: ["7", "-2"], BEA: ["2"], CAIO: ["3"]}, ["unlucky7", "7", "5"])
    s = hit(s)
    assert s.status(ADA) is Status.ACTIVE
    assert s.line(ADA) == ["unlucky7"]
    assert s.line_value(ADA) == 7
    assert of_type(s.last_events(), "line_wiped") == [{"seat": ADA, "cards": ["7", "-2"]}]
    assert ids(s.game, s.discard) >= Counter({"7": 1, "-2": 1})
    s = s.apply("stay").apply("stay")
    s = hit(s)  # Ada busts, nobody is active: the round is scored and round 2 begins
    assert of_type(s.last_events(), "busted") == [{"seat": ADA, "card": "7"}]
    assert s.round_scores() == (0, 2, 3)


@pytest.mark.example("VE-11")
@pytest.mark.rules("V-041", "V-046", "V-049")
def test_ve11_forced_steal_busts_the_stealer() -> None:
    """Ada and Bea hold a 13; Caio's Steal goes to Ada, who must take Bea's 13 and busts."""
    s = position({ADA: ["13"], BEA: ["13"], CAIO: ["4"]}, ["steal", "5"], turn=CAIO)
    s = hit(s)
    assert s.current_player == CAIO
    assert s.pending() == ("play", "steal")
    s = s.apply("target 0")
    assert s.current_player == ADA
    assert s.pending() == ("cards", "steal")
    assert s.legal_action_strings() == ["steal 1 0", "steal 2 0"]
    s = s.apply("steal 1 0")
    assert s.status(ADA) is Status.BUSTED
    assert s.line(ADA) == ["13", "13"]
    assert s.line(BEA) == []
    assert of_type(s.last_events(), "stolen") == [{"seat": ADA, "card": "13", "target": BEA}]
    assert of_type(s.last_events(), "busted") == [{"seat": ADA, "card": "13"}]


@pytest.mark.example("VE-12")
@pytest.mark.rules("V-045", "V-014", "V-015")
def test_ve12_swap_busts_two_stayed_players() -> None:
    """Ada and Bea (both stayed) hold 10 and 11; Caio swaps Ada's 10 with Bea's 11: both bust, Caio scores."""
    s = position({ADA: ["10", "11"], BEA: ["10", "11"], CAIO: ["5"]}, ["swap", "6"], statuses={ADA: "stayed", BEA: "stayed"})
    assert s.current_player == CAIO
    s = hit(s)
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = s.apply("target 2")
    assert s.current_player == CAIO
    assert s.pending() == ("cards", "swap")
    s = s.apply("swap 0 0 1 1")
    assert s.status(ADA) is Status.BUSTED
    assert s.status(BEA) is Status.BUSTED
    assert {e["seat"] for e in of_type(s.last_events(), "busted")} == {ADA, BEA}
    assert s.status(CAIO) is Status.ACTIVE
    assert s.current_player == CAIO
    s = s.apply("stay")
    assert s.round_scores() == (0, 0, 5)


@pytest.mark.example("VE-14")
@pytest.mark.rules("V-044", "V-051")
def test_ve14_bust_in_flip_four_voids_held_modifier() -> None:
    """Ada (1) takes Bea's Flip Four: 5, -8, 5 busts her; the held -8 is discarded; the fourth card is not drawn."""
    s = position({ADA: ["1"], BEA: ["2"], CAIO: ["3"]}, ["flip_four", "5", "-8", "5", "9"], dealer=ADA)
    assert s.current_player == BEA
    s = hit(s)
    s = s.apply("target 0")
    assert of_type(s.last_events(), "forced_draw_started") == [{"seat": ADA, "card": "flip_four", "by": BEA, "count": 4}]
    s = flip(s, 3)
    assert s.status(ADA) is Status.BUSTED
    assert s.line(ADA) == ["1", "5", "5"]
    assert of_type(s.last_events(), "discarded") == [{"card": "-8", "seat": ADA, "reason": "target busted"}]
    assert of_type(s.last_events(), "forced_draw_ended") == [{"seat": ADA, "card": "flip_four", "outcome": "bust"}]
    assert s.next_card() == "9"
    assert s.current_player == CAIO
    assert s.pending() == ("offer", None)


@pytest.mark.example("VE-15")
@pytest.mark.rules("V-044", "V-022", "V-070")
def test_ve15_flip7_in_flip_four_ends_round() -> None:
    """Ada (1..5) flips 6, -2, 7 in her own Flip Four: Flip 7 ends the round; the -2 is never resolved."""
    s = position({ADA: ["1", "2", "3", "4", "5"], BEA: ["9"], CAIO: ["10"]}, ["flip_four", "6", "-2", "7", "8"])
    s = hit(s)
    s = flip(s.apply("target 0"), 3)
    events = s.last_events()
    assert of_type(events, "flip7") == [{"seat": ADA}]
    assert [e["card"] for e in of_type(s.events(), "dealt") if e["via"] == "flip_four"] == ["6", "-2", "7"]
    assert of_type(events, "discarded") == [{"card": "-2", "seat": None, "reason": "round ended"}]
    assert s.round_scores() == (28 + 15, 9, 10)
    assert s.round == 2


@pytest.mark.example("VE-17")
@pytest.mark.rules("V-031", "V-043", "V-030")
def test_ve17_just_one_more_makes_zero_holder_stay() -> None:
    """Ada (The Zero, 4) must hit; her Just One More on herself draws a 9 and she stays, scoring 0."""
    s = position({ADA: ["0", "4"], BEA: ["2"], CAIO: ["3"]}, ["just_one_more", "9", "5"])
    assert s.legal_action_strings() == ["hit"]
    with pytest.raises(IllegalActionError):
        s.apply("stay")
    s = hit(s)
    assert s.pending() == ("play", "just_one_more")
    s = flip(s.apply("target 0"))
    assert s.line(ADA) == ["0", "4", "9"]
    assert s.status(ADA) is Status.STAYED
    assert of_type(s.last_events(), "stayed") == [{"seat": ADA, "reason": "just_one_more"}]
    assert s.current_player == BEA
    s = s.apply("stay").apply("stay")
    assert s.round_scores() == (0, 2, 3)


@pytest.mark.example("VE-18")
@pytest.mark.rules("V-014", "V-050", "V-053")
def test_ve18_stayed_player_given_minus_ten() -> None:
    """Ada stayed on 9; Bea gives her the -10: Ada is still stayed and scores 0."""
    s = position({ADA: ["9"], BEA: ["2"], CAIO: ["3"]}, ["-10", "5"], statuses={ADA: "stayed"})
    assert s.current_player == BEA
    s = hit(s)
    assert s.pending() == ("play", "-10")
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = s.apply("target 0")
    assert s.line(ADA) == ["9", "-10"]
    assert s.status(ADA) is Status.STAYED
    s = s.apply("stay").apply("stay")  # Caio, Bea
    assert s.round_scores() == (0, 2, 3)


@pytest.mark.example("VE-21")
@pytest.mark.rules("V-048", "V-041", "V-011")
@pytest.mark.parametrize("action", ["swap", "steal", "discard"])
def test_ve21_first_card_action_without_cards_discarded(action: str) -> None:
    """A Swap, Steal or Discard dealt first, with no cards on the table, is discarded; the deal goes on."""
    s = flip(GAME.new_initial_state(stack=[action, "5", "6", "8"], dealer=CAIO))
    assert of_type(s.last_events(), "discarded") == [{"card": action, "seat": ADA, "reason": "no valid target"}]
    assert ids(s.game, s.discard) == Counter({action: 1})
    assert s.current_player == CHANCE
    s = flip(s, 2)
    assert [s.line(ADA), s.line(BEA), s.line(CAIO)] == [[], ["5"], ["6"]]
    assert s.current_player == ADA
    assert s.pending() == ("offer", None)
    assert s.next_card() == "8"


@pytest.mark.example("VE-22")
@pytest.mark.rules("V-082", "V-080")
def test_ve22_brutal_flip7_penalise_or_take() -> None:
    """Brutal Mode: Ada's Flip 7 either takes 15 off Bea (Ada gets no bonus) or gives Ada +15."""
    brutal = Game("vengeance", 3, options={"brutal": "true"})
    s = position({ADA: ["1", "2", "3", "4", "5", "6"], BEA: ["10"], CAIO: ["11"]}, ["7", "8"], game=brutal)
    s = hit(s)
    assert of_type(s.last_events(), "flip7") == [{"seat": ADA}]
    assert s.current_player == ADA
    assert s.pending() == ("flip7_bonus", None)
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    penalised = s.apply("target 1")
    assert of_type(penalised.last_events(), "flip7_bonus_chosen") == [{"seat": ADA, "target": BEA, "points": -15}]
    assert penalised.round_scores() == (28, -5, 11)
    assert penalised.totals == (28, -5, 11)
    taken = s.apply("target 0")
    assert of_type(taken.last_events(), "flip7_bonus_chosen") == [{"seat": ADA, "target": ADA, "points": 15}]
    assert taken.round_scores() == (43, 10, 11)


# --------------------------------------------------------------------------- the Dutch FAQ ("Veelgestelde vragen")


@pytest.mark.example("NL-FAQ-1")
@pytest.mark.rules("V-044", "V-022")
def test_nl_faq1_flip_four_stops_at_duplicate_or_flip7() -> None:
    """Flip Four flips at most four, one by one, and stops at once on a duplicate or a Flip 7."""
    s = position({ADA: ["9"], BEA: ["2"], CAIO: ["3"]}, ["flip_four", "4", "9", "5", "6"])
    s = flip(hit(s).apply("target 0"), 2)
    assert s.status(ADA) is Status.BUSTED
    assert s.line(ADA) == ["9", "4", "9"]
    assert s.next_card() == "5"
    assert s.current_player == BEA
    s = position({ADA: ["1", "2", "3", "4"], BEA: ["9"], CAIO: ["10"]}, ["flip_four", "5", "6", "7", "8"])
    s = flip(hit(s).apply("target 0"), 2)
    assert s.line(ADA) == ["1", "2", "3", "4", "5", "6"]
    assert s.current_player == CHANCE
    s = flip(s)
    assert of_type(s.last_events(), "flip7") == [{"seat": ADA}]
    assert s.round_scores() == (43, 9, 10)
    assert [e["card"] for e in of_type(s.events(), "dealt") if e["via"] == "flip_four"] == ["5", "6", "7"]


@pytest.mark.example("NL-FAQ-2")
@pytest.mark.rules("V-044", "V-020")
def test_nl_faq2_held_action_cannot_save_from_bust() -> None:
    """Ada (8) flips Discard, Swap, 8 in a Flip Four: she busts; the held actions are void and cannot save her."""
    s = position({ADA: ["8"], BEA: ["2"], CAIO: ["3"]}, ["flip_four", "discard", "swap", "8", "5"])
    s = flip(hit(s).apply("target 0"), 2)
    assert s.current_player == CHANCE  # the held actions wait; no decision is offered
    s = flip(s)
    assert s.status(ADA) is Status.BUSTED
    assert of_type(s.last_events(), "discarded") == [
        {"card": "discard", "seat": ADA, "reason": "target busted"},
        {"card": "swap", "seat": ADA, "reason": "target busted"},
    ]
    assert s.current_player == BEA
    assert s.pending() == ("offer", None)
    assert ids(s.game, s.discard) == Counter({"flip_four": 1, "discard": 1, "swap": 1})


@pytest.mark.example("NL-FAQ-3")
@pytest.mark.rules("V-044", "V-043", "V-047")
def test_nl_faq3_held_cards_in_order_just_one_more_bust_rest_still_done() -> None:
    """After four cards Ada resolves Just One More on herself, busts on its card, and still carries out the held Discard."""
    s = position({ADA: ["1"], BEA: ["2", "12"], CAIO: ["3"]}, ["flip_four", "just_one_more", "5", "discard", "6", "5", "9"])
    s = flip(hit(s).apply("target 0"), 4)
    assert s.line(ADA) == ["1", "5", "6"]
    assert [e["card"] for e in of_type(s.events(), "set_aside")] == ["just_one_more", "discard"]
    assert s.current_player == ADA
    assert s.pending() == ("play", "just_one_more")
    s = flip(s.apply("target 0"))
    assert s.status(ADA) is Status.BUSTED
    assert s.line(ADA) == ["1", "5", "6", "5"]
    assert s.current_player == ADA
    assert s.pending() == ("play", "discard")
    assert s.legal_action_strings() == ["target 1", "target 2"]
    s = s.apply("target 1")
    assert s.current_player == ADA  # the player who played the Discard picks the card
    assert s.legal_action_strings() == ["discard 1 0", "discard 1 1"]
    s = s.apply("discard 1 1")
    assert s.line(BEA) == ["2"]
    assert of_type(s.last_events(), "card_discarded") == [{"seat": BEA, "card": "12", "by": ADA}]
    assert s.current_player == BEA
    assert s.next_card() == "9"


@pytest.mark.example("NL-FAQ-4")
@pytest.mark.rules("V-015", "V-044", "V-014")
def test_nl_faq4_stayed_player_accepts_flip_four_and_stays_stayed() -> None:
    """Bea (stayed) must take Ada's Flip Four; surviving, she resolves the held -4 and is still stayed."""
    s = position({ADA: ["1"], BEA: ["2"], CAIO: ["3"]}, ["flip_four", "4", "-4", "6", "8", "9"], statuses={BEA: "stayed"})
    s = hit(s)
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = flip(s.apply("target 1"), 4)
    assert s.line(BEA) == ["2", "4", "6", "8"]
    assert s.current_player == BEA
    assert s.pending() == ("play", "-4")
    s = s.apply("target 2")
    assert s.line(CAIO) == ["3", "-4"]
    assert s.status(BEA) is Status.STAYED
    assert s.current_player == CAIO  # the offers go on after Ada, and Bea is passed over
    s = s.apply("stay")
    assert s.current_player == ADA
    s = s.apply("stay")
    assert s.round_scores() == (1, 20, 0)


@pytest.mark.example("NL-FAQ-5")
@pytest.mark.rules("V-045", "V-049")
def test_nl_faq5_swap_busts_two_players_at_once() -> None:
    """Ada and Bea hold 10 and 11; Ada, given the Swap, swaps her 10 for Bea's 11: both have a duplicate and bust."""
    s = position({ADA: ["10", "11"], BEA: ["11", "10"], CAIO: ["3"]}, ["swap", "5"], turn=CAIO)
    s = hit(s).apply("target 0")
    assert s.current_player == ADA
    s = s.apply("swap 0 0 1 0")
    assert s.status(ADA) is Status.BUSTED
    assert s.status(BEA) is Status.BUSTED
    assert of_type(s.last_events(), "swapped") == [
        {"seat": ADA, "first": ADA, "first_card": "10", "second": BEA, "second_card": "11"}
    ]
    assert sorted(s.line(ADA)) == ["11", "11"]
    assert sorted(s.line(BEA)) == ["10", "10"]
    assert s.current_player == CAIO
    s = s.apply("stay")
    assert s.round_scores() == (0, 0, 3)


@pytest.mark.example("NL-FAQ-6")
@pytest.mark.rules("V-033", "V-034")
def test_nl_faq6_unlucky7_with_a_seven_wipes_without_bust() -> None:
    """Ada (7, 12, 3, -6) draws Unlucky 7: no bust, the other cards are discarded; a later 7 busts her."""
    s = position({ADA: ["7", "12", "3", "-6"], BEA: ["2"], CAIO: ["4"]}, ["unlucky7", "5", "7"])
    s = hit(s)
    assert s.status(ADA) is Status.ACTIVE
    assert s.line(ADA) == ["unlucky7"]
    assert ids(s.game, s.discard) == Counter({"7": 1, "12": 1, "3": 1, "-6": 1})
    s = hit(s)  # Bea takes the 5
    s = s.apply("stay")  # Caio
    s = hit(s)
    assert s.status(ADA) is Status.BUSTED
    assert of_type(s.last_events(), "busted") == [{"seat": ADA, "card": "7"}]


@pytest.mark.example("NL-FAQ-7")
@pytest.mark.rules("V-041", "V-042", "V-047")
def test_nl_faq7_action_must_be_carried_out() -> None:
    """Ada, the only player not busted, reveals a Discard: she must play it on herself and lose a card."""
    s = position(
        {ADA: ["12", "5"], BEA: ["9", "9"], CAIO: ["4", "4"]}, ["discard", "6"], statuses={BEA: "busted", CAIO: "busted"}
    )
    s = hit(s)
    assert s.legal_action_strings() == ["target 0"]
    for refusal in ("hit", "stay", "target 1"):
        with pytest.raises(IllegalActionError):
            s.apply(refusal)
    s = s.apply("target 0")
    assert s.legal_action_strings() == ["discard 0 0", "discard 0 1"]
    s = s.apply("discard 0 0")
    assert s.line(ADA) == ["5"]
    s = s.apply("stay")
    assert s.round_scores() == (5, 0, 0)


@pytest.mark.example("NL-FAQ-8")
@pytest.mark.rules("V-041", "V-046", "V-011")
def test_nl_faq8_dealt_steal_forces_bust() -> None:
    """Round 1: players 1 and 2 are dealt a 13, player 3 a Steal played on player 1, who must steal the 13 and busts."""
    s = flip(GAME.new_initial_state(stack=["13", "13", "steal", "5"], dealer=CAIO), 3)
    assert s.current_player == CAIO
    assert s.pending() == ("play", "steal")
    s = s.apply("target 0")
    assert s.legal_action_strings() == ["steal 1 0"]
    s = s.apply("steal 1 0")
    assert s.status(ADA) is Status.BUSTED
    assert s.line(BEA) == []
    assert s.line(CAIO) == []
    assert s.current_player == BEA
    assert s.pending() == ("offer", None)


@pytest.mark.example("NL-FAQ-9")
@pytest.mark.rules("V-048", "V-045")
def test_nl_faq9_early_swap_with_one_line_discarded() -> None:
    """Early in the round only Ada has a card; Bea is dealt a Swap, which has nothing to act on and is discarded."""
    s = flip(GAME.new_initial_state(stack=["5", "swap", "6", "8"], dealer=CAIO), 2)
    assert of_type(s.last_events(), "discarded") == [{"card": "swap", "seat": BEA, "reason": "no valid target"}]
    s = flip(s)
    assert [s.line(ADA), s.line(BEA), s.line(CAIO)] == [["5"], [], ["6"]]
    assert s.current_player == ADA
    assert s.next_card() == "8"
