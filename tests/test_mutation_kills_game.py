"""Tests written against mutants that survived the mutmut run of issue 15 (docs/mutation-testing.md).

The run mutates flip7ref/core/game.py, scoring.py, position.py and model.py (``[tool.mutmut]`` in
pyproject.toml, ``python tools/mutation.py run``).  Each test pins a value or an exact message
the earlier tests left loose.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

from flip7ref import CardError, Game, OptionError, SerializationError, State
from flip7ref.core import builders
from flip7ref.core.game import ACTION, MODIFIER, NUMBER, Effect
from flip7ref.core.game_tables import _resolve, _truthy
from flip7ref.core.position import (
    MAX_DEPTH,
    PositionError,
    _check_frame_fields,
    _short,
    check_data_fields,
    check_depth,
    check_edition_field,
    check_state,
    too_deep,
)
from flip7ref.core.scoring import score_cards, score_line, score_points
from flip7ref.core.spec import spec_dir
from flip7ref.core.state_fields import FIELD_NAMES

# --- scoring.py: score_cards --------------------------------------------------------------


@pytest.mark.parametrize(("game", "kind"), [("flip7", "str"), (None, "NoneType"), (3, "int")])
def test_score_cards_refuses_what_is_not_a_game_naming_its_type(game: object, kind: str) -> None:
    with pytest.raises(OptionError) as info:
        score_cards(game, ["3"])
    assert str(info.value) == f"game: expected a flip7ref.Game, got {kind}"


@pytest.mark.rules("F7-035")
@pytest.mark.parametrize(("edition", "card"), [("flip7", "freeze"), ("flip7", "Second Chance"), ("vengeance", "swap")])
def test_score_cards_refuses_an_action_card_by_the_name_given(edition: str, card: str) -> None:
    """An action card never lies in a line (it is resolved or kept, F7-035): the message quotes the name as given."""
    g = Game(edition, 3)
    with pytest.raises(CardError) as info:
        score_cards(g, ["3", card, "5"])
    assert str(info.value) == f"{card!r} is an action card; a scored line holds only number and modifier cards"


# --- game.py: what a table compiles to --------------------------------------------------------

_FLIP7_ROUND = {
    "initial_deal": True,
    "early_cards": "offer",
    "early_second_chance": "deal",
    "start_seat": "dealer-left",
    "stay_requires": "any-card",
    "stay_protects": True,
    "modifiers_to": "receiver",
    "empty_deck": "stay",
    "between_rounds": "carry-over",
    "flip7_bonus_to": "maker",
    "modifier_targets": "non_busted",
    "flip7_counts": "distinct",
    "busted_score": "zero",
    "flip7_choice": False,
    "set_aside_order": "queue",
    "reshuffles": 1,
    "zero_after_stay": "general-rules",
    "busted_cards": "keep",
    "unusable_actions": "refuse",
    "zero_with_negatives": "zero",
    "busted_modifiers": "all-negatives",  # a table that does not name the key: every negative (0.1.0)
    "wipe_set_aside": "survives",
    "late_bust": "all",
    "penalty_targets": "any-player",
    "barred_own_flip_four": "barred",
    "moved_card_place": "end",
    "target_score": 200,
    "tie": "another-round",
    "decks": 1,
    "flip7_distinct": 7,
    "flip7_bonus": 15,
}
_VENGEANCE_ROUND = _FLIP7_ROUND | {
    "early_cards": "offer",
    "unusable_actions": "fizzle",
    "stay_requires": "nothing",
    "stay_protects": False,
    "modifiers_to": "choose",
    "flip7_counts": "cards",
    "zero_after_stay": "no-flip7",
    "busted_modifiers": "given-after-bust",  # option brutal_busted's default (D-V-33)
}


def _round_facts(game: Game) -> dict[str, object]:
    return {name: getattr(game, name) for name in _FLIP7_ROUND}


@pytest.mark.rules("F7-020", "F7-025", "F7-026", "F7-033", "F7-034", "F7-035", "F7-050", "F7-111", "F7-115", "F7-116")
def test_flip7_table_compiles_to_its_default_readings() -> None:
    """Every round and game-end fact of the Flip 7 table at its default options; the keys the
    table leaves out (Vengeance's) read as the base rules."""
    g = Game("flip7", 4)
    # reshuffles: reading unlimited (D-F7-30), bounded by its guard's D + N + 1 (docs/termination.md)
    assert _round_facts(g) == _FLIP7_ROUND | {"reshuffles": 94 + 4 + 1}
    assert g.reshuffles_unlimited
    assert g.scoring == ("sum_numbers", "multiply", "add_modifiers", "flip7_bonus")
    assert (g.modifier_pipeline, g.floors_at_zero, g.adds_flip7_bonus) == (True, False, True)
    assert g.no_stay == frozenset()


@pytest.mark.rules("V-011", "V-014", "V-017", "V-022", "V-031", "V-038", "V-050", "V-060", "V-071", "V-072", "V-075")
def test_vengeance_table_compiles_to_its_default_readings() -> None:
    g = Game("vengeance", 4)
    assert _round_facts(g) == _VENGEANCE_ROUND | {"reshuffles": len(g.deck) + 4 + 1}  # unlimited (D-V-30)
    assert g.reshuffles_unlimited
    assert g.scoring == ("sum_numbers", "multiply", "add_modifiers", "floor_zero", "zero_unless_flip7", "flip7_bonus")
    assert (g.modifier_pipeline, g.floors_at_zero, g.adds_flip7_bonus) == (True, True, True)
    assert {g.card_ids[c] for c in g.no_stay} == {"0"}  # V-031: holding only The Zero, no Stay


@pytest.mark.rules("V-080", "V-081", "V-082")
def test_brutal_mode_readings_resolve_through_nested_options() -> None:
    """modifier_targets depends on two options (brutal, then stayed_targetable): each pair gives its value;
    Brutal Mode drops the floor at zero (its step is ``unless: brutal``)."""
    expected = {
        ("false", "yes"): "non_busted",
        ("false", "no"): "active",
        ("true", "yes"): "any",
        ("true", "no"): "active_or_busted",
    }
    for (brutal, stayed), targets in expected.items():
        g = Game("vengeance", 3, {"brutal": brutal, "stayed_targetable": stayed})
        assert g.modifier_targets == targets, (brutal, stayed)
        assert g.stay_protects is (stayed == "no")
        assert g.busted_score == ("modifiers" if brutal == "true" else "zero")
        assert g.flip7_choice is (brutal == "true")
        assert g.floors_at_zero is (brutal == "false")
        assert ("floor_zero" in g.scoring) is (brutal == "false")
    g = Game("vengeance", 3, {"brutal": "true"})
    assert g.scoring == ("sum_numbers", "multiply", "add_modifiers", "zero_unless_flip7", "flip7_bonus")
    assert g.modifier_pipeline is True  # floor_zero is one of the steps the fast path may skip


def test_a_table_without_the_optional_round_keys_reads_the_base_rules(tmp_path: Path) -> None:
    """A house-rule table may leave out the optional keys of ``round``: each takes its schema default
    (spec/schema/edition.schema.json): a player with early cards is asked at their deal slot
    (D-F7-16), a Second Chance of the deal is dealt past, reshuffles unlimited with the guard
    (D-F7-30), set-aside cards in a queue, the Flip 7 bonus to its maker."""
    text = (spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8")
    optional = ("  early_cards:", "  early_second_chance:", "  reshuffles:", "  set_aside_order:", "  flip7_bonus_to:")
    kept, in_round = [], False
    for line in text.splitlines(keepends=True):
        in_round = line == "round:\n" or (in_round and line.startswith(" "))
        if not (in_round and line.startswith(optional)):
            kept.append(line)
    assert len(kept) == len(text.splitlines()) - 5
    path = tmp_path / "bare.yaml"
    path.write_text("".join(kept), encoding="utf-8")
    g = Game(path, 3)
    facts = _round_facts(g)
    assert facts == _FLIP7_ROUND | {"reshuffles": 94 + 3 + 1}  # unlimited: the guard's bound D + N + 1
    assert g.reshuffles_unlimited
    assert g.options["reshuffles"] == "unlimited"  # the option still exists; the round no longer reads it
    assert Game(path, 3, {"reshuffles": 3}).reshuffles == 94 + 3 + 1
    assert Game(path, 3, {"deal_after_early_cards": "skip"}).early_cards == "offer"


@pytest.mark.rules("F7-002", "F7-123")
@pytest.mark.parametrize(("players", "decks"), [(1, 1), (18, 1), (19, 2), (36, 2), (37, 3), (144, 8)])
def test_one_deck_per_eighteen_players(players: int, decks: int) -> None:
    g = Game("flip7", players)
    assert g.decks == decks
    assert len(g.deck) == 94 * decks


@pytest.mark.rules("F7-002", "F7-123")
def test_more_players_than_eight_decks_serve_is_refused() -> None:
    with pytest.raises(OptionError) as info:
        Game("flip7", 145)
    assert str(info.value) == "players: 145 players need 9 decks; at most 8 are supported"
    assert Game("flip7", 3, {"decks": 2}).decks == 2


def _effect_names(game: Game, effect: Effect) -> dict[str, object]:
    fields: dict[str, object] = {"primitive": effect.primitive, **attrs.asdict(effect, recurse=False)}
    if "set_aside" in fields:
        fields["set_aside"] = sorted(game.card_ids[c] for c in effect.set_aside)  # type: ignore[attr-defined]
    return fields


_COMMON = {"targets": "active", "self_target": "allowed"}
_OWN_DEFAULTS: dict[str, dict[str, object]] = {  # each primitive's own parameters (flip7ref.core.primitives)
    "freeze": {"keep_card": False},
    "forced_draw": {
        "count": 0, "set_aside": [], "on_bust": "discard", "assigner": "target", "then_stay": False,
        "resolution": "assign-all-first",
    },
    "bust_shield": {"hold_limit": 1, "first_copy": "keep"},
    "swap": {"scope": "any-two"},
    "steal": {},
    "discard_card": {"chooser": "giver"},
}  # fmt: skip


def _default(primitive: str) -> dict[str, object]:
    """The effect record of ``primitive`` with every parameter at its default."""
    return {"primitive": primitive, **_COMMON, **_OWN_DEFAULTS[primitive]}


@pytest.mark.rules("F7-060", "F7-062", "F7-070", "F7-074", "F7-080", "F7-082")
def test_flip7_action_effects_at_default_options() -> None:
    """The effect records of Flip 7's action cards, every parameter (the ones the table leaves out take
    the primitive's defaults)."""
    g = Game("flip7", 4)
    effects = {g.card_ids[c]: _effect_names(g, e) for c, e in enumerate(g.effect) if e is not None}
    assert effects == {
        "freeze": _default("freeze") | {"keep_card": True},
        "flip_three": _default("forced_draw") | {"count": 3, "set_aside": ["flip_three", "freeze"]},
        "second_chance": _default("bust_shield"),
    }


@pytest.mark.rules("F7-070", "F7-074", "F7-080")
def test_flip7_action_effects_follow_their_options() -> None:
    options = {
        "self_target": "only-when-alone",
        "flip_three_bust": "resolve",
        "set_aside_assigner": "giver",
        "second_chance_in_flip_three": "set-aside",
        "first_second_chance": "may-give",
    }
    g = Game("flip7", 4, options)
    effects = {g.card_ids[c]: _effect_names(g, e) for c, e in enumerate(g.effect) if e is not None}
    assert effects["flip_three"] == _default("forced_draw") | {
        "count": 3,
        "set_aside": ["flip_three", "freeze", "second_chance"],
        "on_bust": "resolve",
        "assigner": "giver",
        "self_target": "only-when-alone",
    }
    assert effects["freeze"]["self_target"] == "only-when-alone"
    assert effects["second_chance"] == _default("bust_shield") | {"first_copy": "may-give"}


@pytest.mark.rules("V-040", "V-041", "V-042", "V-043", "V-044", "V-045")
def test_vengeance_action_effects_at_default_and_other_options() -> None:
    g = Game("vengeance", 4)
    effects = {g.card_ids[c]: _effect_names(g, e) for c, e in enumerate(g.effect) if e is not None}
    others = sorted(g.card_ids[c] for c in range(len(g.card_ids)) if g.category[c] in (MODIFIER, ACTION))
    assert effects == {
        "just_one_more": _default("forced_draw") | {"targets": "non_busted", "count": 1, "then_stay": True},
        "flip_four": _default("forced_draw")
        | {"targets": "non_busted", "count": 4, "set_aside": others, "resolution": "in-order"},
        "swap": _default("swap") | {"targets": "non_busted"},
        "steal": _default("steal") | {"targets": "non_busted"},
        "discard": _default("discard_card") | {"targets": "non_busted"},
    }
    g = Game(
        "vengeance",
        4,
        {
            "stayed_targetable": "no",
            "swap_scope": "own-and-other",
            "discard_chooser": "recipient",
            "flip_four_cards": "immediate",
        },
    )
    effects = {g.card_ids[c]: _effect_names(g, e) for c, e in enumerate(g.effect) if e is not None}
    assert {name: e["targets"] for name, e in effects.items()} == dict.fromkeys(effects, "active")
    assert effects["swap"]["scope"] == "own-and-other"
    assert effects["discard"]["chooser"] == "recipient"
    assert effects["flip_four"]["set_aside"] == []


def test_truthy_words_of_unless() -> None:
    """``unless:`` of a scoring step is true for true, 1, "on", "yes", "true" and nothing else."""
    for value in (True, 1, "on", "yes", "true"):
        assert _truthy(value), value
    for value in (False, 0, "off", "no", "false", "1", "True", None, 2):
        assert not _truthy(value), value


def test_resolve_replaces_only_option_references() -> None:
    options: dict[str, str | int] = {"a": "x", "b": 3}
    assert _resolve({"option": "a"}, options) == "x"
    assert _resolve({"option": "a", "values": {"x": "chosen", "y": "other"}}, options) == "chosen"
    assert _resolve({"option": "b", "values": {"3": {"option": "a"}}}, options) == "x"  # a value naming another option
    assert _resolve({"option": "a", "other": 1}, options) == {"option": "a", "other": 1}  # not a reference
    assert _resolve({"values": {"x": 1}}, options) == {"values": {"x": 1}}
    assert _resolve("plain", options) == "plain"


# --- game.py: the small methods -----------------------------------------------------------------


@pytest.mark.rules("F7-115", "F7-116")
def test_move_and_stack_bounds_follow_the_documented_formulas() -> None:
    """max_moves_per_round = 4 (k + 1) D + 2 N + 1 and max_pending = 2 D + 4 (docs/termination.md)."""
    g = Game("flip7", 4, {"reshuffles": 1})
    assert len(g.deck) == 94
    assert g.max_moves_per_round() == 4 * 2 * 94 + 2 * 4 + 1 == 761
    assert Game("flip7", 4).max_moves_per_round() == 4 * (94 + 4 + 1 + 1) * 94 + 2 * 4 + 1  # unlimited: k = D + N + 1
    assert g.max_pending() == 2 * 94 + 4 == 192
    g = Game("flip7", 19, {"reshuffles": 3})
    assert g.max_moves_per_round() == 4 * 4 * 188 + 2 * 19 + 1
    assert g.max_pending() == 2 * 188 + 4


def test_repr_and_non_default_options_show_only_what_differs() -> None:
    assert repr(Game("flip7", 4)) == "Game('flip7', players=4, options={})"
    g = Game("vengeance", 3, {"tie": "shared-win", "brutal": "true", "reshuffles": "unlimited"})
    assert repr(g) == "Game('vengeance', players=3, options={'brutal': 'true', 'tie': 'shared-win'})"
    assert g.non_default_options() == {"brutal": "true", "tie": "shared-win"}
    assert Game("flip7", 2).non_default_options() == {}


def test_games_pickle_as_their_arguments_and_compare_by_them() -> None:
    g = Game("vengeance", 3, {"brutal": "true"})
    back = pickle.loads(pickle.dumps(g))
    assert back == g and hash(back) == hash(g)
    assert back.options == g.options and back.players == 3
    assert g.__reduce__() == (Game, (g.edition, 3, dict(g.options)))
    assert g != Game("vengeance", 4, {"brutal": "true"})
    assert g != Game("vengeance", 3)
    assert g != "vengeance"
    assert Game("flip7", 3) == Game("flip7", 3, {"tie": "another-round"})


# --- position.py: the helpers of the serialized-data checks -------------------------------------


def _nested(levels: int) -> list[object]:
    """``levels`` lists, each the only item of the one before: ``[[[...]]]``."""
    top: list[object] = []
    inner = top
    for _ in range(levels - 1):
        new: list[object] = []
        inner.append(new)
        inner = new
    return top


def test_too_deep_reports_the_first_value_at_the_limit_with_its_path() -> None:
    assert too_deep([[1]], limit=2) is None
    assert too_deep([[[1]]], limit=2) == "/0/0"
    assert too_deep({"a": [{"b": []}]}, limit=3) == "/a/0/b"
    assert too_deep({"a": [{"b": []}]}, limit=4) is None
    assert too_deep((("x",),), limit=1) == "/0"  # tuples count like lists
    assert too_deep(_nested(MAX_DEPTH)) is None
    assert too_deep(_nested(MAX_DEPTH + 1)) == "/0/0/0/0/0/0/..."


def test_too_deep_cuts_the_path_after_six_steps() -> None:
    nine = _nested(9)
    assert too_deep(nine, limit=6) == "/0/0/0/0/0/0"
    assert too_deep(nine, limit=7) == "/0/0/0/0/0/0/..."
    assert too_deep(nine, limit=8) == "/0/0/0/0/0/0/..."
    assert too_deep(nine, limit=9) is None


def test_check_depth_names_what_was_read_the_limit_and_the_path() -> None:
    with pytest.raises(SerializationError) as info:
        check_depth(_nested(9), "case", 3)
    assert str(info.value) == "case: nested more than 3 levels deep (at /0/0/0)"
    with pytest.raises(SerializationError) as info:
        check_depth(_nested(MAX_DEPTH + 1))
    assert str(info.value) == f"state data: nested more than {MAX_DEPTH} levels deep (at /0/0/0/0/0/0/...)"
    check_depth(_nested(MAX_DEPTH))  # at the limit: accepted


def test_short_cuts_long_values_to_forty_characters() -> None:
    assert _short([1, 2]) == "[1, 2]"
    assert _short("x" * 38) == "'" + "x" * 38 + "'"  # 40 characters: kept
    assert _short("x" * 39) == "'" + "x" * 36 + "..."
    assert len(_short("y" * 500)) == 40
    assert _short("abcdef", limit=5) == "'a..."
    assert _short(_nested(200_000)) == "a deeply nested list"


class _Probe:
    """A frame-like value with a field of every kind ``check_frame_args`` knows (no shipped
    frame has a bool field), its kinds declared as a frame class declares them."""

    FIELDS = ("seat", "word", "flag", "cards", "items", "other")
    KINDS = ("int", "str", "bool", "tuple[int, ...]", "tuple[tuple[int, int, int], ...]", "float")

    def __init__(self, seat: object, word: object, flag: object, cards: object, items: object, other: object) -> None:
        self.seat, self.word, self.flag, self.cards, self.items, self.other = seat, word, flag, cards, items, other

    def key(self) -> tuple[object, ...]:
        return (self.seat, self.word, self.flag, self.cards, self.items, self.other)


_GOOD = {"seat": 0, "word": "hit", "flag": False, "cards": (0, 3), "items": ((1, 0, 2),), "other": 0.5}


def test_frame_fields_of_the_right_kinds_pass() -> None:
    _check_frame_fields(_Probe(**_GOOD), 0)  # type: ignore[arg-type]
    _check_frame_fields(_Probe(**(_GOOD | {"flag": True, "cards": (), "items": (), "other": "anything"})), 0)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("seat", -1, "a whole number from 0"),
        ("seat", True, "a whole number from 0"),
        ("word", 3, "a string"),
        ("word", None, "a string"),
        ("flag", 1, "true or false"),
        ("flag", "yes", "true or false"),
        ("cards", [0, 3], "a list of whole numbers from 0"),
        ("cards", (0, -3), "a list of whole numbers from 0"),
        ("cards", (0, "3"), "a list of whole numbers from 0"),
        ("cards", (False,), "a list of whole numbers from 0"),
        ("items", ((1, 0),), "a list of [card, seat, seat] entries"),
        ("items", ([1, 0, 2],), "a list of [card, seat, seat] entries"),
        ("items", ((1, 0, "2"),), "a list of [card, seat, seat] entries"),
        ("items", [(1, 0, 2)], "a list of [card, seat, seat] entries"),
    ],
)
def test_a_frame_field_of_the_wrong_kind_is_named_with_what_was_expected(field: str, value: object, expected: str) -> None:
    with pytest.raises(PositionError) as info:
        _check_frame_fields(_Probe(**(_GOOD | {field: value})), 4)  # type: ignore[arg-type]
    assert info.value.field == f"state data: frames/4/{field}"
    assert info.value.expected == f"expected {expected}, got {_short(value)}"
    assert str(info.value) == f"state data: frames/4/{field}: expected {expected}, got {_short(value)}"


