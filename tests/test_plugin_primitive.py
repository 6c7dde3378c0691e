"""A primitive added from outside the package: the Peek plug-in of tests/plugins.

``tests/plugins/peek_primitive.py`` (one module) and ``tests/plugins/peek.yaml`` (an
edition table naming its primitive) are all there is to Peek: this test uses the
package's public API only.  It checks that the game loads (and is refused, naming the
file and the card, when the primitive is not registered), that seeded games play to
the end, that states with a pending Peek serialize and reload, that a transcript
replays, that the explanation and the event texts tell the Peek events, that the RL
encoding encodes the Peek decision and that the table's views show it.
"""

from __future__ import annotations

import importlib
import random
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

import flip7ref
from flip7ref import Game, SerializationError, SpecError, State
from flip7ref.checking.replay import replay, transcript
from flip7ref.core.events import describe
from flip7ref.explore.steps import walk
from flip7ref.play.strategies import parse_strategy

PLUGINS = Path(__file__).parent / "plugins"
TABLE = PLUGINS / "peek.yaml"


@pytest.fixture(scope="module")
def peek() -> ModuleType:
    """The plug-in module, imported as a caller would (importing it registers Peek)."""
    if str(PLUGINS) not in sys.path:
        sys.path.insert(0, str(PLUGINS))
    return importlib.import_module("peek_primitive")


@pytest.fixture(scope="module")
def game(peek: ModuleType) -> Game:
    return Game(TABLE, 3)


def _at_peek(game: Game, top: str = "5", *, seed: Any = 0, lines: Any = None) -> State:
    """Seat 0 hits and draws Peek; the card below it (``top``) is on top of the pile."""
    s = game.new_position(lines=lines or {0: ["3"], 1: ["4"], 2: ["6"]}, draw=["peek", top], seed=seed, turn=0)
    s = s.apply("hit")
    return s.apply_chance("peek")


# --------------------------------------------------------------------------- the table


def _table_with(tmp_path: Path, effect: dict[str, Any]) -> Path:
    data = yaml.safe_load(TABLE.read_text(encoding="utf-8"))
    card = next(c for c in data["cards"] if c["id"] == "peek")
    card["effect"] = effect
    path = tmp_path / "peek.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_the_game_loads_and_the_card_has_the_plugins_effect(peek: ModuleType, game: Game) -> None:
    assert game.edition.id == "peek" and len(game.deck) == 94
    eff = game.effect[game.code("peek")]
    assert isinstance(eff, peek.Peek) and eff.primitive == "peek"
    assert eff.verbs == ("peek_keep", "peek_discard") and eff.decision_kinds == ("peek",)
    assert flip7ref.Action.parse("peek_keep") == peek.KEEP


def test_a_primitive_nobody_registered_is_refused_naming_the_file_and_the_card(peek: ModuleType, tmp_path: Path) -> None:
    path = _table_with(tmp_path, {"primitive": "glance"})
    with pytest.raises(SpecError) as err:
        Game(path, 3)
    assert err.value.file == str(path) and err.value.path == "/cards/19/effect/primitive"
    assert "no module registered 'glance'" in str(err.value) and "(card 'peek')" in str(err.value)
    assert "peek" in err.value.expected  # the registered primitives are named, the plug-in's among them


def test_a_parameter_the_primitive_does_not_read_is_refused(peek: ModuleType, tmp_path: Path) -> None:
    path = _table_with(tmp_path, {"primitive": "peek", "count": 3})
    with pytest.raises(SpecError) as err:
        Game(path, 3)
    assert err.value.path == "/cards/19/effect/count"
    assert err.value.expected == "a parameter of primitive 'peek' (self_target, targets) (card 'peek')"


def test_the_schema_still_closes_the_shipped_primitives_and_refuses_malformed_names(tmp_path: Path) -> None:
    with pytest.raises(SpecError):  # a shipped primitive with a parameter of nobody's
        Game(_table_with(tmp_path, {"primitive": "freeze", "colour": "blue"}), 3)
    with pytest.raises(SpecError):  # not a primitive's name at all
        Game(_table_with(tmp_path, {"primitive": "Peek!"}), 3)


# --------------------------------------------------------------------------- play


