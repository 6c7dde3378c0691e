"""The effect primitives of action cards: one module each, and their registry.

`PRIMITIVES` maps each primitive's name (the values of the edition schema's
``primitive`` enum; a test keeps the two equal) to its `Effect` class:

| name | module | cards |
|---|---|---|
| ``freeze`` | `flip7ref.core.primitives.freeze` | Freeze |
| ``forced_draw`` | `flip7ref.core.primitives.forced_draw` | Flip Three, Flip Four |
| ``bust_shield`` | `flip7ref.core.primitives.bust_shield` | Second Chance |
| ``swap`` | `flip7ref.core.primitives.swap` | Swap |
| ``steal`` | `flip7ref.core.primitives.steal` | Steal |
| ``discard_card`` | `flip7ref.core.primitives.discard_card` | Discard |

A shipped primitive is one module here, one import line below and one value in the
``primitive`` enum of ``spec/schema/edition.schema.json``.  A primitive may also live
outside the package: a module that registers it (`primitive`) and that the caller
imports before building a `flip7ref.Game`; an edition table then names it like a
shipped one (the schema accepts any such name; `effect_from_table` refuses a name
nobody registered).  See docs/core.md, "Adding a primitive".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from flip7ref.core.primitives import bust_shield, discard_card, forced_draw, freeze, steal, swap  # noqa: F401 - each registers itself
from flip7ref.core.primitives.base import PRIMITIVES, Effect, primitive

__all__ = ["PRIMITIVES", "SHIPPED", "Effect", "EntryError", "effect_from_table", "primitive"]

SHIPPED: tuple[str, ...] = tuple(PRIMITIVES)
"""The names of the primitives of this package (the ``primitive`` enum of the edition schema)."""


class EntryError(LookupError):
    """An effect entry names what no registered primitive reads.

    Attributes:
        key: the entry's key at fault (``primitive``, or a parameter's name).
        expected: what was expected there, in words.
    """

    def __init__(self, key: str, expected: str) -> None:
        super().__init__(f"{key}: expected {expected}")
        self.key = key
        self.expected = expected


def effect_from_table(values: Mapping[str, Any]) -> Effect:
    """The effect of a table entry (options resolved, ``set_aside`` as card codes).

    Raises:
        EntryError: at ``primitive`` when no module registered the primitive the entry
            names, or at a parameter the primitive does not read (`flip7ref.Game` turns
            it into a `SpecError` naming the table file and the card).
    """
    name = values["primitive"]
    cls = PRIMITIVES.get(name)
    if cls is None:
        known = ", ".join(sorted(PRIMITIVES))
        raise EntryError(
            "primitive", f"a registered primitive ({known}); no module registered {name!r} (import the plug-in "
            "module that defines it before building the game)"
        )  # fmt: skip
    params = {f.name for f in attrs.fields(cls)}
    for key in values:
        if key != "primitive" and key not in params:
            raise EntryError(key, f"a parameter of primitive {name!r} ({', '.join(sorted(params))})")
    return cls.from_table(values)
