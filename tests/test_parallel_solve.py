"""The solo solver in worker processes (``SoloSolver(workers=N)``, ``solve --workers N``).

The split over the modifier cards only schedules the work: the value, the
probabilities, the states and every best action must be the same as in one
process, to the last bit of a float.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

from flip7ref import Game
from flip7ref.analysis import AnalysisError, SoloSolver, solo_deck_position
from flip7ref.analysis.parallel import Schedule
from flip7ref.cli import main
from flip7ref.core.errors import OptionError
from flip7ref.core.state import State
from flip7ref.play.strategies import ThresholdStrategy
from flip7ref.proc.pools import process_limit

SOLO = Game("flip7", 1)


def _after(state: State, cards: list[str]) -> State:
    """The solo round after the player draws ``cards`` (the first in the deal, then Hits)."""
    for card in cards:
        state = state.apply_chance(card) if state.current_player == -1 else state.apply("hit").apply_chance(card)
    return state


def _outcome(solver: SoloSolver, state: State) -> tuple[Any, ...]:
    result = solver.solve(state)
    return result.value, result.bust, result.flip7, result.states, solver.best_actions(), dict(solver._memo)


@pytest.mark.rules("F7-035", "F7-090", "F7-091")
@pytest.mark.parametrize("workers", [2, 3])
def test_workers_give_the_same_solve_as_one_process(workers: int) -> None:
    """Numbers and the six modifiers from a line of 0, 1, 2, 3: every state's value and best action agree."""
    state = _after(solo_deck_position(SOLO, ["number", "modifier"]), ["0", "1", "2", "3"])
    one = _outcome(SoloSolver(), state)
    many = _outcome(SoloSolver(workers=workers), state)
    assert many == one
    assert one[3] == 46 * 64  # lines with none, one or two of the other nine numbers, per set of modifiers
    assert one[0] == pytest.approx(30.21639109902418, abs=1e-12)


@pytest.mark.rules("F7-035", "F7-091")
def test_workers_give_the_same_exact_fractions() -> None:
    state = _after(solo_deck_position(SOLO, ["number", "modifier"]), ["1", "2", "3", "4", "5"])
    one = _outcome(SoloSolver(exact=True), state)
    assert _outcome(SoloSolver(exact=True, workers=2), state) == one
    assert one[3] == 9 * 64  # with one of the other eight numbers or none
    assert float(one[0]) == pytest.approx(32.46213503647361, abs=1e-12)


@pytest.mark.rules("V-033")
def test_workers_give_the_same_solve_where_unlucky_7_wipes_modifiers() -> None:
    """Vengeance: an Unlucky 7 sends the modifiers of the line to the discard pile, so a worker solves
    positions of a smaller combination itself; the result is still that of one process."""
    game = Game("vengeance", 1)
    cards = ["1", "2", "3", "4", "unlucky7", "-2", "-4", "/2"]
    state = game.new_position(draw=cards, rest="out", seed=None, deal=True, totals=[game.target_score])
    one = _outcome(SoloSolver(), state)
    assert _outcome(SoloSolver(workers=2), state) == one
    assert one[3] == 5909  # under reshuffles=unlimited, the default since issue 43 (5012 under reading 1; 4693 before F7-116)
    modifier = {game.codes[c] for c in ("-2", "-4", "/2")}
    assert any(modifier & set(key[2]) for key in one[4])  # positions with wiped modifiers were solved


