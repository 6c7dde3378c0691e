"""The interpreter's fast lanes give exactly what the general path gives.

``State.apply`` has fast lanes for a Hit and for a Stay that leaves someone to
act, and ``State.apply_chance`` one for a plain card drawn for a Hit or in the
deal (a number without a trait, a modifier the receiver keeps, a bust that
leaves someone to act).  Every step of many random
games is taken both ways here and the results compared: the position, the
events of the step, the history entry and the start of the history.
"""

from __future__ import annotations

import copy
import pickle
import random
from pathlib import Path

import pytest

import flip7ref.core.state as state_module
from flip7ref import Game, State, Status, load_edition
from flip7ref.core import lanes
from flip7ref.core.lane_readings import ANY, LANE_READINGS, lanes_checked
from flip7ref.core.spec import spec_dir
from flip7ref.core.state import HIT, Draw

OPTION_SETS = {
    "flip7": [
        {},
        {"stay_requires": "nothing", "initial_deal": "none"},
        {"deal_after_early_cards": "deal"},
        # short games: many round and game ends (the round-end lane and its fallbacks)
        {"deck_between_rounds": "fresh-shuffle", "tie": "shared-win", "flip7_bonus": "all-non-busted", "target_score": 40},
        {"start_seat": "dealer", "empty_deck": "end-round", "target_score": 25},
        {"target_score": 30},
        # issue 14: the deal-slot readings, nested set-aside order, reshuffles per round
        {"deal_after_early_cards": "skip", "deal_after_second_chance": "early-cards", "target_score": 60},
        {"set_aside_order": "newest-first", "reshuffles": 0, "target_score": 60},
        {"reshuffles": 2, "decks": 1, "target_score": 60},
    ],
    "vengeance": [
        {},
        {"brutal": "true"},
        {"lucky13_flip7": "once"},
        # issue 14: the readings that were not modelled before
        {"busted_cards": "discard", "unusable_actions": "fizzle", "target_score": 60},
        {"brutal": "true", "brutal_zero": "negatives", "busted_cards": "discard", "zero_just_one_more": "general-rules"},
        {"reshuffles": 0, "target_score": 60},
    ],
}


def _step_both_ways(s: State, rng: random.Random, monkeypatch: pytest.MonkeyPatch) -> State:
    if s.current_player == -1:
        outcomes = [c for c, _ in s.chance_outcomes()]
        move = rng.choice(outcomes)
        fast = s.apply_chance(move)
        monkeypatch.setattr(state_module, "_FAST_LANES", False)
        slow = s.apply_chance(move)
    else:
        move = rng.choice(s.legal_actions())
        fast = s.apply(move)
        monkeypatch.setattr(state_module, "_FAST_LANES", False)
        slow = s.apply(move)
    monkeypatch.setattr(state_module, "_FAST_LANES", True)
    assert fast == slow, f"fast lane differs after {move}"
    assert fast.last_events() == slow.last_events()
    assert fast.history() == slow.history()
    assert fast.initial_state() is slow.initial_state()
    assert fast.to_dict() == slow.to_dict()
    return fast


