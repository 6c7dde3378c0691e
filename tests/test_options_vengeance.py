"""Every option of spec/editions/vengeance.yaml, every reading: a stacked position whose outcome tells the readings apart.

Each option has a *scenario*: a function that builds a concrete position under one
reading, plays it and returns the outcome.  ``CASES`` holds the outcome each
reading must give; the per-option tests check it, ``test_readings_differ_pairwise``
checks the readings of an option really play out differently, and
``test_cases_cover_every_option_and_reading`` fails when the table gains an
option or a reading without a case here.  Integer options (``target_score``,
``decks``) also get a non-default integer.  Where the engine contradicts a
reading's summary the test holds the summary's outcome (two such bugs, on
``stayed_targetable=no``, were found this way and fixed).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import helpers
import pytest
from helpers import HIT, HIT_STAY, all_lines, check_reading, offers_in_turn, play, reading_cases

from flip7ref import CardError, Game, Status, load_edition
from flip7ref.checking.conformance import draw_to_decision

EDITION = load_edition("vengeance")

ACTIONS = ("just_one_more", "flip_four", "swap", "steal", "discard")


# --------------------------------------------------------------------------- helpers


def _game(players: int, option: str, value: str | int) -> Game:
    return Game("vengeance", players, {option: value})


# --------------------------------------------------------------------------- scenarios


def _brutal_negative(g: Game) -> Any:
    """Seat 0 stays on 3 and -10 (total 5); seats 1 and 2 stayed on 9 and 4: round scores and totals."""
    s = g.new_position(
        dealer=2, turn=0, lines={0: ["3", "-10"], 1: ["9"], 2: ["4"]}, statuses={1: "stayed", 2: "stayed"},
        totals=[5, 0, 0], draw=["2", "5", "6"],
    )  # fmt: skip
    s = play(s, "stay")
    assert s.round == 2
    return s.round_scores(), s.totals


def _brutal_busted_modifier(g: Game) -> Any:
    """Seat 0 (5) hits -8 with seat 1 busted (6 6) and seat 2 stayed (4): the seats offered, then scores.

    The -8 goes to the busted seat 1 when it may, else to seat 2; seat 0 then stays.
    """
    s = g.new_position(
        dealer=2, turn=0, lines={0: ["5"], 1: ["6", "6"], 2: ["4"]}, statuses={1: "busted", 2: "stayed"},
        draw=["-8", "2", "5", "6"],
    )  # fmt: skip
    s = play(s, "hit")
    assert s.current_player == 0 and s.pending() == ("play", "-8")
    offered = tuple(s.legal_action_strings())
    s = play(s, "target 1" if "target 1" in offered else "target 2", "stay")
    assert s.round == 2
    return offered, s.round_scores()


def _brutal_flip7(g: Game) -> Any:
    """Seat 0 (1-6) hits an 8 for a Flip 7; seat 1 active on 9, seat 2 busted: the decision, then scores.

    If asked, seat 0 gives the -15 to seat 1.
    """
    s = g.new_position(
        dealer=2, turn=0, lines={0: ["1", "2", "3", "4", "5", "6"], 1: ["9"], 2: ["10", "10"]},
        statuses={2: "busted"}, draw=["8", "2", "5", "6"],
    )  # fmt: skip
    s = play(s, "hit")
    asked = (s.round, s.current_player, s.pending(), tuple(s.legal_action_strings()))
    if s.pending() == ("flip7_bonus", None):
        s = play(s, "target 1")
    chosen = [e.to_dict() for e in s.events() if e.type == "flip7_bonus_chosen"]
    return asked, s.round_scores(), s.totals, chosen


def scenario_brutal(value: str | int) -> Any:
    """The three Brutal Mode changes: a negative round score, a modifier for a busted player, the Flip 7 choice."""
    g = _game(3, "brutal", value)
    return _brutal_negative(g), _brutal_busted_modifier(g), _brutal_flip7(g)


def scenario_lucky13_flip7(value: str | int) -> Any:
    """Seat 0 (1 2 3 4 5 Lucky 13) hits a regular 13; seat 1 stayed on 9, seat 2 active on 10."""
    g = _game(3, "lucky13_flip7", value)
    s = g.new_position(
        dealer=2, turn=0, lines={0: ["1", "2", "3", "4", "5", "lucky13"], 1: ["9"], 2: ["10"]},
        statuses={1: "stayed"}, draw=["13", "2", "5", "6"],
    )  # fmt: skip
    s = play(s, "hit")
    flip7 = [e.get("seat") for e in s.events() if e.type == "flip7"]
    return s.round, flip7, s.round_scores(), s.current_player, all_lines(s)


def scenario_stayed_targetable(value: str | int) -> Any:
    """Seat 0 hits each action card in turn while seat 1 has stayed (seat 2 active): the seats offered."""
    g = _game(3, "stayed_targetable", value)
    out = []
    for card in ACTIONS:
        s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["8"]}, statuses={1: "stayed"}, draw=[card])
        s = play(s, "hit")
        assert s.current_player == 0 and s.pending() == ("play", card)
        out.append(tuple(s.legal_action_strings()))
    return tuple(out)


def scenario_discard_chooser(value: str | int) -> Any:
    """Seat 0 hits a Discard and plays it on seat 1 (6 -4 9): who picks, the picks, and the 9 going."""
    g = _game(3, "discard_chooser", value)
    s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6", "-4", "9"], 2: ["8"]}, draw=["discard", "2", "3"])
    s = play(s, "hit", "target 1")
    asked = (s.current_player, s.pending(), tuple(s.legal_action_strings()))
    s = play(s, "discard 1 2")
    return asked, all_lines(s), [e.to_dict() for e in s.last_events()], s.current_player


def scenario_swap_scope(value: str | int) -> Any:
    """Seat 0 hits a Swap: with an empty line, the seats it may play it on; holding 5, the swaps open to it.

    Played with ``unusable_actions: refuse`` so that the seats offered are those who can use it."""
    g = Game("vengeance", 3, {"swap_scope": value, "unusable_actions": "refuse"})
    s = g.new_position(dealer=2, turn=0, lines={1: ["6"], 2: ["8"]}, draw=["swap"])
    s = play(s, "hit")
    assert s.pending() == ("play", "swap")
    targets_when_empty = tuple(s.legal_action_strings())
    s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["8"]}, draw=["swap"])
    s = play(s, "hit", "target 0")
    assert s.current_player == 0 and s.pending() == ("cards", "swap")
    return targets_when_empty, tuple(s.legal_action_strings())


def scenario_flip_four_cards(value: str | int) -> Any:
    """Seat 0 plays a Flip Four on seat 1 (6), who flips Steal, 3, 6 (bust): does the Steal take seat 2's 8 first?

    When asked, seat 1 plays the Steal on itself and takes seat 2's 8.
    """
    g = _game(3, "flip_four_cards", value)
    s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["8"]}, draw=["flip_four", "steal", "3", "6", "2", "4"])
    s = play(s, "hit", "target 1")
    asked = (s.current_player, s.pending(), all_lines(s))
    if s.pending() == ("play", "steal"):
        s = play(s, "target 1", "steal 2 0")
    ended = [e.to_dict() for e in s.events() if e.type in ("set_aside", "stolen", "discarded")]
    return asked, all_lines(s), s.status(1), s.current_player, ended


def scenario_initial_deal(value: str | int) -> Any:
    """3 seats, dealer 0, stack 5 7 9: dealt lines, who is asked first and what they may do."""
    s = play(_game(3, "initial_deal", value).new_initial_state(stack=["5", "7", "9"], dealer=0))
    return all_lines(s), s.current_player, s.pending(), s.legal_action_strings(), (len(s.draw), s.next_card())


def scenario_stay_requires(value: str | int) -> Any:
    """Seat 0 holds only -4, seat 1 nothing, seat 2 a 5: the offers each one gets (seats 0 and 1 then hit)."""
    g = _game(3, "stay_requires", value)
    s = g.new_position(dealer=2, turn=0, lines={0: ["-4"], 2: ["5"]}, draw=["8", "9"])
    return offers_in_turn(s, 3)


def scenario_reshuffles(value: str | int) -> Any:
    """Seat 1 stayed, seat 0 hits on two Flip Fours and nothing else: how many reshuffles
    round 1 takes before it ends, in how many decisions, and its scores."""
    g = _game(2, "reshuffles", value)
    s = g.new_position(dealer=1, turn=0, lines={0: ["5"], 1: ["6"]}, statuses={1: "stayed"},
                       draw=["flip_four", "flip_four"], rest="out")  # fmt: skip
    s = play(s, "hit")
    moves = 1
    while s.round == 1:
        s = play(s, s.legal_action_strings()[0])
        moves += 1
    events = s.events()
    scored = next(i for i, e in enumerate(events) if e.type == "round_scored")
    guard = any(e.type == "deck_exhausted" and e.get("reason") for e in events[:scored])  # F7-117 / V-076
    return sum(1 for e in events[:scored] if e.type == "reshuffled"), moves, events[scored].get("scores"), guard


def scenario_zero_just_one_more(value: str | int) -> Any:
    """Seat 0 (The Zero 1 2 3 4) takes a Just One More from seat 1 and draws a 5, then must
    stay; seat 2 hits a Swap, plays it on itself and swaps its 6 for seat 0's -2: seat 0
    now holds seven different numbers.  Flip 7 or not, and the round scores when it ends."""
    g = _game(3, "zero_just_one_more", value)
    s = g.new_position(dealer=0, turn=1, lines={0: ["0", "1", "2", "3", "4", "-2"], 1: ["9"], 2: ["6"]},
                       draw=["just_one_more", "5", "swap", "8", "10"])  # fmt: skip
    s = play(s, "hit", "target 0")
    assert s.status(0) is Status.STAYED and s.line(0)[-1] == "5"
    s = play(s, "hit", "target 2", "swap 0 5 2 0")
    flip7 = [e.get("seat") for e in s.events() if e.type == "flip7"]
    return flip7, sorted(s.line(0)) if s.round == 1 else s.last_scores, s.round


def scenario_busted_cards(value: str | int) -> Any:
    """Seat 0 (5 -4) hits a 5 and busts: its line, and the discard pile's size."""
    g = _game(3, "busted_cards", value)
    s = g.new_position(dealer=2, turn=0, lines={0: ["5", "-4"], 1: ["9"], 2: ["6"]}, draw=["5", "8"])
    s = play(s, "hit")
    return s.status(0), s.line(0), len(s.discard)


