"""The values an edition table is read into: `Edition`, `CardKind`, `OptionSpec`, `Reading`, `Rule`.

Also where the tables are (`spec_dir`, `edition_ids`).  Reading and checking a
table file is `flip7ref.core.spec`'s job; this module only holds the read-only values
the interpreter compiles into a `flip7ref.Game` (and that the table cache pickles).
"""

from __future__ import annotations

import os
import reprlib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import attrs

from flip7ref.core.errors import CardError, SpecError

CATEGORIES = ("number", "modifier", "action")


def spec_dir() -> Path:
    """Return the folder holding ``editions/`` and ``schema/``.

    An installed wheel carries the spec inside the package (``flip7ref/spec``);
    a source checkout uses the repository's top-level ``spec/``.

    Raises:
        SpecError: when neither folder exists (a broken installation).
    """
    here = Path(__file__).resolve().parent.parent  # the package's folder
    for candidate in (here / "spec", here.parent / "spec"):
        if (candidate / "editions").is_dir() and (candidate / "schema").is_dir():
            return candidate
    raise SpecError(str(here), "", "a spec/ folder with editions/ and schema/ beside the package")


def edition_ids() -> tuple[str, ...]:
    """The ids of the edition tables shipped with flip7ref, sorted (e.g. ``("flip7", ...)``)."""
    # the names ``glob("*.yaml")`` would match, without the regex it compiles at every start
    tables = (p for p in (spec_dir() / "editions").iterdir() if os.path.normcase(p.name).endswith(".yaml"))
    return tuple(sorted(p.stem for p in tables if not p.stem.startswith("_")))



def frozen(value: Any) -> Any:
    """A read-only copy of table data: every mapping becomes a `types.MappingProxyType` over
    a fresh dict and every list a tuple, all the way down (the table's nesting is bounded
    by `flip7ref.core.textfiles`).  Other values are returned as they are."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: frozen(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(frozen(v) for v in value)
    return value


def thawed(value: Any) -> Any:
    """`frozen` undone for pickling (a mapping proxy cannot be pickled): read-only mappings
    become dicts again, all the way down; tuples stay tuples."""
    if isinstance(value, Mapping):
        return {k: thawed(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(thawed(v) for v in value)
    return value


def _rebuilt(cls: type[Any], fields: dict[str, Any]) -> Any:
    """Unpickle an `Edition` or a `CardKind`: built again from its fields, so frozen again."""
    return cls(**fields)


def _reduce(value: Any) -> tuple[Any, ...]:
    """``__reduce__`` of an attrs value with read-only mappings: its fields, thawed."""
    return (_rebuilt, (type(value), {f.name: thawed(getattr(value, f.name)) for f in attrs.fields(type(value))}))


def _whole(text: str) -> bool:
    """Whether ``text`` is a whole number written with ASCII digits (and an optional minus)."""
    digits = text.strip().removeprefix("-")
    return digits.isascii() and digits.isdigit()


def short_repr(value: object, limit: int = 60) -> str:
    """A value as it would read in a one-line message, cut to ``limit`` characters (a
    value nested too deeply for `repr` is abbreviated by `reprlib`)."""
    try:
        text = repr(value).replace("\n", " ")
    except RecursionError:
        text = reprlib.repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."



@attrs.frozen
class CardKind:
    """One kind of card of an edition (e.g. the ``7``, the ``x2``, ``freeze``).

    Attributes:
        index: position of the kind in the edition's card list (internal code).
        id: the stable id used in files, events and the command line.
        category: ``"number"``, ``"modifier"`` or ``"action"``.
        rank: the number on a number card (points and duplicate check); None otherwise.
        count: copies in one deck.
        names: card names by language code (``en``, ``de``, ``fr``, ``no``, ``nl``).
        aliases: extra spellings accepted when parsing (e.g. ``×2``).
        modifier: ``(op, value)`` for modifiers, e.g. ``("add", 4)``; None otherwise.
        effect: the effect entry of the table (primitive and parameters, options
            unresolved); None for cards without one.
        traits: special behaviours of number cards (e.g. ``zero``), empty otherwise.
        rules: the rule ids the card implements.
        unsourced_names: language codes of ``names`` no published text uses (the
            project's own rendering, e.g. Flip 7's Dutch action names); the docs mark them.
    """

    index: int
    id: str
    category: str
    rank: int | None
    count: int
    names: tuple[tuple[str, str], ...]
    aliases: tuple[str, ...]
    modifier: tuple[str, int] | None
    effect: Mapping[str, Any] | None = attrs.field(eq=False, hash=False, converter=frozen)
    traits: tuple[str, ...]
    rules: tuple[str, ...]
    unsourced_names: tuple[str, ...] = ()

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduce(self)

    def name(self, lang: str = "en") -> str:
        """The card's name in ``lang`` (falls back to English, then to the id)."""
        names = dict(self.names)
        return names.get(lang) or names.get("en") or self.id


