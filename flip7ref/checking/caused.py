"""Blame in an order of its own, and blame with a cause: where a reshuffle's missing cards went.

`flip7ref.checking.blame.blame` orders the rules of the step behind the first difference; a
situation's rules (`Ordered`) keep their own order, and a blame whose first rule has a reason
of its own (`Caused`, for `flip7ref.checking.shortlist.short_blame`) carries it.  The one such
reason so far: a reshuffle of fewer cards than the reference's is a symptom of cards that never
reached the discard pile (`reshuffle_cause`), not of the reshuffle rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from flip7ref.checking.zones import RulesOf, journeys
from flip7ref.core.spec import Edition
from flip7ref.core.state import State


class Ordered(tuple[str, ...]):
    """Rule ids already in blame order: a situation key's (``flip7#zero``: the 0 first, a rule
    on the box that this situation exercised), which `flip7ref.checking.blame.play_first`
    leaves as they are."""

    __slots__ = ()


class Caused(Ordered):
    """`Ordered` rule ids whose first has a reason of its own to be blamed (``reason``, for
    `flip7ref.checking.shortlist.short_blame`): where a reshuffle's missing cards went."""

    reason: str = ""


def caused(rules: Sequence[str], reason: str) -> Caused:
    """``rules`` without repeats as `Caused`, the first blamed for ``reason``."""
    out = Caused(dict.fromkeys(rules))
    out.reason = reason
    return out


def _rounds(events: Sequence[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """``events`` cut at each ``round_started`` (the first part: the events before any)."""
    out: list[list[Mapping[str, Any]]] = [[]]
    for ev in events:
        if ev.get("type") == "round_started":
            out.append([])
        out[-1].append(ev)
    return out


def _their_reshuffle(events: Sequence[Mapping[str, Any]], index: int, theirs: Sequence[Mapping[str, Any]],
                     none: int | None) -> object:  # fmt: skip
    """The ``cards`` of the engine's reshuffle matching the reference's at event ``index`` (of
    the same rank in the same round: a later round's is another one), or ``none`` if it has none."""
    mine = _rounds(events[:index])
    rank = sum(1 for e in mine[-1] if e.get("type") == "reshuffled")
    rounds = _rounds(theirs)
    shuffles = [e for e in rounds[len(mine) - 1] if e.get("type") == "reshuffled"] if len(mine) <= len(rounds) else []
    return shuffles[rank].get("cards", none) if rank < len(shuffles) else none


def reshuffle_cause(states: Sequence[State], spans: Sequence[tuple[int, int]], events: Sequence[Mapping[str, Any]],
                    index: int, theirs: Sequence[Mapping[str, Any]], edition: Edition,
                    rules_of: RulesOf) -> tuple[str, ...]:  # fmt: skip
    """Where the cards of a reshuffle went, when the engine reshuffled fewer.

    Args:
        states: the reference's states, one per step.
        spans: for each state, the range of indices of the events its step added.
        events: the reference's events as protocol dicts; event ``index`` is one of its
            ``reshuffled`` events.
        index: the reshuffle's index in ``events``.
        theirs: the engine's events: its reshuffle of the same rank in the same round is
            compared, none counting as 0 cards.
        edition: the edition table.
        rules_of: `flip7ref.checking.blame.rules_of` (an event's rules for a field).

    Returns:
        The rules of the one journey to the discard pile since the deal of exactly the missing
        number of cards (`flip7ref.checking.zones.journeys`: a round's cards at its end, F7-111,
        also when that end is in the reshuffle's own step); else, when no one journey moved that
        number, the rules of the journeys of one set of rules that together did (two Flip Three
        cards, each at its Flip Three's end, F7-078); else empty.
    """
    want = events[index].get("cards")
    if events[index].get("type") != "reshuffled" or not isinstance(want, int) or not states:
        return ()
    got = _their_reshuffle(events, index, theirs, 0)
    if not isinstance(got, int) or got >= want:
        return ()
    k = next((k for k, (start, end) in enumerate(spans) if start <= index < end), 0)
    if k == 0 or len(states[k - 1].discard) > want:
        return ()
    went = journeys(states[:k], spans[:k], events, edition, rules_of)
    extra = want - len(states[k - 1].discard)
    if extra:  # the rest came earlier in the reshuffle's own step, unnamed: a round's cards at its end
        mapped = [j for j in range(spans[k][0], index) if f"{events[j].get('type')}@discard" in edition.event_rules]
        if not mapped:
            return ()
        went += [(mapped[-1], None, rules_of(events[mapped[-1]], edition, "discard"))] * extra
    moved = Counter((i, card) for i, card, _ in went)
    fits = [key for key, size in moved.items() if size == want - got]
    if len(fits) == 1:
        return rules_of(events[fits[0][0]], edition, "discard")
    if fits:
        return ()
    # no one journey: the journeys by one rule together (a Flip Three card at each Flip Three's end)
    by_rules = Counter(rules for _, _, rules in went)
    groups = [rules for rules, size in by_rules.items() if size == want - got and rules]
    return groups[0] if len(groups) == 1 else ()


def kept_cause(states: Sequence[State], spans: Sequence[tuple[int, int]], events: Sequence[Mapping[str, Any]],
               index: int, theirs: Sequence[Mapping[str, Any]], edition: Edition,
               rules_of: RulesOf) -> tuple[str, ...]:  # fmt: skip
    """Which cards the reference kept in play, when the engine reshuffled more than the reference
    (event ``index``: a ``reshuffled`` of fewer cards than the engine's of the same rank, or a
    ``deck_exhausted`` of an empty discard pile where the engine reshuffles); arguments as for
    `reshuffle_cause`.

    Returns:
        The rules of the latest event of the round before ``index`` that the table maps for the
        discard pile (``TYPE@discard``) and that moved no card there in the reference — cards
        it kept in front of a player (a busted line until the round's end, F7-041; a Freeze in
        front of its target) — or empty.
    """
    kind = events[index].get("type")
    if kind == "reshuffled":
        want = events[index].get("cards")
    elif kind == "deck_exhausted" and events[index].get("reason") is None:
        want = 0
    else:
        return ()
    got = _their_reshuffle(events, index, theirs, None)
    if not isinstance(want, int) or not isinstance(got, int) or got <= want or not states:
        return ()
    k = next((k for k, (start, end) in enumerate(spans) if start <= index < end), 0)
    landed = {i for i, _, _ in journeys(states[: k + 1], spans[: k + 1], events, edition, rules_of)}
    for j in range(index - 1, -1, -1):
        if events[j].get("type") == "round_started":
            break
        if f"{events[j].get('type')}@discard" in edition.event_rules and j not in landed:
            return rules_of(events[j], edition, "discard")
    return ()
