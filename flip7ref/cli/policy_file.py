"""``flip7ref odds --policy-file FILE``: answers from a stored solo policy, without solving
(`flip7ref.analysis.load_policy`), and the memory ``solve --policy-out`` adds to a solve."""

from __future__ import annotations

import argparse
import json

from flip7ref.cli.solo_args import cards, cards_words, categories, solo_game
from flip7ref.core.errors import OptionError
from flip7ref.core.state import State

SOLVE_FLAGS = (("--exact", "exact", False), ("--max-states", "max_states", 1_000_000), ("--max-seconds", "max_seconds", None),
                ("--ties", "ties", "hit"), ("--workers", "workers", 1), ("--solver", "solver", "auto"))  # fmt: skip
"""The flags of ``odds`` that shape a solve, with their names and defaults: ``odds --policy-file``
solves nothing and refuses each of them given another value."""

ODDS_POLICY_FILE_HELP = (
    "With --policy-file FILE, odds solves nothing: it answers from a policy file, the optimal solo "
    "policy of one deck stored with every decision, its values, P(bust) and P(Flip 7). Make one with "
    "flip7ref solve --cards CARDS --policy-out FILE (the compact solver; NumPy, the [analysis] extra), e.g. "
    "flip7ref solve --cards numbers --policy-out numbers.policy, then flip7ref odds --policy-file numbers.policy "
    "--line 3,11,12,5. It takes --line, --seen, --cards, --edition, --option, --turn-model and --json; the file's "
    "edition, options, cards and turn model must match them; it refuses "
    + ", ".join(flag for flag, _, _ in SOLVE_FLAGS[:-1])
    + f" and {SOLVE_FLAGS[-1][0]} (exit status 2). The older spelling odds --policy FILE still works this "
    "release, with a note on stderr."
)
"""The epilog of ``odds --help``: the policy-file mode."""


def odds_from_policy(args: argparse.Namespace) -> int:
    """``flip7ref odds --policy-file FILE``: the stored policy's answer at ``--line`` (no solve)."""
    from flip7ref.analysis import load_policy

    for flag, name, default in SOLVE_FLAGS:
        if getattr(args, name) != default:  # a flag of the solve, which --policy-file replaces: not silently ignored
            raise OptionError(f"{flag}: odds --policy-file FILE answers from the file without solving; it takes --line, "
                              "--seen, --cards, --edition, --option, --turn-model and --json")  # fmt: skip
    game = solo_game(args)
    kinds = categories(args.cards, game) if args.cards else None
    policy = load_policy(args.policy_file, edition=game.edition.id, options=game.non_default_options(),
                         categories=kinds, turn_model=args.turn_model)  # fmt: skip
    line, seen = cards(args.line, "--line"), cards(args.seen, "--seen")
    answer = policy.query(line, seen)
    head = policy.header
    words = cards_words(list(head["categories"]))
    if args.json:
        data = answer.as_dict()
        data.update(policy=args.policy_file, edition=head["edition"], options=head["options"], cards=words,
                    deck=head["deck"], turn_model=head["turn_model"], ties=head["ties"])  # fmt: skip
        print(json.dumps(data, sort_keys=True))
        return 0
    print(f"policy file        {args.policy_file}: {head['edition']}, {words} ({head['deck']} cards), "
          f"{head['turn_model']} turn, ties {head['ties']}")  # fmt: skip
    gone = f"; gone: {' '.join(seen)}" if seen else ""
    print(f"line               {' '.join(line) or '(empty: the deal)'}{gone}"
          + (f"; Flip Threes drawn {answer.flip_threes}" if answer.flip_threes else ""))  # fmt: skip
    print(f"best               {answer.best}" + ("  (the first card of the deal: no choice)" if answer.forced else ""))
    print(f"  hit              {answer.hit:.10f}  P(bust) {answer.hit_bust:.10f}  P(Flip 7) {answer.hit_flip7:.10f}")
    if answer.stay is not None:
        print(f"  stay             {answer.stay:.10f}")
    print(f"under the policy   P(bust) {answer.p_bust:.10f}  P(Flip 7) {answer.p_flip7:.10f} (from here to the end of the turn)")
    return 0


def policy_bytes(state: State, turn: str, states: int) -> float:
    """The memory a stored policy adds to a compact solve of ``states`` states: 25 bytes a
    state and column kept, twice while the file is sorted and written."""
    columns = 1
    if turn == "published":
        from flip7ref.analysis.published import _actions, _modes

        _, freezes, flips, count = _actions(state)
        columns = flips + 1
        states //= len(_modes(flips, freezes, count))
    return 2.0 * 25 * states * columns
