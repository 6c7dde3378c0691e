"""Tests written against surviving mutants of the new core's rule modules (issue 15):
``flip7ref.core.lines``, ``flip7ref.core.targets``, ``flip7ref.core.pile``, ``flip7ref.core.engine``, ``flip7ref.core.events``.

Each test calls one rule function on a position built with ``Game.new_position`` and
asserts the exact result.  See docs/mutation-testing.md.
"""

from __future__ import annotations

import pytest

from flip7ref import Game, Status
from flip7ref.core import events as ev
from flip7ref.core.engine import Draw, has_early_cards, next_deal, plan_round_end
from flip7ref.core.lines import guard_of, repeat_allowed
from flip7ref.core.model import Player
from flip7ref.core.targets import receive_number


def _code(game: Game, card: str) -> int:
    """The code of one copy of ``card`` (through a position's draw pile)."""
    return next(c for c in game.new_position(turn=0, seed=None).draw if game.card_ids[c] == card)


@pytest.mark.rules("F7-080")
def test_a_kept_card_that_guards_nothing_is_no_bust_guard() -> None:
    """Only a kept card whose effect guards against a bust (a Second Chance) saves a line:
    a Freeze lying in front (the ``keep_card`` reading) is not offered the duplicate."""
    game = Game("flip7", 3)
    freeze, chance = _code(game, "freeze"), _code(game, "second_chance")
    assert guard_of(game, Player((), (freeze,), Status.FROZEN)) is None
    assert guard_of(game, Player((), (freeze, chance), Status.ACTIVE)) == chance
    assert guard_of(game, Player((), (), Status.ACTIVE)) is None


@pytest.mark.rules("F7-050")
def test_a_second_flip7_in_a_round_does_not_replace_the_first() -> None:
    """A number that makes seven for a second player after someone already made a Flip 7 this
    round neither moves the Flip 7 nor announces another one."""
    game = Game("flip7", 3)
    s = game.new_position(turn=0, lines={0: ["1", "2", "3", "4", "5", "6"]}, draw=["7"], seed=None)
    seven = next(c for c in s.draw if game.card_ids[c] == "7")
    w = s._work()
    w.draw = ()
    w.flip7 = 2
    receive_number(w, seven, 0)
    assert w.flip7 == 2 and [e.type for e in w.events] == []
    assert len(w.players[0].line) == 7
    fresh = s._work()
    fresh.draw = ()
    receive_number(fresh, seven, 0)
    assert fresh.flip7 == 0 and [e.type for e in fresh.events] == ["flip7"]


@pytest.mark.rules("F7-040", "V-036")
def test_one_card_of_a_rank_is_always_allowed() -> None:
    """``repeat_allowed``: no card or one card of a rank may always lie in a line; two only
    when one is Lucky 13 (V-036); three never."""
    game = Game("vengeance", 3)
    pos = game.new_position(turn=0, seed=None)
    thirteens = [c for c in pos.draw if game.card_ids[c] == "13"]
    lucky = next(c for c in pos.draw if "pair_allowed" in game.traits[c])
    twelves = [c for c in pos.draw if game.card_ids[c] == "12"]
    assert repeat_allowed(game, []) is True
    assert repeat_allowed(game, [twelves[0]]) is True
    assert repeat_allowed(game, [thirteens[0]]) is True
    assert repeat_allowed(game, twelves[:2]) is False
    assert repeat_allowed(game, [thirteens[0], lucky]) is True
    assert repeat_allowed(game, [thirteens[0], thirteens[1], lucky]) is False


@pytest.mark.rules("F7-115")
@pytest.mark.parametrize(
    ("reason", "status", "after"),
    [
        ("hit", Status.ACTIVE, Status.STAYED),  # the Hit becomes a Stay
        ("deal", Status.ACTIVE, Status.ACTIVE),  # a deal card given up: still active
        ("hit", Status.BUSTED, Status.BUSTED),
        ("hit", Status.FROZEN, Status.FROZEN),
    ],
)
def test_an_exhausted_draw_turns_only_an_active_players_hit_into_a_stay(reason: str, status: Status, after: Status) -> None:
    game = Game("flip7", 3)
    line = ["5", "5"] if status is Status.BUSTED else ["5"]
    w = game.new_position(turn=1, lines={0: line, 1: ["6"]}, statuses={0: status.value}, seed=None)._work()
    Draw(0, reason).exhaust(w)
    assert w.players[0].status is after
    assert [(e.type, e.data) for e in w.events] == (
        [("stayed", (("seat", 0), ("reason", "empty deck")))] if after is not status else []
    )


