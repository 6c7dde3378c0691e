"""One definition of a reachable position.

`flip7ref.Game.new_position` (a position built from explicit zones) and
`flip7ref.State.from_dict` (a serialized state) refuse the same positions
with the same messages, through the checks of this module:

- a line holds only number and modifier cards (F7-010, F7-035); an action card
  lies in front of a player only if it stays there (a held Second Chance,
  F7-080; the Freeze that froze them, F7-062);
- a live line holds no number twice (F7-040), except the Lucky 13 pair (V-036:
  two 13s, one of them Lucky 13; a third busts); Unlucky 7 is an ordinary 7 once
  in the line (V-034), so a live line never holds it beside another 7; a busted
  line holds the duplicate that busted it (F7-040);
- a line that is a Flip 7 (`flip7ref.core.lines.flip7_line`, the decider play uses: F7-050;
  seven distinct numbers, or seven number cards where the Lucky 13 pair counts twice,
  ``lucky13_flip7``; not for a player whose Flip 7 is barred, D-V-26) exists only while
  that Flip 7 ends the round: its maker is the state's ``flip7``; a barred player
  (``flip7_barred``) has stayed or busted, under reading ``no-flip7`` of an edition with
  The Zero;
- no player holds more Second Chances than the hold limit (F7-082);
- no zone holds more copies of a card than the deck(s) hold (F7-002, F7-123);
- the game can still end (`check_can_end`): some card is in play, and one of them scores
  a point (docs/termination.md);
- ``round_over`` is a boolean; ``flip7``, ``bonus_to``, ``dealer``, ``turn``,
  ``winners`` and the seats named by pending frames are seats; ``bonus_to``
  (Brutal Mode's Flip 7 choice, V-082) is set only after a Flip 7 of a game
  with that choice; ``flip7`` (the seat whose Flip 7 is ending the round) is set only
  while that player's Brutal Mode choice is pending (a Flip 7 ends the round in the move
  that makes it, F7-050).

Every check raises `PositionError`, which is both a
`CardError` (what ``new_position`` raised before) and a
`SerializationError` (what ``from_dict`` raises), with
a message that names the field (``lines[2]``, ``kept[0]``, ``draw``,
``bonus_to``...).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from flip7ref.core.engine import game_end, offered_next
from flip7ref.core.errors import CardError, SerializationError
from flip7ref.core.game_tables import GameTables
from flip7ref.core.lines import bar_lasts, bars_flip7, flip7_line, is_duplicate
from flip7ref.core.model import ACTION, CHANCE, NUMBER, STAYED, make_player
from flip7ref.core.scoring import seat_score
from flip7ref.core.spec import edition_ids
from flip7ref.core.state_fields import PLAIN_FIELDS

if TYPE_CHECKING:
    from flip7ref.core.state import State, Status

_SEAT_FIELDS = ("seat", "target", "giver", "chooser", "owner", "resolver")
"""The frame fields that name a seat (checked for every frame, whatever its kind)."""


class PositionError(CardError, SerializationError):
    """A position no game can reach (see `flip7ref.core.position`).

    Attributes:
        field: the field at fault (``lines[2]``, ``kept[0]``, ``draw``, ``bonus_to``...).
        expected: what was expected there, in words.
    """

    def __init__(self, field: str, expected: str) -> None:
        self.field = field
        self.expected = expected
        super().__init__(f"{field}: {expected}")


class CardPool:
    """The cards of a game's deck(s), taken zone by zone: more copies of a card
    than the deck holds is a `PositionError` naming the zone (F7-002, F7-123)."""

    def __init__(self, game: GameTables) -> None:
        self.game = game
        self.left: Counter[int] = Counter(game.deck)

    def take(self, codes: Iterable[int], where: str) -> tuple[int, ...]:
        """Take ``codes`` out of the pool for zone ``where``; returns them as a tuple.

        Raises:
            PositionError: a card has no copy left.
        """
        taken = tuple(codes)
        for code in taken:
            if self.left[code] <= 0:
                raise PositionError(where, f"more copies of {self.game.card_ids[code]!r} than the deck holds")
            self.left[code] -= 1
        return taken


def _bar_possible(game: GameTables) -> bool:
    """Whether Just One More, stopping a holder of The Zero (a ``no_stay`` card), bars their
    Flip 7 in ``game``: `flip7ref.core.lines.bars_flip7` asked of such a player (D-V-26)."""
    return any(bars_flip7(game, make_player(((c,), (), STAYED, False))) for c in game.no_stay)


def check_seat(
    game: GameTables, seat: int, line: tuple[int, ...], kept: tuple[int, ...], status: Status, flip7: int | None,
    barred: bool = False,
) -> None:
    """Refuse cards in front of ``seat`` that no game can reach (see the module).

    Args:
        game: the game.
        seat: the seat (for the message).
        line: card codes of the line.
        kept: card codes lying in front of the player.
        status: the player's status.
        flip7: the seat whose Flip 7 is ending the round, or None.
        barred: the player's ``flip7_barred`` flag (D-V-26).

    Raises:
        PositionError: naming ``lines[seat]`` or ``kept[seat]``.
    """
    for c in line:
        if game.category[c] == ACTION:
            raise PositionError(f"lines[{seat}]", f"{game.card_ids[c]!r} is an action card; put it in kept")
    for c in kept:
        eff = game.effect[c]
        if eff is None or not eff.stays_in_front():
            raise PositionError(f"kept[{seat}]", f"{game.card_ids[c]!r} never stays in front of a player")
    # F7-040, V-036: the decider of play itself, asked of each number as it joined the line
    repeated = [game.rank[c] for i, c in enumerate(line) if game.category[c] == NUMBER and is_duplicate(game, line[:i], c)]
    if status.value == "busted":
        if not repeated and game.busted_cards == "keep":  # D-V-27: under "discard" the busted line was discarded
            raise PositionError(f"lines[{seat}]", "a busted line holds the duplicate that busted it")
    elif repeated:
        raise PositionError(f"lines[{seat}]", f"number {repeated[0]} twice in a line that has not busted")
    elif flip7_line(game, line, barred) and flip7 != seat:  # F7-050: the decider of play itself
        raise PositionError(f"lines[{seat}]", "a Flip 7 ends the round at once; a position mid-round holds fewer numbers")
    if barred and not (status.value in ("stayed", "busted") and _bar_possible(game)):
        raise PositionError(
            f"seats[{seat}].flip7_barred",
            "false: only Just One More stopping a holder of The Zero bars a Flip 7 (D-V-26, reading no-flip7); "
            "the player has then stayed",
        )
    if barred and not bar_lasts(game, line):  # V-037: losing The Zero frees its holder of the bar
        raise PositionError(
            f"seats[{seat}].flip7_barred", "false: a player whose line no longer holds The Zero is freed of the bar (V-037)"
        )
    for c in sorted(set(kept)):
        eff = game.effect[c]
        most = eff.most_held() if eff is not None else None
        if most is not None and kept.count(c) > most:
            raise PositionError(f"kept[{seat}]", f"at most {most} {game.card_ids[c]!r} per player")


def check_state(state: State) -> None:
    """Refuse a state no game can reach: every check of the module, in the order
    `new_position` makes them (seat by seat the line and the
    kept cards, then the draw pile, the discard pile and the pending frames).

    Raises:
        PositionError: naming the field at fault.
    """
    game = state.game
    n = state.num_players
    seats = range(n)

    def bad(field: str, expected: str) -> PositionError:  # a field only serialized data can get wrong
        return PositionError(f"state data: {field}", f"expected {expected}")

    for name in ("dealer", "turn"):
        if getattr(state, name) not in seats:
            raise bad(name, f"a seat 0..{n - 1}")
    for name in ("totals", "last_scores"):
        values = getattr(state, name)
        if not all(type(v) is int for v in values) or (len(values) != n and (name == "totals" or values)):
            raise bad(name, f"{n} whole numbers" if name == "totals" else f"{n} whole numbers, or none before a round has ended")
        if not all(-MAX_POINTS <= v <= MAX_POINTS for v in values):
            raise bad(name, f"points from -{MAX_POINTS:,} to {MAX_POINTS:,}")
    if not all(w in seats for w in state.winners) or (state.flip7 is not None and state.flip7 not in seats):
        raise bad("winners/flip7", f"seats 0..{n - 1}")
    if state.winners:
        check_game_over(state)
    if state.round < 1 or state.shuffles < 0:
        raise bad("round/shuffles", "a round from 1 and a non-negative shuffle count")
    if state.round > MAX_ROUND:
        raise bad("round", f"a round number 1..{MAX_ROUND:,}")
    if state.shuffles > MAX_SHUFFLES:
        raise bad("shuffles", f"a shuffle count 0..{MAX_SHUFFLES:,}")
    if len(state.frames) > game.max_pending():
        raise bad("frames", f"at most {game.max_pending()} pending frames (Game.max_pending), got {len(state.frames)}")
    rs = state.round_shuffles
    if type(rs) is not int or not 0 <= rs <= min(state.shuffles, game.reshuffles):
        raise bad("round_shuffles", f"a whole number 0..{game.reshuffles}, at most 'shuffles' (F7-116, V-075)")
    mark, most = state.shuffle_mark, len(game.deck) + n
    marked = (mark >= 0) == (rs > 0) if game.reshuffles_unlimited else mark == -1
    if not marked or not -1 <= mark <= most:
        what = f"-1 before the round's first reshuffle, then 0..{most}" if game.reshuffles_unlimited else "-1 (absent)"
        raise bad("shuffle_mark", f"{what}: only reading unlimited of option reshuffles marks a reshuffle (F7-117, V-076)")
    if type(state.round_over) is not bool:
        raise bad("round_over", f"true or false, got {_short(state.round_over)}")
    if state.bonus_to is not None and (type(state.bonus_to) is not int or state.bonus_to not in seats):
        raise bad("bonus_to", f"a seat 0..{n - 1} or null, got {_short(state.bonus_to)}")
    if state.bonus_to is not None and (state.flip7 is None or not game.flip7_choice):
        raise bad("bonus_to", "null: only the Flip 7 maker's choice in Brutal Mode sets it (V-082)")
    if state.shuffle_seed is not None and not isinstance(state.shuffle_seed, str):
        raise bad("shuffle_seed", f"a string or null, got {_short(state.shuffle_seed)}")
    for i, frame in enumerate(state.frames):
        f: Any = frame  # the fields read below belong to the frame types named
        _check_frame_fields(f, i)
        for field in _SEAT_FIELDS:
            if field in f.FIELDS and getattr(f, field) not in seats:
                raise bad(f"frames/{i}/{field}", f"a seat 0..{n - 1}")
        problem = frame.check(game, n)  # the frame kind's own checks (flip7ref.core.frames.Frame.check)
        if problem is not None:
            raise bad(f"frames/{i}/{problem[0]}", problem[1])
    if state.frames and state.frames[-1].automatic and not state.winners:
        raise bad("frames", "a decision or a draw on top of the pending-work stack")
    top = state.frames[-1] if state.frames else None
    if state.flip7 is not None and not (top is not None and top.name == "flip7_choice" and top.decider() == state.flip7):
        raise bad("flip7", "null: a Flip 7 ends the round in the move that makes it (F7-050), unless its maker's "
                  "Brutal Mode choice is pending (V-082)")  # fmt: skip
    # the checks new_position makes, in its order and with its messages
    pool = CardPool(game)
    for seat, p in enumerate(state.players):
        pool.take(p.line, f"lines[{seat}]")
        pool.take(p.kept, f"kept[{seat}]")
        check_seat(game, seat, p.line, p.kept, p.status, state.flip7, p.flip7_barred)
    pool.take(state.draw, "draw")
    pool.take(state.discard, "discard")
    pending = state.cards_in_play()  # the frames' cards: every card of the state, less the zones
    pending.subtract(state.draw)
    pending.subtract(state.discard)
    for p in state.players:
        pending.subtract(p.line)
        pending.subtract(p.kept)
    pool.take(sorted(pending.elements()), "frames")
    # what comes next: a card to draw, an offer or a decision someone can take
    if top is not None and top.decider() == CHANCE and not state.draw:
        raise bad("draw", "a card: a draw with the draw pile empty is reshuffled first or ends (F7-113, F7-115)")
    offered = offered_next(state.players, state.turn, state.flip7, state.round_over)  # settle's decider of the seat offered
    if not state.frames and not state.winners and offered != state.turn:
        raise bad("turn", "an active seat: with no work pending the turn is an offer of Hit or Stay, which goes to "
                  "an active player (F7-030), and a round with none left has ended (F7-110)")  # fmt: skip
    if not state.winners and state.current_player >= 0 and not state.legal_actions():
        raise bad("frames", "a decision with at least one legal action")
    check_can_end(state)


def check_game_over(state: State) -> None:
    """Refuse a state whose ``winners`` a game over could not have: a game ends at a round
    end (F7-120), which leaves no card in front of anyone and no pending work (F7-111,
    F7-052), and its winners are the leaders `flip7ref.core.engine.game_end` gives for the
    totals, with the game over (F7-120, F7-121, option ``tie``).

    Raises:
        PositionError: naming ``state data: winners`` and what was expected.
    """
    field = "state data: winners"
    if state.frames or any(p.line or p.kept for p in state.players):
        raise PositionError(field, "expected empty (no winner yet) while cards are in front of players or work is pending: "
                            "a game ends at a round end, which clears the table (F7-120, F7-111)")  # fmt: skip
    leaders, over = game_end(state.game, state.totals)
    if not over or tuple(state.winners) != leaders:
        expected = f"{list(leaders)} for these totals" if over else "empty: these totals do not end the game"
        raise PositionError(field, f"expected {expected} (F7-120, F7-121)")


MAX_ROUND = 1_000_000
"""The highest round number a position may have: far beyond any game (flip7ref.play.games gives
up after 200,000 moves, and a round takes at least one), small enough for every build."""

MAX_POINTS = 10**9
"""The largest total or round score, in points, that a position may have (either sign)."""

MAX_SHUFFLES = 10**9
"""The most shuffles a position may count (``shuffles``): rounds times reshuffles a round."""


def check_can_end(state: State) -> None:
    """Refuse a position from which the game could never end (docs/termination.md, "Games").

    Cards never leave a game (F7-111, F7-113: a round's cards go to the discard pile and
    come back through a reshuffle), so the cards a state holds are the cards of every later
    round, unless option ``between_rounds`` is ``fresh-shuffle`` (D-F7-20: every round
    after this one has the whole deck), which is accepted as it is.  Refused, while the game
    is not over: a state with no card anywhere (draw pile, discard pile, lines, kept cards
    and pending frames all empty: no round could be played); and a state none of whose
    cards scores a point alone in a line (`flip7ref.core.scoring.seat_score`), where no total
    could ever grow, unless the totals already end the game at the next round end
    (F7-120, F7-121) and no card can lower a score.

    Raises:
        PositionError: naming ``cards`` and why.
    """
    game = state.game
    if state.winners or game.between_rounds == "fresh-shuffle":
        return
    cards = state.cards_in_play()  # every card kind the state holds, in every zone and frame
    if not cards:
        raise PositionError(
            "cards", "no card anywhere to play a round with (the draw pile, the discard pile, every line, kept "
            "card and pending frame are empty), so the game could never end"
        )  # fmt: skip
    lone = _lone_scores(game)
    if any(lone[c] > 0 for c in cards):
        return
    if game_end(game, state.totals)[1] and not any(lone[c] < 0 for c in cards):
        return  # the next round end ends the game
    raise PositionError(
        "cards", "no card in play scores a point (every number and modifier left scores 0 or less), so no total "
        "could ever reach the target score and the game could never end"
    )  # fmt: skip


_LONE_SCORES: dict[GameTables, tuple[int, ...]] = {}


def _lone_scores(game: GameTables) -> tuple[int, ...]:
    """What each card of ``game`` scores alone in a line (points; 0 for an action card),
    by card code, computed once per game (`flip7ref.core.scoring.seat_score`)."""
    scores = _LONE_SCORES.get(game)
    if scores is None:
        scores = tuple(
            0 if game.category[c] == ACTION else seat_score(game, 0, (c,), False, None, None) for c in range(len(game.card_ids))
        )
        if len(_LONE_SCORES) < 256:  # games are few in a process; a bound all the same
            _LONE_SCORES[game] = scores
    return scores


MAX_DEPTH = 32
"""The deepest nesting of lists and objects serialized state data may have (a state
written by `to_dict` nests about ten levels)."""


def too_deep(data: object, limit: int = MAX_DEPTH) -> str | None:
    """The path (``/a/0/b/...``, cut after six steps) of the first list or mapping of
    ``data`` nested ``limit`` levels deep, or None; found without recursion."""
    stack: list[tuple[object, int, tuple[object, ...]]] = [(data, 0, ())]
    while stack:
        value, depth, path = stack.pop()
        if isinstance(value, (list, tuple, dict)):
            if depth >= limit:
                return "/" + "/".join(str(p) for p in path[:6]) + ("/..." if len(path) > 6 else "")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            stack.extend((item, depth + 1, (*path, key)) for key, item in items)
    return None


def check_depth(data: object, what: str = "state data", limit: int = MAX_DEPTH) -> None:
    """Refuse data nested deeper than ``limit`` lists and mappings, without recursion
    (so a 5,000-deep value is a clear error, not a ``RecursionError``).

    Raises:
        SerializationError: naming the path of the first value too deep.
    """
    where = too_deep(data, limit)
    if where is not None:
        raise SerializationError(f"{what}: nested more than {limit} levels deep (at {where})")


def _short(value: object, limit: int = 40) -> str:
    try:
        text = repr(value)
    except RecursionError:
        text = f"a deeply nested {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


_FIELD_WORDS = {
    "int": "a whole number from 0",
    "str": "a string",
    "bool": "true or false",
    "tuple[int, ...]": "a list of whole numbers from 0",
    "tuple[target, ...]": "a list of seats, or -1 for a card no seat could take",
    "tuple[tuple[int, int, int], ...]": "a list of [card, seat, seat] entries",
}


_KIND_CHECKS: dict[str, tuple[Callable[[object], bool], str]] = {
    "int": (lambda v: type(v) is int, "a whole number"),
    "ints": (lambda v: isinstance(v, list) and all(type(x) is int for x in v), "a list of whole numbers"),
    "seat?": (lambda v: v is None or type(v) is int, "a seat number or null"),
    "bool": (lambda v: type(v) is bool, "true or false"),
    "str?": (lambda v: v is None or isinstance(v, str), "a string or null"),
}
"""How `check_data_fields` checks a field of each JSON kind (`flip7ref.core.state_fields.Field.json`)."""


def check_data_fields(data: Mapping[str, Any]) -> None:
    """Refuse serialized state data whose plain fields with a default (`flip7ref.core.state_fields`:
    ``flip7``, ``round_over``, ``shuffle_seed``...) have the wrong JSON type, before a state
    is built from it (the same messages as :func:`check_state`, in both builds).

    Raises:
        PositionError: naming the field.
    """
    for field in PLAIN_FIELDS:
        if field.default and field.name in data:
            ok, words = _KIND_CHECKS[field.json]
            if not ok(data[field.name]):
                raise PositionError(f"state data: {field.name}", f"expected {words}, got {_short(data[field.name])}")


def _check_frame_fields(frame: Any, index: int) -> None:
    """Refuse a frame field of the wrong type (see `check_frame_args`)."""
    check_frame_args(type(frame), list(frame.key()), index)


def check_frame_args(cls: Any, args: list[Any], index: int) -> None:
    """Refuse a field value of the wrong type for frame class ``cls`` (by its ``KINDS``),
    so that no deserialized frame fails later inside the interpreter.

    Raises:
        PositionError: naming ``frames/<index>/<field>`` and what was expected.
    """
    for name, kind, value in zip(cls.FIELDS, cls.KINDS, args, strict=True):
        if kind == "int":
            ok = type(value) is int and value >= 0
        elif kind == "str":
            ok = isinstance(value, str)
        elif kind == "bool":
            ok = type(value) is bool
        elif kind == "tuple[int, ...]":
            ok = isinstance(value, tuple) and all(type(v) is int and v >= 0 for v in value)
        elif kind == "tuple[target, ...]":  # seats chosen, -1 where none could be (the frame's check bounds them)
            ok = isinstance(value, tuple) and all(type(v) is int and v >= -1 for v in value)
        elif kind == "tuple[tuple[int, int, int], ...]":
            ok = isinstance(value, tuple) and all(
                isinstance(t, tuple) and len(t) == 3 and all(type(v) is int for v in t) for t in value
            )
        else:
            continue  # a field of another kind: its own checks
        if not ok:
            raise PositionError(f"state data: frames/{index}/{name}", f"expected {_FIELD_WORDS[kind]}, got {_short(value)}")


def check_edition_field(value: object, game: GameTables | None) -> str:
    """The ``edition`` field of serialized data: a shipped edition id, or, when the
    caller passes the game explicitly, that game's edition id.  A file path is
    never opened because data names it: a table outside the shipped ones is
    used only through the ``game`` argument.

    Returns:
        The edition id.

    Raises:
        SerializationError: not a string, not a shipped id (without ``game``),
            or another edition than ``game``'s.
    """
    shipped = edition_ids()
    if not isinstance(value, str):
        raise SerializationError(f"state data: edition: expected an edition id ({', '.join(shipped)}), got {value!r}")
    if game is not None:
        if value != game.edition.id:
            raise SerializationError(
                f"state data: edition: the data is of edition {value[:40]!r}, the game given of {game.edition.id!r}"
            )
        return value
    if value not in shipped:
        raise SerializationError(
            f"state data: edition: expected one of {', '.join(shipped)} (a table file is used only when the "
            f"caller passes its game), got {value[:40]!r}"
        )
    return value


__all__ = [
    "MAX_DEPTH",
    "MAX_POINTS",
    "MAX_ROUND",
    "MAX_SHUFFLES",
    "CardPool",
    "PositionError",
    "check_can_end",
    "check_depth",
    "check_edition_field",
    "check_seat",
    "check_state",
    "too_deep",
]
