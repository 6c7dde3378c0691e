"""Exact analysis on the interpreter's own states.

Everything here is computed by playing the interpreter: chance nodes come from
`State.chance_weights` / `State.chance_outcomes`, transitions from
`State.apply` and `State.apply_chance`, round scores from the
interpreter's scoring at the end of the round.  No second model of the rules is
involved, so the analysis also exercises the interpreter.

- `next_card` — at an offer (Hit or Stay), the exact probabilities that the
  next card busts the player, makes their Flip 7, or is each card kind.
- `SoloSolver` — the expected round score of one player alone in a round
  (draws without replacement from the cards not yet seen), under the optimal
  solo policy (exact dynamic programming over the interpreter's states, memoised
  on a canonical key) or under any fixed policy such as ``threshold:N``.
- `solo_deck_position` — a fresh one-player round with the deck restricted
  to chosen card categories (the Flip 7 solitaire analysis uses the 79 number
  cards, or the numbers and the six modifiers).
- `solo_projection` — the position one player faces, alone: their line and
  held cards, the draw and discard piles as they are.
- `restrict_categories` — a one-player position with the unseen action cards (or
  other categories) taken out: a solve of hours becomes one of seconds, with the
  caveat of its docstring (it is another deck's value).

Rules involved: F7-030 (Hit or Stay), F7-034 (Stay banks the line), F7-040 and
F7-041 (a duplicate number busts), F7-050 (Flip 7), F7-080 (Second Chance),
F7-090..F7-102 (scoring) — and whatever else the interpreter applies.

The package's modules, one job each (every name is imported from
``flip7ref.analysis``):

- `base` — `AnalysisError`, `Policy`,
  `SoloResult` and the shapes of the values solvers exchange;
- `odds` — `next_card`;
- `solver` — `SoloSolver`: the recursion, the memo
  and its canonical keys, tie-breaks (`TIES`), limits, the Dask task;
- `parallel` — the parallel solve: combinations of
  modifier cards, their schedule, worker processes over pipes, `usable_cores`;
- `positions` — `solo_deck_position`,
  `solo_projection`, `line_position`;
- `estimate` — `solo_estimate`, `position_estimate`, `US_PER_STATE`, `LargeSolveWarning`;
- `compact` — `CompactSolver`, `compact_estimate`: the compact-key solver (NumPy);
- `published` — `published_estimate`, `published_supports`: the published solitaire turn
  over the whole deck (Freeze, Flip Three), `CompactSolver(turn_model="published")`;
- `tables` — `solo_policy_table`, `check_solo_policy` (its size, refused before solving);
- `policyfile` — `write_policy`, `load_policy`, `StoredPolicy`, `PolicyAnswer`: a solved
  policy stored in a file and asked per line without solving.
"""

from flip7ref import compiled as _compiled
from flip7ref.analysis.base import AnalysisError, Policy, SoloResult
from flip7ref.analysis.compact import CompactSolver, compact_estimate
from flip7ref.analysis.estimate import US_PER_STATE as US_PER_STATE
from flip7ref.analysis.estimate import LargeSolveWarning, position_estimate, solo_estimate
from flip7ref.analysis.odds import NextCard, next_card
from flip7ref.analysis.parallel import usable_cores as usable_cores
from flip7ref.analysis.policyfile import PolicyAnswer, StoredPolicy, load_policy, write_policy
from flip7ref.analysis.positions import line_position, restrict_categories, solo_deck_position, solo_projection
from flip7ref.analysis.published import published_estimate, published_supports
from flip7ref.analysis.solver import TIES, SoloSolver
from flip7ref.analysis.solver import _canonical as _canonical
from flip7ref.analysis.solver import _cards as _cards
from flip7ref.analysis.tables import check_solo_policy, solo_policy_table

if _compiled:  # help(SoloSolver) shows the source's documentation (flip7ref.core.compiled_docs)
    from flip7ref.core.compiled_docs import restore as _restore_docs

    _restore_docs(("flip7ref.analysis.solver",))

__all__ = [
    "TIES",
    "AnalysisError",
    "CompactSolver",
    "LargeSolveWarning",
    "NextCard",
    "Policy",
    "PolicyAnswer",
    "SoloResult",
    "SoloSolver",
    "StoredPolicy",
    "check_solo_policy",
    "compact_estimate",
    "line_position",
    "load_policy",
    "next_card",
    "position_estimate",
    "published_estimate",
    "published_supports",
    "restrict_categories",
    "solo_deck_position",
    "solo_estimate",
    "solo_policy_table",
    "solo_projection",
    "write_policy",
]