def test_position_error_keeps_field_and_expected() -> None:
    error = PositionError("lines[2]", "a busted line holds the duplicate that busted it")
    assert (error.field, error.expected) == ("lines[2]", "a busted line holds the duplicate that busted it")
    assert str(error) == "lines[2]: a busted line holds the duplicate that busted it"
    assert isinstance(error, CardError) and isinstance(error, SerializationError)


def test_every_shipped_frame_declares_a_kind_check_frame_args_knows() -> None:
    """The kinds the frame classes declare are the ones the check reads (a new kind would be skipped)."""
    from flip7ref.core.frames import FRAME_TYPES

    known = {"int", "str", "bool", "tuple[int, ...]", "tuple[tuple[int, int, int], ...]", "tuple[target, ...]"}
    assert {k for cls in FRAME_TYPES.values() for k in cls.KINDS} <= known
    assert FRAME_TYPES["resolve"].KINDS == ("tuple[tuple[int, int, int], ...]",)


# --- position.py: check_state on states built directly (past from_dict's own checks) ----------

def _with(state: State, **changes: object) -> State:
    """``state`` with some fields replaced, built with the public constructor (no check runs)."""
    return State(**({name: getattr(state, name) for name in FIELD_NAMES[:-1]} | changes))


_SEEDED = Game("flip7", 3, {"reshuffles": 1}).new_initial_state(seed=1)


