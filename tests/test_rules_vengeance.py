"""Behavioural tests of the Flip 7: With a Vengeance rules (V-001..V-083) under the default readings.

Each test plays a stacked game or an explicit position through the interpreter
(or inspects the edition table) and asserts concrete outcomes.  The Dutch rule
text (SRC-000) decides where it is explicit.  Seats: 0 = Ada, 1 = Bea,
2 = Caio, 3 = Dov (clockwise; the left of seat s is s + 1).
"""

from __future__ import annotations

from collections import Counter
from functools import partial

import pytest
from helpers import flip, hit, ids, mid_round, of_type, play, score_of

from flip7ref import CHANCE, TERMINAL, CardError, Game, IllegalActionError, OptionError, Status, load_edition
from flip7ref.core.scoring import score_cards

ADA, BEA, CAIO, DOV = 0, 1, 2, 3
GAME = Game("vengeance", 3)
SOLO = Game("vengeance", 1)
BRUTAL = Game("vengeance", 3, options={"brutal": "true"})
EDITION = load_edition("vengeance")


# A mid-round position, Caio dealing by default so that Ada is offered first; ``draw`` tops the pile.
position = partial(mid_round, game=GAME, dealer=CAIO)
REFUSE = Game("vengeance", 3, {"unusable_actions": "refuse"})  # D-V-28 (b): actions only to players who can use them


# --------------------------------------------------------------------------- identity and components


@pytest.mark.rules("V-001", "V-083")
def test_identity_title_ruleset_publisher() -> None:
    """The table is Flip 7: With a Vengeance, Ruleset Edition 1, by The Op Games with the Dutch edition by 999 Games."""
    assert EDITION.id == "vengeance"
    assert EDITION.title == "Flip 7: With a Vengeance"
    assert EDITION.ruleset == "Ruleset Edition 1"
    assert EDITION.publisher == "The Op Games (Dutch edition 999 Games)"
    text = EDITION.rules["V-001"].text
    for needle in ("Flip 7: Vengeance", "©2026", "Eric Olsen", "Alyssa Swatek", "999 Games"):
        assert needle in text
    # V-083: "Cruel mode" is just a rendering of Wrede modus, i.e. the brutal option; no separate variant exists.
    assert "brutal" in EDITION.options
    assert not any("cruel" in name for name in EDITION.options)
    assert "Wrede modus" in EDITION.rules["V-083"].text
    with pytest.raises(OptionError):
        Game("vengeance", 3, options={"cruel": "true"})


@pytest.mark.rules("V-002", "V-008")
def test_standalone_without_base_game_cards() -> None:
    """Vengeance plays on its own deck: no Freeze, Flip Three, Second Chance, +N or x2 cards exist in it."""
    for name in ("freeze", "flip_three", "second_chance", "x2", "+2", "+4", "+6", "+8", "+10"):
        with pytest.raises(CardError):
            EDITION.card(name)
        with pytest.raises(CardError):
            GAME.code(name)
    modifiers = [c for c in EDITION.cards if c.category == "modifier"]
    assert all(m.modifier is not None and (m.modifier[0] == "divide" or m.modifier[1] < 0) for m in modifiers)
    s = GAME.new_initial_state(seed=3)
    assert sum(s.cards_in_play().values()) == 108
    assert "standalone" in EDITION.rules["V-002"].text


@pytest.mark.rules("V-003")
def test_one_deck_up_to_eighteen_players() -> None:
    """One 108-card deck serves up to 18 players; a 19th brings a second copy (216 cards)."""
    assert EDITION.thresholds["players_per_deck"] == 18
    g18, g19 = Game("vengeance", 18), Game("vengeance", 19)
    assert (g18.decks, len(g18.deck)) == (1, 108)
    assert (g19.decks, len(g19.deck)) == (2, 216)
    assert ids(g19, g19.deck)["lucky13"] == 2
    assert Game("vengeance", 36).decks == 2
    assert Game("vengeance", 37).decks == 3
    assert sum(g19.new_initial_state(seed=2).cards_in_play().values()) == 216


@pytest.mark.rules("V-004", "V-005", "V-006", "V-007")
def test_deck_composition() -> None:
    """108 cards: 92 numbers (n copies of n, one 0; one 7 is Unlucky 7, one 13 Lucky 13), 6 modifiers, 10 actions."""
    deck = ids(GAME, GAME.deck)
    assert len(GAME.deck) == 108
    numbers = [c for c in EDITION.cards if c.category == "number"]
    assert sum(deck[c.id] for c in numbers) == 92
    assert deck["0"] == 1
    for n in range(1, 14):
        assert sum(deck[c.id] for c in numbers if c.rank == n) == n
    assert (deck["7"], deck["unlucky7"], deck["13"], deck["lucky13"]) == (6, 1, 12, 1)
    assert EDITION.card("0").name("en") == "The Zero"
    assert EDITION.card("0").name("nl") == "De nul"
    assert EDITION.card("unlucky7").name("nl") == "Pech 7"
    assert EDITION.card("lucky13").name("nl") == "Geluk 13"
    assert (EDITION.card("unlucky7").rank, EDITION.card("lucky13").rank) == (7, 13)
    mods = {c.id: deck[c.id] for c in EDITION.cards if c.category == "modifier"}
    assert mods == {"-2": 1, "-4": 1, "-6": 1, "-8": 1, "-10": 1, "/2": 1}
    assert EDITION.card("÷2").id == "/2"
    acts = {c.id: deck[c.id] for c in EDITION.cards if c.category == "action"}
    assert acts == {"just_one_more": 2, "flip_four": 2, "swap": 2, "steal": 2, "discard": 2}
    assert [EDITION.card(a).name("nl") for a in acts] == ["Nog eentje", "Draai vier", "Ruil", "Steel", "Leg af"]
    assert len(deck) == 14 + 2 + 6 + 5


# --------------------------------------------------------------------------- setup, deal, turns


@pytest.mark.rules("V-010")
def test_setup_one_shuffled_pile_and_chosen_dealer() -> None:
    """A seeded game shuffles all 108 cards into one pile deterministically; the chosen seat deals round 1."""
    a = GAME.new_initial_state(seed=11, dealer=BEA)
    b = GAME.new_initial_state(seed=11, dealer=BEA)
    c = GAME.new_initial_state(seed=12, dealer=BEA)
    assert a == b
    assert a.draw != c.draw
    assert sorted(a.draw) == sorted(GAME.deck)
    assert a.draw != tuple(sorted(GAME.deck))
    assert (a.dealer, a.round, a.totals) == (BEA, 1, (0, 0, 0))
    assert of_type(a.events(), "round_started") == [{"round": 1, "dealer": BEA}]


