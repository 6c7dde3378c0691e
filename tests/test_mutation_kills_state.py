"""Tests written against mutants of flip7ref/core/state.py that survived a mutmut run.

They pin what the earlier tests left loose: the exact messages and attributes of
refused actions, chance draws and seats; the history of a fresh state; the
reshuffle counter; event fields; the checks of ``new_position`` and
``new_initial_state``; and branches only a house-rule table reaches (a Freeze
that is not kept, a hold limit of two, a Freeze that may hit stayed players).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from flip7ref import Event, Game, IllegalActionError, OptionError, State, Status
from flip7ref.core.spec import spec_dir
from flip7ref.core.state import Action
from tests.helpers import flip, of_type

VERBS = "hit, stay, target, steal, discard, swap"
_SHIPPED_VERBS = VERBS.split(", ")


def _verbs() -> str:
    """The shipped verbs, then any a plug-in primitive registered in this process before the
    test (an earlier test may have loaded one: the message lists every verb known)."""
    from flip7ref.core import model

    return ", ".join(_SHIPPED_VERBS + [v for v in model._ARITY if v not in _SHIPPED_VERBS])


def _offer() -> State:
    """Flip 7, three seats; seat 1 (holding a 5) is offered Hit or Stay; a 7 is on top."""
    return Game("flip7", 3).new_position(turn=1, lines={1: ["5"]}, draw=["7"])


def _illegal(state: State, action: Any) -> IllegalActionError:
    with pytest.raises(IllegalActionError) as info:
        state.apply(action)
    return info.value


def _variant(tmp_path: Path, old: str, new: str, players: int = 3, options: dict[str, Any] | None = None) -> Game:
    """A game of a copy of the Flip 7 table with one text replaced (a house-rule variant)."""
    text = (spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path = tmp_path / "variant.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return Game(str(path), players, options)


# --------------------------------------------------------------------------- refused actions


@pytest.mark.parametrize(
    ("text", "action", "why"),
    [
        (5, "5", "expected an action's string form, such as 'hit' or 'target 2'"),
        ("jump", "jump", "unknown action (known verbs: <VERBS>)"),
        ("", "", "unknown action (known verbs: <VERBS>)"),
        ("target x", "target x", "arguments must be whole numbers (seats and card positions)"),
        ("target", "target", "'target' takes 1 number"),
        ("steal 1", "steal 1", "'steal' takes 2 numbers"),
        ("hit 3", "hit 3", "'hit' takes 0 numbers"),
    ],
)
def test_action_parse_messages(text: Any, action: str, why: str) -> None:
    """Action.parse names the text, no legal actions, and why."""
    why = why.replace("<VERBS>", _verbs())
    with pytest.raises(IllegalActionError) as info:
        Action.parse(text)
    assert (info.value.action, info.value.legal, info.value.why) == (action, (), why)
    assert str(info.value) == f"illegal action {action!r}: {why}; legal here: none"


@pytest.mark.rules("F7-030")
def test_apply_adds_the_legal_actions_to_parse_errors() -> None:
    """A malformed string given to apply is refused with the offer's legal actions."""
    err = _illegal(_offer(), "jump")
    assert (err.action, err.legal) == ("jump", ("hit", "stay"))
    assert str(err) == f"illegal action 'jump': unknown action (known verbs: {_verbs()}); legal here: hit, stay"


@pytest.mark.rules("F7-030")
@pytest.mark.parametrize("action", [5, Action("bogus"), Action("target"), Action("hit", (1,))])
def test_apply_refuses_what_is_not_an_action(action: Any) -> None:
    """Not an Action, or an Action of an unknown verb or the wrong number of arguments."""
    err = _illegal(_offer(), action)
    assert (err.action, err.legal, err.why) == (repr(action), ("hit", "stay"), "expected an Action or its string form")


@pytest.mark.rules("F7-030", "F7-033")
def test_illegal_decision_names_who_decides() -> None:
    """Out of turn the message says whose decision it is; at a chance node that a card comes first."""
    s = Game("flip7", 3).new_position(turn=1)
    err = _illegal(s, "stay")
    assert str(err) == "illegal action 'stay': seat 1 is to decide; legal here: hit"
    err = _illegal(_offer().apply("hit"), Action("hit"))
    assert str(err) == "illegal action 'hit': a card must be drawn first; legal here: none"


