"""Strategies that choose decisions, for simulation and traces.

A strategy is any object with a ``name`` and a ``choose(state, rng)`` method
returning one of ``state.legal_actions()``.  :func:`parse_strategy` builds the
ones named on the command line: ``random`` and ``threshold:N``.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, ClassVar, Protocol

from mypy_extensions import mypyc_attr  # native_class=False: stays a plain Python class when compiled (docs/build.md)

from .errors import OptionError
from .game import Game
from .scoring import score_points
from .state import HIT, STAY, Action, State


class Strategy(Protocol):
    """Chooses a decision at a decision node."""

    name: str

    def choose(self, state: State, rng: random.Random) -> Action:
        """Return one of ``state.legal_actions()`` (the state is a decision node)."""
        ...


@mypyc_attr(native_class=False)
class RandomStrategy:
    """Picks a legal action uniformly at random with the given rng."""

    name = "random"

    def choose(self, state: State, rng: random.Random) -> Action:
        """A uniformly random legal action."""
        return rng.choice(state.legal_actions())

    def action_distribution(self, state: State) -> list[tuple[Action, Fraction]]:
        """Every legal action with its probability (all alike), for exact evaluation."""
        legal = state.legal_actions()
        return [(a, Fraction(1, len(legal))) for a in legal]


@mypyc_attr(native_class=False)
class ThresholdStrategy:
    """Hits until the line is worth at least ``threshold`` points, then stays.

    Other decisions, so that every decision of every edition has an answer:

    - Freeze, Flip Three, Flip Four, Just One More, Discard, and modifiers that
      lower a score (-N, ÷2) go to the leader (highest running total plus line
      value) other than itself when possible;
    - Swap and Steal go to itself (the resolver picks the cards); a modifier that
      raises a score goes to itself;
    - picking the cards of a Swap, Steal or Discard: the pick that leaves its own
      line value furthest ahead of the best other line, looking one move ahead;
    - a spare Second Chance goes to the player with the lowest total, a first one
      is kept;
    - Brutal Mode after a Flip 7: -15 to the leading rival if one is level or
      ahead, else +15 to itself.

    Args:
        threshold: points (>= 0) at which the player stays.

    Raises:
        OptionError: ``threshold`` is not a whole number.
    """

    def __init__(self, threshold: Any) -> None:
        if isinstance(threshold, bool) or not isinstance(threshold, int):
            raise OptionError(f"threshold: expected a whole number of points, got {threshold!r}")
        self.threshold = threshold
        self.name = f"threshold:{threshold}"

    def choose(self, state: State, rng: random.Random) -> Action:
        """The threshold decision for the player to act (no randomness used)."""
        if not state.frames and not state.winners:  # an offer of Hit or Stay (F7-030, F7-033)
            seat = state.turn  # an offer goes to an active player: the line's value is its score
            if score_points(state.game, state.players[seat].line) >= self.threshold and state._may_stay(seat):
                return STAY
            return HIT
        return _other_decision(state)


def _other_decision(state: State) -> Action:
    """Every decision but Hit-or-Stay, as :class:`ThresholdStrategy` documents."""
    legal = state.legal_actions()
    seat = state.current_player
    kind, card = state.pending()
    if kind == "cards":
        return max(legal, key=lambda a: (_advantage(state, state._apply_legal(a), seat), [-x for x in a.args]))
    seats = [a.args[0] for a in legal if a.args]
    if kind == "keep_or_give" and seat in seats:
        return Action("target", (seat,))
    if kind == "give":
        return Action("target", (min(seats, key=lambda s: (state.totals[s], s)),))
    others = [s for s in seats if s != seat] or seats

    def standing(s: int) -> tuple[int, int]:
        return (state.totals[s] + state.line_value(s), -s)

    leader = max(others, key=standing)
    if kind == "flip7_bonus":
        return Action("target", (leader if state.totals[leader] >= state.totals[seat] else seat,))
    if card is not None and seat in seats and _helps_receiver(state, card):
        return Action("target", (seat,))
    return Action("target", (leader,))


@mypyc_attr(native_class=False)
class OptimalSoloStrategy:
    """Hit or Stay as the exact optimal solo policy says; other decisions as
    :class:`ThresholdStrategy`.

    The policy is the one that maximises the expected round score of one player
    alone in a round with a fresh deck of the edition's number and modifier
    cards (see :mod:`flip7ref.analysis`; for Flip 7 worth 20.2291054307 points per
    round).  At an offer the player's numbers and modifiers are looked up in it;
    cards seen elsewhere and the other players are not taken into account.  The
    policy is solved at the first decision of each game table and options (about
    a minute for Flip 7 in one process; ``workers`` processes share the solve,
    see :class:`~flip7ref.analysis.SoloSolver`) and kept for the life of the
    process; :meth:`prepare` solves it ahead of time.

    Raises (from :meth:`prepare` / the first decision):
        OptionError: the edition's numbers and modifiers make too many solo
            states to solve exactly (more than :data:`MAX_SOLO_STATES`).
    """

    MAX_SOLO_STATES = 400_000  # Flip 7 needs 262,143; larger solves take many minutes
    _tables: ClassVar[dict[object, dict[tuple[int, ...], bool]]] = {}

    def __init__(self, categories: Any = ("number", "modifier"), *, workers: Any = 1) -> None:
        self.categories = categories
        self.workers = workers  # processes to solve the policy in (SoloSolver(workers=...))
        self.name = "optimal-solo" if categories == ("number", "modifier") else f"optimal-solo[{','.join(categories)}]"

    def prepare(self, game: Game) -> dict[tuple[int, ...], bool]:
        """Solve (or fetch) the policy for ``game``'s edition and options:
        ``{sorted line codes: stay?}``."""
        from .analysis import solo_policy_table

        key = game.edition.id, str(game.edition.path), tuple(sorted(game.options.items())), self.categories
        table = self._tables.get(key)
        if table is None:
            table = solo_policy_table(game, self.MAX_SOLO_STATES, self.categories, workers=self.workers)
            self._tables[key] = table
        return table

    def __getstate__(self) -> dict[str, object]:
        # the solved tables travel with the strategy to worker processes
        return {"categories": self.categories, "name": self.name, "tables": dict(self._tables)}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.categories = state["categories"]
        self.name = state["name"]  # type: ignore[assignment]
        self.workers = 1
        self._tables.update(state["tables"])  # type: ignore[call-overload]

    def choose(self, state: State, rng: random.Random) -> Action:
        """The optimal solo Hit-or-Stay decision; other decisions as threshold:N."""
        if state.frames or state.winners:
            return _other_decision(state)
        seat = state.turn
        stay = self.prepare(state.game).get(tuple(sorted(state.players[seat].line)))
        if stay is None:  # a line the solo deck cannot make (e.g. after a Swap): threshold:20
            stay = state.line_value(seat) >= 20
        return STAY if stay and state._may_stay(seat) else HIT


def _helps_receiver(state: State, card: str) -> bool:
    """Whether a card is best played on oneself (Swap, Steal, a score-raising modifier)."""
    game = state.game
    code = game.code(card)
    effect = game.effect[code]
    if effect is not None:
        return effect.primitive in ("swap", "steal")
    modifier = game.modifier[code]
    return modifier is not None and (modifier[0] == "multiply" or (modifier[0] == "add" and modifier[1] > 0))


def _advantage(before: State, after: State, seat: int) -> int:
    """Own points minus the best rival's, after a move (round scores if the round ended)."""
    if after.round != before.round or after.is_terminal():
        values = list(after.last_scores)
    else:
        values = [after.line_value(s) for s in range(after.num_players)]
    rivals = [v for s, v in enumerate(values) if s != seat]
    return values[seat] - (max(rivals) if rivals else 0)


