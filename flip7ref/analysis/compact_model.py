"""The compact key of a one-player round (`_Model`) and the layer machinery both compact
solvers share: `flip7ref.analysis.compact` (the rules' solo turn) and
`flip7ref.analysis.published` (the published solo turn).  See those modules for the
key, the rules modelled and how the states are valued.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from typing import Any

from flip7ref.analysis.base import AnalysisError
from flip7ref.core.game import ACTION, MODIFIER, NUMBER
from flip7ref.core.scoring import score_points
from flip7ref.core.state import CHANCE, State


def _numpy(what: str = "the compact solver") -> Any:
    """The ``numpy`` module; raises `AnalysisError` ("``what`` needs NumPy (how to install
    it)") when the [analysis] extra is missing."""
    try:
        import numpy
    except ImportError:  # the [analysis] extra is missing
        from flip7ref.proc.install import extra_hint

        raise AnalysisError(f"{what} needs NumPy ({extra_hint('analysis')})") from None
    return numpy


class _Model:
    """What the rules make relevant in a solo round from ``state``, and how it packs
    into a 64-bit key.

    Fields of the key, low bits first: one bit per number rank in play (held),
    one bit per modifier kind in play (held), one bit for a held shield, the
    count of shields drawn since the root, and per rank the duplicates cancelled
    since the root.

    Raises:
        AnalysisError: the position holds something the model does not cover (see
            `CompactSolver.supports`), with the reason.
    """

    def __init__(self, state: State, ties: str, skip: frozenset[int] = frozenset()) -> None:
        game = state.game
        self.game = game
        why = _unsupported(state, skip)
        if why:
            raise AnalysisError(f"the compact solver does not cover this position: {why}")
        player = state.players[0]
        pile = Counter(c for c in state.draw if c not in skip)
        line = Counter(player.line)
        codes = sorted(set(pile) | set(line))
        self.ranks = sorted({game.rank[c] for c in codes if game.category[c] == NUMBER})
        self.rank_bit = {r: i for i, r in enumerate(self.ranks)}
        self.mods = [c for c in codes if game.category[c] == MODIFIER]
        nr, nm = len(self.ranks), len(self.mods)
        self.mod_off = nr
        self.held_off = nr + nm
        self.seen_off = self.held_off + 1
        shields = [c for c in codes if game.category[c] == ACTION]
        self.shield = shields[0] if shields else None
        self.shields = pile[self.shield] if self.shield is not None else 0
        self.held0 = len(player.kept)
        seen_bits = self.shields.bit_length()
        self.extra_off = self.seen_off + seen_bits
        usable = self.shields + self.held0  # shields that can ever cancel a duplicate
        self.extra_bits = usable.bit_length()
        if self.extra_off + nr * self.extra_bits > 63:
            raise AnalysisError("the compact solver does not cover this position: its key needs more than 63 bits")
        self.pile = pile
        self.total = sum(pile.values())
        self.line_numbers = 0
        self.line_mods = 0
        for c in player.line:
            if game.category[c] == NUMBER:
                self.line_numbers |= 1 << self.rank_bit[game.rank[c]]
            else:
                self.line_mods |= 1 << self.mods.index(c)
        self.distinct = game.flip7_distinct
        self.forced = state.current_player == CHANCE  # the first card of the deal: no Stay before it
        self.ties = ties
        # the outcomes of a draw, in card-code order (the order SoloSolver sums them in)
        self.kinds: list[tuple[str, int, int, int]] = []  # (kind, code, bit, copies in the root's pile)
        for c in sorted(pile):
            if game.category[c] == NUMBER:
                self.kinds.append(("number", c, self.rank_bit[game.rank[c]], pile[c]))
            elif game.category[c] == MODIFIER:
                self.kinds.append(("modifier", c, self.mods.index(c), pile[c]))
            else:
                self.kinds.append(("shield", c, 0, pile[c]))
        self.root = self.line_numbers | (self.line_mods << self.mod_off) | ((1 if self.held0 else 0) << self.held_off)
        self._tables()

    def _tables(self) -> None:
        """Score tables from the interpreter's scoring: per set of ranks their sum and
        count, per set of modifiers the multiplier and the sum of the adders (the
        edition's pipeline is numbers, times multipliers, plus adders, plus bonus)."""
        np = _numpy()
        game = self.game
        nr, nm = len(self.ranks), len(self.mods)
        sets = np.arange(1 << nr, dtype=np.int64)
        ranks = np.array(self.ranks, dtype=np.int64)
        bits = (sets[:, None] >> np.arange(nr)) & 1
        self.rank_sum = (bits * ranks).sum(axis=1) if nr else np.zeros(1, dtype=np.int64)
        self.rank_count = bits.sum(axis=1) if nr else np.zeros(1, dtype=np.int64)
        one = next(c for c in range(len(game.category)) if game.category[c] == NUMBER and game.rank[c] == 1)
        mult = np.zeros(1 << nm, dtype=np.int64)
        add = np.zeros(1 << nm, dtype=np.int64)
        for m in range(1 << nm):
            cards = [self.mods[i] for i in range(nm) if m >> i & 1]
            add[m] = score_points(game, cards, flip7=False)
            mult[m] = score_points(game, [*cards, one], flip7=False) - add[m]
        self.mult, self.add = mult, add
        seven = [c for c in range(len(game.category)) if game.category[c] == NUMBER][: self.distinct]
        self.bonus = score_points(game, seven, flip7=True) - score_points(game, seven, flip7=False)

    def score(self, keys: Any, flip7: bool) -> Any:
        """The round score (float64 array) of staying with the lines of ``keys``."""
        np = _numpy()
        numbers = (keys & ((1 << len(self.ranks)) - 1)).astype(np.int64)
        mods = ((keys >> self.mod_off) & ((1 << len(self.mods)) - 1)).astype(np.int64)
        points = self.rank_sum[numbers] * self.mult[mods] + self.add[mods] + (self.bonus if flip7 else 0)
        return points.astype(np.float64)

    def extra(self, keys: Any, bit: int) -> Any:
        """The duplicates of rank ``bit`` cancelled since the root, per key."""
        mask = (1 << self.extra_bits) - 1
        return (keys >> (self.extra_off + bit * self.extra_bits)) & mask if self.extra_bits else keys & 0

    def moves(self, keys: Any) -> Iterator[tuple[Any, Any, Any, Any]]:
        """Per card kind in code order: ``(copies left, successor keys, outcome, flip7
        score)`` arrays over ``keys``; outcome 0 = a state of the next layer, 1 = a
        bust, 2 = a Flip 7 (its score in the last array)."""
        np = _numpy()
        u = np.uint64
        numbers = keys & u((1 << len(self.ranks)) - 1)
        count = self.rank_count[numbers.astype(np.int64)]
        held = (keys >> u(self.held_off)) & u(1)
        for kind, _code, bit, copies in self.kinds:
            if kind == "number":
                has = (keys >> u(bit)) & u(1)
                drawn = has & u(0 if self.line_numbers >> bit & 1 else 1)
                extra = self.extra(keys, bit)
                left = u(copies) - drawn - extra
                joined = keys | u(1 << bit)
                saved = (keys & ~u(1 << self.held_off)) + u(1 << (self.extra_off + bit * self.extra_bits))
                succ = np.where(has == 1, saved, joined)
                outcome = np.where(has == 1, np.where(held == 1, 0, 1), np.where(count + 1 >= self.distinct, 2, 0))
                yield left, succ, outcome, None
            elif kind == "modifier":
                off = self.mod_off + bit
                has = (keys >> u(off)) & u(1)
                left = u(copies) - (has & u(0 if self.line_mods >> bit & 1 else 1))
                yield left, keys | u(1 << off), np.zeros(len(keys), dtype=np.int64), None
            else:
                seen = (keys >> u(self.seen_off)) & u((1 << (self.extra_off - self.seen_off)) - 1)
                left = u(copies) - seen
                succ = (keys | u(1 << self.held_off)) + u(1 << self.seen_off)
                yield left, succ, np.zeros(len(keys), dtype=np.int64), None