@pytest.mark.rules("F7-120")
def test_the_finished_game_refuses_moves() -> None:
    """After the last round no action is legal, and pending() says the game is over."""
    g = Game("flip7", 3)
    s = g.new_position(turn=0, lines={0: ["12"], 1: ["2"], 2: ["3"]}, statuses={1: "stayed", 2: "stayed"}, totals=[195, 0, 0])
    s = s.apply("stay")
    assert s.is_terminal() and s.winners == (0,)
    assert s.pending() == ("terminal", None)
    err = _illegal(s, "hit")
    assert str(err) == "illegal action 'hit': the game is over; legal here: none"


def test_sample_chance_messages() -> None:
    """Sampling at a decision, or sampling an open state without a random.Random, is refused."""
    with pytest.raises(IllegalActionError) as info:
        _offer().sample_chance()
    assert (info.value.action, info.value.legal) == ("chance", ("hit", "stay"))
    assert str(info.value) == "illegal action 'chance': this is not a chance node; legal here: hit, stay"
    open_state = Game("flip7", 3).new_initial_state()
    assert open_state.is_chance_node() and open_state.shuffle_seed is None
    with pytest.raises(IllegalActionError) as info:
        open_state.sample_chance()
    assert str(info.value) == "illegal action 'chance': an open state needs a random.Random to sample a card; legal here: none"


def test_apply_chance_messages() -> None:
    """A card at a decision, or a card not in the pile, is refused naming the possible cards."""
    with pytest.raises(IllegalActionError) as info:
        _offer().apply_chance("7")
    assert str(info.value) == "illegal action 'chance 7': this is not a chance node; legal here: hit, stay"
    s = Game("flip7", 3).new_position(turn=1, lines={1: ["5"]}, draw=["7"], rest="out").apply("hit")
    with pytest.raises(IllegalActionError) as info:
        s.apply_chance("8")
    assert str(info.value) == "illegal action 'chance 8': that card is not in the draw pile; legal here: 7"


@pytest.mark.parametrize(("seat", "shown"), [(3, "3"), (-1, "-1"), (True, "True"), ("1", "'1'")])
def test_seat_queries_refuse_other_values(seat: Any, shown: str) -> None:
    """status/line/kept/line_value accept the seats 0..n-1 only."""
    s = _offer()
    for query in (s.status, s.line, s.kept, s.line_value):
        with pytest.raises(OptionError) as info:
            query(seat)
        assert str(info.value) == f"seat: expected a seat 0..2, got {shown}"
    assert s.line(2) == [] and s.line(1) == ["5"]


def test_states_are_never_equal_to_other_objects() -> None:
    s = _offer()
    assert s != 5 and s != "state" and s != None  # noqa: E711
    assert s == Game("flip7", 3).new_position(turn=1, lines={1: ["5"]}, draw=["7"])


# --------------------------------------------------------------------------- history of fresh states


@pytest.mark.rules("F7-030")
def test_fresh_states_have_no_history() -> None:
    """A new game or position has an empty history; each move then adds exactly its string form."""
    g = Game("flip7", 3)
    assert g.new_initial_state(seed=1).history() == []
    assert g.new_position(deal=True, draw=["4", "5", "6"]).history() == []
    s = _offer()
    assert s.history() == []
    s = s.apply(Action("hit"))
    assert s.history() == ["hit"]
    s = s.apply_chance("7")
    assert s.history() == ["hit", "chance 7"]
    assert s.initial_state() == _offer()


# --------------------------------------------------------------------------- events and points


@pytest.mark.rules("F7-034")
def test_staying_emits_the_stayed_event_with_the_seat() -> None:
    s = _offer().apply("stay")
    assert Event("stayed", (("seat", 1),)) in s.last_events()
    assert of_type(s.last_events(), "stayed") == [{"seat": 1}]


@pytest.mark.rules("F7-082")
def test_keeping_a_first_second_chance_under_may_give() -> None:
    """first_second_chance=may-give: choosing oneself keeps the card (kept event), another seat receives it."""
    g = Game("flip7", 3, {"first_second_chance": "may-give"})
    s = flip(g.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, draw=["second_chance"]).apply("hit"))
    assert s.pending() == ("keep_or_give", "second_chance")
    kept = s.apply("target 0")
    assert kept.kept(0) == ["second_chance"] and of_type(kept.last_events(), "second_chance_kept") == [
        {"seat": 0, "card": "second_chance"}
    ]
    given = s.apply("target 2")
    assert given.kept(2) == ["second_chance"] and given.kept(0) == []


