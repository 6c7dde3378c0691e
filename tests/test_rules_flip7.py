"""Behavioural tests of the Flip 7 base rules (F7-001..F7-131) under the default readings.

Each test plays a stacked game or an explicit position through the interpreter
(or inspects the edition table) and asserts concrete outcomes.  Seats:
0 = Ann, 1 = Ben, 2 = Cat, 3 = Dan (clockwise; the left of seat s is s + 1).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest
import yaml
from helpers import flip, hit, ids, of_type

from flip7ref import CHANCE, TERMINAL, Game, IllegalActionError, OptionError, State, Status, load_edition
from flip7ref.core.scoring import score_cards

ANN, BEN, CAT, DAN = 0, 1, 2, 3
GAME = Game("flip7", 3)


def position(draw: Sequence[str], *, kept: dict[int, list[str]] | None = None, totals: list[int] | None = None) -> State:
    """A 3-player position (lines 1, 2, 3), Cat dealing so Ann is offered first, ``draw`` on top of the pile."""
    lines = {ANN: ["1"], BEN: ["2"], CAT: ["3"]}
    return GAME.new_position(dealer=CAT, lines=lines, kept=kept, totals=totals, draw=list(draw))


# --------------------------------------------------------------------------- identity and components


@pytest.mark.rules("F7-001")
def test_identity_publisher_and_designer() -> None:
    """The edition table names The Op Games as publisher and the catalogue credits Eric Olsen."""
    ed = load_edition("flip7")
    raw = yaml.safe_load(ed.path.read_text(encoding="utf-8"))
    assert ed.id == "flip7"
    assert ed.title == "Flip 7"
    assert raw["edition"]["publisher"] == "The Op Games"
    text = ed.rules["F7-001"].text
    assert "Eric Olsen" in text
    assert "The Op Games" in text
    assert "Gen Con 2024" in text


@pytest.mark.rules("F7-130")
def test_identity_ruleset_edition() -> None:
    """The table models Ruleset Edition 3.1, and F7-130 records the printings."""
    ed = load_edition("flip7")
    raw = yaml.safe_load(ed.path.read_text(encoding="utf-8"))
    assert raw["edition"]["ruleset"] == "Ruleset Edition 3.1"
    assert "Ruleset Edition 3.1" in ed.rules["F7-130"].text
    assert ed.rules["F7-130"].confidence == "M"


@pytest.mark.rules("F7-003", "F7-004", "F7-005", "F7-006", "F7-007")
def test_deck_composition() -> None:
    """One deck: 94 cards; 79 numbers (one 0, n copies of n); one of each modifier; three of each action."""
    deck = ids(GAME, GAME.deck)
    assert len(GAME.deck) == 94
    assert GAME.decks == 1
    assert deck["0"] == 1
    for n in range(1, 13):
        assert deck[str(n)] == n
    numbers = sum(deck[str(n)] for n in range(13))
    assert numbers == 79
    for mod in ("+2", "+4", "+6", "+8", "+10", "x2"):
        assert deck[mod] == 1
    for action in ("freeze", "flip_three", "second_chance"):
        assert deck[action] == 3
    assert sum(deck.values()) == 79 + 6 + 9
    assert len(deck) == 13 + 6 + 3
    assert GAME.rank[GAME.code("0")] == 0
    ed = load_edition("flip7")
    assert [ed.card(a).name("en") for a in ("freeze", "flip_three", "second_chance")] == [
        "Freeze!",
        "Flip Three!",
        "Second Chance!",
    ]


@pytest.mark.rules("F7-002", "F7-123")
def test_second_deck_above_eighteen_players() -> None:
    """One deck serves 18 players; 19 players shuffle in a second (188 cards), 37 a third."""
    assert len(Game("flip7", 18).deck) == 94
    g19 = Game("flip7", 19)
    assert g19.decks == 2
    assert len(g19.deck) == 188
    assert ids(g19, g19.deck)["12"] == 24
    assert Game("flip7", 36).decks == 2
    assert Game("flip7", 37).decks == 3
    s = g19.new_initial_state(seed=5)
    assert sum(s.cards_in_play().values()) == 188


@pytest.mark.rules("F7-008", "F7-090")
def test_modifiers_and_actions_never_bust_nor_count_toward_seven() -> None:
    """Six numbers plus modifiers is no Flip 7; a second Second Chance and modifiers never bust."""
    s = GAME.new_position(
        dealer=CAT,
        lines={ANN: ["1", "2", "3", "4", "5", "6", "+2"], BEN: ["7"], CAT: ["8"]},
        kept={ANN: ["second_chance"]},
        draw=["+4", "second_chance", "x2"],
    )
    s = hit(s)
    assert s.status(ANN) is Status.ACTIVE
    assert s.line(ANN) == ["1", "2", "3", "4", "5", "6", "+2", "+4"]
    assert of_type(s.last_events(), "flip7") == []
    s = hit(s)  # Ben draws the second Second Chance: his first, he keeps it
    s = s.apply("stay")  # Cat
    s = hit(s)  # Ann: x2, still six numbers
    assert s.status(ANN) is Status.ACTIVE
    assert s.line(ANN) == ["1", "2", "3", "4", "5", "6", "+2", "+4", "x2"]
    assert s.round == 1
    assert score_cards(GAME, s.line(ANN)).flip7 is False
    assert s.line_value(ANN) == 21 * 2 + 6


# --------------------------------------------------------------------------- setup and the deal


@pytest.mark.rules("F7-010")
def test_setup_shuffles_the_whole_deck_and_sets_dealer() -> None:
    """A seeded game shuffles all 94 cards deterministically and the chosen seat deals round 1."""
    a = Game("flip7", 4).new_initial_state(seed=11, dealer=2)
    b = Game("flip7", 4).new_initial_state(seed=11, dealer=2)
    c = Game("flip7", 4).new_initial_state(seed=12, dealer=2)
    assert a == b
    assert a.draw != c.draw
    assert a.dealer == 2
    assert a.round == 1
    assert a.totals == (0, 0, 0, 0)
    assert of_type(a.events(), "round_started") == [{"round": 1, "dealer": 2}]
    assert sorted(a.draw) == sorted(GAME.deck)
    assert a.draw != tuple(sorted(GAME.deck))


@pytest.mark.rules("F7-011", "F7-035")
def test_layout_and_card_placement() -> None:
    """Numbers and modifiers join the line in order, a Second Chance lies kept, an action asks for a target."""
    s = position(["+4", "9", "second_chance", "5", "freeze"])
    s = hit(s)
    assert s.line(ANN) == ["1", "+4"]
    s = hit(s)
    assert s.line(BEN) == ["2", "9"]
    s = hit(s)
    assert s.line(CAT) == ["3"]
    assert s.kept(CAT) == ["second_chance"]
    s = hit(s)
    assert s.line(ANN) == ["1", "+4", "5"]
    s = hit(s)
    assert s.current_player == BEN
    assert s.pending() == ("play", "freeze")


@pytest.mark.rules("F7-020", "F7-030")
def test_deal_from_dealers_left_dealer_last() -> None:
    """With four players and Ben dealing, the deal goes Cat, Dan, Ann, Ben; Cat is offered first."""
    g = Game("flip7", 4)
    s = flip(g.new_initial_state(stack=["1", "2", "3", "4", "5"], dealer=BEN), 4)
    assert [(e["seat"], e["card"], e["via"]) for e in of_type(s.events(), "dealt")] == [
        (CAT, "1", "deal"),
        (DAN, "2", "deal"),
        (ANN, "3", "deal"),
        (BEN, "4", "deal"),
    ]
    assert s.current_player == CAT
    assert s.pending() == ("offer", None)
    assert s.next_card() == "5"


@pytest.mark.rules("F7-021", "F7-023", "F7-061")
def test_action_pauses_the_deal() -> None:
    """Ann is dealt a Freeze: the deal waits for her target choice, then Ben and Cat are dealt."""
    s = flip(GAME.new_initial_state(stack=["freeze", "5", "6", "7"], dealer=CAT))
    assert s.current_player == ANN
    assert s.pending() == ("play", "freeze")
    assert s.line(BEN) == []
    assert s.line(CAT) == []
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = s.apply("target 0")
    assert s.status(ANN) is Status.FROZEN
    assert s.kept(ANN) == ["freeze"]
    s = flip(s, 2)
    assert [(e["seat"], e["card"]) for e in of_type(s.events(), "dealt")] == [(ANN, "freeze"), (BEN, "5"), (CAT, "6")]
    assert s.current_player == BEN
    assert s.next_card() == "7"


@pytest.mark.rules("F7-022", "F7-023", "F7-025", "F7-07A", "F7-033")
def test_early_flip_three_player_asked_at_deal_slot() -> None:
    """Ann's dealt Flip Three on undealt Ben runs in full first; when the deal reaches
    Ben's slot he is asked Hit or Stay there (BGG-FAQ c18), then the deal goes on to Cat."""
    s = flip(GAME.new_initial_state(stack=["flip_three", "4", "5", "6", "7", "8", "9"], dealer=CAT))
    assert s.pending() == ("play", "flip_three")
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = flip(s.apply("target 1"), 3)
    assert s.line(BEN) == ["4", "5", "6"]
    assert s.line(CAT) == []
    # The deal is at Ben's slot: Ben decides before Cat is dealt.
    assert (s.current_player, s.pending(), s.legal_action_strings()) == (BEN, ("offer", None), ["hit", "stay"])
    s = flip(s.apply("hit"))
    assert s.line(BEN) == ["4", "5", "6", "7"]
    s = flip(s)
    assert s.line(CAT) == ["8"]
    assert [(e["seat"], e["via"]) for e in of_type(s.events(), "dealt")] == [
        (ANN, "deal"),
        (BEN, "flip_three"),
        (BEN, "flip_three"),
        (BEN, "flip_three"),
        (BEN, "hit"),
        (CAT, "deal"),
    ]
    # After the deal the offers start on the dealer's left: Ann (no cards) must hit.
    assert s.current_player == ANN
    assert s.legal_action_strings() == ["hit"]
    s = hit(s)
    assert s.line(ANN) == ["9"]
    assert s.current_player == BEN
    assert s.legal_action_strings() == ["hit", "stay"]


