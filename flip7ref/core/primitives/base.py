"""The effect protocol every primitive follows, and the registry of primitives.

An action card's ``effect`` in an edition table names a primitive and gives its
parameters (options resolved).  Each primitive is one module of this package
holding one `Effect` subclass, registered under its name with `primitive`: the
subclass's attrs fields are the primitive's parameters (read from the table
entry by `Effect.from_table`) and its methods are the primitive's rules.  The
interpreter never asks which primitive a card has; it calls the hooks:

- `Effect.receive`: the card arrives for a seat (default: they choose a target);
- `Effect.executable`: whether a seat could carry it out now (V-041, V-048);
- `Effect.play`: it takes effect on the chosen seat;
- `Effect.chosen`: a target was chosen for it (default: `play`);
- `Effect.assigned`: a set-aside copy assigned to a seat takes effect (F7-074);
- `Effect.guards_bust` / `Effect.use_guard`: a kept card that can cancel a bust (F7-080);
- `Effect.stays_in_front`, `Effect.most_held`: where the card lies after use (position checks);
- `Effect.helps_target`: whether the chosen seat usually gains from it (strategies).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import attrs
from mypy_extensions import mypyc_attr  # native_class=False: stays a plain Python class when compiled (docs/build.md)

from flip7ref.core import events
from flip7ref.core.frames import register_decision_kind
from flip7ref.core.model import register_verb
from flip7ref.core.targets import eligible, offer_target, play

if TYPE_CHECKING:
    from flip7ref.core.game_tables import GameTables
    from flip7ref.core.model import Player
    from flip7ref.core.targets import ChooseTarget
    from flip7ref.core.work import Work


@mypyc_attr(native_class=False)
class _Named:
    """Holds the class attribute ``primitive`` outside the attrs class (mypyc records a
    class-body annotation as an instance one, which attrs would take for a field)."""

    __slots__ = ()
    primitive: ClassVar[str]
    verbs: ClassVar[tuple[str, ...]] = ()
    decision_kinds: ClassVar[tuple[str, ...]] = ()


@mypyc_attr(native_class=False)
@attrs.frozen
class Effect(_Named):
    """An action card's effect: its primitive (the class) with its parameters, options resolved.

    Attributes:
        targets: who may be chosen: ``active``, ``non_busted``, ``active_or_busted``
            or ``any`` (`flip7ref.core.targets.TARGET_STATUSES`).
        self_target: ``allowed`` or ``only-when-alone``: may the drawer choose themselves.

    Class attributes (set by `primitive`): ``primitive``, the primitive's name
    (``freeze``, ``forced_draw``, ``bust_shield``, ``swap``, ``steal``, ``discard_card``,
    or a plug-in's); ``verbs``, the `Action` verbs of its own decisions (``steal``...);
    ``decision_kinds``, the kinds its frames' decisions have beyond the interpreter's
    own (`flip7ref.core.frames.DECISION_KINDS`).
    """

    targets: str = "active"
    self_target: str = "allowed"

    @classmethod
    def from_table(cls, values: Mapping[str, Any]) -> Effect:
        """Build the effect from a table entry's values (options already resolved;
        ``set_aside`` already card codes).  A missing parameter takes its default;
        booleans and whole numbers are coerced by the default's type."""
        kwargs: dict[str, Any] = {}
        for field in attrs.fields(cls):
            if field.name not in values:
                continue
            value = values[field.name]
            default = field.default
            if isinstance(default, bool):
                value = bool(value)
            elif isinstance(default, int):
                value = int(value)
            kwargs[field.name] = value
        return cls(**kwargs)

    def receive(self, w: Work, code: int, seat: int) -> None:
        """Card ``code`` arrives for ``seat`` (F7-035): by default ``seat`` chooses its target."""
        offer_target(w, code, seat, self.targets)

    def executable(self, game: GameTables, players: Sequence[Player], resolver: int) -> bool:
        """Whether ``resolver`` could carry the effect out now (V-041, V-048)."""
        return True

    def play(self, w: Work, code: int, chooser: int, seat: int) -> None:
        """The card ``code``, played by ``chooser``, takes effect on ``seat``."""
        name = getattr(self, "primitive", type(self).__name__)  # an effect class never registered has no name
        raise NotImplementedError(f"primitive {name!r} is not implemented")

    def chosen(self, w: Work, frame: ChooseTarget, seat: int) -> None:
        """``frame.chooser`` chose ``seat`` at a target choice for this card: `play` it."""
        play(w, frame.card, frame.chooser, seat)

    def assigned(self, w: Work, code: int, chooser: int, seat: int) -> None:
        """Card ``code``, set aside in a forced draw and assigned by ``chooser`` to ``seat``,
        takes effect in its turn (F7-074, F7-075): on ``seat`` if still eligible, else
        it is discarded."""
        if seat in eligible(w.players, self.targets):
            play(w, code, chooser, seat)
        else:
            w.to_discard(code)
            w.emit(events.discarded(w.cid(code), seat, "target no longer eligible"))

    def guards_bust(self) -> bool:
        """Whether a kept copy of the card can cancel a bust (F7-080)."""
        return False

    def use_guard(self, w: Work, seat: int, code: int, guard: int) -> None:
        """Cancel the bust of ``seat`` on the duplicate ``code`` with the kept card ``guard``."""
        raise AssertionError(self)  # pragma: no cover - only called when guards_bust()

    def stays_in_front(self) -> bool:
        """Whether the card can lie in front of a player (kept) after it took effect."""
        return False

    def most_held(self) -> int | None:
        """How many copies one player may hold in front of them (None: no limit of its own)."""
        return None

    def helps_target(self) -> bool:
        """Whether the seat the card is played on usually gains from it (a Swap or a Steal)."""
        return False


