"""The batched engine behind the engine protocol (conformance/PROTOCOL.md), as a foreign engine.

Run the conformance suite against it::

    flip7ref conformance run --engine "python -m flip7ref.batch.engine"

It plays every case on a `flip7ref.batch.core.BatchState` of one game, built from the
case's setup (zones, statuses, turn, a fresh round when ``deal`` is set), with its event log
on (`BatchState.record_events`).  The handshake declares what it plays: edition ``flip7``,
1..18 players, each option at its default reading (`SUPPORTED_OPTIONS`; integer options in
ranges), positions, and every event type.  Scoring cases are scored by the engine's own
line value; the harness sends each deal order of a perft case as an ordinary round case.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import IO, Any

import numpy as np

from flip7ref import __version__
from flip7ref.batch import v_engine
from flip7ref.batch.case_setup import CardPool, load_piles, protocol_outcome
from flip7ref.batch.core import BatchState
from flip7ref.batch.rules import ACTIVE, BUSTED, FROZEN, STAYED, SUPPORTED_OPTIONS
from flip7ref.core.errors import Flip7RefError, OptionError
from flip7ref.core.game import Game

STATUS_NAMES = {"active": ACTIVE, "stayed": STAYED, "frozen": FROZEN, "busted": BUSTED}
_NAMES = {v: k for k, v in STATUS_NAMES.items()}


def implementation() -> dict[str, Any]:
    """The handshake's description of the batched engine (protocol v2 capabilities included)."""
    options: dict[str, list[str]] = {name: list(readings) for name, readings in SUPPORTED_OPTIONS.items()}
    options.update({"target_score": ["200"], "reshuffles": ["unlimited", "1"], "decks": ["auto"]})
    return {
        "name": "flip7ref-batch",
        "version": __version__,
        "language": "python (numba)",
        "editions": {
            "flip7": {"options": options, "integer_ranges": {"target_score": [1, 10000], "reshuffles": [0, 8], "decks": [1, 1]}},
            "vengeance": v_engine.capabilities(),
        },
        "players": [1, 18],
        "positions": True,
        "auto_resolves_forced_choices": False,
    }


class Skip(Exception):
    """A case the batched engine does not take (reported ``skipped``)."""


def position(game: Game, setup: Mapping[str, Any]) -> BatchState:
    """A `BatchState` of one game at the case setup ``setup`` (protocol fields: ``players``,
    ``dealer``, ``draw`` top first, ``rest``, ``discard``, ``lines``, ``kept``, ``statuses``,
    ``turn``, ``totals``, ``round``, ``deal``), settled to its first decision, events on.

    Raises:
        OptionError: an unknown card or status, more copies than the deck holds.
    """
    bs = BatchState(game, 1, 0, "reference")
    bs.record_events()
    assert bs.log is not None
    bs.log[0] = []
    b, g = 0, np.array([0])
    bs.clear(g)
    pool = CardPool(game, bs.copies, bs.ids)
    take = pool.take

    for key, names in (setup.get("lines") or {}).items():
        s = int(key)
        for c in take(names, f"lines[{s}]"):
            bs.line[b, s, c] += 1
            bs.lorder[b, s, bs.llen[b, s]] = c
            bs.llen[b, s] += 1
    for key, names in (setup.get("kept") or {}).items():
        s = int(key)
        for c in take(names, f"kept[{s}]"):
            if c == bs.SC:
                bs.sc[b, s] += 1
            elif c == bs.FRZ:
                bs.ffirst[b, s] = bs.sc[b, s] == 0
                bs.frz[b, s] += 1
            else:
                raise OptionError(f"kept[{s}]: {bs.ids[c]!r} cannot lie in front of a player in flip7")
    for key, name in (setup.get("statuses") or {}).items():
        if name not in STATUS_NAMES:
            raise OptionError(f"statuses[{key}]: expected one of active, stayed, frozen, busted, got {name!r}")
        bs.status[b, int(key)] = STATUS_NAMES[name]
    load_piles(bs, setup, pool, b)
    bs.run(g, bs.kernel.NEW if setup.get("deal") else bs.kernel.SETTLE)
    return bs


def action_index(text: str, players: int) -> int:
    """``hit``, ``stay`` or ``target S`` as an action index (`flip7ref.rl.encoding`).

    Raises:
        OptionError: any other action.
    """
    words = text.split()
    if words == ["hit"]:
        return 0
    if words == ["stay"]:
        return 1
    if len(words) == 2 and words[0] == "target" and words[1].isdigit() and int(words[1]) < players:
        return 2 + int(words[1])
    raise OptionError(f"{text!r} is not an action of base Flip 7 for {players} players (hit, stay, target S)")


