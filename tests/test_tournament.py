"""Tournaments across readings, confidence intervals, simulate --log, and pluggable strategies."""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import pytest

from flip7ref import Game
from flip7ref.cli import main
from flip7ref.core.errors import OptionError, StrategyError
from flip7ref.play.games import simulate
from flip7ref.play.stats import Z, difference, half_width, mean_interval, paired, wilson
from flip7ref.play.strategies import RandomStrategy, ThresholdStrategy, load_strategy, parse_strategy
from flip7ref.play.tournament import disputed_readings, readings_sweep, run_tournament, seating


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- intervals -------------------------------------------------------------------


def test_wilson_interval_known_values() -> None:
    assert abs(Z - 1.959963984540054) < 1e-12
    low, high = wilson(5, 10)
    assert (low, high) == (pytest.approx(0.236593, abs=1e-6), pytest.approx(0.763407, abs=1e-6))
    assert wilson(0, 40) == (0.0, pytest.approx(0.087622, abs=1e-6))  # stays inside [0, 1]
    assert wilson(40, 40)[1] == 1.0
    assert all(math.isnan(x) for x in wilson(0, 0))


def test_mean_and_difference_intervals() -> None:
    low, high = mean_interval(3, 1 + 2 + 3, 1 + 4 + 9)  # mean 2, s = 1
    assert (low, high) == (pytest.approx(2 - Z / math.sqrt(3)), pytest.approx(2 + Z / math.sqrt(3)))
    assert mean_interval(1, 7, 49) == (7, 7)
    d, lo, hi = difference(0.25, 0.03, 0.30, 0.04)
    assert (d, lo, hi) == (pytest.approx(0.05), pytest.approx(0.0), pytest.approx(0.10))


# -- tournaments -------------------------------------------------------------------


def test_seating_rotates_every_strategy_through_every_seat() -> None:
    rotations = [seating(4, 4, r) for r in range(4)]
    assert rotations[0] == [0, 1, 2, 3] and rotations[1] == [1, 2, 3, 0]
    for seat in range(4):
        assert sorted(r[seat] for r in rotations) == [0, 1, 2, 3]
    assert [seating(2, 4, r) for r in range(2)] == [[0, 1, 0, 1], [1, 0, 1, 0]]


def test_tournament_counts_and_is_the_same_in_two_processes() -> None:
    game = Game("flip7", 3)
    lineup = [ThresholdStrategy(15), ThresholdStrategy(25), RandomStrategy()]
    one = run_tournament(game, lineup, 24, seed="t", chunk=5)
    assert one.games == 24
    assert [e.seat_games for e in one.entries] == [24, 24, 24]  # each plays one seat of every game
    assert [e.name for e in one.entries] == ["threshold:15", "threshold:25", "random"]
    assert sum(e.wins for e in one.entries) >= 24  # one winner a game at least (ties: another round)
    for e in one.entries:
        assert sum(e.scores.values()) == e.seat_games
        low, high = e.win_interval()
        assert low <= e.win_rate <= high
        low, high = e.score_interval()
        assert low <= e.mean_score <= high
    two = run_tournament(game, lineup, 24, seed="t", chunk=5, workers=2)
    assert two.as_dict() == one.as_dict()
    assert run_tournament(game, lineup, 24, seed="u", chunk=5).as_dict() != one.as_dict()


def test_duplicate_strategies_are_told_apart() -> None:
    result = run_tournament(Game("flip7", 2), [ThresholdStrategy(20), ThresholdStrategy(20)], 4, seed=3)
    assert [e.name for e in result.entries] == ["threshold:20", "threshold:20#2"]


def test_tournament_rejects_bad_sizes() -> None:
    game = Game("flip7", 4)
    with pytest.raises(OptionError, match="positive multiple of 4"):
        run_tournament(game, [ThresholdStrategy(20)], 10)
    with pytest.raises(OptionError, match="1 to 4 strategies"):
        run_tournament(game, [ThresholdStrategy(n) for n in range(5)], 8)


