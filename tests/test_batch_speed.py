"""The batched engine's reshuffle (F7-113) and the resumable lockstep run (docs/batch.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

from flip7ref import Game  # noqa: E402
from flip7ref.batch import BatchState  # noqa: E402
from flip7ref.batch.lockstep import compare, main  # noqa: E402

ONE = {"reshuffles": 1}  # reading 1 of reshuffles, as these tests were written (the batch plays unlimited too)


def test_the_numpy_reshuffle_puts_every_discarded_card_in_the_deck() -> None:
    """F7-113 (``shuffle="numpy"``): each game's deck becomes exactly its discard pile, its
    length the pile's, and the pile is then empty."""
    bs = BatchState(Game("flip7", 4, ONE), 50, seed=3, shuffle="numpy")
    rng = np.random.default_rng(5)
    counts = np.minimum(rng.integers(0, 4, (50, bs.C)), bs.copies).astype(np.int16)
    counts[7] = 0
    counts[7, 12] = 1  # a pile of one card
    bs.discard[:] = counts
    bs.reshuffle(np.arange(50))
    for i in range(50):
        n = int(counts[i].sum())
        assert int(bs.dend[i]) == n and int(bs.dtop[i]) == 0
        assert np.sort(bs.deck[i, :n]).tolist() == np.repeat(np.arange(bs.C), counts[i]).tolist()
    assert bs.deck[7, 0] == 12
    assert int(bs.discard.sum()) == 0 and np.array_equal(bs.unseen, counts)


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
