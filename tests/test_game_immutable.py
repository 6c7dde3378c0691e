"""A Game, an Edition and everything reachable from a State are immutable values.

No plug-in can change the rules behind the reference's back: every public attribute
of a `Game`, an `Edition` (and its cards, options, rules), a `State`, its players,
pending frames and events refuses assignment, every mapping among them is read-only
(`types.MappingProxyType`) and no list, dict or set is reachable.  The shipped
tables are cached and shared, so the cache must not be corruptible either.
"""

from __future__ import annotations

import pickle
import random
from collections.abc import Iterator, Mapping
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import Any

import attrs
import pytest

from flip7ref import Game, State
from flip7ref.core.frames import Frame
from flip7ref.core.spec import load_edition

MUTABLE = (dict, list, set, bytearray)


def _public(obj: object) -> list[str]:
    """The public data attributes of ``obj`` (no methods, no properties)."""
    names = []
    for name in dir(obj):
        if name.startswith("_"):
            continue
        if isinstance(getattr(type(obj), name, None), property):
            continue
        if callable(getattr(obj, name)):
            continue
        names.append(name)
    return names


def _mutable_parts(root: object, where: str) -> Iterator[str]:
    """The paths of every mutable container reachable from ``root`` (through read-only
    mappings, tuples, frozensets, attrs values, frames, named tuples)."""
    seen: set[int] = set()
    stack: list[tuple[object, str]] = [(root, where)]
    while stack:
        value, path = stack.pop()
        if id(value) in seen or isinstance(value, (str, bytes, int, float, bool, type(None), Enum, Path)):
            continue
        seen.add(id(value))
        if isinstance(value, MUTABLE):
            yield f"{path} ({type(value).__name__})"
            continue
        if isinstance(value, (MappingProxyType, Mapping)):
            stack.extend((v, f"{path}[{k!r}]") for k, v in value.items())
        elif isinstance(value, (tuple, frozenset)):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(value))
        elif attrs.has(type(value)):
            stack.extend((getattr(value, f.name), f"{path}.{f.name}") for f in attrs.fields(type(value)))
        elif isinstance(value, Frame):
            stack.extend((v, f"{path}.{n}") for n, v in zip(value.FIELDS, value.key(), strict=True))


def _refuses_every_assignment(obj: object, names: list[str]) -> None:
    for name in names:
        before = getattr(obj, name)
        with pytest.raises(AttributeError):
            setattr(obj, name, 1000)
        assert getattr(obj, name) is before, name
    with pytest.raises(AttributeError):
        obj.plugin_note = "x"  # type: ignore[attr-defined]


def _refuses_item_assignment(mapping: Mapping[Any, Any]) -> None:
    key = next(iter(mapping))
    with pytest.raises(TypeError):
        mapping[key] = 1000  # type: ignore[index]
    with pytest.raises((TypeError, AttributeError)):
        mapping.pop(key)  # type: ignore[attr-defined]
    with pytest.raises((TypeError, AttributeError)):
        mapping.update({key: 1000})  # type: ignore[attr-defined]


GAMES = [
    Game("flip7", 4),
    Game("flip7", 3, {"reshuffles": "unlimited", "tie": "shared-win"}),
    Game("vengeance", 3, {"brutal": "true"}),
]


@pytest.mark.parametrize("game", GAMES, ids=str)
def test_a_game_refuses_every_assignment_and_its_mappings_are_read_only(game: Game) -> None:
    names = _public(game)
    assert {"target_score", "tie", "options", "flip7_bonus", "edition", "deck", "effect", "codes"} <= set(names)
    _refuses_every_assignment(game, names)
    for name in ("target_score", "tie"):
        with pytest.raises(AttributeError):
            delattr(game, name)
    _refuses_item_assignment(game.options)
    _refuses_item_assignment(game.codes)
    assert list(_mutable_parts(game.__reduce__()[1][:2], "game")) == []  # its edition and player count
    assert [p for n in names for p in _mutable_parts(getattr(game, n), f"game.{n}")] == []
    assert Game(game.edition, game.players, dict(game.options)) == game


@pytest.mark.parametrize("edition_id", ["flip7", "vengeance"])
def test_an_edition_refuses_every_assignment_and_holds_nothing_mutable(edition_id: str) -> None:
    edition = load_edition(edition_id)
    fields = [f.name for f in attrs.fields(type(edition))]
    _refuses_every_assignment(edition, fields)
    for name in ("thresholds", "round", "game_end", "options", "rules", "disputes", "sources", "event_rules"):
        mapping = getattr(edition, name)
        assert isinstance(mapping, MappingProxyType), name
        if mapping:
            _refuses_item_assignment(mapping)
    _refuses_item_assignment(edition.scoring[0])
    for card in edition.cards:
        _refuses_every_assignment(card, [f.name for f in attrs.fields(type(card))])
        if card.effect:
            _refuses_item_assignment(card.effect)
    for spec in edition.options.values():
        _refuses_every_assignment(spec, [f.name for f in attrs.fields(type(spec))])
    assert list(_mutable_parts(edition, edition_id)) == []