def _unsupported(state: State, skip: frozenset[int] = frozenset()) -> str:
    """Why the compact model does not cover ``state`` ('' when it does); the card codes
    of ``skip`` (action cards another model handles) are left out of the checks."""
    game = state.game
    if game.players != 1 or len(state.players) != 1:
        return "it needs a one-player position"
    if state.current_player == CHANCE:
        if state.pending()[0] != "chance" or state.players[0].line or state.players[0].kept or state.discard:
            return "a card is to be drawn here other than the first card of the deal"
        if [type(f).__name__ for f in state.frames] != ["Deal", "Draw"]:
            return "a card is to be drawn here other than the first card of the deal"
    elif state.current_player != 0 or state.pending()[0] != "offer" or state.frames:
        return "the player is not offered Hit or Stay"
    if state.winners:
        return "the game is over"
    if not (game.modifier_pipeline and game.modifiers_to == "receiver" and game.flip7_counts == "distinct"):
        return f"the {game.edition.id} rules with these options score or place cards otherwise"
    if not game.bust_scores_nothing or game.busted_cards != "keep":
        return "a bust here does not simply score nothing"
    player = state.players[0]
    pile = Counter(state.draw)
    shields = set()
    for c in set(pile) | set(player.line) | set(player.kept):
        if c in skip:
            continue
        cat = game.category[c]
        if game.traits[c]:
            return f"card {game.card_ids[c]!r} has traits"
        if cat == NUMBER:
            continue
        if cat == MODIFIER:
            mod = game.modifier[c]
            if mod is None or mod[0] not in ("add", "multiply") or mod[1] < 0 or pile[c] + player.line.count(c) > 1:
                return f"modifier {game.card_ids[c]!r} is not a single adder or multiplier"
            continue
        effect = game.effect[c]
        if effect is None or type(effect).__name__ != "BustShield" or getattr(effect, "hold_limit", 0) != 1:
            return f"action card {game.card_ids[c]!r} (only Second Chance is modelled)"
        shields.add(c)
    if len(shields) > 1:
        return "more than one kind of Second Chance"
    # the most cards the player can draw without the round ending: the pile must outlast them
    in_pile = {game.rank[c] for c in pile if game.category[c] == NUMBER}
    ranks_left = len(in_pile - {game.rank[c] for c in player.line})
    room = ranks_left
    shield_cards = sum(n for c, n in pile.items() if c in shields)
    mods = sum(n for c, n in pile.items() if game.category[c] == MODIFIER)
    if room + mods + shield_cards + (shield_cards + len(player.kept)) >= len(state.draw):
        return "the draw pile can run out during the round (a reshuffle is not modelled)"
    return ""


