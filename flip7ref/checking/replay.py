"""Game transcripts: writing the reference's games, and replaying a foreign engine's.

A transcript (``spec/schema/transcript.schema.json``) records a game as an
engine played it: the edition, options, seats and dealer, then every step in
order — a card revealed from the pile (``{"draw": "7"}``), a decision
(``{"seat": 1, "action": "hit"}``), or optionally, after a round ends, a score
checkpoint (``{"checkpoint": {"round": 1, "scores": [...], "totals": [...]}}``,
checked when present).  `replay` plays it in the reference
(an open state: the transcript names every card) and returns either agreement
with the final scores or the first divergence: which step, what the reference
expected there, and the rule ids of the reference's event there.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from flip7ref.core.errors import CardError, Flip7RefError, OptionError, SpecError
from flip7ref.core.game import Game
from flip7ref.core.position import MAX_DEPTH, too_deep
from flip7ref.core.spec import Edition, load_edition, read_text_file, validate
from flip7ref.core.state import CHANCE, TERMINAL, Event, State


@attrs.frozen
class ReplayResult:
    """The verdict of a replay.

    Attributes:
        agrees: whether the whole transcript is a legal game under the reference.
        steps: how many steps were replayed successfully.
        divergence: the step index (0-based) where the reference disagrees, or None.
        message: what the reference expected there, in words.
        rules: the rule ids involved in the divergence.
        totals: the reference's running totals after the replayed steps (points).
        winners: the reference's winners, if the game ended.
        state: the reference state after the replayed steps.
    """

    agrees: bool
    steps: int
    divergence: int | None
    message: str
    rules: tuple[str, ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    state: State = attrs.field(repr=False, eq=False)


def parse_json(text: str, file: str) -> object:
    """``text`` (the contents of ``file``) as JSON, refusing what would crash or blow up a reader.

    Returns:
        The JSON value (any JSON type).

    Raises:
        SpecError: naming ``file``: not JSON (line and column), nested deeper than
            `flip7ref.core.position.MAX_DEPTH`, or a number of more digits than Python converts.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SpecError(file, f"line {exc.lineno}, column {exc.colno}", f"JSON ({exc.msg})") from None
    except RecursionError:
        raise SpecError(file, "", f"JSON nested at most {MAX_DEPTH} levels deep") from None
    except ValueError:  # an integer of more digits than Python converts (4,300)
        raise SpecError(file, "", "JSON whose numbers have at most 4,300 digits") from None
    where = too_deep(data)
    if where is not None:
        raise SpecError(file, where, f"JSON nested at most {MAX_DEPTH} levels deep")
    return data


def load_transcript(path: str | Path) -> dict[str, Any]:
    """Read and validate a transcript file (JSON).

    Raises:
        SpecError: a missing file, a folder, an unreadable file or one that is not UTF-8 text
            (each named as such), not JSON (or nested too deeply, or a number too long to
            read), or a schema violation (file, path, expectation).
    """
    p = Path(path)
    text = read_text_file(p, "transcript file")  # its own SpecError (missing, a folder, unreadable, not UTF-8)
    data = parse_json(text, str(p))
    validate(data, "transcript", str(p))
    assert isinstance(data, dict)
    return data


def transcript(state: State, *, engine: str | None = None, checkpoints: bool = False) -> dict[str, Any]:
    """The transcript of the game that led to ``state`` (from its initial state).

    Args:
        state: any state of a game started with `new_initial_state`.
        engine: the engine name to record (default ``flip7ref <version>``).
        checkpoints: also record a score checkpoint after every finished round.
    """
    from flip7ref import __version__

    start = state.initial_state()
    steps: list[dict[str, Any]] = []
    current = start
    for move in state.history():
        if move.startswith("chance "):
            steps.append({"draw": move[len("chance ") :]})
        else:
            steps.append({"seat": current.current_player, "action": move})
        before = len(current.events()) if checkpoints else 0
        current = current.apply_move(move)
        if checkpoints:
            for event in current.events()[before:]:
                if event.type == "round_scored":
                    point = {k: event.get(k) for k in ("round", "scores", "totals")}
                    steps.append({"checkpoint": {k: list(v) if isinstance(v, tuple) else v for k, v in point.items()}})
    data: dict[str, Any] = {
        "format": 1,
        "engine": engine or f"flip7ref {__version__}",
        "edition": state.game.edition.id,
        "options": state.game.non_default_options(),
        "players": state.num_players,
        "dealer": start.dealer,
        "totals": list(start.totals),
        "steps": steps,
    }
    if state.is_terminal():
        data["final"] = {"totals": list(state.totals), "winners": list(state.winners), "rounds": state.round}
    return data


def _topic_rules(state: State, *topics: str) -> list[str]:
    return [r.id for r in state.game.edition.rules.values() if r.topic in topics]


