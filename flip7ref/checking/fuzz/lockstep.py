"""Checking a game in lockstep on an engine (`Lockstep`), one step at a time, with the harness's functions."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from flip7ref.checking.conformance import Case, CaseResult, errored, outcome
from flip7ref.checking.engine_process import EngineError
from flip7ref.checking.fuzz.games import Played, Trial, case_base, play
from flip7ref.checking.harness import Engine, supports
from flip7ref.checking.lockstep import OUTCOME_KEYS, as_written, expected_outcome
from flip7ref.checking.replay import rules_at
from flip7ref.checking.runs import Run
from flip7ref.checking.verdict import Prepared, failed, prepare, verdict
from flip7ref.core.errors import Flip7RefError
from flip7ref.core.spec import load_edition
from flip7ref.core.state import CHANCE, TERMINAL, State

FULL_EVERY = 4
"""One game in this many of each generator is checked step by step (the first generator's first
game, the second's second, and so on, then every fourth of each); the
others at their last step first, and step by step only when that differs (more games a second; a
difference gone by the end, such as an engine offering a choice the reference does not, needs the
former)."""
SCAN_STEPS = 12
"""A game checked step by step looks at this many of its steps at most (`scan_steps`): a request
replays the whole game so far, so checking all of a long game's steps costs the square of its length."""


def scan_steps(played: Played, last: int, most: int = SCAN_STEPS) -> list[int]:
    """The steps up to ``last`` that a game checked step by step looks at, in order: all of them
    when there are at most ``most``; else the first and the last, each decision other than a
    plain Hit-or-Stay offer and the one after it (where engines offer other choices and pick the
    next seat; evenly spread when they are more), and evenly spaced others up to ``most``."""
    if last + 1 <= most:
        return list(range(last + 1))
    plain = {"hit", "stay"}
    special: set[int] = set()
    for j in range(last):
        if set(played.states[j].legal_action_strings()) != plain:
            special.update((j, j + 1))
    chosen = sorted(special - {0, last})
    room = most - 2
    if len(chosen) > room:
        chosen = [chosen[i * len(chosen) // room] for i in range(room)]
    spare = room - len(chosen)
    spaced = {1 + i * (last - 1) // spare for i in range(spare)} if spare > 0 else set()
    return sorted({0, last, *chosen, *spaced})


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
    fault: str | None = None


@attrs.frozen
class EngineFault:
    """The engine failed the protocol (it hung, exited, or printed a malformed or oversized
    line): no rule is blamed and no case is written.

    Attributes:
        message: what went wrong (`flip7ref.checking.engine_process.EngineError`'s one line).
        request: the run request it happened at (counted from 1 over the run).
        actions: how many actions the case sent there holds.
        edition: the edition of that case.
    """

    message: str
    request: int
    actions: int
    edition: str


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
    (only ``keys``, and after the game's end only those of `AT_END_KEYS`; at the horizon only the
    events before the shuffle, as ``events_include``)."""
    state = played.states[step]
    edition = load_edition(trial.edition)
    rules = _provisional_rules(state) or [next(iter(edition.rules))]
    if step == played.horizon:
        expect: dict[str, Any] = {"events_include": as_written(outcome(state)["events"][: played.cut])}
    else:
        expect = expected_outcome(state, keys)
    kind = "game" if state.current_player == TERMINAL else "round" if state.round != trial.round else "transition"
    case: dict[str, Any] = {
        "id": ident, "title": "fuzz", "edition": trial.edition, "rules": rules,
        "source": "flip7ref conformance fuzz: the reference's outcome", "kind": kind,
    }  # fmt: skip
    if trial.options:
        case["options"] = dict(trial.options)
    case["setup"] = trial.setup()
    case["actions"] = list(played.actions[:step])
    case["expect"] = expect or {"round": state.round}
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
        faults: the engine's faults so far (a fault ends its game, like a skip; the engine is
            restarted for the next request).
    """

    def __init__(self, engine: Engine, impl: Mapping[str, Any]) -> None:
        self.engine = engine
        self.impl = impl
        self.keys: tuple[str, ...] | None = None
        self.requests = 0
        self.skipped = 0
        self.faults: list[EngineFault] = []

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
            if checked.fault is not None or (checked.result.status != "fail" and checked.result.status != "error"):
                return checked
            full = prepare(case, self.impl)
            assert isinstance(full, Prepared)  # the game was played on the reference
            return self._judge(full, checked.observed, checked.result.message)
        prepared = prepare(case, self.impl)
        if isinstance(prepared, CaseResult):
            return Check(prepared, None, None)
        checked = self._send(case, prepared)
        if checked.result.status == "skip" or checked.fault is not None:
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
            fault = EngineFault(str(exc), self.requests, len(case.get("actions") or ()), str(case["edition"]))
            self.faults.append(fault)
            return Check(errored(case, "error", f"engine fault: {exc}"), prepared, None, fault=str(exc))
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
        the horizon, the engine skipped a step or failed the protocol there (`faults`), or the
        time ``stop`` passed).

        Args:
            every: check the game step by step (`scan_steps`; at the first that differs, the steps
                between it and the one checked before); else the last step first, and every step only
                when it differs (cheaper, but blind to a difference that is gone by the end).
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
            return self._first_in(trial, played, range(last + 1), stop)
        previous = -1
        for step in scan_steps(played, last):
            if time.monotonic() > stop:
                return None
            found = self._step(trial, played, step)
            if found is None:
                return None
            if found.check.result.status != "pass":
                return self._first_in(trial, played, range(previous + 1, step), stop) or found
            previous = step
        return None

    def _first_in(self, trial: Trial, played: Played, steps: range, stop: float) -> Found | None:
        """The first of ``steps`` where the engine differs, or None (none does, the engine skipped
        one, or the time ``stop`` passed)."""
        for step in steps:
            if time.monotonic() > stop:
                return None
            found = self._step(trial, played, step)
            if found is None:
                return None
            if found.check.result.status != "pass":
                return found
        return None

    def _step(self, trial: Trial, played: Played, step: int) -> Found | None:
        """Check one step of a game (the result is in ``.check``); None when the engine skipped it
        or failed the protocol there (an engine fault, recorded in ``faults``: not a difference)."""
        case = step_case(trial, played, step, self.keys or OUTCOME_KEYS)
        checked = self.check(case, _steps(played, step))
        if checked.result.status == "skip" or checked.fault is not None:
            return None
        return Found(trial, played, step, case, checked)

    def replay(self, trial: Trial, stop: float, within: int) -> Found | None:
        """Play a (shrunk) trial on the reference for at most ``within`` decisions and check its last
        step (a difference that is gone by then is not looked for); the difference there, or None
        when it does not differ, cannot be set up or the engine cannot run it."""
        try:
            played = play(trial, limit=min(len(trial.choices), within))
        except Flip7RefError:
            return None
        if supports(self.impl, {**case_base(trial), "id": "", "rules": [], "source": ""}) is not None:
            return None
        return self.first_difference(trial, played, stop, every=False, scan=False)
