"""`StateData`: the fields of a `flip7ref.core.state.State`, in a native base class below
the modules of the rule core that read whole states.

The fast lanes (`flip7ref.core.lanes`) take a state's fields, build successors with
``_make`` and run the general path on a scratch copy (``_work``, ``_freeze``), and
`State.apply` calls them: so they annotate with this class, which `State` subclasses, and
`flip7ref.core.state` imports them without a circle (issue 43).  Compiled, it is a native
class: its fields are read the fast way (a protocol's would be read as Python attributes).
Its annotations, ``__init__`` and abstract ``_make`` are written by tools/gen_state_fields.py
from `flip7ref.core.state_fields`; `State` implements ``_make``, ``_work`` and ``_freeze``.
In the pure build `State` is re-created over slots from its own class body
(`flip7ref.core.layout`), so there a state is not an instance of this class: use `State`
for ``isinstance``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from flip7ref.core.game_tables import GameTables
    from flip7ref.core.history import Log
    from flip7ref.core.model import Player
    from flip7ref.core.work import Frame, Work


class StateData:
    """The fields of a state (see `flip7ref.core.state.State` for each), and the constructors
    the fast lanes use; built only as a `State`."""

    # state-fields: state-data
    game: Final[GameTables]
    players: Final[tuple[Player, ...]]
    draw: Final[tuple[int, ...]]
    discard: Final[tuple[int, ...]]
    frames: Final[tuple[Frame, ...]]
    dealer: Final[int]
    turn: Final[int]
    round: Final[int]
    totals: Final[tuple[int, ...]]
    last_scores: Final[tuple[int, ...]]
    flip7: Final[int | None]
    round_over: Final[bool]
    winners: Final[tuple[int, ...]]
    shuffle_seed: Final[str | None]
    shuffles: Final[int]
    bonus_to: Final[int | None]
    round_shuffles: Final[int]
    shuffle_mark: Final[int]
    _log: Final[Log | None]

    def __init__(
        self, game: GameTables, players: tuple[Player, ...], draw: tuple[int, ...], discard: tuple[int, ...],
        frames: tuple[Frame, ...], dealer: int, turn: int, round: int, totals: tuple[int, ...], last_scores: tuple[int, ...],
        flip7: int | None, round_over: bool, winners: tuple[int, ...], shuffle_seed: str | None, shuffles: int,
        bonus_to: int | None = None, round_shuffles: int = 0, shuffle_mark: int = -1, _log: Log | None = None,
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
        self._log = _log

    def _make(
        self, game: GameTables, players: tuple[Player, ...], draw: tuple[int, ...], discard: tuple[int, ...],
        frames: tuple[Frame, ...], dealer: int, turn: int, round: int, totals: tuple[int, ...], last_scores: tuple[int, ...],
        flip7: int | None, round_over: bool, winners: tuple[int, ...], shuffle_seed: str | None, shuffles: int,
        bonus_to: int | None, round_shuffles: int, shuffle_mark: int, _log: Log | None,
    ) -> StateData:
        """A new state with these fields (`flip7ref.core.state.State._make`)."""
        raise NotImplementedError
    # state-fields: end

    def _work(self) -> Work:
        """A scratch copy of this state for one transition (`flip7ref.core.state.State._work`)."""
        raise NotImplementedError

    def _freeze(self, w: Work, move: str, first: bool = False) -> StateData:
        """The state the scratch copy ``w`` holds (`flip7ref.core.state.State._freeze`)."""
        raise NotImplementedError
