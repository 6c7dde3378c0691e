"""The ``flip7ref`` command line.

Subcommands: ``simulate``, ``trace``, ``replay``, ``score``, ``options``,
``conformance``; ``docs``, ``rules``, ``coverage`` (:mod:`flip7ref.docs`);
``dispute``, ``explain`` (:mod:`flip7ref.explore`); ``odds``, ``solve``
(:mod:`flip7ref.analysis_cli`).  User mistakes
(unknown edition, option, card, strategy...) print one line on stderr and exit
with status 2; a failed check exits with 1; success exits with 0.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence

from . import __version__, compiled
from .conformance import CaseResult
from .errors import Flip7RefError, OptionError
from .game import Game
from .play import game_seed, play, simulate
from .scoring import score_cards
from .spec import edition_ids, load_edition
from .strategies import OptimalSoloStrategy, Strategy, parse_strategy
from .text import describe


def _options(pairs: Sequence[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs or ():
        name, sep, value = pair.partition("=")
        if not sep or not name or not value:
            raise OptionError(f"--option {pair!r}: expected NAME=VALUE, e.g. --option tie=shared-win")
        out[name.strip()] = value.strip()
    return out


def _game(args: argparse.Namespace, players: int | None = None) -> Game:
    return Game(args.edition, players if players is not None else args.players, _options(args.option))


def _seed(text: str) -> int | str:
    """Seeds are whole numbers or words; ``01`` and ``1`` are the same seed."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() else text


def _strategies(args: argparse.Namespace, players: int) -> list[Strategy]:
    names = args.strategy or ["threshold:20"]
    if len(names) not in (1, players):
        raise OptionError(
            f"--strategy: give one strategy for all seats, or exactly {players} (one per seat, seat 0 first); got {len(names)}"
        )
    return [parse_strategy(s) for s in names]


def _add_common(p: argparse.ArgumentParser, players: int | None = 4) -> None:
    p.add_argument(
        "--edition",
        default="flip7",
        help="edition id (known: " + ", ".join(edition_ids()) + "; default %(default)s) or the path of a .yaml table",
    )
    if players is not None:
        p.add_argument("--players", type=int, default=players, help="number of players (default %(default)s)")
    p.add_argument(
        "--option",
        "-o",
        action="append",
        metavar="NAME=VALUE",
        help="choose an option reading (repeatable); 'flip7ref options' lists them",
    )


def _add_strategy(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--strategy",
        action="append",
        help="random, threshold:N (stay once the line is worth N points), always-hit, or optimal-solo (the exact "
        "optimal policy of a player alone; solved at start in the --workers processes, about a minute for Flip 7 "
        "in one); give it once for all "
        "seats or once per seat, seat 0 first (default threshold:20)",
    )


def cmd_simulate(args: argparse.Namespace) -> int:
    game = _game(args)
    if args.games < 1:
        raise OptionError("--games: expected a whole number of games, at least 1")
    if args.workers < 1:
        raise OptionError("--workers: expected a whole number of processes, at least 1")
    strategies = _strategies(args, game.players)
    for strategy in strategies:
        if isinstance(strategy, OptimalSoloStrategy):  # its policy is solved in as many processes
            strategy.workers = args.workers
    seed = _seed(args.seed)
    show = sys.stderr.isatty() and not args.no_progress and args.games >= 50
    if show:
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            task = bar.add_task("simulating", total=args.games)
            summary = simulate(
                game, args.games, seed, strategies, progress=lambda n: bar.update(task, completed=n), workers=args.workers
            )
    else:
        summary = simulate(game, args.games, seed, strategies, workers=args.workers)
    data = summary.as_dict()
    changed = game.non_default_options()
    data.update(edition=game.edition.id, seed=seed, strategies=[s.name for s in strategies], options=changed)
    if args.json:
        print(json.dumps(data, sort_keys=True))
        return 0
    players = f"{game.players} player{'s' if game.players != 1 else ''}"
    print(f"edition            {game.edition.id}; options: {', '.join(f'{k}={v}' for k, v in changed.items()) or 'defaults'}")
    print(f"strategies         {', '.join(s.name for s in strategies)}")
    print(f"games              {data['games']}  ({players}, seed {seed})")
    print(f"mean rounds/game   {data['mean_rounds']:.3f}")
    print(f"mean round score   {data['mean_round_score']:.3f} points per player-round")
    print(f"bust rate          {data['bust_rate']:.4f} of player-rounds")
    print(f"Flip 7 rate        {data['flip7_rate']:.4f} of rounds")
    share = data["win_share"]
    assert isinstance(share, list)
    print("win share by seat  " + "  ".join(f"{i}: {w:.3f}" for i, w in enumerate(share)))
    gps = data["games_per_second"]
    print(f"throughput         {gps:.1f} games/s" if isinstance(gps, float) else "throughput         n/a")
    return 0


