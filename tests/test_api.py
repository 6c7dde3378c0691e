"""The interpreter's public contract: errors, determinism, purity, serialization."""

from __future__ import annotations

import json
import random

import pytest

from flip7ref import CHANCE, Action, Game, IllegalActionError, SerializationError, State, Status
from flip7ref.play.games import play
from flip7ref.play.strategies import RandomStrategy, ThresholdStrategy


def _offer() -> State:
    return Game("flip7", 3).new_position(turn=1, lines={1: ["5"]}, draw=["7"])


def test_illegal_action_names_action_and_legal_ones() -> None:
    """Applying an action that is not legal raises IllegalActionError naming both."""
    s = Game("flip7", 3).new_position(turn=1)
    with pytest.raises(IllegalActionError) as info:
        s.apply("stay")  # seat 1 holds no card (F7-033)
    assert info.value.action == "stay"
    assert info.value.legal == ("hit",)
    assert "'stay'" in str(info.value) and "hit" in str(info.value)


def test_actions_at_chance_and_chance_at_decision_are_illegal() -> None:
    """A decision at a chance node, or a card at a decision node, is refused."""
    s = _offer().apply("hit")
    assert s.current_player == CHANCE
    with pytest.raises(IllegalActionError, match="a card must be drawn first"):
        s.apply("hit")
    with pytest.raises(IllegalActionError, match="not a chance node"):
        _offer().apply_chance("7")
    with pytest.raises(IllegalActionError, match="not in the draw pile"):
        Game("flip7", 3).new_position(turn=1, draw=["7"], rest="out").apply("hit").apply_chance("8")


@pytest.mark.parametrize("text", ["jump", "target", "target x", "hit 3", ""])
def test_malformed_action_strings(text: str) -> None:
    """Action.parse rejects unknown verbs and wrong arguments."""
    with pytest.raises(IllegalActionError):
        Action.parse(text)


def test_action_strings_round_trip() -> None:
    """Every action's string form parses back to the same action."""
    for action in (Action("hit"), Action("stay"), Action("target", (3,))):
        assert Action.parse(str(action)) == action


def test_states_are_immutable_values() -> None:
    """apply returns a new state and leaves the old one unchanged."""
    s = _offer()
    before = s.to_dict()
    t = s.apply("hit").apply_chance("7")
    assert s.to_dict() == before
    assert t.line(1) == ["5", "7"] and s.line(1) == ["5"]
    with pytest.raises(AttributeError):
        s.turn = 2  # type: ignore[misc]


@pytest.mark.parametrize("edition", ["flip7", "vengeance"])
def test_same_seed_same_game_despite_global_random(edition: str) -> None:
    """A seeded game's course does not depend on the global random module (the RLCard check)."""
    game = Game(edition, 4)

    def run(noise: bool) -> list[str]:
        state = game.new_initial_state(seed=99)
        rng = random.Random(5)
        while not state.is_terminal():
            if noise:
                random.random()
                random.shuffle(list(range(10)))
            if state.is_chance_node():
                state = state.apply_chance(state.sample_chance())
            else:
                state = state.apply(RandomStrategy().choose(state, rng))
        return state.history()

    random.seed(1)
    first = run(False)
    random.seed(2)
    assert run(True) == first


def test_different_seeds_differ() -> None:
    """Two seeds give two different piles."""
    game = Game("flip7", 4)
    assert game.new_initial_state(seed=1).draw != game.new_initial_state(seed=2).draw


def test_open_state_needs_an_rng() -> None:
    """An unseeded (open) state has no order: sampling needs an rng."""
    s = Game("flip7", 2).new_initial_state()
    assert s.next_card() is None
    with pytest.raises(IllegalActionError):
        s.sample_chance()
    card = s.sample_chance(random.Random(3))
    assert card in {c for c, _ in s.chance_outcomes()}


def test_serialization_round_trip_and_errors() -> None:
    """to_dict/from_dict round-trip a finished game; malformed data is refused clearly."""
    game = Game("flip7", 3, {"tie": "shared-win"})
    final = play(game.new_initial_state(seed=3), [ThresholdStrategy(15)], random.Random(0))
    data = json.loads(json.dumps(final.to_dict()))
    again = State.from_dict(data)
    assert again == final and again.game == game
    assert again.events() == final.events() and again.history() == final.history()
    bad = dict(data)
    del bad["draw"]
    with pytest.raises(SerializationError, match="'draw'"):
        State.from_dict(bad)
    bad = dict(data, seats=[dict(data["seats"][0], line=["14"]), *data["seats"][1:]])
    with pytest.raises(SerializationError, match="unknown card '14'"):
        State.from_dict(bad)
    with pytest.raises(SerializationError, match="format"):
        State.from_dict(dict(data, format=99))


@pytest.mark.rules("F7-032")
def test_pending_describes_the_decision() -> None:
    """pending() tells what a decision is about."""
    s = Game("flip7", 3).new_position(turn=0, lines={0: ["5"]}, draw=["freeze"])
    assert s.pending() == ("offer", None)
    s = s.apply("hit")
    assert s.pending() == ("chance", None)
    s = s.apply_chance("freeze")
    assert s.pending() == ("play", "freeze")
    assert s.legal_action_strings() == ["target 0", "target 1", "target 2"]
    s = s.apply("target 2")
    assert s.status(2) is Status.FROZEN
    assert s.kept(2) == ["freeze"]


def test_threshold_strategy_stays_at_its_threshold() -> None:
    """threshold:N stays once the line is worth N points, hits below."""
    s = Game("flip7", 2).new_position(turn=0, lines={0: ["12", "8"]})
    assert ThresholdStrategy(20).choose(s, random.Random(0)) == Action("stay")
    assert ThresholdStrategy(21).choose(s, random.Random(0)) == Action("hit")


@pytest.mark.parametrize("key", ["flip7", "bonus_to"])
def test_from_dict_refuses_malformed_seat_fields(key: str) -> None:
    """A flip7 or bonus_to that is not a seat number or null is refused, not read as null."""
    data = Game("flip7", 3).new_initial_state(seed=2).to_dict()
    data[key] = "0"
    with pytest.raises(SerializationError, match=f"{key}: expected a seat number or null, got '0'"):
        State.from_dict(data)


def test_open_positions_keep_the_pile_sorted() -> None:
    """An open position's draw pile has no order: it is kept sorted, the given cards included."""
    game = Game("flip7", 2)
    s = game.new_position(seed=None, draw=["12", "3", "7"], rest="out")
    assert [game.card_ids[c] for c in s.draw] == ["3", "7", "12"]
    assert s.next_card() is None


def test_model_names_are_reexported_from_their_old_homes() -> None:
    """CHANCE, TERMINAL, Status, Player and the card categories moved to flip7ref.core.model; old imports still work."""
    import flip7ref
    from flip7ref.core import game, model, state

    for name in ("CHANCE", "TERMINAL", "Status", "Player"):
        assert getattr(state, name) is getattr(model, name) is getattr(flip7ref, name)
    assert (game.NUMBER, game.MODIFIER, game.ACTION) == (model.NUMBER, model.MODIFIER, model.ACTION) == (0, 1, 2)
    assert (model.CHANCE, model.TERMINAL) == (-1, -2)