def test_disputed_readings_are_every_non_default_named_reading() -> None:
    readings = list(disputed_readings(Game("flip7", 2).edition))
    assert ("stay_requires", "number-card", "D-F7-04") in readings
    assert ("stay_requires", "nothing", "D-F7-04") in readings
    assert ("tie", "shared-win", "D-F7-22") in readings
    assert not any(r == "another-round" or o in ("target_score", "decks") for o, r, _ in readings)
    assert ("deal_after_early_cards", "skip", "D-F7-16") in readings
    assert ("set_aside_order", "newest-first", "D-F7-13") in readings
    assert [r for o, r, _ in readings if o == "reshuffles"] == ["1"]  # the named non-default reading
    assert len(readings) == 18
    fixed = list(disputed_readings(Game("flip7", 2).edition, ("tie",)))
    assert len(fixed) == 17 and not any(o == "tie" for o, _, _ in fixed)


def test_readings_sweep_replays_the_tournament_with_each_reading() -> None:
    lineup = [ThresholdStrategy(15), ThresholdStrategy(25)]
    baseline, readings = readings_sweep("flip7", 2, {"tie": "shared-win"}, lineup, 4, seed=5)
    assert baseline.as_dict() == run_tournament(Game("flip7", 2, {"tie": "shared-win"}), lineup, 4, 5).as_dict()
    assert [(r.option, r.reading) for r in readings] == [
        (o, r) for o, r, _ in disputed_readings(Game("flip7", 2).edition, ("tie",))
    ]
    check = next(r for r in readings if (r.option, r.reading) == ("stay_requires", "nothing"))
    expected = run_tournament(Game("flip7", 2, {"tie": "shared-win", "stay_requires": "nothing"}), lineup, 4, 5)
    assert check.result is not None and check.result.as_dict() == expected.as_dict()
    deltas = check.deltas(baseline)
    assert deltas[0]["win_rate"] == pytest.approx(expected.entries[0].win_rate - baseline.entries[0].win_rate)
    low, high = deltas[0]["win_rate_ci95"]
    assert low <= deltas[0]["win_rate"] <= high


def test_paired_interval_known_values() -> None:
    mean, low, high = paired([1.0, 2.0, 3.0])  # mean 2, s = 1
    assert (mean, low, high) == (2.0, pytest.approx(2 - Z / math.sqrt(3)), pytest.approx(2 + Z / math.sqrt(3)))
    assert paired([0.0] * 50) == (0.0, 0.0, 0.0)  # a reading that changes nothing: 0 ± 0
    assert paired([0.25] * 4) == (0.25, 0.25, 0.25)
    assert all(math.isnan(x) for x in paired([]))


def test_reading_deltas_are_paired_deal_by_deal(capsys: pytest.CaptureFixture[str]) -> None:
    """Every reading replays the baseline's deals: the interval comes from the per-deal differences,
    so a reading that changes no game is exactly 0 ± 0 (it was ± the two runs' independent widths)."""
    lineup = [ThresholdStrategy(15), ThresholdStrategy(25)]
    baseline, readings = readings_sweep("flip7", 2, {}, lineup, 40, seed=3)
    assert sorted(baseline.entries[0].deals) == list(range(20)) and baseline.entries[0].deals[0][1] > 0
    same = next(r for r in readings if (r.option, r.reading) == ("empty_deck", "end-round"))
    assert same.result is not None and same.result.as_dict()["entries"] == baseline.as_dict()["entries"]
    for d in same.deltas(baseline):
        assert (d["win_rate"], d["win_rate_ci95"], d["mean_score"], d["mean_score_ci95"]) == (0.0, [0.0, 0.0], 0.0, [0.0, 0.0])
    moved = next(r for r in readings if (r.option, r.reading) == ("set_aside_assigner", "giver"))
    assert moved.result is not None
    base, new = baseline.entries[1], moved.result.entries[1]
    diffs = [(new.deals[i][1] - base.deals[i][1]) / 2 for i in range(20)]  # 2 seat-games per deal (2 rotations)
    delta = moved.deltas(baseline)[1]
    assert delta["mean_score"] == pytest.approx(new.mean_score - base.mean_score) == pytest.approx(sum(diffs) / 20)
    assert delta["mean_score_ci95"] == pytest.approx(list(paired(diffs)[1:]))
    independent = difference(base.mean_score, half_width(base.score_interval()), new.mean_score, half_width(new.score_interval()))
    assert half_width(tuple(delta["mean_score_ci95"])) < half_width(independent[1:])  # pairing removes the deals' spread
    code = main(["tournament", "--strategy", "threshold:15", "--strategy", "threshold:25", "--players", "2", "--games", "40",
                 "--seed", "3", "--no-progress", "--all-readings"])  # fmt: skip
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "empty_deck=end-round" in line)
    assert code == 0 and row.count("0 ± 0") == 2 and "paired differences" in " ".join(out.split())


