"""Exact analysis: next-card odds, the solo solver, policies, the odds/solve commands.

The solver is checked three ways: against the published values of the Flip 7
solitaire analysis (Eppie/flip-seven), against an independent brute-force oracle
written here for small decks (exact fractions), and by consistency (the optimal
value is at least every policy's value; the best action's value is the state's).
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from functools import cache

import pytest

from flip7ref import Game
from flip7ref.analysis import (
    AnalysisError,
    SoloSolver,
    line_position,
    next_card,
    solo_deck_position,
    solo_policy_table,
    solo_projection,
)
from flip7ref.cli import main
from flip7ref.core.errors import CardError, OptionError
from flip7ref.core.state import HIT, STAY
from flip7ref.play.strategies import OptimalSoloStrategy, ThresholdStrategy, parse_strategy

SOLO = Game("flip7", 1)


def _small_deck(cards: list[str]) -> tuple[Game, object]:
    state = SOLO.new_position(draw=cards, rest="out", seed=None, deal=True, totals=[SOLO.target_score])
    return SOLO, state


def _oracle(cards: list[str]) -> Fraction:
    """Optimal expected round score of one player drawing without replacement
    from ``cards`` (numbers and the modifiers x2 / +N only), written from the
    rules text, independent of the interpreter: the first card is dealt; then
    stay (score the line) or hit; a repeated number scores 0; an empty deck
    ends the hitting (the player stays, F7-115)."""

    def score(line: tuple[str, ...]) -> int:
        numbers = [int(c) for c in line if c.isdigit()]
        total = sum(numbers) * (2 if "x2" in line else 1)
        total += sum(int(c[1:]) for c in line if c.startswith("+"))
        if len(set(numbers)) >= 7:
            total += 15
        return total

    @cache
    def value(line: tuple[str, ...], rest: tuple[str, ...]) -> Fraction:
        stay = Fraction(score(line))
        if not rest or len({c for c in line if c.isdigit()}) >= 7:
            return stay
        return max(stay, draw(line, rest))

    @cache
    def draw(line: tuple[str, ...], rest: tuple[str, ...]) -> Fraction:
        total = Fraction(0)
        for card in sorted(set(rest)):
            p = Fraction(rest.count(card), len(rest))
            left = list(rest)
            left.remove(card)
            if card.isdigit() and card in line:
                continue  # bust: 0 points
            total += p * value(tuple(sorted((*line, card))), tuple(left))
        return total

    return draw((), tuple(sorted(cards)))


@pytest.mark.rules("F7-034", "F7-040", "F7-090", "F7-091", "F7-092", "F7-115")
@pytest.mark.parametrize(
    "cards",
    [
        ["1", "2", "2", "3", "3", "3"],
        ["1", "2", "2", "3", "3", "3", "x2", "+4"],
        ["0", "1", "2", "2", "5", "5", "+10"],
        ["4", "4", "4", "4", "x2"],
    ],
)
def test_solver_matches_brute_force_oracle(cards: list[str]) -> None:
    """Exact (fraction) optimal values on small decks equal an independent brute force."""
    _, state = _small_deck(cards)
    result = SoloSolver(exact=True).solve(state)  # type: ignore[arg-type]
    assert result.value == _oracle(cards)
    assert isinstance(result.value, Fraction) and 0 <= result.bust <= 1


@pytest.mark.rules("F7-030", "F7-034", "F7-040", "F7-050", "F7-100")
def test_solve_numbers_reproduces_published_value() -> None:
    """79 number cards, one player, one round: 18.5652176141 (Eppie/flip-seven)."""
    result = SoloSolver().solve(solo_deck_position(SOLO, ["number"]))
    assert result.value == pytest.approx(18.5652176141, abs=1e-9)
    assert result.states == 4095  # lines of 1..6 different numbers: sum of C(13, k), k = 1..6, plus the empty deal state
    assert result.bust == pytest.approx(0.3135023090, abs=1e-9)
    assert result.flip7 == pytest.approx(0.0028201764, abs=1e-9)


@pytest.mark.slow
@pytest.mark.rules("F7-090", "F7-091", "F7-092")
def test_solve_numbers_and_modifiers_reproduces_published_value() -> None:
    """79 numbers and the six modifiers: 20.2291054307 (about a minute; FLIP7REF_SLOW=1)."""
    result = SoloSolver().solve(solo_deck_position(SOLO, ["number", "modifier"]))
    assert result.value == pytest.approx(20.2291054307, abs=1e-9)
    assert result.states == 4095 * 64 + 63  # every modifier subset with every line; lines of modifiers alone too


@pytest.mark.slow
@pytest.mark.rules("F7-035", "F7-090", "F7-091", "F7-092")
def test_solve_numbers_and_modifiers_in_two_processes() -> None:
    """The same solve split over two worker processes (about 40 s; FLIP7REF_SLOW=1)."""
    result = SoloSolver(workers=2).solve(solo_deck_position(SOLO, ["number", "modifier"]))
    assert result.value == pytest.approx(20.2291054307, abs=1e-9)
    assert result.states == 4095 * 64 + 63


def test_optimal_is_at_least_every_policy_and_policies_are_exact() -> None:
    """The optimal value bounds every threshold policy; always-hit busts or makes Flip 7 every time."""
    state = solo_deck_position(SOLO, ["number"])
    best = SoloSolver().solve(state).value
    values = {n: SoloSolver(ThresholdStrategy(n)).solve(state).value for n in (10, 20, 25, 30)}
    assert all(v <= best + 1e-12 for v in values.values())
    assert max(values.values()) > 17  # a sensible threshold comes close
    always = SoloSolver(parse_strategy("always-hit")).solve(state)
    assert always.bust + always.flip7 == pytest.approx(1.0, abs=1e-12)
    # every round that does not bust is a Flip 7, worth 0+1+...+6+15 = 36 to 6+7+...+12+15 = 78 points
    assert 36 * always.flip7 < always.value < 78 * always.flip7
    assert always.policy == "always-hit"


def test_threshold_policy_exact_on_small_deck() -> None:
    """threshold:4 on 1,2,2,3,3,3 evaluated exactly, checked by hand-enumerated cases."""
    _, state = _small_deck(["1", "2", "2", "3", "3", "3"])
    result = SoloSolver(ThresholdStrategy(4), exact=True).solve(state)  # type: ignore[arg-type]
    # Dealt 1 (1/6): hit; 2 (2/5): line 3, hit; 2 busts (1/4), 3 (3/4) stays at 6; 3 (3/5): stays at 4.
    # Dealt 2 (2/6): hit; 1 (1/5): line 3, hit; 2 busts (1/4), 3 (3/4): 6; 2 (1/5): bust; 3 (3/5): 5.
    # Dealt 3 (3/6): hit; 1 (1/5): 4; 2 (2/5): 5; 3 (2/5): bust.
    one = Fraction(1, 6) * (Fraction(2, 5) * Fraction(3, 4) * 6 + Fraction(3, 5) * 4)
    two = Fraction(2, 6) * (Fraction(1, 5) * Fraction(3, 4) * 6 + Fraction(3, 5) * 5)
    three = Fraction(3, 6) * (Fraction(1, 5) * 4 + Fraction(2, 5) * 5)
    assert result.value == one + two + three == Fraction(17, 5)
    assert result.bust == Fraction(1, 6) * Fraction(2, 5) * Fraction(1, 4) + Fraction(2, 6) * (
        Fraction(1, 5) * Fraction(1, 4) + Fraction(1, 5)
    ) + Fraction(3, 6) * Fraction(2, 5)


@pytest.mark.rules("F7-040", "F7-050", "F7-080")
def test_next_card_odds() -> None:
    """Bust, Flip 7 and kind probabilities from the unseen cards; a Second Chance saves."""
    state = line_position(SOLO, ["3", "11", "5"])
    odds = next_card(state)
    assert odds.unseen == 91
    assert odds.bust == Fraction(2 + 10 + 4, 91)  # the 3s, 11s and 5s still unseen
    assert odds.flip7 == 0 and odds.saved == 0
    assert dict(odds.kinds)["12"] == Fraction(12, 91) and sum(p for _, p in odds.kinds) == 1
    six = next_card(line_position(SOLO, ["0", "1", "2", "3", "4", "5"], seen=["12"] * 12))
    assert six.flip7 == Fraction(7 + 8 + 9 + 10 + 11 + 6, 94 - 6 - 12)
    saved = next_card(line_position(SOLO, ["3", "11", "5", "second_chance"]))
    assert saved.bust == 0 and saved.saved == Fraction(16, 90)
    assert odds.as_dict()["bust"] == "16/91"


def test_next_card_refuses_non_offers() -> None:
    """Odds are for an offer of Hit or Stay; a chance node or a target choice is refused."""
    state = line_position(SOLO, ["3"])
    with pytest.raises(AnalysisError, match="not an offer"):
        next_card(state.apply(HIT))
    with pytest.raises(AnalysisError, match="not an offer"):
        solo_projection(state.apply(HIT))


def test_action_values_and_best_action_agree() -> None:
    """At a line of 3, 11, 5 (numbers and modifiers unseen), hitting is worth more than 19."""
    deck = [c for c in sorted(SOLO.deck) if SOLO.category[c] != 2]
    ids = SOLO.card_ids
    unseen = [ids[c] for c in deck]
    for card in ("3", "11", "5"):
        unseen.remove(card)
    state = SOLO.new_position(lines={0: ["3", "11", "5"]}, draw=unseen, seed=None, rest="out", totals=[200])
    solver = SoloSolver()
    values = solver.action_values(state)
    assert values["stay"] == 19
    assert values["hit"] == pytest.approx(22.329511, abs=1e-6)
    assert solver.best_action(state) == HIT
    assert solver.solve(state).value == pytest.approx(values["hit"])


def test_solver_refuses_other_players_decisions() -> None:
    """The solo solver plays one seat; a state where another seat decides is refused."""
    game = Game("flip7", 2)
    state = game.new_position(turn=1, lines={0: ["5"], 1: ["7"]}, draw=["7", "8", "9", "x2"], rest="out", seed=None)
    with pytest.raises(AnalysisError, match="seat 1 decides"):
        SoloSolver().solve(state)
    projected = solo_projection(state)
    assert projected.game.players == 1 and projected.line(0) == ["7"]
    assert SoloSolver().solve(projected).value > 7


def test_solo_deck_position_errors() -> None:
    """Unknown categories and multi-player games are refused with a clear message."""
    with pytest.raises(OptionError, match="unknown card category 'jokers'"):
        solo_deck_position(SOLO, ["jokers"])
    with pytest.raises(OptionError, match="one-player game, got 3"):
        solo_deck_position(Game("flip7", 3), ["number"])
    with pytest.raises(OptionError, match="would need about"):
        solo_policy_table(Game("flip7", 1), max_states=1000)


def test_optimal_solo_strategy_follows_the_solved_policy() -> None:
    """optimal-solo stays exactly where the solver says staying is best (numbers-only table)."""
    strategy = OptimalSoloStrategy(categories=("number",))
    table = strategy.prepare(Game("flip7", 4))
    assert len(table) == 4095 and () not in table  # the first card is dealt: no decision on an empty line
    game = Game("flip7", 3)
    solver = SoloSolver()
    solver.solve(solo_deck_position(SOLO, ["number"]))
    for line, stay in [(("3", "11", "5"), False), (("8", "9", "10", "11", "12"), True)]:
        state = game.new_position(turn=1, lines={1: list(line)}, seed=None)
        assert (strategy.choose(state, None) == STAY) is stay  # type: ignore[arg-type]
        unseen = [SOLO.card_ids[c] for c in sorted(SOLO.deck) if SOLO.category[c] == 0]
        for card in line:
            unseen.remove(card)
        solo = SOLO.new_position(lines={0: list(line)}, seed=None, totals=[200], draw=unseen, rest="out")
        assert (solver.best_action(solo) == STAY) is stay


@pytest.mark.rules("F7-080", "F7-100")
def test_solve_and_odds_commands(capsys: pytest.CaptureFixture[str]) -> None:
    """solve prints the value with 10 decimals; --json has value; odds prints the bust probability."""
    assert main(["solve", "--edition", "flip7", "--cards", "numbers"]) == 0
    out = capsys.readouterr().out
    assert "18.5652176141" in out and "states solved      4095" in out
    assert re.search(r"^time +\d+\.\d\d s wall, \d+\.\d\d s CPU$", out, flags=re.MULTILINE), out
    assert main(["solve", "--cards", "numbers", "--policy", "threshold:23", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["policy"] == "threshold:23" and 15 < data["value"] < 18.5652176141
    assert {"seconds", "cpu_seconds"} <= data.keys()  # wall time, and this process's CPU time
    assert data["seconds"] >= 0 and data["cpu_seconds"] >= 0
    assert main(["odds", "--line", "3,11,5", "--cards", "numbers,modifiers", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["exact"]["bust"] == "16/91" and data["bust"] == pytest.approx(16 / 91)
    assert data["best"] == "hit" and data["values"]["stay"] == 19 and data["tie"] is False
    assert data["values"]["hit"] == pytest.approx(22.329511, abs=1e-6)
    assert [k for k, _ in data["kinds"]][:3] == ["0", "1", "2"] and data["edition"] == "flip7"
    assert data["cards"] == "numbers,modifiers"
    assert main(["odds", "--line", "3,11,5,9,second_chance", "--seen", "12,12", "--cards", "numbers"]) == 0
    out = capsys.readouterr().out
    assert "P(bust)            0.0000000000  (0)" in out  # the Second Chance cancels any duplicate (F7-080)
    assert "P(saved by Second Chance) 0.2758620690  (8/29)" in out  # 2 + 10 + 4 + 8 of 87 unseen cards
    assert "stay             28.000000" in out and "hit              40.544881   <- best" in out
    assert main(["odds", "--line", "3,11,5", "--cards", "numbers,modifiers"]) == 0
    out = capsys.readouterr().out  # the kinds in words, not the flag's comma-separated spelling
    assert "optimal solo play afterwards (unseen numbers and modifiers only):" in out
    assert main(["odds", "--line", "3,11,5", "--cards", "numbers"]) == 0
    assert "optimal solo play afterwards (unseen numbers only):" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", "--cards", "numbers,jokers"], "--cards 'numbers,jokers': unknown category 'jokers'; expected"),
        (["solve", "--policy", "sometimes"], "unknown strategy 'sometimes'"),
        (["odds", "--line", "3,,5"], "--line '3,,5': expected card ids"),
        (["odds", "--line", "3,banana"], "--line: unknown card 'banana'"),
        (["odds", "--line", "3", "--seen", "banana"], "--seen: unknown card 'banana'"),
        (["odds", "--line", "3,3"], "error: --line: number 3 twice"),
        (["odds", "--line", "3,freeze"], "only a held Second Chance"),
        (["solve", "--policy", "optimal-solo"], "the optimal policy is what solve computes"),
        (["odds", "--line", "0,1,2,3,4,5,6"], "--line: a Flip 7 ends the round"),
        (["odds", "--line", "3", "--seen", "3,3,3"], "--line and --seen together: more copies of '3'"),
        (["solve", "--max-states", "-5"], "--max-states: expected a whole number of states, at least 1"),
        (["odds", "--line", "3", "--max-states", "0"], "--max-states: expected a whole number of states, at least 1"),
    ],
)
def test_analysis_commands_reject_bad_input(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    """User mistakes exit with status 2 and a one-line message naming the problem."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("flip7ref: error:") and message in err and "Traceback" not in err


