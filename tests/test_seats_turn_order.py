"""Seat-relative numbering (`flip7ref.core.seats`) follows the interpreter's turn order.

`flip7ref.core.seats` rotates seats as ``(seat - origin) mod players`` on its own: it works on
ints and on NumPy arrays of a whole batch of tables, where the interpreter's deciders of turn
order (`flip7ref.core.engine.offered_next`, who is offered next, F7-030 / V-012; and
`flip7ref.core.engine.first_seat`, who comes first, F7-020 / V-011) need a table's players.
These tests hold the rotation to those deciders for every player count the editions allow a
deck of, both editions: relative seat ``r`` of ``origin`` is the ``r``-th seat offered from
``origin`` on, and relative seat 1 of the dealer is the first seat of a round.
"""

from __future__ import annotations

import numpy as np
import pytest

from flip7ref import Game
from flip7ref.core.engine import first_seat, offered_next
from flip7ref.core.model import ACTIVE, STAYED, Player, make_player
from flip7ref.core.seats import absolute_seat, relative_seat

EDITIONS = ("flip7", "vengeance")
PLAYERS = range(2, 19)


def _offer_order(players: int, origin: int) -> list[int]:
    """The seats offered in turn from ``origin`` on, each staying after its offer, as the
    interpreter's decider `offered_next` walks them (no step of the walk restated here)."""
    table: list[Player] = [make_player(((), (), ACTIVE, False))] * players
    order = []
    turn = origin
    while (seat := offered_next(table, turn, None, False)) is not None:
        order.append(seat)
        table[seat] = make_player(((), (), STAYED, False))
        turn = seat  # offered_next goes on from here to the next active seat on the left
    return order


@pytest.mark.rules("F7-030", "V-012")
@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("players", PLAYERS)
def test_relative_seats_count_in_the_offer_order(edition: str, players: int) -> None:
    game = Game(edition, players)
    for origin in range(game.players):
        order = _offer_order(game.players, origin)
        assert order == [absolute_seat(r, origin, players) for r in range(players)]
        assert [relative_seat(seat, origin, players) for seat in order] == list(range(players))
        # the array form, as the batched engine calls it: every origin of a batch at once
        origins = np.full(players, origin)
        assert absolute_seat(np.arange(players), origins, players).tolist() == order
        assert relative_seat(np.array(order), origins, players).tolist() == list(range(players))


@pytest.mark.rules("F7-020", "V-011")
@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("players", PLAYERS)
def test_the_dealers_relative_seat_1_is_the_first_seat(edition: str, players: int) -> None:
    game = Game(edition, players)
    assert game.start_seat == "dealer-left"
    for dealer in range(players):
        assert first_seat(game, dealer, players) == absolute_seat(1, dealer, players)
