"""The interpreter's basic vocabulary, shared by every module (it imports only the errors).

``CHANCE`` and ``TERMINAL`` (the special values of ``State.current_player``), a
seat's `Status` and `Player` record, the card categories (``NUMBER``,
``MODIFIER``, ``ACTION``: the codes ``Game.category`` holds), a decision
(`Action`, with `HIT` and `STAY`) and something that happened (`Event`; every
event type is built by its constructor in `flip7ref.core.events`).  They are
re-exported from their former homes (``flip7ref.core.state``, ``flip7ref.core.game``) and
from ``flip7ref``.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from typing import Any, Final, NamedTuple, TypeVar, cast

import attrs
from mypy_extensions import mypyc_attr  # native_class=False: stays a plain Python class when compiled (docs/build.md)

from flip7ref.core.errors import IllegalActionError

CHANCE: Final = -1
"""``current_player`` at a chance node (a card must be drawn)."""
TERMINAL: Final = -2
"""``current_player`` once the game is over."""

NUMBER: Final = 0
MODIFIER: Final = 1
ACTION: Final = 2
"""Card categories: the values of ``Game.category[code]`` (in the order of ``spec.CATEGORIES``)."""


class Status(enum.Enum):
    """A player's status in the current round (F7-032, F7-034, F7-040, F7-060)."""

    ACTIVE = "active"
    STAYED = "stayed"
    FROZEN = "frozen"
    BUSTED = "busted"


ACTIVE: Final = Status.ACTIVE
STAYED: Final = Status.STAYED
FROZEN: Final = Status.FROZEN
BUSTED: Final = Status.BUSTED
"""The statuses as module constants, for the hot paths: an enum member read off its class
(``Status.ACTIVE``) is a slow attribute lookup in CPython 3.11 and in compiled code alike
(about 0.1 µs, ten times a module global's)."""


class Player(NamedTuple):
    """One seat's cards and status in the current round (an immutable named tuple).

    Attributes:
        line: card codes of the number and modifier cards in front of the player,
            in the order received (a busted line keeps its duplicate).
        kept: action cards lying in front of the player: a held Second Chance
            (F7-080), the Freeze that froze them (F7-062).
        status: the player's `Status`.
        flip7_barred: a Flip 7 is out of reach for this player for the rest of the round:
            Just One More made them stop while they held The Zero (D-V-26, reading
            ``no-flip7``; decided by `flip7ref.core.lines.bars_flip7`), until The Zero leaves
            their line (V-037; `flip7ref.core.lines.bar_lasts`).
    """

    line: tuple[int, ...] = ()
    kept: tuple[int, ...] = ()
    status: Status = Status.ACTIVE
    flip7_barred: bool = False


_T = TypeVar("_T")


def tuple_maker(cls: type[_T]) -> Callable[[tuple[Any, ...]], _T]:
    """A maker of the named tuple class ``cls``: called with the tuple of its fields (in
    order, all given), it returns ``cls(*fields)``, built in C.  A named tuple's own
    constructor is Python code, which compiled callers would run for every new value
    (docs/build.md)."""
    return cast(Callable[[tuple[Any, ...]], _T], functools.partial(tuple.__new__, cls))


make_player: Final[Callable[[tuple[tuple[int, ...], tuple[int, ...], Status, bool]], Player]] = tuple_maker(Player)
"""``Player(line, kept, status, flip7_barred)`` from the tuple of its four fields (`tuple_maker`)."""


_ARITY: Final[dict[str, int]] = {"hit": 0, "stay": 0, "target": 1, "steal": 2, "discard": 2, "swap": 4}
"""Every verb of `Action` with its number of arguments, in the order of legal actions
(the verbs of the shipped rules; `register_verb` adds a primitive's own)."""
_RANK: Final[dict[str, int]] = {verb: i for i, verb in enumerate(_ARITY)}
_VERB_WORD: Final = "abcdefghijklmnopqrstuvwxyz0123456789_"


def register_verb(verb: str, arity: int) -> None:
    """Add ``verb`` (taking ``arity`` whole-number arguments) to the vocabulary of `Action`,
    so that ``Action.parse`` reads it and legal actions sort it after the verbs known before.
    A primitive registers the verbs of its decisions (``@primitive(..., verbs=...)``).
    Registering a verb again with the same arity does nothing.

    Args:
        verb: a lower-case word of letters, digits and ``_``, starting with a letter.
        arity: how many whole numbers follow it (0 or more).

    Raises:
        ValueError: a malformed verb or arity, or a verb known with another arity.
    """
    if not verb or not verb[0].isalpha() or any(ch not in _VERB_WORD for ch in verb):
        raise ValueError(f"verb: expected a lower-case word of letters, digits and '_', got {verb!r}")
    if isinstance(arity, bool) or not isinstance(arity, int) or arity < 0:
        raise ValueError(f"arity of {verb!r}: expected a whole number from 0, got {arity!r}")
    known = _ARITY.get(verb)
    if known is not None and known != arity:
        raise ValueError(f"verb {verb!r} is already registered with {known} argument(s), not {arity}")
    if known is None:
        _ARITY[verb] = arity
        _RANK[verb] = len(_RANK)


