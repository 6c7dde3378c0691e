"""What every RL adapter does the same way in an episode.

The reward kinds and the move cap (`check_common`), cards drawn until a decision
(`resolve_chance`), one decision index taken (`take_decision`), a seat's reward
for a step (`step_reward`) and the table as text (`render_table`).  The
PettingZoo and Gymnasium environments (and the OpenSpiel game, for the checks)
call these, so that a step means the same in each.
"""

from __future__ import annotations

import random

from flip7ref.core.errors import OptionError
from flip7ref.core.state import CHANCE, State
from flip7ref.rl.actions import ActionIndex, action_index

DEFAULT_MAX_MOVES = 5_000
"""The move cap of every adapter: decisions of any seat (chance draws are not counted) after
which an episode stops (a 4-player game under random play takes a few hundred).  Gymnasium
and PettingZoo truncate there; OpenSpiel ends the game with zero returns."""

REWARDS = ("win", "points")
"""The reward kinds: ``win`` (+1 / -1 at the end) or ``points`` (the change of a seat's running total)."""

DEFAULT_REWARD = "win"
"""The default reward kind of every adapter (Gymnasium, PettingZoo, OpenSpiel): the game's own objective."""


def check_common(reward: str, max_moves: int) -> None:
    """Raise `OptionError` for an unknown ``reward`` or a ``max_moves`` below 1."""
    if reward not in REWARDS:
        raise OptionError(f"reward: expected one of {', '.join(REWARDS)}, got {reward!r}")
    if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
        raise OptionError(f"max_moves: expected a whole number >= 1, got {max_moves!r}")


def resolve_chance(state: State, rng: random.Random | None = None) -> State:
    """Draw cards until ``state`` is a decision or terminal node.

    A seeded state draws the top of its ordered pile; an open state draws at
    random with ``rng`` (`State.sample_chance`).
    """
    while state.current_player == CHANCE:
        state = state.apply_chance(state.sample_chance(rng))
    return state


def outcome(state: State) -> dict[str, object]:
    """The end of a game for an ``info`` dict: ``{"winners": [seats], "totals": [points per seat],
    "rounds": n}`` (``winners`` is empty while the game is not over)."""
    return {"winners": list(state.winners) if state.is_terminal() else [], "totals": list(state.totals),
            "rounds": state.round}  # fmt: skip


def take_decision(actions: ActionIndex, state: State, action: object) -> State | None:
    """The state after decision index ``action`` at ``state`` (a decision node), or None
    when the index is not a legal one now (``state`` is not changed either way).

    Raises:
        IllegalActionError: ``action`` is not a whole number (a bool, float, text...).
    """
    legal = actions.legal_indices(state)
    index = action_index(action, legal)
    if index not in legal:
        return None
    return state.apply(actions.decode(state, index))


def step_reward(kind: str, before: State, after: State, seat: int) -> float:
    """Seat ``seat``'s reward for going from ``before`` to ``after``.

    ``points``: the change of its running total (points; Brutal Mode's -15 counts
    too).  ``win``: +1 for a winner and -1 for every other seat once ``after`` is
    terminal, 0 before.
    """
    if kind == "points":
        return float(after.totals[seat] - before.totals[seat])
    return (1.0 if seat in after.winners else -1.0) if after.is_terminal() else 0.0


def render_table(state: State, first: str, seat_label: str) -> str:
    """The table as text: ``first`` (the heading line), then one line per seat, named
    ``seat_label`` followed by its number (``"player_"``, ``"seat "``), with its
    status, running total and the cards in front of it."""
    rows = [first]
    for seat in range(state.num_players):
        line = " ".join(state.line(seat) + state.kept(seat)) or "-"
        rows.append(f"  {seat_label}{seat}: {state.status(seat).value:7} total {state.totals[seat]:4}  {line}")
    return "\n".join(rows)
