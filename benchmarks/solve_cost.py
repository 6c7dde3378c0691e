"""Per-state cost of the exact solo solve: CPU time and memo memory (run on demand; not a test).

Solves the Flip 7 solitaire round for one deck (``--cards``, as ``flip7ref solve``)
in one process, at most ``--max-states`` states, and reports CPU seconds per
state, the memory the memo takes per state (resident set growth over the
solve; the memo and the best-action table are most of it), and the pickled size
of a memo entry (what a parallel solve ships between processes or Dask
workers).  docs/cluster.md turns these into an estimate of the all-94-card solve.

With ``--transitions`` it times instead, one by one, the interpreter transitions a
solve of numbers and modifiers asks for (a Stay that ends the round, a Hit, a card that
joins the line, a bust, a Flip 7, a node expanded whole) and the solver's canonical key
(microseconds each, the median of five runs): with the counts of a solve (docs/analysis.md)
they tell the time spent inside ``State`` from the solver's own.  cProfile cannot see into
the compiled build; this can (run it with the compiled build's Python).

Usage:
    python benchmarks/solve_cost.py [--cards numbers,modifiers] [--max-states 262143] [--json]
    python benchmarks/solve_cost.py --transitions [--json]
"""

from __future__ import annotations

import argparse
import json
import pickle
import platform
import resource
import statistics
import time
import timeit

from flip7ref import Game
from flip7ref.analysis import AnalysisError, SoloSolver, _canonical, solo_deck_position
from flip7ref.core.state import HIT, STAY, State


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def _line(state: State, cards: list[str]) -> State:
    """The solo round after the player draws ``cards`` (the first in the deal, then Hits)."""
    for card in cards:
        state = state.apply_chance(card) if state.current_player == -1 else state.apply(HIT).apply_chance(card)
    return state


def transitions(number: int = 20_000) -> dict[str, float]:
    """Microseconds per transition of each kind a numbers+modifiers solve asks for."""
    root = solo_deck_position(Game("flip7", 1), ["number", "modifier"])
    offer = _line(root, ["5", "x2", "9"])
    chance = offer.apply(HIT)
    six = _line(root, ["1", "2", "3", "4", "6", "8"]).apply(HIT)
    cases = {
        "stay (round end)": lambda: offer.apply(STAY),
        "hit": lambda: offer.apply(HIT),
        "card joins the line": lambda: chance.apply_chance("3"),
        "bust (round end)": lambda: chance.apply_chance("5"),
        "Flip 7 (round end)": lambda: six.apply_chance("9"),
        "chance_weights": lambda: chance.chance_weights(),
        "whole node (chance_successors)": lambda: chance.chance_successors(merge_ends=True),
        "canonical key": lambda: _canonical(offer, 0),
    }
    out = {}
    for name, step in cases.items():
        n = number // 20 if name.startswith("whole") else number
        out[name] = statistics.median(timeit.repeat(step, number=n, repeat=5)) / n * 1e6
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", default="numbers,modifiers")
    parser.add_argument("--max-states", type=int, default=262_143)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--transitions", action="store_true", help="time the transitions a solve asks for, one by one")
    args = parser.parse_args()
    if args.transitions:
        import flip7ref

        costs = transitions()
        if args.json:
            print(json.dumps({"python": platform.python_version(), "compiled": flip7ref.compiled, "us": costs}))
        else:
            print(f"flip7ref.compiled = {flip7ref.compiled}; microseconds per step (median of 5 runs)")
            for k, v in costs.items():
                print(f"{k:<34} {v:8.2f}")
        return
    categories = [w.strip().rstrip("s") for w in args.cards.split(",")]
    state = solo_deck_position(Game("flip7", 1), categories)
    solver = SoloSolver(max_states=args.max_states)
    rss0, cpu0, wall0 = _rss_bytes(), time.process_time(), time.perf_counter()
    finished = True
    try:
        value: float | None = float(solver.solve(state).value)
    except AnalysisError:  # the limit: the states solved so far are measured
        finished, value = False, None
    cpu, wall, rss = time.process_time() - cpu0, time.perf_counter() - wall0, _rss_bytes() - rss0
    states = solver.states
    sample = list(solver._memo.items())[: min(states, 2000)]
    pickled = len(pickle.dumps(sample, protocol=pickle.HIGHEST_PROTOCOL)) / max(1, len(sample))
    out = {
        "python": platform.python_version(),
        "cards": args.cards,
        "finished": finished,
        "value": value,
        "states": states,
        "cpu_seconds": cpu,
        "wall_seconds": wall,
        "cpu_us_per_state": 1e6 * cpu / max(1, states),
        "memo_bytes_per_state": rss / max(1, states),
        "pickled_bytes_per_state": pickled,
    }
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        for k, v in out.items():
            print(f"{k:<24} {v}")


if __name__ == "__main__":
    main()
