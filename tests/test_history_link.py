"""The history link (`flip7ref.core.history.Log`) and the shared values of the game loop.

Compiled, a link is a native class; in the pure build it is a tuple (as `State` is).
Either way it is immutable, pickles with its state, and a long chain of links is freed
without running out of C stack.  The events and history entries the lanes share are
the values the constructors give.
"""

from __future__ import annotations

import copy
import pickle
import random

import pytest

from flip7ref import Game, State
from flip7ref.core import events
from flip7ref.core.history import Log, chain, new_log, relinked
from flip7ref.core.model import Event
from flip7ref.play.games import play
from flip7ref.play.strategies import ThresholdStrategy


def _played(seed: int = 3) -> State:
    game = Game("flip7", 4)
    return play(game.new_initial_state(seed=seed), [ThresholdStrategy(20)], random.Random(seed))


@pytest.mark.rules("F7-120")
def test_a_played_state_pickles_and_copies_with_its_history() -> None:
    """A finished game's state comes back from pickle and deepcopy equal, with the same
    moves and events, link by link."""
    end = _played()
    moves, evs = end.history(), end.events()
    assert len(moves) > 100 and moves[0].startswith("chance ")
    for back in (pickle.loads(pickle.dumps(end)), copy.deepcopy(end)):
        assert back == end and back.history() == moves and back.events() == evs
        links = chain(back._log)
        assert [lk.move for lk in links if lk.move] == moves
        assert [e for lk in links for e in lk.events] == evs
        assert links[0].parent is None and links[-1].start is not None


@pytest.mark.rules("F7-120")
def test_a_long_history_pickles_and_deep_copies_without_recursion() -> None:
    """A game of 3,000 moves (a high target, every decision a Hit) pickles under every
    protocol and deep-copies: the chain goes as one flat tuple (`flip7ref.core.history.relinked`),
    not one nested call per link (which raised RecursionError from about 330 moves)."""
    s = Game("flip7", 2, {"target_score": 5000}).new_initial_state(seed=7)
    while len(s.history()) < 3000:
        s = s.apply_chance(s.sample_chance()) if s.is_chance_node() else s.apply(s.legal_actions()[0])
    moves, evs = s.history(), s.events()
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(s, protocol))
        assert back == s and back.history() == moves and back.events() == evs
        assert back.initial_state() == s.initial_state()
    copied = copy.deepcopy(s)
    assert copied == s and copied.history() == moves and copied.replay()[-1] == s
    link = pickle.loads(pickle.dumps(s._log))
    assert [lk.move for lk in chain(link)] == [lk.move for lk in chain(s._log)]
    with pytest.raises(ValueError, match="at least one link"):
        relinked(())


def test_a_link_is_immutable_and_reads_its_fields() -> None:
    """A link's fields read back as given; assigning one raises AttributeError in both builds."""
    first = new_log((None, "", (), None))
    dealt = events.dealt(0, "7", "hit")
    link = new_log((first, "chance 7", (dealt,), None))
    assert type(link) is Log and type(first) is Log
    assert (link.parent, link.move, link.events, link.start) == (first, "chance 7", (dealt,), None)
    assert Log(first, "hit", ()).start is None
    with pytest.raises(AttributeError):
        link.move = "hit"  # type: ignore[misc]
    assert [lk.move for lk in chain(link)] == ["", "chance 7"]


def test_a_long_chain_of_links_is_freed() -> None:
    """300,000 links (a game far longer than play's move bound allows) are built and freed
    one by one: no recursion limit or C stack overflow when the last one goes."""
    link = None
    for i in range(300_000):
        link = new_log((link, "hit" if i % 2 else "chance 5", (), None))
    assert link is not None and link.move == "hit" and link.parent is not None
    del link


@pytest.mark.rules("F7-020", "F7-031", "F7-034")
def test_shared_events_are_the_constructed_values() -> None:
    """``dealt`` and reason-less ``stayed`` events are shared per seat (and card, and way
    dealt): the same object each time, equal to the event built field by field; a
    ``stayed`` with a reason is not shared but has its reason."""
    assert events.stayed(2) is events.stayed(2) and events.stayed(2) == Event("stayed", (("seat", 2),))
    assert events.stayed(1) == Event("stayed", (("seat", 1),)) and events.stayed(1) is not events.stayed(2)
    why = events.stayed(2, "empty deck")
    assert why == Event("stayed", (("seat", 2), ("reason", "empty deck"))) and why is not events.stayed(2)
    assert events.dealt(3, "x2", "hit") is events.dealt(3, "x2", "hit")
    assert events.dealt(3, "x2", "hit") == Event("dealt", (("seat", 3), ("card", "x2"), ("via", "hit")))
    assert events.dealt(3, "x2", "deal") != events.dealt(3, "x2", "hit")


@pytest.mark.rules("F7-031")
def test_a_game_records_each_card_as_chance_and_its_id() -> None:
    """Every card drawn is recorded as ``chance ID`` (the history entry the lanes share per
    card id), with the id of a card of the deck, and replays to the same end."""
    end = _played(11)
    game = Game("flip7", 4)
    ids = set(game.card_ids)
    drawn = [m[len("chance ") :] for m in end.history() if m.startswith("chance ")]
    assert drawn and set(drawn) <= ids
    again = game.new_initial_state(seed=11)
    for move in end.history():
        again = again.apply_move(move)
    assert again == end and again.events() == end.events()
