"""The engine protocol (conformance/PROTOCOL.md): serving it, and driving engines that speak it.

Newline-delimited JSON over stdin/stdout, after Bowtie: ``start``, one ``run`` per case,
``stop``, every message validated against ``spec/schema/protocol.schema.json``.  An engine
that hangs, crashes or prints an invalid line gets that case marked ``error`` and is
restarted; results reach a callback as soon as they are known, so none is lost.
"""

from __future__ import annotations

import collections
import contextlib
import json
import math
import queue
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import IO, Any

import jsonschema

from flip7ref import __version__
from flip7ref.checking import perft_check
from flip7ref.checking.conformance import Case, CaseResult, errored, observe
from flip7ref.checking.probe import engine_sender, probe_failure
from flip7ref.checking.verdict import check_declaration, cut, failed, prepare, verdict
from flip7ref.core.errors import Flip7RefError
from flip7ref.core.spec import edition_ids, load_edition, load_schema
from flip7ref.proc.reaper import kill_engine, spawn

PROTOCOL_VERSION = 2
"""The protocol version the harness offers first (and the reference serves by default)."""

SUPPORTED_VERSIONS = (1, 2)
"""The protocol versions the harness and the reference speak."""


def _validator(name: str) -> jsonschema.Draft202012Validator:
    schema = load_schema("protocol")
    return jsonschema.Draft202012Validator({**schema, "$ref": f"#/$defs/{name}"})


def check_message(message: object, kind: str) -> str | None:
    """Validate a protocol message; return a one-line problem, or None when valid.

    Args:
        message: the decoded JSON value.
        kind: the schema definition to check against (``startResponse``,
            ``runResponse``, ``request``).
    """
    error = jsonschema.exceptions.best_match(_validator(kind).iter_errors(message))
    if error is None:
        return None
    where = "/" + "/".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}"


def implementation(version: int = PROTOCOL_VERSION) -> dict[str, Any]:
    """The reference's self-description for the ``start`` handshake (with the v2 capabilities
    when ``version`` is 2)."""
    editions: dict[str, Any] = {}
    for ed_id in edition_ids():
        edition = load_edition(ed_id)
        entry: dict[str, Any] = {"options": {name: [r.name for r in spec.readings] for name, spec in edition.options.items()}}
        if version >= 2:
            entry["integer_ranges"] = {name: list(spec.integer) for name, spec in edition.options.items() if spec.integer}
        editions[ed_id] = entry
    capabilities: dict[str, Any] = {}
    if version >= 2:
        capabilities = {"players": [1, None], "positions": True, "auto_resolves_forced_choices": False}
    return {
        **capabilities,
        "name": "flip7ref",
        "version": __version__,
        "language": "python",
        "homepage": "https://flip7ref.invalid",
        "editions": editions,
        "integer_options": True,
    }


# --------------------------------------------------------------------------- serving