@pytest.mark.rules("V-011", "V-042", "V-044")
def test_deal_from_dealers_left_and_action_pauses_it() -> None:
    """Bea deals: Caio gets a 4, Ada a Flip Four she plays on undealt Bea, who is then not dealt
    again but asked at her slot (V-018, deal_after_early_cards offer)."""
    s = flip(GAME.new_initial_state(stack=["4", "flip_four", "1", "2", "3", "5", "6", "9"], dealer=BEA), 2)
    assert s.current_player == ADA
    assert s.pending() == ("play", "flip_four")
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = flip(s.apply("target 1"), 4)
    assert [(e["seat"], e["card"], e["via"]) for e in of_type(s.events(), "dealt")] == [
        (CAIO, "4", "deal"),
        (ADA, "flip_four", "deal"),
        (BEA, "1", "flip_four"),
        (BEA, "2", "flip_four"),
        (BEA, "3", "flip_four"),
        (BEA, "5", "flip_four"),
    ]
    assert [s.line(ADA), s.line(BEA), s.line(CAIO)] == [[], ["1", "2", "3", "5"], ["4"]]
    assert s.current_player == BEA
    assert s.pending() == ("offer", None)
    assert s.next_card() == "6"


@pytest.mark.rules("V-011")
def test_initial_deal_none_reading() -> None:
    """With initial_deal none the round opens with offers, from the dealer's left, to empty lines."""
    g = Game("vengeance", 3, options={"initial_deal": "none"})
    s = g.new_initial_state(stack=["5", "6"], dealer=CAIO)
    assert s.current_player == ADA
    assert s.pending() == ("offer", None)
    assert [s.line(p) for p in (ADA, BEA, CAIO)] == [[], [], []]
    assert s.next_card() == "5"
    assert of_type(s.events(), "dealt") == []


@pytest.mark.rules("V-012", "V-016", "V-013")
def test_offers_clockwise_skipping_stayed_and_busted() -> None:
    """Four players, Dov dealing: offers go Ada, Dov, Ada... passing stayed Bea and busted Caio; each hit is one card."""
    g = Game("vengeance", 4)
    s = g.new_position(
        dealer=DOV,
        lines={ADA: ["1"], BEA: ["2"], CAIO: ["3", "3"], DOV: ["4"]},
        statuses={BEA: "stayed", CAIO: "busted"},
        draw=["5", "6", "8", "9"],
    )
    assert s.current_player == ADA
    s = hit(s)
    assert s.line(ADA) == ["1", "5"]
    assert of_type(s.last_events(), "dealt") == [{"seat": ADA, "card": "5", "via": "hit"}]
    assert s.current_player == DOV
    s = hit(s)
    assert s.line(DOV) == ["4", "6"]
    assert s.current_player == ADA
    s = s.apply("stay")
    assert s.current_player == DOV
    assert s.status(DOV) is Status.ACTIVE
    s = s.apply("stay")
    assert s.round_scores() == (6, 2, 0, 10)


@pytest.mark.rules("V-013", "V-050", "V-040")
def test_hit_resolves_the_card_at_once() -> None:
    """A revealed modifier or action asks at once for its recipient; a number simply joins the line."""
    s = position({ADA: ["1"], BEA: ["2"], CAIO: ["3"]}, ["-2", "steal", "9"])
    s = hit(s)
    assert s.current_player == ADA
    assert s.pending() == ("play", "-2")
    s = s.apply("target 1")
    assert s.line(BEA) == ["2", "-2"]
    assert s.current_player == BEA
    s = hit(s)
    assert s.pending() == ("play", "steal")
    s = s.apply("target 1").apply("steal 0 0")
    assert s.line(BEA) == ["2", "-2", "1"]
    assert s.line(ADA) == []
    assert all(c not in ("steal", "-2") for p in (ADA, CAIO) for c in s.line(p))
    assert ids(GAME, s.discard) == Counter({"steal": 1})
    assert s.current_player == CAIO
    s = hit(s)
    assert s.line(CAIO) == ["3", "9"]


@pytest.mark.rules("V-014", "V-015", "V-042")
def test_stayed_line_can_be_stolen_from_and_still_scores() -> None:
    """Bea stayed on 5 and 9; Ada steals her 9; Bea stays stayed and scores the 5 at round end; nothing banked before."""
    s = position({ADA: ["1"], BEA: ["5", "9"], CAIO: ["3"]}, ["steal", "8"], statuses={BEA: "stayed"}, totals=[10, 20, 30])
    assert s.totals == (10, 20, 30)
    s = hit(s)
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = s.apply("target 0")
    assert s.legal_action_strings() == ["steal 1 0", "steal 1 1", "steal 2 0"]
    s = s.apply("steal 1 1")
    assert s.line(ADA) == ["1", "9"]
    assert s.line(BEA) == ["5"]
    assert s.status(BEA) is Status.STAYED
    assert s.totals == (10, 20, 30)
    assert s.current_player == CAIO
    s = s.apply("stay").apply("stay")
    assert s.round_scores() == (10, 5, 3)
    assert s.totals == (20, 25, 33)


@pytest.mark.rules("V-015", "V-044", "V-020")
def test_stayed_player_may_bust_on_an_action() -> None:
    """Stayed Bea (5) must take a Flip Four and busts on a 5; she scores 0."""
    s = position({ADA: ["1"], BEA: ["5"], CAIO: ["3"]}, ["flip_four", "8", "5", "6"], statuses={BEA: "stayed"})
    s = flip(hit(s).apply("target 1"), 2)
    assert s.status(BEA) is Status.BUSTED
    assert s.next_card() == "6"
    assert s.current_player == CAIO
    s = s.apply("stay").apply("stay")
    assert s.round_scores() == (1, 0, 3)


@pytest.mark.rules("V-014", "V-042", "V-050")
def test_stayed_targetable_no_reading_shields_stayed_lines() -> None:
    """Under stayed_targetable no (not the default) stayed Bea can be given neither actions nor modifiers."""
    g = Game("vengeance", 3, options={"stayed_targetable": "no"})
    s = position({ADA: ["1"], BEA: ["5"], CAIO: ["3"]}, ["steal", "-4"], statuses={BEA: "stayed"}, game=g)
    s = hit(s)
    assert s.legal_action_strings() == ["target 0", "target 2"]
    s = s.apply("target 0")
    assert s.legal_action_strings() == ["steal 2 0"]
    d = position({ADA: ["1"], BEA: ["5"], CAIO: ["3"]}, ["-4"], statuses={BEA: "stayed"})
    assert hit(d).legal_action_strings() == ["target 0", "target 1", "target 2"]


@pytest.mark.rules("V-017")
def test_stay_needs_nothing_but_no_zero() -> None:
    """By default a player may stay even with an empty line (and scores 0); stay_requires any-card forbids that."""
    s = position({ADA: [], BEA: ["2"], CAIO: ["3"]})
    assert s.legal_action_strings() == ["hit", "stay"]
    s = s.apply("stay")
    assert s.status(ADA) is Status.STAYED
    s = s.apply("stay").apply("stay")
    assert s.round_scores() == (0, 2, 3)
    strict = Game("vengeance", 3, options={"stay_requires": "any-card"})
    assert position({ADA: [], BEA: ["2"], CAIO: ["3"]}, game=strict).legal_action_strings() == ["hit"]
    assert position({ADA: ["-2"], BEA: ["2"], CAIO: ["3"]}, game=strict).legal_action_strings() == ["hit", "stay"]