def cmd_trace(args: argparse.Namespace) -> int:
    game = _game(args)
    strategies = _strategies(args, game.players)
    seed = game_seed(_seed(args.seed), 0) if args.derive else _seed(args.seed)
    rng = random.Random(f"{seed}:strategy")
    final = play(game.new_initial_state(seed=seed, dealer=args.dealer), strategies, rng)
    if args.transcript:
        from .replay import transcript

        print(json.dumps(transcript(final), indent=1))
        return 0
    for event in final.events():
        if args.json:
            print(json.dumps(event.to_dict(), sort_keys=True))
        else:
            print(describe(event, game, args.lang))
    return 0


_SCORE_LINES = ("sum_numbers", "multiply", "add_modifiers", "flip7_bonus")  # steps `score` prints its own way


def cmd_score(args: argparse.Namespace) -> int:
    game = _game(args, players=1)
    b = score_cards(game, args.cards)
    if args.json:
        print(json.dumps({
            "score": b.score, "numbers": b.numbers, "multiplied": b.multiplied, "modifiers": b.modifiers,
            "flip7": b.flip7, "bonus": b.bonus, "steps": [list(s) for s in b.steps],
        }, sort_keys=True))  # fmt: skip
        return 0
    print(f"line        {' '.join(args.cards)}")
    print(f"numbers     {b.numbers}")
    if b.multiplied != b.numbers:
        print(f"{'x2' if b.multiplied > b.numbers else '÷2'}          {b.multiplied}")
    print(f"modifiers   {b.modifiers:+d}")
    before = None
    for name, value in b.steps:  # other steps of the pipeline that change the score (floor, The Zero...)
        if name not in _SCORE_LINES and before is not None and value != before:
            rules = game.edition.event_rules.get(f"round_scored/{name}", ())
            print(f"{name:<11} {value}" + (f"  [{', '.join(rules)}]" if rules else ""))
        before = value
    print(f"Flip 7      {'yes, +' + str(b.bonus) if b.flip7 else 'no'}")
    print(f"score       {b.score}")
    return 0


def cmd_options(args: argparse.Namespace) -> int:
    edition = load_edition(args.edition)
    for spec in edition.options.values():
        print(f"{spec.name}  (default: {spec.default}{'; dispute ' + spec.dispute if spec.dispute else ''})")
        print(f"    {spec.summary}")
        for r in spec.readings:
            print(f"    - {r.name}: {r.summary}")
        if spec.integer is not None:
            print("    - or a whole number")
    return 0


