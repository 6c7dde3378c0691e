"""The batched engines' scalar rule body: one game at a time, compiled by numba when it is
installed, plain Python otherwise (and for the ``python`` backend, `plain`).

Each function takes the games' arrays and sizes as one named tuple ``S`` (`pack`) and a game
index ``b``, and changes that game in place.  A game's pending work is the reference's frame
stack (`flip7ref.core.engine`, the frames of `flip7ref.core.primitives`) in fixed slots,
bottom first: the deal (``DEAL``, V-011), a Hit-or-Stay offer at a deal slot
(``DEAL_OFFER``, V-018), a target choice (``CHOOSE``: a modifier given away, V-050, or an
action played, V-042), a forced draw (``DRAW``: V-043, V-044), the set-aside cards of a
forced draw resolved in reveal order (``IN_ORDER``, V-044) and the card pick of a Swap, Steal
or Discard (``PICK``, V-045..V-047).  A card's behaviour is chosen by the table's facts read
into arrays (its category, rank, modifier amount, primitive, traits), never by the edition's
name.

The reshuffle stays in Python: a game whose deck is to be refilled stops before the draw
(nothing changed yet), `flip7ref.batch.vengeance.VengeanceState` refills the decks of the
games that stopped (the reference's order under ``shuffle="reference"``) and the loop runs
again for them (`resume`).  With ``peek`` set (a one-move lookahead,
`flip7ref.batch.v_policies`) a game stops before any card is drawn, where the reference's
settling stops at a chance node, and is left there.
"""

from __future__ import annotations

import importlib.util
from collections import namedtuple
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar, cast

import numpy as np

from flip7ref.batch.evlog import (
    BUSTED as EV_BUSTED,
)
from flip7ref.batch.evlog import (
    CARD_DISCARDED,
    DEALT_DEAL,
    DEALT_FD,
    DEALT_HIT,
    DECK_EXHAUSTED,
    DISCARDED,
    FD_BEGUN,
    FD_ENDED,
    GAME_WON,
    LINE_WIPED,
    NO_TARGET,
    O_BUST,
    O_COMPLETE,
    O_EXHAUSTED,
    O_ROUND,
    O_SEVEN,
    PAYLOAD,
    ROUND_ENDED,
    ROUND_SCORED,
    ROUND_STARTED,
    SET_ASIDE,
    STAYED_CARD,
    STAYED_EMPTY,
    STOLEN,
    SWAPPED,
    TARGET_BUSTED,
    TARGET_CHOSEN,
    TIE,
    check,
)
from flip7ref.batch.evlog import FLIP7 as EV_FLIP7
from flip7ref.batch.evlog import STAYED as EV_STAYED
from flip7ref.batch.evrows import ev_row, full, keeps
from flip7ref.core.observation_layout import DECISION_KINDS

Arr = np.ndarray[Any, Any]
F = TypeVar("F", bound=Callable[..., Any])

ACTIVE, STAYED, FROZEN, BUSTED = 0, 1, 2, 3
"""Player statuses, in the order of the observation's ``status`` section."""
OFFER, PLAY, CARDS, TERMINAL = (DECISION_KINDS.index(k) for k in ("offer", "play", "cards", "terminal"))
"""Decision kinds as indices of `flip7ref.core.observation_layout.DECISION_KINDS`."""
HIT, STAY = 0, 1
NONE, DEAL, DEAL_OFFER, CHOOSE, DRAW, IN_ORDER, PICK = range(7)
"""Frame types of the stack slots (``NONE``: the stack is empty)."""
STEAL, SWAP, DISCARD, FORCED = 1, 2, 3, 4
"""Primitives of action cards (``prim``), 0 for the other cards."""


def _names(words: str) -> list[str]:
    return words.split()


ARRAYS = _names(
    "deck dtop dend unseen discard line lorder llen status barred totals last_scores scored dealer turn rnd "
    "flip7 done winners rshuf sp ft fa fb fc fd fcards fn fallow moves kind actor legal wide card ev ev_n "
    "is_num is_mod rank addv prim fcount then_stay aside kcodes pairs"
)
"""The attributes of the state the kernel reads and writes (``ev``, ``ev_n``: the event rows,
`flip7ref.batch.evlog`, None when no log is kept; the last ten: the card tables read from the
edition table)."""

