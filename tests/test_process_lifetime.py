"""No long-running command leaves a process of its own behind when it is killed (issue 41).

Each command is started in a session of its own, with a marker of the test's in its
environment (every process it starts inherits it: pool workers, the supervised child of a
plug-in run, an engine in a session of its own).  Once the processes it starts are running,
the command's own process is sent SIGTERM, or SIGKILL (which it cannot handle: there the
processes it started die of the Linux parent-death signal, `flip7ref.proc.reaper.die_with_parent`),
and within 5 s no live process may carry the marker.  A ``simulate --log`` killed mid-run
leaves whole JSON lines only.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal and /proc are Linux's")

HERE = Path(__file__).parent
STEADY = HERE / "plugins" / "steady.py"
HOSTILE_ENGINE = HERE / "engines" / "hostile.py"
MARK = "FLIP7REF_LIFETIME_TEST"
LEFT_SECONDS = 5.0
START_SECONDS = 120.0  # a loaded machine may take long to start the processes; the test polls, it does not wait this long


def _marked(token: str) -> list[int]:
    """The live (not zombie) processes whose environment holds ``MARK=token``."""
    needle = f"{MARK}={token}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdecimal():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            environ = (entry / "environ").read_bytes()
        except (OSError, IndexError):  # gone while read, or not ours to read
            continue
        if state not in ("Z", "X") and needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> Callable[[], bool]:
    def ready() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        except OSError:
            return False
        return True

    return ready


def _command(name: str, tmp: Path) -> tuple[list[str], int, Callable[[], bool] | None]:
    """The words of command ``name``, how many processes of its own mean it is running, and
    an extra readiness check (or None)."""
    serve = f"{sys.executable} -m flip7ref.cli conformance serve"
    if name == "simulate-workers":
        return ["simulate", "--games", "100000000", "--workers", "2", "--no-progress"], 3, None
    if name == "tournament-workers":
        return ["tournament", "--strategy", "random", "--strategy", "threshold:20", "--games", "100000000",
                "--workers", "2", "--no-progress"], 3, None  # fmt: skip
    if name == "plugin-workers":  # the supervisor, its child, the child's two workers
        return ["simulate", "--games", "100000000", "--workers", "2", "--no-progress", "--strategy",
                f"{STEADY}:Steady"], 4, None  # fmt: skip
    if name == "plugin":  # the supervisor and its child
        return ["simulate", "--games", "100000000", "--no-progress", "--strategy", f"{STEADY}:Steady"], 2, None
    if name == "conformance-run":
        return ["conformance", "run", "--engine", f"{sys.executable} {HOSTILE_ENGINE} hang", "--timeout", "60"], 2, None
    if name == "conformance-fuzz":
        return ["conformance", "fuzz", "--engine", serve, "--seconds", "600", "--out", str(tmp / "cases")], 2, None
    if name == "solve":
        return ["solve", "--cards", "numbers,modifiers,actions", "--exact", "--workers", "2", "--max-hours", "inf"], 3, None
    if name == "table":
        port = _free_port()
        return ["table", "--port", str(port), "--no-browser", "--data", str(tmp / "games")], 1, _listening(port)
    raise AssertionError(name)


COMMANDS = ["simulate-workers", "tournament-workers", "plugin", "plugin-workers", "conformance-run", "conformance-fuzz",
            "solve", "table"]  # fmt: skip


def _start(words: list[str], token: str, err: Path, stdout: int = subprocess.DEVNULL) -> subprocess.Popen[str]:
    """Start ``flip7ref WORDS`` in a session of its own, marked with ``token``; its stderr goes to
    the file ``err`` (a pipe would stay open as long as a process left behind holds it)."""
    with err.open("w") as stderr:
        return subprocess.Popen(
            [sys.executable, "-m", "flip7ref.cli", *words], stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
            text=True, start_new_session=True, env={**os.environ, MARK: token},
        )  # fmt: skip


def _wait_for(check: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def _kill_all(token: str) -> None:
    for pid in _marked(token):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
@pytest.mark.parametrize("name", COMMANDS)
def test_killing_the_command_leaves_no_process_of_its_own(name: str, sig: signal.Signals, tmp_path: Path) -> None:
    if name == "table":
        pytest.importorskip("starlette")
        pytest.importorskip("uvicorn")
    words, count, ready = _command(name, tmp_path)
    token = secrets.token_hex(8)
    proc = _start(words, token, tmp_path / "stderr.txt")
    try:
        started = _wait_for(lambda: len(_marked(token)) >= count and (ready is None or ready()), START_SECONDS)
        assert started, (name, _marked(token), proc.poll())
        proc.send_signal(sig)
        proc.wait(timeout=60)
        err = (tmp_path / "stderr.txt").read_text()
        left = not _wait_for(lambda: not _marked(token), LEFT_SECONDS)
        assert not left, (name, sig.name, _marked(token), err)
        if sig == signal.SIGTERM:
            assert "Traceback" not in err, err
            assert proc.returncode in (0, 143), (proc.returncode, err)  # the table ends with 0 and its message
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        _kill_all(token)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
@pytest.mark.parametrize("plugin", [False, True], ids=["built-in", "plugin"])
def test_a_killed_simulate_leaves_whole_lines_in_its_log(sig: signal.Signals, plugin: bool, tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    words = ["simulate", "--games", "100000000", "--workers", "2", "--no-progress", "--log", str(log)]
    if plugin:
        words += ["--strategy", f"{STEADY}:Steady"]
    token = secrets.token_hex(8)
    proc = _start(words, token, tmp_path / "stderr.txt")
    try:
        assert _wait_for(lambda: log.exists() and log.stat().st_size > 64 * 1024, START_SECONDS), proc.poll()
        proc.send_signal(sig)
        proc.wait(timeout=60)
        assert _wait_for(lambda: not _marked(token), LEFT_SECONDS), _marked(token)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        _kill_all(token)
    data = log.read_bytes()
    assert data.endswith(b"\n")
    lines = data.decode().splitlines()
    assert [json.loads(line)["game"] for line in lines] == list(range(len(lines)))  # whole, in order, none lost


def test_sigterm_with_a_request_in_flight_ends_the_table_quietly(tmp_path: Path) -> None:
    """A client that sent half a request keeps uvicorn's graceful shutdown waiting: the server
    gives it `flip7ref.table.server.GRACE_SECONDS`, then ends with its message, no traceback."""
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    port = _free_port()
    token = secrets.token_hex(8)
    words = ["table", "--port", str(port), "--no-browser", "--data", str(tmp_path / "games")]
    proc = _start(words, token, tmp_path / "stderr.txt", stdout=subprocess.PIPE)
    try:
        assert _wait_for(_listening(port), START_SECONDS), proc.poll()
        with socket.create_connection(("127.0.0.1", port)) as client:
            client.sendall(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
            time.sleep(0.3)  # for the request to reach its handler, which waits for the rest of the body
            proc.send_signal(signal.SIGTERM)
            out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        _kill_all(token)
    assert (proc.returncode, (tmp_path / "stderr.txt").read_text()) == (0, "")
    assert out.splitlines()[-1] == "flip7ref table: stopped; every game is saved"