@pytest.mark.rules("F7-025", "F7-034")
def test_early_flip_three_player_stays_at_deal_slot() -> None:
    """Ben stays at his deal slot; the deal goes on to Cat and Ben is never asked again."""
    s = flip(GAME.new_initial_state(stack=["flip_three", "4", "5", "6", "7", "8"], dealer=CAT))
    s = flip(s.apply("target 1"), 3)
    s = s.apply("stay")
    assert s.status(BEN) is Status.STAYED
    s = flip(s)
    assert s.line(CAT) == ["7"]
    assert s.current_player == ANN
    s = hit(s)
    assert s.current_player == CAT


@pytest.mark.rules("F7-025", "F7-026", "F7-082", "F7-07A")
def test_spare_second_chance_before_the_slot_is_no_early_card() -> None:
    """Ann's dealt Flip Three on herself flips two Second Chances; she gives the spare to
    undealt Cat.  Cat is still dealt her card (project ruling, D-F7-31 reading deal);
    under early-cards she is asked Hit or Stay at her slot instead."""
    stack = ["flip_three", "second_chance", "second_chance", "5", "7", "8"]
    for value in ("deal", "early-cards"):
        g = Game("flip7", 3, {"deal_after_second_chance": value})
        s = flip(g.new_initial_state(stack=stack, dealer=CAT))
        s = flip(s.apply("target 0"), 2)
        assert s.pending() == ("give", "second_chance")
        s = flip(s.apply("target 2"))
        assert s.line(ANN) == ["5"] and s.kept(CAT) == ["second_chance"]
        s = flip(s)
        assert s.line(BEN) == ["7"]
        if value == "deal":
            s = flip(s)
            assert s.line(CAT) == ["8"]
            assert (s.current_player, s.legal_action_strings()) == (ANN, ["hit", "stay"])
        else:
            assert s.line(CAT) == []
            assert (s.current_player, s.pending(), s.legal_action_strings()) == (CAT, ("offer", None), ["hit", "stay"])


