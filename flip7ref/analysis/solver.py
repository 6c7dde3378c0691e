"""The solo solver: `SoloSolver`, the expected round score of one player
alone by exact dynamic programming over the interpreter's states (memoised on a
canonical key, `flip7ref.analysis.keys`; ties, state and time limits,
progress).  The scheduling, the worker processes and the Dask task of a
parallel solve are in `flip7ref.analysis.parallel`."""

from __future__ import annotations

import functools
import gc
import importlib
import random
import time
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar

from flip7ref.analysis.base import AnalysisError, Policy, SoloResult, _Key, _Number, _Stopped, _stopped, _too_many, _Triple
from flip7ref.analysis.estimate import warn_if_large
from flip7ref.analysis.keys import _canonical as _canonical  # re-exported: its home was this module
from flip7ref.analysis.keys import _cards as _cards
from flip7ref.analysis.parallel import (
    Schedule,
    Workers,
    combination,
    combinations,
    drawn,
    loaded,
    modifier_cards,
    solve_combination,
)
from flip7ref.core.errors import OptionError
from flip7ref.core.game import MODIFIER, NUMBER
from flip7ref.core.game_tables import GameTables
from flip7ref.core.state import CHANCE, HIT, STAY, Action, State

_T = TypeVar("_T")
_NO_RNG = random.Random(0)
_OTHER, _REPEAT, _JOINS = 0, 1, 2  # the outcomes of a Hit's card (see SoloSolver._hit)
TIES = ("hit", "stay")
"""The tie-breaks of `SoloSolver` (``ties``): the action taken when hit and stay are worth the same."""