def _enumerate(model: _Model) -> list[Any]:
    """The keys of the states from ``model``'s root, one sorted uint64 array per count of
    cards drawn (every draw that neither busts nor makes Flip 7 adds one)."""
    np = _numpy()
    layers = [np.array([model.root], dtype=np.uint64)]
    while True:
        nxt = []
        for left, succ, outcome, _ in model.moves(layers[-1]):
            ok = (left > 0) & (outcome == 0)
            if ok.any():
                nxt.append(succ[ok])
        if not nxt:
            return layers
        keys = np.concatenate(nxt)
        keys.sort()  # a sort and a comparison: numpy.unique hashes uint64 keys, many times slower here
        layers.append(keys[np.concatenate(([True], keys[1:] != keys[:-1]))])


def _too_big(need: float, limit: float) -> AnalysisError:
    from flip7ref.analysis.base import _TooMany

    return _TooMany(
        f"the solve needs about {need / 1e9:.1f} GB of memory, more than the limit of {limit / 1e9:.1f} GB: "
        "restrict the deck or raise the limit (--max-memory)"
    )


def _count(model: _Model) -> tuple[int, int]:
    """``(states, largest layer)`` of the solve from ``model``'s root, counted without
    enumerating them: per count of shields drawn, held shield and multiset of
    cancelled duplicates (each consistent with the shields available), the sets of
    ranks that contain the cancelled ones and stay short of a Flip 7, times the
    sets of modifiers.  Exact where every such combination is reachable (the full
    decks); an upper bound otherwise."""
    free_ranks = [i for i in range(len(model.ranks)) if not model.line_numbers >> i & 1]
    free_ranks = [i for i in free_ranks if any(k == "number" and b == i and n for k, _, b, n in model.kinds)]
    line_count = bin(model.line_numbers).count("1")
    mods_free = sum(1 for k, _, _, n in model.kinds if k == "modifier" and n)
    room = model.distinct - 1 - line_count  # ranks that can still join short of a Flip 7
    if room < 0:
        return 0, 0
    # the ranks whose duplicates a shield can cancel, and how many of each at most
    caps: list[tuple[bool, int]] = []  # (in the root's line, most cancelled)
    for k, _, b, n in model.kinds:
        if k != "number":
            continue
        in_line = bool(model.line_numbers >> b & 1)
        most = n if in_line else n - 1
        if most > 0:
            caps.append((in_line, most))
    usable = model.held0 + model.shields
    # ways[j][u] = multisets of u cancelled duplicates touching j ranks not in the root's line
    ways = [[0] * (usable + 1) for _ in range(len(free_ranks) + 1)]
    ways[0][0] = 1
    for in_line, most in caps:
        new = [row[:] for row in ways]
        for j in range(len(ways)):
            for u in range(usable + 1):
                if not ways[j][u]:
                    continue
                for n in range(1, most + 1):
                    if u + n > usable:
                        break
                    jj = j if in_line else j + 1
                    if jj < len(new):
                        new[jj][u + n] += ways[j][u]
        ways = new
    nfree = len(free_ranks)
    total = 0
    for seen in range(model.shields + 1):
        for held in (0, 1):
            for used in range(usable + 1):
                dropped = model.held0 + seen - used - held  # shields discarded
                if dropped < 0 or (dropped > 0 and used + held == 0):
                    continue
                for j in range(nfree + 1):
                    if not ways[j][used]:
                        continue
                    lines = sum(math.comb(nfree - j, a) for a in range(max(0, room - j) + 1)) if room >= j else 0
                    total += ways[j][used] * lines
    states = total << mods_free
    return states, states