# --------------------------------------------------------------------------- turns


@pytest.mark.rules("F7-030", "F7-031", "F7-032", "F7-034")
def test_one_card_per_offer_round_robin() -> None:
    """Offers go one card each round the table, skipping stayed and frozen players."""
    g = Game("flip7", 4)
    s = g.new_position(
        dealer=DAN,
        lines={ANN: ["1"], BEN: ["2"], CAT: ["3"], DAN: ["4"]},
        statuses={CAT: "frozen"},
        draw=["5", "6", "7", "8", "9"],
    )
    assert s.current_player == ANN
    s = hit(s)
    assert s.line(ANN) == ["1", "5"]
    assert s.current_player == BEN
    s = s.apply("stay")
    assert s.status(BEN) is Status.STAYED
    assert s.current_player == DAN  # Cat is frozen, so counts as stayed
    s = hit(s)
    assert s.line(DAN) == ["4", "6"]
    assert s.current_player == ANN  # Ben stayed: never offered again
    s = hit(s)
    assert s.line(ANN) == ["1", "5", "7"]
    assert s.current_player == DAN
    assert s.line(BEN) == ["2"]


@pytest.mark.rules("F7-033")
def test_stay_requires_a_card() -> None:
    """A lone modifier or a lone Second Chance allows a Stay; an empty hand does not."""
    s = GAME.new_position(dealer=CAT, lines={ANN: [], BEN: ["+4"], CAT: []}, kept={CAT: ["second_chance"]}, draw=["5"])
    assert s.current_player == ANN
    assert s.legal_action_strings() == ["hit"]
    with pytest.raises(IllegalActionError):
        s.apply("stay")
    s = hit(s)
    assert s.current_player == BEN
    assert s.legal_action_strings() == ["hit", "stay"]
    s = s.apply("stay")
    assert s.current_player == CAT
    assert s.legal_action_strings() == ["hit", "stay"]
    s = s.apply("stay")
    assert s.status(CAT) is Status.STAYED


@pytest.mark.rules("F7-034", "F7-102")
def test_stay_banks_points() -> None:
    """Stayed players are out of the round and score their line; totals grow by the round score."""
    s = position(["4", "5"], totals=[10, 20, 30])
    s = s.apply("stay")
    s = hit(s)
    assert s.line(BEN) == ["2", "4"]
    s = s.apply("stay").apply("stay")
    assert s.round_scores() == (1, 6, 3)
    assert s.totals == (11, 26, 33)


# --------------------------------------------------------------------------- bust


@pytest.mark.rules("F7-040", "F7-041", "F7-042", "F7-101")
def test_bust_scores_zero_and_cards_stay_until_round_end() -> None:
    """Ann busts with x2 and +10: she keeps her face-down line, is never offered or targeted, and scores 0."""
    s = GAME.new_position(dealer=CAT, lines={ANN: ["5", "+10", "x2"], BEN: ["2"], CAT: ["3"]}, draw=["5", "freeze", "9"])
    s = hit(s)
    assert s.status(ANN) is Status.BUSTED
    assert s.line(ANN) == ["5", "+10", "x2", "5"]
    assert s.line_value(ANN) == 0
    assert s.current_player == BEN
    s = hit(s)
    assert s.pending() == ("play", "freeze")
    assert s.legal_action_strings() == ["target 1", "target 2"]
    s = s.apply("target 2")
    assert s.current_player == BEN  # Ann is busted and Cat frozen: Ben is the only one offered
    s = s.apply("stay")
    assert s.round_scores() == (0, 2, 3)
    assert ids(GAME, s.discard) == Counter({"5": 2, "+10": 1, "x2": 1, "2": 1, "3": 1, "freeze": 1})


# --------------------------------------------------------------------------- Flip 7