SCALARS = _names("P C K HALF DIV ZERO NOSTAY U7 L13 bonus target reshuffles F7N W steal_at discard_at swap_at ev_room peek")
"""Sizes and the table's facts as numbers: the card codes of the traits (``zero``, V-030; ``no_stay``, V-031;
``wipe_on_enter``, V-033; ``pair_allowed``, V-036), the dividing card and its divisor (V-052;
-1 and 1 when none), the Flip 7 bonus and line length (V-022), the target (V-073), the
reshuffles (V-075), the forced draws' most cards, the action blocks' first indices (-1 when
absent); ``peek``: stop before every draw."""

State: Any = cast(Any, namedtuple)("State", ARRAYS + SCALARS)

numba: Any
try:
    import numba  # type: ignore[import-not-found, unused-ignore, no-redef]
except ImportError:  # pragma: no cover - depends on the installation
    numba = None


def _jit(f: F) -> F:
    """``numba.njit`` without the runtime's reference counting (the kernel allocates nothing),
    cached on disk; the function itself when numba is missing or in the `plain` copy."""
    if numba is None or globals().get("_PLAIN"):
        return f
    return cast(F, cast(Any, numba.njit)(cache=True, _nrt=False)(f))


def plain() -> ModuleType:
    """This module loaded once more with every function left as plain Python (the ``python``
    backend: no compile, for tests and where numba is missing)."""
    spec = importlib.util.spec_from_file_location("flip7ref.batch._kernel_plain", __file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module._PLAIN = True  # type: ignore[attr-defined]
    spec.loader.exec_module(module)
    return module


def pack(vs: Any) -> Any:
    """The kernel's view of state ``vs``: its arrays and sizes as one named tuple."""
    arrays = [getattr(vs, name) for name in ARRAYS]
    if not vs.ev.shape[1]:  # no log kept: the kernel compiled without one (`flip7ref.batch.evrows.ev_row`)
        arrays[ARRAYS.index("ev")] = None
    return State(*arrays, *(int(getattr(vs, name)) for name in SCALARS))


REFILL, PEEK = 1, 16
"""What a draw about to happen asks (`_draw_stop`): the deck refilled first, or (``peek``) a stop."""


# ------------------------------------------------------------------ the pile


@_jit
def _draw_stop(S: Any, b: int) -> int:
    """0, or why game ``b`` stops before a card is drawn (nothing changed yet): `PEEK`, or
    `REFILL` when its deck is empty and may be refilled (V-072, V-075)."""
    if S.peek:
        return PEEK
    if S.dtop[b] < S.dend[b] or S.rshuf[b] >= S.reshuffles:
        return 0
    for c in range(S.C):
        if S.discard[b, c] > 0:
            return REFILL
    return 0


@_jit
def _draw(S: Any, b: int) -> int:
    """The top card of game ``b``'s pile, taken off it; -1 (and ``deck_exhausted``) when none is left."""
    if S.dtop[b] >= S.dend[b]:
        ev_row(S.ev, S.ev_n, b, DECK_EXHAUSTED, 0, 0, 0)
        return -1
    code = int(S.deck[b, S.dtop[b]])
    S.dtop[b] += 1
    S.unseen[b, code] -= 1
    return code


# ------------------------------------------------------------------ lines


@_jit
def _append(S: Any, b: int, s: int, code: int) -> None:
    """Card ``code`` joins the end of seat ``s``'s line."""
    S.line[b, s, code] += 1
    n = S.llen[b, s]
    S.lorder[b, s, n] = code
    S.llen[b, s] = n + 1


@_jit
def _bar_lasts(S: Any, b: int, s: int) -> None:
    """V-037 (`flip7ref.core.lines.bar_lasts`): a barred seat is freed once its line no longer
    holds the ``no_stay`` card."""
    if S.barred[b, s] and S.line[b, s, S.NOSTAY] == 0:
        S.barred[b, s] = False


@_jit
def _take(S: Any, b: int, s: int, code: int) -> None:
    """The first card ``code`` of seat ``s``'s line leaves it (`flip7ref.core.primitives.choose_cards.take`)."""
    S.line[b, s, code] -= 1
    n = S.llen[b, s]
    j = 0
    while S.lorder[b, s, j] != code:
        j += 1
    while j < n - 1:
        S.lorder[b, s, j] = S.lorder[b, s, j + 1]
        j += 1
    S.lorder[b, s, n - 1] = -1
    S.llen[b, s] = n - 1
    _bar_lasts(S, b, s)


@_jit
def _numbers_in(S: Any, b: int, s: int) -> int:
    n = 0
    for c in range(S.C):
        if S.is_num[c]:
            n += S.line[b, s, c]
    return n


@_jit
def _number(S: Any, b: int, s: int, code: int) -> None:
    """`flip7ref.core.lines.receive_number`: Unlucky 7 wipes the line (V-033); a repeated rank
    busts (V-020) unless Lucky 13 allows the pair (V-036); else the card joins and may make
    the Flip 7 (V-022, D-V-03 ``twice``: number cards count; D-V-26: not when barred)."""
    if code == S.U7:
        n = S.llen[b, s]
        if n > 0:
            ev_row(S.ev, S.ev_n, b, LINE_WIPED, s, n, 0)
            for j in range(n):
                ev_row(S.ev, S.ev_n, b, PAYLOAD, S.lorder[b, s, j], 0, 0)
        for c in range(S.C):
            S.discard[b, c] += S.line[b, s, c]
            S.line[b, s, c] = 0
        for j in range(n):
            S.lorder[b, s, j] = -1
        S.llen[b, s] = 0
        _append(S, b, s, code)
        _bar_lasts(S, b, s)
        return
    r = S.rank[code]
    same = 0
    for c in range(S.C):
        if S.is_num[c] and S.rank[c] == r:
            same += S.line[b, s, c]
    pair = same == 1 and r == S.rank[S.L13] and (code == S.L13 or S.line[b, s, S.L13] > 0)
    _append(S, b, s, code)
    if same >= 1 and not pair:
        S.status[b, s] = BUSTED
        ev_row(S.ev, S.ev_n, b, EV_BUSTED, s, code, 0)
        return
    if S.llen[b, s] >= S.F7N and S.flip7[b] < 0 and not S.barred[b, s] and _numbers_in(S, b, s) >= S.F7N:
        S.flip7[b] = s
        ev_row(S.ev, S.ev_n, b, EV_FLIP7, s, 0, 0)


@_jit
def _enter(S: Any, b: int, s: int, code: int) -> None:
    """A card moved from another line enters seat ``s``'s line (`flip7ref.core.lines.enter`, V-087 ``end``)."""
    if S.is_num[code]:
        _number(S, b, s, code)
    else:
        _append(S, b, s, code)


# ------------------------------------------------------------------ the stack


@_jit
def _push(S: Any, b: int, kind: int, a: int, x: int, c: int, d: int) -> int:
    """Push a frame of ``kind`` with fields ``a``, ``x``, ``c``, ``d`` on game ``b``; its slot."""
    i = S.sp[b]
    S.ft[b, i] = kind
    S.fa[b, i] = a
    S.fb[b, i] = x
    S.fc[b, i] = c
    S.fd[b, i] = d
    S.fn[b, i] = 0
    S.sp[b] = i + 1
    return int(i)


@_jit
def _top(S: Any, b: int) -> int:
    """The frame type on top of game ``b``'s stack (``NONE`` when empty)."""
    if S.sp[b] == 0:
        return NONE
    return int(S.ft[b, S.sp[b] - 1])


@_jit
def _face(S: Any, b: int, p: int) -> bool:
    """Seat ``p``'s line shows cards actions can move (`flip7ref.core.targets.faceup`)."""
    return bool(S.status[b, p] != BUSTED and S.llen[b, p] > 0)


# ------------------------------------------------------------------ cards arriving


@_jit
def _offer_target(S: Any, b: int, s: int, code: int) -> None:
    """`flip7ref.core.targets.offer_target`: ``s`` chooses who gets the modifier or action
    ``code`` among the players not busted (V-042, V-050); a Swap, Steal or Discard nobody
    could carry out is discarded (V-048, D-V-28 ``fizzle``)."""
    prim = S.prim[code]
    usable = True
    if prim == STEAL or prim == SWAP or prim == DISCARD:  # noqa: SIM109 - scalar tests, not a tuple, in compiled code
        nface = 0
        for p in range(S.P):
            nface += _face(S, b, p)
        usable = False
        for p in range(S.P):
            if prim == STEAL:  # another line than the resolver's shows cards
                usable = usable or (S.status[b, p] != BUSTED and nface - _face(S, b, p) > 0)
            elif prim == SWAP:
                usable = nface >= 2
            else:
                usable = usable or (S.status[b, p] != BUSTED and _face(S, b, p))
    i = S.sp[b]
    some = False
    for p in range(S.P):
        ok = usable and S.status[b, p] != BUSTED
        S.fallow[b, i, p] = ok
        some = some or ok
    if not some:
        S.discard[b, code] += 1
        ev_row(S.ev, S.ev_n, b, DISCARDED, code, s, NO_TARGET)
        return
    _push(S, b, CHOOSE, code, s, 0, 0)


@_jit
def _receive(S: Any, b: int, s: int, code: int) -> None:
    """Card ``code`` arrives for seat ``s`` (`flip7ref.core.targets.receive`): a number enters the
    line; a modifier is given to a chosen player (V-050), an action played on one (V-042)."""
    if S.is_num[code]:
        _number(S, b, s, code)
    else:
        _offer_target(S, b, s, code)


@_jit
def _play(S: Any, b: int, chooser: int, seat: int, code: int) -> None:
    """Card ``code``, played by ``chooser``, takes effect on ``seat`` (`flip7ref.core.targets.play`):
    a modifier joins the line (V-050); a forced draw starts (V-043, V-044); a Swap, Steal or
    Discard opens its card pick (V-045..V-047; the Discard's pick by its giver, D-V-11)."""
    prim = S.prim[code]
    if S.is_mod[code]:
        _append(S, b, seat, code)
    elif prim == FORCED:
        i = _push(S, b, DRAW, seat, chooser, code, S.fcount[code])
        for j in range(S.W):
            S.fcards[b, i, j] = -1
        ev_row(S.ev, S.ev_n, b, FD_BEGUN, seat, chooser, code)
    else:
        _push(S, b, PICK, code, chooser if prim == DISCARD else seat, seat, 0)


@_jit
def _hit(S: Any, b: int, s: int) -> None:
    """A Hit draws one card for seat ``s`` (V-013); with no card left it becomes a Stay (V-072)."""
    code = _draw(S, b)
    if code < 0:
        if S.status[b, s] == ACTIVE:
            S.status[b, s] = STAYED
            ev_row(S.ev, S.ev_n, b, STAYED_EMPTY, s, 0, 0)
        return
    ev_row(S.ev, S.ev_n, b, DEALT_HIT, s, code, 0)
    _receive(S, b, s, code)


# ------------------------------------------------------------------ automatic steps


@_jit
def _deal_step(S: Any, b: int) -> int:
    """V-011, V-018 (`flip7ref.core.engine.Deal`): the deal goes on to the next active seat,
    dealt a card, or asked at its slot when it already holds cards; past the last seat the
    deal is over.  Returns `_draw_stop`'s answer when it stops before a draw."""
    P = S.P
    i = S.sp[b] - 1
    pp = S.fa[b, i]
    while pp < P:
        seat = (S.dealer[b] + 1 + pp) % P
        if S.status[b, seat] == ACTIVE:
            if S.llen[b, seat] > 0:
                S.fa[b, i] = pp + 1
                _push(S, b, DEAL_OFFER, seat, 0, 0, 0)
                return 0
            r = _draw_stop(S, b)
            if r:
                return r
            S.fa[b, i] = pp + 1
            code = _draw(S, b)
            if code >= 0:
                ev_row(S.ev, S.ev_n, b, DEALT_DEAL, seat, code, 0)
                _receive(S, b, seat, code)
            return 0
        pp += 1
    S.sp[b] -= 1
    return 0


@_jit
def _fd_finish(S: Any, b: int, i: int, outcome: int) -> None:
    """`ForcedDraw.finish` for the draw in slot ``i`` (already popped): the card is discarded;
    a ``then_stay`` card makes its target stay (V-043) and bars a ``no_stay`` holder's Flip 7
    (D-V-26); the set-aside cards are discarded on a bust, else resolved in reveal order by
    the target (V-044)."""
    t = S.fa[b, i]
    card = S.fc[b, i]
    S.discard[b, card] += 1
    ev_row(S.ev, S.ev_n, b, FD_ENDED, t, card, outcome)
    if S.then_stay[card]:
        if S.status[b, t] == ACTIVE:
            S.status[b, t] = STAYED
            ev_row(S.ev, S.ev_n, b, STAYED_CARD, t, card, 0)
        if S.status[b, t] != BUSTED and S.line[b, t, S.NOSTAY] > 0:
            S.barred[b, t] = True
    n = S.fn[b, i]
    if n == 0:
        return
    if outcome == O_BUST:
        for j in range(n):
            c = S.fcards[b, i, j]
            S.discard[b, c] += 1
            ev_row(S.ev, S.ev_n, b, DISCARDED, c, t, TARGET_BUSTED)
        return
    k = S.sp[b] - 1
    reuse = k >= 0 and S.ft[b, k] == IN_ORDER and S.fn[b, k] == 0
    slot = k if reuse else _push(S, b, IN_ORDER, t, 0, 0, 0)
    S.fa[b, slot] = t
    for j in range(S.W):
        S.fcards[b, slot, j] = S.fcards[b, i, j]
    S.fn[b, slot] = n


@_jit
def _fd_step(S: Any, b: int) -> int:
    """`flip7ref.core.primitives.forced_draw.ForcedDraw.settle`: the draw ends on a bust, when
    complete or at seven numbers (V-044); else its next card: set aside (the table's
    ``set_aside``) or received at once.  Returns `_draw_stop`'s answer when it stops."""
    i = S.sp[b] - 1
    t = S.fa[b, i]
    if S.status[b, t] == BUSTED:
        S.sp[b] -= 1
        _fd_finish(S, b, i, O_BUST)
        return 0
    if S.fd[b, i] <= 0:
        S.sp[b] -= 1
        _fd_finish(S, b, i, O_COMPLETE)
        return 0
    if S.llen[b, t] >= S.F7N and _numbers_in(S, b, t) >= S.F7N:
        S.sp[b] -= 1
        _fd_finish(S, b, i, O_SEVEN)
        return 0
    r = _draw_stop(S, b)
    if r:
        return r
    code = _draw(S, b)
    if code < 0:
        S.sp[b] -= 1
        _fd_finish(S, b, i, O_EXHAUSTED)
        return 0
    S.fd[b, i] -= 1
    card = S.fc[b, i]
    ev_row(S.ev, S.ev_n, b, DEALT_FD, t, code, card)
    if S.aside[card, code]:
        n = S.fn[b, i]
        S.fcards[b, i, n] = code
        S.fn[b, i] = n + 1
        ev_row(S.ev, S.ev_n, b, SET_ASIDE, t, code, 0)
    else:
        _receive(S, b, t, code)
    return 0


@_jit
def _in_order_step(S: Any, b: int) -> None:
    """`flip7ref.core.primitives.forced_draw.InOrder.settle`: the next set-aside card arrives
    for the forced draw's target, as if just received (V-044, D-V-32 ``all``)."""
    i = S.sp[b] - 1
    n = S.fn[b, i]
    if n == 0:
        S.sp[b] -= 1
        return
    code = S.fcards[b, i, 0]
    for j in range(S.W - 1):
        S.fcards[b, i, j] = S.fcards[b, i, j + 1]
    S.fcards[b, i, S.W - 1] = -1
    S.fn[b, i] = n - 1
    _receive(S, b, S.fa[b, i], code)


@_jit
def _picks(S: Any, b: int, i: int) -> bool:
    """Write the legal card picks of the ``PICK`` frame in slot ``i`` into ``legal[b]``
    (`flip7ref.core.primitives.steal`, ``swap``, ``discard_card``: ``choices``); True when there is one."""
    P, K = S.P, S.K
    prim = S.prim[S.fa[b, i]]
    me = S.fc[b, i]
    some = False
    S.wide[b] = True
    if prim == STEAL:
        for s in range(P):
            if s != me and _face(S, b, s):
                for k in range(K):
                    if S.line[b, s, S.kcodes[k]] > 0:
                        S.legal[b, S.steal_at + s * K + k] = True
                        some = True
    elif prim == DISCARD:
        for k in range(K):
            if S.line[b, me, S.kcodes[k]] > 0:
                S.legal[b, S.discard_at + me * K + k] = True
                some = True
    else:
        for q in range(S.pairs.shape[0]):
            x, y = S.pairs[q, 0], S.pairs[q, 1]
            if _face(S, b, x) and _face(S, b, y):
                for ka in range(K):
                    if S.line[b, x, S.kcodes[ka]] > 0:
                        for kb in range(K):
                            if S.line[b, y, S.kcodes[kb]] > 0:
                                S.legal[b, S.swap_at + (q * K + ka) * K + kb] = True
                                some = True
    return some


@_jit
def _pick(S: Any, b: int, i: int, a: int) -> None:
    """A card pick (action index ``a``) of the ``PICK`` frame in slot ``i`` is carried out (the
    ``move`` of `flip7ref.core.primitives.steal`, ``swap``, ``discard_card``); the action card
    is discarded (V-040)."""
    K = S.K
    card = S.fa[b, i]
    chooser = S.fb[b, i]
    res = S.fc[b, i]
    S.sp[b] -= 1
    if S.steal_at >= 0 and S.steal_at <= a < S.steal_at + S.P * K:
        s, k = divmod(a - S.steal_at, K)
        code = S.kcodes[k]
        _take(S, b, s, code)
        ev_row(S.ev, S.ev_n, b, STOLEN, res, code, s)
        _enter(S, b, res, code)
    elif S.discard_at >= 0 and S.discard_at <= a < S.discard_at + S.P * K:
        s, k = divmod(a - S.discard_at, K)
        code = S.kcodes[k]
        _take(S, b, s, code)
        S.discard[b, code] += 1
        ev_row(S.ev, S.ev_n, b, CARD_DISCARDED, s, code, chooser)
    else:
        q, rest = divmod(a - S.swap_at, K * K)
        ka, kb = divmod(rest, K)
        sa, sb = S.pairs[q, 0], S.pairs[q, 1]
        ca, cb = S.kcodes[ka], S.kcodes[kb]
        _take(S, b, sa, ca)
        _take(S, b, sb, cb)
        ev_row(S.ev, S.ev_n, b, SWAPPED, res, sa, ca)
        ev_row(S.ev, S.ev_n, b, PAYLOAD, sb, cb, 0)
        _enter(S, b, sa, cb)
        _enter(S, b, sb, ca)
    S.discard[b, card] += 1


@_jit
def _pick_step(S: Any, b: int) -> bool:
    """`flip7ref.core.primitives.choose_cards.ChooseCards.settle`: with nothing to pick the card
    is discarded unused (V-048), True; else False: it waits for the pick (a decision)."""
    i = S.sp[b] - 1
    if _picks(S, b, i):
        return False
    card = S.fa[b, i]
    S.sp[b] -= 1
    S.discard[b, card] += 1
    ev_row(S.ev, S.ev_n, b, DISCARDED, card, S.fc[b, i], NO_TARGET)
    return True


# ------------------------------------------------------------------ round end


@_jit
def line_value(S: Any, b: int, p: int) -> int:
    """What seat ``p``'s line scores now (V-060: numbers, the divisor rounding down, modifiers,
    floor 0, a line holding the ``zero`` card scores 0 unless it made the Flip 7 (V-030), the
    bonus for its maker; 0 when busted)."""
    if S.status[b, p] == BUSTED:
        return 0
    v = 0
    m = 0
    for c in range(S.C):
        n = int(S.line[b, p, c])
        v += n * int(S.rank[c])
        m += n * int(S.addv[c])
    if S.HALF >= 0 and S.line[b, p, S.HALF] > 0:
        v = v // S.DIV
    v = max(v + m, 0)
    maker = S.flip7[b] == p
    if S.line[b, p, S.ZERO] > 0 and not maker:
        v = 0
    if maker:
        v += S.bonus
    return v


@_jit
def _held(S: Any, b: int, out: Arr) -> None:
    """Add the cards game ``b``'s pending work holds (`flip7ref.core.frames.Frame.held_cards`) to
    ``out[b]`` (C counts)."""
    for k in range(S.sp[b]):
        t = S.ft[b, k]
        if t == DRAW or t == IN_ORDER:  # noqa: SIM109 - scalar tests, not a tuple, in compiled code
            if t == DRAW:
                out[b, S.fc[b, k]] += 1
            for j in range(S.fn[b, k]):
                out[b, S.fcards[b, k, j]] += 1
        elif t == CHOOSE or t == PICK:  # noqa: SIM109 - scalar tests, not a tuple, in compiled code
            out[b, S.fa[b, k]] += 1


@_jit
def _round_end_events(S: Any, b: int) -> None:
    """The rows of a round end before the table is cleared: the scores, then the pending work
    ending with the round, top first (`flip7ref.core.frames.Frame.end_with_round`)."""
    ev_row(S.ev, S.ev_n, b, ROUND_SCORED, S.rnd[b], S.flip7[b], 0)
    for p in range(S.P):
        ev_row(S.ev, S.ev_n, b, PAYLOAD, p, S.last_scores[b, p], S.totals[b, p])
    for k in range(S.sp[b] - 1, -1, -1):
        t = S.ft[b, k]
        if t == DRAW:
            ev_row(S.ev, S.ev_n, b, FD_ENDED, S.fa[b, k], S.fc[b, k], O_ROUND)
        if t == DRAW or t == IN_ORDER:  # noqa: SIM109 - scalar tests, not a tuple, in compiled code
            for j in range(S.fn[b, k]):
                c = S.fcards[b, k, j]
                if t == IN_ORDER or c != S.fc[b, k]:  # as the reference: the draw's own card goes unannounced
                    ev_row(S.ev, S.ev_n, b, DISCARDED, c, -1, ROUND_ENDED)
        elif t == CHOOSE or t == PICK:  # noqa: SIM109 - scalar tests, not a tuple, in compiled code
            ev_row(S.ev, S.ev_n, b, DISCARDED, S.fa[b, k], -1, ROUND_ENDED)


@_jit
def _start_round(S: Any, b: int) -> bool:
    """V-071, V-011: the round starts from the dealer's left with the deal; True: the deck is
    empty and is to be refilled now (not one of the round's reshuffles)."""
    S.turn[b] = (S.dealer[b] + 1) % S.P
    ev_row(S.ev, S.ev_n, b, ROUND_STARTED, S.rnd[b], S.dealer[b], 0)
    S.rshuf[b] = 0
    _push(S, b, DEAL, 0, 0, 0, 0)
    if S.dtop[b] >= S.dend[b]:
        for c in range(S.C):
            if S.discard[b, c] > 0:
                return True
    return False


@_jit
def _round_end(S: Any, b: int) -> bool:
    """V-060, V-070, V-071: score the round, the table and pending work to the discard pile,
    then the game ends (V-073; V-074 another round on a tie) or the next round starts (True:
    its deck is to be refilled first)."""
    P = S.P
    best = -(2**31)
    for p in range(P):
        score = line_value(S, b, p)
        S.last_scores[b, p] = score
        S.totals[b, p] += score
        best = max(best, int(S.totals[b, p]))
    S.scored[b] = True
    if keeps(S.ev):
        _round_end_events(S, b)
    for p in range(P):
        for c in range(S.C):
            S.discard[b, c] += S.line[b, p, c]
            S.line[b, p, c] = 0
        for j in range(S.llen[b, p]):
            S.lorder[b, p, j] = -1
        S.llen[b, p] = 0
        S.status[b, p] = ACTIVE
        S.barred[b, p] = False
    for k in range(S.sp[b] - 1, -1, -1):
        t = S.ft[b, k]
        if t == DRAW or t == IN_ORDER:  # noqa: SIM109 - scalar tests, not a tuple, in compiled code
            if t == DRAW:
                S.discard[b, S.fc[b, k]] += 1
            for j in range(S.fn[b, k]):
                S.discard[b, S.fcards[b, k, j]] += 1
        elif t == CHOOSE or t == PICK:  # noqa: SIM109 - scalar tests, not a tuple, in compiled code
            S.discard[b, S.fa[b, k]] += 1
    S.flip7[b] = -1
    S.sp[b] = 0
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


# ------------------------------------------------------------------ settling and decisions


@_jit
def _settle(S: Any, b: int) -> int:
    """Run game ``b``'s automatic steps (`flip7ref.core.engine.settle`) until it is at a decision
    or over (0), or stops: the `resume` code to come back with (`SETTLE`, `START`, plus `FLUSH`
    or `PEEK`)."""
    P = S.P
    while True:
        if S.done[b]:
            return 0
        if full(S.ev, S.ev_n, S.ev_room, b):
            return SETTLE + FLUSH
        if S.flip7[b] >= 0:  # V-022: a Flip 7 ends the round at once
            if _round_end(S, b):
                return START
            continue
        t = _top(S, b)
        r = 0
        if t == NONE:  # V-012: the next active seat from the turn on is offered, else the round ends
            found = False
            for j in range(P):
                seat = (S.turn[b] + j) % P
                if S.status[b, seat] == ACTIVE:
                    S.turn[b] = seat
                    found = True
                    break
            if found:
                return 0
            if _round_end(S, b):
                return START
        elif t == DEAL_OFFER or t == CHOOSE:  # noqa: SIM109 - scalar tests, not a tuple, in compiled code
            return 0
        elif t == PICK:
            if not _pick_step(S, b):
                return 0
        elif t == DEAL:
            r = _deal_step(S, b)
        elif t == DRAW:
            r = _fd_step(S, b)
        else:
            _in_order_step(S, b)
        if r:
            return SETTLE if r == REFILL else SETTLE + PEEK


@_jit
def _decide(S: Any, b: int) -> None:
    """Fill ``kind``, ``actor``, ``card`` and ``legal`` of game ``b`` (at a decision or over)."""
    P = S.P
    if S.wide[b]:  # the pick blocks were set: cleared
        for a in range(2 + P, S.legal.shape[1]):
            S.legal[b, a] = False
        S.wide[b] = False
    for a in range(2 + P):
        S.legal[b, a] = False
    if S.done[b]:
        S.kind[b] = TERMINAL
        S.actor[b] = -1
        S.card[b] = -1
        return
    t = _top(S, b)
    i = S.sp[b] - 1
    kind = OFFER
    actor = S.turn[b]
    card = -1
    if t == CHOOSE:
        kind = PLAY
        actor = S.fb[b, i]
        card = S.fa[b, i]
        for p in range(P):
            S.legal[b, 2 + p] = S.fallow[b, i, p]
    elif t == PICK:
        kind = CARDS
        actor = S.fb[b, i]
        card = S.fa[b, i]
        _picks(S, b, i)
    else:
        if t == DEAL_OFFER:
            actor = S.fa[b, i]
        S.legal[b, HIT] = True
        S.legal[b, STAY] = S.line[b, actor, S.NOSTAY] == 0  # V-031: the no_stay card's holder may not stay
    S.kind[b] = kind
    S.actor[b] = actor
    S.card[b] = card


@_jit
def _act(S: Any, b: int, a: int) -> int:
    """Take action ``a`` in game ``b``; else (nothing done) `_draw_stop`'s answer for a Hit."""
    t = _top(S, b)
    i = S.sp[b] - 1
    offer = t != CHOOSE and t != PICK  # at a decision the top is NONE or DEAL_OFFER (an offer), CHOOSE or PICK
    if offer and a != STAY:
        r = _draw_stop(S, b)
        if r:
            return r
    S.moves[b] += 1
    if offer:
        if t == DEAL_OFFER:
            seat = S.fa[b, i]
            S.sp[b] -= 1
        else:
            seat = S.turn[b]
            S.turn[b] = (seat + 1) % S.P
        if a == STAY:
            S.status[b, seat] = STAYED
            ev_row(S.ev, S.ev_n, b, EV_STAYED, seat, 0, 0)
        else:
            _hit(S, b, seat)
    elif t == CHOOSE:
        code = S.fa[b, i]
        chooser = S.fb[b, i]
        S.sp[b] -= 1
        ev_row(S.ev, S.ev_n, b, TARGET_CHOSEN, chooser, code, a - 2)
        _play(S, b, chooser, a - 2, code)
    else:
        _pick(S, b, i, a)
    return 0


ACT, SETTLE, START, NEW = 1, 2, 3, 4
"""What `_run` does in a game (and the code a game stops with, to be run again after its deck
is refilled): take the action then settle, settle, refill at a round's start (``rshuf`` back
to 0) then settle, or start a round then settle."""
FLUSH = 8
"""Added to the code a game stops with when its event buffer is to be moved aside first."""


@_jit
def _run(S: Any, games: Arr, actions: Arr, mode: Arr, ok: Arr, stop: Arr) -> None:
    A = S.legal.shape[1]
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
            r = _act(S, b, a)
            if r:
                stop[i] = ACT if r == REFILL else ACT + PEEK
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


@_jit
def values(S: Any, games: Arr, out: Arr) -> None:
    """``out[i, p]``: what seat ``p``'s line in game ``games[i]`` scores now (`line_value`)."""
    for i in range(games.size):
        for p in range(S.P):
            out[i, p] = line_value(S, games[i], p)


@_jit
def held_counts(S: Any, out: Arr) -> None:
    """``out[b]``: the counts of the cards game ``b``'s pending work holds (`_held`)."""
    for b in range(out.shape[0]):
        if S.sp[b]:
            _held(S, b, out)


def resume(vs: Any, S: Any, games: Arr, actions: Arr, mode: Arr, ok: Arr) -> None:
    """Run `_run` until no game stops: the games that stopped get their deck refilled by
    ``vs.reshuffle`` (the reference's order under ``shuffle="reference"``) or their event rows
    moved aside, and go on where they stopped; games stopped by ``peek`` are left there."""
    while True:
        stop = np.zeros(games.size, np.int8)
        _run(S, games, actions, mode, ok, stop)
        check(S)
        i = np.flatnonzero(stop)
        if i.size == 0:
            return
        i = i[stop[i] < PEEK]
        if i.size == 0:
            return
        games, actions, mode = games[i], actions[i], stop[i]
        ok = ok[i]  # scratch: the actions of the games that stopped were taken (still legal)
        flush = mode >= FLUSH
        if flush.any():  # their event rows moved aside; nothing to refill
            vs.log.spill(games[flush])
            mode[flush] -= FLUSH
        refill = games[~flush]
        if refill.size:
            vs.reshuffle(refill)
        start = mode == START
        vs.rshuf[games[start]] = 0
        mode[start] = SETTLE
