"""The ``simulate``, ``trace``, ``score`` and ``options`` subcommands (playing and scoring)."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable

from flip7ref.cli._common import (
    add_cluster,
    add_common,
    add_decision_timeout,
    add_json,
    add_lang,
    add_no_progress,
    add_strategy,
    check_output,
    check_workers,
    cluster_client,
    decision_timeout,
    make_game,
    open_report,
    parse_seed,
    pick_strategies,
    progress_bar,
    showing_progress,
    time_limited,
    user_output_to_stderr,
    write_json_line,
)
from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.core.scoring import score_cards
from flip7ref.core.spec import load_edition
from flip7ref.core.text import describe
from flip7ref.play.games import game_seed, play, simulate
from flip7ref.play.strategies import OptimalSoloStrategy, Strategy, prepare_strategies
from flip7ref.proc.cluster import describe as cluster_size


def _solving_progress(strategies: list[Strategy], game: Game, update: Callable[..., None], show: bool) -> None:
    """Let optimal-solo report its policy's solve on the bar, or say on stderr that it runs; an edition
    whose policy is too large is refused first (OptionError), before any note."""
    for strategy in strategies:
        if isinstance(strategy, OptimalSoloStrategy):
            def report(n: int, total: int) -> None:
                update(n, total=total, label="solving the optimal-solo policy (Flip 7 only)")

            strategy.progress = report
            states = strategy.to_solve(game)
            if not show and states:
                print(f"flip7ref: {solving_note(game, states, ' first')}", file=sys.stderr)
            return


def solving_note(game: Game, states: int, what: str = "") -> str:
    """The note before optimal-solo's policy is solved for ``game``: ``states`` its size, ``what`` said
    after the edition's name (`` first``)."""
    return f"solving the optimal-solo policy of {game.edition.title}{what} (about {states:,} states, a minute or so of CPU)..."


def cmd_simulate(args: argparse.Namespace) -> int:
    game = make_game(args)
    if args.games < 1:
        raise OptionError("--games: expected a whole number of games, at least 1")
    check_workers(args.workers)
    limit = decision_timeout(args)
    with user_output_to_stderr():
        strategies = pick_strategies(args, game.players)
    seed = parse_seed(args.seed)
    show = showing_progress(args) and args.games >= 50
    if args.log:
        check_output("--log", args.log)
    log_file = open_report("--log", args.log) if args.log else None  # closed below
    try:
        def log(record: dict[str, object]) -> None:
            assert log_file is not None
            write_json_line(log_file, record)

        with user_output_to_stderr(), cluster_client(args) as client, progress_bar(show, "simulating", args.games) as update:
            for strategy in strategies:
                if isinstance(strategy, OptimalSoloStrategy):  # its policy is solved in as many processes
                    strategy.workers, strategy.cluster = args.workers, client
            where = f"{args.cluster} ({cluster_size(client)})" if client is not None else None
            _solving_progress(strategies, game, update, show or args.no_progress)
            prepare_strategies(strategies, game)
            summary = simulate(
                game, args.games, seed, time_limited(strategies, limit), workers=args.workers, cluster=client,
                progress=lambda n: update(n, total=args.games, label="simulating"),
                log=log if log_file is not None else None,
            )  # fmt: skip
    finally:
        if log_file is not None:
            log_file.close()
    data = summary.as_dict()
    changed = game.non_default_options()
    data.update(edition=game.edition.id, seed=seed, strategies=[s.name for s in strategies], options=changed)
    if args.json:
        print(json.dumps(data, sort_keys=True))
        return 0
    ci = data["ci95"]
    assert isinstance(ci, dict)

    def interval(key: str, fmt: str) -> str:
        low, high = ci[key]
        return f"  (95% CI {low:{fmt}} – {high:{fmt}})"

    players = f"{game.players} player{'s' if game.players != 1 else ''}"
    print(f"edition            {game.edition.id}; options: {', '.join(f'{k}={v}' for k, v in changed.items()) or 'defaults'}")
    print(f"strategies         {', '.join(s.name for s in strategies)}")
    print(f"games              {data['games']}  ({players}, seed {seed})")
    print(f"mean rounds/game   {data['mean_rounds']:.3f}{interval('mean_rounds', '.3f')}")
    print(f"mean round score   {data['mean_round_score']:.3f} points per player-round{interval('mean_round_score', '.3f')}")
    print(f"bust rate          {data['bust_rate']:.4f} of player-rounds{interval('bust_rate', '.4f')}")
    print(f"Flip 7 rate        {data['flip7_rate']:.4f} of rounds{interval('flip7_rate', '.4f')}")
    share = data["win_share"]
    assert isinstance(share, list)
    print("win share by seat  " + "  ".join(f"{i}: {w:.3f}" for i, w in enumerate(share)))
    print("  95% CI (Wilson)  " + "  ".join(f"{i}: {lo:.3f}–{hi:.3f}" for i, (lo, hi) in enumerate(ci["win_share"])))
    gps = data["games_per_second"]
    print(f"throughput         {gps:.1f} games/s" if isinstance(gps, float) else "throughput         n/a")
    if where is not None:
        print(f"Dask cluster       {where}")
    if args.log:
        print(f"game log           {args.log} (one JSON line per game)")
    return 0


