"""Round scoring: the edition's scoring pipeline applied to one line of cards.

The steps and their order come from the table's ``scoring`` list; each step is
implemented once here.  Rules: F7-100 (order of the steps), F7-090 (+N cards),
F7-091 (x2 doubles the number sum only), F7-092 (modifiers without numbers),
F7-050 (+15 for a Flip 7), F7-101 (a busted player scores 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
from mypy_extensions import mypyc_attr  # native_class=False: stays a plain Python class when compiled (docs/build.md)

from flip7ref.core.errors import CardError, OptionError
from flip7ref.core.game_tables import GameTables
from flip7ref.core.lines import distinct_numbers as distinct_numbers  # re-exported: their home was this module
from flip7ref.core.lines import flip7_count as flip7_count
from flip7ref.core.lines import flip7_line, holds_seven, is_duplicate, past_flip7
from flip7ref.core.model import BUSTED, MODIFIER, NUMBER, Player


@mypyc_attr(native_class=False)
@attrs.frozen
class ScoreBreakdown:
    """How a round score was reached (all values in points).

    Attributes:
        numbers: the sum of the number cards.
        multiplied: the number sum after multiplying/dividing modifiers (x2, ÷2).
        modifiers: the sum of the adding modifiers (+N, or −N in Vengeance).
        bonus: the Flip 7 bonus added (0 without a Flip 7).
        flip7: whether the line is a Flip 7.
        busted: whether the player busted (then ``score`` is 0, or the negatives given
            to them under ``busted_score: modifiers``, V-081).
        score: the round score (with ``penalty`` taken off).
        steps: ``(step name, running value)`` after each pipeline step.
        penalty: points taken off by Brutal Mode's Flip 7 choice (V-082), else 0.
    """

    numbers: int
    multiplied: int
    modifiers: int
    bonus: int
    flip7: bool
    busted: bool
    score: int
    steps: tuple[tuple[str, int], ...]
    penalty: int = 0


def score_line(
    game: GameTables, line: Sequence[int], *, flip7: bool | None = None, busted: bool = False, bonus: bool | None = None
) -> ScoreBreakdown:
    """Score one line (number and modifier card codes) with the edition's pipeline.

    Args:
        game: the compiled game (edition and options).
        line: card-kind codes in front of the player (numbers and modifiers; other
            cards are ignored).
        flip7: whether the line made a Flip 7 (for a seat: `flip7_terms`' answer); None
            asks the line's decider, `flip7ref.core.lines.flip7_line` (never counted here).
        busted: a busted player scores 0 (F7-101).
        bonus: whether the Flip 7 bonus is added; None means "when ``flip7``".

    Returns:
        A `ScoreBreakdown`.
    """
    made = flip7_line(game, line) if flip7 is None else flip7
    give_bonus = made if bonus is None else bonus
    numbers = sum(game.rank[c] for c in line if game.category[c] == NUMBER)
    mods = [game.modifier[c] for c in line if game.category[c] == MODIFIER]
    adds = _adding_modifiers(game, line)
    value = 0
    multiplied = numbers
    steps: list[tuple[str, int]] = []
    for step in game.scoring:
        if step == "sum_numbers":
            value = numbers
        elif step == "multiply":
            for m in mods:
                if m is None:
                    continue
                if m[0] == "multiply":
                    value *= m[1]
                elif m[0] == "divide":
                    value //= m[1]
            multiplied = value
        elif step == "add_modifiers":
            value += adds
        elif step == "floor_zero":
            value = max(0, value)
        elif step == "zero_unless_flip7":  # V-030
            if not made and any("zero" in game.traits[c] for c in line):
                # D-V-29: in Brutal Mode (no floor at zero) the negatives may still count
                keep_negatives = game.zero_with_negatives == "negatives" and not game.floors_at_zero
                value = min(0, adds) if keep_negatives else 0
        elif step == "flip7_bonus" and give_bonus:
            value += game.flip7_bonus
        steps.append((step, value))
    if busted:
        value = 0
    return ScoreBreakdown(
        numbers=numbers,
        multiplied=multiplied,
        modifiers=adds,
        bonus=game.flip7_bonus if give_bonus else 0,
        flip7=made,
        busted=busted,
        score=value,
        steps=tuple(steps),
    )


def score_points(game: GameTables, line: Sequence[int], *, flip7: bool | None = None, bonus: bool | None = None) -> int:
    """The round score of a line in points: ``score_line(game, line, flip7=flip7,
    bonus=bonus).score``, without building a breakdown: the fast path for
    strategies, round ends and the solver.

    Args:
        game: the compiled game (its scoring pipeline and card tables).
        line: card-kind codes in front of the player (numbers and modifiers).
        flip7: whether the line made a Flip 7 (for a seat: `flip7_terms`' answer); None
            asks the line's decider, `flip7ref.core.lines.flip7_line` (never counted here).
        bonus: whether the Flip 7 bonus is added; None means "when ``flip7``".

    Returns:
        The score in points (may be negative in Brutal Mode, V-081).  No error
        is raised for codes of the game's tables.

    A line of plain numbers (no trait) scores its sum, and the bonus when given,
    under every pipeline (each sums the numbers: a table without that step is refused
    when it is read) (F7-090, F7-050); with
    modifiers without a trait, under the sum / multiply / add pipeline of both
    editions (F7-091, F7-092, V-051, V-052).  Other lines take the full pipeline.
    """
    plain, rank = game.plain_number, game.rank
    total = 0
    mods: list[tuple[str, int]] | None = None
    for c in line:
        if plain[c]:
            total += rank[c]
        elif game.plain_modifier[c] and game.modifier_pipeline:
            if mods is None:
                mods = []
            mods.append(game.modifier[c])  # type: ignore[arg-type]
        else:
            return score_line(game, line, flip7=flip7, bonus=bonus).score
    if flip7 is None:
        flip7 = flip7_line(game, line)  # F7-050: its decider, with no quick answer of our own
    if mods is not None:
        adds = 0
        for op, value in mods:  # multiplying in line order, as the pipeline does
            if op == "multiply":
                total *= value
            elif op == "divide":
                total //= value
            else:
                adds += value
        total += adds
        if game.floors_at_zero:
            total = max(0, total)
    if (flip7 if bonus is None else bonus) and game.adds_flip7_bonus:
        total += game.flip7_bonus
    return total


def score_cards(game: Any, cards: Any) -> ScoreBreakdown:
    """Score a line given by card names, checking it could exist.

    Args:
        game (Game): the game (edition and options) to score under.
        cards (list[str] | tuple[str, ...]): card names (ids, aliases, or names in any
            language), e.g. ``["3", "11", "x2", "+10"]``.

    Returns:
        The `ScoreBreakdown` of that line (Flip 7 decided from the line).

    Raises:
        CardError: an unknown card, an action card (it never lies in a line), a
            duplicate number (the player would have busted), more numbers than a
            Flip 7 needs (the round would have ended), or more copies of a card
            than the decks hold.
        OptionError: ``game`` is not a `Game`.
    """
    if not isinstance(game, GameTables):
        raise OptionError(f"game: expected a flip7ref.Game, got {type(game).__name__}")
    if isinstance(cards, str) or not isinstance(cards, (list, tuple)):
        raise CardError(f"expected a list of card names, got {cards!r}")
    codes = [game.code(c) for c in cards]
    for name, c in zip(cards, codes, strict=True):
        if game.category[c] not in (NUMBER, MODIFIER):
            raise CardError(f"{name!r} is an action card; a scored line holds only number and modifier cards")
    seen: dict[int, str] = {}
    for i, (name, c) in enumerate(zip(cards, codes, strict=True)):
        if game.category[c] == NUMBER:
            r = game.rank[c]
            if is_duplicate(game, codes[:i], c):  # F7-040, V-036: the decider play asks
                raise CardError(f"line holds number {r} twice ({seen[r]!r} and {name!r}): that player would have busted")
            seen.setdefault(r, name)
    if past_flip7(game, codes):
        raise CardError(f"line holds more than {game.flip7_distinct} numbers: the round ends at a Flip 7")
    for c in set(codes):
        have = codes.count(c)
        limit = game.kinds[c].count * game.decks
        if have > limit:
            raise CardError(f"line holds {have} copies of {game.card_ids[c]!r} but the deck has only {limit}")
    return score_line(game, codes)


def round_scores(game: GameTables, players: Sequence[Player], flip7: int | None, bonus_to: int | None) -> tuple[int, ...]:
    """Each seat's round score in points: `seat_score` for every seat.

    Args:
        game: the game.
        players: every seat's cards and status at the round's end.
        flip7: the seat that made the Flip 7 this round, or None.
        bonus_to: Brutal Mode (V-082): the seat the Flip 7 maker gave the bonus to
            (itself: +15; another seat: -15 for that seat), or None.

    Returns:
        One score per seat, in seat order.
    """
    return tuple([seat_score(game, seat, p.line, p.status is BUSTED, flip7, bonus_to) for seat, p in enumerate(players)])


def seat_score(game: GameTables, seat: int, line: Sequence[int], busted: bool, flip7: int | None, bonus_to: int | None) -> int:
    """The one decider of a seat's round score (F7-100..F7-102, F7-050; V-030, V-081, V-082).

    The round end, `State.line_value`, the table's score pad, the RL observation and the
    strategies all score a seat with this function.

    Args:
        game: the game.
        seat: the seat scored.
        line: its card codes (numbers and modifiers).
        busted: whether it busted this round.
        flip7: the seat that made the Flip 7 this round, or None.  A line is a Flip 7 only
            when its seat made one: the line's cards never decide it again here (a barred
            line of seven numbers, D-V-26, scores as no Flip 7).
        bonus_to: Brutal Mode's Flip 7 choice (V-082), or None.

    Returns:
        Points: `busted_points` for a busted seat (0, F7-101; in Brutal Mode its negative
        modifiers, V-081, V-084), else the line's pipeline score with the Flip 7
        bonus when `flip7_terms` gives it; less Brutal Mode's penalty.  May be negative in
        Brutal Mode.  Raises nothing for codes of the game.
    """
    made, bonus, penalty = flip7_terms(game, seat, busted, flip7, bonus_to)
    if not busted:
        return score_points(game, line, flip7=made, bonus=bonus) - penalty
    return busted_points(game, line) - penalty  # F7-101; V-081, V-084


def seat_breakdown(
    game: GameTables, seat: int, line: Sequence[int], busted: bool, flip7: int | None, bonus_to: int | None
) -> ScoreBreakdown:
    """How `seat_score` reached a seat's round score: the line's `score_line` breakdown
    with ``score`` set to `seat_score`'s value and Brutal Mode's ``penalty`` (points
    taken off, V-082).  Arguments as `seat_score`."""
    made, bonus, penalty = flip7_terms(game, seat, busted, flip7, bonus_to)
    b = score_line(game, line, flip7=made, busted=busted, bonus=bonus)
    return attrs.evolve(b, score=seat_score(game, seat, line, busted, flip7, bonus_to), penalty=penalty)


def _adding_modifiers(game: GameTables, line: Sequence[int]) -> int:
    """The sum of the adding modifiers (+N, −N) in ``line``, in points."""
    return sum(m[1] for c in line if (m := game.modifier[c]) is not None and m[0] == "add")


def busted_points(game: GameTables, line: Sequence[int]) -> int:
    """What a busted line scores in points: 0 (F7-101), or in Brutal Mode (option
    ``busted_score: modifiers``, V-081) its negative modifiers: those given after the
    bust, i.e. after the line's last number, the card that busted it (V-084, D-V-33
    reading ``given-after-bust``), or all of them (``all-negatives``).  ``line``: card
    codes in the order they arrived.  Raises nothing."""
    if game.busted_score != "modifiers":
        return 0
    cards = line
    if game.busted_modifiers == "given-after-bust":  # V-084: the cards held at the bust stay void
        last = -1
        for i, c in enumerate(line):
            if game.category[c] == NUMBER:
                last = i
        cards = line[last + 1 :]
    return _adding_modifiers(game, cards)


def flip7_terms(game: GameTables, seat: int, busted: bool, flip7: int | None, bonus_to: int | None) -> tuple[bool, bool, int]:
    """What a round's Flip 7 means for ``seat``'s score: ``(made, bonus, penalty)``.

    ``made``: the seat made the Flip 7 (F7-050); ``bonus``: the Flip 7 bonus is added
    to its line (the maker, unless Brutal Mode's choice gave it away, V-082; every
    non-busted seat under option ``flip7_bonus_to: all-non-busted``); ``penalty``:
    points taken off (the bonus, for the seat the maker gave -15 to, V-082), else 0.
    ``flip7`` is the maker's seat or None, ``bonus_to`` the Brutal Mode choice or None.
    """
    penalised = bonus_to if bonus_to is not None and bonus_to != flip7 else None
    made = flip7 == seat
    bonus = (made and penalised is None) or (game.flip7_bonus_to == "all-non-busted" and flip7 is not None and not busted)
    return made, bonus, game.flip7_bonus if seat == penalised else 0


def flip7_choice_seats(game: GameTables, players: Sequence[Player], maker: int) -> tuple[int, ...]:
    """The one decider of V-085 (D-V-34, with V-082): the seats Brutal Mode's Flip 7 maker
    may pick, the maker for +15 or another player to lose 15.

    Under reading ``any-player`` of option ``brutal_penalty`` (the text names no limit)
    every seat, a busted one included; under ``not-busted`` the maker and the players who
    have not busted.

    Args:
        game: the compiled game.
        players: the seats at the table.
        maker: the seat that made the Flip 7.

    Returns:
        The seats, in seat order.  Raises nothing.
    """
    if game.penalty_targets == "not-busted":
        return tuple([s for s, p in enumerate(players) if s == maker or p.status is not BUSTED])
    return tuple(range(len(players)))


def best_line(game: GameTables) -> tuple[list[int], bool]:
    """``(line, flip7)``: the line of card codes (a list of ints) that scores the most in
    one round of ``game`` (see `round_bounds`), and whether it is a Flip 7 (F7-050, V-022,
    V-036). Raises nothing."""
    counts: dict[int, int] = {}
    for code in game.deck:
        counts[code] = counts.get(code, 0) + 1
    by_rank: dict[int, list[int]] = {}
    for code in sorted(counts, key=lambda c: "wipe_on_enter" in game.traits[c]):  # an Unlucky 7 last
        if game.category[code] == NUMBER:
            by_rank.setdefault(game.rank[code], []).append(code)
    line: list[int] = []
    for rank in sorted(by_rank, reverse=True):
        codes = by_rank[rank]
        pair = next((c for c in codes if "pair_allowed" in game.traits[c]), None)
        other = next((c for c in codes if c != pair or counts[c] > 1), None) if pair is not None else None
        for card in [codes[0]] if pair is None or other is None else [pair, other]:
            trial = [*line, card]
            if past_flip7(game, trial):
                break
            line = trial
    made = holds_seven(game, line)
    for op in ("multiply", "add"):  # ×2 first, as a player reads a line
        for code, n in counts.items():
            mod = game.modifier[code]
            if game.category[code] == MODIFIER and mod is not None and mod[0] == op and mod[1] > (1 if op == "multiply" else 0):
                line.extend([code] * n)
    return line, made


def round_bounds(game: GameTables) -> tuple[int, int]:
    """``(low, high)``: the fewest and the most points one seat can score in one round of
    ``game``, worked out from its edition table and options (not a fixed number).

    ``high`` is the score (`flip7ref.core.scoring.score_line`, the edition's own pipeline) of
    the best line the deck allows: the highest number ranks a line can hold (one card a
    rank, two where a ``pair_allowed`` card lets a pair lie together, V-036) up to the
    seven counted numbers of a Flip 7 (F7-050, V-022, D-V-03), with every copy of each
    raising modifier (+N, ×N) in the deck and the Flip 7 bonus: 171 in Flip 7 (6 to 12
    doubled, +2 to +10, +15), 91 in Vengeance (98 where the two 13s count once).  ``low`` is 0, or, where a score can be
    negative (Brutal Mode's choice, V-082, or negative modifiers without the floor at
    zero), every negative modifier of the deck less the Flip 7 bonus given away."""
    line, made = best_line(game)
    negatives = sum(m[1] for code in game.deck if (m := game.modifier[code]) is not None and m[0] == "add" and m[1] < 0)
    high = score_line(game, line, flip7=made, bonus=made).score
    can_go_below = game.flip7_choice or (not game.floors_at_zero and negatives < 0)
    low = negatives - (game.flip7_bonus if game.flip7_choice else 0) if can_go_below else 0
    return low, high
