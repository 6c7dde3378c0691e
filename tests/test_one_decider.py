"""One decider per rule: the reference never disagrees with itself.

- the four defects of two deciders disagreeing (a barred line scored as a Flip 7; a
  reachable position refused on reload; ``line_value`` unlike the round score; D-V-26
  applied beyond Just One More), each with the right value;
- every state that play reaches reloads unchanged: every conformance case, and random
  games under random readings of every option of both editions;
- `flip7ref.core.deciders.DECIDERS` names real functions that name their rules, matches
  docs/core.md's table, and no module outside a decider restates its rule.
"""

from __future__ import annotations

import ast
import json
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest

import flip7ref
from flip7ref import Flip7RefError, Game, State, load_edition
from flip7ref.checking.conformance import build_state, draw_to_decision, load_cases
from flip7ref.core.deciders import DECIDERS
from flip7ref.core.lines import bars_flip7, flip7_line, holds_seven
from flip7ref.core.model import Player, Status
from flip7ref.core.scoring import round_scores, seat_breakdown, seat_score

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "flip7ref"
CORE = PACKAGE / "core"  # the rule core's room (deciders.py)
in_checkout = pytest.mark.skipif(
    not (CORE / "deciders.py").is_file() or not (ROOT / "docs" / "core.md").is_file(),
    reason="reads the package's source and docs/ (a checkout; the compiled run has the installed package only)",
)


def _run(state: State, *actions: str) -> State:
    state = draw_to_decision(state)
    for a in actions:
        state = draw_to_decision(state.apply(a))
    return state


def _codes(game: Game, cards: list[str]) -> tuple[int, ...]:
    return tuple(game.code(c) for c in cards)


# --------------------------------------------------------------------------- the four defects


def _barred_seven() -> State:
    """V-C0301's play: The Zero's holder is stopped by Just One More, then a Swap brings a
    seventh number (no Flip 7 under the default no-flip7)."""
    g = Game("vengeance", 3)
    s = g.new_position(
        dealer=0, turn=1, lines={0: ["0", "1", "2", "3", "4", "-2"], 1: ["9"], 2: ["6"]},
        draw=["just_one_more", "5", "swap", "8", "10"],
    )  # fmt: skip
    return _run(s, "hit", "target 0", "hit", "target 2", "swap 0 5 2 0")


def test_a_barred_line_of_seven_numbers_scores_0_not_a_flip7() -> None:
    """Defect 1: the round end scored the barred line 21 + 15 = 36 (the cards decided a
    Flip 7 again); it scores 0 (The Zero without a Flip 7, V-030, D-V-26)."""
    s = _barred_seven()
    p = s.players[0]
    assert p.flip7_barred and p.status is Status.STAYED
    assert s.line(0) == ["0", "1", "2", "3", "4", "5", "6"]
    assert holds_seven(s.game, p.line) and not flip7_line(s.game, p.line, p.flip7_barred)
    assert s.line_value(0) == 0
    end = _run(s, "stay", "stay")
    assert end.round == 2 and end.round_scores() == (0, 9, 0)
    assert round_scores(s.game, s.players, None, None) == (0, 9, 0)


def test_the_barred_position_reloads() -> None:
    """Defect 2: State.from_dict refused the end position of V-C0301 ("a Flip 7 ends the
    round at once"): the position check now asks the decider play uses."""
    s = _barred_seven()
    data = json.loads(json.dumps(s.to_dict()))
    assert data["seats"][0]["flip7_barred"] is True
    assert "flip7_barred" not in data["seats"][1]
    back = State.from_dict(data)
    assert back == s and back.players[0].flip7_barred
    data["seats"][1]["flip7_barred"] = True  # seat 1 never met Just One More: active, no Zero
    with pytest.raises(flip7ref.SerializationError, match=r"seats\[1\]\.flip7_barred: false: only Just One More"):
        State.from_dict(data)
    data["seats"][1]["flip7_barred"] = "yes"
    with pytest.raises(flip7ref.SerializationError, match=r"seats/1/flip7_barred: expected true or false, got 'yes'"):
        State.from_dict(data)