def legal_strings(bs: BatchState, b: int = 0) -> list[str]:
    """The legal actions of game ``b`` in the reference's order and spelling."""
    names = ["hit", "stay", *(f"target {s}" for s in range(bs.P))]
    return [names[i] for i in np.flatnonzero(bs.legal[b]).tolist()]


def outcome(bs: BatchState, b: int = 0) -> dict[str, Any]:
    """The protocol outcome of game ``b``."""
    P = bs.P
    kept = {}
    for s in range(P):
        sc, fz = [bs.ids[bs.SC]] * int(bs.sc[b, s]), [bs.ids[bs.FRZ]] * int(bs.frz[b, s])
        kept[str(s)] = fz + sc if bs.ffirst[b, s] else sc + fz
    return protocol_outcome(bs, b, _NAMES, kept, legal_strings(bs, b))


def score(game: Game, line: Sequence[str]) -> dict[str, Any]:
    """A scoring case: the round score of ``line`` (card ids) by the batched engine's own line
    value (F7-100..F7-102) and its Flip 7 count (F7-050), for a one-seat ``game``."""
    bs = BatchState(game, 1, 0, "reference")
    bs.clear(np.array([0]))
    for c in (game.code(name) for name in line):
        bs.line[0, 0, c] += 1
        bs.lorder[0, 0, bs.llen[0, 0]] = c
        bs.llen[0, 0] += 1
    made = bool((bs.line[0, 0] * bs.is_num).sum() >= game.flip7_distinct)
    bs.flip7[0] = 0 if made else -1
    return {"score": int(bs.line_values()[0, 0]), "flip7": made}


def run_case(case: Mapping[str, Any]) -> dict[str, Any]:
    """Play one protocol case on the batched engine and return the observed outcome.

    Raises:
        Skip: a case kind the engine does not know.
        Flip7RefError: a bad setup, or an action refused (named ``action N``).
    """
    if case.get("edition") == "vengeance" and case["kind"] in ("scoring", "transition", "round", "game"):
        return v_engine.run_case(case)
    options = dict(case.get("options") or {})
    if case["kind"] == "scoring":
        return score(Game(case["edition"], 1, options), case["line"])
    if case["kind"] not in ("transition", "round", "game"):
        raise Skip(f"case kind {case['kind']!r} is not known to the batched engine")
    setup = case["setup"]
    game = Game(case["edition"], setup["players"], options)
    bs = position(game, setup)
    actors = case.get("actors")
    for n, text in enumerate(case.get("actions") or (), start=1):
        who = "the game is over" if bs.done[0] else f"it is seat {int(bs.actor[0])}'s decision"
        if isinstance(actors, list) and n <= len(actors) and (bs.done[0] or actors[n - 1] != bs.actor[0]):
            raise Flip7RefError(f"action {n} ({text!r}) is seat {actors[n - 1]}'s by the case, but {who}")
        a = action_index(text, bs.P)
        if not bs.step(np.array([a]), np.array([0]))[0]:
            raise Flip7RefError(f"action {n} ({text!r}) is not legal: {who} (legal: {', '.join(legal_strings(bs)) or 'none'})")
    return outcome(bs)


def serve(stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Speak the protocol (versions 1 and 2) until ``stop`` or the end of input; returns 0."""
    src, out = stdin or sys.stdin, stdout or sys.stdout

    def send(message: Mapping[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    for raw in src:
        if not raw.strip():
            continue
        try:
            request = json.loads(raw)
        except ValueError as exc:
            send({"seq": None, "errored": True, "message": f"request is not JSON: {exc}"})
            continue
        cmd = request.get("cmd") if isinstance(request, dict) else None
        if cmd == "stop":
            return 0
        if cmd == "start":
            if request.get("version") not in (1, 2):
                send({"error": f"unsupported protocol version {request.get('version')!r}; this engine speaks 1 and 2"})
                return 0
            impl = implementation()
            if request["version"] == 1:
                impl = {k: v for k, v in impl.items() if k not in ("players", "positions", "auto_resolves_forced_choices")}
            send({"version": request["version"], "implementation": impl})
        elif cmd == "run":
            seq = request.get("seq")
            try:
                send({"seq": seq, "outcome": run_case(request["case"])})
            except Skip as exc:
                send({"seq": seq, "skipped": True, "message": str(exc)})
            except (Flip7RefError, KeyError, TypeError, ValueError, IndexError) as exc:
                send({"seq": seq, "errored": True, "message": f"{type(exc).__name__}: {exc}"})
        else:
            send(
                {
                    "seq": request.get("seq") if isinstance(request, dict) else None,
                    "errored": True,
                    "message": f"unknown command {cmd!r}",
                }
            )
    return 0


if __name__ == "__main__":
    sys.exit(serve())