@pytest.mark.rules("F7-050", "F7-051", "F7-110")
def test_flip7_bonus_only_to_maker_and_frozen_player_scores() -> None:
    """Ben's Flip 7 ends the round: he gets +15, active Ann and frozen Cat score their lines, busted none."""
    g = Game("flip7", 4)
    s = g.new_position(
        dealer=DAN,
        turn=BEN,
        lines={ANN: ["4", "+2"], BEN: ["0", "1", "2", "3", "5", "6"], CAT: ["9"], DAN: ["8", "8"]},
        kept={CAT: ["freeze"]},
        statuses={CAT: "frozen", DAN: "busted"},
        draw=["12"],
    )
    s = hit(s)
    assert of_type(s.last_events(), "flip7") == [{"seat": BEN}]
    assert s.round_scores() == (6, 29 + 15, 9, 0)
    assert s.round == 2


@pytest.mark.rules("F7-052", "F7-071", "F7-111")
def test_flip7_inside_flip_three_stops_it() -> None:
    """Ben reaches Flip 7 on the first card of a Flip Three: no more are flipped; they open the next deal."""
    s = GAME.new_position(
        dealer=CAT,
        lines={ANN: ["1"], BEN: ["0", "2", "3", "4", "5", "6"], CAT: ["3"]},
        draw=["flip_three", "7", "8", "9", "10"],
    )
    s = flip(hit(s).apply("target 1"))
    assert len(of_type(s.events(), "dealt")) == 2
    assert of_type(s.events(), "flip7") == [{"seat": BEN}]
    assert s.round_scores() == (1, 27 + 15, 3)
    assert s.round == 2
    assert s.dealer == ANN
    assert s.next_card() == "8"
    s = flip(s)
    assert s.line(BEN) == ["8"]


# --------------------------------------------------------------------------- Freeze


@pytest.mark.rules("F7-060", "F7-061", "F7-062")
def test_freeze_on_another_player_banks_their_points() -> None:
    """Ann freezes Ben: Ben is out, keeps his cards and the Freeze, and scores them at round end."""
    s = GAME.new_position(dealer=CAT, lines={ANN: ["1"], BEN: ["7", "+6"], CAT: ["3"]}, draw=["freeze", "4"])
    s = hit(s)
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = s.apply("target 1")
    assert s.status(BEN) is Status.FROZEN
    assert s.line(BEN) == ["7", "+6"]
    assert s.kept(BEN) == ["freeze"]
    assert s.current_player == CAT
    s = s.apply("stay").apply("stay")
    assert s.round_scores() == (1, 13, 3)


@pytest.mark.rules("F7-061", "F7-110")
def test_lone_player_must_freeze_themselves() -> None:
    """When Ann is the only active player, her Freeze can only target herself, and the round ends."""
    s = GAME.new_position(
        dealer=CAT,
        lines={ANN: ["10"], BEN: ["2"], CAT: ["3"]},
        statuses={BEN: "stayed", CAT: "stayed"},
        draw=["freeze", "4"],
    )
    s = hit(s)
    assert s.current_player == ANN
    assert s.legal_action_strings() == ["target 0"]
    s = s.apply("target 0")
    assert of_type(s.last_events(), "frozen") == [{"seat": ANN, "by": ANN}]
    assert s.round_scores() == (10, 2, 3)
    assert s.round == 2


@pytest.mark.rules("F7-063", "F7-084", "F7-080")
def test_freeze_ignores_second_chance() -> None:
    """A frozen player's Second Chance is not used up by the Freeze; it simply lies there until round end."""
    s = GAME.new_position(dealer=CAT, lines={ANN: ["1"], BEN: ["2"], CAT: ["3"]}, kept={ANN: ["second_chance"]}, draw=["freeze"])
    s = hit(s).apply("target 0")
    assert s.status(ANN) is Status.FROZEN
    assert s.kept(ANN) == ["second_chance", "freeze"]
    assert of_type(s.events(), "second_chance_used") == []
    assert s.current_player == BEN


# --------------------------------------------------------------------------- Flip Three


@pytest.mark.rules("F7-070", "F7-072", "F7-076", "F7-078")
def test_flip_three_every_card_kind_counts() -> None:
    """A self-targeted Flip Three reveals a modifier, a Second Chance and a number: three cards, then done."""
    s = position(["flip_three", "+8", "second_chance", "9", "10"])
    s = hit(s)
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = s.apply("target 0")
    s = flip(s)
    assert s.line(ANN) == ["1", "+8"]
    s = flip(s)
    assert s.kept(ANN) == ["second_chance"]
    assert s.current_player == CHANCE
    s = flip(s)
    assert s.line(ANN) == ["1", "+8", "9"]
    assert of_type(s.last_events(), "forced_draw_ended") == [{"seat": ANN, "card": "flip_three", "outcome": "complete"}]
    assert ids(GAME, s.discard) == Counter({"flip_three": 1})
    assert s.current_player == BEN
    assert s.next_card() == "10"


@pytest.mark.rules("F7-072")
def test_lone_player_must_take_flip_three() -> None:
    """The only active player draws a Flip Three and can only target themselves."""
    s = GAME.new_position(
        dealer=ANN,
        lines={ANN: ["1"], BEN: ["2"], CAT: ["3", "3"]},
        statuses={ANN: "stayed", CAT: "busted"},
        draw=["flip_three", "4", "5", "6"],
    )
    assert s.current_player == BEN
    s = hit(s)
    assert s.legal_action_strings() == ["target 1"]
    s = flip(s.apply("target 1"), 3)
    assert s.line(BEN) == ["2", "4", "5", "6"]
    assert s.current_player == BEN


