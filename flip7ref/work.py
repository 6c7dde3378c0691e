"""The scratch copy a transition works on.

`State.apply` and `State.apply_chance` copy the state into a `Work`, run the
rules on it (`flip7ref.engine`, the frames, the primitives) and freeze the result
into a new `State`.  A `Work` is the only mutable thing in the interpreter, and
it lives for one transition.  When compiled with mypyc it is a native class with
typed attributes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from .history import new_log, start_of
from .model import Event, Player, Status

if TYPE_CHECKING:
    from .frames import Frame
    from .game import Game
    from .state import State

_S = TypeVar("_S", bound="State")


class Work:
    """A mutable copy of a `State` used while one transition runs (the same fields, in
    lists where they change), plus the events emitted so far."""

    game: Game
    players: list[Player]
    draw: list[int]
    discard: list[int]
    frames: list[Frame]
    dealer: int
    turn: int
    round: int
    totals: list[int]
    last_scores: tuple[int, ...]
    flip7: int | None
    round_over: bool
    winners: tuple[int, ...]
    shuffle_seed: str | None
    shuffles: int
    bonus_to: int | None
    round_shuffles: int
    events: list[Event]

    def __init__(self, s: State) -> None:
        # one pass over the state's fields (a tuple underneath), not 17 attribute reads
        (game, players, draw, discard, frames, dealer, turn, round_, totals, last_scores, flip7, round_over,
         winners, shuffle_seed, shuffles, bonus_to, round_shuffles, _) = s  # fmt: skip
        self.game = game
        self.players = list(players)
        self.draw = list(draw)
        self.discard = list(discard)
        self.frames = list(frames)
        self.dealer = dealer
        self.turn = turn
        self.round = round_
        self.totals = list(totals)
        self.last_scores = last_scores
        self.flip7 = flip7
        self.round_over = round_over
        self.winners = winners
        self.shuffle_seed = shuffle_seed
        self.shuffles = shuffles
        self.bonus_to = bonus_to
        self.round_shuffles = round_shuffles
        self.events = []

    def emit(self, event: Event) -> None:
        """Record ``event`` (built by its constructor in `flip7ref.events`)."""
        self.events.append(event)

    def cid(self, code: int) -> str:
        """The card id of ``code``."""
        return self.game.card_ids[code]

    def set_line(self, seat: int, line: tuple[int, ...]) -> None:
        """Give ``seat`` the line ``line`` (card codes), keeping its kept cards and status."""
        p = self.players[seat]
        self.players[seat] = Player(line, p.kept, p.status)

    def set_kept(self, seat: int, kept: tuple[int, ...]) -> None:
        """Give ``seat`` the kept cards ``kept`` (card codes), keeping its line and status."""
        p = self.players[seat]
        self.players[seat] = Player(p.line, kept, p.status)

    def set_status(self, seat: int, status: Status) -> None:
        """Give ``seat`` the `Status` ``status``, keeping its cards."""
        p = self.players[seat]
        self.players[seat] = Player(p.line, p.kept, status)

    def to_discard(self, *codes: int) -> None:
        """Put the cards ``codes`` on the discard pile, in that order."""
        self.discard.extend(codes)

    def next_seat(self, seat: int) -> int:
        """The seat on ``seat``'s left (seats are numbered clockwise)."""
        return (seat + 1) % len(self.players)

    def freeze(self, cls: type[_S], parent: _S | None, move: str) -> _S:
        """The state (of class ``cls``, a `State`) this work holds, its history one link
        longer than ``parent``'s (None: a new game, whose history starts here)."""
        if parent is None:
            log = new_log((None, move, tuple(self.events), None))
        else:
            log = new_log((parent._log, move, tuple(self.events), start_of(parent)))
        fields: tuple[Any, ...] = (
            self.game, tuple(self.players), tuple(self.draw), tuple(self.discard), tuple(self.frames), self.dealer,
            self.turn, self.round, tuple(self.totals), self.last_scores, self.flip7, self.round_over, self.winners,
            self.shuffle_seed, self.shuffles, self.bonus_to, self.round_shuffles, log,
        )  # fmt: skip
        return tuple.__new__(cls, fields)
