"""Checking an engine's observed outcome against the reference, under the engine's readings.

The harness does not compare an engine with a case's ``expect`` blindly:

1. `prepare` plays the case on the reference under its own options; a case the
   reference cannot play is an ``error`` (the same verdict in-process and over the
   protocol).
2. It works out the readings the engine plays (`engine_options`, from the
   engine's ``start`` description) and, when they differ from the case's, replays the
   case's decisions on the reference under them and derives the expected outcome
   from that run (`derive_expect`).  The case is skipped only when its
   decisions are not legal under the engine's readings, or when the expectation there
   hangs on the order of a reshuffled pile, which only the reference's private shuffle
   decided (`flip7ref.checking.shuffle_order`); the reason says so.
3. The request sent to the engine (`request_case`) holds the setup, options,
   actions and the seat taking each action — never the ``expect`` block.
4. `verdict` compares the engine's outcome, and blames the failure on the rules of the
   reference's step that produced the first observation in which the engine differs
   (`flip7ref.checking.blame.blame`): the first event of the engine's that differs, or the step
   that last changed a differing seat field, or the seat's scoring situation...

`dependencies` plays a case under every modelled reading of every dispute of
its edition and lists the disputes its outcome depends on.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from flip7ref.checking.blame import blame, decision_rules, play_first, rules_of, turn_rules
from flip7ref.checking.catalogue import disputes
from flip7ref.checking.caused import Caused
from flip7ref.checking.conformance import Case, CaseResult, Difference, compare_detailed, errored
from flip7ref.checking.prepared import REQUEST_KEYS as REQUEST_KEYS  # re-exported for the importers of verdict
from flip7ref.checking.prepared import Prepared as Prepared  # re-exported for the importers of verdict
from flip7ref.checking.runs import Run, run_case, with_option
from flip7ref.checking.shortlist import CITED, FIRST, REFUSED, short_blame
from flip7ref.checking.shuffle_order import Restack, reverse, shuffle_dependence, shuffled_during
from flip7ref.checking.situation import position_rules
from flip7ref.checking.suspects import Weak, first_suspects, reading_suspects
from flip7ref.core.errors import Flip7RefError
from flip7ref.core.events import TEXT
from flip7ref.core.spec import Edition, edition_ids, load_edition
from flip7ref.core.state import CHANCE, TERMINAL

MESSAGE_LIMIT = 500
"""Characters kept of an engine's message, a difference or a shown value."""


