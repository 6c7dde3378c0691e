"""The situation a line decider was exercised in, for blaming its most specific rule.

Some observations are decided by one decider that consults several rules: whether a line is a
Flip 7 consults the threshold (F7-050), "the 0 counts" (F7-005) and "modifiers do not count"
(F7-090); whether a card busts a line consults the duplicate rule and any card that allows a
pair (Lucky 13, V-036).  When such an observation differs, the rule to blame first is the most
specific one whose condition the line actually exercised.  `line_tags` names those
conditions; the edition table's ``events`` section maps ``TYPE#TAG`` to rules
(``flip7/zero``: the 0 first), so the rules stay data, not code.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from flip7ref.core.errors import CardError
from flip7ref.core.spec import Edition

if TYPE_CHECKING:
    from flip7ref.core.state import State


def _distinct(edition: Edition, cards: Sequence[str]) -> tuple[int, int]:
    numbers: set[int] = set()
    modifiers = 0
    for card in cards:
        with contextlib.suppress(CardError):
            c = edition.card(card)
            if c.category == "number" and c.rank is not None:
                numbers.add(c.rank)
            elif c.category == "modifier":
                modifiers += 1
    return len(numbers), modifiers


def line_tags(edition: Edition, cards: Sequence[str]) -> list[str]:
    """The Flip 7 conditions a line of card ids exercises, most specific first.

    ``zero``: it holds a number 0 (the 0 counts toward the seven); ``modifiers_reach``: its
    numbers fall short of the threshold (``thresholds.flip7_distinct``) but numbers and
    modifiers together reach it; ``one_short``: exactly one number short.  Empty otherwise.
    """
    need = int(edition.thresholds.get("flip7_distinct", 7))
    numbers, modifiers = _distinct(edition, cards)
    tags: list[str] = []
    for card in cards:
        with contextlib.suppress(CardError):
            c = edition.card(card)
            if c.category == "number" and c.rank == 0 and "zero" not in tags:
                tags.append("zero")
    if numbers < need <= numbers + modifiers:
        tags.append("modifiers_reach")
    if numbers == need - 1:
        tags.append("one_short")
    return tags


def pair_cards(edition: Edition, cards: Sequence[str], card: str | None = None) -> list[str]:
    """The ids of the cards of ``cards`` that share a rank with another (with ``card`` when
    given: those sharing its rank), special cards (with traits) first."""
    ranks: dict[int, list[str]] = {}
    for c_id in [*cards, *([card] if card is not None else [])]:
        with contextlib.suppress(CardError):
            c = edition.card(c_id)
            if c.category == "number" and c.rank is not None:
                ranks.setdefault(c.rank, []).append(c_id)
    if card is not None:
        with contextlib.suppress(CardError):
            rank = edition.card(card).rank
            return _special_first(edition, ranks.get(rank, []) if rank is not None else [])
        return []
    return _special_first(edition, [c for group in ranks.values() if len(group) > 1 for c in group])


def _special_first(edition: Edition, cards: Sequence[str]) -> list[str]:
    def plain(c_id: str) -> bool:
        try:
            return not edition.card(c_id).traits
        except CardError:
            return True

    return list(dict.fromkeys(sorted(cards, key=plain)))


def tagged_rules(edition: Edition, kind: str, tags: Sequence[str]) -> tuple[str, ...]:
    """The table's rules for the first ``KIND#TAG`` entry of ``tags`` that it has; empty when none."""
    for tag in tags:
        found = edition.event_rules.get(f"{kind}#{tag}")
        if found:
            return tuple(found)
    return ()


def position_rules(edition: Edition, case: Mapping[str, Any]) -> tuple[str, ...]:
    """For an engine refusing a case's starting position (or a scoring case's line) before any
    action: the rules of the line condition nearest a boundary there — a line one short of a
    Flip 7, or reaching it only with modifiers (``flip7#TAG``), a line at or past it (the
    Flip 7's rules), a rank held twice (``busted/CARD``, the special card of the pair first,
    the plain bust's rules after the Flip 7's); empty when no line is near one."""
    lines: list[list[str]] = []
    if case.get("kind") == "scoring":
        lines.append([str(c) for c in case.get("line") or ()])
    setup = case.get("setup") or {}
    for cards in (setup.get("lines") or {}).values():
        lines.append([str(c) for c in cards or ()])
    need = int(edition.thresholds.get("flip7_distinct", 7))
    found: list[str] = []
    for cards in lines:
        pairs = pair_cards(edition, cards)
        for card in pairs:
            found.extend(edition.event_rules.get(f"busted/{card}", ()))
        tags = [t for t in line_tags(edition, cards) if t != "zero"]
        found.extend(tagged_rules(edition, "flip7", tags))
        if tags or _distinct(edition, cards)[0] >= need:  # at a Flip 7: the pair a special card's, not a bust
            found.extend(edition.event_rules.get("flip7", ()))
        if pairs:
            found.extend(edition.event_rules.get("busted", ()))
    return tuple(dict.fromkeys(found))


def legality_rules(state: State, seen: object) -> tuple[str, ...]:
    """For an offer whose legal actions the engine (``seen``: its ``next``) gives otherwise:
    when Stay is the action in dispute, the rules deciding whether Stay is legal there, most
    specific first: the table's ``stayed#TRAIT`` entry of a trait of a card in the line
    (The Zero's ``no_stay``), else its ``stayed`` entry; empty when Stay is not in dispute."""
    legal = seen.get("legal") if isinstance(seen, Mapping) else None
    if not isinstance(legal, Sequence) or isinstance(legal, str):
        return ()
    mine = {str(a) for a in state.legal_actions()}
    if ("stay" in mine) == ("stay" in {str(a) for a in legal}):
        return ()
    edition = state.game.edition
    table = edition.event_rules
    seat = state.current_player
    found: list[str] = []
    for card in state.line(seat) if isinstance(seat, int) and seat >= 0 else ():
        with contextlib.suppress(CardError):
            for trait in edition.card(card).traits:
                found.extend(table.get(f"stayed#{trait}", ()))
    return tuple(dict.fromkeys((*found, *table.get("stayed", ()))))