def verbs() -> dict[str, int]:
    """Every verb `Action.parse` reads, with its number of arguments, in the order of
    legal actions (a copy: `register_verb` adds one)."""
    return dict(_ARITY)


@mypyc_attr(native_class=False)
@attrs.frozen(order=True)
class Action:
    """A decision a player can take.

    ``hit`` and ``stay`` answer an offer (F7-030); ``target N`` chooses seat N for
    the card in question (a Freeze, a Flip Three, a spare Second Chance, a
    set-aside card, a modifier; in Brutal Mode after a Flip 7, oneself for +15 or
    another seat for -15).  ``steal S I`` takes card I (0-based, in the order of
    ``State.line``) of seat S; ``discard S I`` discards it; ``swap S I T J``
    exchanges card I of seat S with card J of seat T; a primitive may add verbs of
    its own (`register_verb`).  ``str(action)`` gives the string form; `parse` reads it.

    Raises (when built):
        IllegalActionError: ``verb`` is not a string, or ``args`` not a tuple of whole
            numbers (``int``; ``True``, ``"x"``, ``1.0`` are refused), in both builds.
    """

    verb: str
    args: tuple[int, ...] = ()

    def __attrs_post_init__(self) -> None:
        # checked once per action built; HIT, STAY and the targets are built once and shared.
        # The fields are read untyped: compiled code reading self.verb would check it is a str
        # first, and raise TypeError where the pure build gets here
        verb: object = object.__getattribute__(self, "verb")
        args: object = object.__getattribute__(self, "args")
        if type(verb) is not str or type(args) is not tuple:
            raise IllegalActionError(f"{verb!r} {args!r}", [], "an action is a verb (a string) and a tuple of whole numbers")
        for a in args:
            if type(a) is not int:
                raise IllegalActionError(
                    " ".join([verb, *(repr(x) for x in args)]), [],
                    f"the arguments of {verb!r} must be whole numbers (seats and card positions), got {a!r}",
                )  # fmt: skip

    def __str__(self) -> str:
        args = self.args
        return " ".join([self.verb, *map(str, args)]) if args else self.verb

    @classmethod
    def parse(cls, text: Any) -> Action:
        """Parse a string form such as ``"hit"``, ``"stay"`` or ``"target 2"``.

        Args:
            text (str): the string form (case and surrounding spaces ignored).

        Raises:
            IllegalActionError: when the text is not an action of this vocabulary.
        """
        if not isinstance(text, str):
            raise IllegalActionError(repr(text), [], "expected an action's string form, such as 'hit' or 'target 2'")
        words = text.strip().lower().split()
        if not words or words[0] not in _ARITY:
            raise IllegalActionError(text, [], f"unknown action (known verbs: {', '.join(_ARITY)})")
        try:
            args = tuple(int(w) for w in words[1:])
        except ValueError:
            raise IllegalActionError(text, [], "arguments must be whole numbers (seats and card positions)") from None
        arity = _ARITY[words[0]]
        if len(args) != arity:
            raise IllegalActionError(text, [], f"{words[0]!r} takes {arity} number{'s' if arity != 1 else ''}")
        return cls(words[0], args)

    def sort_key(self) -> tuple[int, tuple[int, ...]]:
        """Key for the stable order of legal actions."""
        return (_RANK[self.verb], self.args)


HIT: Final = Action("hit")
"""Take a card (F7-031)."""
STAY: Final = Action("stay")
"""Stop and bank the line (F7-034)."""
_TARGETS: Final[dict[int, Action]] = {}


def target(seat: int) -> Action:
    """``Action("target", (seat,))``, shared (actions are immutable values)."""
    action = _TARGETS.get(seat)
    if action is None:
        action = _TARGETS[seat] = Action("target", (seat,))
    return action


def is_among(act: Action, legal: list[Action]) -> bool:
    """``act in legal``, the shared actions (`target`, `HIT`, `STAY`) found by identity before
    any is compared by value: an `Action`'s ``==`` is Python-level code (attrs)."""
    for a in legal:
        if a is act:
            return True
    return act in legal


class Event(NamedTuple):
    """Something that happened, in the canonical event vocabulary (an immutable named tuple).

    Every event type has one constructor in `flip7ref.core.events` (which also gives its
    readable text).

    Attributes:
        type: the event name (``dealt``, ``busted``, ``stayed``, ``frozen``,
            ``flip7``, ``second_chance_used``, ``round_scored``, ``game_won``...).
        data: ``(key, value)`` pairs; values are ints, strings, None or tuples.
    """

    type: str
    data: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key`` in the event's data, or ``default``.

        Args:
            key (str): a data key, e.g. ``"player"`` or ``"card"``.
            default (object): what to return when the event has no such key.
        """
        for k, v in self.data:
            if k == key:
                return v
        return default

    def to_dict(self) -> dict[str, Any]:
        """The event as a JSON-able dict: ``{"type": ..., key: value...}``."""
        out: dict[str, Any] = {"type": self.type}
        for k, v in self.data:
            out[k] = list(v) if isinstance(v, tuple) else v
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Event:
        """Rebuild an event from `to_dict` output.

        Args:
            data (Mapping[str, Any]): ``{"type": ..., key: value...}``, lists for tuples.
        """
        items = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k != "type")
        return cls(str(data["type"]), items)
