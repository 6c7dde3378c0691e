"""Exact analysis on the interpreter's own states.

Everything here is computed by playing the interpreter: chance nodes come from
:meth:`State.chance_weights` / :meth:`State.chance_outcomes`, transitions from
:meth:`State.apply` and :meth:`State.apply_chance`, round scores from the
interpreter's scoring at the end of the round.  No second model of the rules is
involved, so the analysis also exercises the interpreter.

- :func:`next_card` — at an offer (Hit or Stay), the exact probabilities that the
  next card busts the player, makes their Flip 7, or is each card kind.
- :class:`SoloSolver` — the expected round score of one player alone in a round
  (draws without replacement from the cards not yet seen), under the optimal
  solo policy (exact dynamic programming over the interpreter's states, memoised
  on a canonical key) or under any fixed policy such as ``threshold:N``.
- :func:`solo_deck_position` — a fresh one-player round with the deck restricted
  to chosen card categories (the Flip 7 solitaire analysis uses the 79 number
  cards, or the numbers and the six modifiers).
- :func:`solo_projection` — the position one player faces, alone: their line and
  held cards, the draw and discard piles as they are.

Rules involved: F7-030 (Hit or Stay), F7-034 (Stay banks the line), F7-040 and
F7-041 (a duplicate number busts), F7-050 (Flip 7), F7-080 (Second Chance),
F7-090..F7-102 (scoring) — and whatever else the interpreter applies.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
import pickle
import random
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from fractions import Fraction
from multiprocessing.connection import Connection, wait
from typing import Any, Protocol, TypeVar

import attrs

from .errors import CardError, Flip7RefError, OptionError
from .game import ACTION, MODIFIER, Game
from .spec import CATEGORIES
from .state import CHANCE, HIT, STAY, Action, State, _frame_cards

__all__ = [
    "TIES",
    "AnalysisError",
    "NextCard",
    "Policy",
    "SoloResult",
    "SoloSolver",
    "line_position",
    "next_card",
    "solo_deck_position",
    "solo_estimate",
    "solo_policy_table",
    "solo_projection",
]


class AnalysisError(Flip7RefError, ValueError):
    """The state does not fit the analysis asked for (e.g. it is not an offer)."""


class Policy(Protocol):
    """Anything with ``choose(state, rng)`` returning a legal action (a strategy)."""

    def choose(self, state: State, rng: random.Random) -> Action:
        """One of ``state.legal_actions()``."""
        ...


@attrs.frozen
class NextCard:
    """What the next card does to the player offered Hit or Stay.

    Attributes:
        seat: the player to act.
        unseen: how many cards the next card is drawn from (the draw pile, or the
            reshuffled discard pile when the draw pile is empty).
        bust: probability that the next card busts the player (F7-040).
        saved: probability that it is a duplicate a held Second Chance cancels (F7-080).
        flip7: probability that it completes the player's Flip 7 (F7-050).
        kinds: ``(card id, probability)`` for every card kind that can come, in table order.
    """

    seat: int
    unseen: int
    bust: Fraction
    saved: Fraction
    flip7: Fraction
    kinds: tuple[tuple[str, Fraction], ...]

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form; probabilities as ``"p/q"`` strings and floats."""
        return {
            "seat": self.seat,
            "unseen": self.unseen,
            "bust": str(self.bust),
            "bust_float": float(self.bust),
            "saved": str(self.saved),
            "flip7": str(self.flip7),
            "flip7_float": float(self.flip7),
            "kinds": {card: str(p) for card, p in self.kinds},
        }


def _offer_seat(state: State) -> int:
    seat = state.current_player
    if seat < 0 or state.pending()[0] != "offer":
        raise AnalysisError(
            f"the state is not an offer of Hit or Stay (current player {seat}, pending {state.pending()[0]!r})"
        )
    return seat


def next_card(state: State) -> NextCard:
    """Exact odds of the next card for the player offered Hit or Stay.

    The player hits (``state.apply(HIT)``); for each card kind of the resulting
    chance node the interpreter reveals it, and the events say whether the player
    busted, was saved by a Second Chance, or made Flip 7.  In an ordered (seeded)
    state the order of the pile is ignored: the cards not yet seen are equally
    likely.

    Args:
        state: a decision node where the player to act is offered Hit or Stay.

    Returns:
        A :class:`NextCard` with exact :class:`~fractions.Fraction` probabilities.

    Raises:
        AnalysisError: the state is not such an offer.
    """
    seat = _offer_seat(state)
    chance = state.apply(HIT)
    if chance.current_player != -1:  # pragma: no cover - a Hit always draws (F7-031)
        raise AnalysisError("hitting did not lead to a card draw")
    total = sum(n for _, n in chance.chance_weights())
    bust = saved = flip7 = Fraction(0)
    kinds = []
    for card, count in chance.chance_weights():
        p = Fraction(count, total)
        kinds.append((card, p))
        events = chance.apply_chance(card).last_events()
        if any(e.type == "busted" and e.get("seat") == seat for e in events):
            bust += p
        if any(e.type == "second_chance_used" and e.get("seat") == seat for e in events):
            saved += p
        if any(e.type == "flip7" and e.get("seat") == seat for e in events):
            flip7 += p
    return NextCard(seat, total, bust, saved, flip7, tuple(kinds))