@pytest.mark.rules("F7-071", "F7-078", "F7-101")
def test_flip_three_stops_on_bust() -> None:
    """Ben busts on the first card of a Flip Three: the other two stay on the pile."""
    s = position(["flip_three", "2", "7", "8"])
    s = flip(hit(s).apply("target 1"))
    assert s.status(BEN) is Status.BUSTED
    assert of_type(s.last_events(), "forced_draw_ended") == [{"seat": BEN, "card": "flip_three", "outcome": "bust"}]
    assert ids(GAME, s.discard) == Counter({"flip_three": 1})
    assert s.current_player == CAT
    assert s.next_card() == "7"
    s = s.apply("stay").apply("stay")
    assert s.round_scores() == (1, 0, 3)


@pytest.mark.rules("F7-073", "F7-131")
def test_set_aside_cards_discarded_on_bust() -> None:
    """Under the 3.1 rule a Freeze set aside during a Flip Three is discarded when the target busts."""
    s = position(["flip_three", "freeze", "2", "9"])
    s = flip(hit(s).apply("target 1"), 2)
    assert s.status(BEN) is Status.BUSTED
    assert of_type(s.last_events(), "discarded") == [{"card": "freeze", "seat": BEN, "reason": "target busted"}]
    assert ids(GAME, s.discard) == Counter({"flip_three": 1, "freeze": 1})
    assert s.status(ANN) is Status.ACTIVE
    assert s.status(CAT) is Status.ACTIVE
    assert s.current_player == CAT
    assert s.pending() == ("offer", None)


@pytest.mark.rules("F7-073", "F7-052")
def test_set_aside_cards_discarded_on_flip7() -> None:
    """Ben sets a Freeze aside, then makes Flip 7: the round ends at once and the Freeze is discarded unused."""
    s = GAME.new_position(
        dealer=CAT,
        lines={ANN: ["1"], BEN: ["0", "2", "3", "4", "5", "6"], CAT: ["3"]},
        draw=["flip_three", "freeze", "7", "8", "9"],
    )
    s = flip(hit(s).apply("target 1"), 2)
    assert of_type(s.events(), "assigned") == []
    assert of_type(s.events(), "frozen") == []
    assert s.round_scores() == (1, 27 + 15, 3)
    assert s.round == 2
    assert ids(GAME, s.discard)["freeze"] == 1
    assert ids(GAME, s.discard)["flip_three"] == 1
    assert sum(s.cards_in_play().values()) == 94


@pytest.mark.rules("F7-131", "F7-073")
def test_flip_three_bust_readings_model_the_rule_change() -> None:
    """flip_three_bust defaults to discard (3.1); its resolve reading is the original printing's rule."""
    spec = load_edition("flip7").options["flip_three_bust"]
    assert spec.default == "discard"
    assert [r.name for r in spec.readings] == ["discard", "resolve"]
    assert spec.dispute == "D-F7-10"
    assert GAME.options["flip_three_bust"] == "discard"
    old = Game("flip7", 3, options={"flip_three_bust": "resolve"})
    s = old.new_position(dealer=CAT, lines={ANN: ["1"], BEN: ["2"], CAT: ["3"]}, draw=["flip_three", "freeze", "2", "9"])
    s = flip(hit(s).apply("target 1"), 2)
    assert s.status(BEN) is Status.BUSTED
    assert s.current_player == BEN
    assert s.pending() == ("assign", "freeze")
    assert s.legal_action_strings() == ["target 0", "target 2"]
    s = s.apply("target 2")
    assert s.status(CAT) is Status.FROZEN
    with pytest.raises(OptionError):
        Game("flip7", 3, options={"flip_three_bust": "keep-flipping"})


@pytest.mark.rules("F7-073", "F7-074")
def test_target_not_giver_assigns_set_aside_card() -> None:
    """Ann gives Ben a Flip Three that reveals a Freeze: Ben (the target) assigns it, to himself if he likes."""
    s = position(["flip_three", "4", "freeze", "5", "6"])
    s = flip(hit(s).apply("target 1"), 3)
    assert s.line(BEN) == ["2", "4", "5"]
    assert s.current_player == BEN
    assert s.pending() == ("assign", "freeze")
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = s.apply("target 1")
    assert s.status(BEN) is Status.FROZEN
    assert of_type(s.last_events(), "assigned") == [{"seat": BEN, "card": "freeze", "target": BEN}]
    assert s.current_player == CAT


@pytest.mark.rules("F7-075")
def test_two_flip_threes_to_one_player_both_resolve() -> None:
    """Two set-aside Flip Threes assigned to Cat, who does not bust: she takes both, six cards in all."""
    s = position(["flip_three", "flip_three", "flip_three", "4", "5", "+2", "6", "+4", "7", "+6", "11"])
    s = flip(hit(s).apply("target 1"), 3)
    s = s.apply("target 2").apply("target 2")
    s = flip(s, 3)
    assert s.line(CAT) == ["3", "5", "+2", "6"]
    assert s.current_player == CHANCE
    s = flip(s, 3)
    assert s.line(CAT) == ["3", "5", "+2", "6", "+4", "7", "+6"]
    assert len(of_type(s.events(), "forced_draw_ended")) == 3
    assert s.current_player == BEN
    assert s.next_card() == "11"


@pytest.mark.rules("F7-076", "F7-082")
def test_second_chance_in_flip_three_kept_at_once() -> None:
    """A target without a Second Chance keeps one revealed in a Flip Three at once; it counts as a card."""
    s = position(["flip_three", "second_chance", "4", "5", "6"])
    s = flip(hit(s).apply("target 2"))
    assert s.kept(CAT) == ["second_chance"]
    assert of_type(s.last_events(), "set_aside") == []
    assert of_type(s.last_events(), "second_chance_kept") == [{"seat": CAT, "card": "second_chance"}]
    s = flip(s, 2)
    assert s.line(CAT) == ["3", "4", "5"]
    assert s.current_player == BEN
    assert s.next_card() == "6"


