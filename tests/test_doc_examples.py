"""Every Python example of README.md and docs/ runs, and what it prints is what it says.

The examples are found and run by pytest-examples: each ```python block of README.md and
of the Markdown files under docs/ runs as a module of its own (named ``__main__``), and
each ``print(...)`` must be followed by ``#> `` comments holding exactly what it prints.
After changing an example, ``pytest tests/test_doc_examples.py --update-examples`` rewrites
those comments from a real run (then read the diff).

An example whose first line is a ``# slow: ...`` comment (the minute-long numbers+modifiers
solve) is marked ``slow`` and runs only with ``FLIP7REF_SLOW=1``, like the other slow tests.

These tests check the documentation, so they cite no rule ids.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest
from pytest_examples import CodeExample, EvalExample, find_examples

ROOT = Path(__file__).resolve().parent.parent
# Modules of the optional extras ([rl], [table], [cluster], [plot]): an example using one is
# skipped where that extra is not installed, except in CI, which installs every extra.
OPTIONAL = {"numpy", "gymnasium", "pettingzoo", "pyspiel", "open_spiel", "starlette", "uvicorn", "dask", "distributed",
            "matplotlib", "torch"}  # fmt: skip
# A block that only includes a repository file on the site (``--8<-- "conformance/examples/engine.py"``,
# pymdownx.snippets) is that file's, tested where it lives (tests/test_engine_kit.py).
def _numba_typing_ready() -> None:
    """Set numba's typing context up before any example runs: done the first time inside an
    example, while pytest-examples replaces ``print`` with a mock, numba registers the mock
    as the builtin and fails (``AttributeError: __name__``) in the batched engine's examples."""
    try:
        from numba.core.registry import cpu_target
    except ImportError:
        return
    cpu_target.typing_context.refresh()


_numba_typing_ready()

EXAMPLES = [
    e for e in find_examples(str(ROOT / "README.md"), str(ROOT / "docs")) if not e.source.lstrip().startswith("--8<--")
]


def _param(example: CodeExample) -> object:
    slow = example.source.lstrip().startswith("# slow:")
    return pytest.param(example, id=f"{example.path.relative_to(ROOT)}:{example.start_line}", marks=[pytest.mark.slow] * slow)


def test_examples_are_found() -> None:
    """README.md and the analysis page have examples, so a broken finder cannot pass silently."""
    files = {e.path.relative_to(ROOT).as_posix() for e in EXAMPLES}
    assert {"README.md", "docs/analysis.md"} <= files
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("example", [_param(e) for e in EXAMPLES])
def test_example_runs_and_prints_what_it_says(example: CodeExample, eval_example: EvalExample) -> None:
    failure = skip = None
    try:
        if eval_example.update_examples:
            eval_example.run_print_update(example)
        else:
            eval_example.run_print_check(example)
    except ImportError as exc:  # a missing module, or flip7ref.rl's own ImportError naming it
        if (exc.name or "").partition(".")[0] not in OPTIONAL or os.environ.get("CI"):
            raise
        skip = f"needs the optional module {exc.name!r} (an extra of flip7ref)"
    except Exception as exc:  # reported below, outside this block: pytest cannot render the example's traceback
        failure = f"{type(exc).__name__}: {exc}"
    if skip is not None:
        pytest.skip(skip)
    if failure is not None:
        where = f"{example.path.relative_to(ROOT)}:{example.start_line}"
        pytest.fail(f"{where}: the example failed: {failure}", pytrace=False)


def test_rl_without_its_extra_names_the_missing_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the [rl] extra, ``import flip7ref.rl`` fails with an ImportError naming the missing module
    (``exc.name``), so an example importing it is skipped like one importing numpy itself (README's
    fresh-machine ``pytest`` once failed on the docs/rl.md examples here)."""
    for name in [m for m in sys.modules if m == "flip7ref.rl" or m.startswith("flip7ref.rl.")]:
        monkeypatch.delitem(sys.modules, name)
    missing = "gymnasium"  # the first module flip7ref.rl imports
    monkeypatch.setitem(sys.modules, missing, None)  # None in sys.modules: that import raises ModuleNotFoundError
    with pytest.raises(ImportError) as caught:
        importlib.import_module("flip7ref.rl")
    assert caught.value.name == missing and caught.value.name in OPTIONAL
    assert str(caught.value) == (
        f"flip7ref.rl needs the optional [rl] extra ({missing} is missing): pip install 'numpy>=1.24' 'gymnasium>=1.0' "
        "'pettingzoo>=1.24' 'open_spiel>=1.5' (keeps the installed flip7ref); or, from a checkout, flip7ref and the extra: "
        "pip install '.[rl]' (builds flip7ref again)"
    )
