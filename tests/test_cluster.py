"""Runs on a Dask cluster (``--cluster``, :mod:`flip7ref.proc.cluster`): the same
summaries, tournament results and solve values as one process."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flip7ref import Game
from flip7ref.analysis import AnalysisError, SoloSolver, solo_deck_position
from flip7ref.analysis.parallel import combination, combinations, modifier_cards, solve_combination
from flip7ref.cli import main
from flip7ref.core.errors import OptionError
from flip7ref.core.state import State
from flip7ref.play.games import simulate
from flip7ref.play.strategies import RandomStrategy, ThresholdStrategy
from flip7ref.play.tournament import run_tournament
from flip7ref.proc.cluster import ClusterError, connect, parse_cluster

pytest.importorskip("distributed", reason="the [cluster] extra is not installed (pip install -e '.[cluster]')")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """A LocalCluster of two worker threads in this process: quick to start."""
    with connect("local:2", processes=False) as c:
        yield c


def _timeless(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in ("games_per_second", "seconds")}


def test_simulate_on_the_cluster_is_the_same_as_one_process(client: Any) -> None:
    game = Game("flip7", 3)
    lineup = [ThresholdStrategy(18), RandomStrategy(), ThresholdStrategy(22)]
    one_log: list[dict[str, object]] = []
    many_log: list[dict[str, object]] = []
    one = simulate(game, 30, "c", lineup, chunk=4, log=one_log.append)
    many = simulate(game, 30, "c", lineup, chunk=4, log=many_log.append, cluster=client)
    assert _timeless(many.as_dict()) == _timeless(one.as_dict())
    assert many_log == one_log and len(one_log) == 30


def test_tournament_on_the_cluster_is_the_same_as_one_process(client: Any) -> None:
    game = Game("flip7", 4, {"tie": "shared-win"})
    lineup = [ThresholdStrategy(18), ThresholdStrategy(20), RandomStrategy()]
    one = run_tournament(game, lineup, 16, seed=2, chunk=3)
    assert run_tournament(game, lineup, 16, seed=2, chunk=3, cluster=client).as_dict() == one.as_dict()


def _after(state: State, cards: list[str]) -> State:
    for card in cards:
        state = state.apply_chance(card) if state.current_player == -1 else state.apply("hit").apply_chance(card)
    return state


@pytest.mark.rules("F7-035", "F7-090", "F7-091")
def test_solve_on_the_cluster_is_the_same_as_one_process(client: Any) -> None:
    """Every combination of the six modifiers a Dask task: every value and best action agree to the bit."""
    state = _after(solo_deck_position(Game("flip7", 1), ["number", "modifier"]), ["0", "1", "2", "3"])
    one, many = SoloSolver(), SoloSolver(cluster=client)
    a, b = one.solve(state), many.solve(state)
    assert (b.value, b.bust, b.flip7, b.states) == (a.value, a.bust, a.flip7, a.states)
    assert a.states == 46 * 64
    assert a.value == pytest.approx(30.21639109902418, abs=1e-12)
    assert many.best_actions() == one.best_actions()
    assert many._memo == one._memo
    assert b.workers == 2


def _idle(client: Any, within: float = 20) -> bool:
    """True once the scheduler holds no task and no worker runs one (polled: Dask releases them asynchronously)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        tasks = client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))
        running = sum(client.run(lambda dask_worker: len(dask_worker.state.executing)).values())
        if not tasks and not running and not client.futures:
            return True
        time.sleep(0.1)
    return False