# --------------------------------------------------------------------------- bust and Flip 7


@pytest.mark.rules("V-020", "V-060")
def test_duplicate_busts_and_scores_zero() -> None:
    """Ada (5, 9, -2) draws a 9: she busts, keeps her face-down line, gets no more offers and scores 0."""
    s = position({ADA: ["5", "9", "-2"], BEA: ["2"], CAIO: ["3"]}, ["9", "4"])
    s = hit(s)
    assert s.status(ADA) is Status.BUSTED
    assert s.line(ADA) == ["5", "9", "-2", "9"]
    assert s.line_value(ADA) == 0
    assert of_type(s.last_events(), "busted") == [{"seat": ADA, "card": "9"}]
    assert s.current_player == BEA
    s = s.apply("stay")
    assert s.current_player == CAIO
    s = s.apply("stay")
    assert s.round_scores() == (0, 2, 3)


@pytest.mark.rules("V-021", "V-042", "V-045")
def test_busted_cards_cannot_be_stolen_or_swapped() -> None:
    """Busted Bea (9, 9) is no target, and her face-down cards are out of reach of Steal and Swap."""
    s = position({ADA: ["5"], BEA: ["9", "9"], CAIO: ["3"]}, ["steal", "swap", "8"], statuses={BEA: "busted"})
    s = hit(s)
    assert s.legal_action_strings() == ["target 0", "target 2"]
    s = s.apply("target 0")
    assert s.legal_action_strings() == ["steal 2 0"]
    s = s.apply("steal 2 0")
    assert s.line(ADA) == ["5", "3"]
    assert s.line(BEA) == ["9", "9"]
    assert s.current_player == CAIO
    s = hit(s)  # Caio reveals a Swap, but only Ada shows cards: it has nothing to act on
    assert of_type(s.last_events(), "discarded") == [{"card": "swap", "seat": CAIO, "reason": "no valid target"}]
    assert s.line(BEA) == ["9", "9"]
    assert s.current_player == ADA


@pytest.mark.rules("V-021", "V-047")
def test_busted_cards_cannot_be_discarded() -> None:
    """A Discard cannot go to busted Bea, and the giver picks only among the target's face-up cards."""
    s = position({ADA: ["5"], BEA: ["9", "9"], CAIO: ["3", "-6"]}, ["discard", "8"], statuses={BEA: "busted"})
    s = hit(s)
    assert s.legal_action_strings() == ["target 0", "target 2"]
    s = s.apply("target 2")
    assert s.current_player == ADA
    assert s.legal_action_strings() == ["discard 2 0", "discard 2 1"]
    s = s.apply("discard 2 1")
    assert s.line(CAIO) == ["3"]
    assert of_type(s.last_events(), "card_discarded") == [{"seat": CAIO, "card": "-6", "by": ADA}]


@pytest.mark.rules("V-022", "V-051", "V-070")
def test_flip7_ends_round_at_once_and_modifiers_do_not_count() -> None:
    """Ada's six numbers and a -2 are no Flip 7; her seventh number ends the round for all with +15."""
    s = position({ADA: ["1", "2", "3", "4", "5", "6", "-2"], BEA: ["9"], CAIO: ["10"]}, ["-4", "7", "8"])
    s = hit(s).apply("target 0")
    assert s.line(ADA) == ["1", "2", "3", "4", "5", "6", "-2", "-4"]
    assert of_type(s.events(), "flip7") == []
    assert s.round == 1
    s = s.apply("stay")  # Bea
    s = s.apply("stay")  # Caio
    s = hit(s)
    assert of_type(s.last_events(), "flip7") == [{"seat": ADA}]
    assert of_type(s.last_events(), "round_scored") == [
        {"round": 1, "scores": [28 - 6 + 15, 9, 10], "totals": [37, 9, 10], "flip7": ADA}
    ]
    assert s.round == 2


@pytest.mark.rules("V-022", "V-070")
def test_flip7_ends_round_while_others_are_active() -> None:
    """Bea and Caio are still active when Ada makes Flip 7: the round ends at once and both score their lines."""
    s = position({ADA: ["1", "2", "3", "4", "5", "6"], BEA: ["9", "12"], CAIO: ["10", "-2"]}, ["13", "8"])
    assert s.status(BEA) is Status.ACTIVE
    s = hit(s)
    assert s.round_scores() == (21 + 13 + 15, 21, 8)
    assert s.round == 2
    assert s.dealer == ADA


# --------------------------------------------------------------------------- The Zero, Unlucky 7, Lucky 13


@pytest.mark.rules("V-030", "V-031", "V-060")
def test_zero_forbids_staying_and_scores_zero() -> None:
    """Ada holding The Zero may only hit; if the round ends without her Flip 7 she scores 0."""
    s = position({ADA: ["0", "12"], BEA: ["2"], CAIO: ["3"]}, ["11", "9"])
    assert s.legal_action_strings() == ["hit"]
    with pytest.raises(IllegalActionError):
        s.apply("stay")
    assert s.line_value(ADA) == 0
    s = hit(s)
    assert s.line(ADA) == ["0", "12", "11"]
    s = s.apply("stay").apply("stay")
    assert s.current_player == ADA
    assert s.legal_action_strings() == ["hit"]
    s = hit(s)  # a 9; Ada is the only active player and must keep hitting
    assert s.current_player == ADA
    assert s.legal_action_strings() == ["hit"]
    assert s.line_value(ADA) == 0
    assert score_of(SOLO, ["0", "12", "11", "9", "-2"]) == 0


@pytest.mark.rules("V-030", "V-032", "V-052", "V-022")
def test_zero_with_flip7_scores_normally_with_modifiers() -> None:
    """The Zero in a Flip 7 with ÷2 and -4: 21 -> 10 -> 6 -> +15 = 21; The Zero counts as one of the seven."""
    result = score_cards(SOLO, ["0", "1", "2", "3", "4", "5", "6", "/2", "-4"])
    assert result.flip7 is True
    assert [v for _, v in result.steps] == [21, 10, 6, 6, 6, 21]
    s = position({ADA: ["0", "1", "2", "3", "4", "5", "/2", "-4"], BEA: ["9"], CAIO: ["10"]}, ["6", "8"])
    s = hit(s)
    assert of_type(s.last_events(), "flip7") == [{"seat": ADA}]
    assert s.round_scores() == (21, 9, 10)


@pytest.mark.rules("V-033", "V-051")
def test_unlucky7_wipes_numbers_and_modifiers() -> None:
    """Unlucky 7 discards every other number and modifier (The Zero and Lucky 13 too) and never busts."""
    s = position({ADA: ["0", "lucky13", "13", "4", "/2", "-10"], BEA: ["2"], CAIO: ["3"]}, ["unlucky7", "8"])
    s = hit(s)
    assert s.status(ADA) is Status.ACTIVE
    assert s.line(ADA) == ["unlucky7"]
    assert of_type(s.last_events(), "line_wiped") == [{"seat": ADA, "cards": ["0", "lucky13", "13", "4", "/2", "-10"]}]
    assert ids(GAME, s.discard) == Counter({"0": 1, "lucky13": 1, "13": 1, "4": 1, "/2": 1, "-10": 1})
    assert s.line_value(ADA) == 7
    s = s.apply("stay").apply("stay")
    assert s.legal_action_strings() == ["hit", "stay"]  # freed from The Zero
    s = s.apply("stay")
    assert s.round_scores() == (7, 2, 3)


