"""Every game ends (docs/termination.md, "Games").

A position with no card anywhere, or none that scores a point, is refused by
``Game.new_position``, ``Game.new_initial_state`` and ``State.from_dict`` (the game could
never end); the engine never plays one empty round after another within one move; and
random play from random accepted positions reaches the end within the whole-game bound,
every round within ``Game.max_moves_per_round()``.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from flip7ref import CardError, Game, OptionError, State
from flip7ref.core.position import PositionError
from flip7ref.play.games import play
from flip7ref.play.strategies import RandomStrategy

NO_CARD = (
    "cards: no card anywhere to play a round with (the draw pile, the discard pile, every line, kept card and "
    "pending frame are empty), so the game could never end"
)
NO_POINT = (
    "cards: no card in play scores a point (every number and modifier left scores 0 or less), so no total could "
    "ever reach the target score and the game could never end"
)
WHOLE_GAME_MOVES = 200_000
"""The whole-game bound of docs/termination.md: flip7ref.play.games's ``max_moves``."""


@pytest.mark.rules("F7-115")
@pytest.mark.parametrize("options", [{}, {"empty_deck": "end-round"}])
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"draw": [], "discard": []}, NO_CARD),
        ({"draw": [], "totals": [250, 0]}, NO_CARD),
        ({"draw": ["0"]}, NO_POINT),
        ({"draw": ["x2", "freeze"], "discard": ["0", "second_chance"]}, NO_POINT),
        ({"lines": {0: ["0"]}, "kept": {1: ["second_chance"]}}, NO_POINT),
    ],
)
def test_a_position_whose_game_could_never_end_is_refused(
    options: dict[str, str], kwargs: dict[str, Any], message: str
) -> None:
    game = Game("flip7", 2, options)
    with pytest.raises(PositionError) as info:
        game.new_position(rest="out", **kwargs)
    assert str(info.value) == message
    assert info.value.field == "cards"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"draw": ["1"]},  # one point a round: the game ends
        {"draw": ["+2"]},  # a modifier alone scores
        {"lines": {1: ["3"]}, "statuses": {1: "stayed"}},  # a card on the table comes back next round
        {"draw": ["0"], "totals": [250, 0]},  # the next round end ends the game
    ],
)
def test_a_position_whose_game_can_end_is_accepted(kwargs: dict[str, Any]) -> None:
    state = Game("flip7", 2, {"empty_deck": "end-round"}).new_position(rest="out", **kwargs)
    end = play(state, [RandomStrategy()], random.Random(1), max_moves=WHOLE_GAME_MOVES)
    assert end.is_terminal()


def test_a_fresh_shuffle_every_round_needs_no_card_now() -> None:
    """Under deck_between_rounds fresh-shuffle every later round has the whole deck (D-F7-20)."""
    game = Game("flip7", 2, {"deck_between_rounds": "fresh-shuffle", "empty_deck": "end-round"})
    state = game.new_position(draw=[], rest="out")
    after = state.apply("hit").apply("hit")  # no card: both Hits become Stays; the next round has a fresh deck
    assert after.round == 2 and len(after.draw) == len(game.deck) and after.is_chance_node()
    assert play(state, [RandomStrategy()], random.Random(2)).is_terminal()


def test_from_dict_refuses_the_same_positions() -> None:
    game = Game("flip7", 3, {"empty_deck": "end-round"})
    data = game.new_position(turn=0, draw=["5"], rest="out").to_dict(log=False)
    data["draw"] = []
    with pytest.raises(PositionError) as info:
        State.from_dict(data)
    assert str(info.value) == NO_CARD
    data["draw"] = ["0", "x2"]
    with pytest.raises(PositionError) as info:
        State.from_dict(data)
    assert str(info.value) == NO_POINT
    data["draw"] = ["5"]
    assert State.from_dict(data).draw == (game.code("5"),)


def test_a_terminal_state_without_cards_is_still_read() -> None:
    """A finished game is over: nothing is left to end."""
    game = Game("flip7", 2)
    data = game.new_position(draw=["5"], rest="out", totals=[300, 0]).to_dict(log=False)
    data.update(draw=[], winners=[0])
    assert State.from_dict(data).is_terminal()


