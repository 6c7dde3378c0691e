"""A strategy plug-in that ends the command's one process is reported (flip7ref.proc.supervise).

Run as the ``flip7ref`` command (a process of its own, ``python -m flip7ref.cli``), a
command that loads a ``module:Class`` / ``file.py:Class`` strategy runs in a forked child:
an ``os._exit`` in the plug-in gives one line and exit 2 instead of a silent end with the
plug-in's status; a run that finishes prints and exits as before; ``--in-process`` keeps
the old behaviour; SIGTERM sent to the command reaches the run and leaves no process behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flip7ref.play.strategies import is_plugin_spec
from tests.process_helpers import live_in_group

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the supervisor needs os.fork (POSIX)")

HOSTILE = Path(__file__).parent / "bad_inputs" / "strategies" / "hostile.py"
STEADY = Path(__file__).parent / "plugins" / "steady.py"

QUITS_WITH_7 = '''
import os

class Quits:
    name = "quits"

    def choose(self, state, rng):
        os._exit(7)
'''


def _flip7ref(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flip7ref.cli", *args], capture_output=True, text=True, timeout=120, cwd=cwd)


@pytest.mark.parametrize(
    ("text", "plugin"),
    [("mybots:Cautious", True), ("x.py:Bot", True), ("threshold:20", False), ("random", False), ("always-hit", False),
     ("optimal-solo", False), ("threshold:x", False), (None, False), ("mod:", False)],
)  # fmt: skip
def test_which_strategy_values_are_plugins(text: object, plugin: bool) -> None:
    assert is_plugin_spec(text) is plugin


def test_a_plugin_ending_the_process_gives_one_line_and_exit_2(tmp_path: Path) -> None:
    bot = tmp_path / "quits.py"
    bot.write_text(QUITS_WITH_7, encoding="utf-8")
    for command in (["simulate", "--games", "2"], ["trace"], ["tournament", "--games", "8", "--strategy", "random"]):
        done = _flip7ref(*command, "--strategy", f"{bot}:Quits")
        assert done.returncode == 2, (command, done.returncode, done.stderr)
        assert done.stderr.splitlines() == [
            f"flip7ref: error: the run did not finish: its process ended with status 7 while strategy '{bot}:Quits' "
            "was loaded (did it call os._exit() or crash the interpreter?)"
        ], command


@pytest.mark.parametrize("flag", ["--agent", "--opponent"])
def test_bench_agents_plugin_ending_the_process_gives_one_line_and_exit_2(tmp_path: Path, flag: str) -> None:
    """``bench-agents`` takes its plug-ins as ``--agent`` / ``--opponent``, not ``--strategy``:
    it ran them in the command's own process, so an ``os._exit(7)`` ended it silently with
    status 7."""
    bot = tmp_path / "quits.py"
    bot.write_text(QUITS_WITH_7, encoding="utf-8")
    other = "--opponent" if flag == "--agent" else "--agent"
    done = _flip7ref("bench-agents", "--games", "2", "--no-progress", flag, f"{bot}:Quits", other, "random")
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.splitlines() == [
        f"flip7ref: error: the run did not finish: its process ended with status 7 while strategy '{bot}:Quits' "
        "was loaded (did it call os._exit() or crash the interpreter?)"
    ]


FORGES_THE_FINISH = '''
import os

class Forges:
    name = "forges"

    def choose(self, state, rng):
        for fd in range(3, 256):  # the supervisor's pipe among them: its old "finished" byte, then 0
            try:
                os.write(fd, b"1" + bytes([0]))
            except OSError:
                pass
        os._exit(0)
'''


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("command", ["simulate", "tournament"])
def test_a_plugin_forging_the_finish_report_is_a_plugin_fault(tmp_path: Path, command: str, workers: str) -> None:
    """Issue 41: writing the supervisor's "finished" byte, then ``os._exit(0)``, ended the run
    silently with exit 0; under ``--workers 2`` (where the bytes also land in the pool's pipes)
    the run hung.  Now: one line, exit 2."""
    bot = tmp_path / "forges.py"
    bot.write_text(FORGES_THE_FINISH, encoding="utf-8")
    games = "400" if workers == "2" else "8"
    done = _flip7ref(command, "--games", games, "--workers", workers, "--no-progress", "--strategy", f"{bot}:Forges",
                     *(["--strategy", "random"] * 3 if command == "tournament" else []))  # fmt: skip
    assert done.returncode == 2, (done.returncode, done.stderr)
    if workers == "1":
        assert done.stderr.splitlines() == [
            f"flip7ref: error: the run did not finish: its process ended with status 0 while strategy '{bot}:Forges' "
            "was loaded (did it call os._exit() or crash the interpreter?)"
        ]
    else:
        what = "games from 0 on" if command == "simulate" else "the tournament's games"
        names = "'forges'" if command == "simulate" else "'forges', 'random'"  # each strategy once
        assert done.stderr.splitlines() == [
            f"flip7ref: error: a worker process ended abruptly while playing {what} with strategy {names} "
            "(did a strategy call os._exit() or crash the interpreter?)"
        ]


def test_in_process_keeps_the_plugins_own_status(tmp_path: Path) -> None:
    bot = tmp_path / "quits.py"
    bot.write_text(QUITS_WITH_7, encoding="utf-8")
    done = _flip7ref("simulate", "--games", "2", "--strategy", f"{bot}:Quits", "--in-process")
    assert (done.returncode, done.stderr) == (7, "")


def test_a_run_that_finishes_prints_the_same_as_in_process() -> None:
    args = ["simulate", "--games", "6", "--no-progress", "--strategy", f"{STEADY}:Steady", "--json"]
    supervised, direct = _flip7ref(*args), _flip7ref(*args, "--in-process")
    assert supervised.returncode == direct.returncode == 0, supervised.stderr
    strip = [line for line in supervised.stdout.splitlines() if "games_per_second" not in line and "seconds" not in line]
    assert strip == [line for line in direct.stdout.splitlines() if "games_per_second" not in line and "seconds" not in line]
    assert '"games": 6' in supervised.stdout


def test_a_plugin_error_is_still_the_childs_one_line() -> None:
    done = _flip7ref("trace", "--strategy", f"{HOSTILE}:PrepareExits")
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["flip7ref: error: strategy 'prepare-exits' failed in prepare(): SystemExit: 9"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process group from /proc")
def test_sigterm_reaches_the_run_and_leaves_no_process() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "flip7ref.cli", "simulate", "--games", "100000000", "--no-progress",
         "--strategy", f"{STEADY}:Steady"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(live_in_group(proc.pid)) < 2:  # the parent and its child
            time.sleep(0.05)
        assert len(live_in_group(proc.pid)) >= 2, "the command did not start its child process"
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)  # to the parent only: it passes the signal on
        _, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert "Traceback" not in err and "did not finish" not in err, err
    assert proc.returncode in (143, -signal.SIGTERM), (proc.returncode, err)
    deadline = time.monotonic() + 3
    while live_in_group(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_in_group(proc.pid) == []



def test_sigterm_raises_inside_and_restores_the_handler_after() -> None:
    """`sigterm_raises` (the engine-running commands' SIGTERM: conformance run, conformance fuzz)."""
    import threading

    from flip7ref.cli._common import Terminated, sigterm_raises

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Terminated), sigterm_raises():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises before this ends
    assert signal.getsignal(signal.SIGTERM) is before
    seen: list[object] = []

    def in_a_thread() -> None:  # no handler can be set there: nothing changes
        with sigterm_raises():
            seen.append(signal.getsignal(signal.SIGTERM))

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    assert seen == [before]


LEAVES_A_SLEEPER = '''
import os, sys, time

class Leaves:
    name = "leaves"
    left = False

    def choose(self, state, rng):
        if not Leaves.left:  # once: a child in a session of its own, sleeping on after the run
            Leaves.left = True
            if os.fork() == 0:
                os.setsid()
                with open(os.environ["SLEEPER_PIDS"], "a") as f:
                    f.write(f"{os.getpid()}\\n")
                time.sleep(300)
                os._exit(0)
        return state.legal_actions()[0]
'''


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the supervisor reaps escaped processes on Linux (a subreaper)")
def test_a_process_a_plugin_leaves_behind_is_ended_with_the_run(tmp_path: Path) -> None:
    """A plug-in that forks a child into a session of its own once left it running after the
    command ended (the supervisor waited for the run only); the supervisor, a subreaper, now
    ends every process the run left behind."""
    bot, pids = tmp_path / "leaves.py", tmp_path / "pids"
    bot.write_text(LEAVES_A_SLEEPER, encoding="utf-8")
    argv = [sys.executable, "-m", "flip7ref.cli", "tournament", "--games", "4", "--players", "2",
            "--strategy", f"{bot}:Leaves", "--strategy", "random"]  # fmt: skip
    try:  # the sleeper holds the command's stdout open: reading it to its end waited for the sleeper
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, env={**os.environ, "SLEEPER_PIDS": str(pids)})
        assert done.returncode == 0, done.stderr
        [sleeper] = [int(p) for p in pids.read_text().split()]
        assert not _running(sleeper)
    finally:
        for pid in [int(p) for p in pids.read_text().split()] if pids.exists() else []:
            if _running(pid):
                os.kill(pid, signal.SIGKILL)


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")
