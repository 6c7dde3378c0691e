"""A test engine that resolves forced choices itself (protocol v2 ``auto_resolves_forced_choices``).

Usage: python auto_resolving.py [MODE], with MODE one of

- ``auto`` (the default): plays like the reference, except that whenever the decision
  ahead has a single legal action it takes it itself, also after the request's last
  action; the request's actions are only the others.  It refuses an action that is not
  legal, naming it by its position among the actions it was sent (``action 2 ('stay')``).
- ``typo-reading``: declares the reading ``unlimted`` of ``reshuffles`` (misspelt);
- ``typo-option``: declares an option ``reshufles`` (misspelt);
- ``unlimited``: declares the readings ``unlimited`` and ``1`` of ``reshuffles``;
- ``another-tie``: declares only ``another-round`` for the option ``tie``.

Every mode errors a request that carries an ``expect`` block.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from flip7ref.checking.conformance import build_state, observe, outcome
from flip7ref.checking.harness import implementation
from flip7ref.core.errors import Flip7RefError
from flip7ref.core.state import CHANCE, TERMINAL


def play(case: dict[str, Any]) -> dict[str, Any]:
    """Play a request, taking every forced choice itself; the observed outcome."""
    if case["kind"] == "scoring":
        return observe(case)
    state = build_state(case)
    pending = list(case.get("actions") or ())
    sent = 0

    def settle() -> None:
        nonlocal state
        while True:
            if state.current_player == CHANCE:
                card = state.next_card()
                assert card is not None
                state = state.apply_chance(card)
            elif state.current_player != TERMINAL and len(state.legal_action_strings()) == 1:
                state = state.apply(state.legal_action_strings()[0])
            else:
                return

    settle()
    while pending:
        action = pending.pop(0)
        sent += 1
        legal = state.legal_action_strings()
        if action not in legal:
            raise Flip7RefError(f"action {sent} ({action!r}) is not legal here (legal: {', '.join(legal) or 'none'})")
        state = state.apply(action)
        settle()
    return outcome(state)


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "auto"
    for raw in sys.stdin:
        request = json.loads(raw)
        if request["cmd"] == "stop":
            return
        if request["cmd"] == "start":
            impl = dict(implementation(2), name=f"auto-{mode}", auto_resolves_forced_choices=True)
            options = impl["editions"]["flip7"]["options"]
            if mode == "typo-reading":
                options["reshuffles"] = ["unlimted"]
            elif mode == "typo-option":
                options["reshufles"] = options.pop("reshuffles")
            elif mode == "unlimited":
                options["reshuffles"] = ["unlimited", "1"]
            elif mode == "another-tie":
                options["tie"] = ["another-round"]
            print(json.dumps({"version": 2, "implementation": impl}), flush=True)
            continue
        case = dict(request["case"])
        if "expect" in case:
            print(json.dumps({"seq": request["seq"], "errored": True, "message": "the request holds the answers"}), flush=True)
            continue
        try:
            print(json.dumps({"seq": request["seq"], "outcome": play(case)}), flush=True)
        except Flip7RefError as exc:
            print(json.dumps({"seq": request["seq"], "errored": True, "message": str(exc)}), flush=True)


if __name__ == "__main__":
    main()
