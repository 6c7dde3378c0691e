"""The engine protocol (conformance/PROTOCOL.md): serving it, and driving engines that speak it.

Newline-delimited JSON over stdin/stdout, after Bowtie.  The harness sends
``start`` (with the protocol version), one ``run`` per case and ``stop``; the
engine answers ``start`` with its name and the editions and options it
supports, and each ``run`` with an observed outcome, ``skipped`` or ``errored``.
Every message is validated against ``spec/schema/protocol.schema.json``.

An engine that hangs (per-case timeout), crashes or prints a line that is not a
valid protocol message gets that case marked ``error``; it is restarted and the
run goes on.  Results are handed to a callback as soon as they are known, so
nothing already reported is lost.
"""

from __future__ import annotations

import contextlib
import json
import queue
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, Any

import jsonschema

from . import __version__
from .conformance import Case, CaseResult, errored, judge, observe
from .errors import Flip7RefError
from .position import MAX_DEPTH, too_deep
from .spec import edition_ids, load_edition, load_schema

_TOO_DEEP = object()  # a line the JSON decoder could not read for its depth

PROTOCOL_VERSION = 1


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


def implementation() -> dict[str, Any]:
    """The reference's self-description for the ``start`` handshake."""
    editions = {}
    for ed_id in edition_ids():
        edition = load_edition(ed_id)
        editions[ed_id] = {"options": {name: [r.name for r in spec.readings] for name, spec in edition.options.items()}}
    return {
        "name": "flip7ref",
        "version": __version__,
        "language": "python",
        "homepage": "https://flip7ref.invalid",
        "editions": editions,
        "integer_options": True,
    }


def supports(impl: Mapping[str, Any], case: Case) -> str | None:
    """Why an engine cannot run a case (by its start response), or None if it can."""
    editions = impl.get("editions") or {}
    if case["edition"] not in editions:
        return f"engine does not support edition {case['edition']!r}"
    offered = (editions[case["edition"]] or {}).get("options") or {}
    for name, value in (case.get("options") or {}).items():
        readings = offered.get(name)
        if readings is None:
            return f"engine does not support option {name!r}"
        if isinstance(value, int) and not isinstance(value, bool):
            if not impl.get("integer_options") and str(value) not in readings:
                return f"engine does not support {name}={value}"
        elif str(value).lower() not in [str(r).lower() for r in readings]:
            return f"engine does not support {name}={value}"
    return None


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
        where = too_deep(request)
        if where is not None:
            send({"seq": None, "errored": True, "message": f"request nested more than {MAX_DEPTH} levels deep (at {where})"})
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
            if request["version"] != PROTOCOL_VERSION:
                send({"error": f"unsupported protocol version {request['version']}; this engine speaks {PROTOCOL_VERSION}"})
                return 0
            started = True
            send({"version": PROTOCOL_VERSION, "implementation": implementation()})
            continue
        if not started:
            send({"seq": seq, "errored": True, "message": "send start first"})
            continue
        case = request["case"]
        reason = supports(implementation(), case)
        if reason is not None:
            send({"seq": seq, "skipped": True, "message": reason})
            continue
        try:
            send({"seq": seq, "outcome": observe(case)})
        except (Flip7RefError, KeyError, TypeError, ValueError) as exc:
            send({"seq": seq, "errored": True, "message": f"{type(exc).__name__}: {exc}"})
    return 0


# --------------------------------------------------------------------------- driving an engine


class EngineError(Exception):
    """The engine failed: it hung, crashed or broke the protocol."""


