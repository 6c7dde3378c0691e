"""The ``tournament`` subcommand (see `flip7ref.play.tournament`)."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable

from flip7ref.cli._common import (
    add_cluster,
    add_common,
    add_decision_timeout,
    add_in_process,
    add_json,
    add_no_progress,
    check_output,
    check_workers,
    cluster_client,
    decision_timeout,
    parse_options,
    parse_seed,
    progress_bar,
    showing_progress,
    stdout_console,
    time_limited,
    user_output_to_stderr,
)
from flip7ref.cli.play import solving_note
from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.play.bench import PANELS, BenchResult, bench_agent, check_bench
from flip7ref.play.strategies import OptimalSoloStrategy, Strategy, parse_strategy
from flip7ref.play.tournament import (
    ReadingResult,
    TournamentResult,
    check_games,
    disputed_readings,
    games_near,
    readings_sweep,
    run_tournament,
)
from flip7ref.proc.install import extra_hint

DEFAULT_LINEUP = ("threshold:18", "threshold:20", "threshold:25", "random")
"""The strategies of a tournament given no ``--strategy``."""

DEFAULT_GAMES = 400
"""``--games`` of ``tournament`` and ``bench-agents`` when not given, rounded down to a multiple of the players."""


def lineup(args: argparse.Namespace) -> list[str]:
    """The strategy names of ``--strategy`` (repeated, one name each), or of the deprecated
    ``--strategies a,b,c`` (a note on stderr says so), or `DEFAULT_LINEUP`.

    Raises:
        OptionError: both flags given, an empty name, or commas in one ``--strategy``.
    """
    if args.strategy and args.strategies is not None:
        raise OptionError("give the lineup with --strategy (repeated), or with the older --strategies, not both")
    if args.strategies is not None:
        text = args.strategies
        print("flip7ref: note: --strategies is deprecated: give --strategy once per strategy "
              "(--strategy threshold:18 --strategy random)", file=sys.stderr)  # fmt: skip
        names = [n.strip() for n in text.split(",")]
        if any(not n for n in names):
            raise OptionError(f"--strategies {text!r}: expected names separated by commas, e.g. threshold:18,threshold:20,random")
        return names
    for name in args.strategy or ():
        if "," in name:
            repeated = " ".join(f"--strategy {n.strip()}" for n in name.split(","))
            raise OptionError(f"--strategy {name!r}: one strategy per --strategy; repeat the flag: {repeated}")
        if not name.strip():
            raise OptionError("--strategy: expected a strategy name, e.g. threshold:20, got an empty one")
    return [n.strip() for n in args.strategy] if args.strategy else list(DEFAULT_LINEUP)


def _ci(interval: tuple[float, float], fmt: str) -> str:
    return "n/a" if math.isnan(interval[0]) else f"{interval[0]:{fmt}} – {interval[1]:{fmt}}"


def _standings(result: TournamentResult) -> object:
    from rich.table import Table

    options = ", ".join(f"{k}={v}" for k, v in result.options.items()) or "defaults"
    table = Table(title=f"{result.edition}, {result.players} players, {result.games} games in {result.players} "
                  f"seat rotations; options: {options}")  # fmt: skip
    for name, justify in (("strategy", "left"), ("seat-games", "right"), ("win rate", "right"), ("95% CI (Wilson)", "right"),
                          ("mean final total", "right"), ("95% CI (normal)", "right")):  # fmt: skip
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for e in result.entries:
        table.add_row(e.name, str(e.seat_games), f"{e.win_rate:.3f}", _ci(e.win_interval(), ".3f"),
                      f"{e.mean_score:.1f}", _ci(e.score_interval(), ".1f"))  # fmt: skip
    return table


def _signed(value: float, interval: list[float], scale: float) -> str:
    low, high = interval
    if value == low == high == 0:  # the reading changed no game
        return "0 ± 0"
    half = (high - low) / 2 * scale
    text = f"{value * scale:+.1f} ± {half:.1f}"
    return f"[bold]{text}[/bold]" if low > 0 or high < 0 else text


def _readings_tables(baseline: TournamentResult, readings: list[ReadingResult]) -> list[object]:
    """Two tables, the change of win rate and of mean score, a row per reading."""
    from rich.table import Table

    out: list[object] = []
    for key, unit, scale in (("win_rate", "win rate, points of %", 100), ("mean_score", "mean final total, points", 1)):
        table = Table(title=f"change of {unit}, against the baseline, for each disputed reading "
                      "(± the 95% normal interval of the paired differences, deal by deal; bold: it excludes 0)")  # fmt: skip
        table.add_column("option=reading")
        table.add_column("dispute")
        for e in baseline.entries:
            table.add_column(e.name, justify="right")
        for r in readings:
            cells = [f"{r.option}={r.reading}", r.dispute or ""]
            if r.result is None:
                table.add_row(*cells, f"not played: {r.error}", *[""] * (len(baseline.entries) - 1))
                continue
            cells += [_signed(d[key], d[f"{key}_ci95"], scale) for d in r.deltas(baseline)]
            table.add_row(*cells)
        out.append(table)
    return out


def _solo_progress(strategies: list[Strategy], game: Game, args: argparse.Namespace, client: object,
                   update: Callable[..., None], show: bool, what: str = "") -> None:  # fmt: skip
    """Give an ``optimal-solo`` strategy the workers, the cluster and a progress line for its solve; an
    edition whose policy is too large is refused first (OptionError), before any note."""
    for strategy in strategies:
        if isinstance(strategy, OptimalSoloStrategy):
            strategy.workers, strategy.cluster = args.workers, client
            strategy.progress = lambda n, total: update(0, label=f"solving the optimal-solo policy: {n:,}/{total:,} states")
            states = strategy.to_solve(game)
            if not show and not args.no_progress and states:
                print(f"flip7ref: {solving_note(game, states, what)}", file=sys.stderr)


def cmd_tournament(args: argparse.Namespace) -> int:
    """``flip7ref tournament``: strategies in every seat rotation, optionally across every disputed reading."""
    options = parse_options(args.option)
    game = Game(args.edition, args.players, options)
    if args.games is None:
        args.games = games_near(DEFAULT_GAMES, game.players)
    check_games(args.games, game.players)  # before optimal-solo's table is solved, not after
    limit = decision_timeout(args)
    with user_output_to_stderr():
        strategies = [parse_strategy(name) for name in lineup(args)]
    check_workers(args.workers)
    if args.plot:
        from flip7ref.play.plot import _pyplot

        check_output("--plot", args.plot)  # before the games, not after

        _pyplot()  # a missing matplotlib is said before the games, not after
    seed = parse_seed(args.seed)
    show = showing_progress(args)
    labels = ["baseline", *(f"{o}={r}" for o, r, _ in disputed_readings(game.edition, tuple(options)))]
    runs = len(labels) if args.all_readings else 1
    with user_output_to_stderr(), cluster_client(args) as client, progress_bar(show, "tournament", args.games * runs) as update:
        _solo_progress(strategies, game, args, client, update, show, " for every reading" if args.all_readings else "")
        strategies = time_limited(strategies, limit)
        readings: list[ReadingResult] = []
        if args.all_readings:
            def tick(label: str, n: int) -> None:
                update(labels.index(label) * args.games + n, label=f"tournament, {label}")

            baseline, readings = readings_sweep(game.edition, args.players, options, strategies, args.games, seed,
                                                workers=args.workers, cluster=client, progress=tick)  # fmt: skip
        else:
            baseline = run_tournament(game, strategies, args.games, seed, workers=args.workers, cluster=client,
                                      progress=lambda n: update(n, label="tournament"))  # fmt: skip
    if args.plot:
        from flip7ref.play.plot import plot_tournament

        plot_tournament(args.plot, baseline, readings)
    if args.json:
        data = baseline.as_dict()
        seconds = baseline.seconds + sum(r.result.seconds for r in readings if r.result is not None)
        data.update(seed=seed, strategies=[s.name for s in strategies], seconds=seconds)
        if args.all_readings:
            data["readings"] = [r.as_dict(baseline) for r in readings]
        print(json.dumps(data, sort_keys=True, allow_nan=False, default=str))
        return 0
    console = stdout_console(width=None if stdout_console().is_terminal else 140)
    console.print(_standings(baseline))
    if args.all_readings:
        for table in _readings_tables(baseline, readings):
            console.print(table)
    seconds = baseline.seconds + sum(r.result.seconds for r in readings if r.result is not None)
    console.print(f"seed {seed}; {seconds:.1f} s of play" + (f"; plot written to {args.plot}" if args.plot else ""))
    return 0




def _bench_table(results: list[BenchResult]) -> object:
    from rich.table import Table

    first = results[0]
    table = Table(title=f"{first.edition}, {first.players} players: each agent in one seat against one opponent in the "
                  f"others, every deal in each of the {first.players} seat rotations (fair share "
                  f"{first.fair_share:.3f}; 95% normal intervals over the deals)")  # fmt: skip
    table.add_column("agent")
    table.add_column("rating", justify="right")
    table.add_column("95% CI", justify="right")
    for m in first.matches:
        table.add_column(f"vs {m.opponent}", justify="right")
    for r in results:
        table.add_row(r.agent, f"{r.rating:.3f}", _ci(r.interval(), ".3f"), *(f"{m.win_rate:.3f}" for m in r.matches))
    return table


def cmd_bench_agents(args: argparse.Namespace) -> int:
    """``flip7ref bench-agents``: agents rated against the baseline panel on fixed seeds."""
    options = parse_options(args.option)
    game = Game(args.edition, args.players, options)
    if args.games is None:
        args.games = games_near(DEFAULT_GAMES, game.players)
    check_bench(game.players, args.games)  # before optimal-solo's table is solved, not after
    limit = decision_timeout(args)
    check_workers(args.workers)
    panel_names = [n.strip() for n in args.opponent] if args.opponent else list(PANELS.get(game.edition.id, PANELS["vengeance"]))
    if game.edition.id != "flip7" and not args.opponent:
        panel_names = [n for n in panel_names if n != "optimal-solo"]
    with user_output_to_stderr():
        panel = [parse_strategy(n) for n in panel_names]
        agents = [parse_strategy(n.strip()) for n in args.agent] if args.agent else panel
    seed = parse_seed(args.seed)
    show = showing_progress(args)
    results: list[BenchResult] = []
    total = args.games * len(panel) * len(agents)
    start = time.perf_counter()  # the play's own time leaves out optimal-solo's table, solved first
    with user_output_to_stderr(), cluster_client(args) as client, progress_bar(show, "bench-agents", total) as update:
        _solo_progress([*panel, *agents], game, args, client, update, show)
        panel = time_limited(panel, limit)
        agents = time_limited(agents, limit) if args.agent else panel
        for i, agent in enumerate(agents):
            done = i * args.games * len(panel)

            def tick(n: int, done: int = done) -> None:
                update(done + n, label="bench-agents")

            results.append(bench_agent(game, agent, panel, args.games, seed, workers=args.workers, cluster=client,
                                       progress=tick))  # fmt: skip
    if args.json:
        print(json.dumps({"seed": seed, "games_per_opponent": args.games, "panel": panel_names,
                          "agents": [r.as_dict() for r in results]}, sort_keys=True, default=str))  # fmt: skip
        return 0
    console = stdout_console(width=None if stdout_console().is_terminal else 140)
    console.print(_bench_table(results))
    play, wall = sum(r.seconds for r in results), time.perf_counter() - start
    console.print(f"seed {seed}; {args.games} games per opponent; {play:.1f} s of play, {wall:.1f} s in all")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``tournament`` and ``bench-agents`` to the ``flip7ref`` parser."""
    p = sub.add_parser(
        "tournament",
        help="strategies against each other in every seat rotation, with 95%% confidence intervals",
        description="Seat the strategies (repeated in order to fill the seats) and play every deal once in each "
        "seat rotation; print each strategy's win rate (95% Wilson score interval) and mean final total (95% "
        "normal interval). With --all-readings, play the same tournament again for every non-default reading of "
        "every option not set with --option ('flip7ref options' lists them) and print how much each changes the "
        "win rates and mean scores. The same arguments print the same numbers for any --workers or --cluster.",
    )
    add_common(p)
    p.add_argument("--strategy", action="append", metavar="STRATEGY",
                   help="a strategy of the lineup, repeated in order (one per flag): random, threshold:N, always-hit, "
                   "optimal-solo (Flip 7 only), module:Class or file.py:Class (default: "
                   f"{' '.join('--strategy ' + s for s in DEFAULT_LINEUP)})")  # fmt: skip
    p.add_argument("--strategies", metavar="A,B,...", help="deprecated: the lineup comma-separated; use --strategy, repeated")
    add_in_process(p)
    p.add_argument("--games", type=int, default=None,
                   help=f"games in all, a multiple of --players (default {DEFAULT_GAMES}, rounded down to a multiple of "
                   "--players)")  # fmt: skip
    p.add_argument("--seed", default="1", help="run seed, a whole number or a word (default %(default)s)")
    p.add_argument("--all-readings", action="store_true", help="also play every disputed reading and tabulate the changes")
    p.add_argument("--workers", type=int, default=1, help="processes to play in (default %(default)s)")
    add_cluster(p)
    add_decision_timeout(p)
    p.add_argument("--plot", metavar="FILE.png", help="draw the score distributions and win rates by reading "
                   f"(needs the [plot] extra: {extra_hint('plot')})")  # fmt: skip
    add_json(p, "the result as one JSON object")
    add_no_progress(p)
    p.set_defaults(func=cmd_tournament)
    b = sub.add_parser(
        "bench-agents",
        help="rate agents against the baseline panel on fixed seeds, every seat (docs/rl.md)",
        description="Rate each agent against a fixed panel of baseline strategies (default: random, threshold:15, "
        "threshold:20, threshold:25, threshold:30 and, for Flip 7, optimal-solo): the agent takes one seat, the "
        "opponent the others, and every deal is played in each seat rotation, the same deals for every opponent. "
        "Prints each agent's win rate against each opponent and its rating (the mean win share over the panel's "
        "deals, 95% normal interval; the fair share is 1/players). Without --agent, rates the panel itself. The "
        "same arguments print the same numbers.",
    )
    add_common(b, players=2)
    b.add_argument("--agent", action="append", metavar="STRATEGY",
                   help="an agent to rate (repeatable): a strategy name, module:Class or file.py:Class; default: "
                   "every strategy of the panel")  # fmt: skip
    b.add_argument("--opponent", action="append", metavar="STRATEGY",
                   help="an opponent of the panel (repeatable; default: the edition's baseline panel)")
    add_in_process(b)
    b.add_argument("--games", type=int, default=None,
                   help=f"games per opponent, a multiple of --players (default {DEFAULT_GAMES}, rounded down to a "
                   "multiple of --players)")  # fmt: skip
    b.add_argument("--seed", default="1", help="run seed, a whole number or a word (default %(default)s)")
    b.add_argument("--workers", type=int, default=1, help="processes to play in (default %(default)s)")
    add_cluster(b)
    add_decision_timeout(b)
    add_json(b, "the ratings as one JSON object")
    add_no_progress(b)
    b.set_defaults(func=cmd_bench_agents)