DETAILS = ("via", "reason", "outcome")
"""The event fields whose value refines an ``events:`` entry (``TYPE/DETAIL``), in order."""


def event_rules(event: Event, edition: Edition, context: str | None = None) -> tuple[str, ...]:
    """The rule ids behind one event, read from the edition table's ``events`` section.

    An entry ``TYPE/DETAIL`` wins over ``TYPE``; the details tried, in order, are the
    event's ``via`` (``dealt``), ``reason`` (``stayed``, ``discarded``) and ``outcome``
    (``forced_draw_ended``), then ``context``, then the id of its ``card``, then that
    card's category.

    Args:
        event: an event emitted by the interpreter.
        edition: the edition table the game was played with.
        context: the ``via`` of the card dealt before ``event`` in the same step
            (`step_event_rules` passes it): a Second Chance used or kept inside a Flip
            Three is ``second_chance_used/flip_three`` (F7-077), not the rule of a Hit
            (F7-081).

    Returns:
        The rule ids (a tuple of strings such as ``("F7-040", "F7-041")``); empty when
        the table maps nothing to the event.
    """
    table = edition.event_rules
    details: list[object] = [event.get(key) for key in DETAILS]
    details.append(context)
    card = event.get("card")
    if isinstance(card, str):
        details.append(card)
        with contextlib.suppress(CardError):
            details.append(edition.card(card).category)
    for detail in details:
        if detail is not None and f"{event.type}/{detail}" in table:
            return table[f"{event.type}/{detail}"]
    return table.get(event.type, ())


def step_event_rules(events: Sequence[Event], edition: Edition) -> list[tuple[str, ...]]:
    """The rule ids behind each event of one step (`event_rules`), in order, each event
    read in the context of the last card dealt before it in the step (its ``via``:
    ``hit``, ``deal`` or the forced-draw card such as ``flip_three``).

    Args:
        events: the events of one step (`State.last_events`).
        edition: the edition table of the game.

    Returns:
        One tuple of rule ids per event.
    """
    out: list[tuple[str, ...]] = []
    context: str | None = None
    for event in events:
        out.append(event_rules(event, edition, context))
        if event.type == "dealt":
            via = event.get("via")
            context = via if isinstance(via, str) else None
    return out


def rules_at(state: State) -> tuple[str, ...]:
    """Rule ids that govern the node a state is at, read from the edition table:
    the card in question's rules, and the catalogue's rules on turns (offers,
    draws) and on staying."""
    edition = state.game.edition
    kind, card = state.pending()
    found: list[str] = []
    if card is not None:
        found.extend(edition.card(card).rules)
    if kind == "offer" and "stay_requires" in edition.options:
        found.extend(edition.options["stay_requires"].rules)
    if kind in ("offer", "chance"):
        found.extend(_topic_rules(state, "turns"))
    return tuple(dict.fromkeys(found))


def divergence_rules(state: State, *, turns: bool = False) -> tuple[str, ...]:
    """The rule ids of the reference's event at a divergence: the last event the reference
    emitted before it (through the edition table's ``events`` section), then the rules of
    the card in question; with ``turns``, the catalogue's rules on turns after those (a
    decision by the wrong seat, a draw instead of a decision)."""
    edition = state.game.edition
    events = state.events()
    found: list[str] = list(event_rules(events[-1], edition)) if events else []
    kind, card = state.pending()
    if card is not None:
        found.extend(edition.card(card).rules)
    if kind == "offer" and "stay_requires" in edition.options and not turns:
        found.extend(edition.options["stay_requires"].rules)
    if turns or not found:
        found.extend(_topic_rules(state, "turns"))
    return tuple(dict.fromkeys(found))


def _event_rules_of(state: State, *types: str) -> tuple[str, ...]:
    for event in reversed(state.events()):
        if event.type in types:
            return event_rules(event, state.game.edition)
    return ()


def _checkpoint(state: State, point: Mapping[str, Any]) -> str | None:
    """Check a per-round score checkpoint against the reference's last ``round_scored``
    event; a problem in words, or None."""
    scored = next((e for e in reversed(state.events()) if e.type == "round_scored"), None)
    if scored is None:
        return f"a score checkpoint, but the reference has not finished a round yet (round {state.round})"
    mine = {"round": scored.get("round"), "scores": list(scored.get("scores")), "totals": list(scored.get("totals"))}
    for key in ("round", "scores", "totals"):
        if key in point and point[key] != mine[key]:
            return f"checkpoint: the engine's round {key} {point[key]} differ from the reference's {mine[key]}"
    return None


