"""`GameTables`: an edition table compiled for chosen options and a player count.

A game resolves every option reference of the table once, turns card ids into small
integer codes and keeps the per-kind facts the interpreter needs in tuples indexed by
those codes, so the interpreter never looks at YAML, never branches on the edition's
name and never re-reads an option.  This module holds that data (a native class when
compiled); `flip7ref.core.game.Game` adds the factory of states on top (OpenSpiel's
shape), and the rule core below `flip7ref.core.state` annotates with `GameTables`, so
that no module of the core imports one that imports it back (issue 43).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from flip7ref.core.errors import OptionError, SpecError
from flip7ref.core.lane_readings import lanes_checked
from flip7ref.core.model import MODIFIER, NUMBER
from flip7ref.core.primitives import Effect, EntryError, effect_from_table
from flip7ref.core.spec import CATEGORIES, CardKind, Edition, load_edition


def _resolve(value: Any, options: Mapping[str, str | int]) -> Any:
    """Replace an ``{option: NAME, values: {...}}`` reference by its value."""
    if isinstance(value, Mapping) and "option" in value and set(value) <= {"option", "values"}:
        chosen = options[value["option"]]
        values = value.get("values")
        if isinstance(values, Mapping):
            return _resolve(values[str(chosen)], options)  # a value may depend on another option
        return chosen
    return value


class GameTables:
    """An edition with chosen options for a number of players: the tables the rules read.

    Built as its subclass `flip7ref.core.game.Game` (``flip7ref.Game``), which adds the
    factory of states and documents the arguments, the errors and the value semantics
    (equality, hashing, pickling, immutability), all of which live here.  The rule core
    below `flip7ref.core.state` annotates with this class: compiled, it is a native class
    whose attributes are read the fast way.  Rules: F7-002, F7-123 (decks), and every
    option of the table.
    """

    # every attribute is Final: read-only from Python in the compiled build (a native class); the pure
    # build refuses assignment through the __setattr__ installed at the end of this module
    edition: Final[Edition]
    players: Final[int]
    options: Final[Mapping[str, str | int]]
    fast_lanes: Final[bool]
    kinds: Final[tuple[CardKind, ...]]
    card_ids: Final[tuple[str, ...]]
    codes: Final[Mapping[str, int]]
    category: Final[tuple[int, ...]]
    rank: Final[tuple[int, ...]]
    traits: Final[tuple[frozenset[str], ...]]
    modifier: Final[tuple[tuple[str, int] | None, ...]]
    effect: Final[tuple[Effect | None, ...]]
    flip7_distinct: Final[int]
    flip7_bonus: Final[int]
    initial_deal: Final[bool]
    early_cards: Final[str]
    early_second_chance: Final[str]
    start_seat: Final[str]
    stay_requires: Final[str]
    stay_protects: Final[bool]
    modifiers_to: Final[str]
    empty_deck: Final[str]
    between_rounds: Final[str]
    flip7_bonus_to: Final[str]
    modifier_targets: Final[str]
    flip7_counts: Final[str]
    busted_score: Final[str]
    bust_scores_nothing: Final[bool]
    flip7_choice: Final[bool]
    set_aside_order: Final[str]
    reshuffles_unlimited: Final[bool]
    reshuffles: Final[int]
    zero_after_stay: Final[str]
    busted_cards: Final[str]
    unusable_actions: Final[str]
    zero_with_negatives: Final[str]
    busted_modifiers: Final[str]
    wipe_set_aside: Final[str]
    late_bust: Final[str]
    penalty_targets: Final[str]
    barred_own_flip_four: Final[str]
    moved_card_place: Final[str]
    target_score: Final[int]
    tie: Final[str]
    decks: Final[int]
    scoring: Final[tuple[str, ...]]
    deck: Final[tuple[int, ...]]
    plain_number: Final[tuple[bool, ...]]
    plain_modifier: Final[tuple[bool, ...]]
    lane_card: Final[tuple[bool, ...]]
    modifier_pipeline: Final[bool]
    floors_at_zero: Final[bool]
    adds_flip7_bonus: Final[bool]
    no_stay: Final[frozenset[int]]
    _key: Final[tuple[Any, ...]]

    def __init__(self, edition: Any = "flip7", players: Any = 4, options: Any = None) -> None:
        if isinstance(edition, os.PathLike):
            edition = os.fspath(edition)
        ed = edition if isinstance(edition, Edition) else load_edition(edition)
        if isinstance(players, bool) or not isinstance(players, int):
            raise OptionError(f"players: expected a whole number, got {players!r}")
        low = ed.thresholds.get("min_players", 1)
        if players < low:
            raise OptionError(f"players: {players} is too few for {ed.id} (at least {low})")
        if options is not None and not isinstance(options, Mapping):
            raise OptionError(f"options: expected a mapping of option names to values, got {type(options).__name__}")
        chosen: dict[str, str | int] = {}
        for name, value in (options or {}).items():
            spec = ed.options.get(name)
            if spec is None:
                known = ", ".join(ed.options)
                raise OptionError(f"unknown option {name!r} for edition {ed.id} (known options: {known})")
            chosen[name] = spec.coerce(value)
        resolved: dict[str, str | int] = {n: chosen.get(n, s.coerce(s.default)) for n, s in ed.options.items()}
        self.edition = ed
        self.players = players
        self.options = MappingProxyType(resolved)
        # the fast lanes run only for the readings they were checked for (flip7ref.core.lane_readings)
        self.fast_lanes = lanes_checked(resolved)
        self.kinds = ed.cards
        self.card_ids = tuple(c.id for c in ed.cards)
        self.codes = MappingProxyType({c: i for i, c in enumerate(self.card_ids)})  # exact ids; see code()
        self.category = tuple(CATEGORIES.index(c.category) for c in ed.cards)
        self.rank = tuple(c.rank if c.rank is not None else -1 for c in ed.cards)
        self.traits = tuple(frozenset(c.traits) for c in ed.cards)
        self.modifier = tuple(c.modifier for c in ed.cards)
        self.effect = tuple(self._effect(c.effect, c.index) for c in ed.cards)
        th = ed.thresholds
        self.flip7_distinct = th["flip7_distinct"]
        self.flip7_bonus = th["flip7_bonus"]
        # every key the schema lets a table leave out has its one default there (spec/schema/edition.schema.json),
        # filled in by the loader: read rnd[key], never rnd.get(key, fallback) (tests/test_round_defaults.py)
        rnd = {k: _resolve(v, resolved) for k, v in ed.round.items()}
        self.initial_deal = rnd["initial_deal"] in (True, "deal")
        self.early_cards = str(rnd["early_cards"])
        self.early_second_chance = str(rnd["early_second_chance"])
        self.start_seat = str(rnd["start_seat"])
        self.stay_requires = str(rnd["stay_requires"])
        self.stay_protects = bool(rnd["stay_protects"])
        self.modifiers_to = str(rnd["modifiers"])
        self.empty_deck = str(rnd["empty_deck"])
        self.between_rounds = str(rnd["between_rounds"])
        self.flip7_bonus_to = str(rnd["flip7_bonus_to"])
        self.modifier_targets = str(rnd["modifier_targets"])
        self.flip7_counts = str(rnd["flip7_counts"])
        self.busted_score = str(rnd["busted_score"])
        # a busted seat scores nothing whatever its line (F7-101): the fast lanes may share one
        # round end between the busting cards of a chance node (flip7ref.core.lanes)
        self.bust_scores_nothing = self.busted_score != "modifiers"
        self.flip7_choice = bool(rnd["flip7_choice"])
        self.set_aside_order = str(rnd["set_aside_order"])
        shuffles = rnd["reshuffles"]
        # F7-117, V-076: under "unlimited" the loop guard of flip7ref.core.pile.may_reshuffle bounds a round's reshuffles
        self.reshuffles_unlimited = shuffles == "unlimited"
        reshuffles = 0 if self.reshuffles_unlimited else int(shuffles)
        self.zero_after_stay = str(rnd["zero_after_stay"])
        self.busted_cards = str(rnd["busted_cards"])
        self.unusable_actions = str(rnd["unusable_actions"])
        self.zero_with_negatives = str(rnd["zero_with_negatives"])
        self.busted_modifiers = str(rnd["busted_modifiers"])  # V-084, D-V-33; unsaid: all count
        self.wipe_set_aside = str(rnd["wipe_set_aside"])  # V-039, D-V-31
        self.late_bust = str(rnd["late_bust"])  # V-044, D-V-32
        self.penalty_targets = str(rnd["penalty_targets"])  # V-085, D-V-34
        self.barred_own_flip_four = str(rnd["barred_own_flip_four"])  # V-086, D-V-35
        self.moved_card_place = str(rnd["moved_card_place"])  # V-087, D-V-36
        end = {k: _resolve(v, resolved) for k, v in ed.game_end.items()}
        self.target_score = int(end["target_score"])
        self.tie = str(end["tie"])
        decks = end["decks"]
        per = th["players_per_deck"]
        self.decks = -(-players // per) if decks == "auto" else int(decks)
        deck_spec = ed.options.get("decks")
        most = deck_spec.integer[1] if deck_spec is not None and deck_spec.integer is not None else None
        if most is not None and self.decks > most:
            raise OptionError(f"players: {players} players need {self.decks} decks; at most {most} are supported")
        self.scoring = tuple(
            step["step"] for step in ed.scoring if not ("unless" in step and _truthy(_resolve(step["unless"], resolved)))
        )
        self.deck = ed.deck(self.decks)
        # under "unlimited" the guard's bound: D + N + 1 (docs/termination.md)
        self.reshuffles = len(self.deck) + players + 1 if self.reshuffles_unlimited else reshuffles
        # Scoring fast path (scoring.score_points): a number card without a trait adds
        # its rank (every pipeline sums the numbers: a table without the step is refused).
        self.plain_number = tuple(
            cat == NUMBER and not traits for cat, traits in zip(self.category, self.traits, strict=True)
        )
        # ... and a modifier without a trait multiplies/divides the sum or adds to it
        # when the pipeline is: sum, multiply, add, then steps that change nothing
        # short of a Flip 7 but a floor at zero.
        self.plain_modifier = tuple(
            cat == MODIFIER and not traits and mod is not None
            for cat, traits, mod in zip(self.category, self.traits, self.modifier, strict=True)
        )
        # The cards the plain-card lanes take (flip7ref.core.lanes): no trait, and a number or a
        # modifier its receiver keeps (flip7ref.core.targets.receive adds either to the line).
        self.lane_card = tuple(
            not traits and (cat == NUMBER or (cat == MODIFIER and self.modifiers_to == "receiver"))
            for cat, traits in zip(self.category, self.traits, strict=True)
        )
        tail = [step for step in ("floor_zero", "zero_unless_flip7", "flip7_bonus") if step in self.scoring[3:]]
        self.modifier_pipeline = self.scoring[:3] == ("sum_numbers", "multiply", "add_modifiers") and (
            list(self.scoring[3:]) == tail
        )
        self.floors_at_zero = "floor_zero" in self.scoring
        self.adds_flip7_bonus = "flip7_bonus" in self.scoring
        self.no_stay = frozenset(i for i, t in enumerate(self.traits) if "no_stay" in t)  # V-031
        self._key = (ed.id, str(ed.path), ed.digest, players, tuple(sorted(resolved.items(), key=lambda kv: kv[0])))

    def _effect(self, raw: Mapping[str, Any] | None, index: int) -> Effect | None:
        """The effect of card ``index`` (its table entry ``raw``, options resolved).

        Raises:
            SpecError: the entry names a primitive no module registered, or a parameter
                its primitive does not read (naming the table file and the card).
        """
        if raw is None:
            return None
        values = {k: _resolve(v, self.options) for k, v in raw.items()}
        set_aside: set[int] = set()
        for ref in values.get("set_aside") or ():
            if ref in CATEGORIES:
                set_aside.update(c.index for c in self.edition.cards if c.category == ref)
            else:
                set_aside.add(self.edition.card(ref).index)
        if "set_aside" in values:
            values["set_aside"] = frozenset(set_aside)
        try:
            return effect_from_table(values)  # the primitive's own parameters (flip7ref.core.primitives)
        except EntryError as exc:
            card = self.edition.cards[index].id
            where = f"/cards/{index}/effect/{exc.key}"
            raise SpecError(str(self.edition.path), where, f"{exc.expected} (card {card!r})") from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameTables) and other._key == self._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __reduce__(self) -> tuple[type[GameTables], tuple[Edition, int, dict[str, str | int]]]:
        # pickled (e.g. to worker processes) as its class (`flip7ref.core.game.Game`) and its
        # arguments: the compiled build's native class has no instance dict to copy
        return (type(self), (self.edition, self.players, dict(self.options)))

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.options.items() if v != self.edition.options[k].coerce(self.edition.options[k].default)}
        return f"Game({self.edition.id!r}, players={self.players}, options={changed!r})"

    def max_moves_per_round(self) -> int:
        """The most moves (decisions plus chance outcomes) any round of this game can take.

        Returns ``4 * (k + 1) * D + 2 * N + 1`` where ``k`` is the option
        ``reshuffles`` (reshuffles of the discard pile allowed in one round,
        F7-116, V-075; under reading ``unlimited`` ``D + N + 1``, as each reshuffle needs
        more progress than the last, F7-117, V-076), ``D`` the number of cards in the game (all decks) and ``N``
        the number of players.  Why it holds (docs/termination.md): a round draws
        at most ``(k + 1) * D`` cards (the deck it starts with, then ``k``
        reshuffles of at most ``D`` cards; an empty deck is then exhausted,
        F7-115); every chance outcome draws one card; a Hit draws a card or, on an
        exhausted deck, turns into a Stay, and a Stay takes an active player out,
        so Hits and Stays number at most cards + N + 1; every other decision (a
        target, an assignment, a Second Chance given, the cards of a Swap, Steal
        or Discard) belongs to a drawn card, at most two per card, plus one
        Brutal Mode Flip 7 choice.
        """
        return 4 * (self.reshuffles + 1) * len(self.deck) + 2 * self.players + 1

    def max_pending(self) -> int:
        """The most frames the pending-work stack can hold: ``2 * D + 4`` (``D`` cards).

        Below the top decision or draw and the deal's two frames, the stack holds
        pairs of a forced draw and the queue it came from (Resolve, InOrder), and
        every such pair holds a card of its own, which is on no other frame
        (docs/termination.md)."""
        return 2 * len(self.deck) + 4

    def code(self, card: Any) -> int:
        """The integer code of a card given by id, alias or name in any language.

        Args:
            card (str): the card's id (``"x2"``), alias or name (``"Second Chance"``).

        Raises:
            CardError: when the edition has no such card.
        """
        return self.edition.card(card).index

    def non_default_options(self) -> dict[str, str | int]:
        """The options whose value differs from the table's default."""
        eds = self.edition.options
        return {k: v for k, v in self.options.items() if v != eds[k].coerce(eds[k].default)}


def _truthy(value: object) -> bool:
    return value in (True, "on", "yes", "true", 1)


if __file__.endswith(".py"):  # the pure build: refuse assignment, as the compiled build's Final attributes do

    def _refuse_assignment(self: GameTables, name: str, value: object) -> None:
        # __init__ sets every attribute once, _key last (after it nothing may be set)
        if "_key" in self.__dict__ or name in self.__dict__:
            raise AttributeError(f"Game is immutable: cannot set {name!r} (build another Game with other options)")
        object.__setattr__(self, name, value)

    def _refuse_deletion(self: GameTables, name: str) -> None:
        raise AttributeError(f"Game is immutable: cannot delete {name!r}")

    GameTables.__setattr__ = _refuse_assignment  # type: ignore[method-assign,assignment]
    GameTables.__delattr__ = _refuse_deletion  # type: ignore[method-assign,assignment]