def test_line_value_is_the_round_score_in_brutal_mode() -> None:
    """Defect 3: a busted Brutal Mode line 5, -4, 5 showed 0 but scores -4 under reading
    all-negatives (V-081); under the default given-after-bust (D-V-33, V-084) the -4 held
    before the bust is void, and a -2 given after it counts: line_value says the same."""
    lines = {0: ["5", "-4", "5"], 1: ["9"], 2: ["6"]}
    g = Game("vengeance", 3, {"brutal": "true", "brutal_busted": "all-negatives"})
    s = g.new_position(dealer=0, turn=1, lines=lines, statuses={0: "busted"}, draw=["8"])
    assert s.line_value(0) == -4
    assert s.line_value(1) == 9
    end = _run(s, "stay", "stay")
    assert end.round_scores() == (-4, 9, 6)
    g = Game("vengeance", 3, {"brutal": "true"})
    s = g.new_position(dealer=0, turn=1, lines={**lines, 0: ["5", "-4", "5", "-2"]}, statuses={0: "busted"}, draw=["8"])
    assert s.line_value(0) == -2
    assert _run(s, "stay", "stay").round_scores() == (-2, 9, 6)


def test_the_bar_is_only_for_just_one_more() -> None:
    """Defect 4: a player who stayed before receiving The Zero (by a Swap) was treated as
    barred and got no Flip 7; now she makes it: 1+...+6 = 21, +15 (V-032)."""
    g = Game("vengeance", 3)
    s = g.new_position(
        dealer=0, turn=1, lines={0: ["1", "2", "3", "4", "5", "6", "-2"], 1: ["9"], 2: ["0"]},
        statuses={0: "stayed"}, draw=["swap", "8", "10"],
    )  # fmt: skip
    end = _run(s, "hit", "target 1", "swap 0 6 2 0")
    assert [e.type for e in end.events()].count("flip7") == 1
    assert end.round_scores() == (36, 9, 0)
    stayed = Player(_codes(g, ["1", "2", "3", "4", "5", "6", "0"]), (), Status.STAYED)
    assert not stayed.flip7_barred and flip7_line(g, stayed.line, stayed.flip7_barred)
    assert bars_flip7(g, stayed)  # Just One More would bar her now, holding The Zero
    assert not bars_flip7(Game("vengeance", 3, {"zero_just_one_more": "general-rules"}), stayed)
    assert not bars_flip7(g, Player(_codes(g, ["1", "2"]), (), Status.STAYED))  # no Zero: nothing to bar


def test_a_flip_four_stops_at_seven_numbers_for_a_barred_player() -> None:
    """Defect 4: a Flip Four given to a barred Zero holder went on past seven numbers; the
    FAQ stops it at once at seven different numbers (V-044): here after one card."""
    g = Game("vengeance", 3)
    s = g.new_position(
        dealer=0, turn=1, lines={0: ["0", "1", "2", "3", "4", "-2"], 1: ["9"], 2: ["7"]},
        draw=["just_one_more", "5", "flip_four", "6", "8", "10", "11"],
    )  # fmt: skip
    s = _run(s, "hit", "target 0", "hit", "target 0")
    ended = [e for e in s.events() if e.type == "forced_draw_ended"]
    assert [(e.get("card"), e.get("outcome")) for e in ended] == [("just_one_more", "complete"), ("flip_four", "seven numbers")]
    assert s.line(0) == ["0", "1", "2", "3", "4", "-2", "5", "6"]
    assert s.next_card() == "8" and s.current_player == 1 and s.round == 1
    assert s.line_value(0) == 0


def test_seat_breakdown_agrees_with_seat_score() -> None:
    """The score pad's breakdown carries the decider's score and Brutal Mode's penalty."""
    g = Game("vengeance", 3, {"brutal": "true"})
    line = _codes(g, ["1", "2", "3", "4", "5", "6", "7"])
    b = seat_breakdown(g, 1, _codes(g, ["9", "-4"]), False, 0, 1)
    assert (b.score, b.penalty) == (9 - 4 - 15, 15) == (seat_score(g, 1, _codes(g, ["9", "-4"]), False, 0, 1), 15)
    assert seat_breakdown(g, 0, line, False, 0, 0).score == 28 + 15
    assert seat_breakdown(g, 2, _codes(g, ["5", "-4", "5"]), True, None, None).score == 0  # D-V-33: the -4 held is void
    assert seat_breakdown(g, 2, _codes(g, ["5", "-4", "5", "-2"]), True, None, None).score == -2


