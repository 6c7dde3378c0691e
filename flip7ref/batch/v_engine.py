"""The batched Vengeance engine behind the engine protocol (the Vengeance half of
`flip7ref.batch.engine`): positions, actions and outcomes of a one-game `VengeanceState`.

The adapter `python -m flip7ref.batch.engine` sends every Vengeance case here.  Actions
are read in the reference's spelling (``hit``, ``stay``, ``target S``, ``steal S I``,
``discard S I``, ``swap A I B J`` with ``I``, ``J`` positions in a line) and the legal
actions are written back in it, every position of a card kind the engine's mask allows
(the engine's picks name card kinds, as the RL action index does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from flip7ref.batch.case_setup import CardPool, load_piles, protocol_outcome
from flip7ref.batch.v_rules import ACTIVE, BUSTED, STAYED, VENGEANCE_OPTIONS
from flip7ref.batch.vengeance import VengeanceState
from flip7ref.core.errors import Flip7RefError, OptionError
from flip7ref.core.game import Game

STATUS_NAMES = {"active": ACTIVE, "stayed": STAYED, "busted": BUSTED}
_NAMES = {v: k for k, v in STATUS_NAMES.items()}


def capabilities() -> dict[str, Any]:
    """The handshake's entry for edition ``vengeance``: each option's default reading
    (`VENGEANCE_OPTIONS`) and the integer options' ranges."""
    options: dict[str, list[str]] = {name: list(readings) for name, readings in VENGEANCE_OPTIONS.items()}
    options.update({"target_score": ["200"], "reshuffles": ["unlimited", "1"], "decks": ["auto"]})
    return {"options": options, "integer_ranges": {"target_score": [1, 10000], "reshuffles": [0, 8], "decks": [1, 1]}}


def position(game: Game, setup: Mapping[str, Any]) -> VengeanceState:
    """A `VengeanceState` of one game at the case setup ``setup`` (protocol fields:
    ``players``, ``dealer``, ``draw`` top first, ``rest``, ``discard``, ``lines``,
    ``statuses``, ``turn``, ``totals``, ``round``, ``deal``), settled to its first decision,
    events on.

    Raises:
        OptionError: an unknown card or status, a card that cannot lie in a line, more
            copies than the deck holds.
    """
    bs = VengeanceState(game, 1, 0, "reference")
    bs.record_events()
    assert bs.log is not None
    b = 0
    g = np.array([0])
    for a, v in ((bs.line, 0), (bs.lorder, -1), (bs.llen, 0), (bs.status, ACTIVE), (bs.barred, False), (bs.sp, 0)):
        a[g] = v
    bs.flip7[b] = -1
    pool = CardPool(game, bs.copies, bs.ids)
    take = pool.take

    for key, names in (setup.get("lines") or {}).items():
        s = int(key)
        for c in take(names, f"lines[{s}]"):
            if not (bs.is_num[c] or bs.is_mod[c]):
                raise OptionError(f"lines[{s}]: {bs.ids[c]!r} is an action card; a line holds numbers and modifiers")
            bs.line[b, s, c] += 1
            bs.lorder[b, s, bs.llen[b, s]] = c
            bs.llen[b, s] += 1
    for key, names in (setup.get("kept") or {}).items():
        if names:
            raise OptionError(f"kept[{key}]: no card lies in front of a player in vengeance")
    for key, name in (setup.get("statuses") or {}).items():
        if name not in STATUS_NAMES:
            raise OptionError(f"statuses[{key}]: expected one of active, stayed, busted, got {name!r}")
        bs.status[b, int(key)] = STATUS_NAMES[name]
    load_piles(bs, setup, pool, b)
    bs.log[b] = []
    bs.run(g, bs.kernel.NEW if setup.get("deal") else bs.kernel.SETTLE)
    return bs


def action_index(bs: VengeanceState, text: str, b: int = 0) -> int:
    """An action in the reference's spelling as an action index of game ``b``
    (`flip7ref.rl.actions.ActionIndex`; a pick names the kind of the card at a position).

    Raises:
        OptionError: a malformed action or a position past a line's end.
    """
    words = text.split()
    nums = [int(w) for w in words[1:] if w.isdigit()]
    P, K = bs.P, bs.K
    kind_of = {int(c): k for k, c in enumerate(bs.kcodes.tolist())}
    if len(nums) != len(words) - 1 or any(n >= P for n in nums[::2]):
        raise OptionError(f"{text!r} is not an action of vengeance for {P} players")

    def kind(seat: int, pos: int) -> int:
        if pos >= bs.llen[b, seat]:
            raise OptionError(f"{text!r}: seat {seat}'s line has {int(bs.llen[b, seat])} cards")
        return kind_of[int(bs.lorder[b, seat, pos])]

    verb = words[0]
    if words == ["hit"]:
        return 0
    if words == ["stay"]:
        return 1
    if verb == "target" and len(nums) == 1:
        return 2 + nums[0]
    if verb in ("steal", "discard") and len(nums) == 2 and verb in bs.blocks:
        return bs.blocks[verb][0] + nums[0] * K + kind(nums[0], nums[1])
    if verb == "swap" and len(nums) == 4 and "swap" in bs.blocks and nums[0] < nums[2]:
        pair = [tuple(p) for p in bs.pairs.tolist()].index((nums[0], nums[2]))
        return bs.blocks["swap"][0] + pair * K * K + kind(nums[0], nums[1]) * K + kind(nums[2], nums[3])
    raise OptionError(f"{text!r} is not an action of vengeance for {P} players")


