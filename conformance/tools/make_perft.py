"""Write the perft cases (conformance/cases/*/perft.yaml) from the positions below.

The expectations are the reference's counts over its own chance nodes
(flip7ref.checking.perft.expectations); tests/test_perft.py checks the small ones by brute
force over every permutation of the pile, independently of the chance nodes.
Run: python conformance/tools/make_perft.py
"""

from __future__ import annotations

from pathlib import Path

import yaml

from flip7ref.checking.perft import expectations
from flip7ref.core.errors import Flip7RefError
from flip7ref.core.spec import load_edition

H = "always-hit"
FLIP7 = [
    ("Numbers and x2 under always-hit", {0: ["5"], 1: ["9"]}, {"7": 1, "9": 1, "x2": 1}, H, {}),
    ("Numbers and x2 with a threshold of 10", {0: ["5"], 1: ["9"]}, {"7": 1, "9": 1, "x2": 1}, "threshold:10", {}),
    ("A Freeze among numbers", {0: ["8"], 1: ["9"]}, {"freeze": 1, "3": 1, "4": 1}, "threshold:10", {}),
    ("A Flip Three among numbers", {0: ["8"], 1: ["9"]}, {"flip_three": 1, "1": 1, "2": 1, "3": 1, "4": 1}, "threshold:10", {}),
    ("Two Flip Threes chained", {0: ["10"], 1: ["11"]}, {"flip_three": 2, "1": 1, "2": 1, "3": 1, "4": 1}, "threshold:11", {}),
    (
        "A Second Chance against a duplicate",
        {0: ["6"], 1: ["7"]},
        {"second_chance": 1, "6": 1, "7": 1, "8": 1},
        "threshold:13",
        {},
    ),
    (
        "A Second Chance inside a Flip Three",
        {0: ["9"], 1: ["10"]},
        {"second_chance": 1, "flip_three": 1, "9": 1, "1": 1, "2": 1},
        "threshold:10",
        {},
    ),
    ("A Flip 7 within reach", {0: ["0", "1", "2", "3", "4"], 1: ["12"]}, {"5": 1, "6": 1, "12": 1}, {0: H, 1: "threshold:1"}, {}),
    ("Modifiers and x2 with a threshold of 20", {0: ["8"], 1: ["10"]}, {"+4": 1, "x2": 1, "8": 1, "10": 1}, "threshold:20", {}),
    (
        "A policy per seat",
        {0: ["4"], 1: ["6"]},
        {"2": 1, "3": 1, "6": 1, "4": 1, "7": 1},
        {0: "threshold:9", 1: "threshold:8"},
        {},
    ),
    ("Three players with a threshold", {0: ["5"], 1: ["6"], 2: ["7"]}, {"5": 1, "6": 1, "7": 1, "8": 1}, "threshold:10", {}),
    (
        "A Freeze and a Flip Three",
        {0: ["4"], 1: ["9"]},
        {"freeze": 1, "flip_three": 1, "4": 1, "9": 1, "5": 1},
        "threshold:9",
        {},
    ),
    ("A fresh round dealt from a small pile", None, {"3": 2, "4": 1, "5": 1}, H, {}),
    ("A fresh round with a Freeze in the deal", None, {"freeze": 1, "2": 2, "9": 1, "10": 1, "11": 1}, "threshold:9", {}),
    ("Two Second Chances", {0: ["5"], 1: ["2"]}, {"second_chance": 2, "5": 2, "2": 1, "8": 1}, "threshold:7", {}),
    ("Everyone stays at once", {0: ["9"], 1: ["10"]}, {"3": 1, "4": 1}, "threshold:1", {}),
    (
        "A Flip Three under the resolve reading",
        {0: ["9"], 1: ["10"]},
        {"flip_three": 1, "freeze": 1, "9": 1, "1": 1, "2": 1},
        "threshold:10",
        {"flip_three_bust": "resolve"},
    ),
]
VENGEANCE = [
    ("Numbers and ÷2 under always-hit", {0: ["5"], 1: ["9"]}, {"7": 1, "9": 1, "/2": 1}, H, {}),
    ("Unlucky 7 among numbers", {0: ["3", "4"], 1: ["8"]}, {"unlucky7": 1, "8": 1, "5": 1, "12": 1}, "threshold:12", {}),
    ("Lucky 13 beside a 13", {0: ["13"], 1: ["2"]}, {"lucky13": 1, "13": 1, "2": 1, "12": 1}, "threshold:20", {}),
    ("A Flip Four among numbers", {0: ["10"], 1: ["11"]}, {"flip_four": 1, "1": 1, "2": 1, "3": 1, "4": 1}, "threshold:11", {}),
    ("Just One More", {0: ["4"], 1: ["9"]}, {"just_one_more": 1, "4": 1, "9": 1, "8": 1}, "threshold:9", {}),
    ("A Swap", {0: ["4", "5"], 1: ["9"]}, {"swap": 1, "5": 1, "10": 1, "9": 1}, "threshold:12", {}),
    ("A Steal", {0: ["4"], 1: ["9", "10"]}, {"steal": 1, "4": 1, "11": 1, "12": 1}, "threshold:12", {}),
    ("A Discard", {0: ["4"], 1: ["9", "10"]}, {"discard": 1, "9": 1, "3": 1, "4": 1}, "threshold:12", {}),
    ("Negative modifiers with a threshold of 10", {0: ["8"], 1: ["6"]}, {"-4": 1, "-2": 1, "4": 1, "12": 1}, "threshold:10", {}),
    (
        "A negative modifier in Brutal Mode",
        {0: ["5"], 1: ["6"]},
        {"-6": 1, "5": 1, "6": 1, "12": 1},
        "threshold:10",
        {"brutal": "true", "brutal_busted": "all-negatives"},  # D-V-33: the counts of its first version
    ),
    (
        "Three players and a Steal",
        {0: ["2"], 1: ["3"], 2: ["4"]},
        {"steal": 1, "2": 1, "3": 1, "4": 1, "9": 1},
        "threshold:6",
        {},
    ),
    ("A policy per seat", {0: ["5"], 1: ["7"]}, {"3": 1, "6": 1, "9": 1, "12": 1}, {0: "threshold:12", 1: H}, {}),
    ("A fresh round dealt from a small pile", None, {"2": 2, "3": 1, "4": 1}, H, {}),
    (
        "Unlucky 7 inside a Flip Four",
        {0: ["2"], 1: ["9"]},
        {"flip_four": 1, "unlucky7": 1, "5": 1, "9": 1, "2": 1},
        "threshold:9",
        {},
    ),
    (  # the second Flip Four is revealed while the first is resolved, and then resolved itself
        "Two Flip Fours chained",
        {0: ["12"], 1: ["11"]},
        {"flip_four": 2, "9": 1, "10": 1, "12": 3},
        {0: "threshold:25", 1: "threshold:25", 2: "threshold:1"},  # the third seat stays at once
        {},
    ),
    (  # its holder may not stay; 0 unless a Flip 7, which scores the line plus 15
        "The Zero",
        {0: ["1", "2", "3", "4", "5"], 1: ["9"]},
        {"0": 1, "6": 1, "5": 1, "9": 1},
        "threshold:20",
        {},
    ),
]


