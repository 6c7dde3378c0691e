"""The scratch copy a transition works on.

`State.apply` and `State.apply_chance` copy the state into a `Work`, run the
rules on it (`flip7ref.core.engine`, the frames, the primitives) and freeze the result
into a new `State`.  A `Work` is the only mutable thing in the interpreter, and
it lives for one transition.  When compiled with mypyc it is a native class with
typed attributes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flip7ref.core.history import new_log
from flip7ref.core.lines import bar_lasts
from flip7ref.core.model import Event, Player, Status, make_player

if TYPE_CHECKING:
    from flip7ref.core.frames import Frame
    from flip7ref.core.game_tables import GameTables
    from flip7ref.core.state import State


class Work:
    """A mutable copy of a `State` used while one transition runs (the same fields, in
    lists where they change, the draw and discard piles tuples that are replaced, not
    copied in and out), plus the events emitted so far."""

    # state-fields: work-fields
    game: GameTables
    players: list[Player]
    draw: tuple[int, ...]
    discard: tuple[int, ...]
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
    shuffle_mark: int
    # state-fields: end
    events: list[Event]

    def __init__(self, s: State) -> None:
        # state-fields: work-copy
        self.game = s.game
        self.players = list(s.players)
        self.draw = s.draw
        self.discard = s.discard
        self.frames = list(s.frames)
        self.dealer = s.dealer
        self.turn = s.turn
        self.round = s.round
        self.totals = list(s.totals)
        self.last_scores = s.last_scores
        self.flip7 = s.flip7
        self.round_over = s.round_over
        self.winners = s.winners
        self.shuffle_seed = s.shuffle_seed
        self.shuffles = s.shuffles
        self.bonus_to = s.bonus_to
        self.round_shuffles = s.round_shuffles
        self.shuffle_mark = s.shuffle_mark
        # state-fields: end
        self.events = []

    # state-fields: work-round
    def round_closed(self) -> None:
        """Set what a round's close sets (``round_close`` in the table; `flip7ref.core.engine.end_round`)."""
        self.flip7 = None
        self.round_over = False
        self.bonus_to = None

    def round_opened(self) -> None:
        """Set what a round's opening sets (``round_open`` in the table; `flip7ref.core.engine.start_round`)."""
        self.round_shuffles = 0
        self.shuffle_mark = -1
    # state-fields: end

    def emit(self, event: Event) -> None:
        """Record ``event`` (built by its constructor in `flip7ref.core.events`)."""
        self.events.append(event)

    def cid(self, code: int) -> str:
        """The card id of ``code``."""
        return self.game.card_ids[code]

    def set_line(self, seat: int, line: tuple[int, ...]) -> None:
        """Give ``seat`` the line ``line`` (card codes), keeping its kept cards and status;
        a barred seat whose line loses The Zero is freed of the bar (V-037, D-V-26: decided
        by `flip7ref.core.lines.bar_lasts`)."""
        p = self.players[seat]
        barred = p.flip7_barred and bar_lasts(self.game, line)
        self.players[seat] = make_player((line, p.kept, p.status, barred))

    def set_kept(self, seat: int, kept: tuple[int, ...]) -> None:
        """Give ``seat`` the kept cards ``kept`` (card codes), keeping its line and status."""
        p = self.players[seat]
        self.players[seat] = make_player((p.line, kept, p.status, p.flip7_barred))

    def set_status(self, seat: int, status: Status) -> None:
        """Give ``seat`` the `Status` ``status``, keeping its cards."""
        p = self.players[seat]
        self.players[seat] = make_player((p.line, p.kept, status, p.flip7_barred))

    def bar_flip7(self, seat: int) -> None:
        """Bar ``seat``'s Flip 7 for the rest of the round (D-V-26), keeping its cards and status."""
        p = self.players[seat]
        self.players[seat] = make_player((p.line, p.kept, p.status, True))

    def to_discard(self, *codes: int) -> None:
        """Put the cards ``codes`` on the discard pile, in that order."""
        if codes:
            self.discard += codes

    def next_seat(self, seat: int) -> int:
        """The seat on ``seat``'s left (seats are numbered clockwise)."""
        return (seat + 1) % len(self.players)

    def freeze(self, parent: State, move: str, first: bool = False) -> State:
        """The state this work holds, its history one link longer than ``parent``'s
        (the state the transition started from); with ``first``, a new game whose
        history starts here (``parent`` is then the state the work was copied from)."""
        if first:
            log = new_log((None, move, tuple(self.events), None))
        else:
            log = new_log((parent._log, move, tuple(self.events), parent.initial_state()))
        # state-fields: work-freeze
        return parent._make(
            self.game, tuple(self.players), self.draw, self.discard, tuple(self.frames), self.dealer, self.turn, self.round,
            tuple(self.totals), self.last_scores, self.flip7, self.round_over, self.winners, self.shuffle_seed, self.shuffles,
            self.bonus_to, self.round_shuffles, self.shuffle_mark, log,
        )  # fmt: skip
        # state-fields: end
