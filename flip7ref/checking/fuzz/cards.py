"""Games built around one card kind of the edition table (`deal_scene`, `held_scene`).

Random piles seldom bring the rarer cards of a deck together: three Second Chances among 94
cards, one Lucky 13 and its eleven plain 13s, two of each Vengeance action.  The rules about
them (a spare Second Chance given during the deal, a third 13 joining a Lucky 13 pair, two
Flip Threes nested) then come up once in hundreds of games.  These scenes are derived from
the edition table alone, for every kind whose rules are its own (`special_kinds`: each action
and modifier kind, and each number kind with a trait or sharing its rank with another, such as
The Zero, Unlucky 7, Lucky 13 and the plain 7s and 13s beside them):

- ``soon``: a fresh deal with one copy of the kind among the first cards dealt;
- ``together``: a fresh deal with two or three cards of its rank family (the kind and the
  kinds of the same rank) close together among the first cards;
- ``actions``: the same, the first cards mostly the deck's action cards besides;
- ``held``: (for an engine playing positions) a table in the middle of a round where the seat
  to play holds the kind (in its line, or in front of it for a card with a hold limit, such as
  a Second Chance) and the next cards of the pile are more of its family.
"""

from __future__ import annotations

import json
import random
from collections import Counter

from flip7ref.core.edition import CATEGORIES
from flip7ref.core.game import Game

NUMBER = CATEGORIES.index("number")
ACTION = CATEGORIES.index("action")
SCENES = ("soon", "together", "actions")
"""The fresh-deal scenes of `deal_scene`, taken at random with equal chances."""


def special_kinds(game: Game) -> tuple[int, ...]:
    """The kind codes of ``game``'s deck whose rules are their own: every action and modifier
    kind, and every number kind with a trait (``no_stay``, ``pair_allowed``...) or sharing its
    rank with another number kind; in table order."""
    present = set(game.deck)
    ranks = Counter(game.rank[c] for c in present if game.category[c] == NUMBER)
    return tuple(c for c in sorted(present) if game.category[c] != NUMBER or game.traits[c] or ranks[game.rank[c]] > 1)


def family(game: Game, code: int) -> tuple[int, ...]:
    """The kinds of ``code``'s rank family: for a number kind, every number kind of the same
    rank in the deck (Lucky 13 and the 13s); otherwise the kind alone."""
    if game.category[code] != NUMBER:
        return (code,)
    present = set(game.deck)
    return tuple(c for c in sorted(present) if game.category[c] == NUMBER and game.rank[c] == game.rank[code])


def _held_in_front(game: Game, code: int) -> bool:
    """Whether a card of kind ``code`` lies in front of its holder rather than in the line (a
    card with a hold limit, such as Second Chance)."""
    kind = game.kinds[code]
    return game.category[code] == ACTION and kind.effect is not None and "hold_limit" in kind.effect


def _copies(game: Game, codes: tuple[int, ...] | list[int], deck: list[str]) -> list[str]:
    """The cards of ``deck`` whose kind is among ``codes`` (in deck order)."""
    ids = {game.card_ids[c] for c in codes}
    return [c for c in deck if c in ids]


def _place(rng: random.Random, deck: list[str], picked: list[str], window: int) -> list[str]:
    """``deck`` with ``picked`` taken out and put back at random places among the first
    ``window`` positions (at least as many as there are picked cards), in their order."""
    rest = list(deck)
    for card in picked:
        rest.remove(card)
    window = min(max(window, len(picked)), len(deck))
    for place, card in zip(sorted(rng.sample(range(window), len(picked))), picked, strict=True):
        rest.insert(place, card)
    return rest


def deal_scene(rng: random.Random, game: Game, scene: str | None = None) -> tuple[tuple[str, ...], str, str]:
    """A pile for a fresh deal around one special kind (`SCENES`; ``scene`` or one at random).

    Returns:
        The pile (top first: the whole deck, the chosen cards among the first ``players`` + 1
        to + 6, or a few more with the action cards), the kind's id and the scene.
    """
    deck = [game.card_ids[c] for c in game.deck]
    rng.shuffle(deck)
    kind = rng.choice(special_kinds(game))
    scene = scene or rng.choice(SCENES)
    window = game.players + rng.randint(1, 6)
    own = _copies(game, (kind,), deck)
    if scene == "soon":
        picked = own[:1]
    else:
        kin = _copies(game, family(game, kind), deck)
        kin.remove(own[0])
        rng.shuffle(kin)
        picked = [own[0], *kin[: rng.randint(1, 2)]]
        if scene == "actions":
            kinds = [k for k in set(game.deck) if game.category[k] == ACTION]
            actions = [c for c in _copies(game, kinds, deck) if c not in picked]
            rng.shuffle(actions)
            picked += actions[: rng.randint(2, 5)]
            window = max(window, len(picked) + rng.randint(0, 2))
        rng.shuffle(picked)
    return tuple(_place(rng, deck, picked, window)), game.card_ids[kind], scene


