"""What the batched engines read from the edition table, and what they refuse.

Both batched engines (`flip7ref.batch.core.BatchState` for base Flip 7,
`flip7ref.batch.vengeance.VengeanceState`) are second implementations of the rules.  The
facts the table states as data (card values and counts, modifier amounts, the Flip 7 line
length and bonus, the target score, a forced draw's count and set-aside cards, the Second
Chance hold limit) are read here from the compiled `flip7ref.Game` once per state, so a
changed table reaches the engine.  What an engine implements as code (the round's
structure, the primitives it knows, the scoring pipeline) is checked against the table's
resolved values: anything else is refused with one `OptionError` naming the table, the
fact and the value the engine plays.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.core.model import ACTION, MODIFIER, NUMBER

__all__ = [
    "BASE_ROUND",
    "VENGEANCE_ROUND",
    "check_effects",
    "check_round",
    "deck_copies",
    "modifier_ops",
    "one_card",
    "plain_cards",
    "refuse",
]

Facts = Mapping[str, tuple[Any, str]]

BASE_ROUND: Facts = {
    "initial_deal": (True, "F7-020"),
    "early_cards": ("offer", "F7-025"),
    "early_second_chance": ("deal", "F7-026"),
    "start_seat": ("dealer-left", "F7-020, F7-030"),
    "stay_requires": ("any-card", "F7-033"),
    "stay_protects": (True, "F7-034"),
    "modifiers_to": ("receiver", "F7-035"),
    "empty_deck": ("stay", "F7-115"),
    "between_rounds": ("carry-over", "F7-111"),
    "flip7_bonus_to": ("maker", "F7-050"),
    "modifier_targets": ("non_busted", "F7-035"),
    "flip7_counts": ("distinct", "F7-050"),
    "busted_score": ("zero", "F7-101"),
    "flip7_choice": (False, "F7-050"),
    "set_aside_order": ("queue", "F7-074, F7-075"),
    "zero_after_stay": ("general-rules", "F7-100"),
    "busted_cards": ("keep", "F7-040"),
    "unusable_actions": ("refuse", "F7-061"),
    "zero_with_negatives": ("zero", "F7-100"),
    "busted_modifiers": ("all-negatives", "F7-101"),
    "wipe_set_aside": ("survives", "F7-073"),
    "late_bust": ("all", "F7-073"),
    "tie": ("another-round", "F7-121"),
    "decks": (1, "F7-002, F7-123"),
    "scoring": (("sum_numbers", "multiply", "add_modifiers", "flip7_bonus"), "F7-100"),
}
"""The resolved `flip7ref.Game` attributes the base engine implements as code: attribute ->
(the one value it plays, the rule ids of that code)."""

VENGEANCE_ROUND: Facts = {
    "initial_deal": (True, "V-011"),
    "early_cards": ("offer", "V-011, V-018"),
    "early_second_chance": ("deal", "V-011"),
    "start_seat": ("dealer-left", "V-011, V-012"),
    "stay_requires": ("nothing", "V-017"),
    "stay_protects": (False, "V-014"),
    "modifiers_to": ("choose", "V-050"),
    "empty_deck": ("stay", "V-072"),
    "between_rounds": ("carry-over", "V-071"),
    "flip7_bonus_to": ("maker", "V-022"),
    "modifier_targets": ("non_busted", "V-050"),
    "flip7_counts": ("cards", "V-022"),
    "busted_score": ("zero", "V-081"),
    "flip7_choice": (False, "V-082"),
    "penalty_targets": ("any-player", "V-085"),
    "barred_own_flip_four": ("barred", "V-086"),
    "moved_card_place": ("end", "V-087"),
    "set_aside_order": ("queue", "V-044"),
    "zero_after_stay": ("no-flip7", "V-038"),
    "busted_cards": ("keep", "V-020"),
    "unusable_actions": ("fizzle", "V-048"),
    "zero_with_negatives": ("zero", "V-030"),
    "busted_modifiers": ("given-after-bust", "V-084"),
    "wipe_set_aside": ("survives", "V-039"),
    "late_bust": ("all", "V-044"),
    "tie": ("another-round", "V-074"),
    "decks": (1, "V-003"),
    "scoring": (
        ("sum_numbers", "multiply", "add_modifiers", "floor_zero", "zero_unless_flip7", "flip7_bonus"),
        "V-060",
    ),
}
"""The same for the Vengeance engine."""


def refuse(game: Game, engine: str, what: str, expected: str) -> OptionError:
    """The one-line `OptionError` of a table fact the batched ``engine`` does not play:
    ``edition ID (FILE): WHAT; the batched ENGINE engine plays EXPECTED``."""
    ed = game.edition
    return OptionError(f"edition {ed.id} ({ed.path.name}): {what}; the batched {engine} engine plays {expected}")


def check_round(game: Game, facts: Facts, engine: str) -> None:
    """Raise `refuse` for the first attribute of ``game`` (the table's round, scoring and
    game-end sections, options resolved) whose value is not the one of ``facts``."""
    for name, (value, rules) in facts.items():
        got = getattr(game, name)
        if got != value:
            raise refuse(game, engine, f"{name} is {got!r}", f"{value!r} only ({rules})")


def deck_copies(game: Game, codes: Iterable[int]) -> int:
    """How many cards of the kinds ``codes`` one game's deck holds (all its decks)."""
    wanted = set(codes)
    return sum(1 for c in game.deck if c in wanted)