def scenario_unusable_actions(value: str | int) -> Any:
    """Seat 0 (5) hits a Discard while seat 1 has no card and seat 2 holds 8: who may
    receive it; given to seat 1 where it may, what becomes of it."""
    g = _game(3, "unusable_actions", value)
    s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 2: ["8"]}, draw=["discard", "3", "4"])
    s = play(s, "hit")
    allowed = tuple(s.legal_action_strings())
    if "target 1" not in allowed:
        return allowed, None
    s = play(s, "target 1")
    return allowed, [(e.type, e.get("reason")) for e in s.last_events() if e.type == "discarded"] or [
        (e.type, e.get("reason")) for e in s.events() if e.type == "discarded"
    ]


def scenario_brutal_zero(value: str | int) -> Any:
    """A line of The Zero, 3 and -4 (no Flip 7), scored in Brutal Mode and in standard play."""
    from flip7ref.core.scoring import score_cards

    out = []
    for brutal in ("true", "false"):
        g = Game("vengeance", 3, {"brutal_zero": value, "brutal": brutal})
        out.append(score_cards(g, ["0", "3", "-4"]).score)
    return tuple(out)


def scenario_brutal_busted(value: str | int) -> Any:
    """Brutal Mode: seat 0 (5, -4) busts on a 5, seat 1 (9) gives it the -10 it hits and stays
    (seat 2 stayed on 6): the round scores."""
    g = Game("vengeance", 3, {"brutal": "true", "brutal_busted": value})
    s = g.new_position(dealer=2, lines={0: ["5", "-4"], 1: ["9"], 2: ["6"]}, statuses={2: "stayed"}, draw=["5", "-10", "3"])
    s = play(s, "hit", "hit", "target 0", "stay")
    return s.last_scores


def scenario_unlucky7_flip_four(value: str | int) -> Any:
    """Seat 0 (5) plays a Flip Four on itself and flips -4, Unlucky 7, 3, 8: its line, who decides next
    and on what, and the cards the wipes took."""
    g = _game(3, "unlucky7_flip_four", value)
    s = g.new_position(dealer=2, lines={0: ["5"], 1: ["9"], 2: ["6"]}, draw=["flip_four", "-4", "unlucky7", "3", "8", "2"])
    s = play(s, "hit", "target 0")
    wiped = [e.get("cards") for e in s.events() if e.type == "line_wiped"]
    return s.line(0), s.current_player, s.pending(), wiped


