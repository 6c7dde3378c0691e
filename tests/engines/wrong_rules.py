"""A test engine that gets one rule wrong on purpose, to show the suite catches it.

Usage: python wrong_rules.py MODE, with MODE one of

- ``x2-doubles-modifiers``: x2 also doubles the +N cards (a common misreading of
  F7-091, D-F7-02 (b)); made from a copy of flip7.yaml whose scoring pipeline adds
  the modifiers before multiplying — a house rule is a YAML file;
- ``resolve-after-bust``: cards set aside during a Flip Three are still resolved
  when the target busts (the original printing, D-F7-10 (b)), whatever the case says;
- ``no-stay``: refuses every ``stay`` action, naming it (``action 2 ('stay'): ...``);
- ``flip7-only``: declares only the flip7 edition.

Every mode errors a case whose request carries an ``expect`` block (the harness
must not send the answers).

Otherwise it answers like the reference engine.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import yaml

from flip7ref.checking.conformance import observe
from flip7ref.checking.harness import implementation
from flip7ref.core.spec import spec_dir


def wrong_table() -> str:
    """Write a flip7 table whose x2 doubles the modifiers too; return its path."""
    data = yaml.safe_load((spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8"))
    data["scoring"] = [{"step": "sum_numbers"}, {"step": "add_modifiers"}, {"step": "multiply"}, {"step": "flip7_bonus"}]
    path = Path(tempfile.mkdtemp()) / "flip7-x2-all.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return str(path)


def main() -> None:
    mode = sys.argv[1]
    table = wrong_table() if mode == "x2-doubles-modifiers" else None
    for raw in sys.stdin:
        request = json.loads(raw)
        if request["cmd"] == "stop":
            return
        if request["cmd"] == "start":
            impl = dict(implementation(), name=f"wrong-{mode}")
            if mode == "flip7-only":
                impl["editions"] = {"flip7": impl["editions"]["flip7"]}
            print(json.dumps({"version": 1, "implementation": impl}), flush=True)
            continue
        case = dict(request["case"])
        if "expect" in case:
            print(json.dumps({"seq": request["seq"], "errored": True, "message": "the request holds the answers"}), flush=True)
            continue
        stays = [i for i, a in enumerate(case.get("actions") or ()) if a == "stay"]
        if mode == "no-stay" and stays:
            message = f"action {stays[0] + 1} ('stay'): stay is not legal"
            print(json.dumps({"seq": request["seq"], "errored": True, "message": message}), flush=True)
            continue
        if case["edition"] == "flip7":
            if table is not None:
                case["edition"] = table
            elif mode == "resolve-after-bust":
                case["options"] = {"flip_three_bust": "resolve", **(case.get("options") or {})}
        try:
            print(json.dumps({"seq": request["seq"], "outcome": observe(case)}), flush=True)
        except Exception as exc:
            print(json.dumps({"seq": request["seq"], "errored": True, "message": str(exc)}), flush=True)


if __name__ == "__main__":
    main()
