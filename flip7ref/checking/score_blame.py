"""Which step of the scoring pipeline a differing score points at, and what decides a seat's
score in a line (`score_details`, `line_details`: the ``round_scored/STEP`` keys blame reads).

A score is one number, and many faults give the same wrong number; but the reference knows
its own pipeline (the edition table's ``scoring`` list, `flip7ref.core.scoring.score_line`).  When
a seat's score differs, the line is scored again with each step of that pipeline left out in
turn (but the sum of the numbers, the base of every score), then with each step moved one
place later: a step whose absence (or late place)
reproduces the engine's score is the step the engine got wrong, and its rules
(``round_scored/STEP`` in the table's ``events`` section) are blamed first.  The pipeline
run is the reference's own, on a copy of the edition whose ``scoring`` list is changed so;
nothing about the score is restated here.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from flip7ref.checking.situation import line_tags
from flip7ref.core.errors import CardError, Flip7RefError
from flip7ref.core.game import Game
from flip7ref.core.spec import Edition
from flip7ref.core.state import State

_GAMES: dict[tuple[int, str, bool, int, str], Game | None] = {}


def _changed(game: Game, step: str, later: bool) -> Game | None:
    """``game`` played on a copy of its edition whose scoring pipeline lacks ``step`` (or,
    ``later``, has it swapped with the step after it); None when such a table is refused
    or there is no step after it."""
    options = json.dumps(dict(game.options), sort_keys=True, default=str)
    key = (id(game.edition), step, later, game.players, options)
    if key not in _GAMES:
        if len(_GAMES) > 1000:
            _GAMES.clear()
        edition = game.edition
        steps = list(edition.scoring)
        at = next((i for i, s in enumerate(steps) if s.get("step") == step), None)
        if at is None or (later and at + 1 >= len(steps)):
            _GAMES[key] = None
            return None
        if later:
            steps[at], steps[at + 1] = steps[at + 1], steps[at]
        else:
            del steps[at]
        try:
            _GAMES[key] = Game(attrs.evolve(edition, scoring=tuple(steps)), game.players, dict(game.options))
        except (Flip7RefError, TypeError, ValueError):
            _GAMES[key] = None
    return _GAMES[key]


def misplayed_step(game: Any, cards: Sequence[str], made: bool, score: object) -> str | None:
    """The step of ``game``'s scoring pipeline whose absence, else whose move one place
    later, gives ``score`` for a line of card ids that is not busted (``made``: its Flip 7
    was made); None: no such step, the reference's own score, or a score that is not a
    whole number.

    Args:
        game: the `flip7ref.core.game.Game` played.
        cards: the line's card ids (numbers and modifiers; others are ignored).
        made: whether the line made the round's Flip 7 (its bonus added).
        score: the engine's score for that line.

    Returns:
        A step name of the table's ``scoring`` list (``floor_zero``, ``multiply``...).
    """
    from flip7ref.core.scoring import score_line

    if not isinstance(game, Game) or not isinstance(score, int) or isinstance(score, bool):
        return None
    codes: list[int] = []
    for card in cards:
        with contextlib.suppress(Flip7RefError, KeyError, ValueError):
            codes.append(game.code(card))
    if score_line(game, codes, flip7=made).score == score:
        return None
    for later in (False, True):
        for step in game.scoring:
            if step == "sum_numbers" and not later:  # the base of every score: without it nearly all is 0
                continue
            other = _changed(game, step, later)
            if other is not None and score_line(other, codes, flip7=made).score == score:
                return step
    return None


def follow_moves(cards: list[str], ev: Mapping[str, Any], seat: int) -> None:
    """Apply to ``seat``'s ``cards`` (card ids, changed in place) what the event ``ev`` (a
    protocol dict) moved between lines: a Swap, a Steal, a Discard, an Unlucky 7 wipe."""
    kind = ev.get("type")
    if kind == "swapped":
        for mine, gone, got in (("first", "first_card", "second_card"), ("second", "second_card", "first_card")):
            if ev.get(mine) == seat and str(ev.get(gone)) in cards:
                cards.remove(str(ev.get(gone)))
                cards.append(str(ev.get(got)))
    elif kind == "stolen":
        if ev.get("target") == seat and str(ev.get("card")) in cards:
            cards.remove(str(ev.get("card")))
        if ev.get("seat") == seat:
            cards.append(str(ev.get("card")))
    elif kind == "card_discarded" and ev.get("seat") == seat and str(ev.get("card")) in cards:
        cards.remove(str(ev.get("card")))
    elif kind == "line_wiped" and ev.get("seat") == seat:
        for card in ev.get("cards") or ():
            if str(card) in cards:
                cards.remove(str(card))


def score_details(
    edition: Edition, before: State | None, events: Sequence[Mapping[str, Any]], index: int, seat: int, totals_only: bool,
    engine_score: object = None,
) -> list[str]:  # fmt: skip
    """What decides ``seat``'s score in the round scored by event ``index``, most specific
    first, as ``round_scored/DETAIL`` keys of the table: ``totals`` (only the running total
    differs), ``busted``, ``flip7_other`` (another seat's Flip 7 ended the round),
    ``zero_unless_flip7``, ``multiply``, ``floor_zero``, ``add_modifiers``, ``flip7_bonus``,
    ``sum_numbers``.  ``before``: the state before the step that scored the round (the cards
    that step dealt, swapped, stole or discarded are followed); ``engine_score``: the
    engine's score for the seat, when known: a step of the pipeline whose absence or late place gives it
    (`flip7ref.checking.score_blame.misplayed_step`) goes first."""
    if totals_only:
        return ["totals"]
    scored = events[index]
    cards: list[str] = list(before.line(seat)) if before is not None else []
    busted = before is not None and before.status(seat).value == "busted"
    start = len(before.events()) if before is not None else 0
    for ev in events[start:index]:
        if ev.get("seat") == seat and ev.get("type") == "dealt":
            cards.append(str(ev.get("card")))
        if ev.get("seat") == seat and ev.get("type") == "busted":
            busted = True
        follow_moves(cards, ev, seat)
    game = before.game if before is not None else None
    made = scored.get("flip7") == seat
    details = line_details(edition, game, cards, busted, made, scored.get("flip7") is not None)
    return skipped_first(details, game, cards, made, engine_score) if not busted else details


def skipped_first(details: list[str], game: Any, cards: Sequence[str], made: bool, score: object) -> list[str]:
    """``details`` with the scoring step whose absence or late place gives the engine's ``score`` first."""
    step = misplayed_step(game, cards, made, score) if score is not None else None
    if step is None:
        return details
    return [step, *(d for d in details if d != step)]


def line_details(edition: Edition, game: Any, cards: Sequence[str], busted: bool, made: bool, flip7_round: bool) -> list[str]:
    """`score_details` for a line of card ids: ``made`` its seat's Flip 7, ``flip7_round`` a
    Flip 7 ended the round; ``game``: the `flip7ref.core.game.Game` played (its Brutal Mode
    settings), or None."""
    out: list[str] = []
    kinds = []
    for card in cards:
        with contextlib.suppress(CardError):
            kinds.append(edition.card(card))
    if busted:
        if game is None or game.bust_scores_nothing:  # the game's own flag (V-081), not a second reading of it
            return ["busted"]
        last = max((i for i, c in enumerate(kinds) if c.category == "number"), default=-1)
        held = any(c.modifier is not None and c.modifier[1] < 0 for c in kinds[:last])
        return ["brutal_busted_held", "brutal_busted"] if held else ["brutal_busted", "brutal_busted_held"]
    if flip7_round and not made:
        out.append("flip7_other")
    if any("zero" in c.traits for c in kinds) and not made:
        out.append("zero_unless_flip7")
    mods = [c.modifier for c in kinds if c.category == "modifier" and c.modifier is not None]
    if any(op != "add" for op, _ in mods) and any(c.category == "number" for c in kinds):
        out.append("multiply")
    if any(op == "add" and value < 0 for op, value in mods):
        out.append("floor_zero" if game is None or game.floors_at_zero else "brutal_negative")
    if any(op == "add" for op, _ in mods):
        out.append("add_modifiers")
    if made:
        if "zero" in line_tags(edition, cards):
            out.append("flip7#zero")  # the 0 counted toward the seven (a situation key, not a scoring step)
        out.append("flip7_bonus")
    out.append("sum_numbers")
    return out


def score_key(detail: str) -> str:
    """The table key of a `line_details` entry: a situation key (``flip7#zero``) as it is,
    a scoring step as ``round_scored/STEP``."""
    return detail if "#" in detail else f"round_scored/{detail}"
