"""Every event the interpreter can emit is narrated in each of the page's five languages.

The event types and their details (the ``reason`` of ``stayed``/``discarded``, the
``outcome`` of ``forced_draw_ended``) are read from the interpreter's source
(every ``emit(...)`` and ``Event(...)`` in ``flip7ref/core/state.py``) and from the
editions' event tables, never from a hand list, so a new event type fails here
until it has a template in ``flip7ref/table/static/events.json``.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from pathlib import Path
from typing import Any

import pytest

import flip7ref.core.state
from flip7ref.core import events
from flip7ref.core.game import Game
from flip7ref.core.spec import load_edition
from flip7ref.core.state import Event
from flip7ref.core.text import describe
from flip7ref.table.narration import _name_seats
from flip7ref.table.session import LANGS, TableGame

TEMPLATES: dict[str, dict[str, str]] = json.loads(
    (Path(flip7ref.table.session.__file__).parent / "static" / "events.json").read_text(encoding="utf-8")
)
DETAILED = {"stayed": "reason", "discarded": "reason", "forced_draw_ended": "outcome"}


def _emitted() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """``(type -> data keys, type -> literal details)`` of every event the interpreter emits.

    Every event is built by its constructor in flip7ref.core.events, whose parameters are the
    event's data keys; the literal details (a reason, an outcome) are the constant
    arguments the interpreter's modules pass to those constructors (or to the forced
    draw's ``finish``)."""
    keys: dict[str, set[str]] = {}
    for name, fn in vars(events).items():
        public = callable(fn) and getattr(fn, "__module__", "") == events.__name__ and not name.startswith("_")
        if public and name != "make" and inspect.signature(fn).return_annotation in ("Event", Event):
            keys[name] = set(inspect.signature(fn).parameters)
    position = {"discarded": 2, "stayed": 1, "forced_draw_ended": 2}
    details: dict[str, set[str]] = {t: set() for t in DETAILED}
    package = Path(flip7ref.core.state.__file__).parent
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in position and len(node.args) > position[name]:
                arg = node.args[position[name]]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    details[name].add(arg.value)
            elif name == "finish" and len(node.args) == 2 and isinstance(node.args[1], ast.Constant):
                details["forced_draw_ended"].add(node.args[1].value)
    return keys, details


KEYS, DETAILS = _emitted()
for _ed in ("flip7", "vengeance"):
    _edition = load_edition(_ed)
    _cards = {c.id for c in _edition.cards} | {c.category for c in _edition.cards}
    for _key in _edition.event_rules:  # TYPE[/DETAIL], TYPE@FIELD, TYPE<CAUSE (the blame's entries)
        if any(mark in _key for mark in "@<#|"):  # TYPE#TAG, TYPE|OTHER: the blame's situation keys
            _key = re.split(r"[@<#|]", _key)[0]
        _type, _, _detail = _key.partition("/")
        KEYS.setdefault(_type, set())
        if _type in DETAILED and _detail and _detail not in _cards:
            DETAILS[_type].add(_detail)
DETAILS["stayed"].add("card")  # a card id as the reason: stays after a Freeze or a forced draw


def _samples(game: Game) -> list[Event]:
    """One event of every type (and every detail), with the keys the interpreter emits."""
    number = next(c.id for c in game.edition.cards if c.category == "number")
    action = next(c.id for c in game.edition.cards if c.category == "action")
    plain: dict[str, Any] = {
        "seat": 1, "target": 2, "by": 0, "first": 0, "second": 2, "dealer": 0, "card": number, "shield": action,
        "first_card": number, "second_card": number, "count": 3, "cards": (number, number), "round": 2,
        "scores": (1, 2, 3), "totals": (4, 5, 6), "flip7": None, "leaders": (0, 2), "winners": (1,), "rounds": 3,
        "points": 15, "via": "deal", "reason": None, "outcome": "complete",
    }  # fmt: skip
    out = []
    for type_, keys in sorted(KEYS.items()):
        variants: list[dict[str, Any]] = [{}]
        if type_ == "dealt":
            variants = [{"via": "deal"}, {"via": "hit"}, {"via": action}]
        elif type_ in DETAILED:
            field = DETAILED[type_]
            variants = [{field: action if d == "card" else d} for d in sorted(DETAILS[type_])]
            if type_ == "stayed":
                variants.append({})
        elif type_ == "flip7_bonus_chosen":
            variants = [{"points": 15}, {"points": -15}]
        elif type_ == "game_won":
            variants = [{"winners": (1,)}, {"winners": (0, 2)}]
        for v in variants:
            data = {k: plain[k] for k in sorted(keys) if k in plain} | v
            out.append(Event(type_, tuple(data.items())))
    return out


def test_the_event_vocabulary_is_read_from_the_interpreter() -> None:
    # the derivation itself can fail: these come from the source and the tables, not from this file
    assert {"reshuffled", "tie_another_round", "set_aside", "assigned", "line_wiped", "forced_draw_ended"} <= set(KEYS)
    assert {"complete", "bust", "exhausted", "round ended"} <= DETAILS["forced_draw_ended"]
    assert {"busted", "no valid target", "round ended", "target busted"} <= DETAILS["discarded"]
    assert "empty deck" in DETAILS["stayed"]


@pytest.mark.parametrize("edition", ["flip7", "vengeance"])
@pytest.mark.parametrize("lang", LANGS)
def test_every_event_has_a_template_in_every_language(tmp_path: Path, edition: str, lang: str) -> None:
    tg = TableGame.create(tmp_path, {"edition": edition, "names": ["Ann", "Bob", "Cy"], "lang": lang})
    missing, bad = [], []
    for event in _samples(tg.game):
        english = describe(event, tg.game, "en")
        assert not re.fullmatch(rf"{event.type}( \w+=.*)?", english), f"text.describe has no words for {event}"
        text = tg.describe(event)
        if lang != "en":
            key = TableGame.template_key(event, tg.game)
            if key not in TEMPLATES[lang]:
                missing.append(key)
                continue
            if text == _name_seats(english, tg.names):
                bad.append(f"{key}: still English: {text}")
        if "{" in text or re.search(r"\bseats? \d", text):
            bad.append(f"{event.type}: unfilled: {text}")
    assert not missing, f"{lang}: no template for {sorted(set(missing))}"
    assert not bad, bad


@pytest.mark.parametrize(
    ("lang", "text"),
    [("en", "Bob's Flip Three ends (round ended)"), ("nl", "Flip Three van Bob vervalt: de ronde is voorbij"),
     ("de", "Flip Three von Bob entfällt: die Runde ist vorbei"), ("fr", "Flip Three de Bob tombe : la manche est finie"),
     ("no", "Flip Three for Bob faller bort: runden er over")],
)  # fmt: skip
def test_a_forced_draw_cut_short_by_the_round_end_is_narrated(tmp_path: Path, lang: str, text: str) -> None:
    tg = TableGame.create(tmp_path, {"edition": "flip7", "names": ["Ann", "Bob", "Cy"], "lang": lang})
    event = Event("forced_draw_ended", (("seat", 1), ("card", "flip_three"), ("outcome", "round ended")))
    assert tg.describe(event) == text.replace("Flip Three", tg.game.edition.card("flip_three").name(lang))