def test_a_fixed_policy_is_evaluated_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the optimal policy is split: a policy reaches fewer positions than every combination."""
    import flip7ref.analysis.solver as solver_module  # where the solver looks up its process pool

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("no process pool for a fixed policy")

    monkeypatch.setattr(solver_module, "Workers", refuse)
    state = _after(solo_deck_position(SOLO, ["number", "modifier"]), ["12", "11", "10"])
    one = SoloSolver(ThresholdStrategy(25)).solve(state)
    many = SoloSolver(ThresholdStrategy(25), workers=2).solve(state)
    assert (many.value, many.states) == (one.value, one.states)


def test_bad_worker_counts_and_budgets() -> None:
    for bad in (0, -1, 2.5, "2", True):
        with pytest.raises(OptionError, match="workers must be a whole number, at least 1"):
            SoloSolver(workers=bad)  # type: ignore[arg-type]
    state = _after(solo_deck_position(SOLO, ["number", "modifier"]), ["12", "11", "10", "9"])
    with pytest.raises(AnalysisError, match="more than 100 states"):
        SoloSolver(workers=2, max_states=100).solve(state)


def _run_schedule(most: tuple[int, ...], workers: int, seed: int, slow: int | None = None) -> dict[str, Any]:
    """Drive a Schedule as the solver does, finishing the workers' combinations in a random order
    (worker ``slow`` finishing only when nothing else can); check every combination given against the
    rule that a worker is given a combination only once it has, or is sent, all it builds on."""
    plan = Schedule(most, workers)
    rng = random.Random(seed)
    done: set[tuple[int, ...]] = set()
    given: dict[tuple[int, ...], int] = {}
    queued: list[list[tuple[int, ...]]] = [[] for _ in range(workers)]  # the combination each worker is solving
    held: list[set[tuple[int, ...]]] = [set() for _ in range(workers)]
    owners = {t: w for w, queue in enumerate(plan.queues) for t in queue}
    while plan.left() or any(queued):
        for w in range(workers):
            if not queued[w] and (task := plan.next_for(w)) is not None:  # an idle worker is given one combination
                assert task not in given
                sent = {t for t in plan.above(task) if t not in held[w]}
                assert sent <= done, "sent results that are not finished"
                plan.seeds(task, w)
                held[w] |= {*plan.above(task), task}
                given[task] = w
                queued[w].append(task)
        ready = [w for w in range(workers) if queued[w] and w != slow] or [w for w in range(workers) if queued[w]]
        assert ready, "deadlock"
        w = rng.choice(ready)
        task = queued[w].pop(0)
        assert all(t in done or t in held[w] for t in plan.above(task))
        done.add(task)
        plan.results[task] = []
    everything = set(itertools.product(*(range(n + 1) for n in most))) - {(0,) * len(most)}
    assert done == everything
    return {"moved": sum(1 for t, w in given.items() if owners[t] != w)}


@pytest.mark.parametrize("workers", [1, 2, 3, 4])
@pytest.mark.parametrize("most", [(1,) * 6, (2, 1, 1), (1, 3), (1,)])
def test_schedule_gives_every_combination_once_after_what_it_builds_on(most: tuple[int, ...], workers: int) -> None:
    for seed in range(5):
        _run_schedule(most, workers, seed)


def test_schedule_moves_work_from_a_slow_worker() -> None:
    assert _run_schedule((1,) * 6, 2, 0, slow=0)["moved"] > 0
    assert _run_schedule((1,) * 6, 1, 0)["moved"] == 0


def _solve_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(argv) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_odds_and_solve_commands_with_workers(capsys: pytest.CaptureFixture[str]) -> None:
    """The JSON says how many processes were used: 1 where nothing is shared out."""
    odds = ["odds", "--line", "0,1,2,3", "--cards", "numbers,modifiers", "--json"]
    one = _solve_json([*odds, "--workers", "1"], capsys)
    two = _solve_json([*odds, "--workers", "2"], capsys)
    assert one["values"] == two["values"] and one["best"] == two["best"] == "hit"
    assert (one["workers"], two["workers"]) == (1, 2) and one["states"] == two["states"]
    data = _solve_json(["solve", "--cards", "numbers", "--workers", "2", "--json"], capsys)
    assert data["workers"] == 1 and data["value"] == pytest.approx(18.5652176141, abs=1e-9)  # no modifier to split on
    data = _solve_json(["solve", "--cards", "numbers", "--policy", "threshold:20", "--workers", "2", "--json"], capsys)
    assert data["workers"] == 1
    assert main(["solve", "--cards", "numbers", "--workers", "2"]) == 0
    assert "processes" not in capsys.readouterr().out
    assert main(["solve", "--cards", "numbers", "--workers", "0"]) == 2
    expected = f"--workers: expected a whole number of processes from 1 to {process_limit()} (4 per CPU), got 0"
    assert expected in capsys.readouterr().err


def test_simulate_solves_the_optimal_solo_policy_in_its_workers(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """simulate --workers N hands N to the optimal-solo policy's solve (and to nothing else)."""
    import flip7ref.analysis as analysis
    from flip7ref.play.strategies import OptimalSoloStrategy

    asked: list[int] = []

    def table(
        game: Game, max_states: int, categories: tuple[str, ...], *, workers: int, **_: object
    ) -> dict[tuple[int, ...], bool]:
        asked.append(workers)
        return {}  # every line falls back to threshold:20

    monkeypatch.setattr(analysis, "solo_policy_table", table)
    monkeypatch.setattr(OptimalSoloStrategy, "_tables", {})
    args = ["simulate", "--strategy", "optimal-solo", "--games", "4", "--json"]
    assert main([*args, "--workers", "2"]) == 0
    OptimalSoloStrategy._tables.clear()  # the policy is kept for the life of the process: solve it again
    assert main([*args, "--workers", "1"]) == 0
    assert asked == [2, 1]
    assert OptimalSoloStrategy().workers == 1