THIRD_SEAT = ["12", "11", "10", "9", "8", "7"]
"""The third seat's one-card line in a position written for two seats: the highest number not in play.
Flip 7 is for three or more players, so every perft case seats three; the third seat plays the
second seat's policy and moves last (the dealer)."""

FILLERS = {"flip7": ["12", "11", "10", "9", "8"], "vengeance": ["12", "11", "10", "9", "8"]}


def build(edition: str, prefix: str, specs: list[tuple[object, ...]]) -> list[dict[str, object]]:
    table = load_edition(edition)
    cases = []
    for n, (title, lines, pile, policy, options) in enumerate(specs, 1):
        rules: list[str] = []
        for card in pile:
            rules.extend(table.card(card).rules)
        setup: dict[str, object] = {"players": 3, "dealer": 1}
        if lines is None:
            setup["deal"], setup["dealer"] = True, 2
        else:
            setup["lines"] = lines = dict(lines)
        if lines is not None and len(lines) == 2:  # a third seat (F7-122), playing after seats 0 and 1
            used = set(pile) | {c for line in lines.values() for c in line}
            lines[2] = [next(c for c in THIRD_SEAT if c not in used)]
            setup["dealer"] = 2
            if isinstance(policy, dict) and 2 not in policy:
                policy = {**policy, 2: policy[1]}
        setup["pile"] = dict(pile)
        case: dict[str, object] = {
            "id": f"{prefix}-C{5000 + n:04d}", "title": f"Perft: {title}", "edition": edition, "options": options,
            "rules": list(dict.fromkeys(rules))[:8], "source": "the reference's chance nodes, enumerated (perft)",
            "kind": "perft", "setup": setup, "policy": policy, "expect": {},
        }  # fmt: skip
        fillers = [c for c in FILLERS[edition] if c not in pile and all(c not in line for line in (lines or {}).values())]
        while True:  # more high numbers until the round always ends before the pile runs out
            try:
                case["expect"] = expectations(case)
                if case["expect"]["orders"] > 600:  # type: ignore[index]
                    raise SystemExit(f"{case['id']} {title}: {case['expect']['orders']} deal orders, too many")  # type: ignore[index]
                break
            except Flip7RefError:
                if not fillers:
                    raise
                setup["pile"][fillers.pop(0)] = 1  # type: ignore[index]
        cases.append(case)
    return cases


def main() -> None:
    root = Path(__file__).resolve().parent.parent / "cases"
    for edition, prefix, specs in (("flip7", "F7", FLIP7), ("vengeance", "V", VENGEANCE)):
        data = {"format": 1, "edition": edition, "topic": "perft", "cases": build(edition, prefix, specs)}
        text = "# Generated by conformance/tools/make_perft.py (perft counts of the reference's chance nodes).\n"
        (root / edition / "perft.yaml").write_text(
            text + yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8"
        )
        print(edition, [(c["id"], c["expect"]["orders"]) for c in data["cases"]])


if __name__ == "__main__":
    main()
