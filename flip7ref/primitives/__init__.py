"""The effect primitives of action cards: one module each, and their registry.

`PRIMITIVES` maps each primitive's name (the values of the edition schema's
``primitive`` enum; a test keeps the two equal) to its `Effect` class:

| name | module | cards |
|---|---|---|
| ``freeze`` | `flip7ref.primitives.freeze` | Freeze |
| ``forced_draw`` | `flip7ref.primitives.forced_draw` | Flip Three, Flip Four |
| ``bust_shield`` | `flip7ref.primitives.bust_shield` | Second Chance |
| ``swap`` | `flip7ref.primitives.swap` | Swap |
| ``steal`` | `flip7ref.primitives.steal` | Steal |
| ``discard_card`` | `flip7ref.primitives.discard_card` | Discard |

Adding a primitive means one module here, one import line below and one value in
``spec/schema/edition.schema.json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import bust_shield, discard_card, forced_draw, freeze, steal, swap  # noqa: F401 - each registers itself
from .base import PRIMITIVES, Effect

__all__ = ["PRIMITIVES", "Effect", "effect_from_table"]


def effect_from_table(values: Mapping[str, Any]) -> Effect:
    """The effect of a table entry (options resolved, ``set_aside`` as card codes).

    Raises:
        KeyError: the primitive is not one of `PRIMITIVES` (the schema check refuses it first).
    """
    return PRIMITIVES[values["primitive"]].from_table(values)
