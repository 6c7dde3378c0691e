"""An engine that plays like the reference but fails the protocol at its Nth run request.

Usage: python faulty.py MODE N.  MODE: ``hang`` (sleeps), ``exit`` (exits with status 5),
``garbage`` (a line that is not JSON), ``longline`` (a 30 MB line), ``deep`` (JSON nested
100,000 deep), ``nan`` (a total of NaN), ``inf`` (a total of 1e999), ``bigint`` (a total of
5,000 digits).  A restarted engine counts its requests from 1 again.  With PIDFILE
(``python faulty.py MODE N PIDFILE``) it appends its process id there first (one line).
"""

from __future__ import annotations

import json
import os
import sys
import time

from flip7ref.checking.conformance import observe
from flip7ref.checking.harness import implementation


def out(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def main() -> None:
    mode, at = sys.argv[1], int(sys.argv[2])
    if len(sys.argv) > 3:
        with open(sys.argv[3], "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\n")
    runs = 0
    for raw in sys.stdin:
        request = json.loads(raw)
        if request["cmd"] == "stop":
            return
        if request["cmd"] == "start":
            out((json.dumps({"version": 2, "implementation": implementation(2)}) + "\n").encode())
            continue
        runs += 1
        seq = request["seq"]
        head = b'{"seq": ' + str(seq).encode() + b', "outcome": {"totals": ['
        if runs == at:
            if mode == "hang":
                time.sleep(600)
            if mode == "exit":
                sys.exit(5)
            if mode == "garbage":
                out(b"DEBUG: thinking\n")
                continue
            if mode == "longline":
                out(b'"' + b"x" * 30_000_000 + b'"\n')
                continue
            if mode == "deep":
                out(b"[" * 100_000 + b"]" * 100_000 + b"\n")
                continue
            if mode in ("nan", "inf", "bigint"):
                number = {"nan": b"NaN", "inf": b"1e999", "bigint": b"9" * 5000}[mode]
                out(head + number + b"]}}\n")
                continue
        out((json.dumps({"seq": seq, "outcome": observe(request["case"])}) + "\n").encode())


if __name__ == "__main__":
    main()
