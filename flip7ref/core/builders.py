"""Building states: a new game (`Game.new_initial_state`) and a position from explicit zones
(`Game.new_position`).

Both run the general path from an empty pending-work stack (`flip7ref.core.engine`);
a position's cards are checked by `flip7ref.core.position` (the same checks as
`State.from_dict`).  `flip7ref.core.game.Game`, above this module, calls the two builders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flip7ref.core.engine import first_seat, settle, start_round
from flip7ref.core.errors import CardError, OptionError
from flip7ref.core.game_tables import GameTables
from flip7ref.core.model import Player, Status
from flip7ref.core.pile import shuffled
from flip7ref.core.position import MAX_POINTS, MAX_ROUND, CardPool, check_can_end, check_seat
from flip7ref.core.state import State


def initial_state(
    game: GameTables,
    *,
    seed: Any,
    dealer: Any,
    stack: Any,
    totals: Any,
) -> State:
    """Build round 1 of ``game`` (see `flip7ref.core.game.Game.new_initial_state`)."""
    n = game.players
    _check_seat("dealer", dealer, n)
    _check_totals(totals, n)
    _check_seed(seed)
    stack = _check_cards("stack", stack, game.card_ids)
    cards = sorted(game.deck)
    shuffle_seed: str | None = None
    if seed is not None or stack:
        shuffle_seed = str(seed if seed is not None else 0)
        shuffled(cards, shuffle_seed, 0)
    top: list[int] = []
    for name in stack or ():
        code = game.code(name)
        try:
            cards.remove(code)
        except ValueError:
            raise CardError(f"stack: more copies of {game.card_ids[code]!r} than the deck holds") from None
        top.append(code)
    state = _fresh(game, tuple(Player() for _ in range(n)), tuple(top + cards), (), dealer, dealer, 0, totals, shuffle_seed)
    _check_deck_can_end(state)  # e.g. a table whose deck is empty (docs/termination.md)
    work = state._work()
    start_round(work, dealer, 1, first=True)
    settle(work)
    return state._freeze(work, "", True)


_DECKS_CAN_END: dict[tuple[GameTables, tuple[int, ...]], None] = {}
"""The games and round-1 totals whose first state `check_can_end` accepted."""


def _check_deck_can_end(state: State) -> None:
    """`check_can_end` of a new game's first state, decided once per game and totals: such a
    state holds the whole deck (a stack only reorders it), so the cards it holds, and with
    them the verdict, depend on the game and the totals alone.  A refusal is not kept (it
    raises again every time)."""
    key = (state.game, state.totals)
    if key in _DECKS_CAN_END:
        return
    check_can_end(state)
    if len(_DECKS_CAN_END) < 256:  # games are few in a process; a bound all the same
        _DECKS_CAN_END[key] = None


def _fresh(
    game: GameTables,
    players: tuple[Player, ...],
    draw: tuple[int, ...],
    discard: tuple[int, ...],
    dealer: int,
    turn: int,
    round_number: int,
    totals: Sequence[int] | None,
    shuffle_seed: str | None,
) -> State:
    """A state with nothing pending yet: no frames, no scores, no reshuffles."""
    n = len(players)
    return State(
        game=game, players=players, draw=draw, discard=discard, frames=(), dealer=dealer, turn=turn,
        round=round_number, totals=tuple(totals) if totals is not None else (0,) * n, last_scores=(), flip7=None,
        round_over=False, winners=(), shuffle_seed=shuffle_seed, shuffles=0,
    )  # fmt: skip


def _check_seat(name: str, value: object, players: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < players:
        raise OptionError(f"{name}: expected a seat 0..{players - 1}, got {value!r}")


def _check_totals(totals: object, players: int) -> None:
    if totals is None:
        return
    if not isinstance(totals, (list, tuple)) or not all(isinstance(t, int) and not isinstance(t, bool) for t in totals):
        raise OptionError(f"totals: expected a list of {players} whole numbers (points), got {_short(totals)}")
    for seat, t in enumerate(totals):
        if not -MAX_POINTS <= t <= MAX_POINTS:
            raise OptionError(f"totals: expected points from -{MAX_POINTS:,} to {MAX_POINTS:,}, got {_short(t)} for seat {seat}")
    if len(totals) != players:
        raise OptionError(f"totals: expected {players} values (one per seat), got {len(totals)}")


def _short(value: object, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters (a 500-digit number stays one short line)."""
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**50 else f"a {len(str(abs(value)))}-digit number"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_seed(seed: object) -> None:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, str))):
        raise OptionError(f"seed: expected a whole number or a string, got {type(seed).__name__}")


