"""Differential fuzzing of an engine against the reference (``flip7ref conformance fuzz``).

Random seeded games are played on the reference and, in lockstep, on an engine speaking the
protocol (conformance/PROTOCOL.md): after every decision the game so far is sent to the engine
as a case (its setup and the actions up to there) and the engine's outcome is judged by the
harness's own functions (`flip7ref.checking.prepare`, `verdict`, `failed`: the same readings,
the same comparison, the same blame as ``conformance run``).  The reference is the authority.

A game (`Trial`) is a fresh round dealt from a stacked pile: an edition the engine plays, its
readings drawn from those the engine declares, a player count it supports (three or more when it
can), a dealer, sometimes starting totals near the target (so games end), a pile (the whole deck
shuffled, a short one, or one of a few kinds of card) and one random strategy per seat.  Its
decisions are kept as indices into the legal actions, so a changed setup replays into another
legal game.

At the first difference the game is shrunk (`shrink`): fewer players, a later starting round,
fewer cards in the pile, fewer and simpler decisions, the table's default readings, while it still
differs; the smallest is written as a case file of the suite's own format
(``case.schema.json``) with the reference's expected outcome and the blamed rule.

How a reshuffled pile is ordered is the engine's business (PROTOCOL.md): a game is compared up to
the first shuffle whose order matters (a reshuffle of cards that are not all alike, a fresh shuffle
between rounds); at that step only the events up to the shuffle are compared, and the game ends.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import yaml

from .checking import Prepared, engine_options, failed, only_events, prepare, verdict
from .conformance import Case, CaseResult, compare_detailed, errored, load_case_file, outcome
from .edition import CATEGORIES
from .errors import Flip7RefError, OptionError
from .explore import Run
from .game import Game
from .harness import Engine, EngineError, run_in_process, supports
from .replay import rules_at
from .spec import edition_ids, load_edition
from .state import CHANCE, TERMINAL, State

OUTCOME_KEYS = (
    "events", "statuses", "lines", "kept", "round", "round_scores", "totals", "next", "winners", "draw", "discard_count",
)  # fmt: skip
"""The outcome keys compared at every step (those the engine reports)."""

ACTION = CATEGORIES.index("action")
"""The category code of action cards (`flip7ref.game.Game.category`)."""

MAX_DECISIONS = 120
"""The most decisions in one game."""

MAX_ROUNDS = 3
"""The most rounds in one game (its starting round and two more)."""

MIN_PLAYERS = 3
"""Flip 7 is for three or more players: games use at least three when the engine plays them."""

FULL_EVERY = 4
"""One game in this many is checked at every step; the others at their last step first, and step
by step only when that differs (more games a second; a difference gone by the end needs the former)."""

SHRINK_CANDIDATES = 600
"""The most candidate games tried while shrinking one difference."""


# --------------------------------------------------------------------------- games


@attrs.frozen
class Trial:
    """One game: its setup and its decisions.

    Attributes:
        edition: the edition id.
        options: the readings played (the non-default ones, as `engine_options` gives them).
        players: the player count.
        dealer: the dealing seat.
        draw: the pile, top first (card ids; the deck's other cards are out of play).
        choices: each decision as an index into the legal actions there (taken modulo their number).
        totals: the starting totals, or None (all 0).
        round: the starting round number.
        discard: the starting discard pile (card ids).
        position: for a game starting in the middle of a round, its ``lines``, ``kept``,
            ``statuses`` and ``turn`` (as setup keys, in JSON); empty for a fresh round.
    """

    edition: str
    options: Mapping[str, Any]
    players: int
    dealer: int
    draw: tuple[str, ...]
    choices: tuple[int, ...]
    totals: tuple[int, ...] | None = None
    round: int = 1
    discard: tuple[str, ...] = ()
    position: str = ""

    def key(self) -> tuple[Any, ...]:
        """A hashable key of the trial (its options as sorted pairs)."""
        fields = attrs.astuple(self, recurse=False)
        return (fields[0], tuple(sorted(self.options.items())), *fields[2:])

    def cards(self) -> int:
        """The cards the game starts with: pile, discard pile and (mid-round) those on the table."""
        table = json.loads(self.position) if self.position else {}
        lying = sum(len(v) for key in ("lines", "kept") for v in (table.get(key) or {}).values())
        return len(self.draw) + len(self.discard) + lying

    def setup(self) -> dict[str, Any]:
        """The case ``setup`` of the game: a fresh round dealt from ``draw``, or the position."""
        out: dict[str, Any] = {"players": self.players, "dealer": self.dealer, "deal": True, "draw": list(self.draw)}
        if self.position:
            del out["deal"]
            out.update(json.loads(self.position))
        if self.round != 1:
            out["round"] = self.round
        if self.totals is not None and any(self.totals):
            out["totals"] = list(self.totals)
        if self.discard:
            out["discard"] = list(self.discard)
        return out


@attrs.frozen
class Played:
    """A `Trial` played on the reference.

    Attributes:
        actions: the actions taken (one per decision, as strings).
        states: the decision state after each prefix of ``actions`` (``states[k]``: after ``k``).
        horizon: the first step whose outcome depends on how a shuffle ordered the pile (the game
            stops there), or None.
        cut: at the horizon, how many of its events come before that shuffle.
        round_starts: round number -> (the state where its deal begins, its first decision's index).
    """

    actions: tuple[str, ...]
    states: tuple[State, ...]
    horizon: int | None
    cut: int
    round_starts: Mapping[int, tuple[State, int]]


Policy = Callable[[State, list[str]], int]


def _case_base(trial: Trial) -> dict[str, Any]:
    return {"edition": trial.edition, "options": dict(trial.options), "setup": trial.setup(), "kind": "transition"}


def _shuffle_matters(before: State, after: State) -> bool:
    """Whether ``after`` followed a shuffle whose order matters (its new pile not all alike)."""
    return after.shuffles > before.shuffles and len(set(after.draw)) > 1


_GAMES: dict[tuple[Any, ...], Game] = {}


def _start(trial: Trial) -> State:
    """The starting state of a trial, as `flip7ref.conformance.build_state` builds a case's (its
    `Game` kept between trials: building one takes milliseconds, and a game is immutable)."""
    setup = trial.setup()
    key = (trial.edition, trial.players, tuple(sorted(trial.options.items())))
    if key not in _GAMES:
        if len(_GAMES) > 64:
            _GAMES.clear()
        _GAMES[key] = Game(trial.edition, trial.players, dict(trial.options))
    seats = {name: {int(k): v for k, v in (setup.get(name) or {}).items()} for name in ("lines", "kept", "statuses")}
    return _GAMES[key].new_position(
        dealer=setup["dealer"], turn=setup.get("turn"), draw=setup["draw"], discard=setup.get("discard", ()),
        totals=setup.get("totals"), round_number=setup.get("round", 1), seed=0, rest="out",
        deal=setup.get("deal", False), **seats,
    )  # fmt: skip


def play(trial: Trial, policy: Policy | None = None, limit: int = MAX_DECISIONS) -> Played:
    """Play a trial on the reference: its choices, then (with ``policy``, when generating) the
    policy's, until the game ends, ``limit`` decisions, `MAX_ROUNDS` rounds (with a policy) or the
    first shuffle whose order matters.

    Raises:
        Flip7RefError: the setup is not a valid position (e.g. too few cards to deal).
    """
    state = _start(trial)
    horizon: int | None = None
    cut = 0
    starts: dict[int, tuple[State, int]] = {state.round: (state, 0)}
    actions: list[str] = []
    choices = list(trial.choices)

    def settle(current: State) -> State:
        nonlocal horizon, cut
        for _ in range(10_000):
            if current.current_player != CHANCE:
                return current
            card = current.next_card()
            assert card is not None
            nxt = current.apply_chance(card)
            watch(current, nxt)
            current = nxt
        raise Flip7RefError("no decision within 10,000 draws")

    def watch(before: State, after: State) -> None:
        nonlocal horizon, cut
        if horizon is None and _shuffle_matters(before, after):
            horizon, cut = len(actions), len(after.events())
        if after.round != before.round and after.round not in starts:
            starts[after.round] = (after, len(actions))

    state = settle(state)
    states = [state]
    while horizon is None and state.current_player != TERMINAL and len(actions) < limit:
        legal = state.legal_action_strings()
        index = len(actions)
        if index < len(choices):
            choice = choices[index]
        elif policy is not None and state.round < trial.round + MAX_ROUNDS:
            choice = policy(state, legal)
            choices.append(choice)
        else:
            break
        action = legal[choice % len(legal)]
        actions.append(action)
        after = state.apply(action)
        watch(state, after)
        state = settle(after)
        states.append(state)
    return Played(tuple(actions), tuple(states), horizon, cut, starts)


def _policies(rng: random.Random, players: int) -> list[tuple[str, float]]:
    """One random strategy per seat: stay at a line value (threshold), stay at random, or always hit."""
    out: list[tuple[str, float]] = []
    for _ in range(players):
        kind = rng.choice(("threshold", "threshold", "random", "hitter"))
        value = float(rng.randint(6, 40)) if kind == "threshold" else rng.uniform(0.05, 0.6)
        out.append((kind, value))
    return out


def _policy(rng: random.Random, seats: Sequence[tuple[str, float]]) -> Policy:
    def choose(state: State, legal: list[str]) -> int:
        if "hit" in legal and "stay" in legal:
            kind, value = seats[state.current_player % len(seats)]
            if kind == "threshold":
                stay = state.line_value(state.current_player) >= value
            elif kind == "random":
                stay = rng.random() < value
            else:
                stay = False
            return legal.index("stay" if stay else "hit")
        return rng.randrange(len(legal))

    return choose


def _readings(rng: random.Random, impl: Mapping[str, Any], edition: str) -> dict[str, Any]:
    """Readings for one game: each declared option now and then at a random declared reading
    (a random target score when the engine takes whole numbers), as the engine will play them."""
    offered = ((impl.get("editions") or {}).get(edition) or {}).get("options") or {}
    spec = load_edition(edition).options
    wanted: dict[str, Any] = {}
    for name in sorted(offered):
        readings = [r for r in offered[name] or () if name in spec]
        if readings and rng.random() < 0.3:
            wanted[name] = rng.choice(readings)
    if "target_score" in spec and rng.random() < 0.2:
        wanted["target_score"] = rng.randint(20, 150)
    return engine_options(impl, {"edition": edition, "options": wanted})


def _pile(rng: random.Random, game: Game) -> tuple[str, ...]:
    deck = [game.card_ids[c] for c in game.deck]
    rng.shuffle(deck)
    mode = rng.random()
    if mode < 0.45:
        return tuple(deck)
    if mode < 0.7:
        return tuple(deck[: rng.randint(game.players + 2, 45)])
    if mode < 0.85:  # the action cards first, one in three or so among the others
        actions = [c for c in deck if game.category[game.code(c)] == ACTION]
        others = [c for c in deck if game.category[game.code(c)] != ACTION]
        mixed: list[str] = []
        while actions or others:
            source = actions if actions and (not others or rng.random() < 0.35) else others
            mixed.append(source.pop())
        return tuple(mixed)
    kinds = set(rng.sample(sorted(set(deck)), rng.randint(1, 4)))
    few = [c for c in deck if c in kinds]
    if len(few) < game.players + 1:
        return tuple(deck)
    return tuple(few[: rng.randint(game.players + 1, max(game.players + 1, min(len(few), 30)))])


def _totals(rng: random.Random, target: int, players: int) -> tuple[int, ...] | None:
    """Starting totals: none mostly; now and then near the target (so the game ends), or with two
    seats tied at about the target (so a tie at the end is likely)."""
    mode = rng.random()
    if mode < 0.7:
        return None
    totals = [max(0, target - rng.randint(1, max(1, min(target, 60)))) for _ in range(players)]
    if mode < 0.85:
        return tuple(totals)
    tied = max(0, target + rng.randint(-10, 10))
    for seat in rng.sample(range(players), 2):
        totals[seat] = tied
    return tuple(totals)


def player_range(impl: Mapping[str, Any]) -> tuple[int, int]:
    """The player counts games use: the engine's declared bounds (protocol v2 ``players``),
    at least `MIN_PLAYERS` when the engine plays that many, at most 6."""
    bounds = impl.get("players")
    low, high = bounds if isinstance(bounds, list) and len(bounds) == 2 else (None, None)
    low = 1 if low is None else int(low)
    high = 6 if high is None else min(int(high), 6)
    if high >= MIN_PLAYERS:
        low = max(low, MIN_PLAYERS)
    return low, max(low, high)


def generate(rng: random.Random, impl: Mapping[str, Any], editions: Sequence[str]) -> tuple[Trial, Played] | None:
    """A random game the engine can play, played on the reference; None when the random setup
    is not a valid position (a rare pile too short to deal from)."""
    edition = rng.choice(list(editions))
    options = _readings(rng, impl, edition)
    low, high = player_range(impl)
    players = rng.randint(low, high)
    try:
        game = Game(edition, players, options)
    except Flip7RefError:
        return None
    totals = _totals(rng, game.target_score, players)
    trial = Trial(edition, options, players, rng.randrange(players), _pile(rng, game), (), totals)
    if supports(impl, {**_case_base(trial), "id": "", "rules": [], "source": ""}) is not None:
        return None
    try:
        played = play(trial, _policy(rng, _policies(rng, players)))
    except Flip7RefError:
        return None
    if not played.actions and played.horizon is None:
        return None
    choices = tuple(st.legal_action_strings().index(a) for st, a in zip(played.states, played.actions, strict=False))
    return attrs.evolve(trial, choices=choices), played


# --------------------------------------------------------------------------- checking in lockstep


@attrs.frozen
class Check:
    """One step checked on the engine.

    Attributes:
        result: the harness's verdict (``pass``, ``fail``, ``error``, ``skip``).
        prepared: the prepared case (None when it could not be prepared).
        observed: the engine's outcome (None when it gave none).
    """

    result: CaseResult
    prepared: Prepared | None
    observed: Mapping[str, Any] | None


@attrs.frozen
class Found:
    """A difference: the game, the step where it first shows, the case sent and its check."""

    trial: Trial
    played: Played
    step: int
    case: Case
    check: Check

    def size(self) -> tuple[int, ...]:
        """The order shrinking works down: players, rounds, cards, actions, then the choices."""
        t = self.trial
        rounds = self.played.states[self.step].round - t.round
        cards = t.cards()
        simple = (len(t.options), sum(1 for x in t.totals or () if x), t.round, t.dealer)
        at_horizon = int(self.step == self.played.horizon)
        return (t.players, at_horizon, rounds, cards, self.step, sum(t.choices[: self.step]), *simple)


def _provisional_rules(state: State) -> list[str]:
    return list(rules_at(state)) if state.current_player not in (CHANCE, TERMINAL) and rules_at(state) else []


def step_case(trial: Trial, played: Played, step: int, keys: Sequence[str], ident: str = "F7-C9000") -> dict[str, Any]:
    """The case of a game up to ``step`` decisions, expecting the reference's outcome there
    (only ``keys``; at the horizon only the events before the shuffle, as ``events_include``)."""
    state = played.states[step]
    edition = load_edition(trial.edition)
    rules = _provisional_rules(state) or [next(iter(edition.rules))]
    seen = outcome(state)
    if step == played.horizon:
        expect: dict[str, Any] = {"events_include": seen["events"][: played.cut]}
    else:
        expect = {k: seen[k] for k in OUTCOME_KEYS if k in keys}
    kind = "game" if state.current_player == TERMINAL else "round" if state.round != trial.round else "transition"
    case: dict[str, Any] = {
        "id": ident, "title": "fuzz", "edition": trial.edition, "rules": rules,
        "source": "flip7ref conformance fuzz: the reference's outcome", "kind": kind,
    }  # fmt: skip
    if trial.options:
        case["options"] = dict(trial.options)
    case["setup"] = trial.setup()
    case["actions"] = list(played.actions[:step])
    case["expect"] = expect or {"round": seen["round"]}
    return case


def _steps(played: Played, step: int) -> tuple[tuple[int, ...], tuple[tuple[str, ...], ...]]:
    """The seat taking each of the first ``step`` actions and the legal actions there."""
    states = played.states[:step]
    return tuple(s.current_player for s in states), tuple(tuple(s.legal_action_strings()) for s in states)


class Lockstep:
    """An engine process checked step by step against the reference.

    Args:
        engine: the engine, started (`Engine.start`) and its declaration checked.
        impl: its ``start`` description (the v2 capabilities left out for a v1 engine).

    Attributes:
        keys: the outcome keys compared (those the engine reported in its first outcome).
        requests: run requests sent so far.
        skipped: steps the engine skipped.
    """

    def __init__(self, engine: Engine, impl: Mapping[str, Any]) -> None:
        self.engine = engine
        self.impl = impl
        self.keys: tuple[str, ...] | None = None
        self.requests = 0
        self.skipped = 0

    def check(self, case: Case, steps: tuple[tuple[int, ...], tuple[tuple[str, ...], ...]] | None = None) -> Check:
        """Check one case on the engine, as ``conformance run`` does (the engine is restarted
        first when it died on the previous case).

        Args:
            case: the case.
            steps: the seat taking each action and the legal actions there, when the caller
                knows them (a game played here): the request is then built without replaying
                the case, and the case is prepared on the reference (`prepare`) only when the
                engine differs.  Not used for an engine resolving forced choices itself.
        """
        if steps is not None and not self.impl.get("auto_resolves_forced_choices"):
            options = dict(case.get("options") or {})
            quick = Prepared(case, options, Run(case, (), (), None, {}, ()), case["expect"], *steps, False)
            checked = self._send(case, quick)
            if checked.result.status != "fail" and checked.result.status != "error":
                return checked
            full = prepare(case, self.impl)
            assert isinstance(full, Prepared)  # the game was played on the reference
            return self._judge(full, checked.observed, checked.result.message)
        prepared = prepare(case, self.impl)
        if isinstance(prepared, CaseResult):
            return Check(prepared, None, None)
        checked = self._send(case, prepared)
        if checked.result.status == "skip":
            return checked
        return self._judge(prepared, checked.observed, checked.result.message)

    def _send(self, case: Case, prepared: Prepared) -> Check:
        """Send a prepared case; the verdict (blamed only through ``prepared``) and the outcome."""
        reason = supports(self.impl, case)
        if reason is not None:
            return Check(errored(case, "skip", reason), prepared, None)
        self.requests += 1
        try:
            if self.engine.proc is None:
                self.engine.start()
            response = self.engine.run(self.requests, prepared.request())
        except EngineError as exc:
            self.engine.close()
            return Check(errored(case, "error", str(exc)), prepared, None)
        if response.get("skipped"):
            self.skipped += 1
            return Check(errored(case, "skip", str(response.get("message") or "skipped by the engine")), prepared, None)
        if response.get("errored"):
            return Check(errored(case, "error", f"engine errored: {response.get('message') or 'no message'}"), prepared, None)
        observed: Mapping[str, Any] = response["outcome"]
        if self.keys is None:
            self.keys = tuple(k for k in OUTCOME_KEYS if k in observed)
        return Check(self._verdict(prepared, observed), prepared, observed)

    def _verdict(self, prepared: Prepared, observed: Mapping[str, Any]) -> CaseResult:
        keys = self.keys or OUTCOME_KEYS
        if any(k not in keys for k in prepared.expect if k in OUTCOME_KEYS):  # asked before the keys were known
            narrowed = {k: v for k, v in prepared.expect.items() if k not in OUTCOME_KEYS or k in keys}
            prepared = attrs.evolve(prepared, expect=narrowed)
        return verdict(prepared, observed, self.impl.get("events"))

    def _judge(self, prepared: Prepared, observed: Mapping[str, Any] | None, message: str) -> Check:
        """The harness's verdict on a prepared case: `verdict` on the outcome, or `failed` on the
        engine's error ``message``."""
        if observed is None:
            return Check(failed(prepared, message), prepared, None)
        return Check(self._verdict(prepared, observed), prepared, observed)

    def first_difference(self, trial: Trial, played: Played, stop: float, every: bool = True, scan: bool = True) -> Found | None:
        """The first step of a played game where the engine differs, or None (no difference up to
        the horizon, the engine skipped a step, or the time ``stop`` passed).

        Args:
            every: check every step; else the last step first, and the others only when it differs
                (cheaper, but blind to a difference that is gone by the end).
            scan: with ``every`` false, look for the first differing step when the last differs;
                else give the last.
        """
        last = len(played.actions) if played.horizon is None else played.horizon
        if not every:
            found = self._step(trial, played, last)
            if found is None or found.check.result.status == "pass":
                return None
            if not scan:
                return found
        for step in range(last + 1):
            if time.monotonic() > stop:
                return None
            found = self._step(trial, played, step)
            if found is None:
                return None
            if found.check.result.status != "pass":
                return found
        return None

    def _step(self, trial: Trial, played: Played, step: int) -> Found | None:
        """Check one step of a game (the result is in ``.check``); None when the engine skipped it."""
        case = step_case(trial, played, step, self.keys or OUTCOME_KEYS)
        checked = self.check(case, _steps(played, step))
        return None if checked.result.status == "skip" else Found(trial, played, step, case, checked)

    def replay(self, trial: Trial, stop: float, within: int) -> Found | None:
        """Play a (shrunk) trial on the reference for at most ``within`` decisions and check its last
        step (a difference that is gone by then is not looked for); the difference there, or None
        when it does not differ, cannot be set up or the engine cannot run it."""
        try:
            played = play(trial, limit=min(len(trial.choices), within))
        except Flip7RefError:
            return None
        if supports(self.impl, {**_case_base(trial), "id": "", "rules": [], "source": ""}) is not None:
            return None
        return self.first_difference(trial, played, stop, every=False, scan=False)


# --------------------------------------------------------------------------- shrinking


def _candidates(found: Found, positions: bool) -> list[Trial]:
    """Smaller games to try next, the most promising first."""
    t, step = found.trial, found.step
    out: list[Trial] = []
    low = 1 if found.trial.players < MIN_PLAYERS else MIN_PLAYERS
    for n in range(low, t.players):
        fewer = _fewer_seats(t, n)
        if fewer is not None:
            out.append(fewer)
    if positions:
        out.extend(_position_starts(found))
    reached = found.played.states[step].round
    for number in sorted(r for r in found.played.round_starts if t.round < r <= reached):
        state, first = found.played.round_starts[number]
        ids = state.game.card_ids
        later = attrs.evolve(
            t, round=number, dealer=state.dealer, totals=tuple(state.totals), draw=tuple(ids[c] for c in state.draw),
            discard=tuple(ids[c] for c in state.discard), choices=t.choices[first:step],
        )  # fmt: skip
        out.append(attrs.evolve(later, discard=()))
        if positions or not later.discard:
            out.append(later)
    if t.totals is not None and any(t.totals):
        out.append(attrs.evolve(t, totals=None))
    if t.round != 1:
        out.append(attrs.evolve(t, round=1))
    if t.dealer:
        out.append(attrs.evolve(t, dealer=0))
    if t.discard:
        out.append(attrs.evolve(t, discard=()))
    cards = list(t.draw)
    chunk = len(cards) // 2
    while chunk >= 1:
        for start in range(len(cards) - chunk, -1, -chunk):
            out.append(attrs.evolve(t, draw=tuple(cards[:start] + cards[start + chunk :])))
        chunk //= 2
    choices = list(t.choices[:step])
    chunk = len(choices) // 2
    while chunk >= 1:
        out.append(attrs.evolve(t, choices=tuple(choices[: len(choices) - chunk])))
        chunk //= 2
    for i in range(len(choices)):
        out.append(attrs.evolve(t, choices=tuple(choices[:i] + choices[i + 1 :])))
        for other in range(3):
            if other != choices[i]:
                out.append(attrs.evolve(t, choices=(*choices[:i], other, *choices[i + 1 :])))
    for name in sorted(t.options):
        out.append(attrs.evolve(t, options={k: v for k, v in t.options.items() if k != name}))
    return out


def _fewer_seats(t: Trial, n: int) -> Trial | None:
    """The trial with seats ``n`` and above left out (their cards out of play), or None."""
    totals = t.totals[:n] if t.totals is not None else None
    if not t.position:
        return attrs.evolve(t, players=n, dealer=t.dealer % n, totals=totals)
    table = json.loads(t.position)
    if table.get("turn", 0) >= n:
        return None
    for key in ("lines", "kept", "statuses"):
        table[key] = {seat: v for seat, v in (table.get(key) or {}).items() if int(seat) < n}
    return attrs.evolve(t, players=n, dealer=t.dealer % n, totals=totals, position=json.dumps(table, sort_keys=True))


STARTS = 4
"""Mid-round starting points tried when shrinking: the last offers before the difference."""


def _position_starts(found: Found) -> list[Trial]:
    """The game started mid-round at one of the last Hit-or-Stay offers before the difference (for
    engines playing positions): the table there as the setup, the decisions from there on."""
    t, out = found.trial, list[Trial]()
    for index in range(found.step - 1, 0, -1):
        state = found.played.states[index]
        if len(out) >= STARTS:
            break
        if state.pending()[0] != "offer" or any(p.flip7_barred for p in state.players):
            continue
        ids = state.game.card_ids
        table = {
            "lines": {str(i): [ids[c] for c in p.line] for i, p in enumerate(state.players) if p.line},
            "kept": {str(i): [ids[c] for c in p.kept] for i, p in enumerate(state.players) if p.kept},
            "statuses": {str(i): p.status.value for i, p in enumerate(state.players) if p.status.value != "active"},
            "turn": state.current_player,
        }
        start = attrs.evolve(
            t, dealer=state.dealer, draw=tuple(ids[c] for c in state.draw), choices=t.choices[index : found.step],
            totals=tuple(state.totals), round=state.round, discard=tuple(ids[c] for c in state.discard),
            position=json.dumps(table, sort_keys=True),
        )  # fmt: skip
        out.append(start)
    return out


def shrink(lockstep: Lockstep, found: Found, stop: float, limit: int = SHRINK_CANDIDATES) -> tuple[Found, int]:
    """Shrink a difference: try smaller games (`_candidates`) and keep any that still differs at
    its last step and is smaller by `Found.size`, until none is or ``limit`` candidates or the time
    ``stop``; then look for the first differing step of the smallest (a few seconds more at most).

    Returns:
        The smallest difference found and the number of candidates tried.
    """
    positions = lockstep.impl.get("positions") is not False
    tried = 0
    seen: set[tuple[Any, ...]] = set()
    improved = True
    while improved and tried < limit and time.monotonic() < stop:
        improved = False
        for candidate in _candidates(found, positions):
            if candidate.key() in seen:
                continue
            if candidate.options and engine_options(lockstep.impl, _case_base(candidate)) != dict(candidate.options):
                continue
            seen.add(candidate.key())
            tried += 1
            smaller = lockstep.replay(candidate, stop, found.step)
            if smaller is not None and smaller.size() < found.size():
                found, improved = smaller, True
                break
            if tried >= limit or time.monotonic() >= stop:
                break
    first = lockstep.first_difference(found.trial, found.played, stop + 10 + found.step)  # its first differing step
    return (first if first is not None else found), tried


# --------------------------------------------------------------------------- the written case


def differing_keys(check: Check, types: Sequence[str] | None) -> list[str]:
    """The ``expect`` keys the engine's outcome got wrong (all of them when it gave none)."""
    assert check.prepared is not None
    expect = check.prepared.expect
    if check.observed is None:
        return list(expect)
    observed = dict(check.observed)
    if types is not None:
        expect = only_events(expect, types)
        observed["events"] = [e for e in observed.get("events") or [] if e.get("type") in set(types)]
    wrong = {d.key for d in compare_detailed(expect, observed)}
    return [k for k in expect if k in wrong] or list(expect)


def final_case(found: Found, ident: str, title: str, source: str, types: Sequence[str] | None) -> dict[str, Any]:
    """The case to write for a difference: the game up to its first difference (with the forced
    choices an auto-resolving engine takes itself), expecting the reference's outcome on the keys
    the engine got wrong, citing the blamed rules."""
    check = found.check
    assert check.prepared is not None
    prepared = check.prepared
    keys = differing_keys(check, types)
    case = dict(found.case)
    case.update(id=ident, title=title, source=source)
    case["rules"] = list(check.result.blame or case["rules"])
    case["actions"] = list(prepared.actions)
    case["expect"] = {k: prepared.expect[k] for k in keys}
    return case


def write_case(case: Case, folder: Path, name: str, topic: str) -> Path:
    """Write one case as a case file (``format: 1``) in ``folder``; returns its path.

    Raises:
        OSError: the file cannot be written.
    """
    path = folder / name
    data = {"format": 1, "edition": case["edition"], "topic": topic, "cases": [dict(case)]}
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the run


@attrs.frozen
class Report:
    """What a fuzzing run did.

    Attributes:
        engine: the engine's name and version (from its handshake).
        seed: the seed.
        games: games played.
        steps: run requests sent.
        skipped: steps the engine skipped (each ends its game).
        seconds: the run's wall time.
        found: the difference found (after shrinking), or None.
        found_after: seconds from the start to the first difference (before shrinking).
        game: the index of the game that differed first.
        shrink_tried: candidate games tried while shrinking.
        shrink_seconds: seconds spent shrinking.
        original_size: the difference's size (`Found.size`) before shrinking.
        path: the case file written.
        case: the case written.
        verified: the written case run again: ``(engine status, reference status)``.
        not_compared: outcome keys the engine does not report (not compared).
    """

    engine: str
    seed: int | str
    games: int
    steps: int
    skipped: int
    seconds: float
    found: Found | None = None
    found_after: float | None = None
    game: int | None = None
    shrink_tried: int = 0
    shrink_seconds: float = 0.0
    original_size: tuple[int, ...] = ()
    path: Path | None = None
    case: Case | None = None
    verified: tuple[str, str] | None = None
    not_compared: tuple[str, ...] = ()


def known_editions(impl: Mapping[str, Any], wanted: Sequence[str] | None) -> list[str]:
    """The editions to fuzz: those the engine declares and the reference has (only ``wanted``
    ones when given).

    Raises:
        OptionError: none is left (naming what the engine declares).
    """
    declared = sorted(impl.get("editions") or {})
    ours = [e for e in declared if e in edition_ids() and (not wanted or e in wanted)]
    if not ours:
        asked = f" among --edition {', '.join(wanted)}" if wanted else ""
        declares = ", ".join(declared) or "none"
        raise OptionError(f"the engine declares no edition the reference has{asked} (it declares: {declares})")
    return ours


def fuzz(
    command: str,
    *,
    seed: int | str = 0,
    games: int | None = None,
    seconds: float = 60.0,
    shrink_seconds: float = 30.0,
    out: str | Path = "fuzz-cases",
    timeout: float = 10.0,
    editions: Sequence[str] | None = None,
    on_game: Callable[[int], None] | None = None,
) -> Report:
    """Fuzz an engine: random games in lockstep until a difference, ``games`` games or ``seconds``
    seconds; a difference is shrunk (for at most ``shrink_seconds`` more) and written to ``out``.

    Game ``g`` of seed ``s`` is the same game in every run (``random.Random(f"{s}:{g}")``), so a
    difference found is found again with the same seed.  The engine is stopped at the end
    whatever happens (also on KeyboardInterrupt and SystemExit).

    Returns:
        The `Report`.

    Raises:
        EngineError: the engine cannot be started, refuses the handshake or declares an option
            or reading its edition does not have.
        OptionError: it declares no edition the reference has (among ``editions``).
    """
    from .checking import check_declaration
    from .harness import _v1

    began = time.monotonic()
    engine = Engine(command, timeout)
    try:
        impl = engine.start()
        problem = check_declaration(impl)
        if problem is not None:
            raise EngineError(f"the start response declares {problem}")
        if engine.version < 2:
            impl = _v1(impl)
        eds = known_editions(impl, editions)
        lockstep = Lockstep(engine, impl)
        name = f"{impl.get('name')} {impl.get('version')}"
        stop = began + seconds
        played_games = 0
        found: Found | None = None
        index = -1
        while time.monotonic() < stop and (games is None or played_games < games):
            index += 1
            made = generate(random.Random(f"{seed}:{index}"), impl, eds)
            if made is None:
                continue
            played_games += 1
            if on_game is not None:
                on_game(played_games)
            found = lockstep.first_difference(*made, stop, every=index % FULL_EVERY == 0)
            if found is not None:
                break
        missing = tuple(k for k in OUTCOME_KEYS if lockstep.keys is not None and k not in lockstep.keys)
        elapsed = time.monotonic() - began
        base = Report(name, seed, played_games, lockstep.requests, lockstep.skipped, elapsed, not_compared=missing)
        if found is None:
            return base
        found_after = time.monotonic() - began
        original = found.size()
        shrink_began = time.monotonic()
        found, tried = shrink(lockstep, found, shrink_began + shrink_seconds)
        shrunk_in = time.monotonic() - shrink_began
        prefix = "F7" if found.trial.edition == "flip7" else "V"
        ident = f"{prefix}-C{9000 + index % 1000:04d}"
        where = found.check.result.message.split(":", 1)[0] if found.check.observed is not None else "an error"
        title = (
            f"fuzz: seed {seed}, game {index}: {found.trial.players} players, {found.step} actions; "
            f"the engine differed from the reference on {where}"
        )
        source = f"flip7ref conformance fuzz --seed {seed} (game {index}); the expected outcome is the reference's"
        case = final_case(found, ident, title, source, impl.get("events"))
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        path = write_case(case, folder, f"fuzz-{seed}-{index}.yaml", "found by flip7ref conformance fuzz")
        written = load_case_file(path)[0]
        on_engine = lockstep.check(written).result.status
        on_reference = run_in_process([written])[0].status
        return attrs.evolve(
            base, found=found, found_after=found_after, game=index, shrink_tried=tried, shrink_seconds=shrunk_in,
            original_size=original, path=path, case=case, verified=(on_engine, on_reference),
            steps=lockstep.requests, seconds=time.monotonic() - began,
        )  # fmt: skip
    finally:
        engine.close()
