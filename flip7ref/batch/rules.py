"""The batched base Flip 7 engine's tables: what it plays of the edition table, what it refuses.

`check_game` refuses a table or reading the engine does not play; the table's facts are read
into the arrays of `flip7ref.batch.state.KernelState`, played by the scalar rule body
`flip7ref.batch.kernel` (the one Vengeance plays: a card's behaviour chosen by those facts).
A reshuffle (F7-113, once a round, F7-116) orders the discard pile as the reference does for
a seeded game when ``shuffle="reference"`` (`flip7ref.core.pile.shuffled`; same seed, same
deal), else with NumPy's generator.
"""

from __future__ import annotations

from flip7ref.batch import tables
from flip7ref.batch.kernel import ACTIVE, ASSIGN, BUSTED, FROZEN, GIVE, HIT, OFFER, PLAY, STAY, STAYED, TERMINAL
from flip7ref.batch.state import choose_backend
from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.core.model import MODIFIER, NUMBER

__all__ = [
    "ACTIVE", "ASSIGN", "BASE_EFFECTS", "BUSTED", "FROZEN", "GIVE", "HIT", "OFFER", "PLAY", "STAY", "STAYED",
    "SUPPORTED_OPTIONS", "TERMINAL", "check_game", "choose_backend",
]  # fmt: skip

SUPPORTED_OPTIONS: dict[str, tuple[str, ...]] = {
    "initial_deal": ("deal",),
    "deal_after_early_cards": ("offer",),
    "deal_after_second_chance": ("deal",),
    "start_seat": ("dealer-left",),
    "stay_requires": ("any-card",),
    "self_target": ("allowed",),
    "flip_three_bust": ("discard",),
    "set_aside_assigner": ("target",),
    "second_chance_in_flip_three": ("immediate",),
    "first_second_chance": ("keep",),
    "deck_between_rounds": ("carry-over",),
    "empty_deck": ("stay",),
    "flip7_bonus": ("maker",),
    "tie": ("another-round",),
    "set_aside_order": ("queue",),
}
"""The readings of base Flip 7 the batched engine plays: each option's default.  Integer
options: ``target_score`` (any whole number 1..10000), ``reshuffles`` (0..8, or ``unlimited``
with its loop guard, F7-117), ``decks`` (one deck: ``auto`` up to 18 players, or 1)."""


def check_game(game: Game) -> None:
    """Raise `OptionError` unless the batched engine plays ``game``: a table whose cards and
    round are base Flip 7's in structure (numbers without traits, ``add`` and ``multiply``
    modifiers with at most one multiplying card in the deck, one card each of the primitives
    ``freeze``, ``forced_draw`` and ``bust_shield`` with the parameters of `BASE_EFFECTS`,
    the round of `flip7ref.batch.tables.BASE_ROUND`), one deck (at most the table's
    ``players_per_deck`` players), options at `SUPPORTED_OPTIONS` (integers as documented
    there).  The table's facts themselves (ranks, counts, amounts, the Flip 7 line length and
    bonus, the target, the forced draw's count and set-aside cards, the hold limit) are read
    by `flip7ref.batch.state.KernelState._tables`."""
    tables.plain_cards(game, "flip7", NUMBER)
    tables.plain_cards(game, "flip7", MODIFIER)
    tables.modifier_ops(game, "flip7", ("add", "multiply"))
    per = game.edition.thresholds["players_per_deck"]
    if not 1 <= game.players <= per:
        raise OptionError(f"players: the batched engine plays 1..{per} players (one deck), got {game.players}")
    if len(game.card_ids) > 127:  # card codes are int8
        raise tables.refuse(game, "flip7", f"the table has {len(game.card_ids)} card kinds", "at most 127")
    for name, value in game.options.items():
        if name in SUPPORTED_OPTIONS and value not in SUPPORTED_OPTIONS[name]:
            raise OptionError(f"options.{name}: the batched engine plays {SUPPORTED_OPTIONS[name][0]!r} only, got {value!r}")
    if game.options.get("decks") not in ("auto", 1, None):
        raise OptionError(f"options.decks: the batched engine plays one deck, got {game.options.get('decks')!r}")
    mult = [c for c, m in enumerate(game.modifier) if m is not None and m[0] == "multiply"]
    if tables.deck_copies(game, mult) > 1:  # a line holds one: its factor is a flag (F7-091)
        raise tables.refuse(game, "flip7", f"the deck holds {tables.deck_copies(game, mult)} multiplying cards",
                            "at most one (F7-091)")  # fmt: skip
    tables.check_effects(game, "flip7", BASE_EFFECTS)
    for name in BASE_EFFECTS:
        tables.one_card(game, "flip7", f"primitive {name}", _with(game, name), "F7-007")
    tables.check_round(game, tables.BASE_ROUND, "flip7")
    f3 = game.effect[_with(game, "forced_draw")[0]]
    allowed = {_with(game, "freeze")[0], _with(game, "forced_draw")[0]}
    aside = set(getattr(f3, "set_aside", ()))
    if aside != allowed:  # one forced draw at a time, its queue plays a Freeze or a Flip Three (F7-073, F7-074)
        ids = sorted(game.card_ids[c] for c in aside)
        raise tables.refuse(game, "flip7", f"the forced draw sets aside {ids}", "its own card and the Freeze set aside (F7-073)")


BASE_EFFECTS: dict[str, dict[str, object]] = {
    "freeze": {"targets": "active", "self_target": "allowed", "keep_card": True},  # F7-060..F7-062
    "forced_draw": {
        "targets": "active",
        "self_target": "allowed",
        "on_bust": "discard",
        "assigner": "target",
        "then_stay": False,
        "resolution": "assign-all-first",
    },  # F7-070..F7-079
    "bust_shield": {"targets": "active", "self_target": "allowed", "first_copy": "keep"},  # F7-080..F7-084
}
"""The primitives of base Flip 7's action cards the batched engine plays, with the parameter
values its code implements (`flip7ref.batch.tables.check_effects`); the forced draw's ``count``
and ``set_aside`` and the shield's ``hold_limit`` are read from the table."""


def _with(game: Game, primitive: str) -> list[int]:
    """The codes of the card kinds whose effect uses ``primitive``."""
    return [c for c, e in enumerate(game.effect) if e is not None and getattr(e, "primitive", None) == primitive]