def test_cli_tournament_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["tournament", "--strategy", "threshold:18", "--strategy", "threshold:20", "--strategy", "random", "--players", "3",
            "--games", "12",
            "--seed", "4", "--no-progress"]  # fmt: skip
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert "95% CI (Wilson)" in out and "threshold:18" in out and "random" in out
    assert "mean final total" in out  # the column's name in the help and in docs/tournaments.md
    code, out, _ = run(capsys, *args, "--json")
    data = json.loads(out)
    assert code == 0 and data["games"] == 12 and data["rotations"] == 3
    assert [e["name"] for e in data["entries"]] == ["threshold:18", "threshold:20", "random"]
    assert data["entries"][0]["seat_games"] == 12


def test_cli_tournament_all_readings(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["tournament", "--strategy", "threshold:15", "--strategy", "threshold:25", "--players", "2", "--games", "4",
            "--no-progress"]  # fmt: skip
    code, out, _ = run(capsys, *args, "--all-readings", "--json")
    data = json.loads(out)
    assert code == 0
    assert len(data["readings"]) == len(list(disputed_readings(Game("flip7", 2).edition)))
    first = data["readings"][0]
    assert (first["option"], first["reading"], first["dispute"]) == ("initial_deal", "none", "D-F7-28")
    assert len(first["delta"]) == 2
    code, out, _ = run(capsys, *args, "--all-readings", "-o", "tie=shared-win")
    assert code == 0
    assert "stay_requires=nothing" in out and "tie=shared-win" not in out.split("change of")[1]


def test_cli_tournament_user_mistakes(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "tournament", "--games", "10")
    assert code == 2 and err.count("\n") == 1 and "positive multiple of 4" in err
    code, _, err = run(capsys, "tournament", "--strategies", "threshold:20,,random")
    assert code == 2 and "names separated by commas" in err
    code, _, err = run(capsys, "tournament", "--strategy", "threshold:20,random")
    assert code == 2 and err == ("flip7ref: error: --strategy 'threshold:20,random': one strategy per --strategy; "
                                 "repeat the flag: --strategy threshold:20 --strategy random\n")  # fmt: skip
    code, _, err = run(capsys, "tournament", "--strategy", "random", "--strategies", "random,random")
    assert code == 2 and err.endswith("flip7ref: error: give the lineup with --strategy (repeated), or with the older "
                                      "--strategies, not both\n")  # fmt: skip


def test_cli_tournament_deprecated_strategies_still_works(capsys: pytest.CaptureFixture[str]) -> None:
    """`--strategies a,b` is a deprecated alias of `--strategy a --strategy b`: the same result, and one note on stderr."""
    base = ["tournament", "--players", "2", "--games", "4", "--json", "--no-progress"]
    code, old, err = run(capsys, *base, "--strategies", "threshold:15,random")
    assert code == 0 and err == ("flip7ref: note: --strategies is deprecated: give --strategy once per strategy "
                                 "(--strategy threshold:18 --strategy random)\n")  # fmt: skip
    code, new, err = run(capsys, *base, "--strategy", "threshold:15", "--strategy", "random")
    assert code == 0 and err == ""
    old_data, new_data = json.loads(old), json.loads(new)
    old_data.pop("seconds"), new_data.pop("seconds")
    assert old_data == new_data
    assert [e["name"] for e in json.loads(new)["entries"]] == ["threshold:15", "random"]


def test_cli_tournament_plot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="--plot needs the [plot] extra (matplotlib)")
    target = tmp_path / "t.png"
    code, out, _ = run(capsys, "tournament", "--players", "2", "--strategy", "threshold:15", "--strategy", "threshold:25",
                       "--games", "4", "--all-readings", "--plot", str(target), "--no-progress")  # fmt: skip
    assert code == 0 and f"plot written to {target}" in out
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- simulate: intervals and the game log -------------------------------------------


