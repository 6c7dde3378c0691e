"""Tests written against surviving mutants of the new core (issue 15, docs/mutation-testing.md): plumbing."""

from __future__ import annotations

import copy
import pickle
import re
from collections import Counter
from typing import Any

import pytest

import flip7ref
import flip7ref.core.state as state_module
from flip7ref import Action, Game, IllegalActionError, OptionError, SerializationError, State
from flip7ref.core.builders import position_state
from flip7ref.core.engine import Deal, Draw
from flip7ref.core.frames import FRAME_TYPES, Frame, frame_to_dict, register_frame
from flip7ref.core.serialize import state_from_dict
from flip7ref.core.state_data import StateData
from flip7ref.core.state_fields import FIELD_NAMES, FIELDS
from tests.helpers import flip


@pytest.mark.rules("V-081", "F7-101", "F7-110")
@pytest.mark.parametrize("merge_ends", [False, True])
def test_lone_busts_under_brutal_mode_are_each_scored_with_their_negatives(
    merge_ends: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last active player hits with a negative modifier given to them in Brutal Mode: a
    busted player scores the negatives in their line (V-081), so the lanes must not share one
    round end among the busts (flip7ref.core.lanes.plain_card); every outcome equals the general
    path's, and the busts score -4 each (brutal_busted all-negatives: the -4 held at the bust
    counts; D-V-33)."""
    game = Game("vengeance", 3, {"brutal": "true", "brutal_busted": "all-negatives"})
    s = game.new_position(
        turn=2, lines={0: ["5"], 1: ["3"], 2: ["7", "9", "-4"]}, statuses={0: "stayed", 1: "stayed"}, seed=None
    ).apply("hit")
    assert s.is_chance_node()
    lanes = s.chance_successors(merge_ends=merge_ends)
    monkeypatch.setattr(state_module, "_FAST_LANES", False)
    general = [(card, count, s.apply_chance(card)) for card, count in s.chance_weights()]
    assert [(c, n) for c, n, _ in lanes] == [(c, n) for c, n, _ in general]
    for (card, _, fast), (_, _, slow) in zip(lanes, general, strict=True):
        assert fast == slow and fast.last_events() == slow.last_events(), card
    busts = {card: after.last_scores[2] for card, _, after in general if card in ("7", "9")}
    assert busts == {"7": -4, "9": -4}


# --------------------------------------------------------------------------- flip7ref.core.frames


class _Probe(Frame):
    """A frame kind that keeps every default of the protocol (no frame of the package does:
    each overrides ``key``), so the base class's value semantics are tested on their own."""

    name = "probe"
    FIELDS = ("seat", "cards")
    KINDS = ("int", "tuple[int, ...]")

    def __init__(self, seat: int, cards: tuple[int, ...]) -> None:
        self.seat = seat
        self.cards = cards


# A compiled Frame is a native class: a Python subclass cannot be instantiated (docs/build.md).
_PROBES_RUN = pytest.mark.skipif(flip7ref.compiled, reason="compiled frames cannot be subclassed in Python")


class _Short(_Probe):
    """A broken frame kind: its ``key`` has fewer values than ``FIELDS`` names."""

    name = "short"

    def key(self) -> tuple[Any, ...]:
        return (self.seat,)


@_PROBES_RUN
def test_the_base_frame_gives_value_semantics_from_fields() -> None:
    """Frame.key reads FIELDS in order; equality, repr and pickling follow from it."""
    a, b = _Probe(1, (2, 3)), _Probe(1, (2, 3))
    assert a.key() == (1, (2, 3))
    assert a == b and (a != b) is False and hash(a) == hash(b)
    assert a != _Probe(1, (3, 2)) and a != _Probe(0, (2, 3))
    assert repr(a) == "_Probe(seat=1, cards=(2, 3))"
    assert pickle.loads(pickle.dumps(a)) == a
    assert a.__reduce__() == (_Probe, (1, (2, 3)))