# --------------------------------------------------------------------------- every reachable state reloads


def _reloads(s: State) -> str | None:
    try:
        t = State.from_dict(json.loads(json.dumps(s.to_dict(log=False))), s.game)
    except Flip7RefError as exc:
        return f"{type(exc).__name__}: {exc}"
    return None if t == s else "changed on reload"


def test_every_state_of_every_case_reloads() -> None:
    """Every state a conformance case passes through reloads unchanged (both editions)."""
    tried = 0
    bad = []
    for case in load_cases():
        if case["kind"] in ("scoring", "perft"):
            continue
        try:
            s = build_state(case)
        except Flip7RefError:
            continue  # a case about a refused position
        chain = [s]
        try:
            s = draw_to_decision(s)
            chain.append(s)
            for a in case.get("actions") or ():
                s = draw_to_decision(s.apply(a))
                chain.append(s)
        except Flip7RefError:
            pass  # a case about a refused action
        for st in chain:
            tried += 1
            why = _reloads(st)
            if why:
                bad.append((case["id"], why))
                break
    assert bad == []
    assert tried > 1200


def _random_options(edition: str, rng: random.Random) -> dict[str, Any]:
    """A random reading of every option of ``edition`` (integers: a small value in range;
    the game length options kept short)."""
    out: dict[str, Any] = {}
    for name, spec in load_edition(edition).options.items():
        if name in ("target_score", "decks"):
            continue
        choices: list[Any] = [r.name for r in spec.readings]
        if spec.integer is not None:
            low, high = spec.integer
            choices += list(range(low, min(low + 3, high if high is not None else low + 3) + 1))
        out[name] = rng.choice(choices)
    out["target_score"] = rng.choice([40, 80])
    return out


RELOAD_GAMES = int(os.environ.get("FLIP7REF_RELOAD_GAMES", "2000"))


@pytest.mark.parametrize("edition", ["flip7", "vengeance"])
def test_random_games_under_random_readings_reload(edition: str) -> None:
    """Random seeded games under random readings of every option: every state reloads.
    ``FLIP7REF_RELOAD_GAMES`` games per edition (default 2,000; every state of the first
    tenth is reloaded, then every seventh state, to keep the run short)."""
    rng = random.Random(f"reload-{edition}")
    games = refused = tried = 0
    while games < RELOAD_GAMES:
        options = _random_options(edition, rng)
        players = rng.choice([1, 2, 3, 4, 6])
        try:
            game = Game(edition, players, options)
        except Flip7RefError:
            refused += 1  # readings that cannot go together (the game says which)
            assert refused < RELOAD_GAMES
            continue
        s = game.new_initial_state(seed=games)
        every = 1 if games < RELOAD_GAMES // 10 else 7
        step = 0
        while not s.is_terminal() and step < 3000:
            if step % every == 0:
                why = _reloads(s)
                assert why is None, (edition, players, options, games, step, why)
                tried += 1
            step += 1
            s = s.apply_chance(s.sample_chance(rng)) if s.is_chance_node() else s.apply(rng.choice(s.legal_actions()))
        games += 1
    assert tried > RELOAD_GAMES


# --------------------------------------------------------------------------- the table of deciders


def _resolve(path: str) -> Any:
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = __import__(".".join(parts[:i]), fromlist=["_"])
            break
        except ImportError:
            continue
    for name in parts[i:]:
        obj = getattr(obj, name)
    return obj


def test_every_decider_exists_and_names_its_rules() -> None:
    rules = set()
    for edition in ("flip7", "vengeance"):
        e = load_edition(edition)
        rules |= set(e.rules) | set(e.disputes)
    for d in DECIDERS:
        fn = _resolve(d.function)
        assert callable(fn), d.function
        if not flip7ref.compiled:  # the source's docstrings (compiled, mypyc keeps some, or another's)
            missing = [r for r in d.rules if r not in (fn.__doc__ or "")]
            assert missing == [], f"{d.function}'s docstring does not name {missing}"
        assert set(d.rules) <= rules, f"{d.function}: unknown rule ids {set(d.rules) - rules}"
        for t in d.tests:
            assert t.startswith(("tests/", "F7-C", "V-C")), t
            if t.startswith("tests/"):
                assert (ROOT / t).is_file(), t


