"""A state's history: a chain of links, each the move that led to a state and its events.

States share the links of their common past (a link points to its parent), so a
new state adds one link.  The first link of a game remembers the state the
history starts from (``start``).

A transition adds one link, so making one must be cheap: compiled with mypyc, `Log`
is a native class (built by a direct C call, its fields read from the object);
interpreted, it is re-created over a tuple (`flip7ref.core.layout`; `State` over slots),
built by one ``tuple.__new__``.  Either way a link is immutable and pickles to an
equal chain, as one flat tuple of its links (`relinked`: no recursion, however long).
"""

from __future__ import annotations

from typing import Any, Final

from flip7ref.core.model import Event, tuple_maker

_LOG_FIELDS: Final = ("parent", "move", "events", "start")
"""The fields of `Log`, in constructor order."""


class Log:
    """One link of a state's history: the move that led to the state and its events.

    Attributes:
        parent: the link before (None for a game's first link).
        move: the history entry (``"hit"``, ``"chance 7"``; empty for a game's first link).
        events: the events the move emitted.
        start: the state the history starts from; None: the state holding this link (a
            `flip7ref.core.state.State`, typed ``object`` here: state.py sits above this module,
            and `State.initial_state` reads it).
    """

    parent: Final[Log | None]
    move: Final[str]
    events: Final[tuple[Event, ...]]
    start: Final[object]

    def __init__(self, parent: Log | None, move: str, events: tuple[Event, ...], start: object = None) -> None:
        self.parent = parent
        self.move = move
        self.events = events
        self.start = start

    def _make(self, parent: Log | None, move: str, events: tuple[Event, ...], start: object) -> Log:
        """A new link with these fields (the pure build's layout builds it with one ``tuple.__new__``)."""
        return Log(parent, move, events, start)

    def __reduce__(self) -> tuple[Any, ...]:
        # the whole chain as one flat tuple, oldest link first (`relinked`): link by link,
        # pickle and deepcopy recursed once per link and failed from a few hundred moves
        return (relinked, (tuple([(link.move, link.events, link.start) for link in chain(self)]),))

    def __repr__(self) -> str:
        return f"Log(move={self.move!r}, events={self.events!r})"


def new_log(fields: tuple[Log | None, str, tuple[Event, ...], object]) -> Log:
    """``Log(*fields)`` from the tuple of its four fields (a transition adds one link): a
    native constructor when compiled, one ``tuple.__new__`` in the pure build."""
    return Log(fields[0], fields[1], fields[2], fields[3])


if __file__.endswith(".py"):  # the pure build: Log over a tuple (flip7ref.core.layout)
    from flip7ref.core.layout import over_tuple

    globals()["Log"] = over_tuple(Log, _LOG_FIELDS, "_make")
    globals()["new_log"] = tuple_maker(globals()["Log"])


def relinked(links: tuple[tuple[str, tuple[Event, ...], object], ...]) -> Log:
    """The chain of history links ``links`` (``(move, events, start)`` each, oldest first)
    built again, its last link returned: how a `Log` unpickles (`Log.__reduce__`), without
    recursing once per link.  A chain comes back as its own: links two pickled states
    shared are equal after unpickling, no longer the same objects.

    Raises:
        ValueError: ``links`` is empty.
    """
    if not links:
        raise ValueError("relinked: a history chain has at least one link")
    node: Log | None = None
    for move, events, start in links:
        node = new_log((node, move, events, start))
    assert node is not None
    return node


def chain(log: Log | None) -> list[Log]:
    """Every link up to ``log``, oldest first."""
    out = []
    node = log
    while node is not None:
        out.append(node)
        node = node.parent
    out.reverse()
    return out