@pytest.mark.rules("F7-077", "F7-080")
def test_held_second_chance_saves_inside_flip_three_and_sequence_continues() -> None:
    """Ben holds a Second Chance; his Flip Three reveals 2 (a duplicate), then 4 and 5: he is saved and flips on."""
    s = position(["flip_three", "2", "4", "5", "6"], kept={BEN: ["second_chance"]})
    s = flip(hit(s).apply("target 1"))
    assert s.status(BEN) is Status.ACTIVE
    assert s.kept(BEN) == []
    assert of_type(s.last_events(), "second_chance_used") == [{"seat": BEN, "card": "2", "shield": "second_chance"}]
    assert s.current_player == CHANCE
    s = flip(s, 2)
    assert s.line(BEN) == ["2", "4", "5"]
    assert ids(GAME, s.discard) == Counter({"2": 1, "second_chance": 1, "flip_three": 1})
    assert s.current_player == BEN
    assert s.next_card() == "6"


@pytest.mark.rules("F7-079")
def test_next_offer_after_flip_three_follows_original_recipient() -> None:
    """Ann gives a Flip Three to Cat: the next offer goes to Ben (after Ann), not to Ann (after Cat)."""
    s = position(["flip_three", "4", "5", "6", "7"])
    s = flip(hit(s).apply("target 2"), 3)
    assert s.line(CAT) == ["3", "4", "5", "6"]
    assert s.current_player == BEN


@pytest.mark.rules("F7-079", "F7-073")
def test_next_offer_after_chained_flip_threes() -> None:
    """Cat gives Ben a Flip Three that reveals another, assigned to Ann: the next offer goes to Ann, after Cat."""
    s = GAME.new_position(
        dealer=CAT,
        turn=CAT,
        lines={ANN: ["1"], BEN: ["2"], CAT: ["3"]},
        draw=["flip_three", "flip_three", "4", "5", "6", "7", "8", "9"],
    )
    assert s.current_player == CAT
    s = flip(hit(s).apply("target 1"), 3)
    assert s.pending() == ("assign", "flip_three")
    s = flip(s.apply("target 0"), 3)
    assert s.line(BEN) == ["2", "4", "5"]
    assert s.line(ANN) == ["1", "6", "7", "8"]
    assert s.current_player == ANN  # after Cat, who drew the first Flip Three


# --------------------------------------------------------------------------- Second Chance


@pytest.mark.rules("F7-082")
def test_spare_second_chance_must_be_given_or_discarded() -> None:
    """Ann's first Second Chance is kept; her second goes to an active player without one, else is discarded."""
    s = position(["second_chance", "4", "5", "second_chance", "second_chance"])
    s = hit(s)
    assert s.kept(ANN) == ["second_chance"]
    assert s.current_player == BEN  # kept without a decision
    s = hit(hit(s))
    s = hit(s)
    assert s.current_player == ANN
    assert s.pending() == ("give", "second_chance")
    assert s.legal_action_strings() == ["target 1", "target 2"]
    s = s.apply("target 1")
    assert s.kept(BEN) == ["second_chance"]
    assert s.kept(ANN) == ["second_chance"]
    assert s.current_player == BEN
    s = s.apply("stay")
    s = s.apply("stay")
    assert s.current_player == ANN
    s = hit(s)  # Ann, the only active player, draws the third: nobody can take it
    assert of_type(s.last_events(), "discarded") == [{"card": "second_chance", "seat": ANN, "reason": "no eligible player"}]
    assert s.kept(ANN) == ["second_chance"]


@pytest.mark.rules("F7-083")
def test_unused_second_chance_discarded_at_round_end() -> None:
    """A Second Chance never used is discarded with the round's cards; nobody holds one in round 2."""
    s = position(["4", "5", "6"], kept={ANN: ["second_chance"]})
    s = s.apply("stay").apply("stay").apply("stay")
    assert s.round == 2
    assert ids(GAME, s.discard)["second_chance"] == 1
    assert [s.kept(p) for p in (ANN, BEN, CAT)] == [[], [], []]


# --------------------------------------------------------------------------- modifiers and scoring


@pytest.mark.rules("F7-090", "F7-091", "F7-092", "F7-100")
def test_scoring_pipeline_order() -> None:
    """Numbers summed, doubled by x2, +N added, +15 for a Flip 7; x2 alone adds nothing."""
    result = score_cards(GAME, ["0", "1", "2", "3", "4", "5", "6", "x2", "+2", "+4"])
    assert result.steps == (("sum_numbers", 21), ("multiply", 42), ("add_modifiers", 48), ("flip7_bonus", 63))
    assert result.score == 63
    assert score_cards(GAME, ["x2"]).score == 0
    assert score_cards(GAME, ["+2", "+4", "+6", "+8", "+10"]).score == 30
    assert score_cards(GAME, ["12", "+10"]).score == 22


@pytest.mark.rules("F7-092", "F7-033", "F7-060")
def test_frozen_with_only_modifiers_scores_them() -> None:
    """Ben holds only x2 and +6 when frozen: he scores 6."""
    s = GAME.new_position(dealer=CAT, lines={ANN: ["1"], BEN: ["x2", "+6"], CAT: ["3"]}, draw=["freeze"])
    s = hit(s).apply("target 1")
    s = s.apply("stay").apply("stay")
    assert s.round_scores() == (1, 6, 3)


