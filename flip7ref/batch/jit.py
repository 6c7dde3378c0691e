"""The batched engine's compiled backend: the same rules as `flip7ref.batch.rules` and
`flip7ref.batch.settle`, one game at a time in a loop compiled by numba.

The NumPy backend runs each rule as array operations over the games that need it, so a
step costs a few hundred NumPy calls whatever the batch size.  Here a step is one call:
the loop takes each game's action and settles it to its next decision with scalar code
over the very arrays of `flip7ref.batch.core.BatchState` (nothing is copied, the two
backends can take turns on one state).  It is used when numba is installed.  With the
event log kept (`BatchState.record_events`) the loop also writes each event as a row of
numbers (`flip7ref.batch.evlog`), in a form of the loop compiled apart: the step without
a log holds no trace of it (`flip7ref.batch.evrows.ev_row`).

Each function below is the one-game form of the NumPy function of the same name; the
rule ids are in their docstrings there.  The reshuffle stays in Python: a game whose deck
is to be refilled stops before the draw (nothing changed yet), the NumPy backend's
`_reshuffle` refills the decks of the games that stopped (so the reference's order under
``shuffle="reference"``, NumPy's generator under ``shuffle="numpy"``), and the loop runs
again for them (`_resume`; a few games in a thousand decisions).  A call out of the
compiled loop, even one never taken, would cost hundreds of nanoseconds a game.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba  # type: ignore[import-not-found, unused-ignore]
import numpy as np

from flip7ref.batch.evlog import (
    ASSIGNED,
    DEALT_DEAL,
    DEALT_F3,
    DEALT_HIT,
    DECK_EXHAUSTED,
    DISCARDED,
    FD_ENDED,
    FD_STARTED,
    GAME_WON,
    NO_ELIGIBLE,
    NO_TARGET,
    NOT_ELIGIBLE,
    O_BUST,
    O_COMPLETE,
    O_EXHAUSTED,
    O_ROUND,
    PAYLOAD,
    ROUND_ENDED,
    ROUND_SCORED,
    ROUND_STARTED,
    SC_GIVEN,
    SC_KEPT,
    SC_USED,
    SET_ASIDE,
    STAYED_EMPTY,
    TARGET_BUSTED,
    TARGET_CHOSEN,
    TIE,
    check,
)
from flip7ref.batch.evlog import BUSTED as EV_BUSTED
from flip7ref.batch.evlog import FLIP7 as EV_FLIP7
from flip7ref.batch.evlog import FROZEN as EV_FROZEN
from flip7ref.batch.evlog import STAYED as EV_STAYED
from flip7ref.batch.evrows import ev_row, full, keeps
from flip7ref.batch.rules import (
    _AS,
    _DEAL,
    _FD,
    _ROUND_END,
    _RQ,
    _STOP,
    _TURN,
    ACTIVE,
    ASSIGN,
    BUSTED,
    FROZEN,
    GIVE,
    HIT,
    OFFER,
    PLAY,
    STAY,
    STAYED,
    TERMINAL,
)

Arr = np.ndarray[Any, Any]
F = TypeVar("F", bound=Callable[..., Any])


def _names(words: str) -> list[str]:
    return words.split()


ARRAYS = _names(
    "deck dtop dend unseen discard line lorder llen nnum numsum modsum x2 ffirst scored sc frz status "
    "totals last_scores dealer turn rnd flip7 rover done winners shuffles rshuf deal_on deal_pos "
    "dealoffer offer_ready ct_on ct_card ct_chooser ct_purpose ct_allowed fd_on fd_target fd_giver "
    "fd_card fd_rem fd_n fd_aside as_on as_ready as_chooser as_n as_k as_cards as_targets rq_on rq_head "
    "rq_tail rq_card rq_seat rq_chooser moves kind actor legal card ev ev_n is_num is_mod rank addv isx2 aside"
)
"""The attributes of `BatchState` the kernel reads and writes (``ev``, ``ev_n``: the event rows,
`flip7ref.batch.evlog`, no rows when no log is kept; the last six: card tables read from the
edition table, `flip7ref.batch.rules.Rules._tables`)."""

SCALARS = _names("P C SC FREEZE F3 target reshuffles bonus f3n hold mult1 f7n ev_room")
"""The sizes and the table's facts as numbers: the card codes of the three action cards (by primitive),
the target score (F7-120), reshuffles (F7-116), the Flip 7 bonus and line length (F7-050), the Flip
Three's count (F7-070), the Second Chance hold limit (F7-082), the multiplier less one (F7-091)."""

