"""Lockstep comparison of the batched engine with the reference over random games.

The same seeds give both the same deck (``shuffle="reference"``).  At every decision of
every game the two must agree on the whole observation vector (every zone as counts, the
statuses, totals, line values, the decision, its card, who acts, dealer, turn and round:
`flip7ref.rl.encoding.ObservationEncoder`) and on the mask of legal action indices; then
one random legal index is taken in both.  At the end the totals and winners must agree.
The reference is the authority: a difference is the batched engine's bug.

Needs the ``[rl]`` extra (the reference's encoding).  Run ``python -m flip7ref.batch.lockstep
--games 100000`` (see `main`).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from flip7ref.batch.core import BatchState
from flip7ref.batch.policies import parse_policy
from flip7ref.batch.state import choose_backend
from flip7ref.checking.lockstep import first_difference
from flip7ref.core.errors import OptionError, WriteError
from flip7ref.core.game import Game
from flip7ref.core.observation_layout import section_at
from flip7ref.core.state import State
from flip7ref.core.textfiles import read_text_file, write_file_atomic

Arr = np.ndarray[Any, Any]


class Difference(AssertionError):
    """The batched engine disagrees with the reference (the message says where)."""


def compare(
    players: int = 4,
    games: int = 2000,
    *,
    seed: int = 0,
    batch: int = 500,
    options: Mapping[str, object] | None = None,
    max_moves: int = 20_000,
    events: bool = True,
    policy: str = "random",
    progress: Any = None,
    edition: str = "flip7",
    backend: str = "auto",
) -> dict[str, int]:
    """Play ``games`` random games (seeds ``seed .. seed + games - 1``) in both engines in
    lockstep, ``batch`` at a time; with ``events`` the whole event log of each game is compared too
    when it ends (`flip7ref.batch.core.BatchState.record_events`).  ``policy``: ``random``
    (one random legal index) or ``threshold:N`` (the reference's `ThresholdStrategy` decides,
    and the batched `flip7ref.batch.policies.threshold_actions` must choose the same).
    ``progress(games, decisions)`` is called after each batch when given.  ``edition``:
    ``flip7``, ``vengeance`` or the path of an edition table: the engine is chosen by the
    table's cards (`engine_of`: `BatchState`, or `flip7ref.batch.vengeance.VengeanceState`;
    its threshold policy is `flip7ref.batch.v_policies.v_threshold_actions`).
    ``backend``: the batched engine's (`flip7ref.batch.state.choose_backend`: ``auto``,
    ``numba`` or ``python``); each keeps the event log compared.

    Returns:
        ``{"games": ..., "decisions": ...}`` compared.

    Raises:
        Difference: the first disagreement (game seed, decision number, what differs).
        OptionError: a backend the engine does not have; a seed below 0, a batch whose arrays
            do not fit in memory (`flip7ref.batch.guards`).
    """
    from flip7ref.batch.policies import threshold_actions
    from flip7ref.play.strategies import ThresholdStrategy
    from flip7ref.rl.actions import ActionIndex
    from flip7ref.rl.encoding import ObservationEncoder

    kind, threshold = parse_policy(policy, "policy")
    game = Game(edition, players, dict(options or {}))  # the table's readings, ``options`` over them
    which = engine_of(game)
    strategy = ThresholdStrategy(threshold)

    make: Any = BatchState
    policy_actions: Any = threshold_actions
    extra: dict[str, str] = {"backend": backend}
    if which == "vengeance":
        from flip7ref.batch.vengeance import VengeanceState

        make = VengeanceState
        from flip7ref.batch.v_policies import v_threshold_actions

        policy_actions = v_threshold_actions
    index, encoder = ActionIndex(game, "absolute"), ObservationEncoder(game)  # the batch steps absolute indices
    decisions = 0
    for first in range(seed, seed + games, batch):
        # the batched games (or a VengeanceState) first: a batch too large is refused before anything is built for it
        bs: BatchState = make(game, min(batch, seed + games - first), seed=first, shuffle="reference", **extra)
        seeds = list(range(first, first + bs.B))
        if events:
            bs.record_events()
        bs.reset(seeds=seeds)
        states: list[State] = [_settled(game.new_initial_state(seed=s)) for s in seeds]
        rngs = [random.Random(s) for s in seeds]
        moves = 0
        while True:
            obs = bs.observe(np.maximum(bs.actor, 0))
            actions = np.zeros(len(seeds), np.int64)
            batched = policy_actions(bs, np.arange(len(seeds)), threshold) if kind == "threshold" else actions
            live = 0
            for i, st in enumerate(states):
                _check(st, bs, i, obs[i], index, encoder, seeds[i], moves)
                if st.is_terminal():
                    if events and bs.log is not None and bs.log[i] is not None:
                        _differs(f"game seed {seeds[i]}", st, {"events": [e.to_dict() for e in bs.log[i]]}, ("events",))
                        bs.log[i] = None
                    continue
                live += 1
                legal = index.legal_indices(st)
                if kind == "threshold":
                    a = index.encode(st, strategy.choose(st, rngs[i]))
                    if a != batched[i]:
                        why = f"threshold policy chose {batched[i]}, the reference {a}"
                        raise Difference(f"game seed {seeds[i]}, decision {moves}: {why}")
                else:
                    a = rngs[i].choice(legal)
                actions[i] = a
                states[i] = _settled(st.apply(index.decode(st, a)))
                decisions += 1
            if not live:
                break
            before = ~bs.done
            taken = bs.step(actions)
            if not taken[before].all():  # pragma: no cover - the masks agreed
                raise Difference("the batched engine refused a legal action")
            moves += 1
            if moves > max_moves:
                raise Difference(f"games {seeds[0]}..{seeds[-1]} did not end within {max_moves} decisions")
        if progress is not None:
            progress(seeds[-1] - seed + 1, decisions)
    return {"games": games, "decisions": decisions}


def engine_of(game: Game) -> str:
    """Which batched engine plays ``game``'s table: ``vengeance`` when a card has a trait or a
    primitive only that engine knows (swap, steal, discard_card), else ``flip7`` (its
    constructor then checks the rest)."""
    vengeance_only = {"swap", "steal", "discard_card"}
    if any(game.traits) or any(getattr(e, "primitive", None) in vengeance_only for e in game.effect):
        return "vengeance"
    return "flip7"


def _settled(state: State) -> State:
    while state.is_chance_node():
        state = state.apply_chance(state.sample_chance())
    return state


def _check(st: State, bs: BatchState, i: int, got: Arr, index: Any, encoder: Any, seed: int, move: int) -> None:
    where = f"game seed {seed}, decision {move}"
    if st.is_terminal() != bool(bs.done[i]):
        raise Difference(f"{where}: reference terminal={st.is_terminal()}, batched done={bool(bs.done[i])}")
    who = max(st.current_player, 0) if not st.is_terminal() else 0
    ref = encoder.encode(st, who)
    if got.tolist() != ref:  # the common case costs one list comparison (whole numbers: exact in float32)
        want = np.array(ref, dtype=np.float32)
        bad = np.flatnonzero(want != got)
        if bad.size:
            k = int(bad[0])
            raise Difference(
                f"{where}: observation {section_at(encoder.sections, k)} is {got[k]:g}, the reference has {want[k]:g} "
                f"(history: {' | '.join(st.history()[-6:])})"
            )
    if st.is_terminal():
        ended = {"totals": bs.totals[i].tolist(), "winners": np.flatnonzero(bs.winners[i]).tolist()}
        return _differs(where, st, ended, ("totals", "winners"))
    mask = index.mask(st)
    if mask != bs.legal[i].astype(int).tolist():
        raise Difference(f"{where}: legal mask {bs.legal[i].astype(int).tolist()}, the reference has {mask}")


def _differs(where: str, st: State, observed: Mapping[str, Any], keys: Sequence[str]) -> None:
    """Raise `Difference` at the first difference of ``observed`` from the reference's outcome
    (`flip7ref.checking.lockstep.first_difference`, every key of every event compared)."""
    found = first_difference(st, observed, keys, written=False)
    if found is not None:
        raise Difference(f"{where}: {found}")


def _recorded(path: str) -> dict[int, tuple[int, int]]:
    """The slices a ``--record`` file holds: ``{first seed: (games, decisions)}``.

    Raises:
        ValueError: a line that is not ``seeds A-B: N games, D decisions agree`` with N the
            number of seeds A..B (the message names the file and the line).
    """
    done: dict[int, tuple[int, int]] = {}
    if not os.path.lexists(path):
        return done
    lines = read_text_file(Path(path), "record file").splitlines()  # a named pipe: refused unread (SpecError)
    for number, line in enumerate(lines, 1):
        m = re.fullmatch(r"seeds (\d+)-(\d+): (\d+) games, (\d+) decisions agree", line.strip())
        if m is None:
            raise ValueError(f"{path}:{number}: expected 'seeds A-B: N games, D decisions agree', got {line!r}")
        if int(m[2]) - int(m[1]) + 1 != int(m[3]):  # a hand-edited line: its slice is not the one it counts
            raise ValueError(f"{path}:{number}: expected N = B - A + 1 games in 'seeds A-B: N games', got {line!r}")
        done[int(m[1])] = (int(m[3]), int(m[4]))
    return done


def _append_record(path: str, line: str) -> None:
    """Add ``line`` to the ``--record`` file atomically (its content and the line written to a
    temporary file, then renamed over it): a full disk leaves the record as it was.

    Raises:
        WriteError: the file cannot be written (naming it).
        SpecError: the file cannot be read again.
    """
    before = read_text_file(Path(path), "record file") if os.path.lexists(path) else ""
    write_file_atomic(path, before + line)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m flip7ref.batch.lockstep [--games N] [--players P] [--seed S] [--batch B]
    [--policy random|threshold:N] [--record FILE]``: compare, print a one-line summary; exit 1 on a difference (its
    message), 2 on bad arguments (a batch too large for memory included) or an unreadable record.  With ``--record`` each slice of
    ``--batch`` games that agrees is appended to FILE, and the slices already there are
    skipped: a long run can be stopped and started again (``nice -n 10``, in the background)."""
    parser = argparse.ArgumentParser(
        prog="python -m flip7ref.batch.lockstep", usage="%(prog)s [options]", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--games", type=int, default=100_000, help="random games to compare (default %(default)s)")
    parser.add_argument("--edition", choices=("flip7", "vengeance"), default="flip7", help="edition (default %(default)s)")
    parser.add_argument("--players", type=int, default=4, help="seats (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default %(default)s)")
    parser.add_argument("--batch", type=int, default=1000, help="games stepped together (default %(default)s)")
    parser.add_argument("--progress", action="store_true", help="print a line to stderr after each batch")
    parser.add_argument(
        "--policy", default="random",
        help="random (default) or threshold:N (the batched threshold policy must choose what ThresholdStrategy chooses)",
    )  # fmt: skip
    parser.add_argument("--record", metavar="FILE", help="append each slice that agrees to FILE; skip the slices it holds")
    parser.add_argument(
        "--backend", choices=("auto", "numba", "python"), default="auto",
        help="the batched engine's backend (default %(default)s: numba when installed; each keeps the event log compared)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.games < 1 or args.batch < 1 or not 1 <= args.players <= 18:
        parser.error("--games and --batch must be at least 1, --players 1..18")
    if args.seed < 0:
        parser.error(f"--seed must be a whole number >= 0, got {args.seed}")
    if args.record and args.policy != "random":
        parser.error("--record keeps random-play slices only: leave out --policy")
    try:
        parse_policy(args.policy, "--policy")
    except OptionError as exc:
        parser.error(str(exc))
    start = time.perf_counter()
    try:
        done = _recorded(args.record) if args.record else {}
    except ValueError as exc:
        print(f"error: --record {exc}", file=sys.stderr)
        return 2
    games = decisions = 0
    try:
        report = (lambda n, d: print(f"{n} games, {d} decisions agree", file=sys.stderr, flush=True)) if args.progress else None
        if not args.record:
            result = compare(
                args.players, args.games, seed=args.seed, batch=args.batch, progress=report, edition=args.edition,
                backend=args.backend, policy=args.policy,
            )
            games, decisions = result["games"], result["decisions"]
        for first in range(args.seed, args.seed + args.games, args.batch) if args.record else ():
            n = min(args.batch, args.seed + args.games - first)
            if first in done and done[first][0] == n:
                games, decisions = games + n, decisions + done[first][1]
                continue
            result = compare(args.players, n, seed=first, batch=n, edition=args.edition, backend=args.backend)
            _append_record(args.record, f"seeds {first}-{first + n - 1}: {n} games, {result['decisions']} decisions agree\n")
            games, decisions = games + n, decisions + result["decisions"]
            if report is not None:
                report(games, decisions)
    except Difference as exc:
        print(f"difference: {exc}", file=sys.stderr)
        return 1
    except WriteError as exc:  # a full disk: the record keeps the slices written before
        print(f"error: --record {exc}", file=sys.stderr)
        return 2
    except OptionError as exc:  # e.g. a --batch too large for the memory available
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    took = time.perf_counter() - start
    backend = choose_backend(args.backend)
    print(f"{games} games, {decisions} decisions: no difference from the reference ({took:.0f} s, {backend} backend)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