def scenario_flip_four_late_bust(value: str | int) -> Any:
    """Seat 0 (5) plays a Flip Four on itself: Just One More, -4, 2, 3; the Just One More (on itself) draws
    a 5 and busts it: who decides next and on what, and what became of the -4."""
    g = _game(3, "flip_four_late_bust", value)
    draw = ["flip_four", "just_one_more", "-4", "2", "3", "5", "8"]
    s = g.new_position(dealer=2, lines={0: ["5"], 1: ["9"], 2: ["6"]}, draw=draw)
    s = play(s, "hit", "target 0", "target 0")
    gone = [e.get("reason") for e in s.events() if e.type == "discarded" and e.get("card") == "-4"]
    return s.status(0), s.current_player, s.pending(), tuple(s.legal_action_strings()), gone


def scenario_brutal_penalty(value: str | int) -> Any:
    """Brutal Mode: seat 0 (1-6) hits an 8 for a Flip 7 beside seat 1 (9) and busted seat 2 (10 10):
    the seats offered for the 15, then the scores when it takes them from seat 2 if offered, else seat 1."""
    g = Game("vengeance", 3, {"brutal": "true", "brutal_penalty": value})
    s = g.new_position(
        dealer=2, turn=0, lines={0: ["1", "2", "3", "4", "5", "6"], 1: ["9"], 2: ["10", "10"]},
        statuses={2: "busted"}, draw=["8", "2", "5", "6"],
    )  # fmt: skip
    s = play(s, "hit")
    offered = tuple(s.legal_action_strings())
    s = play(s, "target 2" if "target 2" in offered else "target 1")
    return offered, s.round_scores()


def scenario_zero_own_flip_four(value: str | int) -> Any:
    """Seat 0 (The Zero, 1, 2) hits a Flip Four on itself: Just One More, Flip Four, 3, 4; the Just One
    More on itself draws a 5 and stops it (barred), the Flip Four on itself draws a 6: its line, status,
    the round and the Flip 7 made (or not)."""
    g = _game(3, "zero_own_flip_four", value)
    draw = ["flip_four", "just_one_more", "flip_four", "3", "4", "5", "6", "8", "11", "12"]
    s = g.new_position(dealer=2, turn=0, lines={0: ["0", "1", "2"], 1: ["9"], 2: ["10"]}, draw=draw)
    s = play(s, "hit", "target 0", "target 0", "target 0")
    made = [e.get("seat") for e in s.events() if e.type == "flip7"]
    return s.round, made, s.round_scores() if s.round == 2 else (s.line(0), s.status(0))


def scenario_moved_card_place(value: str | int) -> Any:
    """Seat 0 (1 2 3) hits a Swap and swaps its 1 with seat 1's 9 (9 10), then, in a second position,
    hits a Steal and steals seat 1's 9: the lines of seats 0 and 1 after each."""
    g = _game(3, "moved_card_place", value)
    out = []
    for card, pick in (("swap", "swap 0 0 1 0"), ("steal", "steal 1 0")):
        s = g.new_position(dealer=2, turn=0, lines={0: ["1", "2", "3"], 1: ["9", "10"], 2: ["6"]}, draw=[card, "8"])
        s = play(s, "hit", "target 0", pick)
        out.append((s.line(0), s.line(1)))
    return tuple(out)


def scenario_deal_after_early_cards(value: str | int) -> Any:
    """Dealer 1: seat 2 is dealt 4, seat 0 a Flip Four it plays on seat 1 (1, 2, 3, 5) before seat 1's
    slot: who is asked next and on what, and seat 1's line."""
    g = _game(3, "deal_after_early_cards", value)
    s = g.new_position(dealer=1, deal=True, draw=["4", "flip_four", "1", "2", "3", "5", "6", "9"])
    s = play(s, "target 1")
    return s.current_player, s.line(1), s.next_card()


SCENARIOS: dict[str, Callable[[str | int], Any]] = {
    "brutal": scenario_brutal,
    "lucky13_flip7": scenario_lucky13_flip7,
    "stayed_targetable": scenario_stayed_targetable,
    "discard_chooser": scenario_discard_chooser,
    "swap_scope": scenario_swap_scope,
    "flip_four_cards": scenario_flip_four_cards,
    "initial_deal": scenario_initial_deal,
    "stay_requires": scenario_stay_requires,
    "tie": partial(helpers.scenario_tie, "vengeance"),
    "target_score": partial(helpers.scenario_target_score, "vengeance"),
    "decks": partial(helpers.scenario_decks, "vengeance"),
    "reshuffles": scenario_reshuffles,
    "zero_just_one_more": scenario_zero_just_one_more,
    "busted_cards": scenario_busted_cards,
    "unusable_actions": scenario_unusable_actions,
    "brutal_zero": scenario_brutal_zero,
    "brutal_busted": scenario_brutal_busted,
    "unlucky7_flip_four": scenario_unlucky7_flip_four,
    "flip_four_late_bust": scenario_flip_four_late_bust,
    "deal_after_early_cards": scenario_deal_after_early_cards,
    "brutal_penalty": scenario_brutal_penalty,
    "zero_own_flip_four": scenario_zero_own_flip_four,
    "moved_card_place": scenario_moved_card_place,
}

T012 = ("target 0", "target 1", "target 2")
T02 = ("target 0", "target 2")