def test_odds_past_max_states_is_a_limit_reached(capsys: pytest.CaptureFixture[str]) -> None:
    """A solve past --max-states is not a user mistake: exit 3 and one line (docs/cli.md)."""
    assert main(["odds", "--line", "3", "--cards", "numbers,modifiers", "--max-states", "50"]) == 3
    assert capsys.readouterr().err == (
        "flip7ref: limit reached: more than 50 states to solve: restrict the deck (e.g. --cards numbers), "
        "lengthen the line, or raise the limit (--max-states)\n"
    )


def _oracle_random(cards: list[str]) -> Fraction:
    """Exact value of the uniformly random policy (at each offer hit or stay, one
    half each; the first card is dealt) on a numbers-only deck, by brute force."""

    @cache
    def value(line: tuple[str, ...], rest: tuple[str, ...]) -> Fraction:
        stay = Fraction(sum(int(c) for c in line))
        return (stay + draw(line, rest)) / 2 if rest else stay

    @cache
    def draw(line: tuple[str, ...], rest: tuple[str, ...]) -> Fraction:
        if not rest:
            return Fraction(sum(int(c) for c in line))
        total = Fraction(0)
        for card in sorted(set(rest)):
            left = list(rest)
            left.remove(card)
            if card not in line:
                total += Fraction(rest.count(card), len(rest)) * value(tuple(sorted((*line, card))), tuple(left))
        return total

    return draw((), tuple(sorted(cards)))


