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
from flip7ref.play import play
from flip7ref.strategies import RandomStrategy

MAX_MOVES = 20_000
"""The bound the sweep allows a whole game.  No finite bound holds for every path:
with the deck nearly exhausted, a Second Chance (Flip 7) or a Swap (Vengeance) can
pass through the discard pile and the reshuffled deck again and again while a
player keeps hitting.  Random play ends with probability 1; observed games take a
few hundred moves."""


def walk(state: State, round_number: int, seen: Counter[str], depth: int = 0) -> int:
    """Visit every path until the round ends; return the number of leaves.

    Once the draw pile is empty, an offered player who may stay only stays:
    hitting then reshuffles the discard pile, where a Flip Three or a Flip Four can
    come round again and again (see MAX_MOVES), so the tree would be infinite."""
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


@pytest.mark.rules("F7-030", "F7-070", "F7-073", "F7-080", "F7-113")
def test_flip7_every_path_of_a_small_round() -> None:
    """Three players, five cards left (Flip Three, Freeze, Second Chance, a 5, a 12): every path checked."""
    game = Game("flip7", 3)
    state = game.new_position(
        dealer=2,
        turn=0,
        lines={0: ["3"], 1: ["5", "+4"], 2: ["9"]},
        draw=["flip_three", "5", "freeze", "second_chance", "12"],
        rest="out",
    )
    seen: Counter[str] = Counter()
    leaves = walk(state, 1, seen)
    assert leaves == 3224
    assert (seen["chance"], seen["decision"]) == (2700, 5256)


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
                cases.append((edition, name, 2 if name == "decks" else 60))
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
