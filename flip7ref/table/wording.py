"""The table's words for players: refusals, moves, rulings, options and readings, in the game's language.

The sentences live in ``static/words.json`` (one object per language, each key a
template with ``{placeholders}``; every language has the same keys and placeholders,
which the tests check); the rule texts, option summaries and reading names come from
`flip7ref.core.i18n`.  English is the fallback for a language without a template.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from flip7ref.core.edition import OptionSpec, Reading
from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.core.i18n import dispute_question, option_summary, reading_name, reading_summary, rule_text
from flip7ref.core.spec import Edition
from flip7ref.core.state import State
from flip7ref.core.text import card_name
from flip7ref.table.record import MAX_NAME, MAX_PLAYERS, TableError, best_line


@functools.cache
def words() -> dict[str, dict[str, str]]:
    """The templates of ``static/words.json`` by language, then key."""
    data: dict[str, dict[str, str]] = json.loads((Path(__file__).parent / "static" / "words.json").read_text(encoding="utf-8"))
    return data


def say(lang: str, key: str, **values: object) -> str:
    """The template ``key`` in ``lang`` (else English) with ``values`` filled in.

    Raises:
        KeyError: no language has the key (a programming error, caught by the tests).
    """
    table = words()
    template = table.get(lang, {}).get(key) or table["en"][key]
    return template.format(**{k: str(v) for k, v in values.items()})


def refusal(lang: str, edition: Edition, key: str, rules: Sequence[str] = (), **values: object) -> TableError:
    """A `TableError` (status 400) for players: the message is template ``key`` in ``lang``,
    and ``rule_texts`` the rules ``rules`` in words (``[{"id", "text"}]``) for the page to show."""
    error = TableError(say(lang, key, **values), rules)
    error.rule_texts = tuple({"id": r, "text": rule_text(edition, r, lang)} for r in error.rules)
    return error


def move_words(state: State, move: str, names: Sequence[str], lang: str) -> str:
    """A move of ``state`` in words (``"hit"`` -> ``"Hit"``, ``"target 1"`` -> ``"Freeze to
    Ben"``, ``"chance 7"`` -> ``"the card 7"``); a move these words do not cover (a verb of
    a plug-in primitive, or a malformed one) is given as it is."""
    game = state.game
    parts = move.split()

    def who(seat: int) -> str:
        return names[seat] if 0 <= seat < len(names) else str(seat)

    def card_of(seat: int, index: int) -> str:
        line = state.line(seat) if 0 <= seat < state.num_players else []
        return card_name(game, line[index], lang) if 0 <= index < len(line) else "?"

    try:
        numbers = [int(p) for p in parts[1:]] if parts and parts[0] != "chance" else []
    except ValueError:
        return move
    verb = parts[0] if parts else ""
    if verb in ("hit", "stay") and len(parts) == 1:
        return say(lang, f"move_{verb}")
    if verb == "chance" and len(parts) == 2 and parts[1] in game.codes:
        return say(lang, "move_card", card=card_name(game, parts[1], lang))
    if verb == "target" and len(numbers) == 1:
        card = state.pending()[1]
        if card is None:
            return say(lang, "move_choose", name=who(numbers[0]))
        return say(lang, "move_target", card=card_name(game, card, lang).rstrip("!"), name=who(numbers[0]))
    if verb in ("steal", "discard") and len(numbers) == 2:
        return say(lang, f"move_{verb}", card=card_of(*numbers), name=who(numbers[0]))
    if verb == "swap" and len(numbers) == 4:
        a, i, b, j = numbers
        return say(lang, "move_swap", card=card_of(a, i), name=who(a), card2=card_of(b, j), name2=who(b))
    return move


def choices(state: State, names: Sequence[str], lang: str, limit: int = 6) -> str:
    """The decisions open at ``state`` in words, joined by "or" (at most ``limit``, then "...")."""
    moves = [move_words(state, m, names, lang) for m in state.legal_action_strings()]
    if len(moves) > limit:
        moves = [*moves[:limit], "..."]
    return say(lang, "or").join(moves)


def option_view(edition: Edition, option: OptionSpec, lang: str = "en") -> dict[str, Any]:
    """An option as the page shows it, in ``lang`` (`flip7ref.core.i18n`): ``name`` (its id),
    ``summary``, ``default``, ``dispute`` (the dispute id or None) and ``question`` (the
    disputed question in words, or None)."""
    return {
        "name": option.name, "summary": option_summary(edition, option.name, lang), "default": option.coerce(option.default),
        "dispute": option.dispute, "question": dispute_question(edition, option.name, lang),
    }  # fmt: skip


def reading_view(edition: Edition, option: OptionSpec, reading: Reading, lang: str = "en") -> dict[str, Any]:
    """A reading as the page shows it, in ``lang``: ``name`` (its id, the option's value),
    ``label`` (its short name in words) and ``summary``."""
    return {
        "name": reading.name,
        "label": reading_name(edition, option.name, reading.name, lang),
        "summary": reading_summary(edition, option.name, reading.name, lang),
    }


def option_refusal(edition: Edition, name: str, value: object, lang: str) -> None:
    """Check one option the start page sends (``name`` is an option of ``edition``).

    Raises:
        TableError: ``value`` is not one of the option's readings nor, for an option
            that takes a number, a whole number in its range: in words for players.
    """
    spec = edition.options[name]
    try:
        spec.coerce(value)
    except OptionError:
        labels = ", ".join(reading_name(edition, name, r.name, lang) or r.name for r in spec.readings)
        if spec.integer is None:
            raise TableError(say(lang, "option_bad", option=name, value=value, choices=labels)) from None
        low, high = spec.integer
        if high is None:
            raise TableError(say(lang, "option_number_open", option=name, value=value, low=low, choices=labels)) from None
        raise TableError(say(lang, "option_number", option=name, value=value, low=low, high=high, choices=labels)) from None


def score_refusal(
    game: Game, lang: str, names: Sequence[str], scores: Sequence[int], problem: tuple[int, int, int]
) -> TableError:
    """The refusal of a round's scores on a score pad that no round can score
    (`flip7ref.table.record.round_problem`'s ``(seat, low, high)``), in words for players:
    whose score, and the most (the best line the deck allows, its cards named) or the
    least a round can score."""
    seat, low, high = problem
    who = names[seat] if 0 <= seat < len(names) else str(seat)
    value, title = scores[seat], game.edition.title
    if value > high:
        line, made = best_line(game)
        cards = " ".join(card_name(game, game.card_ids[c], lang) for c in line)
        key = "score_high_flip7" if made and game.adds_flip7_bonus else "score_high"
        return refusal(lang, game.edition, key, _score_rules(game), name=who, value=value, game=title, high=high, cards=cards)
    if low == 0:
        return refusal(lang, game.edition, "score_negative", _score_rules(game), name=who, value=value, game=title)
    return refusal(lang, game.edition, "score_low", _score_rules(game), name=who, value=value, game=title, low=low)


def _score_rules(game: Game) -> tuple[str, ...]:
    """The rules of a round's score in ``game``'s edition (F7-100.., V-060)."""
    wanted = ("F7-100", "F7-050", "V-060", "V-022", "V-082")
    return tuple(r for r in wanted if r in game.edition.rules)


def check_names(names: object, low: int, lang: str = "en") -> list[str]:
    """The players' names, cleaned (spaces squeezed, at most `MAX_NAME` characters), seat 0
    first: ``low`` to `MAX_PLAYERS` of them, none empty, no two alike.

    Raises:
        TableError: what is wrong, in words for players in ``lang`` (``static/words.json``).
    """
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise TableError(say(lang, "names_missing"))
    clean = [" ".join(n.split())[:MAX_NAME] for n in names]
    if not low <= len(clean) <= MAX_PLAYERS:
        raise TableError(say(lang, "names_count", low=low, high=MAX_PLAYERS, n=len(clean)))
    if any(not n for n in clean):
        raise TableError(say(lang, "names_empty"))
    same = next((n for i, n in enumerate(clean) if n in clean[:i]), None)
    if same is not None:
        raise TableError(say(lang, "names_same", name=same))
    return clean
