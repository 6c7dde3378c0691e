"""The batched engine's kernel (`flip7ref.batch.kernel`) compiled against the same kernel run as Python."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from flip7ref import Game  # noqa: E402
from flip7ref.batch import BatchState  # noqa: E402
from flip7ref.batch.lockstep import compare  # noqa: E402
from flip7ref.batch.state import choose_backend  # noqa: E402
from flip7ref.core.errors import OptionError  # noqa: E402

ONE = {"reshuffles": 1}  # reading 1 of reshuffles, as these tests were written (the batch plays unlimited too)


def _arrays(bs: BatchState) -> dict[str, object]:
    return {k: v for k, v in bs.__dict__.items() if isinstance(v, np.ndarray)}


@pytest.mark.parametrize(("players", "games", "steps"), [(4, 64, 400), (2, 32, 300), (7, 16, 300), (1, 8, 200)])
def test_backends_agree_array_for_array(players: int, games: int, steps: int) -> None:
    """Same seeds, same random actions: every array of the two backends is equal after every
    step and every reset (at 4 players reshuffles included)."""
    game = Game("flip7", players, ONE)
    a = BatchState(game, games, 0, "reference", backend="python")
    b = BatchState(game, games, 0, "reference", backend="numba")
    assert (a.backend, b.backend) == ("python", "numba")
    rng = np.random.default_rng(players)
    reshuffled = 0
    for i in range(steps):
        act = np.argmax(rng.random(a.legal.shape) * a.legal, 1)
        assert np.array_equal(a.step(act), b.step(act))
        for name, arr in _arrays(a).items():
            assert np.array_equal(arr, getattr(b, name)), f"step {i}: {name}"
        done = np.flatnonzero(a.done)
        if done.size:
            reshuffled += int(b.shuffles[done].sum())
            seeds = list(range(1000 + i * games, 1000 + i * games + done.size))
            a.reset(done, seeds)
            b.reset(done, seeds)
    reshuffled += int(b.shuffles.sum())
    assert reshuffled >= (1 if players >= 4 else 0)


def test_illegal_and_subset_steps() -> None:
    """An index out of range or not legal is refused (game unchanged); ``games`` steps a subset."""
    bs = BatchState(Game("flip7", 4, ONE), 4, 3, backend="numba")
    before = bs.copy()
    ok = bs.step(np.array([9, -1, 1, 0]))
    assert ok.tolist() == [False, False, bool(before.legal[2, 1]), True]
    assert int(bs.moves[0]) == 0 and int(bs.moves[3]) == 1
    ok = bs.step(np.array([0]), np.array([1]))
    assert ok.tolist() == [True] and int(bs.moves[1]) == 1


def test_lockstep_with_the_compiled_backend() -> None:
    """200 games in lockstep with the reference (observations, masks and event logs), as many
    decisions as the uncompiled kernel's run."""
    compiled = compare(4, 200, seed=5, batch=100, backend="numba", options=ONE)
    assert compiled == compare(4, 200, seed=5, batch=100, backend="python", options=ONE)
    assert compiled["games"] == 200


def test_choose_backend() -> None:
    assert choose_backend("auto") == "numba"
    assert choose_backend("python") == "python"
    for name in ("jax", "numpy"):  # numpy: the NumPy rule body is gone (issue 43)
        with pytest.raises(OptionError, match=f"^backend: expected 'auto', 'numba' or 'python', got '{name}'$"):
            BatchState(Game("flip7", 2, ONE), 1, backend=name)