def test_simulate_reports_intervals(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--games", "30", "--seed", "2", "--json")
    data = json.loads(out)
    assert code == 0
    ci = data["ci95"]
    for key in ("mean_rounds", "mean_round_score", "bust_rate", "flip7_rate"):
        low, high = ci[key]
        assert low < data[key] < high or data[key] == 0
    assert [low <= w <= high for w, (low, high) in zip(data["win_share"], ci["win_share"], strict=True)] == [True] * 4
    code, out, _ = run(capsys, "simulate", "--games", "30", "--seed", "2")
    assert "95% CI" in out and "Wilson" in out


def test_simulate_log_is_one_line_per_game_in_order(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    assert main(["simulate", "--games", "9", "--seed", "l", "--log", str(one), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    lines = [json.loads(line) for line in one.read_text().splitlines()]
    assert [r["game"] for r in lines] == list(range(9))
    assert lines[3]["seed"] == "l:3" and lines[3]["dealer"] == 3 and len(lines[3]["totals"]) == 4
    assert sum(r["rounds"] for r in lines) / 9 == pytest.approx(summary["mean_rounds"])
    assert [sum(s in r["winners"] for r in lines) / 9 for s in range(4)] == pytest.approx(summary["win_share"])
    records: list[dict[str, object]] = []
    simulate(Game("flip7", 4), 9, "l", [ThresholdStrategy(20)], workers=2, chunk=2, log=records.append)
    assert records == lines
    two.write_text("")
    assert main(["simulate", "--games", "9", "--seed", "l", "--log", str(two), "--workers", "2"]) == 0
    assert two.read_text() == one.read_text()


# -- pluggable strategies ----------------------------------------------------------

BOT = textwrap.dedent(
    '''
    from flip7ref.core.state import HIT, STAY

    class Cautious:
        name = "cautious"
        def choose(self, state, rng):
            legal = state.legal_actions()
            if state.pending()[0] == "offer":
                return STAY if STAY in legal and state.line_value(state.current_player) >= 12 else HIT
            return legal[0]

    class Nameless:
        def choose(self, state, rng):
            return state.legal_actions()[-1]

    class Cheater:
        name = "cheater"
        def choose(self, state, rng):
            return "target 9"

    class NoChoose:
        name = "x"

    class NeedsArgs:
        def __init__(self, level):
            self.level = level

    class BadName:
        name = 7
        def choose(self, state, rng):
            return state.legal_actions()[0]

    NOT_CALLABLE = 3
    '''
)


@pytest.fixture
def bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "mybots.py").write_text(BOT)
    (tmp_path / "broken.py").write_text("raise RuntimeError('boom')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_user_strategy_loads_by_module_and_by_file(bots: Path) -> None:
    bot = parse_strategy("mybots:Cautious")
    assert bot.name == "cautious"
    assert parse_strategy("mybots:Nameless").name == "mybots:Nameless"
    assert load_strategy(f"{bots / 'mybots.py'}:Cautious").name == "cautious"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nosuchmodule:Bot", "no module named 'nosuchmodule'"),
        ("mybots:Missing", "module mybots has no attribute 'Missing'"),
        ("mybots:NoChoose", "has no method choose(state, rng)"),
        ("mybots:NeedsArgs", "NeedsArgs() failed: TypeError"),
        ("mybots:BadName", "its name must be a string, got int"),
        ("mybots:NOT_CALLABLE", "is not a class or a factory"),
        ("broken:Bot", "importing broken failed: RuntimeError: boom"),
        ("missing.py:Bot", "no file missing.py"),
    ],
)
def test_user_strategy_errors(bots: Path, spec: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(StrategyError) as info:
        parse_strategy(spec)
    assert message in str(info.value)
    code, _, err = run(capsys, "simulate", "--games", "2", "--strategy", spec)
    assert code == 2 and err.count("\n") == 1 and message in err


def test_user_strategy_plays_simulate_trace_and_tournament(bots: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--games", "6", "--strategy", "mybots:Cautious", "--json")
    assert code == 0 and json.loads(out)["strategies"] == ["cautious"]
    code, out, _ = run(capsys, "trace", "--strategy", "mybots:Cautious", "--json")
    events = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and events[-1]["type"] == "game_won"
    code, out, _ = run(capsys, "tournament", "--players", "2", "--games", "4", "--strategy", "mybots:Cautious",
                       "--strategy", "threshold:20", "--json", "--no-progress")  # fmt: skip
    assert code == 0 and [e["name"] for e in json.loads(out)["entries"]] == ["cautious", "threshold:20"]


def test_an_illegal_action_names_the_strategy(bots: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "trace", "--strategy", "mybots:Cheater")
    assert code == 2 and err.count("\n") == 1
    assert "strategy 'cheater' at seat" in err and "illegal action 'target 9'" in err


def test_builtin_names_with_an_argument_are_not_imported() -> None:
    with pytest.raises(OptionError, match="unknown strategy 'random:3'"):
        parse_strategy("random:3")


# ---------------------------------------------------------------- hostile strategies and arguments (the breaker's findings)

HOSTILE = textwrap.dedent(
    '''
    import sys

    class Raises:
        def choose(self, state, rng):
            raise RuntimeError("boom")

    class Exits:
        def choose(self, state, rng):
            sys.exit(3)

    class Recurses:
        def choose(self, state, rng):
            return self.choose(state, rng)
    '''
)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("hostile_bots:Raises", "failed in choose(): RuntimeError: boom"),
        ("hostile_bots:Exits", "failed in choose(): SystemExit: 3"),
        ("hostile_bots:Recurses", "failed in choose(): RecursionError: maximum recursion depth exceeded"),
        ("exits:Bot", "strategy 'exits:Bot': importing exits failed: SystemExit: 4"),
    ],
)
@pytest.mark.parametrize("command", ["simulate", "tournament"])
def test_a_strategy_that_fails_is_one_line_and_exit_2(
    bots: Path, spec: str, message: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (bots / "hostile_bots.py").write_text(HOSTILE)  # not "hostile": tests/bad_inputs/strategies has that module
    (bots / "exits.py").write_text("import sys\nsys.exit(4)\n")
    args = ["--strategy", spec] if command == "simulate" else ["--strategy", spec, "--strategy", "random", "--players", "2"]
    code, _, err = run(capsys, command, "--games", "2", *args)
    assert code == 2 and err.count("\n") == 1 and message in err, err
    assert err.startswith(f"flip7ref: error: strategy {spec!r}")


def test_output_files_are_checked_before_the_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere" / "out.png"
    code, _, err = run(capsys, "tournament", "--strategy", "random", "--players", "2", "--games", "2", "--plot", str(missing))
    assert code == 2 and err == f"flip7ref: error: --plot {missing}: the folder {missing.parent} does not exist\n"
    code, _, err = run(capsys, "tournament", "--strategy", "random", "--players", "2", "--games", "2", "--plot", str(tmp_path))
    assert code == 2 and err == f"flip7ref: error: --plot {tmp_path}: expected a file name, but this is a folder\n"
    code, _, err = run(capsys, "simulate", "--games", "2", "--log", str(tmp_path / "nowhere" / "log.jsonl"))
    assert code == 2 and err.startswith(f"flip7ref: error: --log {tmp_path / 'nowhere' / 'log.jsonl'}: the folder ")
    code, _, err = run(capsys, "simulate", "--games", "2", "--log", str(tmp_path))
    assert code == 2 and err == f"flip7ref: error: --log {tmp_path}: expected a file name, but this is a folder\n"


def test_a_seed_of_more_digits_than_python_converts_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "simulate", "--games", "2", "--seed", "9" * 5000)
    expected = "flip7ref: error: --seed: expected a whole number of at most 4,000 digits or a word, got 5,000 digits\n"
    assert code == 2 and err == expected
    code, out, _ = run(capsys, "simulate", "--games", "2", "--seed", "9" * 4000, "--json")
    assert code == 0 and json.loads(out)["games"] == 2


@pytest.mark.parametrize("command", ["simulate", "tournament"])
def test_what_a_strategy_prints_goes_to_stderr_not_into_the_json(
    bots: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    module = f"chatty_{command}"  # a fresh module for each: an imported one does not print again
    (bots / f"{module}.py").write_text(
        "print('loading chatty')\n"
        "class Bot:\n"
        "    def choose(self, state, rng):\n"
        "        print('thinking')\n"
        "        return state.legal_actions()[0]\n"
    )
    bot = f"{module}:Bot"
    args = ["--strategy", bot] if command == "simulate" else ["--strategy", bot, "--strategy", "random", "--players", "2"]
    code, out, err = run(capsys, command, "--games", "2", "--json", "--no-progress", *args)
    assert code == 0 and json.loads(out)["games"] == 2
    assert err.startswith("loading chatty\nthinking\n")
