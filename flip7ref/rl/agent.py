"""A small trained agent: a PyTorch actor-critic over the adapters' observations, saved to one file.

`TorchAgent` holds a multilayer perceptron that reads one observation (the layout of
`flip7ref.rl.encoding`, seat-relative, normalised) and gives a logit per action index and a
value.  It is a batched policy for the vector envs (``agent(observations, masks) -> actions``,
`flip7ref.batch.vector_env.BatchPolicy`), a one-observation policy for `PolicyStrategy`
(`TorchAgent.strategy`), and a file (`TorchAgent.save`, `load_agent`): a ``torch.save`` dict
holding the weights and the game it was trained for, read back with ``weights_only=True``
(no code runs on loading).

``flip7ref bench-agents --agent flip7ref.rl.agent:Agent`` rates the agent file named by the
environment variable ``FLIP7REF_AGENT`` (default ``agent.pt``): `Agent` is the plug-in.

Needs PyTorch (`require_torch` says how to install it) and the ``[rl]`` extra.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.core.textfiles import read_bytes_file, write_file_atomic
from flip7ref.rl.policy import PolicyStrategy

__all__ = ["AGENT_FORMAT", "Agent", "TorchAgent", "load_agent", "require_torch"]

AGENT_FORMAT = "flip7ref-agent/1"
"""The ``format`` field of an agent file."""

Arr = np.ndarray[Any, Any]

MAX_AGENT_BYTES = 256 * 1024 * 1024
"""The largest agent file `load_agent` reads."""


def require_torch() -> Any:
    """Import and return ``torch``, with its threads set to one (a small network: extra threads
    only wait for each other, ten times slower on a loaded two-core machine).

    Raises:
        OptionError: PyTorch is not installed (one line saying how to install it).
    """
    try:
        import torch
    except ImportError:
        raise OptionError(
            "training or loading an agent needs PyTorch (torch is missing): install its CPU build, pip install torch "
            "--index-url https://download.pytorch.org/whl/cpu (a plain pip install torch may fetch a CUDA build of "
            "several GB); sb3-contrib is not needed"
        ) from None
    torch.set_num_threads(1)
    return torch


def _network(obs_size: int, actions: int, hidden: Sequence[int]) -> Any:
    """The actor-critic: a tanh MLP body, a logit head (``actions``) and a value head (1)."""
    torch = require_torch()
    nn = torch.nn

    class ActorCritic(nn.Module):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            layers: list[Any] = []
            width = obs_size
            for h in hidden:
                layers += [nn.Linear(width, h), nn.Tanh()]
                width = h
            self.body = nn.Sequential(*layers)
            self.logits = nn.Linear(width, actions)
            self.value = nn.Linear(width, 1)
            nn.init.orthogonal_(self.logits.weight, gain=0.01)  # a near-uniform first policy
            nn.init.zeros_(self.logits.bias)

        def forward(self, obs: Any, mask: Any) -> tuple[Any, Any]:  # (n, size) float32, (n, A) bool tensors
            z = self.body(obs)
            logits = self.logits(z).masked_fill(~mask, -1e9)
            return logits, self.value(z).squeeze(-1)

    return ActorCritic()


class TorchAgent:
    """A trained (or training) actor-critic and the game it plays.

    Args:
        edition: the edition id (``flip7``, ``vengeance``).
        players: seats per game.
        obs_size: the observation's length; actions: the action index's size (the game's).
        hidden: the hidden layers' widths (default two of 128).
        options: the option values it was trained under (recorded, not enforced).
        seed: seeds the initial weights (``torch.manual_seed``).

    Attributes:
        net: the ``torch.nn.Module``: ``net(obs (n, size) float32, mask (n, A) bool) ->
            (logits (n, A), values (n,))``, illegal logits at -1e9.
        greedy: play the most likely legal index (default) rather than sample one.
        info: what `save` records beside the weights (training figures).
    """

    def __init__(
        self, edition: str, players: int, obs_size: int, actions: int, *, hidden: Sequence[int] = (128, 128),
        options: Mapping[str, object] | None = None, seed: int = 0,
    ) -> None:  # fmt: skip
        torch = require_torch()
        torch.manual_seed(seed)
        self.edition, self.players = edition, players
        self.obs_size, self.actions, self.hidden = int(obs_size), int(actions), tuple(int(h) for h in hidden)
        self.options = {str(k): str(v) for k, v in (options or {}).items()}
        self.net = _network(self.obs_size, self.actions, self.hidden)
        self.greedy = True
        self.info: dict[str, object] = {}

    def __call__(self, observations: Arr, masks: Arr) -> Arr:
        """The agent's actions for a batch: ``observations`` (k, size) float32 (normalised, seat-relative),
        ``masks`` (k, A) int8 or bool; returns (k,) int64 legal indices (the most likely one when
        `greedy`, else sampled).  A batched policy of the vector envs (self-play)."""
        torch = require_torch()
        with torch.no_grad():
            logits, _ = self.net(torch.as_tensor(observations, dtype=torch.float32), torch.as_tensor(masks).bool())
            chosen = logits.argmax(dim=1) if self.greedy else torch.distributions.Categorical(logits=logits).sample()
        out: Arr = chosen.numpy().astype(np.int64)
        return out

    def act(self, obs: Mapping[str, Arr]) -> int:
        """One decision: ``obs`` is one observation dict of `flip7ref.rl.Flip7GymEnv`'s format
        (``observation`` (size,), ``action_mask`` (A,)); returns the chosen index (`PolicyStrategy`'s policy)."""
        return int(self(np.asarray(obs["observation"], np.float32)[None], np.asarray(obs["action_mask"])[None])[0])

    def strategy(self, name: str = "agent") -> PolicyStrategy:
        """The agent as a strategy (normalised, seat-relative observations) for tournaments and
        ``bench-agents``; its ``prepare(game)`` refuses a game of another edition, player count or layout.

        Raises:
            OptionError: (when the strategy is prepared) the game's edition or players differ from the agent's.
        """
        agent = self

        class _Strategy(PolicyStrategy):
            def prepare(self, game: Game) -> None:
                agent.check_game(game)
                super().prepare(game)

        return _Strategy(self.act, name=name, normalize=True, seats="relative")

    def check_game(self, game: Game) -> None:
        """Raises `OptionError` unless ``game`` has this agent's edition and players."""
        if game.edition.id != self.edition or game.players != self.players:
            raise OptionError(
                f"the agent was trained for {self.edition} with {self.players} players, not {game.edition.id} with "
                f"{game.players}: play it with --edition {self.edition} --players {self.players}"
            )

    def snapshot(self) -> TorchAgent:
        """A frozen copy: the same weights, not changed by later training (`flip7ref.rl.league.League`)."""
        import copy

        twin = copy.copy(self)
        twin.net = copy.deepcopy(self.net)
        twin.info = dict(self.info)
        for p in twin.net.parameters():
            p.requires_grad_(False)
        return twin

    def to_dict(self) -> dict[str, Any]:
        """The agent file's content: ``format``, the game, the network's shape, ``state_dict`` and ``info``."""
        return {"format": AGENT_FORMAT, "edition": self.edition, "players": self.players, "obs_size": self.obs_size,
                "actions": self.actions, "hidden": list(self.hidden), "options": dict(self.options),
                "normalize": True, "seats": "relative", "state_dict": self.net.state_dict(),
                "info": dict(self.info)}  # fmt: skip

    def save(self, path: str | Path) -> None:
        """Write the agent to ``path`` atomically (``torch.save`` of `to_dict`).

        Raises:
            WriteError: the file cannot be written (it keeps its previous content).
        """
        torch = require_torch()
        buffer = io.BytesIO()
        torch.save(self.to_dict(), buffer)
        write_file_atomic(path, buffer.getvalue())


def _field(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...], path: Path, expected: str) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise OptionError(f"{path}: field {name!r}: expected {expected}, got {value!r}"[:300])
    return value


def load_agent(path: str | Path) -> TorchAgent:
    """Read an agent file written by `TorchAgent.save` (``flip7ref train-agent --out``).

    Returns:
        The `TorchAgent` (greedy).

    Raises:
        OptionError: PyTorch is missing; the file is not an agent file, or a field is not what
            it should be (the message names the file and the field).
        SpecError: the file is missing, not a regular file or unreadable (`read_bytes_file`).
    """
    torch = require_torch()
    path = Path(path)
    raw = read_bytes_file(path, "agent file", limit=MAX_AGENT_BYTES)
    try:
        data = torch.load(io.BytesIO(raw), weights_only=True)
    except Exception as exc:  # torch raises several kinds for a file that is not its format
        raise OptionError(f"{path}: not an agent file written by flip7ref train-agent ({type(exc).__name__})") from None
    if not isinstance(data, dict) or data.get("format") != AGENT_FORMAT:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise OptionError(f"{path}: field 'format': expected {AGENT_FORMAT!r}, got {got!r}"[:300])
    edition = _field(data, "edition", str, path, "an edition id")
    players = _field(data, "players", int, path, "a number of players")
    obs_size = _field(data, "obs_size", int, path, "the observation's length")
    actions = _field(data, "actions", int, path, "the number of action indices")
    hidden = _field(data, "hidden", list, path, "a list of layer widths")
    if not hidden or not all(isinstance(h, int) and not isinstance(h, bool) and 0 < h <= 65536 for h in hidden):
        raise OptionError(f"{path}: field 'hidden': expected layer widths 1..65536, got {hidden!r}"[:300])
    game = Game(edition, players)  # raises OptionError for an unknown edition or player count
    from flip7ref.rl.actions import ActionIndex
    from flip7ref.rl.encoding import ObservationEncoder

    size, count = len(ObservationEncoder(game).scale), ActionIndex(game).size
    if (obs_size, actions) != (size, count):
        raise OptionError(f"{path}: fields 'obs_size', 'actions': expected {size}, {count} for {edition} with "
                          f"{players} players, got {obs_size}, {actions}")  # fmt: skip
    options = data.get("options") if isinstance(data.get("options"), dict) else {}
    agent = TorchAgent(edition, players, obs_size, actions, hidden=hidden, options=options)
    try:
        agent.net.load_state_dict(data.get("state_dict"))
    except Exception as exc:
        raise OptionError(f"{path}: field 'state_dict': the weights do not fit the network ({exc})"[:300]) from None
    agent.info = dict(data["info"]) if isinstance(data.get("info"), dict) else {}
    return agent


def Agent() -> PolicyStrategy:
    """The plug-in of ``flip7ref bench-agents --agent flip7ref.rl.agent:Agent``: the agent file
    named by the environment variable ``FLIP7REF_AGENT`` (default ``agent.pt``), as a strategy
    named after the file.

    Raises:
        OptionError: as `load_agent`.
    """
    path = os.environ.get("FLIP7REF_AGENT", "agent.pt")
    return load_agent(path).strategy(name=Path(path).stem)
