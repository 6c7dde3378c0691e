"""Searching the rules by words (``flip7ref rules --search``): `search_words`, `search_rules`."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import attrs

from flip7ref.core.errors import OptionError
from flip7ref.core.spec import Edition, Rule
from flip7ref.docs.index import cards_for_rule, options_touching


def _fold(text: str) -> str:
    """Case- and accent-insensitive form of ``text`` for searching."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


_REFLEXIVE = re.compile(r"\b(?:my|your|him|her|it|one|our|them)sel(?:f|ves)\b")
"""Reflexive pronouns, all searched as ``self`` ("freeze myself" finds "freeze themselves")."""

_SUFFIXES = ("ing", "ies", "ed", "es", "s", "e")
"""Endings dropped from a search word, so that its stem matches every form (``freezes`` → ``freez``)."""

_STOP_WORDS = frozenset(
    {"a", "an", "and", "are", "as", "be", "can", "do", "does", "i", "if", "in", "is", "it"}
    | {"me", "of", "on", "or", "the", "to", "what", "when", "who", "with"}
)
"""Words a question carries that say nothing about the rule ("can i freeze myself")."""


def _stem(word: str) -> str:
    """Drop one common English ending from a folded word, keeping at least three letters."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def search_words(query: str) -> list[str]:
    """Split a search query into folded word stems, dropping punctuation and filler words.

    Matching is loose: each word is case- and accent-folded, reflexive pronouns become
    ``self``, one common ending is dropped (``-s``, ``-es``, ``-ed``, ``-ing``, ``-e``), and
    filler words (``can``, ``I``, ``the``...) are dropped unless nothing else is left.

    Returns:
        The stems (possibly empty), e.g. ``"Zweite Chance!"`` → ``["zweit", "chanc"]``,
        ``"freeze myself"`` → ``["freez", "self"]``.
    """
    words = [_REFLEXIVE.sub("self", _fold(w).strip("!?.,;:\"'()")) for w in query.split()]
    words = [w for w in words if w]
    useful = [w for w in words if w not in _STOP_WORDS] or words
    return [_stem(w) for w in useful]


def _searchable(text: str) -> str:
    """``text`` folded as search words are: case, accents and reflexive pronouns."""
    return _REFLEXIVE.sub("self", _fold(text))


@attrs.frozen
class RuleMatch:
    """A rule found by `search_rules`.

    Attributes:
        edition: the edition id.
        rule: the rule.
        via: where words matched outside the rule text, e.g. ``('card "Zweite Chance"',
            'option stay_requires')``; empty when the text alone matched every word.
    """

    edition: str
    rule: Rule
    via: tuple[str, ...]


def search_rules(editions: Sequence[Edition], query: str, lang: str = "en") -> list[RuleMatch]:
    """Find the rules in which every word of ``query`` occurs, in any order.

    A word may occur in the rule id, text or topic, in the name or summary of an
    option touching the rule, or in the name (in ``lang`` or English) or id of a
    card listing the rule.  Matching is loose (`search_words`): case, accents
    and word endings are ignored, reflexive pronouns match each other, filler words
    are dropped, and stems match inside longer words (``steal`` finds ``Steals``,
    ``freeze myself`` finds "freeze themselves").

    Args:
        editions: the editions to search.
        query: the words, e.g. ``"second chance"`` or ``"Zweite Chance"``.
        lang: the language of card names to search (``en``, ``nl``, ``de``, ``fr``, ``no``).

    Returns:
        The matches, in edition order and then by rule id.

    Raises:
        OptionError: the query has no words.
    """
    words = search_words(query)
    if not words:
        raise OptionError("--search: expected one or more words, e.g. --search 'second chance'")
    found: list[RuleMatch] = []
    for edition in editions:
        for rid in sorted(edition.rules):
            rule = edition.rules[rid]
            own = _searchable(" ".join((rule.id, rule.text, rule.topic.replace("_", " "))))
            fields = [
                (f"option {o.name}", _searchable(f"{o.name} {o.name.replace('_', ' ')} {o.summary}"))
                for o in options_touching(edition, rid)
            ]
            fields += [
                (f'card "{c.name(lang)}"', _searchable(f"{c.name(lang)} {c.name('en')} {c.id} {c.id.replace('_', ' ')}"))
                for c in cards_for_rule(edition, rid)
            ]
            if not all(w in own or any(w in text for _, text in fields) for w in words):
                continue
            missing = [w for w in words if w not in own]
            via = tuple(label for label, text in fields if any(w in text for w in missing))
            found.append(RuleMatch(edition.id, rule, via))
    return found
