"""Typing protocols: what the low modules of the rule core read of the higher ones.

The rule core is layered so that a module never imports one that imports it back (issue 43;
``tests/test_import_circles.py``).  Where a low module only *reads* a few attributes of a
higher one's object, it names that need here as a `typing.Protocol` instead of importing the
higher class (even under ``TYPE_CHECKING``).  This module holds types only: the compiled core
imports it under ``TYPE_CHECKING`` alone, so it is not compiled and costs nothing at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from flip7ref.core.spec import Edition


class CardNames(Protocol):
    """What an event's readable text needs of its game (`flip7ref.core.game.Game` is one):
    the edition's cards (their names in each language) and the card ids by code."""

    @property
    def edition(self) -> Edition:
        """The edition table (`flip7ref.core.spec.Edition`)."""
        ...

    @property
    def card_ids(self) -> tuple[str, ...]:
        """The id of each card code."""
        ...
