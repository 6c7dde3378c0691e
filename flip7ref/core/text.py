"""Plain-words descriptions of events, for traces and explanations.

The text of each event type lives beside its constructor in `flip7ref.core.events`;
this module keeps the names its users import.
"""

from __future__ import annotations

from flip7ref.core.events import card_name, describe

LANGS = ("en", "nl", "de", "fr", "no")
"""The languages of card names in the edition tables (``--lang`` of every command that prints them)."""

__all__ = ["LANGS", "card_name", "describe"]
