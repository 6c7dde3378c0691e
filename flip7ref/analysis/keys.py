"""The solver's canonical keys: which states have the same future for a solo solve."""

from __future__ import annotations

from typing import Any

from flip7ref.core.state import State


def _cards(state: State) -> tuple[int, ...]:
    """Every card of ``state`` (pile, discard, lines, held, pending in frames), sorted:
    the same for every state reached from it, as no card leaves the game."""
    cards = [*state.draw, *state.discard]
    for p in state.players:
        cards += p.line
        cards += p.kept
    for f in state.frames:
        cards += f.held_cards()
    return tuple(sorted(cards))


def _canonical(state: State, cards: int) -> tuple[Any, ...]:
    """A key equal for states whose futures are the same: lines and held cards as
    multisets (the order of a line never matters to what happens next), no draw
    pile (the cards not elsewhere: an unseen pile has no order).  ``cards``
    numbers the set of all cards (`_cards`), which with the rest of the
    key determines the pile; and the plain fields that shape the rest of the round (the
    reshuffles left, F7-116, the progress the next one needs, F7-117...), those the table
    `flip7ref.core.state_fields` marks ``shapes_round``."""
    return (
        cards,
        tuple((tuple(sorted(p.line)), tuple(sorted(p.kept)), p.status) for p in state.players),
        tuple(sorted(state.discard)),
        state.frames,
        # state-fields: solver-key
        state.turn,
        state.flip7,
        state.bonus_to,
        state.round_shuffles,
        state.shuffle_mark,
        # state-fields: end
        tuple([p.flip7_barred for p in state.players]),  # D-V-26: a barred seat's Flip 7 is out of reach
    )