@attrs.frozen
class SoloResult:
    """The value of a solo round position.

    Attributes:
        value: expected round score (points) of the player.
        bust: probability that the round ends with the player busted.
        flip7: probability that the player makes Flip 7.
        states: distinct decision states evaluated (memoised).
        seconds: wall time of the computation.
        policy: ``optimal`` or the name of the policy evaluated.
        workers: processes the solve ran in (1 when nothing was shared out: a
            fixed policy, no modifier card to split on, a position solved before).
    """

    value: float | Fraction
    bust: float | Fraction
    flip7: float | Fraction
    states: int
    seconds: float
    policy: str
    workers: int = 1

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form (exact values as ``"p/q"`` strings next to floats)."""
        out: dict[str, Any] = {
            "value": float(self.value),
            "bust": float(self.bust),
            "flip7": float(self.flip7),
            "states": self.states,
            "seconds": self.seconds,
            "policy": self.policy,
            "workers": self.workers,
        }
        if isinstance(self.value, Fraction):
            out["exact"] = {"value": str(self.value), "bust": str(self.bust), "flip7": str(self.flip7)}
        return out


_Triple = tuple[Any, Any, Any]  # (expected score, P(bust), P(Flip 7)), floats or Fractions
_Key = tuple[Any, ...]  # a canonical key (see _canonical), with or without its deck number
_TaskResult = tuple[list[tuple[_Key, _Triple]], list[tuple[_Key, Action]]]
_T = TypeVar("_T")
_NO_RNG = random.Random(0)
TIES = ("hit", "stay")
"""The tie-breaks of :class:`SoloSolver` (``ties``): the action taken when hit and stay are worth the same."""


def _cards(state: State) -> tuple[int, ...]:
    """Every card of ``state`` (pile, discard, lines, held, pending in frames), sorted:
    the same for every state reached from it, as no card leaves the game."""
    cards = [*state.draw, *state.discard]
    for p in state.players:
        cards += p.line
        cards += p.kept
    for f in state.frames:
        cards += _frame_cards(f)
    return tuple(sorted(cards))


def _canonical(state: State, cards: int) -> tuple[Any, ...]:
    """A key equal for states whose futures are the same: lines and held cards as
    multisets (the order of a line never matters to what happens next), no draw
    pile (the cards not elsewhere: an unseen pile has no order).  ``cards``
    numbers the set of all cards (:func:`_cards`), which with the rest of the
    key determines the pile."""
    return (
        cards,
        tuple((tuple(sorted(p.line)), tuple(sorted(p.kept)), p.status) for p in state.players),
        tuple(sorted(state.discard)),
        state.frames,
        state.turn,
        state.flip7,
        state.bonus_to,
    )


class SoloSolver:
    """Expected round score of one player alone, exactly, by dynamic programming.

    The player is the only one to decide: every decision node of the round must
    belong to ``seat`` (a one-player game, e.g. from :func:`solo_deck_position`
    or :func:`solo_projection`).  The round ends when the interpreter scores it;
    the value of an end is the player's score for that round
    (``state.last_scores[seat]``).

    Args:
        policy: None for the optimal policy (at each decision the action of the
            highest expected score; ``ties`` says which of hit and stay is taken
            when their values are equal);
            or a strategy object to evaluate exactly instead: a deterministic
            one (``choose(state, rng)``, e.g. ``threshold:N``, ``always-hit``), or
            one with ``action_distribution(state)`` giving ``(action, probability)``
            pairs (``random``: every legal action alike).
        exact: compute with :class:`~fractions.Fraction` (slower) instead of floats.
        seat: the player (0 in a one-player game).
        max_states: give up (:class:`AnalysisError`) beyond this many decision
            states (memory and time grow with it: about a minute per 262,000
            states of CPython 3.11 on one core).
        ties: ``"hit"`` (the default) or ``"stay"``: the action the optimal policy
            takes at a Hit-or-Stay offer where both have the same expected score
            (exactly equal values: with floats, equal floats).  The value is the
            same either way; P(bust), P(Flip 7) and :meth:`best_actions` are not
            (see docs/analysis.md: the published solitaire figures are those of
            ``"stay"``).  Other decisions keep the first legal action on a tie.
        workers: processes to solve in (see :meth:`solve`); 1 solves in this
            process.  Only the optimal policy is solved in parallel (a fixed
            policy reaches fewer states; it is always evaluated here).  Where
            workers start by forkserver or spawn (see docs/analysis.md), a script
            must solve under ``if __name__ == "__main__":``.
        max_seconds: give up (:class:`AnalysisError`) once a solve has run this
            many seconds of wall time (checked every 256 states, and between
            combinations of a parallel solve); None: no limit.
        progress: called now and then (every 256 states, and after each
            combination of a parallel solve) with the states solved so far.
        cluster: a ``dask.distributed.Client`` (see :mod:`flip7ref.cluster`):
            the parallel part of the optimal solve runs on its workers, one Dask
            task per combination of modifier cards, instead of in ``workers``
            processes; the result is the same.

    Raises:
        OptionError: ``workers`` below 1, ``max_seconds`` not positive; ``ties`` neither ``"hit"`` nor ``"stay"``.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        exact: bool = False,
        seat: int = 0,
        max_states: int = 1_000_000,
        workers: int = 1,
        max_seconds: float | None = None,
        progress: Callable[[int], None] | None = None,
        cluster: Any = None,
        ties: str = "hit",
    ) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise OptionError(f"workers must be a whole number, at least 1 (got {workers!r})")
        if max_seconds is not None and (
            isinstance(max_seconds, bool) or not isinstance(max_seconds, (int, float)) or not max_seconds > 0
        ):
            raise OptionError(f"max_seconds must be a positive number of seconds (got {max_seconds!r})")
        if isinstance(max_states, bool) or not isinstance(max_states, int) or max_states < 1:
            raise OptionError(f"max_states must be a whole number of states, at least 1 (got {max_states!r})")
        if ties not in TIES:
            raise OptionError(f"ties must be one of {', '.join(TIES)} (got {ties!r})")
        self.ties = ties
        self.max_seconds = max_seconds
        self.progress = progress
        self.cluster = cluster
        self._deadline: float | None = None
        self.policy = policy
        self.workers = workers
        self.exact = exact
        self.seat = seat
        self.max_states = max_states
        self._memo: dict[tuple[Any, ...], _Triple] = {}
        self._best: dict[tuple[Any, ...], Action] = {}
        self._open: set[tuple[Any, ...]] = set()
        self._round = 0
        self._decks: dict[tuple[int, ...], int] = {}  # each set of all cards solved over, numbered
        self._deck = 0
        self.workers_used = 1  # processes the last solve ran in: 1 when nothing was shared out

    @property
    def states(self) -> int:
        """Distinct decision states evaluated so far."""
        return len(self._memo)

    def solve(self, state: State) -> SoloResult:
        """The expected round score of ``state`` for the player (see the class).

        With ``workers`` > 1 and the optimal policy, the positions reached by
        drawing each combination of the modifier cards of the draw pile are
        solved first in worker processes (the standard library's process pool),
        fullest first, each worker given the values of the positions it builds
        on; this process then solves ``state`` from those values.  The split only
        schedules the work: every value comes from the same recursion, so the
        result, the states and :meth:`best_actions` are the same for any
        ``workers``.  The split pays because in Flip 7 a modifier stays in the
        line until the round ends (F7-035): the positions after a combination
        lead only to positions holding at least those modifiers.  Where a modifier
        can leave the line (Vengeance's Unlucky 7, V-033) the workers repeat some
        work, with the same result.

        Raises:
            AnalysisError: a decision of the round belongs to another seat; the
                state is terminal; the round can go on forever from here (cards
                cycling through reshuffles); more than ``max_states`` states.
        """
        if state.is_terminal():
            raise AnalysisError("the game is over: nothing to solve")
        start = time.perf_counter()
        self._start_clock()
        self._presolve(state)
        value, bust, flip7 = self._run(state, lambda: self._node(state))
        name = "optimal" if self.policy is None else str(getattr(self.policy, "name", type(self.policy).__name__))
        return SoloResult(value, bust, flip7, len(self._memo), time.perf_counter() - start, name, self.workers_used)

    def action_values(self, state: State) -> dict[str, float | Fraction]:
        """At a decision node of the player: the expected round score after each
        legal action (then following the solver's policy), keyed by action string.

        With ``workers`` > 1 the positions after the decision are solved as in
        :meth:`solve`.

        Raises:
            AnalysisError: as :meth:`solve`.
        """
        self._own(state)
        self._start_clock()
        self._presolve(state)
        return self._run(state, lambda: {str(a): self._after(state.apply(a))[0] for a in state.legal_actions()})

    def best_actions(self) -> dict[tuple[Any, ...], Action]:
        """Every decision state solved so far and its best action, by canonical key:
        ``(deck number, ((sorted line codes, sorted held codes, status), ...), sorted
        discard, frames, turn, flip7, bonus_to)``; the deck number tells apart the sets
        of all cards this solver has met (see docs/analysis.md)."""
        return dict(self._best)

    def best_action(self, state: State) -> Action:
        """The optimal action at a decision node of the player (highest expected score).

        Raises:
            AnalysisError: as :meth:`solve`.
        """
        self._own(state)
        key = _canonical(state, self._deck_of(state))
        if key not in self._best:
            self._run(state, lambda: self._node(state))
        return self._best[key]

    # -- the recursion --------------------------------------------------------

    def _deck_of(self, state: State) -> int:
        """The number of ``state``'s set of all cards, the solve's deck from now on."""
        self._deck = self._decks.setdefault(_cards(state), len(self._decks))
        return self._deck

    def _run(self, state: State, compute: Callable[[], _T]) -> _T:
        self._round = state.round
        self._deck_of(state)
        try:
            return compute()
        except RecursionError:
            self._open.clear()
            raise AnalysisError("the round is too long to solve by recursion from here") from None

    def _start_clock(self) -> None:
        self._deadline = None if self.max_seconds is None else time.perf_counter() + self.max_seconds

    def _check(self) -> None:
        """Report progress; stop once the deadline has passed (``max_seconds``)."""
        if self.progress is not None:
            self.progress(len(self._memo))
        if self._deadline is not None and time.perf_counter() > self._deadline:
            self._open.clear()
            raise AnalysisError(
                f"stopped after {self.max_seconds:g} s (--max-seconds) with {len(self._memo):,} states solved: "
                "restrict the deck (e.g. --cards numbers,modifiers) or allow more time"
            )

    def _too_many(self) -> AnalysisError:
        return AnalysisError(
            f"more than {self.max_states:,} states to solve: restrict the deck (e.g. --cards numbers), "
            "lengthen the line, or raise the limit (--max-states)"
        )

    def _presolve(self, state: State) -> None:
        """Solve, in ``workers`` processes, the positions reached from ``state`` by
        drawing each combination of its pile's modifier cards (see :meth:`solve`);
        their values and best actions join this solver's memo."""
        self.workers_used = 1
        split = _modifier_cards(state)
        alone = self.workers < 2 and self.cluster is None
        if alone or self.policy is not None or not split or state.current_player not in (CHANCE, self.seat):
            return  # (another seat's decision: the recursion says so at once)
        deck = self._deck_of(state)
        most = tuple(n for _, n in split)
        starts = [_drawn(state, self.seat, _combination(split, task)) for task in _combinations(most)]
        if all(s is None or _canonical(s, deck) in self._memo for s in starts):
            return  # solved before (or nothing to solve)
        if self.cluster is not None:
            from .cluster import presolve

            self.workers_used = 1
            plan0 = _Schedule(most, 1)
            setup = (state, self.exact, self.seat, self.max_states, self.ties)
            for memo, best in presolve(
                self.cluster, _solve_combination, setup, _combinations(most), lambda t: _combination(split, t), plan0.above
            ):
                self._merge_task(deck, memo, best)
            from .cluster import size

            self.workers_used = max(1, size(self.cluster)[0])
            return
        workers = _Workers(min(self.workers, len(starts)), (state, self.exact, self.seat, self.max_states, self.ties))
        self.workers_used = workers.count
        plan = _Schedule(most, workers.count)

        def give() -> None:
            for w in workers.idle():
                task = plan.next_for(w)
                if task is not None:
                    workers.send(w, task, (_combination(split, task), plan.seeds(task, w)))

        try:
            while plan.left() or workers.running():
                give()
                finished = workers.results()
                give()  # before unpickling: a worker's next combination of its own needs nothing from these
                for _, task, raw in finished:
                    memo, best = _loaded(raw)
                    plan.results[task] = memo
                    self._merge_task(deck, memo, best)
        finally:
            workers.close()

    def _merge_task(self, deck: int, memo: list[tuple[_Key, _Triple]], best: list[tuple[_Key, Action]]) -> None:
        """Fold one combination's states into the memo (see :meth:`_presolve`)."""
        before = len(self._memo)
        self._memo.update(((deck, *key), value) for key, value in memo)
        self._best.update(((deck, *key), action) for key, action in best)
        if len(self._memo) > max(before, self.max_states):
            raise self._too_many()
        if self._deadline is not None or self.progress is not None:
            self._check()

    def _own(self, state: State) -> None:
        if state.current_player != self.seat:
            who = {-1: "a card is to be drawn", -2: "the game is over"}.get(
                state.current_player, f"seat {state.current_player} decides here"
            )
            raise AnalysisError(
                f"{who}: the solo solver needs a decision of seat {self.seat}, who plays alone "
                "(use a one-player position, e.g. solo_projection)"
            )

    def _leaf(self, state: State) -> _Triple:
        """The round has ended (or the game): the player's round score."""
        score = state.last_scores[self.seat]
        busted = made = False
        for e in state.last_events():
            if e.type == "busted" and e.get("seat") == self.seat:
                busted = True
            elif e.type == "round_scored" and e.get("flip7") == self.seat:
                made = True
        one = Fraction(1) if self.exact else 1.0
        zero = one * 0
        return (score * one, one if busted else zero, one if made else zero)

    def _after(self, state: State) -> _Triple:
        if state.round != self._round or state.winners:  # the round or the game is over (TERMINAL)
            return self._leaf(state)
        return self._node(state)

    def _node(self, state: State) -> _Triple:
        if state.current_player == -1:
            return self._chance(state)
        key = _canonical(state, self._deck)
        known = self._memo.get(key)
        if known is not None:
            return known
        if key in self._open:
            self._open.clear()
            raise AnalysisError(
                "the round can go on forever from here (the same position comes back, e.g. cards cycling "
                "through reshuffles): its expected score is not a finite sum the solver can compute"
            )
        if len(self._memo) >= self.max_states:
            self._open.clear()
            raise self._too_many()
        self._own(state)
        self._open.add(key)
        legal = state.legal_actions()
        distribution = getattr(self.policy, "action_distribution", None)
        if distribution is not None:
            result = self._mix([(p, self._after(state.apply(a))) for a, p in distribution(state)])
            action = legal[0]
        elif self.policy is not None:
            action = self.policy.choose(state, _NO_RNG)
            result = self._after(state.apply(action))
        else:
            best: _Triple | None = None
            if self.ties == "stay" and STAY in legal:  # the first of equal values wins: stay is tried first
                legal = [STAY, *(a for a in legal if a != STAY)]
            action = legal[0]
            for a in legal:
                r = self._after(state.apply(a))
                if best is None or r[0] > best[0]:
                    best, action = r, a
            assert best is not None
            result = best
        self._open.discard(key)
        self._best[key] = action
        self._memo[key] = result
        if not len(self._memo) & 255 and (self._deadline is not None or self.progress is not None):
            self._check()
        return result

    def _mix(self, weighted: list[tuple[Fraction, _Triple]]) -> _Triple:
        value = bust = flip7 = Fraction(0) if self.exact else 0.0
        for p, (v, b, f) in weighted:
            q = p if self.exact else float(p)
            value += q * v
            bust += q * b
            flip7 += q * f
        return (value, bust, flip7)

    def _chance(self, state: State) -> _Triple:
        successors = state._chance_successors(merge_ends=True)  # the same value for every game-ending bust
        total = sum(n for _, n, _ in successors)
        value = bust = flip7 = Fraction(0) if self.exact else 0.0
        leaf, node, round_number, exact = self._leaf, self._node, self._round, self.exact
        last: State | None = None  # the last leaf met, and its value
        ended: _Triple = (0, 0, 0)
        for _, count, child in successors:
            # as self._after(child), inline: most of the solve's steps pass here
            if child is last:  # the shared successor of the game-ending busts (merge_ends)
                v, b, f = ended
            elif child.round != round_number or child.winners:
                v, b, f = ended = leaf(child)
                last = child
            else:
                v, b, f = node(child)
            p = Fraction(count, total) if exact else count / total
            value += p * v
            bust += p * b
            flip7 += p * f
        return (value, bust, flip7)


