"""The ``odds`` and ``solve`` subcommands (exact analysis, see `flip7ref.analysis`)."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from flip7ref.analysis import (
    TIES,
    AnalysisError,
    LargeSolveWarning,
    Policy,
    SoloResult,
    SoloSolver,
    line_position,
    next_card,
    position_estimate,
    restrict_categories,
    solo_deck_position,
    solo_estimate,
    usable_cores,
)
from flip7ref.cli._common import add_cluster, add_no_progress, check_output, check_workers, cluster_client, showing_progress
from flip7ref.cli._common import add_common as _add_common
from flip7ref.cli.policy_file import ODDS_POLICY_FILE_HELP, odds_from_policy, policy_bytes
from flip7ref.cli.solo_args import cards as _cards
from flip7ref.cli.solo_args import cards_words as _cards_words
from flip7ref.cli.solo_args import categories as _categories
from flip7ref.cli.solo_args import solo_game as _game
from flip7ref.core.errors import CardError, LimitReached, OptionError
from flip7ref.core.game import Game
from flip7ref.core.state import State
from flip7ref.play.strategies import parse_strategy


@contextlib.contextmanager
def _working(what: str, show: bool | None = None) -> Iterator[Callable[[int], None]]:
    """A spinner on stderr while a long solve runs, if ``show`` (None: if stderr is a
    terminal); yields ``tick(states solved)``, which shows the count next to ``what``."""
    if not (sys.stderr.isatty() if show is None else show):
        yield lambda n: None
        return
    from rich.console import Console

    with Console(stderr=True).status(what) as status:
        yield lambda n: status.update(f"{what} {n:,} states")


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:,.0f} {unit}"
    return f"{seconds:.0f} s"


def _estimate(game: Game, categories: list[str], args: argparse.Namespace, workers: int) -> None:
    """Before an optimal solve: refuse at once one that cannot fit --max-states,
    and say on stderr how long one that takes more than half a minute will take."""
    _limits(args)
    states, rough, cpu = solo_estimate(game, categories)
    if not rough and states - 1 > args.max_states:
        raise LimitReached(
            f"--cards {_cards_words(categories)} needs about {states:,} states, more than --max-states "
            f"{args.max_states:,}: raise --max-states (about {_duration(cpu)} of CPU here) or restrict --cards"
        )
    _refuse_long(cpu, categories, args)
    if cpu > 30:
        limit = f"; --max-seconds {args.max_seconds:g} stops it then" if args.max_seconds else "; --max-seconds S stops it sooner"
        rough_note = " (with action cards only an order of magnitude: the whole Flip 7 deck has about 1.2e9)" if rough else ""
        shared = f", {_duration(cpu / workers)} in {workers}" if workers > 1 else ""
        print(f"flip7ref: estimate: about {states:,} states{rough_note}, about {_duration(cpu)} of CPU in one process "
              f"here{shared}{limit}", file=sys.stderr)  # fmt: skip


def _refuse_long(cpu: float, categories: list[str], args: argparse.Namespace, timed: bool = True) -> None:
    """Refuse a solve estimated at ``cpu`` seconds, more than ``--max-hours`` of CPU in one
    process, unless ``--max-seconds`` bounds it within that time (``timed``: the solver
    takes ``--max-seconds``; the compact one does not, and its refusal does not name it).

    Raises:
        OptionError: ``--max-hours`` not a positive number.
        LimitReached: the estimate passes ``--max-hours`` (exit status 3), one line naming the
            estimate and the flags that let it run.
    """
    hours = getattr(args, "max_hours", None)
    if hours is None:  # `odds`: no such flag
        return
    if not hours > 0:
        raise OptionError("--max-hours: expected a positive number of hours (inf: no limit)")
    if cpu <= hours * 3600 or (args.max_seconds and args.max_seconds <= hours * 3600):
        return
    raise LimitReached(
        f"--cards {_cards_words(categories)}: estimated at about {_duration(cpu)} of CPU, more than --max-hours "
        f"{hours:g}: pass --max-hours {math.ceil(cpu / 3600)} to run it anyway"
        + (" (or --max-seconds S to run it S seconds at most)" if timed else "")
        + ", or restrict --cards"
    )


def solve_spinner_text(categories: list[str]) -> str:
    """The spinner of ``solve`` for a deck of ``categories`` (``["number"]``, ...): the time
    it names is that deck's (numbers alone take about a second, with the modifiers about a
    minute of CPU); other decks name none."""
    when = {("number",): "about a second", ("modifier", "number"): "about 25 s of CPU"}.get(tuple(sorted(categories)))
    return f"solving {_cards_words(categories)} exactly" + (f" ({when})" if when else "") + "..."


def _num(p: Fraction | float) -> float | str:
    return str(p) if isinstance(p, Fraction) else p


def _show(p: Fraction | float) -> str:
    return f"{float(p):.10f}" + (f"  ({p})" if isinstance(p, Fraction) else "")


def _workers(args: argparse.Namespace) -> int:
    return usable_cores() if args.workers is None else check_workers(int(args.workers))


def _solver(
    args: argparse.Namespace, policy: Policy | None = None, *, cluster: Any = None, tick: Callable[[int], None] | None = None
) -> SoloSolver:
    """The solver ``--exact``, ``--max-states``, ``--max-seconds`` and ``--workers``
    (or ``--cluster``) and ``--ties`` ask for (no ``--workers`` value: every usable core)."""
    _limits(args)
    return SoloSolver(policy, exact=args.exact, max_states=args.max_states, workers=_workers(args),
                      max_seconds=args.max_seconds, progress=tick, cluster=cluster, ties=args.ties)  # fmt: skip


def _limits(args: argparse.Namespace) -> None:
    if args.max_states < 1:
        raise OptionError("--max-states: expected a whole number of states, at least 1")
    if args.max_seconds is not None and not args.max_seconds > 0:
        raise OptionError("--max-seconds: expected a positive number of seconds")


def _odds_estimate(state: State, args: argparse.Namespace) -> None:
    """Before the exact solve of ``odds``: say on stderr, in the command's words, how large a solve
    whose size is only roughly known (action cards, or a card that wipes the line, still unseen)
    may be, when that passes half a minute of CPU (as `solve` does)."""
    states, rough, cpu = position_estimate(state)
    if rough and cpu > 30:
        limit = f"; --max-seconds {args.max_seconds:g} stops it then" if args.max_seconds else "; --max-seconds S stops it sooner"
        print(f"flip7ref: estimate: about {states:,} states (only a rough estimate), about {_duration(cpu)} of CPU in "
              f"one process here{limit}", file=sys.stderr)  # fmt: skip


def cmd_odds(args: argparse.Namespace) -> int:
    """``flip7ref odds``: next-card odds and hit-vs-stay values for a line.

    Raises:
        OptionError: both ``--policy-file`` and its deprecated spelling ``--policy``, or
            ``--turn-model`` without a policy file (and the errors of the solve or the file).
    """
    old = getattr(args, "policy_deprecated", None)
    if old is not None:
        if args.policy_file is not None:
            raise OptionError("--policy: give the policy file with --policy-file FILE only (--policy is its old name)")
        print("flip7ref: note: odds --policy FILE is deprecated (solve --policy names a strategy): "
              f"use --policy-file {old}", file=sys.stderr)  # fmt: skip
        args.policy_file = old
    if getattr(args, "policy_file", None):
        return odds_from_policy(args)
    if getattr(args, "turn_model", None):
        raise OptionError("--turn-model: odds takes it with --policy-file FILE only (the turn model the file must hold)")
    args.cards = args.cards or "numbers,modifiers"
    game = _game(args)
    line, seen = _cards(args.line, "--line"), _cards(args.seen, "--seen")
    for flag, names in (("--line", line), ("--seen", seen)):
        for name in names:
            try:
                game.code(name)
            except CardError as exc:
                raise CardError(f"{flag}: {exc}") from None
    try:
        state = line_position(game, line, seen)
    except (CardError, OptionError) as exc:  # the position's own words for its fields, in the flags' words
        message = str(exc).replace("lines[0]: ", "--line: ", 1).replace("discard: ", "--line and --seen together: ", 1)
        kind = CardError if isinstance(exc, CardError) else OptionError  # (a PositionError is a CardError)
        raise kind(message if message != str(exc) else f"--line/--seen: {exc}") from None
    if state.pending()[0] != "offer":
        raise OptionError("--line: the player holding that line is not offered Hit or Stay (is the round over?)")
    odds = next_card(state)
    categories = _categories(args.cards)
    ids = game.card_ids
    player = state.players[0]
    restricted = restrict_categories(state, categories)  # the analysis's public projection (its caveat: another deck)
    fast = _compact_odds(restricted, args)
    if fast is not None:
        values, best, solved, used = fast
    else:
        _odds_estimate(restricted, args)
        with _working("solving hit and stay exactly (a short line can take minutes)...") as tick, warnings.catch_warnings():
            warnings.simplefilter("ignore", LargeSolveWarning)  # the library's; said above in the command's words
            solver = _solver(args, tick=tick)
            values = solver.action_values(restricted)
            best = str(solver.best_action(restricted))
        solved, used = solver.states, solver.workers_used
    tie = len({values[a] for a in values}) < len(values)
    line_ids = [ids[c] for c in player.line]
    held = [ids[c] for c in player.kept]
    if args.json:
        data = {
            "edition": game.edition.id,
            "options": game.non_default_options(),
            "line": line_ids,
            "held": held,
            "line_value": state.line_value(0),
            "unseen": odds.unseen,
            "bust": float(odds.bust),
            "saved": float(odds.saved),
            "flip7": float(odds.flip7),
            "kinds": [[card, float(p)] for card, p in odds.kinds],
            "exact": {
                "bust": str(odds.bust),
                "saved": str(odds.saved),
                "flip7": str(odds.flip7),
                "kinds": [[card, str(p)] for card, p in odds.kinds],
            },
            "values": {k: _num(v) for k, v in values.items()},
            "best": best,
            "tie": tie,
            "cards": _cards_words(categories),
            "states": solved,
            "workers": used,
        }
        print(json.dumps(data, sort_keys=True))
        return 0
    print(f"line               {' '.join(line_ids) or '(empty)'}  worth {state.line_value(0)} points"
          + (f"; holding {' '.join(held)}" if held else ""))  # fmt: skip
    print(f"unseen cards       {odds.unseen}")
    print(f"P(bust)            {_show(odds.bust)}")
    if odds.saved:
        print(f"P(saved by Second Chance) {_show(odds.saved)}")
    print(f"P(Flip 7)          {_show(odds.flip7)}")
    print("next card          " + "  ".join(f"{card}: {float(p):.4f}" for card, p in odds.kinds))
    kinds = _cards_words(categories).split(",")
    unseen = " and ".join([", ".join(kinds[:-1]), kinds[-1]] if len(kinds) > 1 else kinds)
    print(f"expected round score alone, optimal solo play afterwards (unseen {unseen} only):")
    for action, value in values.items():
        mark = ("   <- best" + (f" (a tie: --ties {args.ties})" if tie else "")) if action == best else ""
        exact = f"  ({value})" if isinstance(value, Fraction) else ""
        print(f"  {action:<6}           {float(value):.6f}{exact}{mark}")
    print(f"states solved      {solved}" + (f" ({used} processes)" if used > 1 else ""))
    return 0


def _compact_usable(why: str, choice: str, flag: str = "--solver compact") -> bool:
    """Whether the compact solver takes this solve: ``why`` is why it cannot (empty: it can,
    if NumPy is there); with ``--solver compact`` a reason is an error, with ``auto`` a fallback.
    ``flag`` names the flag that asked for the compact solver, in the error.

    Raises:
        OptionError: ``choice`` is ``"compact"`` and there is a reason.
    """
    from flip7ref.analysis import compact_model

    if not why:
        try:
            compact_model._numpy()
        except AnalysisError as exc:
            why = str(exc) + (", or use --solver interpreter" if flag == "--solver compact" else "")
    if why and choice == "compact":
        raise OptionError(f"{flag}: {why}")
    return not why


def _compact_odds(state: State, args: argparse.Namespace) -> tuple[dict[str, Any], str, int, int] | None:
    """Hit and stay values by the compact solver where ``--solver`` allows it and it covers
    the position (None: the interpreter solves them)."""
    choice = getattr(args, "solver", "interpreter")
    if choice == "interpreter" or args.exact or args.max_seconds or (choice == "auto" and args.workers is not None):
        return None
    from flip7ref.analysis import compact

    why = compact.CompactSolver.supports(state) or ("" if state.current_player == 0 else "not an offer")
    if not _compact_usable(why, choice):
        return None
    _limits(args)
    solver = compact.CompactSolver(ties=args.ties, max_states=args.max_states)
    values: dict[str, Any] = dict(solver.action_values(state))
    return values, str(solver.best_action()), solver.states, 1


def _compact_solve(state: State, categories: list[str], policy: Policy | None, args: argparse.Namespace) -> SoloResult | None:
    """The compact-key solve ``--solver`` asks for (None: solve with the interpreter), with its
    estimate first (refused beyond --max-states or --max-memory) and ``--check`` after."""
    choice = getattr(args, "solver", "interpreter")
    turn = getattr(args, "turn_model", "rules")
    if turn == "published" and choice == "interpreter":
        raise OptionError("--turn-model published: only the compact solver plays the published turn (--solver compact)")
    if choice == "interpreter" or (choice == "auto" and args.workers is not None and turn == "rules"):
        return None  # --workers: the parallel solve
    from flip7ref.analysis import compact

    why = compact.CompactSolver.supports(state, turn)
    if not why and (policy is not None or args.exact or getattr(args, "cluster", None) or args.max_seconds):
        why = (
            "it solves the optimal policy in floats, in this process, untimed (no --policy, --exact, --cluster or --max-seconds)"
        )
    policy_out = getattr(args, "policy_out", None)
    if policy_out:  # only the compact solver stores a policy
        _compact_usable(why, "compact", "--policy-out")
    elif not _compact_usable(why, "compact" if turn == "published" else choice):  # no other solver plays that turn
        return None
    _limits(args)
    if not args.max_memory > 0:
        raise OptionError("--max-memory: expected a positive number of GB")
    probabilities = True
    if turn == "published":
        from flip7ref.analysis import published

        states, need = published.published_estimate(state)
        if policy_out:  # the stored values: 25 bytes a base and free mode, twice while sorted
            need += policy_bytes(state, turn, states)
        elif need > args.max_memory * 1e9:  # the value alone, P(bust) and P(Flip 7) left out
            probabilities = False
            states, need = published.published_estimate(state, False)
        cpu = states * published.US_PER_STATE / 1e6
    else:
        states, need = compact.compact_estimate(state)
        cpu = states * compact.US_PER_STATE / 1e6
        if policy_out:
            need += policy_bytes(state, turn, states)
    gb = need / 1e9
    limits = [
        (states - 1 > args.max_states, f"about {states:,} states, more than --max-states {args.max_states:,}"),
        (gb > args.max_memory, f"about {gb:.1f} GB, more than --max-memory {args.max_memory:g}"),
    ]
    for over, what in limits:
        if over:
            raise LimitReached(f"--cards {_cards_words(categories)} needs {what}: raise the limit or restrict --cards")
    _refuse_long(cpu, categories, args, timed=False)
    if cpu > 30:
        print(f"flip7ref: estimate: {states:,} states, about {_duration(cpu)} of CPU and {need / 1e9:.1f} GB",
              file=sys.stderr)  # fmt: skip
    if not probabilities:
        print("flip7ref: P(bust) and P(Flip 7) would pass --max-memory: solving the value only", file=sys.stderr)
    solver = compact.CompactSolver(ties=args.ties, max_states=args.max_states, max_bytes=args.max_memory * 1e9,
                                   turn_model=turn, probabilities=probabilities,
                                   keep_values=bool(policy_out))  # fmt: skip
    result = solver.solve(state)
    if policy_out:
        from flip7ref.analysis import write_policy
        from flip7ref.core.game import game_of

        args.policy_bytes = write_policy(policy_out, game_of(state), categories, turn, args.ties, solver.value_layers, result)
        solver.value_layers = []
    if args.check:
        want = _solver(args, None).solve(state)
        if not all(abs(float(a) - float(b)) <= 1e-12 for a, b in
                   ((result.value, want.value), (result.bust, want.bust), (result.flip7, want.flip7))):  # fmt: skip
            print(f"flip7ref: --check: the compact solver gives {result.value!r}, the interpreter {want.value!r}",
                  file=sys.stderr)  # fmt: skip
            raise SystemExit(1)
        print(f"flip7ref: check: the interpreter agrees ({want.states:,} states, {want.seconds:.1f} s)", file=sys.stderr)
    return result


def cmd_solve(args: argparse.Namespace) -> int:
    """``flip7ref solve``: the optimal (or a given policy's) expected solo round score."""
    game = _game(args)
    categories = _categories(args.cards, game)
    state = solo_deck_position(game, categories)
    policy = None
    if args.policy:
        if args.policy.strip().startswith("optimal"):
            raise OptionError("--policy: the optimal policy is what solve computes without --policy")
        policy = parse_strategy(args.policy)
    cpu_start = time.process_time()
    policy_out = getattr(args, "policy_out", None)
    if policy_out:
        check_output("--policy-out", args.policy_out)
    fast = _compact_solve(state, categories, policy, args)
    if fast is not None:
        result = fast
    else:
        if policy_out:
            raise OptionError("--policy-out: only the compact solver stores a policy (--solver compact; no --policy, "
                              "--exact, --cluster or --max-seconds)")  # fmt: skip
        if policy is None:
            _estimate(game, categories, args, _workers(args))
        spinner = _working(solve_spinner_text(categories), showing_progress(args))
        with cluster_client(args) as client, spinner as tick, warnings.catch_warnings():
            warnings.simplefilter("ignore", LargeSolveWarning)  # the library's; the CLI says it in its own words above
            result = _solver(args, policy, cluster=client, tick=tick).solve(state)
    cpu_seconds = time.process_time() - cpu_start  # this process only: a parallel solve's workers are not counted
    cards = _cards_words(categories)
    if args.json:
        data = result.as_dict()  # its "seconds" is the solve's wall time
        data["cpu_seconds"] = cpu_seconds
        for name in ("bust", "flip7"):
            if data.get(name) != data.get(name):  # NaN: not solved (the value only)
                data[name] = None
        data.update(edition=game.edition.id, options=game.non_default_options(), cards=cards, deck=len(state.draw))
        if policy_out:
            data.update(policy_out=args.policy_out, policy_bytes=args.policy_bytes)
        print(json.dumps(data, sort_keys=True))
        return 0
    print(f"edition            {game.edition.id}; cards: {cards} ({len(state.draw)} cards); one player, one round")
    print(f"policy             {result.policy}")
    print(f"expected score     {float(result.value):.10f} points")
    if isinstance(result.value, Fraction):
        print(f"  exactly          {result.value}")
    for label, p in (("P(bust)     ", result.bust), ("P(Flip 7)   ", result.flip7)):
        print(f"{label}       " + ("not solved (the value only: --max-memory)" if p != p else f"{float(p):.10f}"))
    print(f"states solved      {result.states}")
    workers = f"; {result.workers} processes, CPU of this one" if result.workers > 1 else ""
    print(f"time               {result.seconds:.2f} s wall, {cpu_seconds:.2f} s CPU{workers}")
    if policy_out:
        query = f"flip7ref odds --policy-file {args.policy_out}"
        print(f"policy written     {args.policy_out} ({args.policy_bytes:,} bytes; {query})")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``odds`` and ``solve`` subcommands to the ``flip7ref`` parser."""

    def common(p: argparse.ArgumentParser) -> None:
        _add_common(p, players=None)
        p.add_argument("--exact", action="store_true", help="compute with exact fractions (slower)")
        p.add_argument("--json", action="store_true", help="print one JSON object")
        p.add_argument(
            "--max-states",
            type=int,
            default=1_000_000,
            help="give up beyond this many solved states, exit status 3 (default %(default)s; about 25 s of CPU per "
            "262,000, no action cards)",
        )
        p.add_argument(
            "--max-seconds",
            type=float,
            metavar="S",
            help="give up once the solve has run S seconds, exit status 3 (checked every 256 states; default: no limit)",
        )
        p.add_argument(
            "--ties",
            choices=TIES,
            default="hit",
            help="the action of the optimal policy where hit and stay are worth the same (default %(default)s; "
            "the value is the same either way, P(bust) and P(Flip 7) are not: the published solitaire figures "
            "are those of stay)",
        )

    p = sub.add_parser(
        "odds",
        help="exact odds of the next card and the value of hitting vs staying for a line",
        description="One player holds LINE; the cards of --seen are gone (discarded); every other card of the deck "
        "is unseen and equally likely to come next. Prints the exact probability that the next card busts the "
        "player or completes their Flip 7, the distribution of the next card, and the expected round score of "
        "hitting and of staying now when the player then plays the optimal solo policy (computed exactly over "
        "the unseen cards of the --cards categories).",
        epilog=ODDS_POLICY_FILE_HELP,
    )
    p.add_argument(
        "--line",
        default="",
        help="the cards in front of the player, e.g. 3,11,5,x2 (default: none); a list that starts with a minus "
        "card is written with '=': --line=-4,3",
    )
    p.add_argument("--seen", help="cards already out of the deck (discarded), e.g. 12,12,7, or --seen=-2,-4")
    p.add_argument(
        "--cards",
        help="card categories kept in the unseen deck when the hit and stay values are solved (numbers, "
        "modifiers, actions; default numbers,modifiers, or the --policy-file's: with action cards the exact "
        "solve is far larger). The "
        "next-card odds always use every unseen card. A short line means a long solve: the empty line "
        "solves all 262,143 states of numbers and modifiers (about 25 s of CPU).",
    )
    common(p)
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes to solve in (default %(default)s; worth more only for a short line); the values are the "
        "same for any number",
    )
    solver_flag(p)
    p.add_argument(
        "--policy-file",
        metavar="FILE",
        help="answer from a policy file (written by flip7ref solve --policy-out FILE) instead of solving: hit or "
        "stay, both values, P(bust) and P(Flip 7) to the end of the turn; its edition, options, --cards and "
        "--turn-model must be the file's (--seen: cancelled duplicates, used Second Chances, Flip Threes)",
    )
    p.add_argument("--policy", dest="policy_deprecated", metavar="FILE", help=argparse.SUPPRESS)  # old --policy-file
    p.add_argument(
        "--turn-model",
        choices=("rules", "published"),
        help="with --policy-file: the turn model the file must hold (default: the file's)",
    )
    p.set_defaults(func=cmd_odds)

    p = sub.add_parser(
        "solve",
        help="the optimal expected score of one player alone in one round (exact dynamic programming)",
        description="One player, one round, a fresh deck holding only the chosen card categories, draws without "
        "replacement, stay allowed at any time. Prints the expected round score under the optimal policy (or "
        "under --policy), the probabilities of busting and of making Flip 7, the number of states solved and "
        "the time. The Flip 7 solitaire analysis gives 18.5652176141 for numbers and 20.2291054307 for "
        "numbers,modifiers.",
    )
    p.add_argument("--cards", default="numbers", help="card categories in the deck: numbers, modifiers, actions, "
                   "or card ids (every copy), comma-separated, e.g. numbers,modifiers,second_chance "
                   "(default %(default)s)")  # fmt: skip
    p.add_argument("--policy", help="evaluate this policy exactly instead of the optimal one: threshold:N, always-hit or random")
    common(p)
    add_no_progress(p, "the spinner of a long solve")
    p.add_argument(
        "--workers",
        type=int,
        help=f"processes to solve in (default: the cores this process may use, here {usable_cores()}); the "
        "optimal policy is solved in parallel, a --policy in one process; the result is the same for any number",
    )
    solver_flag(p)
    p.add_argument("--check", action="store_true",
                   help="with the compact solver: solve with the interpreter too, exit 1 unless they agree")  # fmt: skip
    p.add_argument("--max-hours", type=float, default=1.0, metavar="H",
                   help="refuse a solve estimated at more than H hours of CPU in one process, exit status 3, unless "
                   "--max-seconds stops it within H hours (default %(default)g; inf: no limit)")  # fmt: skip
    p.add_argument("--max-memory", type=float, default=4.0, metavar="GB",
                   help="the compact solver refuses a solve estimated to need more (default %(default)s GB)")  # fmt: skip
    p.add_argument("--turn-model", choices=("rules", "published"), default="rules",
                   help="rules (default): the solo turn as the reference plays it; published: the published solitaire "
                   "analysis's turn (Freeze and Flip Three aimed at oneself; it differs from the rules in one sequence), "
                   "by the compact solver: e.g. --cards numbers,modifiers,actions")  # fmt: skip
    p.add_argument("--policy-out", metavar="FILE",
                   help="with the compact solver: store the solved policy (every decision, its values, P(bust) and "
                   "P(Flip 7)) in FILE, for flip7ref odds --policy-file FILE and flip7ref.analysis.load_policy")  # fmt: skip
    add_cluster(p)
    p.set_defaults(func=cmd_solve)


def solver_flag(p: argparse.ArgumentParser) -> None:
    """Add ``--solver auto|compact|interpreter`` to ``p`` (``solve`` and ``odds``)."""
    p.add_argument(
        "--solver",
        choices=("auto", "compact", "interpreter"),
        default="auto",
        help="auto (default): the compact-key solver (NumPy) where it covers the deck (numbers, modifiers, Second "
        "Chance; optimal policy, floats), else the interpreter's; compact: refuse a deck it does not cover",
    )