def _header_error(exc: OptionError, file: str | None) -> Flip7RefError:
    """``exc``, raised by a transcript's header (players, options, dealer, totals), as a
    `SpecError` naming ``file`` and the field; ``exc`` itself when no file is known."""
    if file is None:
        return exc
    text = str(exc)
    field = next((f for f in ("players", "dealer", "totals") if text.startswith(f + ":")), "options")
    problem = text[len(field) + 2 :] if text.startswith(field + ": ") else text
    return SpecError(file, f"/{field}", "", problem=problem)


def replay(data: Mapping[str, Any], edition: Any = None, *, file: str | None = None) -> ReplayResult:
    """Replay a transcript in the reference; see the module docstring.

    Args:
        data: the transcript (`load_transcript`, or `transcript` output).
        edition: the edition table to play it with, when it is not a shipped one (a
            path to a ``.yaml`` table or a loaded `Edition`; the transcript's
            ``edition`` must be its id).  By default the transcript's ``edition``
            names a shipped table: a path is never taken from the data.
        file: the transcript's file, named (with the field) in the error for a header
            the game refuses (``transcript.json, at /totals: expected 3 values ...``).

    Raises:
        Flip7RefError: the transcript's edition, options, players, dealer or totals are
            invalid (`SpecError` naming ``file`` and the field when ``file`` is given;
            `SpecError`: ``edition`` is of another edition than the transcript's).
    """
    table: Any = data["edition"]
    if edition is not None:
        table = edition if isinstance(edition, Edition) else load_edition(os.fspath(edition))
        if table.id != data["edition"]:
            raise SpecError(str(table.path), "/edition/id", f"the transcript's edition {data['edition']!r}, got {table.id!r}")
    try:
        game = Game(table, data["players"], data.get("options") or {})
        state = game.new_initial_state(dealer=data["dealer"], totals=data.get("totals"))
    except OptionError as exc:
        raise _header_error(exc, file) from None

    def verdict(index: int | None, message: str, rules: tuple[str, ...], agrees: bool | None = None) -> ReplayResult:
        done = index if index is not None else len(data["steps"])
        ok = index is None if agrees is None else agrees
        return ReplayResult(ok, done, index, message, rules, state.totals, state.winners, state)

    # the rules of a divergence are looked up only when there is one (the game's whole history
    # is walked for them: at every step, a 400,000-step replay took quadratic time)
    for i, step in enumerate(data["steps"]):
        player = state.current_player
        if "checkpoint" in step:
            problem = _checkpoint(state, step["checkpoint"])
            if problem is not None:
                return verdict(i, problem, _event_rules_of(state, "round_scored") or divergence_rules(state))
            continue
        if player == TERMINAL:
            why = f"the game is over (winners {list(state.winners)}), but the transcript goes on"
            return verdict(i, why, divergence_rules(state))
        if "draw" in step:
            if player != CHANCE:
                legal = ", ".join(state.legal_action_strings())
                why = f"a card was drawn, but seat {player} must decide first (legal: {legal})"
                return verdict(i, why, divergence_rules(state, turns=True))
            try:
                state = state.apply_chance(step["draw"])
            except Flip7RefError as exc:
                if step["draw"] not in state.game.card_ids:  # no card of the edition: say so, not "no copy left"
                    return verdict(i, str(exc), divergence_rules(state))
                left = ", ".join(f"{c} x{round(p * len(state.draw))}" for c, p in state.chance_outcomes())
                why = f"{step['draw']!r} cannot be drawn: no copy is left in the draw pile (left: {left})"
                return verdict(i, why, divergence_rules(state))
            continue
        if player == CHANCE:
            why = f"seat {step['seat']} decided {step['action']!r}, but a card must be drawn first"
            return verdict(i, why, divergence_rules(state, turns=True))
        if step["seat"] != player:
            why = f"seat {step['seat']} decided, but it is seat {player}'s decision ({state.pending()[0]})"
            return verdict(i, why, divergence_rules(state, turns=True))
        try:
            state = state.apply(step["action"])
        except Flip7RefError as exc:
            return verdict(i, str(exc), divergence_rules(state))
    final = data.get("final") or {}
    if final and not state.is_terminal():
        pending = state.pending()[0]
        who = "a card is to be drawn" if state.current_player == CHANCE else f"seat {state.current_player} to decide ({pending})"
        why = f"the transcript ends before the game is over ({who}), but it gives final scores"
        return verdict(len(data["steps"]), why, rules_at(state))
    for key, mine in (("totals", list(state.totals)), ("winners", list(state.winners)), ("rounds", state.round)):
        if key in final and final[key] != mine:
            why = f"every step is legal, but the engine's final {key} {final[key]} differ from the reference's {mine}"
            rules = _event_rules_of(state, "game_won", "tie_another_round", "round_scored")
            return verdict(None, why, rules or tuple(_topic_rules(state, "scoring", "game_end")), False)
    return verdict(None, "agrees", ())
