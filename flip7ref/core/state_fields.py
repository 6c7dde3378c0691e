"""The fields of `flip7ref.core.state.State`: their one declaration (issue 43 item 5).

Each `Field` row says a field's name, its type, its default, its doc line, how the scratch
copy (`flip7ref.core.work.Work`) holds it, how the JSON form writes it, and what a round's
close and a round's opening set it to.  From this table:

- ``tools/gen_state_fields.py`` writes the code the compiled build needs spelled out (the
  annotations and ``__init__`` of `State`'s base `StateData`, ``_make`` and ``_fields`` of `State`; `Work`'s copy, freeze and
  round resets; the fast lanes' ``_make`` calls; the solver's canonical key), between ``# state-fields:`` marker
  comments, and ``--check`` fails when the checked-in code differs (tests/test_state_fields.py);
- `flip7ref.core.serialize` writes and reads the plain fields, and
  `flip7ref.core.position.check_data_fields` checks their JSON types, by looping over it.

Adding a field: a row here (before ``_log``; with a default, so older JSON still reads),
``python tools/gen_state_fields.py``, then the rule code that sets it and its range check in
`flip7ref.core.position.check_state`.  This module imports nothing of the package.
"""

from __future__ import annotations

from typing import Final, NamedTuple


class Field(NamedTuple):
    """One field of `State`.

    Attributes:
        name: the attribute (and JSON key) name.
        type: its annotation in `State`, as source text.
        doc: its line in `State`'s docstring.
        default: ``()`` for none, else ``(value,)``: the value JSON data without the key
            reads as; the constructor gives the default too when every later field has one.
        work: ``"list"``: `Work` holds it as a list (the type's ``tuple[X, ...]`` as
            ``list[X]``), copied in with ``list`` and frozen with ``tuple``; ``""``: as is;
            ``"none"``: not in `Work` (the history link).
        json: how `flip7ref.core.serialize` writes it: ``"custom"`` (by its own code), ``"int"``
            (a whole number), ``"ints"`` (a list of whole numbers), ``"seat?"`` (a seat or
            null), ``"bool"``, ``"str?"`` (a string or null).
        omit_default: written only when it differs from its default (so the JSON of games
            that never set it stays as it was).
        round_close: ``()`` or ``(value,)``: what the close of a round sets it to (both paths:
            `flip7ref.core.engine.end_round` and the fast lanes).
        round_open: ``()`` or ``(value,)``: what the opening of a round sets it to.
        shapes_round: a plain value that shapes the rest of the round: the solver's canonical
            key (`flip7ref.analysis.keys`) holds it as it is.
    """

    name: str
    type: str
    doc: str
    default: tuple[object, ...] = ()
    work: str = ""
    json: str = "custom"
    omit_default: bool = False
    round_close: tuple[object, ...] = ()
    round_open: tuple[object, ...] = ()
    shapes_round: bool = False


FIELDS: Final[tuple[Field, ...]] = (
    Field("game", "GameTables", "the `Game` (edition, options, player count; its tables, `GameTables`)."),
    Field("players", "tuple[Player, ...]", "one `Player` per seat.", work="list"),
    Field(
        "draw", "tuple[int, ...]",
        "the draw pile as card codes, top first.  In an *ordered* state (a seeded or stacked game) the order is "
        "the real order of the pile; in an open state it is sorted and only the counts matter.",
    ),
    Field("discard", "tuple[int, ...]", "the discard pile (card codes); a multiset for equality."),
    Field("frames", "tuple[Frame, ...]", "the pending-work stack, bottom first (`flip7ref.core.frames`).", work="list"),
    Field("dealer", "int", "the seat dealing this round.", json="int"),
    Field("turn", "int", "the seat whose Hit-or-Stay offer is next.", json="int", shapes_round=True),
    Field("round", "int", "the round number, from 1.", json="int"),
    Field("totals", "tuple[int, ...]", "running totals in points, per seat.", work="list", json="ints"),
    Field("last_scores", "tuple[int, ...]", "the round scores of the last finished round (empty before).", json="ints"),
    Field(
        "flip7", "int | None", "the seat that made Flip 7 this round, or None.", default=(None,), json="seat?",
        round_close=(None,), shapes_round=True,
    ),
    Field(
        "round_over", "bool", "the round ended early (empty deck under ``empty_deck: end-round``).", default=(False,),
        json="bool", round_close=(False,),
    ),
    Field("winners", "tuple[int, ...]", "the winning seats once the game is over (empty before).", json="ints"),
    Field(
        "shuffle_seed", "str | None", "the seed of deterministic reshuffles; None for an open state.", default=(None,),
        json="str?",
    ),
    Field("shuffles", "int", "reshuffles done so far (part of the reshuffle seed).", json="int"),
    Field(
        "bonus_to", "int | None",
        "Brutal Mode (V-082): the seat the Flip 7 maker chose, itself for +15 or another seat for -15; None otherwise.",
        default=(None,), json="seat?", round_close=(None,), shapes_round=True,
    ),
    Field(
        "round_shuffles", "int",
        "reshuffles of the discard pile in the current round (F7-116, V-075: at most ``game.reshuffles`` of them; "
        "after that an empty deck is exhausted, F7-115).",
        default=(0,), json="int", round_open=(0,), shapes_round=True,
    ),
    Field(
        "shuffle_mark", "int",
        "under reading ``unlimited`` of option ``reshuffles`` (F7-117, V-076), the cards in front of players plus "
        "the players out of the round at the round's last reshuffle (-1: none yet, or another reading); a reshuffle "
        "needs more than that.",
        default=(-1,), json="int", omit_default=True, round_open=(-1,), shapes_round=True,
    ),
    Field("_log", "Log | None", "the history link (not part of the position).", default=(None,), work="none"),
)  # fmt: skip
"""Every field of `State`, in constructor order; the history link ``_log`` last."""

STATE_DOC: Final = (
    "An immutable game position.",
    """States compare equal when their positions are equal (the history is not
compared).  Use `history` and `events` for what led here.

A native class when compiled with mypyc (docs/build.md): its fields are
``Final`` (read-only from Python); in the pure build `__setattr__` refuses
assignment.  It cannot be subclassed.  The fields are declared in
`flip7ref.core.state_fields`; this docstring, ``_make``, ``_fields`` and the
annotations and ``__init__`` of its base class `flip7ref.core.state_data.StateData` are
written from there by tools/gen_state_fields.py.""",
)
"""`State`'s docstring around its attributes: the summary line, and what follows them."""

FIELD_NAMES: Final[tuple[str, ...]] = tuple(f.name for f in FIELDS)
"""The field names, in constructor order."""

PLAIN_FIELDS: Final[tuple[Field, ...]] = tuple(f for f in FIELDS if f.json != "custom")
"""The fields the JSON form writes and reads by their kind (`flip7ref.core.serialize`), in order."""

JSON_KINDS: Final = frozenset({"custom", "int", "ints", "seat?", "bool", "str?"})
"""The values of `Field.json` the serializer knows."""