class Engine:
    """A foreign engine process speaking the protocol.

    Args:
        command: the command line that starts the engine (split like a shell would).
        timeout: seconds to wait for each response.

    Raises:
        EngineError: from :meth:`start` when the engine cannot be started or its
            handshake is wrong (e.g. another protocol version).
    """

    def __init__(self, command: str, timeout: float = 10.0) -> None:
        self.command = command
        self.timeout = timeout
        self.proc: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.impl: dict[str, Any] = {}
        self.stderr_tail: list[str] = []

    def start(self) -> dict[str, Any]:
        """Start the process and do the handshake; returns its implementation description."""
        self.close()
        try:
            argv = shlex.split(self.command)
        except ValueError as exc:
            raise EngineError(f"cannot parse the engine command: {exc}") from None
        if not argv:
            raise EngineError("the engine command is empty")
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1
            )
        except OSError as exc:
            raise EngineError(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
        self.lines = queue.Queue()
        self.stderr_tail = []
        assert self.proc.stdout is not None and self.proc.stderr is not None
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.proc.stderr,), daemon=True).start()
        self._send({"cmd": "start", "version": PROTOCOL_VERSION})
        response = self._receive()
        if isinstance(response, dict) and "error" in response and "implementation" not in response:
            raise EngineError(f"engine refused the handshake: {response['error']}")
        problem = check_message(response, "startResponse")
        if problem is not None:
            raise EngineError(f"invalid start response {problem}")
        assert isinstance(response, dict)
        if response["version"] != PROTOCOL_VERSION:
            raise EngineError(f"engine speaks protocol version {response['version']}; this harness speaks {PROTOCOL_VERSION}")
        self.impl = dict(response["implementation"])
        return self.impl

    @staticmethod
    def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    def _drain(self, stream: IO[str]) -> None:
        for line in stream:
            self.stderr_tail = [*self.stderr_tail[-19:], line.rstrip()]

    def _send(self, message: Mapping[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineError(self._exit_message()) from None

    def _exit_message(self) -> str:
        code = self.proc.poll() if self.proc is not None else None
        tail = " | ".join(self.stderr_tail[-3:])
        return f"engine exited (status {code})" + (f"; stderr: {tail}" if tail else "")

    def _receive(self) -> Any:
        try:
            line = self.lines.get(timeout=self.timeout)
        except queue.Empty:
            raise EngineError(f"engine did not answer within {self.timeout:g} s") from None
        if line is None:
            if self.proc is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=1)
            raise EngineError(self._exit_message())
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            shown = line.strip()[:120]
            raise EngineError(f"engine printed a line that is not JSON: {shown!r}") from None
        except RecursionError:
            data = _TOO_DEEP
        if data is _TOO_DEEP or too_deep(data) is not None:
            raise EngineError(f"engine printed a line nested more than {MAX_DEPTH} levels deep") from None
        return data

    def run(self, seq: int, case: Case) -> dict[str, Any]:
        """Send one case; return the validated response.

        Raises:
            EngineError: timeout, crash, or an invalid or mismatched response.
        """
        self._send({"cmd": "run", "seq": seq, "case": case})
        response = self._receive()
        problem = check_message(response, "runResponse")
        if problem is not None:
            raise EngineError(f"invalid run response {problem}")
        assert isinstance(response, dict)
        if response.get("seq") != seq:
            raise EngineError(f"response for seq {response.get('seq')!r}, expected {seq}")
        return response

    def close(self) -> None:
        """Send ``stop`` and end the process (killing it if it does not exit)."""
        if self.proc is None:
            return
        try:
            if self.proc.poll() is None and self.proc.stdin is not None:
                self.proc.stdin.write(json.dumps({"cmd": "stop"}) + "\n")
                self.proc.stdin.flush()
                self.proc.stdin.close()
            self.proc.wait(timeout=2)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.proc = None


def run_engine(
    command: str,
    cases: Sequence[Case],
    *,
    timeout: float = 10.0,
    on_start: Callable[[dict[str, Any]], None] | None = None,
    on_result: Callable[[CaseResult], None] | None = None,
) -> tuple[dict[str, Any], list[CaseResult]]:
    """Run cases against an engine process.

    ``on_start`` receives the engine's description after the handshake and
    ``on_result`` each result as soon as it is known.

    Returns:
        The engine's implementation description and one result per case.

    Raises:
        EngineError: the engine cannot be started or refuses the handshake.
    """
    engine = Engine(command, timeout)
    try:
        impl = engine.start()
    except BaseException:
        engine.close()  # a failed handshake: the engine process is not left running
        raise
    if on_start is not None:
        on_start(impl)
    results: list[CaseResult] = []
    alive = True
    try:
        for seq, case in enumerate(cases):
            reason = supports(impl, case)
            if reason is not None:
                result = errored(case, "skip", reason)
            else:
                try:
                    if not alive:
                        engine.start()
                        alive = True
                    response = engine.run(seq, case)
                    if response.get("skipped"):
                        result = errored(case, "skip", str(response.get("message") or "skipped by the engine"))
                    elif response.get("errored"):
                        result = errored(case, "error", str(response.get("message") or "errored in the engine"))
                    else:
                        result = judge(case, response["outcome"])
                except EngineError as exc:
                    result = errored(case, "error", str(exc))
                    alive = False
                    engine.close()
            results.append(result)
            if on_result is not None:
                on_result(result)
    finally:
        engine.close()
    return impl, results


def run_in_process(cases: Iterable[Case], on_result: Callable[[CaseResult], None] | None = None) -> list[CaseResult]:
    """Run cases on the reference interpreter in this process."""
    results = []
    for case in cases:
        try:
            result = judge(case, observe(case))
        except Flip7RefError as exc:
            result = errored(case, "error", str(exc))
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results