State: Any = cast(Any, namedtuple)("State", ARRAYS + SCALARS)


def _jit(f: F) -> F:
    """``numba.njit`` without the runtime's reference counting (``_nrt=False``: the kernel
    allocates nothing; with it, every call passing the state would take and drop a
    reference to each of its arrays, hundreds of nanoseconds), cached on disk."""
    return cast(F, cast(Any, numba.njit)(cache=True, _nrt=False)(f))


def pack(bs: Any) -> Any:
    """The kernel's view of `BatchState` ``bs``: its arrays and sizes as one named tuple."""
    arrays = [getattr(bs, name) for name in ARRAYS]
    if not bs.ev.shape[1]:  # no log kept: the kernel compiled without one (`flip7ref.batch.evrows.ev_row`)
        arrays[ARRAYS.index("ev")] = None
    return State(*arrays, *(int(getattr(bs, name)) for name in SCALARS))


@_jit
def _needs_shuffle(S: Any, b: int) -> bool:
    """A card is to be drawn in game ``b`` and its deck is to be refilled first (F7-113,
    F7-116): the draw's caller stops before changing anything, for `_resume`."""
    if S.dtop[b] < S.dend[b] or S.rshuf[b] >= S.reshuffles:
        return False
    for c in range(S.C):  # noqa: SIM110 - a plain loop compiles to the simplest code
        if S.discard[b, c] > 0:
            return True
    return False


@_jit
def _draw(S: Any, b: int) -> int:
    if S.dtop[b] >= S.dend[b]:  # a refill was done before (`_needs_shuffle`): none is left
        ev_row(S.ev, S.ev_n, b, DECK_EXHAUSTED, 0, 0, 0)
        return -1
    code = int(S.deck[b, S.dtop[b]])
    S.dtop[b] += 1
    S.unseen[b, code] -= 1
    return code


@_jit
def _add(S: Any, b: int, s: int, code: int) -> None:
    S.line[b, s, code] += 1
    n = S.llen[b, s]
    S.lorder[b, s, n] = code
    S.llen[b, s] = n + 1


@_jit
def _numbers(S: Any, b: int, s: int, code: int) -> None:
    if S.line[b, s, code] > 0:
        if S.sc[b, s] > 0:
            S.sc[b, s] -= 1
            S.discard[b, code] += 1
            S.discard[b, S.SC] += 1
            ev_row(S.ev, S.ev_n, b, SC_USED, s, code, 0)
        else:
            _add(S, b, s, code)
            S.status[b, s] = BUSTED
            ev_row(S.ev, S.ev_n, b, EV_BUSTED, s, code, 0)
        return
    _add(S, b, s, code)
    S.nnum[b, s] += 1
    S.numsum[b, s] += S.rank[code]
    if S.nnum[b, s] >= S.f7n and S.flip7[b] < 0:
        S.flip7[b] = s
        ev_row(S.ev, S.ev_n, b, EV_FLIP7, s, 0, 0)


@_jit
def _offer_target(S: Any, b: int, s: int, code: int) -> None:
    some = False
    for p in range(S.P):
        some = some or S.status[b, p] == ACTIVE
    if not some:
        S.discard[b, code] += 1
        ev_row(S.ev, S.ev_n, b, DISCARDED, code, s, NO_TARGET)
        return
    S.ct_on[b] = True
    S.ct_card[b] = code
    S.ct_chooser[b] = s
    S.ct_purpose[b] = PLAY
    for p in range(S.P):
        S.ct_allowed[b, p] = S.status[b, p] == ACTIVE


