"""Per-state cost of the exact solo solve: CPU time and memo memory (run on demand; not a test).

Solves the Flip 7 solitaire round for one deck (``--cards``, as ``flip7ref solve``)
in one process, at most ``--max-states`` states, and reports CPU seconds per
state, the memory the memo takes per state (resident set growth over the
solve; the memo and the best-action table are most of it), and the pickled size
of a memo entry (what a parallel solve ships between processes or Dask
workers).  docs/cluster.md turns these into an estimate of the all-94-card solve.

Usage:
    python benchmarks/solve_cost.py [--cards numbers,modifiers] [--max-states 262143] [--json]
"""

from __future__ import annotations

import argparse
import json
import pickle
import platform
import resource
import time

from flip7ref import Game
from flip7ref.analysis import AnalysisError, SoloSolver, solo_deck_position


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", default="numbers,modifiers")
    parser.add_argument("--max-states", type=int, default=262_143)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
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