@_PROBES_RUN
def test_the_base_frame_defaults() -> None:
    """The protocol's defaults: no legal action, a chance node's pending, no automatic step,
    no held card; the deciding methods that must be overridden refuse, naming the frame."""
    game = Game("flip7", 3)
    probe = _Probe(1, (2, 3))
    assert probe.legal(game, ()) == [] and probe.pending(game) == ("chance", None)
    assert probe.settle(None) is False and probe.held_cards() == () and probe.exhaust(None) is None  # type: ignore[arg-type]
    with pytest.raises(AssertionError) as info:
        probe.decider()
    assert info.value.args == ("unsettled frame on top: _Probe(seat=1, cards=(2, 3))",)
    with pytest.raises(AssertionError) as info:
        probe.decide(None, Action("stay"))  # type: ignore[arg-type]
    assert info.value.args == (probe,)
    with pytest.raises(AssertionError) as info:
        probe.reveal(None, 4)  # type: ignore[arg-type]
    assert info.value.args == (probe,)


def test_distinct_frames_hash_apart() -> None:
    """Frames are dictionary keys (the solver's memo holds states): different frames do not
    all share one hash."""
    frames = [Draw(seat, "hit") for seat in range(6)] + [Deal(seat) for seat in range(6)]
    assert len(set(frames)) == 12
    assert len({hash(f) for f in frames}) == 12


@_PROBES_RUN
def test_a_frame_whose_key_disagrees_with_its_fields_is_refused() -> None:
    """repr and the JSON form refuse a frame class whose ``key`` does not match ``FIELDS``
    (instead of silently dropping a field from the saved state)."""
    broken = _Short(1, (2,))
    with pytest.raises(ValueError, match="zip"):
        repr(broken)
    with pytest.raises(ValueError, match="zip"):
        frame_to_dict(broken, Game("flip7", 3).card_ids)


def test_register_frame_files_the_class_under_its_name() -> None:
    assert "probe" not in FRAME_TYPES
    register_frame(_Probe)
    try:
        assert FRAME_TYPES["probe"] is _Probe
    finally:
        del FRAME_TYPES["probe"]


@pytest.mark.rules("F7-052", "F7-071")
def test_a_flip7_inside_a_resolved_flip_three_discards_the_cards_still_to_resolve() -> None:
    """Flip 7: Ben's Flip Three on Ann sets a Flip Three and a Freeze aside; Ann gives the
    Flip Three to herself, the Freeze to Cat. Resolving her own Flip Three, Ann reaches a
    Flip 7: the round ends (F7-052) and the Freeze, still waiting in the Resolve frame, is
    discarded with the reason "round ended" (Frame.end_with_round)."""
    g = Game("flip7", 3)
    s = g.new_position(
        turn=1, lines={0: ["1", "2", "3", "4"], 1: ["9"], 2: ["10"]},
        draw=["flip_three", "flip_three", "freeze", "5", "6", "7", "8"],
    )  # fmt: skip
    s = flip(flip(s.apply("hit")).apply("target 0"), 3).apply("target 0").apply("target 2")
    assert [f.name for f in s.frames] == ["resolve", "forced_draw"]
    s = flip(s, 2)
    assert s.round == 2 and s.round_scores() == (43, 9, 10)
    ended = [e.to_dict() for e in s.last_events() if e.type in ("forced_draw_ended", "discarded")]
    assert ended == [
        {"type": "forced_draw_ended", "seat": 0, "card": "flip_three", "outcome": "round ended"},
        {"type": "discarded", "card": "freeze", "seat": None, "reason": "round ended"},
    ]
    assert s.cards_in_play() == Counter(g.deck)
    assert [g.card_ids[c] for c in s.discard].count("freeze") == 1


# --------------------------------------------------------------------------- flip7ref.core.serialize


def _saved(log: bool = False) -> dict[str, Any]:
    return Game("flip7", 3).new_initial_state(seed=1).to_dict(log=log)


def _refused(data: Any) -> str:
    with pytest.raises(SerializationError) as info:
        State.from_dict(data)
    return str(info.value)


def test_from_dict_names_a_bad_option_and_a_bad_status() -> None:
    """An unknown option is refused with the game's own message behind "state data: "; a
    seat status that is not a status names the seat and the four statuses."""
    data = _saved()
    data["options"] = {"nope": 1}
    with pytest.raises(OptionError) as info:
        Game("flip7", 3, {"nope": 1})
    assert _refused(data) == f"state data: {info.value}"
    assert str(info.value).startswith("unknown option 'nope' for edition flip7 (known options: ")
    data = _saved()
    data["seats"][1]["status"] = "asleep"
    assert _refused(data) == "state data: seats/1/status: expected one of active, stayed, frozen, busted, got 'asleep'"


