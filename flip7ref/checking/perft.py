"""Perft cases: counting every deal order of a small pile, as chess engines are checked.

A ``kind: perft`` case gives a position whose draw pile is a multiset (``setup.pile``:
card id -> copies) and a fixed decision policy (``always-hit``, ``threshold:N`` — stay
once the line scores N or more — or one of those per seat).  Every other choice (a
target, a Swap, a Steal) takes the first legal action in the reference's order.  The
reference walks its own chance nodes until the round is scored and expects:

- ``orders``: how many distinct deal orders (sequences of cards drawn) end the round;
- ``outcomes``: how many of them end with each round-score vector (``"[14, 0]"``);
- ``scores``: the exact probability of each round-score vector, as a fraction string;
- ``divide``: the number of deal orders by the first card drawn.

`leaves` enumerates those orders; each becomes an ordinary ``round`` case with
the pile stacked in that order (`leaf_case`), so an engine is driven through the
existing protocol, and `aggregate` counts what it observed; `flip7ref.checking.perft_check.check` drives an engine
through the orders and judges it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

import attrs

from flip7ref.checking.cases import Case
from flip7ref.core.errors import Flip7RefError
from flip7ref.core.game import Game
from flip7ref.core.scoring import score_cards
from flip7ref.core.state import CHANCE, State

LEAF_LIMIT = 5000
"""The most deal orders a perft case may have."""

DEPTH_LIMIT = 200
"""The most draws and decisions a deal order may take (a reshuffled pile could cycle)."""


@attrs.frozen
class Leaf:
    """One deal order of a perft case.

    Attributes:
        cards: the cards drawn, in order.
        actions: the decisions the policy took, in order.
        probability: the chance of this order (exact).
        scores: the round scores the reference gives it.
    """

    cards: tuple[str, ...]
    actions: tuple[str, ...]
    probability: Fraction
    scores: tuple[int, ...]


def _policy(case: Case, seat: int) -> str:
    policy = case["policy"]
    if isinstance(policy, Mapping):
        return str(policy.get(seat, policy.get(str(seat), "always-hit")))
    return str(policy)


def decide(case: Case, state: State) -> str:
    """The policy's decision at a decision node (see the module docstring)."""
    legal = state.legal_action_strings()
    seat = state.current_player
    if "hit" in legal and "stay" in legal:
        policy = _policy(case, seat)
        if policy.startswith("threshold:"):
            score = score_cards(state.game, state.line(seat)).score if state.line(seat) else 0
            return "stay" if score >= int(policy.split(":", 1)[1]) else "hit"
        return "hit"
    return legal[0]


def _pile(case: Case) -> list[str]:
    return [card for card, n in sorted(case["setup"]["pile"].items()) for _ in range(int(n))]


def start(case: Case) -> State:
    """The starting state of a perft case (its pile in sorted order; order does not matter
    to the enumeration, which branches at every chance node).

    Raises:
        Flip7RefError: invalid edition, options or cards.
    """
    setup = case["setup"]

    def seats(key: str) -> dict[int, Any]:
        return {int(k): v for k, v in (setup.get(key) or {}).items()}

    game = Game(case["edition"], setup["players"], case.get("options") or {})
    return game.new_position(
        dealer=setup["dealer"], turn=setup.get("turn"), lines=seats("lines"), kept=seats("kept"),
        statuses=seats("statuses"), draw=_pile(case), totals=setup.get("totals"), round_number=setup.get("round", 1),
        seed=0, rest="out", deal=setup.get("deal", False),
    )  # fmt: skip


def leaves(case: Case) -> Iterator[Leaf]:
    """Every deal order of a perft case until the round is scored, depth first in table order.

    Raises:
        Flip7RefError: more than `LEAF_LIMIT` orders, or an invalid position.
    """
    first = start(case)
    pile = Counter(_pile(case))
    count = 0
    stack: list[tuple[State, tuple[str, ...], tuple[str, ...], Fraction]] = [(first, (), (), Fraction(1))]
    while stack:
        state, cards, actions, p = stack.pop()
        if len(cards) + len(actions) > DEPTH_LIMIT:
            raise Flip7RefError(f"perft case {case['id']}: the round does not end within {DEPTH_LIMIT} steps")
        if state.is_terminal() or state.round != first.round:
            count += 1
            if count > LEAF_LIMIT:
                raise Flip7RefError(f"perft case {case['id']}: more than {LEAF_LIMIT} deal orders")
            yield Leaf(cards, actions, p, tuple(state.last_scores))
            continue
        if state.current_player == CHANCE:
            outcomes = state.chance_outcomes()
            if not outcomes:
                raise Flip7RefError(f"perft case {case['id']}: the pile ran out before the round ended")
            for card, q in reversed(outcomes):
                if cards.count(card) >= pile[card]:  # a copy from the discard pile: it was reshuffled
                    why = "the discard pile is reshuffled (a perft round must end before the pile runs out)"
                    raise Flip7RefError(f"perft case {case['id']}: {why}")
                stack.append((state.apply_chance(card), (*cards, card), actions, p * q))
        else:
            action = decide(case, state)
            stack.append((state.apply(action), cards, (*actions, action), p))