@pytest.mark.rules("V-082")
@pytest.mark.parametrize(("target", "points"), [(0, 15), (1, -15)])
def test_brutal_flip7_choice_points_are_whole_numbers(target: int, points: int) -> None:
    g = Game("vengeance", 3, {"brutal": True})
    s = g.new_position(turn=0, lines={0: ["1", "2", "3", "4", "5", "6"], 1: ["9"], 2: ["10"]}, draw=["7"])
    s = flip(s.apply("hit")).apply(f"target {target}")
    (event,) = of_type(s.last_events(), "flip7_bonus_chosen")
    assert event == {"seat": 0, "target": target, "points": points}
    assert type(event["points"]) is int
    assert all(type(t) is int for t in s.totals)


@pytest.mark.rules("F7-052", "F7-050", "F7-070")
def test_a_flip7_inside_a_forced_draw_ends_it_with_round_ended() -> None:
    """Seat 1 makes a Flip 7 with the first card of a Flip Three: the forced draw ends with outcome 'round ended'."""
    g = Game("flip7", 3)
    s = g.new_position(turn=0, lines={0: ["10"], 1: ["0", "1", "2", "3", "4", "5"], 2: ["11"]}, draw=["flip_three", "6"])
    s = flip(flip(s.apply("hit")).apply("target 1"))
    assert of_type(s.last_events(), "forced_draw_ended") == [{"seat": 1, "card": "flip_three", "outcome": "round ended"}]
    assert s.round_scores() == (10, 0 + 1 + 2 + 3 + 4 + 5 + 6 + 15, 11)


@pytest.mark.rules("F7-061")
def test_only_when_alone_with_two_active_players() -> None:
    """self_target=only-when-alone, two players both active: the drawer must give the Freeze to the other."""
    g = Game("flip7", 2, {"self_target": "only-when-alone"})
    s = flip(g.new_position(turn=0, lines={0: ["1"], 1: ["2"]}, draw=["freeze"]).apply("hit"))
    assert s.legal_action_strings() == ["target 1"]


@pytest.mark.rules("F7-061", "F7-073")
def test_only_when_alone_applies_to_assigning_set_aside_cards() -> None:
    """A Flip Three target assigning a set-aside Freeze may not choose themselves while others are active."""
    g = Game("flip7", 3, {"self_target": "only-when-alone"})
    s = g.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, draw=["flip_three", "freeze", "5", "6"])
    s = flip(flip(s.apply("hit")).apply("target 1"), 3)
    assert s.pending() == ("assign", "freeze") and s.current_player == 1
    assert s.legal_action_strings() == ["target 0", "target 2"]


@pytest.mark.rules("F7-073", "F7-074")
def test_cards_in_play_count_the_cards_of_pending_resolutions() -> None:
    """Set-aside cards waiting in a Resolve frame are still counted by cards_in_play."""
    g = Game("flip7", 3)
    s = g.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, draw=["flip_three", "flip_three", "freeze", "5", "6"])
    s = flip(s.apply("hit")).apply("target 1")
    s = flip(s, 3).apply("target 0").apply("target 2")
    assert [f.name for f in s.frames] == ["resolve", "forced_draw"]
    assert s.cards_in_play() == Counter(g.deck)


# --------------------------------------------------------------------------- reshuffles


@pytest.mark.rules("F7-113", "F7-114")
def test_reshuffles_are_counted_and_seeded() -> None:
    """Each reshuffle of the discard pile adds one to ``shuffles``; a seeded pile is shuffled, an open one stays sorted."""
    g = Game("flip7", 3)
    lines = {0: ["12"], 1: ["11"], 2: ["10"]}
    discard = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "+2", "+4"]
    seeded = g.new_position(turn=0, lines=lines, draw=[], discard=discard, rest="out", seed=3)
    s = flip(seeded.apply("hit"))
    assert s.shuffles == 1 and len(s.draw) == 11
    assert list(s.draw) != sorted(s.draw)
    again = flip(g.new_position(turn=0, lines=lines, draw=[], discard=discard, rest="out", seed=3).apply("hit"))
    assert again.draw == s.draw
    opened = g.new_position(turn=0, lines=lines, draw=[], discard=discard, rest="out", seed=None)
    o = opened.apply("hit")
    o = o.apply_chance(o.sample_chance(random.Random(1)))
    assert o.shuffles == 1 and list(o.draw) == sorted(o.draw)


