"""The scratch copy a transition works on.

`State.apply` and `State.apply_chance` copy the state into a `Work` (``State._work``),
run the rules on it (`flip7ref.core.engine`, the frames, the primitives) and freeze the
result into a new `State` (``State._freeze``: `flip7ref.core.state` sits above this
module).  A `Work` is the only mutable thing in the interpreter, and it lives for one
transition.  When compiled with mypyc it is a native class with
typed attributes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flip7ref.core.lines import bar_lasts
from flip7ref.core.model import Event, Player, Status, make_player

if TYPE_CHECKING:
    from flip7ref.core.frames import Frame
    from flip7ref.core.game_tables import GameTables


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

    # state-fields: work-init
    def __init__(
        self, game: GameTables, players: list[Player], draw: tuple[int, ...], discard: tuple[int, ...], frames: list[Frame],
        dealer: int, turn: int, round: int, totals: list[int], last_scores: tuple[int, ...], flip7: int | None, round_over: bool,
        winners: tuple[int, ...], shuffle_seed: str | None, shuffles: int, bonus_to: int | None, round_shuffles: int,
        shuffle_mark: int,
    ) -> None:
        self.game = game
        self.players = players
        self.draw = draw
        self.discard = discard
        self.frames = frames
        self.dealer = dealer
        self.turn = turn
        self.round = round
        self.totals = totals
        self.last_scores = last_scores
        self.flip7 = flip7
        self.round_over = round_over
        self.winners = winners
        self.shuffle_seed = shuffle_seed
        self.shuffles = shuffles
        self.bonus_to = bonus_to
        self.round_shuffles = round_shuffles
        self.shuffle_mark = shuffle_mark
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