def held_scene(rng: random.Random, game: Game) -> tuple[tuple[str, ...], str, int, str]:
    """A table in the middle of a round where a held card meets the next draws: every seat
    holds zero to four different plain numbers (now and then a modifier); the seat to play
    (the holder) holds a card of a random special kind (`special_kinds`), where it lies (its
    line, or in front of it for a card with a hold limit; an action kind without one comes
    first off the pile instead), for a number kind with a pairing trait now and then with
    another card of its rank; the pile's next cards are one to three more of its rank family,
    each after zero to two other cards.  Other seats have stayed now and then.

    Returns:
        The pile (top first: the deck's other cards), the table as `Trial.position` (JSON), the
        holder's seat and the kind's id.
    """
    deck = [game.card_ids[c] for c in game.deck]
    rng.shuffle(deck)
    kind = rng.choice(special_kinds(game))
    kin = set(family(game, kind))
    own = game.card_ids[kind]
    holder = rng.randrange(game.players)
    lines: dict[str, list[str]] = {}
    kept: dict[str, list[str]] = {}
    statuses: dict[str, str] = {}

    def plain(code: int) -> bool:
        return game.category[code] == NUMBER and code not in kin and not game.traits[code]

    for seat in range(game.players):
        numbers = sorted({c for c in deck if plain(game.code(c))})
        line = rng.sample(numbers, rng.randint(0, min(4, len(numbers))))
        modifiers = sorted({c for c in deck if game.category[game.code(c)] not in (NUMBER, ACTION) and c != own})
        if modifiers and rng.random() < 0.25:
            line.append(rng.choice(modifiers))
        for card in line:
            deck.remove(card)
        if line:
            lines[str(seat)] = line
        if seat != holder and line and rng.random() < 0.25:
            statuses[str(seat)] = "stayed"
    top: list[str] = []
    if _held_in_front(game, kind):
        kept[str(holder)] = [own]
        deck.remove(own)
    elif game.category[kind] == ACTION:
        top.append(own)
        deck.remove(own)
    else:
        held = [own]
        if "pair_allowed" in game.traits[kind] and rng.random() < 0.6:
            held += [c for c in _copies(game, tuple(kin), deck) if c != own][:1]
        for card in held:
            deck.remove(card)
        lines[str(holder)] = [*lines.get(str(holder), []), *held]
    more = _copies(game, tuple(kin), deck)
    rng.shuffle(more)
    for card in more[: rng.randint(1, 3)]:
        deck.remove(card)
        fillers = deck[: rng.randint(0, 2)]
        del deck[: len(fillers)]
        top += [*fillers, card]
    table = {"lines": lines, "kept": kept, "statuses": statuses, "turn": holder}
    return tuple(top + deck), json.dumps(table, sort_keys=True), holder, own


def short_pile(
    rng: random.Random, game: Game, pile: tuple[str, ...], kind: str, positions: bool
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``pile`` cut short, its first card of ``kind`` among the last three (and at least
    ``players`` + 1 cards, to deal), and (for an engine playing positions) a discard pile from
    the cards after it: none, the next three to eight (reshuffled, they run out again), the next
    nine to thirty, or every copy among them of one number kind (a reshuffle whose order cannot
    matter, so the game goes on past it to the next time the pile runs out).  The card then
    meets an empty deck, or a reshuffle or more, as the rules about running out of cards say.

    Returns:
        The pile (top first) and the discard pile.

    Raises:
        ValueError: ``kind`` is not in ``pile``.
    """
    size = max(game.players + 1, pile.index(kind) + 1 + rng.randint(0, 2))
    after = pile[size:]
    mode = rng.randrange(4)
    if not positions or mode == 0:
        return pile[:size], ()
    if mode < 3:
        return pile[:size], after[: rng.randint(3, 8) if mode == 1 else rng.randint(9, 30)]
    counts = Counter(c for c in after if game.category[game.code(c)] == NUMBER)
    alike = sorted(c for c, n in counts.items() if n >= 2)
    chosen = rng.choice(alike) if alike else None
    return pile[:size], tuple(c for c in after if c == chosen)
