"""The batched engine: ``B`` games of base Flip 7 as NumPy arrays, stepped together.

`BatchState` holds the games and takes one decision in each (`BatchState.step`); its rules
are in `flip7ref.batch.rules`.  `init` and `step` are the pgx-style pure API over it.
Action indices and the observation vector are those of `flip7ref.rl.encoding` for the
game (hit 0, stay 1, target ``s`` at ``2 + s``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from flip7ref.batch import evlog, guards
from flip7ref.batch.decks import shuffle_decks
from flip7ref.batch.observation import observation, observation_size
from flip7ref.batch.rules import (
    ACTIVE,
    ASSIGN,
    BUSTED,
    GIVE,
    HIT,
    N_DECISION_KINDS,
    OFFER,
    PLAY,
    STAY,
    STAYED,
    SUPPORTED_OPTIONS,
    TERMINAL,
    _all,
    _any,
    check_game,
    choose_backend,
    set_rows,
)
from flip7ref.batch.settle import Settling
from flip7ref.core import events as ev
from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game

Arr = np.ndarray[Any, Any]

__all__ = ["GIVE", "HIT", "OFFER", "STAY", "SUPPORTED_OPTIONS", "BatchState", "check_game", "init", "step"]


class BatchState(Settling):
    """``batch`` games of base Flip 7 (one `flip7ref.Game`), stepped together in place.

    Every game is always at a decision or over: `kind`, `actor` and `legal` say which
    (read them after `reset`/`step`).  Actions are indices of `flip7ref.rl.actions.ActionIndex`
    (``0`` hit, ``1`` stay, ``2 + s`` target seat ``s``).

    Args:
        game: the game (edition ``flip7``, see `check_game`).
        batch: the number of games (at least 1).
        seed: seeds the games: game ``i`` of the first deal gets seed ``seed + i`` (see
            `reset`), and NumPy's generator for ``shuffle="numpy"``.
        shuffle: ``reference`` (deal and reshuffle as the reference does for the game's
            seed: the same cards in the same order) or ``numpy`` (faster, another order).
        backend: ``numba`` (the rules compiled, `flip7ref.batch.jit`: many times faster),
            ``numpy`` (array operations only), or ``auto`` (numba when it is installed);
            see `choose_backend`.  Both play the same rules; with ``shuffle="numpy"`` their
            reshuffles differ.  Both keep an event log when asked (`record_events`).

    Raises:
        OptionError: a game the engine does not play, a batch that is not a whole number
            >= 1 or whose arrays do not fit in the memory available (the message names the
            bytes; checked before anything is allocated), a seed that is not a whole number
            >= 0, an unknown shuffle or backend, or ``numba`` asked for where it is not
            installed.

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
        batch = guards.batch_size(batch)
        seed = guards.base_seed(seed)
        if shuffle not in ("reference", "numpy"):
            raise OptionError(f"shuffle: expected 'reference' or 'numpy', got {shuffle!r}")
        self.backend = choose_backend(backend)
        self._tables(game, batch, seed, shuffle)
        guards.allocate(self, self._alloc, batch, self.D)
        self.reset()

    def copy(self) -> BatchState:
        """An independent copy (every array copied; the game and generator shared)."""
        new = object.__new__(BatchState)
        for name, value in self.__dict__.items():
            setattr(new, name, value.copy() if isinstance(value, np.ndarray) else value)
        new.seeds = list(self.seeds)
        if isinstance(self.log, evlog.EventLog):
            new.log = self.log.copy(new)
        return new

    def record_events(self, capacity: int | None = None) -> None:
        """From now on keep each game's events (the reference's vocabulary, `flip7ref.core.events`)
        in ``log[game]`` (a list of events per game), as the protocol adapter does; off by default.

        The NumPy backend appends each event to its game's list as it happens.  The compiled
        backend writes rows of numbers into a buffer of ``capacity`` rows a game (default:
        `flip7ref.batch.evlog.capacity`), moves a full buffer aside, and makes the rows into
        the same events when ``log[game]`` is read (`flip7ref.batch.evlog.EventLog`).

        Raises:
            OptionError: ``capacity`` below the rows one step may write (twice
                `flip7ref.batch.evlog.room`), or buffers that do not fit in memory
                (`flip7ref.batch.guards.allocate`; nothing changed then).
        """
        if self.backend != "numba":
            self.log = [[] for _ in range(self.B)]
            return
        rows = evlog.capacity(self.P, self.f3n, self.Q, capacity)
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
        self.ev_room = evlog.room(self.P, self.f3n, self.Q)
        self.log = evlog.EventLog(self)

    # ------------------------------------------------------------------ new games

    def reset(self, games: Arr | None = None, seeds: Sequence[int | str] | None = None) -> None:
        """Start new games in the slots ``games`` (indices; all when None), dealt up to the
        first decision.  Game seeds: ``seeds`` (one per game), else the next whole numbers
        after the last seed used (``seed``, ``seed + 1``...), as `flip7ref.Game.new_initial_state`
        takes them: under ``shuffle="reference"`` each game's deck is the reference's for
        that seed, dealer seat 0.

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
        self.dtop[g] = 0
        self.dend[g] = self.D
        self.unseen[g] = self.copies
        self.discard[g] = 0
        self._clear_table(g)
        self.totals[g] = 0
        self.last_scores[g] = 0
        self.scored[g] = False
        self.done[g] = False
        self.winners[g] = False
        self.shuffles[g] = 0
        self.moves[g] = 0
        self.dealer[g] = 0
        self.rnd[g] = 1
        if self.backend == "numba":
            from flip7ref.batch import jit

            jit.start(self, g)
            return
        self._start_round(g)
        self._deal_fresh(g)
        self._settle(g)
        self._decisions(g)

    # ------------------------------------------------------------------ decisions

    def _decisions(self, g: Arr, full: bool = False) -> None:
        """Fill `kind`, `actor`, `legal` and `card` for the games ``g`` (all at a decision or
        over); ``full``: ``g`` is every game in order (whole arrays, no gathers)."""
        n = g.size

        def take(a: Arr) -> Arr:
            return a if full else a.take(g, 0)

        dealoffer = take(self.dealoffer)
        actor = np.where(dealoffer >= 0, dealoffer, take(self.turn)).astype(np.int8)
        kind = np.zeros(n, np.int8)  # OFFER
        card = np.full(n, -1, np.int8)
        legal = np.zeros((n, self.A), bool)
        a = take(self.as_ready)
        if _any(a):
            ga = g[a]
            kind[a] = ASSIGN
            actor[a] = self.as_chooser[ga]
            card[a] = self.as_cards[ga, self.as_k[ga]]
            legal[a, 2:] = self.status.take(ga, 0) == ACTIVE
        c = take(self.ct_on)
        if _any(c):
            gc = g[c]
            kind[c] = self.ct_purpose[gc]
            actor[c] = self.ct_chooser[gc]
            card[c] = self.ct_card[gc]
            legal[c, 2:] = self.ct_allowed.take(gc, 0)
        d = take(self.done)
        o = (kind == OFFER) & ~d
        k = g * self.P + np.maximum(actor, 0)  # flat (game, seat) of the seat offered
        stay = (self.llen.reshape(-1).take(k) > 0) | (self.sc.reshape(-1).take(k) > 0) | (self.frz.reshape(-1).take(k) > 0)
        legal[:, HIT] = o
        legal[:, STAY] = o & stay  # F7-033 any-card
        if _any(d):
            kind[d] = TERMINAL
            actor[d] = -1
            card[d] = -1
            legal[d] = False
        if full:
            self.kind[:] = kind
            self.actor[:] = actor
            self.card[:] = card
            self.legal[:] = legal
        else:
            self.kind[g] = kind
            self.actor[g] = actor
            self.card[g] = card
            set_rows(self.legal, g, legal)

    def step(self, actions: Arr, games: Arr | None = None) -> Arr:
        """Take action index ``actions[i]`` in game ``games[i]`` (all games when None; then
        ``actions`` has one entry per game), for the seat at its decision, and settle up
        to the next decision.  A game that is over, or an index not legal now
        (``legal``), is left as it was.

        Args:
            actions: a 1-D sequence of whole numbers, one per game stepped.
            games: a 1-D sequence of game indices ``0..B-1`` (whole numbers; each at most
                once), or None for every game.

        Returns:
            A bool array (one per game of ``games``): True where the action was taken.

        Raises:
            OptionError: a bad game index (out of range, negative, repeated, not a whole
                number) or action (not a whole number), or not one action per game
                (`flip7ref.batch.guards`); raised before any game changes, whichever backend.
        """
        g = np.arange(self.B) if games is None else guards.game_indices(games, self.B)
        a = guards.action_indices(actions, g.size)
        inr = (a >= 0) & (a < self.A)
        if self.backend == "numba":
            from flip7ref.batch import jit

            return jit.step(self, a, g)
        ok = inr & self.legal.reshape(-1).take(g * self.A + np.where(inr, a, 0))
        full = games is None and bool(_all(ok))
        if not _all(ok):
            g, a = g[ok], a[ok]
        if g.size == 0:
            return ok
        self.moves[g] += 1
        kind = self.kind.take(g)
        actor = self.actor.take(g).astype(np.int64)
        o = kind == OFFER
        if _any(o):
            go, so, ao = g[o], actor[o], a[o]
            deal = self.dealoffer[go] >= 0
            self.dealoffer[go[deal]] = -1
            turn = go[~deal]
            self.turn[turn] = (so[~deal] + 1) % self.P
            self.offer_ready[turn] = False
            st = ao == STAY
            self.status.reshape(-1)[go[st] * self.P + so[st]] = STAYED
            ss = so[st]
            self._emit(go[st], lambda i, b: ev.stayed(int(ss[i])))
            h = ~st
            gh, sh = go[h], so[h]
            code = self._draw(gh)
            ex = code < 0
            if _any(ex):  # F7-115: a Hit with no card anywhere becomes a Stay
                self.status[gh[ex], sh[ex]] = STAYED
                se = sh[ex]
                self._emit(gh[ex], lambda i, b: ev.stayed(int(se[i]), "empty deck"))
                gh, sh, code = gh[~ex], sh[~ex], code[~ex]
            self._emit(gh, lambda i, b: ev.dealt(int(sh[i]), self.ids[code[i]], "hit"))
            if gh.size:
                self._receive(gh, sh, code)
        c = (kind == PLAY) | (kind == GIVE)
        if _any(c):
            gc, tc = g[c], a[c] - 2
            self.ct_on[gc] = False
            self._emit(gc, lambda i, b: ev.target_chosen(int(self.ct_chooser[b]), self.ids[self.ct_card[b]], int(tc[i])))
            give = kind[c] == GIVE
            if _any(give):
                self.sc[gc[give], tc[give]] += 1
                tg = tc[give]
                self._emit(gc[give], lambda i, b: ev.second_chance_given(int(self.ct_chooser[b]), int(tg[i]), self.ids[self.SC]))
            p = ~give
            if _any(p):
                self._play(gc[p], actor[c][p], tc[p], self.ct_card[gc[p]].astype(np.int64))
        s = kind == ASSIGN
        if _any(s):
            gs = g[s]
            ts = a[s] - 2
            cs = self.as_cards[gs, self.as_k[gs]]
            self._emit(gs, lambda i, b: ev.assigned(int(self.as_chooser[b]), self.ids[cs[i]], int(ts[i])))
            self.as_targets[gs, self.as_k[gs]] = ts
            self.as_k[gs] += 1
            self.as_ready[gs] = False
        self._settle(g)
        self._decisions(g, full)
        return ok

    # ------------------------------------------------------------------ reading

    def line_values(self) -> Arr:
        """(B, P) what each line would score now (points; 0 when busted), F7-100."""
        v = self.numsum * (1 + self.x2 * self.mult1) + self.modsum
        return np.where(self.status == BUSTED, 0, v).astype(np.int32)

    def held(self) -> Arr:
        """(B, C) the cards held by pending work (a target choice, a Flip Three and its
        set-aside cards, the assignment and the queue): the ``set_aside`` section."""
        out = np.zeros((self.B, self.C), np.int16)
        g = np.flatnonzero(self.ct_on | self.fd_on | self.as_on | self.rq_on)
        if g.size == 0:
            return out
        for on, card in ((self.ct_on, self.ct_card), (self.fd_on, self.fd_card)):
            m = g[on[g]]
            out[m, card[m]] += 1
        for on, n, cards in ((self.fd_on, self.fd_n, self.fd_aside), (self.as_on, self.as_n, self.as_cards)):
            for j in range(self.f3n):
                m = g[on[g] & (n[g] > j)]
                out[m, cards[m, j]] += 1
        for j in range(self.Q):
            m = g[self.rq_on[g] & (self.rq_head[g] + j < self.rq_tail[g])]
            if not m.size:
                break
            out[m, self.rq_card[m, self.rq_head[m] + j]] += 1
        return out

    def observation_size(self) -> int:
        """The length of an observation (`flip7ref.rl.encoding.ObservationEncoder.size`)."""
        return observation_size(self.P, self.C, N_DECISION_KINDS)

    def observe(self, observer: Arr | int, seats: str = "relative") -> Arr:
        """(B, size) float32 observations for seat ``observer`` (one per game, or one seat
        for all), laid out as `flip7ref.rl.encoding.ObservationEncoder` documents.

        Raises:
            OptionError: a seat out of range, or not one seat or one per game; ``seats``
                neither ``relative`` (the default: each game's observer first, the
                other seats in turn order after it) nor ``absolute``.
        """
        observer = guards.seats(observer, self.P, self.B)
        kept = np.zeros((self.B, self.P, self.C), np.float32)
        kept[:, :, self.SC] = self.sc
        kept[:, :, self.FREEZE] = self.frz
        return observation(self, observer, kept, N_DECISION_KINDS, seats)


def init(seed: int, batch: int, game: Game | None = None, *, players: int = 4, shuffle: str = "reference") -> BatchState:
    """pgx-style: ``batch`` new games of base Flip 7 (``game``, else ``Game("flip7", players,
    {"reshuffles": 1})``: the batch plays reading 1),
    each at its first decision; game ``i`` is seeded ``seed + i`` (see `BatchState`).

    Raises:
        OptionError: a game the batched engine does not play (`check_game`), a bad batch size
            or seed (see `BatchState`).
    """
    return BatchState(game if game is not None else Game("flip7", players, {"reshuffles": 1}), batch, seed, shuffle)


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
