"""The kernel's event log (`flip7ref.batch.evlog`): the compiled kernel's events are the uncompiled one's, row by row."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from flip7ref import Game  # noqa: E402
from flip7ref.batch import BatchState, evlog  # noqa: E402
from flip7ref.batch.lockstep import compare  # noqa: E402
from flip7ref.core.errors import Flip7RefError, OptionError  # noqa: E402

ONE = {"reshuffles": 1}


def _pair(players: int, games: int, seed: int, capacity: int | None = None) -> tuple[BatchState, BatchState]:
    game = Game("flip7", players, ONE)
    a = BatchState(game, games, seed, "reference", backend="python")
    b = BatchState(game, games, seed, "reference", backend="numba")
    a.record_events()
    b.record_events(capacity)
    a.reset()
    b.reset()
    return a, b


def _play(a: BatchState, b: BatchState, steps: int, seed: int, read_every: int = 0) -> int:
    """Step both with the same random actions (finished games dealt again); the logs are compared
    every ``read_every`` steps (0: at the end only).  Returns the reshuffles done."""
    rng = np.random.default_rng(seed)
    shuffles = 0
    for i in range(steps):
        act = np.argmax(rng.random(a.legal.shape) * a.legal, 1)
        assert np.array_equal(a.step(act), b.step(act))
        if read_every and i % read_every == 0:
            for g in range(a.B):
                assert b.log[g] == a.log[g], f"step {i}, game {g}"
        done = np.flatnonzero(a.done)
        if done.size:
            shuffles += int(a.shuffles[done].sum())
            seeds = list(range(500 + i * a.B, 500 + i * a.B + done.size))
            a.reset(done, seeds)
            b.reset(done, seeds)
    assert a.log is not None and b.log is not None
    for g in range(a.B):
        assert b.log[g] == a.log[g], f"game {g}"
    return shuffles + int(a.shuffles.sum())


@pytest.mark.parametrize(("players", "games", "steps"), [(4, 32, 400), (1, 8, 150), (2, 16, 300), (18, 4, 300)])
def test_compiled_log_is_the_python_log(players: int, games: int, steps: int) -> None:
    """Same seeds and actions: each game's events read from the compiled kernel are the
    uncompiled kernel's, event for event (reshuffles and games dealt again in a slot included;
    the lockstep compares them with the reference's)."""
    a, b = _pair(players, games, players)
    shuffles = _play(a, b, steps, players)
    assert isinstance(b.log, evlog.EventLog) and isinstance(a.log, evlog.EventLog)
    assert sum(len(a.log[g]) for g in range(games)) > 20 * games
    assert shuffles >= (1 if players >= 4 else 0)


def test_full_buffers_are_moved_aside() -> None:
    """The smallest buffer allowed (twice `evlog.room`): games stop before a step without
    room, their rows are moved aside, and nothing is lost, read mid-game or at the end."""
    small = 2 * evlog.room(4, BatchState(Game("flip7", 4, ONE), 1).held_rows)
    a, b = _pair(4, 16, 9, small)
    assert b.ev.shape == (16, small, evlog.FIELDS)
    spills = []
    real = b.log.spill

    def counted(games: object) -> None:
        spills.append(games)
        real(games)

    b.log.spill = counted
    _play(a, b, 300, 9, read_every=41)
    assert len(spills) > 10
    assert int(b.ev_n.max()) <= small


def test_capacity_below_one_step_is_refused() -> None:
    bs = BatchState(Game("flip7", 4, ONE), 2, backend="numba")
    need = 2 * evlog.room(4, bs.held_rows)
    with pytest.raises(OptionError, match=f"capacity: expected a whole number of rows >= {need} for 4 players, got 10"):
        bs.record_events(10)
    assert bs.log is None and bs.ev.shape == (2, 0, evlog.FIELDS)


def test_a_write_past_the_buffer_is_not_made_and_raises() -> None:
    """The compiled writes are bounded: with the room check defeated (``ev_room`` 0) a buffer
    of 3 rows overflows at the first round's deal; the rows past it are counted, not written
    and the step raises."""
    bs = BatchState(Game("flip7", 4, ONE), 2, backend="numba")
    bs.record_events()
    bs.ev = np.zeros((2, 3, evlog.FIELDS), np.int32)
    bs.ev_room = 0
    with pytest.raises(Flip7RefError, match=r"event log: games \[0, 1\] wrote more than the 3 rows of their buffer"):
        bs.reset()
    assert int(bs.ev_n.min()) > 3
    assert bs.ev[:, :, 0].tolist() == [[evlog.ROUND_STARTED, evlog.DEALT_DEAL, evlog.DEALT_DEAL]] * 2


def test_log_reads_copies_and_forgets() -> None:
    """``log[g] = None`` forgets a game's events (lockstep does it), a copy keeps its own log,
    an index out of range is an IndexError, and iterating reads every game."""
    a, b = _pair(4, 4, 3)
    first = b.log[0]
    assert first[0].type == "round_started" and first == a.log[0]
    twin = b.copy()
    b.log[1] = None
    assert b.log[1] is None
    assert twin.log[1] == a.log[1]
    act = np.zeros(4, np.int64)  # hit everywhere (always legal at an offer)
    a.step(act)
    twin.step(act)
    assert [twin.log[g] for g in range(4)] == list(a.log)
    assert len(list(twin.log)) == 4
    with pytest.raises(IndexError, match="game 4 is not one of the 4 games"):
        b.log[4]


def test_lockstep_compares_the_compiled_event_logs() -> None:
    """The lockstep comparison keeps and compares the compiled backend's event logs too."""
    assert compare(4, 60, seed=11, batch=30, backend="numba", options=ONE)["games"] == 60