def test_random_policy_is_evaluated_exactly() -> None:
    """The random policy is averaged over both choices, not one sampled path (breaker finding)."""
    cards = ["1", "2", "2", "3", "3", "3"]
    _, state = _small_deck(cards)
    result = SoloSolver(parse_strategy("random"), exact=True).solve(state)  # type: ignore[arg-type]
    assert result.value == _oracle_random(cards)
    again = SoloSolver(parse_strategy("random"), exact=True).solve(state)  # type: ignore[arg-type]
    assert again.value == result.value and again.policy == "random"


@pytest.mark.rules("F7-116", "F7-115")
def test_once_endless_rounds_solve_and_budgets_are_refused() -> None:
    """A deck of action cards alone once cycled through reshuffles for ever (the solver
    refused it); with one reshuffle per round (F7-116) the round is finite and solves
    exactly: no number card, so 0 points whatever the player does.  The state budget
    still stops a solve that would be too large."""
    result = SoloSolver().solve(solo_deck_position(SOLO, ["action"]))
    assert (result.value, result.bust, result.flip7) == (0, 0, 0)
    assert 0 < result.states < 1000
    with pytest.raises(AnalysisError, match="more than 100 states"):
        SoloSolver(max_states=100).solve(solo_deck_position(SOLO, ["number"]))
    with pytest.raises(AnalysisError, match="a card is to be drawn"):
        SoloSolver().best_action(solo_deck_position(SOLO, ["number"]))


