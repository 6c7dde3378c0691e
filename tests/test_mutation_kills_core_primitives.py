"""Tests written against surviving mutants of ``flip7ref.core.primitives`` (issue 15).

Each test pins an exact value: a forced draw's set-aside cards in play, a frame
step on a scratch copy (``flip7ref.core.work.Work``), the registry decorator, the
hooks the strategies read.  See docs/mutation-testing.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest

from flip7ref import Game
from flip7ref.core.model import Player, Status
from flip7ref.core.primitives.base import PRIMITIVES, Effect, primitive
from flip7ref.core.primitives.bust_shield import held, is_shield
from flip7ref.core.primitives.forced_draw import Assign, ForcedDraw, InOrder, Resolve
from flip7ref.core.spec import spec_dir


def _code(game: Game, card: str) -> int:
    """The code of one copy of ``card`` (through a position's draw pile)."""
    return next(c for c in game.new_position(turn=0, seed=None).draw if game.card_ids[c] == card)


@pytest.mark.rules("F7-073", "F7-074", "F7-076")
def test_a_set_aside_second_chance_goes_to_the_target_after_an_assignment() -> None:
    """Second Chance set aside in a Flip Three (D-F7-14 ``set-aside``): once Ben assigns the
    Freeze set aside before it, the Second Chance goes to Ben, the Flip Three's target."""
    game = Game("flip7", 3, {"second_chance_in_flip_three": "set-aside"})
    s = game.new_position(
        dealer=2, lines={0: ["1"], 1: ["2"], 2: ["3"]}, draw=["flip_three", "freeze", "second_chance", "5"], seed=None
    )
    s = s.apply("hit").apply_chance("flip_three").apply("target 1")
    for card in ("freeze", "second_chance", "5"):
        s = s.apply_chance(card)
    assert s.pending() == ("assign", "freeze")
    assert s.to_dict(log=False)["frames"] == [
        {"frame": "assign", "chooser": 1, "owner": 1, "cards": ["freeze", "second_chance"], "targets": []}
    ]
    s = s.apply("target 2")
    assert [(e.type, dict(e.data)) for e in s.last_events()] == [
        ("assigned", {"seat": 1, "card": "freeze", "target": 2}),
        ("frozen", {"seat": 2, "by": 1}),
        ("second_chance_kept", {"seat": 1, "card": "second_chance"}),
    ]
    assert [game.card_ids[c] for c in s.players[1].kept] == ["second_chance"]
    assert s.pending() == ("offer", None) and s.current_player == 1


@pytest.mark.rules("F7-074", "F7-075")
def test_a_set_aside_card_without_a_target_is_discarded_by_the_resolve_step() -> None:
    """An assigned item with no seat (-1: nobody was eligible) goes to the discard pile."""
    game = Game("flip7", 3)
    freeze = _code(game, "freeze")
    w = game.new_position(turn=0, lines={0: ["1"]}, seed=None)._work()
    w.discard = ()
    w.frames = [Resolve(((freeze, -1, 0),))]
    assert w.frames[-1].settle(w) is True
    assert w.discard == (freeze,)
    assert [(e.type, dict(e.data)) for e in w.events] == [
        ("discarded", {"card": "freeze", "seat": None, "reason": "target no longer eligible"})
    ]
    assert len(w.frames) == 1 and w.frames[0].key() == ((),)


def test_the_primitive_decorator_names_and_registers_the_class() -> None:
    """``@primitive(name)`` sets the class's ``primitive`` and registers it in ``PRIMITIVES``;
    an effect that does not implement ``play`` says which primitive it is."""

    @attrs.frozen
    class Probe(Effect):
        pass

    try:
        assert primitive("test_probe")(Probe) is Probe
        assert Probe.primitive == "test_probe" and PRIMITIVES["test_probe"] is Probe
        w: Any = None
        with pytest.raises(NotImplementedError, match=r"^primitive 'test_probe' is not implemented$"):
            Probe().play(w, 0, 0, 0)
        with pytest.raises(AssertionError) as caught:
            Probe().use_guard(w, 0, 0, 0)
        assert caught.value.args == (Probe(),)
    finally:
        PRIMITIVES.pop("test_probe", None)
    assert "test_probe" not in PRIMITIVES


@pytest.mark.parametrize(
    ("edition", "card", "helps"),
    [
        ("vengeance", "swap", True),
        ("vengeance", "steal", True),
        ("vengeance", "flip_four", False),
        ("vengeance", "discard", False),
        ("vengeance", "just_one_more", False),
        ("flip7", "freeze", False),
        ("flip7", "second_chance", False),
    ],
)
def test_only_swap_and_steal_usually_help_their_target(edition: str, card: str, helps: bool) -> None:
    """``helps_target`` (read by the strategies): the seat a Swap or Steal is played on
    usually gains; a Freeze, a forced draw or a Discard does not."""
    game = Game(edition, 3)
    eff = game.effect[_code(game, card)]
    assert eff is not None and eff.helps_target() is helps


def test_a_resolve_step_discarding_an_assigned_card_names_its_seat() -> None:
    """The discard event of a Resolve item names the seat it was assigned to, seat 0
    included, when that seat is no longer active (only a house-rule table that sets a
    non-action card aside reaches this with a seat: docs/mutation-testing.md, findings)."""
    game = Game("flip7", 3)
    x2 = _code(game, "x2")
    w = game.new_position(turn=1, lines={0: ["1"]}, statuses={0: "stayed"}, seed=None)._work()
    w.discard = ()
    w.frames = [Resolve(((x2, 0, 1),))]
    assert w.frames[-1].settle(w) is True
    assert w.discard == (x2,)
    assert [(e.type, dict(e.data)) for e in w.events] == [
        ("discarded", {"card": "x2", "seat": 0, "reason": "target no longer eligible"})
    ]


@pytest.mark.rules("F7-080", "F7-082")
def test_only_a_second_chance_is_a_bust_shield() -> None:
    """``is_shield`` / ``held``: a Second Chance guards a bust; a Freeze kept in front or a
    number does not, and is not counted against the hold limit."""
    game = Game("flip7", 3)
    chance, freeze, five = _code(game, "second_chance"), _code(game, "freeze"), _code(game, "5")
    assert is_shield(game, chance) is True
    assert is_shield(game, freeze) is False
    assert is_shield(game, five) is False
    assert held(game, Player((five,), (freeze, chance), Status.ACTIVE)) == 1
    assert held(game, Player((), (freeze,), Status.FROZEN)) == 0


@pytest.mark.rules("F7-073", "F7-074", "F7-076")
def test_the_assign_step_keeps_its_chooser_and_owner() -> None:
    """``Assign.settle``: a set-aside Second Chance is assigned to the owner (the forced
    draw's target) without a decision; a card nobody may take is marked -1 (discarded at
    its turn); the chooser and the owner stay the same in both."""
    game = Game("flip7", 3)
    chance, freeze, flip_three = _code(game, "second_chance"), _code(game, "freeze"), _code(game, "flip_three")
    w = game.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, seed=None)._work()
    w.frames = [Assign(1, 2, (chance, freeze))]
    assert w.frames[-1].settle(w) is True
    assert w.frames[-1].key() == (1, 2, (chance, freeze), (2,)) and w.events == []
    assert w.frames[-1].settle(w) is False  # the Freeze waits for seat 1's choice
    assert w.frames[-1].decider() == 1
    stayed = game.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, seed=None)._work()
    for seat in range(3):
        stayed.set_status(seat, Status.STAYED)  # nobody is left whom a Freeze may target
    stayed.frames = [Assign(0, 1, (freeze, flip_three))]
    assert stayed.frames[-1].settle(stayed) is True
    assert stayed.frames[-1].key() == (0, 1, (freeze, flip_three), (-1,))