def cmd_trace(args: argparse.Namespace) -> int:
    game = make_game(args)
    limit = decision_timeout(args)
    strategies = time_limited(pick_strategies(args, game.players), limit)
    seed = game_seed(parse_seed(args.seed), 0) if args.derive else parse_seed(args.seed)
    rng = random.Random(f"{seed}:strategy")
    prepare_strategies(strategies, game)
    final = play(game.new_initial_state(seed=seed, dealer=args.dealer), strategies, rng)
    if args.transcript:
        from flip7ref.checking.replay import transcript

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
    game = make_game(args, players=1)
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
    if args.json:
        print(json.dumps({"edition": edition.id, "options": [{
            "name": spec.name, "default": spec.default, "dispute": spec.dispute, "summary": spec.summary,
            "readings": [{"name": r.name, "summary": r.summary} for r in spec.readings],
            "integer": list(spec.integer) if spec.integer is not None else None, "rules": list(spec.rules),
        } for spec in edition.options.values()]}, sort_keys=True, default=str))  # fmt: skip
        return 0
    for spec in edition.options.values():
        print(f"{spec.name}  (default: {spec.default}{'; dispute ' + spec.dispute if spec.dispute else ''})")
        print(f"    {spec.summary}")
        for r in spec.readings:
            print(f"    - {r.name}: {r.summary}")
        if spec.integer is not None:
            print("    - or a whole number")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``simulate``, ``trace``, ``score`` and ``options`` to the ``flip7ref`` parser."""
    p = sub.add_parser(
        "simulate",
        help="play many seeded games and print a summary",
        description="Play many seeded games and print games, mean rounds per game, mean round score, bust rate, "
        "Flip 7 rate, win share by seat (each with its 95% confidence interval: Wilson for rates, normal for means) "
        "and throughput. Game i is dealt from the seed 'SEED:i' by seat i mod "
        "players, so the same arguments print the same numbers (throughput aside).",
    )
    add_common(p)
    p.add_argument("--games", type=int, default=1000, help="number of games (default %(default)s)")
    p.add_argument("--seed", default="1", help="run seed, a whole number or a word (default %(default)s)")
    add_strategy(p)
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    add_no_progress(p)
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes to play the games in (default %(default)s); the summary is the same for any number",
    )
    add_cluster(p)
    add_decision_timeout(p)
    p.add_argument("--log", metavar="FILE", help="write one JSON line per game to FILE (index, seed, dealer, "
                   "strategies, rounds, totals, winners), in game order")  # fmt: skip
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser(
        "trace",
        help="print one whole game as readable events",
        description="Play one seeded game and print every event: cards dealt, busts, stays, actions and their "
        "targets, round scores, totals and the winner. The game is dealt from SEED itself; --derive plays game 0 "
        "of a 'simulate' run with that seed instead.",
    )
    add_common(p, players=3)
    p.add_argument("--seed", default="1", help="game seed, a whole number or a word (default %(default)s)")
    p.add_argument("--dealer", type=int, default=0, help="seat dealing round 1 (default %(default)s)")
    add_strategy(p, workers=False)
    add_decision_timeout(p, workers=False)
    p.add_argument("--derive", action="store_true", help="play game 0 of a 'simulate' run with this seed")
    add_lang(p)
    add_json(p, "the events as JSON lines, one object per event")
    p.add_argument(
        "--transcript", action="store_true", help="print the game as a transcript (spec/schema/transcript.schema.json)"
    )
    p.set_defaults(func=cmd_trace)

    p = sub.add_parser(
        "score",
        help="score one line of cards, with its breakdown",
        description="Score the number and modifier cards in front of one player with the edition's scoring "
        "pipeline (numbers, x2 or ÷2, modifiers, Flip 7 bonus). A line that cannot exist is rejected.",
    )
    add_common(p, players=None)
    p.add_argument("cards", nargs="+", help="card ids or names, e.g. 3 11 5 x2 +10 (Vengeance: /2 -4 lucky13 ...)")
    p.add_argument("--json", action="store_true", help="print the breakdown as a JSON object (score, numbers, ...)")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser(
        "options",
        help="list an edition's options, their readings and defaults",
        description="List every option of an edition (a disputed rule or a parameter), its readings and its default.",
    )
    p.add_argument("--edition", default="flip7", help="edition id or .yaml table (default %(default)s)")
    add_json(p, "the options as one JSON object (edition, then each option with its readings)")
    p.set_defaults(func=cmd_options)
