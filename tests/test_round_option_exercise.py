"""The payoff of one round close (issue 43 item 2): a round option touches one function.

The end of a round and the start of the next are written once,
`flip7ref.core.engine.close_round` and `flip7ref.core.engine.open_round`, and the general
path (`engine.end_round` / `engine.start_round`) and the fast lanes
(`flip7ref.core.lanes.round_end_state`) both call them.  So a variant of the table-clearing
rule, here "a held Second Chance carries over to the next round" (the opposite of F7-083),
is a change to `close_round` alone: replacing that one function (nothing else) gives a game
in which the Second Chances do carry over, on both paths, move for move.  The test of the
test: replaced where the general path calls it but not where the lanes do, the two paths part.
The variant is a test-only exercise, not a rule or an option of the game.

It also pins `flip7ref.core.engine.round_over`, the one decider of whether the round is
over (F7-050, F7-052, F7-110, F7-115).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from helpers import flip7ref_bindings, seeded_trace

import flip7ref
from flip7ref import Game, State
from flip7ref.core import engine
from flip7ref.core.engine import NO_CARDS, RoundClose, round_over
from flip7ref.core.model import ACTIVE, BUSTED, STAYED, Player, make_player

SEEDS = range(8)

rebinds = pytest.mark.skipif(flip7ref.compiled, reason="rebinds a function at runtime: compiled modules bind it for good")


def _carrying(original: Callable[..., RoundClose]) -> Callable[..., RoundClose]:
    """`close_round` with the variant: every Second Chance held at the end of a round that
    is followed by another stays in front of its holder (who starts the next round active,
    holding it) instead of joining the discard pile.  The last round's table is cleared as
    ever: no round follows (and the position checks refuse a finished game with cards on
    the table, F7-111)."""

    def close_round(game: Game, players: Sequence[Player], discard: tuple[int, ...], *rest: Any) -> RoundClose:
        closed = original(game, players, discard, *rest)
        if closed.plan.winners:
            return closed
        kept = [tuple(c for c in p.kept if game.card_ids[c] == "second_chance") for p in players]
        pile = list(closed.discard)
        for c in reversed([c for k in kept for c in k]):  # the last copies: the ones just cleared
            del pile[len(pile) - 1 - pile[::-1].index(c)]
        table = tuple(make_player(((), k, ACTIVE, False)) if k else NO_CARDS for k in kept)
        return closed._replace(players=table, discard=tuple(pile))

    return close_round


def _carried(traces: list[list[State]]) -> int:
    """How many Second Chances were in front of a player as a round started."""
    count = 0
    for states in traces:
        for s in states:
            if any(e.type == "round_started" for e in s.last_events()):
                count += sum(s.game.card_ids[c] == "second_chance" for p in s.players for c in p.kept)
    return count


@pytest.fixture
def variant() -> Iterator[list[tuple[object, str]]]:
    """The variant, by replacing `close_round` (one function) wherever flip7ref bound it."""
    places = flip7ref_bindings(engine.close_round)
    replacement = _carrying(engine.close_round)
    with pytest.MonkeyPatch.context() as mp:
        for module, attr in places:
            mp.setattr(module, attr, replacement)
        yield places


@rebinds
def test_the_variant_is_one_function(variant: list[tuple[object, str]]) -> None:
    """The round close is one function object, bound by the general path and by the lanes."""
    import flip7ref.core.lanes as lanes

    assert sorted(getattr(m, "__name__", "") for m, _ in variant) == ["flip7ref.core.engine", "flip7ref.core.lanes"]
    assert all(attr == "close_round" for _, attr in variant)
    assert lanes.close_round is engine.close_round  # both rebound to the variant


@rebinds
@pytest.mark.parametrize(
    "options",
    [{}, {"deal_after_second_chance": "early-cards", "deal_after_early_cards": "offer"}],
    ids=["default", "offer-at-the-deal-slot"],
)
def test_second_chances_carry_over_on_both_paths(variant: list[tuple[object, str]], options: dict[str, str]) -> None:
    """Under the variant, Second Chances are carried into new rounds, the fast lanes and the
    general path play every seeded game to the same states, events and history, and every
    state reached reloads unchanged (the position checks accept it).  With a held Second
    Chance counted as early cards and early cards offered Hit or Stay at the deal slot
    (F7-025, F7-026), a carried card changes the deal itself (`open_round`'s first step)."""
    game = Game("flip7", 3, options)
    traces = []
    for seed in SEEDS:
        general = seeded_trace(game, seed, False)
        fast = seeded_trace(game, seed, True)
        assert [t.history() for t in fast] == [t.history() for t in general], seed
        assert fast == general, seed
        traces.append(general)
    assert _carried(traces) > 0
    for s in (s for states in traces for s in states):
        assert State.from_dict(json.loads(json.dumps(s.to_dict(log=False))), game) == s
    if options:  # a seat offered Hit or Stay in the deal for the Second Chance it carried, its line empty
        assert any(
            f.name == "deal_offer" and not s.players[f.seat].line
            and any(game.card_ids[c] == "second_chance" for c in s.players[f.seat].kept)
            for states in traces for s in states for f in s.frames
        )  # fmt: skip
    # the deck is whole at every state: the carried cards left the discard pile, nothing was lost
    for s in (s for states in traces for s in states):
        held = [c for p in s.players for c in (*p.line, *p.kept)] + [c for f in s.frames for c in f.held_cards()]
        assert sorted((*s.draw, *s.discard, *held)) == sorted(game.deck)


def test_without_the_variant_nothing_carries_over() -> None:
    """F7-083 as the game plays it: no Second Chance is in front of anyone as a round starts."""
    game = Game("flip7", 3)
    traces = [seeded_trace(game, seed, True) for seed in SEEDS]
    assert _carried(traces) == 0


@rebinds
def test_the_paths_part_when_only_one_follows_the_variant() -> None:
    """The test of the test: the variant given to the general path alone (the lanes keep
    the rule's own close) and the two paths no longer agree."""
    game = Game("flip7", 3)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine, "close_round", _carrying(engine.close_round))  # not flip7ref.core.lanes's binding
        parted = [seed for seed in SEEDS if seeded_trace(game, seed, False) != seeded_trace(game, seed, True)]
    assert parted != []


P = make_player(((), (), ACTIVE, False))
S = make_player(((), (), STAYED, False))
B = make_player(((), (), BUSTED, False))


@pytest.mark.parametrize(
    ("players", "flip7", "declared", "over"),
    [
        ((P, S, B), None, False, False),  # someone is left to act
        ((S, S, B), None, False, True),  # F7-110: nobody is
        ((P, S, B), 1, False, True),  # F7-050: a Flip 7 ends it at once
        ((P, P, P), None, True, True),  # F7-115: the deck exhausted under end-round
        (None, None, False, False),  # work pending (F7-052): the players are not asked
        (None, 0, False, True),
        (None, None, True, True),
    ],
)
def test_round_over(players: Sequence[Player] | None, flip7: int | None, declared: bool, over: bool) -> None:
    assert round_over(players, flip7, declared) is over