def test_max_seconds_stops_a_solve_on_the_cluster(client: Any) -> None:
    """A solve of hours (the action cards) stops soon after max_seconds with the one-process error,
    and nothing is left queued or running on the cluster (issue 18)."""
    state = solo_deck_position(Game("flip7", 1), ["number", "modifier", "action"])
    solver = SoloSolver(cluster=client, max_seconds=1.5, max_states=10**9)
    start = time.monotonic()
    with pytest.raises(AnalysisError, match=r"^stopped after 1.5 s \(--max-seconds\) with [\d,]+ states solved: restrict"):
        solver.solve(state)
    assert time.monotonic() - start < 30  # without the limit on the cluster: hours
    assert _idle(client)
    # the cluster is still usable afterwards
    assert SoloSolver(cluster=client).solve(_after(solo_deck_position(Game("flip7", 1), ["number", "modifier"]),
                                                   ["0", "1", "2", "3"])).states == 46 * 64  # fmt: skip


def test_a_combination_task_respects_the_deadline() -> None:
    """Each Dask task stops by itself at the solve's deadline (it may run on a worker the client cannot stop)."""
    state = solo_deck_position(Game("flip7", 1), ["number", "modifier", "action"])
    split = modifier_cards(state)
    cards = combination(split, combinations(tuple(n for _, n in split))[0])  # every modifier drawn: hours still
    late = (state, False, 0, 10**9, "hit", 5.0, time.time() - 1)
    assert solve_combination(SoloSolver, late, cards) is None
    start = time.monotonic()
    assert solve_combination(SoloSolver, (state, False, 0, 10**9, "hit", 0.5, time.time() + 60), cards) is None
    assert time.monotonic() - start < 20  # hours without the limit
    assert solve_combination(SoloSolver, (state, False, 0, 10**9, "hit", 60.0, time.time() + 60), cards, None) is None


