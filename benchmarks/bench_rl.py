"""Steps per second of the RL adapters of ``flip7ref.rl`` (the optional ``[rl]`` extra).

Run from ``benchmarks/bench.py`` (its RL section, or ``--rl-only``), or alone::

    python benchmarks/bench_rl.py [--steps 20000] [--repeat 3]

Each environment plays 4-player games with uniformly random legal actions
(``action_mask``) and is reset when a game ends:

- PettingZoo: ``env.step`` calls of acting agents (chance resolved inside);
- Gymnasium: ``env.step`` calls of the learner (seat 0; the other seats play
  threshold:20 inside the step, so one step covers several decisions);
- OpenSpiel: ``state.apply_action`` calls, chance outcomes included (sampled with
  the exact probabilities), of the ``python_flip7ref`` game.

Times are CPU time of this process (``time.process_time``); the best of
``--repeat`` runs is reported.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any


def available() -> str | None:
    """None when the ``[rl]`` extra is importable, else the reason it is not."""
    try:
        import flip7ref.rl
        import flip7ref.rl.openspiel_game  # noqa: F401
    except ImportError as exc:
        return str(exc)
    return None


def bench_pettingzoo(edition: str, steps: int, seed: int = 0) -> dict[str, float]:
    """PettingZoo AEC ``step`` calls per second under random masked play."""
    import numpy as np

    import flip7ref.rl as rl

    env = rl.env(edition, 4)
    env.reset(seed=seed)
    rng = random.Random(seed)
    done = games = 0
    start = time.process_time()
    while done < steps:
        obs, _r, terminated, truncated, _i = env.last()
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                games += 1
                env.reset()
            continue
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        done += 1
    seconds = time.process_time() - start
    return {"steps_per_second": steps / seconds, "games": games, "seconds": seconds}


def bench_gymnasium(edition: str, steps: int, seed: int = 0) -> dict[str, float]:
    """Gymnasium ``step`` calls per second (seat 0 random, three threshold:20 opponents)."""
    import numpy as np

    import flip7ref.rl as rl

    env = rl.Flip7GymEnv(edition, 4, opponents="threshold:20")
    obs, _ = env.reset(seed=seed)
    rng = random.Random(seed)
    games = 0
    start = time.process_time()
    for _ in range(steps):
        obs, _r, terminated, truncated, _i = env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        if terminated or truncated:
            games += 1
            obs, _ = env.reset()
    seconds = time.process_time() - start
    return {"steps_per_second": steps / seconds, "games": games, "seconds": seconds}


def bench_openspiel(edition: str, steps: int, seed: int = 0) -> dict[str, float]:
    """OpenSpiel ``apply_action`` calls per second (decisions and chance outcomes)."""
    import pyspiel

    import flip7ref.rl.openspiel_game as osg

    game = pyspiel.load_game(osg.SHORT_NAME, {"edition": edition, "players": 4})
    rng = random.Random(seed)
    state = game.new_initial_state()
    games = 0
    start = time.process_time()
    for _ in range(steps):
        if state.is_terminal():
            games += 1
            state = game.new_initial_state()
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    seconds = time.process_time() - start
    return {"steps_per_second": steps / seconds, "games": games, "seconds": seconds}


BENCHES = {"pettingzoo": bench_pettingzoo, "gymnasium": bench_gymnasium, "openspiel": bench_openspiel}


def bench_all(steps: int, repeat: int) -> dict[str, Any]:
    """Every env of both editions: the best of ``repeat`` runs of ``steps`` steps, and every run."""
    out: dict[str, Any] = {}
    for name, bench in BENCHES.items():
        for edition in ("flip7", "vengeance"):
            runs = [bench(edition, steps, seed) for seed in range(repeat)]
            best = max(runs, key=lambda r: r["steps_per_second"])
            out[f"{name} {edition}"] = {**best, "runs_steps_per_second": [r["steps_per_second"] for r in runs]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000, help="steps per run (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is reported (default %(default)s)")
    args = parser.parse_args()
    if args.steps < 1 or args.repeat < 1:
        parser.error("--steps and --repeat must be at least 1")
    missing = available()
    if missing:
        parser.exit(0, f"RL benchmarks skipped: {missing}\n")
    for label, r in bench_all(args.steps, args.repeat).items():
        spread = ", ".join(f"{x:.0f}" for x in r["runs_steps_per_second"])
        print(f"{label}: {r['steps_per_second']:.0f} steps/s (runs: {spread})")


if __name__ == "__main__":
    main()
