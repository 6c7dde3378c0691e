"""The record of one game at the table, shared by the parts of `flip7ref.table.session.TableGame`.

The constants of the table, its errors (`TableError`, `StaleError`), the check of
the players' names, and `TableRecord`: the attributes (game, names, mode, history
of states) that the session, the narration, the score pad, the rulings and the
page's view all read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from flip7ref.core.edition import edition_ids
from flip7ref.core.errors import Flip7RefError
from flip7ref.core.game import Game
from flip7ref.core.i18n import rule_text
from flip7ref.core.scoring import best_line as best_line  # re-exported: the table's messages name the best line
from flip7ref.core.scoring import round_bounds
from flip7ref.core.state import State

MODES = ("referee", "dealer", "manual")
"""``referee``: real cards, each revealed card entered; ``dealer``: a seeded virtual
deck deals; ``manual``: only round scores are typed in."""

LANGS = ("en", "nl", "de", "fr", "no")
MAX_PLAYERS = 18
MAX_NAME = 40
META_FORMAT = 1
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
DEFAULT_EDITION = "flip7"
"""The edition of a game whose request or saved record names none (the start page's first choice)."""


def table_editions() -> tuple[str, ...]:
    """The edition ids the table offers (the start page, ``POST /api/games``, a saved game,
    ``--edition``, the static build): the shipped tables as the core lists them
    (`flip7ref.core.edition.edition_ids`), so a table added under ``spec/editions/`` appears
    everywhere without a change here.  Raises `flip7ref.core.errors.SpecError` for a broken
    installation (no ``spec/`` folder)."""
    return edition_ids()


def editions_in_words(conjunction: str = "or", quote: bool = True) -> str:
    """`table_editions` for a message: ``'flip7' or 'vengeance'`` (``quote=False``, ``"and"``:
    ``flip7 and vengeance``)."""
    ids = [repr(e) if quote else e for e in table_editions()]
    return f"{', '.join(ids[:-1])} {conjunction} {ids[-1]}" if len(ids) > 1 else "".join(ids)


class TableError(Flip7RefError):
    """A request the table refuses: the message says why; ``rules`` the rule ids behind it;
    ``rule_texts`` those rules in words (``[{"id", "text"}]``, in the game's language) when
    the game built the refusal (`flip7ref.table.refusals`)."""

    def __init__(self, message: str, rules: Sequence[str] = (), status: int = 400) -> None:
        super().__init__(message)
        self.rules = tuple(rules)
        self.status = status
        self.rule_texts: tuple[dict[str, str], ...] = ()


class StaleError(TableError):
    """The request was made on an older version of the game (someone else's step won)."""

    def __init__(self, version: int) -> None:
        super().__init__(f"state changed: the game is at version {version}; here is the new state", status=409)


def round_problem(game: Game, scores: Sequence[int]) -> tuple[int, int, int] | None:
    """The first score of one round on a manual score pad (whole numbers, one per seat,
    already checked) that no round can score, as ``(seat, low, high)`` with the bounds of
    `round_bounds`; None when every score is possible.  Typed-in and loaded rounds are
    checked alike (`problem_text` says it in English for a file)."""
    low, high = round_bounds(game)
    for seat, v in enumerate(scores):
        if not low <= v <= high:
            return seat, low, high
    return None


def problem_text(scores: Sequence[int], problem: tuple[int, int, int]) -> str:
    """A `round_problem` in English, for an error about a file: ``"a round score is never
    negative in this edition"`` or ``"a round scores at most 171 points in this edition"``."""
    seat, low, high = problem
    if scores[seat] < low and low == 0:
        return "a round score is never negative in this edition"
    if scores[seat] < low:
        return f"a round scores at least {low} points in this edition"
    return f"a round scores at most {high} points in this edition"


class TableRecord:
    """What every part of a `flip7ref.table.session.TableGame` reads: the game, the
    players, the mode and the history of states (see the session module's docstring).

    Attributes:
        id: the game id (``20261201-081500-k3f9``); ``path`` its transcript file.
        game: the `flip7ref.Game`; ``mode`` one of `MODES`; ``names`` the players, seat 0 first.
        dealer: the seat dealing round 1; ``seed`` the virtual deck's seed (dealer mode).
        lang: the language of card names and texts; ``token`` the game's access token.
        version: bumped by every change; ``states`` every state since the start;
            ``redo_moves`` the moves undone; ``manual``/``manual_redo`` the round
            scores typed in (manual mode) and those undone.
        undone: dealer mode, every undo made (``step``, ``move``, ``seat``, ``text``),
            shown to everyone.
        notes: referee mode, the cards noted as "the deck disagrees" (``step``,
            ``card``, ``seat``).
        fixes: the corrections (✎) made, each ``before``/``after`` (the history's moves)
            and ``redo``, so that `undo` can bring the old history back.
    """

    def __init__(
        self, *, game_id: str, path: Path, game: Game, mode: str, names: list[str], dealer: int,
        seed: int | str | None, lang: str, token: str, created: str,
    ) -> None:  # fmt: skip
        self.id = game_id
        self.path = path
        self.game = game
        self.mode = mode
        self.names = names
        self.dealer = dealer
        self.seed = seed
        self.lang = lang
        self.token = token
        self.created = created
        self.version = 0
        self.states: list[State] = []
        self.redo_moves: list[str] = []
        self.manual: list[list[int]] = []
        self.manual_redo: list[list[int]] = []
        self.undone: list[dict[str, Any]] = []
        self.notes: list[dict[str, Any]] = []
        self.fixes: list[dict[str, Any]] = []
        if mode != "manual":
            self.states.append(game.new_initial_state(seed if mode == "dealer" else None, dealer=dealer))

    @property
    def state(self) -> State:
        """The current state (not in manual mode)."""
        if not self.states:
            raise TableError("this is a manual score pad: there are no cards to play")
        return self.states[-1]

    def _not_manual(self) -> None:
        if self.mode == "manual":
            raise TableError("this is a manual score pad: enter round scores instead")

    def _rule(self, rid: str) -> dict[str, str]:
        """``{"id": rid, "text": the rule in words in the game's language}`` (`flip7ref.core.i18n`)."""
        return {"id": rid, "text": rule_text(self.game.edition, rid, self.lang)}