def _check_cards(name: str, cards: object, ids: Sequence[str]) -> tuple[str, ...]:
    """A card list as names: each card a name (``"7"``, ``"x2"``) or a card code, an int
    (its position in ``Game.card_ids``, what `State` holds: ``state.draw``)."""
    if cards is None:
        return ()
    if isinstance(cards, str) or not isinstance(cards, (list, tuple)):
        raise CardError(f"{name}: expected a list of card names, got {cards!r}")
    out = []
    for card in cards:
        if isinstance(card, int) and not isinstance(card, bool) and 0 <= card < len(ids):
            out.append(ids[card])
        elif isinstance(card, str):
            out.append(card)
        else:
            raise CardError(
                f"{name}: expected card names (strings such as '7' or 'x2') or card codes 0..{len(ids) - 1}, got {card!r}"
            )
    return tuple(out)


def position_state(
    game: GameTables,
    *,
    dealer: Any = 0,
    turn: Any = None,
    lines: Any = None,
    kept: Any = None,
    statuses: Any = None,
    draw: Any = (),
    discard: Any = (),
    totals: Any = None,
    round_number: Any = 1,
    seed: Any = 0,
    rest: Any = "below",
    deal: Any = False,
) -> State:
    """Build a mid-round position (after the deal) from explicit zones.

    See `flip7ref.core.game.Game.new_position` for the arguments.
    """
    n = game.players
    _check_seat("dealer", dealer, n)
    if turn is not None:
        _check_seat("turn", turn, n)
    _check_totals(totals, n)
    _check_seed(seed)
    if isinstance(round_number, bool) or not isinstance(round_number, int) or round_number < 1:
        raise OptionError(f"round_number: expected a whole number from 1, got {round_number!r}")
    if round_number > MAX_ROUND:
        raise OptionError(f"round_number: expected a whole number 1..{MAX_ROUND:,}, got {_short(round_number)}")
    per_seat: dict[str, Mapping[int, Any]] = {}
    for name, mapping in (("lines", lines), ("kept", kept), ("statuses", statuses)):
        if mapping is None:
            mapping = {}
        if isinstance(mapping, (list, tuple)):  # one entry per seat, from seat 0
            mapping = dict(enumerate(mapping))
        if not isinstance(mapping, Mapping):
            raise OptionError(
                f"{name}: expected a mapping from seat numbers to {'statuses' if name == 'statuses' else 'card lists'}, "
                "or a list with one per seat"
            )
        for seat in mapping:
            _check_seat(f"{name} seat", seat, n)
        per_seat[name] = mapping
    ids = game.card_ids
    lines = {s: _check_cards(f"lines[{s}]", v, ids) for s, v in per_seat["lines"].items()}
    kept = {s: _check_cards(f"kept[{s}]", v, ids) for s, v in per_seat["kept"].items()}
    statuses = per_seat["statuses"]
    draw = _check_cards("draw", draw, ids)
    discard = _check_cards("discard", discard, ids)
    pool = CardPool(game)  # the checks of flip7ref.core.position, shared with State.from_dict

    def take(names: Sequence[str], where: str) -> tuple[int, ...]:
        return pool.take([game.code(name) for name in names], where)

    players = []
    for seat in range(n):
        line = take((lines or {}).get(seat, ()), f"lines[{seat}]")
        held = take((kept or {}).get(seat, ()), f"kept[{seat}]")
        try:
            status = Status((statuses or {}).get(seat, "active"))
        except ValueError:
            raise OptionError(f"statuses[{seat}]: expected one of active, stayed, frozen, busted") from None
        check_seat(game, seat, line, held, status, None)
        players.append(Player(line, held, status))
    top = take(draw, "draw")
    dis = take(discard, "discard")
    remaining = sorted(pool.left.elements())
    shuffle_seed = str(seed) if seed is not None else None
    if shuffle_seed is not None:
        shuffled(remaining, shuffle_seed, 0)
    if rest == "below":
        pile, dis = top + tuple(remaining), dis
    elif rest == "discard":
        pile, dis = top, dis + tuple(remaining)
    elif rest == "out":
        pile = top
    else:
        raise OptionError(f"rest: expected 'below', 'discard' or 'out', got {rest!r}")
    if shuffle_seed is None:  # an open pile has no order: kept sorted, only the counts matter
        pile = tuple(sorted(pile))
    turn = first_seat(game, dealer, n) if turn is None else turn
    state = _fresh(game, tuple(players), pile, dis, dealer, turn, round_number, totals, shuffle_seed)
    check_can_end(state)  # a game must be able to end (docs/termination.md)
    work = state._work()
    if deal:
        if any(p.line or p.kept or p.status is not Status.ACTIVE for p in players):
            raise OptionError("deal: a round that starts with its deal has no cards on the table and no stayed players")
        start_round(work, dealer, round_number, first=True)
    settle(work)
    return state._freeze(work, "", True)
