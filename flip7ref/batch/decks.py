"""The new decks of both batched engines (base Flip 7's `flip7ref.batch.core.BatchState`
and `flip7ref.batch.vengeance.VengeanceState`), shuffled once for both."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from flip7ref.core.errors import OptionError
from flip7ref.core.pile import shuffled

__all__ = ["shuffle_decks"]


def shuffle_decks(bs: Any, games: Any, seeds: Sequence[int | str] | None) -> Any:
    """Give the games ``games`` (an int64 array of game indices) of batched state ``bs`` new
    shuffled decks: game seeds ``seeds`` (one per game, ints or strings), else the next whole numbers after
    the last seed used.  Under ``shuffle="reference"`` each deck is the reference's for its
    seed (`flip7ref.core.pile.shuffled`, as `flip7ref.Game.new_initial_state` takes it); else
    ``bs.rng`` shuffles.  Returns ``games``.

    Raises:
        OptionError: ``seeds`` not one per game.
    """
    g = games
    if seeds is None:
        seeds = list(range(bs.next_seed, bs.next_seed + g.size))
        bs.next_seed += g.size
    elif len(seeds) != g.size:
        raise OptionError(f"seeds: expected {g.size} seeds (one per game), got {len(seeds)}")
    if bs.shuffle == "reference":
        for b, sd in zip(g.tolist(), seeds, strict=True):
            cards = bs.sorted_deck.tolist()
            bs.seeds[b] = str(sd)
            shuffled(cards, bs.seeds[b], 0)
            bs.deck[b] = cards
    else:
        keys = bs.rng.random((g.size, bs.D))
        bs.deck[g] = bs.sorted_deck[np.argsort(keys, axis=1)]
        for b, sd in zip(g.tolist(), seeds, strict=True):
            bs.seeds[b] = str(sd)
    return g
