"""Train a `flip7ref.rl.agent.TorchAgent` with PPO on a batched vector env, on a CPU-time budget.

`train_ppo` runs plain PPO (clipped policy loss, value loss, entropy bonus, generalised
advantage estimation) with masked action sampling, on any vector env with the interface of
`flip7ref.batch.vector_env.BatchVectorEnv` (dict observations ``observation`` and
``action_mask``, same-step autoreset, ``final_info`` on the games that ended).  It stops at
the first update after ``cpu_seconds`` of this process's CPU time (``time.process_time``: all
its threads, the env's included), so a budget means the same on a loaded or an idle machine;
PyTorch runs on one thread.  The same seed and budget give the same agent only up to where
the budget cuts (CPU time varies); ``updates=`` fixes the number of updates instead.

``flip7ref train-agent`` (docs/rl.md) builds the env and calls it.  Needs PyTorch.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np

from flip7ref.core.errors import OptionError
from flip7ref.rl.agent import TorchAgent, require_torch

__all__ = ["PPOConfig", "TrainResult", "train_ppo"]


@attrs.frozen
class PPOConfig:
    """PPO's settings (the defaults are the ones docs/rl.md's figures were trained with).

    Attributes:
        steps: learner decisions per game per update (the rollout is ``num_envs x steps``).
        epochs: passes over a rollout; minibatch: samples per gradient step.
        lr: Adam's learning rate (decayed linearly to a tenth over the budget).
        gamma, lam: discount and GAE's lambda.  clip: PPO's ratio clip.
        entropy: the entropy bonus's weight; value: the value loss's weight.
        max_grad_norm: gradients clipped to this norm.

    The network's shape is the agent's (`TorchAgent`'s ``hidden``), not a setting of the training.
    """

    steps: int = 32
    epochs: int = 4
    minibatch: int = 1024
    lr: float = 1e-3
    gamma: float = 0.998
    lam: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    value: float = 0.5
    max_grad_norm: float = 0.5


@attrs.define
class TrainResult:
    """What a training run did.

    Attributes:
        agent: the trained agent.
        updates: PPO updates done; decisions: learner decisions played.
        games: training games finished; cpu_seconds: CPU time of this process during training.
        win_rate: the learner's win rate over the last (up to) 2,000 finished training games.
    """

    agent: TorchAgent
    updates: int
    decisions: int
    games: int
    cpu_seconds: float
    win_rate: float

    def as_dict(self) -> dict[str, Any]:
        """The figures as JSON-ready values (no agent)."""
        return {"updates": self.updates, "decisions": self.decisions, "games": self.games,
                "cpu_seconds": self.cpu_seconds, "win_rate": self.win_rate}  # fmt: skip


def train_ppo(
    env: Any,
    agent: TorchAgent,
    *,
    cpu_seconds: float | None = None,
    updates: int | None = None,
    seed: int = 0,
    config: PPOConfig | None = None,
    progress: Callable[[float, float], None] | None = None,
    on_update: Callable[[int, TorchAgent], None] | None = None,
) -> TrainResult:
    """Train ``agent`` on ``env`` with PPO until ``cpu_seconds`` of CPU time or ``updates`` updates.

    Args:
        env: a batched vector env (`flip7ref.batch.vector_env`), ``normalize=True`` and
            ``seats="relative"`` as the agent plays; ``reset(seed=seed)`` is called first.
        agent: the `TorchAgent` to train (its network is changed in place).
        cpu_seconds: the budget of this process's CPU time; updates: a number of updates
            (at least one of the two; training stops at whichever comes first).
        seed: seeds the env's deals and the action sampling.
        config: PPO's settings (`PPOConfig`).
        progress: called after each update with ``(cpu_seconds_used, win_rate_so_far)``.
        on_update: called after each update with ``(update_number, agent)`` (e.g. to add a
            snapshot to a `flip7ref.rl.league.League`).

    Returns:
        The `TrainResult`.

    Raises:
        OptionError: neither budget given, or a budget that is not positive.
    """
    torch = require_torch()
    cfg = config or PPOConfig()
    if cpu_seconds is None and updates is None:
        raise OptionError("train_ppo: give cpu_seconds or updates")
    if cpu_seconds is not None and not cpu_seconds > 0:
        raise OptionError(f"cpu_seconds: expected a number of seconds > 0, got {cpu_seconds!r}")
    if updates is not None and (isinstance(updates, bool) or not isinstance(updates, int) or updates < 1):
        raise OptionError(f"updates: expected a whole number >= 1, got {updates!r}")
    torch.manual_seed(seed)
    net = agent.net
    optimiser = torch.optim.Adam(net.parameters(), lr=cfg.lr, eps=1e-5)
    n, size, a_count, t_len = env.num_envs, agent.obs_size, agent.actions, cfg.steps
    obs_buf = torch.zeros((t_len, n, size))
    mask_buf = torch.zeros((t_len, n, a_count), dtype=torch.bool)
    act_buf = torch.zeros((t_len, n), dtype=torch.long)
    logp_buf = torch.zeros((t_len, n))
    val_buf = torch.zeros((t_len, n))
    rew_buf = torch.zeros((t_len, n))
    done_buf = torch.zeros((t_len, n))
    start = time.process_time()
    obs, _ = env.reset(seed=seed)
    recent: list[bool] = []
    done_updates = decisions = games = 0

    def used() -> float:
        return time.process_time() - start

    while (updates is None or done_updates < updates) and (cpu_seconds is None or used() < cpu_seconds):
        if cpu_seconds is not None:
            for group in optimiser.param_groups:  # linear decay to a tenth over the budget
                group["lr"] = cfg.lr * (1.0 - 0.9 * min(1.0, used() / cpu_seconds))
        net.eval()
        for t in range(t_len):
            o = torch.from_numpy(obs["observation"])
            m = torch.from_numpy(obs["action_mask"]).bool()
            with torch.no_grad():
                logits, value = net(o, m)
                dist = torch.distributions.Categorical(logits=logits)
                action = dist.sample()
            obs_buf[t], mask_buf[t], act_buf[t] = o, m, action
            logp_buf[t], val_buf[t] = dist.log_prob(action), value
            obs, reward, terminated, truncated, infos = env.step(action.numpy())
            ended = np.asarray(terminated) | np.asarray(truncated)
            rew_buf[t] = torch.from_numpy(np.asarray(reward, np.float32))
            done_buf[t] = torch.from_numpy(ended.astype(np.float32))
            decisions += n
            if ended.any():
                final = infos["final_info"]
                rows = np.flatnonzero(ended)
                won = final["winners"][rows, final["seat"][rows]]
                recent.extend(bool(w) for w in won)
                games += rows.size
        recent = recent[-2000:]
        with torch.no_grad():
            _, last_value = net(torch.from_numpy(obs["observation"]), torch.from_numpy(obs["action_mask"]).bool())
        advantages = torch.zeros((t_len, n))
        gae = torch.zeros(n)
        for t in reversed(range(t_len)):
            next_value = last_value if t == t_len - 1 else val_buf[t + 1]
            alive = 1.0 - done_buf[t]
            delta = rew_buf[t] + cfg.gamma * next_value * alive - val_buf[t]
            gae = delta + cfg.gamma * cfg.lam * alive * gae
            advantages[t] = gae
        returns = advantages + val_buf
        b_obs, b_mask = obs_buf.reshape(-1, size), mask_buf.reshape(-1, a_count)
        b_act, b_logp = act_buf.reshape(-1), logp_buf.reshape(-1)
        b_adv, b_ret = advantages.reshape(-1), returns.reshape(-1)
        total = b_obs.shape[0]
        net.train()
        for _ in range(cfg.epochs):
            order = torch.randperm(total)
            for lo in range(0, total, cfg.minibatch):
                idx = order[lo : lo + cfg.minibatch]
                logits, value = net(b_obs[idx], b_mask[idx])
                dist = torch.distributions.Categorical(logits=logits)
                logp = dist.log_prob(b_act[idx])
                adv = b_adv[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                ratio = torch.exp(logp - b_logp[idx])
                policy_loss = -torch.min(ratio * adv, torch.clamp(ratio, 1 - cfg.clip, 1 + cfg.clip) * adv).mean()
                value_loss = ((value - b_ret[idx]) ** 2).mean()
                # the entropy over the legal indices only (the masked logits give the others no mass)
                probs = dist.probs
                entropy = -(probs * torch.log(probs.clamp_min(1e-12))).sum(dim=1).mean()
                loss = policy_loss + cfg.value * value_loss - cfg.entropy * entropy
                optimiser.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
                optimiser.step()
        net.eval()
        done_updates += 1
        rate = sum(recent) / len(recent) if recent else float("nan")
        if progress is not None:
            progress(used(), rate)
        if on_update is not None:
            on_update(done_updates, agent)
    rate = sum(recent) / len(recent) if recent else float("nan")
    return TrainResult(agent, done_updates, decisions, games, used(), rate)
