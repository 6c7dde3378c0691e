"""The batched Vengeance engine's rules: ``B`` games of Flip 7: With a Vengeance as NumPy arrays.

A second implementation of the reference's general path for the edition ``vengeance``
(`flip7ref.core.engine`, `flip7ref.core.lines`, `flip7ref.core.targets` and the frames of
`flip7ref.core.primitives`), at the default reading of every option.  Each game's pending
work is the reference's frame stack, held in fixed slots (``S`` deep, bottom first):
the deal (``DEAL``), a Hit-or-Stay offer at a deal slot (``DEAL_OFFER``), a target
choice (``CHOOSE``: a modifier given away, V-050, or an action played, V-042), a forced
draw (``DRAW``: Just One More, V-043, or Flip Four, V-044), the set-aside cards of a Flip
Four resolved in reveal order (``IN_ORDER``), and the card picks of a Swap, Steal or
Discard (``PICK``, V-045..V-047).  Each rule runs over the games that need it.

Chance is not a decision: a card needed is the top of each game's ordered pile, ordered
as the reference orders a seeded game's pile (``shuffle="reference"``) or by NumPy's
generator (``shuffle="numpy"``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from flip7ref.batch import tables
from flip7ref.core import events as ev
from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.core.model import ACTION, MODIFIER, NUMBER, Event, verbs
from flip7ref.core.observation_layout import DECISION_KINDS
from flip7ref.core.pile import shuffled

Arr = np.ndarray[Any, Any]

ACTIVE, STAYED, FROZEN, BUSTED = 0, 1, 2, 3
OFFER, PLAY, CARDS, TERMINAL = (DECISION_KINDS.index(k) for k in ("offer", "play", "cards", "terminal"))
"""Decision kinds as indices of `flip7ref.core.observation_layout.DECISION_KINDS`."""
N_DECISION_KINDS = len(DECISION_KINDS)
HIT, STAY = 0, 1

NONE, DEAL, DEAL_OFFER, CHOOSE, DRAW, IN_ORDER, PICK = range(7)
"""Frame types of the stack slots (``NONE``: the stack is empty)."""

_any = np.count_nonzero
"""``_any(mask)``: truthy when any element is set (a C call, cheaper than ``mask.any()``)."""

S = 32  # stack slots: the deal, then at most two frames per action card of the deck
L = 40  # room in a line, in arrival order
_STEAL, _SWAP, _DISCARD, _FORCED = 1, 2, 3, 4

VENGEANCE_OPTIONS: dict[str, tuple[str, ...]] = {
    "brutal": ("false",),
    "lucky13_flip7": ("twice",),
    "stayed_targetable": ("yes",),
    "discard_chooser": ("giver",),
    "swap_scope": ("any-two",),
    "flip_four_cards": ("after",),
    "initial_deal": ("deal",),
    "stay_requires": ("nothing",),
    "tie": ("another-round",),
    "zero_just_one_more": ("no-flip7",),
    "busted_cards": ("keep",),
    "unusable_actions": ("fizzle",),
    "brutal_zero": ("zero",),
    "brutal_busted": ("given-after-bust",),
    "unlucky7_flip_four": ("survives",),
    "flip_four_late_bust": ("all",),
    "deal_after_early_cards": ("offer",),
}
"""The readings of Vengeance the batched engine plays: each option's default (Brutal Mode
off).  Integer options: ``target_score`` 1..10000, ``reshuffles`` 0..8 (not ``unlimited``),
``decks`` one deck (``auto`` up to 18 players, or 1)."""


def check_vengeance(game: Game) -> None:
    """Raise `OptionError` unless the batched engine plays ``game``: a table whose cards and
    round are Vengeance's in structure (numbers with the traits of `_TRAITS`, one card of
    each, ``add`` modifiers and at most one dividing card in the deck, action cards of the
    primitives and parameters of `VENGEANCE_EFFECTS`, the round of
    `flip7ref.batch.tables.VENGEANCE_ROUND`), one deck (at most the table's
    ``players_per_deck`` players), options at `VENGEANCE_OPTIONS` (integers as documented
    there).  The table's facts themselves (ranks, counts, amounts, the divisor, the Flip 7
    line length and bonus, the target, each forced draw's count, set-aside cards and stay)
    are read by `VRules._tables`."""
    tables.plain_cards(game, "vengeance", NUMBER, _TRAITS)
    tables.plain_cards(game, "vengeance", MODIFIER)
    tables.modifier_ops(game, "vengeance", ("add", "divide"))
    for name, value in game.options.items():
        if name in VENGEANCE_OPTIONS and value not in VENGEANCE_OPTIONS[name]:
            raise OptionError(f"options.{name}: the batched engine plays {VENGEANCE_OPTIONS[name][0]!r} only, got {value!r}")
    if game.options.get("reshuffles") == "unlimited":
        raise OptionError("options.reshuffles: the batched engine plays a whole number 0..8, not 'unlimited'")
    if game.options.get("decks") not in ("auto", 1, None):
        raise OptionError(f"options.decks: the batched engine plays one deck, got {game.options.get('decks')!r}")
    div = [c for c, m in enumerate(game.modifier) if m is not None and m[0] == "divide"]
    if tables.deck_copies(game, div) > 1:  # a line holds one: its divisor is a flag (V-052)
        n = tables.deck_copies(game, div)
        raise tables.refuse(game, "vengeance", f"the deck holds {n} dividing cards", "at most one (V-052)")
    per = game.edition.thresholds["players_per_deck"]
    if not 1 <= game.players <= per:
        raise OptionError(f"players: the batched engine plays 1..{per} players (one deck), got {game.players}")
    C = len(game.card_ids)
    acts = tables.deck_copies(game, [c for c in range(C) if game.category[c] == ACTION])
    mods = tables.deck_copies(game, [c for c in range(C) if game.category[c] == MODIFIER])
    ranks = len({game.rank[c] for c in range(C) if game.category[c] == NUMBER})
    for what, need, room in (("card kinds", C, 127), ("stack frames", 2 * acts + 3, S), ("cards in a line", ranks + 2 + mods, L)):
        if need > room:
            raise tables.refuse(game, "vengeance", f"the deck needs {need} {what}", f"at most {room}")
    tables.check_effects(game, "vengeance", VENGEANCE_EFFECTS)
    for c, e in enumerate(game.effect):  # V-044: set-aside cards are resolved one by one in reveal order
        how = getattr(e, "resolution", None)
        if getattr(e, "set_aside", None) and how != "in-order":
            raise tables.refuse(game, "vengeance", f"card {game.card_ids[c]!r} has resolution {how!r}", "'in-order' only (V-044)")
    for trait in _TRAITS:
        tables.one_card(game, "vengeance", f"trait {trait}", [c for c, t in enumerate(game.traits) if trait in t], _TRAITS[trait])
    tables.check_round(game, tables.VENGEANCE_ROUND, "vengeance")


_TRAITS = {"zero": "V-030", "no_stay": "V-031", "wipe_on_enter": "V-033", "pair_allowed": "V-036"}
"""The number-card traits the engine implements (each a rule in code), with their rule ids."""

_TARGETS = {"targets": "non_busted", "self_target": "allowed"}  # V-014, V-042
VENGEANCE_EFFECTS: dict[str, dict[str, object]] = {
    "forced_draw": {**_TARGETS, "on_bust": "discard", "assigner": "target"},  # V-043, V-044
    "swap": {**_TARGETS, "scope": "any-two"},  # V-045
    "steal": dict(_TARGETS),  # V-046
    "discard_card": {**_TARGETS, "chooser": "giver"},  # V-047
}
"""The primitives of Vengeance's action cards the batched engine plays, with the parameter
values its code implements; a forced draw's ``count``, ``set_aside`` and ``then_stay`` are
read from the table."""


class VRules:
    """The arrays of `flip7ref.batch.vengeance.VengeanceState` and the rules that move cards:
    the pile, a card arriving (`_receive`), a card entering or leaving a line, the stack."""

    # ------------------------------------------------------------------ tables and storage

    def _tables(self, game: Game, batch: int, seed: int, shuffle: str) -> None:
        self.game = game
        self.B, self.P = batch, game.players
        ids = self.ids = game.card_ids
        self.C = C = len(ids)
        self._action_layout(game)
        self.shuffle = shuffle
        self.rng = np.random.default_rng(seed)
        self.next_seed = int(seed)
        self.log: list[list[Event]] | None = None
        self.target = int(game.target_score)  # V-073
        self.reshuffles = int(game.reshuffles)  # V-075
        self.F7N = int(game.flip7_distinct)  # V-022: number cards that make a Flip 7
        cat = np.array(game.category)
        self.is_num = cat == NUMBER
        self.is_mod = cat == MODIFIER
        self.rank = np.where(self.is_num, np.array([r if r is not None and r >= 0 else 0 for r in game.rank]), 0).astype(np.int64)
        self.addv = np.array([m[1] if m is not None and m[0] == "add" else 0 for m in game.modifier], np.int64)
        half = [c for c, m in enumerate(game.modifier) if m is not None and m[0] == "divide"]
        self.HALF = half[0] if half else -1
        self.DIV = int(game.modifier[self.HALF][1]) if half else 1  # type: ignore[index]  # V-052: the divisor
        # the special numbers by their traits, not their names (check_vengeance: one card each)
        self.ZERO = next(c for c in range(C) if "zero" in game.traits[c])  # V-030, V-038
        self.NOSTAY = next(c for c in range(C) if "no_stay" in game.traits[c])  # V-031
        self.U7 = next(c for c in range(C) if "wipe_on_enter" in game.traits[c])
        self.L13 = next(c for c in range(C) if "pair_allowed" in game.traits[c])
        self.bonus = int(game.flip7_bonus)
        self.prim = np.zeros(C, np.int8)
        self.fcount = np.zeros(C, np.int8)
        self.then_stay = np.zeros(C, bool)
        self.aside = np.zeros((C, C), bool)  # aside[card, code]: code is set aside in card's forced draw
        self.W = max([int(getattr(e, "count", 1)) for e in game.effect if e is not None] + [1])  # set-aside room
        for c, e in enumerate(game.effect):
            if e is None:
                continue
            name = e.primitive
            if name == "forced_draw":
                self.prim[c] = _FORCED
                self.fcount[c] = e.count  # type: ignore[attr-defined]
                self.then_stay[c] = e.then_stay  # type: ignore[attr-defined]
                for a in e.set_aside:  # type: ignore[attr-defined]
                    self.aside[c, a] = True
            else:
                self.prim[c] = {"steal": _STEAL, "swap": _SWAP, "discard_card": _DISCARD}[name]
        # the rank of each number card, as a (C, 14) indicator, to count same-rank cards in a line
        self.rankmat = np.zeros((C, int(self.rank.max()) + 1), np.int64)
        for c in range(C):
            if self.is_num[c]:
                self.rankmat[c, self.rank[c]] = 1
        # the codes of each code's rank (the Lucky 13 and 13, Unlucky 7 and 7): same_w 0 pads
        width = max(int(np.count_nonzero(self.is_num & (self.rank == self.rank[c]))) for c in range(C) if self.is_num[c])
        self.same_codes = np.zeros((C, width), np.int64)
        self.same_w = np.zeros((C, width), np.int64)
        for c in range(C):
            if self.is_num[c]:
                same = np.flatnonzero(self.is_num & (self.rank == self.rank[c]))
                self.same_codes[c, : same.size] = same
                self.same_w[c, : same.size] = 1
        self.sorted_deck = np.array(sorted(game.deck), np.int16)
        self.D = len(self.sorted_deck)
        self.copies = np.bincount(self.sorted_deck, minlength=C).astype(np.int16)

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

    _before_draw: Callable[[Arr], None] | None = None
    """Called with the games about to take a card off the pile (`_draw`, the deal's run of
    numbers) when set: a one-move lookahead stops its view there, where the reference's
    settling stops at a chance node (`flip7ref.batch.v_policies`)."""

    def _alloc(self) -> None:
        before = set(vars(self))
        B, P, C = self.B, self.P, self.C
        i8, i16, i32 = np.int8, np.int16, np.int32
        self.deck = np.zeros((B, self.D), i16)
        self.dtop = np.zeros(B, i32)
        self.dend = np.zeros(B, i32)
        self.unseen = np.zeros((B, C), i16)
        self.discard = np.zeros((B, C), i16)
        self.line = np.zeros((B, P, C), i16)
        self.lorder = np.full((B, P, L), -1, i16)
        self.llen = np.zeros((B, P), i16)
        self.status = np.zeros((B, P), i8)
        self.barred = np.zeros((B, P), bool)
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
        self.seeds: list[str] = [""] * B
        self.sp = np.zeros(B, i32)
        self.ft = np.zeros((B, S), i8)
        self.fa = np.zeros((B, S), i32)
        self.fb = np.zeros((B, S), i32)
        self.fc = np.zeros((B, S), i32)
        self.fd = np.zeros((B, S), i32)
        self.fcards = np.full((B, S, self.W), -1, i16)
        self.fn = np.zeros((B, S), i32)
        self.fallow = np.zeros((B, S, P), bool)
        self.moves = np.zeros(B, i32)
        self.kind = np.zeros(B, i8)
        self.actor = np.zeros(B, i8)
        self.legal = np.zeros((B, self.A), bool)
        self.wide = np.zeros(B, bool)  # the row of legal has pick-block entries set
        self.card = np.full(B, -1, i8)
        self._per_game = tuple(k for k, v in vars(self).items() if k not in before and isinstance(v, np.ndarray))

    def _emit(self, g: Arr, make: Callable[[int, int], Event]) -> None:
        """Record ``make(i, game)`` for the ``i``-th game of ``g`` when events are kept."""
        log = self.log
        if log is not None:
            for i, b in enumerate(g.tolist()):
                log[b].append(make(i, b))

    # ------------------------------------------------------------------ the stack

    def _top(self, g: Arr) -> Arr:
        """The frame type on top of each game's stack (``NONE`` when empty)."""
        sp = self.sp[g]
        return np.where(sp > 0, self.ft[g, np.maximum(sp - 1, 0)], NONE)

    def _push(self, g: Arr, kind: int, a: Arr | int = 0, b: Arr | int = 0, c: Arr | int = 0, d: Arr | int = 0) -> Arr:
        """Push a frame of ``kind`` with fields ``a..d`` on each game of ``g``; its slot index."""
        i = self.sp[g]
        if i.size and int(i.max()) >= S:  # pragma: no cover - the deck bounds the depth
            raise RuntimeError("batched Vengeance engine: pending-work stack overflow")
        self.ft[g, i] = kind
        self.fa[g, i] = a
        self.fb[g, i] = b
        self.fc[g, i] = c
        self.fd[g, i] = d
        self.fn[g, i] = 0
        self.sp[g] = i + 1
        return i

    # ------------------------------------------------------------------ the pile

    def _reshuffle(self, g: Arr) -> None:
        """F7-113 / V-072: each game's discard pile becomes its deck (sorted, then shuffled)."""
        for b in g.tolist():
            cards = np.repeat(np.arange(self.C, dtype=np.int16), self.discard[b]).tolist()
            self.shuffles[b] += 1
            self.rshuf[b] += 1
            if self.shuffle == "reference":
                shuffled(cards, self.seeds[b], int(self.shuffles[b]))
            else:
                cards = self.rng.permutation(np.array(cards, np.int16)).tolist()
            n = len(cards)
            self.deck[b, :n] = cards
            self.dtop[b] = 0
            self.dend[b] = n
            self.unseen[b] = self.discard[b]
            self.discard[b] = 0
            if self.log is not None:
                self.log[b].append(ev.reshuffled(n))

    def _draw(self, g: Arr) -> Arr:
        """The top card of each game's pile (taken off it), reshuffling an empty deck when
        allowed (V-072, V-075); -1 where no card is left (a ``deck_exhausted`` event)."""
        if self._before_draw is not None:
            self._before_draw(g)
        empty = self.dtop[g] >= self.dend[g]
        if _any(empty):
            e = g[empty]
            can = e[(self.discard[e].sum(1) > 0) & (self.rshuf[e] < self.reshuffles)]
            if can.size:
                self._reshuffle(can)
            empty = self.dtop[g] >= self.dend[g]
            self._emit(g[empty], lambda i, b: ev.deck_exhausted())
        code = self.deck[g, np.minimum(self.dtop[g], self.D - 1)].astype(np.int64)
        code[empty] = -1
        ok = g[~empty]
        self.dtop[ok] += 1
        self.unseen[ok, code[~empty]] -= 1
        return code

    # ------------------------------------------------------------------ lines

    def _append(self, g: Arr, s: Arr, code: Arr) -> None:
        """Card ``code`` joins the end of seat ``s``'s line (each game of ``g`` once)."""
        self.line[g, s, code] += 1
        n = self.llen[g, s]
        self.lorder[g, s, n] = code
        self.llen[g, s] = n + 1

    def _take(self, g: Arr, s: Arr, code: Arr) -> None:
        """The first card ``code`` of seat ``s``'s line leaves it (`flip7ref.core.primitives.choose_cards.take`)."""
        self.line[g, s, code] -= 1
        row = self.lorder[g, s]  # (n, L)
        pos = np.argmax(row == code[:, None], 1)
        j = np.arange(L)
        src = np.where(j[None, :] >= pos[:, None], np.minimum(j + 1, L - 1), j)
        new = np.take_along_axis(row, src, 1)
        new[:, L - 1] = -1
        self.lorder[g, s] = new
        self.llen[g, s] -= 1

    def _cards_of(self, b: int, s: int) -> tuple[str, ...]:
        return tuple(self.ids[c] for c in self.lorder[b, s, : self.llen[b, s]].tolist())

    # ------------------------------------------------------------------ cards arriving

    def _receive(self, g: Arr, s: Arr, code: Arr) -> None:
        """Cards ``code`` arrive for seats ``s`` of games ``g`` (`flip7ref.core.targets.receive`):
        numbers enter the line, modifiers are given to a chosen player (V-050), actions are
        played on a chosen player (V-042)."""
        num = self.is_num[code]
        if num.all():
            self._number(g, s, code)
            return
        if _any(num):
            self._number(g[num], s[num], code[num])
        o = ~num
        self._offer_target(g[o], s[o], code[o])

    def _enter(self, g: Arr, s: Arr, code: Arr) -> None:
        """A card moved from another line enters seat ``s``'s line (`flip7ref.core.targets.enter`)."""
        num = self.is_num[code]
        if _any(num):
            self._number(g[num], s[num], code[num])
        m = ~num
        if _any(m):
            self._append(g[m], s[m], code[m])

    def _number(self, g: Arr, s: Arr, code: Arr) -> None:
        """`flip7ref.core.targets.receive_number`: Unlucky 7 wipes the line (V-033); a repeated rank
        busts (V-020) unless Lucky 13 allows the pair (V-036); else the card joins and may make
        the Flip 7 (V-022, D-V-03 ``twice``: number cards count; D-V-26: not when barred)."""
        if g.size == 0:
            return
        wipe = code == self.U7
        if _any(wipe):
            gw, sw = g[wipe], s[wipe]
            if self.log is not None:
                for b, t in zip(gw.tolist(), sw.tolist(), strict=True):
                    if self.llen[b, t] > 0:
                        self.log[b].append(ev.line_wiped(t, self._cards_of(b, t)))
            self.discard[gw] += self.line[gw, sw]
            self.line[gw, sw] = 0
            self.lorder[gw, sw] = -1
            self.llen[gw, sw] = 0
            self._append(gw, sw, code[wipe])
            keep = ~wipe
            g, s, code = g[keep], s[keep], code[keep]
            if g.size == 0:
                return
        C = self.C
        k = (g * self.P + s) * C  # flat start of each line's counts
        flat = self.line.reshape(-1)
        same = (flat[k[:, None] + self.same_codes[code]] * self.same_w[code]).sum(1)
        pair = (same == 1) & (self.rank[code] == self.rank[self.L13]) & ((code == self.L13) | (flat[k + self.L13] > 0))
        bust = (same >= 1) & ~pair
        self._append(g, s, code)
        if _any(bust):
            gb, sb, cb = g[bust], s[bust], code[bust]
            self.status[gb, sb] = BUSTED
            self._emit(gb, lambda i, b: ev.busted(int(sb[i]), self.ids[cb[i]]))
        ok = ~bust & (self.llen[g, s] >= self.F7N)  # a Flip 7 needs that many cards at least: a quick no
        g, s = g[ok], s[ok]
        nnum = (self.line[g, s] * self.is_num).sum(1)
        made = (self.flip7[g] < 0) & ~self.barred[g, s] & (nnum >= self.F7N)
        if _any(made):
            gm, sm = g[made], s[made]
            self.flip7[gm] = sm
            self._emit(gm, lambda i, b: ev.flip7(int(sm[i])))

    def _faceup(self, g: Arr) -> Arr:
        """(n, P) seats whose line shows cards actions can move (`flip7ref.core.targets.faceup`)."""
        face: Arr = (self.status[g] != BUSTED) & (self.llen[g] > 0)
        return face

    def _offer_target(self, g: Arr, s: Arr, code: Arr) -> None:
        """`flip7ref.core.targets.offer_target`: ``s`` chooses who gets the modifier or action
        ``code`` among the players not busted (V-042, V-050); a Swap, Steal or Discard
        nobody could carry out is discarded (V-048, D-V-28 ``fizzle``)."""
        if g.size == 0:
            return
        allowed = self.status[g] != BUSTED
        prim = self.prim[code]
        if _any(prim > 0) and _any(prim != _FORCED):
            face = self._faceup(g)
            nface = face.sum(1)
            usable = np.ones(g.size, bool)
            st = prim == _STEAL  # another line than the resolver's shows cards
            usable[st] = (allowed[st] & ((nface[st, None] - face[st]) > 0)).any(1)
            sw = prim == _SWAP
            usable[sw] = nface[sw] >= 2
            di = prim == _DISCARD
            usable[di] = (allowed[di] & face[di]).any(1)
            allowed &= usable[:, None]
        some = allowed.any(1)
        if not some.all():
            n = ~some
            gn, sn, cn = g[n], s[n], code[n]
            self.discard[gn, cn] += 1
            self._emit(gn, lambda i, b: ev.discarded(self.ids[cn[i]], int(sn[i]), "no valid target"))
            g, s, code, allowed = g[some], s[some], code[some], allowed[some]
            if g.size == 0:
                return
        i = self._push(g, CHOOSE, code, s)
        self.fallow[g, i] = allowed

    def _play(self, g: Arr, chooser: Arr, seat: Arr, code: Arr) -> None:
        """Card ``code``, played by ``chooser``, takes effect on ``seat`` (`flip7ref.core.targets.play`):
        a modifier joins the line (V-050); a forced draw starts (V-043, V-044); a Swap, Steal
        or Discard opens its card pick (V-045..V-047; the Discard's pick by its giver, D-V-11)."""
        mod = self.is_mod[code]
        if _any(mod):
            self._append(g[mod], seat[mod], code[mod])
        fd = self.prim[code] == _FORCED
        if _any(fd):
            gf, sf, cf, hf = g[fd], seat[fd], code[fd], chooser[fd]
            n = self.fcount[cf]
            i = self._push(gf, DRAW, sf, hf, cf, n)
            self.fcards[gf, i] = -1
            self._emit(gf, lambda i, b: ev.forced_draw_started(int(sf[i]), self.ids[cf[i]], int(hf[i]), int(n[i])))
        pk = ~mod & ~fd
        if _any(pk):
            gp, sp, cp, hp = g[pk], seat[pk], code[pk], chooser[pk]
            picker = np.where(self.prim[cp] == _DISCARD, hp, sp)
            self._push(gp, PICK, cp, picker, sp)
