"""``flip7ref train-agent`` and `flip7ref.rl.agent` / `flip7ref.rl.train` (issue 44): the documented
training command, run with a budget of a few seconds, writes an agent that loads and plays
legal moves as a strategy, in ``bench-agents`` too.  Needs PyTorch (CI's dev venv has its
CPU build); skipped without it."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import attrs
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("numba")
torch = pytest.importorskip("torch")

from flip7ref import Game  # noqa: E402
from flip7ref.batch.vector_env import Flip7VectorEnv  # noqa: E402
from flip7ref.cli import main  # noqa: E402
from flip7ref.core.errors import OptionError  # noqa: E402
from flip7ref.play.games import play  # noqa: E402
from flip7ref.rl.agent import AGENT_FORMAT, TorchAgent, load_agent, require_torch  # noqa: E402
from flip7ref.rl.league import League  # noqa: E402
from flip7ref.rl.train import PPOConfig, train_ppo  # noqa: E402

SMALL = PPOConfig(steps=8, epochs=1, minibatch=64)


@pytest.mark.parametrize("edition", ["flip7", "vengeance"])
def test_the_command_writes_an_agent_that_plays_legal_moves(
    edition: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "agent.pt"
    argv = ["train-agent", "--edition", edition, "--opponent", "threshold:20", "--cpu-minutes", "0.02", "--envs", "8",
            "--bench-games", "4", "--out", str(out), "--json"]  # fmt: skip
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["out"] == str(out) and report["edition"] == edition and report["players"] == 2
    assert report["training"]["updates"] >= 1 and report["training"]["decisions"] >= 8 * 32
    assert report["training"]["cpu_seconds"] >= 1.2  # the budget: 0.02 minutes
    (match,) = report["bench"]["matches"]
    assert match["opponent"] == "threshold:20" and match["games"] == 4
    assert report["bench"]["agent"] == "agent" and 0.0 <= report["bench"]["rating"] <= 1.0

    agent = load_agent(out)
    assert (agent.edition, agent.players, agent.greedy) == (edition, 2, True)
    assert agent.info["opponent"] == "threshold:20" and agent.info["updates"] == report["training"]["updates"]
    saved = torch.load(out, weights_only=True)
    assert saved["format"] == AGENT_FORMAT and saved["normalize"] is True and saved["seats"] == "relative"
    strategy = agent.strategy(name="mine")
    for seed in range(3):  # every decision a legal one (PolicyStrategy raises StrategyError otherwise), both seats
        final = play(Game(edition, 2).new_initial_state(seed=seed), [strategy, strategy], random.Random(seed))
        assert final.is_terminal() and final.winners


def test_bench_agents_rates_the_file_through_the_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``FLIP7REF_AGENT=FILE flip7ref bench-agents --agent flip7ref.rl.agent:Agent``, as docs/rl.md rates it."""
    env = Flip7VectorEnv(8, 2, seat="random", opponents="random", normalize=True)
    agent = TorchAgent("flip7", 2, env.single_observation_space["observation"].shape[0], env.single_action_space.n,
                       hidden=(16,))  # fmt: skip
    train_ppo(env, agent, updates=1, config=SMALL)
    agent.save(tmp_path / "mine.pt")
    monkeypatch.setenv("FLIP7REF_AGENT", str(tmp_path / "mine.pt"))
    argv = ["bench-agents", "--agent", "flip7ref.rl.agent:Agent", "--opponent", "random", "--games", "6", "--json",
            "--in-process"]  # fmt: skip
    assert main(argv) == 0
    (rated,) = json.loads(capsys.readouterr().out)["agents"]
    assert rated["agent"] == "mine" and rated["matches"][0]["games"] == 6
    assert main([*argv[:-2], "--edition", "vengeance", "--in-process"]) == 2
    err = capsys.readouterr().err
    assert "the agent was trained for flip7 with 2 players, not vengeance with 2" in err


def test_the_same_seed_and_updates_give_the_same_weights() -> None:
    def weights(seed: int) -> list[float]:
        env = Flip7VectorEnv(8, 2, seat="random", opponents="threshold:25", normalize=True)
        agent = TorchAgent("flip7", 2, env.single_observation_space["observation"].shape[0], env.single_action_space.n,
                           hidden=(16,), seed=seed)  # fmt: skip
        result = train_ppo(env, agent, updates=2, seed=seed, config=SMALL)
        assert result.updates == 2 and result.decisions == 2 * 8 * 8
        return [float(x) for p in agent.net.parameters() for x in p.detach().flatten()]

    assert weights(4) == weights(4) != weights(5)


