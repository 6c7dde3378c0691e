"""The batched engine's rules: ``B`` games of base Flip 7 as NumPy arrays, stepped together.

A second implementation of the reference's general path (`flip7ref.core.engine`, the frames of
`flip7ref.core.primitives`), written as array operations over the games that need each step.
Its pending work is the reference's frame stack in fixed slots, bottom first: the deal
under way (`Deal`, F7-020), the queue of assigned set-aside cards (`Resolve`, F7-074), a
Flip Three in progress (`ForcedDraw`, F7-070), the assignment of set-aside cards (`Assign`,
F7-073) and a target choice (`ChooseTarget`: Freeze, Flip Three, a spare Second Chance).
Under the default readings no other stack can arise (a nested Flip Three's assignments join
the one queue, D-F7-13 ``queue``), so a slot on is the top of everything below it.

Chance is not a decision here: a card needed is the top of each game's ordered pile.  A
reshuffle (F7-113, once a round, F7-116) orders the discard pile as the reference does for
a seeded game when ``shuffle="reference"`` (`flip7ref.core.pile.shuffled`; same seed, same
deal), else with NumPy's generator.

Action indices and the observation vector are those of `flip7ref.rl.encoding` for the
game (hit 0, stay 1, target ``s`` at ``2 + s``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from flip7ref.batch import tables
from flip7ref.batch.evlog import FIELDS, EventLog
from flip7ref.core import events as ev
from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.core.model import MODIFIER, NUMBER, Event
from flip7ref.core.observation_layout import DECISION_KINDS
from flip7ref.core.pile import shuffled

Arr = np.ndarray[Any, Any]


ACTIVE, STAYED, FROZEN, BUSTED = 0, 1, 2, 3
"""Player statuses, in the order of the observation's ``status`` section."""

OFFER, PLAY, GIVE, ASSIGN, TERMINAL = (DECISION_KINDS.index(k) for k in ("offer", "play", "give", "assign", "terminal"))
"""Decision kinds as indices of `flip7ref.core.observation_layout.DECISION_KINDS`."""

N_DECISION_KINDS = len(DECISION_KINDS)
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


_SLOT_TOP = ("stop", "round_end", "assign", "forced_draw", "resolve", "deal", "turn")
_STOP, _ROUND_END, _AS, _FD, _RQ, _DEAL, _TURN = range(7)


_any = np.count_nonzero
"""``_any(mask)``: truthy when any element is set; a C call, several times cheaper than
``mask.any()`` on the small masks of each step."""


def _all(mask: Arr) -> bool:
    """Every element of ``mask`` is set (``mask.all()``, cheaper on small masks)."""
    return int(np.count_nonzero(mask)) == mask.size


