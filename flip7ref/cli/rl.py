"""``flip7ref train-agent``: train a small PPO agent on the batched vector env, save it, rate it (docs/rl.md)."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any

from flip7ref.cli._common import add_common, add_json, add_no_progress, check_output, parse_options, parse_seed, showing_progress
from flip7ref.core.errors import OptionError
from flip7ref.play.tournament import games_near

DEFAULT_BENCH_GAMES = 4000
"""``--bench-games`` when not given, rounded down to a multiple of the players."""

SEED_LIMIT = 2**64
"""Training seeds are below this (PyTorch's seeds are 64-bit)."""


def _seed_number(text: str) -> int:
    seed = parse_seed(text)
    if not isinstance(seed, int) or seed < 0:
        raise OptionError(f"--seed: expected a whole number >= 0, got {text!r}")
    if seed >= SEED_LIMIT:  # torch.manual_seed takes 64 bits (a larger one was an OverflowError traceback)
        raise OptionError(f"--seed: expected a whole number from 0 to {SEED_LIMIT - 1}, got {text!r}")
    return seed


def cmd_train_agent(args: argparse.Namespace) -> int:
    """``flip7ref train-agent``: PPO on the vector env for a CPU-time budget, the agent saved to ``--out``,
    then rated with ``bench-agents``' benchmark against the training opponent."""
    budget = float(args.cpu_minutes)
    if not math.isfinite(budget) or budget <= 0:
        raise OptionError(f"--cpu-minutes: expected a number of minutes > 0, got {args.cpu_minutes}")
    if args.envs < 1:
        raise OptionError(f"--envs: expected a whole number of games >= 1, got {args.envs}")
    if args.edition not in ("flip7", "vengeance"):
        raise OptionError(f"--edition {args.edition}: the batched vector env plays flip7 and vengeance only")
    options = parse_options(args.option)
    from flip7ref.core.game import Game

    game = Game(args.edition, args.players, options)  # the edition's player count and options, in its words, first
    if args.bench_games is None:
        args.bench_games = games_near(DEFAULT_BENCH_GAMES, args.players)
    if args.bench_games < 0 or args.bench_games % args.players:
        raise OptionError(f"--bench-games: expected 0 or a positive multiple of --players, got {args.bench_games}")
    if args.bench_games and args.players < 2:
        raise OptionError(f"--players: the rating needs at least 2 players (the agent and its opponents), got "
                          f"{args.players}; or --bench-games 0")  # fmt: skip
    seed = _seed_number(args.seed)
    bench_seed = parse_seed(args.bench_seed)
    check_output("--out", args.out)
    from flip7ref.rl.agent import require_torch

    require_torch()  # the one-line message when PyTorch is missing, before anything else is built
    from flip7ref.batch.policies import parse_policy
    from flip7ref.batch.vector_env import Flip7VectorEnv, VengeanceVectorEnv

    parse_policy(args.opponent, "--opponent")  # the batched engine's opponents, named by the flag
    from flip7ref.rl.agent import TorchAgent
    from flip7ref.rl.train import PPOConfig, train_ppo

    cls = Flip7VectorEnv if args.edition == "flip7" else VengeanceVectorEnv
    env = cls(args.envs, args.players, options, seat="random", opponents=args.opponent, normalize=True)
    from flip7ref.play.strategies import parse_strategy

    rival = parse_strategy(args.opponent)  # the rating's opponent, checked before the training
    spaces: Any = (env.single_observation_space, env.single_action_space)
    size, actions = int(spaces[0]["observation"].shape[0]), int(spaces[1].n)
    agent = TorchAgent(args.edition, args.players, size, actions, options=options, seed=seed)
    show = showing_progress(args)
    seconds = budget * 60

    def progress(used: float, rate: float) -> None:
        if show:
            print(f"\rtraining: {used:6.1f} of {seconds:.0f} CPU s, win rate {rate:.3f}", end="", file=sys.stderr)

    result = train_ppo(env, agent, cpu_seconds=seconds, seed=seed, config=PPOConfig(), progress=progress)
    if show:
        print(file=sys.stderr)
    agent.info = {"opponent": args.opponent, "seed": seed, "cpu_minutes": budget, "envs": args.envs, **result.as_dict()}
    agent.save(args.out)
    out: dict[str, object] = {"out": args.out, "edition": args.edition, "players": args.players,
                              "opponent": args.opponent, "seed": seed, "training": result.as_dict()}  # fmt: skip
    if args.bench_games:
        from flip7ref.play.bench import bench_agent

        started = time.process_time()
        bench = bench_agent(game, agent.strategy(name="agent"), [rival], args.bench_games,
                            bench_seed)  # fmt: skip
        out["bench"] = {**bench.as_dict(), "cpu_seconds": time.process_time() - started}
    if args.json:
        print(json.dumps(out, sort_keys=True, default=str))
        return 0
    print(f"trained {result.updates} PPO updates, {result.decisions:,} decisions, {result.games:,} games in "
          f"{result.cpu_seconds:.1f} s of CPU (training win rate {result.win_rate:.3f}); agent written to "
          f"{args.out}")  # fmt: skip
    if args.bench_games:
        match = bench.matches[0]
        low, high = match.interval()
        print(f"bench-agents, {match.opponent}, seed {bench_seed}: win rate {match.win_rate:.3f} (95% CI "
              f"{low:.3f}-{high:.3f}) over {args.bench_games} games ({args.bench_games // args.players} deals, "
              f"each in the {args.players} seat rotations; "
              f"fair share {bench.fair_share:.3f})")  # fmt: skip
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``train-agent`` to the ``flip7ref`` parser."""
    p = sub.add_parser(
        "train-agent",
        help="train a small PPO agent on the batched engine for a CPU-time budget and rate it (docs/rl.md; needs torch)",
        description="Train an actor-critic with PPO on the batched vector env (the learner's seat drawn at random in "
        "every game, seat-relative normalised observations, +1/-1 for a win or a loss) against --opponent until "
        "--cpu-minutes of this process's CPU time are used; write the agent to --out; then rate it against the "
        "same opponent as bench-agents does (every deal in each seat rotation, 95% interval). Rate it again with "
        "FLIP7REF_AGENT=FILE flip7ref bench-agents --agent flip7ref.rl.agent:Agent. Needs PyTorch.",
    )
    add_common(p, players=2, edition_help="flip7 or vengeance, the editions the batched engine plays (not a table's "
               "path; default %(default)s)")  # fmt: skip
    p.add_argument("--opponent", default="threshold:25",
                   help="the other seats while training and rating: threshold:N or random (default %(default)s)")  # fmt: skip
    p.add_argument("--cpu-minutes", type=float, default=8.0,
                   help="the training's budget of CPU time, in minutes (default %(default)s)")  # fmt: skip
    p.add_argument("--out", default="agent.pt", help="the agent file to write (default %(default)s)")
    p.add_argument("--seed", default="1", help="seeds the weights, the deals and the sampling (default %(default)s)")
    p.add_argument("--envs", type=int, default=64, help="games played at once (default %(default)s)")
    p.add_argument("--bench-games", type=int, default=None,
                   help="games of the rating after training, a multiple of --players (each deal played in every seat "
                   f"rotation); 0: no rating (default {DEFAULT_BENCH_GAMES}, rounded down to a multiple of "
                   "--players)")  # fmt: skip
    p.add_argument("--bench-seed", default="1", help="the rating's seed, as bench-agents --seed (default %(default)s)")
    add_json(p, "the training and rating figures as one JSON object")
    add_no_progress(p, "the training's progress")
    p.set_defaults(func=cmd_train_agent)
