"""Every event type of the interpreter: one constructor each, and its readable text.

The interpreter builds every event it emits through the constructors below (the
general path and the fast lanes alike), so an event type's shape is written once.
An `Event` is a type name and ``(key, value)`` pairs; card values are card ids
(strings), seats are ints.  `describe` gives one plain-words line for an event
(``flip7 trace``, ``flip7ref explain``); `TEXT` holds the describer of each type,
and `event_text` registers one (a primitive outside the package adds its events so).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeVar

from flip7ref.core.model import Event, tuple_maker

if TYPE_CHECKING:  # the game is read through a protocol: game.py sits above this module
    from flip7ref.core.protocols import CardNames

_new: Final = tuple_maker(Event)


def make(type_: str, *pairs: tuple[str, Any]) -> Event:
    """An event of ``type_`` with the given ``(key, value)`` pairs (the constructors' base)."""
    return _new((type_, pairs))


# --------------------------------------------------------------------------- the deal and the offers

_DEALT: Final[dict[str, dict[str, dict[int, Event]]]] = {}
"""The shared ``dealt`` events: by ``via``, then card id, then seat (three lookups of a
string or small int are cheaper than hashing and comparing a key tuple at every card)."""


def dealt(seat: int, card: str, via: str) -> Event:
    """``card`` goes to ``seat``; ``via`` is ``deal``, ``hit`` or the id of the forced-draw
    card that made them take it (F7-020, F7-031, F7-070).  Shared: events are immutable."""
    try:
        return _DEALT[via][card][seat]  # three subscripts (no method calls) when the event exists
    except KeyError:
        pass
    event = _new(("dealt", (("seat", seat), ("card", card), ("via", via))))
    _DEALT.setdefault(via, {}).setdefault(card, {})[seat] = event
    return event


_STAYED: Final[dict[int, Event]] = {}
"""The shared ``stayed`` events without a reason, by seat."""


def stayed(seat: int, reason: str | None = None) -> Event:
    """``seat`` stays (F7-034); ``reason``: the card that made them stay (V-043) or ``empty deck`` (F7-115).
    Shared when there is no reason (events are immutable)."""
    if reason is None:
        try:
            return _STAYED[seat]
        except KeyError:
            event = _STAYED[seat] = _new(("stayed", (("seat", seat),)))
            return event
    return _new(("stayed", (("seat", seat), ("reason", reason))))


def busted(seat: int, card: str) -> Event:
    """``seat`` busts on the duplicate ``card`` (F7-040)."""
    return _new(("busted", (("seat", seat), ("card", card))))


def flip7(seat: int) -> Event:
    """``seat`` makes a Flip 7 (F7-050)."""
    return _new(("flip7", (("seat", seat),)))


def line_wiped(seat: int, cards: tuple[str, ...]) -> Event:
    """Unlucky 7 clears ``seat``'s line; ``cards`` went to the discard pile (V-033)."""
    return _new(("line_wiped", (("seat", seat), ("cards", cards))))


# --------------------------------------------------------------------------- action cards


def target_chosen(seat: int, card: str, target: int) -> Event:
    """``seat`` chose ``target`` for ``card`` (F7-061, F7-072)."""
    return _new(("target_chosen", (("seat", seat), ("card", card), ("target", target))))


def frozen(seat: int, by: int) -> Event:
    """``seat`` is frozen by ``by`` (F7-060)."""
    return _new(("frozen", (("seat", seat), ("by", by))))


def forced_draw_started(seat: int, card: str, by: int, count: int) -> Event:
    """``seat`` must take ``count`` cards because ``by`` played ``card`` on them (F7-070)."""
    return _new(("forced_draw_started", (("seat", seat), ("card", card), ("by", by), ("count", count))))


def forced_draw_ended(seat: int, card: str, outcome: str) -> Event:
    """``seat``'s forced draw of ``card`` ends: ``complete``, ``bust``, ``seven numbers`` (a barred
    target holds seven numbers, D-V-26), ``exhausted`` or ``round ended``."""
    return _new(("forced_draw_ended", (("seat", seat), ("card", card), ("outcome", outcome))))


def set_aside(seat: int, card: str) -> Event:
    """``card``, revealed inside ``seat``'s forced draw, waits until the draw is done (F7-073)."""
    return _new(("set_aside", (("seat", seat), ("card", card))))


def assigned(seat: int, card: str, target: int) -> Event:
    """``seat`` assigns the set-aside ``card`` to ``target`` (F7-074)."""
    return _new(("assigned", (("seat", seat), ("card", card), ("target", target))))


def second_chance_used(seat: int, card: str, shield: str) -> Event:
    """``seat``'s Second Chance ``shield`` cancels the duplicate ``card`` (F7-080)."""
    return _new(("second_chance_used", (("seat", seat), ("card", card), ("shield", shield))))


def second_chance_kept(seat: int, card: str) -> Event:
    """``seat`` keeps the Second Chance ``card`` (F7-082)."""
    return _new(("second_chance_kept", (("seat", seat), ("card", card))))


def second_chance_given(seat: int, target: int, card: str) -> Event:
    """``seat`` hands the spare Second Chance ``card`` to ``target`` (F7-082)."""
    return _new(("second_chance_given", (("seat", seat), ("target", target), ("card", card))))


def stolen(seat: int, card: str, target: int) -> Event:
    """``seat`` steals ``card`` from ``target``'s line (V-046)."""
    return _new(("stolen", (("seat", seat), ("card", card), ("target", target))))


def card_discarded(seat: int, card: str, by: int) -> Event:
    """``card`` leaves ``seat``'s line for the discard pile, picked by ``by`` (V-047)."""
    return _new(("card_discarded", (("seat", seat), ("card", card), ("by", by))))


def swapped(seat: int, first: int, first_card: str, second: int, second_card: str) -> Event:
    """``seat`` exchanges ``first``'s ``first_card`` with ``second``'s ``second_card`` (V-045)."""
    data = (("seat", seat), ("first", first), ("first_card", first_card), ("second", second), ("second_card", second_card))
    return _new(("swapped", data))


def flip7_bonus_chosen(seat: int, target: int, points: int) -> Event:
    """Brutal Mode (V-082): the Flip 7 maker ``seat`` gives ``points`` (+15 or -15) to ``target``."""
    return _new(("flip7_bonus_chosen", (("seat", seat), ("target", target), ("points", points))))


def discarded(card: str, seat: int | None, reason: str) -> Event:
    """``card`` goes to the discard pile unused (``seat``: whose it was, or None) for ``reason``."""
    return _new(("discarded", (("card", card), ("seat", seat), ("reason", reason))))


# --------------------------------------------------------------------------- the pile, rounds and the game


def reshuffled(cards: int) -> Event:
    """The discard pile (``cards`` cards) becomes the new deck (F7-113)."""
    return _new(("reshuffled", (("cards", cards),)))


def deck_exhausted(reason: str | None = None) -> Event:
    """No card is left to draw (F7-115); ``reason`` ``no progress since the last
    reshuffle`` when the discard pile is not reshuffled because the round made no
    progress since its last reshuffle (reading ``unlimited``, F7-117, V-076)."""
    if reason is None:
        return _new(("deck_exhausted", ()))
    return _new(("deck_exhausted", (("reason", reason),)))


def round_started(round: int, dealer: int) -> Event:
    """Round ``round`` begins with ``dealer`` dealing (F7-112)."""
    return _new(("round_started", (("round", round), ("dealer", dealer))))


def round_scored(round: int, scores: tuple[int, ...], totals: tuple[int, ...], flip7: int | None) -> Event:
    """Round ``round`` scores ``scores`` (points per seat), giving ``totals``; ``flip7``: its maker (F7-100)."""
    return _new(("round_scored", (("round", round), ("scores", scores), ("totals", totals), ("flip7", flip7))))


def tie_another_round(leaders: tuple[int, ...]) -> Event:
    """The ``leaders`` tie at or above the target score: another round is played (F7-121)."""
    return _new(("tie_another_round", (("leaders", leaders),)))


def game_won(winners: tuple[int, ...], totals: tuple[int, ...], rounds: int) -> Event:
    """The game ends after ``rounds`` rounds: ``winners`` win with ``totals`` (F7-120)."""
    return _new(("game_won", (("winners", winners), ("totals", totals), ("rounds", rounds))))


# --------------------------------------------------------------------------- readable text

_Describer = Callable[[Event, Any, str], str]
"""A describer: ``(event, game, lang) -> str``, the game a `flip7ref.core.game.Game` (typed
``Any`` here: this module does not import game.py, which sits above it)."""

_D = TypeVar("_D", bound=_Describer)

TEXT: dict[str, _Describer] = {}
"""The describer of each event type: ``(event, game, lang) -> str``."""


def event_text(type_: str) -> Callable[[_D], _D]:
    """Decorator: register ``fn(event, game, lang) -> str`` as the readable text of events of
    ``type_`` (`describe` calls it).  A primitive outside the interpreter registers its
    events' texts this way and builds its events with `make`.

    Raises:
        ValueError: ``type_`` is empty or has a describer already (one text per type).
    """
    if not type_ or not isinstance(type_, str):
        raise ValueError(f"event type: expected a name, got {type_!r}")

    def register(fn: _D) -> _D:
        known = TEXT.get(type_)
        same = known is not None and (known.__module__, known.__qualname__) == (fn.__module__, fn.__qualname__)
        if known is not None and not same:  # the same function again: a module imported twice
            raise ValueError(f"event type {type_!r} already has a text ({known.__module__}.{known.__qualname__})")
        TEXT[type_] = fn
        return fn

    return register


_text = event_text


def card_name(game: CardNames, card: str | None, lang: str = "en") -> str:
    """The display name of a card id in ``lang`` (the id itself for numbers); ``?`` for None."""
    if card is None:
        return "?"
    return game.edition.card(card).name(lang)


def describe(event: Event, game: CardNames, lang: str = "en") -> str:
    """One readable line for ``event`` in ``game``, card names in ``lang``
    (e.g. ``"seat 2 busts on 7"``); an unknown type gives its name and data."""
    fn = TEXT.get(event.type)
    if fn is None:
        details = ", ".join(f"{k}={v}" for k, v in event.data)
        return f"{event.type} {details}".strip()
    return fn(event, game, lang)


def _card(e: Event, g: CardNames, lang: str) -> str:
    return card_name(g, e.get("card"), lang)


@_text("round_started")
def _round_started(e: Event, g: CardNames, lang: str) -> str:
    return f"--- round {e.get('round')}, seat {e.get('dealer')} deals ---"


@_text("dealt")
def _dealt(e: Event, g: CardNames, lang: str) -> str:
    via = e.get("via")
    how = {"deal": "is dealt", "hit": "hits and gets"}.get(via) or f"flips ({card_name(g, via, lang)})"
    return f"seat {e.get('seat')} {how} {_card(e, g, lang)}"


@_text("busted")
def _busted(e: Event, g: CardNames, lang: str) -> str:
    return f"seat {e.get('seat')} busts on {_card(e, g, lang)}"


@_text("flip7")
def _flip7(e: Event, g: CardNames, lang: str) -> str:
    return f"seat {e.get('seat')} makes a Flip 7!"


@_text("stayed")
def _stayed(e: Event, g: CardNames, lang: str) -> str:
    reason = e.get("reason")
    if reason and reason in g.card_ids:
        reason = f"after {card_name(g, reason, lang)}"
    why = f" ({reason})" if reason else ""
    return f"seat {e.get('seat')} stays{why}"


@_text("frozen")
def _frozen(e: Event, g: CardNames, lang: str) -> str:
    return f"seat {e.get('seat')} is frozen by seat {e.get('by')}"


@_text("target_chosen")
def _target_chosen(e: Event, g: CardNames, lang: str) -> str:
    return f"seat {e.get('seat')} plays {_card(e, g, lang)} on seat {e.get('target')}"


@_text("forced_draw_started")
def _forced_draw_started(e: Event, g: CardNames, lang: str) -> str:
    count = e.get("count")
    cards = f"{count} card{'s' if count != 1 else ''}"
    return f"seat {e.get('seat')} must take {cards} ({_card(e, g, lang)} from seat {e.get('by')})"


@_text("forced_draw_ended")
def _forced_draw_ended(e: Event, g: CardNames, lang: str) -> str:
    return f"seat {e.get('seat')}'s {_card(e, g, lang)} ends ({e.get('outcome')})"


@_text("set_aside")
def _set_aside(e: Event, g: CardNames, lang: str) -> str:
    return f"seat {e.get('seat')} sets {_card(e, g, lang)} aside"


@_text("assigned")
def _assigned(e: Event, g: CardNames, lang: str) -> str:
    return f"seat {e.get('seat')} assigns {_card(e, g, lang)} to seat {e.get('target')}"


@_text("second_chance_used")
def _second_chance_used(e: Event, g: CardNames, lang: str) -> str:
    return f"seat {e.get('seat')} uses {card_name(g, e.get('shield'), lang)} against a second {_card(e, g, lang)}"


@_text("second_chance_kept")
def _second_chance_kept(e: Event, g: CardNames, lang: str) -> str:
    return f"seat {e.get('seat')} keeps {_card(e, g, lang)}"


@_text("second_chance_given")
def _second_chance_given(e: Event, g: CardNames, lang: str) -> str:
    return f"seat {e.get('seat')} gives {_card(e, g, lang)} to seat {e.get('target')}"


@_text("line_wiped")
def _line_wiped(e: Event, g: CardNames, lang: str) -> str:
    names = ", ".join(card_name(g, c, lang) for c in e.get("cards"))
    return f"seat {e.get('seat')}'s line is wiped: {names} discarded"


@_text("stolen")
def _stolen(e: Event, g: CardNames, lang: str) -> str:
    return f"seat {e.get('seat')} steals {_card(e, g, lang)} from seat {e.get('target')}"


@_text("card_discarded")
def _card_discarded(e: Event, g: CardNames, lang: str) -> str:
    return f"seat {e.get('seat')} discards {_card(e, g, lang)} (picked by seat {e.get('by')})"


@_text("swapped")
def _swapped(e: Event, g: CardNames, lang: str) -> str:
    first = card_name(g, e.get("first_card"), lang)
    second = card_name(g, e.get("second_card"), lang)
    return f"seat {e.get('seat')} swaps seat {e.get('first')}'s {first} with seat {e.get('second')}'s {second}"


@_text("flip7_bonus_chosen")
def _flip7_bonus_chosen(e: Event, g: CardNames, lang: str) -> str:
    points = e.get("points")
    if points > 0:
        return f"seat {e.get('seat')} takes {points:+d} points"
    return f"seat {e.get('seat')} gives seat {e.get('target')} {points} points"


@_text("discarded")
def _discarded(e: Event, g: CardNames, lang: str) -> str:
    seat = e.get("seat")
    who = f" (seat {seat})" if seat is not None else ""
    return f"{_card(e, g, lang)} is discarded{who}: {e.get('reason')}"


@_text("reshuffled")
def _reshuffled(e: Event, g: CardNames, lang: str) -> str:
    return f"the discard pile is shuffled into a new deck of {e.get('cards')} cards"


@_text("deck_exhausted")
def _deck_exhausted(e: Event, g: CardNames, lang: str) -> str:
    return "no cards are left to draw"


@_text("round_scored")
def _round_scored(e: Event, g: CardNames, lang: str) -> str:
    scores = ", ".join(f"seat {i}: {s}" for i, s in enumerate(e.get("scores")))
    totals = ", ".join(str(x) for x in e.get("totals"))
    return f"round {e.get('round')} scores {scores}; totals {totals}"


@_text("tie_another_round")
def _tie_another_round(e: Event, g: CardNames, lang: str) -> str:
    return f"seats {', '.join(map(str, e.get('leaders')))} tie for the lead: everyone plays another round"


@_text("game_won")
def _game_won(e: Event, g: CardNames, lang: str) -> str:
    winners = e.get("winners")
    who = "seat " + " and seat ".join(map(str, winners))
    return f"{who} {'wins' if len(winners) == 1 else 'share the win'} after {e.get('rounds')} rounds"
