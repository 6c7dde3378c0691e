"""The compact-key solo solver: `CompactSolver`, the optimal solo round over
states that hold only what the rules make relevant, solved layer by layer with
NumPy array operations.

`SoloSolver` plays every transition through the interpreter and memoises
whole positions.  Where the cards still to come are plain numbers, plain
modifiers and bust shields (Second Chance), the future of a one-player round
depends on much less: which number ranks and which modifiers the line holds,
whether a shield is held, how many shields have been drawn, and per rank how
many duplicates a shield cancelled.  That is the key here, packed into one
64-bit integer (`_Model` derives its fields from the edition table: the
cards of the pile, their categories, ranks, modifier values and effects).  The
draw pile is not stored: it is the root's pile minus what the key says was
drawn.  Every draw adds one card to that count, so the states fall into layers
by cards drawn; the solve enumerates them forward (sorted key arrays) and
values them backward, a whole layer at a time.

The interpreter stays the authority: `tests/test_compact_solver.py` checks
this solver against `SoloSolver` on every deck both can solve (values to
1e-12, the same policy).  Rules modelled: F7-030/F7-034 (Hit or Stay), F7-040
(a duplicate busts), F7-050 (Flip 7 ends the round), F7-080 (a held Second
Chance cancels a duplicate; a second one drawn while holding one is
discarded, nobody else being in the round), F7-090..F7-102 (scoring: the
numbers, times the multipliers, plus the adders, plus the Flip 7 bonus; the
tables come from `flip7ref.core.scoring.score_points`).
"""

from __future__ import annotations

import time
from typing import Any

from flip7ref.analysis.base import AnalysisError, SoloResult, _too_many
from flip7ref.analysis.compact_model import _count, _enumerate, _Model, _numpy, _too_big, _unsupported
from flip7ref.core.game import NUMBER
from flip7ref.core.state import HIT, STAY, Action, State

#: Bytes a state costs at the peak of a solve (measured, docs/analysis.md): its key and
#: policy bit kept for the whole solve, the values of two layers and the temporary arrays
#: of a layer's successors.  `compact_estimate` multiplies by it.
BYTES_PER_STATE = 64.0
#: CPU microseconds a state costs (measured, docs/analysis.md; NumPy, one core).
US_PER_STATE = 4.0