@pytest.mark.rules("F7-030", "F7-031", "F7-035", "F7-040", "F7-041")
@pytest.mark.parametrize("edition", ["flip7", "vengeance"])
@pytest.mark.parametrize("players", [1, 3, 6])
def test_fast_lanes_match_general_path(edition: str, players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Random games (open decks, random decisions): each step is the same both ways."""
    rng = random.Random(f"{edition}:{players}")
    for options in OPTION_SETS[edition]:
        game = Game(edition, players, options)
        for _ in range(2):
            s = game.new_initial_state(seed=None)
            for _ in range(300):
                if s.is_terminal():
                    break
                s = _step_both_ways(s, rng, monkeypatch)


def _table_readings(edition: str) -> list[tuple[str, str | int]]:
    """Every reading of every option of the shipped table ``edition``, read from the table
    (an integer option: its named readings and its two lowest values too)."""
    out: list[tuple[str, str | int]] = []
    for name, spec in load_edition(edition).options.items():
        out += [(name, r.name) for r in spec.readings]
        if spec.integer is not None:
            low, high = spec.integer
            out += [(name, v) for v in (low, low + 1) if high is None or v <= high]
    return out


@pytest.mark.parametrize("edition", ["flip7", "vengeance"])
def test_every_reading_of_every_option_takes_the_lanes_as_the_general_path(
    edition: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """For each reading of each option of the table (the rest at their defaults), seeded
    random games step by step both ways: lanes and general path agree, and the game runs
    its lanes (the reading is whitelisted in `flip7ref.core.lane_readings`)."""
    readings = _table_readings(edition)
    assert len(readings) > 30
    for name, value in readings:
        options: dict[str, str | int] = {name: value}
        if name != "target_score":
            options["target_score"] = 60
        game = Game(edition, 3, options)
        assert game.fast_lanes, f"{name}={value!r} is not in flip7ref.core.lane_readings.LANE_READINGS: check it and add it"
        rng = random.Random(f"{edition}:{name}:{value}")
        s = game.new_initial_state(seed=None)
        for _ in range(250):
            if s.is_terminal():
                break
            s = _step_both_ways(s, rng, monkeypatch)


def test_the_whitelist_names_the_readings_of_the_tables() -> None:
    """LANE_READINGS lists every option of both tables with exactly its named readings
    (integer options: every value, ANY); no stale entry."""
    expected: dict[str, set[str]] = {}
    for edition in ("flip7", "vengeance"):
        for name, spec in load_edition(edition).options.items():
            expected.setdefault(name, set()).update({ANY} if spec.integer is not None else {r.name for r in spec.readings})
    assert {k: set(v) for k, v in LANE_READINGS.items()} == expected


def test_an_unchecked_option_or_reading_takes_the_general_path(tmp_path: Path) -> None:
    """A house table's own option is not whitelisted: its games run without the lanes, and
    still play; one reading left out of the whitelist switches the lanes off too."""
    text = (spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8")
    assert "\n  tie:\n" in text
    house_text = text.replace("\n  tie:\n", "\n  house_rule:\n    summary: A house rule nobody checked the lanes for.\n"
                              "    rules: [F7-120]\n    default: \"off\"\n    readings:\n"
                              "      \"off\": {summary: Off., holders: [house]}\n  tie:\n", 1)  # fmt: skip
    (tmp_path / "house.yaml").write_text(house_text, encoding="utf-8")
    house = Game(str(tmp_path / "house.yaml"), 3)
    assert "house_rule" in house.options and not house.fast_lanes
    assert Game("flip7", 3).fast_lanes
    s = house.new_initial_state(seed=5)
    t = Game("flip7", 3).new_initial_state(seed=5)
    for _ in range(60):  # the same play, with and without the lanes
        if s.is_terminal():
            break
        a = s.legal_actions()[0] if not s.is_chance_node() else None
        s = s.apply(a) if a is not None else s.apply_chance(s.next_card())
        t = t.apply(a) if a is not None else t.apply_chance(t.next_card())
        assert s.last_events() == t.last_events() and s.history() == t.history()
    options = dict(Game("flip7", 3).options)
    assert lanes_checked(options)
    assert not lanes_checked({**options, "tie": "a-reading-nobody-checked"})
    assert not lanes_checked({**options, "new_option": "x"})


@pytest.mark.rules("F7-030", "F7-041")
def test_fast_lane_bust_and_last_active_player(monkeypatch: pytest.MonkeyPatch) -> None:
    """A duplicate for the last active player ends the round: the general path scores it."""
    game = Game("flip7", 2)
    s = game.new_position(turn=0, lines={0: ["5", "x2"], 1: ["9"]}, statuses={1: "stayed"}, draw=["5"])
    after = s.apply(HIT).apply_chance("5")
    assert after.round == 2 and after.totals == (0, 9)
    monkeypatch.setattr(state_module, "_FAST_LANES", False)
    slow = s.apply(HIT).apply_chance("5")
    assert after == slow and after.events() == slow.events()


@pytest.mark.rules("F7-040", "F7-041")
def test_fast_lane_bust_passes_the_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bust with another player still active: the turn moves on, events dealt then busted."""
    game = Game("flip7", 3)
    s = game.new_position(turn=0, lines={0: ["5"], 1: ["9"], 2: ["3"]}, statuses={1: "stayed"}, draw=["5"])
    after = s.apply("hit").apply_chance("5")
    assert after.current_player == 2
    assert [e.type for e in after.last_events()] == ["dealt", "busted"]
    assert after.status(0) is Status.BUSTED


def test_state_is_an_immutable_value() -> None:
    """States refuse attribute assignment, pickle and copy to equal states, and compare by position."""
    s = Game("flip7", 3).new_initial_state(seed=4)
    with pytest.raises(AttributeError, match=r"immutable|not writable"):  # pure build | compiled (a Final field)
        s.turn = 2  # type: ignore[misc]
    for other in (pickle.loads(pickle.dumps(s)), copy.copy(s), copy.deepcopy(s)):
        assert other == s and (other != s) is False and hash(other) == hash(s)
        assert other.history() == s.history()
    t = s.apply_chance(s.sample_chance())
    assert t != s and (t == s) is False
    assert repr(s).startswith("State(game=Game('flip7'") and "_log" not in repr(s)
    with pytest.raises(TypeError):
        _ = s < t  # type: ignore[operator]
    assert isinstance(s.frames[-1], Draw)


def test_derive_copies_every_other_field_and_adds_one_link() -> None:
    """`lanes.derive` changes players, draw,
    frames and turn only, and links the new state to its parent's history."""
    s = Game("vengeance", 3).new_initial_state(seed=8)
    s = s.apply_chance(s.sample_chance())
    players, draw = (s.players[1], s.players[0], s.players[2]), s.draw[1:]
    t = lanes.derive(s, players, draw, (), 2, "chance 5", ())
    want = {**{name: getattr(s, name) for name in state_module._STATE_FIELDS}, "players": players, "draw": draw}
    want.update(frames=(), turn=2)
    assert {name: getattr(t, name) for name in state_module._STATE_FIELDS if name != "_log"} == {
        k: v for k, v in want.items() if k != "_log"
    }
    assert type(t) is State and t._log is not None and t._log.parent is s._log and t._log.move == "chance 5"
    assert t.initial_state() is s.initial_state() and t.history() == [*s.history(), "chance 5"]


def test_state_constructor_takes_fields_by_position_or_name_with_defaults() -> None:
    """State(...) takes its 19 fields positionally or by name, the last four defaulted, and
    refuses a missing, unknown or repeated one with TypeError (both builds: the native
    __init__, or the pure tuple layout's __new__)."""
    s = Game("flip7", 2).new_initial_state(seed=3)
    assert State(*s._fields()) == s
    named = {name: getattr(s, name) for name in ("game", "players", "draw", "discard", "frames", "dealer", "turn",
             "round", "totals", "last_scores", "flip7", "round_over", "winners", "shuffle_seed", "shuffles")}  # fmt: skip
    t = State(**named)
    assert t == s and (t.bonus_to, t.round_shuffles, t.shuffle_mark, t._log) == (None, 0, -1, None)
    with pytest.raises(TypeError):
        State(**{k: v for k, v in named.items() if k != "game"})
    with pytest.raises(TypeError):
        State(**named, nope=1)
    with pytest.raises(TypeError):
        State(s.game, **named)
    with pytest.raises(TypeError):
        State(*s._fields(), 1)


@pytest.mark.rules("F7-020", "F7-025", "F7-034")
def test_deal_and_stay_lanes_are_taken_and_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain deal card and a Stay with others still active go through the lanes, with
    the same results as the general path (the deal skips a seat that already holds cards)."""
    game = Game("flip7", 3)
    start = game.new_initial_state(stack=["5", "9", "x2", "4"], dealer=2)
    assert isinstance(start.frames[-1], Draw) and start.frames[-1].reason == "deal"
    assert lanes.plain_card(start, game.code("5")) is not None
    offer = game.new_position(turn=1, lines={0: ["3"], 1: ["7"], 2: ["8"]}, seed=2)
    assert lanes.stay(offer) is not None
    states = [start]
    for move in ("chance 5", "chance 9", "chance x2", "stay", "hit", "chance 4"):
        states.append(states[-1].apply_move(move))
    monkeypatch.setattr(state_module, "_FAST_LANES", False)
    slow = [start]
    for move in ("chance 5", "chance 9", "chance x2", "stay", "hit", "chance 4"):
        slow.append(slow[-1].apply_move(move))
    assert states == slow
    assert [s.events() for s in states] == [s.events() for s in slow]
    assert states[3].line(0) == ["5"] and states[3].line(1) == ["9"] and states[3].line(2) == ["x2"]
    assert states[4].status(0) is Status.STAYED and states[4].current_player == 1


@pytest.mark.rules("F7-120", "F7-121")
def test_round_end_lane_plays_another_round_after_a_tie(monkeypatch: pytest.MonkeyPatch) -> None:
    """The last Stay of a round that ties the lead at the target: the lane applies the
    same round-end plan as the general path (another round, F7-121, D-F7-22), with the
    same events once each."""
    game = Game("flip7", 2)
    s = game.new_position(turn=1, lines={0: ["5"], 1: ["12", "3"]}, statuses={0: "stayed"}, totals=[195, 185], seed=1)
    lane = lanes.fast_round_end(s, list(s.players), s.draw, 1, None, "stay", [])
    assert lane is not None and lane.round == 2 and lane.totals == (200, 200) and not lane.winners
    after = s.apply("stay")
    assert after.totals == (200, 200) and not after.is_terminal() and after.round == 2
    assert [e.type for e in after.last_events()] == ["stayed", "round_scored", "tie_another_round", "round_started"]
    monkeypatch.setattr(state_module, "_FAST_LANES", False)
    slow = s.apply("stay")
    assert after == slow and after.last_events() == slow.last_events()


@pytest.mark.rules("F7-100", "F7-120")
def test_round_end_lane_ends_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """The last Stay reaching the target: the lane scores the round and ends the game."""
    game = Game("flip7", 2)
    s = game.new_position(turn=1, lines={0: ["5", "x2"], 1: ["12", "+4"]}, statuses={0: "stayed"}, totals=[150, 185], seed=1)
    fast = lanes.fast_round_end(s, list(s.players), s.draw, 1, None, "stay", [])
    assert fast is not None and fast.winners == (1,) and fast.totals == (160, 201)
    after = s.apply("stay")
    assert after.winners == (1,) and after.last_scores == (10, 16)
    assert [e.type for e in after.last_events()] == ["stayed", "round_scored", "game_won"]
    assert [game.card_ids[c] for c in after.discard] == ["5", "x2", "12", "+4"]  # seat by seat, line order
    monkeypatch.setattr(state_module, "_FAST_LANES", False)
    slow = s.apply("stay")
    assert after == slow and after.last_events() == slow.last_events() and after.to_dict() == slow.to_dict()


def _successors_both_ways(s: State, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = s.chance_successors()
    monkeypatch.setattr(state_module, "_FAST_LANES", False)
    slow = [(card, count, s.apply_chance(card)) for card, count in s.chance_weights()]
    monkeypatch.setattr(state_module, "_FAST_LANES", True)
    assert [(c, n) for c, n, _ in fast] == [(c, n) for c, n, _ in slow] == s.chance_weights()
    for (card, _, a), (_, _, b) in zip(fast, slow, strict=True):
        assert a == b, f"successor of {card} differs"
        assert a.last_events() == b.last_events() and a.history() == b.history() and a.to_dict() == b.to_dict()


@pytest.mark.rules("F7-040", "F7-041", "F7-100", "F7-120")
@pytest.mark.parametrize("edition", ["flip7", "vengeance"])
@pytest.mark.parametrize("players", [1, 2, 4])
def test_chance_successors_are_the_applied_outcomes(edition: str, players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """chance_successors() gives, for every card kind, what apply_chance gives (lanes
    on) and what the general path gives: at chance nodes of random games, short
    games included so that busts end rounds and games."""
    rng = random.Random(f"successors:{edition}:{players}")
    for options in ({}, {"target_score": 30}):
        game = Game(edition, players, options)
        for seed in (None, 5):
            s = game.new_initial_state(seed=seed)
            for step in range(400):
                if s.is_terminal():
                    break
                if s.current_player == -1:
                    if step % 3 == 0:
                        _successors_both_ways(s, monkeypatch)
                    s = s.apply_chance(rng.choice([c for c, _ in s.chance_weights()]))
                else:
                    s = s.apply(rng.choice(s.legal_actions()))
    decision = Game(edition, players).new_initial_state(seed=3)
    while decision.current_player == -1:
        decision = decision.apply_chance(decision.sample_chance())
    assert decision.chance_successors() == []


@pytest.mark.rules("F7-040", "F7-101", "F7-120")
def test_chance_successors_share_the_round_end_of_solo_busts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A player alone whose total is at the target: every bust ends the round and the
    game; the siblings share one round end and each is still its own exact state."""
    from flip7ref.analysis import solo_deck_position

    game = Game("flip7", 1)
    s = solo_deck_position(game, ["number", "modifier"])
    for card in ("12", "x2", "11", "3", "+4", "9"):
        s = s.apply_chance(card)
        if s.current_player == 0:
            s = s.apply("hit")
    assert s.current_player == -1 and s.line(0) == ["12", "x2", "11", "3", "+4", "9"]
    _successors_both_ways(s, monkeypatch)
    outcomes = {card: child for card, _, child in s.chance_successors()}
    for bust in ("12", "11", "3", "9"):
        child = outcomes[bust]
        assert child.is_terminal() and child.last_scores == (0,) and child.totals == (200,)
        assert [e.type for e in child.last_events()] == ["dealt", "busted", "round_scored", "game_won"]
        assert sorted(game.card_ids[c] for c in child.discard) == sorted(["12", "x2", "11", "3", "+4", "9", bust])
    assert outcomes["5"].last_scores == () and outcomes["5"].current_player == 0
    assert "x2" not in outcomes and outcomes["+10"].current_player == 0 and outcomes["+10"].line(0)[-1] == "+10"


def _solo_six_card_node(game: Game) -> State:
    from flip7ref.analysis import solo_deck_position

    s = solo_deck_position(game, ["number", "modifier"])
    for card in ("12", "x2", "11", "3", "+4", "9"):
        s = s.apply_chance(card)
        if s.current_player == 0:
            s = s.apply("hit")
    return s


@pytest.mark.rules("F7-040", "F7-101", "F7-120")
def test_merged_ends_give_the_first_bust_for_every_game_ending_bust() -> None:
    """For the solver, the busts that end the game (a player alone at the target) all
    give the successor of the first one; every other card gives its own successor."""
    game = Game("flip7", 1)
    s = _solo_six_card_node(game)
    plain = s.chance_successors()
    merged = s.chance_successors(merge_ends=True)
    assert [(c, n) for c, n, _ in merged] == [(c, n) for c, n, _ in plain] == s.chance_weights()
    busts = [c for c, _, _ in plain if c in ("12", "11", "3", "9")]
    assert busts == ["3", "9", "11", "12"]  # table order: the first is "3"
    first = dict((c, child) for c, _, child in merged)["3"]
    assert first == s.apply_chance("3") and first.history()[-1] == "chance 3"
    for (card, _, mine), (_, _, own) in zip(merged, plain, strict=True):
        if card in busts:
            assert mine is first, card
            assert (mine.last_scores, mine.totals, mine.winners, mine.is_terminal()) == (
                own.last_scores, own.totals, own.winners, own.is_terminal()
            ) == ((0,), (200,), (0,), True)
            assert [e.type for e in mine.last_events()] == [e.type for e in own.last_events()]
        else:
            assert mine == own and mine.history() == own.history(), card


@pytest.mark.rules("F7-040", "F7-101", "F7-112")
def test_merged_ends_keep_each_bust_when_the_game_goes_on() -> None:
    """Below the target the bust starts another round from a different pile: no merging."""
    game = Game("flip7", 1)
    s = game.new_position(turn=0, lines={0: ["12", "11", "3", "9", "x2"]}, totals=[0], seed=None).apply("hit")
    merged = s.chance_successors(merge_ends=True)
    plain = s.chance_successors()
    assert [(c, n) for c, n, _ in merged] == [(c, n) for c, n, _ in plain]
    for (card, _, a), (_, _, b) in zip(merged, plain, strict=True):
        assert a == b and a.history() == b.history(), card
    ends = [child for card, _, child in merged if card in ("12", "11", "3", "9")]
    assert len({id(child) for child in ends}) == 4 and all(child.round == 2 for child in ends)


@pytest.mark.rules("F7-101", "F7-120")
def test_solver_gives_the_same_exact_values_with_merged_ends() -> None:
    """Merging the game-ending busts leaves every value of the solve unchanged (exact)."""
    from flip7ref.analysis import SoloSolver

    game = Game("flip7", 1)
    start = _solo_six_card_node(game)
    merged = SoloSolver(exact=True).solve(start)
    unmerged = SoloSolver(exact=True)
    unmerged._merge_ends = False
    plain = unmerged.solve(start)
    assert (merged.value, merged.bust, merged.flip7, merged.states) == (plain.value, plain.bust, plain.flip7, plain.states)
    assert merged.states > 500


@pytest.mark.rules("F7-030", "F7-031")
@pytest.mark.parametrize("edition", ["flip7", "vengeance"])
def test_play_takes_a_hit_and_its_card_together_with_the_same_result(
    edition: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """play() draws the card of a Hit at once; whole games come out the same as with
    the lanes off, for ordered and open decks, and the move bound is exact."""
    from flip7ref.core.errors import GameTooLongError
    from flip7ref.play.games import play
    from flip7ref.play.strategies import RandomStrategy, ThresholdStrategy

    game = Game(edition, 3)
    for seed in (None, 7):
        for strategy in (ThresholdStrategy(20), RandomStrategy()):
            fast = play(game.new_initial_state(seed=seed), [strategy], random.Random(1))
            monkeypatch.setattr(state_module, "_FAST_LANES", False)
            slow = play(game.new_initial_state(seed=seed), [strategy], random.Random(1))
            monkeypatch.setattr(state_module, "_FAST_LANES", True)
            assert fast.is_terminal() and fast == slow
            assert fast.history() == slow.history() and fast.events() == slow.events()
    moves = len(fast.history())
    again = play(game.new_initial_state(seed=7), [RandomStrategy()], random.Random(1), max_moves=moves)
    assert again == fast
    with pytest.raises(GameTooLongError, match=f"within {moves - 1} moves"):
        play(game.new_initial_state(seed=7), [RandomStrategy()], random.Random(1), max_moves=moves - 1)


@pytest.mark.rules("F7-030", "F7-060")
def test_play_refuses_a_hit_where_the_decision_is_not_an_offer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Hit lane of play() (`lanes.offer_hit`) takes a Hit at an offer only: a strategy
    that says Hit to the target of a Freeze or Flip Three gets the StrategyError of an
    illegal action at the same decision as with the lanes off."""
    from flip7ref.core.errors import StrategyError
    from flip7ref.play.games import play

    class AlwaysHit:
        name = "always-hit"

        def choose(self, state: State, rng: random.Random) -> object:
            self.last = state
            return HIT

    refused = []
    for lanes_on in (True, False):
        monkeypatch.setattr(state_module, "_FAST_LANES", lanes_on)
        strategy = AlwaysHit()
        with pytest.raises(
            StrategyError,
            match=r"'always-hit' at seat 0 chose an illegal action 'hit': seat 0 is to decide; legal here: target 0, target 1",
        ):
            play(Game("flip7", 3).new_initial_state(seed=7), [strategy], random.Random(1))
        refused.append(strategy.last)
    assert refused[0] == refused[1] and refused[0].history() == refused[1].history()
    assert refused[0].pending() == ("play", "flip_three") and len(refused[0].history()) == 33


@pytest.mark.rules("F7-030", "F7-031", "F7-040", "F7-050", "F7-110")
@pytest.mark.parametrize("edition", ["flip7", "vengeance"])
def test_a_hit_and_its_top_card_in_one_step_equal_the_two_steps(edition: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`lanes.hit_top_card` (play()'s fused Hit) gives at every offer of seeded games the
    state, history, events and start of a Hit and its top card taken one by one with the
    lanes off, the round ends among them (a bust of the last player, a Flip 7); it declines
    (None) at an open pile."""
    from flip7ref.play.strategies import RandomStrategy

    game = Game(edition, 3)
    rng = random.Random(3)
    fused = fused_ends = 0
    for seed in range(6):
        s = game.new_initial_state(seed=seed)
        while not s.is_terminal():
            if s.current_player >= 0 and not s.frames and HIT in s.legal_actions():
                both = lanes.hit_top_card(s)
                monkeypatch.setattr(state_module, "_FAST_LANES", False)
                chance = s.apply(HIT)
                two = chance.apply_chance(chance.sample_chance(random.Random(0)))  # an ordered pile: its top card
                monkeypatch.setattr(state_module, "_FAST_LANES", True)
                if both is not None:
                    fused += 1
                    assert both == two and both.history() == two.history()
                    assert both.events() == two.events() and both.initial_state() is two.initial_state()
                    assert both.to_dict() == two.to_dict()
                    fused_ends += two.round != s.round or two.is_terminal()
            s = s.apply_chance(s.sample_chance(rng)) if s.current_player == -1 else s.apply(RandomStrategy().choose(s, rng))
    assert fused > 100 and fused_ends > 3
    open_pile = game.new_initial_state()
    while open_pile.current_player == -1:
        open_pile = open_pile.apply_chance(open_pile.sample_chance(rng))
    assert lanes.hit_top_card(open_pile) is None