def test_peek_keep_puts_the_card_into_the_line_through_the_receiving_rules(game: Game) -> None:
    s = _at_peek(game, "5")
    assert s.current_player == flip7ref.CHANCE and s.pending() == ("chance", None)
    assert dict(s.chance_weights())["5"] == 5 and s.next_card() == "5"
    s = s.apply_chance("5")
    assert s.current_player == 0 and s.pending() == ("peek", "5")
    assert s.legal_action_strings() == ["peek_keep", "peek_discard"]
    kept = s.apply("peek_keep")
    assert kept.line(0) == ["3", "5"] and kept.current_player == 1
    assert [e.type for e in kept.last_events()] == ["peek_kept"]
    assert kept.discard[-1] == game.code("peek")  # Peek is discarded after use
    tossed = s.apply("peek_discard")
    assert tossed.line(0) == ["3"] and tossed.discard[-2:] == (game.code("peek"), game.code("5"))
    # a kept duplicate busts, as a drawn one would (F7-040)
    bust = _at_peek(game, "3").apply_chance("3").apply("peek_keep")
    assert bust.status(0) is flip7ref.Status.BUSTED
    assert [e.type for e in bust.last_events()] == ["peek_kept", "busted"]


def test_peek_on_an_empty_pile_does_nothing_with_an_event(game: Game) -> None:
    s = game.new_position(lines={0: ["3"]}, draw=["peek"], rest="out", seed=0, turn=0)
    s = s.apply("hit").apply_chance("peek")
    texts = [describe(e, game) for e in s.last_events()]
    assert texts == ["seat 0 hits and gets Peek!", "seat 0's Peek! finds the draw pile empty"]
    assert s.line(0) == ["3"] and s.discard == (game.code("peek"),) and s.frames == () and s.current_player == 1


def test_an_open_state_draws_the_card_looked_at_by_chance(game: Game) -> None:
    s = _at_peek(game, "5", seed=None)
    weights = dict(s.chance_weights())
    assert s.is_chance_node() and weights["5"] == 5 and sum(weights.values()) == len(s.draw)
    after = s.apply_chance("12")
    assert after.pending() == ("peek", "12") and after.current_player == 0


def _play(game: Game, seed: int, strategy: Any = None) -> State:
    rng = random.Random(seed)
    s = game.new_initial_state(seed=seed)
    moves = 0
    while not s.is_terminal():
        if s.is_chance_node():
            s = s.apply_chance(s.sample_chance(rng))
        elif strategy is not None:
            s = s.apply(strategy.choose(s, rng))
        else:
            s = s.apply(rng.choice(s.legal_actions()))
        moves += 1
        assert sum(s.cards_in_play().values()) == len(game.deck)  # no card made or lost
        assert moves < 20_000
    return s


def test_seeded_random_games_play_to_the_end(game: Game) -> None:
    counts: Counter[str] = Counter()
    for seed in range(12):
        end = _play(game, seed)
        assert end.is_terminal() and max(end.totals) >= 200 and end.winners
        counts.update(e.type for e in end.events() if e.type.startswith("peek"))
    assert counts["peeked"] > 20 and counts["peek_kept"] > 5 and counts["peek_discarded"] > 5
    # every card looked at is kept or discarded, unless the round ends first (a Flip 7 in between)
    assert counts["peek_kept"] + counts["peek_discarded"] <= counts["peeked"]
    again = _play(game, 3)
    assert again == _play(game, 3) and again.history() == _play(game, 3).history()  # seeded: the same game


def test_the_threshold_strategy_decides_a_peek_by_looking_ahead(game: Game) -> None:
    s = _at_peek(game, "5").apply_chance("5")
    assert str(parse_strategy("threshold:25").choose(s, random.Random(0))) == "peek_keep"  # 5 points more
    bust = _at_peek(game, "3").apply_chance("3")
    assert str(parse_strategy("threshold:25").choose(bust, random.Random(0))) == "peek_discard"  # keeping busts
    end = _play(game, 5, parse_strategy("threshold:20"))
    assert end.is_terminal()


# --------------------------------------------------------------------------- serialization and replay


def test_states_with_a_pending_peek_serialize_and_reload(game: Game) -> None:
    for s in (_at_peek(game, "5"), _at_peek(game, "5").apply_chance("5")):
        data = s.to_dict()
        again = State.from_dict(data, game)
        assert again == s and again.history() == s.history() and again.pending() == s.pending()
    data = _at_peek(game, "5").apply_chance("5").to_dict()
    assert data["frames"][-1] == {"frame": "peek", "card": "peek", "seat": 0, "top": ["5"]}
    for seed in range(3):  # every state of a random game
        states = _play(game, seed).replay()
        pending = [st for st in states if st.frames and st.frames[-1].name == "peek"]
        assert pending
        for st in pending:
            assert State.from_dict(st.to_dict(log=False), game) == st


def test_a_malformed_peek_frame_is_refused_with_its_field(game: Game) -> None:
    data = _at_peek(game, "5").apply_chance("5").to_dict(log=False)
    data["frames"][-1]["card"] = "flip_three"
    with pytest.raises(SerializationError, match=r"frames/0/card: expected a Peek card"):
        State.from_dict(data, game)
    data = _at_peek(game, "5").apply_chance("5").to_dict(log=False)
    data["frames"][-1]["top"] = ["5", "6"]
    with pytest.raises(SerializationError, match=r"frames/0/top: expected at most one card"):
        State.from_dict(data, game)
    data["frames"][-1]["top"] = ["5"]
    data["frames"][-1]["seat"] = 7
    with pytest.raises(SerializationError, match=r"frames/0/seat: expected a seat 0..2"):
        State.from_dict(data, game)