@pytest.mark.rules("V-034", "V-020")
def test_regular_seven_after_unlucky7_busts() -> None:
    """With Unlucky 7 already in her line (it arrived earlier), a regular 7 busts Ada."""
    s = position({ADA: ["unlucky7", "5"], BEA: ["2"], CAIO: ["3"]}, ["7", "8"])
    s = hit(s)
    assert s.status(ADA) is Status.BUSTED
    assert s.line(ADA) == ["unlucky7", "5", "7"]
    assert of_type(s.last_events(), "busted") == [{"seat": ADA, "card": "7"}]


@pytest.mark.rules("V-035", "V-044")
def test_unlucky7_in_flip_four_wipes_then_flips_go_on() -> None:
    """Ada (8, 9, -2) flips 4, Unlucky 7, 8, 9 in a Flip Four: the line is wiped at the 7, then 8 and 9 join it."""
    s = position({ADA: ["8", "9", "-2"], BEA: ["2"], CAIO: ["3"]}, ["flip_four", "4", "unlucky7", "8", "9", "12"])
    s = flip(hit(s).apply("target 0"), 2)
    assert s.line(ADA) == ["unlucky7"]
    assert s.current_player == CHANCE
    s = flip(s, 2)
    assert s.status(ADA) is Status.ACTIVE
    assert s.line(ADA) == ["unlucky7", "8", "9"]
    assert of_type(s.last_events(), "forced_draw_ended") == [{"seat": ADA, "card": "flip_four", "outcome": "complete"}]
    assert len([e for e in of_type(s.events(), "dealt") if e["via"] == "flip_four"]) == 4
    assert s.next_card() == "12"
    assert s.line_value(ADA) == 24


@pytest.mark.rules("V-036", "V-022")
def test_lucky13_pair_either_order_counts_twice_for_flip7() -> None:
    """A 13 then Lucky 13 is no bust; with 1..4 and 5 the two 13s make seven numbers: Flip 7 worth 41 + 15."""
    s = position({ADA: ["13", "1", "2", "3", "4"], BEA: ["9"], CAIO: ["10"]}, ["lucky13", "5", "8"])
    s = hit(s)
    assert s.status(ADA) is Status.ACTIVE
    assert s.line(ADA) == ["13", "1", "2", "3", "4", "lucky13"]
    s = s.apply("stay").apply("stay")
    s = hit(s)
    assert of_type(s.last_events(), "flip7") == [{"seat": ADA}]
    assert s.round_scores() == (26 + 15 + 15, 9, 10)
    assert score_cards(SOLO, ["lucky13", "13", "1", "2", "3", "4", "5"]).score == 56


@pytest.mark.rules("V-036")
def test_lucky13_once_reading() -> None:
    """Under lucky13_flip7 once (not the default) the two 13s are one number: seven cards, six numbers, no Flip 7."""
    g = Game("vengeance", 1, options={"lucky13_flip7": "once"})
    result = score_cards(g, ["lucky13", "13", "1", "2", "3", "4", "5"])
    assert result.flip7 is False
    assert result.score == 41


@pytest.mark.rules("V-036", "V-020")
def test_third_thirteen_busts_even_with_lucky13() -> None:
    """Ada holds Lucky 13 and a 13; a third 13 busts her."""
    s = position({ADA: ["lucky13", "13", "2"], BEA: ["9"], CAIO: ["10"]}, ["13", "8"])
    s = hit(s)
    assert s.status(ADA) is Status.BUSTED
    assert of_type(s.last_events(), "busted") == [{"seat": ADA, "card": "13"}]


@pytest.mark.rules("V-037", "V-031", "V-046")
def test_stolen_zero_moves_the_must_hit_duty() -> None:
    """Bea steals Ada's Zero: Bea may no longer stay and scores 0; Ada, freed, may stay and scores her 5."""
    s = position({ADA: ["0", "5"], BEA: ["2"], CAIO: ["3"]}, ["steal", "8", "9"], turn=BEA)
    s = hit(s).apply("target 1")
    assert s.legal_action_strings() == ["steal 0 0", "steal 0 1", "steal 2 0"]
    s = s.apply("steal 0 0")
    assert s.line(BEA) == ["2", "0"]
    assert s.line(ADA) == ["5"]
    assert s.current_player == CAIO
    s = s.apply("stay")
    assert s.current_player == ADA
    assert s.legal_action_strings() == ["hit", "stay"]
    s = s.apply("stay")
    assert s.current_player == BEA
    assert s.legal_action_strings() == ["hit"]
    s = hit(s)
    assert s.line(BEA) == ["2", "0", "8"]
    assert s.current_player == BEA
    assert s.line_value(BEA) == 0


@pytest.mark.rules("V-037", "V-033", "V-046")
def test_stolen_unlucky7_wipes_the_thiefs_line() -> None:
    """Ada steals Bea's Unlucky 7: Ada's other cards (including her 7) are discarded, without a bust."""
    s = position({ADA: ["7", "12", "-4"], BEA: ["unlucky7"], CAIO: ["3"]}, ["steal", "8"])
    s = hit(s).apply("target 0").apply("steal 1 0")
    assert s.status(ADA) is Status.ACTIVE
    assert s.line(ADA) == ["unlucky7"]
    assert s.line(BEA) == []
    assert of_type(s.last_events(), "line_wiped") == [{"seat": ADA, "cards": ["7", "12", "-4"]}]


@pytest.mark.rules("V-037", "V-036", "V-045")
def test_lucky13_effect_follows_the_card() -> None:
    """Ada swaps her Lucky 13 to Caio: Caio may now pair a 13, while Ada's lone 13 busts on the next 13."""
    s = position({ADA: ["lucky13", "13"], BEA: ["2"], CAIO: ["3"]}, ["swap", "8", "13", "13", "9"])
    s = hit(s).apply("target 0").apply("swap 0 0 2 0")
    assert s.line(ADA) == ["13", "3"]
    assert s.line(CAIO) == ["lucky13"]
    assert s.status(ADA) is Status.ACTIVE
    s = hit(s)  # Bea: 8
    s = hit(s)  # Caio: 13 beside his Lucky 13
    assert s.status(CAIO) is Status.ACTIVE
    assert s.line(CAIO) == ["lucky13", "13"]
    assert s.line_value(CAIO) == 26
    s = hit(s)  # Ada: 13 beside her regular 13
    assert s.status(ADA) is Status.BUSTED
    assert of_type(s.last_events(), "busted") == [{"seat": ADA, "card": "13"}]