def test_the_edition_cache_cannot_be_corrupted() -> None:
    """Before: ``load_edition("flip7").thresholds["flip7_bonus"] = 1000`` made every later Game
    score a Flip 7 +1000."""
    edition = load_edition("flip7")
    with pytest.raises(TypeError):
        edition.thresholds["flip7_bonus"] = 1000  # type: ignore[index]
    with pytest.raises(TypeError):
        edition.round["empty_deck"] = "end-round"  # type: ignore[index]
    with pytest.raises(AttributeError):
        edition.thresholds = {"flip7_bonus": 1000}  # type: ignore[misc]
    assert load_edition("flip7") is edition and edition.thresholds["flip7_bonus"] == 15
    game = Game("flip7", 2)
    assert game.flip7_bonus == 15
    state = game.new_position(turn=0, lines={0: ["0", "1", "2", "3", "4", "5"]}, draw=["6"])
    assert state.apply("hit").apply_chance("6").last_scores == (21 + 15, 0)


def test_games_of_a_table_edited_in_between_differ(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two games of one table path compare equal only while the file is the same: after an
    edit (here three copies of 12 fewer), the new game differs from the old, whose caches
    keyed by game (the lone scores of `flip7ref.core.position`, a solver's tables) would
    otherwise answer for the other deck; a pickled game stays equal to itself."""
    monkeypatch.setenv("FLIP7REF_NO_CACHE", "1")
    table = tmp_path / "house.yaml"
    text = (Path(load_edition("flip7").path)).read_text(encoding="utf-8")
    table.write_text(text, encoding="utf-8")
    before, again = Game(str(table), 3), Game(str(table), 3)
    assert before == again and hash(before) == hash(again)
    assert pickle.loads(pickle.dumps(before)) == before
    assert "count: 12" in text
    table.write_text(text.replace("count: 12", "count: 9", 1), encoding="utf-8")
    after = Game(str(table), 3)
    assert len(after.deck) == len(before.deck) - 3
    assert after != before
    assert before.edition.digest and after.edition.digest != before.edition.digest


def test_an_edition_pickles_and_comes_back_frozen() -> None:
    edition = load_edition("vengeance")
    back = pickle.loads(pickle.dumps(edition))
    assert back.id == edition.id and back.thresholds == edition.thresholds
    assert isinstance(back.thresholds, MappingProxyType) and list(_mutable_parts(back, "back")) == []
    game = pickle.loads(pickle.dumps(Game(edition, 3)))
    assert game == Game("vengeance", 3) and isinstance(game.options, MappingProxyType)


def _states() -> list[State]:
    """States of a few random games of both editions: every kind of pending frame occurs."""
    out = []
    for game in GAMES:
        for seed in range(6):
            rng = random.Random(seed)
            s = game.new_initial_state(seed=seed)
            for _ in range(400):
                if s.is_terminal():
                    break
                out.append(s)
                s = s.apply_chance(s.sample_chance(rng)) if s.is_chance_node() else s.apply(rng.choice(s.legal_actions()))
    return out


def test_everything_reachable_from_a_state_refuses_assignment() -> None:
    states = _states()
    kinds = {type(f).__name__ for s in states for f in s.frames}
    assert {"Deal", "Draw", "ChooseTarget", "ForcedDraw"} <= kinds
    done: set[str] = set()
    for i, s in enumerate(states):
        if i % 7 == 0:
            _refuses_every_assignment(s, ["game", "players", "draw", "frames", "round", "totals", "winners", "turn"])
            assert list(_mutable_parts(s._fields()[1:-1], "state")) == []  # every field but the game (above) and the log
            for p in s.players:
                _refuses_every_assignment(p, list(p._fields))
        for f in s.frames:
            if type(f).__name__ not in done:
                done.add(type(f).__name__)
                for name in f.FIELDS:
                    before = getattr(f, name)
                    with pytest.raises(AttributeError):
                        setattr(f, name, 3)
                    assert getattr(f, name) == before
                with pytest.raises(AttributeError):
                    delattr(f, f.FIELDS[0])
        for e in s.last_events():
            _refuses_every_assignment(e, list(e._fields))
            assert list(_mutable_parts(e, "event")) == []
    assert done == kinds


def test_a_game_anywhere_is_the_game_class_over_its_tables() -> None:
    """`Game` subclasses `GameTables` (issue 43): the states a game builds, a pickled game and a
    game read from JSON are all of class `Game`, so ``game_of`` gives them back typed; a state
    holding bare tables is refused by name."""
    from flip7ref.core.game import game_of
    from flip7ref.core.game_tables import GameTables

    game = Game("vengeance", 3, {"brutal": "true"})
    s = game.new_initial_state(seed=4)
    again = pickle.loads(pickle.dumps(game))
    read = State.from_dict(s.to_dict())
    assert type(game) is Game and issubclass(Game, GameTables)
    assert type(s.game) is Game and type(again) is Game and type(read.game) is Game
    assert again == game and hash(again) == hash(game) and read.game == game
    assert repr(game) == "Game('vengeance', players=3, options={'brutal': 'true'})"
    assert game_of(s) is s.game and game_of(read) is read.game
    bare = State(GameTables("vengeance", 3, {"brutal": "true"}), *s._fields()[1:])
    with pytest.raises(TypeError) as info:
        game_of(bare)
    assert str(info.value) == "state.game: expected a flip7ref.Game, got GameTables"
