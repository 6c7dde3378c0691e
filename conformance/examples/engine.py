#!/usr/bin/env python3
"""A flip7ref engine protocol skeleton in plain Python (no flip7ref, no dependencies;
conformance/PROTOCOL.md).  Run it with:

    flip7ref conformance run --engine "python3 conformance/examples/engine.py"

Places to fill in are marked FILL IN.  As shipped, a tiny engine sits behind them: it
scores Flip 7 lines (the ``scoring`` cases) and skips every other case.
"""

from __future__ import annotations

import json
import re
import sys
import traceback
from typing import Any

# FILL IN: describe your engine.  List the editions you play and, for each option, the
# readings you support (the first one listed is the one you play by default).  An
# option you do not list is played at the table's default reading.
IMPLEMENTATION: dict[str, Any] = {
    "name": "tiny-python-engine",
    "version": "0.1.0",
    "language": "python",
    "editions": {"flip7": {"options": {}}},
    # protocol v2 capabilities (optional):
    "players": [2, 18],  # the player counts you support
    "positions": False,  # True once you can build a mid-round position from case["setup"]
}


class Skip(Exception):
    """Raise it for what your engine does not support yet: the case is reported skipped."""


def score_line(edition: str, options: dict[str, Any], line: list[str]) -> dict[str, Any]:
    """FILL IN: score one line of cards (edition table ids: "0".."12", "+2".."+10", "x2"...)."""
    numbers = [int(c) for c in line if c.isdigit()]
    score = sum(numbers) * (2 if "x2" in line else 1)
    score += sum(int(c[1:]) for c in line if re.fullmatch(r"\+\d+", c))
    flip7 = len(set(numbers)) >= 7
    return {"score": score + (15 if flip7 else 0), "flip7": flip7}


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """FILL IN: play a case and return what you observed.

    case["setup"] gives the position (players, dealer, draw pile top first, lines...),
    case["actions"] the decisions in order and case["actors"] the seat taking each one.
    Draw the top card of the pile at every chance node; after the last action, draw
    until the next decision.  Return an outcome (PROTOCOL.md): events, statuses, lines,
    kept, round, round_scores, totals, next {player, legal}, winners, draw, discard_count.
    """
    if case["kind"] == "scoring":
        return score_line(case["edition"], case.get("options") or {}, case["line"])
    raise Skip(f"{case['kind']} cases are not implemented yet")


# ---------------------------------------------------------------- the protocol
# Nothing to change below: one JSON object per line on stdin and stdout.


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> int:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as exc:
            send({"seq": None, "errored": True, "message": f"request is not JSON: {exc}"})
            continue
        cmd = request.get("cmd")
        if cmd == "stop":
            return 0
        if cmd == "start":
            if request.get("version") not in (1, 2):
                send({"error": f"unsupported protocol version {request.get('version')}"})
                return 0
            send({"version": request["version"], "implementation": IMPLEMENTATION})
        elif cmd == "run":
            try:
                send({"seq": request["seq"], "outcome": run_case(request["case"])})
            except Skip as exc:
                send({"seq": request["seq"], "skipped": True, "message": str(exc)})
            except Exception:  # report the failure and keep serving
                send({"seq": request["seq"], "errored": True, "message": traceback.format_exc(limit=3)})
        else:
            send({"seq": request.get("seq"), "errored": True, "message": f"unknown command {cmd!r}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