def cut(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` shortened to at most ``limit`` characters (an ellipsis and the length cut)."""
    if len(text) <= limit:
        return text
    return f"{text[: limit - 30]}… ({len(text) - limit + 30} more characters)"


def _same(a: object, b: object) -> bool:
    return str(a).casefold() == str(b).casefold()


def _canonical(edition: Edition, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options that differ from the table's defaults, in canonical form (unknown names kept)."""
    out: dict[str, Any] = {}
    for name, value in options.items():
        spec = edition.options.get(name)
        if spec is None:
            out[name] = value
            continue
        try:
            value, default = spec.coerce(value), spec.coerce(spec.default)
        except Flip7RefError:
            out[name] = value
            continue
        if value != default:
            out[name] = value
    return out


def engine_options(impl: Mapping[str, Any], case: Case) -> dict[str, Any]:
    """The options the engine plays a case with, by its ``start`` description.

    For every option of the case's edition: the case's value when the engine lists it
    among that option's readings (any whole number for an integer option when the
    engine declares ``integer_options``, or gives the option's range in v2); else the
    first reading the engine lists; else (the option is not listed) the table default.

    Returns:
        The options differing from the table's defaults (unknown option names of the
        case are kept, so that the reference reports them).

    Raises:
        Flip7RefError: the case's edition is unknown.
    """
    edition = load_edition(case["edition"])
    offered = ((impl.get("editions") or {}).get(case["edition"]) or {}).get("options") or {}
    ranges = ((impl.get("editions") or {}).get(case["edition"]) or {}).get("integer_ranges") or {}
    wanted = dict(case.get("options") or {})
    played: dict[str, Any] = {k: v for k, v in wanted.items() if k not in edition.options}
    for name, spec in edition.options.items():
        value = wanted.get(name, spec.default)
        readings = offered.get(name)
        if readings is None:
            choice: Any = spec.default
        elif any(_same(value, r) for r in readings) or _whole_in_range(value, ranges.get(name), impl):
            choice = value
        elif readings:
            choice = readings[0]
        else:
            choice = spec.default
        played[name] = choice
    return _canonical(edition, played)


def _whole_in_range(value: object, bounds: object, impl: Mapping[str, Any]) -> bool:
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    if isinstance(bounds, Sequence) and len(bounds) == 2:
        low, high = bounds
        return (low is None or value >= low) and (high is None or value <= high)
    return bool(impl.get("integer_options"))


def derive_expect(expect: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any]:
    """The expectation of a case under other readings, from the reference's outcome there.

    Each key of ``expect`` that still holds in ``observed`` is kept as written; one that
    does not is replaced by what the reference observed (the whole event sequence for
    ``events``, ``events_include`` and ``events_exclude``; the same seats for
    ``statuses``, ``lines``, ``kept``; the same sub-keys of ``next``).
    """
    out: dict[str, Any] = {}
    for key, want in expect.items():
        if not compare_detailed({key: want}, observed):
            out.setdefault(key, want)
            continue
        have = observed.get(key)
        if key in ("events", "events_include", "events_exclude"):
            out.pop("events_include", None)
            out.pop("events_exclude", None)
            out["events"] = list(observed.get("events") or [])
        elif key in ("statuses", "lines", "kept"):
            out[key] = {seat: (have or {}).get(str(seat)) for seat in want}
        elif key == "next":
            out[key] = {sub: (have or {}).get(sub) for sub in want}
        else:
            out[key] = have
    return out


def _steps(run: Run) -> tuple[tuple[int, ...], tuple[tuple[str, ...], ...]]:
    actors: list[int] = []
    legal: list[tuple[str, ...]] = []
    for state, move in zip(run.states, run.moves, strict=False):
        if not move.startswith("chance "):
            actors.append(state.current_player)
            legal.append(tuple(state.legal_action_strings()))
    return tuple(actors), tuple(legal)


def _play(case: Case, restack: Restack | None = None) -> Run | str:
    try:
        run = run_case(case) if restack is None else run_case(case, restack=restack)
    except Flip7RefError as exc:
        return str(exc)
    return run.stopped if run.stopped else run


FORCED_LIMIT = 200
"""The most forced choices the reference takes after a case's last action for an engine that
resolves them itself (a chain of forced choices is short; this only bounds a broken position)."""


def _forced_tail(run: Run, restack: Restack | None = None) -> tuple[Run, tuple[str, ...]]:
    """Play on while the next decision has a single legal action, as an engine declaring
    ``auto_resolves_forced_choices`` does after the case's last action: the run there and the
    forced actions taken (with ``restack``, shuffles ordered by it)."""
    actions = list(run.case.get("actions") or ())
    tail: list[str] = []
    for _ in range(FORCED_LIMIT):
        final = run.states[-1] if run.states else None
        if final is None or run.stopped or final.current_player in (CHANCE, TERMINAL):
            break
        legal = final.legal_action_strings()
        if len(legal) != 1:
            break
        tail.append(legal[0])
        longer = _play({**run.case, "actions": [*actions, *tail]}, restack)
        if isinstance(longer, str):  # pragma: no cover - a legal action always plays
            tail.pop()
            break
        run = longer
    return run, tuple(tail)


def _hanging_on_order(case: Case, options: Mapping[str, Any], expect: Mapping[str, Any], run: Run) -> list[str]:
    """The keys of ``expect`` (worked out on ``run``, the forced choices played on) that change
    when every shuffle is ordered otherwise (`flip7ref.checking.shuffle_order.reverse`): all of them when
    the case or its forced tail cannot be played so; none when ``run`` makes no shuffle."""
    if not shuffled_during(run):
        return []
    base = _play({**case, "options": dict(options)}, reverse)
    if isinstance(base, str):
        return list(expect)
    other, _ = _forced_tail(base, reverse)
    again = derive_expect(expect, other.observed)
    return [k for k in expect if again.get(k) != expect.get(k)]


def prepare(case: Case, impl: Mapping[str, Any]) -> Prepared | CaseResult:
    """Work out what an engine must observe in a case; see the module docstring.

    For an engine declaring ``auto_resolves_forced_choices`` (protocol v2), the reference
    also takes the forced choices that follow the case's last action (the engine makes
    them itself), and the expected outcome is the reference's after them (`derive_expect`);
    the keys of it that would change with another shuffle order are left out (the case is
    skipped when that is all of them), since that order is the engine's business.

    Args:
        case: a conformance case.
        impl: the engine's ``implementation`` description (for the reference in-process,
            `flip7ref.checking.harness.implementation`).

    Returns:
        A `Prepared` case, or a result already decided: ``error`` when the reference
        cannot play the case as written (an unknown option, an illegal action...), ``skip``
        when its decisions are not legal under the engine's readings.
    """
    own = _play(case)
    if isinstance(own, str):
        return errored(case, "error", cut(f"the reference cannot play this case: {own}"))
    edition = load_edition(case["edition"])
    try:
        options = engine_options(impl, case)
    except Flip7RefError as exc:  # pragma: no cover - the case played, so its edition is known
        return errored(case, "error", cut(str(exc)))
    if options == _canonical(edition, case.get("options") or {}):
        run, expect, changed = own, dict(case["expect"]), False
    else:
        shown = ", ".join(f"{k}={v}" for k, v in sorted(options.items())) or "the table defaults"
        other = _play({**case, "options": options})
        if isinstance(other, str):
            why = f"the case's decisions are not legal under the engine's readings ({shown}): {other}"
            return errored(case, "skip", cut(why))
        run, expect, changed = other, derive_expect(case["expect"], other.observed), True
        shuffle = shuffle_dependence(case, options, expect, derive_expect, other)
        if shuffle:
            return errored(case, "skip", cut(f"under the engine's readings ({shown}) {shuffle}"))
    auto = bool(impl.get("auto_resolves_forced_choices")) and "actions" in case
    tail: tuple[str, ...] = ()
    if auto:
        run, tail = _forced_tail(run)
        if tail:
            expect = derive_expect(expect, run.observed)
            hanging = _hanging_on_order(case, options, expect, run)
            if hanging and len(hanging) == len(expect):
                why = (
                    f"the forced choices played on after its last action reach a shuffle whose order the case does "
                    f"not fix: its expected {', '.join(hanging)} then depend on it"
                )
                return errored(case, "skip", cut(why))
            expect = {k: v for k, v in expect.items() if k not in hanging}
    actors, legal = _steps(run)
    return Prepared(case, options, run, expect, actors, legal, changed, auto, tail)


def reading_note(case: Case, options: Mapping[str, Any]) -> str:
    """For a case that pins a dispute reading (its ``reading``), checked under another reading
    of that option (``options``: the non-default options the engine plays): what was pinned and
    what was played, in one line; else the empty string."""
    pinned = case.get("reading")
    if not isinstance(pinned, Mapping):
        return ""
    name = str(pinned.get("option"))
    try:
        spec = load_edition(case["edition"]).options.get(name)
    except Flip7RefError:  # pragma: no cover - the case played, so its edition is known
        return ""
    if spec is None:
        return ""
    played: Any = options.get(name, spec.default)
    try:
        if spec.coerce(played) == spec.coerce(pinned.get("value")):
            return ""
    except Flip7RefError:
        pass
    dispute = f", {pinned['dispute']}" if pinned.get("dispute") else ""
    return f"the case pins {name}={pinned.get('value')}{dispute}; checked under {name}={played}, the engine's reading"


def check_declaration(impl: Mapping[str, Any]) -> str | None:
    """A problem with the options an engine declares in its ``start`` response, or None.

    Every option named under a known edition must be an option of that edition's table, and
    each reading listed one of its readings (or a whole number in range, for an integer
    option); ``integer_ranges`` must name integer options, each range with its minimum at
    most its maximum, and so must ``players``; every type of ``events`` must be an event
    type (`flip7ref.core.events.TEXT`: a typo would drop those events from every comparison).
    Editions the harness does not know are left alone (their cases do not exist).

    Returns:
        One line naming the edition, the option and what it has (``reshuffles`` takes
        ``once``, ``unlimited``...), with the closest spelling when there is one.
    """
    types = sorted(TEXT)
    for j, name in enumerate(impl.get("events") or ()):
        if name not in TEXT:
            near = _close(str(name), types)
            return f"events[{j}]: {name!r} is not an event type{near} (the protocol's types: {', '.join(types)})"
    if _reversed(impl.get("players")):
        return f"players: {json.dumps(impl['players'])} is no range (its minimum is above its maximum)"
    known = set(edition_ids())
    for ed_id, entry in sorted((impl.get("editions") or {}).items()):
        if ed_id not in known or not isinstance(entry, Mapping):
            continue
        edition = load_edition(ed_id)
        names = sorted(edition.options)
        for key in ("options", "integer_ranges"):
            for name, readings in sorted((entry.get(key) or {}).items()):
                spec = edition.options.get(name)
                where = f"editions.{ed_id}.{key}.{name}"
                if spec is None:
                    return f"{where}: {name!r} is not an option of {ed_id}{_close(name, names)} (its options: {', '.join(names)})"
                if key == "integer_ranges":
                    if spec.integer is None:
                        return f"{where}: {name} is not an integer option (its readings: {_readings(spec)})"
                    if _reversed(readings):
                        return f"{where}: {json.dumps(readings)} is no range (its minimum is above its maximum)"
                    continue
                for reading in readings or ():
                    try:
                        spec.coerce(reading)
                    except Flip7RefError:
                        near = _close(str(reading), [r.name for r in spec.readings])
                        return f"{where}: {reading!r} is not a reading of {name}{near} (its readings: {_readings(spec)})"
    return None


def _reversed(bounds: object) -> bool:
    """Whether ``bounds`` is a ``[min, max]`` pair of numbers with the minimum above the maximum."""
    if not isinstance(bounds, Sequence) or isinstance(bounds, str) or len(bounds) != 2:
        return False
    low, high = bounds
    numbers = all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in (low, high))
    return numbers and low > high


def _readings(spec: Any) -> str:
    names = ", ".join(r.name for r in spec.readings)
    return names + (", or a whole number" if spec.integer is not None else "")


def _close(word: str, choices: Sequence[str]) -> str:
    near = difflib.get_close_matches(word, choices, n=1, cutoff=0.7)
    return f" (did you mean {near[0]!r}?)" if near else ""


# --------------------------------------------------------------------------- verdicts


def _shown(value: object, limit: int = 200) -> str:
    try:
        text = json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):  # pragma: no cover - outcomes are JSON values
        text = repr(value)
    return cut(text, limit)


def _result(prepared: Prepared, status: str, message: str, diffs: Sequence[str], rules: Sequence[str],
            suspects: Sequence[str] = (), first: str = FIRST) -> CaseResult:  # fmt: skip
    case = prepared.case
    shown, reasons = short_blame(rules, suspects, isinstance(suspects, Weak), first)
    whole = json.dumps(prepared.expect, sort_keys=True)
    expected = {
        "options": dict(prepared.options),
        "actors": list(prepared.actors),
        "legal": [list(step) for step in prepared.legal],
        "outcome": dict(prepared.expect) if len(whole) <= 4000 else cut(whole, 4000),
    }
    return CaseResult(
        case["id"], case["edition"], tuple(case["rules"]), case["source"], status, cut(message),
        tuple(cut(d) for d in diffs), blame=shown, reasons=reasons, expected=expected,
        other_reading=reading_note(case, prepared.options),
    )  # fmt: skip


def only_events(expect: Mapping[str, Any], types: Sequence[str]) -> dict[str, Any]:
    """``expect`` with its event expectations narrowed to the event types an engine emits."""
    keep = set(types)
    out = dict(expect)
    for key in ("events", "events_include"):
        if key in out:
            out[key] = [e for e in out[key] if e.get("type") in keep]
    if "events_exclude" in out:
        out["events_exclude"] = [t for t in out["events_exclude"] if t in keep]
    return out


def verdict(prepared: Prepared, observed: Mapping[str, Any], events: Sequence[str] | None = None) -> CaseResult:
    """Judge an engine's observed outcome: ``pass``, or ``fail`` blamed on the rule ids of the
    first difference (`blame`), with every difference explained.

    Args:
        prepared: the prepared case.
        observed: the engine's outcome.
        events: the event types the engine emits (protocol v2 ``events``); only those are
            compared.  None: all.
    """
    expect = prepared.expect
    if events is not None:
        expect = only_events(expect, events)
        observed = {**observed, "events": [e for e in observed.get("events") or [] if e.get("type") in set(events)]}
    try:
        diffs = compare_detailed(expect, observed)
    except RecursionError:  # pragma: no cover - replies are depth-checked before
        diffs = [Difference("outcome", None, "outcome: nested too deeply to compare")]
    case = prepared.case
    if not diffs:
        note = reading_note(case, prepared.options)
        return CaseResult(case["id"], case["edition"], tuple(case["rules"]), case["source"], "pass", other_reading=note)
    texts = [d.text for d in diffs]
    if prepared.changed:
        shown = ", ".join(f"{k}={v}" for k, v in sorted(prepared.options.items())) or "the table defaults"
        texts.append(f"(expected outcome computed by the reference under the engine's readings: {shown})")
    if prepared.forced_tail:
        shown = ", ".join(repr(a) for a in prepared.forced_tail)
        texts.append(f"(expected outcome after the forced choices the engine resolves itself: {shown})")
    rules = blame(diffs, prepared, observed, events)
    suspects = reading_suspects(prepared, observed, events)
    why = rules.reason if isinstance(rules, Caused) else FIRST
    return _result(prepared, "fail", diffs[0].text, texts, first_suspects(suspects, rules), suspects, why)


_ACTION = re.compile(r"\baction (\d+)\b")
_WRONG_SEAT = re.compile(r"\bis seat \d+'s\b.*\bbut\b", re.IGNORECASE)


def expected_steps(prepared: Prepared, message: str = "") -> list[str]:
    """Lines saying what the reference expected: the seat taking each action and the legal
    actions there (the action the engine's message names first: its "action N" counts the
    actions sent, from 1, so that forced actions left out for an engine declaring
    ``auto_resolves_forced_choices`` are not counted), then the expected outcome."""
    actions = list(prepared.actions)
    named = _ACTION.search(message)
    order = list(range(len(actions)))
    first = prepared.case_step(int(named.group(1))) if named else None
    if first is not None and first < len(actions):
        order = [first, *[i for i in order if i != first]]
    position = {index: number for number, index in enumerate(prepared.sent(), 1)}
    lines = []
    for i in order[:8]:
        if i < len(prepared.actors):
            legal = ", ".join(prepared.legal[i]) or "none"
            if not prepared.auto_resolve:
                how = ""
            elif i in position:
                how = f", sent as action {position[i]}"
            else:
                how = ", forced: not sent"
            lines.append(f"reference: action {i + 1} {actions[i]!r} is seat {prepared.actors[i]}'s (legal there: {legal}{how})")
    if len(order) > 8:
        lines.append(f"reference: … and {len(order) - 8} more actions")
    lines.append(f"expected outcome: {_shown(prepared.expect, 400)}")
    return lines


OUT_OF_CARDS = (("type", "deck_exhausted"), ("reason", "empty deck"), ("outcome", "exhausted"))
"""The event fields saying the reference's step ran out of cards (the deck and the discard pile
empty: a Hit turned into a Stay, a forced draw ended early), where engines often fail."""


def _ended_by(run: Run, at: Sequence[int], index: int) -> tuple[str, ...]:
    """The rules of the last event saying the reference ran out of cards (`OUT_OF_CARDS`) among
    those its decision ``index`` brought about (``at``: the indices into ``run.states`` of the
    decisions), or none: what an engine erroring on that action failed at, beyond the action."""
    first = at[index]
    last = at[index + 1] if index + 1 < len(at) else len(run.states) - 1
    events = list(run.observed.get("events") or [])
    made = events[len(run.states[first].events()) : len(run.states[last].events())]
    out = [e for e in made if isinstance(e, Mapping) and any(e.get(k) == v for k, v in OUT_OF_CARDS)]
    return rules_of(out[-1], run.states[first].game.edition) if out else ()


def failed(prepared: Prepared, message: str) -> CaseResult:
    """An ``error`` result for an engine that refused or failed a case: its message, and what the
    reference expected (actors, legal actions, outcome); blamed on the rules of the node the
    engine's message names (``action N``, counted among the actions sent), after those of the
    reference running out of cards in that step when it did (`OUT_OF_CARDS`, F7-115), else the
    case's rules."""
    rules: tuple[str, ...] = tuple(prepared.case["rules"])
    named = _ACTION.search(message)
    step = prepared.case_step(int(named.group(1))) if named else None
    if step is not None and prepared.run.states:
        index = step
        steps = zip(prepared.run.states, prepared.run.moves, strict=False)
        at = [j for j, (_, move) in enumerate(steps) if not move.startswith("chance ")]
        decisions = [prepared.run.states[j] for j in at]
        if 0 <= index < len(decisions):
            rules = decision_rules(decisions[index]) or rules
            ended = _ended_by(prepared.run, at, index)
            if ended:  # the reference ran out of cards there: most likely what the engine failed at
                rules = tuple(dict.fromkeys((*ended, *rules)))
            if _WRONG_SEAT.search(message):  # the engine has another seat to act: the rules on turns first
                turns = turn_rules(decisions[index], "turn" in (prepared.case.get("setup") or {}))
                rules = tuple(dict.fromkeys((*turns, *rules)))
            rules = play_first(rules, decisions[index].game.edition)
    elif step is None:  # refused before any action: the set-up's lines nearest a boundary first
        rules = tuple(dict.fromkeys((*position_rules(load_edition(prepared.case["edition"]), prepared.case), *rules)))
    return _result(prepared, "error", message, [cut(message), *expected_steps(prepared, message)], rules,
                   first=CITED if rules == tuple(prepared.case["rules"]) else REFUSED)


ENGINE_FAULT = "engine fault: "
"""How the message of an engine fault (`faulted`) begins."""


def faulted(prepared: Prepared, message: str) -> CaseResult:
    """An ``error`` result for an engine fault on a case: the engine broke the protocol (it hung,
    exited, printed a line that is no valid answer, answered another ``seq``; ``message`` says
    which, `flip7ref.checking.engine_process.EngineError`'s line).  It gave no outcome or refusal
    to judge, so no rule is blamed (``fault`` set: a run counts it apart); what the reference
    expected is kept, as `failed` gives it."""
    shown = cut(ENGINE_FAULT + message)
    result = failed(prepared, message)
    return attrs.evolve(result, message=shown, diffs=(shown, *result.diffs[1:]), blame=(), reasons=(), fault=True)


# --------------------------------------------------------------------------- dependencies


def dependencies(case: Case) -> dict[str, list[str]]:
    """The disputes a case's outcome depends on, found by playing it under every modelled
    reading of every dispute of its edition that has an option.

    Returns:
        Dispute id -> the readings (option values) under which the case's expectation does
        not hold or its decisions are not legal; only disputes with such readings.

    Raises:
        OptionError: the case's edition is unknown.
    """
    out: dict[str, list[str]] = {}
    for dispute in disputes(case["edition"]):
        if dispute.option is None:
            continue
        for reading in dispute.played:
            assert reading.value is not None
            try:
                run = run_case(with_option(case, dispute.option, reading.value))
            except Flip7RefError:
                out.setdefault(dispute.id, []).append(reading.value)
                continue
            if run.stopped or run.diffs:
                out.setdefault(dispute.id, []).append(reading.value)
    return out