# option -> reading (or extra integer value) -> the outcome of that option's scenario.
CASES: dict[str, dict[str | int, Any]] = {
    "brutal": {
        "false": (
            ((0, 9, 4), (5, 9, 4)),  # 3 - 10 floors at 0
            (T02, (5, 0, 0)),  # busted seat 1 not offered; seat 2's 4 - 8 floors at 0
            ((2, 1, ("offer", None), HIT_STAY), (44, 9, 0), (44, 9, 0), []),  # Flip 7 ends the round: 29 + 15
        ),
        "true": (
            ((-7, 9, 4), (-2, 9, 4)),  # 3 - 10 = -7 lowers the total to -2
            (T012, (5, -8, 4)),  # the busted seat 1 takes the -8 and scores it
            (
                (1, 0, ("flip7_bonus", None), T012),  # seat 0 decides, the round still open
                (29, -6, 0),  # no +15 for the maker, -15 for seat 1 (9 - 15)
                (29, -6, 0),
                [{"type": "flip7_bonus_chosen", "seat": 0, "target": 1, "points": -15}],
            ),
        ),
    },
    "lucky13_flip7": {
        # seven number cards: Flip 7, round over, 1+2+3+4+5+13+13 + 15 = 56; round 2 is dealt 2 5 6
        "twice": (2, [0], (56, 9, 10), 1, [["6"], ["2"], ["5"]]),
        # six different numbers: no Flip 7, the offer passes to seat 2
        "once": (1, [], (), 2, [["1", "2", "3", "4", "5", "lucky13", "13"], ["9"], ["10"]]),
    },
    "stayed_targetable": {
        "yes": (T012,) * len(ACTIONS),
        "no": (T02,) * len(ACTIONS),
    },
    "discard_chooser": {
        "giver": (
            (0, ("cards", "discard"), ("discard 1 0", "discard 1 1", "discard 1 2")),
            [["5"], ["6", "-4"], ["8"]],
            [{"type": "card_discarded", "seat": 1, "card": "9", "by": 0}],
            1,
        ),
        "recipient": (
            (1, ("cards", "discard"), ("discard 1 0", "discard 1 1", "discard 1 2")),
            [["5"], ["6", "-4"], ["8"]],
            [{"type": "card_discarded", "seat": 1, "card": "9", "by": 1}],
            1,
        ),
    },
    "swap_scope": {
        "any-two": (T012, ("swap 0 0 1 0", "swap 0 0 2 0", "swap 1 0 2 0")),
        "own-and-other": (("target 1", "target 2"), ("swap 0 0 1 0", "swap 0 0 2 0")),
    },
    "flip_four_cards": {
        "after": (
            (2, ("offer", None), [["5"], ["6", "3", "6"], ["8"]]),  # the bust voids the held Steal
            [["5"], ["6", "3", "6"], ["8"]],
            Status.BUSTED,
            2,
            [
                {"type": "set_aside", "seat": 1, "card": "steal"},
                {"type": "discarded", "card": "steal", "seat": 1, "reason": "target busted"},
            ],
        ),
        "immediate": (
            (1, ("play", "steal"), [["5"], ["6"], ["8"]]),  # asked at once, three flips still to come
            [["5"], ["6", "8", "3", "6"], []],
            Status.BUSTED,
            2,
            [{"type": "stolen", "seat": 1, "card": "8", "target": 2}],
        ),
    },
    "initial_deal": {
        "deal": ([["9"], ["5"], ["7"]], 1, ("offer", None), ["hit", "stay"], (105, "11")),  # 11: seed 0's next card
        # no deal: the stacked 5 is still on top of the full 108-card pile
        "none": ([[], [], []], 1, ("offer", None), ["hit", "stay"], (108, "5")),
    },
    "stay_requires": {
        "nothing": (HIT_STAY, HIT_STAY, HIT_STAY),
        "any-card": (HIT_STAY, HIT, HIT_STAY),
        "number-card": (HIT, HIT, HIT_STAY),
    },
    "tie": {
        "another-round": (False, (0,), 2, (209, 207, 156), [(0, 1)]),
        "shared-win": (True, (0, 1), 1, (205, 205, 153), []),
    },
    "target_score": {
        "200": (False, (), 2, (52, 3)),
        52: (True, (0,), 1, (52, 3)),
    },
    "decks": {
        "auto": (108, "CardError"),
        2: (216, Status.BUSTED, ["0", "0"], 216),
    },
    "reshuffles": {
        "1": (1, 5, (5, 6), False),
        0: (0, 4, (5, 6), False),
        2: (2, 6, (5, 6), False),
        # every time the deck runs out, but the second reshuffle would bring no progress: the guard says so
        "unlimited": (1, 5, (5, 6), True),
    },
    "zero_just_one_more": {
        # seven numbers arrive in a stayed Zero line: no Flip 7, the round goes on
        "no-flip7": ([], ["0", "1", "2", "3", "4", "5", "6"], 1),
        # a Flip 7 (0..6 = 21 + 15); seat 2 is left with -2, floored at 0
        "general-rules": ([0], (36, 9, 0), 2),
    },
    "busted_cards": {
        "keep": (Status.BUSTED, ["5", "-4", "5"], 0),
        "discard": (Status.BUSTED, [], 3),
    },
    "unusable_actions": {
        "refuse": (T02, None),
        "fizzle": (T012, [("discarded", "no valid target")]),
    },
    "brutal_zero": {
        "zero": (0, 0),
        "negatives": (-4, 0),
    },
    "brutal_busted": {
        "given-after-bust": (-10, 9, 6),  # the -4 held at the bust stays void
        "all-negatives": (-14, 9, 6),  # -4 and -10
    },
    "unlucky7_flip_four": {
        "survives": (["unlucky7", "3", "8"], 0, ("play", "-4"), [("5",)]),  # the -4 still waits for a receiver
        "wiped": (["unlucky7", "3", "8"], 1, ("offer", None), [("5",), ("-4",)]),  # gone with the line
    },
    "flip_four_late_bust": {
        "all": (Status.BUSTED, 0, ("play", "-4"), ("target 1", "target 2"), []),  # the busted seat gives the -4
        "actions-only": (Status.BUSTED, 1, ("offer", None), ("hit", "stay"), ["target busted"]),
    },
    "deal_after_early_cards": {
        "offer": (1, ["1", "2", "3", "5"], "6"),  # asked at its slot
        "skip": (2, ["1", "2", "3", "5"], "6"),  # passed over: the offers start at seat 2
        "deal": (2, ["1", "2", "3", "5", "6"], "9"),  # dealt its card all the same
    },
    "brutal_penalty": {
        "any-player": (T012, (29, 9, -15)),  # the busted seat 2 loses 15
        "not-busted": (("target 0", "target 1"), (29, -6, 0)),  # seat 2 not offered: seat 1 loses 15
    },
    "zero_own_flip_four": {
        "barred": (1, [], (["0", "1", "2", "3", "4", "5", "6"], Status.STAYED)),  # stops at seven numbers
        "flip7": (2, [0], (36, 9, 10)),  # 0 to 6 is 21, +15
    },
    "moved_card_place": {
        "end": ((["2", "3", "9"], ["10", "1"]), (["1", "2", "3", "9"], ["10"])),
        "in-place": ((["9", "2", "3"], ["1", "10"]), (["9", "1", "2", "3"], ["10"])),
    },
}

# option -> the rule ids of its `rules:` entry in vengeance.yaml (checked against the table below).
RULES: dict[str, tuple[str, ...]] = {
    "brutal": ("V-080", "V-081", "V-082"),
    "lucky13_flip7": ("V-022", "V-036"),
    "stayed_targetable": ("V-014", "V-015", "V-042", "V-050"),
    "discard_chooser": ("V-047",),
    "swap_scope": ("V-045",),
    "flip_four_cards": ("V-044",),
    "initial_deal": ("V-011",),
    "stay_requires": ("V-017",),
    "tie": ("V-074",),
    "target_score": ("V-073",),
    "decks": ("V-003",),
    "reshuffles": ("V-075", "V-076"),
    "zero_just_one_more": ("V-038",),
    "busted_cards": ("V-020",),
    "unusable_actions": ("V-048",),
    "brutal_zero": ("V-030", "V-080"),
    "brutal_busted": ("V-081", "V-084",),
    "unlucky7_flip_four": ("V-035", "V-039",),
    "flip_four_late_bust": ("V-044",),
    "deal_after_early_cards": ("V-011", "V-018",),
    "brutal_penalty": ("V-082", "V-085"),
    "zero_own_flip_four": ("V-038", "V-086"),
    "moved_card_place": ("V-045", "V-046", "V-087"),
}