def cmd_conformance_run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from .conformance import load_cases, select
    from .harness import EngineError, run_engine, run_in_process

    cases = select(load_cases(args.cases or None), editions=args.edition, ids=args.case, rules=args.rule)
    if not cases:
        raise OptionError("no case matches the given --edition/--case/--rule filters")
    report = open(args.report, "w", encoding="utf-8") if args.report else None  # noqa: SIM115 - closed below
    try:
        header: dict[str, object] = {"report": 1, "engine": args.engine or "flip7ref (in-process)", "cases": len(cases)}

        def write(result: CaseResult) -> None:
            if report is not None:
                report.write(json.dumps(result.to_dict(), sort_keys=True) + "\n")
                report.flush()

        def start(impl: dict[str, object] | None) -> None:
            if report is not None:
                report.write(json.dumps({**header, "implementation": impl}, sort_keys=True) + "\n")
                report.flush()

        if args.engine:
            try:
                _, results = run_engine(args.engine, cases, timeout=args.timeout, on_start=start, on_result=write)
            except EngineError as exc:
                raise OptionError(f"--engine {args.engine!r}: {exc}") from None
        else:
            start(None)
            results = run_in_process(cases, on_result=write)
    finally:
        if report is not None:
            report.close()
    console = Console(highlight=False, soft_wrap=True)
    groups: dict[tuple[str, str], dict[str, int]] = {}
    for r in results:
        for rule in r.rules:
            counts = groups.setdefault((r.edition, rule), {"pass": 0, "fail": 0, "skip": 0, "error": 0})
            counts[r.status] += 1
    table = Table(title=f"conformance: {args.engine or 'flip7ref (in-process)'}")
    for col in ("edition", "rule", "pass", "fail", "skip", "error"):
        table.add_column(col, justify="right" if col in ("pass", "fail", "skip", "error") else "left")
    for (edition, rule), counts in sorted(groups.items()):
        if args.failures_only and not (counts["fail"] or counts["error"]):
            continue
        table.add_row(edition, rule, *(str(counts[k]) for k in ("pass", "fail", "skip", "error")))
    console.print(table)
    bad = [r for r in results if r.status in ("fail", "error")]
    by_id = {c["id"]: c for c in cases}
    for r in bad:
        case = by_id[r.case_id]
        title = f"{r.case_id} {case['title']}  (rules {', '.join(r.rules)}; source {r.source})"
        console.print(f"[bold]{r.status.upper()}[/bold] {title}")
        for line in r.diffs or (r.message,):
            console.print(f"    {line}", markup=False)
    totals = {k: sum(1 for r in results if r.status == k) for k in ("pass", "fail", "skip", "error")}
    summary = f"{totals['pass']} passed, {totals['fail']} failed, {totals['skip']} skipped, {totals['error']} errored"
    console.print(f"{len(results)} case{'s' if len(results) != 1 else ''}: {summary}")
    return 1 if bad else 0


def cmd_replay(args: argparse.Namespace) -> int:
    from .replay import load_transcript, replay

    result = replay(load_transcript(args.file))
    if args.json:
        print(json.dumps({
            "agrees": result.agrees, "steps": result.steps, "divergence": result.divergence, "message": result.message,
            "rules": list(result.rules), "totals": list(result.totals), "winners": list(result.winners),
        }, sort_keys=True))  # fmt: skip
    elif result.agrees:
        won = f"; winners {', '.join(f'seat {w}' for w in result.winners)}" if result.winners else " (game not finished)"
        print(f"agrees: {result.steps} steps replayed; totals {', '.join(map(str, result.totals))}{won}")
    else:
        i = result.divergence
        where = f"step {i + 1} (steps[{i}] of the transcript)" if i is not None else "the end"
        print(f"diverges at {where}: {result.message}")
        if result.rules:
            print(f"rules involved: {', '.join(result.rules)}")
        print(f"replayed {result.steps} steps; reference totals then {', '.join(map(str, result.totals))}")
    return 0 if result.agrees else 1


