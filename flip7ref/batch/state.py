"""The batched state both editions share: the games' arrays, the table's facts read into them,
and the calls into the scalar rule body `flip7ref.batch.kernel`.

`KernelState` reads the facts of a compiled `flip7ref.Game` (card categories, ranks, modifier
amounts and operations, each action card's primitive and parameters, the traits, the round's
readings that the kernel plays as numbers) into arrays once (`KernelState._tables`), holds
``B`` games (`KernelState._alloc`), refills a deck (`KernelState.reshuffle`: the reference's
order for a game's seed under ``shuffle="reference"``) and runs the kernel over chosen games
(`KernelState.run`).  `flip7ref.batch.core.BatchState` (base Flip 7) and
`flip7ref.batch.vengeance.VengeanceState` are this state with their edition's checks.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Self

import numpy as np

from flip7ref.batch import compile_notice, evlog, guards, tables
from flip7ref.batch.decks import shuffle_decks
from flip7ref.batch.evlog import EventLog
from flip7ref.batch.kernel import ACTIVE, ARRAYS, DISCARD, FORCED, FREEZE, NEW, SCALARS, SHIELD, STEAL, SWAP
from flip7ref.batch.observation import observation, observation_size
from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.core.model import ACTION, MODIFIER, NUMBER, verbs
from flip7ref.core.observation_layout import DECISION_KINDS

Arr = np.ndarray[Any, Any]

__all__ = ["STACK", "KernelState", "choose_backend", "kernel_of"]

STACK = 32
"""Stack slots a game's pending work may take (the deal, then at most two frames per action card)."""

_PRIMITIVES = {
    "forced_draw": FORCED, "freeze": FREEZE, "bust_shield": SHIELD, "steal": STEAL, "swap": SWAP, "discard_card": DISCARD,
}  # fmt: skip
_PLAIN: list[ModuleType] = []
_PACKED_NAMES = frozenset(ARRAYS + SCALARS) | {"kernel"}


