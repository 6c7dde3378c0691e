"""The batched engine's rules: ``B`` games of base Flip 7 as NumPy arrays, stepped together.

A second implementation of the reference's general path (`flip7ref.engine`, the frames of
`flip7ref.primitives`), written as array operations over the games that need each step.
Its pending work is the reference's frame stack in fixed slots, bottom first: the deal
under way (`Deal`, F7-020), the queue of assigned set-aside cards (`Resolve`, F7-074), a
Flip Three in progress (`ForcedDraw`, F7-070), the assignment of set-aside cards (`Assign`,
F7-073) and a target choice (`ChooseTarget`: Freeze, Flip Three, a spare Second Chance).
Under the default readings no other stack can arise (a nested Flip Three's assignments join
the one queue, D-F7-13 ``queue``), so a slot on is the top of everything below it.

Chance is not a decision here: a card needed is the top of each game's ordered pile.  A
reshuffle (F7-113, once a round, F7-116) orders the discard pile as the reference does for
a seeded game when ``shuffle="reference"`` (`flip7ref.pile.shuffled`; same seed, same
deal), else with NumPy's generator.

Action indices and the observation vector are those of `flip7ref.rl.encoding` for the
game (hit 0, stay 1, target ``s`` at ``2 + s``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import events as ev
from ..errors import OptionError
from ..game import Game
from ..model import MODIFIER, NUMBER, Event
from ..pile import shuffled

Arr = np.ndarray[Any, Any]

ACTIVE, STAYED, FROZEN, BUSTED = 0, 1, 2, 3
"""Player statuses, in the order of the observation's ``status`` section."""

OFFER, PLAY, GIVE, ASSIGN, TERMINAL = 0, 1, 2, 4, 8
"""Decision kinds as indices of `flip7ref.rl.encoding.DECISION_KINDS`."""

N_DECISION_KINDS = 9
HIT, STAY = 0, 1
SUPPORTED_OPTIONS: dict[str, tuple[str, ...]] = {
    "initial_deal": ("deal",),
    "deal_after_early_cards": ("offer",),
    "deal_after_second_chance": ("deal",),
    "start_seat": ("dealer-left",),
    "stay_requires": ("any-card",),
    "self_target": ("allowed",),
    "flip_three_bust": ("discard",),
    "set_aside_assigner": ("target",),
    "second_chance_in_flip_three": ("immediate",),
    "first_second_chance": ("keep",),
    "deck_between_rounds": ("carry-over",),
    "empty_deck": ("stay",),
    "flip7_bonus": ("maker",),
    "tie": ("another-round",),
    "set_aside_order": ("queue",),
}
"""The readings of base Flip 7 the batched engine plays: each option's default.  Integer
options: ``target_score`` (any whole number 1..10000), ``reshuffles`` (0..8; not
``unlimited``), ``decks`` (one deck: ``auto`` up to 18 players, or 1)."""

_Q = 16  # room in the queue of assigned cards (a deck has 6 cards that can be set aside)
_L = 24  # room in a line (at most 7 different numbers, a duplicate and the modifiers)

_SLOT_TOP = ("stop", "round_end", "assign", "forced_draw", "resolve", "deal", "turn")
_STOP, _ROUND_END, _AS, _FD, _RQ, _DEAL, _TURN = range(7)


def check_game(game: Game) -> None:
    """Raise `OptionError` unless the batched engine plays ``game``: edition ``flip7``,
    1..18 players, options at `SUPPORTED_OPTIONS` (integers as documented there)."""
    if game.edition.id != "flip7":
        raise OptionError(f"edition: the batched engine plays flip7 only, got {game.edition.id!r}")
    if not 1 <= game.players <= 18:
        raise OptionError(f"players: the batched engine plays 1..18 players (one deck), got {game.players}")
    for name, value in game.options.items():
        if name in SUPPORTED_OPTIONS and value not in SUPPORTED_OPTIONS[name]:
            raise OptionError(f"options.{name}: the batched engine plays {SUPPORTED_OPTIONS[name][0]!r} only, got {value!r}")
    if game.options.get("reshuffles") == "unlimited":
        raise OptionError("options.reshuffles: the batched engine plays a whole number 0..8, not 'unlimited'")
    if game.options.get("decks") not in ("auto", 1):
        raise OptionError(f"options.decks: the batched engine plays one deck, got {game.options.get('decks')!r}")


