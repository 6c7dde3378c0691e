"""Finding and ending every process an engine started, even one that left its process group.

The harness starts an engine in a process group of its own and kills the group when
the engine is stopped (`flip7ref.checking.engine_process.EngineProcess`).  A process that calls ``setsid``
(or ``setpgid``), typically after a double fork, leaves that group; on Linux it is
still found here, in two ways:

- every engine is started with the environment variable `MARK` set to a token of its
  own, which its children inherit: a process of the user's whose environment
  (``/proc/PID/environ``) holds the token belongs to that engine;
- the harness process is made a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``,
  Linux 3.4 and later): an orphan of the engine's tree is given to the harness rather
  than to init, so every descendant the engine leaves behind is a descendant of the
  harness, killed here when it is in the engine's tree or carries the token, and then
  waited for (no zombie is left).

`kill_engine_processes` kills, with SIGKILL, the engine's tree and every process that
carries its token, repeatedly until none is left (a process forking while it is killed
is caught on the next pass).  Where ``/proc`` is missing (macOS, BSD) only the process
group is killed; a process that both leaves the engine's tree and clears its
environment escapes (conformance/PROTOCOL.md says so).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

MARK = "FLIP7REF_ENGINE_TOKEN"
"""The environment variable that marks the processes of one engine."""

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_subreaper: bool | None = None


def _prctl(option: int, value: int) -> bool:
    """``prctl(option, value, 0, 0, 0)`` through libc (Linux); whether it succeeded (False
    elsewhere, or without a libc ``prctl``).  Raises nothing."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):  # pragma: no cover - no libc prctl
        return False


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants (Linux; once per process).

    Returns:
        Whether this process is a subreaper now (False off Linux or when ``prctl``
        fails).  Raises nothing.
    """
    global _subreaper
    if _subreaper is None:
        _subreaper = _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    return _subreaper


def die_with_parent(parent: int | None) -> bool:
    """In a process just started by flip7ref (a pool worker, a solver worker, a supervised
    run, an engine before its ``exec``): be killed (SIGKILL) when the process that started
    it ends, however it ends (``kill -9`` included).

    The one mechanism every spawner of flip7ref calls (`flip7ref.proc.pools.worker_started`,
    `flip7ref.proc.supervise.run_supervised`, `spawn`).  On Linux it is the kernel's parent-death
    signal (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), kept across ``exec``; it fires when the
    thread that started this process ends, so flip7ref starts its processes from the main
    thread.  A parent that ended before the call is caught by the check after it: this
    process then ends at once (``os._exit(1)``).  Elsewhere (macOS, BSD) nothing is set and
    False is returned: there the parent's SIGTERM handler ends its children
    (`flip7ref.proc.pools.sigterm_raises`), and a ``kill -9`` of the parent leaves them running.

    Args:
        parent: the pid of the process that started this one (what ``os.getppid()`` was
            before the fork, or `multiprocessing.parent_process`'s pid); None: the current
            parent, unchecked.

    Returns:
        Whether the signal is set.  Raises nothing; may end the process (see above).
    """
    if not _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL):
        return False
    if parent is not None and os.getppid() != parent and not _alive(parent):
        os._exit(1)  # the parent is gone already: the signal will never come
    return True


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists (and is not a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - someone else's process now
        return True
    try:
        stat = Path("/proc", str(pid), "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return True
    fields = stat.rsplit(")", 1)[-1].split()
    return not fields or fields[0] not in ("Z", "X")


def new_token() -> str:
    """A fresh token for `MARK` (32 hexadecimal digits)."""
    return secrets.token_hex(16)


def _processes() -> dict[int, int]:
    """Every process's parent: pid -> ppid (from ``/proc``; empty where it is missing).
    Zombies are left out (they are dead already; a zombie child of ours is reaped apart)."""
    found: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdecimal():
            continue
        try:
            stat = Path("/proc", name, "stat").read_text(encoding="ascii", errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[0] not in ("Z", "X"):
            found[int(name)] = int(fields[1])
    return found


def _marked(pid: int, token: str) -> bool:
    """Whether process ``pid`` was started with ``MARK=token`` in its environment."""
    try:
        environ = Path("/proc", str(pid), "environ").read_bytes()
    except OSError:
        return False
    return f"{MARK}={token}".encode() in environ.split(b"\0")


def engine_processes(root: int, token: str) -> set[int]:
    """The live processes of an engine: ``root`` and its descendants, and every process
    whose environment carries ``token`` (and their descendants).  Empty off Linux."""
    parents = _processes()
    chosen = {pid for pid in parents if pid == root or _marked(pid, token)}
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    todo = list(chosen)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in chosen:
                chosen.add(child)
                todo.append(child)
    chosen.discard(os.getpid())
    return chosen


def _reap(pids: set[int], within: float = 1.0) -> None:
    """Wait for those of ``pids`` that are children of ours (orphans given to us as
    subreaper), so none stays a zombie; a pid that is not our child is skipped."""
    waiting = set(pids)
    deadline = time.monotonic() + within
    while waiting and time.monotonic() < deadline:
        for pid in list(waiting):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except (ChildProcessError, OSError):
                waiting.discard(pid)  # not our child (or already waited for)
                continue
            if done:
                waiting.discard(pid)
        if waiting:
            time.sleep(0.01)


def kill_engine_processes(root: int, token: str, *, rounds: int = 20) -> int:
    """Kill (SIGKILL) every process of an engine (`engine_processes`) until none is left,
    then wait for those that were given to this process as subreaper.

    Args:
        root: the engine's process id (the leader of its process group).
        token: the engine's `MARK` token.
        rounds: passes at most (each finds what forked during the previous one).

    Returns:
        How many processes were killed (the root included when it still ran).  Raises nothing.
    """
    killed: set[int] = set()
    for _ in range(rounds):
        alive = engine_processes(root, token) - killed
        if not alive:
            break
        for pid in alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed |= alive
        time.sleep(0.01)
    _reap(killed - {root})  # the root is the engine's Popen's to wait for
    return len(killed)


def spawn(argv: list[str]) -> tuple[subprocess.Popen[bytes], str]:
    """Start an engine: ``argv`` with pipes for stdin, stdout and stderr, in a new session
    (its own process group), its environment marked with a new `MARK` token, this process
    made a subreaper first (`become_subreaper`); the engine is killed if this process ends
    without stopping it (`die_with_parent`: on Linux, even by ``kill -9``).

    Returns:
        The process and its token.

    Raises:
        OSError: the command cannot be started.
    """
    become_subreaper()
    token = new_token()
    parent = os.getpid()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        env={**os.environ, MARK: token}, preexec_fn=lambda: _engine_dies_with(parent),
    )  # fmt: skip
    return proc, token


def _engine_dies_with(parent: int) -> None:
    """In an engine's process, between fork and exec: killed when ``parent`` ends
    (`die_with_parent`; the signal is kept across ``exec``)."""
    die_with_parent(parent)


def kill_engine(pid: int, token: str) -> None:
    """Kill an engine started by `spawn`: its process group, then every process of its own
    that left the group (`kill_engine_processes`).  Raises nothing."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    kill_engine_processes(pid, token)
