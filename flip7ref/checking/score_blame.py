"""Which step of the scoring pipeline a differing score points at.

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

from flip7ref.core.errors import Flip7RefError
from flip7ref.core.game import Game

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