def one_card(game: Game, engine: str, what: str, codes: Sequence[int], rules: str) -> int:
    """The code of the one card kind ``codes`` holds (the cards of ``what``, e.g. a primitive);
    `refuse` unless there is exactly one."""
    if len(codes) != 1:
        ids = ", ".join(repr(game.card_ids[c]) for c in codes) or "none"
        raise refuse(game, engine, f"the cards of {what} are {ids}", f"exactly one card kind of {what} ({rules})")
    return codes[0]


def check_effects(game: Game, engine: str, expected: Mapping[str, Mapping[str, Any]]) -> None:
    """Every action card's primitive is a key of ``expected`` and every parameter named there
    has the value given (after the table's options are resolved); `refuse` otherwise.  A value
    given as a tuple lists the values accepted.  Number and modifier cards are checked by the
    engines themselves."""
    for c, effect in enumerate(game.effect):
        if game.category[c] != ACTION:
            continue
        name = str(getattr(effect, "primitive", None))
        if effect is None or name not in expected:
            known = ", ".join(expected)
            raise refuse(game, engine, f"card {game.card_ids[c]!r} has primitive {name!r}", f"the primitives {known} only")
        for param, want in expected[name].items():
            got = getattr(effect, param)
            ok = got in want if isinstance(want, tuple) else got == want
            if not ok:
                shown = " or ".join(repr(w) for w in want) if isinstance(want, tuple) else repr(want)
                raise refuse(game, engine, f"card {game.card_ids[c]!r} has {param} {got!r}", f"{shown} only")


def plain_cards(game: Game, engine: str, category: int, traits: Iterable[str] = ()) -> None:
    """`refuse` a card of ``category`` (NUMBER or MODIFIER) with a trait outside ``traits``."""
    allowed = set(traits)
    for c, cat in enumerate(game.category):
        extra = sorted(game.traits[c] - allowed)
        if cat == category and extra:
            kind = "number" if category == NUMBER else "modifier"
            shown = f"with traits {', '.join(sorted(allowed))}" if allowed else "without traits"
            raise refuse(game, engine, f"card {game.card_ids[c]!r} has traits {extra}", f"{kind} cards {shown} only")


def modifier_ops(game: Game, engine: str, ops: Iterable[str]) -> None:
    """`refuse` a modifier whose operation is not one of ``ops``."""
    allowed = tuple(ops)
    for c, m in enumerate(game.modifier):
        if game.category[c] == MODIFIER and (m is None or m[0] not in allowed):
            op = m[0] if m is not None else None
            raise refuse(game, engine, f"modifier {game.card_ids[c]!r} has op {op!r}", f"the ops {', '.join(allowed)} only")