def test_a_set_aside_card_without_an_effect_may_go_to_an_active_seat() -> None:
    """``Assign.allowed`` for a set-aside card that is not an action card (a house-rule
    ``set_aside`` may name a category): the active seats."""
    game = Game("flip7", 3)
    x2 = _code(game, "x2")
    s = game.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, statuses={1: "stayed"}, seed=None)
    assert Assign(0, 0, (x2,)).allowed(game, s.players) == (0, 2)


@pytest.mark.rules("V-044")
@pytest.mark.parametrize("queued", [False, True])
def test_an_emptied_in_order_queue_is_replaced_not_stacked_on(queued: bool) -> None:
    """``ForcedDraw.finish`` under Vengeance's in-order resolution: the set-aside cards of a
    completed Flip Four replace an emptied in-order queue below it (the stack never grows
    without a card), and are stacked on a queue that still holds cards; the target chooses."""
    game = Game("vengeance", 3)
    flip_four, swap, steal = _code(game, "flip_four"), _code(game, "swap"), _code(game, "steal")
    w = game.new_position(turn=0, lines={0: ["1"], 1: ["2"], 2: ["3"]}, seed=None)._work()
    below = InOrder(2, (steal,) if queued else ())
    w.frames = [below, ForcedDraw(1, 0, flip_four, 0, (swap,))]
    assert w.frames[-1].settle(w) is True
    keys = [(type(f).__name__, f.key()) for f in w.frames]
    if queued:
        assert keys == [("InOrder", (2, (steal,))), ("InOrder", (1, (swap,)))]
    else:
        assert keys == [("InOrder", (1, (swap,)))]


