"""Playing a conformance case on the reference as far as it goes (`run_case`), and under every
reading of a dispute (`play_readings`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from flip7ref.checking.catalogue import Dispute, DisputeReading
from flip7ref.checking.conformance import Case, build_state, compare, observe, outcome
from flip7ref.core.errors import Flip7RefError, IllegalActionError, OptionError
from flip7ref.core.state import _STATE_FIELDS, CHANCE, State

_DRAW_LIMIT = 10_000
"""The most cards drawn in a row before a run gives up (a position with no decision ahead)."""


_DRAW = _STATE_FIELDS.index("draw")
"""The draw pile's place among `State`'s fields."""


@attrs.frozen
class Run:
    """A conformance case played on the reference, as far as it goes.

    Attributes:
        case: the case as played (options included).
        states: every state from the starting position to the last one reached
            (empty for a scoring case or a position that could not be set up).
        moves: the move that led to each state after the first (``hit``, ``chance 8``).
        stopped: why play stopped before the case's end (an illegal action, a set-up
            that is invalid under these options), or None.
        observed: the observed outcome in the protocol's shape (see
            `flip7ref.checking.conformance.outcome`); empty when nothing could be set up.
        diffs: the differences from the case's ``expect`` (empty: it holds); None when
            play stopped early.
    """

    case: Case
    states: tuple[State, ...]
    moves: tuple[str, ...]
    stopped: str | None
    observed: Mapping[str, Any]
    diffs: tuple[str, ...] | None


def run_case(case: Case, restack: Callable[[list[str]], list[str]] | None = None) -> Run:
    """Play a case on the reference: draw the top card at each chance node, apply the
    case's actions in order, then draw until the next decision.

    Unlike `flip7ref.checking.conformance.observe`, an action that is not legal does not
    raise: play stops there and the run says why, so that a case written for one
    reading can be played under another.

    Args:
        case: a conformance case (a mapping in ``case.schema.json`` shape).
        restack: another shuffle than the reference's own, to learn whether an outcome
            depends on it (`flip7ref.checking.shuffle_order`): each time a shuffle makes a new draw
            pile (a reshuffle of the discard pile, F7-113, or a fresh deck between rounds),
            the pile's card ids, top first, are put in the order it returns.

    Returns:
        The `Run`.

    Raises:
        Flip7RefError: more than 10,000 cards drawn without a decision (a broken position).
    """
    if case["kind"] in ("scoring", "perft"):
        try:
            observed = observe(case)
        except Flip7RefError as exc:
            return Run(case, (), (), f"cannot be scored: {exc}", {}, None)
        return Run(case, (), (), None, observed, tuple(compare(case["expect"], observed)))
    try:
        state = build_state(case)
    except Flip7RefError as exc:
        return Run(case, (), (), f"cannot be set up: {exc}", {}, None)
    states = [state]
    moves: list[str] = []
    shuffles = state.shuffles

    def advance() -> None:
        nonlocal shuffles
        for _ in range(_DRAW_LIMIT):
            if restack is not None and states[-1].shuffles != shuffles:
                shuffles = states[-1].shuffles
                # the same state with the reshuffled pile in the other order, its history kept (the
                # run's events): a counterfactual position, which no longer replays from its start,
                # so built directly, not through State.from_dict (which checks the history)
                s = states[-1]
                fields = list(s._fields())
                ids = s.game.card_ids
                fields[_DRAW] = tuple(s.game.code(c) for c in restack([ids[c] for c in s.draw]))
                states[-1] = s._make(*fields)
            if states[-1].current_player != CHANCE:
                return
            card = states[-1].next_card()
            assert card is not None
            states.append(states[-1].apply_chance(card))
            moves.append(f"chance {card}")
        raise Flip7RefError(f"no decision within {_DRAW_LIMIT} draws")

    stopped = None
    advance()
    for i, action in enumerate(case.get("actions") or ()):
        try:
            after = states[-1].apply(action)
        except IllegalActionError as exc:
            stopped = f"before action {i + 1} ({action}): {exc.why}; legal there: {', '.join(exc.legal) or 'none'}"
            break
        except Flip7RefError as exc:
            stopped = f"before action {i + 1} ({action}): {exc}"
            break
        states.append(after)
        moves.append(action)
        advance()
    observed = outcome(states[-1])
    diffs = None if stopped else tuple(compare(case["expect"], observed))
    return Run(case, tuple(states), tuple(moves), stopped, observed, diffs)


def with_option(case: Case, option: str, value: str) -> Case:
    """A copy of ``case`` with ``options[option]`` set to ``value`` (the case is not changed)."""
    return {**case, "options": {**(case.get("options") or {}), option: value}}


def play_readings(dispute: Dispute, case: Case) -> list[tuple[DisputeReading, Run]]:
    """Play ``case`` under every modelled reading of the dispute's option.

    Args:
        dispute: a dispute with an option.
        case: a case of the dispute's edition.

    Returns:
        ``(reading, run)`` pairs in the dispute's reading order; not-modelled readings
        are left out; empty when the dispute has no option.
    """
    if dispute.option is None:
        return []
    return [(r, run_case(with_option(case, dispute.option, r.value))) for r in dispute.played if r.value is not None]


def find_case(case_id: str, cases: Iterable[Case] | None = None) -> Case:
    """The conformance case with id ``case_id`` (case-insensitive), e.g. ``"F7-C0100"``.

    Args:
        case_id: the case id.
        cases: the cases to search (default: the shipped suite).

    Raises:
        OptionError: no case has that id.
        SpecError: a malformed case file (when loading the shipped suite).
    """
    if cases is None:  # the shipped suite: through its index, loading only the file holding the case
        from flip7ref.checking.case_index import find_entry, load_shipped_cases

        entry = find_entry(case_id)
        if entry is not None:
            return load_shipped_cases([entry])[0]
    else:
        for case in cases:
            if str(case["id"]).casefold() == case_id.strip().casefold():
                return case
    raise OptionError(f"unknown case {case_id!r} ('flip7ref conformance run' lists the suite; ids look like F7-C0100 or V-C0045)")
