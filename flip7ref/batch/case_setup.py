"""What both batched engines' protocol adapters (`flip7ref.batch.engine` for base Flip 7,
`flip7ref.batch.v_engine` for Vengeance) read the same way from a case setup: the cards
taken from the deck, the draw and discard piles, the totals, the dealer, the round and
the player to act.  Each adapter reads its own lines, kept cards and statuses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.core.pile import shuffled

__all__ = ["CardPool", "load_piles"]


class CardPool:
    """The copies of each card kind still free in the deck of ``game`` (``left``, an int64
    array by card code) while a setup's cards are placed."""

    def __init__(self, game: Game, copies: Any, ids: Sequence[str]) -> None:
        self.game, self.ids = game, ids
        self.left = np.asarray(copies).astype(np.int64).copy()

    def take(self, names: Sequence[str], where: str) -> list[int]:
        """The codes of the cards ``names``, taken from the pool.

        Raises:
            OptionError: an unknown card name, or more copies of a kind than the deck holds
                (naming the setup field ``where``).
        """
        codes = [self.game.code(n) for n in names]
        for c in codes:
            self.left[c] -= 1
            if self.left[c] < 0:
                raise OptionError(f"{where}: more copies of {self.ids[c]!r} than the deck holds")
        return codes


def load_piles(bs: Any, setup: Mapping[str, Any], pool: CardPool, b: int = 0) -> None:
    """Set game ``b`` of the batched state ``bs`` (a `flip7ref.batch.core.BatchState` or a
    `flip7ref.batch.vengeance.VengeanceState`: the same array names) from the protocol
    fields ``draw`` (top first), ``rest`` (``out``, ``below`` or ``discard``: where the
    cards not placed go, shuffled as the reference does), ``discard``, ``totals``,
    ``dealer``, ``round`` and ``turn`` (default: the dealer's left).  The lines and kept
    cards must already be taken from ``pool``.

    Raises:
        OptionError: as `CardPool.take`.
    """
    top = pool.take(setup.get("draw") or (), "draw")
    discard = pool.take(setup.get("discard") or (), "discard")
    rest = np.repeat(np.arange(bs.C), np.maximum(pool.left, 0)).tolist()
    shuffled(rest, "0", 0)
    how = setup.get("rest", "out")
    pile = top + rest if how == "below" else top
    if how == "discard":
        discard += rest
    bs.seeds[b] = "0"
    bs.deck[b, : len(pile)] = pile
    bs.dtop[b], bs.dend[b] = 0, len(pile)
    bs.unseen[b] = np.bincount(np.array(pile, dtype=np.int64), minlength=bs.C)
    bs.discard[b] = np.bincount(np.array(discard, dtype=np.int64), minlength=bs.C)
    bs.totals[b] = setup.get("totals") or [0] * bs.P
    bs.last_scores[b] = 0
    bs.scored[b] = False
    bs.done[b] = False
    bs.winners[b] = False
    bs.shuffles[b] = 0
    bs.rshuf[b] = 0
    bs.dealer[b] = setup["dealer"]
    bs.rnd[b] = setup.get("round", 1)
    turn = setup.get("turn")
    bs.turn[b] = (setup["dealer"] + 1) % bs.P if turn is None else turn


def protocol_outcome(bs: Any, b: int, status_names: Mapping[int, str], kept: Mapping[str, list[str]],
                     legal: list[str]) -> dict[str, Any]:  # fmt: skip
    """The protocol outcome of game ``b`` of a batched state (both editions: the same array
    names): events, statuses (named by ``status_names``), lines in arrival order, ``kept``
    (seat -> card ids lying in front), round, round scores, totals, the next player with
    ``legal`` (the reference's spelling), winners, the draw pile top first and the discard
    pile's size."""
    ids, P = bs.ids, bs.P
    log = bs.log[b] if bs.log is not None else []
    return {
        "events": [e.to_dict() for e in log],
        "statuses": {str(s): status_names[int(bs.status[b, s])] for s in range(P)},
        "lines": {str(s): [ids[c] for c in bs.lorder[b, s, : bs.llen[b, s]].tolist()] for s in range(P)},
        "kept": dict(kept),
        "round": int(bs.rnd[b]),
        "round_scores": bs.last_scores[b].tolist() if bs.scored[b] else [],
        "totals": bs.totals[b].tolist(),
        "next": {"player": "terminal" if bs.done[b] else int(bs.actor[b]), "legal": legal},
        "winners": np.flatnonzero(bs.winners[b]).tolist(),
        "draw": [ids[c] for c in bs.deck[b, bs.dtop[b] : bs.dend[b]].tolist()],
        "discard_count": int(bs.discard[b].sum()),
    }
