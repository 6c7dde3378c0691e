"""The batched Vengeance engine's tables: what it reads from the edition table, what it refuses.

`check_vengeance` refuses a table or reading the engine does not play; the table's facts are
read into the arrays of `flip7ref.batch.state.KernelState`, played by the scalar rule body
`flip7ref.batch.kernel` (a card's behaviour chosen by those facts).
"""

from __future__ import annotations

from flip7ref.batch import tables
from flip7ref.batch.kernel import ACTIVE, BUSTED, CARDS, HIT, OFFER, PLAY, STAY, STAYED, TERMINAL
from flip7ref.batch.state import STACK, line_room
from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.core.model import ACTION, MODIFIER, NUMBER

__all__ = [
    "ACTIVE", "BUSTED", "CARDS", "HIT", "OFFER", "PLAY", "STAY", "STAYED", "TERMINAL", "VENGEANCE_OPTIONS", "check_vengeance",
]  # fmt: skip

L = 40  # room in a line the observation's tie keys allow (`flip7ref.batch.v_policies`)


VENGEANCE_OPTIONS: dict[str, tuple[str, ...]] = {
    "brutal": ("false",),
    "lucky13_flip7": ("twice",),
    "stayed_targetable": ("yes",),
    "discard_chooser": ("giver",),
    "swap_scope": ("any-two",),
    "flip_four_cards": ("after",),
    "initial_deal": ("deal",),
    "stay_requires": ("nothing",),
    "tie": ("another-round",),
    "zero_just_one_more": ("no-flip7",),
    "busted_cards": ("keep",),
    "unusable_actions": ("fizzle",),
    "brutal_zero": ("zero",),
    "brutal_busted": ("given-after-bust",),
    "unlucky7_flip_four": ("survives",),
    "flip_four_late_bust": ("all",),
    "deal_after_early_cards": ("offer",),
}
"""The readings of Vengeance the batched engine plays: each option's default (Brutal Mode
off).  Integer options: ``target_score`` 1..10000, ``reshuffles`` 0..8 or ``unlimited`` (its
loop guard, V-076), ``decks`` one deck (``auto`` up to 18 players, or 1)."""


def check_vengeance(game: Game) -> None:
    """Raise `OptionError` unless the batched engine plays ``game``: a table whose cards and
    round are Vengeance's in structure (numbers with the traits of `_TRAITS`, one card of
    each, ``add`` modifiers and at most one dividing card in the deck, action cards of the
    primitives and parameters of `VENGEANCE_EFFECTS`, the round of
    `flip7ref.batch.tables.VENGEANCE_ROUND`), one deck (at most the table's
    ``players_per_deck`` players), options at `VENGEANCE_OPTIONS` (integers as documented
    there).  The table's facts themselves (ranks, counts, amounts, the divisor, the Flip 7
    line length and bonus, the target, each forced draw's count, set-aside cards and stay)
    are read by `VRules._tables`."""
    tables.plain_cards(game, "vengeance", NUMBER, _TRAITS)
    tables.plain_cards(game, "vengeance", MODIFIER)
    tables.modifier_ops(game, "vengeance", ("add", "divide"))
    for name, value in game.options.items():
        if name in VENGEANCE_OPTIONS and value not in VENGEANCE_OPTIONS[name]:
            raise OptionError(f"options.{name}: the batched engine plays {VENGEANCE_OPTIONS[name][0]!r} only, got {value!r}")
    if game.options.get("decks") not in ("auto", 1, None):
        raise OptionError(f"options.decks: the batched engine plays one deck, got {game.options.get('decks')!r}")
    div = [c for c, m in enumerate(game.modifier) if m is not None and m[0] == "divide"]
    if tables.deck_copies(game, div) > 1:  # a line holds one: its divisor is a flag (V-052)
        n = tables.deck_copies(game, div)
        raise tables.refuse(game, "vengeance", f"the deck holds {n} dividing cards", "at most one (V-052)")
    per = game.edition.thresholds["players_per_deck"]
    if not 1 <= game.players <= per:
        raise OptionError(f"players: the batched engine plays 1..{per} players (one deck), got {game.players}")
    C = len(game.card_ids)
    acts = tables.deck_copies(game, [c for c in range(C) if game.category[c] == ACTION])
    sizes = (("card kinds", C, 127), ("stack frames", 2 * acts + 3, STACK), ("cards in a line", line_room(game), L))
    for what, need, room in sizes:
        if need > room:
            raise tables.refuse(game, "vengeance", f"the deck needs {need} {what}", f"at most {room}")
    tables.check_effects(game, "vengeance", VENGEANCE_EFFECTS)
    for c, e in enumerate(game.effect):  # V-044: set-aside cards are resolved one by one in reveal order
        how = getattr(e, "resolution", None)
        if getattr(e, "set_aside", None) and how != "in-order":
            raise tables.refuse(game, "vengeance", f"card {game.card_ids[c]!r} has resolution {how!r}", "'in-order' only (V-044)")
    for trait in _TRAITS:
        tables.one_card(game, "vengeance", f"trait {trait}", [c for c, t in enumerate(game.traits) if trait in t], _TRAITS[trait])
    tables.check_round(game, tables.VENGEANCE_ROUND, "vengeance")


_TRAITS = {"zero": "V-030", "no_stay": "V-031", "wipe_on_enter": "V-033", "pair_allowed": "V-036"}
"""The number-card traits the engine implements (each a rule in code), with their rule ids."""

_TARGETS = {"targets": "non_busted", "self_target": "allowed"}  # V-014, V-042
VENGEANCE_EFFECTS: dict[str, dict[str, object]] = {
    "forced_draw": {**_TARGETS, "on_bust": "discard", "assigner": "target"},  # V-043, V-044
    "swap": {**_TARGETS, "scope": "any-two"},  # V-045
    "steal": dict(_TARGETS),  # V-046
    "discard_card": {**_TARGETS, "chooser": "giver"},  # V-047
}
"""The primitives of Vengeance's action cards the batched engine plays, with the parameter
values its code implements; a forced draw's ``count``, ``set_aside`` and ``then_stay`` are
read from the table."""
