"""The batched Vengeance engine: ``B`` games of Flip 7: With a Vengeance, stepped together.

`VengeanceState` holds the games and takes one decision in each (`VengeanceState.step`);
its rules are the scalar kernel `flip7ref.batch.kernel` (compiled by numba when installed),
its tables `flip7ref.batch.v_rules`.  `init` and `step` are the pgx-style pure API over it.
Action indices and the observation vector are those of `flip7ref.rl.encoding` for the game:
hit 0, stay 1, target ``s`` at ``2 + s``, then the steal, discard and swap blocks
(`flip7ref.rl.actions.ActionIndex`).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from types import ModuleType

import numpy as np

from flip7ref.batch import evlog, guards, tables
from flip7ref.batch.decks import shuffle_decks
from flip7ref.batch.observation import observation, observation_size
from flip7ref.batch.v_rules import (
    ACTIVE,
    N_DECISION_KINDS,
    VENGEANCE_OPTIONS,
    Arr,
    L,
    VRules,
    check_vengeance,
)
from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.core.model import NUMBER

__all__ = ["VENGEANCE_OPTIONS", "VengeanceState", "check_vengeance", "choose_backend", "init", "step"]

_PLAIN: list[ModuleType] = []


def choose_backend(backend: str) -> str:
    """The backend a batched state runs for ``backend``: ``numba`` (the kernel compiled) or
    ``python`` (the same kernel uncompiled: slow, for tests) as asked, ``auto`` numba when it
    is importable, else python.

    Raises:
        OptionError: another name, or ``numba`` when numba is not installed.
    """
    if backend not in ("auto", "numba", "python"):
        raise OptionError(f"backend: expected 'auto', 'numba' or 'python', got {backend!r}")
    if backend == "python":
        return backend
    try:
        import numba  # type: ignore[import-not-found, unused-ignore]  # noqa: F401
    except ImportError:
        if backend == "numba":
            raise OptionError("backend: 'numba' needs the numba package (pip install numba)") from None
        return "python"
    return "numba"


def kernel_of(backend: str) -> ModuleType:
    """The kernel module of ``backend`` (`choose_backend`'s answer): compiled, or the plain copy."""
    from flip7ref.batch import kernel

    if backend == "numba":
        return kernel
    if not _PLAIN:
        _PLAIN.append(kernel.plain())
    return _PLAIN[0]


class VengeanceState(VRules):
    """``batch`` games of Vengeance (one `flip7ref.Game`), stepped together in place.

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
        batch = guards.batch_size(batch)
        seed = guards.base_seed(seed)
        if shuffle not in ("reference", "numpy"):
            raise OptionError(f"shuffle: expected 'reference' or 'numpy', got {shuffle!r}")
        self.backend = choose_backend(backend)
        self.kernel = kernel_of(self.backend)
        self._tables(game, batch, seed, shuffle)
        guards.allocate(self, self._alloc, batch, self.D)
        self.reset()

    def copy(self) -> VengeanceState:
        """An independent copy (every array copied; the game and generator shared)."""
        new = object.__new__(VengeanceState)
        for name, value in self.__dict__.items():
            setattr(new, name, value.copy() if isinstance(value, np.ndarray) else value)
        new.seeds = list(self.seeds)
        if self.log is not None:
            new.log = self.log.copy(new)
        return new

    def rows(self, games: Arr) -> VengeanceState:
        """A new state of ``len(games)`` games, copies of the games ``games`` (an int64 array;
        a game may be repeated), events off, with its own copy of the generator (stepping it
        leaves this state's draws as they were).

        Raises:
            OptionError: a game index out of range, negative or not a whole number.
        """
        g = guards.game_indices(games, self.B, repeats=True)
        new = object.__new__(VengeanceState)
        new.__dict__.update(self.__dict__)
        for name in self._per_game:
            setattr(new, name, getattr(self, name)[g])
        new.B = int(g.size)
        new.seeds = [self.seeds[b] for b in g.tolist()]
        new.log = None
        new.ev = np.zeros((new.B, 0, evlog.FIELDS), np.int32)
        new.ev_n = np.zeros(new.B, np.int32)
        new.ev_room = 0
        new.rng = copy.deepcopy(self.rng)
        return new

    def record_events(self, capacity: int | None = None) -> None:
        """From now on keep each game's events (`flip7ref.core.events`) in ``log[game]``: the
        kernel writes rows of numbers into a buffer of ``capacity`` rows a game (default:
        `flip7ref.batch.evlog.capacity`), made into events when ``log[game]`` is read
        (`flip7ref.batch.evlog.EventLog`).

        Raises:
            OptionError: ``capacity`` below the rows one step may write (twice
                `flip7ref.batch.evlog.room`), or buffers that do not fit in memory
                (`flip7ref.batch.guards.allocate`; nothing changed then).
        """
        # a step writes at most: a round's scores, win and start, every card pending work may hold, a wiped line
        held = tables.deck_copies(self.game, [c for c in range(self.C) if self.game.category[c] != NUMBER])
        queue = 2 * held + L + 2
        rows = evlog.capacity(self.P, 0, queue, capacity)
        old = self.ev, self.ev_n
        del self.ev, self.ev_n

        def alloc() -> None:
            self.ev = np.zeros((self.B, rows, evlog.FIELDS), np.int32)
            self.ev_n = np.zeros(self.B, np.int32)

        try:
            guards.allocate(self, alloc, self.B, 0)
        except OptionError:
            self.ev, self.ev_n = old
            raise
        self.ev_room = evlog.room(self.P, 0, queue)
        self.log = evlog.EventLog(self)

    def run(self, games: Arr, mode: int, actions: Arr | None = None) -> Arr:
        """Run the kernel's ``mode`` (`flip7ref.batch.kernel.ACT`, ``SETTLE`` or ``NEW``) in the
        games ``games`` (int64 indices), taking ``actions`` (int64, one per game) for ``ACT``;
        the bool array of the actions taken."""
        k = self.kernel
        n = games.size
        ok = np.zeros(n, bool)
        acts = np.zeros(n, np.int64) if actions is None else actions
        k.resume(self, k.pack(self), games, acts, np.full(n, mode, np.int8), ok)
        return ok

    def reset(self, games: Arr | None = None, seeds: Sequence[int | str] | None = None) -> None:
        """Start new games in the slots ``games`` (all when None), dealt up to the first
        decision.  Seeds: ``seeds`` (one per game), else the next whole numbers after the
        last seed used; under ``shuffle="reference"`` each deck is the reference's for that
        seed (`flip7ref.Game.new_initial_state`), dealer seat 0.

        Args:
            games: a 1-D sequence of game indices ``0..B-1`` (whole numbers; each at most once).
            seeds: one seed per game, each a whole number or a string.

        Raises:
            OptionError: a bad game index (out of range, negative, repeated, not a whole
                number) or seed, or not one seed per game (`flip7ref.batch.guards`); raised
                before any game changes.
        """
        g = np.arange(self.B) if games is None else guards.game_indices(games, self.B)
        seeds = guards.game_seeds(seeds, g.size)
        if g.size == 0:
            return
        shuffle_decks(self, g, seeds)
        if self.log is not None:
            for b in g.tolist():
                self.log[b] = []
        self.dtop[g] = 0
        self.dend[g] = self.D
        self.unseen[g] = self.copies
        self.discard[g] = 0
        for a, v in ((self.line, 0), (self.lorder, -1), (self.llen, 0), (self.status, ACTIVE), (self.barred, False),
                     (self.totals, 0), (self.last_scores, 0), (self.winners, False), (self.sp, 0)):  # fmt: skip
            a[g] = v
        self.flip7[g] = -1
        self.scored[g] = False
        self.done[g] = False
        self.shuffles[g] = 0
        self.moves[g] = 0
        self.dealer[g] = 0
        self.rnd[g] = 1
        self.run(g, self.kernel.NEW)

    def step(self, actions: Arr, games: Arr | None = None) -> Arr:
        """Take action index ``actions[i]`` in game ``games[i]`` (all games when None), for the
        seat at its decision, and settle up to the next decision.  A game that is over, or an
        index not legal now (``legal``), is left as it was.

        Returns:
            A bool array (one per game of ``games``): True where the action was taken.

        Args:
            actions: a 1-D sequence of whole numbers, one per game stepped.
            games: a 1-D sequence of game indices ``0..B-1`` (whole numbers; each at most
                once), or None for every game.

        Raises:
            OptionError: a bad game index (out of range, negative, repeated, not a whole
                number) or action (not a whole number), or not one action per game
                (`flip7ref.batch.guards`); raised before any game changes.
        """
        g = np.arange(self.B) if games is None else guards.game_indices(games, self.B)
        a = guards.action_indices(actions, g.size)
        return self.run(g, self.kernel.ACT, a)

    # ------------------------------------------------------------------ reading

    def line_values(self, g: Arr | None = None) -> Arr:
        """(n, P) what each line of the games ``g`` (all when None) would score now
        (`flip7ref.batch.kernel.line_value`, V-060)."""
        g = np.arange(self.B) if g is None else np.asarray(g, np.int64)
        out = np.zeros((g.size, self.P), np.int32)
        self.kernel.values(self.kernel.pack(self), g, out)
        return out

    def held(self) -> Arr:
        """(B, C) the cards held by pending work (the observation's ``set_aside`` section)."""
        out = np.zeros((self.B, self.C), np.int16)
        self.kernel.held_counts(self.kernel.pack(self), out)
        return out

    def observation_size(self) -> int:
        """The length of an observation (`flip7ref.rl.encoding.ObservationEncoder.size`)."""
        return observation_size(self.P, self.C, N_DECISION_KINDS)

    def observe(self, observer: Arr | int, seats: str = "relative") -> Arr:
        """(B, size) float32 observations for seat ``observer`` (one per game, or one seat for
        all), laid out as `flip7ref.rl.encoding.ObservationEncoder` documents.

        Raises:
            OptionError: a seat out of range, or not one seat or one per game; ``seats``
                neither ``relative`` (the default: each game's observer first, the
                other seats in turn order after it) nor ``absolute``.
        """
        observer = guards.seats(observer, self.P, self.B)
        return observation(self, observer, None, N_DECISION_KINDS, seats)  # no card lies in front beside the line


def init(
    seed: int, batch: int, game: Game | None = None, *, players: int = 4, shuffle: str = "reference", backend: str = "auto"
) -> VengeanceState:
    """pgx-style: ``batch`` new games of Vengeance (``game``, else ``Game("vengeance", players,
    {"reshuffles": 1})``: the batch plays reading 1),
    each at its first decision; game ``i`` is seeded ``seed + i``.

    Raises:
        OptionError: a game the batched engine does not play (`check_vengeance`), a bad batch
            size or seed (see `VengeanceState`).
    """
    game = game if game is not None else Game("vengeance", players, {"reshuffles": 1})
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
