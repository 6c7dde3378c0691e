"""The batched engine's fast paths agree with its general ones, and the resumable lockstep
run (F7-020 the deal, F7-113 the reshuffle; docs/batch.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

from flip7ref import Game  # noqa: E402
from flip7ref.batch import BatchState  # noqa: E402
from flip7ref.batch.lockstep import compare, main  # noqa: E402
from flip7ref.batch.rules import _all, _any, set_rows  # noqa: E402

ONE = {"reshuffles": 1}  # the batched engine plays whole numbers of reshuffles, not the default unlimited (docs/batch.md)


def _arrays(bs: BatchState) -> dict[str, object]:
    return {k: v.copy() for k, v in vars(bs).items() if isinstance(v, np.ndarray)}


@pytest.mark.parametrize("players", [1, 4, 7])
def test_a_fresh_deal_leaves_every_array_as_the_general_deal_does(players: int) -> None:
    """F7-020: `_deal_fresh` (a round's first cards in one pass) then settling gives the same
    state, array by array, as settling the deal one step at a time from its start."""
    fast = BatchState(Game("flip7", players, ONE), 300, seed=11, shuffle="reference")
    slow = fast.copy()
    g = np.arange(300)
    for bs, fresh in ((fast, True), (slow, False)):
        bs._clear_table(g)
        bs._start_round(g)
        if fresh:
            bs._deal_fresh(g)
        bs._settle(g)
        bs._decisions(g)
    a, b = _arrays(fast), _arrays(slow)
    assert a.keys() == b.keys()
    for name in a:
        assert np.array_equal(a[name], b[name]), name
    assert int(fast.llen.sum()) > 0  # cards were dealt


def test_the_numpy_reshuffle_puts_every_discarded_card_in_the_deck() -> None:
    """F7-113 (``shuffle="numpy"``): each game's deck becomes exactly its discard pile, its
    length the pile's, and the pile is then empty."""
    bs = BatchState(Game("flip7", 4, ONE), 50, seed=3, shuffle="numpy")
    rng = np.random.default_rng(5)
    counts = np.minimum(rng.integers(0, 4, (50, bs.C)), bs.copies).astype(np.int16)
    counts[7] = 0
    counts[7, 12] = 1  # a pile of one card
    bs.discard[:] = counts
    bs._reshuffle(np.arange(50))
    for i in range(50):
        n = int(counts[i].sum())
        assert int(bs.dend[i]) == n and int(bs.dtop[i]) == 0
        assert np.sort(bs.deck[i, :n]).tolist() == np.repeat(np.arange(bs.C), counts[i]).tolist()
    assert bs.deck[7, 0] == 12
    assert int(bs.discard.sum()) == 0 and np.array_equal(bs.unseen, counts)


def test_set_rows_writes_whole_rows_and_nothing_else() -> None:
    a = np.arange(30, dtype=np.int16).reshape(5, 2, 3)
    set_rows(a, np.array([1, 3]), -1)
    assert a[1].tolist() == [[-1] * 3] * 2 and a[3].tolist() == [[-1] * 3] * 2
    assert a[0].tolist() == [[0, 1, 2], [3, 4, 5]] and a[4, 1, 2] == 29
    b = np.zeros((4, 3), bool)
    set_rows(b, np.array([2, 0]), np.array([[True, False, True], [False, True, False]]))
    assert b.tolist() == [[False, True, False], [False] * 3, [True, False, True], [False] * 3]
    # hundreds of rows: the path through the one-item-a-row view
    c = np.zeros((1000, 2, 3), np.int8)
    g = np.arange(1, 1000, 3)
    set_rows(c, g, -1)
    set_rows(c, g[:300] + 1, np.arange(300 * 6, dtype=np.int8).reshape(300, 2, 3) % 100)
    assert (c[g] == -1).all() and int(c[0].sum()) == 0 and int(c[3].sum()) == 0
    assert c[2].tolist() == [[0, 1, 2], [3, 4, 5]] and c[5, 1, 2] == 11


def test_any_and_all_read_masks_as_ndarray_any_and_all() -> None:
    assert not _any(np.zeros(5, bool)) and _any(np.array([0, 0, 2]))
    assert _all(np.ones(3, bool)) and not _all(np.array([True, False])) and _all(np.zeros(0, bool))


def test_a_recorded_lockstep_run_skips_the_slices_it_holds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--record``: each slice that agrees is appended; a second run counts them without
    playing them again (a slice recorded with 7 decisions is summed as 7)."""
    record = tmp_path / "lockstep.log"
    assert main(["--games", "3", "--batch", "2", "--record", str(record)]) == 0
    first = compare(4, 2, seed=0, batch=2, options=ONE)["decisions"]
    last = compare(4, 1, seed=2, batch=1, options=ONE)["decisions"]
    assert record.read_text().splitlines() == [
        f"seeds 0-1: 2 games, {first} decisions agree",
        f"seeds 2-2: 1 games, {last} decisions agree",
    ]
    assert f"3 games, {first + last} decisions: no difference" in capsys.readouterr().out
    record.write_text("seeds 0-1: 2 games, 7 decisions agree\n")
    assert main(["--games", "3", "--batch", "2", "--record", str(record)]) == 0
    assert f"3 games, {7 + last} decisions: no difference" in capsys.readouterr().out
    assert len(record.read_text().splitlines()) == 2


def test_a_record_line_whose_seeds_are_not_its_games_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``seeds 5-1: 2 games`` (a hand-edited line) was taken as a slice that agrees; nothing is written."""
    record = tmp_path / "lockstep.log"
    record.write_text("seeds 5-1: 2 games, 3 decisions agree\n")
    assert main(["--games", "2", "--record", str(record)]) == 2
    assert capsys.readouterr().err == (
        f"error: --record {record}:1: expected N = B - A + 1 games in 'seeds A-B: N games', "
        "got 'seeds 5-1: 2 games, 3 decisions agree'\n"
    )
    assert record.read_text() == "seeds 5-1: 2 games, 3 decisions agree\n"


def test_a_record_file_that_is_not_one_gives_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "lockstep.log"
    record.write_text("seeds 0-1: 2 games, 7 decisions agree\nhalf a line\n")
    assert main(["--games", "3", "--record", str(record)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{record}:2: expected 'seeds A-B: N games, D decisions agree'" in err