def test_a_league_of_snapshots_plays_the_other_seat() -> None:
    """Self-play: the learner trains against its own frozen snapshots, one added per update."""
    league = League(capacity=2, latest=0.5, seed=0)
    probe = Flip7VectorEnv(8, 2)
    agent = TorchAgent("flip7", 2, probe.single_observation_space["observation"].shape[0], probe.single_action_space.n,
                       hidden=(16,))  # fmt: skip
    league.add(agent)
    env = Flip7VectorEnv(8, 2, seat="random", opponents=league, normalize=True)
    train_ppo(env, agent, updates=3, config=SMALL, on_update=lambda n, a: league.add(a))
    assert league.added == 4 and len(league) == 2 and sum(league.picks) > 0
    now = next(iter(agent.net.parameters())).detach()
    older, newest = (next(iter(s.net.parameters())) for s in league.snapshots)  # type: ignore[attr-defined]
    assert not older.requires_grad and not newest.requires_grad  # frozen copies
    assert torch.equal(newest, now) and not torch.equal(older, now)  # the one of update 2 is not changed by update 3


def test_the_network_shape_is_the_agents_not_a_training_setting() -> None:
    """PPOConfig once had a ``hidden`` that nothing read (the network is built by TorchAgent)."""
    assert "hidden" not in attrs.fields_dict(PPOConfig)
    assert TorchAgent("flip7", 2, 206, 4, hidden=(16,)).hidden == (16,)


def test_bad_files_and_arguments_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a torch file")
    with pytest.raises(OptionError, match=rf"^{junk}: not an agent file written by flip7ref train-agent \("):
        load_agent(junk)
    other = tmp_path / "other.pt"
    torch.save({"format": "something-else"}, other)
    with pytest.raises(OptionError, match=rf"^{other}: field 'format': expected 'flip7ref-agent/1', got 'something-else'$"):
        load_agent(other)
    torch.save({"format": AGENT_FORMAT, "edition": "flip7", "players": 2, "obs_size": 3, "actions": 4, "hidden": [8]}, other)
    with pytest.raises(OptionError, match=r"fields 'obs_size', 'actions': expected \d+, 4 for flip7 with 2 players, got 3, 4$"):
        load_agent(other)
    assert main(["train-agent", "--cpu-minutes", "0", "--out", str(tmp_path / "a.pt")]) == 2
    assert capsys.readouterr().err == "flip7ref: error: --cpu-minutes: expected a number of minutes > 0, got 0.0\n"
    assert main(["train-agent", "--bench-games", "3", "--out", str(tmp_path / "a.pt")]) == 2
    assert "--bench-games: expected 0 or a positive multiple of --players, got 3" in capsys.readouterr().err
    assert main(["train-agent", "--players", "1", "--out", str(tmp_path / "a.pt")]) == 2
    assert "--players: the rating needs at least 2 players (the agent and its opponents), got 1" in capsys.readouterr().err
    assert main(["train-agent", "--opponent", "optimal-solo", "--out", str(tmp_path / "a.pt")]) == 2
    assert capsys.readouterr().err == (
        "flip7ref: error: --opponent: expected 'random' or 'threshold:N' (N a whole number of points), got 'optimal-solo'\n"
    )
    assert not (tmp_path / "a.pt").exists()


def test_the_help_names_the_editions_it_trains_on(capsys: pytest.CaptureFixture[str]) -> None:
    """train-agent refuses a table's path, so its --edition help does not offer one (it once did)."""
    with pytest.raises(SystemExit):
        main(["train-agent", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ("--edition EDITION flip7 or vengeance, the editions the batched engine plays (not a table's path; default "
            "flip7)") in text and ".yaml" not in text  # fmt: skip


def test_without_torch_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ImportError
    with pytest.raises(OptionError) as caught:
        require_torch()
    assert str(caught.value) == (
        "training or loading an agent needs PyTorch (torch is missing): install its CPU build, pip install torch "
        "--index-url https://download.pytorch.org/whl/cpu (a plain pip install torch may fetch a CUDA build of several "
        "GB); sb3-contrib is not needed"
    )


def test_no_players_and_an_oversized_seed_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--players 0 once ended in a ZeroDivisionError traceback, a seed beyond 64 bits in torch's
    OverflowError traceback after the env was built; both are usage errors, nothing written."""
    out = str(tmp_path / "a.pt")
    assert main(["train-agent", "--players", "0", "--out", out]) == 2
    assert capsys.readouterr().err == "flip7ref: error: players: 0 is too few for flip7 (at least 1)\n"
    assert main(["train-agent", "--seed", str(2**64), "--bench-games", "0", "--out", out]) == 2
    assert capsys.readouterr().err == (
        f"flip7ref: error: --seed: expected a whole number from 0 to {2**64 - 1}, got '{2**64}'\n"
    )
    assert not (tmp_path / "a.pt").exists()