DEFAULTS: dict[str, str | int] = {
    "brutal": "false",
    "lucky13_flip7": "twice",
    "stayed_targetable": "yes",
    "discard_chooser": "giver",
    "swap_scope": "any-two",
    "flip_four_cards": "after",
    "initial_deal": "deal",
    "stay_requires": "nothing",
    "tie": "another-round",
    "target_score": 200,
    "decks": "auto",
    "reshuffles": "unlimited",
    "zero_just_one_more": "no-flip7",
    "busted_cards": "keep",
    "unusable_actions": "fizzle",
    "brutal_zero": "zero",
    "brutal_busted": "given-after-bust",
    "unlucky7_flip_four": "survives",
    "flip_four_late_bust": "all",
    "deal_after_early_cards": "offer",
    "brutal_penalty": "any-player",
    "zero_own_flip_four": "barred",
    "moved_card_place": "end",
}


# --------------------------------------------------------------------------- brutal


@pytest.mark.rules("V-080", "V-081", "V-082")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "brutal"))
def test_brutal(reading: str, expected: Any) -> None:
    """brutal: -7 stays -7, a busted seat may take the -8 and score it, and a Flip 7 asks +15 or -15 (true) or none of it."""
    check_reading(SCENARIOS, "brutal", reading, expected)


@pytest.mark.rules("V-080", "V-081", "V-082")
def test_brutal_bool_is_the_true_reading() -> None:
    """Game('vengeance', 4, {'brutal': True}) is the "true" reading; False is the default game."""
    g = Game("vengeance", 4, {"brutal": True})
    assert g == Game("vengeance", 4, {"brutal": "true"})
    assert g.options["brutal"] == "true"
    assert g.non_default_options() == {"brutal": "true"}
    assert Game("vengeance", 4, {"brutal": False}) == Game("vengeance", 4)
    assert scenario_brutal(True) == CASES["brutal"]["true"]


@pytest.mark.rules("V-082")
@pytest.mark.parametrize(
    ("choice", "scores", "points"),
    [
        pytest.param("target 0", (44, 9, 0), 15, id="self"),
        pytest.param("target 1", (29, -6, 0), -15, id="active"),
        pytest.param("target 2", (29, 9, -15), -15, id="busted"),
    ],
)
def test_brutal_flip7_choice(choice: str, scores: tuple[int, ...], points: int) -> None:
    """brutal true: the Flip 7 maker takes +15 (44) or gives -15 to any other seat, a busted one included."""
    g = Game("vengeance", 3, {"brutal": "true"})
    s = g.new_position(
        dealer=2, turn=0, lines={0: ["1", "2", "3", "4", "5", "6"], 1: ["9"], 2: ["10", "10"]},
        statuses={2: "busted"}, draw=["8"],
    )  # fmt: skip
    s = s.apply("hit").apply_chance("8")
    assert [e.type for e in s.last_events()] == ["dealt", "flip7"]
    assert (s.current_player, s.pending(), s.round) == (0, ("flip7_bonus", None), 1)
    s = s.apply(choice)
    events = [e.to_dict() for e in s.last_events()]
    assert events[0] == {"type": "flip7_bonus_chosen", "seat": 0, "target": int(choice.split()[1]), "points": points}
    assert events[1] == {"type": "round_scored", "round": 1, "scores": list(scores), "totals": list(scores), "flip7": 0}
    assert s.round == 2
    assert s.round_scores() == scores


@pytest.mark.rules("V-081")
@pytest.mark.parametrize(
    ("reading", "scores"), [pytest.param("false", (5, 0), id="false"), pytest.param("true", (5, -4), id="true")]
)
def test_brutal_busted_line_scores_its_modifiers(reading: str, scores: tuple[int, ...]) -> None:
    """brutal: a busted line 6 6 ÷2 -4 scores 0, or only its -4 in Brutal Mode (the ÷2 has nothing to halve)."""
    g = Game("vengeance", 2, {"brutal": reading})
    s = g.new_position(dealer=1, turn=0, lines={0: ["5"], 1: ["6", "6", "/2", "-4"]}, statuses={1: "busted"})
    s = play(s, "stay")
    assert s.round == 2
    assert s.round_scores() == scores
    assert s.totals == scores


@pytest.mark.rules("V-050", "V-081")
@pytest.mark.parametrize(
    ("reading", "offered"), [pytest.param("false", ("target 0",), id="false"), pytest.param("true", T012, id="true")]
)
def test_brutal_lone_survivor_may_give_modifier_to_busted(reading: str, offered: tuple[str, ...]) -> None:
    """brutal: the only player not busted must keep a -6, or may give it to a busted seat in Brutal Mode."""
    g = Game("vengeance", 3, {"brutal": reading})
    s = g.new_position(
        dealer=2, turn=0, lines={0: ["5"], 1: ["6", "6"], 2: ["9", "9"]}, statuses={1: "busted", 2: "busted"}, draw=["-6"]
    )
    s = play(s, "hit")
    assert (s.current_player, s.pending()) == (0, ("play", "-6"))
    assert tuple(s.legal_action_strings()) == offered


# --------------------------------------------------------------------------- lucky13_flip7


@pytest.mark.rules("V-022", "V-036")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "lucky13_flip7"))
def test_lucky13_flip7(reading: str, expected: Any) -> None:
    """lucky13_flip7: 1-5 with Lucky 13 and a 13 is a Flip 7 worth 56 (twice) or six numbers and play goes on (once)."""
    check_reading(SCENARIOS, "lucky13_flip7", reading, expected)


@pytest.mark.rules("V-022", "V-036")
def test_lucky13_flip7_seven_different_numbers_when_counted_once() -> None:
    """lucky13_flip7=once: 1-5 with Lucky 13 and a 13, plus a 6, is a Flip 7 (1..6 + 26 + 15 = 62).

    Under ``twice`` that line is already a Flip 7 before the 6, so no game reaches
    it mid-round: building it is refused."""
    g = Game("vengeance", 2, {"lucky13_flip7": "once"})
    line = ["1", "2", "3", "4", "5", "lucky13", "13"]
    s = g.new_position(dealer=1, turn=0, lines={0: line, 1: ["9"]}, draw=["6"])
    s = play(s, "hit")
    assert [e.get("seat") for e in s.events() if e.type == "flip7"] == [0]
    assert s.round == 2
    assert s.round_scores() == (62, 9)
    with pytest.raises(CardError, match="Flip 7 ends the round"):
        Game("vengeance", 2, {"lucky13_flip7": "twice"}).new_position(dealer=1, turn=0, lines={0: line}, draw=["6"])


