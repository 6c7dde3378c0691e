"""Hypothesis state machines over whole games of both editions, with invariants as oracles.

The machine draws a player count, a dealer, a seed or an open deck, and a
reading for every option; then at each step takes any legal action or any
chance outcome, so every path the rules allow can be reached.  After every
step the invariants below are checked; each names the rule ids it protects.
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from flip7ref import CHANCE, TERMINAL, Action, Game, State, Status, load_edition
from flip7ref.core.game import NUMBER


def option_strategy(edition: str) -> st.SearchStrategy[dict[str, object]]:
    """Any reading of every option (integer options: a small target or deck count)."""
    parts: dict[str, st.SearchStrategy[object]] = {}
    for name, spec in load_edition(edition).options.items():
        if name == "target_score":
            parts[name] = st.sampled_from([200, 40, 80])
        elif name == "decks":
            parts[name] = st.sampled_from(["auto", 1, 2])
        elif name == "reshuffles":
            parts[name] = st.sampled_from([1, 0, 2])
        else:
            parts[name] = st.sampled_from([r.name for r in spec.readings])
    return st.fixed_dictionaries(parts)


class GameMachine(RuleBasedStateMachine):
    """Plays one game of ``EDITION`` along any legal path."""

    EDITION = "flip7"

    PLAYERS: st.SearchStrategy[int] = st.one_of(st.integers(1, 8), st.just(19))

    def __init__(self) -> None:
        super().__init__()
        self.state: State | None = None
        self.steps = 0
        self.prev_totals: tuple[int, ...] = ()
        self.round_moves = 0  # moves since the current round began
        self.since_offer = 0  # moves since the last Hit-or-Stay offer or round start

    @initialize(seed=st.one_of(st.none(), st.integers(0, 10_000)), data=st.data())
    def start(self, seed: int | None, data: st.DataObject) -> None:
        players = data.draw(self.PLAYERS, label="players")
        options = data.draw(option_strategy(self.EDITION), label="options")
        game = Game(self.EDITION, players, options)
        dealer = data.draw(st.integers(0, players - 1), label="dealer")
        self.state = game.new_initial_state(seed=seed, dealer=dealer)
        self.prev_totals = self.state.totals

    @precondition(lambda self: self.state is not None and self.state.current_player >= 0)
    @rule(data=st.data())
    def decide(self, data: st.DataObject) -> None:
        assert self.state is not None
        action = data.draw(st.sampled_from(self.state.legal_actions()), label="action")
        self.advance(self.state.apply(action))

    @precondition(lambda self: self.state is not None and self.state.current_player == CHANCE)
    @rule(data=st.data())
    def draw(self, data: st.DataObject) -> None:
        assert self.state is not None
        card = data.draw(st.sampled_from([c for c, _ in self.state.chance_outcomes()]), label="card")
        self.advance(self.state.apply_chance(card))

    @precondition(lambda self: self.state is not None and self.state.is_terminal())
    @rule()
    def game_over(self) -> None:
        """F7-120: a finished game has winners, the highest total, at or above the target."""
        assert self.state is not None
        s = self.state
        best = max(s.totals)
        assert best >= s.game.target_score
        assert all(s.totals[w] == best for w in s.winners)
        if s.game.tie == "another-round":
            assert len(s.winners) == 1

    def advance(self, new: State) -> None:
        assert self.state is not None
        old = self.state
        self.prev_totals = old.totals
        self.state = new
        self.steps += 1
        self.round_moves = 0 if new.round != old.round or new.is_terminal() else self.round_moves + 1
        self.since_offer = 0 if new.round != old.round or new.pending()[0] in ("offer", "terminal") else self.since_offer + 1

    # -- liveness (F7-116, V-075) -----------------------------------------------------

    @invariant()
    def rounds_end_within_the_bound(self) -> None:
        """F7-116, V-075, F7-115: a round takes at most Game.max_moves_per_round() moves,
        so a Hit-or-Stay offer or the round end comes within that bound; the pending
        stack never holds more than Game.max_pending() frames."""
        if self.state is None:
            return
        g = self.state.game
        assert self.round_moves <= g.max_moves_per_round()
        assert self.since_offer <= g.max_moves_per_round()
        assert len(self.state.frames) <= g.max_pending()
        assert 0 <= self.state.round_shuffles <= g.reshuffles

    # -- invariants ---------------------------------------------------------------

    @invariant()
    def cards_are_conserved(self) -> None:
        """F7-003, F7-113, F7-111: every card of the deck(s) is in exactly one zone."""
        if self.state is None:
            return
        assert self.state.cards_in_play() == Counter(self.state.game.deck)

    @invariant()
    def live_lines_have_no_duplicates(self) -> None:
        """F7-040, V-020, V-036, F7-082: a live line repeats no number, except one 13
        beside Lucky 13; a busted line holds its duplicate; one Second Chance at most."""
        if self.state is None:
            return
        g = self.state.game
        for p in self.state.players:
            numbers = [c for c in p.line if g.category[c] == NUMBER]
            ranks = [g.rank[c] for c in numbers]
            extra = len(ranks) - len(set(ranks))
            if p.status is not Status.BUSTED:
                lucky = any("pair_allowed" in g.traits[c] for c in numbers)
                assert extra == 0 or (extra == 1 and lucky and ranks.count(13) == 2)
            elif g.busted_cards == "discard":  # D-V-27 (b): the busted line went to the discard pile
                assert extra == 0
            elif g.card_ids[p.line[-1]] != "unlucky7":
                assert extra >= 1
            assert sum(1 for c in p.kept if g.card_ids[c] == "second_chance") <= 1

    @invariant()
    def node_kinds_are_consistent(self) -> None:
        """OpenSpiel contract: decision nodes have actions, chance nodes exact outcomes."""
        if self.state is None:
            return
        s = self.state
        player = s.current_player
        if player == TERMINAL:
            assert s.legal_actions() == [] and s.chance_outcomes() == []
            assert s.winners
        elif player == CHANCE:
            outcomes = s.chance_outcomes()
            assert s.legal_actions() == []
            assert outcomes and sum(p for _, p in outcomes) == 1
            assert all(isinstance(p, Fraction) and p > 0 for _, p in outcomes)
            assert len({c for c, _ in outcomes}) == len(outcomes)
        else:
            assert 0 <= player < s.num_players
            legal = s.legal_actions()
            assert legal and s.chance_outcomes() == []
            assert legal == sorted(legal, key=Action.sort_key)
            assert [Action.parse(str(a)) for a in legal] == legal
            if s.pending()[0] == "offer":
                assert s.status(player) is Status.ACTIVE

    @invariant()
    def scores_follow_the_rules(self) -> None:
        """F7-101, F7-102, V-053, F7-050: outside Brutal Mode totals never fall and round
        scores are never negative; busted players score 0; one Flip 7 maker per round."""
        if self.state is None:
            return
        s = self.state
        brutal = s.game.options.get("brutal") == "true"
        if not brutal:
            assert all(a <= b for a, b in zip(self.prev_totals, s.totals, strict=True))
        for event in s.last_events():
            if event.type == "round_scored" and not brutal:
                assert all(x >= 0 for x in event.get("scores"))
        makers = [e for e in s.last_events() if e.type == "flip7"]
        assert len(makers) <= 1
        if makers:  # the round ends at once, after the Brutal Mode choice if there is one (V-082)
            assert any(e.type == "round_scored" for e in s.last_events()) or s.pending()[0] == "flip7_bonus"

    @invariant()
    def serialization_round_trips(self) -> None:
        """A state survives JSON serialization with its history and events."""
        if self.state is None or self.steps % 7:
            return
        data = json.loads(json.dumps(self.state.to_dict()))
        again = State.from_dict(data)
        assert again == self.state
        assert again.history() == self.state.history()
        assert again.events() == self.state.events()

    @invariant()
    def replay_is_equivalent(self) -> None:
        """Replaying the history from the initial state reaches the same state."""
        if self.state is None or self.steps % 11:
            return
        assert self.state.replay()[-1] == self.state


class VengeanceMachine(GameMachine):
    """Plays one game of Flip 7: With a Vengeance along any legal path."""

    EDITION = "vengeance"


class AlwaysHitMachine(GameMachine):
    """Many players (up to two decks' worth) who always Hit when offered: the deck runs
    dry, reshuffles and is exhausted within a round, where a round could once go on
    for ever (issue 14: two Flip Threes cycling through one-card reshuffles)."""

    PLAYERS = st.sampled_from([2, 6, 18, 19, 36])

    @precondition(lambda self: self.state is not None and self.state.current_player >= 0)
    @rule(data=st.data())
    def decide(self, data: st.DataObject) -> None:
        assert self.state is not None
        legal = self.state.legal_actions()
        offer = self.state.pending()[0] == "offer"
        action = legal[0] if offer else data.draw(st.sampled_from(legal), label="action")  # an offer: hit
        self.advance(self.state.apply(action))


class VengeanceAlwaysHitMachine(AlwaysHitMachine):
    """The same for Flip 7: With a Vengeance (Flip Four and Just One More chains)."""

    EDITION = "vengeance"


TestFlip7Machine = GameMachine.TestCase
TestVengeanceMachine = VengeanceMachine.TestCase
TestAlwaysHitMachine = AlwaysHitMachine.TestCase
TestVengeanceAlwaysHitMachine = VengeanceAlwaysHitMachine.TestCase
TestAlwaysHitMachine.settings = settings(TestAlwaysHitMachine.settings, stateful_step_count=300, max_examples=10)
TestVengeanceAlwaysHitMachine.settings = settings(
    TestVengeanceAlwaysHitMachine.settings, stateful_step_count=300, max_examples=10
)


@pytest.mark.rules("F7-110", "F7-120", "V-070", "V-073")
@pytest.mark.parametrize("edition", ["flip7", "vengeance"])
def test_random_games_end_within_bound(edition: str) -> None:
    """Whole seeded games with random decisions end, within 20,000 moves each."""
    import random

    from flip7ref.play.games import play
    from flip7ref.play.strategies import RandomStrategy

    for players in (1, 2, 3, 5, 8):
        game = Game(edition, players)
        final = play(game.new_initial_state(seed=players), [RandomStrategy()], random.Random(players), max_moves=20_000)
        assert final.is_terminal()
        assert max(final.totals) >= 200
        assert final.cards_in_play() == Counter(game.deck)


@pytest.mark.rules("F7-116", "F7-115", "F7-113", "V-075", "V-072")
@pytest.mark.parametrize(("edition", "players", "games"), [("flip7", 18, 20), ("flip7", 36, 2), ("vengeance", 18, 2)])
def test_always_hit_games_end_and_rounds_keep_the_bound(edition: str, players: int, games: int) -> None:
    """Issue 14: `simulate --players 18 --strategy always-hit` never ended.  Now every game
    ends, no round takes more than Game.max_moves_per_round() moves and the pending stack
    stays within Game.max_pending() frames."""
    import random

    from flip7ref.play.games import play
    from flip7ref.play.strategies import parse_strategy

    game = Game(edition, players)
    bound, frames = game.max_moves_per_round(), game.max_pending()
    for seed in range(1, games + 1):
        final = play(game.new_initial_state(seed=seed), [parse_strategy("always-hit")], random.Random(seed))
        assert final.is_terminal() and final.winners
        longest = deepest = moves = 0
        for state in final.replay():
            deepest = max(deepest, len(state.frames))
            if any(e.type == "round_started" for e in state.last_events()):
                moves = 0
            else:
                moves += 1
                longest = max(longest, moves)
        assert 0 < longest <= bound
        assert deepest <= frames
