"""Seat-relative observations and action indices (issue 44 item 1): the observing / acting
seat first, the others in turn order after it, in every adapter and the batched engines.

- rotation: a position seen from seat ``k`` is, under the relative layout, the position with
  the seats turned by ``k`` seen from seat 0; played on with the same relative indices, the
  two games stay alike (so a policy learnt in one seat plays every seat);
- the action mapping (`ActionIndex.absolute_indices`) round-trips and names the right seats;
- the batched engines' relative observations and masks agree with the reference encoder's;
- the batched vector env with a learner seat drawn per game;
- the ecosystem checkers under both layouts.
"""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import flip7ref.rl as rl  # noqa: E402
from flip7ref import Game  # noqa: E402
from flip7ref.batch.core import BatchState  # noqa: E402
from flip7ref.batch.vector_env import Flip7VectorEnv, VengeanceVectorEnv  # noqa: E402
from flip7ref.batch.vengeance import VengeanceState  # noqa: E402
from flip7ref.core.errors import OptionError  # noqa: E402
from flip7ref.core.seats import absolute_seat, relative_seat  # noqa: E402
from flip7ref.core.state import Action, State  # noqa: E402
from flip7ref.rl.actions import ActionIndex  # noqa: E402
from flip7ref.rl.encoding import ObservationEncoder  # noqa: E402

ONE = {"reshuffles": 1}  # the batched engines play whole numbers of reshuffles


def _settled(state: State) -> State:
    while state.is_chance_node():
        state = state.apply_chance(state.sample_chance())
    return state


# ------------------------------------------------------------------ seats


def test_relative_and_absolute_seats_are_inverse() -> None:
    assert [relative_seat(s, 2, 4) for s in range(4)] == [2, 3, 0, 1]
    assert [absolute_seat(r, 2, 4) for r in range(4)] == [2, 3, 0, 1]
    seats = np.array([0, 1, 2, 3])
    assert (absolute_seat(relative_seat(seats, np.array([3, 0, 1, 2]), 4), np.array([3, 0, 1, 2]), 4) == seats).all()


def test_an_unknown_seat_layout_is_refused() -> None:
    game = Game("flip7", 3)
    for make in (lambda: ObservationEncoder(game, "mine"), lambda: ActionIndex(game, "mine"),
                 lambda: rl.Flip7GymEnv("flip7", 3, seats="mine")):  # fmt: skip
        with pytest.raises(OptionError) as info:
            make()
        assert str(info.value) == "seats: expected 'relative' or 'absolute', got 'mine'"
    with pytest.raises(OptionError, match=r"seat: expected a seat 0\.\.3 or 'random', got 'any'"):
        Flip7VectorEnv(2, 4, ONE, seat="any")
    with pytest.raises(OptionError, match=r"origin: expected a seat 0\.\.2, got 3"):
        ActionIndex(game).absolute_indices(3)


# ------------------------------------------------------------------ rotation


@settings(max_examples=25, deadline=None)
@given(
    edition=st.sampled_from(["flip7", "vengeance"]),
    players=st.integers(2, 5),
    turn=st.integers(0, 4),
    dealer=st.integers(0, 4),
    seed=st.integers(0, 10_000),
    totals=st.lists(st.integers(0, 150), min_size=5, max_size=5),
    choices=st.integers(0, 2**32 - 1),
)
def test_a_position_seen_from_seat_k_is_the_rotated_position_seen_from_seat_0(
    edition: str, players: int, turn: int, dealer: int, seed: int, totals: list[int], choices: int
) -> None:
    k, dealer, totals = turn % players, dealer % players, totals[:players]
    game = Game(edition, players, {"target_score": 80})
    enc, index = ObservationEncoder(game), ActionIndex(game)
    a = _settled(game.new_initial_state(seed=seed, dealer=dealer, totals=totals))
    turned = [totals[absolute_seat(j, k, players)] for j in range(players)]  # seat j of b is seat k + j of a
    b = _settled(game.new_initial_state(seed=seed, dealer=relative_seat(dealer, k, players), totals=turned))
    rng = random.Random(choices)
    for _ in range(40):
        for j in range(players):
            assert enc.encode(a, absolute_seat(j, k, players)) == enc.encode(b, j)
        assert a.is_terminal() == b.is_terminal()
        if a.is_terminal():
            assert {relative_seat(w, k, players) for w in a.winners} == set(b.winners)
            return
        assert relative_seat(a.current_player, k, players) == b.current_player
        legal = index.legal_indices(a)
        assert legal == index.legal_indices(b)  # the same choices, under the same indices
        i = rng.choice(legal)
        a, b = _settled(a.apply(index.decode(a, i))), _settled(b.apply(index.decode(b, i)))


