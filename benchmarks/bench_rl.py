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

The batched engine (``flip7ref.batch``, base Flip 7, 4 players) at batch 1, 256 and 4096:

- batch step: ``BatchState.step`` decisions per second, pgx-style (every seat's decision is
  one step, uniformly random legal actions drawn as arrays, finished games dealt again);
- batch step, event log: the default backend with the event log kept (``record_events()``, as
  the protocol adapter and lockstep keep it; the compiled step writes rows of numbers, made
  into events only when read);
- batch vector env: ``Flip7VectorEnv.step`` learner steps per second (seat 0 random, three
  threshold:20 opponents inside the step, as the single Gymnasium env above);
- beside them the single Gymnasium env of both editions.

The batched Vengeance engine (``flip7ref.batch.vengeance``, 4 players) at the same batch
sizes: ``VengeanceState.step`` decisions per second, random legal actions (drawn over the
hit, stay and target indices, and over the whole 3,086-index mask only in the games at a
card pick of a Swap, Steal or Discard); and ``VengeanceVectorEnv.step`` learner steps per
second (seat 0 random, three threshold:20 opponents inside the step); beside the single
Vengeance Gymnasium env (``--vengeance-only`` runs just these).  ``--events`` runs only the
batch step with and without the event log, paired seed by seed, and says how many times fewer
decisions the log leaves: kept only, and kept and read (each finished game's events made into
events, as lockstep reads them).

Times are CPU time of this process (``time.process_time``); the best of
``--repeat`` runs is reported for the single environments, the median and the range of the
runs for the batched engine (the machine is shared: the range shows the noise).
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


BATCHES = (1, 256, 4096)
"""Batch sizes of the batched engine's measurements."""


