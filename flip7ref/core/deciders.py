"""The one decider of each rule: rule ids → the function that decides them.

Every other place — the general path, the fast lanes, scoring, position checks,
`State.line_value`, the table's score pad, the RL observation and the strategies —
calls these functions instead of restating the rule.  `docs/core.md` shows this
table with the tests of each rule; ``tests/test_one_decider.py`` checks that every
function named here exists and names its rules, that the docs table matches, and
that no module outside a decider's own restates its rule's tell-tale names;
``tests/test_decider_perturbation.py`` rebinds each function to a wrong answer and
requires every one of those places to follow it.
"""

from __future__ import annotations

from typing import Final, NamedTuple


class Decider(NamedTuple):
    """One rule's decider.

    Attributes:
        rules: the rule and dispute ids it decides (``F7-050``, ``D-V-26``...).
        function: its dotted path, ``module.function`` (a method: ``module.Class.method``).
        question: the question it answers, in words.
        tests: the test files and case ids that pin it.
    """

    rules: tuple[str, ...]
    function: str
    question: str
    tests: tuple[str, ...]


DECIDERS: Final[tuple[Decider, ...]] = (
    Decider(("F7-040", "V-036"), "flip7ref.core.lines.is_duplicate",
            "does a number entering a line bust it (a duplicate, unless the Lucky 13 pair)?",
            ("tests/test_rules_flip7.py", "tests/test_rules_vengeance.py")),
    Decider(("V-033",), "flip7ref.core.lines.wipes", "does a number wipe the line it enters (Unlucky 7)?",
            ("tests/test_rules_vengeance.py",)),
    Decider(("F7-050", "V-022", "D-V-03"), "flip7ref.core.lines.holds_seven",
            "does a line hold the seven counted numbers of a Flip 7?", ("tests/test_one_decider.py",)),
    Decider(("F7-050", "V-022", "V-032", "D-V-26"), "flip7ref.core.lines.flip7_line",
            "is a line a Flip 7 (seven counted numbers, the player's Flip 7 not barred)?",
            ("tests/test_one_decider.py", "V-C0260", "V-C0261", "V-C0301")),
    Decider(("D-V-26", "V-038"), "flip7ref.core.lines.bars_flip7",
            "does Just One More, stopping a player, bar their Flip 7 for the round?",
            ("tests/test_one_decider.py", "V-C0262", "V-C0263", "V-C0301", "V-C0302")),
    Decider(("V-037", "D-V-26"), "flip7ref.core.lines.bar_lasts",
            "does a player barred by Just One More stay barred (still holding The Zero)?",
            ("tests/test_rules_vengeance.py", "V-C0341")),
    Decider(("V-086", "D-V-35", "D-V-26"), "flip7ref.core.lines.own_draw_lifts_bar",
            "may a player barred by Just One More make a Flip 7 in a Flip Four she played on herself?",
            ("tests/test_options_vengeance.py", "V-C0352", "V-C0353")),
    Decider(("V-087", "D-V-36"), "flip7ref.core.lines.entry_place",
            "where in the receiver's line does a swapped or stolen card lie?",
            ("tests/test_options_vengeance.py", "V-C0354", "V-C0355", "V-C0356", "V-C0357")),
    Decider(("F7-033", "V-031"), "flip7ref.core.lines.may_stay", "may a player answer an offer with Stay?",
            ("tests/test_rules_flip7.py", "tests/test_options_flip7.py")),
    Decider(("F7-080",), "flip7ref.core.lines.guard_of", "which held card saves a line from a bust (Second Chance)?",
            ("tests/test_rules_flip7.py",)),
    Decider(("F7-081",), "flip7ref.core.primitives.bust_shield.BustShield.use_guard",
            "what does using a Second Chance do (both cards discarded, the turn ends)?",
            ("tests/test_rules_flip7.py",)),
    Decider(("F7-060", "F7-062"), "flip7ref.core.primitives.freeze.Freeze.play",
            "what does a Freeze do to its target?", ("tests/test_rules_flip7.py",)),
    Decider(("F7-050", "V-082"), "flip7ref.core.scoring.flip7_terms",
            "what does the round's Flip 7 mean for a seat: made, bonus, penalty?",
            ("tests/test_one_decider.py", "tests/test_options_vengeance.py")),
    Decider(("V-085", "D-V-34", "V-082"), "flip7ref.core.scoring.flip7_choice_seats",
            "which seats may Brutal Mode's Flip 7 maker pick for the 15 (a busted one too)?",
            ("tests/test_options_vengeance.py", "V-C0350", "V-C0351", "V-C0358")),
    Decider(("F7-100", "F7-101", "F7-102", "V-030", "V-081", "V-082"), "flip7ref.core.scoring.seat_score",
            "what does a seat score for the round?", ("tests/test_one_decider.py", "V-C0263")),
    Decider(("F7-050", "F7-052", "F7-110", "F7-115"), "flip7ref.core.engine.round_over",
            "is the round over (a Flip 7, the deck exhausted under end-round, or nobody left to act)?",
            ("tests/test_rules_flip7.py", "tests/test_round_option_exercise.py")),
    Decider(("F7-100", "F7-112", "F7-120", "F7-121"), "flip7ref.core.engine.plan_round_end",
            "what follows a round: its scores, the game end or the next dealer?", ("tests/test_rules_flip7.py",)),
    Decider(("F7-120", "F7-121"), "flip7ref.core.engine.game_end", "is the game over, and who leads?",
            ("tests/test_rules_flip7.py", "tests/test_options_flip7.py")),
)
"""Every rule's one decider, in the order of `docs/core.md`'s table."""