def test_from_table_coerces_booleans_and_whole_numbers_by_the_default_type() -> None:
    """``Effect.from_table``: a parameter whose default is a bool is made a bool, one whose
    default is an int an int; a missing parameter keeps its default; others pass as given."""
    from flip7ref.core.primitives.bust_shield import BustShield
    from flip7ref.core.primitives.freeze import Freeze

    shield = BustShield.from_table({"hold_limit": "2", "first_copy": "may-give"})
    assert shield == BustShield(hold_limit=2, first_copy="may-give") and type(shield.hold_limit) is int
    freeze = Freeze.from_table({"keep_card": 1, "targets": "any"})
    assert freeze.keep_card is True and freeze.targets == "any" and freeze.self_target == "allowed"
    assert Freeze.from_table({"keep_card": 0}).keep_card is False


@pytest.mark.rules("F7-073", "F7-074", "F7-035")
def test_a_set_aside_card_without_an_effect_reaches_the_seat_it_is_assigned_to(tmp_path: Path) -> None:
    """A house table that also sets modifiers aside in a Flip Three (resolved after the
    assignments, F7-074): the x2 assigned to an active seat joins that seat's line as a
    received card (F7-035); it used to be discarded as 'target no longer eligible'."""
    text = (spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8")
    house = text.replace("immediate: [freeze, flip_three]\n", "immediate: [freeze, flip_three, x2]\n")
    assert house != text
    (tmp_path / "house.yaml").write_text(house, encoding="utf-8")
    game = Game(str(tmp_path / "house.yaml"), 3)
    s = game.new_position(turn=0, lines={2: ["5"]}, draw=["flip_three", "x2", "3", "4"], seed=1)
    s = s.apply("hit").apply_chance("flip_three").apply("target 1")
    for card in ("x2", "3", "4"):
        s = s.apply_chance(card)
    assert s.pending() == ("assign", "x2") and s.current_player == 1
    s = s.apply("target 2")
    assert s.line(2) == ["5", "x2"] and "x2" not in [game.card_ids[c] for c in s.discard]
    assert [e.type for e in s.last_events()] == ["assigned"]


def test_an_effect_without_a_play_rule_says_so() -> None:
    """The default `Effect.play` names the primitive, or the class when it was never registered."""

    @attrs.frozen
    class Unregistered(Effect):
        pass

    with pytest.raises(NotImplementedError, match=r"^primitive 'Unregistered' is not implemented$"):
        Unregistered().play(None, 0, 0, 0)  # type: ignore[arg-type]