def test_the_per_seat_sections_start_with_the_observer() -> None:
    game = Game("flip7", 4)
    state = game.new_initial_state(seed=5, dealer=1, totals=(10, 20, 30, 40))
    enc, absolute = ObservationEncoder(game), ObservationEncoder(game, "absolute")
    s = {name: start for name, (start, _n) in enc.sections.items()}
    obs = enc.encode(state, 2)
    assert obs[s["totals"] : s["totals"] + 4] == [30.0, 40.0, 10.0, 20.0]
    assert obs[s["observer"] : s["observer"] + 4] == [1.0, 0.0, 0.0, 0.0]
    assert obs[s["dealer"] : s["dealer"] + 4] == [0.0, 0.0, 0.0, 1.0]  # seat 1 is relative seat 3 of seat 2
    c = len(game.card_ids)
    for r in range(4):
        line = [float(state.line(absolute_seat(r, 2, 4)).count(card)) for card in game.card_ids]
        assert obs[s["lines"] + r * c : s["lines"] + r * c + c] == line
    rel_vec, abs_vec = np.array(obs), np.array(absolute.encode(state, 2))
    rel_vec[s["observer"]], abs_vec[s["observer"] + 2] = 0.0, 0.0
    assert (rel_vec == abs_vec[enc.seat_view(2)]).all()  # the absolute vector, per-seat sections turned
    assert enc.encode(state, 0) == absolute.encode(state, 0)  # seat 0 sees the table as it is numbered
    normalized = enc.encode_array(state, 2, normalize=True)
    assert normalized.tolist() == np.array(enc.normalize(obs), dtype=np.float32).tolist()


# ------------------------------------------------------------------ actions


def test_the_action_mapping_is_a_permutation_naming_seats_from_the_actor() -> None:
    game = Game("vengeance", 4)
    index = ActionIndex(game)
    assert (index.absolute_indices(0) == np.arange(index.size)).all()
    t, _ = index.blocks["target"]
    for origin in range(4):
        table = index.absolute_indices(origin)
        assert sorted(table.tolist()) == list(range(index.size))
        assert [int(table[t + r]) - t for r in range(4)] == [(origin + r) % 4 for r in range(4)]
        steal, _ = index.blocks["steal"]
        k = len(index.line_kinds)
        assert int(table[steal + 1 * k + 5]) == steal + ((origin + 1) % 4) * k + 5
    swap, _ = index.blocks["swap"]
    # relative pair (0, 3) from seat 2 is seats 2 and 1: the pair (1, 2), its two kinds exchanged
    rel = swap + index.pair_of[(0, 3)] * k * k + 4 * k + 7
    assert int(index.absolute_indices(2)[rel]) == swap + index.pair_of[(1, 2)] * k * k + 7 * k + 4


@pytest.mark.parametrize(("edition", "players", "seed"), [("flip7", 3, 1), ("vengeance", 4, 2), ("vengeance", 5, 3)])
def test_relative_indices_round_trip_along_a_game(edition: str, players: int, seed: int) -> None:
    game = Game(edition, players)
    rel, absolute = ActionIndex(game), ActionIndex(game, "absolute")
    state = _settled(game.new_initial_state(seed=seed))
    rng = random.Random(seed)
    seen = 0
    while not state.is_terminal() and seen < 300:
        actor = state.current_player
        table = rel.absolute_indices(actor)
        legal = state.legal_actions()
        assert rel.legal_indices(state) == sorted({rel.encode(state, a) for a in legal})
        assert sorted(int(table[i]) for i in rel.legal_indices(state)) == absolute.legal_indices(state)
        mask = rel.mask_array(state)
        assert (mask == absolute.mask_array(state)[table]).all()
        for act in legal:
            i = rel.encode(state, act)
            assert int(table[i]) == absolute.encode(state, act)
            assert rel.encode(state, rel.decode(state, i)) == i  # the first card of the same kind
            assert rel.decode(state, i) == absolute.decode(state, int(table[i]))
        if any(a.verb == "target" for a in legal) and Action("target", (actor,)) in legal:
            assert rel.decode(state, rel.blocks["target"][0]) == Action("target", (actor,))  # target 0: myself
        state = _settled(state.apply(rng.choice(legal)))
        seen += 1
    assert seen > 20


# ------------------------------------------------------------------ the batched engines


