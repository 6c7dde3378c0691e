"""A hostile engine for the harness tests: it answers every case like the reference,
except the case whose id is in BAD, where it does what MODE says.

Usage: python hostile.py MODE [PIDFILE]

Modes: ``deep`` (a reply nested 200,000 deep), ``bigint`` (a 5,000-digit integer),
``badutf8`` (invalid UTF-8 on stdout), ``noread`` (stops reading stdin before the
case), ``longline`` (a 2 MB line on stdout), ``longstderr`` (a 2 MB stderr line, then
it exits), ``longmessage`` (errored with a 500 kB message), ``hang`` (sleeps), ``closeout`` (closes its
stdout and sleeps), ``twice`` (answers twice); ``setsid`` and
``doublefork`` answer every case like the reference, but first leave a sleeper behind
outside the engine's process group: a child in a session of its own (keeping the
engine's pipes open), or a daemon-like grandchild (fork, setsid, fork, the middle one
exits, the pipes closed), which a process-group kill does not reach.
With PIDFILE it writes its process id there first (one line, appended), and so does a
sleeper, so the tests can check they are gone afterwards.
"""

from __future__ import annotations

import json
import os
import sys
import time

from flip7ref.checking.conformance import observe
from flip7ref.checking.harness import implementation

BAD = "F7-C0002"


def out(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def _note_pid() -> None:
    if len(sys.argv) > 2:
        with open(sys.argv[2], "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\n")


def _sleeper(mode: str) -> None:
    """Leave a process sleeping outside the engine's process group (see the module docstring)."""
    child = os.fork()
    if child:
        if mode == "doublefork":
            os.waitpid(child, 0)  # the middle process exits at once: the grandchild is an orphan
        deadline = time.monotonic() + 10
        while len(sys.argv) > 2 and time.monotonic() < deadline:  # until the sleeper has noted its pid
            with open(sys.argv[2], encoding="utf-8") as f:
                if len(f.read().split()) >= 2:
                    break
            time.sleep(0.01)
        return
    os.setsid()
    if mode == "doublefork":
        if os.fork():
            os._exit(0)
        for fd in (0, 1, 2):
            os.close(fd)
    _note_pid()
    time.sleep(300)
    os._exit(0)


def main() -> None:
    mode = sys.argv[1]
    _note_pid()
    if mode in ("setsid", "doublefork"):
        _sleeper(mode)
    while True:
        raw = sys.stdin.readline()
        if not raw:
            return
        request = json.loads(raw)
        if request["cmd"] == "stop":
            return
        if request["cmd"] == "start":
            out((json.dumps({"version": 1, "implementation": implementation(1)}) + "\n").encode())
            if mode == "noread":
                time.sleep(120)  # never reads the next request
            continue
        case, seq = request["case"], request["seq"]
        if case["id"] == BAD:
            if mode == "deep":
                out(b"[" * 200_000 + b"]" * 200_000 + b"\n")
                continue
            if mode == "bigint":
                out(b'{"seq": ' + str(seq).encode() + b', "outcome": {"score": ' + b"9" * 5000 + b"}}\n")
                continue
            if mode == "badutf8":
                out(b'{"seq": 1, "outcome": {"score": "\xff\xfe"}}\n')
                continue
            if mode == "longline":
                out(b'"' + b"x" * 2_000_000 + b'"\n')
                continue
            if mode == "longstderr":
                sys.stderr.write("E" * 2_000_000 + "\n")
                sys.stderr.flush()
                sys.exit(4)
            if mode == "longmessage":
                out((json.dumps({"seq": seq, "errored": True, "message": "M" * 500_000}) + "\n").encode())
                continue
            if mode == "hang":
                time.sleep(120)
            if mode == "closeout":
                os.close(1)
                time.sleep(120)
            if mode == "twice":
                out((json.dumps({"seq": seq, "outcome": observe(case)}) + "\n").encode())
        out((json.dumps({"seq": seq, "outcome": observe(case)}) + "\n").encode())


if __name__ == "__main__":
    main()
