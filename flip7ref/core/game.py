"""A `Game`: an edition table compiled for chosen options and a player count, and the
factory of states (OpenSpiel's shape).

Its data, and everything the rules read of it, is `flip7ref.core.game_tables.GameTables`
(below the rule core); this module sits above `flip7ref.core.state` and adds the two
factories, `Game.new_initial_state` and `Game.new_position`, which build states with
`flip7ref.core.builders`.
"""

from __future__ import annotations

from typing import Any

from flip7ref.core import builders
from flip7ref.core.game_tables import GameTables
from flip7ref.core.model import ACTION as ACTION  # re-exported: their home was this module
from flip7ref.core.model import MODIFIER as MODIFIER
from flip7ref.core.model import NUMBER as NUMBER
from flip7ref.core.primitives import Effect as Effect  # re-exported: its home was this module
from flip7ref.core.state import State


class Game(GameTables):
    """An edition with chosen options for a number of players; the factory of states.

    The arguments are annotated ``Any`` in the signature so that a wrong type gets the
    `OptionError` below, also from the compiled build (docs/build.md); the types they
    accept are these:

    Args:
        edition (str | os.PathLike[str] | Edition): an edition id (``"flip7"``), a path
            to a ``.yaml`` table, or a loaded `Edition`.
        players (int): number of seats (1 or more; seats are numbered 0..players-1
            clockwise, so the player on seat ``s``'s left is ``s + 1``).
        options (Mapping[str, str | int] | None): option values by name (``{"tie":
            "shared-win"}``); unnamed options take the table's default.

    Raises:
        OptionError: unknown edition, unknown option name or value, or a player
            count below the edition's minimum.
        SpecError: the table is malformed.

    A game is an immutable value (no attribute can be set, in either build; its
    mappings ``options`` and ``codes`` are read-only `types.MappingProxyType` views, its
    `Edition` is immutable too) and compares equal to another game of the same edition
    (its id, table path and the table file's bytes, `Edition.digest`), player count and
    options.  Its attributes and methods other than the two factories are
    `GameTables`'s (the rule core reads them there).  Rules: F7-002, F7-123 (decks), and every option
    of the table.
    """

    def new_initial_state(
        self,
        seed: Any = None,
        *,
        dealer: Any = 0,
        stack: Any = None,
        totals: Any = None,
    ) -> State:
        """Start a game: round 1, dealt up to the first decision or chance node.

        Args:
            seed (int | str | None): the deck is shuffled deterministically from it and
                cards are drawn from that ordered pile (same seed, same game); None
                for an *open* game whose draw pile has no order, where a driver
                picks each chance outcome (e.g. `State.sample_chance`).
            dealer (int): the seat that deals round 1 (0..players-1).
            stack (list[str | int] | tuple[str | int, ...] | None): cards put on top of the
                pile, top first, by name or code (as in `new_position`); the rest of the
                deck follows below in seeded order
                (seed 0 when ``seed`` is None).
            totals (list[int] | tuple[int, ...] | None): running totals (points) to
                start from, one per seat.

        Returns:
            The first `State` that needs a decision or a chance outcome.

        Raises:
            OptionError: dealer out of range or totals of the wrong length.
            CardError: a stacked card is unknown, or more copies are stacked than the deck holds.
        """
        return builders.initial_state(self, seed=seed, dealer=dealer, stack=stack, totals=totals)

    def new_position(
        self,
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
        """Build a position in the middle of a round (the deal is over), or at its start.

        This is how tests and conformance cases put cards on the table.

        Args:
            dealer (int): the seat dealing this round.
            turn (int | None): the seat offered Hit or Stay next (default: the first
                seat of the deal order, i.e. the dealer's left); skipped forward if not
                active.
            lines (Mapping[int, list[Card]] | list[list[Card]] | None): per seat, the
                number and modifier cards in front of them: a mapping from seat numbers
                (``{0: ["8", "x2"]}``, seats left out are empty) or a list with one
                entry per seat from seat 0 (``[["8", "x2"], []]``).  A card (``Card``) is
                its name (``"8"``, ``"x2"``, ``"second_chance"``) or its code, an int: its
                position in `card_ids`, as `State` holds cards (``state.draw``); an int
                is never read as a rank.
            kept (Mapping[int, list[Card]] | list[list[Card]] | None): per seat, action
                cards lying in front of them (a held Second Chance); the same shapes.
            statuses (Mapping[int, str | Status] | list[str | Status] | None): per seat,
                ``active`` (default), ``stayed``, ``frozen`` or ``busted``.
            draw (list[Card] | tuple[Card, ...]): the cards on top of the draw pile, top
                first.
            discard (list[Card] | tuple[Card, ...]): the discard pile.
            totals (list[int] | tuple[int, ...] | None): running totals (points), one
                per seat.
            round_number (int): the round number to report (1 or more).
            seed (int | str | None): orders the rest of the deck and later reshuffles;
                None makes an open state (then ``draw`` is not on top: the pile is
                unordered).
            rest (str): where the deck's remaining cards go: ``below`` the given draw
                cards, into the ``discard`` pile (so the pile is exactly ``draw``),
                or ``out`` of the game (a partial deck, e.g. to reach an empty deck
                and discard pile; card conservation then no longer holds).
            deal (bool): start the round instead: the dealer deals from ``draw`` as the
                rules say (the table must then be empty); ``turn`` is ignored.

        Returns:
            The settled `State` (the next decision or chance node).

        Raises:
            CardError: an unknown card or a malformed card list.
            PositionError: (a CardError) a position no game can reach: an action
                card in a line, a number twice in a live line (bar the Lucky 13
                pair), a busted line without its duplicate, the numbers of a Flip 7,
                more Second Chances than the hold limit, more copies of a card than
                the deck(s) hold, no card anywhere or none that scores a point (the
                game could never end, docs/termination.md).  `State.from_dict` refuses the same positions
                with the same messages (`flip7ref.core.position`).
            OptionError: a seat, status or ``rest`` value out of range.
        """
        return builders.position_state(
            self, dealer=dealer, turn=turn, lines=lines, kept=kept, statuses=statuses, draw=draw,
            discard=discard, totals=totals, round_number=round_number, seed=seed, rest=rest, deal=deal,
        )  # fmt: skip


def game_of(state: State) -> Game:
    """The `Game` a state belongs to: ``state.game`` typed as the `Game` it is.

    `State.game` is annotated with `GameTables` (`flip7ref.core.state` sits below this
    module); a caller that needs the factories of states (``new_position``...) asks here.

    Args:
        state (State): any state.

    Raises:
        TypeError: the state holds bare tables, not a `Game` (no state this package
            builds does).
    """
    game = state.game
    if not isinstance(game, Game):
        raise TypeError(f"state.game: expected a flip7ref.Game, got {type(game).__name__}")
    return game