@pytest.mark.rules("F7-116")
@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"dealer": 3}, "dealer: expected a seat 0..2"),
        ({"turn": -1}, "turn: expected a seat 0..2"),
        ({"totals": (0, 0)}, "totals: expected 3 whole numbers"),
        ({"totals": (0, 0, 1.5)}, "totals: expected 3 whole numbers"),
        ({"last_scores": (0, "1", 0)}, "last_scores: expected 3 whole numbers, or none before a round has ended"),
        ({"last_scores": (1, 2)}, "last_scores: expected 3 whole numbers, or none before a round has ended"),
        ({"winners": (3,)}, "winners/flip7: expected seats 0..2"),
        ({"flip7": 3}, "winners/flip7: expected seats 0..2"),
        ({"round": 0}, "round/shuffles: expected a round from 1 and a non-negative shuffle count"),
        ({"shuffles": -1}, "round/shuffles: expected a round from 1 and a non-negative shuffle count"),
        (
            {"round_shuffles": 2, "shuffles": 5},
            "round_shuffles: expected a whole number 0..1, at most 'shuffles' (F7-116, V-075)",
        ),
        (
            {"round_shuffles": 1, "shuffles": 0},
            "round_shuffles: expected a whole number 0..1, at most 'shuffles' (F7-116, V-075)",
        ),
        ({"round_shuffles": -1}, "round_shuffles: expected a whole number 0..1, at most 'shuffles' (F7-116, V-075)"),
        ({"round_shuffles": True}, "round_shuffles: expected a whole number 0..1, at most 'shuffles' (F7-116, V-075)"),
        ({"round_over": 1}, "round_over: expected true or false, got 1"),
        ({"round_over": None}, "round_over: expected true or false, got None"),
        ({"bonus_to": "0"}, "bonus_to: expected a seat 0..2 or null, got '0'"),
        ({"bonus_to": 3}, "bonus_to: expected a seat 0..2 or null, got 3"),
        ({"bonus_to": 0}, "bonus_to: expected null: only the Flip 7 maker's choice in Brutal Mode sets it (V-082)"),
        ({"bonus_to": 0, "flip7": 1}, "bonus_to: expected null: only the Flip 7 maker's choice in Brutal Mode sets it (V-082)"),
        ({"shuffle_seed": 5}, "shuffle_seed: expected a string or null, got 5"),
    ],
)
def test_check_state_refuses_each_malformed_field_with_its_message(changes: dict[str, object], message: str) -> None:
    with pytest.raises(PositionError) as info:
        check_state(_with(_SEEDED, **changes))
    assert str(info.value) == f"state data: {message}"


