"""Where cards went: the rule behind a discard pile of another size than the reference's.

Several rules each send a different card to the discard pile at a different moment (a busted
line at the round's end, the Flip Three card when it finishes, a used Second Chance with the
duplicate it cancelled, every card of a round when it ends...).  When an engine's discard pile
holds another number of cards, the blame looks at WHICH cards the reference's pile holds and
which event of the reference put each there — the event naming that card, else the step's
event that the edition table maps for the discard pile (``TYPE@discard``) and that names no
card (the round's end), else the step's last such event or its last event:

- the engine holds ``k`` cards fewer: when exactly one journey moved ``k`` cards, that
  journey's rules are blamed (a card the event names is a journey of its own: a used Second
  Chance and the duplicate it cancelled are two; the cards an event moves unnamed, a round's
  cards at its end, are one); when several did, a count cannot tell which card is missing:
  the last step's rules (below) come first when they are a fitting journey's, then every
  fitting journey's, latest first;
- the engine holds more: the reference kept the cards of an event the table maps for the
  discard pile in front of a player instead (a busted line, ``busted@discard``; a Freeze in
  front of its target, ``frozen@discard``): the latest such event is blamed;
- otherwise, the last step that moved cards to the discard pile (its last event the table
  maps for the pile).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flip7ref.core.spec import Edition
from flip7ref.core.state import State

RulesOf = Callable[[Mapping[str, Any], Edition, str], tuple[str, ...]]
"""`flip7ref.checking.blame.rules_of` (an event's rules for a field), passed in: blame imports this module."""


def _names(ev: Mapping[str, Any]) -> list[str]:
    """The card ids an event names (``card``, ``shield``, ``cards``)."""
    found = [str(ev[k]) for k in ("card", "shield") if isinstance(ev.get(k), str)]
    found += [str(c) for c in ev.get("cards") or () if isinstance(c, str)]
    return found


def _discards(ev: Mapping[str, Any], edition: Edition) -> bool:
    """Whether an event may move the cards it names to the discard pile: a ``discarded``,
    ``line_wiped`` or ``card_discarded`` event, or one the table maps for the pile."""
    kind = ev.get("type")
    return kind in ("discarded", "line_wiped", "card_discarded") or f"{kind}@discard" in edition.event_rules


def journeys(states: Sequence[State], spans: Sequence[tuple[int, int]], events: Sequence[Mapping[str, Any]],
             edition: Edition, rules_of: RulesOf) -> list[tuple[int, str | None, tuple[str, ...]]]:  # fmt: skip
    """Each card the reference's steps added to the discard pile, in order: ``(event index,
    card id, rules)``, the rules those of the event that moved it (module docstring); the
    card id None when that event does not name it.

    Args:
        states: the reference's states, one per step (`flip7ref.explore.CaseRun.states`).
        spans: for each state, the range of indices of the events its step added.
        events: the reference's events as protocol dicts.
        edition: the edition table.
        rules_of: `flip7ref.checking.blame.rules_of`.
    """
    out: list[tuple[int, str | None, tuple[str, ...]]] = []
    for k in range(1, len(states)):
        ids = states[k].game.card_ids
        added = Counter(ids[c] for c in states[k].discard) - Counter(ids[c] for c in states[k - 1].discard)
        if not added:
            continue
        start, end = spans[k]
        if end <= start:
            continue
        mapped = [i for i in range(start, end) if f"{events[i].get('type')}@discard" in edition.event_rules]
        unnamed = [i for i in mapped if not _names(events[i])]  # moves cards it does not name: a round's end
        fallback = (unnamed or mapped or [end - 1])[-1]
        for card, count in added.items():
            naming = [i for i in range(start, end) if card in _names(events[i]) and _discards(events[i], edition)]
            for copy in range(count):  # copies of one card: one to each event naming it, the last first
                i = naming[-1 - copy] if copy < len(naming) else fallback
                out.append((i, card if copy < len(naming) else None, rules_of(events[i], edition, "discard")))
    return out


def discard_rules(states: Sequence[State], spans: Sequence[tuple[int, int]], events: Sequence[Mapping[str, Any]],
                  edition: Edition, rules_of: RulesOf, seen: object = None) -> tuple[str, ...]:  # fmt: skip
    """The rules behind a discard pile (``discard_count`` or ``draw`` in dispute) of another
    size than the reference's (module docstring); ``seen``: the engine's ``discard_count``
    (None or not a number: the last step that moved cards there); ``spans`` and ``rules_of``
    as for `journeys`.  Empty when no step did."""
    moved = journeys(states, spans, events, edition, rules_of)
    have = len(states[-1].discard) if states else 0
    if isinstance(seen, int) and not isinstance(seen, bool) and seen != have:
        if seen < have:
            sizes = Counter((i, card) for i, card, _ in moved)
            fits = {key for key, size in sizes.items() if size == have - seen}
            if len(fits) == 1:
                i = next(iter(fits))[0]
                return next(rules for j, _, rules in moved if j == i)
            if fits:  # several journeys of that size: the last step's rules first if it moved one, then every fitting one's
                last = _last_step(states, spans, events, edition, rules_of, {i for i, card, _ in moved if card is not None})
                fitting = [rules for j, card, rules in reversed(moved) if (j, card) in fits]
                if last not in fitting:  # the last step moved none of them (a Freeze kept in front)
                    last = ()
                return tuple(dict.fromkeys(last + tuple(r for rules in fitting for r in rules)))
        else:
            landed = {i for i, _, _ in moved}
            kept = [i for start, end in spans[1:] for i in range(start, end)
                    if f"{events[i].get('type')}@discard" in edition.event_rules and i not in landed]  # fmt: skip
            if kept:
                return rules_of(events[kept[-1]], edition, "discard")
    return _last_step(states, spans, events, edition, rules_of, {i for i, card, _ in moved if card is not None})


def _last_step(states: Sequence[State], spans: Sequence[tuple[int, int]], events: Sequence[Mapping[str, Any]],
               edition: Edition, rules_of: RulesOf, naming: set[int]) -> tuple[str, ...]:  # fmt: skip
    """The rules of the last step that moved cards to the discard pile: its last event the
    table maps for the discard pile (not one that kept the cards it names in play: not in
    ``naming``, the events naming a card they moved, while some are), else its last event."""
    for k in range(len(states) - 1, 0, -1):
        if len(states[k].discard) == len(states[k - 1].discard):
            continue
        start, end = spans[k]
        mapped = [i for i in range(start, end) if f"{events[i].get('type')}@discard" in edition.event_rules]
        if any(i in naming for i in mapped):
            mapped = [i for i in mapped if i in naming]
        if mapped:
            return rules_of(events[mapped[-1]], edition, "discard")
        if end > start:
            return rules_of(events[end - 1], edition, "")
    return ()