def test_odds_shows_held_cards_and_exact_values(capsys: pytest.CaptureFixture[str]) -> None:
    """A held Second Chance is shown; --exact prints the hit and stay values as fractions."""
    assert main(["odds", "--line", "3,11,5,9,second_chance", "--cards", "numbers", "--exact"]) == 0
    out = capsys.readouterr().out
    assert "worth 28 points; holding second_chance" in out
    assert "stay             28.000000  (28)" in out
    assert main(["odds", "--line", "3,second_chance", "--cards", "numbers", "--json", "--exact"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["held"] == ["second_chance"] and data["line"] == ["3"] and "/" in data["values"]["hit"]


def test_line_position_refuses_a_string_and_resolved_action_cards() -> None:
    """line_position takes a list of names; Freeze never lies in front of an active player."""
    with pytest.raises(CardError, match="not one string"):
        line_position(SOLO, "3,11")  # type: ignore[arg-type]
    with pytest.raises(CardError, match="'freeze' is an action card resolved as soon as it is drawn"):
        line_position(SOLO, ["3", "freeze"])


def test_one_solver_keeps_the_states_of_different_decks_apart() -> None:
    """The memo key leaves out the draw pile (the cards not elsewhere), so it names the
    set of all cards: two positions with the same line over different decks, solved by
    one solver, each get the value a fresh solver gives them."""
    line = {0: ["12", "11", "10"]}
    rich = SOLO.new_position(lines=line, draw=["1", "2", "3", "x2", "+10"], seed=None, rest="out", totals=[200])
    poor = SOLO.new_position(lines=line, draw=["1", "12", "11", "3"], seed=None, rest="out", totals=[200])
    shared = SoloSolver(exact=True)
    both = [shared.solve(rich).value, shared.solve(poor).value]
    alone = [SoloSolver(exact=True).solve(rich).value, SoloSolver(exact=True).solve(poor).value]
    assert both == alone
    assert both[0] != both[1]
    # rich: hit while cards are all safe: 33 + 1 + 2 + 3 = 39, doubled 78, + 10 = 88
    assert both[0] == 88


@pytest.mark.parametrize("edition", ["flip7", "vengeance"])
def test_cards_are_the_whole_deck_in_every_state_of_a_solo_game(edition: str) -> None:
    """The set of all cards the memo key numbers (pile, discard, lines, held cards,
    cards pending in frames) is the deck at every state of random solo games."""
    import random

    from flip7ref.analysis import _cards

    game = Game(edition, 1)
    deck = tuple(sorted(game.deck))
    rng = random.Random(edition)
    seen_frames = 0
    for seed in range(40):
        s = game.new_initial_state(seed=seed)
        for _ in range(200):
            if s.is_terminal():
                break
            assert _cards(s) == deck
            seen_frames += bool(s.frames) and s.current_player == 0
            if s.current_player == 0:
                s = s.apply(rng.choice(s.legal_actions()))
            else:
                s = s.apply_chance(rng.choice([c for c, _ in s.chance_weights()]))
    assert seen_frames > 0  # decisions with cards waiting in frames were met


@pytest.mark.rules("F7-113", "F7-040")
def test_one_solver_keeps_apart_decks_that_differ_only_in_the_discard_pile() -> None:
    """An empty pile: the Hit reshuffles the discard pile, so two positions with the same
    line and pile but different discards are different decks (one solver, two values)."""
    a = SOLO.new_position(lines={0: ["5"]}, discard=["6", "7"], seed=None, rest="out", totals=[200])
    b = SOLO.new_position(lines={0: ["5"]}, discard=["6", "5"], seed=None, rest="out", totals=[200])
    shared = SoloSolver(exact=True)
    both = [shared.solve(a).value, shared.solve(b).value]
    # a: hit twice, 5 + 6 + 7 = 18; b: the 6 (one half) then stay at 11, or the 5 busts
    assert both == [SoloSolver(exact=True).solve(a).value, SoloSolver(exact=True).solve(b).value]
    assert both == [Fraction(18), Fraction(11, 2)]


def test_best_action_after_solving_another_deck() -> None:
    """best_action keys its position by its own deck, not the last one solved."""
    line = {0: ["12", "11", "10"]}
    rich = SOLO.new_position(lines=line, draw=["1", "2", "3", "x2", "+10"], seed=None, rest="out", totals=[200])
    poor = SOLO.new_position(lines=line, draw=["1", "12", "11", "3"], seed=None, rest="out", totals=[200])
    shared = SoloSolver(exact=True)
    assert shared.best_action(rich) == HIT
    assert shared.best_action(poor) == SoloSolver(exact=True).best_action(poor) == STAY  # hit 35/2 < stay 33


def test_one_solver_shares_the_states_of_the_same_deck_whatever_the_line_order() -> None:
    """The same cards in another line order are the same deck: the second solve adds no state."""
    a = SOLO.new_position(lines={0: ["12", "11"]}, draw=["1", "2", "3"], seed=None, rest="out", totals=[200])
    b = SOLO.new_position(lines={0: ["11", "12"]}, draw=["1", "2", "3"], seed=None, rest="out", totals=[200])
    shared = SoloSolver(exact=True)
    first, second = shared.solve(a), shared.solve(b)
    assert first.value == second.value == 29
    assert first.states == second.states == 8


def _solve_on_a_terminal(*flags: str) -> tuple[int, str, str]:
    """``flip7ref solve --cards numbers`` by the interpreter in one process, its stderr a
    pseudo-terminal (where the spinner shows): exit status, stdout, what the terminal got."""
    import os
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | {"TERM": "xterm-256color", "COLUMNS": "100"}
    cmd = [sys.executable, "-m", "flip7ref", "solve", "--cards", "numbers", "--solver", "interpreter", "--workers", "1"]
    proc = subprocess.Popen([*cmd, *flags], stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the process closed its end
            break
        if not data:
            break
        chunks.append(data)
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    proc.wait(60)
    os.close(master)
    return proc.returncode, out, b"".join(chunks).decode(errors="replace")


def test_solve_no_progress_hides_the_spinner_on_a_terminal() -> None:
    """``solve`` shows a spinner on a terminal's stderr; ``--no-progress`` (the flag of simulate,
    tournament and bench-agents) hides it and changes nothing else (before: an unknown flag, exit 2)."""
    code, shown_out, shown = _solve_on_a_terminal()
    assert code == 0 and "solving numbers exactly (about a second)..." in shown
    code, out, err = _solve_on_a_terminal("--no-progress")
    assert (code, err) == (0, "")
    same = [line for line in out.splitlines() if not line.startswith("time ")]
    assert same == [line for line in shown_out.splitlines() if not line.startswith("time ")]
    assert same[2] == "expected score     18.5652176141 points"
