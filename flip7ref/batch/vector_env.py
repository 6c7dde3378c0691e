"""Gymnasium vector envs over the batched engines: ``num_envs`` games stepped as arrays.

`Flip7VectorEnv` (base Flip 7, `flip7ref.batch.core.BatchState`) and `VengeanceVectorEnv`
(Vengeance, `flip7ref.batch.vengeance.VengeanceState`) have the interface of
`flip7ref.rl.Flip7GymEnv` and share one implementation (`BatchVectorEnv`): the learner
plays seat ``seat`` of every game, or with ``seat="random"`` a seat drawn for each game
whenever it is dealt (so that one policy trains every seat); the other seats are played inside
the step by a batched policy (``threshold:N`` as `flip7ref.play.strategies.ThresholdStrategy`
plays it, ``random``, or a callable `BatchPolicy`, ``(observations, masks) -> actions``, e.g. a
frozen copy of the learner for self-play).  Observations are ``{"observation": (n, size)
float32, "action_mask": (n, A) int8}`` in the layout of `flip7ref.rl.encoding`
(``normalize=True``: scaled as `flip7ref.rl.encoding.ObservationEncoder.normalize` scales
them); actions are the same indices, with the seats relative to the learner's by default
(``seats="relative"``: the learner first, the others in turn order after it;
``ActionIndex.absolute_indices`` maps them) or ``absolute``.

Rewards (``points``) are the changes of the learner's total since the last step, so that
they add up to its final total: points scored before its first decision of a game (the
other seats play first) count in its first reward.  Autoreset is Gymnasium's ``SAME_STEP``
mode: a game that ends is dealt again at once, its last observation and outcome in
``infos["final_obs"]``, ``infos["final_info"]`` (so the observation returned always has a
usable mask; a finished game's mask is index 0 alone, as the single env's).  An illegal
index leaves that game as it was and gives ``illegal_reward``.  Needs the ``[rl]`` extra
(gymnasium).  After ``import flip7ref.rl``, ``gymnasium.make_vec("flip7ref/Flip7Vector-v0",
num_envs, players=4)`` builds a `Flip7VectorEnv` and ``"flip7ref/VengeanceVector-v0"`` a
`VengeanceVectorEnv` (keyword arguments as the class takes them).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from flip7ref.batch import guards
from flip7ref.batch.core import BatchState
from flip7ref.batch.policies import parse_policy, random_actions, threshold_actions
from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.core.observation_layout import NORMALIZED_BOUND, NORMALIZED_SECTIONS
from flip7ref.core.seats import check_seat_layout
from flip7ref.rl.actions import ActionIndex
from flip7ref.rl.encoding import ObservationEncoder
from flip7ref.rl.episode import DEFAULT_MAX_MOVES, DEFAULT_REWARD, check_common

Arr = np.ndarray[Any, Any]
Chooser = Callable[[Any, Arr], Arr]
"""A batched policy: ``(state, games) -> one action index per game``."""
BatchPolicy = Callable[[Arr, Arr], Any]
"""An opponent policy over a batch: called with ``(observations, masks)``, a (k, size) float32
array of the k deciding seats' observations (each from its own seat's view, in the
learner's format, normalised when the env is) and their (k, A) int8 action masks; returns
k legal action indices (a 1-D integer array or sequence)."""


class BatchVectorEnv(gym.vector.VectorEnv[dict[str, Arr], Arr, Arr]):
    """The vector env over a batched state ``state`` (a `BatchState` or a `VengeanceState`):
    the bookkeeping both editions share (arguments, spaces, the other seats, rewards,
    same-step autoreset).  A subclass builds the state and names the threshold policy.

    Args:
        state: the batched games (``num_envs`` of them), at their first decision.
        game: the `Game` they play (its action index maps relative indices).
        seat, opponents, reward, max_moves, illegal_reward, normalize, seats: as `Flip7VectorEnv`
            documents.
        threshold: the batched ``threshold:N`` policy of the edition, ``(state, games, N)
            -> actions``.

    Raises:
        OptionError: a bad argument (the message names it).
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012 (Gymnasium declares it so)

    def __init__(
        self, state: Any, game: Game, *, seat: int | str, opponents: str | BatchPolicy, reward: str, max_moves: int,
        illegal_reward: float, threshold: Callable[[Any, Arr, int], Arr], normalize: bool = False, seats: str = "relative",
    ) -> None:  # fmt: skip
        check_common(reward, max_moves)
        if not isinstance(normalize, bool):
            raise OptionError(f"normalize: expected True or False, got {normalize!r}")
        players = state.P
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players):
            raise OptionError(f"seat: expected a seat 0..{players - 1} or 'random', got {seat!r}")
        self.seats = check_seat_layout(seats)
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)) or not math.isfinite(illegal_reward):
            raise OptionError(f"illegal_reward: expected a finite number, got {illegal_reward!r}")
        self._choose: Chooser
        if isinstance(opponents, str):
            kind, n = parse_policy(opponents)
            self._choose = (
                (lambda bs, g: random_actions(bs, g, self._rng)) if kind == "random" else (lambda bs, g: threshold(bs, g, n))
            )
        elif callable(opponents):
            kind, n = "callable", 0
            self._choose = lambda bs, g: self._called(opponents, g)
        else:
            raise OptionError(
                "opponents: expected 'random', 'threshold:N' or a batched policy callable (observations, masks) -> "
                f"actions, got {opponents!r}"
            )
        self.policy, self.threshold = kind, n
        self.normalize = normalize
        encoder = ObservationEncoder(state.game)
        self._scale = np.asarray(encoder.scale, np.float32)
        self._clipped = [encoder.sections[name] for name in NORMALIZED_SECTIONS]
        self.state = state
        num_envs = self.num_envs = int(state.B)
        self.seat = seat
        self.learner: Arr = np.zeros(num_envs, np.int64) if seat == "random" else np.full(num_envs, seat, np.int64)
        """The learner's seat in each game (drawn again whenever the game is dealt under ``seat="random"``)."""
        index = ActionIndex(game, "relative")
        self._to_absolute: Arr = (
            np.stack([index.absolute_indices(o) for o in range(players)])
            if seats == "relative"
            else np.tile(np.arange(state.A, dtype=np.int64), (players, 1))
        )  # (P, A): the absolute index of each of the learner's indices, by the learner's seat
        self.reward_kind = reward
        self.max_moves = max_moves
        self.illegal_reward = float(illegal_reward)
        size = state.observation_size()
        box = (
            spaces.Box(np.asarray(encoder.normalized_low, np.float32), np.asarray(encoder.normalized_high, np.float32),
                       dtype=np.float32)
            if normalize
            else spaces.Box(-1e6, 1e6, shape=(size,), dtype=np.float32)
        )  # fmt: skip
        self.single_observation_space = spaces.Dict(
            {
                "observation": box,
                "action_mask": spaces.Box(0, 1, shape=(state.A,), dtype=np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(state.A)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._rng = np.random.default_rng(0)
        self._moves = np.zeros(num_envs, np.int64)  # decisions of every seat in each game, as the single env counts them
        self._seen: Arr = np.zeros(num_envs, np.int64)  # the learner's total the rewards have paid out so far

    def _observe(self, observer: Arr | int) -> Arr:
        """The state's (B, size) observations for ``observer`` (one seat, or one per game),
        normalised when the env is: card counts over the deck's copies of their kind, totals
        and line values over the target score, the round over
        `flip7ref.rl.encoding.ROUND_SCALE`, those three clipped to +-`NORMALIZED_BOUND`."""
        obs: Arr = self.state.observe(observer, self.seats)
        if not self.normalize:
            return obs
        obs /= self._scale
        for s, n in self._clipped:
            np.clip(obs[:, s : s + n], -NORMALIZED_BOUND, NORMALIZED_BOUND, out=obs[:, s : s + n])
        return obs

    def _called(self, policy: BatchPolicy, games: Arr) -> Arr:
        """What the callable opponent ``policy`` chooses in ``games`` (each at another seat's
        decision), checked.

        The answer is checked against the env's own legal actions, not the mask the policy
        was given (a policy that writes into its arguments cannot make an action legal).

        Raises:
            OptionError: its answer is not one legal action index per game
                (`flip7ref.batch.guards.legal_choices`).
            Exception: whatever ``policy`` raises, unchanged (a note names the opponents).
        """
        bs = self.state
        actor = np.where(bs.actor >= 0, bs.actor, 0).astype(np.int64)
        obs = self._observe(actor)[games]
        to_absolute = self._to_absolute[actor[games]]  # (k, A): each deciding seat's own indices -> absolute
        legal = np.take_along_axis(bs.legal[games], to_absolute, axis=1).astype(np.int8)
        try:
            answer = policy(obs, legal.copy())  # a copy: a policy writing into its mask changes nothing
        except Exception as exc:
            exc.add_note(f"raised by the opponents policy {policy!r}")
            raise
        chosen = guards.legal_choices(answer, legal, "opponents")
        return np.take_along_axis(to_absolute, np.asarray(chosen, np.int64)[:, None], axis=1)[:, 0]

    def _others(self, games: Arr, *, capped: bool = True) -> None:
        """Play the other seats of ``games`` until the learner decides, the game ends or (when
        ``capped``) its decisions reach ``max_moves``; each decision counts one move."""
        bs = self.state
        g = games
        while True:
            live = ~bs.done[g] & (bs.actor[g] != self.learner[g])
            if capped:
                live &= self._moves[g] < self.max_moves
            g = g[live]
            if g.size == 0:
                return
            bs.step(self._choose(bs, g), g)
            self._moves[g] += 1

    def _obs(self) -> dict[str, Arr]:
        """The learner's observations and masks; where it is not to act (the game is over)
        index 0 alone, as `flip7ref.rl.Flip7GymEnv` masks it."""
        bs = self.state
        mask = np.take_along_axis(bs.legal, self._to_absolute[self.learner], axis=1).astype(np.int8)
        idle = bs.done | (bs.actor != self.learner)
        if idle.any():
            mask[idle] = 0
            mask[idle, 0] = 1
        return {"observation": self._observe(self.learner), "action_mask": mask}

    def _deal_seats(self, games: Arr) -> None:
        """Draw the learner's seat of ``games`` (newly dealt) under ``seat="random"``."""
        if self.seat == "random":
            self.learner[games] = self._rng.integers(self.state.P, size=len(games))

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Arr], dict[str, Any]]:
        """Deal ``num_envs`` new games (seeded from ``seed``: the same seed, the same games;
        under ``shuffle="reference"`` game ``i`` is the reference's game of seed ``seed + i``)
        and play the other seats up to the learner's first decision.

        Returns:
            ``(observations, infos)``.

        Raises:
            OptionError: a seed that is not a whole number >= 0 (nothing changed).
        """
        if isinstance(seed, list):
            seed = seed[0] if seed else None
        if seed is not None:
            seed = guards.base_seed(seed)
            self._rng = np.random.default_rng(seed)
            self.state.rng = np.random.default_rng(seed)
            self.state.next_seed = int(seed)
        self.state.reset()
        self._deal_seats(np.arange(self.num_envs))
        self._moves[:] = 0
        self._seen = np.zeros(self.num_envs, np.int64)
        self._others(np.arange(self.num_envs), capped=False)
        return self._obs(), {}

    def step(self, actions: Arr) -> tuple[dict[str, Arr], Arr, Arr, Arr, dict[str, Any]]:
        """Take one learner action per game, play the other seats, deal finished games again.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)``; ``infos`` has
            ``illegal_action`` (bool per game) and, where a game ended, ``final_obs`` and
            ``final_info`` (``totals``, ``winners`` per game) with masks ``_final_obs``.

        Raises:
            OptionError: ``actions`` not one whole number per game (`flip7ref.batch.guards`),
                before any game changes; a callable opponent's answer that is not one legal
                action index per game (the step is then left half done: `reset` the env).
        """
        bs = self.state
        a = guards.action_indices(actions, self.num_envs, flat=True)
        known = (a >= 0) & (a < bs.A)  # an index out of range goes to the engine as it is, to be refused there
        a = np.where(known, self._to_absolute[self.learner, np.clip(a, 0, bs.A - 1)], a)
        before = self._seen
        taken = bs.step(a)
        self._moves += 1  # the learner's decision, an illegal one included
        self._others(np.arange(self.num_envs))
        terminated = bs.done.copy()
        truncated = (self._moves >= self.max_moves) & ~terminated
        if self.reward_kind == "points":
            rewards = (self._learners(bs.totals) - before).astype(np.float32)
        else:
            rewards = np.where(terminated, np.where(self._learners(bs.winners), 1.0, -1.0), 0.0).astype(np.float32)
        rewards[~taken] = self.illegal_reward
        self._seen = self._learners(bs.totals).astype(np.int64)
        infos: dict[str, Any] = {"illegal_action": ~taken}
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            final = self._obs()
            mask = terminated | truncated
            infos["final_obs"] = final
            infos["_final_obs"] = mask
            infos["final_info"] = {"totals": bs.totals.copy(), "winners": bs.winners.copy()}
            infos["_final_info"] = mask
            infos["final_info"]["seat"] = self.learner.copy()
            bs.reset(ended)
            self._deal_seats(ended)
            self._moves[ended] = 0
            self._seen[ended] = 0  # the points of the next game before the learner's first decision count in its first reward
            self._others(ended, capped=False)
        return self._obs(), rewards, terminated, truncated, infos

    def _learners(self, per_seat: Arr) -> Arr:
        """The learner's element of each game's row of ``per_seat`` (B, P)."""
        return per_seat[np.arange(self.num_envs), self.learner]


class Flip7VectorEnv(BatchVectorEnv):
    """``num_envs`` games of base Flip 7, one learner seat each, stepped together.

    Args:
        num_envs: games stepped at once.
        players: seats per game (the learner's included), 1..18.
        options: option values by name (`flip7ref.batch.core.SUPPORTED_OPTIONS`).
        seat: the learner's seat, or ``random``: a seat drawn for each game whenever it is
            dealt (``learner`` holds them; ``final_info["seat"]`` the seat of an ended game).
        opponents: ``threshold:N`` (default ``threshold:20``), ``random``, or a `BatchPolicy`
            callable ``(observations, masks) -> actions`` (self-play: a frozen copy of the learner;
            it sees each deciding seat's own view and answers in that view's indices).
        reward: ``win`` (+1 when the learner is among the winners, else -1, at the end; the
            default, as every adapter's) or ``points`` (the change of the learner's total).
        max_moves: decisions of any seat (the learner's, illegal ones included, and the other
            seats', as `flip7ref.rl.Flip7GymEnv` counts them; default 5,000) after which a
            game is truncated (and dealt again).  The other seats' decisions before the
            learner's first one are counted but never cut short.
        illegal_reward: the reward of an illegal index.
        shuffle: ``numpy`` (default, fastest) or ``reference`` (the reference's deck for
            each game's seed, see `flip7ref.batch.core.BatchState`).
        normalize: observations scaled as `flip7ref.rl.encoding.ObservationEncoder.normalize`
            scales them (card counts 0..1, points over the target score, the round over 10,
            those clipped to +-10; the space's bounds follow), the opponents' too.
        seats: ``relative`` (default: observations and action indices count seats from the
            learner's, `flip7ref.rl.encoding`) or ``absolute``.

    Raises:
        OptionError: a game the batched engine does not play, or a bad argument.
    """

    def __init__(
        self, num_envs: int = 256, players: int = 4, options: Mapping[str, object] | None = None, *,
        seat: int | str = 0, opponents: str | BatchPolicy = "threshold:20", reward: str = DEFAULT_REWARD,
        max_moves: int = DEFAULT_MAX_MOVES, illegal_reward: float = -1.0, shuffle: str = "numpy", normalize: bool = False,
        seats: str = "relative",
    ) -> None:  # fmt: skip
        game = Game("flip7", players, dict(options or {}))
        super().__init__(
            BatchState(game, num_envs, 0, shuffle), game, seat=seat, opponents=opponents, reward=reward,
            max_moves=max_moves, illegal_reward=illegal_reward, threshold=threshold_actions, normalize=normalize,
            seats=seats,
        )  # fmt: skip


class VengeanceVectorEnv(BatchVectorEnv):
    """``num_envs`` games of Flip 7: With a Vengeance, one learner seat each, stepped together
    (the batched engine `flip7ref.batch.vengeance.VengeanceState`: every card, the default
    readings, Brutal Mode off).  The interface of `flip7ref.rl.Flip7GymEnv` with
    ``edition="vengeance"``: the same action indices (hit, stay, targets, the steal, discard
    and swap blocks) and observation layout.

    Args:
        num_envs: games stepped at once.
        players: seats per game (the learner's included), 1..18.
        options: option values by name (`flip7ref.batch.v_rules.VENGEANCE_OPTIONS`; the
            integers ``target_score``, ``reshuffles``).
        seat: the learner's seat, or ``random`` (as `Flip7VectorEnv` takes it).
        opponents: ``threshold:N`` (default ``threshold:20``; the choices of
            `flip7ref.play.strategies.ThresholdStrategy`, `flip7ref.batch.v_policies`), ``random``,
            or a `BatchPolicy` callable ``(observations, masks) -> actions``.
        reward: ``win`` (+1 when the learner is among the winners, else -1, at the end; the
            default, as every adapter's) or ``points`` (the change of the learner's total).
        max_moves: decisions of any seat (the learner's, illegal ones included, and the other
            seats', as `flip7ref.rl.Flip7GymEnv` counts them; default 5,000) after which a
            game is truncated (and dealt again).  The other seats' decisions before the
            learner's first one are counted but never cut short.
        illegal_reward: the reward of an illegal index.
        shuffle: ``numpy`` (default, fastest: NumPy's generator) or ``reference`` (game ``i``
            of ``reset(seed=s)`` is dealt as the reference deals seed ``s + i``).
        normalize: observations scaled as `Flip7VectorEnv` documents.
        seats: ``relative`` (default) or ``absolute``, as `Flip7VectorEnv` takes it.

    Raises:
        OptionError: a game the batched engine does not play (`flip7ref.batch.v_rules.check_vengeance`),
            or a bad argument.
    """

    def __init__(
        self, num_envs: int = 256, players: int = 4, options: Mapping[str, object] | None = None, *,
        seat: int | str = 0, opponents: str | BatchPolicy = "threshold:20", reward: str = DEFAULT_REWARD,
        max_moves: int = DEFAULT_MAX_MOVES, illegal_reward: float = -1.0, shuffle: str = "numpy", normalize: bool = False,
        seats: str = "relative",
    ) -> None:  # fmt: skip
        from flip7ref.batch.v_policies import v_threshold_actions
        from flip7ref.batch.vengeance import VengeanceState

        game = Game("vengeance", players, dict(options or {}))
        super().__init__(
            VengeanceState(game, num_envs, 0, shuffle), game, seat=seat, opponents=opponents, reward=reward,
            max_moves=max_moves, illegal_reward=illegal_reward, threshold=v_threshold_actions, normalize=normalize,
            seats=seats,
        )  # fmt: skip