@pytest.mark.rules("F7-116", "V-082")
def test_check_state_accepts_the_edges_of_each_range() -> None:
    check_state(_SEEDED)
    check_state(Game("flip7", 3).new_initial_state())  # an open state: no shuffle seed
    for changes in (
        {"round_shuffles": 1, "shuffles": 1},
        {"round_shuffles": 1, "shuffles": 4},
        {"shuffle_seed": None},
        {"last_scores": (1, 2, -3)},
        {"last_scores": ()},
        {"dealer": 2, "turn": 0},
    ):
        check_state(_with(_SEEDED, **changes))
    brutal = Game("vengeance", 3, {"brutal": "true"}).new_initial_state(seed=1)
    # a maker with a choice made but no Flip7Choice pending: no game reaches it (the choice is made and
    # the round scored in one move, V-082), so flip7 is refused before bonus_to is looked at
    with pytest.raises(PositionError, match="flip7: expected null"):
        check_state(_with(brutal, bonus_to=0, flip7=1))
    with pytest.raises(PositionError, match="only the Flip 7 maker's choice"):
        check_state(_with(brutal, bonus_to=0))


@pytest.mark.rules("F7-002", "F7-060")
def test_check_state_counts_the_cards_held_by_pending_frames() -> None:
    """A Freeze waiting for its target is a card of the state: with all three Freezes also in the
    discard pile, the frames hold a copy more than the deck (F7-002)."""
    g = Game("flip7", 3)
    s = g.new_position(lines={0: ["3"], 1: ["4"], 2: ["5"]}, draw=["freeze"])
    s = s.apply(s.legal_actions()[0]).apply_chance("freeze")  # seat 1 hits and reveals the Freeze
    assert [f.name for f in s.frames] == ["choose_target"]
    freeze = g.code("freeze")
    check_state(s)
    crowded = _with(s, draw=tuple(c for c in s.draw if c != freeze), discard=(*s.discard, freeze, freeze, freeze))
    with pytest.raises(PositionError) as info:
        check_state(crowded)
    assert str(info.value) == "frames: more copies of 'freeze' than the deck holds"


