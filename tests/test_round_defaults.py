"""A round or game-end key is one declaration: its default lives in the edition schema only.

`flip7ref.core.spec.parse_edition` fills in the ``default`` of each key of ``round`` and
``game_end`` that a table leaves out (spec/schema/edition.schema.json), so `flip7ref.Game`
reads ``rnd[key]`` and ``end[key]`` and never restates a default as a ``.get(key, literal)``
fallback (issue 43 item 5).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from flip7ref import Game
from flip7ref.core import game_tables as game_module
from flip7ref.core.edition_check import _literal_schema
from flip7ref.core.schema import load_schema, section_defaults, strict_validator
from flip7ref.core.spec import load_edition, spec_dir

_SECTIONS = {"rnd": "round", "end": "game_end"}
"""The local names `Game.__init__` gives the resolved sections."""


def _init_tree() -> ast.FunctionDef:
    tree = ast.parse(Path(game_module.__file__).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "GameTables":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    return item
    raise AssertionError("no GameTables.__init__ in flip7ref/core/game_tables.py")


def _reads(init: ast.FunctionDef) -> dict[str, set[str]]:
    """The keys `Game.__init__` reads by subscript from each resolved section."""
    found: dict[str, set[str]] = {section: set() for section in _SECTIONS.values()}
    for node in ast.walk(init):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in _SECTIONS
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            found[_SECTIONS[node.value.id]].add(node.slice.value)
    return found


def _fallbacks(source: str) -> list[str]:
    """Every ``X.get(KEY, FALLBACK)`` on a resolved section or an edition's ``round``/``game_end``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"):
            continue
        owner = node.func.value
        on_section = (isinstance(owner, ast.Name) and owner.id in _SECTIONS) or (
            isinstance(owner, ast.Attribute) and owner.attr in _SECTIONS.values()
        )
        if on_section and (len(node.args) > 1 or node.keywords):
            found.append(ast.unparse(node))
    return found


def test_game_restates_no_default_of_a_round_or_game_end_key() -> None:
    """No ``rnd.get(key, literal)`` (or ``end.get``, ``ed.round.get``) fallback in game.py."""
    assert _fallbacks(Path(game_module.__file__).read_text(encoding="utf-8")) == []


def test_the_fallback_scan_finds_a_restated_default() -> None:
    """The scan above catches the shapes it forbids (the scan itself can fail)."""
    source = (
        'a = rnd.get("early_cards", "skip")\n'
        'b = end.get("tie", default="another-round")\n'
        'c = ed.round.get("reshuffles", 1)\n'
        'd = rnd["early_cards"]\n'
        'e = values.get("set_aside", ())\n'
    )
    assert _fallbacks(source) == [
        "rnd.get('early_cards', 'skip')",
        "end.get('tie', default='another-round')",
        "ed.round.get('reshuffles', 1)",
    ]


@pytest.mark.parametrize("section", ["round", "game_end"])
def test_every_key_the_interpreter_reads_has_exactly_one_declared_default(section: str) -> None:
    """Each key Game reads is a property of the schema's section, and either required (the
    table must say it: no default anywhere) or optional with a ``default`` in the schema."""
    schema = load_schema("edition")["properties"][section]
    props, required = schema["properties"], set(schema.get("required", ()))
    defaults = section_defaults("edition", section)
    reads = _reads(_init_tree())[section]
    assert reads, section
    assert reads <= set(props), sorted(reads - set(props))
    assert not (required & set(defaults)), sorted(required & set(defaults))  # a required key has no default
    assert set(props) - required == set(defaults)  # every optional key has its one default
    assert reads == set(props)  # every key the schema declares is read (none declared for nothing)


@pytest.mark.parametrize("section", ["round", "game_end"])
def test_each_schema_default_is_a_value_the_key_takes(section: str) -> None:
    schema = load_schema("edition")
    for key, value in section_defaults("edition", section).items():
        literal = _literal_schema(schema, section, key)
        assert literal is not None
        assert strict_validator()(literal).is_valid(value), (key, value)


def test_the_round_defaults_are_these() -> None:
    """The declared defaults (the base Flip 7 rules, and the option defaults of D-F7-16 and D-F7-30)."""
    assert section_defaults("edition", "round") == {
        "early_cards": "offer",  # D-F7-16, D-V-24: option deal_after_early_cards' default
        "modifier_targets": "non_busted",
        "flip7_bonus_to": "maker",
        "flip7_counts": "distinct",
        "busted_score": "zero",
        "flip7_choice": False,
        "early_second_chance": "deal",
        "set_aside_order": "queue",
        "reshuffles": "unlimited",  # D-F7-30, D-V-30: option reshuffles' default
        "zero_after_stay": "general-rules",
        "busted_cards": "keep",
        "unusable_actions": "refuse",
        "zero_with_negatives": "zero",
        "busted_modifiers": "all-negatives",
        "wipe_set_aside": "survives",
        "late_bust": "all",
        "penalty_targets": "any-player",  # D-V-34, option brutal_penalty's default
        "barred_own_flip_four": "barred",  # D-V-35, option zero_own_flip_four's default
        "moved_card_place": "end",  # D-V-36, option moved_card_place's default
    }
    assert section_defaults("edition", "game_end") == {}


@pytest.mark.parametrize("edition", ["flip7", "vengeance"])
def test_a_loaded_edition_holds_every_round_key(edition: str) -> None:
    """The loader fills in what the table leaves out; what the table says is kept."""
    ed = load_edition(edition)
    props = load_schema("edition")["properties"]["round"]["properties"]
    assert set(ed.round) == set(props)
    text = (spec_dir() / "editions" / f"{edition}.yaml").read_text(encoding="utf-8")
    for key, value in section_defaults("edition", "round").items():
        if f"\n  {key}:" not in text:
            assert ed.round[key] == value, key


@pytest.mark.rules("F7-025", "F7-116")
def test_an_option_default_agrees_with_the_schema_default_of_its_key() -> None:
    """Where a shipped table sets an optional round key straight from an option (``{option: NAME}``,
    no ``values``), the option's default reading is the key's schema default, or the edition
    deliberately differs; the deliberate differences are listed here (Vengeance's own rules)."""
    differs = set()
    defaults = section_defaults("edition", "round")
    for edition in ("flip7", "vengeance"):
        ed = load_edition(edition)
        game = Game(edition, 3)
        for key, raw in ed.round.items():
            if key in defaults and hasattr(raw, "get") and "values" not in raw:
                chosen = game.options[raw["option"]]
                if chosen != defaults[key]:
                    differs.add((edition, key, chosen))
    assert differs == {
        ("vengeance", "zero_after_stay", "no-flip7"),  # V-038: The Zero is Vengeance's
        ("vengeance", "unusable_actions", "fizzle"),  # V-048
        ("vengeance", "busted_modifiers", "given-after-bust"),  # V-084 (Brutal Mode)
    }