def choose_backend(backend: str) -> str:
    """The backend a batched state runs for ``backend``: ``numba`` (the kernel compiled) or
    ``python`` (the same kernel uncompiled: slow, for tests) as asked, ``auto`` numba when it
    is importable, else python.

    Raises:
        OptionError: another name (``numpy`` included: the NumPy rule body is gone), or
            ``numba`` when numba is not installed.
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
        compile_notice.watch_compiles()  # one line on stderr when numba compiles (not when it loads) the kernel
        return kernel
    if not _PLAIN:
        _PLAIN.append(kernel.plain())
    return _PLAIN[0]


def line_room(game: Game) -> int:
    """Cards a line may hold: each rank once, a pair (V-036), a busting card, every modifier."""
    ranks = len({game.rank[c] for c in range(len(game.card_ids)) if game.category[c] == NUMBER})
    return ranks + 2 + tables.deck_copies(game, [c for c in range(len(game.card_ids)) if game.category[c] == MODIFIER])


class KernelState:
    """``B`` games of one `flip7ref.Game` as arrays, played by `flip7ref.batch.kernel` (see the
    module).  Subclasses check the game first (`flip7ref.batch.core.BatchState`,
    `flip7ref.batch.vengeance.VengeanceState`); the arguments are theirs."""

    _packed: Any = None
    """The kernel's view of the state (`packed`), kept while no attribute it holds is set anew."""

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name in _PACKED_NAMES:  # an array or a fact replaced (arrays are otherwise changed in place)
            object.__setattr__(self, "_packed", None)

    def packed(self) -> Any:
        """The kernel's view of this state (`flip7ref.batch.kernel.pack`), built once and kept: a
        call into the kernel passes it (building it costs tens of microseconds)."""
        if self._packed is None:
            object.__setattr__(self, "_packed", self.kernel.pack(self))
        return self._packed

    def __init__(self, game: Game, batch: int, seed: int, shuffle: str, backend: str) -> None:
        batch = guards.batch_size(batch)
        seed = guards.base_seed(seed)
        if shuffle not in ("reference", "numpy"):
            raise OptionError(f"shuffle: expected 'reference' or 'numpy', got {shuffle!r}")
        self.backend = choose_backend(backend)
        self.kernel = kernel_of(self.backend)
        self._tables(game, batch, seed, shuffle)
        guards.allocate(self, self._alloc, batch, self.D)
        self.reset()

    # ------------------------------------------------------------------ tables and storage

    def _tables(self, game: Game, batch: int, seed: int, shuffle: str) -> None:
        """The table's facts as arrays and numbers (`flip7ref.batch.kernel.SCALARS`), and the sizes."""
        self.game = game
        self.B, self.P = batch, game.players
        ids = self.ids = game.card_ids
        self.C = C = len(ids)
        self._action_layout(game)
        self.shuffle = shuffle
        self.rng = np.random.default_rng(seed)
        self.next_seed = int(seed)
        self.log: EventLog | None = None  # the events of each game, when recorded (`record_events`)
        self.peek = 0  # stop before every draw (`flip7ref.batch.kernel`)
        self.ev_room = 0  # rows one step may write (`flip7ref.batch.evlog.room`; `record_events`)
        self.target = int(game.target_score)  # F7-120, V-073
        self.reshuffles = int(game.reshuffles)  # F7-116, V-075 (under "unlimited", the table's bound)
        self.UNLIM = int(game.reshuffles_unlimited)  # F7-117, V-076: the loop guard (`flip7ref.core.pile.may_reshuffle`)
        self.F7N = int(game.flip7_distinct)  # F7-050, V-022
        self.bonus = int(game.flip7_bonus)
        self.FLOOR = int("floor_zero" in game.scoring)  # V-060
        self.STAY_ANY = int(game.stay_requires == "any-card")  # F7-033
        self.MOD_RECV = int(game.modifiers_to == "receiver")  # F7-035 (V-050: chosen)
        cat = np.array(game.category)
        self.is_num = cat == NUMBER
        self.is_mod = cat == MODIFIER
        self.rank = np.where(self.is_num, np.array([r if r is not None and r >= 0 else 0 for r in game.rank]), 0).astype(np.int64)
        ranks: list[list[int]] = [
            np.flatnonzero(self.is_num & (self.rank == self.rank[c])).tolist() if self.is_num[c] else [] for c in range(C)
        ]
        self.same = np.full((C, max(len(r) for r in ranks)), -1, np.int8)  # the codes of each number's rank
        for c, r in enumerate(ranks):
            self.same[c, : len(r)] = r
        self.addv = np.array([m[1] if m is not None and m[0] == "add" else 0 for m in game.modifier], np.int64)  # F7-090
        ops = {m[0]: (c, int(m[1])) for c, m in enumerate(game.modifier) if m is not None and m[0] != "add"}
        self.MUL, self.MULF = ops.get("multiply", (-1, 1))  # F7-091: the multiplying card and its factor
        self.HALF, self.DIV = ops.get("divide", (-1, 1))  # V-052: the dividing card and its divisor
        # the special numbers by their traits, not their names (one card each, or none)
        traits = ("zero", "no_stay", "wipe_on_enter", "pair_allowed")
        self.ZERO, self.NOSTAY, self.U7, self.L13 = (next((c for c in range(C) if t in game.traits[c]), -1) for t in traits)
        self.prim = np.zeros(C, np.int8)
        self.fcount = np.zeros(C, np.int8)
        self.then_stay = np.zeros(C, bool)
        self.assign_all = np.zeros(C, bool)  # F7-073: the target assigns the set-aside cards (else in order, V-044)
        self.only_active = np.zeros(C, bool)  # targets only active players (F7-034), else any not busted (V-014)
        self.aside = np.zeros((C, C), bool)  # aside[card, code]: code is set aside in card's forced draw
        self.SC = self.FRZ = -1
        self.hold = 0
        for c, e in enumerate(game.effect):
            if e is None:
                continue
            self.prim[c] = prim = _PRIMITIVES[e.primitive]  # the kernel's code of the card's primitive
            self.only_active[c] = getattr(e, "targets", "non_busted") == "active"
            if prim == FORCED:
                self.fcount[c] = e.count  # type: ignore[attr-defined]  # F7-070, V-043, V-044
                self.then_stay[c] = e.then_stay  # type: ignore[attr-defined]
                self.assign_all[c] = e.resolution == "assign-all-first"  # type: ignore[attr-defined]
                for a in e.set_aside:  # type: ignore[attr-defined]
                    self.aside[c, a] = True
            elif prim == SHIELD:
                self.SC, self.hold = c, int(e.hold_limit)  # type: ignore[attr-defined]  # F7-082
            elif prim == FREEZE:
                self.FRZ = c
        self.W = max([int(n) for n in self.fcount] + [1])  # set-aside room
        self.sorted_deck = np.array(sorted(game.deck), np.int16)
        self.D = len(self.sorted_deck)
        self.copies = np.bincount(self.sorted_deck, minlength=C).astype(np.int16)
        self.room = line_room(game)
        acts = tables.deck_copies(game, [c for c in range(C) if game.category[c] == ACTION])
        self.stack = min(STACK, 2 * acts + 3)  # the deal, then at most two frames per action card
        assigned: list[int] = np.flatnonzero(self.aside[self.assign_all].any(axis=0)).tolist()
        self.Q = max(1, tables.deck_copies(game, assigned))  # the queue of assigned cards (each card in play once)
        # the event rows one step may write beside a round's scores and end: every card pending work may
        # hold (an action or a modifier, twice: a forced draw's end and its cards), a wiped line
        held = tables.deck_copies(game, [c for c in range(C) if game.category[c] == ACTION or self.is_mod[c]])
        self.held_rows = 2 * held + self.room + self.Q + 2

    def _action_layout(self, game: Game) -> None:
        """The blocks of `flip7ref.rl.actions.ActionIndex` for ``game``, built here (that module
        needs the ``[rl]`` extra): hit, stay, ``P`` targets, then the steal, discard and swap
        blocks in the order of the verb registry, for the verbs the game's cards use."""
        P = self.P
        kinds = [c for c, cat in enumerate(game.category) if cat in (NUMBER, MODIFIER)]
        self.kcodes = np.array(kinds, np.int64)
        self.K = K = len(kinds)
        pairs = list(itertools.combinations(range(P), 2))
        self.pairs = np.array(pairs, np.int64).reshape(-1, 2)
        used = {v for e in game.effect if e is not None for v in e.verbs}
        sizes = {"steal": P * K, "discard": P * K, "swap": len(pairs) * K * K}
        self.blocks: dict[str, tuple[int, int]] = {"hit": (0, 1), "stay": (1, 1), "target": (2, P)}
        start = 2 + P
        for verb in (v for v in verbs() if v in used):
            if verb not in sizes:  # pragma: no cover - a plug-in primitive's verb
                raise OptionError(f"verb {verb!r}: the batched engine plays the shipped primitives only")
            self.blocks[verb] = (start, sizes[verb])
            start += sizes[verb]
        self.A = start
        self.steal_at, self.discard_at, self.swap_at = (self.blocks.get(v, (-1, 0))[0] for v in ("steal", "discard", "swap"))

    def _alloc(self) -> None:
        before = set(vars(self))
        B, P, C, S, W, Q = self.B, self.P, self.C, self.stack, self.W, self.Q
        i8, i16, i32 = np.int8, np.int16, np.int32
        self.deck = np.zeros((B, self.D), i8)  # card codes: at most 127 kinds (the checks)
        self.dtop = np.zeros(B, i32)
        self.dend = np.zeros(B, i32)
        self.unseen = np.zeros((B, C), i16)
        self.discard = np.zeros((B, C), i16)
        self.line = np.zeros((B, P, C), i8)
        self.lorder = np.full((B, P, self.room), -1, i8)
        self.llen = np.zeros((B, P), i8)
        self.status = np.zeros((B, P), i8)
        self.barred = np.zeros((B, P), bool)
        self.sc = np.zeros((B, P), i8)  # bust shields kept in front (F7-080)
        self.frz = np.zeros((B, P), i8)  # Freezes kept in front (F7-062)
        self.ffirst = np.zeros((B, P), bool)  # a Freeze lies before the Second Chance in front (kept order)
        self.totals = np.zeros((B, P), i32)
        self.last_scores = np.zeros((B, P), i32)
        self.scored = np.zeros(B, bool)  # a round of the game has been scored (last_scores is meaningful)
        self.dealer = np.zeros(B, i32)
        self.turn = np.zeros(B, i32)
        self.rnd = np.zeros(B, i32)
        self.flip7 = np.full(B, -1, i8)
        self.done = np.zeros(B, bool)
        self.winners = np.zeros((B, P), bool)
        self.shuffles = np.zeros(B, i32)
        self.rshuf = np.zeros(B, i32)
        self.mark = np.full(B, -1, i32)
        self.seeds: list[str] = [""] * B
        self.sp = np.zeros(B, i32)
        self.ft = np.zeros((B, S), i8)
        self.fa = np.zeros((B, S), i16)
        self.fb = np.zeros((B, S), i16)
        self.fc = np.zeros((B, S), i16)
        self.fd = np.zeros((B, S), i16)
        self.fcards = np.full((B, S, W), -1, i8)
        self.fseat = np.full((B, S, W), -1, i8)
        self.fn = np.zeros((B, S), i8)
        self.fallow = np.zeros((B, S, P), bool)
        self.rq_card = np.zeros((B, Q), i8)
        self.rq_seat = np.zeros((B, Q), i8)
        self.rq_chooser = np.zeros((B, Q), i8)
        self.rq_head = np.zeros(B, i32)
        self.rq_tail = np.zeros(B, i32)
        self.moves = np.zeros(B, i32)
        self.kind = np.zeros(B, i8)
        self.actor = np.zeros(B, i8)
        self.legal = np.zeros((B, self.A), bool)
        self.wide = np.zeros(B, bool)  # the row of legal has pick-block entries set
        self.card = np.full(B, -1, i8)
        self.ev = np.zeros((B, 0, evlog.FIELDS), i32)  # the event rows (`record_events`)
        self.ev_n = np.zeros(B, i32)
        self._per_game = tuple(k for k, v in vars(self).items() if k not in before and isinstance(v, np.ndarray))

    def reshuffle(self, g: Arr) -> None:
        """F7-113 / V-072: each game's discard pile becomes its deck (sorted, then shuffled: the
        reference's order for the game's seed under ``shuffle="reference"``, else NumPy's
        generator, every game at once)."""
        self.shuffles[g] += 1
        self.rshuf[g] += 1
        if self.shuffle == "numpy":
            counts = self.discard[g].astype(np.int64)
            n = counts.sum(1)
            pos = np.arange(self.D)
            # the sorted pile of each game (C past its end): how many kinds end at or before each
            # position, one searchsorted over all the games (row i's ends shifted by i * (D + 1))
            shift = np.arange(g.size)[:, None] * (self.D + 1)
            ends = (np.cumsum(counts, 1) + shift).ravel()
            piles = np.searchsorted(ends, (pos + shift).ravel(), "right").reshape(g.size, self.D) - shift // (self.D + 1) * self.C
            keys = np.where(pos[None, :] < n[:, None], self.rng.random((g.size, self.D)), 2.0)
            self.deck[g] = np.take_along_axis(piles, np.argsort(keys, 1), 1)
        else:
            from flip7ref.core.pile import shuffled

            n = np.zeros(g.size, np.int64)
            for i, b in enumerate(g.tolist()):
                cards = np.repeat(np.arange(self.C, dtype=np.int16), self.discard[b]).tolist()
                shuffled(cards, self.seeds[b], int(self.shuffles[b]))
                n[i] = len(cards)
                self.deck[b, : n[i]] = cards
        self.dtop[g] = 0
        self.dend[g] = n
        self.unseen[g] = self.discard[g]
        self.discard[g] = 0
        if isinstance(self.log, EventLog):
            self.log.reshuffled(g, n)

    # ------------------------------------------------------------------ copies and the log

    def copy(self) -> Self:
        """An independent copy (every array copied; the game and generator shared)."""
        new = object.__new__(type(self))
        for name, value in self.__dict__.items():
            setattr(new, name, value.copy() if isinstance(value, np.ndarray) else value)
        new.seeds = list(self.seeds)
        new._packed = None  # the copy's own arrays
        if self.log is not None:
            new.log = self.log.copy(new)
        return new

    def rows(self, games: Arr) -> Self:
        """A new state of ``len(games)`` games, copies of the games ``games`` (an int64 array;
        a game may be repeated), events off, with its own copy of the generator (stepping it
        leaves this state's draws as they were).

        Raises:
            OptionError: a game index out of range, negative or not a whole number.
        """
        g = guards.game_indices(games, self.B, repeats=True)
        new = object.__new__(type(self))
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
        new._packed = None
        return new

    def record_events(self, capacity: int | None = None) -> None:
        """From now on keep each game's events (the reference's vocabulary, `flip7ref.core.events`)
        in ``log[game]``: the kernel writes rows of numbers into a buffer of ``capacity`` rows a
        game (default: `flip7ref.batch.evlog.capacity`), moves a full buffer aside, and makes
        the rows into events when ``log[game]`` is read (`flip7ref.batch.evlog.EventLog`).

        Raises:
            OptionError: ``capacity`` below the rows one step may write (twice
                `flip7ref.batch.evlog.room`), or buffers that do not fit in memory
                (`flip7ref.batch.guards.allocate`; nothing changed then).
        """
        rows = evlog.capacity(self.P, self.held_rows, capacity)
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
        self.ev_room = evlog.room(self.P, self.held_rows)
        self.log = evlog.EventLog(self)

    # ------------------------------------------------------------------ playing

    def run(self, games: Arr, mode: int, actions: Arr | None = None) -> Arr:
        """Run the kernel's ``mode`` (`flip7ref.batch.kernel.ACT`, ``SETTLE`` or ``NEW``) in the
        games ``games`` (int64 indices), taking ``actions`` (int64, one per game) for ``ACT``;
        the bool array of the actions taken."""
        k = self.kernel
        n = games.size
        ok = np.zeros(n, bool)
        acts = np.zeros(n, np.int64) if actions is None else actions
        k.resume(self, self.packed(), games, acts, np.full(n, mode, np.int8), ok)
        return ok

    def clear(self, g: Arr) -> None:
        """The games ``g`` with nothing on the table and no pending work (F7-111, V-071)."""
        for a, v in ((self.line, 0), (self.lorder, -1), (self.llen, 0), (self.status, ACTIVE), (self.barred, False),
                     (self.sc, 0), (self.frz, 0), (self.ffirst, False), (self.sp, 0), (self.mark, -1)):  # fmt: skip
            a[g] = v
        self.flip7[g] = -1

    def reset(self, games: Arr | None = None, seeds: Sequence[int | str] | None = None) -> None:
        """Start new games in the slots ``games`` (indices; all when None), dealt up to the first
        decision.  Game seeds: ``seeds`` (one per game), else the next whole numbers after the
        last seed used (``seed``, ``seed + 1``...), as `flip7ref.Game.new_initial_state` takes
        them: under ``shuffle="reference"`` each game's deck is the reference's for that seed,
        dealer seat 0.

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
        self.clear(g)
        for a, v in ((self.totals, 0), (self.last_scores, 0), (self.winners, False), (self.scored, False),
                     (self.done, False), (self.shuffles, 0), (self.moves, 0), (self.dealer, 0), (self.rnd, 1)):  # fmt: skip
            a[g] = v
        self.run(g, NEW)

    def step(self, actions: Arr, games: Arr | None = None) -> Arr:
        """Take action index ``actions[i]`` in game ``games[i]`` (all games when None; then
        ``actions`` has one entry per game), for the seat at its decision, and settle up to
        the next decision.  A game that is over, or an index not legal now (``legal``), is
        left as it was.

        Args:
            actions: a 1-D sequence of whole numbers, one per game stepped.
            games: a 1-D sequence of game indices ``0..B-1`` (whole numbers; each at most
                once), or None for every game.

        Returns:
            A bool array (one per game of ``games``): True where the action was taken.

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
        (`flip7ref.batch.kernel.line_value`: F7-100, V-060)."""
        g = np.arange(self.B) if g is None else np.asarray(g, np.int64)
        out = np.zeros((g.size, self.P), np.int32)
        self.kernel.values(self.packed(), g, out)
        return out

    def held(self) -> Arr:
        """(B, C) the cards held by pending work (the observation's ``set_aside`` section)."""
        out = np.zeros((self.B, self.C), np.int16)
        self.kernel.held_counts(self.packed(), out)
        return out

    def observation_size(self) -> int:
        """The length of an observation (`flip7ref.rl.encoding.ObservationEncoder.size`)."""
        return observation_size(self.P, self.C, len(DECISION_KINDS))

    def observe(self, observer: Arr | int, seats: str = "relative") -> Arr:
        """(B, size) float32 observations for seat ``observer`` (one per game, or one seat for
        all), laid out as `flip7ref.rl.encoding.ObservationEncoder` documents.

        Raises:
            OptionError: a seat out of range, or not one seat or one per game; ``seats``
                neither ``relative`` (the default: each game's observer first, the
                other seats in turn order after it) nor ``absolute``.
        """
        observer = guards.seats(observer, self.P, self.B)
        kept = None
        if self.SC >= 0 or self.FRZ >= 0:  # cards lying in front beside the line
            kept = np.zeros((self.B, self.P, self.C), np.float32)
            if self.SC >= 0:
                kept[:, :, self.SC] = self.sc
            if self.FRZ >= 0:
                kept[:, :, self.FRZ] = self.frz
        return observation(self, observer, kept, len(DECISION_KINDS), seats)