@pytest.mark.rules("V-037", "V-031", "V-047")
def test_discarded_zero_frees_its_holder() -> None:
    """Ada's Discard on Bea removes Bea's Zero (Ada picks it): Bea may stay again and scores her 4."""
    s = position({ADA: ["1"], BEA: ["0", "4"], CAIO: ["3"]}, ["discard", "8"], turn=CAIO)
    s = s.apply("stay")
    assert s.current_player == ADA
    s = hit(s).apply("target 1")
    assert s.current_player == ADA
    s = s.apply("discard 1 0")
    assert s.line(BEA) == ["4"]
    assert of_type(s.last_events(), "card_discarded") == [{"seat": BEA, "card": "0", "by": ADA}]
    assert s.current_player == BEA
    assert s.legal_action_strings() == ["hit", "stay"]
    s = s.apply("stay").apply("stay")
    assert s.round_scores() == (1, 4, 3)


@pytest.mark.rules("V-037", "V-038", "V-043", "V-022")
def test_stolen_zero_frees_its_holder_of_the_flip7_bar() -> None:
    """Ada (The Zero 1 2 3 4) takes Bea's Just One More, draws a 5 and must stop: her Flip 7
    is barred (D-V-26).  Caio steals her Zero; the Dutch text frees her of its effect
    (V-037), so Bea's Flip Four brings her seventh different number (6, 8) and a Flip 7 that
    ends the round: 29 + 15 = 44, not 29 with the round going on."""
    s = position({ADA: ["0", "1", "2", "3", "4"], BEA: ["9"], CAIO: ["10"]},
                 ["just_one_more", "5", "steal", "flip_four", "6", "8", "11", "12", "7"], turn=BEA, dealer=ADA)  # fmt: skip
    s = play(s, "hit", "target 0")
    assert s.status(ADA) is Status.STAYED and s.players[ADA].flip7_barred
    s = play(s, "hit", "target 2", "steal 0 0")
    assert s.line(ADA) == ["1", "2", "3", "4", "5"] and not s.players[ADA].flip7_barred
    s = play(s, "hit", "target 0")
    assert [e.get("seat") for e in s.events() if e.type == "flip7"] == [ADA]
    assert s.round == 2
    assert s.last_scores == (44, 9, 0)


# --------------------------------------------------------------------------- actions


@pytest.mark.rules("V-040", "V-049")
def test_action_card_never_lies_in_a_line() -> None:
    """An action is discarded once resolved; a position cannot put one in a line."""
    s = position({ADA: ["1"], BEA: ["2"], CAIO: ["3"]}, ["just_one_more", "6", "8"])
    s = flip(hit(s).apply("target 1"))
    assert s.line(BEA) == ["2", "6"]
    assert s.status(BEA) is Status.STAYED
    assert ids(GAME, s.discard) == Counter({"just_one_more": 1})
    assert all(s.kept(p) == [] for p in (ADA, BEA, CAIO))
    with pytest.raises(CardError):
        GAME.new_position(lines={ADA: ["steal"]})


@pytest.mark.rules("V-041", "V-048", "V-047")
def test_action_targets_only_players_it_can_act_on() -> None:
    """A Discard goes to any player not busted, one with no card included (D-V-28 fizzle; under
    refuse only to a player with a face-up card); with none anywhere it is discarded, no card replaces it."""
    s = position({ADA: ["5"], BEA: [], CAIO: ["3"]}, ["discard", "8"], turn=BEA)
    s = hit(s)
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    refused = mid_round({ADA: ["5"], BEA: [], CAIO: ["3"]}, ["discard", "8"], game=REFUSE, dealer=CAIO, turn=BEA)
    assert hit(refused).legal_action_strings() == ["target 0", "target 2"]
    empty = position({ADA: [], BEA: [], CAIO: []}, ["discard", "steal", "swap", "8"])
    empty = hit(empty)
    assert of_type(empty.last_events(), "discarded") == [{"card": "discard", "seat": ADA, "reason": "no valid target"}]
    assert empty.line(ADA) == []
    assert empty.current_player == BEA
    empty = hit(hit(empty))
    assert [e["card"] for e in of_type(empty.events(), "discarded")] == ["discard", "steal", "swap"]
    assert [empty.line(p) for p in (ADA, BEA, CAIO)] == [[], [], []]
    assert empty.current_player == ADA
    assert empty.next_card() == "8"


@pytest.mark.rules("V-042", "V-050")
def test_lone_non_busted_player_plays_on_themselves() -> None:
    """Ada, the only player not busted, must play a Flip Four and give a -6 to herself."""
    s = position(
        {ADA: ["1"], BEA: ["9", "9"], CAIO: ["4", "4"]},
        ["flip_four", "2", "-6", "3", "5", "12"],
        statuses={BEA: "busted", CAIO: "busted"},
    )
    s = hit(s)
    assert s.legal_action_strings() == ["target 0"]
    s = flip(s.apply("target 0"), 4)
    assert s.pending() == ("play", "-6")
    assert s.legal_action_strings() == ["target 0"]
    s = s.apply("target 0")
    assert s.line(ADA) == ["1", "2", "3", "5", "-6"]
    assert s.current_player == ADA
    s = s.apply("stay")
    assert s.round_scores() == (5, 0, 0)


@pytest.mark.rules("V-042", "V-049")
def test_actions_may_target_self_and_stayed_players() -> None:
    """A Swap may go to the revealer, an active or a stayed player; stayed Caio, chosen, carries it out and stays stayed."""
    s = position({ADA: ["1"], BEA: ["2"], CAIO: ["3"]}, ["swap", "5"], statuses={CAIO: "stayed"})
    s = hit(s)
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = s.apply("target 2")
    assert s.current_player == CAIO
    assert s.pending() == ("cards", "swap")
    s = s.apply("swap 0 0 1 0")
    assert [s.line(ADA), s.line(BEA)] == [["2"], ["1"]]
    assert of_type(s.last_events(), "swapped") == [
        {"seat": CAIO, "first": ADA, "first_card": "1", "second": BEA, "second_card": "2"}
    ]
    assert s.status(CAIO) is Status.STAYED
    assert s.current_player == BEA


@pytest.mark.rules("V-043")
def test_just_one_more_draws_one_then_stays() -> None:
    """Just One More on active Bea: one card at once (a -8 she gives Caio), then Bea stays; a stayed target stays stayed."""
    s = position({ADA: ["1"], BEA: ["2"], CAIO: ["3"]}, ["just_one_more", "-8", "just_one_more", "9", "8"])
    s = flip(hit(s).apply("target 1"))
    assert s.current_player == BEA
    assert s.pending() == ("play", "-8")
    s = s.apply("target 2")
    assert s.line(CAIO) == ["3", "-8"]
    assert s.status(BEA) is Status.STAYED
    assert of_type(s.last_events(), "stayed") == [{"seat": BEA, "reason": "just_one_more"}]
    assert s.current_player == CAIO
    s = flip(hit(s).apply("target 1"))
    assert s.line(BEA) == ["2", "9"]
    assert s.status(BEA) is Status.STAYED
    assert s.current_player == ADA
    s = s.apply("stay").apply("stay")
    assert s.round_scores() == (1, 11, 0)