def expectations(case: Case) -> dict[str, Any]:
    """What the reference expects of a perft case (``orders``, ``outcomes``, ``scores``, ``divide``)."""
    found = list(leaves(case))
    return aggregate([(leaf, list(leaf.scores)) for leaf in found])


def aggregate(observed: list[tuple[Leaf, Any]]) -> dict[str, Any]:
    """Count deal orders by observed round scores (each leaf with the scores an engine reported)."""
    outcomes: Counter[str] = Counter()
    scores: dict[str, Fraction] = {}
    divide: Counter[str] = Counter()
    for leaf, seen in observed:
        key = str(list(seen)) if isinstance(seen, list) else "(no round_scores)"
        outcomes[key] += 1
        scores[key] = scores.get(key, Fraction(0)) + leaf.probability
        divide[leaf.cards[0] if leaf.cards else "(none)"] += 1
    return {
        "orders": len(observed),
        "outcomes": dict(sorted(outcomes.items())),
        "scores": {k: str(v) for k, v in sorted(scores.items())},
        "divide": dict(sorted(divide.items())),
    }


def leaf_case(case: Case, index: int, leaf: Leaf) -> dict[str, Any]:
    """A perft leaf as an ordinary ``round`` case: the pile stacked with the leaf's cards on top
    (the rest below, sorted), the policy's actions, and the reference's ``round_scored`` event expected."""
    rest = Counter(_pile(case))
    rest.subtract(leaf.cards)
    setup = {k: v for k, v in case["setup"].items() if k != "pile"}
    setup["draw"] = [*leaf.cards, *sorted(rest.elements())]
    return {
        "id": case["id"], "title": f"{case['title']} (deal order {index + 1}: {' '.join(leaf.cards)})",
        "edition": case["edition"], "options": dict(case.get("options") or {}), "rules": list(case["rules"]),
        "source": case["source"], "kind": "round", "setup": setup, "actions": list(leaf.actions),
        "expect": {"events_include": [{"type": "round_scored", "round": setup.get("round", 1), "scores": list(leaf.scores)}]},
    }  # fmt: skip


def round_scores(observed: Mapping[str, Any], number: int) -> Any:
    """The scores of round ``number`` in an observed outcome: its ``round_scored`` event (a leaf
    case goes on into the next round), else ``round_scores``."""
    for event in observed.get("events") or ():
        if isinstance(event, Mapping) and event.get("type") == "round_scored" and event.get("round") == number:
            return event.get("scores")
    return observed.get("round_scores")


def _scores_words(key: str) -> str:
    if key == "(no round_scores)":
        return "no round scores reported"
    if key == "[]":
        return "round scores [] (an empty list: no seat scored)"
    return f"round scores {key}"


def compare_perft(expect: Mapping[str, Any], got: Mapping[str, Any]) -> list[str]:
    """The differences between a perft case's expectations and the counts observed, in words
    (``deal orders ending with round scores [12, 0]: expected 3, observed 2``)."""
    diffs = []
    for key in ("orders", "outcomes", "scores", "divide"):
        if key not in expect:
            continue
        want, have = expect[key], got.get(key)
        if key == "orders":
            if want != have:
                diffs.append(f"deal orders played to the round's end: expected {want}, observed {have}")
            continue
        want = {str(k): (str(v) if key == "scores" else v) for k, v in want.items()}
        for k in sorted(set(want) | set(have or {})):
            w, h = want.get(k, 0), (have or {}).get(k, 0)
            if w == h:
                continue
            if key == "outcomes":
                diffs.append(f"deal orders ending with {_scores_words(k)}: expected {w}, observed {h}")
            elif key == "scores":
                diffs.append(f"probability of {_scores_words(k)}: expected {w}, observed {h}")
            else:
                diffs.append(f"deal orders whose first card is {k}: expected {w}, observed {h}")
    return diffs