_NEVER = 10**9  # a threshold no line reaches: always-hit


def parse_strategy(text: Any) -> Strategy:
    """Build a strategy from its name: ``random``, ``threshold:N`` (N >= 0 points),
    ``always-hit`` (hits at every offer; other decisions as threshold:N) or
    ``optimal-solo`` (:class:`OptimalSoloStrategy`).

    Raises:
        OptionError: ``text`` is not a string, an unknown strategy name or a malformed threshold.
    """
    if not isinstance(text, str):
        raise OptionError(f"strategy: expected a strategy name such as 'threshold:20', got {text!r}")
    name, _, arg = text.strip().partition(":")
    if name == "random" and not arg:
        return RandomStrategy()
    if name == "optimal-solo" and not arg:
        return OptimalSoloStrategy()
    if name == "always-hit" and not arg:
        always = ThresholdStrategy(_NEVER)
        always.name = "always-hit"
        return always
    if name == "threshold":
        if not (arg.strip().isascii() and arg.strip().isdigit()):
            raise OptionError(f"strategy {text!r}: expected threshold:N with N a whole number of points, e.g. threshold:20")
        return ThresholdStrategy(int(arg))
    raise OptionError(f"unknown strategy {text!r} (expected random, threshold:N, always-hit or optimal-solo)")
