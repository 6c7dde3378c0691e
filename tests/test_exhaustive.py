"""OpenSpiel-style exhaustive checks on small stacked positions, and a simulation sweep.

The exhaustive tests walk *every* path of a round from a position whose draw
pile holds a handful of cards (the rest of the deck is out of play), at every
chance node and every decision node, and check the chance outcomes exactly:
distinct, positive, summing to 1 and equal to the pile's composition.  They
also compute exact outcome distributions under fixed policies, which must sum
to 1 — a check that every branch ends.

The sweep plays whole games under every reading of every option of both
editions with random decisions and checks conservation and termination.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from flip7ref import CHANCE, Game, State, load_edition
from flip7ref.core.position import PositionError
from flip7ref.play.games import play
from flip7ref.play.strategies import RandomStrategy

MAX_MOVES = 20_000
"""The bound the sweep allows a whole game.  Every round ends within
Game.max_moves_per_round() moves (F7-116: one reshuffle per round by default,
docs/termination.md); the number of rounds has no bound on every path (everyone can
bust in every round), but random play ends with probability 1 and observed games
take a few hundred moves."""


def walk(state: State, round_number: int, seen: Counter[str], depth: int = 0) -> int:
    """Visit every path until the round ends; return the number of leaves.

    Once the draw pile is empty, an offered player who may stay only stays, to keep
    the tree small (:func:`full_walk` takes every path, F7-116)."""
    assert depth < 300, "a round did not end"
    if state.is_terminal() or state.round != round_number:
        return 1
    if state.current_player == CHANCE:
        outcomes = state.chance_outcomes()
        pile = Counter(state.game.card_ids[c] for c in state.draw)
        assert sum(p for _, p in outcomes) == 1
        assert {c: p for c, p in outcomes} == {c: Fraction(n, len(state.draw)) for c, n in pile.items()}
        seen["chance"] += 1
        return sum(walk(state.apply_chance(c), round_number, seen, depth + 1) for c, _ in outcomes)
    actions = state.legal_actions()
    assert actions and len(set(actions)) == len(actions)
    seen["decision"] += 1
    if not state.draw and state.pending()[0] == "offer" and len(actions) > 1:
        actions = [a for a in actions if a.verb == "stay"]
    return sum(walk(state.apply(a), round_number, seen, depth + 1) for a in actions)


def distribution(state: State, round_number: int, choose: object) -> dict[tuple[int, ...], Fraction]:
    """Exact distribution of the round scores when every decision follows ``choose``."""
    if state.is_terminal() or state.round != round_number:
        return {state.last_scores: Fraction(1)}
    out: dict[tuple[int, ...], Fraction] = {}
    if state.current_player == CHANCE:
        for card, p in state.chance_outcomes():
            for scores, q in distribution(state.apply_chance(card), round_number, choose).items():
                out[scores] = out.get(scores, Fraction(0)) + p * q
        return out
    assert callable(choose)
    return distribution(state.apply(choose(state)), round_number, choose)


@pytest.mark.rules("F7-030", "F7-070", "F7-073", "F7-080", "F7-113", "F7-116")
@pytest.mark.parametrize(
    ("options", "counts"),
    [
        ({"reshuffles": 1}, (3170, 2646, 5220)),
        # with more reshuffles allowed, the paths that reshuffle twice in the round come back
        # (these were the counts before the one-reshuffle ruling, F7-116)
        ({"reshuffles": 8}, (3224, 2700, 5256)),
    ],
)
def test_flip7_every_path_of_a_small_round(options: dict[str, object], counts: tuple[int, int, int]) -> None:
    """Three players, five cards left (Flip Three, Freeze, Second Chance, a 5, a 12): every path checked."""
    game = Game("flip7", 3, options)
    state = game.new_position(
        dealer=2,
        turn=0,
        lines={0: ["3"], 1: ["5", "+4"], 2: ["9"]},
        draw=["flip_three", "5", "freeze", "second_chance", "12"],
        rest="out",
    )
    seen: Counter[str] = Counter()
    leaves = walk(state, 1, seen)
    assert (leaves, seen["chance"], seen["decision"]) == counts


@pytest.mark.rules("V-044", "V-045", "V-046", "V-033", "V-036")
def test_vengeance_every_path_of_a_small_round() -> None:
    """Vengeance: Flip Four, Lucky 13, Unlucky 7 and a 4; then a Swap and a Steal: every path checked."""
    game = Game("vengeance", 2)
    counts = []
    for pile in (["flip_four", "lucky13", "unlucky7", "4"], ["swap", "4", "13"], ["steal", "flip_four", "lucky13", "4"]):
        state = game.new_position(dealer=1, turn=0, lines={0: ["13", "4"], 1: ["7", "-2"]}, draw=pile, rest="out")
        seen: Counter[str] = Counter()
        counts.append((walk(state, 1, seen), seen["chance"], seen["decision"]))
    assert counts == [(1453, 1200, 1312), (191, 92, 142), (1628, 609, 2504)]


@pytest.mark.rules("F7-100", "F7-040", "F7-110")
def test_exact_distribution_under_always_hit_sums_to_one() -> None:
    """Always hitting with five unseen cards: the exact score distribution sums to 1 and is what the pile gives."""
    game = Game("flip7", 1)
    state = game.new_position(lines={0: ["12", "11"]}, draw=["12", "5", "7", "11", "x2"], rest="out")

    def always_hit(s: State) -> object:
        return s.legal_actions()[0]

    dist = distribution(state, 1, always_hit)
    assert sum(dist.values()) == 1
    # The player busts on a 12 or an 11 sooner or later (two of the five cards), so always hitting scores 0.
    assert dist == {(0,): Fraction(1)}


def test_exact_distribution_of_one_hit_then_stay() -> None:
    """Hit once then stay, from 10 with 4 unseen cards (10, 2, +4, x2): each outcome has probability 1/4."""
    game = Game("flip7", 1)
    state = game.new_position(lines={0: ["10"]}, draw=["10", "2", "+4", "x2"], rest="out")

    def hit_once(s: State) -> object:
        return s.legal_actions()[0] if len(s.players[0].line) == 1 else s.legal_actions()[-1]

    dist = distribution(state, 1, hit_once)
    assert dist == {(0,): Fraction(1, 4), (12,): Fraction(1, 4), (14,): Fraction(1, 4), (20,): Fraction(1, 4)}


def _sweep_cases() -> list[tuple[str, str, object]]:
    cases = []
    for edition in ("flip7", "vengeance"):
        for name, spec in load_edition(edition).options.items():
            for reading in spec.readings:
                cases.append((edition, name, reading.name))
            if spec.integer is not None:
                cases.append((edition, name, 2 if name in ("decks", "reshuffles") else 60))
    return cases


@pytest.mark.parametrize(("edition", "option", "value"), _sweep_cases())
def test_random_games_under_every_reading(edition: str, option: str, value: object) -> None:
    """Four whole random games per option reading: they end, conserve every card, and have winners."""
    for i in range(4):
        game = Game(edition, 2 + i, {option: value})
        final = play(game.new_initial_state(seed=i), [RandomStrategy()], random.Random(i), max_moves=MAX_MOVES)
        assert final.is_terminal() and final.winners
        assert final.cards_in_play() == Counter(game.deck)
        assert max(final.totals) >= game.target_score


def full_walk(state: State, round_number: int, depth: int = 0) -> tuple[int, int]:
    """Take *every* path until the round ends (no decision left out): ``(leaves,
    longest path in moves)``.  Finite because a round reshuffles at most
    ``reshuffles`` times (F7-116, V-075)."""
    if state.is_terminal() or state.round != round_number:
        return 1, depth
    if state.current_player == CHANCE:
        children = [state.apply_chance(c) for c, _ in state.chance_outcomes()]
    else:
        children = [state.apply(a) for a in state.legal_actions()]
    leaves = longest = 0
    for child in children:
        n, d = full_walk(child, round_number, depth + 1)
        leaves += n
        longest = max(longest, d)
    return leaves, longest


def _bound(state: State) -> int:
    """Game.max_moves_per_round()'s formula for the cards actually in play (a partial
    deck): 4 (k + 1) D + 2 N + 1."""
    cards = sum(state.cards_in_play().values())
    return 4 * (state.game.reshuffles + 1) * cards + 2 * state.num_players + 1


_LOOPS = [
    # (edition, options, pile, leaves, longest): the positions that once
    # never ended (issue 14) and their neighbours; seat 1 has stayed, seat 0 is to act.
    ("flip7", {}, ["flip_three", "flip_three"], 3, 8),
    ("flip7", {"reshuffles": 0}, ["flip_three", "flip_three"], 3, 6),
    ("flip7", {"reshuffles": 2}, ["flip_three", "flip_three"], 3, 10),
    ("flip7", {"set_aside_order": "newest-first"}, ["flip_three", "flip_three"], 3, 8),
    ("flip7", {"empty_deck": "end-round"}, ["flip_three", "flip_three"], 2, 4),
    ("flip7", {"flip_three_bust": "resolve"}, ["flip_three", "flip_three", "6"], 8, 10),
    ("flip7", {}, ["second_chance", "5"], 8, 9),
    ("vengeance", {}, ["flip_four", "flip_four"], 17, 8),
    ("vengeance", {}, ["just_one_more", "flip_four", "swap"], 527, 18),
    # reading unlimited (F7-117, V-076): the loop guard ends the same rounds as the limit of one
    ("flip7", {"reshuffles": "unlimited"}, ["flip_three", "flip_three"], 3, 8),
    ("flip7", {"reshuffles": "unlimited"}, ["second_chance", "5"], 8, 9),
    ("flip7", {"reshuffles": "unlimited", "flip_three_bust": "resolve"}, ["flip_three", "flip_three", "6"], 8, 10),
    ("vengeance", {"reshuffles": "unlimited"}, ["flip_four", "flip_four"], 17, 8),
    ("vengeance", {"reshuffles": "unlimited"}, ["just_one_more", "flip_four", "swap"], 527, 18),
]


@pytest.mark.rules("F7-116", "F7-115", "F7-113", "F7-074", "V-075", "V-072", "V-043", "V-044")
@pytest.mark.parametrize(("edition", "options", "pile", "leaves", "longest"), _LOOPS)
def test_every_path_of_a_once_endless_round_ends(
    edition: str, options: dict[str, object], pile: list[str], leaves: int, longest: int
) -> None:
    """Two players, seat 1 stayed, seat 0 to hit on a pile of action cards and nothing
    else: every path of the round ends (issue 14), within the documented bound."""
    game = Game(edition, 2, options)
    state = game.new_position(dealer=1, turn=0, lines={0: ["5"], 1: ["6"]}, statuses={1: "stayed"}, draw=pile, rest="out")
    assert full_walk(state, 1) == (leaves, longest)
    assert longest <= _bound(state) <= game.max_moves_per_round()


@pytest.mark.rules("F7-116", "F7-030", "F7-070", "F7-073", "F7-080", "F7-113")
def test_flip7_every_path_of_a_small_round_without_pruning() -> None:
    """The small round above, every decision taken, hits on an empty deck included: it ends."""
    game = Game("flip7", 3, {"reshuffles": 1})
    state = game.new_position(
        dealer=2,
        turn=0,
        lines={0: ["3"], 1: ["5", "+4"], 2: ["9"]},
        draw=["flip_three", "5", "freeze", "second_chance", "12"],
        rest="out",
    )
    leaves, longest = full_walk(state, 1)
    assert (leaves, longest) == (15183, 18)
    assert longest <= _bound(state)


@pytest.mark.rules("V-075", "V-045", "V-046")
def test_vengeance_swap_round_without_pruning() -> None:
    """Vengeance: a Swap, a 4 and a 13 left, every decision taken: the round ends."""
    game = Game("vengeance", 2, {"reshuffles": 1})
    state = game.new_position(dealer=1, turn=0, lines={0: ["13", "4"], 1: ["7", "-2"]}, draw=["swap", "4", "13"], rest="out")
    leaves, longest = full_walk(state, 1)
    assert (leaves, longest) == (1015, 14)
    assert longest <= _bound(state)


@pytest.mark.rules("F7-117", "F7-116", "V-076")
def test_unlimited_reshuffles_need_progress() -> None:
    """Reading unlimited: a second reshuffle in one round once the table has moved on (three
    more cards in front of seat 0), then the guard: the same one-card discard pile would only
    go round again, so the deck is exhausted, with the reason, and the Hit becomes a Stay."""
    moves = ["hit", "chance flip_three", "target 0", "chance 7", "chance 8", "chance 9", "hit", "chance flip_three",
             "target 0", "hit"]  # fmt: skip
    for reading, played, reshuffles in (("1", 7, [3]), ("unlimited", 10, [3, 1])):
        game = Game("flip7", 2, {"reshuffles": reading})
        s = game.new_position(dealer=1, turn=0, lines={0: ["5"], 1: ["6"]}, statuses={1: "stayed"}, draw=["flip_three"],
                              discard=["7", "8", "9"], rest="out", seed=None)  # fmt: skip
        for move in moves[:played]:
            assert State.from_dict(s.to_dict()) == s
            s = s.apply_move(move)
        assert s.round == 2 and s.round_scores() == (29, 6)
        round_one = s.events()[: [e.type for e in s.events()].index("round_scored")]
        assert [e.get("cards") for e in round_one if e.type == "reshuffled"] == reshuffles
        exhausted = [e.to_dict() for e in round_one if e.type == "deck_exhausted"]
        guard = {"type": "deck_exhausted", "reason": "no progress since the last reshuffle"}
        assert (guard in exhausted) is (reading == "unlimited")
    assert Game("flip7", 2, {"reshuffles": "unlimited"}).reshuffles == 94 + 2 + 1  # D + N + 1 (docs/termination.md)


def test_a_shuffle_mark_is_checked_on_reload() -> None:
    """shuffle_mark only under reading unlimited, and only after a reshuffle of the round."""
    game = Game("flip7", 2, {"reshuffles": "unlimited"})
    s = game.new_position(dealer=1, turn=0, lines={0: ["5"], 1: ["6"]}, statuses={1: "stayed"}, discard=["7"], rest="out")
    data = s.apply("hit").to_dict()
    assert data["shuffle_mark"] == 3 and data["round_shuffles"] == 1
    for mark, rs in ((-1, 1), (2, 0), (200, 1)):
        bad = {**data, "shuffle_mark": mark, "round_shuffles": rs}
        with pytest.raises(PositionError, match=r"shuffle_mark: expected -1 before the round's first reshuffle, then 0\.\.96"):
            State.from_dict(bad)
    other = Game("flip7", 2, {"reshuffles": 1}).new_initial_state(seed=1).to_dict()
    with pytest.raises(PositionError, match=r"shuffle_mark: expected -1 \(absent\)"):
        State.from_dict({**other, "shuffle_mark": 0})
    with pytest.raises(PositionError, match=r"state data: shuffle_mark: expected a whole number, got 'x'"):
        State.from_dict({**other, "shuffle_mark": "x"})