class CompactSolver:
    """The optimal solo round by the compact key (see the module's text): expected
    round score, P(bust), P(Flip 7), under the optimal policy.

    Args:
        ties (str): ``"hit"`` or ``"stay"``, as in `SoloSolver`: the action taken when
            both are worth exactly the same (equal floats).
        max_states (int): refuse (`AnalysisError`, a `LimitReached`) a solve whose
            estimate (`compact_estimate`) exceeds this many decision states.
        max_bytes (float): refuse a solve whose estimated peak memory exceeds this.

        turn_model (str): ``"rules"`` (the default: the solo turn as the interpreter
            plays it; no Freeze or Flip Three) or ``"published"``: the solo turn of the
            published solitaire analysis, which also covers Freeze and Flip Three and
            differs from the rules' reading in one sequence (`flip7ref.analysis.published`).
        probabilities (bool): with ``"published"``, also solve P(bust) and P(Flip 7)
            (three times the memory; without, they are NaN).
        keep_values (bool): keep, after `solve`, `value_layers`: per layer of states (cards
            drawn from the root, the deal's first card first) ``(keys, hit, hit_values)``:
            the sorted uint64 keys (n,), the choice (bool, (n, m)) and the value, P(bust) and
            P(Flip 7) of hitting then playing the policy (float64, (n, m, 3)); m is 1 for
            ``"rules"``, the Flip Threes in the deck plus one for ``"published"`` (a column per
            Flip Threes drawn).  What `flip7ref.analysis.policyfile` stores; 25 bytes a
            state more.

    After `solve`, `policy` maps each decision state to hit (True) or stay,
    keyed as ``(sorted line codes, held shields, sorted codes cancelled or
    discarded since the root)`` (the ``"rules"`` model; ``published_policy`` holds
    the published model's, per layer).
    """

    def __init__(self, ties: str = "hit", max_states: int = 100_000_000, max_bytes: float = 4e9,
                 turn_model: str = "rules", probabilities: bool = True, keep_values: bool = False) -> None:  # fmt: skip
        if ties not in ("hit", "stay"):
            raise AnalysisError(f"ties: expected 'hit' or 'stay', got {ties!r}")
        if turn_model not in ("rules", "published"):
            raise AnalysisError(f"turn_model: expected 'rules' or 'published', got {turn_model!r}")
        self.turn_model = turn_model
        self.probabilities = probabilities
        self.published_policy: list[tuple[Any, Any]] = []
        self.keep_values = keep_values
        self.value_layers: list[tuple[Any, Any, Any]] = []
        self.ties = ties
        self.max_states = max_states
        self.max_bytes = max_bytes
        self._layers: list[tuple[Any, Any]] = []
        self._model: _Model | None = None
        self._root: tuple[float, float, bool] | None = None
        self.states = 0
        """Decision states of the last solve."""

    @staticmethod
    def supports(state: State, turn_model: str = "rules") -> str:
        """'' when the compact model covers ``state``, else why not (one line):
        a one-player offer (or the first card of a solo deal) whose cards to come
        are numbers and modifiers without traits (adders and multipliers, one copy
        each) and Second Chances, under rules that score the line as numbers times
        multipliers plus adders plus the Flip 7 bonus; with ``turn_model="published"``
        Freezes and Flip Threes as well (`published.published_supports`)."""
        if turn_model == "published":
            from flip7ref.analysis.published import published_supports

            return published_supports(state)
        return _unsupported(state)

    def solve(self, state: State) -> SoloResult:
        """Solve from ``state``: a `SoloResult` (floats; ``states`` counts the decision
        states, as `SoloSolver` does; ``policy`` is ``optimal``).

        Raises:
            AnalysisError: the position is not covered (`supports`), or NumPy is missing;
                a `LimitReached` one when the estimate exceeds ``max_states`` or
                ``max_bytes`` (before anything is allocated).
        """
        if self.turn_model == "published":
            from flip7ref.analysis.published import solve_published

            self.value_layers = []
            record = self.value_layers if self.keep_values else None
            result, self.published_policy = solve_published(state, self.ties, self.max_states, self.max_bytes,
                                                            self.probabilities, record=record)  # fmt: skip
            self._model, self._layers, self._root = None, [], None
            self.states = result.states
            return result
        np = _numpy()
        start = time.perf_counter()
        model = _Model(state, self.ties)
        states, _ = _count(model)
        if states > self.max_states:
            raise _too_many(self.max_states)
        need = states * BYTES_PER_STATE
        if need > self.max_bytes:
            raise _too_big(need, self.max_bytes)
        layers = _enumerate(model)
        self._model = model
        below: tuple[Any, Any, Any] | None = None
        pol_layers: list[tuple[Any, Any]] = []
        self.value_layers = []
        for depth in range(len(layers) - 1, -1, -1):
            keys = layers[depth]
            total = model.total - depth
            value = np.zeros(len(keys))
            bust = np.zeros(len(keys))
            flip7 = np.zeros(len(keys))
            after = layers[depth + 1] if depth + 1 < len(layers) else None
            for left, succ, outcome, _ in model.moves(keys):
                q = left.astype(np.float64) / total if total > 0 else np.zeros(len(keys))
                v = np.zeros(len(keys))
                b = np.zeros(len(keys))
                f = np.zeros(len(keys))
                inner = (outcome == 0) & (left > 0)
                if after is not None and below is not None and inner.any():
                    idx = np.searchsorted(after, succ[inner])
                    v[inner], b[inner], f[inner] = below[0][idx], below[1][idx], below[2][idx]
                b[outcome == 1] = 1.0
                made = outcome == 2
                if made.any():
                    v[made] = model.score(succ[made], True)
                    f[made] = 1.0
                value += q * v
                bust += q * b
                flip7 += q * f
            if self.keep_values:
                self.value_layers.append((keys, None, np.stack([value, bust, flip7], axis=1)[:, None, :]))
            if depth == 0 and model.forced:
                hit = np.ones(1, dtype=bool)
            else:
                stay = model.score(keys, False)
                hit = value >= stay if self.ties == "hit" else value > stay
                if depth == 0:
                    self._root = (float(value[0]), float(stay[0]), bool(hit[0]))
                value = np.where(hit, value, stay)
                bust = np.where(hit, bust, 0.0)
                flip7 = np.where(hit, flip7, 0.0)
            pol_layers.append((keys, hit))
            if self.keep_values:
                self.value_layers[-1] = (keys, hit[:, None], self.value_layers[-1][2])
            below = (value, bust, flip7)
        assert below is not None
        pol_layers.reverse()
        self.value_layers.reverse()
        self._layers = pol_layers
        solved = self.states = sum(len(k) for k in layers) - (1 if model.forced else 0)
        return SoloResult(float(below[0][0]), float(below[1][0]), float(below[2][0]), solved,
                          time.perf_counter() - start, "optimal")  # fmt: skip

    def action_values(self, state: State) -> dict[str, float]:
        """At an offer of Hit or Stay (not the first card of a deal): the expected round
        score after each legal action, then playing the optimal policy, keyed by action
        string (as `SoloSolver.action_values`); `best_action` is then the solved choice.

        Raises:
            AnalysisError: as `solve`, or ``state`` is not an offer.
        """
        if state.current_player != 0:
            raise AnalysisError("the compact solver gives action values at an offer of Hit or Stay only")
        if self.turn_model == "published":
            raise AnalysisError("the published turn model gives the value of a whole round only (solve)")
        self._root = None
        self.solve(state)
        assert self._root is not None
        hit, stay, _ = self._root
        return {str(a): hit if a == HIT else stay for a in state.legal_actions()}

    def best_action(self) -> Action:
        """The optimal action at the offer of the last `action_values` (HIT or STAY).

        Raises:
            AnalysisError: no offer was solved.
        """
        if self._root is None:
            raise AnalysisError("no offer solved yet: call action_values first")
        return HIT if self._root[2] else STAY

    def policy(self) -> dict[tuple[tuple[int, ...], int, tuple[int, ...]], bool]:
        """The solved policy: ``{(sorted line codes, held shields, sorted codes cancelled
        or discarded since the root): hit?}`` for every decision state of the last
        solve (the forced first card of a deal excluded).  A dictionary of Python
        objects: meant for the tests and small decks."""
        model = self._model
        if model is None:
            return {}
        out = {}
        nr, nm = len(model.ranks), len(model.mods)
        rank_code = {model.game.rank[c]: c for _, c, _, _ in model.kinds if model.game.category[c] == NUMBER}
        for r in model.ranks:
            rank_code.setdefault(
                r, next(c for c in range(len(model.game.rank)) if model.game.category[c] == NUMBER and model.game.rank[c] == r)
            )
        for depth, (keys, hit) in enumerate(self._layers):
            if depth == 0 and model.forced:
                continue
            for key, h in zip(keys.tolist(), hit.tolist(), strict=True):
                line = [rank_code[model.ranks[i]] for i in range(nr) if key >> i & 1]
                line += [model.mods[i] for i in range(nm) if key >> (model.mod_off + i) & 1]
                held = key >> model.held_off & 1
                seen = (key >> model.seen_off) & ((1 << (model.extra_off - model.seen_off)) - 1)
                gone: list[int] = []
                for i in range(nr):
                    gone += [rank_code[model.ranks[i]]] * int(model.extra(key, i))
                if model.shield is not None:
                    gone += [model.shield] * (model.held0 + seen - held)
                out[(tuple(sorted(line)), held, tuple(sorted(gone)))] = bool(h)
        return out


def compact_estimate(state: State) -> tuple[int, float]:
    """``(states, bytes)``: the decision states the compact solve of ``state``
    meets (counted, not enumerated: exact on the full decks, an upper bound
    otherwise; the first card of a deal counts as one) and the peak memory that
    means (`BYTES_PER_STATE` each).  CPU seconds: ``states * US_PER_STATE / 1e6``.

    Raises:
        AnalysisError: the position is not covered (`CompactSolver.supports`).
    """
    states, _ = _count(_Model(state, "hit"))
    return states, states * BYTES_PER_STATE
