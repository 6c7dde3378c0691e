"""The blame as shown: at most three rules, each with the reason it is suspected.

`flip7ref.checking.blame.blame` orders every rule of the step behind the first difference,
and `flip7ref.checking.suspects.reading_suspects` names the rules of options whose other
reading reproduces the engine's outcome; a list of twenty rules tells an implementer
nothing.  `short_blame` keeps the first rule and at most two others, and says for each why it
is there.
"""

from __future__ import annotations

from collections.abc import Sequence

MAX_BLAMED = 3
"""The most rules a failure is blamed on: the first, and at most two others."""

FIRST = "decides the step where the engine first differs from the reference"
SAME_STEP = "another rule of that step"
READING = "another named reading of its option reproduces everything the engine reported"
WEAK_READING = "another named reading of its option reproduces that one difference (weak evidence)"
REFUSED = "decides the step the engine refused"
WENT = "moved to the discard pile the cards missing from the engine's reshuffle"
KEPT = "kept in play the cards the engine reshuffled beyond the reference's"
CITED = "a rule the case cites (no differing step found)"


def short_blame(blamed: Sequence[str], suspects: Sequence[str] = (), weak: bool = False,
                first: str = FIRST) -> tuple[tuple[str, ...], tuple[str, ...]]:  # fmt: skip
    """The rules shown for a failure and a reason for each, both at most `MAX_BLAMED` long.

    Args:
        blamed: rule ids in blame order (suspects already placed,
            `flip7ref.checking.suspects.first_suspects`).
        suspects: the rule ids of options another reading of which reproduces the engine's
            outcome (`flip7ref.checking.suspects.reading_suspects`).
        weak: whether that reproduction is weak evidence (`flip7ref.checking.suspects.Weak`).
        first: the reason of the step's first rule (`FIRST`, or a `flip7ref.checking.caused.Caused`
            blame's own).

    Returns:
        ``(rules, reasons)``, of equal length.
    """
    rules: list[str] = []
    reasons: list[str] = []
    step_seen = False
    for rule in dict.fromkeys(blamed):
        if len(rules) == MAX_BLAMED:
            break
        if rule in suspects:
            rules.append(rule)
            reasons.append(WEAK_READING if weak else READING)
            continue
        rules.append(rule)
        if not step_seen:
            reasons.append(first)
            step_seen = True
        else:
            reasons.append(SAME_STEP)
    return tuple(rules), tuple(reasons)
