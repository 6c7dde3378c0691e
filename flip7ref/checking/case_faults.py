"""Whether the reference can play a conformance case, and if not, which field is at fault.

`conformance run` reports a case the reference cannot play (an unknown option, a
value that is none of an option's readings, an unknown card, more players than the
decks allow, an action that is not legal) as errored.  `case_fault` finds such a
fault and the field it sits in, so that `flip7ref conformance export` can refuse
the case before anything is written (`check_cases`), in one line naming the file,
the case and the field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from flip7ref.checking.conformance import Case
from flip7ref.core.errors import Flip7RefError, SpecError
from flip7ref.core.spec import load_edition, pointer

_CARD_LISTS = ("draw", "discard")
_SEAT_CARD_LISTS = ("lines", "kept")
_EXPECTED = "a case the reference can play"
_ACTION_AT = re.compile(r"^before action (\d+) ")


def _card_faults(edition: Any, cards: object, path: list[object]) -> tuple[list[object], str] | None:
    """The first card of ``cards`` (a list of card names) the edition does not know."""
    if not isinstance(cards, list):
        return None
    for j, name in enumerate(cards):
        try:
            edition.card(name)
        except Flip7RefError as exc:
            return [*path, j], str(exc)
    return None


def case_fault(case: Case) -> tuple[list[object], str] | None:
    """Why the reference cannot play ``case``, if it cannot.

    Checked in order: the edition; each of ``options`` (a name of the table, a value
    among its readings); the pinned ``reading`` (likewise); ``setup.players`` (with
    the options, a game the reference can set up); every card named in ``setup``
    (``draw``, ``discard``, each seat's ``lines`` and ``kept``) and in ``line``;
    then the case is played (`flip7ref.checking.runs.run_case`) and an action that is
    not legal, or another set-up failure, is reported at that action (or the case).

    Args:
        case: a conformance case valid by ``case.schema.json``.

    Returns:
        None when the reference plays the case; else ``(path inside the case, message)``,
        the path a list of keys and indexes (``["options", "banana"]``).
    """
    try:
        edition = load_edition(case["edition"])
    except Flip7RefError as exc:
        return ["edition"], str(exc)
    options: Mapping[str, Any] = case.get("options") or {}
    for name, value in options.items():
        spec = edition.options.get(name)
        if spec is None:
            return ["options", name], f"unknown option {name!r} for edition {edition.id}"
        try:
            spec.coerce(value)
        except Flip7RefError as exc:
            return ["options", name], str(exc)
    pinned = case.get("reading")
    if isinstance(pinned, Mapping):
        spec = edition.options.get(str(pinned.get("option")))
        if spec is None:
            return ["reading", "option"], f"unknown option {pinned.get('option')!r} for edition {edition.id}"
        try:
            spec.coerce(pinned.get("value"))
        except Flip7RefError as exc:
            return ["reading", "value"], str(exc)
    setup: Mapping[str, Any] = case.get("setup") or {}
    if "players" in setup:
        from flip7ref.core.game import Game

        try:
            Game(edition, setup["players"], options)
        except Flip7RefError as exc:
            return ["setup", "players"], str(exc)
    for key in _CARD_LISTS:
        found = _card_faults(edition, setup.get(key), ["setup", key])
        if found:
            return found
    for key in _SEAT_CARD_LISTS:
        for seat, cards in (setup.get(key) or {}).items():
            found = _card_faults(edition, cards, ["setup", key, seat])
            if found:
                return found
    found = _card_faults(edition, case.get("line"), ["line"])
    if found:
        return found
    from flip7ref.checking.runs import run_case

    try:
        run = run_case(case)
    except Flip7RefError as exc:
        return [], str(exc)
    if run.stopped:
        at = _ACTION_AT.match(run.stopped)
        return (["actions", int(at.group(1)) - 1] if at else []), run.stopped
    return None


def check_cases(located: Iterable[tuple[str, int, Case]]) -> None:
    """Refuse the first case the reference cannot play (see `case_fault`).

    Args:
        located: ``(file, index of the case in the file's cases, case)`` triples, as
            `flip7ref.checking.conformance.load_located_cases` gives them.

    Raises:
        SpecError: ``FILE, at /cases/I/FIELD: case ID: MESSAGE; ...`` for the first one.
    """
    for file, index, case in located:
        fault = case_fault(case)
        if fault is not None:
            path, message = fault
            raise SpecError(
                file,
                pointer(["cases", index, *path]),
                _EXPECTED,
                problem=f"case {case['id']}: {message}; expected {_EXPECTED} (conformance run reports it as errored)",
            )