def test_check_data_fields_refuses_before_a_state_is_built() -> None:
    check_data_fields({})
    check_data_fields({"round_over": True, "shuffle_seed": None})
    check_data_fields({"round_over": False, "shuffle_seed": "7"})
    with pytest.raises(PositionError) as info:
        check_data_fields({"round_over": 1})
    assert str(info.value) == "state data: round_over: expected true or false, got 1"
    with pytest.raises(PositionError) as info:
        check_data_fields({"round_over": False, "shuffle_seed": 7})
    assert str(info.value) == "state data: shuffle_seed: expected a string or null, got 7"
    with pytest.raises(PositionError) as info:
        check_data_fields({"shuffle_seed": ["x" * 60]})
    assert str(info.value) == "state data: shuffle_seed: expected a string or null, got ['xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."


def test_check_edition_field_quotes_at_most_forty_characters_of_a_long_edition() -> None:
    long = "x" * 39 + "yz" + "w" * 20
    with pytest.raises(SerializationError) as info:
        check_edition_field(long, None)
    assert str(info.value) == (
        "state data: edition: expected one of flip7, vengeance (a table file is used only when the caller passes "
        f"its game), got {'x' * 39 + 'y'!r}"
    )
    with pytest.raises(SerializationError) as info:
        check_edition_field(long, Game("flip7", 3))
    assert str(info.value) == f"state data: edition: the data is of edition {'x' * 39 + 'y'!r}, the game given of 'flip7'"
    assert check_edition_field("vengeance", None) == "vengeance"
    assert check_edition_field("flip7", Game("flip7", 3)) == "flip7"