@attrs.frozen
class Reading:
    """One reading of a disputed point: its value, a summary and who holds it."""

    name: str
    summary: str
    holders: tuple[str, ...]


@attrs.frozen
class OptionSpec:
    """An option of an edition: a disputed point (or a parameter) with its readings.

    Attributes:
        name: option name (``stay_requires``).
        summary: what the option decides.
        default: the default value (a reading name, or an int for integer options).
        readings: the named readings.
        rules: rule ids the option touches.
        dispute: the dispute id it models, if any.
        integer: ``(minimum, maximum)`` when the option also accepts integers
            (``maximum`` may be None); None for purely named options.
    """

    name: str
    summary: str
    default: str | int
    readings: tuple[Reading, ...]
    rules: tuple[str, ...]
    dispute: str | None
    integer: tuple[int, int | None] | None

    def coerce(self, value: object) -> str | int:
        """Check ``value`` and return it in canonical form.

        Args:
            value: a reading name, or an int (or digit string) for integer options;
                ``True``/``False`` stand for readings named ``true``/``false``
                (or ``yes``/``no``, ``on``/``off``), as YAML would read them.

        Returns:
            The reading name (str) or the integer value.

        Raises:
            OptionError: when the value is neither a reading nor an allowed integer.
        """
        from flip7ref.core.errors import OptionError

        names = [r.name for r in self.readings]
        if isinstance(value, bool):
            for spelled in (str(value).lower(),) + (("yes",) if value else ("no",)) + (("on",) if value else ("off",)):
                if spelled in names:
                    return spelled
        if isinstance(value, str) and value in names and not (self.integer and _whole(value)):
            return value
        if self.integer is not None:
            number: int | None = None
            if isinstance(value, bool):
                number = None
            elif isinstance(value, int):
                number = value
            elif isinstance(value, str) and _whole(value):
                number = int(value)
            if number is not None:
                low, high = self.integer
                if number < low or (high is not None and number > high):
                    bound = f"{low}..{high}" if high is not None else f">= {low}"
                    raise OptionError(f"option {self.name}: {number} is out of range (expected {bound})")
                return number
        allowed = ", ".join(names)
        if self.integer is not None:
            allowed += ", or a whole number"
        raise OptionError(f"option {self.name}: unknown value {short_repr(value, 200)} (expected {allowed})")


@attrs.frozen
class Rule:
    """One rule of the catalogue: id, one-line paraphrase, sources, confidence, topic."""

    id: str
    text: str
    sources: tuple[str, ...]
    confidence: str
    topic: str


