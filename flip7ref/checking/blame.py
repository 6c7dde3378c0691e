"""Blame: the rule behind the first observation in which an engine differs from the reference.

A failing case is blamed on the rules of the reference's step that produced the first
differing observation, in the order the game produced them — not on the keys a case's
``expect`` happens to list first, nor on its cited rules.  The candidates:

- the event streams: the first reference event the engine's events (all it reported, of the
  types it emits) do not match, or the engine's first extra event;
- an ``events_include`` entry not observed, or observed out of order: the reference event it
  matches; an ``events_exclude`` type observed: the engine's event of that type;
- a seat's ``statuses``, ``lines`` or ``kept``: the reference event about that seat in the
  step that last changed that field of it;
- ``round_scores``, ``totals`` (and a differing ``round_scored`` event): the situation of the
  first seat whose score differs (`score_details`);
- ``round``, ``winners``: the last round or game-end event; ``next``: the decision the
  reference stops at (who is to act: the rules on turns; what they may do: that decision's
  rules); ``draw``, ``discard_count``: the last step that moved cards to the discard pile.

The earliest candidate wins.  An event's rules come from the edition table's ``events``
section (`flip7ref.checking.replay.event_rules`): ``TYPE/DETAIL`` over ``TYPE``, and for a field of a
seat ``TYPE/DETAIL@FIELD`` and ``TYPE@FIELD`` first (what that event does to that field, e.g.
``frozen@kept``: the Freeze stays in front, F7-062).  Rules on components and identity (the
deck's make-up) are put last: they describe the box, not a step of play.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

from flip7ref.checking.caused import Caused as Caused  # re-exported: where callers found it before
from flip7ref.checking.caused import Ordered, caused
from flip7ref.checking.caused import kept_cause as kept_rules
from flip7ref.checking.caused import reshuffle_cause as went_rules
from flip7ref.checking.conformance import Difference, _event_matches
from flip7ref.checking.prepared import Prepared
from flip7ref.checking.replay import DETAILS, event_rules, rules_at
from flip7ref.checking.score_blame import line_details, score_details, score_key, skipped_first
from flip7ref.checking.shortlist import KEPT, WENT
from flip7ref.checking.situation import legality_rules, line_tags, pair_cards, tagged_rules
from flip7ref.checking.zones import discard_rules
from flip7ref.core.errors import CardError
from flip7ref.core.spec import Edition, load_edition
from flip7ref.core.state import CHANCE, TERMINAL, Event, State

BOX_TOPICS = ("components", "identity", "history")
"""Rule topics about the box rather than a step of play: never blamed first."""

SEAT_FIELDS = ("statuses", "lines", "kept")
"""The outcome keys given seat by seat."""

_END = 1 << 30


def _details(data: Mapping[str, Any], edition: Edition) -> list[str]:
    details = [str(data[key]) for key in DETAILS if data.get(key) is not None]
    card = data.get("card")
    if isinstance(card, str):
        details.append(card)
        with contextlib.suppress(CardError):
            details.append(edition.card(card).category)
    return details


def rules_of(
    data: Mapping[str, Any], edition: Edition, field: str | None = None, cause: Mapping[str, Any] | None = None
) -> tuple[str, ...]:
    """The rule ids behind one event (a protocol dict), for what it does to ``field`` (a seat
    field such as ``kept``, or ``discard``) when given: ``TYPE/DETAIL@FIELD``, ``TYPE@FIELD``,
    then, when the event came right after ``cause`` in the same step, ``TYPE<CAUSE/DETAIL``
    and ``TYPE<CAUSE`` (a bust caused by a Steal: ``busted<stolen``), then
    `flip7ref.checking.replay.event_rules`.  Empty for an event the table does not map."""
    table = edition.event_rules
    kind = data.get("type")
    if cause is not None:
        for detail in [*_details(cause, edition), None]:
            key = f"{kind}<{cause.get('type')}" + (f"/{detail}" if detail is not None else "")
            if key in table:
                return table[key]
    if field is not None:
        for detail in _details(data, edition):
            if f"{kind}/{detail}@{field}" in table:
                return table[f"{kind}/{detail}@{field}"]
        if f"{kind}@{field}" in table:
            return table[f"{kind}@{field}"]
    try:
        return event_rules(Event.from_dict(data), edition)
    except (KeyError, TypeError, ValueError):
        return tuple(table.get(str(kind), ()))


def _rules_for(data: Mapping[str, Any], edition: Edition, field: str) -> tuple[str, ...]:
    """`rules_of` for ``field`` (none when empty), for `flip7ref.checking.zones`."""
    return rules_of(data, edition, field or None)


def _maps_field(data: Mapping[str, Any], edition: Edition, field: str) -> bool:
    """Whether the table says what this event does to ``field`` (a ``TYPE@FIELD`` or
    ``TYPE/DETAIL@FIELD`` entry)."""
    kind, table = data.get("type"), edition.event_rules
    return f"{kind}@{field}" in table or any(f"{kind}/{d}@{field}" in table for d in _details(data, edition))


def play_first(rules: Sequence[str], edition: Edition) -> tuple[str, ...]:
    """``rules`` without repeats, the rules on the box (`BOX_TOPICS`) moved last — unless they
    are `Ordered` (a situation's rules, most specific first; `Caused` keeps its reason)."""
    unique = tuple(dict.fromkeys(rules))
    if isinstance(rules, Caused):
        return caused(unique, rules.reason)
    if isinstance(rules, Ordered):
        return Ordered(unique)
    box = tuple(r for r in unique if r in edition.rules and edition.rules[r].topic in BOX_TOPICS)
    return tuple(r for r in unique if r not in box) + box


_SPANS: dict[int, tuple[Sequence[State], list[tuple[int, int]]]] = {}


DECISION_EVENTS = {"play": "target_chosen", "give": "second_chance_given", "keep_or_give": "second_chance_given",
                   "assign": "assigned", "flip7_bonus": "flip7_bonus_chosen"}
"""The event a decision of each kind (`flip7ref.core.state.State.pending`) produces."""

CARD_EVENTS = {"swap": "swapped", "steal": "stolen", "discard_card": "card_discarded"}
"""For a ``cards`` decision, the event of the card's primitive."""


def decision_rules(state: State) -> tuple[str, ...]:
    """The rule ids governing the decision a state is at: the table's rules for the event that
    decision produces (``target_chosen/CARD`` or ``/CATEGORY`` for a target, ``swapped`` for
    a Swap's cards...), then `flip7ref.checking.replay.rules_at`, the rules on the box last."""
    edition = state.game.edition
    kind, card = state.pending()
    found: list[str] = []
    event = DECISION_EVENTS.get(kind)
    if kind == "cards" and card is not None:
        effect = edition.card(card).effect or {}
        event = CARD_EVENTS.get(str(effect.get("primitive")))
    if event is not None:
        data: dict[str, Any] = {"type": event}
        if card is not None:
            data["card"] = card
        found.extend(rules_of(data, edition))
    found.extend(rules_at(state))
    return play_first(found, edition)


def turn_rules(state: State, set_turn: bool = False) -> tuple[str, ...]:
    """The rules deciding who is to act at ``state``: the edition's rules on turns; at the
    first offer of a round (no Hit, Stay or Freeze yet since it started), who is offered
    first is the seat the round starts from, so the table's ``round_started#first_offer`` entry (the
    deal's first seat) goes before them — also at the first decision of a position set up
    without a ``turn`` (its first actor is the seat the round starts from), not when
    ``set_turn`` (the set-up named who acts first)."""
    edition = state.game.edition
    turns = tuple(r.id for r in edition.rules.values() if r.topic == "turns")
    first = edition.event_rules.get("round_started#first_offer")
    if not first:
        return turns
    for ev in reversed(state.events()):
        if ev.type == "round_started":
            return tuple(dict.fromkeys((*first, *turns)))
        if ev.type in ("stayed", "frozen") or (ev.type == "dealt" and ev.get("via") != "deal"):
            return turns
    return turns if set_turn else tuple(dict.fromkeys((*first, *turns)))


def _in_deal(events: Sequence[Mapping[str, Any]]) -> bool | None:
    """Whether the last round's deal is under way or just done: True when its events (from
    the last ``round_started``, or the set-up's deal) hold no Hit, Stay or Freeze yet, False
    when they do, None when there are no events."""
    for ev in reversed(events):
        kind = ev.get("type")
        if kind in ("stayed", "frozen") or (kind == "dealt" and ev.get("via") == "hit"):
            return False
        if kind == "round_started" or (kind == "dealt" and ev.get("via") == "deal"):
            return True
    return None if not events else False


def _steps(states: Sequence[State]) -> list[tuple[int, int]]:
    """For each state, the range of indices of the events its step added (the first state's:
    those of the set-up, a deal included)."""
    cached = _SPANS.get(id(states))
    if cached is not None and cached[0] is states:
        return cached[1]
    spans = []
    before = 0
    for s in states:
        count = len(s.events())
        spans.append((before, count))
        before = count
    _SPANS.clear()
    _SPANS[id(states)] = (states, spans)
    return spans


def _cause(states: Sequence[State], events: Sequence[Mapping[str, Any]], index: int) -> Mapping[str, Any] | None:
    """The event before event ``index`` in the same step, or None (the first of its step)."""
    for start, end in _steps(states):
        if start <= index < end:
            return events[index - 1] if index > start else None
    return None


def _line_at(states: Sequence[State], events: Sequence[Mapping[str, Any]], index: int, seat: object) -> list[str]:
    """The card ids of ``seat``'s line in the reference just before event ``index``: its line
    before that step and the cards dealt to it in the step up to there (in the first step,
    the set-up's line without the cards dealt from ``index`` on)."""
    if not states or not isinstance(seat, int) or not 0 <= seat < len(states[0].players):
        return []
    spans = _steps(states)
    k = next((k for k, (start, end) in enumerate(spans) if start <= index < end), len(spans) - 1)
    start, end = spans[k]
    if k:
        cards = list(states[k - 1].line(seat))
        cards += [str(e.get("card")) for e in events[start:index] if e.get("type") == "dealt" and e.get("seat") == seat]
        return cards
    cards = list(states[0].line(seat))
    for e in events[index:end]:
        if e.get("type") == "dealt" and e.get("seat") == seat and str(e.get("card")) in cards:
            cards.reverse()
            cards.remove(str(e.get("card")))
            cards.reverse()
    return cards


def _next_rules(states: Sequence[State], events: Sequence[Mapping[str, Any]], index: int, edition: Edition) -> tuple[str, ...]:
    """The rules of the last event before event ``index`` (in its step or the last earlier one
    with events, or since the last Hit or Stay: the choices a Flip Three's set-aside cards ask for
    come between its end and the next offer) that the table says decides who acts next
    (``TYPE@next``: a Second Chance used on a Hit, a Flip Three ended), or empty."""
    spans = _steps(states)
    k = next((k for k, (start, end) in enumerate(spans) if start <= index < end), len(spans) - 1)
    earlier = [start for start, end in spans[:k] if end > start]
    begin = earlier[-1] if earlier else 0
    offers = [j for j in range(1, k + 1) if states[j - 1].current_player not in (CHANCE, TERMINAL)
              and states[j - 1].pending()[0] == "offer"]  # fmt: skip
    if offers:
        begin = min(begin, spans[offers[-1]][0])
    for j in range(index - 1, begin - 1, -1):
        if _maps_field(events[j], edition, "next"):
            return rules_of(events[j], edition, "next")
    return ()


def _first_deal(events: Sequence[Mapping[str, Any]], index: int) -> bool:
    """Whether event ``index`` is the first card of its round's deal (no ``dealt`` of the deal
    since the round started, or since the set-up): its seat is the seat the round starts from."""
    for ev in reversed(events[:index]):
        if ev.get("type") == "round_started":
            return True
        if ev.get("type") == "dealt" and ev.get("via") == "deal":
            return False
    return True


DRAWS = ("dealt", "forced_draw_started")
"""Event types in which their ``seat`` draws: never a seat out of the round (frozen, busted)."""


def _out_seat(states: Sequence[State], events: Sequence[Mapping[str, Any]], index: int, other: Mapping[str, Any],
              edition: Edition) -> tuple[str, ...]:  # fmt: skip
    """When the engine's event in the place of the reference's event ``index`` has a seat draw
    (`DRAWS`) that the reference took out of the round earlier in the same step (a ``frozen``
    or ``busted`` about it, both engines agreeing up to there): the rules of that event for the
    seat's status, the taking out the engine did not apply; else empty."""
    seat = other.get("seat")
    if other.get("type") not in DRAWS or not isinstance(seat, int) or isinstance(seat, bool):
        return ()
    spans = _steps(states)
    start = next((start for start, end in spans if start <= index < end), index)
    for j in range(index - 1, start - 1, -1):
        ev = events[j]
        if ev.get("type") in ("frozen", "busted") and ev.get("seat") == seat:
            return rules_of(ev, edition, "statuses", cause=_cause(states, events, j))
    return ()


def _took_out(states: Sequence[State], events: Sequence[Mapping[str, Any]], index: int, theirs_next: object,
              edition: Edition) -> tuple[str, ...]:  # fmt: skip
    """When the reference's round ends at event ``index`` and the engine (``theirs_next``: its
    ``next``) offers a seat the reference took out earlier in that round (a ``frozen``, ``busted``
    or ``stayed`` about it before the event that ended it): that event's rules for the seat's
    status; else empty."""
    actor = theirs_next.get("player") if isinstance(theirs_next, Mapping) else None
    if not isinstance(actor, int) or isinstance(actor, bool):
        return ()
    for j in range(index - 2, -1, -1):
        ev = events[j]
        if ev.get("type") == "round_started":
            break
        if ev.get("type") in ("frozen", "busted", "stayed") and ev.get("seat") == actor:
            return rules_of(ev, edition, "statuses", cause=_cause(states, events, j))
    return ()


def _kept_cause(states: Sequence[State], events: Sequence[Mapping[str, Any]], index: int,
                theirs: Sequence[Mapping[str, Any]], edition: Edition) -> tuple[str, ...]:  # fmt: skip
    """`flip7ref.checking.caused.kept_cause` over the reference's steps (`_steps`) and `rules_of`."""
    return kept_rules(states, _steps(states), events, index, theirs, edition, _rules_for)


def reshuffle_cause(states: Sequence[State], events: Sequence[Mapping[str, Any]], index: int,
                    theirs: Sequence[Mapping[str, Any]], edition: Edition) -> tuple[str, ...]:  # fmt: skip
    """`flip7ref.checking.caused.reshuffle_cause` over the reference's steps (`_steps`) and `rules_of`."""
    return went_rules(states, _steps(states), events, index, theirs, edition, _rules_for)


def situation_rules(edition: Edition, event: Mapping[str, Any], line: Sequence[str], engine: bool) -> tuple[str, ...]:
    """The rules of the condition a line decider exercised for ``event`` (a ``flip7`` or
    ``busted`` event, with ``line`` its seat's cards there), most specific first, or empty.

    A ``flip7`` the engine missed (``engine`` False: the reference's event) on a line holding
    a 0: ``flip7#zero``; one the engine made alone (``engine`` True): ``flip7#modifiers_reach``
    or ``flip7#one_short`` (`flip7ref.checking.situation.line_tags`).  A ``busted`` either way: the
    ``busted/CARD`` entry of a special card sharing the busting card's rank (Lucky 13; for the
    engine's bust, the busting card itself too: a Lucky 13 busting beside a 13).  A
    ``game_won`` either way whose totals share the top one: ``game_won#tie`` (how a tie ends)."""
    kind = event.get("type")
    if kind == "game_won":
        totals = event.get("totals")
        numbers = [t for t in totals if isinstance(t, int)] if isinstance(totals, list) else []
        if numbers and numbers.count(max(numbers)) > 1:  # the top total shared: how a tie ends
            return tuple(edition.event_rules.get("game_won#tie", ()))
        return ()
    if kind == "flip7":
        tags = [t for t in line_tags(edition, line) if (t == "zero") != engine]
        return tagged_rules(edition, "flip7", tags)
    if kind == "busted" and isinstance(event.get("card"), str):
        pair = pair_cards(edition, line, str(event["card"]))
        for card in pair if len(pair) > 1 else ():
            found = edition.event_rules.get(f"busted/{card}")
            if found and (engine or card != event.get("card")):  # the reference's own: its event's rules say so
                return tuple(found)
    return ()


def _about(data: Mapping[str, Any], seat: int) -> bool:
    return seat in (data.get("seat"), data.get("target"))


_FIELD_OF = {"statuses": lambda s, seat: s.status(seat).value, "lines": State.line, "kept": State.kept}


def _seat_candidate(run_states: Sequence[State], events: Sequence[Mapping[str, Any]], key: str, seat: int,
                    edition: Edition) -> tuple[int, tuple[str, ...]] | None:  # fmt: skip
    """The event about ``seat`` in the last step that changed its ``key`` (time, rules)."""
    read = _FIELD_OF[key]
    spans = _steps(run_states)
    for k in range(len(run_states) - 1, -1, -1):
        now = read(run_states[k], seat)
        before = read(run_states[k - 1], seat) if k else None
        if k and now == before:
            continue
        start, end = spans[k]
        about = [i for i in range(start, end) if _about(events[i], seat)]
        marked = [i for i in about if _maps_field(events[i], edition, key)]
        if marked or about:
            i = (marked or about)[-1]
            return i, rules_of(events[i], edition, key, cause=_cause(run_states, events, i))
        if k == 0:
            return None
        return (end - 1 if end > start else start), ()
    return None


def _drawn_elsewhere(run_states: Sequence[State], events: Sequence[Mapping[str, Any]], index: int, key: str, seat: int,
                     observed: Mapping[str, Any] | None) -> State | None:  # fmt: skip
    """The state of the offer ``seat`` took in the step of event ``index`` (the event `_seat_candidate`
    found for ``seat``'s ``key``), when the card dealt on it is, in the engine's ``observed``
    ``key``, another seat's instead (not ``seat``'s, not that other seat's in the reference):
    the engine offered another seat there, an earlier difference than the field's, which the
    case may not check (the events not reported); else None."""
    theirs = (observed or {}).get(key)
    if not isinstance(theirs, Mapping) or not 0 <= index < len(events):
        return None
    spans = _steps(run_states)
    k = next((k for k, (start, end) in enumerate(spans) if start <= index < end), 0)
    end = spans[k][1]
    while k > 1 and run_states[k - 1].current_player == CHANCE:  # the card's draw: back to the decision
        k -= 1
    if k == 0:
        return None
    before = run_states[k - 1]
    if before.current_player != seat or before.pending()[0] != "offer":
        return None
    start = spans[k][0]
    drawn = [e for e in events[start:end] if e.get("type") == "dealt" and e.get("via") == "hit" and e.get("seat") == seat]
    card = drawn[0].get("card") if drawn else None
    if not isinstance(card, str) or card in (theirs.get(str(seat)) or ()):
        return None
    read = _FIELD_OF[key]
    for other in range(before.num_players):
        held = theirs.get(str(other))
        if other != seat and isinstance(held, list) and card in held and card not in read(run_states[-1], other):
            return before
    return None


def _scoring_case(prepared: Prepared, diffs: Sequence[Difference], edition: Edition,
                  observed: Mapping[str, Any] | None = None) -> tuple[str, ...]:  # fmt: skip
    """A ``scoring`` case: a Flip 7 flag that differs — or a score off by exactly the Flip 7
    bonus, the other outcome of the Flip 7 decision — is blamed on the condition the line
    exercised (`flip7ref.checking.situation.line_tags`: a missed Flip 7 holding a 0 on the 0, one seen
    where the reference sees none on the modifiers or the threshold), else on the rules of
    the line's unusual cards before the Flip 7's; a score on `line_details`."""
    from flip7ref.core.game import Game

    cards = [str(c) for c in prepared.case.get("line") or ()]
    made = bool(prepared.run.observed.get("flip7"))
    found: list[str] = []
    mine, theirs = prepared.run.observed.get("score"), (observed or {}).get("score")
    bonus = int(edition.thresholds.get("flip7_bonus", 0))
    off_by_bonus = isinstance(mine, int) and isinstance(theirs, int) and bonus and theirs == mine + (-bonus if made else bonus)
    if off_by_bonus or any(d.key == "flip7" for d in diffs):
        tags = line_tags(edition, cards)
        # a missed Flip 7: the 0 counting is the specific condition; one the reference does not
        # see: the modifiers, or the threshold
        tags = [t for t in tags if (t == "zero") == made]
        specific = tagged_rules(edition, "flip7", tags)
        if specific:
            return Ordered(dict.fromkeys((*specific, *play_first(edition.event_rules.get("flip7", ()), edition))))
        for card in dict.fromkeys(cards):
            with contextlib.suppress(CardError):
                c = edition.card(card)
                if c.category == "modifier" or (c.category == "number" and c.rank == 0):
                    found.extend(play_first(c.rules, edition)[:1])
        found.extend(edition.event_rules.get("flip7", ()))
    else:
        game = Game(edition, 1, dict(prepared.options))
        details = skipped_first(line_details(edition, game, cards, False, made, made), game, cards, made, theirs)
        for detail in details:
            found.extend(edition.event_rules.get(score_key(detail), ()))
        if any("#" in d for d in details):
            return Ordered(dict.fromkeys(found))
    return play_first(found, edition)


def _score_rules(run_states: Sequence[State], events: Sequence[Mapping[str, Any]], index: int,
                 want: Sequence[Any] | None, have: object, edition: Edition, totals: bool) -> tuple[str, ...]:  # fmt: skip
    spans = _steps(run_states)
    k = next((k for k, (start, end) in enumerate(spans) if start <= index < end), 0)
    before = run_states[k - 1] if k else None
    seats = range(len(want or ()))
    seat = 0
    if isinstance(have, Sequence) and want is not None:
        seat = next((s for s in seats if s >= len(have) or have[s] != want[s]), 0)
    found: list[str] = []
    engine_score = have[seat] if isinstance(have, Sequence) and seat < len(have) else None
    details = score_details(edition, before, events, index, seat, totals, engine_score)
    for detail in details:
        found.extend(edition.event_rules.get(score_key(detail), ()))
    if found and any("#" in d for d in details):
        return Ordered(dict.fromkeys(found))
    return tuple(found) or rules_of(events[index], edition)


def blame(diffs: Sequence[Difference], prepared: Prepared, observed: Mapping[str, Any] | None = None,
          types: Sequence[str] | None = None) -> tuple[str, ...]:  # fmt: skip
    """The rule ids behind the first observation in which the engine differs (module docstring).

    Args:
        diffs: every difference found (`flip7ref.checking.conformance.compare_detailed`), in ``expect``'s order.
        prepared: the prepared case (the reference's run under the engine's readings).
        observed: the engine's outcome (its ``events`` are compared with the reference's in
            full, whatever the case expects); None: only ``diffs`` are used.
        types: the event types the engine emits (protocol v2 ``events``); None: all.

    Returns:
        Rule ids, the first the most likely broken; the case's cited rules when nothing is found.
    """
    run, case = prepared.run, prepared.case
    states = run.states
    edition = states[-1].game.edition if states else load_edition(case["edition"])
    events: list[dict[str, Any]] = list(run.observed.get("events") or [])
    keep = None if types is None else set(types)
    shown = [i for i, e in enumerate(events) if keep is None or e.get("type") in keep]
    candidates: list[tuple[int, int, tuple[str, ...]]] = []  # (time, order, rules)
    first_event: int | None = None  # where the engine's events first differ from the reference's

    def add(time: int, rules: Sequence[str]) -> None:
        if rules:
            candidates.append((time, len(candidates), rules if isinstance(rules, Ordered) else tuple(rules)))

    def event_candidate(i: int, other: object) -> None:
        ref = events[i]
        ended = ref.get("type") == "round_scored" and (not isinstance(other, Mapping) or other.get("type") != "round_scored")
        if ended and f"round_scored<{(_cause(states, events, i) or {}).get('type')}" in edition.event_rules:
            # the engine did not end the round where the reference did: what ended it, the event before,
            # after what took out the seat the engine offers next (a Freeze the engine did not apply)
            took = _took_out(states, events, i, (observed or {}).get("next"), edition)
            add(i, Ordered(dict.fromkeys((*took, *rules_of(ref, edition, cause=_cause(states, events, i))))))
        elif ref.get("type") == "round_scored":
            same_scores = isinstance(other, Mapping) and other.get("scores") == ref.get("scores")
            have = other.get("scores") if isinstance(other, Mapping) else None
            add(i, _score_rules(states, events, i, ref.get("scores"), have, edition, same_scores))
        else:
            plain = rules_of(ref, edition, cause=_cause(states, events, i))
            instead = str(other.get("type")) if isinstance(other, Mapping) else "nothing"
            keys = [*(f"{ref.get('type')}/{d}|{instead}" for d in _details(ref, edition)), f"{ref.get('type')}|{instead}"]
            if i > 0:  # right after which event the engine went another way: TYPE|OTHER<PREVIOUS first
                keys.insert(0, f"{ref.get('type')}|{instead}<{events[i - 1].get('type')}")
            found = next((edition.event_rules[k] for k in keys if k in edition.event_rules), None)
            if found:  # what the engine did in the reference's event's place decides between its rules
                plain = tuple(found)
            if isinstance(other, Mapping) and ref.get("type") == other.get("type") == "dealt" \
                    and ref.get("via") == other.get("via") == "hit" and ref.get("seat") != other.get("seat"):  # fmt: skip
                plain = (*_next_rules(states, events, i, edition), *plain)  # who draws next: what decided it
            if isinstance(other, Mapping) and ref.get("type") == other.get("type") == "dealt" \
                    and ref.get("via") == other.get("via") == "deal" and ref.get("seat") != other.get("seat") \
                    and _first_deal(events, i):  # fmt: skip
                plain = (*plain[:1], *edition.event_rules.get("round_started#first_offer", ()), *plain[1:])
            if isinstance(other, Mapping):
                plain = (*plain[:1], *_out_seat(states, events, i, other, edition), *plain[1:])
            mine = situation_rules(edition, ref, _line_at(states, events, i, ref.get("seat")), False)
            theirs_: tuple[str, ...] = ()
            if isinstance(other, Mapping) and other.get("type") != ref.get("type"):
                theirs_ = situation_rules(edition, other, _line_at(states, events, i, other.get("seat")), True)
            specific = mine or theirs_
            went = () if specific else reshuffle_cause(states, events, i, theirs, edition)
            kept = () if specific or went else _kept_cause(states, events, i, theirs, edition)
            if went:
                add(i, caused((*went, *play_first(plain, edition)), WENT))
            elif kept:
                add(i, caused((*kept, *play_first(plain, edition)), KEPT))
            else:
                add(i, Ordered(dict.fromkeys((*specific, *play_first(plain, edition)))) if specific else plain)

    if case.get("kind") == "scoring":
        return _scoring_case(prepared, diffs, edition, observed) or tuple(case["rules"])
    theirs = [e for e in (observed or {}).get("events") or [] if isinstance(e, Mapping)]
    if keep is not None:
        theirs = [e for e in theirs if e.get("type") in keep]
    if theirs or any(d.key == "events" for d in diffs):
        for n, i in enumerate(shown):
            if n >= len(theirs) or not _event_matches(events[i], theirs[n]):
                event_candidate(i, theirs[n] if n < len(theirs) else None)
                first_event = i
                break
        else:
            if len(theirs) > len(shown):
                tail = _steps(states)[-1][0] if states else len(events)
                marked = [i for i in range(tail, len(events)) if _maps_field(events[i], edition, "next")]
                extra = rules_of(events[marked[-1]], edition, "next") if marked else rules_of(theirs[len(shown)], edition)
                final = states[-1] if states else None
                more = theirs[len(shown)]
                if final is not None and final.current_player not in (CHANCE, TERMINAL) and final.pending()[0] != "offer":
                    extra = (*decision_rules(final), *extra)  # the reference waits for a choice the engine made or skipped
                    waited = DECISION_EVENTS.get(final.pending()[0])
                    instead_of = edition.event_rules.get(f"{waited}|{more.get('type')}") if waited else None
                    if instead_of:  # what the engine did where the reference waits for that choice
                        extra = (*instead_of, *extra)
                specific = situation_rules(edition, more, _line_at(states, events, len(events), more.get("seat")), True)
                add(len(events), Ordered(dict.fromkeys((*specific, *extra))) if specific else extra)
                first_event = len(events)
    for d in diffs:
        if d.key == "events_include" and isinstance(d.other, Mapping):
            want = d.other
            match = next((i for i, e in enumerate(events) if _event_matches(want, e)), None)
            cause = _cause(states, events, match) if match is not None else None
            seen_at = match if match is not None else len(events)
            plain = rules_of(events[match] if match is not None else want, edition, cause=cause)
            went = reshuffle_cause(states, events, match, theirs, edition) if match is not None else ()
            add(seen_at, caused((*went, *plain), WENT) if went else plain)
        elif d.key == "events_exclude" and isinstance(d.other, Mapping):
            at = next((i for i, e in enumerate(theirs) if e is d.other), len(events))
            line = _line_at(states, events, min(at, len(events)), d.other.get("seat"))
            specific = situation_rules(edition, d.other, line, True)
            plain = rules_of(d.other, edition)
            add(at, Ordered(dict.fromkeys((*specific, *play_first(plain, edition)))) if specific else plain)
        elif d.key in SEAT_FIELDS and d.index is not None and states:
            seat_found = _seat_candidate(states, events, d.key, int(str(d.index)), edition)
            if seat_found is not None:
                offered = _drawn_elsewhere(states, events, seat_found[0], d.key, int(str(d.index)), observed)
                if offered is not None:  # the card drawn on that seat's offer is another seat's: who was offered
                    turns = turn_rules(offered, "turn" in (case.get("setup") or {}))
                    seat_found = (seat_found[0], (*turns, *seat_found[1]))
                add(*seat_found)
        elif d.key in ("round_scores", "totals"):
            last = next((i for i in range(len(events) - 1, -1, -1) if events[i].get("type") == "round_scored"), None)
            if last is not None:
                key = "scores" if d.key == "round_scores" else "totals"
                have = (observed or {}).get(d.key)
                add(last, _score_rules(states, events, last, events[last].get(key), have, edition, d.key == "totals"))
        elif d.key == "round":
            add(len(events), _last(events, edition, "round_started", "round_scored"))
        elif d.key == "winners":
            add(len(events), _last(events, edition, "game_won", "tie_another_round", "round_scored"))
        elif d.key == "next" and states:
            final = states[-1]
            found: tuple[str, ...] = ()
            start = _steps(states)[-1][0]
            marked = [i for i in range(start, len(events)) if _maps_field(events[i], edition, "next")]
            if d.index == "player" and marked:
                found = rules_of(events[marked[-1]], edition, "next")
            elif d.index == "player" and _in_deal(events) is False and _next_rules(states, events, len(events), edition):
                found = _next_rules(states, events, len(events), edition)  # decided in the step before
            elif final.current_player not in (CHANCE, TERMINAL):
                turns = turn_rules(final, "turn" in (case.get("setup") or {}))
                node = decision_rules(final)
                found = (*turns, *node) if d.index == "player" and final.pending()[0] == "offer" else node
                if d.index == "legal" and final.pending()[0] == "offer":
                    found = (*legality_rules(final, (observed or {}).get("next")), *found)
                elif d.index == "legal" and final.pending()[0] in ("play", "cards", "assign"):
                    # other seats to choose from: who may be chosen for that card, and at all (the
                    # table's ``target_chosen/CARD`` and plain ``target_chosen``), after the step's first rule
                    card = final.pending()[1]
                    chosen = rules_of({"type": "target_chosen", "card": card}, edition) if card is not None else ()
                    found = tuple(dict.fromkeys((*found[:1], *chosen, *edition.event_rules.get("target_chosen", ()), *found[1:])))
            theirs_next = (observed or {}).get("next")
            actor = theirs_next.get("player") if isinstance(theirs_next, Mapping) else None
            if d.index == "player" and isinstance(actor, int) and 0 <= actor < final.num_players \
                    and final.status(actor).value != "active":  # fmt: skip
                out = _seat_candidate(states, events, "statuses", actor, edition)  # what took that seat out
                found = (*(out[1] if out else ()), *found)
            add(len(events), found or (rules_of(events[-1], edition) if events else ()))
        elif d.key in ("draw", "discard_count") and states:
            add(_END, discard_rules(states, _steps(states), events, edition, _rules_for, (observed or {}).get("discard_count")))
    if not candidates:
        return tuple(case["rules"])
    if first_event is not None:
        # the engine's events agree with the reference's before ``first_event``: an observation
        # the reference last changed earlier differs because of what the engine did from there
        candidates = [(max(t, first_event), o, r) for t, o, r in candidates]
    return play_first(min(candidates)[2], edition)


def _last(events: Sequence[Mapping[str, Any]], edition: Edition, *types: str) -> tuple[str, ...]:
    for ev in reversed(events):
        if ev.get("type") in types:
            return rules_of(ev, edition)
    return ()
