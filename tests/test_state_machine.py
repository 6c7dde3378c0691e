"""Hypothesis state machine over whole Flip 7 games, with invariants as oracles.

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
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from flip7ref import CHANCE, TERMINAL, Action, Game, State, Status, load_edition
from flip7ref.game import NUMBER

EDITION = load_edition("flip7")


def option_strategy() -> st.SearchStrategy[dict[str, object]]:
    """Any reading of every option (integer options: a small target or deck count)."""
    parts: dict[str, st.SearchStrategy[object]] = {}
    for name, spec in EDITION.options.items():
        if name == "target_score":
            parts[name] = st.sampled_from([200, 40, 80])
        elif name == "decks":
            parts[name] = st.sampled_from(["auto", 1, 2])
        else:
            parts[name] = st.sampled_from([r.name for r in spec.readings])
    return st.fixed_dictionaries(parts)


class Flip7Machine(RuleBasedStateMachine):
    """Plays one game along any legal path."""

    def __init__(self) -> None:
        super().__init__()
        self.state: State | None = None
        self.steps = 0
        self.prev_totals: tuple[int, ...] = ()

    @initialize(
        players=st.one_of(st.integers(1, 8), st.just(19)),
        options=option_strategy(),
        seed=st.one_of(st.none(), st.integers(0, 10_000)),
        data=st.data(),
    )
    def start(self, players: int, options: dict[str, object], seed: int | None, data: st.DataObject) -> None:
        game = Game("flip7", players, options)
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
        self.prev_totals = self.state.totals
        self.state = new
        self.steps += 1

    # -- invariants ---------------------------------------------------------------

    @invariant()
    def cards_are_conserved(self) -> None:
        """F7-003, F7-113, F7-111: every card of the deck(s) is in exactly one zone."""
        if self.state is None:
            return
        assert self.state.cards_in_play() == Counter(self.state.game.deck)

    @invariant()
    def live_lines_have_no_duplicates(self) -> None:
        """F7-040, F7-080, F7-082: no live line repeats a number; one Second Chance at most."""
        if self.state is None:
            return
        g = self.state.game
        for p in self.state.players:
            ranks = [g.rank[c] for c in p.line if g.category[c] == NUMBER]
            if p.status is not Status.BUSTED:
                assert len(ranks) == len(set(ranks))
            else:
                assert len(ranks) - len(set(ranks)) == 1
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
        """F7-101, F7-102, F7-050: totals never fall; busted players score 0; one Flip 7 maker."""
        if self.state is None:
            return
        s = self.state
        assert all(a <= b for a, b in zip(self.prev_totals, s.totals, strict=True))
        for event in s.last_events():
            if event.type == "round_scored":
                assert all(x >= 0 for x in event.get("scores"))
        makers = [e for e in s.last_events() if e.type == "flip7"]
        assert len(makers) <= 1
        if makers:
            assert any(e.type == "round_scored" for e in s.last_events())

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


TestFlip7Machine = Flip7Machine.TestCase


@pytest.mark.rules("F7-110", "F7-120")
def test_random_games_end_within_bound() -> None:
    """Whole seeded games with random decisions end, within 20,000 moves each."""
    import random

    from flip7ref.play import play
    from flip7ref.strategies import RandomStrategy

    for players in (1, 2, 3, 5, 8):
        game = Game("flip7", players)
        final = play(game.new_initial_state(seed=players), [RandomStrategy()], random.Random(players), max_moves=20_000)
        assert final.is_terminal()
        assert max(final.totals) >= 200
        assert final.cards_in_play() == Counter(game.deck)