def _combinations(most: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every combination of at most ``most[i]`` copies of the i-th modifier card but
    the empty one (the solver's own process does that last), fullest first."""
    return sorted(itertools.product(*(range(n + 1) for n in most)), key=lambda t: -sum(t))[:-1]


class _Schedule:
    """Which worker solves which combination of modifier cards, and when (see
    :meth:`SoloSolver.solve`).  A combination is a tuple of counts, one per
    modifier card; it builds on the combinations with one card more.  Its owner
    is the worker named by which of the first few cards it holds, so that a
    worker finds most of what a combination builds on in its own memo; a worker
    with nothing of its own left takes over another's waiting combination."""

    def __init__(self, most: tuple[int, ...], workers: int) -> None:
        self.most = most
        lead = min(len(most), (workers - 1).bit_length())
        self.queues: list[list[tuple[int, ...]]] = [[] for _ in range(workers)]
        for task in _combinations(most):
            self.queues[sum(1 << i for i in range(lead) if task[i]) % workers].append(task)
        self.results: dict[tuple[int, ...], list[tuple[_Key, _Triple]]] = {}  # the finished combinations
        self.has: list[set[tuple[int, ...]]] = [set() for _ in range(workers)]  # given to, or sent to, a worker

    def above(self, task: tuple[int, ...]) -> list[tuple[int, ...]]:
        """The combinations with one card more."""
        return [(*task[:i], task[i] + 1, *task[i + 1 :]) for i in range(len(task)) if task[i] < self.most[i]]

    def left(self) -> bool:
        return any(self.queues)

    def _ready(self, task: tuple[int, ...], w: int) -> bool:
        return all(t in self.has[w] or t in self.results for t in self.above(task))

    def next_for(self, w: int) -> tuple[int, ...] | None:
        """A combination worker ``w`` can be given now, taken off its queue, or None."""
        queue = self.queues[w]
        if queue:
            return queue.pop(0) if self._ready(queue[0], w) else None
        for other in self.queues:  # another worker's, but never the one it does next
            for i in range(1, len(other)):
                if self._ready(other[i], w):
                    return other.pop(i)
        return None

    def seeds(self, task: tuple[int, ...], w: int) -> list[tuple[_Key, _Triple]]:
        """What worker ``w``, given ``task``, needs and lacks of the results; it has them from now."""
        out = [entry for t in self.above(task) if t not in self.has[w] for entry in self.results[t]]
        self.has[w].update(self.above(task))
        self.has[w].add(task)
        return out


def _modifier_cards(state: State) -> list[tuple[int, int]]:
    """``(card code, copies)`` of each modifier card in the draw pile, by code."""
    category = state.game.category
    return sorted(Counter(c for c in state.draw if category[c] == MODIFIER).items())


def _drawn(state: State, seat: int, cards: Iterable[int]) -> State | None:
    """The position after ``seat`` hits and draws each of ``cards`` in turn (the
    first drawn at once if ``state`` is a chance node); None if it is not a
    decision of ``seat`` in the same round."""
    start = state
    for code in cards:
        if state.current_player == seat and HIT in state.legal_actions():
            state = state.apply(HIT)
        if state.current_player != CHANCE:
            return None
        state = state.apply_chance(state.game.card_ids[code])
    if state.current_player != seat or state.round != start.round or state.winners:
        return None
    return state


def _combination(split: list[tuple[int, int]], task: tuple[int, ...]) -> tuple[int, ...]:
    """The card codes of a combination: ``task[i]`` copies of the i-th modifier card."""
    return tuple(code for (code, _), n in zip(split, task, strict=True) for _ in range(n))


class _Workers:
    """Worker processes of a parallel solve, each with its own solver and memo,
    given one combination at a time over a pipe (see :meth:`SoloSolver.solve`).

    Started with the platform's way of starting processes; where that is fork and
    another thread is running (a progress display), with forkserver instead, as
    forking a process with threads can leave the child stuck on a lock.  A worker
    ends when the pipe closes, so none outlives the solver's process."""

    def __init__(self, count: int, setup: tuple[State, bool, int, int, str]) -> None:
        method = multiprocessing.get_start_method()
        if method == "fork" and threading.active_count() > 1 and "forkserver" in multiprocessing.get_all_start_methods():
            method = "forkserver"
        context: Any = multiprocessing.get_context(method)  # (typeshed's BaseContext has no Process)
        self.count = count
        self.pipes: list[Connection] = []
        self.processes: list[Any] = []
        self.given: list[tuple[int, ...] | None] = [None] * count  # the combination each worker is solving
        for _ in range(count):
            ours, theirs = context.Pipe()
            # a forked worker holds copies of this process's pipe ends, its own and the earlier
            # workers': it closes them, or no worker would see its pipe close when this process ends
            inherited = [*self.pipes, ours] if method == "fork" else []
            args = (theirs, inherited, *setup)
            process = context.Process(target=_worker_main, args=args, daemon=True, name="flip7ref-solve")
            process.start()
            theirs.close()
            self.pipes.append(ours)
            self.processes.append(process)

    def running(self) -> bool:
        return any(task is not None for task in self.given)

    def idle(self) -> list[int]:
        return [w for w in range(self.count) if self.given[w] is None]

    def send(self, w: int, task: tuple[int, ...], message: object) -> None:
        self.pipes[w].send(message)
        self.given[w] = task

    def results(self) -> list[tuple[int, tuple[int, ...], bytes]]:
        """Wait for at least one worker to finish; ``(worker, combination, result)``
        for each that did, the result still pickled (see :func:`_loaded`)."""
        busy = [self.pipes[w] for w in range(self.count) if self.given[w] is not None]
        assert busy, "every combination left waits for another"  # cannot happen: see _Schedule
        out = []
        for pipe in wait(busy):
            w = self.pipes.index(pipe)  # type: ignore[arg-type]
            try:
                raw = self.pipes[w].recv_bytes()
            except EOFError:
                raise AnalysisError(f"a solver process ended unexpectedly (exit code {self.processes[w].exitcode})") from None
            task = self.given[w]
            assert task is not None
            out.append((w, task, raw))
            self.given[w] = None
        return out

    def close(self) -> None:
        for pipe in self.pipes:
            pipe.close()  # an idle worker sees the end of its pipe and stops
        for process in self.processes:
            process.join(timeout=0.5)
            if process.is_alive():  # busy with a combination no longer wanted
                process.terminate()
                process.join()


def _loaded(raw: bytes) -> _TaskResult:
    """A worker's result from its pickled message; raises what the worker raised
    (e.g. AnalysisError)."""
    ok, payload = pickle.loads(raw)
    if not ok:
        raise payload
    result: _TaskResult = payload
    return result


def _worker_main(
    pipe: Connection, inherited: list[Connection], state: State, exact: bool, seat: int, max_states: int, ties: str
) -> None:
    """A worker process: solve each combination received until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the solver's process's to handle
    for other in inherited:
        other.close()
    solver = SoloSolver(exact=exact, seat=seat, max_states=max_states, ties=ties)
    while True:
        try:
            cards, seeds = pipe.recv()
        except (EOFError, OSError):
            return
        try:
            message: tuple[bool, object] = (True, _presolve_task(solver, state, cards, seeds))
        except Flip7RefError as exc:
            message = (False, exc)
        try:
            pipe.send(message)
        except OSError:  # the solver's process is gone
            return


def _presolve_task(
    solver: SoloSolver, state: State, cards: tuple[int, ...], seeds: list[tuple[_Key, _Triple]]
) -> _TaskResult:
    """In a worker: solve the position after drawing ``cards`` from ``state`` (see
    :meth:`SoloSolver.solve`), given the values ``seeds`` of other workers; return
    the states solved here, keys without the deck number."""
    deck = solver._deck_of(state)
    solver._memo.update(((deck, *key), value) for key, value in seeds)
    start = _drawn(state, solver.seat, cards)
    if start is None:
        return [], []
    known, decided = len(solver._memo), len(solver._best)
    solver._run(start, lambda: solver._node(start))
    return (
        [(key[1:], value) for key, value in itertools.islice(solver._memo.items(), known, None)],
        [(key[1:], action) for key, action in itertools.islice(solver._best.items(), decided, None)],
    )


def _solve_combination(setup: tuple[State, bool, int, int, str], cards: tuple[int, ...], *above: _TaskResult) -> _TaskResult:
    """A Dask task of a parallel solve (:func:`flip7ref.cluster.presolve`): solve
    the position after drawing ``cards`` in a fresh solver given the states of
    the combinations with one card more (``above``: their tasks' results), and
    return the states solved here, as :func:`_presolve_task` does."""
    state, exact, seat, max_states, ties = setup
    solver = SoloSolver(exact=exact, seat=seat, max_states=max_states, ties=ties)
    seeds = [entry for memo, _ in above for entry in memo]
    return _presolve_task(solver, state, cards, seeds)


def usable_cores() -> int:
    """The processors this process may run on (at least 1)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def solo_deck_position(game: Game, categories: Iterable[str]) -> State:
    """A fresh one-player round whose deck holds only the given card categories.

    The player's running total starts at the target score, so that the game ends
    with this round (only the round score is measured; no next round is dealt).

    Args:
        game: a one-player game.
        categories: any of ``number``, ``modifier``, ``action``; e.g. ``["number"]``
            for the 79 number cards of Flip 7, ``["number", "modifier"]`` for those
            and the six modifiers.

    Returns:
        The open state (no pile order) at the first card of the deal.

    Raises:
        OptionError: the game has more than one player, or an unknown category.
    """
    if game.players != 1:
        raise OptionError(f"a solo round needs a one-player game, got {game.players} players")
    wanted = set()
    for name in categories:
        if name not in CATEGORIES:
            raise OptionError(f"unknown card category {name!r} (expected one of {', '.join(CATEGORIES)})")
        wanted.add(CATEGORIES.index(name))
    deck = [game.card_ids[c] for c in sorted(game.deck) if game.category[c] in wanted]
    return game.new_position(draw=deck, rest="out", seed=None, deal=True, totals=[game.target_score])


def solo_projection(state: State) -> State:
    """The offer ``state`` presents to the player to act, with everyone else gone.

    A one-player position of the same edition and options: the player's line,
    held cards, the same draw pile (as unseen cards, no order)
    and discard pile.  Other players' cards are out of the game.  Useful to ask
    what the player can expect from the rest of the round on their own.  As in
    :func:`solo_deck_position` the running total is set at the target score so
    the game ends with the round.

    Raises:
        AnalysisError: ``state`` is not an offer of Hit or Stay.
    """
    seat = _offer_seat(state)
    game = state.game
    solo = Game(game.edition, 1, game.options)
    ids = game.card_ids
    p = state.players[seat]
    return solo.new_position(
        lines={0: [ids[c] for c in p.line]},
        kept={0: [ids[c] for c in p.kept]},
        draw=[ids[c] for c in sorted(state.draw)],
        discard=[ids[c] for c in state.discard],
        totals=[solo.target_score],
        round_number=state.round,
        seed=None,
        rest="out",
    )


def line_position(game: Game, line: Iterable[str], seen: Iterable[str] = ()) -> State:
    """A one-player offer: ``line`` in front of the player, ``seen`` cards gone
    (discarded), every other card of the deck unseen in the draw pile (open: no
    order).  The running total is set at the target score (see
    :func:`solo_deck_position`).

    Args:
        game: a one-player game.
        line: card names: numbers and modifiers, and at most a held Second Chance.
        seen: card names already out of the deck (they sit in the discard pile,
            so they come back if the draw pile runs out and is reshuffled).

    Returns:
        The settled state: normally an offer of Hit or Stay to seat 0.

    Raises:
        CardError: an unknown card, more copies than the deck holds, a string
            instead of a list, an action card other than a Second Chance, or a
            line no game reaches (a duplicate number, a whole Flip 7).
        OptionError: ``game`` is not a one-player game.
    """
    if game.players != 1:
        raise OptionError(f"a solo position needs a one-player game, got {game.players} players")
    if isinstance(line, str) or isinstance(seen, str):
        raise CardError("line and seen are lists of card names, e.g. ['3', '11', 'x2'], not one string")
    line = list(line)
    numbers = [c for c in line if game.category[game.code(c)] != ACTION]
    kept = [c for c in line if game.category[game.code(c)] == ACTION]
    for card in kept:
        effect = game.effect[game.code(card)]
        if effect is None or effect.primitive != "bust_shield":
            raise CardError(
                f"{card!r} is an action card resolved as soon as it is drawn; only a held Second Chance "
                "can lie in front of a player who is offered Hit or Stay"
            )
    return game.new_position(
        lines={0: numbers}, kept={0: kept}, discard=list(seen), seed=None, rest="below", totals=[game.target_score]
    )


#: CPU microseconds per solved state measured here (benchmarks/solve_cost.py,
#: CPython 3.11 on one core of a 2-core x86_64 sandbox): the estimates of
#: :func:`solo_estimate` divide by these.
US_PER_STATE = {"numbers": 250.0, "actions": 2700.0}


def solo_estimate(game: Game, categories: Iterable[str]) -> tuple[int, bool, float]:
    """How big the solve of :func:`solo_deck_position` ``(game, categories)`` is
    likely to be, before solving it: ``(states, rough, cpu_seconds)``.

    Without action cards ``states`` is the number of lines the player can hold at
    an offer (fewer than ``flip7_distinct`` distinct numbers, any sub-multiset
    of the modifier cards; 262,144 for Flip 7's numbers and modifiers, which
    solves 262,143), and ``rough`` is False.  With action cards it is that
    count times every sub-multiset of the action cards, only an order of
    magnitude (``rough`` True): a Freeze ends a solo round, while the positions
    inside a Flip Three and the duplicates a Second Chance discards add many
    more (the whole 94-card Flip 7 deck has about 1.2 x 10^9).  ``cpu_seconds``
    is ``states`` times the cost per state measured here (:data:`US_PER_STATE`).

    Raises:
        OptionError: ``game`` has more than one player, or an unknown category.
    """
    deck = solo_deck_position(game, categories)
    solo = deck.game
    counts = Counter(solo.code(c) for c in (solo.card_ids[x] for x in deck.draw))
    ranks = {solo.rank[c] for c in counts if solo.category[c] != ACTION and solo.modifier[c] is None}
    lines = sum(math.comb(len(ranks), k) for k in range(solo.flip7_distinct))
    mods = math.prod(n + 1 for c, n in counts.items() if solo.category[c] == MODIFIER)
    acts = math.prod(n + 1 for c, n in counts.items() if solo.category[c] == ACTION)
    states = lines * mods * acts
    cost = US_PER_STATE["actions" if acts > 1 else "numbers"]
    return states, acts > 1, states * cost / 1e6


def solo_policy_table(
    game: Game,
    max_states: int = 400_000,
    categories: Iterable[str] = ("number", "modifier"),
    *,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    cluster: Any = None,
    ties: str = "hit",
) -> dict[tuple[int, ...], bool]:
    """The optimal solo policy for ``game``'s numbers and modifiers, as a table.

    Solves :func:`solo_deck_position` with ``categories`` (default ``number`` and
    ``modifier``) for a one-player copy of ``game`` and returns ``{line: stay?}``
    where ``line`` is the sorted tuple of card codes in front of the player at an
    offer.  ``workers``: processes to solve in, or ``cluster`` a Dask client (see
    :meth:`SoloSolver.solve`); ``progress(states solved, states expected)`` is
    called as the solve goes; ``ties``: the action of a line where hit and stay
    are worth the same (see :class:`SoloSolver`).

    Raises:
        OptionError: the solo state space is estimated (:func:`solo_estimate`)
            above ``max_states``; ``ties`` unknown.
    """
    solo = Game(game.edition, 1, game.options)
    categories = tuple(categories)
    estimate = solo_estimate(solo, categories)[0]
    if estimate > max_states:
        raise OptionError(
            f"the optimal solo policy of {solo.edition.id} would need about {estimate:,} states; "
            f"at most {max_states:,} are solved"
        )
    tick = None if progress is None else (lambda n: progress(n, estimate))
    solver = SoloSolver(max_states=max_states, workers=workers, progress=tick, cluster=cluster, ties=ties)
    solver.solve(solo_deck_position(solo, categories))
    table: dict[tuple[int, ...], bool] = {}
    for key, action in solver.best_actions().items():
        table[key[1][0][0]] = action == STAY
    return table