@pytest.mark.rules("V-043", "V-020")
def test_just_one_more_bust_and_action_card() -> None:
    """Just One More's card busts Bea (no stay); another's card is a Steal that its target resolves before staying."""
    s = position({ADA: ["1"], BEA: ["2"], CAIO: ["3"]}, ["just_one_more", "2", "just_one_more", "steal", "8"])
    s = flip(hit(s).apply("target 1"))
    assert s.status(BEA) is Status.BUSTED
    assert of_type(s.last_events(), "stayed") == []
    assert s.current_player == CAIO
    s = flip(hit(s).apply("target 2"))
    assert s.current_player == CAIO
    assert s.pending() == ("play", "steal")
    assert s.status(CAIO) is Status.ACTIVE
    s = s.apply("target 2").apply("steal 0 0")
    assert s.line(CAIO) == ["3", "1"]
    assert s.status(CAIO) is Status.STAYED
    assert s.current_player == ADA


@pytest.mark.rules("V-044", "V-047", "V-050")
def test_flip_four_held_cards_resolved_in_reveal_order() -> None:
    """Caio's Flip Four on Ada reveals -2, Discard, 5, 6: every kind counts; then Ada gives the -2, then plays the Discard."""
    s = position({ADA: ["1"], BEA: ["2", "11"], CAIO: ["3"]}, ["flip_four", "-2", "discard", "5", "6", "9"], turn=CAIO)
    s = hit(s).apply("target 0")
    s = flip(s, 3)
    assert s.current_player == CHANCE
    assert s.line(ADA) == ["1", "5"]
    s = flip(s)
    assert [e["card"] for e in of_type(s.events(), "set_aside")] == ["-2", "discard"]
    assert s.next_card() == "9"
    assert s.current_player == ADA
    assert s.pending() == ("play", "-2")
    s = s.apply("target 1")
    assert s.line(BEA) == ["2", "11", "-2"]
    assert s.current_player == ADA
    assert s.pending() == ("play", "discard")
    s = s.apply("target 1")
    assert s.legal_action_strings() == ["discard 1 0", "discard 1 1", "discard 1 2"]
    s = s.apply("discard 1 1")
    assert s.line(BEA) == ["2", "-2"]
    assert s.line(ADA) == ["1", "5", "6"]
    assert s.current_player == ADA  # the offers go on after Caio
    assert ids(GAME, s.discard) == Counter({"flip_four": 1, "discard": 1, "11": 1})


@pytest.mark.rules("V-045", "V-051")
def test_swap_number_for_modifier_between_two_other_players() -> None:
    """Ada swaps Bea's 12 with Caio's -6 (two other players' cards); never two cards of one line."""
    s = position({ADA: ["1"], BEA: ["12", "4"], CAIO: ["3", "-6"]}, ["swap", "8"])
    s = hit(s).apply("target 0")
    legal = s.legal_action_strings()
    assert "swap 1 0 2 1" in legal
    assert "swap 0 0 1 0" in legal
    assert not any(a.split()[1] == a.split()[3] for a in legal)
    assert len(legal) == 1 * 2 + 1 * 2 + 2 * 2
    s = s.apply("swap 1 0 2 1")
    assert s.line(BEA) == ["4", "-6"]
    assert s.line(CAIO) == ["3", "12"]
    assert s.line(ADA) == ["1"]
    assert [s.status(p) for p in (ADA, BEA, CAIO)] == [Status.ACTIVE] * 3
    assert (s.line_value(BEA), s.line_value(CAIO)) == (0, 15)


@pytest.mark.rules("V-045", "V-022")
def test_swap_can_complete_a_flip7() -> None:
    """Ada (1..6 and -2) swaps her -2 for Bea's 9: seven numbers, Flip 7, the round ends."""
    s = position({ADA: ["1", "2", "3", "4", "5", "6", "-2"], BEA: ["9"], CAIO: ["3"]}, ["swap", "8"])
    s = hit(s).apply("target 0").apply("swap 0 6 1 0")
    assert of_type(s.last_events(), "flip7") == [{"seat": ADA}]
    assert s.round_scores() == (30 + 15, 0, 3)


@pytest.mark.rules("V-046", "V-022", "V-051")
def test_steal_completes_flip7_or_takes_a_modifier() -> None:
    """Ada (1..6) steals Bea's 9 for a Flip 7 worth 30 + 15; a Steal may also take a modifier."""
    s = position({ADA: ["1", "2", "3", "4", "5", "6"], BEA: ["9", "-4"], CAIO: ["3"]}, ["steal", "8"])
    s = hit(s).apply("target 0")
    assert s.legal_action_strings() == ["steal 1 0", "steal 1 1", "steal 2 0"]
    t = s.apply("steal 1 1")
    assert t.line(ADA) == ["1", "2", "3", "4", "5", "6", "-4"]
    assert t.status(ADA) is Status.ACTIVE
    assert t.line_value(BEA) == 9
    s = s.apply("steal 1 0")
    assert of_type(s.last_events(), "flip7") == [{"seat": ADA}]
    assert s.round_scores() == (21 + 9 + 15, 0, 3)


@pytest.mark.rules("V-014", "V-046", "V-022")
def test_stayed_player_completes_flip7_by_steal() -> None:
    """Stayed Ada (1..6) is given Bea's Steal and takes Bea's 9: seven numbers in a stayed line still make a Flip 7."""
    s = position({ADA: ["1", "2", "3", "4", "5", "6"], BEA: ["9"], CAIO: ["3"]}, ["steal", "8"], statuses={ADA: "stayed"})
    assert s.current_player == BEA
    s = hit(s).apply("target 0")
    assert s.current_player == ADA
    assert s.legal_action_strings() == ["steal 1 0", "steal 2 0"]
    s = s.apply("steal 1 0")
    assert of_type(s.last_events(), "flip7") == [{"seat": ADA}]
    assert s.round_scores() == (21 + 9 + 15, 0, 3)


@pytest.mark.rules("V-046", "V-036")
def test_steal_duplicate_busts_unless_lucky13() -> None:
    """Stealing a 12 onto a 12 busts Ada; stealing Lucky 13 onto her 13 does not."""
    s = position({ADA: ["12", "13"], BEA: ["12", "lucky13"], CAIO: ["3"]}, ["steal", "8"])
    s = hit(s).apply("target 0")
    assert s.apply("steal 1 0").status(ADA) is Status.BUSTED
    t = s.apply("steal 1 1")
    assert t.status(ADA) is Status.ACTIVE
    assert t.line(ADA) == ["12", "13", "lucky13"]
    assert t.line_value(ADA) == 38


