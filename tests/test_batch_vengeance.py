"""The batched Vengeance engine (flip7ref.batch.vengeance) held to the reference: lockstep over
random games, the Vengeance conformance cases through the protocol, and its own API (V-011,
V-020, V-022, V-030, V-031, V-033, V-036, V-043, V-044, V-045..V-048, V-050, V-060, V-072)."""

from __future__ import annotations

import os
import sys

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

from flip7ref import Game  # noqa: E402
from flip7ref.batch.lockstep import compare  # noqa: E402
from flip7ref.batch.v_engine import action_index, legal_strings, position, run_case, score  # noqa: E402
from flip7ref.batch.vengeance import VengeanceState, choose_backend, init, step  # noqa: E402
from flip7ref.core.errors import OptionError  # noqa: E402
from flip7ref.rl.actions import ActionIndex  # noqa: E402
from flip7ref.rl.encoding import ObservationEncoder  # noqa: E402

ONE = {"reshuffles": 1}  # reading 1 of reshuffles, as these tests were written (the batch plays unlimited too)
# CI plays a slice; FLIP7REF_SLOW=1 the 2,000 games (python -m flip7ref.batch.lockstep
# --edition vengeance --games N for more)
_GAMES = 2000 if os.environ.get("FLIP7REF_SLOW") else 100


def test_lockstep_random_four_player_vengeance_games_agree_with_the_reference() -> None:
    """Every decision of 100 random 4-player Vengeance games (2,000 with FLIP7REF_SLOW=1: whole
    observation, mask of 3,086 indices, event log, final totals and winners) is the reference's."""
    done = compare(4, _GAMES, seed=0, batch=100, edition="vengeance", options=ONE)
    assert done["games"] == _GAMES
    assert done["decisions"] > 100 * _GAMES  # about 128 decisions a game under random play


@pytest.mark.parametrize("players", [1, 2, 3, 6])
def test_lockstep_other_player_counts(players: int) -> None:
    """V-003, V-073: 1, 2, 3 and 6 players, 10 games each."""
    assert compare(players, 10, seed=20_000 + players, batch=10, edition="vengeance", options=ONE)["games"] == 10


def test_lockstep_an_exhausted_deck_and_short_games() -> None:
    """V-072, V-075: no reshuffle at all (a Hit on an empty deck stays, a forced draw ends),
    and a low target score."""
    assert compare(4, 10, seed=5, batch=10, edition="vengeance", options={"reshuffles": 0, "target_score": 600})["games"] == 10
    assert compare(3, 20, seed=7, batch=20, edition="vengeance", options={"reshuffles": 1, "target_score": 30})["games"] == 20


def test_the_same_seed_deals_the_reference_deck_and_the_layouts_are_the_rl_encoding() -> None:
    from flip7ref.batch.lockstep import _settled

    game = Game("vengeance", 4, ONE)
    bs = VengeanceState(game, 2, seed=11)
    ref = _settled(game.new_initial_state(seed=11))  # at its first decision, as the batch is
    assert bs.deck[0, bs.dtop[0] : bs.dend[0]].tolist() == list(ref.draw)
    assert len(ref.draw) == 104  # 108 cards, four dealt
    assert bs.observe(0).shape == (2, ObservationEncoder(game).size) == (2, 374)
    assert bs.legal.shape == (2, ActionIndex(game).size) == (2, 3086)
    assert bs.blocks == ActionIndex(game).blocks  # built without flip7ref.rl (the [rl] extra)
    assert VengeanceState(Game("vengeance", 3, ONE), 1).A == ActionIndex(Game("vengeance", 3, ONE)).size == 1589


def test_init_step_is_pure_and_an_illegal_index_changes_nothing() -> None:
    state = init(seed=3, batch=4, game=Game("vengeance", 4, ONE))
    before = state.observe(0).copy()
    legal = np.argmax(state.legal, 1)
    new = step(state, legal)
    assert (state.observe(0) == before).all()
    assert int(new.moves.sum()) == 4
    bad = np.full(4, 3085)  # a swap index, never legal at an offer
    taken = new.step(np.where(new.kind == 5, legal, bad))
    assert not taken[new.kind != 5].any()


def _case(lines: dict[str, list[str]], draw: list[str], actions: list[str], players: int = 3, **setup: object) -> dict:
    return {
        "kind": "transition", "edition": "vengeance", "options": {"reshuffles": "1"},
        "setup": {"players": players, "dealer": players - 1, "lines": lines, "draw": draw, **setup},
        "actions": actions,
    }  # fmt: skip


