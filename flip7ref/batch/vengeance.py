"""The batched Vengeance engine: ``B`` games of Flip 7: With a Vengeance as NumPy arrays.

`VengeanceState` holds the games and takes one decision in each (`VengeanceState.step`);
its rules are in `flip7ref.batch.v_rules` and `flip7ref.batch.v_settle`.  `init` and
`step` are the pgx-style pure API over it.  Action indices and the observation vector
are those of `flip7ref.rl.encoding` for the game: hit 0, stay 1, target ``s`` at
``2 + s``, then the steal, discard and swap blocks (`flip7ref.rl.actions.ActionIndex`).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np

from flip7ref.batch import guards
from flip7ref.batch.decks import shuffle_decks
from flip7ref.batch.observation import observation, observation_size
from flip7ref.batch.v_rules import (
    ACTIVE,
    CARDS,
    CHOOSE,
    DEAL_OFFER,
    HIT,
    N_DECISION_KINDS,
    NONE,
    OFFER,
    PICK,
    PLAY,
    STAY,
    STAYED,
    TERMINAL,
    VENGEANCE_OPTIONS,
    Arr,
    _any,
    check_vengeance,
)
from flip7ref.batch.v_settle import VSettling
from flip7ref.core import events as ev
from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game

__all__ = ["VENGEANCE_OPTIONS", "VengeanceState", "check_vengeance", "init", "step"]


class VengeanceState(VSettling):
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

    Raises:
        OptionError: a game the engine does not play, a batch that is not a whole number
            >= 1 or whose arrays do not fit in the memory available (the message names the
            bytes; checked before anything is allocated), a seed that is not a whole number
            >= 0, an unknown shuffle.

    Attributes (arrays, first axis the game; ``P`` seats, ``C`` card kinds):
        status (B, P): 0 active, 1 stayed, 3 busted.  totals (B, P): points.
        line (B, P, C): card counts of each line; ``lorder``/``llen`` the same in order.
        barred (B, P): a Flip 7 barred for the round (D-V-26).
        done (B,): the game is over; winners (B, P).  dealer, turn, rnd (B,).
        kind, actor (B,): the decision open now; legal (B, A): its legal indices;
        card (B,): the card the decision is about (-1 when none).
    """

    def __init__(self, game: Game, batch: int, seed: int = 0, shuffle: str = "reference") -> None:
        check_vengeance(game)
        batch = guards.batch_size(batch)
        seed = guards.base_seed(seed)
        if shuffle not in ("reference", "numpy"):
            raise OptionError(f"shuffle: expected 'reference' or 'numpy', got {shuffle!r}")
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
            new.log = [list(x) for x in self.log]
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
        new.rng = copy.deepcopy(self.rng)
        return new

    def record_events(self) -> None:
        """From now on keep each game's events (`flip7ref.core.events`) in ``log[game]``."""
        self.log = [[] for _ in range(self.B)]

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
        self._start_round(g)
        self._settle(g)
        self._decisions(g)

    # ------------------------------------------------------------------ decisions

    def _decisions(self, g: Arr) -> None:
        """Fill `kind`, `actor`, `legal` and `card` for the games ``g`` (all at a decision or over)."""
        n, P = g.size, self.P
        top = self._top(g)
        i = np.maximum(self.sp[g] - 1, 0)
        kind = np.full(n, OFFER, np.int8)
        actor = self.turn[g].astype(np.int8)
        card = np.full(n, -1, np.int8)
        narrow = np.zeros((n, 2 + P), bool)  # hit, stay, targets; the pick blocks only where a pick is open
        do = top == DEAL_OFFER
        actor[do] = self.fa[g[do], i[do]]
        ch = top == CHOOSE
        if _any(ch):
            gc, ic = g[ch], i[ch]
            kind[ch] = PLAY
            actor[ch] = self.fb[gc, ic]
            card[ch] = self.fa[gc, ic]
            narrow[ch, 2:] = self.fallow[gc, ic]
        o = (top == NONE) | do
        seat = np.maximum(actor, 0).astype(np.int64)
        narrow[o, HIT] = True
        narrow[o, STAY] = self.line[g[o], seat[o], self.NOSTAY] == 0  # V-031: the no_stay card's holder may not stay
        d = self.done[g]
        kind[d] = TERMINAL
        actor[d] = -1
        card[d] = -1
        narrow[d] = False
        wide = g[self.wide[g]]  # rows whose pick blocks were set: cleared
        if wide.size:
            self.legal[wide, 2 + P :] = False
            self.wide[wide] = False
        self.legal[g, : 2 + P] = narrow
        pk = top == PICK
        if _any(pk):
            gp, ip = g[pk], i[pk]
            kind[pk] = CARDS
            actor[pk] = self.fb[gp, ip]
            card[pk] = self.fa[gp, ip]
            self.legal[gp] = self._picks(gp)
            self.wide[gp] = True
        self.kind[g] = kind
        self.actor[g] = actor
        self.card[g] = card

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
        inr = (a >= 0) & (a < self.A)
        ok = inr & self.legal[g, np.where(inr, a, 0)]
        g, a = g[ok], a[ok]
        if g.size == 0:
            return ok
        self.moves[g] += 1
        top = self._top(g)
        i = np.maximum(self.sp[g] - 1, 0)
        o = (top == NONE) | (top == DEAL_OFFER)
        if _any(o):
            go, ao, to, io = g[o], a[o], top[o], i[o]
            seat = np.where(to == DEAL_OFFER, self.fa[go, io], self.turn[go]).astype(np.int64)
            dof = to == DEAL_OFFER
            self.sp[go[dof]] -= 1
            tn = go[~dof]
            self.turn[tn] = (seat[~dof] + 1) % self.P
            st = ao == STAY
            self.status[go[st], seat[st]] = STAYED
            ss = seat[st]
            self._emit(go[st], lambda k, b: ev.stayed(int(ss[k])))
            h = ~st
            if _any(h):
                self._hit(go[h], seat[h])
        c = top == CHOOSE
        if _any(c):
            gc, ic = g[c], i[c]
            tc = a[c] - 2
            code = self.fa[gc, ic].astype(np.int64)
            chooser = self.fb[gc, ic].astype(np.int64)
            self.sp[gc] -= 1
            self._emit(gc, lambda k, b: ev.target_chosen(int(chooser[k]), self.ids[code[k]], int(tc[k])))
            self._play(gc, chooser, tc, code)
        p = top == PICK
        if _any(p):
            self._pick(g[p], i[p], a[p])
        self._settle(g)
        self._decisions(g)
        return ok

    def _pick(self, g: Arr, i: Arr, a: Arr) -> None:
        """A card pick of a Swap, Steal or Discard is carried out (the ``move`` of
        `flip7ref.core.primitives.steal`, ``swap``, ``discard_card``); the action card is discarded (V-040)."""
        card = self.fa[g, i].astype(np.int64)
        chooser = self.fb[g, i].astype(np.int64)
        res = self.fc[g, i].astype(np.int64)
        self.sp[g] -= 1
        K = self.K
        ids = self.ids
        start, size = self.blocks.get("steal", (0, 0))
        m = (a >= start) & (a < start + size) & (size > 0)
        if _any(m):
            gs, rs = g[m], res[m]
            s, k = np.divmod(a[m] - start, K)
            code = self.kcodes[k]
            self._take(gs, s, code)
            self._emit(gs, lambda j, b: ev.stolen(int(rs[j]), ids[code[j]], int(s[j])))
            self._enter(gs, rs, code)
        start, size = self.blocks.get("discard", (0, 0))
        m = (a >= start) & (a < start + size) & (size > 0)
        if _any(m):
            gd, cd = g[m], chooser[m]
            s, k = np.divmod(a[m] - start, K)
            code = self.kcodes[k]
            self._take(gd, s, code)
            self.discard[gd, code] += 1
            self._emit(gd, lambda j, b: ev.card_discarded(int(s[j]), ids[code[j]], int(cd[j])))
        start, size = self.blocks.get("swap", (0, 0))
        m = (a >= start) & (a < start + size) & (size > 0)
        if _any(m):
            gw, rw = g[m], res[m]
            pair, rest = np.divmod(a[m] - start, K * K)
            ka, kb = np.divmod(rest, K)
            sa, sb = self.pairs[pair, 0], self.pairs[pair, 1]
            ca, cb = self.kcodes[ka], self.kcodes[kb]
            self._take(gw, sa, ca)
            self._take(gw, sb, cb)
            self._emit(gw, lambda j, b: ev.swapped(int(rw[j]), int(sa[j]), ids[ca[j]], int(sb[j]), ids[cb[j]]))
            self._enter(gw, sa, cb)
            self._enter(gw, sb, ca)
        self.discard[g, card] += 1

    # ------------------------------------------------------------------ reading

    def held(self) -> Arr:
        """(B, C) the cards held by pending work (the observation's ``set_aside`` section)."""
        out = np.zeros((self.B, self.C), np.int16)
        for b in np.flatnonzero(self.sp > 0).tolist():
            for k in range(int(self.sp[b])):
                for c in self._held(b, k):
                    out[b, c] += 1
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


def init(seed: int, batch: int, game: Game | None = None, *, players: int = 4, shuffle: str = "reference") -> VengeanceState:
    """pgx-style: ``batch`` new games of Vengeance (``game``, else ``Game("vengeance", players,
    {"reshuffles": 1})``: the batch plays reading 1),
    each at its first decision; game ``i`` is seeded ``seed + i``.

    Raises:
        OptionError: a game the batched engine does not play (`check_vengeance`), a bad batch
            size or seed (see `VengeanceState`).
    """
    return VengeanceState(game if game is not None else Game("vengeance", players, {"reshuffles": 1}), batch, seed, shuffle)


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
