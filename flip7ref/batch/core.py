"""The batched engine: ``B`` games of base Flip 7 as arrays, stepped together.

`BatchState` holds the games and takes one decision in each (`BatchState.step`); its rules
are the scalar kernel `flip7ref.batch.kernel` (compiled by numba when installed, the rule
body Vengeance plays too), its arrays `flip7ref.batch.state.KernelState`'s.  `init` and
`step` are the pgx-style pure API over it.  Action indices and the observation vector are
those of `flip7ref.rl.encoding` for the game (hit 0, stay 1, target ``s`` at ``2 + s``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from flip7ref.batch import guards
from flip7ref.batch.rules import GIVE, HIT, OFFER, STAY, SUPPORTED_OPTIONS, check_game
from flip7ref.batch.state import KernelState
from flip7ref.core.game import Game

Arr = np.ndarray[Any, Any]

__all__ = ["GIVE", "HIT", "OFFER", "STAY", "SUPPORTED_OPTIONS", "BatchState", "check_game", "init", "step"]


class BatchState(KernelState):
    """``batch`` games of base Flip 7 (one `flip7ref.Game`), stepped together in place
    (`flip7ref.batch.state.KernelState`: ``step``, ``reset``, ``observe``, ``copy``,
    ``record_events``, ``line_values``, ``held``).

    Every game is always at a decision or over: `kind`, `actor` and `legal` say which
    (read them after `reset`/`step`).  Actions are indices of `flip7ref.rl.actions.ActionIndex`
    (``0`` hit, ``1`` stay, ``2 + s`` target seat ``s``).

    Args:
        game: the game (edition ``flip7``, see `check_game`).
        batch: the number of games (at least 1).
        seed: seeds the games: game ``i`` of the first deal gets seed ``seed + i`` (see
            `reset`), and NumPy's generator for ``shuffle="numpy"``.
        shuffle: ``reference`` (deal and reshuffle as the reference does for the game's
            seed: the same cards in the same order) or ``numpy`` (NumPy's generator, another order).
        backend: ``numba`` (the kernel `flip7ref.batch.kernel` compiled: fast), ``python``
            (the same kernel uncompiled: slow, for tests) or ``auto`` (numba when it is
            installed); see `flip7ref.batch.state.choose_backend`.  Both keep an event log
            when asked (`record_events`).

    Raises:
        OptionError: a game the engine does not play, a batch that is not a whole number
            >= 1 or whose arrays do not fit in the memory available (the message names the
            bytes; checked before anything is allocated), a seed that is not a whole number
            >= 0, an unknown shuffle or backend (``numpy`` included), or ``numba`` asked for
            where it is not installed.

    Attributes (arrays, first axis the game; ``P`` seats, ``C`` card kinds):
        status (B, P): 0 active, 1 stayed, 2 frozen, 3 busted.  totals (B, P): points.
        line (B, P, C): card counts of each line; ``lorder``/``llen`` the same in order.
        sc, frz (B, P): Second Chances held and Freezes kept in front.
        done (B,): the game is over; winners (B, P).  dealer, turn, rnd (B,).
        kind, actor (B,): the decision open now; legal (B, A): its legal indices.
        last_scores (B, P): each seat's score of the game's last finished round.
    """

    def __init__(self, game: Game, batch: int, seed: int = 0, shuffle: str = "reference", backend: str = "auto") -> None:
        check_game(game)
        super().__init__(game, batch, seed, shuffle, backend)


def init(
    seed: int, batch: int, game: Game | None = None, *, players: int = 4, shuffle: str = "reference", backend: str = "auto"
) -> BatchState:
    """pgx-style: ``batch`` new games of base Flip 7 (``game``, else ``Game("flip7", players)``:
    the table's readings), each at its first decision; game ``i`` is seeded ``seed + i`` (see
    `BatchState`).

    Raises:
        OptionError: a game the batched engine does not play (`check_game`), a bad batch size
            or seed (see `BatchState`).
    """
    return BatchState(game if game is not None else Game("flip7", players), batch, seed, shuffle, backend)


def step(state: BatchState, actions: Arr) -> BatchState:
    """pgx-style: a new state, ``state`` after ``actions`` (one index per game; see
    `BatchState.step`); ``state`` itself is not changed.

    Raises:
        OptionError: bad actions (see `BatchState.step`), before the state is copied.
    """
    guards.action_indices(actions, state.B)
    new = state.copy()
    new.step(actions)
    return new