@pytest.mark.rules("F7-113", "F7-080")
@pytest.mark.rules("F7-113", "F7-116")
def test_a_second_reshuffle_is_counted_as_the_second() -> None:
    """The used Second Chance and duplicate refill the discard pile, which the next hit
    reshuffles again where a round allows two reshuffles (option reshuffles=2)."""
    g = Game("flip7", 3, {"reshuffles": 2})
    s = g.new_position(turn=0, lines={0: ["5"], 1: ["11"], 2: ["10"]}, kept={0: ["second_chance"]}, discard=["5"], rest="out")
    s = flip(s.apply("hit"))
    assert s.shuffles == 1
    assert of_type(s.last_events(), "second_chance_used") == [{"seat": 0, "card": "5", "shield": "second_chance"}]
    assert Counter(s.game.card_ids[c] for c in s.discard) == Counter({"5": 1, "second_chance": 1})
    s = s.apply("hit")
    assert s.shuffles == 2 and len(s.draw) == 2 and s.round_shuffles == 2
    assert of_type(s.last_events(), "reshuffled") == [{"cards": 2}]


@pytest.mark.rules("F7-116", "F7-115")
def test_a_second_run_out_in_a_round_is_an_exhausted_deck() -> None:
    """By default (one reshuffle per round) the same second hit (seat 1's) finds the deck exhausted:
    the Hit becomes a Stay and the discard pile stays where it is."""
    g = Game("flip7", 3)
    s = g.new_position(turn=0, lines={0: ["5"], 1: ["11"], 2: ["10"]}, kept={0: ["second_chance"]}, discard=["5"], rest="out")
    s = flip(s.apply("hit"))
    assert (s.shuffles, s.round_shuffles) == (1, 1)
    s = s.apply("hit")
    assert s.shuffles == 1 and s.draw == () and len(s.discard) == 2
    assert [e.type for e in s.last_events()][:2] == ["deck_exhausted", "stayed"]
    assert s.status(1) is Status.STAYED  # seat 1 hit (seat 0 had the first hit)


@pytest.mark.rules("F7-112")
def test_fresh_shuffle_between_rounds_counts_each_shuffle() -> None:
    """deck_between_rounds=fresh-shuffle: every new round reshuffles the whole deck, counted in ``shuffles``."""
    g = Game("flip7", 3, {"deck_between_rounds": "fresh-shuffle", "initial_deal": "none", "stay_requires": "nothing"})
    s = g.new_initial_state(seed=1)
    assert (s.round, s.shuffles) == (1, 0)
    s = s.apply("stay").apply("stay").apply("stay")
    assert (s.round, s.shuffles) == (2, 1)
    s = s.apply("stay").apply("stay").apply("stay")
    assert (s.round, s.shuffles) == (3, 2)


def test_apply_move_refuses_what_is_not_a_history_entry() -> None:
    """apply_move wants a string; 'chance CARD' reveals a card, anything else is an action."""
    s = _offer()
    with pytest.raises(IllegalActionError) as info:
        s.apply_move(5)  # type: ignore[arg-type]
    assert (info.value.action, info.value.legal) == ("5", ("hit", "stay"))
    assert str(info.value) == "illegal action '5': expected a history entry (a string); legal here: hit, stay"
    t = s.apply_move("hit").apply_move("chance 7")
    assert t.line(1) == ["5", "7"] and t.history() == ["hit", "chance 7"]


@pytest.mark.rules("F7-120", "F7-121")
def test_winner_is_the_single_winning_seat() -> None:
    """winner() is None while the game runs and for a shared win; the seat of a single winner otherwise."""
    s = Game("flip7", 3).new_position(
        turn=0, lines={0: ["12"], 1: ["2"], 2: ["3"]}, statuses={1: "stayed", 2: "stayed"}, totals=[195, 0, 0]
    )
    assert s.winner() is None
    assert s.apply("stay").winner() == 0
    g = Game("flip7", 3, {"tie": "shared-win"})
    s = g.new_position(turn=0, lines={0: ["10"], 1: ["12"], 2: ["3"]}, statuses={1: "stayed", 2: "stayed"}, totals=[195, 193, 0])
    s = s.apply("stay")
    assert s.winners == (0, 1) and s.winner() is None


def test_action_sort_key_orders_by_verb_then_arguments() -> None:
    actions = [Action("swap", (0, 0, 1, 0)), Action("target", (2,)), Action("stay"), Action("target", (0,)), Action("hit")]
    assert Action("stay").sort_key() == (1, ())
    assert Action("discard", (1, 2)).sort_key() == (4, (1, 2))
    assert [str(a) for a in sorted(actions, key=Action.sort_key)] == ["hit", "stay", "target 0", "target 2", "swap 0 0 1 0"]


def test_equal_states_hash_equally() -> None:
    a, b = _offer(), _offer()
    assert a is not b and hash(a) == hash(b)
    assert len({a, b, a.apply("hit")}) == 2
    # the hash follows the position (not a constant that would make every set of states one bucket)
    others = [a.apply("hit"), a.apply("stay"), a.apply("hit").apply_chance("7"), Game("flip7", 4).new_initial_state(seed=2)]
    assert len({hash(x) for x in [a, *others]}) > 1


