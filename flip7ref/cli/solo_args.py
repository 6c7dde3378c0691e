"""The solo analyses' arguments shared by ``odds`` and ``solve`` and the policy-file mode:
``--cards`` categories, card lists and the one-player game."""

from __future__ import annotations

import argparse

from flip7ref.cli._common import make_game as game_of
from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game

_CATEGORY_WORDS = {"numbers": "number", "modifiers": "modifier", "actions": "action"}


def categories(text: str, game: Game | None = None) -> list[str]:
    """The categories of ``--cards``; with ``game`` (``solve``), card ids of its edition too.

    Raises:
        OptionError: a word that is neither a category nor (with ``game``) a card id.
    """
    out: list[str] = []
    for word in (w.strip() for w in text.split(",")):
        name = _CATEGORIES_BY_WORD.get(word)
        if name is None and game is not None and word in game.codes:
            name = word
        if name is None:
            ids = " or card ids (e.g. second_chance)" if game is not None else ""
            raise OptionError(
                f"--cards {text!r}: unknown category {word!r}; expected a comma-separated list of numbers, modifiers, "
                f"actions{ids}"
            )
        if name not in out:
            out.append(name)
    return out


_CATEGORIES_BY_WORD = {**_CATEGORY_WORDS, **{v: v for v in _CATEGORY_WORDS.values()}}


def cards_words(categories: list[str]) -> str:
    """``--cards``' words for ``categories`` (``numbers,modifiers``; card ids as they are)."""
    return ",".join(f"{c}s" if c in _CATEGORY_WORDS.values() else c for c in categories)


def cards(text: str | None, flag: str) -> list[str]:
    """The card ids of ``flag``'s comma-separated ``text`` (``--line``, ``--seen``).

    Raises:
        OptionError: an empty item.
    """
    if not text:
        return []
    cards = [c.strip() for c in text.split(",")]
    if any(not c for c in cards):
        raise OptionError(f"{flag} {text!r}: expected card ids separated by commas, e.g. 3,11,x2")
    return cards


def solo_game(args: argparse.Namespace) -> Game:
    """The one-player game of ``--edition`` and ``--option`` (the analyses are solo)."""
    return game_of(args, 1)