# --------------------------------------------------------------------------- stayed_targetable


@pytest.mark.rules("V-014", "V-015", "V-042", "V-050")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "stayed_targetable"))
def test_stayed_targetable(reading: str, expected: Any) -> None:
    """stayed_targetable: every action may be played on the stayed seat 1 (yes) or only on active seats 0 and 2 (no)."""
    check_reading(SCENARIOS, "stayed_targetable", reading, expected)


@pytest.mark.rules("V-014", "V-015")
def test_stayed_targetable_yes_stayed_target_draws_and_stays_stayed() -> None:
    """stayed_targetable yes: a Flip Four on the stayed seat 1 gives it 2 3 4 9 and it is still stayed, not asked again."""
    g = Game("vengeance", 3, {"stayed_targetable": "yes"})
    s = g.new_position(
        dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["8"]}, statuses={1: "stayed"}, draw=["flip_four", "2", "3", "4", "9"]
    )
    s = play(s, "hit", "target 1")
    assert s.line(1) == ["6", "2", "3", "4", "9"]
    assert s.status(1) is Status.STAYED
    assert s.current_player == 2
    assert s.line_value(1) == 24


@pytest.mark.rules("V-050", "V-081")
@pytest.mark.parametrize(
    ("brutal", "reading", "offered"),
    [
        pytest.param("false", "yes", ("target 0", "target 1", "target 3"), id="standard-yes"),
        pytest.param("false", "no", ("target 0", "target 3"), id="standard-no"),
        pytest.param("true", "yes", ("target 0", "target 1", "target 2", "target 3"), id="brutal-yes"),
        pytest.param(
            "true",
            "no",
            ("target 0", "target 2", "target 3"),
            id="brutal-no",
        ),
    ],
)
def test_stayed_targetable_modifiers(brutal: str, reading: str, offered: tuple[str, ...]) -> None:
    """stayed_targetable with brutal: who may get the -10 seat 0 hits (seat 1 stayed, seat 2 busted, seat 3 active)."""
    g = Game("vengeance", 4, {"stayed_targetable": reading, "brutal": brutal})
    s = g.new_position(
        dealer=3, turn=0, lines={0: ["5"], 1: ["6"], 2: ["9", "9"], 3: ["8"]}, statuses={1: "stayed", 2: "busted"},
        draw=["-10"],
    )  # fmt: skip
    s = play(s, "hit")
    assert (s.current_player, s.pending()) == (0, ("play", "-10"))
    assert tuple(s.legal_action_strings()) == offered


@pytest.mark.rules("V-014", "V-045", "V-046")
@pytest.mark.parametrize(
    ("reading", "picks"),
    [
        pytest.param("yes", (("steal 1 0", "steal 2 0"), ("swap 0 0 1 0", "swap 0 0 2 0", "swap 1 0 2 0")), id="yes"),
        pytest.param(
            "no",
            (("steal 2 0",), ("swap 0 0 2 0",)),
            id="no",
        ),
    ],
)
def test_stayed_targetable_stayed_line_reach(reading: str, picks: tuple[tuple[str, ...], ...]) -> None:
    """stayed_targetable: seat 0's Steal and Swap may reach the stayed seat 1's 6 (yes) or only seat 2's 8 (no)."""
    g = Game("vengeance", 3, {"stayed_targetable": reading})
    out = []
    for card in ("steal", "swap"):
        s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["8"]}, statuses={1: "stayed"}, draw=[card])
        s = play(s, "hit", "target 0")
        assert (s.current_player, s.pending()) == (0, ("cards", card))
        out.append(tuple(s.legal_action_strings()))
    assert tuple(out) == picks


# --------------------------------------------------------------------------- discard_chooser, swap_scope, flip_four_cards


@pytest.mark.rules("V-047")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "discard_chooser"))
def test_discard_chooser(reading: str, expected: Any) -> None:
    """discard_chooser: seat 1's 9 is picked for discard by seat 0 who played the Discard (giver) or by seat 1 (recipient)."""
    check_reading(SCENARIOS, "discard_chooser", reading, expected)


@pytest.mark.rules("V-045")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "swap_scope"))
def test_swap_scope(reading: str, expected: Any) -> None:
    """swap_scope: seat 0 may swap seats 1 and 2's cards and take the Swap with an empty line (any-two) or not (own-and-other)."""
    check_reading(SCENARIOS, "swap_scope", reading, expected)


@pytest.mark.rules("V-045")
def test_swap_scope_any_two_exchanges_two_other_lines() -> None:
    """swap_scope any-two: seat 0 swaps seat 1's 6 with seat 2's 8 and keeps its own 5."""
    g = Game("vengeance", 3, {"swap_scope": "any-two"})
    s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["8"]}, draw=["swap"])
    s = play(s, "hit", "target 0", "swap 1 0 2 0")
    assert all_lines(s) == [["5"], ["8"], ["6"]]
    assert [e.to_dict() for e in s.last_events()] == [
        {"type": "swapped", "seat": 0, "first": 1, "first_card": "6", "second": 2, "second_card": "8"}
    ]
    assert s.current_player == 1


@pytest.mark.rules("V-044")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "flip_four_cards"))
def test_flip_four_cards(reading: str, expected: Any) -> None:
    """flip_four_cards: a Steal flipped before the busting 6 is void (after) or takes seat 2's 8 first (immediate)."""
    check_reading(SCENARIOS, "flip_four_cards", reading, expected)


@pytest.mark.rules("V-044")
@pytest.mark.parametrize(
    ("reading", "line_when_asked"),
    [pytest.param("after", ["6", "3", "4", "9"], id="after"), pytest.param("immediate", ["6"], id="immediate")],
)
def test_flip_four_cards_modifier_timing(reading: str, line_when_asked: list[str]) -> None:
    """flip_four_cards: seat 1 gives the -4 it flips first after its 3 4 9 (after) or before them (immediate)."""
    g = Game("vengeance", 3, {"flip_four_cards": reading})
    s = g.new_position(dealer=2, turn=0, lines={0: ["5"], 1: ["6"], 2: ["8"]}, draw=["flip_four", "-4", "3", "4", "9"])
    s = play(s, "hit", "target 1")
    assert (s.current_player, s.pending(), tuple(s.legal_action_strings())) == (1, ("play", "-4"), T012)
    assert s.line(1) == line_when_asked
    s = play(s, "target 2")
    assert all_lines(s) == [["5"], ["6", "3", "4", "9"], ["8", "-4"]]
    assert (s.current_player, s.status(1)) == (1, Status.ACTIVE)