@_jit
def _second_chance(S: Any, b: int, s: int) -> None:
    if S.sc[b, s] < S.hold and S.status[b, s] != BUSTED:
        S.sc[b, s] += 1
        ev_row(S.ev, S.ev_n, b, SC_KEPT, s, 0, 0)
        return
    some = False
    for p in range(S.P):
        some = some or (S.status[b, p] == ACTIVE and S.sc[b, p] < S.hold and p != s)
    if not some:
        S.discard[b, S.SC] += 1
        ev_row(S.ev, S.ev_n, b, DISCARDED, S.SC, s, NO_ELIGIBLE)
        return
    S.ct_on[b] = True
    S.ct_card[b] = S.SC
    S.ct_chooser[b] = s
    S.ct_purpose[b] = GIVE
    for p in range(S.P):
        S.ct_allowed[b, p] = S.status[b, p] == ACTIVE and S.sc[b, p] < S.hold and p != s


@_jit
def _receive(S: Any, b: int, s: int, code: int) -> None:
    if S.is_num[code]:
        _numbers(S, b, s, code)
    elif S.is_mod[code]:
        _add(S, b, s, code)
        S.modsum[b, s] += S.addv[code]
        S.x2[b, s] |= S.isx2[code]
    elif code == S.SC:
        _second_chance(S, b, s)
    else:
        _offer_target(S, b, s, code)


@_jit
def _play(S: Any, b: int, chooser: int, seat: int, code: int) -> None:
    if code == S.FREEZE:
        S.ffirst[b, seat] = S.sc[b, seat] == 0
        S.status[b, seat] = FROZEN
        S.frz[b, seat] += 1
        ev_row(S.ev, S.ev_n, b, EV_FROZEN, seat, chooser, 0)
    else:
        S.fd_on[b] = True
        S.fd_target[b] = seat
        S.fd_giver[b] = chooser
        S.fd_card[b] = code
        S.fd_rem[b] = S.f3n
        S.fd_n[b] = 0
        ev_row(S.ev, S.ev_n, b, FD_STARTED, seat, chooser, 0)


@_jit
def _clear_table(S: Any, b: int) -> None:
    for p in range(S.P):
        for c in range(S.C):
            S.line[b, p, c] = 0
        for j in range(S.lorder.shape[2]):
            S.lorder[b, p, j] = -1
        S.llen[b, p] = 0
        S.nnum[b, p] = 0
        S.numsum[b, p] = 0
        S.modsum[b, p] = 0
        S.x2[b, p] = 0
        S.sc[b, p] = 0
        S.frz[b, p] = 0
        S.ffirst[b, p] = False
        S.status[b, p] = ACTIVE
    S.flip7[b] = -1
    S.rover[b] = False
    S.deal_on[b] = False
    S.dealoffer[b] = -1
    S.offer_ready[b] = False
    S.ct_on[b] = False
    S.fd_on[b] = False
    S.fd_n[b] = 0
    S.as_on[b] = False
    S.as_ready[b] = False
    S.rq_on[b] = False
    S.rq_head[b] = 0
    S.rq_tail[b] = 0


@_jit
def _start_round(S: Any, b: int) -> bool:
    """True: the deck is empty and is to be refilled now (`_resume`, `START`)."""
    S.turn[b] = (S.dealer[b] + 1) % S.P
    ev_row(S.ev, S.ev_n, b, ROUND_STARTED, S.rnd[b], S.dealer[b], 0)
    S.rshuf[b] = 0
    S.deal_on[b] = True
    S.deal_pos[b] = 0
    if S.dtop[b] >= S.dend[b]:
        for c in range(S.C):
            if S.discard[b, c] > 0:
                return True
    return False