def set_rows(a: Arr, g: Arr, value: Arr | int | bool) -> None:
    """``a[g] = value`` for the rows ``g`` of the C-contiguous array ``a`` (first axis the game),
    through a view of each row as one opaque item: NumPy's row-wise fancy assignment is
    several times slower for short rows once there are hundreds of them (fewer rows take the
    plain assignment).  ``value``: a scalar or one row per index of ``g``."""
    if len(g) < 256:  # few rows: the plain assignment costs less than building the view
        a[g] = value
        return
    n = a.shape[0]
    row = np.dtype((np.void, a.itemsize * (a.size // n if n else 1)))
    rows = a.reshape(n, -1).view(row).reshape(n)
    v = np.asarray(value, dtype=a.dtype)
    if v.ndim == 0:
        rows[g] = np.full(a.shape[1:], v, a.dtype).reshape(1, -1).view(row)[0, 0]
    else:
        rows[g] = np.ascontiguousarray(v).reshape(len(g), -1).view(row).reshape(len(g))


def check_game(game: Game) -> None:
    """Raise `OptionError` unless the batched engine plays ``game``: a table whose cards and
    round are base Flip 7's in structure (numbers without traits, ``add`` and ``multiply``
    modifiers with at most one multiplying card in the deck, one card each of the primitives
    ``freeze``, ``forced_draw`` and ``bust_shield`` with the parameters of `BASE_EFFECTS`,
    the round of `flip7ref.batch.tables.BASE_ROUND`), one deck (at most the table's
    ``players_per_deck`` players), options at `SUPPORTED_OPTIONS` (integers as documented
    there).  The table's facts themselves (ranks, counts, amounts, the Flip 7 line length and
    bonus, the target, the forced draw's count and set-aside cards, the hold limit) are read
    by `Rules._tables`."""
    tables.plain_cards(game, "flip7", NUMBER)
    tables.plain_cards(game, "flip7", MODIFIER)
    tables.modifier_ops(game, "flip7", ("add", "multiply"))
    per = game.edition.thresholds["players_per_deck"]
    if not 1 <= game.players <= per:
        raise OptionError(f"players: the batched engine plays 1..{per} players (one deck), got {game.players}")
    if len(game.card_ids) > 127:  # card codes are int8
        raise tables.refuse(game, "flip7", f"the table has {len(game.card_ids)} card kinds", "at most 127")
    for name, value in game.options.items():
        if name in SUPPORTED_OPTIONS and value not in SUPPORTED_OPTIONS[name]:
            raise OptionError(f"options.{name}: the batched engine plays {SUPPORTED_OPTIONS[name][0]!r} only, got {value!r}")
    if game.options.get("reshuffles") == "unlimited":
        raise OptionError("options.reshuffles: the batched engine plays a whole number 0..8, not 'unlimited'")
    if game.options.get("decks") not in ("auto", 1, None):
        raise OptionError(f"options.decks: the batched engine plays one deck, got {game.options.get('decks')!r}")
    mult = [c for c, m in enumerate(game.modifier) if m is not None and m[0] == "multiply"]
    if tables.deck_copies(game, mult) > 1:  # a line holds one: its factor is a flag (F7-091)
        raise tables.refuse(game, "flip7", f"the deck holds {tables.deck_copies(game, mult)} multiplying cards",
                            "at most one (F7-091)")  # fmt: skip
    tables.check_effects(game, "flip7", BASE_EFFECTS)
    for name in BASE_EFFECTS:
        tables.one_card(game, "flip7", f"primitive {name}", _with(game, name), "F7-007")
    tables.check_round(game, tables.BASE_ROUND, "flip7")
    f3 = game.effect[_with(game, "forced_draw")[0]]
    allowed = {_with(game, "freeze")[0], _with(game, "forced_draw")[0]}
    aside = set(getattr(f3, "set_aside", ()))
    if aside != allowed:  # one forced draw at a time, its queue plays a Freeze or a Flip Three (F7-073, F7-074)
        ids = sorted(game.card_ids[c] for c in aside)
        raise tables.refuse(game, "flip7", f"the forced draw sets aside {ids}", "its own card and the Freeze set aside (F7-073)")


BASE_EFFECTS: dict[str, dict[str, object]] = {
    "freeze": {"targets": "active", "self_target": "allowed", "keep_card": True},  # F7-060..F7-062
    "forced_draw": {
        "targets": "active",
        "self_target": "allowed",
        "on_bust": "discard",
        "assigner": "target",
        "then_stay": False,
        "resolution": "assign-all-first",
    },  # F7-070..F7-079
    "bust_shield": {"targets": "active", "self_target": "allowed", "first_copy": "keep"},  # F7-080..F7-084
}
"""The primitives of base Flip 7's action cards the batched engine plays, with the parameter
values its code implements (`flip7ref.batch.tables.check_effects`); the forced draw's ``count``
and ``set_aside`` and the shield's ``hold_limit`` are read from the table."""


def _with(game: Game, primitive: str) -> list[int]:
    """The codes of the card kinds whose effect uses ``primitive``."""
    return [c for c, e in enumerate(game.effect) if e is not None and getattr(e, "primitive", None) == primitive]


def choose_backend(backend: str) -> str:
    """The backend `flip7ref.batch.core.BatchState` runs for ``backend``: ``numba`` or
    ``numpy`` as asked, ``auto`` the first of them that is importable.

    Raises:
        OptionError: another name, or ``numba`` when numba is not installed.
    """
    if backend not in ("auto", "numba", "numpy"):
        raise OptionError(f"backend: expected 'auto', 'numba' or 'numpy', got {backend!r}")
    if backend == "numpy":
        return backend
    try:
        import numba  # type: ignore[import-not-found, unused-ignore]  # noqa: F401
    except ImportError:
        if backend == "numba":
            raise OptionError("backend: 'numba' needs the numba package (pip install numba)") from None
        return "numpy"
    return "numba"


class Rules:
    """The rules of `flip7ref.batch.core.BatchState`: its arrays (`_alloc`) and every automatic
    step (the pile, a card arriving, settling, the round end), each over the games given."""

    def _tables(self, game: Game, batch: int, seed: int, shuffle: str) -> None:
        """The card tables of ``game`` as arrays, and the sizes."""
        self.game = game
        self.B, self.P = batch, game.players
        self.C = len(game.card_ids)
        self.A = 2 + self.P
        self.shuffle = shuffle
        self.rng = np.random.default_rng(seed)
        self.next_seed = int(seed)
        self.ids = game.card_ids
        self.log: list[list[Event]] | EventLog | None = None  # the events of each game, when recorded (`record_events`)
        # the action cards by their primitive, not their names (check_game: one of each)
        self.FREEZE, self.F3, self.SC = (_with(game, p)[0] for p in ("freeze", "forced_draw", "bust_shield"))
        f3: Any = game.effect[self.F3]
        self.f3n = int(f3.count)  # F7-070: cards a Flip Three draws
        self.aside = np.zeros(self.C, bool)  # F7-073: the cards a Flip Three sets aside
        self.aside[sorted(f3.set_aside)] = True
        shield: Any = game.effect[self.SC]
        self.hold = int(shield.hold_limit)  # F7-082: Second Chances one may hold
        self.f7n = int(game.flip7_distinct)  # F7-050: numbers in a line that make a Flip 7
        self.bonus = int(game.flip7_bonus)  # F7-050
        self.target = int(game.target_score)  # F7-120
        self.reshuffles = int(game.reshuffles)  # F7-116
        cat = np.array([{NUMBER: 0, MODIFIER: 1}.get(c, 2) for c in game.category], dtype=np.int8)
        self.is_num = cat == 0
        self.is_mod = cat == 1
        self.is_plain = self.is_num | self.is_mod  # a card dealt without a decision or a rule of its own
        self.rank = np.where(self.is_num, np.array([r or 0 for r in game.rank]), 0).astype(np.int16)  # 0 off numbers
        add = [0] * self.C
        x2 = [0] * self.C
        self.mult1 = 1  # F7-091: the multiplying card's factor less one (a line holds one at most, check_game)
        for c, m in enumerate(game.modifier):
            if m is not None and m[0] == "add":
                add[c] = int(m[1])  # F7-090
            elif m is not None and m[0] == "multiply":
                x2[c] = 1
                self.mult1 = int(m[1]) - 1
        self.addv = np.array(add, dtype=np.int16)
        self.isx2 = np.array(x2, dtype=np.int8)
        self.sorted_deck = np.array(sorted(game.deck), dtype=np.int16)
        self.D = len(self.sorted_deck)
        self.copies = np.bincount(self.sorted_deck, minlength=self.C).astype(np.int16)
        # room: a line holds each rank once, one duplicate (a bust) and every modifier; the queue
        # every card a forced draw sets aside, once per deck it may pass through in a round
        ranks = len({game.rank[c] for c in range(self.C) if self.is_num[c]})
        self.room = ranks + 1 + tables.deck_copies(game, np.flatnonzero(self.is_mod).tolist())
        self.Q = max(1, tables.deck_copies(game, np.flatnonzero(self.aside).tolist()) * (self.reshuffles + 1))

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
        self.lorder = np.full((B, P, self.room), -1, i8)
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
        self.fd_aside = np.zeros((B, self.f3n), i8)
        self.as_on = np.zeros(B, bool)
        self.as_ready = np.zeros(B, bool)
        self.as_chooser = np.zeros(B, i8)
        self.as_n = np.zeros(B, i8)
        self.as_k = np.zeros(B, i8)
        self.as_cards = np.zeros((B, self.f3n), i8)
        self.as_targets = np.zeros((B, self.f3n), i8)
        self.rq_on = np.zeros(B, bool)
        self.rq_head = np.zeros(B, i32)
        self.rq_tail = np.zeros(B, i32)
        self.rq_card = np.zeros((B, self.Q), i8)
        self.rq_seat = np.zeros((B, self.Q), i8)
        self.rq_chooser = np.zeros((B, self.Q), i8)
        self.moves = np.zeros(B, i32)
        self.kind = np.zeros(B, i8)
        self.actor = np.zeros(B, i8)
        self.legal = np.zeros((B, self.A), bool)
        self.card = np.full(B, -1, i8)
        self.ev = np.zeros((B, 0, FIELDS), i32)  # the compiled backend's event rows (`record_events`)
        self.ev_n = np.zeros(B, i32)
        self.ev_room = 0

    def _emit(self, g: Arr, make: Callable[[int, int], Event]) -> None:
        """Record ``make(i, game)`` for the ``i``-th game of ``g`` when events are kept."""
        log = self.log
        if log is not None:
            for i, b in enumerate(g.tolist()):
                log[b].append(make(i, b))

    def _clear_table(self, g: Arr) -> None:
        """The games ``g`` with nothing on the table and no pending work (F7-111)."""
        for a, v in ((self.line, 0), (self.lorder, -1), (self.llen, 0), (self.nnum, 0), (self.numsum, 0),
                     (self.modsum, 0), (self.x2, 0), (self.sc, 0), (self.frz, 0), (self.ffirst, False),
                     (self.status, ACTIVE)):  # fmt: skip
            set_rows(a, g, v)
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
            counts = self.discard.take(g, 0).astype(np.int64)
            n = counts.sum(1)
            pos = np.arange(self.D)
            # the sorted pile of each game (C past its end): how many kinds end at or before each
            # position, one searchsorted over all the games (row i's ends shifted by i * (D + 1))
            shift = np.arange(g.size)[:, None] * (self.D + 1)
            ends = (np.cumsum(counts, 1) + shift).ravel()
            piles = np.searchsorted(ends, (pos + shift).ravel(), "right").reshape(g.size, self.D) - shift // (self.D + 1) * self.C
            keys = np.where(pos[None, :] < n[:, None], self.rng.random((g.size, self.D)), 2.0)
            self.deck[g] = np.take_along_axis(piles, np.argsort(keys, 1), 1)
            self.shuffles[g] += 1
            self.rshuf[g] += 1
            self.dtop[g] = 0
            self.dend[g] = n
            self.unseen[g] = self.discard[g]
            self.discard[g] = 0
            if isinstance(self.log, EventLog):
                self.log.reshuffled(g, n)
            else:
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
            if isinstance(self.log, EventLog):
                self.log.reshuffled(np.array([b]), np.array([n]))
            else:
                self._emit(np.array([b]), lambda i, b: ev.reshuffled(int(self.dend[b])))

    def _draw(self, g: Arr) -> Arr:
        """The top card of each game's pile (taken off it), reshuffling an empty deck when
        allowed (F7-113, F7-116); -1 where no card is left (F7-115)."""
        dtop = self.dtop.take(g)
        empty = dtop >= self.dend.take(g)
        if _any(empty):
            e = g[empty]
            can = e[(self.discard.take(e, 0).sum(1) > 0) & (self.rshuf[e] < self.reshuffles)]
            if can.size:
                self._reshuffle(can)
                dtop = self.dtop.take(g)
            empty = dtop >= self.dend.take(g)
            if self.log is not None:
                self._emit(g[empty], lambda i, b: ev.deck_exhausted())
        code = self.deck.reshape(-1).take(g * self.D + np.minimum(dtop, self.D - 1)).astype(np.int64)
        if not _any(empty):
            self.dtop[g] = dtop + 1
            self.unseen.reshape(-1)[g * self.C + code] -= 1
        else:
            code[empty] = -1
            ok = ~empty
            self.dtop[g[ok]] += 1
            self.unseen.reshape(-1)[g[ok] * self.C + code[ok]] -= 1
        return code

    # ------------------------------------------------------------------ cards arriving

    def _add(self, g: Arr, s: Arr, code: Arr, k: Arr | None = None) -> None:
        """Card ``code`` joins the line of seat ``s`` of game ``g`` (``k``: the flat
        ``g * P + s`` when known).  Each game at most once."""
        if k is None:
            k = g * self.P + s
        self.line.reshape(-1)[k * self.C + code] += 1
        llen = self.llen.reshape(-1)
        n = llen.take(k)
        self.lorder.reshape(-1)[k * self.room + n] = code
        llen[k] = n + 1

    def _receive(self, g: Arr, s: Arr, code: Arr) -> None:
        """Cards ``code`` arrive for seats ``s`` of games ``g`` (F7-035)."""
        num = self.is_num[code]
        if _all(num):
            self._numbers(g, s, code)
            return
        if _any(num):
            self._numbers(g[num], s[num], code[num])
        mod = self.is_mod[code]
        if _any(mod):
            gm, sm, cm = g[mod], s[mod], code[mod]
            self._add(gm, sm, cm)
            self.modsum[gm, sm] += self.addv[cm]
            self.x2[gm, sm] |= self.isx2[cm]
        act = ~(num | mod)
        if _any(act):
            ga, sa, ca = g[act], s[act], code[act]
            shield = ca == self.SC
            if _any(shield):
                self._second_chance(ga[shield], sa[shield])
            play = ~shield
            if _any(play):
                self._offer_target(ga[play], sa[play], ca[play])

    def _numbers(self, g: Arr, s: Arr, code: Arr) -> None:
        """F7-040 (a duplicate busts), F7-080 (a held Second Chance cancels it), F7-050."""
        k = g * self.P + s
        dup = self.line.reshape(-1).take(k * self.C + code) > 0
        if _any(dup):
            save = dup & (self.sc.reshape(-1).take(k) > 0)
            if _any(save):
                gs, ss = g[save], s[save]
                self.sc.reshape(-1)[k[save]] -= 1
                self.discard[gs, code[save]] += 1
                self.discard[gs, self.SC] += 1
                cs = code[save]
                self._emit(gs, lambda i, b: ev.second_chance_used(int(ss[i]), self.ids[cs[i]], self.ids[self.SC]))
            bust = dup & ~save
            if _any(bust):
                gb, sb = g[bust], s[bust]
                cb = code[bust]
                self._add(gb, sb, cb, k[bust])
                self.status.reshape(-1)[k[bust]] = BUSTED
                self._emit(gb, lambda i, b: ev.busted(int(sb[i]), self.ids[cb[i]]))
            new = ~dup
            g, s, code, k = g[new], s[new], code[new], k[new]
        self._add(g, s, code, k)
        nnum = self.nnum.reshape(-1)
        n = nnum.take(k) + 1
        nnum[k] = n
        self.numsum.reshape(-1)[k] += self.rank[code]
        made = (n >= self.f7n) & (self.flip7.take(g) < 0)
        if _any(made):
            self.flip7[g[made]] = s[made]
            sm = s[made]
            self._emit(g[made], lambda i, b: ev.flip7(int(sm[i])))

    def _offer_target(self, g: Arr, s: Arr, code: Arr) -> None:
        """F7-061, F7-072: the receiver picks an active player for a Freeze or Flip Three."""
        allowed = self.status.take(g, 0) == ACTIVE
        some = allowed.any(1)
        if not _all(some):  # no one to play it on: discarded
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
        k = g * self.P + s
        keep = (self.sc.reshape(-1).take(k) < self.hold) & (self.status.reshape(-1).take(k) != BUSTED)
        self.sc.reshape(-1)[k[keep]] += 1
        sk = s[keep]
        self._emit(g[keep], lambda i, b: ev.second_chance_kept(int(sk[i]), self.ids[self.SC]))
        g, s = g[~keep], s[~keep]
        if g.size == 0:
            return
        recv = (self.status.take(g, 0) == ACTIVE) & (self.sc.take(g, 0) < self.hold)
        recv[np.arange(g.size), s] = False
        some = recv.any(1)
        self.discard[g[~some], self.SC] += 1
        sn = s[~some]
        self._emit(g[~some], lambda i, b: ev.discarded(self.ids[self.SC], int(sn[i]), "no eligible player"))
        g, s, recv = g[some], s[some], recv[some]
        self.ct_on[g] = True
        self.ct_card[g] = self.SC
        self.ct_chooser[g] = s
        self.ct_purpose[g] = GIVE
        self.ct_allowed[g] = recv

    def _play(self, g: Arr, chooser: Arr, seat: Arr, code: Arr) -> None:
        """Freeze (F7-060, F7-062: kept in front) or Flip Three (F7-070) takes effect on ``seat``."""
        fr = code == self.FREEZE
        if _any(fr):
            gf, sf = g[fr], seat[fr]
            self.ffirst[gf, sf] = self.sc[gf, sf] == 0
            self.status[gf, sf] = FROZEN
            self.frz[gf, sf] += 1
            cf = chooser[fr]
            self._emit(gf, lambda i, b: ev.frozen(int(sf[i]), int(cf[i])))
        f3 = ~fr
        if _any(f3):
            g3 = g[f3]
            self.fd_on[g3] = True
            self.fd_target[g3] = seat[f3]
            self.fd_giver[g3] = chooser[f3]
            self.fd_card[g3] = code[f3]
            self.fd_rem[g3] = self.f3n
            self.fd_n[g3] = 0
            s3, c3 = seat[f3], chooser[f3]
            self._emit(g3, lambda i, b: ev.forced_draw_started(int(s3[i]), self.ids[self.F3], int(c3[i]), self.f3n))