@pytest.mark.parametrize(("edition", "players"), [("flip7", 3), ("flip7", 4), ("vengeance", 4)])
def test_batched_relative_observations_and_masks_agree_with_the_encoder(edition: str, players: int) -> None:
    game = Game(edition, players, ONE)
    make = VengeanceState if edition == "vengeance" else BatchState
    seeds = list(range(40, 46))
    bs = make(game, len(seeds), 0, "reference")
    bs.reset(seeds=seeds)
    states = [_settled(game.new_initial_state(seed=s)) for s in seeds]
    enc, absolute, rel = ObservationEncoder(game), ActionIndex(game, "absolute"), ActionIndex(game)
    rng = np.random.default_rng(0)
    for _ in range(60):
        for o in range(players):
            got = bs.observe(o)
            for i, s in enumerate(states):
                assert got[i].tolist() == enc.encode(s, o), (o, i)
        mixed = rng.integers(players, size=len(seeds))
        got = bs.observe(mixed)
        for i, s in enumerate(states):
            assert got[i].tolist() == enc.encode(s, int(mixed[i]))
            assert bs.observe(mixed, "absolute")[i].tolist() == ObservationEncoder(game, "absolute").encode(s, int(mixed[i]))
            if not s.is_terminal():
                table = rel.absolute_indices(s.current_player)
                assert bs.legal[i][table].astype(np.int8).tolist() == rel.mask(s)
        if all(s.is_terminal() for s in states):
            break
        actions = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in bs.legal])
        for i, s in enumerate(states):
            if not s.is_terminal():
                states[i] = _settled(s.apply(absolute.decode(s, int(actions[i]))))
        bs.step(actions)


@pytest.mark.parametrize("make", [Flip7VectorEnv, VengeanceVectorEnv])
def test_vector_env_with_a_random_learner_seat_trains_every_seat(make: type) -> None:
    env = make(16, 4, {"target_score": 40}, seat="random", opponents="threshold:20", reward="points")
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    seats_seen: set[int] = set(env.learner.tolist())
    observer = obs["observation"].shape[1] - 1 - 3 * 4  # the observer section: 4 seats before dealer, turn, round
    ended = 0
    for _ in range(150):
        assert (obs["observation"][:, observer] == 1.0).all()  # the learner is always relative seat 0
        assert (obs["observation"][:, observer + 1 : observer + 4] == 0.0).all()
        acting = ~env.state.done & (env.state.actor == env.learner)
        assert acting.sum() >= 12  # the other seats are played inside the step (a game over: index 0 alone)
        table = env._to_absolute[env.learner]
        assert (obs["action_mask"][acting] == np.take_along_axis(env.state.legal, table, axis=1)[acting]).all()
        seen = env._seen.copy()
        before = env.learner.copy()
        obs, rewards, terminated, truncated, infos = env.step(_random(rng, obs["action_mask"]))
        assert not infos["illegal_action"][acting].any()  # (a game over before the learner's turn: index 0 refused)
        live = ~(terminated | truncated)
        totals = env.state.totals[np.arange(16), before]
        assert (rewards[live] == (totals - seen)[live]).all()  # the learner's own points, in its own seat
        if "final_info" in infos:
            assert (infos["final_info"]["seat"][~live] == before[~live]).all()
            ended += int((~live).sum())
        seats_seen |= set(env.learner.tolist())
    assert ended > 0 and seats_seen == {0, 1, 2, 3}


def _random(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def test_vector_env_relative_observation_is_the_single_envs() -> None:
    for seats in ("relative", "absolute"):
        env = Flip7VectorEnv(4, 3, {"target_score": 60}, seat=2, seats=seats)
        obs, _ = env.reset(seed=0)
        single = ObservationEncoder(Game("flip7", 3, {"target_score": 60, **ONE}), seats)
        mask = ActionIndex(Game("flip7", 3, {"target_score": 60, **ONE}), seats)
        # the layouts themselves are held to the encoder by the agreement test above; here the env's choice
        at = single.sections["observer"][0]
        want = [1.0, 0.0, 0.0] if seats == "relative" else [0.0, 0.0, 1.0]
        assert obs["observation"][:, at : at + 3].tolist() == [want] * 4
        origin = mask.absolute_indices(2) if seats == "relative" else np.arange(mask.size)
        assert (obs["action_mask"] == env.state.legal[:, origin]).all()


# ------------------------------------------------------------------ the ecosystem checkers


@pytest.mark.parametrize("seats", ["relative", "absolute"])
def test_checkers_pass_under_both_layouts(seats: str) -> None:
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test

    check_env(rl.Flip7GymEnv("vengeance", 3, seat=1, seats=seats), skip_render_check=True)
    api_test(rl.env("vengeance", 3, seats=seats), num_cycles=30)


@pytest.mark.parametrize("seats", ["relative", "absolute"])
def test_openspiel_takes_the_seat_layout(seats: str) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import flip7ref.rl.openspiel_game  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_flip7ref", {"players": 3, "seats": seats, "edition": "vengeance"})
    assert game.encoder.seats == seats and game.actions.seats == seats
    state = game.new_initial_state()
    rng = random.Random(1)
    moves = 0
    while not state.is_terminal() and moves < 400:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
            continue
        player = state.current_player()
        tensor = np.array(state.observation_tensor(player))
        assert tensor.tolist() == game.encoder.encode(state.flip7ref_state, player)
        legal = state.legal_actions()
        assert legal == game.actions.legal_indices(state.flip7ref_state)
        state.apply_action(rng.choice(legal))
        moves += 1
    assert moves > 10
