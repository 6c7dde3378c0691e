"""Side-by-side benchmarks of several builds of flip7ref in one run (``bench.py --compare``).

A *target* is ``LABEL=WHERE``; WHERE is

* the path of a Python interpreter with flip7ref installed (e.g. a venv's ``bin/python``
  holding the compiled wheel, or one holding ``FLIP7REF_PURE=1``'s pure wheel);
* ``git:COMMIT``: that commit of this repository, exported with ``git archive`` into a
  temporary folder and run from source (pure Python) with this interpreter;
* ``src``: this source tree, pure Python, with this interpreter.

Each round runs every measurement once for every target, in a rotating order, each in a
fresh process started in an empty folder (so only the target's flip7ref is importable);
the first target is the baseline.  Per round, a target's ratio is its speed over the
baseline's in that same round (paired, so load that drifts over the run cancels out);
the table gives each target's median ratio and its range over the rounds, and the median
and range of the figure itself.

Measurements (CPU time):

* ``games:EDITION``: the game loop of 4-player games with threshold:20 (games/s);
* ``startup``: a whole ``python -c "import flip7ref; flip7ref.Game('flip7', 4)"``
  process (user + system CPU of the child, seconds); ``startup:nocache`` the same with
  ``FLIP7REF_NO_CACHE=1`` (no edition-table cache read or written: a first start, less the
  cache's writing);
* ``score``: a whole ``flip7ref score 3 11`` process (seconds);
* ``rules``: a whole ``flip7ref rules F7-073`` process (seconds): the rule with the cases
  citing it, read from the case index (its cache written by the warm-up run; a cold
  cache parses the case files once);
* ``pettingzoo:EDITION``: ``flip7ref.rl.env`` steps per second (4 players, random masked
  play, the loop of ``bench_rl.py``; 20 steps per game of ``--games``), and
  ``pettingzoo_raw:EDITION`` the bare environment (``raw_env``) without wrappers, and
  ``pettingzoo_stock:EDITION`` the bare environment in PettingZoo's own wrappers (all three
  need the ``[rl]`` extra in the interpreter);
* ``solve``: ``SoloSolver`` on the numbers+modifiers solo deck in one process (seconds);
  ``solve:compact``: the same deck by ``CompactSolver`` (NumPy; CPU seconds).

Bytecode: a start-up figure depends on whether Python finds its compiled bytecode
(``__pycache__``) or compiles every module's source first (about 0.06 s more for
flip7ref's modules on a 2-core sandbox).  An installed wheel has its bytecode from pip, a
source tree or a ``git:`` export has none until a run writes it, and a run with
``PYTHONDONTWRITEBYTECODE`` set never writes it.  So by default every target runs each
measurement once, untimed, before the rounds, with ``PYTHONDONTWRITEBYTECODE`` removed
from the children's environment: all targets then start as an installed package
does (bytecode and the edition-table cache written).  ``--cold-bytecode`` keeps the
caller's environment and skips that warm-up (a ``git:`` or ``src`` target then compiles
its source in every run if ``PYTHONDONTWRITEBYTECODE`` is set).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent

GAMES = """
import json, random, sys, time
from flip7ref import Game
from flip7ref.play.games import play
from flip7ref.play.strategies import ThresholdStrategy
edition, games = sys.argv[1], int(sys.argv[2])
game, strategy = Game(edition, 4), [ThresholdStrategy(20)]
start = time.process_time()
for i in range(games):
    play(game.new_initial_state(seed=i), strategy, random.Random(i))