@attrs.frozen(eq=False, slots=False)
class Edition:
    """A loaded, checked edition table: an immutable value (its attributes cannot be set,
    and every mapping in it, down to the raw entries, is a read-only `types.MappingProxyType`,
    every list a tuple), so one loaded table can be shared by every `flip7ref.Game`.

    Attributes:
        id: edition id (``flip7``).
        title: display title.
        path: the YAML file it came from.
        ruleset: the rulebook edition the table follows (e.g. ``Ruleset Edition 3.1``).
        publisher: the publisher named by the table.
        cards: the card kinds, in table order (their ``index`` is their position).
        thresholds: named numbers (``flip7_distinct``, ``flip7_bonus``, ...).
        round: the round section (literals and option references), with the edition
            schema's ``default`` for each key the table leaves out (the one place a
            default is declared; `flip7ref.core.schema.section_defaults`).
        scoring: the scoring pipeline, a tuple of step mappings in order.
        game_end: the game-end section (schema defaults filled in, as for ``round``).
        options: option specs by name, in table order.
        rules: the rule catalogue by id.
        disputes: the dispute entries by id (raw mappings).
        sources: the source register by key (raw mappings).
        event_rules: the rule ids behind each event type (``busted`` -> ``("F7-040", ...)``),
            from the table's optional ``events`` section; a key ``TYPE/DETAIL`` narrows
            an event type by a detail of the event (see `flip7ref.explore`).
        digest: a BLAKE2b digest (hex) of the table file's bytes, so that two tables read
            from one path before and after an edit make unequal games (`flip7ref.Game`
            compares by it); empty for a table built from data (`parse_edition`).
    """

    id: str
    title: str
    path: Path
    ruleset: str
    publisher: str
    cards: tuple[CardKind, ...]
    thresholds: Mapping[str, int] = attrs.field(converter=frozen)
    round: Mapping[str, Any] = attrs.field(converter=frozen)
    scoring: tuple[Mapping[str, Any], ...] = attrs.field(converter=frozen)
    game_end: Mapping[str, Any] = attrs.field(converter=frozen)
    options: Mapping[str, OptionSpec] = attrs.field(converter=frozen)
    rules: Mapping[str, Rule] = attrs.field(converter=frozen)
    disputes: Mapping[str, Mapping[str, Any]] = attrs.field(converter=frozen)
    sources: Mapping[str, Mapping[str, Any]] = attrs.field(converter=frozen)
    event_rules: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict, converter=frozen)
    digest: str = ""

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduce(self)

    @property
    def rule_prefix(self) -> str:
        """The prefix of this table's rule ids (``"F7"`` for ``F7-073``, ``"HR"`` for a house
        table's ``HR-012``; every id of one catalogue has the same, `check_structure`), or
        ``""`` for a table without a rule catalogue.  Its dispute ids are ``D-<prefix>-NN``
        and its conformance cases ``<prefix>-CNNNN``."""
        return next(iter(self.rules), "").partition("-")[0]

    def card(self, name: str) -> CardKind:
        """Find a card kind by id, alias or name in any language (case-insensitive).

        Raises:
            CardError: when no card kind of this edition has that name (or ``name``
                is not a string).
        """
        if not isinstance(name, str):
            raise CardError(f"expected a card name (a string such as '7' or 'x2'), got {short_repr(name)}")
        found = self._lookup().get(name.strip().casefold())
        if found is None:
            known = " ".join(c.id for c in self.cards)
            raise CardError(f"unknown card {name!r} in edition {self.id} (known cards: {known})")
        return found

    def _lookup(self) -> Mapping[str, CardKind]:
        names: Mapping[str, CardKind] | None = getattr(self, "_names", None)
        if names is None:
            table: dict[str, CardKind] = {}
            for card in self.cards:
                for key in (card.id, *card.aliases, *(n for _, n in card.names)):
                    table.setdefault(key.casefold(), card)
                    table.setdefault(key.casefold().rstrip("!"), card)
            names = MappingProxyType(table)
            object.__setattr__(self, "_names", names)
        return names

    def deck(self, decks: int = 1) -> tuple[int, ...]:
        """The card-kind indexes of ``decks`` full decks, in table order."""
        return tuple(c.index for c in self.cards for _ in range(c.count * decks))

