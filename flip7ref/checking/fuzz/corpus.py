"""Games started from the suite's own cases (`seeded`), as fuzzers start from a corpus.

A shipped case that sets up a table in the middle of a round puts the game where a rule is at
work: a stayed line about to receive a card, a Just One More beside The Zero, a Flip Three
with a Second Chance.  A seeded game takes such a table (lines, kept cards, statuses, whose
turn, dealer, totals, the case's stacked pile, then the deck's other cards shuffled below it),
plays the case's decisions while they are legal, then random ones, under readings drawn at
random from the engine's: a case written to pin one reading is then played under the
engine's own, which the fixed suite never asks (an engine with another default passes a case
that names its option).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from flip7ref.checking.conformance import Case, load_cases
from flip7ref.core.errors import Flip7RefError
from flip7ref.core.game import Game
from flip7ref.core.state import State

Policy = Callable[[State, list[str]], int]


@cache
def tables(edition: str) -> tuple[Case, ...]:
    """The shipped cases of ``edition`` that set up a table in the middle of a round (their
    setup gives ``lines``; not a perft case).  Raises nothing: an unreadable suite gives ()."""
    try:
        cases = load_cases()
    except Flip7RefError:  # pragma: no cover - the shipped suite loads
        return ()
    return tuple(c for c in cases if c["edition"] == edition and c["kind"] != "perft" and "lines" in (c.get("setup") or {}))


def _rest(game: Game, setup: Mapping[str, Any], rng: random.Random) -> list[str] | None:
    """The deck's cards not placed by ``setup`` (lines, kept cards, pile, discard pile), shuffled;
    None when the setup places more copies of a card than the deck holds."""
    left = Counter(game.card_ids[c] for c in game.deck)
    placed: list[str] = [*setup.get("draw", ()), *setup.get("discard", ())]
    for key in ("lines", "kept"):
        for cards in (setup.get(key) or {}).values():
            placed.extend(cards)
    left.subtract(placed)
    if any(n < 0 for n in left.values()):
        return None
    rest = list(left.elements())
    rng.shuffle(rest)
    return rest


def seeded(
    rng: random.Random,
    edition: str,
    readings: Callable[[Mapping[str, Any]], dict[str, Any]],
    players: tuple[int, int],
) -> tuple[dict[str, Any], tuple[str, ...], int, dict[str, Any]] | None:
    """A table from a random shipped case of ``edition`` seating a player count within
    ``players`` (the engine's bounds): more often a case that pins a dispute's reading (its
    situation is one where engines part).

    Args:
        readings: the options of the game from the case's own options (the engine plays
            its own readings; an engine whose default differs from the one the case pins
            is then asked the situation under its default, which the fixed case never does).

    Returns:
        The trial's fields (``dealer``, ``draw``, ``totals``, ``round``, ``discard``,
        ``position``), the case's decisions, its player count and the game's options; None
        when no case fits or its cards do not fit in the deck under those options.
    """
    low, high = players
    fitting = [c for c in tables(edition) if low <= c["setup"]["players"] <= high]
    if not fitting:
        return None
    pinning = [c for c in fitting if "reading" in c]
    case = rng.choice(pinning if pinning and rng.random() < 0.85 else fitting)
    setup = case["setup"]
    options = readings(case.get("options") or {})
    try:
        game = Game(edition, setup["players"], dict(options))
    except Flip7RefError:
        return None
    rest = _rest(game, setup, rng)
    if rest is None:
        return None
    position = {key: setup[key] for key in ("lines", "kept", "statuses", "turn") if key in setup}
    position["lines"] = {str(k): list(v) for k, v in setup["lines"].items()}
    for key in ("kept", "statuses"):
        if key in position:
            position[key] = {str(k): v for k, v in position[key].items()}
    fields = {
        "dealer": setup["dealer"], "draw": (*setup.get("draw", ()), *rest),
        "totals": tuple(setup["totals"]) if setup.get("totals") else None, "round": setup.get("round", 1),
        "discard": tuple(setup.get("discard", ())), "position": json.dumps(position, sort_keys=True),
    }  # fmt: skip
    return fields, tuple(case.get("actions") or ()), setup["players"], options


def scripted(actions: Sequence[str], then: Policy) -> Policy:
    """A policy taking ``actions`` in order while each is legal where it comes, then ``then``'s
    choices (from the first that is not legal on)."""
    state = {"next": 0, "off": False}

    def choose(current: State, legal: list[str]) -> int:
        index = state["next"]
        if not state["off"] and index < len(actions) and actions[index] in legal:
            state["next"] = index + 1
            return legal.index(actions[index])
        state["off"] = True
        return then(current, legal)

    return choose
