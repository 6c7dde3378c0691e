"""The optimal solo policy as a table, `solo_policy_table` (the
``optimal-solo`` strategy plays by it)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from flip7ref.analysis.estimate import solo_estimate
from flip7ref.analysis.positions import solo_deck_position
from flip7ref.analysis.solver import SoloSolver
from flip7ref.core.errors import OptionError
from flip7ref.core.game import Game
from flip7ref.core.state import STAY


def check_solo_policy(game: Game, max_states: int = 400_000, categories: Iterable[str] = ("number", "modifier")) -> int:
    """The estimated size of `solo_policy_table` ``(game, max_states, categories)``, refused
    before anything is solved when it is too large.

    Args:
        game: the game whose edition and options the policy is for (any player count).
        max_states: the most decision states solved.
        categories: the card categories of the solo deck.

    Returns:
        The estimated decision states (`solo_estimate`; 262,144 for Flip 7's numbers and
        modifiers).

    Raises:
        OptionError: the estimate is above ``max_states`` (the message names the edition,
            the estimate and the limit); an unknown category.
    """
    solo = Game(game.edition, 1, game.options)
    estimate = solo_estimate(solo, tuple(categories))[0]
    if estimate > max_states:
        raise OptionError(
            f"the optimal solo policy of {solo.edition.id} would need about {estimate:,} states; "
            f"at most {max_states:,} are solved"
        )
    return estimate


def solo_policy_table(
    game: Game,
    max_states: int = 400_000,
    categories: Iterable[str] = ("number", "modifier"),
    *,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    cluster: Any = None,
    ties: str = "hit",
) -> dict[tuple[int, ...], bool]:
    """The optimal solo policy for ``game``'s numbers and modifiers, as a table.

    Solves `solo_deck_position` with ``categories`` (default ``number`` and
    ``modifier``) for a one-player copy of ``game`` and returns ``{line: stay?}``
    where ``line`` is the sorted tuple of card codes in front of the player at an
    offer.  ``workers``: processes to solve in, or ``cluster`` a Dask client (see
    `SoloSolver.solve`); ``progress(states solved, states expected)`` is
    called as the solve goes; ``ties``: the action of a line where hit and stay
    are worth the same (see `SoloSolver`).

    Raises:
        OptionError: the solo state space is estimated (`solo_estimate`)
            above ``max_states``; ``ties`` unknown.
    """
    solo = Game(game.edition, 1, game.options)
    categories = tuple(categories)
    estimate = check_solo_policy(game, max_states, categories)
    tick = None if progress is None else (lambda n: progress(n, estimate))
    solver = SoloSolver(max_states=max_states, workers=workers, progress=tick, cluster=cluster, ties=ties)
    solver.solve(solo_deck_position(solo, categories))
    table: dict[tuple[int, ...], bool] = {}
    for key, action in solver.best_actions().items():
        table[key[1][0][0]] = action == STAY
    return table