@pytest.mark.rules("F7-100", "F7-101", "F7-102")
def test_totals_accumulate_over_rounds() -> None:
    """Round scores add to running totals across two rounds; a bust adds nothing."""
    s = flip(GAME.new_initial_state(stack=["5", "6", "7", "+8", "6", "9", "1", "2", "3"], dealer=CAT), 3)
    s = hit(s)  # Ann +8
    s = hit(s)  # Ben 6: bust
    s = s.apply("stay").apply("stay")  # Cat, Ann
    assert s.round_scores() == (13, 0, 7)
    assert s.totals == (13, 0, 7)
    s = flip(s, 3)  # round 2 deal (Ann deals): Ben 9, Cat 1, Ann 2
    assert [s.line(p) for p in (ANN, BEN, CAT)] == [["2"], ["9"], ["1"]]
    s = s.apply("stay").apply("stay").apply("stay")
    assert s.round_scores() == (2, 9, 1)
    assert s.totals == (15, 9, 8)


# --------------------------------------------------------------------------- round end and the deck


@pytest.mark.rules("F7-110", "F7-111", "F7-112")
def test_next_round_continues_the_pile_and_dealer_passes_left() -> None:
    """Round 1 ends when all stay; round 2 is dealt by Ann's left neighbour from the remaining, unshuffled pile."""
    s = flip(GAME.new_initial_state(seed=3, stack=["4", "5", "6"], dealer=ANN), 3)
    assert [s.line(p) for p in (ANN, BEN, CAT)] == [["6"], ["4"], ["5"]]
    rest = s.draw
    s = s.apply("stay").apply("stay")
    assert s.round == 1
    s = s.apply("stay")
    assert s.round == 2
    assert s.dealer == BEN
    assert of_type(s.last_events(), "round_started") == [{"round": 2, "dealer": BEN}]
    assert of_type(s.events(), "reshuffled") == []
    assert s.draw == rest
    assert ids(GAME, s.discard) == Counter({"4": 1, "5": 1, "6": 1})
    first = s.next_card()
    s = flip(s)
    assert of_type(s.last_events(), "dealt")[0] == {"seat": CAT, "card": first, "via": "deal"}


@pytest.mark.rules("F7-113", "F7-041")
def test_mid_round_reshuffle_leaves_table_cards_out() -> None:
    """When the pile runs out, the discard pile becomes the deck; every card in front of players stays out."""
    s = GAME.new_position(
        dealer=CAT,
        lines={ANN: ["12", "+4"], BEN: ["2", "2"], CAT: ["11"]},
        kept={CAT: ["second_chance"]},
        statuses={BEN: "busted"},
        draw=["1"],
        rest="discard",
    )
    assert len(s.draw) == 1
    assert len(s.discard) == 94 - 7
    s = hit(s)
    assert s.line(ANN) == ["12", "+4", "1"]
    assert s.current_player == CAT
    s = s.apply("hit")
    assert of_type(s.last_events(), "reshuffled") == [{"cards": 87}]
    assert len(s.draw) == 87
    assert s.discard == ()
    pile = ids(GAME, s.draw)
    assert (pile["12"], pile["+4"], pile["1"], pile["2"], pile["11"], pile["second_chance"]) == (11, 0, 0, 0, 10, 2)
    assert s.line(BEN) == ["2", "2"]
    assert sum(s.cards_in_play().values()) == 94


@pytest.mark.rules("F7-114")
def test_reshuffle_keeps_flip_three_and_set_aside_cards_out() -> None:
    """A reshuffle during a Flip Three leaves the Flip Three being resolved and a set-aside Freeze out of the deck."""
    s = GAME.new_position(dealer=CAT, lines={ANN: ["1"], BEN: ["2"], CAT: ["3"]}, draw=["flip_three", "freeze"], rest="discard")
    s = flip(hit(s).apply("target 2"))
    assert of_type(s.last_events(), "set_aside") == [{"seat": CAT, "card": "freeze"}]
    assert of_type(s.last_events(), "reshuffled") == [{"cards": 89}]
    assert s.current_player == CHANCE
    pile = ids(GAME, s.draw)
    assert pile["flip_three"] == 2
    assert pile["freeze"] == 2
    assert len(s.draw) == 89
    assert sum(s.cards_in_play().values()) == 94


def _without_piles(state: State, draw: Sequence[str] = ()) -> State:
    """The same position with the given draw pile and an empty discard pile."""
    data = state.to_dict(log=False)
    data["draw"] = list(draw)
    data["discard"] = []
    return State.from_dict(data)


@pytest.mark.rules("F7-115")
def test_empty_deck_and_discard_hit_becomes_stay() -> None:
    """With no card left anywhere, a Hit becomes a Stay and a Flip Three ends early."""
    s = _without_piles(position([]))
    assert s.current_player == ANN
    s = s.apply("hit")
    assert [e.type for e in s.last_events()][:2] == ["deck_exhausted", "stayed"]
    assert of_type(s.last_events(), "stayed") == [{"seat": ANN, "reason": "empty deck"}]
    assert s.status(ANN) is Status.STAYED
    assert s.current_player == BEN
    s = _without_piles(position([]), draw=["flip_three"])
    s = flip(s.apply("hit")).apply("target 1")
    assert of_type(s.last_events(), "forced_draw_ended") == [{"seat": BEN, "card": "flip_three", "outcome": "exhausted"}]
    assert s.line(BEN) == ["2"]
    assert s.status(BEN) is Status.ACTIVE
    assert s.current_player == BEN