def test_lucky13_pairs_only_with_a_13() -> None:
    """V-036: Lucky 13 lets one more 13 in, not another rank (a line with Lucky 13 and an 11
    busts on a second 11: the bug lockstep found first)."""
    out = run_case(_case({"0": ["lucky13", "11"]}, ["11"], ["hit"]))
    assert out["statuses"]["0"] == "busted"
    out = run_case(_case({"0": ["lucky13", "11"]}, ["13"], ["hit"]))
    assert out["statuses"]["0"] == "active" and out["lines"]["0"] == ["lucky13", "11", "13"]


def test_unlucky7_wipes_the_line_and_the_zero_forbids_staying() -> None:
    """V-033: Unlucky 7 discards the other numbers and modifiers; V-031: The Zero's holder may only hit."""
    out = run_case(_case({"0": ["7", "12", "-4"]}, ["unlucky7"], ["hit"]))
    assert out["lines"]["0"] == ["unlucky7"] and out["statuses"]["0"] == "active"
    assert {"type": "line_wiped", "seat": 0, "cards": ["7", "12", "-4"]} in out["events"]
    bs = position(Game("vengeance", 3, ONE), {"players": 3, "dealer": 2, "lines": {"0": ["0", "5"]}, "draw": ["3"]})
    assert legal_strings(bs) == ["hit"]


def test_a_modifier_is_given_to_a_chosen_player_not_busted() -> None:
    """V-050: the revealer gives -8 to a player not busted (the busted seat 1 is not offered)."""
    bs = position(Game("vengeance", 3, ONE), {"players": 3, "dealer": 2, "lines": {"0": ["1"], "1": ["9", "9"], "2": ["3"]},
                                         "statuses": {"1": "busted"}, "draw": ["-8"]})  # fmt: skip
    bs.step(np.array([action_index(bs, "hit")]))
    assert legal_strings(bs) == ["target 0", "target 2"]


def test_steal_picks_are_written_in_the_references_positions() -> None:
    """V-046: a Steal played on seat 0 lets it take any card of another line showing cards;
    the kind-level mask is written back as every position of each kind."""
    bs = position(Game("vengeance", 3, ONE), {"players": 3, "dealer": 2, "lines": {"0": ["1"], "1": ["9", "-2"], "2": []},
                                         "draw": ["steal"]})  # fmt: skip
    bs.step(np.array([action_index(bs, "hit")]))
    bs.step(np.array([action_index(bs, "target 0")]))
    assert legal_strings(bs) == ["steal 1 0", "steal 1 1"]
    bs.step(np.array([action_index(bs, "steal 1 0")]))
    assert bs.lorder[0, 0, : bs.llen[0, 0]].tolist() == [Game("vengeance", 3, ONE).code(c) for c in ("1", "9")]


@pytest.mark.parametrize(
    ("line", "points", "flip7"),
    [
        (["10", "/2", "-2"], 3, False),  # V-052 ÷2 rounds down, then V-051 negatives
        (["3", "-10"], 0, False),  # V-053: floor 0 outside Brutal Mode
        (["0", "12", "9"], 0, False),  # V-030: The Zero scores 0 without a Flip 7
        (["0", "1", "2", "3", "4", "5", "6"], 36, True),  # V-032: with a Flip 7, 21 + 15
        (["13", "lucky13", "1", "2", "3", "4", "5"], 56, True),  # V-036, D-V-03 twice: 41 + 15
    ],
)
def test_scoring(line: list[str], points: int, flip7: bool) -> None:
    assert score(Game("vengeance", 1, ONE), line) == {"score": points, "flip7": flip7}


def test_games_the_engine_does_not_play_are_refused_in_one_line() -> None:
    """Brutal Mode, another reading, two decks, another edition (``reshuffles: unlimited`` is played
    since issue 43 item 4: tests/test_batch.py)."""
    with pytest.raises(OptionError, match=r"options\.brutal: the batched engine plays 'false' only, got 'true'"):
        VengeanceState(Game("vengeance", 4, {"brutal": "true"}), 1)
    with pytest.raises(OptionError, match=r"options\.swap_scope: the batched engine plays 'any-two' only"):
        VengeanceState(Game("vengeance", 4, {"swap_scope": "own-and-other"}), 1)
    with pytest.raises(OptionError, match=r"options\.decks: the batched engine plays one deck, got 2"):
        VengeanceState(Game("vengeance", 4, {"decks": 2, "reshuffles": 1}), 1)
    why = r"^edition flip7 \(flip7.yaml\): modifier 'x2' has op 'multiply'; the batched vengeance engine plays the ops"
    with pytest.raises(OptionError, match=why + " add, divide only$"):
        VengeanceState(Game("flip7", 4, ONE), 1)