def test_no_workers_are_started_when_there_is_nothing_to_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """A position solved before, another seat's decision and a deck without modifiers start no process."""
    import flip7ref.analysis.solver as solver_module  # where the solver looks up its process pool

    state = _after(solo_deck_position(SOLO, ["number", "modifier"]), ["0", "1", "2", "3", "4"])
    solver = SoloSolver(workers=2)
    first = solver.solve(state)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("no process pool needed")

    monkeypatch.setattr(solver_module, "Workers", refuse)
    again = solver.solve(state)
    assert (again.value, again.states) == (first.value, first.states)
    numbers = SoloSolver(workers=2).solve(solo_deck_position(SOLO, ["number"]))
    assert numbers.states == 4095
    three = Game("flip7", 3).new_position(turn=1, lines={1: ["3"]}, seed=None)
    with pytest.raises(AnalysisError, match="seat 1 decides here"):
        SoloSolver(workers=2).solve(three)


def test_workers_are_started_safely_beside_a_thread_and_never_left_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    """With another thread running (a progress display), workers are not forked from this process
    (forkserver); after a solve, and after a solve that fails, no worker process is left."""
    import multiprocessing
    import threading

    methods: list[tuple[str, bool]] = []  # each start method chosen, and whether another thread was running
    real = multiprocessing.get_context

    def spy(method: str | None = None) -> Any:
        methods.append((str(method), threading.active_count() > 1))
        return real(method)

    monkeypatch.setattr(multiprocessing, "get_context", spy)
    state = _after(solo_deck_position(SOLO, ["number", "modifier"]), ["1", "2", "3", "4", "5"])
    one = _outcome(SoloSolver(), state)
    assert _outcome(SoloSolver(workers=2), state) == one
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert _outcome(SoloSolver(workers=2), state) == one
    finally:
        stop.set()
        thread.join()
    default = multiprocessing.get_start_method()
    assert len(methods) == 2 and methods[1][1]  # (a thread left by an earlier test may run in the first too)
    assert all(method == ("forkserver" if default == "fork" and threads else default) for method, threads in methods)
    assert multiprocessing.active_children() == []
    with pytest.raises(AnalysisError, match="more than 50 states"):
        SoloSolver(workers=2, max_states=50).solve(state)
    assert multiprocessing.active_children() == []


def test_a_reused_solver_behaves_as_in_one_process_after_a_budget_error() -> None:
    """Solve C, fail on A (over the budget), solve C again: as with one process."""
    root = solo_deck_position(SOLO, ["number", "modifier"])
    small = _after(root, ["1", "2", "3", "4", "5"])  # 576 states
    large = _after(root, ["0", "1", "2", "3"])  # 2,944 more
    for workers in (1, 2):
        solver = SoloSolver(workers=workers, max_states=1000)
        first = solver.solve(small)
        with pytest.raises(AnalysisError, match="more than 1,000 states"):
            solver.solve(large)
        again = solver.solve(small)
        assert again.value == first.value and again.workers == 1  # nothing left to share out


def test_workers_are_no_more_than_the_combinations() -> None:
    """Three modifier cards left in the pile make seven combinations: at most seven processes."""
    state = _after(solo_deck_position(SOLO, ["number", "modifier"]), ["1", "2", "3", "+2", "+4", "x2"])
    solver = SoloSolver(workers=50)
    result = solver.solve(state)
    assert result.workers == 7
    assert result.value == SoloSolver().solve(state).value


def test_the_process_pool_is_looked_up_where_the_tests_above_replace_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The two tests above replace ``flip7ref.analysis.solver.Workers``: an optimal
    parallel solve with modifiers to split on does reach it (else they prove nothing)."""
    import flip7ref.analysis.solver as solver_module

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the process pool was asked for")

    monkeypatch.setattr(solver_module, "Workers", refuse)
    state = _after(solo_deck_position(SOLO, ["number", "modifier"]), ["12", "11", "10"])
    with pytest.raises(AssertionError, match="the process pool was asked for"):
        SoloSolver(workers=2).solve(state)
