"""The ``dispute`` and ``explain`` commands: disputes played out, positions explained.

``flip7ref dispute`` lists the disputed points of the edition tables;
``flip7ref dispute ID`` shows one with its readings and then plays every
conformance case attached to it under every reading of its option, side by side,
so that the difference between the readings is seen rather than argued.

``flip7ref explain --case ID`` (or ``--transcript FILE``) walks a case or a game
transcript step by step in plain words, naming for every event the rule ids
behind it.  Those come from the ``events`` section of the edition table (event
type -> rule ids; see `event_rules`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from .conformance import Case, build_state, compare, load_cases, observe, outcome
from .errors import Flip7RefError, IllegalActionError, OptionError
from .game import Game
from .replay import event_rules as event_rules  # re-exported: its home was this module
from .replay import load_transcript, replay
from .spec import Edition, edition_ids, load_edition
from .state import CHANCE, TERMINAL, Event, State
from .text import card_name, describe

if TYPE_CHECKING:  # rich is imported by the commands that print with it (a fast start for the others)
    from rich.console import Console
    from rich.table import Table

"""Event fields that narrow an ``events`` entry (``dealt/hit``, ``discarded/target busted``...)."""

_DRAW_LIMIT = 10_000

# --------------------------------------------------------------------------- rule ids of events


# --------------------------------------------------------------------------- disputes


@attrs.frozen
class DisputeReading:
    """One reading of a dispute.

    Attributes:
        name: the reading's name in the dispute entry (``discard``).
        summary: what the reading says.
        holders: the source keys holding it.
        value: the option value selecting it, or None when the option does not model it
            (or the dispute has no option).
        default: whether it is the dispute's default reading.
    """

    name: str
    summary: str
    holders: tuple[str, ...]
    value: str | None
    default: bool


@attrs.frozen
class Dispute:
    """A dispute entry of an edition table, with its readings resolved against its option.

    Attributes:
        id: the dispute id (``D-F7-10``).
        edition: the edition table it belongs to.
        question: the disputed question.
        option: the option modelling it, or None (settled or not modelled).
        status: ``option``, ``settled``, ``no-play-change`` (the readings play the
            same game) or ``not-modelled``.
        note: the table's note on the dispute.
        rules: the rule ids it concerns.
        readings: the readings in table order.
    """

    id: str
    edition: Edition = attrs.field(eq=False, repr=False)
    question: str
    option: str | None
    status: str
    note: str
    rules: tuple[str, ...]
    readings: tuple[DisputeReading, ...]

    @property
    def played(self) -> tuple[DisputeReading, ...]:
        """The readings the interpreter models (those with an option value)."""
        return tuple(r for r in self.readings if r.value is not None)


def _dispute(edition: Edition, did: str, raw: Mapping[str, Any]) -> Dispute:
    option = raw.get("option")
    spec = edition.options.get(option) if isinstance(option, str) else None
    modelled = {r.name for r in spec.readings} if spec is not None else set()
    default = str(raw.get("default"))
    readings = tuple(
        DisputeReading(
            name=str(r["name"]),
            summary=str(r.get("summary", "")),
            holders=tuple(str(h) for h in r.get("holders") or ()),
            value=str(r["name"]) if str(r["name"]) in modelled else None,
            default=str(r["name"]) == default,
        )
        for r in raw.get("readings") or ()
    )
    return Dispute(
        id=did,
        edition=edition,
        question=str(raw.get("question", "")),
        option=spec.name if spec is not None else None,
        status=str(raw.get("status", "")),
        note=str(raw.get("note", "")),
        rules=tuple(raw.get("rules") or ()),
        readings=readings,
    )


def disputes(edition: str | None = None) -> list[Dispute]:
    """Every dispute of the shipped edition tables, or of one edition.

    Args:
        edition: an edition id or table path; None for every shipped edition.

    Returns:
        The disputes, edition by edition, in table order.

    Raises:
        OptionError: unknown edition.
        SpecError: a malformed table.
    """
    tables = [load_edition(edition)] if edition is not None else [load_edition(e) for e in edition_ids()]
    return [_dispute(t, did, raw) for t in tables for did, raw in t.disputes.items()]


def find_dispute(did: str, edition: str | None = None) -> Dispute:
    """The dispute with id ``did`` (case-insensitive), e.g. ``"D-F7-10"``.

    Args:
        did: the dispute id.
        edition: restrict the search to this edition (id or table path); None: all shipped.

    Raises:
        OptionError: no such dispute (the message lists the known id ranges) or unknown edition.
    """
    known = disputes(edition)
    for d in known:
        if d.id.casefold() == did.strip().casefold():
            return d
    ranges: dict[str, list[str]] = {}
    for d in known:
        ranges.setdefault(d.edition.id, []).append(d.id)
    listed = "; ".join(f"{ids[0]} … {ids[-1]}" for ids in ranges.values() if ids)
    raise OptionError(f"unknown dispute {did!r} (known: {listed or 'none'}; 'flip7ref dispute' lists them)")


def attached_cases(dispute: Dispute, cases: Iterable[Case] | None = None) -> list[Case]:
    """The conformance cases attached to a dispute.

    A case is attached when its ``reading.dispute`` is the dispute's id, or (same
    edition) when its ``reading.option`` or its ``options`` name the dispute's option.

    Args:
        dispute: the dispute.
        cases: the cases to search (default: the shipped suite).

    Returns:
        The attached cases, in suite order.

    Raises:
        SpecError: a malformed case file (when loading the shipped suite).
    """
    out = []
    for case in load_cases() if cases is None else cases:
        reading = case.get("reading") or {}
        names_option = dispute.option is not None and (
            reading.get("option") == dispute.option or dispute.option in (case.get("options") or {})
        )
        if reading.get("dispute") == dispute.id or (names_option and case["edition"] == dispute.edition.id):
            out.append(case)
    return out


# --------------------------------------------------------------------------- playing a case


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
            `flip7ref.conformance.outcome`); empty when nothing could be set up.
        diffs: the differences from the case's ``expect`` (empty: it holds); None when
            play stopped early.
    """

    case: Case
    states: tuple[State, ...]
    moves: tuple[str, ...]
    stopped: str | None
    observed: Mapping[str, Any]
    diffs: tuple[str, ...] | None