@_jit
def _round_end_events(S: Any, b: int) -> None:
    """The rows of a round end before the table is cleared: the scores, then the pending
    work ending with the round (`flip7ref.batch.settle.Settling._round_end_events`)."""
    ev_row(S.ev, S.ev_n, b, ROUND_SCORED, S.rnd[b], S.flip7[b], 0)
    for p in range(S.P):
        ev_row(S.ev, S.ev_n, b, PAYLOAD, p, S.last_scores[b, p], S.totals[b, p])
    if S.ct_on[b]:
        ev_row(S.ev, S.ev_n, b, DISCARDED, S.ct_card[b], -1, ROUND_ENDED)
    if S.as_on[b]:
        for j in range(S.as_n[b]):
            ev_row(S.ev, S.ev_n, b, DISCARDED, S.as_cards[b, j], -1, ROUND_ENDED)
    if S.fd_on[b]:
        ev_row(S.ev, S.ev_n, b, FD_ENDED, S.fd_target[b], S.fd_card[b], O_ROUND)
        for j in range(S.fd_n[b]):
            if S.fd_aside[b, j] != S.fd_card[b]:  # as the reference: the draw's own card goes unannounced
                ev_row(S.ev, S.ev_n, b, DISCARDED, S.fd_aside[b, j], -1, ROUND_ENDED)
    if S.rq_on[b]:
        for j in range(S.rq_head[b], S.rq_tail[b]):
            ev_row(S.ev, S.ev_n, b, DISCARDED, S.rq_card[b, j], -1, ROUND_ENDED)


@_jit
def _round_end(S: Any, b: int) -> bool:
    P = S.P
    f = S.flip7[b]
    best = -(2**31)
    for p in range(P):
        score = 0
        if S.status[b, p] != BUSTED:
            score = int(S.numsum[b, p]) * (1 + int(S.x2[b, p]) * S.mult1) + int(S.modsum[b, p])
        if p == f:
            score += S.bonus
        S.last_scores[b, p] = score
        S.totals[b, p] += score
        best = max(best, int(S.totals[b, p]))
        for c in range(S.C):
            S.discard[b, c] += S.line[b, p, c]
        S.discard[b, S.SC] += S.sc[b, p]
        S.discard[b, S.FREEZE] += S.frz[b, p]
    S.scored[b] = True
    if keeps(S.ev):
        _round_end_events(S, b)
    if S.ct_on[b]:
        S.discard[b, S.ct_card[b]] += 1
    if S.fd_on[b]:
        S.discard[b, S.fd_card[b]] += 1
        for j in range(S.fd_n[b]):
            S.discard[b, S.fd_aside[b, j]] += 1
    if S.as_on[b]:
        for j in range(S.as_n[b]):
            S.discard[b, S.as_cards[b, j]] += 1
    if S.rq_on[b]:
        for j in range(S.rq_head[b], S.rq_tail[b]):
            S.discard[b, S.rq_card[b, j]] += 1
    _clear_table(S, b)
    leaders = 0
    for p in range(P):
        if S.totals[b, p] == best:
            leaders += 1
    if keeps(S.ev) and best >= S.target:
        ev_row(S.ev, S.ev_n, b, GAME_WON if leaders == 1 else TIE, S.rnd[b], 0, 0)
        for p in range(P):
            ev_row(S.ev, S.ev_n, b, PAYLOAD, p, 1 if S.totals[b, p] == best else 0, S.totals[b, p])
    if best >= S.target and leaders == 1:
        S.done[b] = True
        for p in range(P):
            S.winners[b, p] = S.totals[b, p] == best
        return False
    S.dealer[b] = (S.dealer[b] + 1) % P
    S.rnd[b] += 1
    return _start_round(S, b)


@_jit
def _turn_step(S: Any, b: int) -> bool:
    P = S.P
    for j in range(P):
        seat = (S.turn[b] + j) % P
        if S.status[b, seat] == ACTIVE:
            S.turn[b] = seat
            S.offer_ready[b] = True
            return False
    return _round_end(S, b)


