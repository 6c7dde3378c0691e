"""OpenSpiel's MCTS bot against the threshold:20 strategy, on the reference rules.

Needs the ``[rl]`` extra (``pip install 'flip7ref[rl]'``).  Seat 0 is an
``MCTSBot`` with random-rollout evaluation; the other seats play
``threshold:20`` from :mod:`flip7ref.play.strategies`, whose decisions are turned
into OpenSpiel action indices with :class:`flip7ref.rl.ActionIndex`.  Chance
nodes are sampled from the game's exact chance outcomes.

Usage::

    python examples/openspiel_mcts.py [--edition flip7] [--players 2] [--games 4]
        [--simulations 50] [--rollouts 1] [--target-score 200] [--seed 0]

It prints each game's final totals and the MCTS bot's wins.
"""

from __future__ import annotations

import argparse
import random

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import flip7ref.rl.openspiel_game  # noqa: F401  (registers python_flip7ref)
from flip7ref.play.strategies import parse_strategy


def play_games(
    edition: str = "flip7",
    players: int = 2,
    games: int = 4,
    simulations: int = 50,
    rollouts: int = 1,
    target_score: int = 200,
    seed: int = 0,
    rollout_length: int | None = None,
) -> list[tuple[list[int], list[int]]]:
    """Play ``games`` games, MCTS on seat 0; returns ``(final totals, winners)`` per game."""
    game = pyspiel.load_game(
        "python_flip7ref", {"edition": edition, "players": players, "options": f"target_score:{target_score}"}
    )
    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=rollouts, random_state=rng, max_length=rollout_length)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=simulations, evaluator=evaluator, random_state=rng, solve=False)
    threshold = parse_strategy("threshold:20")
    strategy_rng = random.Random(seed)
    results = []
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            elif state.current_player() == 0:
                state.apply_action(bot.step(state))
            else:
                inner = state.flip7ref_state
                action = threshold.choose(inner, strategy_rng)
                state.apply_action(game.actions.encode(inner, action))
        inner = state.flip7ref_state
        results.append((list(inner.totals), list(inner.winners)))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edition", default="flip7", choices=["flip7", "vengeance"])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--simulations", type=int, default=50, help="MCTS simulations per decision")
    parser.add_argument("--rollouts", type=int, default=1, help="random rollouts per evaluation")
    parser.add_argument("--rollout-length", type=int, default=None, help="cut rollouts after this many moves")
    parser.add_argument("--target-score", type=int, default=200, help="points that end the game")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    results = play_games(
        args.edition,
        args.players,
        args.games,
        args.simulations,
        args.rollouts,
        args.target_score,
        args.seed,
        args.rollout_length,
    )
    for i, (totals, winners) in enumerate(results):
        print(f"game {i}: totals {totals}, winners {winners}")
    wins = sum(1 for _, winners in results if 0 in winners)
    print(f"MCTS (seat 0) won {wins} of {len(results)} games against threshold:20")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
