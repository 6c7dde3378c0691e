"""A position walked step by step in plain words, naming the rules of every event (`walk`,
`explain_case`, `explain_transcript`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from flip7ref.checking.conformance import Case
from flip7ref.checking.replay import load_transcript, replay, step_event_rules
from flip7ref.checking.runs import Run, run_case
from flip7ref.core.frames import DECISION_KINDS
from flip7ref.core.game import Game
from flip7ref.core.game_tables import GameTables
from flip7ref.core.i18n import rule_text
from flip7ref.core.spec import Edition, load_edition
from flip7ref.core.state import CHANCE, TERMINAL, Event, State
from flip7ref.core.text import card_name, describe

SEAT = {"en": "seat {n}", "nl": "stoel {n}", "de": "Platz {n}", "fr": "siège {n}", "no": "plass {n}"}
"""A seat in the words of each language of ``--lang`` (the event lines of `walk`)."""
DRAWN = {"en": "card drawn: {card}", "nl": "kaart gedraaid: {card}", "de": "Karte aufgedeckt: {card}",
         "fr": "carte retournée : {card}", "no": "kort snudd: {card}"}  # fmt: skip
CITED = {"en": "Rules cited:", "nl": "Genoemde regels:", "de": "Genannte Regeln:", "fr": "Règles citées :",
         "no": "Regler som er nevnt:"}  # fmt: skip


def event_line(event: Event, game: GameTables, lang: str) -> str:
    """One event of ``game`` in words in ``lang``: English from `flip7ref.core.text.describe`,
    another language from the table's event texts (`flip7ref.table.narration.tell`, the
    same words the table page shows), each seat called as `SEAT` says."""
    if lang not in SEAT or lang == "en":
        return describe(event, game, lang)
    from flip7ref.table.narration import tell  # the table's words, without its web extra

    names = [SEAT[lang].format(n=i) for i in range(game.players)]
    return tell(event, game, lang, names)


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




def walk(states: Sequence[State], moves: Sequence[str], lang: str = "en") -> list[Step]:
    """Describe a sequence of states step by step, naming the rules of every event.

    Args:
        states: consecutive states, the starting position first.
        moves: the move leading to each state after the first (``len(states) - 1`` of them;
            ``"chance CARD"`` for a card drawn).
        lang: language of card names and event lines (``en``, ``nl``, ``de``, ``fr``,
            ``no``; `event_line`).

    Returns:
        The steps; step 0 (the starting position's own events) only when it has events.
    """
    if not states:
        return []
    game = states[0].game
    edition = game.edition

    def lines(events: Iterable[Event]) -> tuple[tuple[str, tuple[str, ...]], ...]:
        events = tuple(events)
        return tuple((event_line(e, game, lang), rids) for e, rids in zip(events, step_event_rules(events, edition), strict=True))

    steps = []
    if states[0].events():
        steps.append(Step(0, None, "the position starts", (), lines(states[0].events())))
    for i, (before, after, move) in enumerate(zip(states[:-1], states[1:], moves, strict=True), start=1):
        rules: tuple[str, ...] = ()
        if move.startswith("chance "):
            words = DRAWN.get(lang, DRAWN["en"]).format(card=card_name(game, move.removeprefix("chance "), lang))
        elif lang in SEAT and lang != "en":  # the table's words for a decision (flip7ref.table.wording)
            from flip7ref.table.wording import choices, move_words

            names = [SEAT[lang].format(n=i) for i in range(game.players)]
            words = f"{names[before.current_player]}: {move_words(before, move, names, lang)} ({choices(before, names, lang)})"
        else:
            kind, card = before.pending()
            template = DECISION_KINDS.get(kind) or "decides {move}"  # a primitive's kind brings its words
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


def _legend(edition: Edition, cited: Sequence[str], lang: str = "en") -> None:
    """Print the rules cited, in ``lang`` (`flip7ref.core.i18n.rule_text`, English where a text is missing)."""
    if not cited:
        return
    print()
    print(CITED.get(lang, CITED["en"]))
    for rid in cited:
        print(f"  {rid}  {rule_text(edition, rid, lang) or '(not in the catalogue)'}")


def explain_case(case: Case, lang: str = "en") -> int:
    """Print a case step by step with the rule ids of every event; see `walk`.

    Args:
        case: a conformance case.
        lang: language of card names, event lines and rule texts (`walk`, `_legend`).

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
        from flip7ref.core.scoring import score_cards

        game = Game(case["edition"], 1, options)
        print(f"Line: {' '.join(card_name(game, c, lang) for c in case['line'])}")
        cited: list[str] = []
        for name, value in score_cards(game, case["line"]).steps:
            rules = edition.event_rules.get(f"round_scored/{name}", ())
            cited.extend(rules)
            print(f"  {name:<18} {value:>4}" + (f"  [{', '.join(rules)}]" if rules else ""))
        print(f"score {run.observed['score']}{' (Flip 7)' if run.observed.get('flip7') else ''}")
        _report_check(run)
        _legend(edition, list(dict.fromkeys(cited)), lang)
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
    _legend(edition, cited, lang)
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
        lang: language of card names, event lines and rule texts (`walk`, `_legend`).

    Returns:
        0 when the reference agrees with the whole transcript, 1 at the first divergence
        (the steps before it are explained, then what the reference expected).

    Raises:
        SpecError: the file is missing, not JSON, or not a transcript.
        Flip7RefError: its edition, options, players or dealer are invalid.
    """
    data = load_transcript(path)
    result = replay(data, file=str(path))
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
    _legend(edition, cited, lang)
    return 0 if result.agrees else 1
