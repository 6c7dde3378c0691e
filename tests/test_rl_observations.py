"""The RL observations stay what they were: digests of seeded games' observations.

The digests below were computed with the encoder as it was before the observation was
built incrementally (a fresh list per call, turned into an array); a faster encoder must
give the very same bytes.  Each digest covers, at every PettingZoo step of a seeded
sequence of random-play games: the observation and mask of every agent (the one to act and
the others), ``state()``, the rewards and the terminations.  The Gymnasium environment's
observations are covered the same way (its learner is seat 0, where both seat layouts
agree).  The PettingZoo digests are of the absolute seat layout (``seats="absolute"``), the
only one when they were taken; the relative layout is that one rotated (``test_rl_seats.py``).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

_REASON = "needs the optional [rl] extra: pip install -e '.[rl]'"
np = pytest.importorskip("numpy", reason=_REASON)
pytest.importorskip("gymnasium", reason=_REASON)
pytest.importorskip("pettingzoo", reason=_REASON)

import flip7ref.rl as rl  # noqa: E402
from flip7ref import Game  # noqa: E402
from flip7ref.rl.encoding import ObservationEncoder  # noqa: E402

# (edition, players, options, normalize) -> (steps, digest)
CASES: list[tuple[str, int, dict[str, str], bool, int, str]] = [
    ("flip7", 4, {}, False, 1500, "02e597848a31d7ba"),
    ("flip7", 2, {"first_second_chance": "may-give", "set_aside_assigner": "giver", "initial_deal": "none"}, False, 1200,
     "2f02cb0198bfbb63"),
    ("vengeance", 4, {}, False, 1500, "88f96178fb455692"),
    ("vengeance", 3, {"brutal": "true", "swap_scope": "own-and-other", "discard_chooser": "recipient"}, True, 1500,
     "587abdff19a6ab36"),
    ("vengeance", 5, {"stayed_targetable": "no", "flip_four_cards": "immediate", "lucky13_flip7": "once"}, False, 1200,
     "b44ad0b9be0c8d4e"),
]  # fmt: skip


def _feed(h: Any, *arrays: Any) -> None:
    for a in arrays:
        arr = np.asarray(a)
        h.update(str(arr.dtype).encode())
        h.update(arr.tobytes())


def pettingzoo_digest(edition: str, players: int, options: dict[str, str], normalize: bool, steps: int) -> str:
    """The digest of ``steps`` PettingZoo steps of seeded random play (see the module)."""
    env = rl.env(edition, players, {**options, "target_score": "60"}, normalize=normalize, reward="points", seats="absolute")
    env.reset(seed=7)
    rng = random.Random(7)
    h = hashlib.sha256()
    for _ in range(steps):
        agent = env.agent_selection
        for other in env.agents:
            if other != agent:
                ob = env.observe(other)
                _feed(h, ob["observation"], ob["action_mask"])
        obs, reward, terminated, truncated, _info = env.last()
        _feed(h, obs["observation"], obs["action_mask"], env.state(), [reward, terminated, truncated])
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                env.reset()
            continue
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return h.hexdigest()[:16]


def gymnasium_digest(edition: str, options: dict[str, str], normalize: bool, steps: int) -> str:
    """The digest of ``steps`` Gymnasium steps (seat 0 random, threshold:20 opponents)."""
    env = rl.Flip7GymEnv(edition, 3, {**options, "target_score": "60"}, opponents="threshold:20", normalize=normalize)
    obs, _ = env.reset(seed=3)
    rng = random.Random(3)
    h = hashlib.sha256()
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        _feed(h, obs["observation"], obs["action_mask"], info["action_mask"], [reward, terminated, truncated])
        if terminated or truncated:
            obs, _ = env.reset()
            _feed(h, obs["observation"], obs["action_mask"])
    return h.hexdigest()[:16]


@pytest.mark.parametrize(("edition", "players", "options", "normalize", "steps", "digest"), CASES)
def test_pettingzoo_observations_are_todays(
    edition: str, players: int, options: dict[str, str], normalize: bool, steps: int, digest: str
) -> None:
    assert pettingzoo_digest(edition, players, options, normalize, steps) == digest


GYM_CASES = [("flip7", {}, False, 800, "aeac49679df75318"), ("vengeance", {"brutal": "true"}, True, 800, "92c1ab85dbe9cc58")]


@pytest.mark.parametrize(("edition", "options", "normalize", "steps", "digest"), GYM_CASES)
def test_gymnasium_observations_are_todays(
    edition: str, options: dict[str, str], normalize: bool, steps: int, digest: str
) -> None:
    assert gymnasium_digest(edition, options, normalize, steps) == digest


def test_encoder_of_a_state_met_out_of_order_is_the_fresh_one() -> None:
    """An encoder that remembers the last state gives the same vector for states met in
    any order (a tree search jumps between branches) as a fresh encoder does."""
    game = Game("vengeance", 4, {"target_score": "60"})
    rng = random.Random(5)
    states = []
    for i in range(6):
        state = game.new_initial_state(seed=i)
        while not state.is_terminal():
            if state.is_chance_node():
                state = state.apply_chance(state.sample_chance())
            else:
                states.append(state)
                state = state.apply(rng.choice(state.legal_actions()))
    shared = ObservationEncoder(game)
    order = list(range(len(states)))
    rng.shuffle(order)
    for i in order[:3000]:
        seat = rng.randrange(4)
        assert shared.encode(states[i], seat) == ObservationEncoder(game).encode(states[i], seat)


def test_points_beyond_the_bound_are_clipped_and_the_array_is_the_list() -> None:
    game = Game("flip7", 4)
    enc = ObservationEncoder(game, "absolute")
    state = game.new_initial_state(seed=2, totals=(2_000_000, 7, 0, 0))
    start, _ = enc.sections["totals"]
    vector = enc.encode(state, 1)
    assert vector[start : start + 4] == [1_000_000.0, 7.0, 0.0, 0.0]
    assert enc.encode_array(state, 1).tolist() == vector
    normalized = enc.encode_array(state, 1, normalize=True)
    assert normalized.dtype == np.float32 and normalized[start] == 10.0  # clipped to NORMALIZED_BOUND
    assert normalized.tolist() == np.array(enc.normalize(vector), dtype=np.float32).tolist()
    observer, _ = enc.sections["observer"]
    assert enc.encode_array(state, None)[observer : observer + 4].tolist() == [0.0] * 4
    assert enc.encode_array(state, 3)[observer : observer + 4].tolist() == [0.0, 0.0, 0.0, 1.0]
    relative = ObservationEncoder(game)  # the default: seat 1 first, then 2, 3, 0
    assert relative.encode(state, 1)[start : start + 4] == [7.0, 0.0, 0.0, 1_000_000.0]
    assert relative.encode_array(state, 1).tolist() == relative.encode(state, 1)
    assert relative.encode_array(state, 3)[observer : observer + 4].tolist() == [1.0, 0.0, 0.0, 0.0]
    assert relative.encode_array(state, None).tolist() == enc.encode_array(state, None).tolist()  # no observer: absolute


def test_masks_and_observations_handed_out_are_the_callers_own() -> None:
    """The encoder and the action index keep templates and a working vector: what they
    return is a copy, so a caller writing into it changes nothing that comes after."""
    env = rl.raw_env("flip7", 2)
    env.reset(seed=4)
    agent = env.agent_selection
    first = env.observe(agent)
    expected_mask, expected_obs = first["action_mask"].tolist(), first["observation"].tolist()
    first["action_mask"][:] = 7
    first["observation"][:] = -3.0
    again = env.observe(agent)
    assert again["action_mask"].tolist() == expected_mask and again["observation"].tolist() == expected_obs
    assert env.state().tolist() != [-3.0] * env.encoder.size


def test_an_error_half_way_through_an_update_leaves_no_stale_sections() -> None:
    game = Game("flip7", 3)
    enc = ObservationEncoder(game)
    state = game.new_initial_state(seed=9)
    enc.encode(state, 0)
    while state.is_chance_node() or state.pending()[0] != "offer":
        state = state.apply_chance(state.sample_chance()) if state.is_chance_node() else state.apply(state.legal_actions()[0])
    later = state.apply("hit")
    while later.is_chance_node():
        later = later.apply_chance(later.sample_chance())
    kinds = dict(enc._kind_index)
    enc._kind_index.clear()  # the decision kind can no longer be found: the update fails after the piles and lines
    with pytest.raises(KeyError):
        enc.encode(later, 0)
    enc._kind_index.update(kinds)
    assert enc.encode(later, 0) == ObservationEncoder(game).encode(later, 0)