@_jit
def _deal_step(S: Any, b: int) -> bool:
    P = S.P
    pp = S.deal_pos[b]
    while pp < P:
        seat = (S.dealer[b] + 1 + pp) % P
        if S.status[b, seat] == ACTIVE:
            if S.llen[b, seat] > 0:
                S.deal_pos[b] = pp + 1
                S.dealoffer[b] = seat
                return False
            if _needs_shuffle(S, b):
                return True
            S.deal_pos[b] = pp + 1
            code = _draw(S, b)
            if code >= 0:
                ev_row(S.ev, S.ev_n, b, DEALT_DEAL, seat, code, 0)
                _receive(S, b, seat, code)
            return False
        pp += 1
    S.deal_on[b] = False
    return False


@_jit
def _fd_finish(S: Any, b: int, bust: bool, outcome: int) -> None:
    S.fd_on[b] = False
    S.discard[b, S.fd_card[b]] += 1
    ev_row(S.ev, S.ev_n, b, FD_ENDED, S.fd_target[b], S.F3, outcome)
    n = S.fd_n[b]
    if n <= 0:
        return
    if bust:
        for j in range(n):
            S.discard[b, S.fd_aside[b, j]] += 1
            ev_row(S.ev, S.ev_n, b, DISCARDED, S.fd_aside[b, j], S.fd_target[b], TARGET_BUSTED)
        S.fd_n[b] = 0
        return
    S.as_on[b] = True
    S.as_ready[b] = False
    S.as_chooser[b] = S.fd_target[b]
    for j in range(S.f3n):
        S.as_cards[b, j] = S.fd_aside[b, j]
        S.as_targets[b, j] = -1
    S.as_n[b] = n
    S.as_k[b] = 0
    S.fd_n[b] = 0


@_jit
def _fd_step(S: Any, b: int) -> bool:
    t = int(S.fd_target[b])
    if S.status[b, t] == BUSTED:
        _fd_finish(S, b, True, O_BUST)
        return False
    if S.fd_rem[b] <= 0:
        _fd_finish(S, b, False, O_COMPLETE)
        return False
    if _needs_shuffle(S, b):
        return True
    code = _draw(S, b)
    if code < 0:
        _fd_finish(S, b, False, O_EXHAUSTED)
        return False
    S.fd_rem[b] -= 1
    ev_row(S.ev, S.ev_n, b, DEALT_F3, t, code, 0)
    if S.aside[code]:  # F7-073: the table's set_aside
        S.fd_aside[b, S.fd_n[b]] = code
        S.fd_n[b] += 1
        ev_row(S.ev, S.ev_n, b, SET_ASIDE, t, code, 0)
    else:
        _receive(S, b, t, code)
    return False


@_jit
def _assign_step(S: Any, b: int) -> None:
    if S.as_k[b] >= S.as_n[b]:
        if not S.rq_on[b]:
            S.rq_on[b] = True
            S.rq_head[b] = 0
            S.rq_tail[b] = 0
        for j in range(S.as_n[b]):
            tail = S.rq_tail[b]
            S.rq_card[b, tail] = S.as_cards[b, j]
            S.rq_seat[b, tail] = S.as_targets[b, j]
            S.rq_chooser[b, tail] = S.as_chooser[b]
            S.rq_tail[b] = tail + 1
        S.as_on[b] = False
        return
    for p in range(S.P):
        if S.status[b, p] == ACTIVE:
            S.as_ready[b] = True
            return
    S.as_targets[b, S.as_k[b]] = -1
    S.as_k[b] += 1


@_jit
def _rq_step(S: Any, b: int) -> None:
    h = S.rq_head[b]
    if h >= S.rq_tail[b]:
        S.rq_on[b] = False
        return
    card = int(S.rq_card[b, h])
    seat = int(S.rq_seat[b, h])
    chooser = int(S.rq_chooser[b, h])
    S.rq_head[b] = h + 1
    if seat >= 0 and S.status[b, seat] == ACTIVE:
        _play(S, b, chooser, seat, card)
    else:
        S.discard[b, card] += 1
        ev_row(S.ev, S.ev_n, b, DISCARDED, card, seat, NOT_ELIGIBLE)