def test_state_from_dict_called_directly_refuses_options_too_deep_to_read() -> None:
    """State.from_dict bounds the depth first (flip7ref.core.position.check_depth); the reader
    under it (flip7ref.core.serialize.state_from_dict) still turns options too deep to read into
    a SerializationError rather than a RecursionError (the option's message abbreviates the
    value, `flip7ref.core.edition.short_repr`)."""
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(20_000):
        node["a"] = {}
        node = node["a"]
    data = _saved()
    data["options"] = {"tie": deep}
    with pytest.raises(SerializationError) as info:
        state_from_dict(State, data, None)
    assert re.fullmatch(
        r"state data: option tie: unknown value \{'a': \{'a': .*\.\.\..* \(expected another-round, shared-win\)", str(info.value)
    )
    with pytest.raises(SerializationError, match=r"^state data: nested more than \d+ levels deep"):
        State.from_dict(data)


# --------------------------------------------------------------------------- flip7ref.core.builders


def test_the_position_builder_defaults_are_those_of_new_position() -> None:
    """flip7ref.core.builders.position_state called with the game alone builds what
    Game.new_position() builds: dealer 0, round 1, seed 0, the rest below the draw pile,
    no deal."""
    g = Game("flip7", 3)
    built = position_state(g)
    assert built == g.new_position()
    assert (built.dealer, built.turn, built.round, built.shuffle_seed) == (0, 1, 1, "0")
    assert len(built.draw) == len(g.deck) and built.discard == () and built.frames == ()
    assert [p.line for p in built.players] == [(), (), ()]


# --------------------------------------------------------------------------- flip7ref.core.layout
# `over_slots` and `over_tuple` run once, when flip7ref.core.state and flip7ref.core.history are imported,
# before mutmut forks a worker per mutant: only a call inside a test reaches their mutants, so
# these tests re-create a small class.
_TUPLE_LAYOUT = pytest.mark.skipif(flip7ref.compiled, reason="the pure build's layout (compiled, State is native)")


class _Pair:
    """A value class as written for the compiled build (fields set by ``__init__``)."""

    left: int
    right: int
    label: str | None

    def __init__(self, left: int, right: int = 2, label: str | None = None) -> None:
        self.left = left
        self.right = right
        self.label = label

    def _make(self, *values: Any) -> _Pair:
        """A new pair from every field, positionally."""
        raise AssertionError("replaced by over_tuple")

    def total(self) -> int:
        return self.left + self.right


def _pair_class() -> Any:
    from flip7ref.core.layout import over_tuple

    return over_tuple(_Pair, ("left", "right", "label"), "_make")


def _slotted_pair_class() -> Any:
    from flip7ref.core.layout import over_slots

    return over_slots(_Pair, ("left", "right", "label"), "_make")


@_TUPLE_LAYOUT
def test_over_slots_builds_instances_from_the_constructor_arguments_with_their_defaults() -> None:
    pair = _slotted_pair_class()
    holder = pair.__bases__[0]
    assert pair.__name__ == "_Pair" and holder.__name__ == "__PairSlots" and holder.__bases__ == (object,)
    assert holder.__slots__ == ("left", "right", "label") and pair.__slots__ == ()
    assert "__init__" not in vars(pair) and "__dict__" not in vars(pair) and "__weakref__" not in vars(pair)
    p = pair(1)
    assert type(p) is pair and not hasattr(p, "__dict__")
    assert (p.left, p.right, p.label) == (1, 2, None)
    q = pair(4, 5, "x")
    assert (q.left, q.right, q.label) == (4, 5, "x")
    r = pair(7, label="y")
    assert (r.left, r.right, r.label) == (7, 2, "y")
    t = pair(right=0, left=3)
    assert (t.left, t.right, t.label) == (3, 0, None)
    assert p.total() == 3 and q.total() == 9  # the class body's methods are kept
    for bad in ((1, 2, 3, 4), ()):
        with pytest.raises(TypeError):
            pair(*bad)  # the constructor's own signature is enforced
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        pair(1, colour=2)
    with pytest.raises(TypeError, match="multiple values for argument 'left'"):
        pair(1, left=2)


