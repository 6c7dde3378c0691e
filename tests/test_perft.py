"""Perft cases: counts of deal orders, checked by brute force over every permutation of the
pile (independently of the reference's chance nodes), and driven through the protocol."""

from __future__ import annotations

import itertools
import math
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from flip7ref.checking.conformance import build_state, load_cases
from flip7ref.checking.harness import run_engine, run_in_process
from flip7ref.checking.perft import decide
from flip7ref.core.state import CHANCE

WRONG = Path(__file__).parent / "engines" / "wrong_rules.py"
SERVE = f"{sys.executable} -m flip7ref.cli conformance serve"


def _perft() -> list[Any]:
    return [c for c in load_cases() if c["kind"] == "perft"]


def _full_orders(case: Any) -> int:
    """How many distinct orders of the whole pile there are (what the brute force plays)."""
    pile = case["setup"]["pile"].values()
    return math.factorial(sum(pile)) // math.prod(math.factorial(n) for n in pile)


def _brute_force(case: Any) -> dict[str, Any]:
    """Play every distinct full order of the pile (each equally likely) with the stacked-pile
    runner, and count the distinct prefixes drawn before the round is scored."""
    pile = [card for card, n in case["setup"]["pile"].items() for _ in range(n)]
    prefixes: dict[tuple[str, ...], str] = {}
    weight: Counter[tuple[str, ...]] = Counter()
    orders = set(itertools.permutations(pile))
    for order in orders:
        setup = {k: v for k, v in case["setup"].items() if k != "pile"}
        state = build_state({**case, "setup": {**setup, "draw": list(order)}})
        first_round, taken = state.round, 0
        while not (state.is_terminal() or state.round != first_round):
            if state.current_player == CHANCE:
                card = state.next_card()
                assert card == order[taken]  # the stacked pile is drawn top first, never reshuffled
                state, taken = state.apply_chance(card), taken + 1
            else:
                state = state.apply(decide(case, state))
        drawn = order[:taken]
        scored = next(e for e in state.events() if e.type == "round_scored")
        prefixes[drawn] = str(list(scored.get("scores")))
        weight[drawn] += 1
    outcomes = Counter(prefixes.values())
    scores: dict[str, Fraction] = {}
    for prefix, key in prefixes.items():
        scores[key] = scores.get(key, Fraction(0)) + Fraction(weight[prefix], len(orders))
    return {"orders": len(prefixes), "outcomes": dict(outcomes), "scores": {k: str(v) for k, v in scores.items()}}


def test_at_least_thirty_perft_cases_across_both_editions() -> None:
    """33 perft cases, with Flip Three and Flip Four chains, Second Chance, Swap, Steal and the special numbers."""
    cases = _perft()
    assert len(cases) >= 30
    assert {c["edition"] for c in cases} == {"flip7", "vengeance"}
    piles = {card for c in cases for card in c["setup"]["pile"]}
    assert {"flip_three", "flip_four", "second_chance", "swap", "steal", "unlucky7", "lucky13", "0", "freeze"} <= piles
    assert any(c["setup"]["pile"].get("flip_three", 0) == 2 for c in cases)  # a chain
    assert any(c["setup"]["pile"].get("flip_four", 0) == 2 for c in cases)  # a chain


@pytest.mark.rules("V-044", "V-040")
def test_the_flip_four_chain_resolves_a_flip_four_revealed_by_a_flip_four() -> None:
    """V-C5015 has deal orders where the second Flip Four is dealt by the first (and set aside),
    the first's four cards end without a bust, and the second is then resolved: a target is
    chosen and a second forced draw starts at once.  By hand: seat 0 (12) must bust on a 12
    first, seat 1 (11) hit the Flip Four and take 9, 10, 12 and the other Flip Four in any of
    4! = 24 orders (seat 0 as the first target would bust on the 12)."""
    from flip7ref.checking.conformance import build_state
    from flip7ref.checking.perft import leaf_case, leaves

    (case,) = [c for c in _perft() if c["id"] == "V-C5015"]
    chained = []
    for index, leaf in enumerate(leaves(case)):
        state = build_state(leaf_case(case, index, leaf))
        while not (state.is_terminal() or state.round != 1):
            state = state.apply_chance(state.next_card()) if state.current_player == CHANCE else state.apply(decide(case, state))
        events = [(e.type, e.get("card"), e.get("outcome")) for e in state.events()]
        resolved = [("forced_draw_ended", "flip_four", "complete"), ("target_chosen", "flip_four", None)]
        for i in range(len(events)):
            if events[i : i + 2] == resolved and events[i + 2][0] == "forced_draw_started":
                start = max(j for j in range(i) if events[j][0] == "forced_draw_started")
                if ("set_aside", "flip_four", None) in events[start:i]:
                    chained.append(leaf)
    assert len(chained) == 24
    assert {leaf.cards[:2] for leaf in chained} == {("12", "flip_four")}
    assert {frozenset(leaf.cards[2:6]) for leaf in chained} == {frozenset({"9", "10", "12", "flip_four"})}


