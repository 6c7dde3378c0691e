"""Bad indices, actions, seeds and batch sizes given to the batched engines (`flip7ref.batch.guards`).

The compiled kernel reads and writes its arrays without bounds checks: a game index past the
batch or a negative one used to write outside them (``step(actions, games=[8])`` at batch 8
corrupted the heap).  Every bad value is one `OptionError`, the same message for both backends
of base Flip 7, for Vengeance and for the vector envs, raised before any game changes and
before the compiled code runs.  The compiled backend's refusals are checked in a child process
(a regression kills the child, not pytest), its compiled entry point replaced by a function
that fails if it is reached.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from flip7ref import Game  # noqa: E402
from flip7ref.batch import BatchState, VengeanceState, guards, init, step  # noqa: E402
from flip7ref.batch.lockstep import main as lockstep  # noqa: E402
from flip7ref.batch.policies import random_actions, threshold_actions  # noqa: E402
from flip7ref.batch.state import kernel_of  # noqa: E402
from flip7ref.batch.v_policies import v_threshold_actions  # noqa: E402
from flip7ref.batch.vector_env import Flip7VectorEnv, VengeanceVectorEnv  # noqa: E402
from flip7ref.batch.vengeance import init as v_init  # noqa: E402
from flip7ref.core.errors import OptionError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
B = 8  # games of the state every case is given; 4 players, so 6 action indices (2 for Vengeance's hit, stay...)
TWICE = "a game moves once a call"
MASK = "a bool array (a mask: np.flatnonzero(mask))"

CASES: list[tuple[str, str]] = [
    # game indices: out of range, negative, repeated, not whole numbers
    ("S.step([0], games=[8])", "games[0]: expected a game index 0..7, got 8"),
    ("S.step([0, 0], games=[3, 10**9])", "games[1]: expected a game index 0..7, got 1000000000"),
    ("S.step([0], games=[10**30])", "games[0]: expected a game index 0..7, got 1000000000000000000000000000000"),
    ("S.step([0], games=[-1])", "games[0]: expected a game index 0..7, got -1"),
    ("S.step([0], games=np.array([-1], np.int8))", "games[0]: expected a game index 0..7, got -1"),
    ("S.step([0], games=np.array([2**64 - 1], np.uint64))", "games[0]: expected a game index 0..7, got 18446744073709551615"),
    ("S.step([0, 0], games=[0, 0])", f"games[1]: game 0 is listed twice (also games[0]); {TWICE}"),
    ("S.step([0, 1, 0], games=np.array([5, 2, 5]))", f"games[2]: game 5 is listed twice (also games[0]); {TWICE}"),
    ("S.step([0], games=[1.0])", "games[0]: expected a game index (a whole number), got 1.0"),
    ("S.step([0, 0], games=np.array([0.0, 1.0]))", "games: expected game indices (whole numbers), got a float64 array"),
    ("S.step([0] * 8, games=np.ones(8, bool))", f"games: expected game indices (whole numbers), got {MASK}"),
    ("S.step([0], games=['0'])", "games[0]: expected a game index (a whole number), got '0'"),
    ("S.step([0], games=[None])", "games[0]: expected a game index (a whole number), got None"),
    ("S.step([0], games=[[0]])", "games: expected a 1-D sequence of game indices, got shape (1, 1)"),
    ("S.step([0], games=3)", "games: expected a 1-D sequence of game indices, got 3"),
    ("S.step([0], games='0')", "games: expected a 1-D sequence of game indices, got '0'"),
    # actions: not whole numbers, not one per game
    ("S.step(['hit'] * 8)", "actions[0]: expected an action index (a whole number), got 'hit'"),
    ("S.step([0, None], games=[0, 1])", "actions[1]: expected an action index (a whole number), got None"),
    ("S.step(None)", "actions: expected a 1-D sequence of action indices, got None"),
    ("S.step('hit', games=[0])", "actions: expected a 1-D sequence of action indices, got 'hit'"),
    ("S.step([1.5], games=[0])", "actions[0]: expected an action index (a whole number), got 1.5"),
    ("S.step(np.zeros(8))", "actions: expected action indices (whole numbers), got a float64 array"),
    ("S.step(np.ones(8, bool))", f"actions: expected action indices (whole numbers), got {MASK}"),
    ("S.step([0, 0], games=[0])", "actions: expected 1 action indices, got shape (2,)"),
    ("S.step(np.zeros((8, 1), np.int64))", "actions: expected a 1-D sequence of action indices, got shape (8, 1)"),
    ("S.step([10**30], games=[0])", "actions[0]: expected an action index, got 1000000000000000000000000000000 (past 64 bits)"),
    ("step(S, ['hit'] * 8)", "actions[0]: expected an action index (a whole number), got 'hit'"),
    # new games: their slots and their seeds
    ("S.reset([8])", "games[0]: expected a game index 0..7, got 8"),
    ("S.reset([-1])", "games[0]: expected a game index 0..7, got -1"),
    ("S.reset([2, 2])", f"games[1]: game 2 is listed twice (also games[0]); {TWICE}"),
    ("S.reset([0.5])", "games[0]: expected a game index (a whole number), got 0.5"),
    ("S.reset(seeds=[1.5] * 8)", "seeds[0]: expected a whole number or a string, got 1.5"),
    ("S.reset([0, 1], seeds=[4, None])", "seeds[1]: expected a whole number or a string, got None"),
    ("S.reset([0], seeds=[True])", "seeds[0]: expected a whole number or a string, got True"),
    ("S.reset([0, 1], seeds='ab')", "seeds: expected a sequence of seeds (one per game), got 'ab'"),
    ("S.reset([0, 1], seeds=[1])", "seeds: expected 2 seeds (one per game), got 1"),
    ("S.reset(seeds=5)", "seeds: expected a sequence of seeds (one per game), got 5"),
    # a new batch: its seed and size
    ("make(B, seed=-1)", "seed: expected a whole number >= 0, got -1"),
    ("make(B, seed='x')", "seed: expected a whole number >= 0, got 'x'"),
    ("make(B, seed=1.5)", "seed: expected a whole number >= 0, got 1.5"),
    ("make(B, seed=True)", "seed: expected a whole number >= 0, got True"),
    ("make(0)", "batch: expected a whole number >= 1, got 0"),
    ("make(-3)", "batch: expected a whole number >= 1, got -3"),
    ("make(2.0)", "batch: expected a whole number >= 1, got 2.0"),
    ("make('8')", "batch: expected a whole number >= 1, got '8'"),
    ("start(seed=-1, batch=B)", "seed: expected a whole number >= 0, got -1"),
    # reading: the seat observed, the games a policy decides
    ("S.observe(4)", "observer: expected a seat 0..3, got 4"),
    ("S.observe(-1)", "observer: expected a seat 0..3, got -1"),
    ("S.observe([0, 1, 2])", "observer: expected one seat or 8 seats (one per game), got shape (3,)"),
    ("S.observe(np.full(8, 9))", "observer[0]: expected a seat 0..3, got 9"),
    ("S.observe(1.5)", "observer: expected a 1-D sequence of seats, got 1.5"),
    ("threshold(S, [8], 20)", "games[0]: expected a game index 0..7, got 8"),
    ("threshold(S, [-1], 20)", "games[0]: expected a game index 0..7, got -1"),
    ("random_actions(S, np.array([-1]), np.random.default_rng(0))", "games[0]: expected a game index 0..7, got -1"),
    # the vector envs (4 games)
    ("env.step(['hit'] * 4)", "actions[0]: expected an action index (a whole number), got 'hit'"),
    ("env.step(np.zeros(4))", "actions: expected action indices (whole numbers), got a float64 array"),
    ("env.step([0, 0, 0])", "actions: expected 4 action indices, got shape (3,)"),
    ("env.reset(seed=-1)", "seed: expected a whole number >= 0, got -1"),
    ("env.reset(seed='x')", "seed: expected a whole number >= 0, got 'x'"),
    ("env.reset(seed=[1.5])", "seed: expected a whole number >= 0, got 1.5"),
]
"""``(code, message)``: each call (``S`` the state of ``B`` games, ``make(batch, seed=...)`` a new
one, ``start`` the pure ``init``, ``env`` a vector env over the same engine) and the exact
message of the `OptionError` it raises, whichever engine and backend."""


def _arrays(obj: Any) -> dict[str, Any]:
    return {k: v for k, v in vars(obj).items() if isinstance(v, np.ndarray)}


def outcomes(engine: str) -> dict[str, str]:
    """Run every case of `CASES` on ``engine`` (``numba``, ``python``: base Flip 7's backends;
    ``vengeance``): ``{code: "OptionError: message"}`` (or what else happened), and
    ``"unchanged"``: whether every array of the state and the env is as it was.  Under
    ``numba`` the compiled entry point fails when reached (after the states are built)."""
    if engine == "vengeance":
        game = Game("vengeance", 4, {"reshuffles": 1})
        state: Any = VengeanceState(game, B, 3)
        env: Any = VengeanceVectorEnv(num_envs=4)
        scope: dict[str, Any] = {
            "make": lambda batch, seed=0: VengeanceState(game, batch, seed),
            "start": v_init,
            "threshold": v_threshold_actions,
        }
    else:
        game = Game("flip7", 4, {"reshuffles": 1})
        state = BatchState(game, B, 3, backend=engine)
        env = Flip7VectorEnv(num_envs=4)
        env.state.backend, env.state.kernel = engine, kernel_of(engine)  # the backends take turns on one state
        scope = {
            "make": lambda batch, seed=0: BatchState(game, batch, seed, backend=engine),
            "start": init,
            "threshold": threshold_actions,
        }
    env.reset(seed=0)
    if engine == "numba":
        from flip7ref.batch import kernel

        def reached(*args: object) -> None:
            raise AssertionError("the compiled code was reached")

        kernel.resume = reached
    scope.update({"S": state, "env": env, "np": np, "B": B, "step": step, "random_actions": random_actions})
    before = [{k: v.copy() for k, v in _arrays(x).items()} for x in (state, env.state, env)]
    out: dict[str, str] = {}
    for code, _ in CASES:
        try:
            eval(code, scope)
            out[code] = "accepted"
        except Exception as exc:  # each outcome is recorded and compared
            out[code] = f"{type(exc).__name__}: {exc}"
    after = [_arrays(x) for x in (state, env.state, env)]
    same = all(np.array_equal(v, a[k]) for b, a in zip(before, after, strict=True) for k, v in b.items())
    out["unchanged"] = "yes" if same else "no"
    return out


EXPECTED = {code: f"OptionError: {message}" for code, message in CASES} | {"unchanged": "yes"}


def test_bad_input_is_refused_the_same_by_the_python_backend() -> None:
    assert outcomes("python") == EXPECTED


def test_bad_input_is_refused_the_same_by_the_vengeance_engine() -> None:
    assert outcomes("vengeance") == EXPECTED


def test_bad_input_is_refused_the_same_before_the_compiled_code_runs() -> None:
    """In a child process (a write outside the arrays kills it, not pytest), with the
    compiled entry point failing when reached: every case refused as by the python backend."""
    pytest.importorskip("numba")
    code = f"import json, runpy; ns = runpy.run_path({str(Path(__file__))!r}); print(json.dumps(ns['outcomes']('numba')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1]) == EXPECTED


def test_a_copy_of_games_checks_its_indices_and_may_repeat_them() -> None:
    vs = VengeanceState(Game("vengeance", 2, {"reshuffles": 1}), 3, 0)
    assert vs.rows([2, 2, 0]).B == 3
    with pytest.raises(OptionError, match=r"^games\[1\]: expected a game index 0\.\.2, got -1$"):
        vs.rows([0, -1])


def test_accepted_forms_of_indices() -> None:
    """Lists, tuples, any integer dtype, strided views, NumPy integers, an empty list: the
    same games and actions as an int64 array."""
    bs = BatchState(Game("flip7", 4, {"reshuffles": 1}), B, 3, backend="python")
    want = bs.copy()
    want.step(np.array([0, 0], np.int64), np.array([6, 1], np.int64))
    for games, actions in (
        ([6, 1], [0, 0]),
        ((np.int8(6), np.uint64(1)), (np.uint8(0), 0)),
        (np.array([6, 1], np.uint16), np.array([0, 0], np.int32)),
        (np.arange(8)[6::-5], np.zeros(4, np.int64)[::2]),
    ):
        got = bs.copy()
        assert got.step(actions, games).tolist() == [True, True]
        assert all(np.array_equal(v, getattr(got, k)) for k, v in _arrays(want).items())
    assert bs.step([], []).tolist() == []
    bs.reset([], [])
    assert guards.game_seeds(np.array([3, 4]), 2) == [3, 4]
    assert guards.game_seeds(["x", -1], 2) == ["x", -1]  # as Game.new_initial_state takes them


# ---------------------------------------------------------------- memory


def _per_game(make: Any) -> int:
    """Bytes a game of the state ``make(batch)`` builds holds (its per-game arrays, counted on
    a real state of 11 games) plus the first deal's scratch."""
    s = make(11)
    return sum(v.nbytes for v in _arrays(s).values() if v.shape[:1] == (11,)) // 11 + guards.DEAL_SCRATCH * s.D


