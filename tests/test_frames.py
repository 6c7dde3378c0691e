"""The frame classes as values (flip7ref.core.frames): fields, equality, hashing, repr,
pickling and the JSON form, for every registered kind."""

from __future__ import annotations

import copy
import pickle
import random

import pytest

import flip7ref  # noqa: F401 - loads every frame class
from flip7ref import Game
from flip7ref.core.engine import Deal, Draw
from flip7ref.core.frames import FRAME_TYPES, Frame, frame_args, frame_to_dict, register_frame
from flip7ref.core.primitives.forced_draw import Assign, ForcedDraw

SAMPLES = {
    "int": 1, "str": "hit", "tuple[int, ...]": (2, 3), "tuple[target, ...]": (1,),
    "tuple[tuple[int, int, int], ...]": ((2, 1, 0),),
}  # fmt: skip


def _sample(cls: type[Frame]) -> Frame:
    return cls(*(SAMPLES[k] for k in cls.KINDS))


def test_every_kind_is_registered_under_its_name() -> None:
    kinds = ["deal", "deal_offer", "draw", "forced_draw", "choose_target", "assign", "resolve", "in_order", "choose_cards"]
    own = sorted(n for n, cls in FRAME_TYPES.items() if cls.__module__.startswith("flip7ref."))  # not a plug-in's
    assert own == sorted([*kinds, "flip7_choice"])
    for name, cls in FRAME_TYPES.items():
        assert cls.name == name


def test_automatic_frames_and_card_fields() -> None:
    """The frames settling always takes off the top are the deal under way and the two queues;
    every shipped frame writes ``card``, ``set_aside`` and ``cards`` as card ids."""
    automatic = sorted(n for n, cls in FRAME_TYPES.items() if cls.automatic and cls.__module__.startswith("flip7ref."))
    assert automatic == ["deal", "in_order", "resolve"]
    assert Frame.CARD_FIELDS == ("card",) and Frame.CARD_LISTS == ("set_aside", "cards")


@pytest.mark.parametrize("name", sorted(FRAME_TYPES))
def test_fields_kinds_and_constructor_agree(name: str) -> None:
    cls = FRAME_TYPES[name]
    assert len(cls.KINDS) == len(cls.FIELDS)
    values = tuple(SAMPLES[k] for k in cls.KINDS)
    by_name = cls(**dict(zip(cls.FIELDS, values, strict=True)))  # the constructor's parameters are FIELDS, by name
    assert by_name.key() == values and by_name == _sample(cls)  # ... and in that order
    assert tuple(getattr(by_name, f) for f in cls.FIELDS) == values


@pytest.mark.parametrize("name", sorted(FRAME_TYPES))
def test_value_semantics(name: str) -> None:
    cls = FRAME_TYPES[name]
    a, b = _sample(cls), _sample(cls)
    assert a == b and (a != b) is False and hash(a) == hash(b) and a is not b
    assert pickle.loads(pickle.dumps(a)) == a
    assert repr(a) == f"{cls.__name__}(" + ", ".join(f"{f}={v!r}" for f, v in zip(cls.FIELDS, a.key(), strict=True)) + ")"


@pytest.mark.parametrize("name", sorted(FRAME_TYPES))
def test_a_frame_cannot_be_changed(name: str) -> None:
    """No field set again, deleted, or attribute added — the kind's ``name`` and ``FIELDS``
    and its methods included: a frame is shared by every state holding it (the pure build
    took ``frame.name = ...`` once, and the JSON of every state with that frame changed)."""
    frame = _sample(FRAME_TYPES[name])
    before = (frame.key(), hash(frame), frame.name)
    for attribute in (*frame.FIELDS, "name", "FIELDS", "decider", "extra"):
        with pytest.raises(AttributeError):
            setattr(frame, attribute, 0)
    for attribute in frame.FIELDS:
        with pytest.raises(AttributeError):
            delattr(frame, attribute)
    assert (frame.key(), hash(frame), frame.name) == before


def test_a_plug_in_frame_class_is_made_immutable_when_registered() -> None:
    """A plug-in's frame (a Python class in both builds) is refused what the interpreter's
    own frames refuse, once `register_frame` has it; its constructor sets its fields."""

    class Probe(Frame):
        name = "test_probe_frame"
        FIELDS = ("seat",)
        KINDS = ("int",)

        def __init__(self, seat: int) -> None:
            self.seat = seat

        def key(self) -> tuple[int]:
            return (self.seat,)

    register_frame(Probe)
    try:
        probe = Probe(2)
        assert probe.seat == 2
        for attribute, value in (("seat", 1), ("name", "other"), ("extra", 1)):
            with pytest.raises(AttributeError, match="Probe is immutable"):
                setattr(probe, attribute, value)
        with pytest.raises(AttributeError, match="Probe is immutable"):
            del probe.seat
        assert probe == Probe(2) and probe.name == "test_probe_frame"
    finally:
        del FRAME_TYPES["test_probe_frame"]