@pytest.mark.rules("V-030", "V-031", "V-032")
def test_the_zero_perft_case_scores_zero_and_a_flip_7_with_it() -> None:
    """V-C5016: seat 0 holds 1-5; drawing The Zero then a new number is a Flip 7 worth 1+..+5+6+0+15 = 36;
    The Zero then the 5 busts (0)."""
    (case,) = [c for c in _perft() if c["id"] == "V-C5016"]
    outcomes = case["expect"]["outcomes"]
    assert outcomes["[36, 0, 17]"] == 1 and outcomes["[36, 14, 21]"] == 1  # seat 2 (a 12) hits on to 17 or 21
    assert sum(n for key, n in outcomes.items() if key.startswith("[36,")) == 2


@pytest.mark.parametrize(
    "case", [c for c in _perft() if c["expect"]["orders"] <= 40 or _full_orders(c) <= 500], ids=lambda c: c["id"]
)
def test_perft_counts_match_a_brute_force_over_every_permutation(case: Any) -> None:
    """orders, outcomes and exact score probabilities equal a count over all permutations of the pile."""
    brute = _brute_force(case)
    assert brute["orders"] == case["expect"]["orders"]
    assert brute["outcomes"] == case["expect"]["outcomes"]
    assert brute["scores"] == case["expect"]["scores"]
    assert sum(case["expect"]["divide"].values()) == case["expect"]["orders"]


def test_perft_over_the_protocol_and_a_wrong_engine() -> None:
    """The reference passes perft cases over the protocol; an engine whose x2 doubles the
    modifiers fails the perft case with x2 and +4 (count differences, then the first order)."""
    cases = [c for c in _perft() if c["id"] in ("F7-C5001", "F7-C5009", "V-C5006")]
    _, results = run_engine(SERVE, cases, timeout=60)
    assert [r.status for r in results] == ["pass"] * 3
    assert [r.status for r in run_in_process(cases)] == ["pass"] * 3
    _, results = run_engine(f"{sys.executable} {WRONG} x2-doubles-modifiers", cases[:2], timeout=60)
    by_id = {r.case_id: r for r in results}
    assert by_id["F7-C5009"].status == "fail"
    assert by_id["F7-C5009"].message == "deal orders ending with round scores [0, 0, 28]: expected 1, observed 0"
    assert any(d.startswith("first deal order that differs: ") for d in by_id["F7-C5009"].diffs)
    assert by_id["F7-C5009"].blame and by_id["F7-C5009"].blame[0] in ("F7-091", "F7-090", "F7-092", "F7-100")


def test_dispute_and_explain_show_perft_cases(capsys: pytest.CaptureFixture[str]) -> None:
    """flip7ref dispute plays an attached perft case under each reading; explain --case prints its counts."""
    from flip7ref.cli import main

    assert main(["dispute", "D-F7-10"]) == 0
    assert "F7-C5017" in capsys.readouterr().out
    assert main(["explain", "--case", "F7-C5001"]) == 0
    out = capsys.readouterr().out
    assert "6 deal orders until the round is scored" in out and "round scores [12, 0, 24]: 1 orders, probability 1/6" in out


def test_a_perft_case_on_an_engine_emitting_only_some_event_types() -> None:
    """An engine declaring the v2 ``events`` capability without ``round_scored`` passes a perft
    case when its ``round_scores`` are right (each deal order is judged on its declared event
    types), and fails it when they are wrong."""
    from flip7ref.checking.conformance import observe
    from flip7ref.checking.harness import implementation
    from flip7ref.checking.perft_check import check

    (case,) = [c for c in _perft() if c["id"] == "V-C5016"]
    impl = {**implementation(), "events": ["dealt", "busted"]}

    def send(request: Any, index: int, wrong: bool = False) -> Any:
        seen = observe(request)
        (scored,) = [e for e in seen["events"] if e["type"] == "round_scored" and e["round"] == 1]
        scores = [s + 1 for s in scored["scores"]] if wrong else scored["scores"]
        events = [e for e in seen["events"] if e["type"] in ("dealt", "busted")]
        return {**seen, "events": events, "round_scores": scores}

    assert check(case, impl, send).status == "pass"
    result = check(case, impl, lambda request, index: send(request, index, wrong=True))
    assert result.status == "fail" and result.message.startswith("deal orders ending with round scores [")