@_TUPLE_LAYOUT
def test_over_slots_turns_the_factory_method_into_a_direct_build() -> None:
    pair = _slotted_pair_class()
    q = pair(1)._make(8, 9, "z")
    assert type(q) is pair and (q.left, q.right, q.label) == (8, 9, "z") and q.total() == 17
    assert pair._make.__doc__ == "A new pair from every field, positionally."
    assert pair._make.__qualname__ == "_Pair._make" and pair.__new__.__qualname__ == "_Pair.__new__"
    with pytest.raises(TypeError):
        pair(1)._make(8, 9)  # every field, positionally


@_TUPLE_LAYOUT
def test_over_slots_refuses_assignment_deletion_ordering_and_subclasses() -> None:
    pair = _slotted_pair_class()
    p, q = pair(1), pair(2)
    for attribute in ("left", "other"):
        with pytest.raises(AttributeError) as info:
            setattr(p, attribute, 5)
        assert str(info.value) == f"_Pair is immutable: cannot set {attribute!r} (apply a move to get a new state)"
        with pytest.raises(AttributeError) as info:
            delattr(p, attribute)
        assert str(info.value) == f"_Pair is immutable: cannot delete {attribute!r}"
    assert (p.left, p.right, p.label) == (1, 2, None)
    with pytest.raises(TypeError):
        _ = p < q
    with pytest.raises(TypeError):
        _ = p >= q
    with pytest.raises(TypeError, match="_Pair cannot be subclassed"):
        type("Sub", (pair,), {})
    assert p != q  # no __eq__ in the class body: identity
    for twin in (copy.copy(q), copy.deepcopy(q)):  # by the fields (the default __reduce__)
        assert type(twin) is pair and (twin.left, twin.right, twin.label) == (2, 2, None)


@_TUPLE_LAYOUT
def test_over_slots_refuses_field_names_the_constructor_uses() -> None:
    from flip7ref.core.layout import over_slots

    for bad in ("cls", "new", "_holder", "_default_0", "__x", "not a name"):
        with pytest.raises(ValueError, match="field names must be identifiers") as info:
            over_slots(_Pair, ("left", bad, "label"), "_make")
        assert repr(bad) in str(info.value)


@_TUPLE_LAYOUT
def test_over_tuple_builds_tuples_of_the_constructor_arguments_with_their_defaults() -> None:
    pair = _pair_class()
    assert pair.__name__ == "_Pair" and pair.__bases__ == (tuple,)
    assert "__init__" not in vars(pair) and "__dict__" not in vars(pair) and "__weakref__" not in vars(pair)
    assert pair.__slots__ == ()
    p = pair(1)
    assert type(p) is pair and tuple(p) == (1, 2, None)
    assert (p.left, p.right, p.label) == (1, 2, None)
    assert tuple(pair(4, 5, "x")) == (4, 5, "x")
    assert tuple(pair(7, label="y")) == (7, 2, "y")
    assert tuple(pair(right=0, left=3)) == (3, 0, None)
    assert p.total() == 3  # the class body's methods are kept
    assert not hasattr(p, "__dict__")
    with pytest.raises(TypeError):
        pair(1, 2, 3, 4)  # the constructor's own signature is enforced
    with pytest.raises(TypeError):
        pair()
    assert pair.left.__doc__ == "See `_Pair` (left)." and pair.label.__doc__ == "See `_Pair` (label)."


@_TUPLE_LAYOUT
def test_over_tuple_turns_the_factory_method_into_one_tuple_new() -> None:
    pair = _pair_class()
    q = pair(1)._make(8, 9, "z")
    assert type(q) is pair and tuple(q) == (8, 9, "z") and q.total() == 17
    assert pair._make.__doc__ == "A new pair from every field, positionally."