# --------------------------------------------------------------------------- round and game options


@pytest.mark.rules("V-011")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "initial_deal"))
def test_initial_deal(reading: str, expected: Any) -> None:
    """initial_deal: seats 1, 2, 0 are dealt 5, 7, 9 (deal) or nobody has a card and the 5 is still on the pile (none)."""
    check_reading(SCENARIOS, "initial_deal", reading, expected)


@pytest.mark.rules("V-011")
def test_initial_deal_modifier_pauses_the_deal() -> None:
    """initial_deal deal: seat 1 is dealt a -2 and gives it to seat 2, who is then asked at its slot
    (deal_after_early_cards offer, D-V-24) or passed over so that seat 0 gets the 5 (skip)."""
    g = Game("vengeance", 3, {"initial_deal": "deal"})
    s = draw_to_decision(g.new_initial_state(stack=["-2", "5", "7"], dealer=0))
    assert (s.current_player, s.pending(), tuple(s.legal_action_strings())) == (1, ("play", "-2"), T012)
    assert all_lines(s) == [[], [], []]
    s = play(s, "target 2")
    assert all_lines(s) == [[], [], ["-2"]]
    assert (s.current_player, s.pending(), s.next_card()) == (2, ("offer", None), "5")
    skip = Game("vengeance", 3, {"initial_deal": "deal", "deal_after_early_cards": "skip"})
    s = play(draw_to_decision(skip.new_initial_state(stack=["-2", "5", "7"], dealer=0)), "target 2")
    assert all_lines(s) == [["5"], [], ["-2"]]
    assert (s.current_player, s.pending(), s.next_card()) == (1, ("offer", None), "7")


@pytest.mark.rules("V-017")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "stay_requires"))
def test_stay_requires(reading: str, expected: Any) -> None:
    """stay_requires: a lone -4 allows a Stay under nothing and any-card only, an empty line under nothing only."""
    check_reading(SCENARIOS, "stay_requires", reading, expected)


@pytest.mark.rules("V-017", "V-031")
@pytest.mark.parametrize("reading", ["nothing", "any-card", "number-card"])
def test_stay_requires_the_zero_never_stays(reading: str) -> None:
    """stay_requires: under every reading a holder of The Zero (with a 5) may only Hit."""
    g = Game("vengeance", 2, {"stay_requires": reading})
    s = g.new_position(dealer=1, turn=0, lines={0: ["0", "5"]})
    assert (s.current_player, s.legal_action_strings()) == (0, ["hit"])


@pytest.mark.rules("V-074")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "tie"))
def test_tie(reading: str, expected: Any) -> None:
    """tie: a 205-205 tie at game end leads to another round won by seat 0 alone, or to a shared win of seats 0 and 1."""
    check_reading(SCENARIOS, "tie", reading, expected)


@pytest.mark.rules("V-073")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "target_score"))
def test_target_score(reading: str | int, expected: Any) -> None:
    """target_score: a 52-point total does not end the game at 200 but does at 52."""
    check_reading(SCENARIOS, "target_score", reading, expected)


@pytest.mark.rules("V-073")
@pytest.mark.parametrize(("target", "ends"), helpers.TARGET_THRESHOLDS)
def test_target_score_threshold_is_reached_not_passed(target: str | int, ends: bool) -> None:
    """target_score: the game ends when a total reaches the target exactly or passes it, not one point short."""
    helpers.check_target_threshold("vengeance", target, ends)


@pytest.mark.rules("V-003")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "decks"))
def test_decks(reading: str | int, expected: Any) -> None:
    """decks: a second 0 on the pile cannot exist with one deck (auto, 3 players) and busts seat 0 with decks=2."""
    check_reading(SCENARIOS, "decks", reading, expected)


@pytest.mark.rules("V-003", "V-004")
@pytest.mark.parametrize(("players", "decks", "expected"), helpers.DECK_COUNTS)
def test_decks_counts(players: int, decks: str | int, expected: int) -> None:
    """decks: auto gives one 108-card deck per 18 players; an integer forces that many decks."""
    g = Game("vengeance", players, {"decks": decks})
    assert g.decks == expected
    assert len(g.deck) == 108 * expected
    counts = {cid: sum(1 for c in g.deck if g.card_ids[c] == cid) for cid in ("13", "lucky13", "0", "swap")}
    assert counts == {"13": 12 * expected, "lucky13": expected, "0": expected, "swap": 2 * expected}


# --------------------------------------------------------------------------- the cases themselves


@pytest.mark.parametrize("option", [pytest.param(o, marks=pytest.mark.rules(*RULES[o]), id=o) for o in CASES])
def test_readings_differ_pairwise(option: str) -> None:
    """Every two readings of an option give different outcomes in its scenario (played, not just tabled)."""
    helpers.check_readings_differ(SCENARIOS, CASES, option)


def test_cases_cover_every_option_and_reading() -> None:
    """Every option and reading of vengeance.yaml has a case here, integer options a non-default integer, and the right rules."""
    helpers.check_cases_cover("vengeance", SCENARIOS, CASES, RULES, globals())


def test_table_option_list() -> None:
    """vengeance.yaml defines exactly these sixteen options, with these readings, in this order."""
    assert {n: [r.name for r in o.readings] for n, o in EDITION.options.items()} == {
        "brutal": ["false", "true"],
        "lucky13_flip7": ["twice", "once"],
        "stayed_targetable": ["yes", "no"],
        "discard_chooser": ["giver", "recipient"],
        "swap_scope": ["any-two", "own-and-other"],
        "flip_four_cards": ["after", "immediate"],
        "initial_deal": ["deal", "none"],
        "stay_requires": ["nothing", "any-card", "number-card"],
        "tie": ["another-round", "shared-win"],
        "target_score": ["200"],
        "decks": ["auto"],
        "reshuffles": ["1", "unlimited"],
        "zero_just_one_more": ["no-flip7", "general-rules"],
        "busted_cards": ["keep", "discard"],
        "unusable_actions": ["fizzle", "refuse"],
        "brutal_zero": ["zero", "negatives"],
        "brutal_busted": ["given-after-bust", "all-negatives"],
        "unlucky7_flip_four": ["survives", "wiped"],
        "flip_four_late_bust": ["all", "actions-only"],
        "deal_after_early_cards": ["offer", "skip", "deal"],
        "brutal_penalty": ["any-player", "not-busted"],
        "zero_own_flip_four": ["barred", "flip7"],
        "moved_card_place": ["end", "in-place"],
    }
    assert list(EDITION.options) == list(CASES)


