"""The batched Vengeance engine's tables: what it reads from the edition table, what it refuses.

`check_vengeance` refuses a table or reading the engine does not play; `VRules` reads the
table's facts into the arrays of `flip7ref.batch.kernel` (the scalar rule body that plays
them, a card's behaviour chosen by those facts) and holds the games' arrays: each game's
pending work is the reference's frame stack in fixed slots (``S`` deep, bottom first), its
lines ``L`` cards long.  Chance is not a decision: a card needed is the top of each game's
ordered pile, ordered as the reference orders a seeded game's pile (``shuffle="reference"``)
or by NumPy's generator (``shuffle="numpy"``).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from flip7ref.batch import evlog, tables
from flip7ref.batch.evlog import EventLog
from flip7ref.batch.kernel import (
    ACTIVE,
    BUSTED,
    CARDS,
    DISCARD,
    FORCED,
    HIT,
    OFFER,
    PLAY,
    STAY,
    STAYED,
    STEAL,
    SWAP,
    TERMINAL,
)
from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.core.model import ACTION, MODIFIER, NUMBER, verbs
from flip7ref.core.observation_layout import DECISION_KINDS
from flip7ref.core.pile import shuffled

Arr = np.ndarray[Any, Any]

__all__ = ["ACTIVE", "BUSTED", "CARDS", "HIT", "OFFER", "PLAY", "STAY", "STAYED", "TERMINAL", "VENGEANCE_OPTIONS", "VRules"]

N_DECISION_KINDS = len(DECISION_KINDS)

S = 32  # stack slots: the deal, then at most two frames per action card of the deck
L = 40  # room in a line, in arrival order

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
    """The arrays of `flip7ref.batch.vengeance.VengeanceState` (the table's facts, `_alloc`) and
    its reshuffle; the rules are `flip7ref.batch.kernel`'s."""

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
        self.log: EventLog | None = None  # the events of each game, when recorded (`record_events`)
        self.peek = 0  # stop before every draw (`flip7ref.batch.kernel`)
        self.ev_room = 0  # rows one step may write (`flip7ref.batch.evlog.room`; `record_events`)
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
                self.prim[c] = FORCED
                self.fcount[c] = e.count  # type: ignore[attr-defined]
                self.then_stay[c] = e.then_stay  # type: ignore[attr-defined]
                for a in e.set_aside:  # type: ignore[attr-defined]
                    self.aside[c, a] = True
            else:
                self.prim[c] = {"steal": STEAL, "swap": SWAP, "discard_card": DISCARD}[name]
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
        self.steal_at, self.discard_at, self.swap_at = (self.blocks.get(v, (-1, 0))[0] for v in ("steal", "discard", "swap"))

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
        self.ev = np.zeros((B, 0, evlog.FIELDS), i32)  # the event rows (`record_events`)
        self.ev_n = np.zeros(B, i32)
        self._per_game = tuple(k for k, v in vars(self).items() if k not in before and isinstance(v, np.ndarray))

    def reshuffle(self, g: Arr) -> None:
        """F7-113 / V-072: each game's discard pile becomes its deck (sorted, then shuffled: the
        reference's order for the game's seed under ``shuffle="reference"``, else NumPy's generator)."""
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
            if isinstance(self.log, EventLog):
                self.log.reshuffled(np.array([b]), np.array([n]))
