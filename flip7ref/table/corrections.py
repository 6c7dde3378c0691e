"""Correcting a card at the table (✎): which later steps a correction keeps, and with whom.

A correction replaces the card entered at one step and then replays the later steps,
keeping each with the seat that really made it: a card stays with the player who
drew it and a decision with the player who took it.  A later step that cannot be
kept that way (its player busted because of the correction, it is no longer legal,
or it would now go to somebody else) is dropped and named; the steps after it are
tried in turn, so one player's lost cards do not cost the others theirs.

These are plain functions over immutable states; `flip7ref.table.session.TableGame.fix`
uses them for the preview and for the change itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flip7ref.core.errors import Flip7RefError
from flip7ref.core.state import CHANCE, State


def receiver(state: State) -> int | None:
    """The seat that takes the card revealed at ``state`` (a chance node), or None
    when no pending frame names one."""
    if state.current_player != CHANCE or not state.frames:
        return None
    top = state.frames[-1]
    seat = getattr(top, "seat", getattr(top, "target", None))
    return seat if isinstance(seat, int) else None


def mover(state: State) -> int | None:
    """Who makes the next step at ``state``: the receiver of a card at a chance node,
    else the seat to decide (None at the end of the game)."""
    if state.current_player == CHANCE:
        return receiver(state)
    return state.current_player if state.current_player >= 0 else None


def replay_keeping(
    start: State, old_states: Sequence[State], moves: Sequence[str], first: int
) -> tuple[list[State], list[int], list[int]]:
    """Replay ``moves[first:]`` from ``start`` keeping each step with its own seat.

    Args:
        start: the state after the corrected step.
        old_states: the game's states before the correction (``old_states[i]`` is the
            state before ``moves[i]``), which say who made each step.
        moves: the game's moves before the correction (``State.history`` form).
        first: the index of the first later step.

    Returns:
        ``(states, kept, dropped)``: the states after ``start`` (one per kept step),
        the indices of the old steps kept and of those dropped.
    """
    states: list[State] = []
    kept: list[int] = []
    dropped: list[int] = []
    current = start
    for i in range(first, len(moves)):
        move = moves[i]
        was = mover(old_states[i])
        if current.is_terminal() or (current.current_player == CHANCE) != move.startswith("chance ") or mover(current) != was:
            dropped.append(i)
            continue
        try:
            after = current.apply_move(move)
        except Flip7RefError:
            dropped.append(i)
            continue
        states.append(after)
        kept.append(i)
        current = after
    return states, kept, dropped


def step_summary(names: Sequence[str], state: State, move: str, describe: Any) -> dict[str, Any]:
    """One step as a correction's preview names it: ``index`` is filled in by the caller;
    ``seat`` (or None), ``move`` and ``text`` (the step's events in words, via ``describe``)."""
    seat = mover(state)
    try:
        events = state.apply_move(move).last_events()
        words = [describe(e) for e in events]
    except Flip7RefError:
        words = []
    who = names[seat] if seat is not None and 0 <= seat < len(names) else ""
    return {"seat": seat, "move": move, "text": words or [f"{who}: {move}".strip(": ")]}


__all__ = ["mover", "receiver", "replay_keeping", "step_summary"]