def test_games_that_differ_hash_apart() -> None:
    games = [Game("flip7", 3), Game("flip7", 4), Game("vengeance", 3), Game("vengeance", 3, {"brutal": "true"})]
    assert len({hash(g) for g in games}) == len(games)
    assert len(set(games)) == len(games)


def test_game_hands_every_argument_to_the_state_builders(monkeypatch: pytest.MonkeyPatch) -> None:
    """new_initial_state / new_position call the builders of flip7ref.core.builders, passing each
    argument on unchanged (the builders are put back afterwards)."""
    calls: list[tuple[str, tuple[object, ...], dict[str, object]]] = []

    def recorder(kind: str) -> Callable[..., State]:
        def build(*args: object, **kwargs: object) -> State:
            calls.append((kind, args, kwargs))
            return _SEEDED

        return build

    g = _SEEDED.game
    with monkeypatch.context() as patch:
        patch.setattr(builders, "initial_state", recorder("initial"))
        patch.setattr(builders, "position_state", recorder("position"))
        assert g.new_initial_state(7, dealer=2, stack=["3"], totals=[1, 2, 3]) is _SEEDED
        assert g.new_initial_state() is _SEEDED
        assert g.new_position() is _SEEDED
        assert (
            g.new_position(
                dealer=1,
                turn=2,
                lines={0: ["3"]},
                kept={1: ["second_chance"]},
                statuses={2: "stayed"},
                draw=["5"],
                discard=["6"],
                totals=[0, 1, 2],
                round_number=4,
                seed=None,
                rest="out",
                deal=True,
            )
            is _SEEDED
        )
    assert calls == [
        ("initial", (g,), {"seed": 7, "dealer": 2, "stack": ["3"], "totals": [1, 2, 3]}),
        ("initial", (g,), {"seed": None, "dealer": 0, "stack": None, "totals": None}),
        (
            "position",
            (g,),
            {
                "dealer": 0, "turn": None, "lines": None, "kept": None, "statuses": None, "draw": (), "discard": (),
                "totals": None, "round_number": 1, "seed": 0, "rest": "below", "deal": False,
            },
        ),
        (
            "position",
            (g,),
            {
                "dealer": 1, "turn": 2, "lines": {0: ["3"]}, "kept": {1: ["second_chance"]}, "statuses": {2: "stayed"},
                "draw": ["5"], "discard": ["6"], "totals": [0, 1, 2], "round_number": 4, "seed": None, "rest": "out",
                "deal": True,
            },
        ),
    ]  # fmt: skip
    assert g.new_initial_state(seed=1) == _SEEDED  # the real builders are back