@pytest.mark.rules("F7-025", "F7-026")
def test_a_held_card_other_than_a_second_chance_is_early_cards() -> None:
    """``has_early_cards``: a line card, or a held card that guards nothing (a Freeze kept in
    front), counts; a lone Second Chance does not at the default reading of
    ``deal_after_second_chance``, and does at ``early-cards``."""
    game = Game("flip7", 3)
    freeze, chance, five = _code(game, "freeze"), _code(game, "second_chance"), _code(game, "5")
    assert has_early_cards(game, Player((), (freeze,), Status.ACTIVE)) is True
    assert has_early_cards(game, Player((), (chance, freeze), Status.ACTIVE)) is True
    assert has_early_cards(game, Player((), (chance,), Status.ACTIVE)) is False
    assert has_early_cards(game, Player((five,), (), Status.ACTIVE)) is True
    assert has_early_cards(game, Player((), (), Status.ACTIVE)) is False
    early = Game("flip7", 3, {"deal_after_second_chance": "early-cards"})
    assert has_early_cards(early, Player((), (chance,), Status.ACTIVE)) is True


@pytest.mark.rules("F7-112", "F7-120")
def test_a_round_end_that_does_not_end_the_game_has_no_winners() -> None:
    """``plan_round_end``: no winner is an empty tuple, the next dealer is on the dealer's left."""
    game = Game("flip7", 3)
    players = [Player((_code(game, "5"),), (), Status.STAYED), Player(), Player()]
    plan = plan_round_end(game, players, [10, 20, 30], 2, 2, None, None)
    assert plan.winners == () and plan.dealer == 0 and plan.after == ()
    assert plan.scores == (5, 0, 0) and plan.totals == (15, 20, 30)
    won = plan_round_end(game, players, [199, 20, 30], 2, 2, None, None)
    assert won.winners == (0,) and won.totals == (204, 20, 30)
    assert [e.type for e in won.after] == ["game_won"]


@pytest.mark.rules("F7-020")
def test_the_deal_over_is_position_n_no_seat_and_no_offer() -> None:
    """``next_deal``: ``(n, None, False)`` once the deal order is done, also when the seats
    left are not active; an active seat is dealt in order from the dealer's left."""
    game = Game("flip7", 3)
    idle = [Player(), Player(), Player()]
    assert next_deal(game, idle, 0, 3) == (3, None, False)
    assert next_deal(game, idle, 0, 0) == (1, 1, False)
    assert next_deal(game, idle, 2, 2) == (3, 2, False)
    stayed = [Player((), (), Status.STAYED)] * 3
    assert next_deal(game, stayed, 0, 1) == (3, None, False)


def test_describe_gives_each_event_one_line_with_card_names_in_the_language() -> None:
    """``events.describe`` / ``card_name``: the describer of the event's type, card names in
    ``lang`` (English by default; a number's id is its name; ``?`` for no card); an event
    type without a describer gives its name and data."""
    game = Game("flip7", 3)
    assert ev.describe(ev.dealt(1, "7", "deal"), game) == "seat 1 is dealt 7"
    assert ev.describe(ev.dealt(2, "x2", "hit"), game) == "seat 2 hits and gets x2"
    assert ev.describe(ev.dealt(0, "5", "flip_three"), game) == "seat 0 flips (Flip Three!) 5"
    assert ev.describe(ev.busted(2, "second_chance"), game) == "seat 2 busts on Second Chance!"
    assert ev.describe(ev.busted(2, "second_chance"), game, "de") == "seat 2 busts on Zweite Chance"
    assert ev.describe(ev.dealt(0, "5", "flip_three"), game, lang="de") == "seat 0 flips (Drei am Stück) 5"
    assert ev.describe(ev.make("mystery", ("a", 1), ("b", "x")), game) == "mystery a=1, b=x"
    assert ev.describe(ev.make("empty"), game) == "empty"
    assert ev.card_name(game, None) == "?" and ev.card_name(game, "7") == "7"
    assert ev.card_name(game, "second_chance") == "Second Chance!"
    assert ev.card_name(game, "second_chance", "de") == "Zweite Chance"
    assert ev.make("x", ("a", 1)) == ("x", (("a", 1),)) and ev.make("x", ("a", 1)).type == "x"


def test_the_text_decorator_registers_a_describer() -> None:
    """``@_text(type)`` registers the describer (called here: at import time mutmut's workers
    are already forked), and ``describe`` then uses it."""
    game = Game("flip7", 3)

    def probe(e: object, g: object, lang: str) -> str:
        return f"probe in {lang}"

    try:
        assert ev._text("test_probe")(probe) is probe
        assert ev.TEXT["test_probe"] is probe
        assert ev.describe(ev.make("test_probe"), game, "fr") == "probe in fr"
    finally:
        ev.TEXT.pop("test_probe", None)