def legal_strings(bs: VengeanceState, b: int = 0) -> list[str]:
    """The legal actions of game ``b`` in the reference's order and spelling (every
    position of a legal card kind)."""
    out: list[tuple[Any, ...]] = []
    P, K = bs.P, bs.K
    kind_of = {int(c): k for k, c in enumerate(bs.kcodes.tolist())}

    def positions(seat: int, k: int) -> list[int]:
        return [i for i, c in enumerate(bs.lorder[b, seat, : bs.llen[b, seat]].tolist()) if kind_of.get(c) == k]

    for a in np.flatnonzero(bs.legal[b]).tolist():
        if a == 0:
            out.append(("hit",))
        elif a == 1:
            out.append(("stay",))
        elif a < 2 + P:
            out.append(("target", a - 2))
        else:
            for verb in ("steal", "discard", "swap"):
                start, size = bs.blocks.get(verb, (0, 0))
                if start <= a < start + size:
                    break
            off = a - start
            if verb in ("steal", "discard"):
                s, k = divmod(off, K)
                out.extend((verb, s, i) for i in positions(s, k))
            else:
                pair, rest = divmod(off, K * K)
                ka, kb = divmod(rest, K)
                sa, sb = bs.pairs[pair].tolist()
                out.extend(("swap", sa, i, sb, j) for i in positions(sa, ka) for j in positions(sb, kb))
    head = [x for x in out if x[0] in ("hit", "stay", "target")]
    picks = sorted(x for x in out if x[0] not in ("hit", "stay", "target"))
    return [" ".join(str(w) for w in x) for x in head + picks]


def outcome(bs: VengeanceState, b: int = 0) -> dict[str, Any]:
    """The protocol outcome of game ``b``."""
    P = bs.P
    return protocol_outcome(bs, b, _NAMES, {str(s): [] for s in range(P)}, legal_strings(bs, b))


def score(game: Game, line: Sequence[str]) -> dict[str, Any]:
    """A scoring case: the round score of ``line`` (card ids) by the engine's own line value
    (V-060) and its Flip 7 (V-022, D-V-03: number cards count), for a one-seat ``game``."""
    bs = VengeanceState(game, 1, 0, "reference")
    g = np.array([0])
    bs.clear(g)
    for c in (game.code(name) for name in line):
        bs.line[0, 0, c] += 1
        bs.lorder[0, 0, bs.llen[0, 0]] = c
        bs.llen[0, 0] += 1
    nnum = int((bs.line[0, 0] * bs.is_num).sum())
    made = len(line) >= game.flip7_distinct and nnum >= game.flip7_distinct
    bs.flip7[0] = 0 if made else -1
    return {"score": int(bs.line_values(g)[0, 0]), "flip7": made}


def run_case(case: Mapping[str, Any]) -> dict[str, Any]:
    """Play one Vengeance protocol case (transition, round or game) and return its outcome.

    Raises:
        Flip7RefError: a bad setup, or an action refused (named ``action N``).
    """
    options = dict(case.get("options") or {})
    if case["kind"] == "scoring":
        return score(Game(case["edition"], 1, options), case["line"])
    setup = case["setup"]
    game = Game(case["edition"], setup["players"], options)
    bs = position(game, setup)
    actors = case.get("actors")
    for n, text in enumerate(case.get("actions") or (), start=1):
        who = "the game is over" if bs.done[0] else f"it is seat {int(bs.actor[0])}'s decision"
        if isinstance(actors, list) and n <= len(actors) and (bs.done[0] or actors[n - 1] != bs.actor[0]):
            raise Flip7RefError(f"action {n} ({text!r}) is seat {actors[n - 1]}'s by the case, but {who}")
        a = action_index(bs, text)
        if not bs.step(np.array([a]), np.array([0]))[0]:
            raise Flip7RefError(f"action {n} ({text!r}) is not legal: {who} (legal: {', '.join(legal_strings(bs)) or 'none'})")
    return outcome(bs)
