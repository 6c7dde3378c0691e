"""A deliberately broken engine for the harness tests.

Usage: python misbehaving.py MODE, where MODE decides how it fails on the case
whose id is in BAD (it answers the others correctly, as the reference would):
hang, crash, garbage, wrongseq, badversion, refuse.
"""

from __future__ import annotations

import json
import sys
import time

from flip7ref.checking.conformance import observe
from flip7ref.checking.harness import implementation

BAD = "F7-C0002"


def main() -> None:
    mode = sys.argv[1]
    for raw in sys.stdin:
        request = json.loads(raw)
        if request["cmd"] == "stop":
            return
        if request["cmd"] == "start":
            if mode == "refuse":
                print(json.dumps({"error": "I only speak version 9"}), flush=True)
                return
            version = 9 if mode == "badversion" else 1
            print(json.dumps({"version": version, "implementation": implementation()}), flush=True)
            continue
        case = request["case"]
        seq = request["seq"]
        if case["id"] == BAD:
            if mode == "hang":
                time.sleep(60)
            elif mode == "crash":
                print("boom: engine fell over", file=sys.stderr, flush=True)
                sys.exit(3)
            elif mode == "garbage":
                print("DEBUG: thinking about it", flush=True)
                continue
            elif mode == "wrongseq":
                seq += 100
        print(json.dumps({"seq": seq, "outcome": observe(case)}), flush=True)


if __name__ == "__main__":
    main()