@in_checkout
def test_docs_core_lists_every_decider() -> None:
    """docs/core.md's table of deciders is the table of `flip7ref.core.deciders`, row by row."""
    text = (ROOT / "docs" / "core.md").read_text(encoding="utf-8")
    section = text.split("## One decider per rule", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([^|]+) \| `([a-zA-Z0-9_.]+)` \| ([^|]+) \| ([^|]+) \|$", section, re.MULTILINE)
    table = [(r.strip(), f, q.strip(), t.strip()) for r, f, q, t in rows]
    assert table == [(", ".join(d.rules), d.function, d.question, ", ".join(d.tests)) for d in DECIDERS]


# A second implementation of the rules on purpose, held to the conformance suite and to a
# lockstep comparison with the reference like any foreign engine (docs/batch.md): it
# restates the rules by design, so the one-decider search does not look inside it.
SECOND_IMPLEMENTATIONS = ("flip7ref/batch/",)


def _uses(exclude: set[str]) -> list[tuple[str, int, str, str]]:
    """``(file, line, kind, name)`` for every attribute read, call and line of code of
    flip7ref/ outside ``exclude`` (docstrings and comments are not code)."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in exclude or rel.startswith(SECOND_IMPLEMENTATIONS):
            continue
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Attribute):
                out.append((rel, node.lineno, "attribute", node.attr))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                out.append((rel, node.lineno, "call", node.func.id))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                out.append((rel, node.lineno, "call", node.func.attr))
        for number, line in enumerate(text.splitlines(), 1):
            out.append((rel, number, "code", line.split("#", 1)[0]))
    return out


@pytest.mark.parametrize(
    ("kind", "name", "home", "what"),
    [
        ("attribute", "flip7_distinct", {"flip7ref/core/lines.py", "flip7ref/core/game_tables.py", "flip7ref/core/scoring.py",
                                         "flip7ref/analysis/estimate.py",
                                         "flip7ref/analysis/compact_model.py"},  # a second model, checked against the interpreter
         "a count toward a Flip 7 (F7-050) compared outside flip7ref.core.lines"),
        ("code", r"len\((set\(|\{)[^)]*rank", {"flip7ref/core/lines.py"}, "a count of distinct ranks (F7-050 restated)"),
        ("attribute", "busted_score", {"flip7ref/core/scoring.py", "flip7ref/core/game_tables.py"},
         "a busted seat's score (V-081) outside scoring"),
        ("attribute", "flip7_bonus", {"flip7ref/core/scoring.py", "flip7ref/core/game_tables.py", "flip7ref/core/engine.py"},
         "the Flip 7 bonus (F7-050, V-082) added outside scoring"),
        ("attribute", "zero_after_stay", {"flip7ref/core/lines.py", "flip7ref/core/game_tables.py"},
         "the D-V-26 bar decided outside flip7ref.core.lines"),
        ("call", "score_points", {"flip7ref/core/scoring.py", "flip7ref/analysis/compact_model.py"},
         "a line scored without seat_score (the round score's decider)"),
        ("call", "score_line", {"flip7ref/core/scoring.py", "flip7ref/cli/play.py", "flip7ref/cli/analysis.py",
                                 "flip7ref/checking/score_blame.py"},
         "a line scored without seat_score outside the score calculator"),
    ],
)
@in_checkout
def test_no_second_decider(kind: str, name: str, home: set[str], what: str) -> None:
    """An AST walk over flip7ref/: a rule's tell-tale names appear only in its decider's home."""

    def hits(uses: list[tuple[str, int, str, str]]) -> list[str]:
        if kind == "code":
            return [f"{rel}:{n}" for rel, n, k, code in uses if k == "code" and re.search(name, code)]
        return [f"{rel}:{n}" for rel, n, k, used in uses if k == kind and used == name]

    assert hits(_uses(set())), f"the pattern {name!r} finds nothing even in its home: the check would be blind"
    found = hits(_uses(home))
    assert found == [], f"{what}: {found}"


@in_checkout
def test_the_deciders_module_is_data_only() -> None:
    """`flip7ref.core.deciders` imports nothing of the interpreter (it is read by the docs and tests)."""
    tree = ast.parse((CORE / "deciders.py").read_text(encoding="utf-8"))
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert imported == ["__future__", "typing"]