_SPIN = textwrap.dedent(
    """
    import flip7ref
    from flip7ref.core.state import State
    game = flip7ref.Game("flip7", 2, {"empty_deck": "end-round"})
    base = game.new_position(draw=["5"], rest="out")
    # a state no builder makes any more: no card anywhere (the checks bypassed)
    empty = State(game, base.players, (), (), (), 1, 0, 1, (0, 0), (), None, False, (), "0", 0)
    s = empty
    for _ in range(6):
        s = s.apply("hit")
    print(s.round, s.current_player, [e.type for e in s.last_events()])
    """
)


def test_the_engine_plays_no_empty_round_after_another_in_one_move() -> None:
    """The guard of flip7ref.core.pile.supply: with no card anywhere the exhausted Hit becomes a
    Stay even under empty_deck end-round, so each move returns (before: one apply() looped for
    ever, ending a round and starting the next)."""
    done = subprocess.run([sys.executable, "-c", _SPIN], capture_output=True, text=True, timeout=60, check=True)
    rounds, player, types = done.stdout.split(" ", 2)
    assert (int(rounds), int(player)) == (4, 1)  # two Stays a round; round 4 is dealt by seat 0
    assert json.loads(types.replace("'", '"')) == ["deck_exhausted", "stayed", "round_scored", "round_started",
                                                   "deck_exhausted", "deck_exhausted"]  # fmt: skip


def test_conformance_export_of_a_case_with_no_card_returns(tmp_path: Path) -> None:
    """Before: ``conformance export --cases FILE`` hung on such a case (it plays every reading)."""
    case = tmp_path / "no_card.yaml"
    case.write_text(
        textwrap.dedent(
            """\
            format: 1
            cases:
              - id: F7-C9001
                title: "no card anywhere"
                edition: flip7
                rules: [F7-115]
                source: "a hostile case"
                kind: transition
                setup: {players: 2, dealer: 1, draw: []}
                actions: [hit]
                expect: {statuses: {0: stayed}}
            """
        ),
        encoding="utf-8",
    )
    args = ["-m", "flip7ref", "conformance", "export", "--cases", str(case), "--out", str(tmp_path / "out")]
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr
    ran = subprocess.run(
        [sys.executable, "-m", "flip7ref", "conformance", "run", "--cases", str(case)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "cannot be set up: " + NO_CARD in ran.stdout


# --------------------------------------------------------------------------- the property

_EDITIONS = {"flip7": Game("flip7", 2).card_ids, "vengeance": Game("vengeance", 2).card_ids}


@st.composite
def positions(draw: Any) -> tuple[State, int]:
    """A random position new_position accepts (both editions, several options, partial decks,
    open and ordered piles, totals near the target), with a seed for the play."""
    edition = draw(st.sampled_from(sorted(_EDITIONS)))
    ids = _EDITIONS[edition]
    options: dict[str, Any] = {"tie": draw(st.sampled_from(["another-round", "shared-win"]))}
    options["reshuffles"] = draw(st.sampled_from(["1", "unlimited", 0]))
    options["target_score"] = draw(st.sampled_from([200, 60, 25]))
    if edition == "flip7":
        options["empty_deck"] = draw(st.sampled_from(["stay", "end-round"]))
        options["deck_between_rounds"] = draw(st.sampled_from(["carry-over", "carry-over", "fresh-shuffle"]))
    else:
        options["brutal"] = draw(st.sampled_from(["false", "true"]))
    players = draw(st.integers(1, 6))
    game = Game(edition, players, options)
    cards = st.lists(st.sampled_from(ids), max_size=4)
    lines = draw(st.dictionaries(st.integers(0, players - 1), cards, max_size=players))
    statuses = draw(st.dictionaries(st.integers(0, players - 1), st.sampled_from(["active", "stayed"]), max_size=players))
    kwargs: dict[str, Any] = {
        "lines": lines,
        "statuses": statuses,
        "draw": draw(cards),
        "discard": draw(cards),
        "rest": draw(st.sampled_from(["below", "discard", "out", "out"])),
        "seed": draw(st.sampled_from([0, 7, None])),
        "dealer": draw(st.integers(0, players - 1)),
        "totals": draw(st.lists(st.integers(-20, 260), min_size=players, max_size=players)),
    }
    if not game.floors_at_zero and kwargs["rest"] == "out":
        # Brutal Mode scores below zero: a partial deck whose negative cards outweigh the rest lets
        # the totals drift down, so random play need not end the game (docs/termination.md)
        assume(False)
    try:
        state = game.new_position(**kwargs)
    except (CardError, OptionError):  # PositionError is a CardError: a position the reference refuses
        assume(False)
        raise
    return state, draw(st.integers(0, 2**32))


@given(positions())
def test_random_play_from_any_accepted_position_ends_within_the_bound(case: tuple[State, int]) -> None:
    state, seed = case
    s = _play_to_the_end(state, random.Random(seed))
    assert s.winners


def _play_to_the_end(state: State, rng: random.Random) -> State:
    """Random play from ``state`` to the end, asserting the whole-game and per-round bounds,
    at most one round end a move and the pending work within `Game.max_pending`."""
    game = state.game
    per_round = game.max_moves_per_round()
    moves = in_round = 0
    s = state
    while not s.is_terminal():
        moves += 1
        in_round += 1
        assert moves <= WHOLE_GAME_MOVES, f"no end within {WHOLE_GAME_MOVES} moves"
        s = s.apply_chance(s.sample_chance(rng)) if s.is_chance_node() else s.apply(rng.choice(s.legal_actions()))
        ends = sum(e.type == "round_scored" for e in s.last_events())
        assert ends <= 1, "a move played more than one round end"
        assert len(s.frames) <= game.max_pending()
        if ends:
            assert in_round <= per_round
            in_round = 0
    assert in_round <= per_round
    return s


@given(positions(), st.integers(0, 60))
def test_random_play_from_any_state_from_dict_accepts_ends_within_the_bound(case: tuple[State, int], steps: int) -> None:
    """States with work pending (a forced draw, a choice of target, an assignment...) come only
    through State.from_dict: random play from an accepted position, stopped after up to 60 moves,
    written with to_dict and read back, is accepted, and random play from it ends within the
    whole-game bound too."""
    state, seed = case
    rng = random.Random(seed)
    s = state
    for _ in range(steps):
        if s.is_terminal():
            break
        s = s.apply_chance(s.sample_chance(rng)) if s.is_chance_node() else s.apply(rng.choice(s.legal_actions()))
    back = State.from_dict(json.loads(json.dumps(s.to_dict())))
    assert back.to_dict() == s.to_dict()
    assert _play_to_the_end(back, rng).winners


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"totals": [10**500, 0]},
            "totals: expected points from -1,000,000,000 to 1,000,000,000, got a 501-digit number for seat 0",
        ),
        ({"round_number": 10**100}, "round_number: expected a whole number 1..1,000,000, got a 101-digit number"),
    ],
)
def test_new_position_refuses_numbers_beyond_any_game(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionError) as info:
        Game("flip7", 2).new_position(draw=["5"], **kwargs)
    assert str(info.value) == message


