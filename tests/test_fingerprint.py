"""A fingerprint of 1,000 seeded games of each edition: both builds must play them alike.

Every game's history, events and final totals are hashed (SHA-256 of their JSON).  The
expected digests are committed here; CI runs this file against the pure-Python source tree
and against the installed compiled wheel (docs/build.md), so a compiled build that plays
one card differently, emits one event differently or scores differently fails.  A change
of the rules that is meant to change games changes these digests: rerun with
``FLIP7REF_FINGERPRINT_PRINT=1`` and commit the new values with the change.
"""

from __future__ import annotations

import hashlib
import json
import os
import random

import pytest

import flip7ref
from flip7ref import Game
from flip7ref.play.games import play
from flip7ref.play.strategies import RandomStrategy, ThresholdStrategy

GAMES = 1000
EXPECTED = {
    "flip7": "ae5b223220aaed8d3babd04ac4c48ce3ebe84b436f25df023310f2431c66633d",
    "vengeance": "afb98d18c5e9f5a377882f1d13a3752a088b042585c91a0f53d6640436b4f434",
}


def fingerprint(edition: str, games: int = GAMES) -> str:
    """SHA-256 over ``games`` games of 4 players: two threshold players and two random ones."""
    game = Game(edition, 4)
    strategies = [ThresholdStrategy(20), RandomStrategy(), ThresholdStrategy(27), RandomStrategy()]
    digest = hashlib.sha256()
    for i in range(games):
        end = play(game.new_initial_state(seed=f"fingerprint:{i}"), strategies, random.Random(f"fingerprint:{i}"))
        record = {
            "history": end.history(),
            "events": [e.to_dict() for e in end.events()],
            "totals": list(end.totals),
            "winners": list(end.winners),
        }
        digest.update(json.dumps(record, sort_keys=True).encode())
    return digest.hexdigest()


@pytest.mark.parametrize("edition", sorted(EXPECTED))
def test_fingerprint_of_seeded_games(edition: str) -> None:
    got = fingerprint(edition)
    if os.environ.get("FLIP7REF_FINGERPRINT_PRINT"):
        print(f"\n{edition}: {got} (compiled={flip7ref.compiled})")
    assert got == EXPECTED[edition], f"{edition}: the games differ from the committed fingerprint (compiled={flip7ref.compiled})"


def test_the_seeded_shuffle_is_the_order_of_random_shuffle() -> None:
    """`flip7ref.core.pile.shuffled` (compiled with the core) puts cards in the order
    ``random.Random(f"{seed}:{count}").shuffle`` gives, for every length up to a deck
    and more, and seeds of games, reshuffles and odd strings."""
    from flip7ref.core.pile import shuffled

    for length in (0, 1, 2, 3, 7, 13, 64, 94, 95, 200):
        for seed, count in (("0", 0), ("1", 0), ("7:3", 2), ("seed with spaces", 11), ("é", 1)):
            cards = list(range(length))
            expected = list(range(length))
            random.Random(f"{seed}:{count}").shuffle(expected)
            shuffled(cards, seed, count)
            assert cards == expected, (length, seed, count)
    deck = [0, 0, 1, 5, 5, 5, 12]  # repeated codes, as a deck has
    expected = list(deck)
    random.Random("4:0").shuffle(expected)
    shuffled(deck, "4", 0)
    assert deck == expected and deck != sorted(deck)
