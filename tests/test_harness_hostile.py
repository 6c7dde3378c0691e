"""A harness nothing can crash or leak: each hostile engine of issue 16 item 12 gets its
case errored with a clear reason (the run goes on) or a one-line error with exit 2."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from flip7ref.checking.conformance import load_cases
from flip7ref.checking.engine_process import LINE_LIMIT, check_timeout
from flip7ref.checking.harness import run_engine, run_in_process
from flip7ref.cli import main
from tests.process_helpers import zombie_children

HOSTILE = Path(__file__).parent / "engines" / "hostile.py"
IDS = ("F7-C0001", "F7-C0002", "F7-C0100")


def _cases() -> list[dict[str, object]]:
    cases = [dict(c) for c in load_cases() if c["id"] in IDS]
    assert [c["id"] for c in cases] == list(IDS)
    return cases


def _alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for its parent counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def _gone(pids: list[int], within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(_alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("deep", "nested too deeply"),
        ("bigint", "cannot be read"),
        ("badutf8", "not UTF-8 (byte 0xff"),
        ("longline", f"(at most {LINE_LIMIT} are read)"),
        ("longstderr", "engine exited (status 4); stderr: EEEE"),
        ("longmessage", "engine errored: MMMM"),
    ],
)
def test_hostile_reply_errors_that_case_only(mode: str, message: str) -> None:
    """A reply nested 200,000 deep, a 5,000-digit number, invalid UTF-8, a 2 MB line on
    stdout or stderr, a 500 kB message: that case errors with a bounded, clear message;
    the others pass."""
    _, results = run_engine(f"{sys.executable} {HOSTILE} {mode}", _cases(), timeout=20)
    statuses = {r.case_id: r.status for r in results}
    assert statuses == {"F7-C0001": "pass", "F7-C0002": "error", "F7-C0100": "pass"}
    bad = next(r for r in results if r.case_id == "F7-C0002")
    assert message in bad.message
    assert len(bad.message) <= 500
    assert all(len(d) <= 500 for d in bad.diffs)
    assert len(json.dumps(bad.to_dict())) < 20_000


def test_engine_that_stops_reading_its_input() -> None:
    """An engine that no longer reads stdin while a large request is written does not hang the harness."""
    case = dict(_cases()[0], title="x" * 400_000)  # more than any pipe buffer
    started = time.monotonic()
    _, results = run_engine(f"{sys.executable} {HOSTILE} noread", [case, _cases()[2]], timeout=2)
    assert [r.status for r in results] == ["error", "error"]
    assert "did not read its input within 2 s" in results[0].message
    assert time.monotonic() - started < 60


def test_shell_wrapped_engine_leaves_no_process(tmp_path: Path) -> None:
    """An engine started through a shell is killed with its children, on restart and at the end."""
    pidfile = tmp_path / "pids"
    command = f"sh -c '{sys.executable} {HOSTILE} hang {pidfile}; echo wrapper-done'"
    _, results = run_engine(command, _cases(), timeout=3)
    assert [r.status for r in results] == ["pass", "error", "pass"]
    pids = [int(line) for line in pidfile.read_text().split()]
    assert len(pids) == 2  # restarted once after the hang
    assert _gone(pids)


def _zombie_children() -> list[int]:
    """The children of this process that have exited and were not waited for."""
    return zombie_children(os.getpid())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finding an escaped process needs Linux's /proc")
@pytest.mark.parametrize("mode", ["setsid", "doublefork"])
def test_an_engine_process_that_left_the_process_group_is_killed(tmp_path: Path, mode: str) -> None:
    """An engine that leaves a sleeper in a session of its own (setsid), or a daemon-like
    grandchild (double fork), outside the process group the harness kills: the sleeper is
    killed too when the engine is stopped, and reaped (no zombie of ours is left)."""
    pidfile = tmp_path / "pids"
    _, results = run_engine(f"{sys.executable} {HOSTILE} {mode} {pidfile}", _cases(), timeout=20)
    assert [r.status for r in results] == ["pass", "pass", "pass"]
    pids = [int(line) for line in pidfile.read_text().split()]
    assert len(pids) == 2  # the engine and its sleeper
    assert _gone(pids, within=5)
    assert not set(pids) & set(_zombie_children())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finding an escaped process needs Linux's /proc")
def test_the_command_leaves_no_escaped_process(tmp_path: Path) -> None:
    """`conformance run --engine` of a double-forking engine behind a shell wrapper: after the
    command exits, neither the engine nor its escaped grandchild runs."""
    pidfile = tmp_path / "pids"
    command = f"sh -c '{sys.executable} {HOSTILE} doublefork {pidfile}; true'"
    argv = [sys.executable, "-m", "flip7ref.cli", "conformance", "run", "--engine", command,
            *[arg for i in IDS for arg in ("--case", i)]]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    pids = [int(line) for line in pidfile.read_text().split()]
    assert len(pids) == 2
    assert _gone(pids, within=5)


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_to_the_harness_stops_the_engine(tmp_path: Path, sig: int, status: int) -> None:
    """SIGTERM or SIGINT of the harness kills the engine's process group; the report keeps what was done."""
    pidfile, report = tmp_path / "pids", tmp_path / "report.jsonl"
    command = f"sh -c '{sys.executable} {HOSTILE} hang {pidfile}; true'"
    argv = [sys.executable, "-m", "flip7ref.cli", "conformance", "run", "--engine", command, "--timeout", "60",
            "--report", str(report), *[arg for i in IDS for arg in ("--case", i)]]  # fmt: skip
    # SIGINT at its default in the harness even when the tests themselves run with it ignored
    # (a background job of a script, `pytest &`, starts so): an ignored signal stays ignored across exec
    harness = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(report.read_text().splitlines() if report.exists() else []) < 2:
        time.sleep(0.05)  # the first case is reported: the engine now hangs on the second
    time.sleep(0.3)
    harness.send_signal(sig)
    try:
        _, err = harness.communicate(timeout=30)
    finally:
        harness.kill()
    assert harness.returncode == status, err
    assert err.count("\n") == 1
    pids = [int(line) for line in pidfile.read_text().split()]
    assert _gone(pids)
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert lines[0]["report"] == 1 and lines[1]["case"] == "F7-C0001" and lines[1]["status"] == "pass"


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "1e9", "soon"])
def test_bad_timeouts_are_usage_errors(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    """--timeout must be a finite number of seconds above 0 (at most a day)."""
    with pytest.raises(SystemExit) as exc:
        main(["conformance", "run", "--timeout", value, "--case", "F7-C0001"])
    assert exc.value.code == 2
    assert "--timeout" in capsys.readouterr().err
    with pytest.raises(ValueError, match="expected a number of seconds"):
        check_timeout(value)


def test_report_into_a_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--report into a folder that does not exist: one line, exit 2, nothing created."""
    target = tmp_path / "nope" / "report.jsonl"
    assert main(["conformance", "run", "--case", "F7-C0001", "--report", str(target)]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and err.count("\n") == 1
    assert not target.parent.exists()


def test_empty_engine_command(capsys: pytest.CaptureFixture[str]) -> None:
    """--engine '' is a usage error, not a silent in-process run."""
    assert main(["conformance", "run", "--engine", "", "--case", "F7-C0001"]) == 2
    assert "--engine: the command is empty" in capsys.readouterr().err


def test_unknown_option_has_one_verdict(tmp_path: Path) -> None:
    """A case with an unknown option errors the same way in-process and against an engine."""
    case = {**_cases()[0], "id": "F7-C9999", "options": {"no_such_option": "x"}}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({"format": 1, "cases": [case]}), encoding="utf-8")
    cases = load_cases([path])
    [local] = run_in_process(cases)
    _, [remote] = run_engine(f"{sys.executable} -m flip7ref.cli conformance serve", cases, timeout=60)
    assert local.status == remote.status == "error"
    assert local.message == remote.message
    assert "no_such_option" in local.message


def test_engine_that_cannot_start_leaves_no_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An engine that cannot start: exit 2 with one line, and no (empty) report file left behind."""
    report = tmp_path / "report.jsonl"
    assert main(["conformance", "run", "--engine", "/nonexistent/engine", "--report", str(report)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert not report.exists()


def test_unknown_option_of_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown command-line option is a usage error (exit 2), not a traceback."""
    with pytest.raises(SystemExit) as exc:
        main(["conformance", "run", "--no-such-flag"])
    assert exc.value.code == 2
    assert "unrecognized arguments: --no-such-flag" in capsys.readouterr().err


def test_no_engine_process_is_left_after_the_tests() -> None:
    """Nothing started by the hostile engines above still runs (checked by command line)."""
    mine = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=True).stdout
    leftovers = [line for line in mine.splitlines() if str(HOSTILE) in line and "ps -eo" not in line]
    assert not leftovers, leftovers


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"seq": 1, "outcome": {"totals": [NaN]}}', "engine printed a number that is not finite: NaN"),
        (b'{"seq": 1, "outcome": {"totals": [-Infinity]}}', "engine printed a number that is not finite: -Infinity"),
        (b'{"seq": 1, "outcome": {"totals": [1e999]}}', "engine printed a number that is not finite: 1e999"),
    ],
)
def test_a_reply_with_a_number_that_is_not_finite_is_an_engine_error(line: bytes, message: str) -> None:
    """Issue 46: NaN and infinities are not JSON (RFC 8259); an engine printing them has a fault."""
    from flip7ref.checking.engine_process import EngineError, decode_line

    with pytest.raises(EngineError) as caught:
        decode_line(line)
    assert str(caught.value) == message
    assert decode_line(b'{"totals": [1.5, 2]}') == {"totals": [1.5, 2]}


FAULTY = Path(__file__).parent / "engines" / "faulty.py"


def test_an_engine_fault_is_not_blamed_on_a_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An engine that exits on a case has a fault, not a rule difference: `conformance run` once
    printed "blamed on F7-090: a rule the case cites" for it and counted it under F7-090 in the
    table, as `conformance fuzz` never did.  It is an error with no rule blamed, counted on an
    ``(engine fault)`` row; the report line says ``engine_fault``."""
    argv = ["conformance", "run", "--engine", f"{sys.executable} {FAULTY} exit 2", *[a for i in IDS for a in ("--case", i)]]
    assert main([*argv, "--json"]) == 1
    results = {r["case"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    bad = results["F7-C0002"]
    assert bad["status"] == "error" and bad["engine_fault"] is True
    assert "blame" not in bad and "reasons" not in bad
    assert bad["message"] == "engine fault: engine exited (status 5)"
    assert bad["expected"]["outcome"]  # what the reference expected is still shown
    assert all("engine_fault" not in results[i] for i in ("F7-C0001", "F7-C0100"))
    report = tmp_path / "report.jsonl"
    assert main([*argv, "--report", str(report)]) == 1
    out = capsys.readouterr().out
    assert "blamed on" not in out
    assert main(["conformance", "summary", str(report)]) == 0
    assert "| flip7 | (engine fault) | 1 |" in capsys.readouterr().out
    assert "│ flip7   │ (engine fault) │    0 │    0 │    0 │     1 │" in out
    assert "3 cases: 2 passed, 0 failed, 0 skipped, 1 errored, 1 of them an engine fault (no rule blamed)" in out


def test_an_engine_fault_on_a_perft_deal_order_is_not_blamed_on_a_rule() -> None:
    """The same for a perft case: the engine exiting on its first deal order is an engine fault."""
    [case] = [c for c in load_cases() if c["id"] == "F7-C5001"]
    _, [result] = run_engine(f"{sys.executable} {FAULTY} exit 1", [case], timeout=20)
    assert (result.status, result.fault, result.blame) == ("error", True, ())
    assert result.message == "engine fault: deal order 1: engine exited (status 5)"


def test_an_engine_that_closes_its_stdout_or_answers_twice() -> None:
    """An engine that closed its stdout but runs on was reported as "engine exited (status None)";
    a second answer to a case errors the next one, naming the earlier request's seq as such."""
    _, results = run_engine(f"{sys.executable} {HOSTILE} closeout", _cases(), timeout=20)
    assert [(r.case_id, r.status, r.message) for r in results] == [
        ("F7-C0001", "pass", ""),
        ("F7-C0002", "error", "engine fault: engine closed its stdout but still runs"),
        ("F7-C0100", "pass", ""),
    ]
    _, results = run_engine(f"{sys.executable} {HOSTILE} twice", _cases(), timeout=20)
    assert [(r.case_id, r.status, r.message) for r in results] == [
        ("F7-C0001", "pass", ""),
        ("F7-C0002", "pass", ""),
        ("F7-C0100", "error", "engine fault: response for seq 1, expected 2 "
         "(an earlier request's seq: a late or second answer to it)"),
    ]


def test_a_reply_with_a_byte_order_mark_says_so() -> None:
    """A UTF-8 byte order mark before the JSON (what some runtimes write first) was reported as
    "not JSON" showing the whole line; the message names the mark."""
    from flip7ref.checking.engine_process import EngineError, decode_line

    with pytest.raises(EngineError) as caught:
        decode_line(b'\xef\xbb\xbf{"seq": 1, "outcome": {}}\n')
    assert str(caught.value) == (
        "engine printed a line starting with a byte order mark (U+FEFF): write UTF-8 without one (RFC 8259)"
    )


STOP_IDS = ("F7-C0400", "F7-C0401", "F7-C0402", "F7-C0403", "F7-C0404", "F7-C0405")
"""Six cases in suite order, each played like the reference by faulty.py when it does not fault."""


def _stop_argv(mode: str, at: int, pidfile: Path, *flags: str) -> list[str]:
    engine = f"{sys.executable} {FAULTY} {mode} {at} {pidfile}"
    return ["conformance", "run", "--engine", engine, *flags, *[a for i in STOP_IDS for a in ("--case", i)]]


def test_run_stops_after_engine_faults_in_a_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An engine that hangs on every case: `conformance run` once waited --timeout on each of
    them (the whole suite at 10 s a case: half an hour).  As `conformance fuzz`, it stops after
    3 engine faults in a row: the three are reported as engine faults, the rest counted as not
    run, exit 1, and no engine process is left."""
    pidfile, report = tmp_path / "pids", tmp_path / "report.jsonl"
    assert main(_stop_argv("hang", 1, pidfile, "--timeout", "2", "--report", str(report))) == 1
    out = capsys.readouterr().out
    assert "3 cases: 0 passed, 0 failed, 0 skipped, 3 errored, 3 of them engine faults (no rule blamed)\n" in out
    assert "stopped after 3 engine faults in a row: 3 cases not run\n" in out
    assert "coverage: 0 of 6 cases run (0.0%; flip7 0/6)" in out
    assert "blamed on" not in out
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert [(r["case"], r["engine_fault"]) for r in lines[1:]] == [(i, True) for i in STOP_IDS[:3]]
    assert main(["conformance", "summary", str(report)]) == 0
    assert (
        "- not in the report: 3 of the 6 cases selected (the run stopped early: after --max-faults engine faults in a "
        "row, or it was interrupted)\n"
    ) in capsys.readouterr().out
    pids = [int(line) for line in pidfile.read_text().split()]
    assert len(pids) == 3  # one engine per case: each hang kills it
    assert _gone(pids)


def test_run_stop_in_json_and_with_another_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--max-faults N sets the count (here an engine exiting on every case); --json says it too."""
    pidfile = tmp_path / "pids"
    assert main(_stop_argv("exit", 1, pidfile, "--max-faults", "1", "--json")) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["not_run"] == 5 and data["stopped"] == "stopped after 1 engine fault in a row: 5 cases not run"
    assert data["passed"] is False and data["coverage"]["all"] == {"ran": 0, "cases": 6}
    assert [r["case"] for r in data["results"]] == ["F7-C0400"]
    assert _gone([int(line) for line in pidfile.read_text().split()])


def test_run_max_faults_zero_never_stops(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--max-faults 0: every case is run, however many faults."""
    assert main(_stop_argv("exit", 1, tmp_path / "pids", "--max-faults", "0")) == 1
    out = capsys.readouterr().out
    assert "6 cases: 0 passed, 0 failed, 0 skipped, 6 errored, 6 of them engine faults (no rule blamed)\n" in out
    assert "not run" not in out


def test_a_case_passed_resets_the_fault_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An engine hanging on its second request (restarted after each hang): pass, fault, pass,
    fault, ...  With --max-faults 2 no two faults come in a row, so every case runs."""
    assert main(_stop_argv("hang", 2, tmp_path / "pids", "--timeout", "2", "--max-faults", "2")) == 1
    out = capsys.readouterr().out
    assert "6 cases: 3 passed, 0 failed, 0 skipped, 3 errored, 3 of them engine faults (no rule blamed)\n" in out
    assert "not run" not in out


@pytest.mark.parametrize("value", ["-1", "1.5", "many"])
def test_bad_max_faults_is_a_usage_error(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["conformance", "run", "--max-faults", value])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --max-faults: expected a whole number, 0 (never stop) or above, got {value!r}" in err
