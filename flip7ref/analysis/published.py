"""The solo turn of the published solitaire analysis over the whole deck: the
compact-key solver (`flip7ref.analysis.compact`) extended to Freeze and Flip Three.

The turn model (``turn_model="published"`` of `CompactSolver`)
-------------------------------------------------------------
The published analysis plays a one-player round with the action cards aimed at
the drawer: a Freeze drawn at a free choice ends the turn as a stay; a Flip Three
forces the next three draws, with no stay between them; a Flip Three met during
forced draws adds three more; a Freeze met during forced draws waits, and the
player stays once the forced draws are done (if the line neither busted nor
made Flip 7 meanwhile).  Numbers, modifiers and Second Chance behave as in
`flip7ref.analysis.compact`.

Where it differs from the rules as the reference reads them: during a Flip
Three, the cards set aside are resolved in the order they were flipped (F7-074),
so a Freeze met *before* a second Flip Three ends the turn first and that Flip
Three is discarded unresolved (F7-075); the published model gives that second
Flip Three its three draws and applies the waiting Freeze after them.  Every
other sequence is the same turn (checked against `SoloSolver` on small decks in
``tests/test_published_turn.py``).  The interpreter's reading stays the authority
for the reference's own solo turn; this model exists to reproduce the published
figure for all 94 cards (20.2980220287).

The state
---------
A state is a *base* (the compact key of `compact_model._Model`: ranks and modifiers
held, Second Chance held and drawn, duplicates cancelled) and a *mode*: Flip
Threes drawn, Freezes waiting, forced draws left.  A Flip Three or a waiting
Freeze changes the mode only; every other card changes the base and adds one to
its count of cards, so the bases fall into layers as in the compact solver.  The
reachable modes do not depend on the base (about 55 for three Freezes and three
Flip Threes), so a layer's values are one float64 array of shape (bases, modes):
no key is stored per state, and only two layers of values are in memory at once
(the layer being solved and the one after it).  Within a layer the modes are
solved in decreasing order of action cards drawn; the cards that change the base
are summed once for all modes (a row gather of the next layer per card kind).
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from flip7ref.analysis.base import AnalysisError, SoloResult, _too_many
from flip7ref.analysis.compact_model import _count, _enumerate, _Model, _numpy, _too_big, _unsupported
from flip7ref.core.game import ACTION
from flip7ref.core.state import State

#: Bases solved at once: bounds the temporary arrays of a layer (chunk x modes x 8 bytes each).
CHUNK = 1 << 15
#: Hit and stay are taken as equal (``ties`` decides) within this share of the stay value:
#: the sums run in another order than the interpreter's, so a true tie can differ in the last bits.
TIE = 1e-12
#: CPU microseconds a state costs (measured on all 94 cards, value only: 215 s for 1.21e9
#: states, docs/analysis.md; NumPy, one core).
US_PER_STATE = 0.18
#: Share of all bases the two largest adjacent layers hold at most (0.38 on the full
#: deck, measured); the memory estimate takes it for every deck.
LAYER_SHARE = 0.40


def _actions(state: State) -> tuple[frozenset[int], int, int, int]:
    """``(codes, Freezes, Flip Threes, draws a Flip Three forces)`` of the pile's Freeze
    and Flip Three cards (code sets by effect type, from the edition table)."""
    game = state.game
    pile = Counter(state.draw)
    codes: set[int] = set()
    freezes = flips = 0
    count = 3
    for c, n in pile.items():
        effect = game.effect[c]
        if game.category[c] != ACTION or effect is None:
            continue
        name = type(effect).__name__
        if name == "Freeze":
            codes.add(c)
            freezes += n
        elif name == "ForcedDrawEffect":
            codes.add(c)
            flips += n
            count = int(getattr(effect, "count", 3))
    return frozenset(codes), freezes, flips, count


def published_supports(state: State) -> str:
    """'' when the published turn model covers ``state``, else why not (one line): what
    `CompactSolver.supports` covers, plus Freeze and Flip Three cards (one kind of each)
    in the pile, none in the line, at the first card of a deal or an offer."""
    game = state.game
    skip, freezes, flips, _ = _actions(state)
    kinds = Counter(type(game.effect[c]).__name__ for c in skip)
    if any(n > 1 for n in kinds.values()):
        return "more than one kind of Freeze or Flip Three"
    if state.players and any(c in skip for c in (*state.players[0].line, *state.players[0].kept)):
        return "a Freeze or Flip Three is in the line"
    why = _unsupported(state, skip)
    if why:
        return why
    # the most cards a turn draws: the compact model's bound plus every action card
    model = _Model(state, "hit", skip)
    ranks = sum(1 for k, _, b, n in model.kinds if k == "number" and n and not model.line_numbers >> b & 1)
    mods = sum(n for k, _, _, n in model.kinds if k == "modifier")
    most = ranks + mods + 2 * model.shields + model.held0 + freezes + flips
    if most >= len(state.draw):
        return "the draw pile can run out during the round (a reshuffle is not modelled)"
    return ""


def _modes(flips: int, freezes: int, count: int) -> list[tuple[int, int, int]]:
    """The reachable modes ``(Flip Threes drawn, Freezes waiting, forced draws left)``
    from a free choice, in solving order (most action cards drawn first)."""
    seen = {(0, 0, 0)}
    queue = [(0, 0, 0)]
    for f3, fz, forced in queue:
        if forced == 0:
            succ = [] if fz else ([(f3 + 1, 0, count)] if f3 < flips else [])
        else:
            succ = [(f3, fz, forced - 1)]
            if f3 < flips:
                succ.append((f3 + 1, fz, forced - 1 + count))
            if fz < freezes:
                succ.append((f3, fz + 1, forced - 1))
        for m in succ:
            if m not in seen:
                seen.add(m)
                queue.append(m)
    return sorted(seen, key=lambda m: (-(m[0] + m[1]), m))


def published_estimate(state: State, probabilities: bool = True) -> tuple[int, float]:
    """``(states, bytes)`` of a published-model solve of ``state``, before anything is
    allocated: bases (`compact_model._count`, exact on the full decks) times modes (an upper
    bound on the reachable states: 1,208,732,216 reachable of 1,208,901,760 on all 94
    cards), and the peak memory: the keys (16 bytes a base), two layers of values at
    `LAYER_SHARE` of the bases (8 bytes a mode, three quantities with ``probabilities``)
    and the chunk's temporaries.

    Raises:
        AnalysisError: the position is not covered (`published_supports`).
    """
    why = published_supports(state)
    if why:
        raise AnalysisError(f"the compact solver does not cover this position: {why}")
    skip, freezes, flips, count = _actions(state)
    bases, _ = _count(_Model(state, "hit", skip))
    modes = len(_modes(flips, freezes, count))
    q = 3 if probabilities else 1
    need = bases * 16 + LAYER_SHARE * bases * modes * q * 8 + 6 * CHUNK * modes * q * 8
    return bases * modes, float(need)


def _popcount(masks: Any) -> int:
    np = _numpy()
    if hasattr(np, "bitwise_count"):
        return int(np.bitwise_count(masks).sum())
    return int(np.unpackbits(masks.view(np.uint8)).sum())  # pragma: no cover - NumPy < 2


def _reached(model: _Model, layers: list[Any], modes: list[tuple[int, int, int]], same: list[list[int]],
             after: list[int]) -> int:  # fmt: skip
    """The reachable (base, mode) states from the root's free mode: one 64-bit mask of
    modes per base, closed under the action cards within a base, carried to the next
    layer by the other cards."""
    np = _numpy()
    u = np.uint64
    masks = np.zeros(1, dtype=u)
    masks[0] = u(1) << u(modes.index((0, 0, 0)))
    total = 0
    for depth, keys in enumerate(layers):
        for i in range(len(modes) - 1, -1, -1):  # fewest action cards first: closure in one sweep
            bit = (masks >> u(i)) & u(1)
            for s in same[i]:
                masks |= bit << u(s)
        total += _popcount(masks)
        if depth + 1 == len(layers):
            break
        carried = np.zeros(len(keys), dtype=u)
        for i, a in enumerate(after):
            if a >= 0:
                carried |= ((masks >> u(i)) & u(1)) << u(a)
        nxt = np.zeros(len(layers[depth + 1]), dtype=u)
        for left, succ, outcome, _ in model.moves(keys):
            ok = (left > 0) & (outcome == 0)
            if ok.any():
                np.bitwise_or.at(nxt, np.searchsorted(layers[depth + 1], succ[ok]), carried[ok])
        masks = nxt
    return total


def solve_published(state: State, ties: str = "hit", max_states: int = 2_000_000_000, max_bytes: float = 4e9,
                    probabilities: bool = True, count_states: bool = True,
                    record: list[tuple[Any, Any, Any]] | None = None) -> tuple[SoloResult, Any]:  # fmt: skip
    """The optimal solo round from ``state`` under the published turn model (module text).

    Args:
        ties: ``"hit"`` or ``"stay"``: the choice where both are worth the same (within
            `TIE` of the stay value: a true tie, whatever the rounding of the sums).
        max_states, max_bytes: refuse (a `LimitReached` `AnalysisError`) before allocating
            when `published_estimate` passes them.
        probabilities: also solve P(bust) and P(Flip 7) (three times the memory of the
            values; without, they are NaN in the result).
        count_states: count the reachable states (a forward pass; else ``states`` is the
            bases times the modes, an upper bound).
        record: a list to append, per layer from the first card on, ``(keys, hit, hit_values)``:
            the layer's sorted uint64 base keys (n,), the choice (bool, (n, Flip Threes drawn + 1))
            and the value, P(bust) and P(Flip 7) of hitting then playing the policy (float64,
            (n, Flip Threes drawn + 1, 3); NaN probabilities without ``probabilities``), for
            `flip7ref.analysis.policyfile`.  It costs 25 bytes a base and free mode more.

    Returns:
        ``(SoloResult, policy)``: the policy is a list per layer of ``(keys, hit)``, hit a
        bool array (bases, Flip Threes drawn + 1): the choice at each free mode.

    Raises:
        AnalysisError: not covered (`published_supports`), or NumPy missing, or a limit.
    """
    np = _numpy()
    start = time.perf_counter()
    if ties not in ("hit", "stay"):
        raise AnalysisError(f"ties: expected 'hit' or 'stay', got {ties!r}")
    states, need = published_estimate(state, probabilities)
    if states > max_states:
        raise _too_many(max_states)
    if need > max_bytes:
        raise _too_big(need, max_bytes)
    skip, freezes, flips, count = _actions(state)
    model = _Model(state, ties, skip)
    modes = _modes(flips, freezes, count)
    index = {m: i for i, m in enumerate(modes)}
    nm = len(modes)
    # per mode: where a card that changes the base leads (-1: a waiting Freeze stays), and
    # the modes of the same base a Flip Three or a waiting Freeze leads to
    after = [-1 if (forced == 0 and fz) else index[(f3, fz, max(forced - 1, 0))] for f3, fz, forced in modes]
    same: list[list[int]] = []
    for f3, fz, forced in modes:
        nxt = []
        if not (forced == 0 and fz):
            if f3 < flips:
                nxt.append(index[(f3 + 1, fz, count if forced == 0 else forced - 1 + count)])
            if fz < freezes and forced:
                nxt.append(index[(f3, fz + 1, forced - 1)])
        same.append(nxt)
    free = [index[(f3, 0, 0)] for f3 in range(flips + 1) if (f3, 0, 0) in index]
    layers = _enumerate(model)
    q = 3 if probabilities else 1
    total = len(state.draw)
    below: Any = None
    policy: list[tuple[Any, Any]] = []
    for depth in range(len(layers) - 1, -1, -1):
        keys = layers[depth]
        nb = len(keys)
        cur = np.empty((nb + 1, nm, q))
        cur[nb] = 0.0
        hits = np.zeros((nb, len(free)), dtype=bool)
        hit_values = np.full((nb, len(free), 3), np.nan) if record is not None else None
        nxt_keys: Any = layers[depth + 1] if depth + 1 < len(layers) else None
        for lo in range(0, nb, CHUNK):
            hi = min(nb, lo + CHUNK)
            ck = keys[lo:hi]
            n = hi - lo
            acc = np.zeros((n, nm, q))
            ends = np.zeros((q, n))  # the cards that end the round (Flip 7, bust), the same in every mode
            for left, succ, outcome, _ in model.moves(ck):
                live = left > 0
                if below is not None:
                    inner = live & (outcome == 0)
                    if inner.any():  # every base at once: a missing successor reads the zero row
                        idx = np.where(inner, np.searchsorted(nxt_keys, succ), len(nxt_keys))
                        rows = below[idx]
                        rows *= np.where(inner, left, 0).astype(np.float64)[:, None, None]
                        acc += rows
                made = np.flatnonzero(live & (outcome == 2))
                if len(made):
                    lf = left[made].astype(np.float64)
                    ends[0, made] += lf * model.score(succ[made], True)
                    if q == 3:
                        ends[2, made] += lf
                if q == 3:
                    bust = np.flatnonzero(live & (outcome == 1))
                    ends[1, bust] += left[bust].astype(np.float64)
            stay = model.score(ck, False)
            acc_t = np.ascontiguousarray(acc.transpose(1, 2, 0))  # (modes, quantities, bases): rows per mode
            part = np.empty((nm, q, n))
            for i, (f3, fz, forced) in enumerate(modes):
                if after[i] < 0:  # a waiting Freeze, no forced draw left: the player stays
                    part[i] = 0.0
                    part[i, 0] = stay
                    continue
                ev = acc_t[after[i]] + ends
                if f3 < flips:
                    ev += (flips - f3) * part[same[i][0]]
                if fz < freezes:
                    if forced:
                        ev += (freezes - fz) * part[same[i][-1]]
                    else:  # a Freeze at a free choice: stay
                        ev[0] += (freezes - fz) * stay
                ev /= total - depth - f3 - fz
                if forced:
                    part[i] = ev
                    continue
                if depth == 0 and model.forced and (f3, fz) == (0, 0):
                    hit = np.ones(n, dtype=bool)
                else:
                    # a tie is a difference within rounding (TIE of the stake): the order of the
                    # sums differs from the interpreter's, so exact floats would split true ties
                    near = np.abs(ev[0] - stay) <= TIE * np.maximum(stay, 1.0)
                    hit = (ev[0] > stay) | near if ties == "hit" else (ev[0] > stay) & ~near
                hits[lo:hi, free.index(i)] = hit
                if hit_values is not None:
                    hit_values[lo:hi, free.index(i), :q] = ev.T
                part[i] = np.where(hit, ev, 0.0)
                part[i, 0] = np.where(hit, ev[0], stay)
            cur[lo:hi] = part.transpose(2, 0, 1)
        policy.append((keys, hits))
        if record is not None:
            record.append((keys, hits, hit_values))
        below = cur
    policy.reverse()
    if record is not None:
        record.reverse()
    root = below[0, index[(0, 0, 0)]]
    reach = count_states and nm <= 64  # else the bases times the modes, an upper bound
    solved = _reached(model, layers, modes, same, after) if reach else sum(len(k) for k in layers) * nm
    nan = float("nan")
    result = SoloResult(float(root[0]), float(root[1]) if q == 3 else nan, float(root[2]) if q == 3 else nan,
                        solved, time.perf_counter() - start, "optimal")  # fmt: skip
    return result, policy
