"""Run mutmut over the interpreter modules and report the kill rate per module.

Usage (from the repository root, in a venv with ``pip install -e '.[dev]' mutmut==3.8.1``)::

    python tools/mutation.py run                  # every module of [tool.mutmut] only_mutate
    python tools/mutation.py run flip7ref/core/game.py # one module (re-runs its mutants)
    python tools/mutation.py run --resume         # per module, only mutants not checked yet (after a stop)
    python tools/mutation.py run --new            # only mutants without a verdict yet, in one mutmut run
    python tools/mutation.py run --survivors      # re-run every mutant not killed (after new tests)
    python tools/mutation.py report               # table per module + every survivor
    python tools/mutation.py report --markdown --diff --fail-under 90

The module list is ``only_mutate`` in ``[tool.mutmut]`` of pyproject.toml (file paths or
globs); the tests are its ``pytest_add_cli_args_test_selection``.  mutmut copies
``flip7ref/`` and ``also_copy`` into ``mutants/`` (git-ignored) and the tests import that
copy: mutmut puts ``mutants/`` first on ``sys.path`` and drops the repository root, which is
also what the editable install's ``.pth`` file adds, so the editable install does not shadow
the mutants.

``run`` sets ``HYPOTHESIS_PROFILE=ci`` (derandomized), runs each module as its own
``mutmut run --max-children N "<module>.*"`` under ``nice``, and records per module the wall
time, the CPU time of mutmut and its workers and the load average in
``mutants/mutation-timings.json``; ``report`` prints them beside the verdicts.

Kill rate = (killed + timeout) / mutants: a timeout is a mutant the tests detected (an
endless loop, stopped by mutmut's CPU-time limit).  Mutants with no covering test count as
not killed.  See docs/mutation-testing.md.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMINGS = ROOT / "mutants" / "mutation-timings.json"
KILLED = ("killed", "timeout")


def mutmut_config(root: Path = ROOT) -> dict[str, object]:
    """The ``[tool.mutmut]`` table of ``root/pyproject.toml`` (a dict; empty when absent)."""
    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    table = data.get("tool", {}).get("mutmut", {})
    assert isinstance(table, dict)
    return table


def configured_modules(root: Path = ROOT) -> list[str]:
    """The files ``only_mutate`` names, as sorted repository-relative paths (globs expanded).

    Raises:
        SystemExit: when a pattern of ``only_mutate`` matches no file (a stale module list).
    """
    patterns = mutmut_config(root).get("only_mutate", [])
    assert isinstance(patterns, list)
    found: list[str] = []
    for pattern in patterns:
        matches = sorted(p.relative_to(root).as_posix() for p in root.glob(str(pattern)) if p.is_file())
        if not matches:
            raise SystemExit(f"pyproject.toml: [tool.mutmut] only_mutate: {pattern!r} matches no file")
        found += [m for m in matches if m not in found]
    return found


def module_name(path: str) -> str:
    """``flip7ref/core/primitives/swap.py`` -> ``flip7ref.core.primitives.swap`` (``__init__.py`` -> the package)."""
    parts = list(Path(path).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def mutant_module(mutant: str) -> str:
    """The module of a mutmut mutant name: ``flip7ref.core.game.xǁGameǁ__init____mutmut_3`` -> ``flip7ref.core.game``."""
    return mutant.rsplit(".", 1)[0]


def mutant_function(mutant: str) -> str:
    """The function of a mutant name: ``x_score_line__mutmut_3`` -> ``score_line``, ``xǁGameǁcode__mutmut_1`` -> ``Game.code``."""
    last = mutant.rsplit(".", 1)[1].rsplit("__mutmut_", 1)[0]
    if last.startswith("xǁ"):
        return ".".join(last[2:].split("ǁ"))
    return last.removeprefix("x_")


def mutmut_executable() -> str:
    """The ``mutmut`` beside this Python (the venv's), else the one on PATH."""
    here = Path(sys.executable).parent / "mutmut"
    if here.exists():
        return str(here)
    found = shutil.which("mutmut")
    if found is None:
        raise SystemExit("mutmut is not installed: pip install mutmut==3.8.1")
    return found


def results() -> dict[str, str]:
    """Every mutant's verdict, read with ``mutmut results --all=True``: name -> status."""
    out = subprocess.run(
        [mutmut_executable(), "results", "--all=True"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    verdicts: dict[str, str] = {}
    for line in out.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and "__mutmut_" in name:
            verdicts[name] = status
    return verdicts


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(args: argparse.Namespace) -> int:
    modules = args.modules or configured_modules()
    env = dict(os.environ, HYPOTHESIS_PROFILE="ci")
    base = ["nice", "-n", str(args.nice), mutmut_executable(), "run", "--max-children", str(args.max_children)]
    timings = json.loads(TIMINGS.read_text(encoding="utf-8")) if TIMINGS.exists() else {}
    if args.survivors:
        wanted = {module_name(m) for m in modules}
        names = sorted(n for n, v in results().items() if v not in KILLED and mutant_module(n) in wanted)
        if not names:
            print("no mutant left that is not killed")
            return 0
        jobs = [("(survivors)", names)]
    elif args.new:
        jobs = [("(new)", [])]
    elif args.resume:
        unchecked = [n for n, v in results().items() if v == "not checked"]
        jobs = [(m, [n for n in unchecked if mutant_module(n) == module_name(m)]) for m in modules]
        jobs = [(m, names) for m, names in jobs if names]
    else:
        jobs = [(m, [f"{module_name(m)}.*"]) for m in modules]
    status = 0
    for label, patterns in jobs:
        meta = ROOT / "mutants" / f"{label}.meta"
        if meta.exists() and not json.loads(meta.read_text(encoding="utf-8")).get("exit_code_by_key"):
            print(f"== {label}: no mutants (mutmut mutates functions and methods only)", flush=True)
            continue
        shown = " ".join(patterns) if len(patterns) < 4 else f"{len(patterns)} mutants"
        print(f"== mutmut run {shown or '(mutants without a verdict)'}", flush=True)
        load_before = os.getloadavg()
        wall, cpu = time.monotonic(), _cpu_children()
        code = subprocess.run(base + patterns, cwd=ROOT, env=env).returncode
        wall, cpu = time.monotonic() - wall, _cpu_children() - cpu
        load_after = os.getloadavg()
        runs = [] if not (args.resume or args.survivors) else timings.get(label, [])
        entry = {
            "wall_s": round(wall, 1),
            "cpu_s": round(cpu, 1),
            "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in load_after],
            "max_children": args.max_children,
            "exit_code": code,
            "finished": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            "mutants_named": len(patterns) if patterns and "*" not in patterns[0] else None,
        }
        timings[label] = [*runs, entry]
        TIMINGS.parent.mkdir(exist_ok=True)
        TIMINGS.write_text(json.dumps(timings, indent=2) + "\n", encoding="utf-8")
        print(f"   {label}: wall {wall:.0f} s, CPU {cpu:.0f} s, load {load_before[0]:.2f} -> {load_after[0]:.2f}", flush=True)
        status = status or code
    return status


def report(args: argparse.Namespace) -> int:
    modules = configured_modules()
    verdicts = results()
    by_module: dict[str, Counter[str]] = defaultdict(Counter)
    for name, verdict in verdicts.items():
        by_module[mutant_module(name)][verdict] += 1
    timings = json.loads(TIMINGS.read_text(encoding="utf-8")) if TIMINGS.exists() else {}
    rows = []
    total: Counter[str] = Counter()
    for path in modules:
        counts = by_module.get(module_name(path), Counter())
        total.update(counts)
        rows.append((path, counts, timings.get(path)))
    rows.append(("total", total, None))
    md = args.markdown
    head = ["module", "mutants", "killed", "survived", "timeout", "other", "kill rate", "wall / CPU (s)", "load"]
    print(("| " + " | ".join(head) + " |\n|" + "---|" * len(head)) if md else "  ".join(f"{h:>10}" for h in head))
    worst = 100.0
    for path, counts, timing in rows:
        n = sum(counts.values())
        rate = 100.0 * sum(counts[k] for k in KILLED) / n if n else float("nan")
        worst = min(worst, rate) if path != "total" and n else worst
        other = n - counts["killed"] - counts["survived"] - counts["timeout"]
        times = f"{sum(t['wall_s'] for t in timing):.0f} / {sum(t['cpu_s'] for t in timing):.0f}" if timing else ""
        loads = [x for t in timing or [] for x in (t["load_before"][0], t["load_after"][0])]
        load = f"{min(loads):.2f}-{max(loads):.2f}" if loads else ""
        cells = [
            path,
            n,
            counts["killed"],
            counts["survived"],
            counts["timeout"],
            other,
            f"{rate:.1f} %" if n else "n/a",
            times,
            load,
        ]
        print(("| " + " | ".join(map(str, cells)) + " |") if md else "  ".join(f"{c!s:>10}" for c in cells))
    for label in ("(new)", "(survivors)"):
        for t in timings.get(label, []):
            print(
                f"{label} run finished {t['finished']}: wall {t['wall_s']:.0f} s, CPU {t['cpu_s']:.0f} s, "
                f"load {t['load_before'][0]:.2f}-{t['load_after'][0]:.2f}, {t['mutants_named'] or 'all'} mutants"
            )
    if total["killed"] + total["timeout"] != sum(total.values()):
        print("\nNot killed:" if not md else "\nNot killed:\n")
    for name in sorted(verdicts):
        verdict = verdicts[name]
        if verdict in (*KILLED, "not checked") or not any(fnmatch.fnmatch(mutant_module(name), module_name(p)) for p in modules):
            continue
        print(f"- `{name}` ({mutant_function(name)}): {verdict}" if md else f"  {verdict:>10}  {name}")
        if args.diff:
            diff = subprocess.run([mutmut_executable(), "show", name], cwd=ROOT, capture_output=True, text=True).stdout
            body = "\n".join(line for line in diff.splitlines() if line.startswith(("+", "-")) and line[:3] not in ("+++", "---"))
            print(("  ```diff\n" + "\n".join("  " + x for x in body.splitlines()) + "\n  ```") if md else body)
    if args.fail_under is not None and worst < args.fail_under:
        print(f"\nkill rate below {args.fail_under} % in at least one module", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `report | head` ends quietly
    parser = argparse.ArgumentParser(prog="tools/mutation.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="run mutmut per module (HYPOTHESIS_PROFILE=ci, under nice)")
    p_run.add_argument("modules", nargs="*", help="module files (default: [tool.mutmut] only_mutate)")
    p_run.add_argument("--max-children", type=int, default=2, help="mutmut workers (default 2)")
    p_run.add_argument("--nice", type=int, default=10, help="niceness of the run (default 10)")
    p_run.add_argument("--new", action="store_true", help="only the mutants without a verdict (one mutmut run)")
    p_run.add_argument("--resume", action="store_true", help="per module, only the mutants not checked yet (after a stop)")
    p_run.add_argument("--survivors", action="store_true", help="re-run every mutant not killed (after adding tests)")
    p_run.set_defaults(func=run)
    p_rep = sub.add_parser("report", help="kill rate per module and every mutant not killed")
    p_rep.add_argument("--markdown", action="store_true", help="Markdown table and list (for docs/mutation-testing.md)")
    p_rep.add_argument("--diff", action="store_true", help="show each survivor's diff (mutmut show)")
    p_rep.add_argument("--fail-under", type=float, metavar="PERCENT", help="exit 1 when a module's kill rate is lower")
    p_rep.set_defaults(func=report)
    args = parser.parse_args(argv)
    if getattr(args, "modules", None):
        known = configured_modules()
        for m in args.modules:
            if m not in known:
                parser.error(f"{m}: not a module of [tool.mutmut] only_mutate in pyproject.toml ({', '.join(known)})")
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
