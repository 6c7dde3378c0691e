"""Throughput benchmarks (run on demand; not a test).

Reports, per edition, whole 4-player games per second and card draws per second
with the threshold:20 strategy, transitions per second under random play, and
the time of the whole conformance suite, and the time to load the shipped edition
tables and to refuse the bad ones of tests/bad_inputs, as a table and optionally as JSON.
Ratios are given against the reference point of issue 7: the fastest Python
Flip 7 engine measured plays about 560 four-player games/s (about 68,000 draws/s).

It also times the exact solo solves of ``flip7ref solve`` (numbers; numbers and
modifiers with ``--solve-modifiers``, about a minute in one process, then again in
``--solve-workers`` processes, by default the cores this process may use) and
reports the value found next to the published one.

Times are CPU time of this process (``time.process_time``), so other work on the
machine disturbs them less than wall time would; the solve in several processes
is timed in wall time (its work is done in the other processes).  Each measurement is repeated
(``--repeat``, default 3) and the best run is reported, as ``timeit`` does: on a
shared machine the slower runs measure the neighbours, not the code.  The JSON
keeps every run.

With ``--rl`` it also reports the steps per second of the PettingZoo, Gymnasium
and OpenSpiel environments of ``flip7ref.rl`` (``benchmarks/bench_rl.py``; a
one-line note instead when the ``[rl]`` extra is not installed), and of the batched
engine ``flip7ref.batch`` at batch 1, 256 and 4096 beside the single Gymnasium env
(median and range of the runs).

Side by side (``--compare``, see ``benchmarks/side_by_side.py``): several builds in one
run, alternating, each measurement in a fresh process; the median speed ratio to the
first build and its range over the rounds.

Usage:
    python benchmarks/bench.py [--games 300] [--repeat 3] [--solve-modifiers [--solve-workers N]] [--rl [--rl-steps N]]
        [--json out.json]
    python benchmarks/bench.py --compare pure=src --compare main=git:44ceb32 --compare compiled=VENV/bin/python \
        [--measure games:flip7 --measure startup --measure rules ...] [--rounds 7] [--games 300] [--cold-bytecode]
        [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from flip7ref import Game
from flip7ref.analysis import SoloSolver, solo_deck_position, usable_cores
from flip7ref.checking.conformance import load_cases, run_reference
from flip7ref.core.errors import SpecError
from flip7ref.core.spec import edition_ids, load_edition_file, spec_dir
from flip7ref.play.games import play
from flip7ref.play.strategies import RandomStrategy, ThresholdStrategy

REFERENCE_GAMES_PER_SECOND = 560.0


def bench_games(edition: str, games: int) -> dict[str, float]:
    """Whole 4-player games with threshold:20; games/s and draws/s."""
    game = Game(edition, 4)
    strategy = [ThresholdStrategy(20)]
    draws = 0
    start = time.process_time()
    for i in range(games):
        final = play(game.new_initial_state(seed=i), strategy, random.Random(i))
        draws += sum(1 for m in final.history() if m.startswith("chance "))
    seconds = time.process_time() - start
    return {"games_per_second": games / seconds, "draws_per_second": draws / seconds, "seconds": seconds}


def bench_transitions(edition: str, games: int) -> dict[str, float]:
    """Random play: transitions (decisions and draws) per second."""
    game = Game(edition, 4)
    moves = 0
    start = time.process_time()
    for i in range(games):
        final = play(game.new_initial_state(seed=i), [RandomStrategy()], random.Random(i))
        moves += len(final.history())
    seconds = time.process_time() - start
    return {"transitions_per_second": moves / seconds, "seconds": seconds}


def bench_conformance() -> dict[str, float]:
    """The whole conformance suite in-process."""
    cases = load_cases()
    start = time.process_time()
    for case in cases:
        run_reference(case)
    return {"cases": len(cases), "seconds": time.process_time() - start}


def bench_tables() -> dict[str, float]:
    """Loading the shipped edition tables (libyaml's loader, the bounds, the schema, the
    meaning checks), and refusing the bad tables of the regression corpus
    (tests/bad_inputs): the slowest refusal."""
    start = time.process_time()
    for edition in edition_ids():
        load_edition_file(spec_dir() / "editions" / f"{edition}.yaml")
    shipped = time.process_time() - start
    slowest = 0.0
    for path in sorted((Path(__file__).parent.parent / "tests" / "bad_inputs" / "tables").glob("*.yaml")):
        begin = time.process_time()
        with contextlib.suppress(SpecError):
            load_edition_file(path)
        slowest = max(slowest, time.process_time() - begin)
    return {"seconds": shipped, "slowest_refusal_seconds": slowest}


PUBLISHED = {"numbers": 18.5652176141, "numbers,modifiers": 20.2291054307, "numbers,modifiers,second_chance": 22.2504034143}


def bench_compact(cards: str) -> dict[str, float]:
    """One optimal solo solve by the compact-key solver (NumPy): CPU time and peak
    resident memory of this process (the high-water mark so far, in MB)."""
    import resource

    from flip7ref.analysis.compact import CompactSolver

    categories = [{"numbers": "number", "modifiers": "modifier"}.get(c, c) for c in cards.split(",")]
    state = solo_deck_position(Game("flip7", 1), categories)
    start = time.process_time()
    result = CompactSolver().solve(state)
    seconds = time.process_time() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"value": float(result.value), "states": result.states, "seconds": seconds, "peak_mb": peak}


def bench_solve(cards: str, workers: int = 1) -> dict[str, float]:
    """One exact optimal solo solve of Flip 7 with the given card categories: CPU
    time in one process, wall time with more."""
    categories = [{"numbers": "number", "modifiers": "modifier"}[c] for c in cards.split(",")]
    state = solo_deck_position(Game("flip7", 1), categories)
    clock = time.process_time if workers == 1 else time.perf_counter
    start = clock()
    result = SoloSolver(workers=workers).solve(state)
    return {"value": float(result.value), "states": result.states, "seconds": clock() - start, "workers": workers}


def best_of(repeat: int, measure: Callable[[], dict[str, float]]) -> dict[str, Any]:
    """Run ``measure`` ``repeat`` times; the figures of the fastest run (least CPU
    time), the median time and every run's time."""
    runs = [measure() for _ in range(repeat)]
    best = min(runs, key=lambda r: r["seconds"])
    seconds = [r["seconds"] for r in runs]
    return {**best, "median_seconds": statistics.median(seconds), "runs_seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per measurement (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is reported (default %(default)s)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--solve-modifiers", action="store_true", help="also time the numbers+modifiers solve")
    parser.add_argument("--solve-second-chance", action="store_true",
                        help="also time the compact solve with the Second Chances (about 2-3 min, 1.5 GB)")  # fmt: skip
    parser.add_argument(
        "--solve-workers",
        type=int,
        default=usable_cores(),
        help="processes for the second numbers+modifiers solve (default: the cores this process may use, "
        "%(default)s; 1 skips it)",
    )
    parser.add_argument("--rl", action="store_true", help="also time the flip7ref.rl environments (the [rl] extra)")
    parser.add_argument("--rl-steps", type=int, default=20_000, help="steps per RL measurement (default %(default)s)")
    parser.add_argument(
        "--compare", action="append", metavar="LABEL=WHERE",
        help="side-by-side mode: a build to compare (a python path, git:COMMIT or src); the first is the baseline",
    )  # fmt: skip
    parser.add_argument(
        "--measure", action="append", metavar="WHAT",
        help="with --compare: games:flip7, games:vengeance, startup, startup:nocache, score, rules, solve, solve:compact, "
        "pettingzoo:EDITION, pettingzoo_raw:EDITION, pettingzoo_stock:EDITION "
        "(default: games of both editions, startup)",
    )  # fmt: skip
    parser.add_argument("--rounds", type=int, default=7, help="with --compare: rounds (default %(default)s)")
    parser.add_argument(
        "--cold-bytecode", action="store_true",
        help="with --compare: no warm-up run and PYTHONDONTWRITEBYTECODE kept (see benchmarks/side_by_side.py)",
    )  # fmt: skip
    args = parser.parse_args()
    if args.compare:
        from side_by_side import compare

        if len(args.compare) < 2 or args.rounds < 1:
            parser.error("--compare needs at least two builds, and --rounds at least 1")
        known = {"games:flip7", "games:vengeance", "startup", "startup:nocache", "score", "rules", "solve", "solve:compact",
                 *(f"{k}:{e}" for k in ("pettingzoo", "pettingzoo_raw", "pettingzoo_stock") for e in ("flip7", "vengeance"))}
        measures = args.measure or ["games:flip7", "games:vengeance", "startup"]
        if not set(measures) <= known:
            parser.error(f"--measure: expected some of {', '.join(sorted(known))}")
        compare(args.compare, measures, args.rounds, args.games, args.json, warm=not args.cold_bytecode)
        return
    if args.games < 1 or args.repeat < 1 or args.solve_workers < 1:
        parser.error("--games, --repeat and --solve-workers must be at least 1")
    results: dict[str, object] = {"python": platform.python_version(), "machine": platform.machine(), "editions": {}}
    title = f"flip7ref throughput (CPython {platform.python_version()}, one core, best of {args.repeat})"
    table = Table(title=title)
    for col in ("edition", "games/s", "draws/s", "vs 560 games/s", "transitions/s (random)"):
        table.add_column(col, justify="right")
    editions: dict[str, object] = {}
    for edition in ("flip7", "vengeance"):
        g = best_of(args.repeat, lambda: bench_games(edition, args.games))  # noqa: B023 - called at once
        t = best_of(args.repeat, lambda: bench_transitions(edition, args.games))  # noqa: B023
        editions[edition] = {"games": g, "random": t}
        # the reference point is a Flip 7 engine: no ratio for another edition
        ratio = f"{g['games_per_second'] / REFERENCE_GAMES_PER_SECOND:.2f}x" if edition == "flip7" else "-"
        table.add_row(
            edition,
            f"{g['games_per_second']:.0f}",
            f"{g['draws_per_second']:.0f}",
            ratio,
            f"{t['transitions_per_second']:.0f}",
        )
    results["editions"] = editions
    conf = best_of(args.repeat, bench_conformance)
    results["conformance"] = conf
    console = Console(soft_wrap=True)  # long lines are not broken mid-sentence when piped
    console.print(table)
    console.print(f"conformance suite: {conf['cases']:.0f} cases in {conf['seconds']:.2f} s")
    tables = best_of(args.repeat, bench_tables)
    results["tables"] = tables
    console.print(
        f"edition tables: both shipped loaded in {tables['seconds']:.3f} s; the slowest bad table of "
        f"tests/bad_inputs refused in {tables['slowest_refusal_seconds']:.3f} s"
    )
    solves: dict[str, object] = {}
    runs = [("numbers", 1)]
    if args.solve_modifiers:
        runs += [("numbers,modifiers", 1)] + ([("numbers,modifiers", args.solve_workers)] if args.solve_workers > 1 else [])
    for cards, workers in runs:
        r = best_of(args.repeat if cards == "numbers" else 1, lambda: bench_solve(cards, workers))  # noqa: B023
        solves[cards if workers == 1 else f"{cards} --workers {workers}"] = r
        how = "CPU time, one process" if workers == 1 else f"wall time, {workers} processes"
        console.print(
            f"solve --cards {cards}: {r['value']:.10f} (published {PUBLISHED[cards]:.10f}), "
            f"{r['states']:.0f} states in {r['seconds']:.2f} s ({how})"
        )
    compact_runs = ["numbers", "numbers,modifiers"] + (["numbers,modifiers,second_chance"] if args.solve_second_chance else [])
    try:
        import numpy  # noqa: F401 - the compact solver's dependency
    except ImportError:
        compact_runs = []
        console.print("compact solver skipped: NumPy is not installed")
    for cards in compact_runs:
        r = best_of(args.repeat if "second_chance" not in cards else 1, lambda: bench_compact(cards))  # noqa: B023
        solves[f"{cards} compact"] = r
        console.print(
            f"solve --cards {cards} --solver compact: {r['value']:.10f} (published {PUBLISHED[cards]:.10f}), "
            f"{r['states']:.0f} states in {r['seconds']:.2f} s (CPU, one process; median {r['median_seconds']:.2f} s)"
        )
    results["solve"] = solves
    if args.rl:
        import bench_rl  # benchmarks/bench_rl.py, next to this script

        missing = bench_rl.available()
        if missing:
            console.print(f"RL environments skipped: {missing}")
        else:
            results["rl"] = rl = bench_rl.bench_all(args.rl_steps, args.repeat)
            for label, r in rl.items():
                spread = ", ".join(f"{x:.0f}" for x in r["runs_steps_per_second"])
                console.print(f"{label}: {r['steps_per_second']:.0f} steps/s, random legal actions (runs: {spread})")
            results["batch"] = batched = bench_rl.bench_batched(args.rl_steps, args.repeat)  # flip7ref.batch
            bench_rl.print_batched(batched, console.print)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