def run_case(case: Case) -> Run:
    """Play a case on the reference: draw the top card at each chance node, apply the
    case's actions in order, then draw until the next decision.

    Unlike `flip7ref.conformance.observe`, an action that is not legal does not
    raise: play stops there and the run says why, so that a case written for one
    reading can be played under another.

    Args:
        case: a conformance case (a mapping in ``case.schema.json`` shape).

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

    def advance() -> None:
        for _ in range(_DRAW_LIMIT):
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


# --------------------------------------------------------------------------- outcome rows


def _seats(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{seat} {v}" for seat, v in values.items())


def _cards(game: Game, ids: Sequence[str]) -> str:
    return " ".join(card_name(game, c) for c in ids) or "—"


def _next(observed: Mapping[str, Any]) -> str:
    nxt = observed.get("next") or {}
    if nxt.get("player") == "terminal":
        return "game over"
    return f"seat {nxt.get('player')}: {', '.join(nxt.get('legal') or ())}"


def outcome_rows(run: Run) -> dict[str, str]:
    """The outcome of a run as labelled display values (one string per row).

    Args:
        run: a played case.

    Returns:
        Row label -> value: for a scoring case ``score`` and ``Flip 7``; otherwise
        ``statuses``, ``lines``, ``kept``, ``round``, ``round scores``, ``totals``,
        ``next`` (who is asked next and their legal actions) and ``winners``; plus
        ``stopped`` when play stopped early.  Values are "—" when there is none.
    """
    rows: dict[str, str] = {}
    if run.stopped:
        rows["stopped"] = run.stopped
    obs = run.observed
    if not obs:
        return rows
    if "score" in obs:
        rows["score"] = str(obs["score"])
        rows["Flip 7"] = "yes" if obs.get("flip7") else "no"
        return rows
    if "orders" in obs:  # a perft case
        rows["deal orders"] = str(obs["orders"])
        rows["outcomes"] = "\n".join(f"{k}: {v}" for k, v in obs["outcomes"].items())
        rows["scores"] = "\n".join(f"{k}: {v}" for k, v in obs["scores"].items())
        return rows
    game = run.states[-1].game
    rows["statuses"] = _seats(obs["statuses"])
    rows["lines"] = "\n".join(f"{seat}: {_cards(game, ids)}" for seat, ids in obs["lines"].items())
    kept = {seat: ids for seat, ids in obs["kept"].items() if ids}
    rows["kept"] = "\n".join(f"{seat}: {_cards(game, ids)}" for seat, ids in kept.items()) or "—"
    rows["round"] = str(obs["round"])
    rows["round scores"] = " ".join(map(str, obs["round_scores"])) or "—"
    rows["totals"] = " ".join(map(str, obs["totals"]))
    rows["next"] = _next(obs)
    rows["winners"] = " ".join(f"seat {w}" for w in obs["winners"]) or "—"
    return rows


def _event_tails(runs: Sequence[Run]) -> list[str]:
    """The events of each run after the longest prefix they all share, described."""
    lists = [run.states[-1].events() if run.states else [] for run in runs]
    common = 0
    while all(len(ev) > common for ev in lists) and all(ev[common] == lists[0][common] for ev in lists):
        common += 1
    out = []
    for run, events in zip(runs, lists, strict=True):
        if not run.states:
            out.append("—")
            continue
        game = run.states[-1].game
        tail = [describe(e, game) for e in events[common:]]
        head = f"(after {common} shared events)\n" if common else ""
        out.append(head + ("\n".join(tail) if tail else "nothing more"))
    return out


def _check(run: Run) -> str:
    if run.diffs is None:
        return "not reached"
    return "holds" if not run.diffs else f"fails: {run.diffs[0]}"


def reading_table(dispute: Dispute, case: Case, played: Sequence[tuple[DisputeReading, Run]]) -> tuple[Table, list[str]]:
    """The side-by-side table of one case under every reading.

    Args:
        dispute: the dispute.
        case: the case.
        played: the output of `play_readings` for that case.

    Returns:
        ``(table, differing)``: a rich table with a row per outcome field and a column
        per reading, and the labels of the rows whose values differ between readings.
    """
    runs = [run for _, run in played]
    rows = [outcome_rows(run) for run in runs]
    labels = list(dict.fromkeys(label for r in rows for label in r))
    values: dict[str, list[str]] = {label: [r.get(label, "—") for r in rows] for label in labels}
    values["events"] = _event_tails(runs)
    values["case's expect"] = [_check(run) for run in runs]
    pinned = (case.get("reading") or {}).get("value")
    if pinned is None and dispute.option is not None:
        pinned = (case.get("options") or {}).get(dispute.option)
    actions = ", ".join(case.get("actions") or ()) or "none"
    from rich.table import Table
    from rich.text import Text

    title = Text(f"{case['id']}: {case['title']}", style="bold")
    caption = f"actions: {actions}; rules {', '.join(case['rules'])}"
    if pinned is not None:
        caption += f"; the case is written for {dispute.option}={pinned}"
    table = Table(title=title, caption=Text(caption), show_lines=True, title_justify="left", caption_justify="left")
    table.add_column("")
    for reading, _ in played:
        marks = [m for m, on in (("default", reading.default), ("the case's", str(reading.value) == str(pinned))) if on]
        head = f"{dispute.option}={reading.value}" + (f"\n({', '.join(marks)})" if marks else "")
        table.add_column(Text(head), overflow="fold")
    differing = []
    for label, vals in values.items():
        differs = len(set(vals)) > 1 and label != "case's expect"
        if differs:
            differing.append(label)
        table.add_row(Text(f"≠ {label}" if differs else label, style="bold" if differs else ""), *(Text(v) for v in vals))
    return table, differing


# --------------------------------------------------------------------------- commands


def _console() -> Console:
    from rich.console import Console

    width = None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 140
    return Console(highlight=False, width=width, soft_wrap=False)


def cmd_dispute(args: argparse.Namespace) -> int:
    """``flip7ref dispute [ID]``: list the disputes, or show one and play its cases.

    Returns:
        0.

    Raises:
        OptionError: unknown dispute id or edition (exit status 2).
    """
    from rich.table import Table
    from rich.text import Text

    console = _console()
    if not args.id:
        found = disputes(args.edition)
        for edition_id in dict.fromkeys(d.edition.id for d in found):
            group = [d for d in found if d.edition.id == edition_id]
            table = Table(title=Text(f"{group[0].edition.title}: disputes"), title_justify="left")
            for col in ("id", "status", "option", "question"):
                table.add_column(col, overflow="fold", no_wrap=col != "question")
            for d in group:
                table.add_row(d.id, d.status, d.option or "—", Text(d.question))
            console.print(table)
        print("'flip7ref dispute ID' shows a dispute's readings and plays its conformance cases under each.")
        return 0
    d = find_dispute(args.id, args.edition)
    print(f"{d.id} ({d.edition.title}): {d.question}")
    print(f"status: {d.status}; option: {d.option or 'none'}; rules: {', '.join(d.rules) or 'none'}")
    print()
    print("Readings:")
    for r in d.readings:
        if d.option is None:
            how = ""
        elif r.value is None:
            how = "  [not modelled: not played]"
        else:
            how = f"  [{d.option}={r.value}]"
        mark = " (default)" if r.default else ""
        print(f"  {r.name}{mark}{how}: {r.summary}")
        print(f"      held by: {', '.join(r.holders) or 'no source'}")
    print()
    holders = list(dict.fromkeys(h for r in d.readings for h in r.holders))
    if holders:
        print("Sources:")
        for key in holders:
            src = d.edition.sources.get(key) or {}
            kind = f" ({src['kind']})" if src.get("kind") else ""
            print(f"  {key}{kind}: {src.get('title', 'not in the source register')}")
        print()
    if d.option is None:
        print(f"{d.status}: {d.note}")
        default = next((r.name for r in d.readings if r.default), None)
        if d.status == "settled" and default is not None:
            print(f"No option models this dispute, so there is nothing to play: the engine follows reading {default}.")
        elif d.status == "no-play-change":
            print("Its readings play the same game (see the note), so there is nothing to play.")
        else:
            print("No option models this dispute, so there is nothing to play.")
        return 0
    print(f"Note: {d.note}")
    cases = attached_cases(d)
    if not cases:
        print(f"No conformance case is attached to {d.id}.")
        return 0
    print(f"{len(cases)} attached case{'s' if len(cases) != 1 else ''}, each played under every modelled reading:")
    for case in cases:
        table, differing = reading_table(d, case, play_readings(d, case))
        console.print()
        console.print(table)
        if differing:
            print(f"{case['id']}: the readings differ in {', '.join(differing)}.")
        else:
            print(f"{case['id']}: the same outcome under every reading.")
    return 0


@attrs.frozen
class Step:
    """One move of a walk through a position, with the events it caused.

    Attributes:
        number: 1-based step number (0 for the events of the starting position).
        move: the move (``hit``, ``target 1``, ``chance 8``), or None for step 0.
        words: the move in plain words.
        rules: the rule ids behind the move itself (a Hit forced because Stay is not
            allowed cites the rules of the ``stay_requires`` option); usually empty, as
            the events carry the rules.
        events: ``(event text, rule ids)`` for each event the move emitted.
    """

    number: int
    move: str | None
    words: str
    rules: tuple[str, ...]
    events: tuple[tuple[str, tuple[str, ...]], ...]


_DECISIONS = {
    "offer": "is offered Hit or Stay and chooses {move}",
    "play": "chooses who gets {card}: {move}",
    "give": "must hand the spare {card} on: {move}",
    "keep_or_give": "keeps {card} or hands it on: {move}",
    "assign": "assigns the set-aside {card}: {move}",
    "cards": "picks the cards for {card}: {move}",
    "flip7_bonus": "chooses where the Flip 7 bonus goes: {move}",
}


def walk(states: Sequence[State], moves: Sequence[str], lang: str = "en") -> list[Step]:
    """Describe a sequence of states step by step, naming the rules of every event.

    Args:
        states: consecutive states, the starting position first.
        moves: the move leading to each state after the first (``len(states) - 1`` of them;
            ``"chance CARD"`` for a card drawn).
        lang: language of card names (``en``, ``nl``, ``de``, ``fr``, ``no``).

    Returns:
        The steps; step 0 (the starting position's own events) only when it has events.
    """
    if not states:
        return []
    game = states[0].game
    edition = game.edition

    def lines(events: Iterable[Event]) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return tuple((describe(e, game, lang), event_rules(e, edition)) for e in events)

    steps = []
    if states[0].events():
        steps.append(Step(0, None, "the position starts", (), lines(states[0].events())))
    for i, (before, after, move) in enumerate(zip(states[:-1], states[1:], moves, strict=True), start=1):
        rules: tuple[str, ...] = ()
        if move.startswith("chance "):
            words = f"card drawn: {card_name(game, move.removeprefix('chance '), lang)}"
        else:
            kind, card = before.pending()
            template = _DECISIONS.get(kind, "decides {move}")
            words = f"seat {before.current_player} " + template.format(card=card_name(game, card, lang), move=move)
            legal = before.legal_action_strings()
            if kind == "offer" and legal == ["hit"]:
                words += " (forced: Stay is not allowed)"
                spec = edition.options.get("stay_requires")
                rules = spec.rules if spec is not None else ()
            else:
                words += " (forced)" if len(legal) == 1 else f" (legal: {', '.join(legal)})"
        steps.append(Step(i, move, words, rules, lines(after.last_events())))
    return steps


def _print_steps(steps: Sequence[Step]) -> list[str]:
    cited: list[str] = []
    for step in steps:
        print(f"step {step.number:>3}  {step.words}" + (f"  [{', '.join(step.rules)}]" if step.rules else ""))
        cited.extend(step.rules)
        for text, rules in step.events:
            print(f"           {text}  [{', '.join(rules) or 'no rule mapped'}]")
            cited.extend(rules)
    return list(dict.fromkeys(cited))


def _where(state: State) -> str:
    player = state.current_player
    if player == TERMINAL:
        winners = " and ".join(f"seat {w}" for w in state.winners)
        verb = "wins" if len(state.winners) == 1 else "win"
        return f"the game is over: {winners} {verb}; totals {' '.join(map(str, state.totals))}"
    if player == CHANCE:
        return "a card is to be drawn"
    return f"seat {player} decides ({', '.join(state.legal_action_strings())})"


def _position(state: State, lang: str) -> None:
    game = state.game
    totals = " ".join(map(str, state.totals))
    print(f"Position: {state.num_players} players, seat {state.dealer} deals, round {state.round}, totals {totals}")
    for seat in range(state.num_players):
        line = " ".join(card_name(game, c, lang) for c in state.line(seat)) or "—"
        kept = " ".join(card_name(game, c, lang) for c in state.kept(seat))
        print(f"  seat {seat}: {state.status(seat).value}; line {line}" + (f"; kept {kept}" if kept else ""))
    pile = [game.card_ids[c] for c in state.draw]
    shown = " ".join(card_name(game, c, lang) for c in pile[:20]) + (f" … ({len(pile)} cards)" if len(pile) > 20 else "")
    print(f"  draw pile, top first: {shown or '—'}")


def _legend(edition: Edition, cited: Sequence[str]) -> None:
    if not cited:
        return
    print()
    print("Rules cited:")
    for rid in cited:
        rule = edition.rules.get(rid)
        print(f"  {rid}  {rule.text if rule else '(not in the catalogue)'}")


def find_case(case_id: str, cases: Iterable[Case] | None = None) -> Case:
    """The conformance case with id ``case_id`` (case-insensitive), e.g. ``"F7-C0100"``.

    Args:
        case_id: the case id.
        cases: the cases to search (default: the shipped suite).

    Raises:
        OptionError: no case has that id.
        SpecError: a malformed case file (when loading the shipped suite).
    """
    for case in load_cases() if cases is None else cases:
        if str(case["id"]).casefold() == case_id.strip().casefold():
            return case
    raise OptionError(f"unknown case {case_id!r} ('flip7ref conformance run' lists the suite; ids look like F7-C0100 or V-C0045)")


def explain_case(case: Case, lang: str = "en") -> int:
    """Print a case step by step with the rule ids of every event; see `walk`.

    Args:
        case: a conformance case.
        lang: language of card names.

    Returns:
        0 when the reference plays the case to its end, 1 when an action is not legal
        or the position (or line) cannot be set up.

    Raises:
        OptionError: the case names an unknown edition.
        SpecError: its edition table is malformed.
    """
    options = case.get("options") or {}
    print(f"{case['id']}: {case['title']}")
    print(f"edition {case['edition']}; options: {', '.join(f'{k}={v}' for k, v in options.items()) or 'defaults'}")
    print(f"checks {', '.join(case['rules'])}; source: {case['source']}")
    print()
    run = run_case(case)
    edition = load_edition(case["edition"])
    if case["kind"] == "scoring":
        if run.stopped:
            print(f"Line: {' '.join(case['line'])}")
            print(run.stopped)
            return 1
        from .scoring import score_cards

        game = Game(case["edition"], 1, options)
        print(f"Line: {' '.join(card_name(game, c, lang) for c in case['line'])}")
        cited: list[str] = []
        for name, value in score_cards(game, case["line"]).steps:
            rules = edition.event_rules.get(f"round_scored/{name}", ())
            cited.extend(rules)
            print(f"  {name:<18} {value:>4}" + (f"  [{', '.join(rules)}]" if rules else ""))
        print(f"score {run.observed['score']}{' (Flip 7)' if run.observed.get('flip7') else ''}")
        _report_check(run)
        _legend(edition, list(dict.fromkeys(cited)))
        return 0
    if case["kind"] == "perft" and not run.stopped:
        obs = run.observed
        pile = dict(case["setup"]["pile"])
        print(f"Pile {pile}, policy {case['policy']}: {obs['orders']} deal orders until the round is scored")
        for key, count in obs["outcomes"].items():
            print(f"  round scores {key}: {count} orders, probability {obs['scores'][key]}")
        _report_check(run)
        return 0
    if not run.states:
        print(run.stopped)
        return 1
    _position(run.states[0], lang)
    print()
    cited = _print_steps(walk(run.states, run.moves, lang))
    print()
    if run.stopped:
        print(f"Stopped: {run.stopped}")
    print(f"Now: {_where(run.states[-1])}.")
    _report_check(run)
    _legend(edition, cited)
    return 1 if run.stopped else 0


def _report_check(run: Run) -> None:
    if run.diffs is None:
        return
    if run.diffs:
        print(f"The case expects otherwise: {run.diffs[0]}")
    else:
        print("The case's expected outcome holds.")


def explain_transcript(path: str, lang: str = "en") -> int:
    """Print a game transcript step by step with the rule ids of every event.

    Args:
        path: a transcript file (``spec/schema/transcript.schema.json``), e.g. written by
            ``flip7ref trace --transcript``.
        lang: language of card names.

    Returns:
        0 when the reference agrees with the whole transcript, 1 at the first divergence
        (the steps before it are explained, then what the reference expected).

    Raises:
        SpecError: the file is missing, not JSON, or not a transcript.
        Flip7RefError: its edition, options, players or dealer are invalid.
    """
    data = load_transcript(path)
    result = replay(data)
    final = result.state
    states = final.replay()
    edition = final.game.edition
    options = data.get("options") or {}
    print(f"Transcript {path}: {data.get('engine', 'unknown engine')}")
    chosen = ", ".join(f"{k}={v}" for k, v in options.items()) or "defaults"
    print(f"edition {edition.id}; options: {chosen}; {data['players']} players, seat {data['dealer']} deals first")
    print()
    cited = _print_steps(walk(states, final.history(), lang))
    print()
    if not result.agrees:
        where = f"step {result.divergence + 1}" if result.divergence is not None else "the end"
        print(f"The reference disagrees at {where}: {result.message}")
        if result.rules:
            print(f"rules involved: {', '.join(result.rules)}")
        cited = list(dict.fromkeys([*cited, *result.rules]))
    print(f"Now: {_where(final)}.")
    _legend(edition, cited)
    return 0 if result.agrees else 1


def cmd_explain(args: argparse.Namespace) -> int:
    """``flip7ref explain --case ID | --transcript FILE``; see `explain_case`, `explain_transcript`.

    Returns:
        0, or 1 when the case or transcript cannot be played to its end.

    Raises:
        OptionError: unknown case id (exit status 2).
        SpecError: a malformed transcript (exit status 2).
    """
    if args.case:
        return explain_case(find_case(args.case), args.lang)
    return explain_transcript(args.transcript, args.lang)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``dispute`` and ``explain`` subcommands to the ``flip7ref`` parser.

    Args:
        sub: the parser's subcommand group (``add_subparsers`` result).
    """
    p = sub.add_parser(
        "dispute",
        help="list the disputed rules, or play one's cases under every reading",
        description="Without ID, list every dispute of the edition tables (id, status, option, question). With ID "
        "(e.g. D-F7-10), show its readings, who holds each and which option value selects it, then play every "
        "conformance case attached to it under every modelled reading and show the outcomes side by side.",
    )
    p.add_argument("id", nargs="?", help="a dispute id, e.g. D-F7-10 or D-V-03")
    p.add_argument("--edition", help="only this edition (id or .yaml table; default: every shipped edition)")
    p.set_defaults(func=cmd_dispute)

    p = sub.add_parser(
        "explain",
        help="walk a conformance case or a transcript step by step, naming the rules",
        description="Play a conformance case (or replay a game transcript) and print every step in plain words, "
        "each event with the rule ids that decided it (the edition table's 'events' section). Exit status 1 when "
        "the case or transcript cannot be played to its end.",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--case", metavar="ID", help="a conformance case id, e.g. F7-C0100")
    which.add_argument("--transcript", metavar="FILE", help="a transcript file, e.g. from 'flip7ref trace --transcript'")
    p.add_argument(
        "--lang", default="en", choices=["en", "nl", "de", "fr", "no"], help="language of card names (default %(default)s)"
    )
    p.set_defaults(func=cmd_explain)