def test_cli_simulate_local_cluster_equals_one_process(capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's check: simulate --games 200 --seed 9 --cluster local:2 --json equals --workers 1."""
    args = ["simulate", "--games", "200", "--seed", "9", "--json"]
    assert main([*args, "--cluster", "local:2"]) == 0
    cluster = json.loads(capsys.readouterr().out)
    assert main([*args, "--workers", "1"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert _timeless(cluster) == _timeless(one)
    assert one["games"] == 200


def test_parse_cluster() -> None:
    assert parse_cluster("local:3") == ("local", 3)
    assert parse_cluster("local") == ("local", 1)
    assert parse_cluster("tcp://10.0.0.5:8786") == ("address", "tcp://10.0.0.5:8786")
    for bad in ("local:0", "local:x", " "):
        with pytest.raises(OptionError, match="--cluster"):
            parse_cluster(bad)


def test_an_unreachable_scheduler_is_one_clear_error() -> None:
    with pytest.raises(ClusterError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9"), \
            connect("tcp://127.0.0.1:9", timeout=1):  # fmt: skip
        pass


def test_cli_cluster_mistakes_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "2", "--cluster", "local:zero"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected local:N" in err


def test_a_missing_extra_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    assert main(["tournament", "--games", "4", "--players", "2", "--cluster", "local:1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.rstrip().endswith(
        "pip install 'dask[distributed]>=2024.1' (keeps the installed flip7ref); or, from a checkout, flip7ref and the extra: "
        "pip install '.[cluster]' (builds flip7ref again)"
    )


def test_cli_tournament_and_solve_take_cluster(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """--cluster reaches tournament and solve (a threaded LocalCluster here, to start quickly)."""
    import flip7ref.proc.cluster as cluster

    opened: list[str] = []
    real = cluster.connect

    def threaded(text: str, **_: object) -> Any:
        opened.append(text)
        return real(text, processes=False)

    monkeypatch.setattr(cluster, "connect", threaded)
    args = ["tournament", "--players", "2", "--strategy", "threshold:15", "--strategy", "threshold:25", "--games", "8", "--json"]
    assert main([*args, "--cluster", "local:2"]) == 0
    on_cluster = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    assert _timeless(on_cluster) == _timeless(json.loads(capsys.readouterr().out))
    assert main(["solve", "--cards", "numbers", "--cluster", "local:1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == pytest.approx(18.5652176141, abs=1e-9)
    assert main(["simulate", "--games", "4", "--cluster", "local:1"]) == 0
    assert "Dask cluster       local:1 (1 worker, 1 thread)" in capsys.readouterr().out
    assert opened == ["local:2", "local:1", "local:1"]


def _ignores_sigint() -> bool:
    import signal

    return bool(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)


def test_local_worker_processes_ignore_ctrl_c() -> None:
    """Ctrl-C reaches a LocalCluster's worker processes too; they ignore it (no traceback of theirs
    before "flip7ref: interrupted") and the client ends them on leaving `connect`."""
    before = _ignores_sigint()  # False, unless the tests run with SIGINT ignored (a background job of a script)
    with connect("local:1") as c:
        assert list(c.run(_ignores_sigint).values()) == [True]
    assert _ignores_sigint() == before  # this process still takes Ctrl-C as it did


def test_cli_solve_max_seconds_on_a_cluster(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`solve --cluster local:2 --max-seconds 1` on the action-card deck: exit 3 (a limit reached) and the one-line message."""
    import flip7ref.proc.cluster as cluster

    real = cluster.connect
    monkeypatch.setattr(cluster, "connect", lambda text, **_: real(text, processes=False))
    args = ["solve", "--cards", "numbers,modifiers,actions", "--cluster", "local:2", "--max-seconds", "1"]
    assert main(args) == 3
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("flip7ref: limit reached: stopped after 1 s (--max-seconds) with ")
    assert not any("Traceback" in line for line in err)


HOSTILE = str(Path(__file__).parent / "bad_inputs" / "strategies" / "hostile.py")


def test_a_file_strategy_runs_on_worker_processes_and_their_faults_are_one_line(capsys: Any) -> None:
    """A ``file.py:Class`` strategy is sent to the workers (it was 141 lines of Dask tracebacks);
    a strategy that ends its worker with os._exit, and one past --decision-timeout, is one line each."""
    args = ["simulate", "--games", "20", "--players", "3", "--json", "--cluster", "local:1"]
    assert main([*args, "--strategy", f"{HOSTILE}:_Legal"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["games"] == 20 and json.loads(out)["strategies"] == ["legal"]
    assert "Traceback" not in err
    assert main([*args, "--strategy", f"{HOSTILE}:HardExit"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "flip7ref: error: --cluster: the workers running a task died (did a strategy call os._exit() or crash the "
        "interpreter? was a worker killed or out of memory?)\n"
    )
    assert main([*args, "--strategy", f"{HOSTILE}:Sleeper", "--decision-timeout", "0.3"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "flip7ref: error: strategy 'sleeper' at seat 1 did not choose within 0.3 s (the decision time limit, "
        "--decision-timeout)\n"
    )


def test_a_run_survives_every_worker_dying_and_restarting() -> None:
    """Both workers killed at once mid-tournament (their nannies start new ones): the game and the
    strategies are built again on the new workers from the task that made them (they were scattered
    data before, lost with the workers: a raw FutureCancelledError), and the result is the one of one process."""
    game = Game("flip7", 2)
    lineup = [ThresholdStrategy(15), ThresholdStrategy(25)]
    one = run_tournament(game, lineup, 40, seed=7, chunk=2)
    killed: list[int] = []
    with connect("local:2") as c:
        first = set(c.scheduler_info()["workers"])
        pids = list(c.run(os.getpid).values())

        def kill_all_once(done: int) -> None:
            if not killed:
                killed.append(done)
                for pid in pids:  # every worker process at once
                    os.kill(pid, signal.SIGKILL)

        many = run_tournament(game, lineup, 40, seed=7, chunk=2, cluster=c, progress=kill_all_once)
        now = set(c.scheduler_info()["workers"])
    assert killed and killed[0] < 40
    assert now and not now & first  # the workers that finished the run are new ones
    assert many.as_dict() == one.as_dict()


_CLIENT_ONLY = "flip7ref_client_only_bots"


def test_a_strategy_the_workers_cannot_import_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    """A module:Class strategy importable here but not on the workers (it was a 55-line traceback)."""
    import types

    module = types.ModuleType(_CLIENT_ONLY)
    exec("class Stayer:\n    name = 'stayer'\n    def choose(self, state, rng):\n        return state.legal_actions()[-1]\n",
         module.__dict__)  # fmt: skip
    sys.modules[_CLIENT_ONLY] = module  # only in this process: the worker processes cannot import it
    try:
        code = main(["tournament", "--players", "2", "--strategy", f"{_CLIENT_ONLY}:Stayer", "--strategy", "threshold:20",
                     "--games", "4", "--no-progress", "--cluster", "local:1"])  # fmt: skip
    finally:
        del sys.modules[_CLIENT_ONLY]
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(
        "flip7ref: error: --cluster: the workers cannot load the game and the strategies: "
        f"ModuleNotFoundError: No module named '{_CLIENT_ONLY}' (a module:Class strategy, and a plug-in primitive's module, "
        "must be importable on every worker"
    )


def test_a_plugin_primitive_the_workers_cannot_import_is_one_clear_error(capfd: pytest.CaptureFixture[str]) -> None:
    """A game of a plug-in primitive (tests/plugins) registered here only: one ClusterError, nothing on stderr."""
    plugins = str(Path(__file__).parent / "plugins")
    sys.path.insert(0, plugins)
    try:
        import peek_primitive  # noqa: F401 - registers the primitive in this process only

        game = Game(str(Path(plugins) / "peek.yaml"), 2)
    finally:
        sys.path.remove(plugins)
    with connect("local:1") as c, pytest.raises(ClusterError) as info:
        run_tournament(game, [ThresholdStrategy(20)], 4, cluster=c)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("--cluster: the workers cannot load the game and the strategies: SpecError: ")
    assert "no module registered 'peek'" in message
    assert "Traceback" not in capfd.readouterr().err


def _doubled(x: int) -> int:
    return 2 * x


def test_a_local_cluster_left_without_workers_ends_with_one_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every worker gone and none started again (a nanny that could not restart its worker on
    a loaded machine): the run ends with one ClusterError after NO_WORKER_SECONDS (it waited
    for ever); a cluster that keeps its workers is unaffected by the setting."""
    import flip7ref.proc.cluster as cluster

    monkeypatch.setattr(cluster, "NO_WORKER_SECONDS", 1.0)
    with connect("local:1", processes=False) as c:
        got: list[tuple[Any, Any]] = []
        cluster.run_units(c, _doubled, (), [(1,), (2,)], lambda unit, result: got.append((unit, result)))
        assert sorted(got) == [((1,), 2), ((2,), 4)]
        c.cluster.scale(0)  # the workers closed; nobody starts new ones
        deadline = time.monotonic() + 30
        while c.scheduler_info()["workers"] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not c.scheduler_info()["workers"]
        start = time.monotonic()
        with pytest.raises(ClusterError) as info:
            cluster.run_units(c, _doubled, (), [(3,)], lambda unit, result: None)
        assert time.monotonic() - start < 30
    assert str(info.value) == (
        "--cluster: no worker was left to run the tasks for 1 s (the workers died and could not be started again: "
        "did a strategy end them? is the machine out of memory?)"
    )


def test_a_local_cluster_larger_than_the_machine_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--cluster local:100000`` once started worker processes until the machine gave out (a
    ``RuntimeError: dictionary changed size during iteration`` traceback, minutes later); the
    number of local workers is bounded before any is started."""
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    assert parse_cluster("local:12") == ("local", 12)
    assert main(["simulate", "--games", "2", "--cluster", "local:100000"]) == 2
    assert capsys.readouterr().err == (
        "flip7ref: error: --cluster 'local:100000': expected local:N with N a whole number of workers from 1 to 12 "
        "(4 per CPU; for more, start a Dask cluster and give its scheduler's address)\n"
    )
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert parse_cluster("local:8") == ("local", 8)  # docs/cluster.md's example works anywhere