@_jit
def _top(S: Any, b: int) -> int:
    if S.done[b]:
        return _STOP
    if S.flip7[b] >= 0 or S.rover[b]:
        return _ROUND_END
    if S.offer_ready[b] or S.ct_on[b] or S.as_ready[b]:
        return _STOP
    if S.as_on[b]:
        return _AS
    if S.fd_on[b]:
        return _FD
    if S.rq_on[b]:
        return _RQ
    if S.dealoffer[b] >= 0:
        return _STOP
    if S.deal_on[b]:
        return _DEAL
    return _TURN


@_jit
def _settle(S: Any, b: int) -> int:
    """Settle game ``b``; 0 at a decision or over, else the `_resume` code to come back with."""
    while True:
        t = _top(S, b)
        if t == _STOP:
            return 0
        if full(S.ev, S.ev_n, S.ev_room, b):
            return SETTLE + FLUSH
        if t == _TURN:
            if _turn_step(S, b):
                return START
        elif t == _DEAL:
            if _deal_step(S, b):
                return SETTLE
        elif t == _ROUND_END:
            if _round_end(S, b):
                return START
        elif t == _FD:
            if _fd_step(S, b):
                return SETTLE
        elif t == _AS:
            _assign_step(S, b)
        else:
            _rq_step(S, b)


@_jit
def _decide(S: Any, b: int) -> None:
    P = S.P
    actor = S.dealoffer[b] if S.dealoffer[b] >= 0 else S.turn[b]
    kind = OFFER
    card = -1
    for i in range(2 + P):
        S.legal[b, i] = False
    if S.as_ready[b]:
        kind = ASSIGN
        actor = S.as_chooser[b]
        card = S.as_cards[b, S.as_k[b]]
        for p in range(P):
            S.legal[b, 2 + p] = S.status[b, p] == ACTIVE
    if S.ct_on[b]:
        kind = S.ct_purpose[b]
        actor = S.ct_chooser[b]
        card = S.ct_card[b]
        for p in range(P):
            S.legal[b, 2 + p] = S.ct_allowed[b, p]
    if S.done[b]:
        S.kind[b] = TERMINAL
        S.actor[b] = -1
        S.card[b] = -1
        for p in range(P):
            S.legal[b, 2 + p] = False
        return
    if kind == OFFER:
        k = max(actor, 0)
        S.legal[b, HIT] = True
        S.legal[b, STAY] = S.llen[b, k] > 0 or S.sc[b, k] > 0 or S.frz[b, k] > 0
    S.kind[b] = kind
    S.actor[b] = actor
    S.card[b] = card


@_jit
def _act(S: Any, b: int, a: int) -> bool:
    """Take action ``a`` in game ``b``; True (nothing done): the deck is to be refilled first."""
    kind = S.kind[b]
    if kind == OFFER and a != STAY and _needs_shuffle(S, b):
        return True
    S.moves[b] += 1
    actor = int(S.actor[b])
    if kind == OFFER:
        if S.dealoffer[b] >= 0:
            S.dealoffer[b] = -1
        else:
            S.turn[b] = (actor + 1) % S.P
            S.offer_ready[b] = False
        if a == STAY:
            S.status[b, actor] = STAYED
            ev_row(S.ev, S.ev_n, b, EV_STAYED, actor, 0, 0)
        else:
            code = _draw(S, b)
            if code < 0:
                S.status[b, actor] = STAYED
                ev_row(S.ev, S.ev_n, b, STAYED_EMPTY, actor, 0, 0)
            else:
                ev_row(S.ev, S.ev_n, b, DEALT_HIT, actor, code, 0)
                _receive(S, b, actor, code)
    elif kind == PLAY or kind == GIVE:  # noqa: SIM109 - scalar tests, not a tuple, in compiled code
        S.ct_on[b] = False
        t = a - 2
        ev_row(S.ev, S.ev_n, b, TARGET_CHOSEN, actor, S.ct_card[b], t)
        if kind == GIVE:
            S.sc[b, t] += 1
            ev_row(S.ev, S.ev_n, b, SC_GIVEN, actor, t, 0)
        else:
            _play(S, b, actor, t, int(S.ct_card[b]))
    elif kind == ASSIGN:
        ev_row(S.ev, S.ev_n, b, ASSIGNED, actor, S.as_cards[b, S.as_k[b]], a - 2)
        S.as_targets[b, S.as_k[b]] = a - 2
        S.as_k[b] += 1
        S.as_ready[b] = False
    return False