def test_vengeance_conformance_cases_through_the_protocol() -> None:
    """The adapter declares edition vengeance: every case it takes passes (none fails or
    errors); only cases its declared readings, players or decks cannot take are skipped."""
    from flip7ref.checking.conformance import load_cases
    from flip7ref.checking.harness import run_engine

    cases = [c for c in load_cases() if c["edition"] == "vengeance"]
    impl, results = run_engine(f"{sys.executable} -m flip7ref.batch.engine", cases, timeout=60)
    assert "vengeance" in impl["editions"]
    # V-C0341 (V-037): a Zero holder's bar is lifted once The Zero left her line (it failed
    # on the NumPy engine, which kept the bar)
    assert [r.case_id for r in results if r.status in ("fail", "error")] == []
    assert next(r.status for r in results if r.case_id == "V-C0341") == "pass"
    status = [r.status for r in results]
    assert status.count("pass") >= 200
    skipped = [r.message for r in results if r.status == "skip"]
    assert len(skipped) <= 12  # V-C0350 (brutal_penalty's default, in Brutal Mode) among them
    assert all("readings" in m or "players" in m for m in skipped)


def test_the_compiled_and_the_python_kernel_leave_every_array_alike() -> None:
    """The kernel (`flip7ref.batch.kernel`) compiled and run as plain Python give the same state,
    array by array and event by event, over 150 steps of 50 games."""
    pytest.importorskip("numba")
    game = Game("vengeance", 4, ONE)
    fast = VengeanceState(game, 50, seed=11, backend="numba")
    slow = VengeanceState(game, 50, seed=11, backend="python")
    assert (fast.backend, slow.backend) == ("numba", "python")
    for bs in (fast, slow):
        bs.record_events()
        bs.reset()
    rng = np.random.default_rng(0)
    for _ in range(150):
        for name, value in vars(fast).items():
            if isinstance(value, np.ndarray):
                assert (value == getattr(slow, name)).all(), name
        actions = np.argmax(rng.random(fast.legal.shape) * fast.legal, 1)
        fast.step(actions)
        slow.step(actions)
        fast.reset(np.flatnonzero(fast.done))
        slow.reset(np.flatnonzero(slow.done))
    assert fast.log is not None and slow.log is not None
    assert [list(fast.log[b]) for b in range(50)] == [list(slow.log[b]) for b in range(50)]
    assert sum(len(fast.log[b]) for b in range(50)) > 1000


def test_lockstep_on_the_python_kernel_with_events() -> None:
    """The uncompiled kernel agrees with the reference too, event log included."""
    assert compare(3, 10, seed=3, batch=10, edition="vengeance", backend="python", events=True, options=ONE)["games"] == 10


def test_the_lockstep_command_takes_the_edition(capsys: pytest.CaptureFixture[str]) -> None:
    from flip7ref.batch.lockstep import main

    assert main(["--edition", "vengeance", "--games", "3", "--batch", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 games, ")
    assert out.rstrip().endswith(f" s, {choose_backend('auto')} backend)")


def test_the_vengeance_lockstep_refuses_the_numpy_backend() -> None:
    """The Vengeance engine has the kernel compiled or as Python, no NumPy rule body: ``numpy`` is one OptionError."""
    with pytest.raises(OptionError, match=r"^backend: expected 'auto', 'numba' or 'python', got 'numpy'$"):
        compare(4, 1, edition="vengeance", backend="numpy", options=ONE)
    assert compare(4, 2, edition="vengeance", backend="auto", batch=2, options=ONE)["games"] == 2


def test_the_vengeance_benchmark_runs_and_draws_legal_actions() -> None:
    """benchmarks/bench_rl.py --vengeance-only: its sampler draws only legal indices (a card
    pick's too) and the batched measurement runs (no timing checked)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_rl.py"
    spec = importlib.util.spec_from_file_location("bench_rl", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bs = VengeanceState(Game("vengeance", 4, ONE), 64, seed=2)
    rng = np.random.default_rng(0)
    picks = 0
    for _ in range(200):
        a = module.random_legal(rng, bs.legal, 6, bs.kind == 5)
        picks += int((bs.kind == 5).sum())
        assert bs.legal[np.arange(64), a][~bs.done].all()
        bs.step(a)
        bs.reset(np.flatnonzero(bs.done))
    assert picks > 0
    r = module.bench_batch_vengeance(4, 200)
    assert r["steps_per_second"] > 0 and r["seconds"] > 0


def test_lockstep_takes_a_threshold_policy_for_vengeance() -> None:
    assert (
        compare(4, 2, edition="vengeance", policy="threshold:20", options=ONE)["games"] == 2
    )  # test_batch_vengeance_vector.py: more