MAKERS = {
    "flip7": lambda b: BatchState(Game("flip7", 4, {"reshuffles": 1}), b, backend="python"),
    "vengeance": lambda b: VengeanceState(Game("vengeance", 4, {"reshuffles": 1}), b),
}


@pytest.mark.parametrize("edition", sorted(MAKERS))
def test_a_batch_too_large_for_memory_is_refused_before_allocating(edition: str, monkeypatch: pytest.MonkeyPatch) -> None:
    make = MAKERS[edition]
    per = _per_game(make)
    monkeypatch.setattr(guards, "available_memory", lambda: 1_000_000)
    tracemalloc.start()
    try:
        with pytest.raises(OptionError) as caught:
            make(10_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    need = f"batch: 10,000 games need {10_000 * per:,} bytes of memory ({per:,} a game)"
    assert str(caught.value) == f"{need}, more than the 1,000,000 bytes available"
    assert peak < 200_000  # one game's arrays, to measure them; not the batch's


@pytest.mark.parametrize("edition", sorted(MAKERS))
def test_a_huge_batch_names_the_bytes_it_needs(edition: str) -> None:
    make = MAKERS[edition]
    per = _per_game(make)
    if guards.available_memory() is None:  # pragma: no cover - neither /proc nor sysconf
        pytest.skip("the memory available cannot be read here")
    tracemalloc.start()
    try:
        with pytest.raises(OptionError) as caught:
            make(10**12)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    need = re.escape(f"batch: 1,000,000,000,000 games need {10**12 * per:,} bytes of memory ({per:,} a game)")
    assert re.fullmatch(need + r", more than the [\d,]+ bytes available", str(caught.value))
    assert peak < 200_000


def test_a_batch_numpy_cannot_allocate_is_one_option_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the memory available cannot be read, NumPy's MemoryError is the same refusal."""
    per = _per_game(MAKERS["flip7"])
    monkeypatch.setattr(guards, "available_memory", lambda: None)
    with pytest.raises(OptionError) as caught:
        MAKERS["flip7"](10**14)
    need = f"batch: {10**14:,} games need {10**14 * per:,} bytes of memory ({per:,} a game)"
    assert str(caught.value) == f"{need}, more than can be allocated"


# ---------------------------------------------------------------- the lockstep command


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seed", "-1"], "--seed must be a whole number >= 0, got -1"),
        (["--seed", "x"], "argument --seed: invalid int value: 'x'"),
        (["--games", "x"], "argument --games: invalid int value: 'x'"),
        (["--games", "-5"], "--games and --batch must be at least 1, --players 1..18"),
        (["--batch", "1.5"], "argument --batch: invalid int value: '1.5'"),
        (["--batch", "0"], "--games and --batch must be at least 1, --players 1..18"),
    ],
)
def test_lockstep_bad_flags_exit_2_in_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        lockstep(argv)
    assert caught.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["usage: python -m flip7ref.batch.lockstep [options]", f"python -m flip7ref.batch.lockstep: error: {message}"]


