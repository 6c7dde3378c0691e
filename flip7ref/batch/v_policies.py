"""The threshold strategy of `flip7ref.play.strategies.ThresholdStrategy` for the batched Vengeance
engine (`flip7ref.batch.vengeance.VengeanceState`), as array operations: the same choice at
every Vengeance decision (Brutal Mode off; `flip7ref.batch.lockstep` checks it against the
reference, decision by decision).

- Hit or Stay: Stay once the line is worth ``threshold`` points and Stay is legal (V-031:
  not while holding The Zero), else Hit.
- A target (an action card played, V-042, or a modifier given away, V-050): itself when
  the card helps its receiver (`flip7ref.play.strategies.helps_receiver`: Swap, Steal, a modifier
  that raises a score) and it may take it; else the leader (total plus line value, the
  lowest seat on a tie) among the other legal seats, or among all of them when it alone is.
- The cards of a Swap, Steal or Discard: the strategy looks one move ahead.  Each legal
  pick is played on a copy of the game (`VengeanceState.rows`, ``peek`` set) and its view is taken where
  the reference's settling would stop (a decision, or before the next card is drawn: a
  chance node): its own line value minus the best other line (the round's scores when the
  round ended).  The best pick wins; on a tie the one whose reference action has the
  smallest arguments (seat, then position of the first card of that kind in the line).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from flip7ref.batch import guards
from flip7ref.batch.v_rules import CARDS, HIT, OFFER, PLAY, STAY
from flip7ref.batch.vengeance import VengeanceState
from flip7ref.play.strategies import helps_receiver

Arr = np.ndarray[Any, Any]

__all__ = ["v_threshold_actions"]

_TIE = 10**7  # more than any tie-break key (seat and position, twice: 18 * 40 * 18 * 40)


def _helps(vs: VengeanceState) -> Arr:
    """(C,) bool: card ``c`` is played on oneself when possible (cached on the state's game)."""
    cached: Arr | None = getattr(vs, "_threshold_helps", None)
    if cached is None:
        cached = np.array([helps_receiver(vs.game, card) for card in vs.ids], bool)
        vs._threshold_helps = cached
    return cached


def v_threshold_actions(vs: VengeanceState, games: Arr, threshold: int) -> Arr:
    """`flip7ref.play.strategies.ThresholdStrategy` at the decision of each game of ``games`` (an
    int64 array of game indices) of ``vs``: one action index per game (0 for a game that
    is over).  See the module for the choices.

    Raises:
        OptionError: a game index out of range, negative or not a whole number.
    """
    g = guards.game_indices(games, vs.B, repeats=True)
    actor = np.maximum(vs.actor[g], 0).astype(np.int64)
    kind = vs.kind[g]
    out = np.zeros(g.size, np.int64)
    if g.size == 0:
        return out
    values = vs.line_values(g).astype(np.int64)
    o = kind == OFFER
    if o.any():
        stay = (values[o, actor[o]] >= threshold) & vs.legal[g[o], STAY]
        out[o] = np.where(stay, STAY, HIT)
    t = kind == PLAY
    if t.any():
        seats = vs.legal[g[t], 2 : 2 + vs.P]
        at = actor[t]
        others = seats.copy()
        others[np.arange(at.size), at] = False
        others = np.where(others.any(1, keepdims=True), others, seats)
        standing = vs.totals[g[t]].astype(np.int64) + values[t]
        big = np.int64(1) << 40
        lead = np.argmax(np.where(others, standing, -big), axis=1)
        own = _helps(vs)[np.maximum(vs.card[g[t]], 0)] & seats[np.arange(at.size), at]
        out[t] = 2 + np.where(own, at, lead)
    c = kind == CARDS
    if c.any():
        out[c] = _best_picks(vs, g[c], actor[c])
    return out


def _best_picks(vs: VengeanceState, g: Arr, seat: Arr) -> Arr:
    """The pick of each game of ``g`` (at a card pick, by ``seat``) that `ThresholdStrategy`'s
    one-move lookahead chooses."""
    rows, idx = np.nonzero(vs.legal[g])
    games = g[rows]
    me = seat[rows]
    sub = vs.rows(games)
    m = games.size
    rnd0 = sub.rnd.copy()
    sub.peek = 1  # each game stops before its next card is drawn (or at its next decision)
    sub.step(idx)
    view = _values(sub, np.arange(m), rnd0)
    own = view[np.arange(m), me]
    rival = view.copy()
    rival[np.arange(m), me] = np.iinfo(np.int64).min
    best = rival.max(1) if vs.P > 1 else np.zeros(m, np.int64)
    score = (own - best) * _TIE - _tie_key(vs, games, idx)
    order = np.lexsort((-score, rows))  # by game, best first
    first = np.ones(m, bool)
    first[1:] = rows[order][1:] != rows[order][:-1]
    out = np.zeros(g.size, np.int64)
    out[rows[order][first]] = idx[order][first]
    return out


def _values(sub: VengeanceState, h: Arr, rnd0: Arr) -> Arr:
    """(n, P) what `ThresholdStrategy` compares in the games ``h`` of the lookahead ``sub``:
    the round's scores where the round ended (or the game), else the line values now."""
    ended = (sub.rnd[h] != rnd0[h]) | sub.done[h]
    return np.where(ended[:, None], sub.last_scores[h], sub.line_values(h)).astype(np.int64)


def _tie_key(vs: VengeanceState, games: Arr, idx: Arr) -> Arr:
    """The arguments of the reference action of each pick index ``idx`` (of game ``games``) as
    one number, smaller for lexicographically smaller arguments: a pick names a card kind,
    the reference its first position in the line."""
    L = vs.lorder.shape[2]
    K, P = vs.K, vs.P
    key = np.zeros(games.size, np.int64)

    for verb in ("steal", "discard"):
        start, size = vs.blocks.get(verb, (0, 0))
        m = (idx >= start) & (idx < start + size)
        if m.any():
            s, k = np.divmod(idx[m] - start, K)
            key[m] = (s * L + _first_position(vs, games[m], s, k)) * P * L
    start, size = vs.blocks.get("swap", (0, 0))
    m = (idx >= start) & (idx < start + size)
    if m.any():
        pair, rest = np.divmod(idx[m] - start, K * K)
        ka, kb = np.divmod(rest, K)
        a, b = vs.pairs[pair, 0], vs.pairs[pair, 1]
        gm = games[m]
        key[m] = ((a * L + _first_position(vs, gm, a, ka)) * P + b) * L + _first_position(vs, gm, b, kb)
    return key


def _first_position(vs: VengeanceState, games: Arr, s: Arr, k: Arr) -> Arr:
    """The position of the first card of line kind ``k`` in seat ``s``'s line, per game."""
    row = vs.lorder[games, s]
    found: Arr = np.argmax(row == vs.kcodes[k][:, None].astype(row.dtype), axis=1)
    return found.astype(np.int64)
