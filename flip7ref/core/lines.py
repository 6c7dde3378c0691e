"""A card entering a line: the rules of numbers in front of a player.

One home for: when a number is a duplicate (F7-040) and when a repeated rank is
allowed (the Lucky 13 pair, V-036); what counts toward the seven of a Flip 7
(F7-050, V-022, D-V-03) and when a Flip 7 is barred (D-V-26); Unlucky 7
wiping the line (V-033); when a player may stay (F7-033); which kept card guards a
line from a bust (F7-080); where a moved card lies (V-087).  These functions read a
game's tables and plain values only: the general path (`flip7ref.core.targets.receive_number`
and `flip7ref.core.targets.enter`, which apply them to the scratch copy), the fast lanes
of `flip7ref.core.lanes`, scoring and position checks all call them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from flip7ref.core.model import BUSTED, NUMBER, STAYED, Player, make_player

if TYPE_CHECKING:
    from flip7ref.core.game_tables import GameTables


def repeat_allowed(game: GameTables, same: Sequence[int]) -> bool:
    """Whether number cards ``same`` (all of one rank) may lie in one line together: one
    card always; two when either has the ``pair_allowed`` trait (Lucky 13, V-036)."""
    if len(same) <= 1:
        return True
    return len(same) == 2 and any("pair_allowed" in game.traits[c] for c in same)


def same_rank(game: GameTables, line: Sequence[int], rank: int) -> list[int]:
    """The number cards of ``line`` with ``rank``."""
    category, ranks = game.category, game.rank
    return [c for c in line if ranks[c] == rank and category[c] == NUMBER]  # the rarer test first


def is_duplicate(game: GameTables, line: Sequence[int], code: int) -> bool:
    """Whether number ``code`` entering ``line`` is a duplicate that busts (F7-040, V-036)."""
    rank, ranks = game.rank[code], game.rank
    for c in line:  # a plain loop first: most cards meet no card of their rank (no list, no category test)
        if ranks[c] == rank:
            break
    else:
        return False
    same = same_rank(game, line, rank)
    return bool(same) and not repeat_allowed(game, [*same, code])


def wipes(game: GameTables, code: int) -> bool:
    """Whether number ``code`` clears the line it enters and never busts (Unlucky 7, V-033)."""
    return "wipe_on_enter" in game.traits[code]


def distinct_numbers(game: GameTables, line: Sequence[int]) -> int:
    """How many different number ranks a line holds."""
    return len({game.rank[c] for c in line if game.category[c] == NUMBER})


def flip7_count(game: GameTables, line: Sequence[int]) -> int:
    """What a line counts toward the seven of a Flip 7 (F7-050, V-022).

    Different ranks, or (``flip7_counts: cards``, D-V-03) number cards, so that
    Lucky 13 and a regular 13 count twice.
    """
    if game.flip7_counts == "cards":
        return sum(1 for c in line if game.category[c] == NUMBER)
    return distinct_numbers(game, line)


def past_flip7(game: GameTables, line: Sequence[int]) -> bool:
    """Whether ``line`` holds more counted numbers than a Flip 7 needs (F7-050, V-022): no
    line reaches that, as the round ends at the Flip 7. Raises nothing."""
    return flip7_count(game, line) > game.flip7_distinct


def holds_seven(game: GameTables, line: Sequence[int]) -> bool:
    """Whether ``line`` holds the seven counted numbers of a Flip 7 (`flip7_count` reaches
    the edition's ``flip7_distinct``; F7-050, V-022, D-V-03), whether or not they make one:
    a forced draw stops there too (V-044, the Dutch FAQ)."""
    return len(line) >= game.flip7_distinct and flip7_count(game, line) >= game.flip7_distinct


def flip7_line(game: GameTables, line: Sequence[int], barred: bool = False) -> bool:
    """The one decider of F7-050 (with V-022, D-V-03 and D-V-26): whether ``line`` holds a
    Flip 7 — seven counted numbers (`flip7_count`; The Zero counts as one, V-032) — for a
    player whose Flip 7 is not barred (``barred``: `Player.flip7_barred`, D-V-26).

    Args:
        game: the compiled game.
        line: card codes of the line (numbers and modifiers).
        barred: the player's ``flip7_barred`` flag.

    Returns:
        True when the line is a Flip 7.  Raises nothing for codes of the game.
    """
    return not barred and holds_seven(game, line)


def makes_flip7(game: GameTables, barred: bool, line: Sequence[int], flip7: int | None) -> bool:
    """Whether ``line`` (just grown by a number) makes the Flip 7 that ends the round
    (F7-050): nobody has made one this round (``flip7`` is None) and `flip7_line` says so
    (asked every time: no quick answer of its own, which would restate the rule)."""
    return flip7 is None and flip7_line(game, line, barred)


def bars_flip7(game: GameTables, p: Player) -> bool:
    """The one decider of D-V-26 (V-038): whether Just One More, having just made ``p``
    stop (V-043), bars ``p``'s Flip 7 for the rest of the round.

    Under reading ``no-flip7`` of option ``zero_just_one_more`` it does when ``p`` holds
    The Zero (a ``no_stay`` card, V-031) at that moment and has not busted: the Dutch
    text says such a player, stopped short of seven numbers, can no longer make a Flip 7
    and keeps 0.  Nobody else is barred: a player who stayed before The Zero reached
    them (by a Swap, a Steal or a Flip Four) still makes a Flip 7 with seven numbers.
    """
    return (
        game.zero_after_stay == "no-flip7"
        and p.status is not BUSTED
        and bool(game.no_stay)
        and any(c in game.no_stay for c in p.line)
    )


def own_draw_lifts_bar(game: GameTables, giver: int, target: int) -> bool:
    """The one decider of V-086 (D-V-35): whether a player barred from a Flip 7 by Just One
    More (`bars_flip7`, D-V-26) may still make one with the cards of a forced draw (Flip
    Four) that ``giver`` played on ``target``.

    Under reading ``barred`` of option ``zero_own_flip_four`` never: the draw stops at seven
    numbers with no Flip 7 (V-044).  Under ``flip7`` when she played it on herself
    (``giver == target``): the numbers it brings may complete her Flip 7.  The texts are
    silent.

    Args:
        game: the compiled game.
        giver: the seat that played the Flip Four.
        target: the seat drawing its cards (barred).

    Returns:
        True when the bar is lifted for this draw's cards.  Raises nothing.
    """
    return game.barred_own_flip_four == "flip7" and giver == target


def bar_lasts(game: GameTables, line: Sequence[int]) -> bool:
    """The one decider of V-037's release from The Zero's bar (D-V-26): a barred player
    (`bars_flip7`) stays barred only while ``line`` still holds The Zero (a ``no_stay``
    card, V-031).  The Dutch text frees a player who loses the card by a Swap, a Steal or
    a Discard ("dan ben je ook van het effect verlost"); a wipe by Unlucky 7 (V-033) takes
    it too.  `flip7ref.core.work.Work.set_line` asks it whenever a barred line changes, so the
    flag, once cleared, stays cleared for the rest of the round (The Zero coming back does
    not bar again: Just One More did not stop her with it).

    Args:
        game: the compiled game.
        line: card codes of the barred player's new line.

    Returns:
        True while the bar holds.  Raises nothing for codes of the game.
    """
    return bool(game.no_stay) and any(c in game.no_stay for c in line)


def may_stay(game: GameTables, p: Player) -> bool:
    """Whether ``p`` may answer an offer with Stay: F7-033 and option ``stay_requires``;
    a ``no_stay`` trait card in the line forbids it (Just One More's The Zero, V-031)."""
    if game.no_stay and any(c in game.no_stay for c in p.line):
        return False
    need = game.stay_requires
    if need == "nothing":
        return True
    if need == "number-card":
        return any(game.category[c] == NUMBER for c in p.line)
    return bool(p.line or p.kept)


def stays(p: Player) -> Player:
    """``p`` after a Stay (F7-034): the same cards, status stayed.  The general path
    (`flip7ref.core.engine.answer_offer`) and the Stay lane both build the stayed player with it."""
    return make_player((p.line, p.kept, STAYED, p.flip7_barred))


def guard_of(game: GameTables, p: Player) -> int | None:
    """The first kept card of ``p`` whose effect guards against a bust (F7-080), or None."""
    for c in p.kept:
        eff = game.effect[c]
        if eff is not None and eff.guards_bust():
            return c
    return None


def line_grows(
    game: GameTables, p: Player, code: int, busts: bool, flip7: int | None, lifted: bool = False
) -> tuple[Player, bool]:
    """The outcome of card ``code`` joining ``p``'s line, no bust guard or wipe involved:
    ``(the player after, whether it makes the Flip 7 that ends the round)``.  ``busts``
    is `is_duplicate`'s verdict for a number (F7-040: the player busts, keeping the
    duplicate in the line, F7-041); a card that does not bust may make a Flip 7 (F7-050,
    `makes_flip7`; a modifier never does).  The general path and the fast lanes both
    build a grown line with this function.  ``lifted``: the player's bar is lifted for
    this card (`own_draw_lifts_bar`, V-086)."""
    line = p.line + (code,)  # noqa: RUF005  # one concatenation: compiled, the starred form builds a list first
    if busts:
        return make_player((line, p.kept, BUSTED, p.flip7_barred)), False
    after = make_player((line, p.kept, p.status, p.flip7_barred))
    return after, game.category[code] == NUMBER and makes_flip7(game, p.flip7_barred and not lifted, line, flip7)


def entry_place(game: GameTables, line: Sequence[int], place: int) -> int:
    """The one decider of V-087 (D-V-36): where in the receiver's line a card moved by a
    Swap or a Steal lies, once it has joined ``line`` at its end (`enter`).

    Under reading ``end`` of option ``moved_card_place`` at the end, as a drawn card; under
    ``in-place`` at index ``place`` (for a Swap, the place of the card it was exchanged
    for; for a Steal, the place it had in the line it left), at most the end.  No rule
    reads the order of a line; it shows in the state and in the card indices of Swap,
    Steal and Discard decisions (V-045..V-047).

    Args:
        game: the compiled game.
        line: the receiver's line, the moved card last.
        place: the index the moved card had.

    Returns:
        The moved card's index in the line.  Raises nothing.
    """
    last = len(line) - 1
    return min(place, last) if game.moved_card_place == "in-place" else last
