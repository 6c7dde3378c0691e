"""The batched Vengeance engine: ``B`` games of Flip 7: With a Vengeance, stepped together.

`VengeanceState` holds the games and takes one decision in each (`VengeanceState.step`);
its rules are the scalar kernel `flip7ref.batch.kernel` (compiled by numba when installed),
its tables `flip7ref.batch.v_rules`.  `init` and `step` are the pgx-style pure API over it.
Action indices and the observation vector are those of `flip7ref.rl.encoding` for the game:
hit 0, stay 1, target ``s`` at ``2 + s``, then the steal, discard and swap blocks
(`flip7ref.rl.actions.ActionIndex`).
"""

from __future__ import annotations

from flip7ref.batch import guards
from flip7ref.batch.state import Arr, KernelState, choose_backend
from flip7ref.batch.v_rules import VENGEANCE_OPTIONS, check_vengeance
from flip7ref.core.game import Game

__all__ = ["VENGEANCE_OPTIONS", "VengeanceState", "check_vengeance", "choose_backend", "init", "step"]


class VengeanceState(KernelState):
    """``batch`` games of Vengeance (one `flip7ref.Game`), stepped together in place
    (`flip7ref.batch.state.KernelState`: ``step``, ``reset``, ``observe``, ``copy``, ``rows``,
    ``record_events``, ``line_values``).

    Every game is always at a decision or over: `kind`, `actor` and `legal` say which.
    Actions are indices of `flip7ref.rl.actions.ActionIndex` for the game.

    Args:
        game: the game (edition ``vengeance``, see `check_vengeance`).
        batch: the number of games (at least 1).
        seed: game ``i`` of the first deal gets seed ``seed + i`` (see `reset`); also seeds
            NumPy's generator for ``shuffle="numpy"``.
        shuffle: ``reference`` (deal and reshuffle as the reference does for the game's
            seed) or ``numpy`` (NumPy's generator, another order).
        backend: ``numba`` (the kernel `flip7ref.batch.kernel` compiled), ``python`` (the
            same kernel uncompiled) or ``auto`` (numba when installed); see `choose_backend`.

    Raises:
        OptionError: a game the engine does not play, a batch that is not a whole number
            >= 1 or whose arrays do not fit in the memory available (the message names the
            bytes; checked before anything is allocated), a seed that is not a whole number
            >= 0, an unknown shuffle or backend.

    Attributes (arrays, first axis the game; ``P`` seats, ``C`` card kinds):
        status (B, P): 0 active, 1 stayed, 3 busted.  totals (B, P): points.
        line (B, P, C): card counts of each line; ``lorder``/``llen`` the same in order.
        barred (B, P): a Flip 7 barred for the round (D-V-26).
        done (B,): the game is over; winners (B, P).  dealer, turn, rnd (B,).
        kind, actor (B,): the decision open now; legal (B, A): its legal indices;
        card (B,): the card the decision is about (-1 when none).
    """

    def __init__(self, game: Game, batch: int, seed: int = 0, shuffle: str = "reference", backend: str = "auto") -> None:
        check_vengeance(game)
        super().__init__(game, batch, seed, shuffle, backend)


def init(
    seed: int, batch: int, game: Game | None = None, *, players: int = 4, shuffle: str = "reference", backend: str = "auto"
) -> VengeanceState:
    """pgx-style: ``batch`` new games of Vengeance (``game``, else ``Game("vengeance", players)``:
    the table's readings), each at its first decision; game ``i`` is seeded ``seed + i``.

    Raises:
        OptionError: a game the batched engine does not play (`check_vengeance`), a bad batch
            size or seed (see `VengeanceState`).
    """
    game = game if game is not None else Game("vengeance", players)
    return VengeanceState(game, batch, seed, shuffle, backend)


def step(state: VengeanceState, actions: Arr) -> VengeanceState:
    """pgx-style: a new state, ``state`` after ``actions`` (one index per game); ``state``
    itself is not changed.

    Raises:
        OptionError: bad actions (see `VengeanceState.step`), before the state is copied.
    """
    guards.action_indices(actions, state.B)
    new = state.copy()
    new.step(actions)
    return new