# --------------------------------------------------------------------------- game end and player counts


@pytest.mark.rules("F7-120")
def test_game_ends_at_round_end_highest_total_wins() -> None:
    """Ann passes 200 first by staying, but the round goes on; Ben finishes higher and wins."""
    s = GAME.new_position(dealer=CAT, lines={ANN: ["12"], BEN: ["10"], CAT: ["3"]}, totals=[195, 190, 50], draw=["11", "4"])
    s = s.apply("stay")
    assert not s.is_terminal()
    assert s.totals == (195, 190, 50)
    s = hit(s)
    assert s.current_player == CAT
    s = s.apply("stay")
    assert s.current_player == BEN
    s = s.apply("stay")
    assert s.totals == (207, 211, 53)
    assert s.is_terminal()
    assert s.current_player == TERMINAL
    assert s.winners == (BEN,)
    assert of_type(s.last_events(), "game_won") == [{"winners": [BEN], "totals": [207, 211, 53], "rounds": 1}]


@pytest.mark.rules("F7-120")
def test_game_goes_on_below_target() -> None:
    """Totals of 199 at most do not end the game: round 2 starts."""
    s = GAME.new_position(dealer=CAT, lines={ANN: ["4"], BEN: ["2"], CAT: ["3"]}, totals=[195, 0, 0])
    s = s.apply("stay").apply("stay").apply("stay")
    assert s.totals == (199, 2, 3)
    assert not s.is_terminal()
    assert s.round == 2


@pytest.mark.rules("F7-121")
def test_tie_for_lead_plays_another_round_and_outsider_can_win() -> None:
    """Ann and Ben tie at 200: everyone plays on, and Cat (199) wins the next round with 211."""
    s = GAME.new_position(
        dealer=CAT,
        lines={ANN: ["10"], BEN: ["5"], CAT: ["4"]},
        totals=[190, 195, 199],
        draw=["4", "6", "12", "7", "6", "7"],
    )
    s = s.apply("stay").apply("stay")
    s = hit(s)  # Cat busts on the 4
    assert s.totals == (200, 200, 199)
    assert of_type(s.last_events(), "tie_another_round") == [{"leaders": [ANN, BEN]}]
    assert not s.is_terminal()
    assert s.round == 2
    assert s.dealer == ANN
    s = flip(s, 3)  # deal: Ben 6, Cat 12, Ann 7
    assert [s.line(p) for p in (ANN, BEN, CAT)] == [["7"], ["6"], ["12"]]
    s = hit(s)  # Ben busts
    s = s.apply("stay")  # Cat
    s = hit(s)  # Ann busts
    assert s.totals == (200, 200, 211)
    assert s.winners == (CAT,)
    assert s.is_terminal()


@pytest.mark.rules("F7-122", "F7-061")
def test_solo_challenge_counts_rounds() -> None:
    """One player plays alone (self-targeting her Freeze); game_won reports the rounds taken to reach 200."""
    with pytest.raises(OptionError):
        Game("flip7", 0)
    assert Game("flip7", 2).players == 2
    solo = Game("flip7", 1)
    s = flip(solo.new_initial_state(stack=["12", "11", "freeze", "10", "9", "8", "7", "6"], totals=[150]))
    assert s.current_player == ANN
    s = hit(s)
    s = hit(s)
    assert s.legal_action_strings() == ["target 0"]
    s = s.apply("target 0")
    assert s.round_scores() == (23,)
    assert s.totals == (173,)
    assert s.round == 2
    assert s.dealer == ANN
    s = flip(s)
    assert s.line(ANN) == ["10"]
    s = hit(hit(s))
    s = s.apply("stay")
    assert s.totals == (200,)
    assert s.winners == (ANN,)
    assert of_type(s.last_events(), "game_won") == [{"winners": [ANN], "totals": [200], "rounds": 2}]


@pytest.mark.rules("F7-052", "F7-073")
def test_flip7_inside_flip_three_reports_the_cut_short_work() -> None:
    """A Flip 7 reached inside a Flip Three ends it and discards what was set aside, with events saying so."""
    s = GAME.new_position(
        dealer=CAT, turn=ANN, lines={ANN: ["1", "2", "3", "4", "5"], BEN: ["9"]}, draw=["flip_three", "freeze", "6", "7"]
    )
    s = flip(hit(s).apply("target 0"), 3)  # Freeze (set aside), 6, then 7: seven numbers
    events = [e.to_dict() for e in s.events()]
    ended = [e for e in events if e["type"] == "forced_draw_ended"]
    assert ended == [{"type": "forced_draw_ended", "seat": ANN, "card": "flip_three", "outcome": "round ended"}]
    assert {"type": "discarded", "card": "freeze", "seat": None, "reason": "round ended"} in events
    assert s.round == 2 and s.round_scores()[ANN] == 28 + 15


@pytest.mark.rules("F7-034")
def test_stay_event_names_the_seat() -> None:
    """Staying emits a stayed event for that seat, and the offer moves on."""
    s = GAME.new_position(dealer=CAT, turn=ANN, lines={ANN: ["5"], BEN: ["6"]})
    s = s.apply("stay")
    assert [e.to_dict() for e in s.last_events()] == [{"type": "stayed", "seat": ANN}]
    assert s.current_player == BEN