class BatchState:
    """``batch`` games of base Flip 7 (one `flip7ref.Game`), stepped together in place.

    Every game is always at a decision or over: `kind`, `actor` and `legal` say which
    (read them after `reset`/`step`).  Actions are indices of `flip7ref.rl.encoding.ActionIndex`
    (``0`` hit, ``1`` stay, ``2 + s`` target seat ``s``).

    Args:
        game: the game (edition ``flip7``, see `check_game`).
        batch: the number of games (at least 1).
        seed: seeds the games: game ``i`` of the first deal gets seed ``seed + i`` (see
            `reset`), and NumPy's generator for ``shuffle="numpy"``.
        shuffle: ``reference`` (deal and reshuffle as the reference does for the game's
            seed: the same cards in the same order) or ``numpy`` (faster, another order).

    Raises:
        OptionError: a game the engine does not play, a batch below 1, an unknown shuffle.

    Attributes (arrays, first axis the game; ``P`` seats, ``C`` card kinds):
        status (B, P): 0 active, 1 stayed, 2 frozen, 3 busted.  totals (B, P): points.
        line (B, P, C): card counts of each line; ``lorder``/``llen`` the same in order.
        sc, frz (B, P): Second Chances held and Freezes kept in front.
        done (B,): the game is over; winners (B, P).  dealer, turn, rnd (B,).
        kind, actor (B,): the decision open now; legal (B, A): its legal indices.
        last_scores (B, P): each seat's score of the game's last finished round.
    """

    def __init__(self, game: Game, batch: int, seed: int = 0, shuffle: str = "reference") -> None:
        check_game(game)
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise OptionError(f"batch: expected a whole number >= 1, got {batch!r}")
        if shuffle not in ("reference", "numpy"):
            raise OptionError(f"shuffle: expected 'reference' or 'numpy', got {shuffle!r}")
        self.game = game
        self.B, self.P = batch, game.players
        self.C = len(game.card_ids)
        self.A = 2 + self.P
        self.shuffle = shuffle
        self.rng = np.random.default_rng(seed)
        self.next_seed = int(seed)
        ids = self.ids = game.card_ids
        self.log: list[list[Event]] | None = None  # the events of each game, when recorded (`record_events`)
        self.FREEZE, self.F3, self.SC = ids.index("freeze"), ids.index("flip_three"), ids.index("second_chance")
        self.target = int(game.options["target_score"])  # type: ignore[call-overload]
        reshuffles = game.options.get("reshuffles", 1)
        self.reshuffles = int(reshuffles)  # type: ignore[call-overload]
        cat = np.array([{NUMBER: 0, MODIFIER: 1}.get(c, 2) for c in game.category], dtype=np.int8)
        self.is_num = cat == 0
        self.is_mod = cat == 1
        self.rank = np.where(self.is_num, np.array([r or 0 for r in game.rank]), 0).astype(np.int16)  # 0 off numbers
        add = [0] * self.C
        x2 = [0] * self.C
        for c, m in enumerate(game.modifier):
            if m is not None and m[0] == "add":
                add[c] = int(m[1])
            elif m is not None and m[0] == "multiply":
                x2[c] = 1
        self.addv = np.array(add, dtype=np.int16)
        self.isx2 = np.array(x2, dtype=np.int8)
        self.sorted_deck = np.array(sorted(game.deck), dtype=np.int16)
        self.D = len(self.sorted_deck)
        self.copies = np.bincount(self.sorted_deck, minlength=self.C).astype(np.int16)
        self._alloc()
        self.reset()

    # ------------------------------------------------------------------ storage

    def _alloc(self) -> None:
        B, P, C = self.B, self.P, self.C
        i8, i16, i32 = np.int8, np.int16, np.int32
        self.deck = np.zeros((B, self.D), i16)
        self.dtop = np.zeros(B, i32)
        self.dend = np.zeros(B, i32)
        self.unseen = np.zeros((B, C), i16)
        self.discard = np.zeros((B, C), i16)
        self.line = np.zeros((B, P, C), i8)
        self.lorder = np.full((B, P, _L), -1, i8)
        self.llen = np.zeros((B, P), i8)
        self.nnum = np.zeros((B, P), i16)
        self.numsum = np.zeros((B, P), i16)
        self.modsum = np.zeros((B, P), i16)
        self.x2 = np.zeros((B, P), i8)
        self.ffirst = np.zeros((B, P), bool)  # a Freeze lies before the Second Chance in front (kept order)
        self.scored = np.zeros(B, bool)  # a round of the game has been scored (last_scores is meaningful)
        self.sc = np.zeros((B, P), i8)
        self.frz = np.zeros((B, P), i8)
        self.status = np.zeros((B, P), i8)
        self.totals = np.zeros((B, P), i32)
        self.last_scores = np.zeros((B, P), i32)
        self.dealer = np.zeros(B, i32)
        self.turn = np.zeros(B, i32)
        self.rnd = np.zeros(B, i32)
        self.flip7 = np.full(B, -1, i8)
        self.rover = np.zeros(B, bool)
        self.done = np.zeros(B, bool)
        self.winners = np.zeros((B, P), bool)
        self.shuffles = np.zeros(B, i32)
        self.rshuf = np.zeros(B, i32)
        self.seeds: list[str] = [""] * B
        self.deal_on = np.zeros(B, bool)
        self.deal_pos = np.zeros(B, i32)
        self.dealoffer = np.full(B, -1, i8)
        self.offer_ready = np.zeros(B, bool)
        self.ct_on = np.zeros(B, bool)
        self.ct_card = np.zeros(B, i8)
        self.ct_chooser = np.zeros(B, i8)
        self.ct_purpose = np.zeros(B, i8)
        self.ct_allowed = np.zeros((B, P), bool)
        self.fd_on = np.zeros(B, bool)
        self.fd_target = np.zeros(B, i8)
        self.fd_giver = np.zeros(B, i8)
        self.fd_card = np.zeros(B, i8)
        self.fd_rem = np.zeros(B, i8)
        self.fd_n = np.zeros(B, i8)
        self.fd_aside = np.zeros((B, 3), i8)
        self.as_on = np.zeros(B, bool)
        self.as_ready = np.zeros(B, bool)
        self.as_chooser = np.zeros(B, i8)
        self.as_n = np.zeros(B, i8)
        self.as_k = np.zeros(B, i8)
        self.as_cards = np.zeros((B, 3), i8)
        self.as_targets = np.zeros((B, 3), i8)
        self.rq_on = np.zeros(B, bool)
        self.rq_head = np.zeros(B, i32)
        self.rq_tail = np.zeros(B, i32)
        self.rq_card = np.zeros((B, _Q), i8)
        self.rq_seat = np.zeros((B, _Q), i8)
        self.rq_chooser = np.zeros((B, _Q), i8)
        self.moves = np.zeros(B, i32)
        self.kind = np.zeros(B, i8)
        self.actor = np.zeros(B, i8)
        self.legal = np.zeros((B, self.A), bool)
        self.card = np.full(B, -1, i8)

    def copy(self) -> BatchState:
        """An independent copy (every array copied; the game and generator shared)."""
        new = object.__new__(BatchState)
        for name, value in self.__dict__.items():
            setattr(new, name, value.copy() if isinstance(value, np.ndarray) else value)
        new.seeds = list(self.seeds)
        return new

    def record_events(self) -> None:
        """From now on keep each game's events (the reference's vocabulary, `flip7ref.events`)
        in ``log[game]``, as the protocol adapter does; slower, so off by default."""
        self.log = [[] for _ in range(self.B)]

    def _emit(self, g: Arr, make: Callable[[int, int], Event]) -> None:
        """Record ``make(i, game)`` for the ``i``-th game of ``g`` when events are kept."""
        log = self.log
        if log is not None:
            for i, b in enumerate(g.tolist()):
                log[b].append(make(i, b))

    # ------------------------------------------------------------------ new games

    def reset(self, games: Arr | None = None, seeds: Sequence[int | str] | None = None) -> None:
        """Start new games in the slots ``games`` (indices; all when None), dealt up to the
        first decision.  Game seeds: ``seeds`` (one per game), else the next whole numbers
        after the last seed used (``seed``, ``seed + 1``...), as `flip7ref.Game.new_initial_state`
        takes them: under ``shuffle="reference"`` each game's deck is the reference's for
        that seed, dealer seat 0."""
        g = np.arange(self.B) if games is None else np.asarray(games, dtype=np.int64)
        if g.size == 0:
            return
        if seeds is None:
            seeds = list(range(self.next_seed, self.next_seed + g.size))
            self.next_seed += g.size
        elif len(seeds) != g.size:
            raise OptionError(f"seeds: expected {g.size} seeds (one per game), got {len(seeds)}")
        if self.shuffle == "reference":
            for b, sd in zip(g.tolist(), seeds, strict=True):
                cards = self.sorted_deck.tolist()
                self.seeds[b] = str(sd)
                shuffled(cards, self.seeds[b], 0)
                self.deck[b] = cards
        else:
            keys = self.rng.random((g.size, self.D))
            self.deck[g] = self.sorted_deck[np.argsort(keys, axis=1)]
            for b, sd in zip(g.tolist(), seeds, strict=True):
                self.seeds[b] = str(sd)
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
        self._start_round(g)
        self._settle(g)
        self._decisions(g)

    def _clear_table(self, g: Arr) -> None:
        self.line[g] = 0
        self.lorder[g] = -1
        self.llen[g] = 0
        self.nnum[g] = 0
        self.numsum[g] = 0
        self.modsum[g] = 0
        self.x2[g] = 0
        self.sc[g] = 0
        self.frz[g] = 0
        self.ffirst[g] = False
        self.status[g] = ACTIVE
        self.flip7[g] = -1
        self.rover[g] = False
        self.deal_on[g] = False
        self.dealoffer[g] = -1
        self.offer_ready[g] = False
        self.ct_on[g] = False
        self.fd_on[g] = False
        self.fd_n[g] = 0
        self.as_on[g] = False
        self.as_ready[g] = False
        self.rq_on[g] = False
        self.rq_head[g] = 0
        self.rq_tail[g] = 0

    def _start_round(self, g: Arr) -> None:
        """F7-112, F7-113, F7-020: turn and deal from the dealer's left; an empty deck is
        refilled from the discard pile first (not one of the round's reshuffles)."""
        self.turn[g] = (self.dealer[g] + 1) % self.P
        self._emit(g, lambda i, b: ev.round_started(int(self.rnd[b]), int(self.dealer[b])))
        empty = g[(self.dtop[g] >= self.dend[g]) & (self.discard[g].sum(1) > 0)]
        if empty.size:
            self._reshuffle(empty)
        self.rshuf[g] = 0
        self.deal_on[g] = True
        self.deal_pos[g] = 0

    # ------------------------------------------------------------------ the pile

    def _reshuffle(self, g: Arr) -> None:
        """F7-113: each game's discard pile becomes its deck (sorted, then shuffled)."""
        if self.shuffle == "numpy":
            counts = self.discard[g].astype(np.int64)
            n = counts.sum(1)
            ends = np.cumsum(counts, 1)
            pos = np.arange(self.D)
            cards = (ends[:, None, :] <= pos[None, :, None]).sum(2)  # the sorted pile, C past its end
            keys = np.where(pos[None, :] < n[:, None], self.rng.random((g.size, self.D)), 2.0)
            self.deck[g] = np.take_along_axis(cards, np.argsort(keys, 1), 1)
            self.shuffles[g] += 1
            self.rshuf[g] += 1
            self.dtop[g] = 0
            self.dend[g] = n
            self.unseen[g] = self.discard[g]
            self.discard[g] = 0
            self._emit(g, lambda i, b: ev.reshuffled(int(n[i])))
            return
        for b in g.tolist():
            cards = np.repeat(np.arange(self.C, dtype=np.int16), self.discard[b]).tolist()
            self.shuffles[b] += 1
            self.rshuf[b] += 1
            shuffled(cards, self.seeds[b], int(self.shuffles[b]))
            n = len(cards)
            self.deck[b, :n] = cards
            self.dtop[b] = 0
            self.dend[b] = n
            self.unseen[b] = self.discard[b]
            self.discard[b] = 0
            self._emit(np.array([b]), lambda i, b: ev.reshuffled(int(self.dend[b])))

    def _draw(self, g: Arr) -> Arr:
        """The top card of each game's pile (taken off it), reshuffling an empty deck when
        allowed (F7-113, F7-116); -1 where no card is left (F7-115)."""
        empty = self.dtop[g] >= self.dend[g]
        if empty.any():
            e = g[empty]
            can = e[(self.discard[e].sum(1) > 0) & (self.rshuf[e] < self.reshuffles)]
            if can.size:
                self._reshuffle(can)
            empty = self.dtop[g] >= self.dend[g]
            if self.log is not None:
                self._emit(g[empty], lambda i, b: ev.deck_exhausted())
        top = np.minimum(self.dtop[g], self.D - 1)
        code = np.where(empty, -1, self.deck[g, top]).astype(np.int64)
        ok = ~empty
        if ok.all():
            self.dtop[g] += 1
            self.unseen[g, code] -= 1
        else:
            self.dtop[g[ok]] += 1
            self.unseen[g[ok], code[ok]] -= 1
        return code

    # ------------------------------------------------------------------ cards arriving

    def _add(self, g: Arr, s: Arr, code: Arr) -> None:
        self.line[g, s, code] += 1
        self.lorder[g, s, self.llen[g, s]] = code
        self.llen[g, s] += 1

    def _receive(self, g: Arr, s: Arr, code: Arr) -> None:
        """Cards ``code`` arrive for seats ``s`` of games ``g`` (F7-035)."""
        num = self.is_num[code]
        if num.all():
            self._numbers(g, s, code)
            return
        if num.any():
            self._numbers(g[num], s[num], code[num])
        mod = self.is_mod[code]
        if mod.any():
            gm, sm, cm = g[mod], s[mod], code[mod]
            self._add(gm, sm, cm)
            self.modsum[gm, sm] += self.addv[cm]
            self.x2[gm, sm] |= self.isx2[cm]
        act = ~(num | mod)
        if act.any():
            ga, sa, ca = g[act], s[act], code[act]
            shield = ca == self.SC
            if shield.any():
                self._second_chance(ga[shield], sa[shield])
            play = ~shield
            if play.any():
                self._offer_target(ga[play], sa[play], ca[play])

    def _numbers(self, g: Arr, s: Arr, code: Arr) -> None:
        """F7-040 (a duplicate busts), F7-080 (a held Second Chance cancels it), F7-050."""
        dup = self.line[g, s, code] > 0
        if dup.any():
            save = dup & (self.sc[g, s] > 0)
            if save.any():
                gs, ss = g[save], s[save]
                self.sc[gs, ss] -= 1
                self.discard[gs, code[save]] += 1
                self.discard[gs, self.SC] += 1
                cs = code[save]
                self._emit(gs, lambda i, b: ev.second_chance_used(int(ss[i]), self.ids[cs[i]], "second_chance"))
            bust = dup & ~save
            if bust.any():
                gb, sb = g[bust], s[bust]
                cb = code[bust]
                self._add(gb, sb, cb)
                self.status[gb, sb] = BUSTED
                self._emit(gb, lambda i, b: ev.busted(int(sb[i]), self.ids[cb[i]]))
            new = ~dup
            g, s, code = g[new], s[new], code[new]
        self._add(g, s, code)
        self.nnum[g, s] += 1
        self.numsum[g, s] += self.rank[code]
        made = (self.nnum[g, s] >= 7) & (self.flip7[g] < 0)
        if made.any():
            self.flip7[g[made]] = s[made]
            sm = s[made]
            self._emit(g[made], lambda i, b: ev.flip7(int(sm[i])))

    def _offer_target(self, g: Arr, s: Arr, code: Arr) -> None:
        """F7-061, F7-072: the receiver picks an active player for a Freeze or Flip Three."""
        allowed = self.status[g] == ACTIVE
        some = allowed.any(1)
        if not some.all():  # no one to play it on: discarded
            self.discard[g[~some], code[~some]] += 1
            sn, cn = s[~some], code[~some]
            self._emit(g[~some], lambda i, b: ev.discarded(self.ids[cn[i]], int(sn[i]), "no valid target"))
            g, s, code, allowed = g[some], s[some], code[some], allowed[some]
        self.ct_on[g] = True
        self.ct_card[g] = code
        self.ct_chooser[g] = s
        self.ct_purpose[g] = PLAY
        self.ct_allowed[g] = allowed

    def _second_chance(self, g: Arr, s: Arr) -> None:
        """F7-082: kept when the receiver holds none (and has not busted); a spare goes to an
        active player without one (the receiver picks), else to the discard pile."""
        keep = (self.sc[g, s] < 1) & (self.status[g, s] != BUSTED)
        self.sc[g[keep], s[keep]] += 1
        sk = s[keep]
        self._emit(g[keep], lambda i, b: ev.second_chance_kept(int(sk[i]), "second_chance"))
        g, s = g[~keep], s[~keep]
        if g.size == 0:
            return
        recv = (self.status[g] == ACTIVE) & (self.sc[g] == 0)
        recv[np.arange(g.size), s] = False
        some = recv.any(1)
        self.discard[g[~some], self.SC] += 1
        sn = s[~some]
        self._emit(g[~some], lambda i, b: ev.discarded("second_chance", int(sn[i]), "no eligible player"))
        g, s, recv = g[some], s[some], recv[some]
        self.ct_on[g] = True
        self.ct_card[g] = self.SC
        self.ct_chooser[g] = s
        self.ct_purpose[g] = GIVE
        self.ct_allowed[g] = recv

    def _play(self, g: Arr, chooser: Arr, seat: Arr, code: Arr) -> None:
        """Freeze (F7-060, F7-062: kept in front) or Flip Three (F7-070) takes effect on ``seat``."""
        fr = code == self.FREEZE
        if fr.any():
            gf, sf = g[fr], seat[fr]
            self.ffirst[gf, sf] = self.sc[gf, sf] == 0
            self.status[gf, sf] = FROZEN
            self.frz[gf, sf] += 1
            cf = chooser[fr]
            self._emit(gf, lambda i, b: ev.frozen(int(sf[i]), int(cf[i])))
        f3 = ~fr
        if f3.any():
            g3 = g[f3]
            self.fd_on[g3] = True
            self.fd_target[g3] = seat[f3]
            self.fd_giver[g3] = chooser[f3]
            self.fd_card[g3] = code[f3]
            self.fd_rem[g3] = 3
            self.fd_n[g3] = 0
            s3, c3 = seat[f3], chooser[f3]
            self._emit(g3, lambda i, b: ev.forced_draw_started(int(s3[i]), "flip_three", int(c3[i]), 3))

    # ------------------------------------------------------------------ settling

    def _top(self, g: Arr) -> Arr:
        t = np.full(g.size, _TURN, np.int8)
        t[self.deal_on[g]] = _DEAL
        t[self.dealoffer[g] >= 0] = _STOP
        t[self.rq_on[g]] = _RQ
        t[self.fd_on[g]] = _FD
        t[self.as_on[g]] = _AS
        t[self.as_ready[g]] = _STOP
        t[self.ct_on[g]] = _STOP
        t[self.offer_ready[g]] = _STOP
        t[(self.flip7[g] >= 0) | self.rover[g]] = _ROUND_END
        t[self.done[g]] = _STOP
        return t

    def _settle(self, g: Arr) -> None:
        """Run automatic steps (`flip7ref.engine.settle`) until every game in ``g`` is at a
        decision or over."""
        while g.size:
            top = self._top(g)
            keep = top != _STOP
            if not keep.any():
                return
            g, top = g[keep], top[keep]
            if (top == _TURN).all():  # the commonest case: the turn passes on
                g = self._turn_step(g)
                continue
            nxt = []
            for kind, handler in (
                (_TURN, self._turn_step), (_ROUND_END, self._round_end), (_FD, self._fd_step),
                (_DEAL, self._deal_step), (_AS, self._assign_step), (_RQ, self._rq_step),
            ):  # fmt: skip
                sub = g[top == kind]
                if sub.size:
                    more = handler(sub)
                    nxt.append(sub if more is None else more)
            g = np.concatenate(nxt) if len(nxt) > 1 else nxt[0]

    def _turn_step(self, g: Arr) -> Arr:
        """F7-030: the next active seat from the turn on is offered Hit or Stay; nobody
        active ends the round (F7-110)."""
        P = self.P
        seats = (self.turn[g, None] + np.arange(P)) % P
        act = self.status[g[:, None], seats] == ACTIVE
        has = act.any(1)
        first = act.argmax(1)
        gh = g[has]
        self.turn[gh] = seats[has, first[has]]
        self.offer_ready[gh] = True
        out = g[~has]
        self.rover[out] = True
        return out  # only the games whose round ends settle on

    def _deal_step(self, g: Arr) -> None:
        """F7-020, F7-025: the deal goes on to the next active seat: dealt a card, or asked
        Hit or Stay at its slot when it already holds cards; past the last seat it is over."""
        P = self.P
        fast = (self.deal_pos[g] == 0) & (self.dtop[g] + P <= self.dend[g])
        if fast.any():  # the deal's first cards up to the first action card, at once
            gf = g[fast]
            codes = self.deck[gf[:, None], self.dtop[gf, None] + np.arange(P)].astype(np.int64)
            plain = self.is_num[codes] | self.is_mod[codes]
            k = np.where(plain.all(1), P, np.argmin(plain, 1))
            some = k > 0
            if some.any():
                self._deal_all(gf[some], codes[some], k[some])
                g = np.concatenate([g[~fast], gf[~some]])
                if g.size == 0:
                    return
        pp = self.deal_pos[g, None] + np.arange(P)
        seats = (self.dealer[g, None] + 1 + pp) % P
        act = (pp < P) & (self.status[g[:, None], seats] == ACTIVE)
        has = act.any(1)
        self.deal_on[g[~has]] = False
        if not has.any():
            return
        j = act.argmax(1)[has]
        g = g[has]
        seat = seats[has, j]
        self.deal_pos[g] = pp[has, j] + 1
        early = self.llen[g, seat] > 0
        if early.any():
            self.dealoffer[g[early]] = seat[early]
            g, seat = g[~early], seat[~early]
        code = self._draw(g)
        ok = code >= 0
        if self.log is not None:
            self._emit(g[ok], lambda i, b: ev.dealt(int(seat[ok][i]), self.ids[code[ok][i]], "deal"))
        if ok.all():
            self._receive(g, seat, code)
        elif ok.any():
            self._receive(g[ok], seat[ok], code[ok])

    def _deal_all(self, g: Arr, codes: Arr, k: Arr) -> None:
        """The first ``k`` cards of the deal at once, where they are numbers and modifiers
        (F7-020): seat ``dealer + 1 + j`` gets card ``j`` (all seats are active with empty
        lines when the deal starts); no duplicate, Flip 7 or decision can arise."""
        P = self.P
        cols = np.arange(P)
        m = cols < k[:, None]
        seats = (self.dealer[g, None] + 1 + cols) % P
        gg = np.broadcast_to(g[:, None], m.shape)[m]
        ss = seats[m]
        cc = codes[m]
        self.line[gg, ss, cc] += 1
        self.lorder[gg, ss, 0] = cc
        self.llen[gg, ss] = 1
        self.nnum[gg, ss] += self.is_num[cc]
        self.numsum[gg, ss] += self.rank[cc]
        self.modsum[gg, ss] += self.addv[cc]
        self.x2[gg, ss] |= self.isx2[cc]
        onehot = (codes[:, :, None] == np.arange(self.C)) & m[:, :, None]
        self.unseen[g] -= onehot.sum(1, dtype=np.int16)
        self.dtop[g] += k.astype(np.int32)
        self.deal_pos[g] = k
        self.deal_on[g] = k < P
        if self.log is not None:
            for i, b in enumerate(g.tolist()):
                for j in range(int(k[i])):
                    self.log[b].append(ev.dealt(int(seats[i, j]), self.ids[codes[i, j]], "deal"))

    def _fd_step(self, g: Arr) -> None:
        """One step of a Flip Three (`flip7ref.primitives.forced_draw.ForcedDraw.settle`)."""
        t = self.fd_target[g].astype(np.int64)
        busted = self.status[g, t] == BUSTED
        complete = ~busted & (self.fd_rem[g] <= 0)
        if busted.any():
            self._fd_finish(g[busted], True, "bust")
        if complete.any():
            self._fd_finish(g[complete], False, "complete")
        draw = ~(busted | complete)
        g, t = g[draw], t[draw]
        if g.size == 0:
            return
        code = self._draw(g)
        ex = code < 0
        if ex.any():
            self._fd_finish(g[ex], False, "exhausted")  # F7-115: the forced draw ends
            g, t, code = g[~ex], t[~ex], code[~ex]
        self.fd_rem[g] -= 1
        self._emit(g, lambda i, b: ev.dealt(int(t[i]), self.ids[code[i]], "flip_three"))
        aside = (code == self.FREEZE) | (code == self.F3)  # F7-073
        if aside.any():
            ga = g[aside]
            self.fd_aside[ga, self.fd_n[ga]] = code[aside]
            self.fd_n[ga] += 1
            ta, ca = t[aside], code[aside]
            self._emit(ga, lambda i, b: ev.set_aside(int(ta[i]), self.ids[ca[i]]))
        rest = ~aside
        if rest.any():
            self._receive(g[rest], t[rest], code[rest])

    def _fd_finish(self, g: Arr, bust: bool, outcome: str) -> None:
        """F7-078: the Flip Three is discarded; its set-aside cards are discarded on a bust
        (F7-073, D-F7-10 ``discard``), else assigned by its target (D-F7-12 ``target``)."""
        self.fd_on[g] = False
        self.discard[g, self.fd_card[g]] += 1
        self._emit(g, lambda i, b: ev.forced_draw_ended(int(self.fd_target[b]), "flip_three", outcome))
        n = self.fd_n[g]
        if not (n > 0).any():
            return
        for j in range(3):
            m = n > j
            if not m.any():
                break
            gj = g[m]
            if bust:
                self.discard[gj, self.fd_aside[gj, j]] += 1
                self._emit(gj, lambda i, b: ev.discarded(self.ids[self.fd_aside[b, j]], int(self.fd_target[b]), "target busted"))
        if bust:
            self.fd_n[g] = 0
            return
        g = g[n > 0]
        self.as_on[g] = True
        self.as_ready[g] = False
        self.as_chooser[g] = self.fd_target[g]
        self.as_cards[g] = self.fd_aside[g]
        self.as_n[g] = self.fd_n[g]
        self.as_k[g] = 0
        self.as_targets[g] = -1
        self.fd_n[g] = 0

    def _assign_step(self, g: Arr) -> None:
        """`flip7ref.primitives.forced_draw.Assign.settle`: all assigned, the cards join the
        queue (F7-074, D-F7-13 ``queue``); a card with no active seat to go to is marked
        discarded; else the assigner decides."""
        full = self.as_k[g] >= self.as_n[g]
        if full.any():
            gf = g[full]
            if not self.rq_on[gf].all():
                new = gf[~self.rq_on[gf]]
                self.rq_on[new] = True
                self.rq_head[new] = 0
                self.rq_tail[new] = 0
            for j in range(3):
                m = self.as_n[gf] > j
                if not m.any():
                    break
                gj = gf[m]
                tail = self.rq_tail[gj]
                self.rq_card[gj, tail] = self.as_cards[gj, j]
                self.rq_seat[gj, tail] = self.as_targets[gj, j]
                self.rq_chooser[gj, tail] = self.as_chooser[gj]
                self.rq_tail[gj] += 1
            self.as_on[gf] = False
        g = g[~full]
        if g.size == 0:
            return
        some = (self.status[g] == ACTIVE).any(1)
        none = g[~some]
        self.as_targets[none, self.as_k[none]] = -1
        self.as_k[none] += 1
        self.as_ready[g[some]] = True

    def _rq_step(self, g: Arr) -> None:
        """`flip7ref.primitives.forced_draw.Resolve.settle`: the next assigned card acts on its
        seat if still active (F7-074, F7-075), else is discarded."""
        empty = self.rq_head[g] >= self.rq_tail[g]
        self.rq_on[g[empty]] = False
        g = g[~empty]
        if g.size == 0:
            return
        h = self.rq_head[g]
        card = self.rq_card[g, h].astype(np.int64)
        seat = self.rq_seat[g, h].astype(np.int64)
        chooser = self.rq_chooser[g, h].astype(np.int64)
        self.rq_head[g] += 1
        ok = (seat >= 0) & (self.status[g, np.maximum(seat, 0)] == ACTIVE)
        if (~ok).any():
            self.discard[g[~ok], card[~ok]] += 1
            cn, sn = card[~ok], seat[~ok]
            self._emit(
                g[~ok], lambda i, b: ev.discarded(self.ids[cn[i]], int(sn[i]) if sn[i] >= 0 else None, "target no longer eligible")
            )
        if ok.any():
            self._play(g[ok], chooser[ok], seat[ok], card[ok])

    def _round_end(self, g: Arr) -> None:
        """F7-100..F7-102, F7-050: score the round; F7-111: the table to the discard pile;
        F7-120, F7-121: the game ends, or the next round starts (F7-112)."""
        P = self.P
        live = self.status[g] != BUSTED
        score = np.where(live, self.numsum[g] * (1 + self.x2[g]) + self.modsum[g], 0).astype(np.int32)
        f = self.flip7[g]
        made = f >= 0
        if made.any():
            score[np.flatnonzero(made), f[made]] += self.game.flip7_bonus
        self.totals[g] += score
        self.last_scores[g] = score
        self.scored[g] = True
        if self.log is not None:
            self._round_end_events(g)
        disc = self.discard
        disc[g] += self.line[g].sum(1, dtype=np.int16)
        disc[g, self.SC] += self.sc[g].sum(1, dtype=np.int16)
        disc[g, self.FREEZE] += self.frz[g].sum(1, dtype=np.int16)
        for on, cards in ((self.ct_on, self.ct_card), (self.fd_on, self.fd_card)):
            m = g[on[g]]
            if m.size:
                disc[m, cards[m]] += 1
        fd = g[self.fd_on[g]]
        for j in range(3):
            m = fd[self.fd_n[fd] > j]
            if m.size:
                disc[m, self.fd_aside[m, j]] += 1
        ag = g[self.as_on[g]]
        for j in range(3):
            m = ag[self.as_n[ag] > j]
            if m.size:
                disc[m, self.as_cards[m, j]] += 1
        rg = g[self.rq_on[g]]
        for j in range(_Q):
            m = rg[self.rq_head[rg] + j < self.rq_tail[rg]]
            if not m.size:
                break
            disc[m, self.rq_card[m, self.rq_head[m] + j]] += 1
        self._clear_table(g)
        tot = self.totals[g]
        best = tot.max(1)
        lead = tot == best[:, None]
        over = (best >= self.target) & (lead.sum(1) == 1)
        self.done[g[over]] = True
        self.winners[g[over]] = lead[over]
        if self.log is not None:
            for i, b in enumerate(g.tolist()):
                leaders = tuple(np.flatnonzero(lead[i]).tolist())
                if over[i]:
                    self.log[b].append(ev.game_won(leaders, tuple(tot[i].tolist()), int(self.rnd[b])))
                elif best[i] >= self.target:
                    self.log[b].append(ev.tie_another_round(leaders))
        g = g[~over]
        if g.size:
            self.dealer[g] = (self.dealer[g] + 1) % P
            self.rnd[g] += 1
            self._start_round(g)

    def _round_end_events(self, g: Arr) -> None:
        """The events of a round end before the table is cleared: ``round_scored``, then the
        pending work ending with the round, top first (`flip7ref.frames.Frame.end_with_round`)."""
        assert self.log is not None
        ids = self.ids
        for b in g.tolist():
            log = self.log[b]
            f = int(self.flip7[b])
            log.append(ev.round_scored(int(self.rnd[b]), tuple(self.last_scores[b].tolist()), tuple(self.totals[b].tolist()), f if f >= 0 else None))
            held: list[int] = []
            if self.ct_on[b]:
                held.append(int(self.ct_card[b]))
            if self.as_on[b]:
                held.extend(self.as_cards[b, : self.as_n[b]].tolist())
            for c in held:
                log.append(ev.discarded(ids[c], None, "round ended"))
            if self.fd_on[b]:
                log.append(ev.forced_draw_ended(int(self.fd_target[b]), ids[self.fd_card[b]], "round ended"))
                for c in self.fd_aside[b, : self.fd_n[b]].tolist():
                    if c != self.fd_card[b]:  # as the reference: a set-aside copy of the draw's own card goes unannounced
                        log.append(ev.discarded(ids[c], None, "round ended"))
            if self.rq_on[b]:
                for c in self.rq_card[b, self.rq_head[b] : self.rq_tail[b]].tolist():
                    log.append(ev.discarded(ids[c], None, "round ended"))

    # ------------------------------------------------------------------ decisions

    def _decisions(self, g: Arr) -> None:
        """Fill `kind`, `actor`, `legal` and `card` for the games ``g`` (all at a decision or over)."""
        P = self.P
        kind = np.full(g.size, OFFER, np.int8)
        actor = np.where(self.dealoffer[g] >= 0, self.dealoffer[g], self.turn[g]).astype(np.int8)
        card = np.full(g.size, -1, np.int8)
        legal = np.zeros((g.size, self.A), bool)
        a = self.as_ready[g]
        if a.any():
            ga = g[a]
            kind[a] = ASSIGN
            actor[a] = self.as_chooser[ga]
            card[a] = self.as_cards[ga, self.as_k[ga]]
            legal[a, 2:] = self.status[ga] == ACTIVE
        c = self.ct_on[g]
        if c.any():
            gc = g[c]
            kind[c] = self.ct_purpose[gc]
            actor[c] = self.ct_chooser[gc]
            card[c] = self.ct_card[gc]
            legal[c, 2:] = self.ct_allowed[gc]
        o = kind == OFFER
        go, so = g[o], actor[o].astype(np.int64)
        legal[o, HIT] = True
        legal[o, STAY] = (self.llen[go, so] > 0) | (self.sc[go, so] > 0) | (self.frz[go, so] > 0)  # F7-033 any-card
        d = self.done[g]
        if d.any():
            kind[d] = TERMINAL
            actor[d] = -1
            card[d] = -1
            legal[d] = False
        self.kind[g] = kind
        self.actor[g] = actor
        self.card[g] = card
        self.legal[g] = legal
        del P

    def step(self, actions: Arr, games: Arr | None = None) -> Arr:
        """Take action index ``actions[i]`` in game ``games[i]`` (all games when None; then
        ``actions`` has one entry per game), for the seat at its decision, and settle up
        to the next decision.  A game that is over, or an index not legal now
        (``legal``), is left as it was.

        Returns:
            A bool array (one per game of ``games``): True where the action was taken.
        """
        g = np.arange(self.B) if games is None else np.asarray(games, dtype=np.int64)
        a = np.asarray(actions, dtype=np.int64)
        if a.shape != g.shape:
            raise OptionError(f"actions: expected {g.size} action indices, got shape {a.shape}")
        inr = (a >= 0) & (a < self.A)
        ok = inr & self.legal[g, np.where(inr, a, 0)]
        if not ok.all():
            g, a = g[ok], a[ok]
        if g.size == 0:
            return ok
        self.moves[g] += 1
        kind = self.kind[g]
        actor = self.actor[g].astype(np.int64)
        o = kind == OFFER
        if o.any():
            go, so, ao = g[o], actor[o], a[o]
            deal = self.dealoffer[go] >= 0
            self.dealoffer[go[deal]] = -1
            turn = go[~deal]
            self.turn[turn] = (so[~deal] + 1) % self.P
            self.offer_ready[turn] = False
            st = ao == STAY
            self.status[go[st], so[st]] = STAYED
            ss = so[st]
            self._emit(go[st], lambda i, b: ev.stayed(int(ss[i])))
            h = ~st
            gh, sh = go[h], so[h]
            code = self._draw(gh)
            ex = code < 0
            if ex.any():  # F7-115: a Hit with no card anywhere becomes a Stay
                self.status[gh[ex], sh[ex]] = STAYED
                se = sh[ex]
                self._emit(gh[ex], lambda i, b: ev.stayed(int(se[i]), "empty deck"))
                gh, sh, code = gh[~ex], sh[~ex], code[~ex]
            self._emit(gh, lambda i, b: ev.dealt(int(sh[i]), self.ids[code[i]], "hit"))
            if gh.size:
                self._receive(gh, sh, code)
        c = (kind == PLAY) | (kind == GIVE)
        if c.any():
            gc, tc = g[c], a[c] - 2
            self.ct_on[gc] = False
            self._emit(gc, lambda i, b: ev.target_chosen(int(self.ct_chooser[b]), self.ids[self.ct_card[b]], int(tc[i])))
            give = kind[c] == GIVE
            if give.any():
                self.sc[gc[give], tc[give]] += 1
                tg = tc[give]
                self._emit(gc[give], lambda i, b: ev.second_chance_given(int(self.ct_chooser[b]), int(tg[i]), "second_chance"))
            p = ~give
            if p.any():
                self._play(gc[p], actor[c][p], tc[p], self.ct_card[gc[p]].astype(np.int64))
        s = kind == ASSIGN
        if s.any():
            gs = g[s]
            ts = a[s] - 2
            self._emit(gs, lambda i, b: ev.assigned(int(self.as_chooser[b]), self.ids[self.as_cards[b, self.as_k[b]]], int(ts[i])))
            self.as_targets[gs, self.as_k[gs]] = ts
            self.as_k[gs] += 1
            self.as_ready[gs] = False
        self._settle(g)
        self._decisions(g)
        return ok

    # ------------------------------------------------------------------ reading

    def line_values(self) -> Arr:
        """(B, P) what each line would score now (points; 0 when busted), F7-100."""
        v = self.numsum * (1 + self.x2) + self.modsum
        return np.where(self.status == BUSTED, 0, v).astype(np.int32)

    def held(self) -> Arr:
        """(B, C) the cards held by pending work (a target choice, a Flip Three and its
        set-aside cards, the assignment and the queue): the ``set_aside`` section."""
        out = np.zeros((self.B, self.C), np.int16)
        g = np.flatnonzero(self.ct_on | self.fd_on | self.as_on | self.rq_on)
        if g.size == 0:
            return out
        for on, cards in ((self.ct_on, self.ct_card), (self.fd_on, self.fd_card)):
            m = g[on[g]]
            out[m, cards[m]] += 1
        for on, n, cards in ((self.fd_on, self.fd_n, self.fd_aside), (self.as_on, self.as_n, self.as_cards)):
            for j in range(3):
                m = g[on[g] & (n[g] > j)]
                out[m, cards[m, j]] += 1
        for j in range(_Q):
            m = g[self.rq_on[g] & (self.rq_head[g] + j < self.rq_tail[g])]
            if not m.size:
                break
            out[m, self.rq_card[m, self.rq_head[m] + j]] += 1
        return out

    def observation_size(self) -> int:
        """The length of an observation (`flip7ref.rl.encoding.ObservationEncoder.size`)."""
        P, C = self.P, self.C
        return 3 * C + 2 * P * C + 4 * P + 2 * P + N_DECISION_KINDS + C + 4 * P + 1

    def observe(self, observer: Arr | int) -> Arr:
        """(B, size) float32 observations for seat ``observer`` (one per game, or one seat
        for all), laid out as `flip7ref.rl.encoding.ObservationEncoder` documents."""
        B, P, C = self.B, self.P, self.C
        out = np.zeros((B, self.observation_size()), np.float32)
        r = np.arange(B)
        i = 0

        def put(block: Arr, width: int) -> None:
            nonlocal i
            out[:, i : i + width] = block.reshape(B, width)
            i += width

        put(self.unseen, C)
        put(self.discard, C)
        put(self.held(), C)
        put(self.line, P * C)
        kept = np.zeros((B, P, C), np.float32)
        kept[:, :, self.SC] = self.sc
        kept[:, :, self.FREEZE] = self.frz
        put(kept, P * C)
        status = np.zeros((B, P, 4), np.float32)
        np.put_along_axis(status, self.status[:, :, None].astype(np.int64), 1.0, axis=2)
        put(status, P * 4)
        put(np.clip(self.totals, -1_000_000, 1_000_000), P)
        put(self.line_values(), P)
        out[r, i + self.kind.astype(np.int64)] = 1.0
        i += N_DECISION_KINDS
        has = self.card >= 0
        out[r[has], i + self.card[has].astype(np.int64)] = 1.0
        i += C
        act = self.actor >= 0
        out[r[act], i + self.actor[act].astype(np.int64)] = 1.0
        i += P
        out[r, i + np.broadcast_to(np.asarray(observer, dtype=np.int64), (B,))] = 1.0
        i += P
        out[r, i + self.dealer] = 1.0
        i += P
        out[r, i + self.turn] = 1.0
        i += P
        out[:, i] = np.minimum(self.rnd, 1_000_000)
        return out


def init(seed: int, batch: int, game: Game | None = None, *, players: int = 4, shuffle: str = "reference") -> BatchState:
    """pgx-style: ``batch`` new games of base Flip 7 (``game``, else ``Game("flip7", players)``),
    each at its first decision; game ``i`` is seeded ``seed + i`` (see `BatchState`).

    Raises:
        OptionError: a game the batched engine does not play (`check_game`), a bad batch size.
    """
    return BatchState(game if game is not None else Game("flip7", players), batch, seed, shuffle)


def step(state: BatchState, actions: Arr) -> BatchState:
    """pgx-style: a new state, ``state`` after ``actions`` (one index per game; see
    `BatchState.step`); ``state`` itself is not changed."""
    new = state.copy()
    new.step(actions)
    return new