# --------------------------------------------------------------------------- set-aside cards outside the deal


@pytest.mark.rules("F7-076", "F7-077")
def test_a_set_aside_second_chance_goes_to_the_forced_draw_target() -> None:
    """second_chance_in_flip_three=set-aside, mid-round: the Second Chance waits, then seat 0 (the target) keeps it."""
    g = Game("flip7", 3, {"second_chance_in_flip_three": "set-aside"})
    s = g.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, draw=["flip_three", "second_chance", "5", "6"])
    s = flip(flip(s.apply("hit")).apply("target 0"), 3)
    assert s.kept(0) == ["second_chance"] and s.line(0) == ["1", "5", "6"]
    assert of_type(s.last_events(), "second_chance_kept") == [{"seat": 0, "card": "second_chance"}]
    assert s.frames == () and s.current_player == 1


@pytest.mark.rules("F7-073", "F7-131")
def test_a_set_aside_card_nobody_can_take_is_discarded_without_a_seat() -> None:
    """flip_three_bust=resolve: seat 0, alone, busts on its own Flip Three; its set-aside Freeze has no active target."""
    g = Game("flip7", 3, {"flip_three_bust": "resolve"})
    s = g.new_position(
        turn=0, lines={0: ["5"], 1: ["2"], 2: ["3"]}, statuses={1: "stayed", 2: "stayed"}, draw=["flip_three", "freeze", "5"]
    )
    s = flip(s.apply("hit"))
    assert s.legal_action_strings() == ["target 0"]
    s = flip(s.apply("target 0"), 2)
    discarded = [e for e in of_type(s.events(), "discarded") if e["reason"] == "target no longer eligible"]
    assert discarded == [{"card": "freeze", "seat": None, "reason": "target no longer eligible"}]
    assert s.round == 2 and s.last_scores == (0, 2, 3)


@pytest.mark.rules("F7-073", "F7-074", "F7-075")
def test_a_set_aside_card_whose_target_was_frozen_first_is_discarded_naming_the_seat() -> None:
    """Both set-aside cards go to seat 0: the Freeze resolves first, so the Flip Three no longer has an eligible target."""
    g = Game("flip7", 3)
    s = g.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, draw=["flip_three", "freeze", "flip_three", "5"])
    s = flip(flip(s.apply("hit")).apply("target 1"), 3)
    assert s.pending() == ("assign", "freeze")
    s = s.apply("target 0").apply("target 0")
    assert s.status(0).value == "frozen"
    discarded = [e for e in of_type(s.last_events(), "discarded") if e["reason"] == "target no longer eligible"]
    assert discarded == [{"card": "flip_three", "seat": 0, "reason": "target no longer eligible"}]


@pytest.mark.rules("V-045")
def test_swap_picks_come_in_the_order_of_their_arguments() -> None:
    """The legal Swap picks of three seats with two and one cards: every pair of cards
    of two different seats, ordered by (seat, card, other seat, other card) — the
    order of Action, which sorts by verb and then arguments."""
    game = Game("vengeance", 3)
    s = game.new_position(turn=2, lines={0: ["10", "11"], 1: ["10", "11"], 2: ["5"]}, draw=["swap", "6"])
    s = s.apply("hit").apply_chance("swap")
    s = s.apply("target 2")
    assert s.pending() == ("cards", "swap")
    legal = s.legal_actions()
    assert legal == sorted(legal)
    assert s.legal_action_strings() == [
        "swap 0 0 1 0", "swap 0 0 1 1", "swap 0 0 2 0", "swap 0 1 1 0", "swap 0 1 1 1", "swap 0 1 2 0",
        "swap 1 0 2 0", "swap 1 1 2 0",
    ]


@pytest.mark.rules("V-045")
def test_apply_legal_is_apply_for_every_legal_action() -> None:
    """The unchecked step strategies use to try every pick gives what apply() gives."""
    game = Game("vengeance", 3)
    s = game.new_position(turn=2, lines={0: ["10", "11"], 1: ["10", "11"], 2: ["5"]}, draw=["swap", "6"])
    s = s.apply("hit").apply_chance("swap").apply("target 2")
    legal = s.legal_actions()
    assert len(legal) == 8
    for action in legal:
        checked, unchecked = s.apply(action), s._apply_legal(action)
        assert checked == unchecked and checked.history() == unchecked.history()
        assert checked.last_events() == unchecked.last_events()
