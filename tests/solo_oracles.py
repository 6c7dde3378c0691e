"""Independent oracles for the solo solvers' tests: small recursions over the published
solo turn, with none of the solvers' machinery (tests/test_compact_solver.py,
tests/test_published_turn.py)."""

from __future__ import annotations

import functools
from collections import Counter


def published_turn(deck: list[str], freeze_first_wins: bool = False) -> tuple[float, int]:
    """The optimal solo round over ``deck`` as the published solver defines the turn with
    action cards aimed at oneself: a Freeze is a forced stay; a Flip Three forces three draws
    (one met during them adds three more), and a Freeze met during them waits until they are
    done.  ``freeze_first_wins``: a Flip Three met after such a waiting Freeze adds no draws
    (the set-aside cards resolve in order: the Freeze ends the turn first).

    Returns ``(value, reachable states)``: a plain recursion over (line numbers, modifiers,
    Second Chance held, cards drawn, forced draws left, a Freeze waiting), written without
    the solvers' layers, masks or modes; the states are the recursion's distinct arguments."""
    copies = Counter(deck)

    def score(nums: tuple[str, ...], mods: tuple[str, ...], made: bool) -> float:
        points = sum(int(n) for n in nums) * (2 if "x2" in mods else 1)
        return points + sum(int(m[1:]) for m in mods if m.startswith("+")) + (15 if made else 0)

    @functools.cache
    def value(nums: tuple[str, ...], mods: tuple[str, ...], held: bool, gone: tuple[tuple[str, int], ...],
              forced: int, frozen: bool) -> float:  # fmt: skip
        if not forced and frozen:
            return score(nums, mods, False)
        out = Counter(dict(gone))
        left = {k: copies[k] - out[k] for k in sorted(copies) if copies[k] > out[k]}
        total = sum(left.values())
        after = forced - 1 if forced else 0
        hit = 0.0
        for card, n in left.items():
            drawn = tuple(sorted((out + Counter([card])).items()))
            if card.isdigit() and card in nums:
                r = value(nums, mods, False, drawn, after, frozen) if held else 0.0
            elif card.isdigit():
                line = tuple(sorted((*nums, card)))
                r = score(line, mods, True) if len(line) == 7 else value(line, mods, held, drawn, after, frozen)
            elif card == "second_chance":
                r = value(nums, mods, True, drawn, after, frozen)
            elif card == "flip_three":
                more = 0 if frozen and freeze_first_wins else 3
                r = value(nums, mods, held, drawn, 3 if not forced else after + more, frozen)
            elif card == "freeze":
                r = score(nums, mods, False) if not forced else value(nums, mods, held, drawn, after, True)
            else:
                r = value(nums, tuple(sorted((*mods, card))), held, drawn, after, frozen)
            hit += n / total * r
        return max(hit, score(nums, mods, False)) if not forced and (nums or mods) else hit

    got = value((), (), False, (), 0, False)
    return got, value.cache_info().currsize