def test_a_transcript_of_a_peek_game_replays(game: Game) -> None:
    end = _play(game, 1)
    assert end.replay()[-1] == end
    data = transcript(end)
    assert any(step.get("action") in ("peek_keep", "peek_discard") for step in data["steps"])
    result = replay(data, edition=TABLE)
    assert result.agrees and result.message == "agrees" and result.totals == end.totals
    with pytest.raises(flip7ref.OptionError, match="unknown edition 'peek'"):
        replay(data)  # a path is never taken from the data: the caller gives the table
    data["steps"][-1] = {"seat": 0, "action": "peek_keep"}
    assert not replay(data, edition=TABLE).agrees


# --------------------------------------------------------------------------- explanation, RL, the table


def test_the_explanation_tells_the_peek_events_with_their_rules(game: Game) -> None:
    start = _at_peek(game, "5")
    states = [start, start.apply_chance("5")]
    states.append(states[-1].apply("peek_keep"))
    steps = walk(states, ["chance 5", "peek_keep"])
    assert steps[0].words == "the position starts"  # the history up to the Peek drawn
    assert steps[1].words == "card drawn: 5"
    assert steps[1].events == (("seat 0 peeks with Peek! and sees 5", ("F7-035",)),)
    assert steps[2].words == "seat 0 looks at 5 on top of the draw pile and chooses peek_keep (legal: peek_keep, peek_discard)"
    assert steps[2].events == (("seat 0 keeps 5", ("F7-035",)),)
    tossed = states[1].apply("peek_discard")
    assert [describe(e, game) for e in tossed.last_events()] == ["seat 0 discards 5 unseen by the others"]


def test_the_rl_encoding_encodes_the_peek_decision(game: Game) -> None:
    np = pytest.importorskip("numpy", reason="the RL encoding's arrays need the rl extra (numpy)")
    from flip7ref.rl.actions import ActionIndex
    from flip7ref.rl.encoding import DECISION_KINDS, ObservationEncoder

    index = ActionIndex(game)
    assert index.blocks == {"hit": (0, 1), "stay": (1, 1), "target": (2, 3), "peek_keep": (5, 1), "peek_discard": (6, 1)}
    s = _at_peek(game, "5").apply_chance("5")
    assert index.legal_indices(s) == [5, 6] and index.mask_array(s).tolist() == [0, 0, 0, 0, 0, 1, 1]
    assert index.decode(s, 5) == flip7ref.Action("peek_keep") and index.describe(6) == "peek_discard"
    obs = ObservationEncoder(game)
    assert obs.decision_kinds == (*DECISION_KINDS, "peek")
    vector = np.asarray(obs.encode(s, 0), dtype=np.float32)
    start, size = obs.sections["decision"]
    assert size == 10 and vector[start : start + size].tolist() == [0.0] * 9 + [1.0]
    card_start, _ = obs.sections["decision_card"]
    assert vector[card_start + game.code("5")] == 1.0
    # a game of the shipped primitives keeps its layout with the plug-in loaded
    plain = Game("flip7", 3)
    assert ObservationEncoder(plain).decision_kinds == DECISION_KINDS
    assert ActionIndex(plain).size == 5 and list(ActionIndex(plain).blocks) == ["hit", "stay", "target"]
    vengeance = ActionIndex(Game("vengeance", 3))
    k = len(vengeance.line_kinds)
    assert vengeance.blocks == {
        "hit": (0, 1), "stay": (1, 1), "target": (2, 3), "steal": (5, 3 * k), "discard": (5 + 3 * k, 3 * k),
        "swap": (5 + 6 * k, 3 * k * k),
    }  # fmt: skip


def test_the_table_views_show_the_decision_generically(game: Game) -> None:
    from flip7ref.table.views import action_view, pending_view

    s = _at_peek(game, "5").apply_chance("5")
    assert [action_view(s, a) for a in s.legal_action_strings()] == [
        {"action": "peek_keep", "verb": "peek_keep", "args": [], "label": "peek keep"},
        {"action": "peek_discard", "verb": "peek_discard", "args": [], "label": "peek discard"},
    ]
    assert pending_view(s) == {"kind": "peek", "card": "5", "text": "looks at 5 on top of the draw pile and chooses ..."}
    offer = game.new_position(lines={0: ["3"]}, draw=["5"], seed=0)
    assert pending_view(offer) == {"kind": "offer", "card": None}  # the interpreter's own kinds: the page's labels