@pytest.mark.rules("V-047", "V-049")
def test_discard_picked_by_the_player_who_played_it() -> None:
    """Ada plays a Discard on Bea: Ada (not Bea) picks which of Bea's cards goes; recipient reading lets Bea pick."""
    s = position({ADA: ["1"], BEA: ["12", "/2", "4"], CAIO: ["3"]}, ["discard", "8"])
    s = hit(s).apply("target 1")
    assert s.current_player == ADA
    assert s.pending() == ("cards", "discard")
    assert s.legal_action_strings() == ["discard 1 0", "discard 1 1", "discard 1 2"]
    s = s.apply("discard 1 0")
    assert s.line(BEA) == ["/2", "4"]
    assert of_type(s.last_events(), "card_discarded") == [{"seat": BEA, "card": "12", "by": ADA}]
    assert s.line_value(BEA) == 2
    g = Game("vengeance", 3, options={"discard_chooser": "recipient"})
    r = hit(position({ADA: ["1"], BEA: ["12", "/2", "4"], CAIO: ["3"]}, ["discard", "8"], game=g)).apply("target 1")
    assert r.current_player == BEA
    assert r.legal_action_strings() == ["discard 1 0", "discard 1 1", "discard 1 2"]


@pytest.mark.rules("V-047", "V-052")
def test_discard_own_halving_card() -> None:
    """Ada plays a Discard on herself and throws away her own ÷2: the halving effect ends."""
    s = position({ADA: ["12", "10", "/2"], BEA: ["2"], CAIO: ["3"]}, ["discard", "8"])
    assert s.line_value(ADA) == 11
    s = hit(s).apply("target 0").apply("discard 0 2")
    assert s.line(ADA) == ["12", "10"]
    assert s.line_value(ADA) == 22


@pytest.mark.rules("V-048", "V-046")
def test_steal_with_nothing_to_take_is_discarded_mid_round() -> None:
    """A Steal may go to the only player showing cards and has no effect there (D-V-28 fizzle; under
    refuse it cannot go there); with no other face-up card it is discarded, nothing replaces it."""
    s = position({ADA: ["5"], BEA: [], CAIO: []}, ["steal", "9"], turn=BEA)
    s = hit(s)
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    fizzled = play(s, "target 0")
    assert of_type(fizzled.last_events(), "discarded") == [{"card": "steal", "seat": ADA, "reason": "no valid target"}]
    assert fizzled.line(ADA) == ["5"] and fizzled.current_player == CAIO
    refused = mid_round({ADA: ["5"], BEA: [], CAIO: []}, ["steal", "9"], game=REFUSE, dealer=CAIO, turn=BEA)
    assert hit(refused).legal_action_strings() == ["target 1", "target 2"]
    lone = position({ADA: ["5"], BEA: ["4", "4"], CAIO: ["3", "3"]}, ["steal", "9"], statuses={BEA: "busted", CAIO: "busted"})
    lone = hit(lone)
    assert of_type(lone.last_events(), "discarded") == [{"card": "steal", "seat": ADA, "reason": "no valid target"}]
    assert lone.line(ADA) == ["5"]
    assert lone.current_player == ADA
    assert lone.pending() == ("offer", None)
    assert lone.next_card() == "9"


# --------------------------------------------------------------------------- modifiers


@pytest.mark.rules("V-050", "V-051")
def test_modifier_given_to_chosen_player_never_busts() -> None:
    """A -6 goes to any non-busted player; two modifiers in one line never bust; busted Caio cannot get one."""
    s = position({ADA: ["1", "-4"], BEA: ["2"], CAIO: ["3", "3"]}, ["-6", "8"], statuses={CAIO: "busted"})
    s = hit(s)
    assert s.legal_action_strings() == ["target 0", "target 1"]
    s = s.apply("target 0")
    assert s.line(ADA) == ["1", "-4", "-6"]
    assert s.status(ADA) is Status.ACTIVE
    assert s.line_value(ADA) == 0


@pytest.mark.rules("V-052", "V-053", "V-060")
@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        (["13", "12", "/2"], 12),
        (["13", "12", "/2", "-2"], 10),
        (["3", "/2", "-2"], 0),
        (["11", "-10"], 1),
        (["5", "-2", "-4"], 0),
        (["-8"], 0),
        (["/2"], 0),
        (["1", "2", "3", "4", "5", "6", "8", "/2", "-10"], 29 // 2 - 10 + 15),
        (["0", "9", "13", "-2"], 0),
    ],
    ids=["half-down", "half-then-minus", "floor", "plus-one", "two-negatives", "only-negative", "only-half", "flip7", "zero"],
)
def test_scoring_pipeline(cards: list[str], expected: int) -> None:
    """Numbers, ÷2 rounding down, negatives after it, a floor of 0, The Zero, then +15 for a Flip 7."""
    assert score_of(SOLO, cards) == expected


@pytest.mark.rules("V-052", "V-053", "V-060", "V-070")
def test_round_scores_of_played_lines() -> None:
    """At round end: Ada 9, 4 and ÷2 scores 6; Bea 5 with -8 scores 0; Caio busted scores 0."""
    s = position(
        {ADA: ["9", "4", "/2"], BEA: ["5", "-8"], CAIO: ["6", "6", "-2"]}, statuses={CAIO: "busted"}, totals=[100, 50, 20]
    )
    s = s.apply("stay")
    assert s.round == 1
    s = s.apply("stay")
    assert s.round_scores() == (6, 0, 0)
    assert s.totals == (106, 50, 20)


# --------------------------------------------------------------------------- round end, next round, game end


@pytest.mark.rules("V-070", "V-071")
def test_round_end_clears_table_and_passes_the_deal_left() -> None:
    """When the last active player stays the round is scored; its cards go to the discard pile and Ada deals next."""
    s = GAME.new_position(
        dealer=CAIO,
        lines={ADA: ["5", "-2"], BEA: ["9", "9"], CAIO: ["3", "unlucky7"]},
        statuses={BEA: "busted"},
        draw=["4", "8"],
        rest="discard",
    )
    before = ids(GAME, s.discard)
    s = s.apply("stay")
    assert s.round == 1
    assert s.current_player == CAIO
    s = s.apply("stay")
    assert s.round_scores() == (3, 0, 10)
    assert of_type(s.last_events(), "round_started") == [{"round": 2, "dealer": ADA}]
    assert s.dealer == ADA
    assert [s.line(p) for p in (ADA, BEA, CAIO)] == [[], [], []]
    assert ids(GAME, s.discard) - before == Counter({"5": 1, "-2": 1, "9": 2, "3": 1, "unlucky7": 1})
    assert s.draw[:2] == (GAME.code("4"), GAME.code("8"))
    s = flip(s)
    assert s.line(BEA) == ["4"]  # the deal of round 2 starts on Ada's left


@pytest.mark.rules("V-072")
def test_reshuffle_takes_only_the_discard_pile() -> None:
    """The pile runs out mid-round: only the discard pile is shuffled; the lines (a busted one too) stay on the table."""
    s = GAME.new_position(
        dealer=CAIO,
        lines={ADA: ["5"], BEA: ["9", "9"], CAIO: ["3"]},
        statuses={BEA: "busted"},
        draw=["4"],
        discard=["10", "11", "12"],
        rest="out",
    )
    s = hit(s)
    assert s.line(ADA) == ["5", "4"]
    assert s.draw == ()
    s = s.apply("hit")
    assert s.current_player == CHANCE
    assert of_type(s.last_events(), "reshuffled") == [{"cards": 3}]
    assert ids(GAME, s.draw) == Counter({"10": 1, "11": 1, "12": 1})
    assert s.discard == ()
    assert s.line(BEA) == ["9", "9"]
    assert s.line(ADA) == ["5", "4"]
    s = flip(s)
    assert len(s.line(CAIO)) == 2


