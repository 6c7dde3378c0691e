"""A foreign engine's process, for the harness (`flip7ref.checking.harness`): started in a
process group of its own, its lines read and decoded, every read and write bounded by a
timeout, and stopped with its whole group.

Newline-delimited JSON (conformance/PROTOCOL.md): what a line may be (`decode_line`:
UTF-8, JSON, at most `MAX_DEPTH` deep, finite numbers, at most `LINE_LIMIT` bytes) and how
long the engine may take (`check_timeout`).  The messages themselves, the handshake and the
cases are the harness's.
"""

from __future__ import annotations

import collections
import contextlib
import json
import math
import queue
import shlex
import subprocess
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any

from flip7ref.checking.verdict import cut
from flip7ref.proc.reaper import kill_engine, spawn

LINE_LIMIT = 1 << 20
"""Bytes an engine may print on one line (stdout or stderr); a longer line is cut off."""

MAX_DEPTH = 64
"""How deeply a reply may nest JSON arrays and objects."""

MAX_TIMEOUT = 86_400.0
"""The longest per-case timeout accepted (seconds)."""

STARTUP_TIMEOUT = 30.0
"""Seconds an engine has to answer the handshake at the least (starting a runtime and
loading tables can take long on a loaded machine); the per-case timeout when longer."""


MAX_FAULTS = 3
"""Engine faults after which `conformance fuzz` and `conformance run` stop (each may cost a
whole timeout); see `faults_stop`."""


def faults_stop(faults: int, limit: int = MAX_FAULTS) -> bool:
    """Whether a run stops starting work after ``faults`` engine faults (a whole number): when
    ``limit`` (a whole number; 0 = never stop) is reached.  `conformance fuzz` counts every fault
    of its run, `conformance run` the faults in a row (a case passed or failed on the rules
    resets its count)."""
    return limit > 0 and faults >= limit


def check_max_faults(value: object) -> int:
    """A ``--max-faults`` value, checked: a whole number, 0 or above (0 = never stop).

    Raises:
        ValueError: anything else, with a one-line message.
    """
    try:
        count = int(str(value).strip())
    except ValueError:
        count = -1
    if count < 0:
        raise ValueError(f"expected a whole number, 0 (never stop) or above, got {value!r}")
    return count


def check_timeout(value: object) -> float:
    """A per-case timeout in seconds, checked: a finite number above 0 and at most a day.

    Raises:
        ValueError: anything else (``nan``, ``inf``, 0, a negative number), with a one-line message.
    """
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"expected a number of seconds, got {value!r}") from None
    if not math.isfinite(seconds) or seconds <= 0 or seconds > MAX_TIMEOUT:
        raise ValueError(f"expected a number of seconds above 0 and at most {MAX_TIMEOUT:g}, got {value!r}")
    return seconds


def depth_exceeds(value: object, limit: int) -> bool:
    """Whether a decoded JSON value nests deeper than ``limit`` (iteratively: no recursion)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Iterable[object] = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


class _NotFinite(ValueError):
    """A JSON number that is not finite: ``NaN``, ``Infinity`` or one too large for a float."""


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(cut(text, 40))
    return value


def _no_constant(text: str) -> float:
    raise _NotFinite(text)


def decode_line(raw: bytes) -> Any:
    """Decode one line an engine printed: UTF-8, JSON, at most `MAX_DEPTH` deep, finite numbers.

    Raises:
        EngineError: invalid UTF-8, a byte order mark, not JSON, nested too deeply, a number too long
            to read, or a number that is not finite (``NaN``, ``Infinity``, ``1e999``: not JSON, RFC 8259).
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EngineError(f"engine printed a line that is not UTF-8 (byte {raw[exc.start]:#04x} at offset {exc.start})") from None
    if text.startswith("\ufeff"):  # what some runtimes write first: JSON has none (RFC 8259)
        raise EngineError("engine printed a line starting with a byte order mark (U+FEFF): write UTF-8 without one (RFC 8259)")
    try:
        value = json.loads(text, parse_float=_finite_float, parse_constant=_no_constant)
    except _NotFinite as exc:
        raise EngineError(f"engine printed a number that is not finite: {exc}") from None
    except json.JSONDecodeError:
        raise EngineError(f"engine printed a line that is not JSON: {cut(text.strip(), 120)!r}") from None
    except RecursionError:
        raise EngineError(f"engine printed JSON nested too deeply (more than {MAX_DEPTH} levels)") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise EngineError(f"engine printed JSON that cannot be read: {cut(str(exc), 120)}") from None
    if depth_exceeds(value, MAX_DEPTH):
        raise EngineError(f"engine printed JSON nested too deeply (more than {MAX_DEPTH} levels)")
    return value


