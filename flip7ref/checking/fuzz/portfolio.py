"""The game generators of `flip7ref.checking.fuzz` (`SOURCES`) and their schedule (`Portfolio`).

Each way of drawing games finds some rules quickly and others hardly ever: plain random games
rarely bring three of a deck's rare cards together, games from the suite's tables stay near
the situations the fixed cases already pin, tables near Flip 7 are no use for the deal.  So
a run keeps a portfolio of generators and gives each a fair share of the work:

- ``random``: a fresh round from a random pile (the whole deck shuffled, a short pile, the
  action cards first, a few kinds of card; `flip7ref.checking.fuzz.games._pile`);
- ``cases``: the table of one of the suite's own mid-round cases (`flip7ref.checking.fuzz.corpus`);
- ``near-flip7``: a table in the middle of a round near Flip 7s (`flip7ref.checking.fuzz.games._near_flip7`);
- ``card-deal``: a fresh deal around one special card kind of the edition table, which
  comes soon, or with others of its rank, or among the action cards, now and then from a
  short pile that runs out or is reshuffled (`flip7ref.checking.fuzz.cards.deal_scene`);
- ``card-held``: a table where a held special card meets the next draws
  (`flip7ref.checking.fuzz.cards.held_scene`).

The three table generators need an engine playing positions (``positions`` not false).  Game
``k`` of generator ``G`` with seed ``s`` is drawn from ``random.Random(f"{s}:{G}:{k}")``, and
the next game always comes from the generator that has used the least work so far (requests
sent to the engine, plus one per game for playing it on the reference; ties in `SOURCES`
order): a schedule that does not depend on the machine's speed, so a run with the same seed
against the same engine plays the same games in the same order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from flip7ref.checking.fuzz.cards import deal_scene, held_scene, short_pile
from flip7ref.checking.fuzz.games import (
    Played,
    Trial,
    _from_case,
    _near_flip7,
    _pile,
    _played,
    _policies,
    _policy,
    _readings,
    _totals,
    case_base,
    player_range,
)
from flip7ref.checking.harness import supports
from flip7ref.core.errors import Flip7RefError
from flip7ref.core.game import Game

Made = tuple[Trial, Played] | None
Maker = Callable[[random.Random, Mapping[str, Any], Sequence[str]], Made]
SHORT_PILE = 0.25
"""In a ``card-deal`` game, the chance that the pile is cut short (`flip7ref.checking.fuzz.cards.short_pile`)."""
HELD_HITS = 0.7
"""In a ``card-held`` game, the chance that the holder always hits (it meets the next draws)."""


@attrs.frozen
class Source:
    """One game generator.

    Attributes:
        name: its name (in seeds, file names and reports).
        make: ``make(rng, impl, editions)``: a game the engine can play, played on the reference,
            or None (a random setup that is not a valid position or the engine cannot play).
        positions: whether it needs an engine that plays positions (setups mid-round).
    """

    name: str
    make: Maker = attrs.field(repr=False)
    positions: bool


def _fresh(
    rng: random.Random,
    impl: Mapping[str, Any],
    editions: Sequence[str],
    build: Callable[[random.Random, Game, bool], tuple[tuple[str, ...], tuple[str, ...], str, int | None]],
) -> Made:
    """A game from one of ``editions`` under random readings, a random player count and
    totals, its pile and table from ``build(rng, game, positions)`` -> (pile, discard pile,
    position JSON or "", the seat that always hits or None), played with random strategies."""
    edition = rng.choice(list(editions))
    low, high = player_range(impl)
    positions = impl.get("positions") is not False
    options = _readings(rng, impl, edition)
    players = rng.randint(low, high)
    try:
        game = Game(edition, players, options)
    except Flip7RefError:
        return None
    totals = _totals(rng, game.target_score, players)
    dealer = rng.randrange(players)
    draw, discard, position, hitter = build(rng, game, positions)
    trial = Trial(edition, options, players, dealer, draw, (), totals, discard=discard, position=position)
    if supports(impl, {**case_base(trial), "id": "", "rules": [], "source": ""}) is not None:
        return None
    seats = _policies(rng, players)
    if hitter is not None:
        seats[hitter] = ("hitter", 0.0, seats[hitter][2])
    return _played(trial, _policy(rng, seats))


def random_game(rng: random.Random, impl: Mapping[str, Any], editions: Sequence[str]) -> Made:
    """A fresh round dealt from a random pile (`flip7ref.checking.fuzz.games._pile`)."""

    def build(rng: random.Random, game: Game, positions: bool) -> tuple[tuple[str, ...], tuple[str, ...], str, None]:
        draw, discard = _pile(rng, game, positions)
        return draw, discard, "", None

    return _fresh(rng, impl, editions, build)


def case_game(rng: random.Random, impl: Mapping[str, Any], editions: Sequence[str]) -> Made:
    """A game from the table of a random shipped case (`flip7ref.checking.fuzz.games._from_case`)."""
    return _from_case(rng, impl, rng.choice(list(editions)), player_range(impl))


def near_flip7_game(rng: random.Random, impl: Mapping[str, Any], editions: Sequence[str]) -> Made:
    """A game from a table near Flip 7s (`flip7ref.checking.fuzz.games._near_flip7`)."""

    def build(rng: random.Random, game: Game, positions: bool) -> tuple[tuple[str, ...], tuple[str, ...], str, None]:
        draw, table = _near_flip7(rng, game)
        return draw, (), table, None

    return _fresh(rng, impl, editions, build)


def card_deal_game(rng: random.Random, impl: Mapping[str, Any], editions: Sequence[str]) -> Made:
    """A fresh deal around one special card kind (`flip7ref.checking.fuzz.cards.deal_scene`), its pile
    cut short with chance `SHORT_PILE`."""

    def build(rng: random.Random, game: Game, positions: bool) -> tuple[tuple[str, ...], tuple[str, ...], str, None]:
        draw, kind, _ = deal_scene(rng, game)
        if rng.random() >= SHORT_PILE:
            return draw, (), "", None
        short, discard = short_pile(rng, game, draw, kind, positions)
        return short, discard, "", None

    return _fresh(rng, impl, editions, build)


def card_held_game(rng: random.Random, impl: Mapping[str, Any], editions: Sequence[str]) -> Made:
    """A table where a held special card meets the next draws (`flip7ref.checking.fuzz.cards.held_scene`);
    its holder always hits with chance `HELD_HITS`."""

    def build(rng: random.Random, game: Game, positions: bool) -> tuple[tuple[str, ...], tuple[str, ...], str, int | None]:
        draw, table, holder, _ = held_scene(rng, game)
        return draw, (), table, holder if rng.random() < HELD_HITS else None

    return _fresh(rng, impl, editions, build)


SOURCES = (
    Source("random", random_game, False),
    Source("cases", case_game, True),
    Source("near-flip7", near_flip7_game, True),
    Source("card-deal", card_deal_game, False),
    Source("card-held", card_held_game, True),
)
"""Every game generator, in schedule order."""


def sources_for(impl: Mapping[str, Any]) -> tuple[Source, ...]:
    """The generators whose games the engine can play (those needing positions only when it
    plays positions)."""
    positions = impl.get("positions") is not False
    return tuple(s for s in SOURCES if positions or not s.positions)


def generate(rng: random.Random, impl: Mapping[str, Any], editions: Sequence[str], source: str | None = None) -> Made:
    """A random game the engine can play, played on the reference, from the generator named
    ``source`` (default: one of the engine's at random); None when the random setup is not a
    valid position or the engine cannot play it.

    Raises:
        KeyError: ``source`` is not a generator's name (`SOURCES`).
    """
    if source is None:
        return rng.choice(sources_for(impl)).make(rng, impl, editions)
    return {s.name: s for s in SOURCES}[source].make(rng, impl, editions)


class Portfolio:
    """The schedule of a run: which generator draws the next game.

    Args:
        impl: the engine's ``start`` description (its generators: `sources_for`).
        seed: the run's seed.

    Attributes:
        sources: the generators used.
        work: per generator, the work its games have used so far.
        games: per generator, the games drawn so far.
    """

    def __init__(self, impl: Mapping[str, Any], seed: int | str) -> None:
        self.sources = sources_for(impl)
        self.seed = seed
        self.work = [0] * len(self.sources)
        self.games = [0] * len(self.sources)

    def next(self) -> tuple[Source, int, random.Random]:
        """The next game's generator (the one that has used the least work; ties in order), its
        index among that generator's games and the random source to draw it with."""
        i = min(range(len(self.sources)), key=lambda j: (self.work[j], j))
        k = self.games[i]
        self.games[i] += 1
        source = self.sources[i]
        return source, k, random.Random(f"{self.seed}:{source.name}:{k}")

    def charge(self, source: Source, requests: int) -> None:
        """Count the work of one game of ``source``: ``requests`` sent to the engine plus one."""
        self.work[self.sources.index(source)] += requests + 1