_EffectClass = TypeVar("_EffectClass", bound=type[Effect])
PRIMITIVES: dict[str, type[Effect]] = {}
"""Every primitive's effect class by its name (the values of the schema's primitive enum)."""


_NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"


def primitive(
    name: str, *, verbs: Mapping[str, int] | None = None, decisions: Mapping[str, str] | None = None
) -> Callable[[_EffectClass], _EffectClass]:
    """Class decorator: name an effect class and register it in `PRIMITIVES`, with the
    vocabulary of its decisions.

    Everything else a primitive brings registers where it is defined: its frames with
    `flip7ref.core.frames.register_frame` (their ``check`` method holds their position
    checks), its events' texts with `flip7ref.core.events.event_text`.  A module outside the
    package may register a primitive: importing it before a `flip7ref.Game` is built
    lets an edition table name it (``effect: {primitive: NAME}``).

    Args:
        name: the primitive's name in edition tables: a lower-case word (letters,
            digits, ``_``) starting with a letter.
        verbs: the `Action` verbs of its decisions with their number of arguments
            (`flip7ref.core.model.register_verb`), e.g. ``{"steal": 2}``.
        decisions: the decision kinds of its frames beyond the interpreter's own, with
            the words that explain a step (`flip7ref.core.frames.register_decision_kind`).

    Raises:
        ValueError: a malformed name, a name registered by another class, or a verb or
            decision kind the registries refuse.
    """
    if not name or not name[0].isalpha() or any(ch not in _NAME_CHARS for ch in name):
        raise ValueError(f"primitive name: expected a lower-case word of letters, digits and '_', got {name!r}")

    def named(cls: _EffectClass) -> _EffectClass:
        known = PRIMITIVES.get(name)
        if known is not None and (known.__module__, known.__qualname__) != (cls.__module__, cls.__qualname__):
            raise ValueError(f"primitive {name!r} is already registered by {known.__module__}.{known.__qualname__}")
        for verb, arity in (verbs or {}).items():
            register_verb(verb, arity)
        for kind, words in (decisions or {}).items():
            register_decision_kind(kind, words)
        cls.primitive = name
        cls.verbs = tuple(verbs or ())
        cls.decision_kinds = tuple(decisions or ())
        PRIMITIVES[name] = cls
        return cls

    return named