class EngineError(Exception):
    """The engine failed: it hung, crashed or broke the protocol."""


class EngineProcess:
    """A foreign engine's process speaking newline-delimited JSON.

    The engine runs in its own process group (a shell wrapper's children too), which
    is killed as a whole when the engine is restarted or closed, with any process of the
    engine's that left the group (`flip7ref.proc.reaper`).  Every read and write
    is bounded by the timeout; lines longer than `LINE_LIMIT` bytes are cut off.

    Args:
        command: the command line that starts the engine (split like a shell would).
        timeout: seconds to wait for each response (see `check_timeout`).
        startup_timeout: seconds to wait for the first answer; None: ``timeout``, but at
            least `STARTUP_TIMEOUT` (a runtime can be slow to start).

    Raises:
        ValueError: a bad ``timeout`` or ``startup_timeout``.
    """

    def __init__(self, command: str, timeout: float = 10.0, *, startup_timeout: float | None = None) -> None:
        self.command = command
        self.timeout = check_timeout(timeout)
        self.startup_timeout = max(self.timeout, STARTUP_TIMEOUT) if startup_timeout is None else check_timeout(startup_timeout)
        self.proc: subprocess.Popen[bytes] | None = None
        self.token = ""
        self.lines: queue.Queue[bytes | int | None] = queue.Queue()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        self.threads: list[threading.Thread] = []

    def spawn(self) -> None:
        """Start the process (after `close` of any earlier one) and the threads reading its
        stdout (into `lines`) and stderr (its last lines in `stderr_tail`).

        Raises:
            EngineError: the command cannot be parsed, is empty, or cannot be started.
        """
        self.close()
        try:
            argv = shlex.split(self.command)
        except ValueError as exc:
            raise EngineError(f"cannot parse the engine command: {exc}") from None
        if not argv:
            raise EngineError("the engine command is empty")
        try:
            self.proc, self.token = spawn(argv)  # its own session, its processes marked (flip7ref.proc.reaper)
        except OSError as exc:
            raise EngineError(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
        self.lines = queue.Queue()
        self.stderr_tail = collections.deque(maxlen=20)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.threads = [
            threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines), daemon=True),
            threading.Thread(target=self._drain, args=(self.proc.stderr, self.stderr_tail), daemon=True),
        ]
        for thread in self.threads:
            thread.start()

    @staticmethod
    def _read_lines(stream: IO[bytes]) -> Iterator[bytes | tuple[bytes, int]]:
        """The lines of a stream; a line longer than LINE_LIMIT is read to its end and
        given as its first 200 bytes and its length instead."""
        while True:
            line = stream.readline(LINE_LIMIT + 1)
            if not line:
                return
            if len(line) > LINE_LIMIT and not line.endswith(b"\n"):
                head, size = line[:200], len(line)
                while line and not line.endswith(b"\n"):
                    line = stream.readline(LINE_LIMIT)
                    size += len(line)
                yield head, size
                continue
            yield line

    @classmethod
    def _pump(cls, stream: IO[bytes], lines: queue.Queue[bytes | int | None]) -> None:
        with contextlib.suppress(OSError, ValueError):
            for line in cls._read_lines(stream):
                lines.put(line[1] if isinstance(line, tuple) else line)
        lines.put(None)

    @classmethod
    def _drain(cls, stream: IO[bytes], tail: collections.deque[str]) -> None:
        with contextlib.suppress(OSError, ValueError):
            for line in cls._read_lines(stream):
                if isinstance(line, tuple):
                    tail.append(f"{line[0].decode('utf-8', 'replace')}… (a line of {line[1]} bytes)")
                else:
                    tail.append(cut(line.decode("utf-8", "replace").rstrip(), 300))

    def send(self, message: Mapping[str, Any], timeout: float | None = None) -> None:
        """Write ``message`` as one JSON line to the engine's stdin, within ``timeout`` seconds
        (None: `timeout`); an engine that does not read it in time is killed.

        Raises:
            EngineError: the write timed out, or the engine exited (`exit_message`).
        """
        proc = self.proc
        assert proc is not None and proc.stdin is not None
        data = (json.dumps(message) + "\n").encode("utf-8")
        stdin = proc.stdin
        failures: list[BaseException] = []

        def write() -> None:
            try:
                stdin.write(data)
                stdin.flush()
            except (OSError, ValueError) as exc:
                failures.append(exc)

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        writer.join(self.timeout if timeout is None else timeout)
        if writer.is_alive():
            self.kill()
            writer.join(2)
            raise EngineError(f"engine did not read its input within {self.timeout if timeout is None else timeout:g} s")
        if failures:
            raise EngineError(self.exit_message("stdin"))

    def exit_message(self, stream: str = "stdout") -> str:
        """One line saying the engine exited: its status (waited for up to 1 s) and the last
        lines of its stderr; or, still running then, that it closed ``stream`` (``stdout`` or
        ``stdin``, the pipe found closed)."""
        code = None
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.proc.wait(timeout=1)
        tail = " | ".join(list(self.stderr_tail)[-3:])
        said = f"engine exited (status {code})" if code is not None else f"engine closed its {stream} but still runs"
        return said + (f"; stderr: {cut(tail, 400)}" if tail else "")

    def receive(self, timeout: float | None = None) -> Any:
        """The next line the engine prints, decoded (`decode_line`), within ``timeout`` seconds
        (None: `timeout`).

        Raises:
            EngineError: no line in time, the engine exited, a line longer than `LINE_LIMIT`,
                or one `decode_line` refuses.
        """
        wait = self.timeout if timeout is None else timeout
        try:
            line = self.lines.get(timeout=wait)
        except queue.Empty:
            raise EngineError(f"engine did not answer within {wait:g} s") from None
        if line is None:
            raise EngineError(self.exit_message())
        if isinstance(line, int):
            raise EngineError(f"engine printed a line of {line} bytes (at most {LINE_LIMIT} are read)")
        return decode_line(line)

    def kill(self) -> None:
        """Kill the engine's whole process group and every process of its that left it (SIGKILL)."""
        if self.proc is not None:
            kill_engine(self.proc.pid, self.token)

    def close(self) -> None:
        """Send ``stop`` (the protocol's last message), give the engine 2 s to exit, then kill its process group."""
        proc = self.proc
        if proc is None:
            return
        try:
            if proc.poll() is None:
                with contextlib.suppress(EngineError):
                    self.send({"cmd": "stop"}, timeout=1)
                with contextlib.suppress(OSError, ValueError):
                    assert proc.stdin is not None
                    proc.stdin.close()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=2)
        finally:
            self.kill()  # the children of a shell wrapper too
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            for thread in self.threads:
                # a signal (SIGTERM: Terminated) can end spawn inside Thread.start, before the thread is
                # marked started: join would raise RuntimeError over the signal's own exit (exit 143)
                with contextlib.suppress(RuntimeError):
                    thread.join(timeout=2)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                with contextlib.suppress(OSError, ValueError):
                    if stream is not None:
                        stream.close()
            self.proc = None
            self.threads = []


__all__ = ["LINE_LIMIT", "MAX_DEPTH", "MAX_TIMEOUT", "STARTUP_TIMEOUT", "EngineError", "EngineProcess", "check_timeout",
           "decode_line", "depth_exceeds"]  # fmt: skip