print(json.dumps({"value": games / (time.process_time() - start)}))
"""

PETTINGZOO = """
import json, random, sys, time
import numpy as np
import flip7ref.rl as rl
from flip7ref.rl.pettingzoo_env import raw_env
edition, steps, how = sys.argv[1], int(sys.argv[2]), sys.argv[3]
env = raw_env(edition, 4) if how != "wrapped" else rl.env(edition, 4)
if how == "stock":  # PettingZoo's own wrappers around the bare environment, as leduc_holdem_v4 has them
    from pettingzoo.utils import wrappers
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(env))
env.reset(seed=0)
rng = random.Random(0)
done = 0
start = time.process_time()
while done < steps:
    obs, _r, terminated, truncated, _i = env.last()
    if terminated or truncated:
        env.step(None)
        if not env.agents:
            env.reset()
        continue
    env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    done += 1
print(json.dumps({"value": steps / (time.process_time() - start)}))
"""
"""The loop of ``bench_rl.bench_pettingzoo`` over ``rl.env`` (``wrapped``), the bare environment
(``raw``) or the bare environment in PettingZoo's own wrappers (``stock``)."""

SOLVE = """
import json, sys, time
from flip7ref import Game
from flip7ref.analysis import SoloSolver, solo_deck_position
state = solo_deck_position(Game("flip7", 1), ["number", "modifier"])
if sys.argv[1] == "compact":
    from flip7ref.analysis.compact import CompactSolver as Solver
else:
    Solver = lambda: SoloSolver(workers=1)
start = time.process_time()
result = Solver().solve(state)
print(json.dumps({"value": time.process_time() - start, "solve_value": float(result.value)}))
"""

STARTUP = "import flip7ref; flip7ref.Game('flip7', 4)"
SCORE = "import sys; from flip7ref.cli import main; sys.argv = ['flip7ref', 'score', '3', '11']; main()"
RULES = "import sys; from flip7ref.cli import main; sys.argv = ['flip7ref', 'rules', 'F7-073']; main()"
PROCESSES = {"startup": STARTUP, "score": SCORE, "rules": RULES}
"""The measurements that time a whole process (user + system CPU of the child)."""

# higher is better for games/s; lower for seconds
PETTINGZOO_KINDS = {"pettingzoo": "wrapped", "pettingzoo_raw": "raw", "pettingzoo_stock": "stock"}
"""The PettingZoo measurements and the environment each times (`PETTINGZOO`)."""

HIGHER_IS_BETTER = {
    "games": True, "pettingzoo": True, "pettingzoo_raw": True, "pettingzoo_stock": True,
    "startup": False, "score": False, "rules": False, "solve": False,
}  # fmt: skip