def test_game_defaults_to_four_player_flip7() -> None:
    g = Game()
    assert g == Game("flip7", 4)
    assert (g.edition.id, g.players, g.non_default_options()) == ("flip7", 4, {})


@pytest.mark.parametrize("players", [True, 2.0, "3", None])
def test_players_must_be_a_whole_number(players: object) -> None:
    with pytest.raises(OptionError) as info:
        Game("flip7", players)
    assert str(info.value) == f"players: expected a whole number, got {players!r}"


@pytest.mark.rules("F7-122")
def test_a_table_minimum_player_count_is_enforced(tmp_path: Path) -> None:
    """Both shipped tables take one player (F7-122, V-073); a table may ask for more."""
    with pytest.raises(OptionError) as info:
        Game("flip7", 0)
    assert str(info.value) == "players: 0 is too few for flip7 (at least 1)"
    assert Game("vengeance", 1).players == 1
    text = (spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8")
    assert text.count("\n  min_players: 1 ") == 1
    path = tmp_path / "three_up.yaml"
    path.write_text(text.replace("\n  min_players: 1 ", "\n  min_players: 3 "), encoding="utf-8")
    with pytest.raises(OptionError) as info:
        Game(path, 2)
    assert str(info.value) == "players: 2 is too few for flip7 (at least 3)"
    assert Game(path, 3).players == 3
    path.write_text(text.replace("\n  min_players: 1 ", "\n  # no minimum "), encoding="utf-8")
    assert Game(path, 1).players == 1  # a table without min_players takes one player


def test_options_must_be_a_mapping() -> None:
    with pytest.raises(OptionError) as info:
        Game("flip7", 3, ["tie"])
    assert str(info.value) == "options: expected a mapping of option names to values, got list"
    with pytest.raises(OptionError) as info:
        Game("flip7", 3, "tie=shared-win")
    assert str(info.value) == "options: expected a mapping of option names to values, got str"


class _ProbeOtherFirst:
    """A kind the check does not know first (skipped), then a seat (still checked)."""

    FIELDS = ("note", "seat")
    KINDS = ("float", "int")

    def __init__(self, note: object, seat: object) -> None:
        self.note, self.seat = note, seat

    def key(self) -> tuple[object, ...]:
        return (self.note, self.seat)


def test_frame_fields_after_a_field_of_another_kind_are_still_checked() -> None:
    _check_frame_fields(_ProbeOtherFirst(note=0.5, seat=2), 1)
    with pytest.raises(PositionError) as info:
        _check_frame_fields(_ProbeOtherFirst(note=0.5, seat=-2), 1)
    assert str(info.value) == "state data: frames/1/seat: expected a whole number from 0, got -2"


def test_an_unknown_option_lists_the_known_ones() -> None:
    g = Game("vengeance", 3)
    with pytest.raises(OptionError) as info:
        Game("vengeance", 3, {"nope": 1})
    assert str(info.value) == f"unknown option 'nope' for edition vengeance (known options: {', '.join(g.edition.options)})"
    assert "(known options: brutal, lucky13_flip7, stayed_targetable, " in str(info.value)


def test_cards_without_a_rank_have_rank_minus_one() -> None:
    for edition in ("flip7", "vengeance"):
        g = Game(edition, 3)
        ranks = {g.card_ids[c]: g.rank[c] for c in range(len(g.card_ids))}
        assert {ranks[g.card_ids[c]] for c in range(len(g.card_ids)) if g.category[c] != NUMBER} == {-1}
        assert ranks["0"] == 0 and ranks["12"] == 12


@pytest.mark.rules("F7-020")
@pytest.mark.parametrize(("value", "dealt"), [("true", True), ("false", False), ("deal", True), ("none", False)])
def test_initial_deal_reads_booleans_and_words(tmp_path: Path, value: str, dealt: bool) -> None:
    """The table's ``initial_deal`` may be true/false or the words deal/none (the option's readings)."""
    text = (spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8")
    old = "  initial_deal: {option: initial_deal}"
    assert text.count(old) == 1
    path = tmp_path / f"deal_{value}.yaml"
    path.write_text(text.replace(old, f"  initial_deal: {value}"), encoding="utf-8")
    assert Game(path, 3).initial_deal is dealt
    assert Game("flip7", 3, {"initial_deal": value if value in ("deal", "none") else "deal"}).initial_deal is (value != "none")


@pytest.mark.rules("F7-002", "F7-123")
def test_a_table_without_a_decks_option_has_no_deck_limit(tmp_path: Path) -> None:
    """The limit on decks comes from the ``decks`` option's integer range; a table without that
    option (or without the range) deals any number of decks."""
    text = (spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8")
    option = "\n  decks:\n    summary: How many decks are shuffled together."
    assert text.count("  decks: {option: decks}") == 1 and text.count(option) == 1
    fixed = tmp_path / "no_decks_option.yaml"
    fixed.write_text(
        text.replace("  decks: {option: decks}", "  decks: auto").replace(option, option.replace("decks:", "deck_count:", 1)),
        encoding="utf-8",
    )
    g = Game(fixed, 200)
    assert "decks" not in g.edition.options
    assert (g.decks, len(g.deck)) == (12, 12 * 94)
    unbounded = tmp_path / "no_range.yaml"
    unbounded.write_text(text.replace("    integer: {minimum: 1, maximum: 8}\n", "", 1), encoding="utf-8")
    assert Game(unbounded, 200).decks == 12


@pytest.mark.rules("V-030")
def test_a_modifier_with_a_trait_takes_the_full_pipeline(tmp_path: Path) -> None:
    """score_points' fast path takes only modifiers without a trait: a house-rule -2 carrying
    The Zero's ``zero`` trait zeroes the line short of a Flip 7 (V-030), as the full pipeline says."""
    text = (spec_dir() / "editions" / "vengeance.yaml").read_text(encoding="utf-8")
    old = '  - {id: "-2", category: modifier, count: 1, modifier: {op: add, value: -2}, rules: [V-006, V-051]}'
    assert text.count(old) == 1
    path = tmp_path / "zero_minus_two.yaml"
    path.write_text(text.replace(old, old.replace("rules:", "traits: [zero], rules:")), encoding="utf-8")
    g = Game(path, 3)
    line = [g.code(c) for c in ("5", "6", "-2")]
    assert g.plain_modifier[g.code("-2")] is False and g.plain_modifier[g.code("-4")] is True
    assert score_line(g, line).score == 0
    assert score_points(g, line) == 0
    plain = Game("vengeance", 3)
    assert score_points(plain, [plain.code(c) for c in ("5", "6", "-2")]) == 9