def serve(stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Speak the protocol as the reference engine until ``stop`` or end of input.

    Malformed requests get an ``errored`` response naming the problem; the
    server keeps going.  Returns the exit status (0).
    """
    src = stdin or sys.stdin
    out = stdout or sys.stdout

    def send(message: Mapping[str, Any]) -> None:
        out.write(json.dumps(message, sort_keys=True) + "\n")
        out.flush()

    started = False
    for raw in src:
        line = raw.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
        except json.JSONDecodeError as exc:
            send({"seq": None, "errored": True, "message": f"request is not JSON: {exc.msg}"})
            continue
        except RecursionError:  # nested too deeply for the decoder
            send({"seq": None, "errored": True, "message": f"request nested more than {MAX_DEPTH} levels deep"})
            continue
        except ValueError as exc:  # e.g. an integer of more than 4300 digits
            send({"seq": None, "errored": True, "message": f"request cannot be read: {cut(str(exc), 120)}"})
            continue
        if _depth_exceeds(request, MAX_DEPTH):
            send({"seq": None, "errored": True, "message": f"request nested more than {MAX_DEPTH} levels deep"})
            continue
        problem = check_message(request, "request")
        seq = request.get("seq") if isinstance(request, dict) else None
        if problem is not None:
            send({"seq": seq, "errored": True, "message": f"invalid request {problem}"})
            continue
        cmd = request["cmd"]
        if cmd == "stop":
            return 0
        if cmd == "start":
            if request["version"] not in SUPPORTED_VERSIONS:
                speaks = " and ".join(map(str, SUPPORTED_VERSIONS))
                send({"error": f"unsupported protocol version {request['version']}; this engine speaks {speaks}"})
                return 0
            started = True
            send({"version": request["version"], "implementation": implementation(request["version"])})
            continue
        if not started:
            send({"seq": seq, "errored": True, "message": "send start first"})
            continue
        case = request["case"]
        reason = supports(implementation(), case) if isinstance(case.get("edition"), str) else None
        if reason is not None:
            send({"seq": seq, "skipped": True, "message": reason})
            continue
        try:
            send({"seq": seq, "outcome": observe(case)})
        except (Flip7RefError, KeyError, TypeError, ValueError) as exc:
            send({"seq": seq, "errored": True, "message": f"{type(exc).__name__}: {exc}"})
    return 0


# --------------------------------------------------------------------------- driving an engine

LINE_LIMIT = 1 << 20
"""Bytes an engine may print on one line (stdout or stderr); a longer line is cut off."""

MAX_DEPTH = 64
"""How deeply a reply may nest JSON arrays and objects."""

MAX_TIMEOUT = 86_400.0
"""The longest per-case timeout accepted (seconds)."""

STARTUP_TIMEOUT = 30.0
"""Seconds an engine has to answer the handshake at the least (starting a runtime and
loading tables can take long on a loaded machine); the per-case timeout when longer."""


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


def _depth_exceeds(value: object, limit: int) -> bool:
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
        EngineError: invalid UTF-8, not JSON, nested too deeply, a number too long to read, or a
            number that is not finite (``NaN``, ``Infinity``, ``1e999``: not JSON, RFC 8259).
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EngineError(f"engine printed a line that is not UTF-8 (byte {raw[exc.start]:#04x} at offset {exc.start})") from None
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
    if _depth_exceeds(value, MAX_DEPTH):
        raise EngineError(f"engine printed JSON nested too deeply (more than {MAX_DEPTH} levels)")
    return value


class EngineError(Exception):
    """The engine failed: it hung, crashed or broke the protocol."""


class Engine:
    """A foreign engine process speaking the protocol.

    The engine runs in its own process group (a shell wrapper's children too), which
    is killed as a whole when the engine is restarted or closed, with any process of the
    engine's that left the group (`flip7ref.proc.reaper`).  Every read and write
    is bounded by the timeout; lines longer than `LINE_LIMIT` bytes are cut off.

    Args:
        command: the command line that starts the engine (split like a shell would).
        timeout: seconds to wait for each response (see `check_timeout`).
        version: the protocol version to offer first; an engine that refuses it is
            restarted and offered version 1.
        startup_timeout: seconds to wait for the handshake's answer; None: ``timeout``,
            but at least `STARTUP_TIMEOUT` (a runtime can be slow to start).

    Raises:
        ValueError: a bad ``timeout`` or ``startup_timeout``.
        EngineError: from `start` when the engine cannot be started or its
            handshake is wrong (e.g. another protocol version).
    """

    def __init__(
        self, command: str, timeout: float = 10.0, version: int = PROTOCOL_VERSION, *, startup_timeout: float | None = None
    ) -> None:
        self.command = command
        self.timeout = check_timeout(timeout)
        self.startup_timeout = max(self.timeout, STARTUP_TIMEOUT) if startup_timeout is None else check_timeout(startup_timeout)
        self.offered = version
        self.version = version
        self.proc: subprocess.Popen[bytes] | None = None
        self.token = ""
        self.lines: queue.Queue[bytes | int | None] = queue.Queue()
        self.impl: dict[str, Any] = {}
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        self.threads: list[threading.Thread] = []

    def start(self) -> dict[str, Any]:
        """Start the process and do the handshake; returns its implementation description."""
        for version in dict.fromkeys((self.offered, 1)):
            self._spawn()
            self._send({"cmd": "start", "version": version}, timeout=self.startup_timeout)
            response = self._receive(self.startup_timeout)
            if isinstance(response, dict) and "error" in response and "implementation" not in response:
                if version != 1:
                    continue
                raise EngineError(f"engine refused the handshake: {cut(str(response['error']), 200)}")
            problem = check_message(response, "startResponse")
            if problem is not None:
                raise EngineError(f"invalid start response {cut(problem, 300)}")
            assert isinstance(response, dict)
            if response["version"] not in SUPPORTED_VERSIONS:
                raise EngineError(
                    f"engine speaks protocol version {response['version']}; this harness speaks "
                    + " and ".join(map(str, SUPPORTED_VERSIONS))
                )
            self.version = int(response["version"])
            self.impl = dict(response["implementation"])
            return self.impl
        raise AssertionError("unreachable")  # pragma: no cover

    def _spawn(self) -> None:
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

    def _send(self, message: Mapping[str, Any], timeout: float | None = None) -> None:
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
            self._kill()
            writer.join(2)
            raise EngineError(f"engine did not read its input within {self.timeout if timeout is None else timeout:g} s")
        if failures:
            raise EngineError(self._exit_message())

    def _exit_message(self) -> str:
        code = None
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.proc.wait(timeout=1)
        tail = " | ".join(list(self.stderr_tail)[-3:])
        return f"engine exited (status {code})" + (f"; stderr: {cut(tail, 400)}" if tail else "")

    def _receive(self, timeout: float | None = None) -> Any:
        wait = self.timeout if timeout is None else timeout
        try:
            line = self.lines.get(timeout=wait)
        except queue.Empty:
            raise EngineError(f"engine did not answer within {wait:g} s") from None
        if line is None:
            raise EngineError(self._exit_message())
        if isinstance(line, int):
            raise EngineError(f"engine printed a line of {line} bytes (at most {LINE_LIMIT} are read)")
        return decode_line(line)

    def run(self, seq: int, case: Mapping[str, Any]) -> dict[str, Any]:
        """Send one case (as `flip7ref.checking.verdict.Prepared.request` builds it); return the
        validated response.

        Raises:
            EngineError: timeout, crash, or an invalid or mismatched response.
        """
        self._send({"cmd": "run", "seq": seq, "case": case})
        response = self._receive()
        try:
            problem = check_message(response, "runResponse")
        except RecursionError:  # pragma: no cover - decode_line bounds the depth
            problem = "nested too deeply"
        if problem is not None:
            raise EngineError(f"invalid run response {cut(problem, 300)}")
        assert isinstance(response, dict)
        if response.get("seq") != seq:
            raise EngineError(f"response for seq {cut(repr(response.get('seq')), 40)}, expected {seq}")
        return response

    def _kill(self) -> None:
        """Kill the engine's whole process group and every process of its that left it (SIGKILL)."""
        if self.proc is not None:
            kill_engine(self.proc.pid, self.token)

    def close(self) -> None:
        """Send ``stop``, give the engine 2 s to exit, then kill its process group."""
        proc = self.proc
        if proc is None:
            return
        try:
            if proc.poll() is None:
                with contextlib.suppress(EngineError):
                    self._send({"cmd": "stop"}, timeout=1)
                with contextlib.suppress(OSError, ValueError):
                    assert proc.stdin is not None
                    proc.stdin.close()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=2)
        finally:
            self._kill()  # the children of a shell wrapper too
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            for thread in self.threads:
                # a signal (SIGTERM: Terminated) can end _spawn inside Thread.start, before the thread is
                # marked started: join would raise RuntimeError over the signal's own exit (exit 143)
                with contextlib.suppress(RuntimeError):
                    thread.join(timeout=2)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                with contextlib.suppress(OSError, ValueError):
                    if stream is not None:
                        stream.close()
            self.proc = None
            self.threads = []


def supports(impl: Mapping[str, Any], case: Case) -> str | None:
    """Why an engine cannot run a case at all (by its start response), or None if it can.

    Checked: the edition; in protocol v2 the player counts (``players: [min, max]``) and
    mid-round positions (``positions: false`` engines only start fresh rounds).  Options
    are not a reason: the case is checked under the readings the engine plays
    (`flip7ref.checking.verdict.prepare`).
    """
    editions = impl.get("editions") or {}
    if case["edition"] not in editions:
        return f"engine does not support edition {case['edition']!r}"
    setup = case.get("setup") or {}
    bounds = impl.get("players")
    if setup and isinstance(bounds, list) and len(bounds) == 2:
        low, high = bounds
        if not ((low is None or setup["players"] >= low) and (high is None or setup["players"] <= high)):
            return f"engine does not support {setup['players']} players (it plays {low} to {high})"
    if setup and impl.get("positions") is False and needs_position(case):
        return "engine does not support mid-round positions (positions: false); the case starts in the middle of a round"
    return None


def needs_position(case: Case) -> bool:
    """Whether a case starts from a mid-round position (not a fresh round dealt from its pile)."""
    setup = case.get("setup") or {}
    if not setup:
        return False
    return not setup.get("deal") or any(setup.get(k) for k in ("lines", "kept", "statuses", "discard")) or "turn" in setup


def run_engine(
    command: str,
    cases: Sequence[Case],
    *,
    timeout: float = 10.0,
    version: int = PROTOCOL_VERSION,
    on_start: Callable[[dict[str, Any]], None] | None = None,
    on_result: Callable[[CaseResult], None] | None = None,
    startup_timeout: float | None = None,
) -> tuple[dict[str, Any], list[CaseResult]]:
    """Run cases against an engine process.

    Each case is first prepared on the reference (`flip7ref.checking.verdict.prepare`: the
    expected outcome under the readings the engine plays); the engine gets the setup,
    options and actions only.  ``on_start`` receives the engine's description after the
    handshake and ``on_result`` each result as soon as it is known.  The engine's process
    group is killed at the end, whatever happens (also on KeyboardInterrupt/SystemExit).

    Args:
        command: the engine's command line.
        cases: the cases.
        timeout: seconds per answer (see `check_timeout`).
        version: the protocol version offered first (1 or 2).
        startup_timeout: seconds for the handshake's answer (None: see `Engine`).

    Returns:
        The engine's implementation description and one result per case.

    Raises:
        ValueError: a bad timeout.
        EngineError: the engine cannot be started or refuses the handshake, or its handshake
            declares an option or a reading its edition does not have (`check_declaration`).
    """
    engine = Engine(command, timeout, version, startup_timeout=startup_timeout)
    try:
        impl = engine.start()
        problem = check_declaration(impl)
        if problem is not None:
            raise EngineError(f"the start response declares {problem}")
    except BaseException:
        engine.close()  # a failed handshake: the engine process is not left running
        raise
    results: list[CaseResult] = []
    alive = True
    try:
        if on_start is not None:
            on_start({**impl, "protocol": engine.version})
        for seq, case in enumerate(cases):
            result = _run_one(engine, impl if engine.version >= 2 else _v1(impl), seq, case, alive)
            alive = engine.proc is not None
            results.append(result)
            if on_result is not None:
                on_result(result)
    finally:
        engine.close()
    return impl, results


def _v1(impl: Mapping[str, Any]) -> dict[str, Any]:
    """A v1 description: the v2 capabilities are not read."""
    return {k: v for k, v in impl.items() if k not in ("players", "positions", "events", "auto_resolves_forced_choices")}


def _run_one(engine: Engine, impl: Mapping[str, Any], seq: int, case: Case, alive: bool) -> CaseResult:
    if case["kind"] == "perft":
        reason = supports(impl, case)
        if reason is not None:
            return errored(case, "skip", reason)

        def send(request: Mapping[str, Any], index: int) -> Mapping[str, Any] | str:
            try:
                if engine.proc is None:
                    engine.start()
                response = engine.run(seq * 100_000 + index, request)
            except EngineError as exc:
                engine.close()
                return str(exc)
            if response.get("skipped"):
                return perft_check.Skipped(cut(str(response.get("message") or "skipped by the engine")))
            if response.get("errored"):
                return f"engine errored: {cut(str(response.get('message') or 'no message'))}"
            outcome: Mapping[str, Any] = response["outcome"]
            return outcome

        return perft_check.check(case, impl, send)
    prepared = prepare(case, impl)
    if isinstance(prepared, CaseResult):
        return prepared
    reason = supports(impl, case)
    if reason is not None:
        return errored(case, "skip", reason)
    request = prepared.request()  # without the forced actions for an engine resolving them itself
    try:
        if not alive:
            engine.start()
        response = engine.run(seq, request)
    except EngineError as exc:
        engine.close()
        return failed(prepared, str(exc))
    if response.get("skipped"):
        return errored(case, "skip", cut(str(response.get("message") or "skipped by the engine")))
    if response.get("errored"):
        message = f"engine errored: {cut(str(response.get('message') or 'no message'))}"
        return probe_failure(prepared, impl, message, engine_sender(engine, seq))
    return verdict(prepared, response["outcome"], impl.get("events"))


def _observe_leaf(request: Mapping[str, Any], index: int) -> Mapping[str, Any] | str:
    try:
        return observe(request)
    except Flip7RefError as exc:
        return str(exc)


def run_in_process(cases: Iterable[Case], on_result: Callable[[CaseResult], None] | None = None) -> list[CaseResult]:
    """Run cases on the reference interpreter in this process (the same verdicts as over the protocol)."""
    impl = implementation()
    results = []
    for case in cases:
        if case["kind"] == "perft":
            result = perft_check.check(case, impl, _observe_leaf)
            results.append(result)
            if on_result is not None:
                on_result(result)
            continue
        prepared = prepare(case, impl)
        result = prepared if isinstance(prepared, CaseResult) else verdict(prepared, prepared.run.observed)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results