@pytest.mark.rules("V-072")
def test_empty_deck_and_discard_hit_counts_as_stay() -> None:
    """Project reading: with no card left anywhere, a hit makes the player stay."""
    s = GAME.new_position(dealer=CAIO, lines={ADA: ["5"], BEA: ["9"], CAIO: ["3"]}, draw=[], rest="out")
    s = s.apply("hit")
    assert s.status(ADA) is Status.STAYED
    assert of_type(s.last_events(), "stayed") == [{"seat": ADA, "reason": "empty deck"}]


@pytest.mark.rules("V-073")
def test_game_ends_after_round_reaching_200_highest_wins() -> None:
    """Totals 190, 150, 195: Ada +12 = 202 and Caio +6 = 201 both pass 200; the highest, Ada, wins."""
    s = position({ADA: ["12"], BEA: ["2"], CAIO: ["6"]}, totals=[190, 150, 195])
    s = s.apply("stay").apply("stay").apply("stay")
    assert s.is_terminal()
    assert s.current_player == TERMINAL
    assert s.totals == (202, 152, 201)
    assert s.winners == (ADA,)
    assert of_type(s.last_events(), "game_won") == [{"winners": [ADA], "totals": [202, 152, 201], "rounds": 1}]
    below = position({ADA: ["12"], BEA: ["2"], CAIO: ["6"]}, totals=[180, 150, 190]).apply("stay").apply("stay").apply("stay")
    assert below.totals == (192, 152, 196)
    assert not below.is_terminal()
    assert below.round == 2


@pytest.mark.rules("V-073")
def test_solo_game_counts_rounds_to_200() -> None:
    """One player may play alone (one or two players count rounds): round 7 takes Ada from 190 to 200."""
    assert EDITION.thresholds["min_players"] == 1
    assert Game("vengeance", 2).players == 2
    s = SOLO.new_position(lines={ADA: ["10"]}, totals=[190], round_number=7)
    assert s.current_player == ADA
    s = s.apply("stay")
    assert s.winners == (ADA,)
    assert of_type(s.last_events(), "game_won") == [{"winners": [ADA], "totals": [200], "rounds": 7}]


@pytest.mark.rules("V-074")
def test_tie_at_the_top_plays_another_round() -> None:
    """Ada and Bea tie on 205: another round is played (default); shared-win ends the game with both."""
    s = position({ADA: ["12", "3"], BEA: ["5", "10"], CAIO: ["3"]}, totals=[190, 190, 100])
    s = s.apply("stay").apply("stay").apply("stay")
    assert s.totals == (205, 205, 103)
    assert not s.is_terminal()
    assert of_type(s.last_events(), "tie_another_round") == [{"leaders": [ADA, BEA]}]
    assert s.round == 2
    assert s.winners == ()
    g = Game("vengeance", 3, options={"tie": "shared-win"})
    t = position({ADA: ["12", "3"], BEA: ["5", "10"], CAIO: ["3"]}, totals=[190, 190, 100], game=g)
    t = t.apply("stay").apply("stay").apply("stay")
    assert t.winners == (ADA, BEA)


@pytest.mark.rules("V-074", "V-073")
def test_tie_broken_by_the_extra_round() -> None:
    """After the tie the next round decides: Bea outscores Ada and wins alone."""
    s = position({ADA: ["12", "3"], BEA: ["5", "10"], CAIO: ["3"]}, totals=[190, 190, 100])
    s = s.apply("stay").apply("stay").apply("stay")
    s = GAME.new_position(dealer=ADA, lines={ADA: ["2"], BEA: ["8"], CAIO: ["1"]}, totals=list(s.totals), round_number=2)
    s = s.apply("stay").apply("stay").apply("stay")
    assert s.totals == (207, 213, 104)
    assert s.winners == (BEA,)


# --------------------------------------------------------------------------- Brutal Mode


@pytest.mark.rules("V-080", "V-053")
def test_brutal_scores_go_below_zero() -> None:
    """Brutal Mode: 3 with -10 scores -7 and lowers the running total; standard play floors it at 0."""
    assert score_of(Game("vengeance", 1, options={"brutal": "true"}), ["3", "-10"]) == -7
    assert score_of(SOLO, ["3", "-10"]) == 0
    s = position({ADA: ["3", "-10"], BEA: ["12", "/2", "-8"], CAIO: ["4"]}, game=BRUTAL, totals=[5, 0, 0])
    s = s.apply("stay").apply("stay").apply("stay")
    assert s.round_scores() == (-7, -2, 4)
    assert s.totals == (-2, -2, 4)


@pytest.mark.rules("V-081", "V-050")
def test_brutal_modifiers_to_busted_players_score() -> None:
    """Brutal Mode: Ada gives a -8 to busted Bea, who then scores -8; a ÷2 on a busted player halves nothing."""
    s = position({ADA: ["1"], BEA: ["9", "9"], CAIO: ["3"]}, ["-8", "/2", "8"], statuses={BEA: "busted"}, game=BRUTAL)
    s = hit(s)
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = s.apply("target 1")
    assert s.line(BEA) == ["9", "9", "-8"]
    s = hit(s).apply("target 1")  # Caio's ÷2 also goes to Bea
    s = s.apply("stay").apply("stay")
    assert s.round_scores() == (1, -8, 3)
    standard = hit(position({ADA: ["1"], BEA: ["9", "9"], CAIO: ["3"]}, ["-8"], statuses={BEA: "busted"}))
    assert standard.legal_action_strings() == ["target 0", "target 2"]


@pytest.mark.rules("V-081", "V-042")
def test_brutal_actions_still_skip_busted_players() -> None:
    """Brutal Mode widens only modifiers: actions still go to non-busted players."""
    s = position({ADA: ["1"], BEA: ["9", "9"], CAIO: ["3"]}, ["flip_four"], statuses={BEA: "busted"}, game=BRUTAL)
    assert hit(s).legal_action_strings() == ["target 0", "target 2"]


@pytest.mark.rules("V-082", "V-081")
def test_brutal_flip7_penalty_may_hit_a_busted_player() -> None:
    """Brutal Mode: Ada's Flip 7 penalty goes to busted Bea, who scores -15; Ada scores her line without +15."""
    s = position(
        {ADA: ["1", "2", "3", "4", "5", "6"], BEA: ["9", "9"], CAIO: ["10"]}, ["7"], statuses={BEA: "busted"}, game=BRUTAL
    )
    s = hit(s)
    assert s.pending() == ("flip7_bonus", None)
    assert s.round == 1
    s = s.apply("target 1")
    assert s.round_scores() == (28, -15, 10)
    assert s.totals == (28, -15, 10)
