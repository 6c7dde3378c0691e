"""Running a command whose strategy plug-ins may end the process, and saying so when they do.

A strategy plug-in (``--strategy module:Class`` or ``file.py:Class``) is the user's code, run
inside the command.  Most of its failures are caught where it is called and reported in one
line (`flip7ref.play.strategies.StrategyError`); one cannot be: ``os._exit()`` (or a crash of the
interpreter, or a signal) ends the process on the spot, with no exception to catch and no
``finally`` block run, so the command would end silently with whatever status the plug-in
chose.  ``--workers`` and ``--cluster`` runs already report a worker that ends this way.

`run_supervised` covers the single-process case on POSIX: the command runs in a forked child
while the parent waits.  The child writes its report to a pipe when its Python code finishes
(normally, with an error, with ``SystemExit``, on Ctrl-C or SIGTERM: a ``finally`` block),
then leaves with ``os._exit``: a secret of the run (16 random bytes drawn by the parent just
before the fork) followed by the exit status it leaves with.  The parent passes on the child's
exit status when that report came and names the status the child did exit with; otherwise
(no report, or bytes a plug-in wrote to the pipe, which cannot hold the secret) it prints one
line naming the plug-ins and the status, and exits 2.  The child shares the terminal, so its
output, ``--progress`` and a debugger's prompt reach the user as before; Ctrl-C reaches both
(one process group): the parent ignores it and reports the child's own ``interrupted`` status
(130).  SIGTERM and SIGHUP sent to the parent are passed on to the child; a parent killed
outright (``kill -9``) takes the child with it (`flip7ref.proc.reaper.die_with_parent`, on Linux).
The parent is a subreaper (`flip7ref.proc.reaper.become_subreaper`, Linux): a process the run left
behind (a plug-in's child in a session of its own, which would hold the command's output open)
is given to it when the run ends, and killed then (`flip7ref.proc.reaper.kill_engine_processes`).
A plug-in that searches the process's memory for the secret is not guarded against.

The command line uses it when a plug-in is named and ``--in-process`` is not given; where
``os.fork`` is missing (Windows) the command runs in its own process as before.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import sys
from collections.abc import Callable, Sequence

from flip7ref.proc.exits import EXIT_BROKEN_PIPE, EXIT_USAGE
from flip7ref.proc.reaper import become_subreaper, die_with_parent, kill_engine_processes

EXIT_PLUGIN_ENDED = EXIT_USAGE
"""The exit status when a plug-in ended the command's process: a user's code failing, as for
any user mistake (docs/cli.md)."""


def available() -> bool:
    """Whether this platform can supervise a command (it has ``os.fork``)."""
    return hasattr(os, "fork")


def run_supervised(run: Callable[[], int], plugins: Sequence[str]) -> int:
    """Run ``run()`` in a forked child process and return its exit status.

    Args:
        run: the command; returns an exit status (0–255). It runs in the child only.
        plugins: the ``--strategy`` specs of the plug-ins the command loads (``"mybots:Greedy"``),
            named in the message when the child ends without finishing.

    Returns:
        int: in the parent, the child's exit status when its Python code finished (128 + N when a
        signal N ended it after that); `EXIT_PLUGIN_ENDED` (2), after one line on stderr, when the
        child ended without finishing its code (``os._exit``, a crash, a signal, a report written by
        the plug-in rather than by the run). In the child this function never returns: it leaves
        with ``os._exit`` after flushing its output; it is killed if the parent is (Linux).

    Raises:
        OSError: the pipe or the fork cannot be made (too many processes): nothing has run yet.
    """
    for stream in (sys.stdout, sys.stderr):  # nothing buffered may be printed twice
        with contextlib.suppress(Exception):
            stream.flush()
    read_end, write_end = os.pipe()
    secret = secrets.token_bytes(_SECRET_BYTES)
    parent = os.getpid()
    become_subreaper()  # what the run leaves behind comes back to this process, to be ended
    pid = os.fork()
    if pid == 0:  # the child: run the command, then say it finished
        os.close(read_end)
        die_with_parent(parent)
        status = 1
        try:
            status = run()
        except SystemExit as exc:  # argparse's own exits, or a command's sys.exit(N)
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BrokenPipeError:  # stdout closed by its reader: quietly, as flip7ref.cli.main does
            status = EXIT_BROKEN_PIPE
        finally:
            status &= 0xFF
            with contextlib.suppress(OSError):
                os.write(write_end, secret + bytes([status]))
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
        os._exit(status)
    os.close(write_end)
    return _wait(pid, read_end, secret, plugins)


_SECRET_BYTES = 16
"""The length of a run's secret (`run_supervised`)."""


def _reported(read_end: int, secret: bytes) -> int | None:
    """The exit status the child reported with ``secret`` on the pipe, or None (nothing, or
    only bytes written by someone else).  Reads what is there without waiting: a grandchild
    (a pool worker) may still hold the pipe open."""
    os.set_blocking(read_end, False)
    data = b""
    with contextlib.suppress(OSError):
        while len(data) < 1 << 16:
            chunk = os.read(read_end, 4096)
            if not chunk:
                break
            data += chunk
    at = data.rfind(secret)
    if at < 0 or len(data) < at + len(secret) + 1:
        return None
    return data[at + len(secret)]


def _wait(pid: int, read_end: int, secret: bytes, plugins: Sequence[str]) -> int:
    """In the parent: wait for child ``pid``; its status, or the one-line report of a child
    that did not finish (see `run_supervised`)."""

    forwarded: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        forwarded.append(signum)
        with contextlib.suppress(OSError):
            os.kill(pid, signum)

    old = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGHUP)}
    old[signal.SIGINT] = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the child reports Ctrl-C itself
    try:
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                break
            except ChildProcessError:  # pragma: no cover - reaped elsewhere
                status = 0
                break
            except InterruptedError:  # pragma: no cover - PEP 475 retries; kept for safety
                continue
        reported = _reported(read_end, secret)
    finally:
        os.close(read_end)
        kill_engine_processes(os.getpid(), "")  # this process's descendants: what the run left behind
        for s, handler in old.items():
            signal.signal(s, handler)
    code = os.waitstatus_to_exitcode(status)
    finished = reported is not None and (reported == code or code < 0)  # a signal may end it after the report
    if finished or -code in forwarded:  # done, or ended by the SIGTERM/SIGHUP the parent was sent
        return code if code >= 0 else 128 - code
    how = f"with status {code}" if code >= 0 else f"by signal {signal.Signals(-code).name}"
    names = ", ".join(repr(p) for p in dict.fromkeys(plugins))
    print(
        f"flip7ref: error: the run did not finish: its process ended {how} while strategy {names} was loaded "
        "(did it call os._exit() or crash the interpreter?)",
        file=sys.stderr,
    )
    return EXIT_PLUGIN_ENDED
