"""The engine protocol (conformance/PROTOCOL.md): serving it, and driving engines that speak it.

Newline-delimited JSON over stdin/stdout, after Bowtie: ``start``, one ``run`` per case,
``stop``, every message validated against ``spec/schema/protocol.schema.json``.  An engine
that hangs, crashes or prints an invalid line gets that case marked ``error`` and is
restarted; results reach a callback as soon as they are known, so none is lost.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, Any

import jsonschema

from flip7ref import __version__
from flip7ref.checking import perft_check
from flip7ref.checking.conformance import Case, CaseResult, errored, observe
from flip7ref.checking.engine_process import MAX_DEPTH, MAX_FAULTS, EngineError, EngineProcess, depth_exceeds, faults_stop
from flip7ref.checking.probe import engine_sender, probe_failure
from flip7ref.checking.verdict import check_declaration, cut, faulted, prepare, verdict
from flip7ref.core.errors import Flip7RefError
from flip7ref.core.spec import edition_ids, load_edition, load_schema

PROTOCOL_VERSION = 2
"""The protocol version the harness offers first (and the reference serves by default)."""

SUPPORTED_VERSIONS = (1, 2)
"""The protocol versions the harness and the reference speak."""

REQUEST_COMMANDS = ("start", "run", "stop")
"""The ``cmd`` of every request the engine protocol has (conformance/PROTOCOL.md)."""


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
    if error.context:  # "not valid under any of the given schemas": the one branch whose constants match says why
        branches: dict[object, list[Any]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        near = [errs for errs in branches.values() if not any(e.validator == "const" for e in errs)]
        if len(near) == 1:
            error = jsonschema.exceptions.best_match(near[0]) or error
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
        if depth_exceeds(request, MAX_DEPTH):
            send({"seq": None, "errored": True, "message": f"request nested more than {MAX_DEPTH} levels deep"})
            continue
        seq = request.get("seq") if isinstance(request, dict) else None
        if isinstance(request, dict) and request.get("cmd") not in REQUEST_COMMANDS:  # before the schema's "any of" words
            got = cut(json.dumps(request.get("cmd")), 60) if "cmd" in request else "no cmd"
            message = f'invalid request: expected "cmd" {", ".join(REQUEST_COMMANDS)}, got {got}'
            send({"seq": seq, "errored": True, "message": message})
            continue
        problem = check_message(request, "request")
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


class Engine(EngineProcess):
    """A foreign engine process speaking the protocol: the handshake (`start`) and one case
    at a time (`run`) over an `flip7ref.checking.engine_process.EngineProcess` (its process
    group, its lines, the timeouts, `close`).

    Args:
        command: the command line that starts the engine (split like a shell would).
        timeout: seconds to wait for each response
            (`flip7ref.checking.engine_process.check_timeout`).
        version: the protocol version to offer first; an engine that refuses it is
            restarted and offered version 1.
        startup_timeout: seconds to wait for the handshake's answer; None: ``timeout``,
            but at least `flip7ref.checking.engine_process.STARTUP_TIMEOUT` (a runtime can be
            slow to start).

    Raises:
        ValueError: a bad ``timeout`` or ``startup_timeout``.
        EngineError: from `start` when the engine cannot be started or its
            handshake is wrong (e.g. another protocol version).
    """

    def __init__(
        self, command: str, timeout: float = 10.0, version: int = PROTOCOL_VERSION, *, startup_timeout: float | None = None
    ) -> None:
        super().__init__(command, timeout, startup_timeout=startup_timeout)
        self.offered = version
        self.version = version
        self.impl: dict[str, Any] = {}

    def start(self) -> dict[str, Any]:
        """Start the process and do the handshake; returns its implementation description."""
        for version in dict.fromkeys((self.offered, 1)):
            self.spawn()
            self.send({"cmd": "start", "version": version}, timeout=self.startup_timeout)
            response = self.receive(self.startup_timeout)
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

    def run(self, seq: int, case: Mapping[str, Any]) -> dict[str, Any]:
        """Send one case (as `flip7ref.checking.verdict.Prepared.request` builds it); return the
        validated response.

        Raises:
            EngineError: timeout, crash, or an invalid or mismatched response.
        """
        self.send({"cmd": "run", "seq": seq, "case": case})
        response = self.receive()
        try:
            problem = check_message(response, "runResponse")
        except RecursionError:  # pragma: no cover - decode_line bounds the depth
            problem = "nested too deeply"
        if problem is not None:
            raise EngineError(f"invalid run response {cut(problem, 300)}")
        assert isinstance(response, dict)
        if response.get("seq") != seq:
            earlier = isinstance(response.get("seq"), int) and response["seq"] < seq
            raise EngineError(f"response for seq {cut(repr(response.get('seq')), 40)}, expected {seq}"
                              + (" (an earlier request's seq: a late or second answer to it)" if earlier else ""))  # fmt: skip
        return response


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
    max_faults: int = MAX_FAULTS,
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
        timeout: seconds per answer (see `flip7ref.checking.engine_process.check_timeout`).
        version: the protocol version offered first (1 or 2).
        startup_timeout: seconds for the handshake's answer (None: see `Engine`).
        max_faults: after this many engine faults in a row (`CaseResult.fault`; a case passed
            or failed on the rules resets the count) no further case is started
            (`flip7ref.checking.engine_process.faults_stop`; 0: never stop).

    Returns:
        The engine's implementation description and one result per case run: the first
        ``len(results)`` cases, fewer than all when it stopped after ``max_faults`` faults.

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
    in_a_row = 0  # engine faults since the last case passed or failed on the rules
    try:
        if on_start is not None:
            on_start({**impl, "protocol": engine.version})
        for seq, case in enumerate(cases):
            result = _run_one(engine, impl if engine.version >= 2 else _v1(impl), seq, case, alive)
            alive = engine.proc is not None
            results.append(result)
            if on_result is not None:
                on_result(result)
            if result.fault:
                in_a_row += 1
            elif result.status in ("pass", "fail"):
                in_a_row = 0
            if faults_stop(in_a_row, max_faults):
                break
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
                return perft_check.Faulted(str(exc))
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
    except EngineError as exc:  # no answer to judge: an engine fault, no rule blamed
        engine.close()
        return faulted(prepared, str(exc))
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