class Target:
    """One build to measure: an interpreter and the environment it runs in."""

    def __init__(self, spec: str, scratch: Path, warm: bool = True) -> None:
        label, sep, where = spec.partition("=")
        if not sep or not label or not where:
            raise SystemExit(f"--compare {spec!r}: expected LABEL=WHERE (a python path, git:COMMIT or src)")
        self.label, self.python, self.path, self.warm = label, sys.executable, "", warm
        if where == "src":
            self.path = str(ROOT)
        elif where.startswith("git:"):
            commit = where[4:]
            folder = scratch / f"{label}-{commit}"
            folder.mkdir(parents=True)
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=False)
            if archive.returncode:
                raise SystemExit(f"--compare {spec!r}: git archive failed: {archive.stderr.decode().strip()}")
            subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
            self.path = str(folder)
        else:
            if shutil.which(where) is None:
                raise SystemExit(f"--compare {spec!r}: {where} is not an executable Python")
            self.python = where
        self.empty = scratch / f"cwd-{label}"
        self.empty.mkdir()

    def describe(self) -> str:
        code = "import flip7ref; print(f'flip7ref.compiled={getattr(flip7ref, \"compiled\", False)}, {flip7ref.__file__}')"
        return self.run_code(code).strip()

    def run_code(self, code: str, *args: str, extra: dict[str, str] | None = None) -> str:
        dropped = {"PYTHONPATH", "PYTHONDONTWRITEBYTECODE"} if self.warm else {"PYTHONPATH"}
        env = {k: v for k, v in os.environ.items() if k not in dropped} | (extra or {})
        if self.path:
            env["PYTHONPATH"] = self.path
        done = subprocess.run(
            [self.python, "-c", code, *args], cwd=self.empty, env=env, capture_output=True, text=True, check=False
        )
        if done.returncode:
            raise SystemExit(f"{self.label}: the measurement failed:\n{done.stderr.strip()}")
        return done.stdout

    def measure(self, what: str, games: int) -> float:
        kind, _, edition = what.partition(":")
        if kind == "games":
            return float(json.loads(self.run_code(GAMES, edition, str(games)).splitlines()[-1])["value"])
        if kind in PETTINGZOO_KINDS:  # 20 steps per game asked for
            args = (edition, str(20 * games), PETTINGZOO_KINDS[kind])
            return float(json.loads(self.run_code(PETTINGZOO, *args).splitlines()[-1])["value"])
        if kind == "solve":
            return float(json.loads(self.run_code(SOLVE, edition or "interpreter").splitlines()[-1])["value"])
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.run_code(PROCESSES[kind], extra={"FLIP7REF_NO_CACHE": "1"} if edition == "nocache" else None)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compare(
    specs: list[str], measurements: list[str], rounds: int, games: int, json_out: str | None, warm: bool = True
) -> None:
    console = Console(soft_wrap=True, width=max(shutil.get_terminal_size().columns, 120))
    with tempfile.TemporaryDirectory(prefix="flip7ref-bench-") as tmp:
        targets = [Target(spec, Path(tmp), warm) for spec in specs]
        for t in targets:
            console.print(f"{t.label}: {t.describe()}")
        if warm:  # bytecode and table cache written before the rounds (see the module docstring)
            for t in targets:
                for m in measurements:
                    if m.partition(":")[0] in PROCESSES:
                        t.measure(m, games)
        console.print(f"bytecode: {'warm (written before the rounds)' if warm else 'as the environment leaves it'}", style="dim")
        values: dict[str, dict[str, list[float]]] = {m: {t.label: [] for t in targets} for m in measurements}
        for r in range(rounds):
            for m in measurements:
                order = targets[r % len(targets) :] + targets[: r % len(targets)]  # rotate who goes first
                for t in order:
                    values[m][t.label].append(t.measure(m, games))
            console.print(f"round {r + 1}/{rounds} done", style="dim")
    load = os.getloadavg()
    bytecode = "warm bytecode" if warm else "bytecode as found"
    table = Table(title=f"side by side, {rounds} rounds, {bytecode}, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    for col in ("measurement", "target", "median", "range", f"ratio to {targets[0].label} (median)", "ratio range"):
        table.add_column(col, justify="right")
    results: dict[str, object] = {}
    for m in measurements:
        kind = m.partition(":")[0]
        unit = "games/s" if kind == "games" else "steps/s" if kind in PETTINGZOO_KINDS else "s"
        base = values[m][targets[0].label]
        for t in targets:
            vs = values[m][t.label]
            # speed ratio: >1 means faster than the baseline, for rates and for times alike
            ratios = [v / b if HIGHER_IS_BETTER[kind] else b / v for v, b in zip(vs, base, strict=True)]
            fmt = "{:.0f}" if HIGHER_IS_BETTER[kind] else "{:.3f}"
            table.add_row(
                m, t.label, f"{fmt.format(statistics.median(vs))} {unit}",
                f"{fmt.format(min(vs))}-{fmt.format(max(vs))}",
                f"{statistics.median(ratios):.2f}x", f"{min(ratios):.2f}-{max(ratios):.2f}",
            )  # fmt: skip
            results.setdefault(m, {})[t.label] = {"values": vs, "speed_ratios": ratios}  # type: ignore[index]
    console.print(table)
    console.print("ratio: speed relative to the first target in the same round (above 1: faster)")
    if json_out:
        with open(json_out, "w", encoding="utf-8") as f:
            json.dump({"rounds": rounds, "games": games, "load": load, "warm_bytecode": warm, "results": results}, f, indent=1)
