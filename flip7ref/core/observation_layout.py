"""The layout of the observation vector, read by the RL adapters (`flip7ref.rl.encoding`, which
documents it, and ``docs/rl.md``) and by the batched engines (`flip7ref.batch.observation`):
the sections in order and their sizes, the order within the one-hot sections, the bounds."""

from __future__ import annotations

from collections.abc import Mapping

from flip7ref.core.model import Status

DECISION_KINDS = ("offer", "play", "give", "keep_or_give", "assign", "cards", "flip7_bonus", "chance", "terminal")
"""The interpreter's kinds of `State.pending`, in the order of the observation's ``decision``
section (`flip7ref.rl.encoding.decision_kinds` adds those of a game's plug-in primitives)."""

STATUSES = (Status.ACTIVE, Status.STAYED, Status.FROZEN, Status.BUSTED)
"""Statuses in the order of the observation's ``status`` section."""

POINTS_BOUND = 1_000_000
"""Points and round numbers in an observation are clipped to +-this."""

SEAT_SECTIONS = {"lines": 0, "kept": 0, "status": 4, "totals": 1, "line_values": 1, "to_act": 1, "observer": 1,
                 "dealer": 1, "turn": 1}  # fmt: skip
"""The observation's per-seat sections and the width of one seat's part (0: one per card kind);
under the relative layout each starts with the observer, the other seats after it in turn order."""

NORMALIZED_SECTIONS = ("totals", "line_values", "round")
"""The sections a normalised observation clips to +-`NORMALIZED_BOUND` (after dividing totals and
line values by the target score, the round by `ROUND_SCALE`)."""

NORMALIZED_BOUND = 10.0
"""In a normalised observation, points and the round are clipped to +-this."""

ROUND_SCALE = 10.0
"""In a normalised observation the round number is divided by this."""


def observation_sections(players: int, kinds: int, decision_kinds: int) -> dict[str, tuple[int, int]]:
    """``{name: (start, size)}`` of every section in vector order, for ``players`` seats, ``kinds``
    card kinds and ``decision_kinds`` pending kinds (the vector's length is the last section's end,
    `observation_size`)."""
    p, c = players, kinds
    sizes = {
        "unseen": c, "discard": c, "set_aside": c, "lines": p * c, "kept": p * c, "status": p * len(STATUSES), "totals": p,
        "line_values": p, "decision": decision_kinds, "decision_card": c, "to_act": p, "observer": p, "dealer": p,
        "turn": p, "round": 1,
    }  # fmt: skip
    starts = [0]
    for size in sizes.values():
        starts.append(starts[-1] + size)
    return {name: (start, size) for (name, size), start in zip(sizes.items(), starts, strict=False)}


def observation_size(players: int, kinds: int, decision_kinds: int) -> int:
    """The length of an observation (`observation_sections`)."""
    return sum(size for _, size in observation_sections(players, kinds, decision_kinds).values())


def section_at(sections: Mapping[str, tuple[int, int]], index: int) -> str:
    """The element ``index`` named by its section: ``line_values[2]`` (``[index]`` outside every section)."""
    return next((f"{name}[{index - start}]" for name, (start, size) in sections.items() if start <= index < start + size),
                f"[{index}]")  # fmt: skip