def cmd_conformance_serve(args: argparse.Namespace) -> int:
    from .harness import serve

    return serve()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``flip7ref`` command."""
    parser = argparse.ArgumentParser(
        prog="flip7ref",
        description="Rules reference and interpreter for Flip 7 and Flip 7: With a Vengeance.",
    )
    build = "compiled with mypyc" if compiled else "pure Python"
    parser.add_argument("--version", action="version", version=f"flip7ref {__version__} ({build})")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "simulate",
        help="play many seeded games and print a summary",
        description="Play many seeded games and print games, mean rounds per game, mean round score, bust rate, "
        "Flip 7 rate, win share by seat and throughput. Game i is dealt from the seed 'SEED:i' by seat i mod "
        "players, so the same arguments print the same numbers (throughput aside).",
    )
    _add_common(p)
    p.add_argument("--games", type=int, default=1000, help="number of games (default %(default)s)")
    p.add_argument("--seed", default="1", help="run seed, a whole number or a word (default %(default)s)")
    _add_strategy(p)
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--no-progress", action="store_true", help="never show a progress bar (it shows only on a terminal)")
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes to play the games in (default %(default)s); the summary is the same for any number",
    )
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser(
        "trace",
        help="print one whole game as readable events",
        description="Play one seeded game and print every event: cards dealt, busts, stays, actions and their "
        "targets, round scores, totals and the winner. The game is dealt from SEED itself; --derive plays game 0 "
        "of a 'simulate' run with that seed instead.",
    )
    _add_common(p, players=3)
    p.add_argument("--seed", default="1", help="game seed, a whole number or a word (default %(default)s)")
    p.add_argument("--dealer", type=int, default=0, help="seat dealing round 1 (default %(default)s)")
    _add_strategy(p)
    p.add_argument("--derive", action="store_true", help="play game 0 of a 'simulate' run with this seed")
    p.add_argument(
        "--lang", default="en", choices=["en", "nl", "de", "fr", "no"], help="language of card names (default %(default)s)"
    )
    p.add_argument("--json", action="store_true", help="print the events as JSON lines")
    p.add_argument(
        "--transcript", action="store_true", help="print the game as a transcript (spec/schema/transcript.schema.json)"
    )
    p.set_defaults(func=cmd_trace)

    p = sub.add_parser(
        "replay",
        help="replay a game transcript and report agreement or the first divergence",
        description="Replay a transcript exported by an engine (spec/schema/transcript.schema.json) in the reference. "
        "Prints agreement with the final scores (exit 0), or the first step where the reference disagrees, what it "
        "expected there and the rule ids involved (exit 1).",
    )
    p.add_argument("file", help="the transcript, a JSON file")
    p.add_argument("--json", action="store_true", help="print the verdict as a JSON object")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser(
        "score",
        help="score one line of cards, with its breakdown",
        description="Score the number and modifier cards in front of one player with the edition's scoring "
        "pipeline (numbers, x2 or ÷2, modifiers, Flip 7 bonus). A line that cannot exist is rejected.",
    )
    _add_common(p, players=None)
    p.add_argument("cards", nargs="+", help="card ids or names, e.g. 3 11 5 x2 +10 (Vengeance: /2 -4 lucky13 ...)")
    p.add_argument("--json", action="store_true", help="print the breakdown as a JSON object (score, numbers, ...)")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser(
        "options",
        help="list an edition's options, their readings and defaults",
        description="List every option of an edition (a disputed rule or a parameter), its readings and its default.",
    )
    p.add_argument("--edition", default="flip7", help="edition id or .yaml table (default %(default)s)")
    p.set_defaults(func=cmd_options)

    conf = sub.add_parser(
        "conformance",
        help="run the conformance suite, or serve the engine protocol",
        description="Run the conformance suite against the reference or a foreign engine, or make the reference "
        "speak the engine protocol (conformance/PROTOCOL.md).",
    )
    conf_sub = conf.add_subparsers(dest="conformance_command", required=True, metavar="SUBCOMMAND")
    p = conf_sub.add_parser(
        "run",
        help="run the suite (in-process, or against --engine)",
        description="Run conformance cases and print a pass/fail table by edition and rule, then the first "
        "difference of each failure. Exit status 1 when a case failed or errored.",
    )
    p.add_argument("--engine", metavar="COMMAND", help="command starting an engine that speaks the protocol")
    p.add_argument("--edition", action="append", help="only cases of this edition (repeatable)")
    p.add_argument("--case", action="append", metavar="ID", help="only this case id (repeatable)")
    p.add_argument("--rule", action="append", metavar="ID", help="only cases checking this rule id (repeatable)")
    p.add_argument("--cases", action="append", metavar="PATH", help="case files or folders (default: the shipped suite)")
    p.add_argument("--report", metavar="FILE", help="also write a JSON-lines report (a header, then one line per case)")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds an engine may take per case (default %(default)s)")
    p.add_argument("--failures-only", action="store_true", help="list only rules with failures in the table")
    p.set_defaults(func=cmd_conformance_run)
    p = conf_sub.add_parser(
        "serve",
        help="speak the engine protocol on stdin/stdout as the reference",
        description="Read protocol requests on stdin and answer on stdout, as the reference engine.",
    )
    p.set_defaults(func=cmd_conformance_serve)

    from . import analysis_cli, docs, explore

    docs.register(sub)
    explore.register(sub)
    analysis_cli.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 user error, 130
    interrupted with Ctrl-C)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except Flip7RefError as exc:
        print(f"flip7ref: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("flip7ref: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return 0
    except OSError as exc:  # pragma: no cover - e.g. writing to a full disk
        print(f"flip7ref: error: {exc.strerror or exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