def test_lockstep_batch_too_large_exits_2_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert lockstep(["--games", str(10**12), "--batch", str(10**12), "--backend", "python"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    prog = re.escape("python -m flip7ref.batch.lockstep: error: ")
    assert re.fullmatch(prog + r"batch: 1,000,000,000,000 games need [\d,]+ bytes .*", err[0])


# ---------------------------------------------------------------- the two backends agree


@settings(max_examples=max(10, settings().max_examples // 3))  # a third of the profile's (tests/conftest.py)
@given(st.data())
def test_the_backends_agree_on_every_accepted_step(data: st.DataObject) -> None:
    """Random subsets of the games in any order, legal and illegal indices in several integer
    forms: both backends return the same and leave every array the same; finished games are
    dealt again with the same seeds (the kernel compiled and as Python)."""
    pytest.importorskip("numba")
    players = data.draw(st.sampled_from([1, 2, 4, 7]), label="players")
    batch = data.draw(st.integers(1, 9), label="batch")
    game = Game("flip7", players, {"reshuffles": 1})
    seed = data.draw(st.integers(0, 10_000), label="seed")
    a = BatchState(game, batch, seed, "reference", backend="python")
    b = BatchState(game, batch, seed, "reference", backend="numba")
    A = a.A
    for turn in range(data.draw(st.integers(1, 25), label="steps")):
        games = data.draw(st.lists(st.integers(0, batch - 1), unique=True, max_size=batch), label="games")
        actions = []
        for g in games:
            legal = np.flatnonzero(a.legal[g]).tolist()
            if legal and data.draw(st.integers(0, 4)):
                actions.append(legal[data.draw(st.integers(0, len(legal) - 1))])
            else:
                actions.append(data.draw(st.integers(-2, A + 1)))
        form = data.draw(st.sampled_from(["list", "int64", "int32", "uint16"]), label="form")
        if form == "list":
            ga: Any = games
            aa: Any = actions
        else:
            ga = np.array(games, dtype=form)
            aa = np.array(actions, np.int64) if form == "uint16" else np.array(actions, dtype=form)
        full = data.draw(st.booleans()) and len(games) == batch and games == sorted(games)
        ta = a.step(aa) if full else a.step(aa, ga)
        tb = b.step(aa) if full else b.step(aa, ga)
        assert ta.tolist() == tb.tolist()
        for name, arr in _arrays(a).items():
            assert np.array_equal(arr, getattr(b, name)), f"step {turn}: {name}"
        done = np.flatnonzero(a.done)
        if done.size:
            seeds = [f"{seed}-{turn}-{g}" for g in done.tolist()]
            a.reset(done, seeds)
            b.reset(done, seeds)