class SoloSolver:
    """Expected round score of one player alone, exactly, by dynamic programming.

    The player is the only one to decide: every decision node of the round must
    belong to ``seat`` (a one-player game, e.g. from `solo_deck_position`
    or `solo_projection`).  The round ends when the interpreter scores it;
    the value of an end is the player's score for that round
    (``state.last_scores[seat]``).

    Args:
        policy (Policy | None): None for the optimal policy (at each decision the action of the
            highest expected score; ``ties`` says which of hit and stay is taken
            when their values are equal);
            or a strategy object to evaluate exactly instead: a deterministic
            one (``choose(state, rng)``, e.g. ``threshold:N``, ``always-hit``), or
            one with ``action_distribution(state)`` giving ``(action, probability)``
            pairs (``random``: every legal action alike).
        exact (bool): compute with `Fraction` (slower) instead of floats.
        seat (int): the player (0 in a one-player game).
        max_states (int): give up (`AnalysisError`) beyond this many decision
            states (memory and time grow with it: about 25 s of CPU per 262,000
            states without action cards, CPython 3.11, pure Python).
        ties (str): ``"hit"`` (the default) or ``"stay"``: the action the optimal policy
            takes at a Hit-or-Stay offer where both have the same expected score
            (exactly equal values: with floats, equal floats).  The value is the
            same either way; P(bust), P(Flip 7) and `best_actions` are not
            (see docs/analysis.md: the published solitaire figures are those of
            ``"stay"``).  Other decisions keep the first legal action on a tie.
        workers (int): processes to solve in (see `solve`); 1 solves in this
            process.  Only the optimal policy is solved in parallel (a fixed
            policy reaches fewer states; it is always evaluated here).  Where
            workers start by forkserver or spawn (see docs/analysis.md), a script
            must solve under ``if __name__ == "__main__":``.
        max_seconds (float | None): give up (`AnalysisError`) once a solve has run this
            many seconds of wall time (checked every 256 states, and between
            combinations of a parallel solve; on a ``cluster`` the client stops
            waiting then, cancels the Dask tasks, and each task stops by itself
            at the same deadline); None: no limit.
        progress (Callable[[int], None] | None): called now and then (every 256 states, and after each
            combination of a parallel solve) with the states solved so far.
        cluster (distributed.Client | None): a ``dask.distributed.Client`` (see `flip7ref.proc.cluster`):
            the parallel part of the optimal solve runs on its workers, one Dask
            task per combination of modifier cards, instead of in ``workers``
            processes; the result is the same.

    Raises:
        OptionError: ``workers`` below 1, ``max_seconds`` not positive; ``ties`` neither ``"hit"`` nor ``"stay"``;
            ``seat`` or ``max_states`` not a whole number.
    """

    def __init__(
        self,
        policy: Any = None,
        *,
        exact: Any = False,
        seat: Any = 0,
        max_states: Any = 1_000_000,
        workers: Any = 1,
        max_seconds: Any = None,
        progress: Any = None,
        cluster: Any = None,
        ties: Any = "hit",
    ) -> None:
        # typed loosely (a public entry point, compiled): the checks below raise OptionError in both builds
        if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
            raise OptionError(f"seat must be a whole number, at least 0 (got {seat!r})")
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
        self.ties: str = ties
        self.max_seconds: float | None = None if max_seconds is None else float(max_seconds)
        self.progress: Callable[[int], None] | None = progress
        self.cluster = cluster
        self._deadline: float | None = None
        self.policy: Policy | None = policy
        self.workers: int = workers
        self.exact: bool = bool(exact)
        self.seat: int = seat
        self.max_states: int = max_states
        self._memo: dict[tuple[Any, ...], _Triple] = {}
        self._best: dict[tuple[Any, ...], Action] = {}
        self._open: set[tuple[Any, ...]] = set()
        self._round = 0
        self._decks: dict[tuple[int, ...], int] = {}  # each set of all cards solved over, numbered
        self._all: list[dict[int, int]] = []  # the copies of each card in each of them
        self._deck = 0
        # the hit table (see `_hit`): per canonical key with the player's line left out,
        # the value of each line a Hit's card can make
        self._moves: dict[tuple[Any, ...], dict[int, _Triple]] = {}
        self._bits = 1  # bits a card code of a line takes in the hit table's numbers
        self._plain_game: GameTables | None = None
        self._plain: tuple[bool, ...] = ()
        self._unjoined: set[int] = set()  # plain cards seen doing more than joining the line
        self._busts: dict[tuple[Any, ...], _Triple] = {}  # the value of a bust, by the rest of the key and the line's other cards
        self._verify = False  # build every successor and check the hit table against it (tests)
        self._merge_ends = True  # State.chance_successors(merge_ends=...): tests compare with False
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
        result, the states and `best_actions` are the same for any
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
        `solve`.

        Raises:
            AnalysisError: as `solve`.
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
            AnalysisError: as `solve`.
        """
        self._own(state)
        key = _canonical(state, self._deck_of(state))
        if key not in self._best:
            self._run(state, lambda: self._node(state))
        return self._best[key]

    # -- the recursion --------------------------------------------------------

    def _deck_of(self, state: State) -> int:
        """The number of ``state``'s set of all cards, the solve's deck from now on."""
        cards = _cards(state)
        self._deck = self._decks.setdefault(cards, len(self._decks))
        if self._deck == len(self._all):
            self._all.append(dict(sorted(Counter(cards).items())))  # copies of each card, by code
        bits = max(Counter(cards).values(), default=1).bit_length() + 1  # room for every copy of a card in one line
        if bits > self._bits:
            self._bits = bits
            self._moves = {}  # numbered with fewer bits
        return self._deck

    def _run(self, state: State, compute: Callable[[], _T]) -> _T:
        self._round = state.round
        self._deck_of(state)
        # the cyclic collector is paused: a solve makes millions of objects in no cycle, and each
        # collection walked the whole growing memo (about an eighth of a compiled solve)
        collecting = gc.isenabled()
        gc.disable()
        try:
            return compute()
        except RecursionError:
            self._open.clear()
            raise AnalysisError("the round is too long to solve by recursion from here") from None
        finally:
            if collecting:
                gc.enable()

    def _start_clock(self) -> None:
        self._deadline = None if self.max_seconds is None else time.perf_counter() + self.max_seconds

    def _check(self) -> None:
        """Report progress; stop once the deadline has passed (``max_seconds``)."""
        if self.progress is not None:
            self.progress(len(self._memo))
        if self._deadline is not None and time.perf_counter() > self._deadline:
            raise self._stopped()

    def _stopped(self) -> AnalysisError:
        """The error of a solve past its ``max_seconds``."""
        self._open.clear()
        return _stopped(self.max_seconds, len(self._memo))

    def _presolve(self, state: State) -> None:
        """Solve, in ``workers`` processes, the positions reached from ``state`` by
        drawing each combination of its pile's modifier cards (see `solve`);
        their values and best actions join this solver's memo.  Warns first (`warn_if_large`) without max_seconds."""
        warn_if_large(state, self.max_seconds)
        self.workers_used = 1
        split = modifier_cards(state)
        alone = self.workers < 2 and self.cluster is None
        if alone or self.policy is not None or not split or state.current_player not in (CHANCE, self.seat):
            return  # (another seat's decision: the recursion says so at once)
        deck = self._deck_of(state)
        most = tuple(n for _, n in split)
        starts = [drawn(state, self.seat, combination(split, task)) for task in combinations(most)]
        if all(s is None or _canonical(s, deck) in self._memo for s in starts):
            return  # solved before (or nothing to solve)
        if self.cluster is not None:
            # looked up at run time: the module needs dask (an extra), which the compiled build does not type-check
            cluster: Any = importlib.import_module("flip7ref.proc.cluster")
            self.workers_used = 1
            plan0 = Schedule(most, 1)
            left = None if self._deadline is None else self._deadline - time.perf_counter()
            # each task stops by the same moment (wall clock, so on any machine), and the client stops waiting then
            setup = (state, self.exact, self.seat, self.max_states, self.ties, left, None if left is None else time.time() + left)
            solve_task = functools.partial(solve_combination, SoloSolver)  # the task gets its solver class handed in
            try:
                for result in cluster.presolve(
                    self.cluster, solve_task, setup, combinations(most), lambda t: combination(split, t), plan0.above,
                    timeout=left,
                ):  # fmt: skip
                    if result is None:  # the task ran out of time
                        raise self._stopped()
                    self._merge_task(deck, *result)
            except (TimeoutError, _Stopped):  # the client's wait or a task ran out of time: the futures are cancelled
                raise self._stopped() from None
            self.workers_used = max(1, cluster.size(self.cluster)[0])
            return
        blank = SoloSolver(exact=self.exact, seat=self.seat, max_states=self.max_states, ties=self.ties)  # copied in each worker
        workers = Workers(min(self.workers, len(starts)), (state, blank))
        self.workers_used = workers.count
        plan = Schedule(most, workers.count)

        def give() -> None:
            for w in workers.idle():
                task = plan.next_for(w)
                if task is not None:
                    workers.send(w, task, (combination(split, task), plan.seeds(task, w)))

        try:
            while plan.left() or workers.running():
                give()
                finished = workers.results(None if self._deadline is None else self._deadline - time.perf_counter())
                if not finished:  # max_seconds passed with every worker still busy on one combination
                    self._check()
                give()  # before unpickling: a worker's next combination of its own needs nothing from these
                for _, task, raw in finished:
                    memo, best = loaded(raw)
                    plan.results[task] = memo
                    self._merge_task(deck, memo, best)
        finally:
            workers.close()

    def _merge_task(self, deck: int, memo: list[tuple[_Key, _Triple]], best: list[tuple[_Key, Action]]) -> None:
        """Fold one combination's states into the memo (see `_presolve`)."""
        before = len(self._memo)
        self._memo.update(((deck, *key), value) for key, value in memo)
        self._best.update(((deck, *key), action) for key, action in best)
        if len(self._memo) > max(before, self.max_states):
            raise _too_many(self.max_states)
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
        one: _Number = Fraction(1) if self.exact else 1.0
        zero: _Number = one * 0
        return (score * one, one if busted else zero, one if made else zero)

    def _after(self, state: State) -> _Triple:
        if state.round != self._round or state.winners:  # the round or the game is over (TERMINAL)
            return self._leaf(state)
        return self._node(state)

    def _node(self, state: State, key: tuple[Any, ...] | None = None) -> _Triple:
        if state.current_player == -1:
            return self._chance(state)
        if key is None:
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
            raise _too_many(self.max_states)
        self._own(state)
        self._open.add(key)
        legal = state.legal_actions()
        distribution = getattr(self.policy, "action_distribution", None)
        if distribution is not None:
            result = self._mix([(p, self._act(state, key, a)) for a, p in distribution(state)])
            action = legal[0]
        elif self.policy is not None:
            action = self.policy.choose(state, _NO_RNG)
            result = self._act(state, key, action)
        else:
            best: _Triple | None = None
            if self.ties == "stay" and STAY in legal:  # the first of equal values wins: stay is tried first
                legal = [STAY, *(a for a in legal if a != STAY)]
            action = legal[0]
            for a in legal:
                r = self._act(state, key, a)
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

    def _act(self, state: State, key: tuple[Any, ...], action: Action) -> _Triple:
        """The value of taking ``action`` at the decision state ``state`` (canonical ``key``)."""
        if not state.frames and (action is HIT or action == HIT):
            return self._hit(state, key)
        return self._after(state.apply(action))

    def _plain_cards(self, game: GameTables) -> tuple[bool, ...]:
        """Per card code: a card that joins the line of the player who draws it and does
        nothing else (see `_hit`): a number without traits, or a modifier without
        traits where modifiers go to the line of their receiver (F7-035; in
        Vengeance the revealer gives them to a chosen player, V-050)."""
        if game is not self._plain_game:
            modifiers = game.modifiers_to == "receiver"
            self._plain = tuple(
                (cat == NUMBER or (cat == MODIFIER and modifiers)) and not traits
                for cat, traits in zip(game.category, game.traits, strict=True)
            )
            self._plain_game = game
            self._unjoined = set()
            self._moves = {}
        return self._plain

    def _hit(self, state: State, key: tuple[Any, ...]) -> _Triple:
        """The value of a Hit at the offer ``state`` (canonical ``key``), building only
        the successors not met before.

        The successor of drawing a plain card (a number or modifier card without
        traits) into a line of plain cards is valued by the line it makes, as a
        multiset, and the rest of the canonical key (the *hit table*,
        ``_moves``): drawing ``c`` into ``L`` and ``c'`` into ``L'`` with
        ``L + c == L' + c'`` lead to the same position up to the order of the line
        (such cards commute: each only joins the line, and a line's order never
        matters, as in `_canonical`).  A card met before at an equal line is
        not drawn again: the interpreter builds each position once, not once per
        parent (each decision state has about 13 parents, each Flip 7 seven).
        The numbers that repeat one of the line (busts, or saves by a held Second
        Chance) are not in the table.  With nothing held, a bust is valued once per
        rest of the key and the line's cards other than numbers (``_busts``): a
        busted player's round score does not depend on the numbers of the line
        (F7-101: zero; at most the modifiers, where an option scores them) and the
        solve ends with the round, so every bust of these nodes is worth what the
        first built was (as `State.chance_successors` merges the busts of one
        node).  With a card held each repeat is drawn.  The outcomes are the
        cards of the pile (a Hit draws nothing yet), so a node whose every
        outcome is known is not built at all; where most are new it is
        expanded at once by `State.chance_successors`.  ``_verify`` (for the
        tests) builds every successor as well and checks the values agree."""
        seat = self.seat
        game = state.game
        plain = self._plain_cards(game)
        line, kept, status = key[1][seat]
        draw = state.draw  # the pile of the chance node after the Hit (a Hit draws nothing yet)
        if not draw:
            return self._after(state.apply(HIT))
        # the line as a number, ``bits`` bits a card code: a multiset a card joins by one addition
        bits = self._bits
        category, rank, ids = game.category, game.rank, game.card_ids
        held = 0
        ranks = set()
        others = []  # the line's cards other than numbers
        for c in line:
            if not plain[c]:
                return self._after(state.apply(HIT))
            held += 1 << (bits * c)
            if category[c] == NUMBER:
                ranks.add(rank[c])
            else:
                others.append(c)
        players = key[1]
        rest = (key[0], (*players[:seat], (kept, status), *players[seat + 1 :]), *key[2:])
        table = self._moves.get(rest)
        if table is None:
            table = self._moves[rest] = {}
        # the chance outcomes (as State.chance_weights gives them: copies in the pile, by code),
        # counted as the canonical key sees the pile: the solve's cards not elsewhere (no frames here)
        counts = dict(self._all[key[0]])
        for p_line, p_kept, _ in players:
            for c in p_line:
                counts[c] -= 1
            for c in p_kept:
                counts[c] -= 1
        for c in key[2]:
            counts[c] -= 1
        unjoined = self._unjoined
        # with nothing held, every repeat of a number busts alike (see above)
        busts = None if kept else (rest, tuple(others))
        busted = None if busts is None else self._busts.get(busts)
        outcomes: list[tuple[int, int, int, int, _Triple | None]] = []
        missing = 0  # outcomes to build
        repeats = False
        for code, count in counts.items():
            if not count:
                continue
            if not plain[code] or code in unjoined:
                outcomes.append((code, count, _OTHER, 0, None))
                missing += 1
            elif category[code] == NUMBER and rank[code] in ranks:
                outcomes.append((code, count, _REPEAT, 0, busted))
                if busted is None:
                    repeats = True
            else:
                made = held + (1 << (bits * code))
                known = table.get(made)
                if known is None:
                    missing += 1
                outcomes.append((code, count, _JOINS, made, known))
        exact, verify = self.exact, self._verify
        chance: State | None = None
        built: dict[str, State] = {}
        if missing or repeats or verify:
            chance = state.apply(HIT)
            if chance.current_player != CHANCE or chance.round != self._round:
                return self._after(chance)
            if verify and chance.chance_weights() != [(ids[c], n) for c, n, _, _, _ in outcomes]:
                raise AssertionError(f"the chance outcomes after a Hit at {key} are not the pile's cards")
            if verify or 2 * (missing + repeats) > len(outcomes):
                built = {card: child for card, _, child in chance.chance_successors(merge_ends=self._merge_ends)}
        leaf, node, round_number = self._leaf, self._node, self._round
        total = len(draw)
        value: _Number = Fraction(0)
        bust: _Number = value
        flip7: _Number = value
        fvalue = fbust = fflip7 = 0.0
        last: State | None = None  # the last leaf met, and its value
        ended: _Triple = (0, 0, 0)
        for code, count, kind, made, guess in outcomes:
            if guess is not None and not verify:
                v, b, f = guess
            else:
                assert chance is not None
                card = ids[code]
                child = built.get(card)
                if child is None:
                    child = chance.apply_chance(card)
                over = child.round != round_number or bool(child.winners)
                if child is last:  # the shared successor of the game-ending busts (merge_ends)
                    v, b, f = ended
                elif over:
                    v, b, f = ended = leaf(child)
                    last = child
                elif kind == _JOINS and child.current_player == seat:
                    known_key = _canonical(child, self._deck)
                    i = bisect_right(line, code)
                    joined = (*line[:i], code, *line[i:])
                    if known_key != (key[0], (*players[:seat], (joined, kept, status), *players[seat + 1 :]), *key[2:]):
                        kind = _OTHER  # not simply the card joining the line: never predicted again
                        unjoined.add(code)
                    v, b, f = node(child, known_key)
                else:
                    v, b, f = node(child)
                if guess is not None and guess != (v, b, f):
                    raise AssertionError(f"drawing {card} at {key}: the tables give {guess}, the interpreter {(v, b, f)}")
                if kind == _JOINS:
                    table[made] = (v, b, f)
                elif kind == _REPEAT and busts is not None and over and busted is None:
                    busted = self._busts[busts] = (v, b, f)
            if exact:
                p: _Number = Fraction(count, total)
                value += p * v
                bust += p * b
                flip7 += p * f
            else:  # the same float operations, on unboxed floats where compiled
                q: float = count / total
                fvalue += q * float(v)
                fbust += q * float(b)
                fflip7 += q * float(f)
        return (value, bust, flip7) if exact else (fvalue, fbust, fflip7)

    def _mix(self, weighted: list[tuple[Fraction, _Triple]]) -> _Triple:
        value: _Number = Fraction(0) if self.exact else 0.0
        bust: _Number = value
        flip7: _Number = value
        for p, (v, b, f) in weighted:
            q: _Number = p if self.exact else float(p)
            value += q * v
            bust += q * b
            flip7 += q * f
        return (value, bust, flip7)

    def _chance(self, state: State) -> _Triple:
        successors = state.chance_successors(merge_ends=self._merge_ends)  # the same value for every game-ending bust
        total = sum(n for _, n, _ in successors)
        value: _Number = Fraction(0) if self.exact else 0.0
        bust: _Number = value
        flip7: _Number = value
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
            p: _Number = Fraction(count, total) if exact else count / total
            value += p * v
            bust += p * b
            flip7 += p * f
        return (value, bust, flip7)
