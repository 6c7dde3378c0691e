"""Plain-words descriptions of events, for traces and explanations."""

from __future__ import annotations

from .game import Game
from .state import Event


def card_name(game: Game, card: str | None, lang: str = "en") -> str:
    """The display name of a card id in ``lang`` (the id itself for numbers)."""
    if card is None:
        return "?"
    return game.edition.card(card).name(lang)


def describe(event: Event, game: Game, lang: str = "en") -> str:
    """One readable line for an event, e.g. ``"seat 2 busts on 7"``."""
    t = event.type
    seat = event.get("seat")
    card = card_name(game, event.get("card"), lang) if event.get("card") is not None else None
    if t == "round_started":
        return f"--- round {event.get('round')}, seat {event.get('dealer')} deals ---"
    if t == "dealt":
        via = event.get("via")
        if via == "deal":
            how = "is dealt"
        elif via == "hit":
            how = "hits and gets"
        else:
            how = f"flips ({card_name(game, via, lang)})"
        return f"seat {seat} {how} {card}"
    if t == "busted":
        return f"seat {seat} busts on {card}"
    if t == "flip7":
        return f"seat {seat} makes a Flip 7!"
    if t == "stayed":
        reason = event.get("reason")
        if reason and reason in game.card_ids:
            reason = f"after {card_name(game, reason, lang)}"
        why = f" ({reason})" if reason else ""
        return f"seat {seat} stays{why}"
    if t == "frozen":
        return f"seat {seat} is frozen by seat {event.get('by')}"
    if t == "target_chosen":
        return f"seat {seat} plays {card} on seat {event.get('target')}"
    if t == "forced_draw_started":
        count = event.get("count")
        return f"seat {seat} must take {count} card{'s' if count != 1 else ''} ({card} from seat {event.get('by')})"
    if t == "forced_draw_ended":
        return f"seat {seat}'s {card} ends ({event.get('outcome')})"
    if t == "set_aside":
        return f"seat {seat} sets {card} aside"
    if t == "assigned":
        return f"seat {seat} assigns {card} to seat {event.get('target')}"
    if t == "second_chance_used":
        return f"seat {seat} uses {card_name(game, event.get('shield'), lang)} against a second {card}"
    if t == "second_chance_kept":
        return f"seat {seat} keeps {card}"
    if t == "second_chance_given":
        return f"seat {seat} gives {card} to seat {event.get('target')}"
    if t == "line_wiped":
        names = ", ".join(card_name(game, c, lang) for c in event.get("cards"))
        return f"seat {seat}'s line is wiped: {names} discarded"
    if t == "stolen":
        return f"seat {seat} steals {card} from seat {event.get('target')}"
    if t == "card_discarded":
        return f"seat {seat} discards {card} (picked by seat {event.get('by')})"
    if t == "swapped":
        first = card_name(game, event.get("first_card"), lang)
        second = card_name(game, event.get("second_card"), lang)
        return f"seat {seat} swaps seat {event.get('first')}'s {first} with seat {event.get('second')}'s {second}"
    if t == "flip7_bonus_chosen":
        points = event.get("points")
        return (
            f"seat {seat} takes {points:+d} points"
            if points > 0
            else f"seat {seat} gives seat {event.get('target')} {points} points"
        )
    if t == "discarded":
        who = f" (seat {seat})" if seat is not None else ""
        return f"{card} is discarded{who}: {event.get('reason')}"
    if t == "reshuffled":
        return f"the discard pile is shuffled into a new deck of {event.get('cards')} cards"
    if t == "deck_exhausted":
        return "no cards are left to draw"
    if t == "round_scored":
        scores = ", ".join(f"seat {i}: {s}" for i, s in enumerate(event.get("scores")))
        totals = ", ".join(str(x) for x in event.get("totals"))
        return f"round {event.get('round')} scores {scores}; totals {totals}"
    if t == "tie_another_round":
        return f"seats {', '.join(map(str, event.get('leaders')))} tie for the lead: everyone plays another round"
    if t == "game_won":
        winners = event.get("winners")
        who = "seat " + " and seat ".join(map(str, winners))
        return f"{who} {'wins' if len(winners) == 1 else 'share the win'} after {event.get('rounds')} rounds"
    details = ", ".join(f"{k}={v}" for k, v in event.data)
    return f"{t} {details}".strip()