# --------------------------------------------------------------------------- defaults and errors


def test_default_options() -> None:
    """Game('vengeance', 4) takes the table's default for every option."""
    helpers.check_default_options("vengeance", DEFAULTS, 108)


def test_unknown_option_name() -> None:
    """An unknown option name raises OptionError naming it and listing the known options."""
    message = helpers.check_unknown_option_name("vengeance", "brutal_mode", "true")
    assert "vengeance" in message


def test_flip7_only_option_is_unknown_here() -> None:
    """A Flip 7 option such as flip7_bonus is not an option of Vengeance."""
    helpers.check_option_error("vengeance", {"flip7_bonus": "maker"}, r"^unknown option 'flip7_bonus' for edition vengeance ")


@pytest.mark.parametrize("option", list(DEFAULTS))
def test_unknown_option_value(option: str) -> None:
    """An unknown value raises OptionError naming the option, the value and every allowed reading."""
    helpers.check_unknown_option_value("vengeance", option)


def test_unknown_option_value_messages_exact() -> None:
    """The OptionError messages of named and integer options, word for word."""
    helpers.check_option_error("vengeance", {"brutal": "yes"}, r"^option brutal: unknown value 'yes' \(expected false, true\)$")
    expected = r"^option stay_requires: unknown value 'two-numbers' \(expected nothing, any-card, number-card\)$"
    helpers.check_option_error("vengeance", {"stay_requires": "two-numbers"}, expected)
    helpers.check_option_error(
        "vengeance", {"decks": "many"}, r"^option decks: unknown value 'many' \(expected auto, or a whole number\)$"
    )


@pytest.mark.parametrize(("option", "value", "bound"), helpers.INTEGERS_OUT_OF_RANGE)
def test_integer_option_out_of_range(option: str, value: int, bound: str) -> None:
    """An integer outside an integer option's range raises OptionError naming the option and the range."""
    helpers.check_integer_out_of_range("vengeance", option, value, bound)


@pytest.mark.parametrize("option", helpers.named_options("vengeance"))
def test_named_option_rejects_integers(option: str) -> None:
    """A named (non-integer) option does not accept a number."""
    helpers.check_named_option_rejects_integers("vengeance", option)


@pytest.mark.rules("V-075", "V-076")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "reshuffles"))
def test_reshuffles(reading: str, expected: Any) -> None:
    """reshuffles: two Flip Fours alone reshuffle k times in the round, which then ends."""
    check_reading(SCENARIOS, "reshuffles", reading, expected)


@pytest.mark.rules("V-038")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "zero_just_one_more"))
def test_zero_just_one_more(reading: str, expected: Any) -> None:
    """zero_just_one_more: a Zero holder stopped by Just One More gets a seventh number by a
    Swap: no Flip 7 (no-flip7, the Dutch text) or a Flip 7 worth 36 (general-rules)."""
    check_reading(SCENARIOS, "zero_just_one_more", reading, expected)


@pytest.mark.rules("V-020")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "busted_cards"))
def test_busted_cards(reading: str, expected: Any) -> None:
    """busted_cards: a busted line stays on the table (keep) or goes to the discard pile (discard)."""
    check_reading(SCENARIOS, "busted_cards", reading, expected)


@pytest.mark.rules("V-048")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "unusable_actions"))
def test_unusable_actions(reading: str, expected: Any) -> None:
    """unusable_actions: a Discard may not go to an empty line (refuse) or goes and fizzles (fizzle)."""
    check_reading(SCENARIOS, "unusable_actions", reading, expected)


@pytest.mark.rules("V-030", "V-080")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "brutal_zero"))
def test_brutal_zero(reading: str, expected: Any) -> None:
    """brutal_zero: The Zero, 3 and -4 score 0 (zero) or -4 in Brutal Mode (negatives); 0 outside it."""
    check_reading(SCENARIOS, "brutal_zero", reading, expected)


@pytest.mark.rules("V-081", "V-084")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "brutal_busted"))
def test_brutal_busted(reading: str, expected: Any) -> None:
    """brutal_busted: a busted seat holding -4 and given -10 scores -10 (given-after-bust) or -14 (all-negatives)."""
    check_reading(SCENARIOS, "brutal_busted", reading, expected)


@pytest.mark.rules("V-035", "V-039")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "unlucky7_flip_four"))
def test_unlucky7_flip_four(reading: str, expected: Any) -> None:
    """unlucky7_flip_four: a -4 set aside before Unlucky 7 in the same Flip Four waits for a
    receiver (survives) or is wiped (wiped)."""
    check_reading(SCENARIOS, "unlucky7_flip_four", reading, expected)


@pytest.mark.rules("V-044")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "flip_four_late_bust"))
def test_flip_four_late_bust(reading: str, expected: Any) -> None:
    """flip_four_late_bust: after a set-aside Just One More busts the target the waiting -4 is
    still given out (all) or discarded (actions-only)."""
    check_reading(SCENARIOS, "flip_four_late_bust", reading, expected)


@pytest.mark.rules("V-011", "V-018")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "deal_after_early_cards"))
def test_deal_after_early_cards(reading: str, expected: Any) -> None:
    """deal_after_early_cards: seat 1, given cards by a Flip Four before its slot, is asked there
    (offer), passed over (skip) or dealt (deal)."""
    check_reading(SCENARIOS, "deal_after_early_cards", reading, expected)


@pytest.mark.rules("V-082", "V-085")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "brutal_penalty"))
def test_brutal_penalty(reading: str, expected: Any) -> None:
    """brutal_penalty: the Flip 7 maker may take the 15 from the busted seat 2 (any-player) or only
    from seat 1 or itself (not-busted)."""
    check_reading(SCENARIOS, "brutal_penalty", reading, expected)


@pytest.mark.rules("V-038", "V-086")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "zero_own_flip_four"))
def test_zero_own_flip_four(reading: str, expected: Any) -> None:
    """zero_own_flip_four: a Zero holder barred by a set-aside Just One More plays the next set-aside
    Flip Four on herself: it stops at seven numbers (barred) or makes her Flip 7 (flip7)."""
    check_reading(SCENARIOS, "zero_own_flip_four", reading, expected)


@pytest.mark.rules("V-045", "V-046", "V-087")
@pytest.mark.parametrize(("reading", "expected"), reading_cases(CASES, "moved_card_place"))
def test_moved_card_place(reading: str, expected: Any) -> None:
    """moved_card_place: a swapped or stolen card joins the end of its new line (end) or keeps the
    place it came from (in-place)."""
    check_reading(SCENARIOS, "moved_card_place", reading, expected)
