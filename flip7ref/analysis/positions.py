"""Solo positions to analyse: a fresh one-player round over chosen card
categories (`solo_deck_position`), the offer one player faces with everyone
else gone (`solo_projection`), a one-player offer built from a line and
the cards seen (`line_position`), and a position with some categories of
unseen cards taken out (`restrict_categories`)."""

from __future__ import annotations

from collections.abc import Iterable

from flip7ref.analysis.odds import _offer_seat
from flip7ref.core.errors import CardError, OptionError
from flip7ref.core.game import ACTION, Game, game_of
from flip7ref.core.spec import CATEGORIES
from flip7ref.core.state import State


def solo_deck_position(game: Game, categories: Iterable[str]) -> State:
    """A fresh one-player round whose deck holds only the given card categories.

    The player's running total starts at the target score, so that the game ends
    with this round (only the round score is measured; no next round is dealt).

    Args:
        game: a one-player game.
        categories: any of ``number``, ``modifier``, ``action``, or card ids of the
            edition (every copy of that card); e.g. ``["number"]`` for the 79 number
            cards of Flip 7, ``["number", "modifier"]`` for those and the six
            modifiers, ``["number", "modifier", "second_chance"]`` with the three
            Second Chances as well.

    Returns:
        The open state (no pile order) at the first card of the deal.

    Raises:
        OptionError: the game has more than one player, or a name that is neither a
            category nor a card id.
    """
    if game.players != 1:
        raise OptionError(f"a solo round needs a one-player game, got {game.players} players")
    wanted = set()
    cards = set()
    for name in categories:
        if name in CATEGORIES:
            wanted.add(CATEGORIES.index(name))
        elif isinstance(name, str) and name in game.codes:
            cards.add(game.codes[name])
        else:
            raise OptionError(
                f"unknown card category {name!r} (expected one of {', '.join(CATEGORIES)}, or a card id of the "
                f"edition such as {game.card_ids[-1]!r})"
            )
    deck = [game.card_ids[c] for c in sorted(game.deck) if game.category[c] in wanted or c in cards]
    return game.new_position(draw=deck, rest="out", seed=None, deal=True, totals=[game.target_score])


def solo_projection(state: State) -> State:
    """The offer ``state`` presents to the player to act, with everyone else gone.

    A one-player position of the same edition and options: the player's line,
    held cards, the same draw pile (as unseen cards, no order)
    and discard pile.  Other players' cards are out of the game.  Useful to ask
    what the player can expect from the rest of the round on their own.  As in
    `solo_deck_position` the running total is set at the target score so
    the game ends with the round.

    Raises:
        AnalysisError: ``state`` is not an offer of Hit or Stay.
    """
    seat = _offer_seat(state)
    game = state.game
    solo = Game(game.edition, 1, game.options)
    ids = game.card_ids
    p = state.players[seat]
    return solo.new_position(
        lines={0: [ids[c] for c in p.line]},
        kept={0: [ids[c] for c in p.kept]},
        draw=[ids[c] for c in sorted(state.draw)],
        discard=[ids[c] for c in state.discard],
        totals=[solo.target_score],
        round_number=state.round,
        seed=None,
        rest="out",
    )


def line_position(game: Game, line: Iterable[str], seen: Iterable[str] = ()) -> State:
    """A one-player offer: ``line`` in front of the player, ``seen`` cards gone
    (discarded), every other card of the deck unseen in the draw pile (open: no
    order).  The running total is set at the target score (see
    `solo_deck_position`).

    Args:
        game: a one-player game.
        line: card names: numbers and modifiers, and at most a held Second Chance.
        seen: card names already out of the deck (they sit in the discard pile,
            so they come back if the draw pile runs out and is reshuffled).

    Returns:
        The settled state: normally an offer of Hit or Stay to seat 0.

    Raises:
        CardError: an unknown card, more copies than the deck holds, a string
            instead of a list, an action card other than a Second Chance, or a
            line no game reaches (a duplicate number, a whole Flip 7).
        OptionError: ``game`` is not a one-player game.
    """
    if game.players != 1:
        raise OptionError(f"a solo position needs a one-player game, got {game.players} players")
    if isinstance(line, str) or isinstance(seen, str):
        raise CardError("line and seen are lists of card names, e.g. ['3', '11', 'x2'], not one string")
    line = list(line)
    numbers = [c for c in line if game.category[game.code(c)] != ACTION]
    kept = [c for c in line if game.category[game.code(c)] == ACTION]
    for card in kept:
        effect = game.effect[game.code(card)]
        if effect is None or not effect.guards_bust():
            raise CardError(
                f"{card!r} is an action card resolved as soon as it is drawn; only a held Second Chance "
                "can lie in front of a player who is offered Hit or Stay"
            )
    return game.new_position(
        lines={0: numbers}, kept={0: kept}, discard=list(seen), seed=None, rest="below", totals=[game.target_score]
    )


def restrict_categories(state: State, categories: Iterable[str] = ("number", "modifier")) -> State:
    """``state`` (one player's offer of Hit or Stay, e.g. from `solo_projection` or `line_position`)
    with the draw and discard piles kept to the cards of ``categories``: by default the
    action cards are taken out, which makes an exact solve that would take hours take
    seconds (``flip7ref odds`` solves this projection).

    Caveat: the result is another game's position, not an estimate of this one.  Its
    values are those of a deck in which the dropped cards do not exist: a Freeze that
    would end the round, a Flip Three that would force draws, a Second Chance that would
    save a bust never come.  The real values differ (a Second Chance left in the deck
    makes hitting worth more, a Freeze less), by an amount this function cannot bound.
    The player's line and held cards are kept as they are.

    Args:
        state: a one-player state at an offer of Hit or Stay (for a fresh deck,
            `solo_deck_position` takes the categories itself).
        categories: the categories to keep (``number``, ``modifier``, ``action``).

    Raises:
        OptionError: an unknown category, or ``state`` has more than one player.
        AnalysisError: ``state`` is not an offer of Hit or Stay.
    """
    game = game_of(state)
    wanted = set(categories)
    unknown = sorted(wanted - set(CATEGORIES))
    if unknown:
        raise OptionError(f"categories: unknown {', '.join(map(repr, unknown))}; expected some of {', '.join(CATEGORIES)}")
    if game.players != 1:
        raise OptionError(f"restrict_categories: expected a one-player position (solo_projection), got {game.players} players")
    _offer_seat(state)
    keep = {CATEGORIES.index(c) for c in wanted}
    ids = game.card_ids
    p = state.players[0]
    return game.new_position(
        lines={0: [ids[c] for c in p.line]},
        kept={0: [ids[c] for c in p.kept]},
        draw=[ids[c] for c in sorted(state.draw) if game.category[c] in keep],
        discard=[ids[c] for c in state.discard if game.category[c] in keep],
        totals=list(state.totals),
        round_number=state.round,
        seed=None,
        rest="out",
    )
