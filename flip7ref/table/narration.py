"""Events told at the table: with the players' names, in the game's language (``static/events.json``)."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from pathlib import Path

from flip7ref.core.game_tables import GameTables
from flip7ref.core.state import Event
from flip7ref.core.text import card_name, describe
from flip7ref.table.record import TableRecord


class Narration(TableRecord):
    """Describing events for the page: `describe`, `template_key`."""

    def describe(self, event: Event) -> str:
        """One readable line for an event, with the players' names, in the game's
        language (``static/events.json``; English from :func:`flip7ref.core.text.describe`)."""
        return self._describe(event, self.game)

    @staticmethod
    def template_key(event: Event, game: GameTables) -> str:
        """The key of an event's template in ``static/events.json``: ``TYPE`` or
        ``TYPE/DETAIL``, where DETAIL is the ``via`` of ``dealt`` (``deal``,
        ``hit``), the ``reason`` of ``stayed`` and ``discarded`` (``card`` for a
        card id), the ``outcome`` of ``forced_draw_ended``, ``take``/``give`` for
        ``flip7_bonus_chosen`` and ``shared`` for a ``game_won`` by several seats."""
        t = event.type
        if t == "dealt" and event.get("via") in ("deal", "hit"):
            return f"dealt/{event.get('via')}"
        if t in ("stayed", "discarded", "forced_draw_ended"):
            detail = event.get("outcome" if t == "forced_draw_ended" else "reason")
            if detail is None:
                return t
            return f"{t}/{'card' if detail in game.codes else detail}"
        if t == "flip7_bonus_chosen":
            return f"{t}/{'take' if event.get('points', 0) > 0 else 'give'}"
        if t == "game_won" and len(event.get("winners", ())) > 1:
            return f"{t}/shared"
        return t

    def _describe(self, event: Event, game: GameTables) -> str:
        return tell(event, game, self.lang, self.names)


def _name_seats(text: str, names: Sequence[str]) -> str:
    def name(m: re.Match[str]) -> str:
        seat = int(m.group(1))
        return names[seat] if seat < len(names) else m.group(0)

    def several(m: re.Match[str]) -> str:
        seats = [int(x) for x in m.group(1).split(", ")]
        return ", ".join(names[s] for s in seats) if all(s < len(names) for s in seats) else m.group(0)

    return re.sub(r"\bseat (\d+)\b", name, re.sub(r"\bseats (\d+(?:, \d+)*)\b", several, text))


def tell(event: Event, game: GameTables, lang: str, names: Sequence[str]) -> str:
    """One readable line for ``event`` of ``game`` in ``lang``, each seat called by
    ``names`` (seat 0 first): the template of ``static/events.json`` for the language
    (`Narration.template_key`), else English (:func:`flip7ref.core.text.describe`) with the
    names put in.  Raises nothing for an event of the game."""
    texts = _event_texts().get(lang, {})
    key = Narration.template_key(event, game)
    if any(k in ("count", "cards") and v == 1 for k, v in event.data) and f"{key}/one" in texts:
        key += "/one"  # the singular: "1 kaart", not "1 kaarten"
    template = texts.get(key)
    if template is None:
        return _name_seats(describe(event, game, lang), names)
    values: dict[str, str] = {}
    for key, value in event.data:
        if key in ("seat", "target", "by", "first", "second", "dealer") and isinstance(value, int):
            values[key] = names[value] if 0 <= value < len(names) else str(value)
        elif key in ("card", "via", "shield", "first_card", "second_card", "reason") and isinstance(value, str):
            values[key] = card_name(game, value, lang) if value in game.codes else value
        elif key in ("winners", "leaders"):
            values[key] = ", ".join(names[w] if 0 <= w < len(names) else str(w) for w in value)
        elif key == "cards" and isinstance(value, tuple):
            values[key] = ", ".join(card_name(game, c, lang) for c in value)
        elif key == "points" and isinstance(value, int):
            values[key] = f"{value:+d}"
        elif isinstance(value, tuple):
            values[key] = ", ".join(map(str, value))
        else:
            values[key] = str(value)
    try:
        return template.format(**values)
    except (KeyError, IndexError):
        return _name_seats(describe(event, game, lang), names)


@functools.cache
def _event_texts() -> dict[str, dict[str, str]]:
    """The event templates by language (``static/events.json``)."""
    data: dict[str, dict[str, str]] = json.loads((Path(__file__).parent / "static" / "events.json").read_text(encoding="utf-8"))
    return data