@_TUPLE_LAYOUT
def test_over_tuple_refuses_assignment_and_ordering() -> None:
    pair = _pair_class()
    p, q = pair(1), pair(2)
    for attribute in ("left", "other"):
        with pytest.raises(AttributeError) as info:
            setattr(p, attribute, 5)
        assert str(info.value) == f"_Pair is immutable: cannot set {attribute!r} (apply a move to get a new state)"
    assert tuple(p) == (1, 2, None)
    for method in ("__lt__", "__le__", "__gt__", "__ge__"):
        assert getattr(p, method)(q) is NotImplemented, method
    with pytest.raises(TypeError):
        _ = p < q
    with pytest.raises(TypeError):
        _ = p >= q
    assert p == pair(1) and hash(p) == hash(pair(1)) and p != q


# --------------------------------------------------------------------------- flip7ref.core.state
# Pure build only: compiled, `State` is already the native class (its module is no .py file to
# run again), and compiled code calls the lanes directly, not through the module's attributes.
_PURE = pytest.mark.skipif(flip7ref.compiled, reason="runs flip7ref/core/state.py's source / spies on module attributes")


def _native_state_class() -> Any:
    """`flip7ref.core.state.State` as written: the class mypyc compiles.  The pure build replaces it
    by its re-creation over slots when the module is imported (docs/build.md), so its ``__init__``
    and ``_make`` never run there; here the module's code runs once more with a ``__file__``
    that is not a ``.py`` file, which keeps the class as written."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("flip7ref.core.state", state_module.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.__file__ = f"{state_module.__file__}.native"
    spec.loader.exec_module(module)
    native = module.State
    assert native is not State and native.__mro__ == (native, StateData, object) and "__slots__" not in vars(native)
    return native


@_PURE
def test_the_native_state_class_sets_every_field_from_its_arguments() -> None:
    native = _native_state_class()
    fields = state_module._STATE_FIELDS
    values = [object() for _ in fields]
    s = native(*values)
    assert all(getattr(s, name) is value for name, value in zip(fields, values, strict=True))
    t = native(*values[:15])  # bonus_to, round_shuffles and the history link have defaults
    assert (t.bonus_to, t.round_shuffles, t._log) == (None, 0, None)
    assert all(getattr(t, name) is value for name, value in zip(fields[:15], values[:15], strict=True))
    others = [object() for _ in fields]
    u = s._make(*others)  # the factory of flip7ref.core.lanes and State._freeze
    assert type(u) is native
    assert all(getattr(u, name) is value for name, value in zip(fields, others, strict=True))


@_PURE
def test_the_native_state_class_plays_like_the_slotted_one() -> None:
    native = _native_state_class()
    s = Game("flip7", 3).new_initial_state(seed=7)
    n = native(*s._fields())
    for _ in range(40):
        if s.is_terminal():
            break
        move = f"chance {s.sample_chance()}" if s.is_chance_node() else s.legal_action_strings()[0]
        s, n = s.apply_move(move), n.apply_move(move)
        assert type(n) is native and n._fields()[:-1] == s._fields()[:-1]
        assert n.last_events() == s.last_events() and n.history() == s.history()


# --------------------------------------------------------------------------- flip7ref.core.work


@pytest.mark.rules("F7-076", "F7-062", "F7-082")
def test_a_set_aside_second_chance_kept_by_a_frozen_target_leaves_them_frozen() -> None:
    """Under ``second_chance_in_flip_three: set-aside`` (D-F7-14) the Freeze and the Second
    Chance of a Flip Three wait until its three cards are out; the Freeze, assigned first,
    freezes the target, then the Second Chance reaches them as if just received: they keep
    it (they hold none and are not busted) and stay frozen: keeping a card changes no status
    (`Work.set_kept`)."""
    game = Game("flip7", 3, {"second_chance_in_flip_three": "set-aside"})
    s = game.new_position(turn=0, lines={0: ["5"], 1: ["3"], 2: ["7"]}, draw=["flip_three", "freeze", "second_chance", "9"])
    s = flip(s.apply("hit"))
    assert s.pending() == ("play", "flip_three")
    s = flip(s.apply("target 1"), 3)
    assert s.pending() == ("assign", "freeze")
    s = s.apply("target 1")
    assert [e.type for e in s.last_events()] == ["assigned", "frozen", "second_chance_kept"]
    assert s.status(1).value == "frozen"
    assert (s.line(1), s.kept(1)) == (["3", "9"], ["freeze", "second_chance"])
    assert s.pending() == ("offer", None) and s.current_player == 2


def test_the_state_repr_names_every_field_but_the_history_link() -> None:
    s = Game("flip7", 3).new_position(lines={0: ["5"]}, draw=["7"], seed=None)
    text = repr(s)
    active = "status=<Status.ACTIVE: 'active'>, flip7_barred=False"
    assert text.startswith(
        f"State(game=Game('flip7', players=3, options={{}}), players=(Player(line=(5,), kept=(), {active}), "
        f"Player(line=(), kept=(), {active}), Player(line=(), kept=(), {active})), draw=(0, 1, 2, 2, 3, "
    )
    defaulted = ", ".join(f"{f.name}={f.default[0]!r}" for f in FIELDS[FIELD_NAMES.index("bonus_to") : -1])
    assert text.endswith(
        "), discard=(), frames=(), dealer=0, turn=1, round=1, totals=(0, 0, 0), last_scores=(), flip7=None, "
        f"round_over=False, winners=(), shuffle_seed=None, shuffles=0, {defaulted})"
    )
    assert "_log" not in text


def _spy(monkeypatch: pytest.MonkeyPatch, name: str) -> list[str]:
    """Record each call of the fast lane ``flip7ref.core.lanes.<name>`` from now on (it still runs)."""
    from flip7ref.core import lanes

    calls: list[str] = []
    lane = getattr(lanes, name)

    def spying(*args: Any) -> Any:
        calls.append(name)
        return lane(*args)

    monkeypatch.setattr(lanes, name, spying)
    return calls


def _general(s: State, move: str, monkeypatch: pytest.MonkeyPatch) -> State:
    with monkeypatch.context() as m:
        m.setattr(state_module, "_FAST_LANES", False)
        return s.apply_move(move)


@_PURE
def test_hit_and_stay_take_their_fast_lane_in_every_form(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Hit or a Stay at an offer takes its lane (`flip7ref.core.lanes.hit`, `stay`: the speed of
    every game loop) whether it comes as a string, the shared constant or another equal
    `Action`; anything else takes the general path.  Each gives the general path's state."""
    from flip7ref.core.model import HIT, STAY

    hits, stays = _spy(monkeypatch, "hit"), _spy(monkeypatch, "stay")
    s = Game("flip7", 3).new_position(turn=0, lines={0: ["5"], 1: ["3"], 2: ["7"]}, draw=["9"])
    for verb, constant in (("hit", HIT), ("stay", STAY)):
        for action in (verb, constant, Action(verb, ())):
            hits.clear(), stays.clear()
            after = s.apply(action)
            assert (hits, stays) == (([verb], []) if verb == "hit" else ([], [verb])), action
            assert after == _general(s, verb, monkeypatch) and after.last_events() == _general(s, verb, monkeypatch).last_events()
    hits.clear(), stays.clear()
    with pytest.raises(IllegalActionError):
        s.apply(Action("target", (1,)))
    with pytest.raises(IllegalActionError):
        s.apply("target 1")
    assert (hits, stays) == ([], [])


@_PURE
def test_a_card_drawn_from_anywhere_in_the_pile_takes_the_plain_card_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    """`State.apply_chance` hands a plain card to `flip7ref.core.lanes.plain_card` whether it is
    the top card (ordered pile) or any card of an open pile, and gives the general path's state."""
    calls = _spy(monkeypatch, "plain_card")
    game = Game("flip7", 3)
    for seed in (0, None):  # ordered (the 9 on top), open (sorted: the 9 is not first)
        s = game.new_position(turn=0, lines={0: ["5"], 1: ["3"], 2: ["7"]}, draw=["9"], seed=seed).apply("hit")
        assert s.is_chance_node() and (s.draw[0] == game.codes["9"]) is (seed == 0)
        calls.clear()
        after = s.apply_chance("9")
        assert calls == ["plain_card"], seed
        assert after == _general(s, "chance 9", monkeypatch) and after.line(0) == ["5", "9"]