def bench_batch_step(
    batch: int, steps: int, seed: int = 0, backend: str = "auto", events: bool = False, read: bool = False
) -> dict[str, float]:
    """Batched-engine decisions per second: ``steps`` decisions in all (at least 50 batch steps);
    ``backend`` as `flip7ref.batch.BatchState` takes it (``auto``: the compiled kernel if numba is installed);
    ``events``: with the event log kept (`BatchState.record_events`, as the protocol adapter and
    lockstep keep it); ``read``: each finished game's events are also read (made into events, as
    lockstep reads them) and forgotten before the game is dealt again."""
    import numpy as np

    from flip7ref import Game
    from flip7ref.batch import BatchState

    bs = BatchState(Game("flip7", 4, {"reshuffles": 1}), batch, seed, "numpy", backend=backend)
    if events:
        bs.record_events()
    rng = np.random.default_rng(seed)
    rounds = max(50, steps // batch)
    games = seen = 0
    start = time.process_time()
    for _ in range(rounds):
        bs.step(np.argmax(rng.random(bs.legal.shape) * bs.legal, 1))
        done = np.flatnonzero(bs.done)
        if done.size:
            games += done.size
            if read:
                for g in done.tolist():
                    seen += len(bs.log[g])
                    bs.log[g] = []
            bs.reset(done)
    seconds = time.process_time() - start
    return {"steps_per_second": rounds * batch / seconds, "games": games, "seconds": seconds, "events_read": seen}


def bench_batch_env(batch: int, steps: int, seed: int = 0, edition: str = "flip7") -> dict[str, float]:
    """``Flip7VectorEnv`` (``edition="vengeance"``: ``VengeanceVectorEnv``) learner steps per
    second (``steps`` in all, at least 20 batch steps; seat 0 random, three threshold:20 opponents;
    Vengeance's learner draws over the whole mask only at a card pick, `random_legal`)."""
    import numpy as np

    from flip7ref.batch.vector_env import Flip7VectorEnv, VengeanceVectorEnv

    env = (VengeanceVectorEnv if edition == "vengeance" else Flip7VectorEnv)(batch, 4, opponents="threshold:20")
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rounds = max(20, steps // batch)
    games = 0
    start = time.process_time()
    narrow = 2 + env.state.P  # hit, stay, targets: a Vengeance pick lies past them (`random_legal`)
    for _ in range(rounds):
        mask = obs["action_mask"]
        if edition == "vengeance":
            actions = random_legal(rng, mask, narrow, env.state.wide & (env.state.actor == 0))
        else:
            actions = np.argmax(rng.random(mask.shape) * mask, 1)
        obs, _r, terminated, _t, _i = env.step(actions)
        games += int(terminated.sum())
    seconds = time.process_time() - start
    return {"steps_per_second": rounds * batch / seconds, "games": games, "seconds": seconds}


def random_legal(rng: Any, legal: Any, narrow: int, wide: Any) -> Any:
    """One uniformly random legal index per row of the ``(B, A)`` bool mask ``legal``: drawn
    over its first ``narrow`` columns, except in the rows ``wide`` (bool, B) over all of them
    (the games whose legal indices may lie past ``narrow``)."""
    import numpy as np

    out = np.argmax(rng.random((legal.shape[0], narrow)) * legal[:, :narrow], 1)
    rows = np.flatnonzero(wide)
    if rows.size:
        sub = legal[rows]
        out[rows] = np.argmax(rng.random(sub.shape) * sub, 1)
    return out


def bench_batch_vengeance(batch: int, steps: int, seed: int = 0) -> dict[str, float]:
    """Batched Vengeance decisions per second: ``steps`` decisions in all (at least 50 batch
    steps), random legal actions (`random_legal`), finished games dealt again."""
    import numpy as np

    from flip7ref import Game
    from flip7ref.batch.v_rules import CARDS
    from flip7ref.batch.vengeance import VengeanceState

    bs = VengeanceState(Game("vengeance", 4, {"reshuffles": 1}), batch, seed, "numpy")
    rng = np.random.default_rng(seed)
    rounds = max(50, steps // batch)
    games = 0
    narrow = 2 + bs.P
    start = time.process_time()
    for _ in range(rounds):
        bs.step(random_legal(rng, bs.legal, narrow, bs.kind == CARDS))
        done = np.flatnonzero(bs.done)
        if done.size:
            games += done.size
            bs.reset(done)
    seconds = time.process_time() - start
    return {"steps_per_second": rounds * batch / seconds, "games": games, "seconds": seconds}


def bench_vengeance(steps: int, repeat: int) -> dict[str, Any]:
    """The batched Vengeance engine at each of `BATCHES` beside the single Vengeance
    Gymnasium env: median and range of ``repeat`` runs, the ratio to the single env's median."""
    import statistics

    single = [bench_gymnasium("vengeance", steps, seed)["steps_per_second"] for seed in range(repeat)]
    out: dict[str, Any] = {"gymnasium vengeance (single env)": _spread(single, None)}
    base = statistics.median(single)
    for batch in BATCHES:
        work = steps * (1 if batch == 1 else 10)
        runs, envs = [], []
        for seed in range(repeat):  # the engine and the vector env back to back, seed by seed
            runs.append(bench_batch_vengeance(batch, work, seed)["steps_per_second"])
            envs.append(bench_batch_env(batch, work // 4, seed, "vengeance")["steps_per_second"])
        out[f"batch step vengeance B={batch}"] = _spread(runs, base)
        out[f"batch vector env vengeance B={batch}"] = _spread(envs, base)
    return out


def bench_batched(steps: int, repeat: int) -> dict[str, Any]:
    """The batched engine at each of `BATCHES`: the median and range of ``repeat`` runs, with
    the ratio of the median to the single Gymnasium env's median (Flip 7, 4 players)."""
    import statistics

    single = [bench_gymnasium("flip7", steps, seed)["steps_per_second"] for seed in range(repeat)]
    out: dict[str, Any] = {"gymnasium flip7 (single env)": _spread(single, None)}
    base = statistics.median(single)
    for batch in BATCHES:
        work = steps * (1 if batch == 1 else 20)
        runs: dict[str, list[float]] = {
            "batch step": [],
            "batch step, event log": [],
            "batch vector env": [],
        }
        for seed in range(repeat):  # the measurements back to back, seed by seed: paired under the same load
            runs["batch step"].append(bench_batch_step(batch, work, seed)["steps_per_second"])
            runs["batch step, event log"].append(bench_batch_step(batch, work, seed, events=True)["steps_per_second"])
            runs["batch vector env"].append(bench_batch_env(batch, work // 4, seed)["steps_per_second"])
        for label, r in runs.items():
            out[f"{label} flip7 B={batch}"] = _spread(r, base)
    out.update(bench_vengeance(steps, repeat))  # the batched Vengeance engine, beside its single env
    return out


def bench_events(steps: int, repeat: int) -> dict[str, Any]:
    """`BatchState.step` with and without the event log (``record_events()``; kept only, and
    kept and read at each game's end), paired seed by seed at each of `BATCHES` (the default
    backend: compiled when numba is installed): the median and range of ``repeat`` runs each;
    ``times_fewer``: the step without the log over the step with it."""
    import statistics

    out: dict[str, Any] = {}
    for batch in BATCHES:
        work = steps * (1 if batch == 1 else 20)
        plain: list[float] = []
        logged: list[float] = []
        read: list[float] = []
        for seed in range(repeat):  # the three back to back, seed by seed: paired under the same load
            plain.append(bench_batch_step(batch, work, seed)["steps_per_second"])
            logged.append(bench_batch_step(batch, work, seed, events=True)["steps_per_second"])
            read.append(bench_batch_step(batch, work, seed, events=True, read=True)["steps_per_second"])
        out[f"batch step flip7 B={batch}"] = _spread(plain, None)
        for label, runs in (("event log", logged), ("event log read", read)):
            out[f"batch step, {label} flip7 B={batch}"] = _spread(runs, None)
            out[f"batch step, {label} flip7 B={batch}"]["times_fewer"] = statistics.median(plain) / statistics.median(runs)
    return out


def _spread(runs: list[float], base: float | None) -> dict[str, Any]:
    import statistics

    median = statistics.median(runs)
    entry: dict[str, Any] = {"median": median, "low": min(runs), "high": max(runs), "runs_steps_per_second": runs}
    if base:
        entry["ratio_to_single_env"] = median / base
    return entry


def print_batched(results: dict[str, Any], out: Any = print) -> None:
    """One line per measurement of `bench_batched`: median, range and ratio."""
    for label, r in results.items():
        ratio = f", {r['ratio_to_single_env']:.0f}x the single env" if "ratio_to_single_env" in r else ""
        if "times_fewer" in r:
            ratio = f", {r['times_fewer']:.1f} times fewer than without the log"
        out(f"{label}: {r['median']:,.0f} steps/s median (range {r['low']:,.0f}-{r['high']:,.0f}){ratio}")


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
    parser.add_argument("--batch-only", action="store_true", help="only the batched engine and the single Gymnasium env")
    parser.add_argument("--vengeance-only", action="store_true", help="only the batched Vengeance engine and its single env")
    parser.add_argument("--events", action="store_true",
                        help="only the batch step with and without the event log (record_events()), seed by seed")  # fmt: skip
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is reported (default %(default)s)")
    args = parser.parse_args()
    if args.steps < 1 or args.repeat < 1:
        parser.error("--steps and --repeat must be at least 1")
    missing = available()
    if missing:
        parser.exit(0, f"RL benchmarks skipped: {missing}\n")
    if args.events:
        print_batched(bench_events(args.steps, args.repeat))
        return
    if args.vengeance_only:
        print_batched(bench_vengeance(args.steps, args.repeat))
        return
    if args.batch_only:
        print_batched(bench_batched(args.steps, args.repeat))
        return
    for label, r in bench_all(args.steps, args.repeat).items():
        spread = ", ".join(f"{x:.0f}" for x in r["runs_steps_per_second"])
        print(f"{label}: {r['steps_per_second']:.0f} steps/s (runs: {spread})")
    print_batched(bench_batched(args.steps, args.repeat))


if __name__ == "__main__":
    main()
