"""A state's history: a chain of links, each the move that led to a state and its events.

States share the links of their common past (a link points to its parent), so a
new state adds one link.  The first link of a game remembers the state the
history starts from (``start``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, NamedTuple

from .model import Event, tuple_maker

if TYPE_CHECKING:
    from .state import State


class Log(NamedTuple):
    """One link of a state's history: the move that led to the state and its events."""

    parent: Log | None
    move: str
    events: tuple[Event, ...]
    start: State | None = None  # the state the history starts from; None: the state holding this link


new_log: Final = tuple_maker(Log)
"""``Log(*fields)`` built at C speed (a transition adds one link)."""


def chain(log: Log | None) -> list[Log]:
    """Every link up to ``log``, oldest first."""
    out = []
    node = log
    while node is not None:
        out.append(node)
        node = node.parent
    out.reverse()
    return out


def start_of(state: State) -> State:
    """The state ``state``'s history starts from (itself for an initial state)."""
    log = state._log
    if log is None or log.start is None:
        return state
    return log.start
