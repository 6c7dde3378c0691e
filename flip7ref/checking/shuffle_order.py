"""Whether a case's expected outcome hangs on how the reference shuffles.

A case fixes the cards it draws with a stacked pile; when its pile runs out, the discard
pile is reshuffled (F7-113), and the order of that new pile is the engine's business
(conformance/PROTOCOL.md). An expectation that the reference recomputes under an engine's
readings (`flip7ref.checking.verdict.prepare`) may reach such a reshuffle where the case as written
does not (an engine declaring ``reshuffles: unlimited`` reshuffles again where the default
reading exhausts the deck) and then draw from a pile whose order only the reference's
private shuffle decided. `shuffle_dependence` replays the case with another shuffle (the
reference's order reversed) and says whether the expectation changes; the harness then
skips the case for that engine, with the reason, instead of judging it on the
reference's private order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flip7ref.checking.conformance import Case
from flip7ref.checking.runs import Run, run_case

Restack = Callable[[list[str]], list[str]]
"""A shuffle: the new draw pile's card ids, top first, in the order it puts them."""


def reverse(cards: list[str]) -> list[str]:
    """The pile turned over: the reference's shuffle, then the order reversed."""
    return cards[::-1]


def shuffled_during(run: Run) -> bool:
    """Whether a shuffle made a new draw pile during ``run`` (only then can its order matter)."""
    if len(run.states) < 2:
        return False
    before = run.states[0].shuffles
    return any(state.shuffles != before for state in run.states)


def shuffle_dependence(
    case: Case,
    options: Mapping[str, Any],
    expect: Mapping[str, Any],
    derive: Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, Any]],
    run: Run,
    restack: Restack = reverse,
) -> str | None:
    """Whether the expectation of ``case`` under ``options`` depends on the shuffle order.

    Args:
        case: the case as written.
        options: the options the engine plays it with (non-default values).
        expect: the expectation recomputed on the reference's run under those options.
        derive: how an expectation is recomputed from an observed outcome
            (`flip7ref.checking.verdict.derive_expect`).
        run: the reference's run of the case under ``options``.
        restack: the other shuffle to try (default `reverse`).

    Returns:
        None when no shuffle happened in ``run`` or the other shuffle gives the same
        expectation; else one line saying what differs (the expectation's keys that
        change, or the decision that is no longer legal).
    """
    if not shuffled_during(run):
        return None
    other = run_case({**case, "options": dict(options)}, restack=restack)
    if other.stopped:
        return f"with another shuffle of the reshuffled pile the case's decisions are not legal ({other.stopped})"
    again = derive(case["expect"], other.observed)
    changed = sorted(k for k in set(again) | set(expect) if again.get(k) != expect.get(k))
    if not changed:
        return None
    return f"its expected {', '.join(changed)} then depend on how the reshuffled pile is ordered, which the case does not fix"