ACT, SETTLE, START, NEW = 1, 2, 3, 4
"""What `_run` does in a game (and the code a game stops with, to be run again after its
deck is refilled): take the action then settle, settle, refill at a round's start
(``rshuf`` back to 0) then settle, or start the first round then settle."""
FLUSH = 8
"""Added to the code a game stops with when its event buffer is to be moved aside first
(`flip7ref.batch.evrows.full`; nothing to refill)."""


@_jit
def _run(S: Any, games: Arr, actions: Arr, mode: Arr, ok: Arr, stop: Arr) -> None:
    A = 2 + S.P
    for i in range(games.size):
        b = games[i]
        m = mode[i]
        if m == ACT:
            a = actions[i]
            if a < 0 or a >= A or not S.legal[b, a]:
                ok[i] = False
                continue
            ok[i] = True
            if full(S.ev, S.ev_n, S.ev_room, b):
                stop[i] = ACT + FLUSH
                continue
            if _act(S, b, a):
                stop[i] = ACT
                continue
        elif m == NEW:
            if full(S.ev, S.ev_n, S.ev_room, b):
                stop[i] = NEW + FLUSH
                continue
            if _start_round(S, b):
                stop[i] = START
                continue
        r = _settle(S, b)
        if r:
            stop[i] = r
            continue
        _decide(S, b)


def _resume(bs: Any, S: Any, games: Arr, actions: Arr, mode: Arr, ok: Arr) -> None:
    """Run `_run` until no game stops: the games that stopped get their deck refilled by the
    NumPy backend's reshuffle (`flip7ref.batch.rules.Rules._reshuffle`: the reference's
    order under ``shuffle="reference"``) and go on where they stopped."""
    while True:
        stop = np.zeros(games.size, np.int8)
        _run(S, games, actions, mode, ok, stop)
        check(S)
        i = np.flatnonzero(stop)
        if i.size == 0:
            return
        games, actions, mode = games[i], actions[i], stop[i]
        ok = ok[i]  # scratch: the actions of the games that stopped were taken (still legal)
        flush = mode >= FLUSH
        if flush.any():  # their event rows moved aside; nothing to refill
            bs.log.spill(games[flush])
            mode[flush] -= FLUSH
        refill = games[~flush]
        if refill.size:
            bs._reshuffle(refill)
        start = mode == START
        bs.rshuf[games[start]] = 0
        mode[start] = SETTLE


def step(bs: Any, actions: Arr, games: Arr) -> Arr:
    """`BatchState.step` for the games ``games`` (int64 indices) taking ``actions`` (int64,
    one per game), compiled; returns the bool array of the actions taken."""
    ok = np.zeros(games.size, bool)
    _resume(bs, pack(bs), games, actions, np.full(games.size, ACT, np.int8), ok)
    return ok


def start(bs: Any, games: Arr) -> None:
    """The end of `BatchState.reset` for the games ``games`` (tables cleared, totals zero):
    start their first round and deal up to the first decision, compiled."""
    n = games.size
    _resume(bs, pack(bs), games, np.zeros(n, np.int64), np.full(n, NEW, np.int8), np.zeros(n, bool))
