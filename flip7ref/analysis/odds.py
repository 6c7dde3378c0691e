"""Next-card odds: `next_card`, the exact probabilities at an offer of Hit
or Stay that the next card busts the player, is cancelled by their Second Chance,
makes their Flip 7, or is each card kind (F7-040, F7-050, F7-080)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import attrs

from flip7ref.analysis.base import AnalysisError
from flip7ref.core.state import HIT, State


@attrs.frozen
class NextCard:
    """What the next card does to the player offered Hit or Stay.

    Attributes:
        seat: the player to act.
        unseen: how many cards the next card is drawn from (the draw pile, or the
            reshuffled discard pile when the draw pile is empty).
        bust: probability that the next card busts the player (F7-040).
        saved: probability that it is a duplicate a held Second Chance cancels (F7-080).
        flip7: probability that it completes the player's Flip 7 (F7-050).
        kinds: ``(card id, probability)`` for every card kind that can come, in table order.
    """

    seat: int
    unseen: int
    bust: Fraction
    saved: Fraction
    flip7: Fraction
    kinds: tuple[tuple[str, Fraction], ...]

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form; probabilities as ``"p/q"`` strings and floats."""
        return {
            "seat": self.seat,
            "unseen": self.unseen,
            "bust": str(self.bust),
            "bust_float": float(self.bust),
            "saved": str(self.saved),
            "flip7": str(self.flip7),
            "flip7_float": float(self.flip7),
            "kinds": {card: str(p) for card, p in self.kinds},
        }


def _offer_seat(state: State) -> int:
    seat = state.current_player
    if seat < 0 or state.pending()[0] != "offer":
        raise AnalysisError(
            f"the state is not an offer of Hit or Stay (current player {seat}, pending {state.pending()[0]!r})"
        )
    return seat


def next_card(state: State) -> NextCard:
    """Exact odds of the next card for the player offered Hit or Stay.

    The player hits (``state.apply(HIT)``); for each card kind of the resulting
    chance node the interpreter reveals it, and the events say whether the player
    busted, was saved by a Second Chance, or made Flip 7.  In an ordered (seeded)
    state the order of the pile is ignored: the cards not yet seen are equally
    likely.

    Args:
        state: a decision node where the player to act is offered Hit or Stay.

    Returns:
        A `NextCard` with exact `Fraction` probabilities.

    Raises:
        AnalysisError: the state is not such an offer.
    """
    seat = _offer_seat(state)
    chance = state.apply(HIT)
    if chance.current_player != -1:  # pragma: no cover - a Hit always draws (F7-031)
        raise AnalysisError("hitting did not lead to a card draw")
    total = sum(n for _, n in chance.chance_weights())
    bust = saved = flip7 = Fraction(0)
    kinds = []
    for card, count in chance.chance_weights():
        p = Fraction(count, total)
        kinds.append((card, p))
        events = chance.apply_chance(card).last_events()
        if any(e.type == "busted" and e.get("seat") == seat for e in events):
            bust += p
        if any(e.type == "second_chance_used" and e.get("seat") == seat for e in events):
            saved += p
        if any(e.type == "flip7" and e.get("seat") == seat for e in events):
            flip7 += p
    return NextCard(seat, total, bust, saved, flip7, tuple(kinds))