def test_frames_of_other_kinds_or_fields_differ() -> None:
    assert Draw(1, "hit") != Draw(1, "deal") and Draw(1, "hit") != Draw(2, "hit")
    assert Deal(1) != Draw(1, "hit") and Deal(1) != (1,)
    assert ForcedDraw(0, 1, 5, 3) == ForcedDraw(0, 1, 5, 3, ()) and ForcedDraw(0, 1, 5, 3).set_aside == ()
    assert Assign(0, 1, (5,)).targets == ()
    assert len({Draw(1, "hit"), Draw(1, "hit"), Deal(1)}) == 2


def test_json_form_round_trips() -> None:
    game = Game("flip7", 3)
    code = game.code("flip_three")
    frame = ForcedDraw(2, 0, code, 2, (game.code("freeze"),))
    data = frame_to_dict(frame, game.card_ids)
    expected = {"frame": "forced_draw", "target": 2, "giver": 0, "card": "flip_three", "remaining": 2}
    assert data == {**expected, "set_aside": ["freeze"]}
    args = frame_args(ForcedDraw, data, lambda name, where: game.code(str(name)), "frames/0")
    assert ForcedDraw(*args) == frame


def _assign_state() -> dict[str, object]:
    """The serialized state of a Flip 7 game in which a seat assigns two set-aside Flip
    Threes, found by random play (the first seed that reaches one)."""

    game = Game("flip7", 4)
    for seed in range(500):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            top = state.frames[-1] if state.frames else None
            if isinstance(top, Assign) and len(top.cards) == 2 and not top.targets:
                return state.to_dict()
            state = state.apply_chance(state.next_card()) if state.is_chance_node() else state.apply(
                rng.choice(state.legal_action_strings())
            )
    raise AssertionError("no assignment of two set-aside cards in 500 games")  # pragma: no cover


@pytest.mark.rules("F7-073", "F7-074")
def test_an_assignment_with_a_card_no_seat_could_take_is_a_position() -> None:
    """Assign writes -1 for a set-aside card no seat may take and goes on with the next card
    (a table may give two set-aside cards different target sets, so a later card can still
    be a decision): State.from_dict accepts a -1 target, plays on from it and writes it back;
    a seat beyond the table, a negative number other than -1, or as many targets as cards
    (an assignment that would already have been resolved) is refused, naming the field."""
    from flip7ref import SerializationError, State

    data = _assign_state()
    frames: list[dict[str, object]] = data["frames"]  # type: ignore[assignment]
    top = len(frames) - 1
    moved = copy.deepcopy(data)
    moved["frames"][top]["targets"] = [-1]  # type: ignore[index]
    del moved["log"], moved["start"]  # a position of its own: no game's history leads to it
    state = State.from_dict(moved)
    assert state.frames[-1] == Assign(state.frames[-1].chooser, state.frames[-1].owner, state.frames[-1].cards, (-1,))
    assert state.to_dict()["frames"][top]["targets"] == [-1]
    assert state.pending() == ("assign", "flip_three")
    after = state.apply(state.legal_action_strings()[0])  # the second card: the assignment is complete
    assert not any(isinstance(f, Assign) for f in after.frames)
    rng = random.Random(0)
    for _ in range(10_000):  # and the game plays on to its end
        if after.is_terminal():
            break
        after = after.apply_chance(after.next_card()) if after.is_chance_node() else after.apply(
            rng.choice(after.legal_action_strings())
        )
    assert after.is_terminal()
    for targets, message in (
        ([99], "frames/{top}/targets: expected a list of seats 0..3, or -1 for a card no seat could take"),
        ([-5], "frames/{top}/targets: expected a list of seats, or -1 for a card no seat could take, got (-5,)"),
        ([0, 1], "frames/{top}/targets: expected fewer targets than cards (2): a complete assignment is resolved at once"),
    ):
        bad = copy.deepcopy(data)
        bad["frames"][top]["targets"] = targets  # type: ignore[index]
        with pytest.raises(SerializationError) as info:
            State.from_dict(bad)
        assert str(info.value) == "state data: " + message.format(top=top)