def test_a_new_game_is_checked_for_every_game_and_totals_and_a_refusal_is_never_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """new_initial_state decides check_can_end once per game and totals (the first state holds
    the whole deck): a deck of zeros and action cards is refused at every call, accepted where
    the totals end the game at the next round end, and the shipped deck is accepted."""
    import yaml

    monkeypatch.setenv("FLIP7REF_CACHE_DIR", str(tmp_path / "cache"))
    shipped = Path(Game("flip7", 2).edition.path)  # the installed table (the compiled build's tests run from a copy)
    data = yaml.safe_load(shipped.read_text(encoding="utf-8"))
    data["cards"] = [c for c in data["cards"] if c["id"] == "0" or c["category"] == "action"]
    data["thresholds"]["flip7_distinct"] = 1
    data["edition"]["id"] = "zeros"
    path = tmp_path / "zeros.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    zeros = Game(str(path), 2)
    for seed in (1, 1, 2):
        with pytest.raises(PositionError) as info:
            zeros.new_initial_state(seed=seed)
        assert str(info.value) == NO_POINT
    assert zeros.new_initial_state(seed=1, totals=[250, 0]).totals == (250, 0)
    with pytest.raises(PositionError):
        zeros.new_initial_state(seed=1, totals=[0, 0])
    assert Game("flip7", 2).new_initial_state(seed=1).round == 1
