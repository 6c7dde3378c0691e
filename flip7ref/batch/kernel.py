"""The batched engines' one scalar rule body, for base Flip 7 and Vengeance alike: one game at
a time, compiled by numba when it is installed, plain Python otherwise (and for the ``python``
backend, `plain`).

Each function takes the games' arrays and sizes as one named tuple ``S`` (`pack`) and a game
index ``b``, and changes that game in place.  A game's pending work is the reference's frame
stack (`flip7ref.core.engine`, the frames of `flip7ref.core.primitives`) in fixed slots,
bottom first: the deal (``DEAL``, F7-020, V-011), a Hit-or-Stay offer at a deal slot
(``DEAL_OFFER``, F7-025, V-018), a target choice (``CHOOSE``: an action played, F7-061,
V-042, a spare Second Chance given, F7-082, or a modifier given away, V-050), a forced draw
(``DRAW``: F7-070, V-043, V-044), its set-aside cards assigned by its target (``ASSIGNING``,
F7-073) and played from one queue (``RESOLVE``, F7-074) or resolved in reveal order
(``IN_ORDER``, V-044), and the card pick of a Swap, Steal or Discard (``PICK``,
V-045..V-047).  A card's behaviour is chosen by the table's facts read into arrays
(`flip7ref.batch.state.KernelState`: its category, rank, modifier amount and operation,
primitive and parameters, traits), never by the edition's name: base Flip 7 is this body
with a deck that holds no Vengeance card.

The reshuffle stays in Python: a game whose deck is to be refilled stops before the draw
(nothing changed yet), the state refills the decks of the games that stopped (the
reference's order under ``shuffle="reference"``) and the loop runs again for them
(`resume`).  With ``peek`` set (a one-move lookahead, `flip7ref.batch.v_policies`) a game
stops before any card is drawn, where the reference's settling stops at a chance node, and
is left there.  The kernel is one module on purpose: numba's disk cache checks only the file
of each compiled function, so a caller in another file would keep a stale compiled callee.
"""

from __future__ import annotations

import importlib.util
from collections import namedtuple
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar, cast

import numpy as np

from flip7ref.batch.evlog import (
    ASSIGNED,
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
    NO_ELIGIBLE,
    NO_TARGET,
    NOT_ELIGIBLE,
    O_BUST,
    O_COMPLETE,
    O_EXHAUSTED,
    O_ROUND,
    O_SEVEN,
    PAYLOAD,
    ROUND_ENDED,
    ROUND_SCORED,
    ROUND_STARTED,
    SC_GIVEN,
    SC_KEPT,
    SC_USED,
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
from flip7ref.batch.evlog import (
    BUSTED as EV_BUSTED,
)
from flip7ref.batch.evlog import FLIP7 as EV_FLIP7
from flip7ref.batch.evlog import FROZEN as EV_FROZEN
from flip7ref.batch.evlog import STAYED as EV_STAYED
from flip7ref.batch.evrows import ev_row, full, keeps
from flip7ref.core.observation_layout import DECISION_KINDS

Arr = np.ndarray[Any, Any]
F = TypeVar("F", bound=Callable[..., Any])

ACTIVE, STAYED, FROZEN, BUSTED = 0, 1, 2, 3
"""Player statuses, in the order of the observation's ``status`` section."""
OFFER, PLAY, GIVE, ASSIGN, CARDS, TERMINAL = (
    DECISION_KINDS.index(k) for k in ("offer", "play", "give", "assign", "cards", "terminal")
)
"""Decision kinds as indices of `flip7ref.core.observation_layout.DECISION_KINDS`."""
HIT, STAY = 0, 1
NONE, DEAL, DEAL_OFFER, CHOOSE, DRAW, IN_ORDER, PICK, ASSIGNING, RESOLVE = range(9)
"""Frame types of the stack slots (``NONE``: the stack is empty)."""
STEAL, SWAP, DISCARD, FORCED, FREEZE, SHIELD = 1, 2, 3, 4, 5, 6
"""Primitives of action cards (``prim``), 0 for the other cards."""


def _names(words: str) -> list[str]:
    return words.split()


ARRAYS = _names(
    "deck dtop dend unseen discard line lorder llen status barred totals last_scores scored dealer turn rnd "
    "flip7 done winners rshuf mark sp ft fa fb fc fd fcards fn fallow moves kind actor legal wide card ev ev_n "
    "sc frz ffirst fseat rq_card rq_seat rq_chooser rq_head rq_tail "
    "is_num is_mod rank same addv prim fcount then_stay aside assign_all only_active kcodes pairs"
)
"""The attributes of the state the kernel reads and writes (``ev``, ``ev_n``: the event rows,
`flip7ref.batch.evlog`, None when no log is kept; ``mark``: the round's progress at its last
reshuffle under reading ``unlimited`` (-1: none yet); ``sc``, ``frz``: the bust shields and
Freezes kept in front, ``ffirst`` a Freeze first among them; ``fseat``: an assignment's
seats; ``rq_*``: the queue of assigned cards; the last thirteen: the card tables read from the
edition table (``same[c]``: the codes of ``c``'s rank, -1 after them), `flip7ref.batch.state`)."""

SCALARS = _names(
    "P C K HALF DIV MUL MULF FLOOR ZERO NOSTAY U7 L13 SC FRZ hold STAY_ANY MOD_RECV bonus target reshuffles UNLIM F7N W "
    "steal_at discard_at swap_at ev_room peek"
)
"""Sizes and the table's facts as numbers (a card code is -1 where the table has none): the
dividing card and its divisor (V-052), the multiplying card and its factor (F7-091), whether
a score is floored at 0 (V-060); the cards of the traits ``zero`` (V-030), ``no_stay``
(V-031), ``wipe_on_enter`` (V-033), ``pair_allowed`` (V-036); the bust shield (F7-080) and
its hold limit (F7-082), the Freeze (F7-060); Stay needs a card (F7-033); modifiers go to
their receiver (F7-035) rather than a chosen player (V-050); the Flip 7 bonus and line
length (F7-050, V-022), the target (F7-120, V-073), the reshuffles a round (F7-116, V-075)
and whether they are ``unlimited`` (F7-117, V-076), the
forced draws' most cards, the action blocks' first indices; ``peek``: stop before every draw."""

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


def _inline(f: F) -> F:
    """`_jit` for a function on the hot path of a decision, inlined into its callers by numba: a
    call passes the state's sixty arrays one field at a time (hundreds of words), which cost
    more than the rule itself (a decision took four times as long with these called)."""
    if numba is None or globals().get("_PLAIN"):
        return f
    return cast(F, cast(Any, numba.njit)(cache=True, _nrt=False, inline="always")(f))


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


@_inline
def _progress(S: Any, b: int) -> int:
    """`flip7ref.core.pile.progress`: the cards in front of the players (lines and kept cards)
    plus the players out of the round."""
    n = 0
    for p in range(S.P):
        n += S.llen[b, p] + S.sc[b, p] + S.frz[b, p] + (S.status[b, p] != ACTIVE)
    return n


@_inline
def _pile_left(S: Any, b: int) -> bool:
    """Game ``b``'s deck is empty, its discard pile is not and the round may still reshuffle (F7-116)."""
    if S.dtop[b] < S.dend[b] or S.rshuf[b] >= S.reshuffles:
        return False
    for c in range(S.C):  # noqa: SIM110 - a plain loop compiles to the simplest code
        if S.discard[b, c] > 0:
            return True
    return False


@_inline
def _draw_stop(S: Any, b: int) -> int:
    """0, or why game ``b`` stops before a card is drawn (nothing changed yet): `PEEK`, or
    `REFILL` when its deck is empty and is refilled now (`flip7ref.core.pile.may_reshuffle`,
    F7-116, F7-117, V-075, V-076: under ``unlimited`` not when the round has made no progress
    since its last reshuffle; the progress is marked)."""
    if S.peek:
        return PEEK
    if not _pile_left(S, b):
        return 0
    if S.UNLIM:
        now = _progress(S, b)
        if S.mark[b] >= 0 and now <= S.mark[b]:
            return 0
        S.mark[b] = now
    return REFILL


@_inline
def _draw(S: Any, b: int) -> int:
    """The top card of game ``b``'s pile, taken off it; -1 (and ``deck_exhausted``, F7-115; its
    reason when the loop guard refused a reshuffle, F7-117) when none is left."""
    if S.dtop[b] >= S.dend[b]:
        ev_row(S.ev, S.ev_n, b, DECK_EXHAUSTED, 1 if S.UNLIM and _pile_left(S, b) else 0, 0, 0)
        return -1
    code = int(S.deck[b, S.dtop[b]])
    S.dtop[b] += 1
    S.unseen[b, code] -= 1
    return code


# ------------------------------------------------------------------ lines


@_inline
def _append(S: Any, b: int, s: int, code: int) -> None:
    """Card ``code`` joins the end of seat ``s``'s line."""
    S.line[b, s, code] += 1
    n = S.llen[b, s]
    S.lorder[b, s, n] = code
    S.llen[b, s] = n + 1


@_inline
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


@_inline
def _numbers_in(S: Any, b: int, s: int) -> int:
    n = 0
    for c in range(S.C):
        if S.is_num[c]:
            n += S.line[b, s, c]
    return n


@_inline
def _number(S: Any, b: int, s: int, code: int) -> None:
    """`flip7ref.core.targets.receive_number`: Unlucky 7 wipes the line (V-033); a repeated rank
    busts (F7-040, V-020) unless Lucky 13 allows the pair (V-036) or a kept Second Chance
    cancels it (F7-080); else the card joins and may make the Flip 7 (F7-050, V-022, D-V-03
    ``twice``: number cards count, a line that has not busted holds distinct ranks in the base
    game; D-V-26: not when barred)."""
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
    for j in range(S.same.shape[1]):
        c = S.same[code, j]
        if c < 0:
            break
        same += S.line[b, s, c]
    pair = S.L13 >= 0 and same == 1 and r == S.rank[S.L13] and (code == S.L13 or S.line[b, s, S.L13] > 0)
    if same >= 1 and not pair and S.sc[b, s] > 0:  # F7-080: a kept bust shield cancels the bust
        S.sc[b, s] -= 1
        S.discard[b, code] += 1
        S.discard[b, S.SC] += 1
        ev_row(S.ev, S.ev_n, b, SC_USED, s, code, 0)
        return
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
    """A card moved from another line enters seat ``s``'s line (`flip7ref.core.targets.enter`, V-087 ``end``)."""
    if S.is_num[code]:
        _number(S, b, s, code)
    else:
        _append(S, b, s, code)


# ------------------------------------------------------------------ the stack


@_inline
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


@_inline
def _top(S: Any, b: int) -> int:
    """The frame type on top of game ``b``'s stack (``NONE`` when empty)."""
    if S.sp[b] == 0:
        return NONE
    return int(S.ft[b, S.sp[b] - 1])


@_inline
def _face(S: Any, b: int, p: int) -> bool:
    """Seat ``p``'s line shows cards actions can move (`flip7ref.core.targets.faceup`)."""
    return bool(S.status[b, p] != BUSTED and S.llen[b, p] > 0)


# ------------------------------------------------------------------ cards arriving


@_inline
def _eligible(S: Any, b: int, p: int, code: int) -> bool:
    """Seat ``p`` may be the target of card ``code``: active for a card whose ``targets`` are
    ``active`` (F7-061, F7-072: a stayed player is protected, F7-034), else not busted (V-014)."""
    if S.only_active[code]:
        return bool(S.status[b, p] == ACTIVE)
    return bool(S.status[b, p] != BUSTED)


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
        ok = usable and _eligible(S, b, p, code)
        S.fallow[b, i, p] = ok
        some = some or ok
    if not some:
        S.discard[b, code] += 1
        ev_row(S.ev, S.ev_n, b, DISCARDED, code, s, NO_TARGET)
        return
    _push(S, b, CHOOSE, code, s, PLAY, 0)


@_jit
def _second_chance(S: Any, b: int, s: int, code: int) -> None:
    """F7-082: a bust shield is kept when the receiver holds fewer than the hold limit (and has
    not busted); a spare goes to an active player below the limit (the receiver picks), else to
    the discard pile."""
    if S.sc[b, s] < S.hold and S.status[b, s] != BUSTED:
        S.sc[b, s] += 1
        ev_row(S.ev, S.ev_n, b, SC_KEPT, s, 0, 0)
        return
    i = S.sp[b]
    some = False
    for p in range(S.P):
        ok = S.status[b, p] == ACTIVE and S.sc[b, p] < S.hold and p != s
        S.fallow[b, i, p] = ok
        some = some or ok
    if not some:
        S.discard[b, code] += 1
        ev_row(S.ev, S.ev_n, b, DISCARDED, code, s, NO_ELIGIBLE)
        return
    _push(S, b, CHOOSE, code, s, GIVE, 0)


@_inline
def _receive(S: Any, b: int, s: int, code: int) -> None:
    """Card ``code`` arrives for seat ``s`` (`flip7ref.core.targets.receive`): a number enters the
    line; a modifier joins it (F7-035) or is given to a chosen player (V-050); a bust shield is
    kept or given (F7-082); another action is played on a chosen player (F7-061, V-042)."""
    if S.is_num[code]:
        _number(S, b, s, code)
    elif S.is_mod[code] and S.MOD_RECV:
        _append(S, b, s, code)
    elif S.prim[code] == SHIELD:
        _second_chance(S, b, s, code)
    else:
        _offer_target(S, b, s, code)


@_jit
def _play(S: Any, b: int, chooser: int, seat: int, code: int) -> None:
    """Card ``code``, played by ``chooser``, takes effect on ``seat`` (`flip7ref.core.targets.play`):
    a modifier joins the line (V-050); a Freeze freezes (F7-060); a forced draw starts (F7-070,
    V-043, V-044); a Swap, Steal or Discard opens its card pick (V-045..V-047; the Discard's
    pick by its giver, D-V-11)."""
    prim = S.prim[code]
    if S.is_mod[code]:
        _append(S, b, seat, code)
    elif prim == FREEZE:  # F7-060, F7-062: kept in front
        S.ffirst[b, seat] = S.sc[b, seat] == 0
        S.status[b, seat] = FROZEN
        S.frz[b, seat] += 1
        ev_row(S.ev, S.ev_n, b, EV_FROZEN, seat, chooser, 0)
    elif prim == FORCED:
        i = _push(S, b, DRAW, seat, chooser, code, S.fcount[code])
        for j in range(S.W):
            S.fcards[b, i, j] = -1
        ev_row(S.ev, S.ev_n, b, FD_BEGUN, seat, chooser, code)
    else:
        _push(S, b, PICK, code, chooser if prim == DISCARD else seat, seat, 0)


@_inline
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
    """`ForcedDraw.finish` for the draw in slot ``i`` (already popped): the card is discarded
    (F7-078); a ``then_stay`` card makes its target stay (V-043) and bars a ``no_stay``
    holder's Flip 7 (D-V-26); the set-aside cards are discarded on a bust (F7-073), else
    assigned by the target (``assign-all-first``, F7-073) or resolved in reveal order (V-044)."""
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
    if S.assign_all[card]:  # F7-073, D-F7-12: the target assigns every card, then they are played
        slot = _push(S, b, ASSIGNING, t, 0, 0, 0)
        for j in range(S.W):
            S.fcards[b, slot, j] = S.fcards[b, i, j]
            S.fseat[b, slot, j] = -1
        S.fn[b, slot] = n
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
def _assign_step(S: Any, b: int) -> bool:
    """`flip7ref.core.primitives.forced_draw.Assign.settle`: all assigned, the cards join the queue
    (F7-074, D-F7-13 ``queue``: a nested draw's cards join the one queue below); a card with no
    active seat to go to is marked discarded; else True: the assigner decides."""
    i = S.sp[b] - 1
    k = S.fd[b, i]
    if k < S.fn[b, i]:
        for p in range(S.P):
            if S.status[b, p] == ACTIVE:
                return True
        S.fseat[b, i, k] = -1
        S.fd[b, i] = k + 1
        return False
    chooser = S.fa[b, i]
    n = S.fn[b, i]
    if i > 0 and S.ft[b, i - 1] == RESOLVE:  # the queue below, its played cards dropped: it holds cards in play
        h = S.rq_head[b]
        for j in range(S.rq_tail[b] - h):
            S.rq_card[b, j] = S.rq_card[b, h + j]
            S.rq_seat[b, j] = S.rq_seat[b, h + j]
            S.rq_chooser[b, j] = S.rq_chooser[b, h + j]
        S.rq_tail[b] -= h
        S.rq_head[b] = 0
    for j in range(n):  # the cards and seats copied to the queue's end first: a new queue takes this slot
        tail = S.rq_tail[b] + j if i > 0 and S.ft[b, i - 1] == RESOLVE else j
        S.rq_card[b, tail] = S.fcards[b, i, j]
        S.rq_seat[b, tail] = S.fseat[b, i, j]
        S.rq_chooser[b, tail] = chooser
    S.sp[b] -= 1
    if _top(S, b) != RESOLVE:
        _push(S, b, RESOLVE, 0, 0, 0, 0)
        S.rq_head[b] = 0
        S.rq_tail[b] = 0
    S.rq_tail[b] += n
    return False


@_jit
def _resolve_step(S: Any, b: int) -> None:
    """`flip7ref.core.primitives.forced_draw.Resolve.settle`: the next assigned card acts on its
    seat if it may still take it (F7-074, F7-075), else is discarded."""
    h = S.rq_head[b]
    if h >= S.rq_tail[b]:
        S.sp[b] -= 1
        return
    card = S.rq_card[b, h]
    seat = S.rq_seat[b, h]
    S.rq_head[b] = h + 1
    if seat >= 0 and _eligible(S, b, seat, card):
        _play(S, b, S.rq_chooser[b, h], seat, card)
    else:
        S.discard[b, card] += 1
        ev_row(S.ev, S.ev_n, b, DISCARDED, card, seat, NOT_ELIGIBLE)


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
    """What seat ``p``'s line scores now, the table's scoring pipeline (F7-100, V-060): the
    numbers, times the multiplying card's factor (F7-091) or divided rounding down (V-052),
    plus the modifiers, floored at 0 where the table says so; a line holding the ``zero`` card
    scores 0 unless it made the Flip 7 (V-030); the bonus for its maker (F7-050); 0 when busted
    (F7-101)."""
    if S.status[b, p] == BUSTED:
        return 0
    v = 0
    m = 0
    for j in range(S.llen[b, p]):  # the line's cards in order: a few, not every card kind
        c = S.lorder[b, p, j]
        v += int(S.rank[c])
        m += int(S.addv[c])
    if S.MUL >= 0 and S.line[b, p, S.MUL] > 0:
        v = v * S.MULF
    if S.HALF >= 0 and S.line[b, p, S.HALF] > 0:
        v = v // S.DIV
    v = v + m
    if S.FLOOR:
        v = max(v, 0)
    maker = S.flip7[b] == p
    if S.ZERO >= 0 and S.line[b, p, S.ZERO] > 0 and not maker:
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
        elif t == ASSIGNING:
            for j in range(S.fn[b, k]):
                out[b, S.fcards[b, k, j]] += 1
        elif t == RESOLVE:
            for j in range(S.rq_head[b], S.rq_tail[b]):
                out[b, S.rq_card[b, j]] += 1


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
        elif t == ASSIGNING:
            for j in range(S.fn[b, k]):
                ev_row(S.ev, S.ev_n, b, DISCARDED, S.fcards[b, k, j], -1, ROUND_ENDED)
        elif t == RESOLVE:
            for j in range(S.rq_head[b], S.rq_tail[b]):
                ev_row(S.ev, S.ev_n, b, DISCARDED, S.rq_card[b, j], -1, ROUND_ENDED)


@_jit
def _start_round(S: Any, b: int) -> bool:
    """V-071, V-011: the round starts from the dealer's left with the deal; True: the deck is
    empty and is to be refilled now (not one of the round's reshuffles)."""
    S.turn[b] = (S.dealer[b] + 1) % S.P
    ev_row(S.ev, S.ev_n, b, ROUND_STARTED, S.rnd[b], S.dealer[b], 0)
    S.rshuf[b] = 0
    S.mark[b] = -1
    _push(S, b, DEAL, 0, 0, 0, 0)
    if S.dtop[b] >= S.dend[b]:
        for c in range(S.C):
            if S.discard[b, c] > 0:
                return True
    return False


@_jit
def _round_end(S: Any, b: int) -> bool:
    """F7-100..F7-102, V-060: score the round; F7-111, V-070, V-071: the table (lines and kept
    cards) and the pending work to the discard pile; then the game ends (F7-120, V-073;
    F7-121, V-074: another round on a tie) or the next round starts (F7-112; True: its deck is
    to be refilled first)."""
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
        if S.sc[b, p]:
            S.discard[b, S.SC] += S.sc[b, p]
        if S.frz[b, p]:
            S.discard[b, S.FRZ] += S.frz[b, p]
        S.sc[b, p] = 0
        S.frz[b, p] = 0
        S.ffirst[b, p] = False
    _held(S, b, S.discard)  # the cards of the pending work
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


@_inline
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
        elif t == ASSIGNING:
            if _assign_step(S, b):
                return 0
        elif t == RESOLVE:
            _resolve_step(S, b)
        else:
            _in_order_step(S, b)
        if r:
            return SETTLE if r == REFILL else SETTLE + PEEK


@_inline
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
        kind = S.fc[b, i]  # PLAY, or GIVE for a spare bust shield
        actor = S.fb[b, i]
        card = S.fa[b, i]
        for p in range(P):
            S.legal[b, 2 + p] = S.fallow[b, i, p]
    elif t == PICK:
        kind = CARDS
        actor = S.fb[b, i]
        card = S.fa[b, i]
        _picks(S, b, i)
    elif t == ASSIGNING:
        kind = ASSIGN
        actor = S.fa[b, i]
        card = S.fcards[b, i, S.fd[b, i]]
        for p in range(P):
            S.legal[b, 2 + p] = S.status[b, p] == ACTIVE
    else:
        if t == DEAL_OFFER:
            actor = S.fa[b, i]
        S.legal[b, HIT] = True
        S.legal[b, STAY] = (  # F7-033: with a card (in the line or kept) if the table says so; V-031: not with no_stay
            not S.STAY_ANY or S.llen[b, actor] > 0 or S.sc[b, actor] > 0 or S.frz[b, actor] > 0
        ) and (S.NOSTAY < 0 or S.line[b, actor, S.NOSTAY] == 0)
    S.kind[b] = kind
    S.actor[b] = actor
    S.card[b] = card


@_inline
def _act(S: Any, b: int, a: int) -> int:
    """Take action ``a`` in game ``b``; else (nothing done) `_draw_stop`'s answer for a Hit."""
    t = _top(S, b)
    i = S.sp[b] - 1
    offer = t != CHOOSE and t != PICK and t != ASSIGNING  # else the top is NONE or DEAL_OFFER: an offer
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
        if S.fc[b, i] == GIVE:  # F7-082: the spare bust shield given
            S.sc[b, a - 2] += 1
            ev_row(S.ev, S.ev_n, b, SC_GIVEN, chooser, a - 2, 0)
        else:
            _play(S, b, chooser, a - 2, code)
    elif t == ASSIGNING:
        k = S.fd[b, i]
        ev_row(S.ev, S.ev_n, b, ASSIGNED, S.fa[b, i], S.fcards[b, i, k], a - 2)
        S.fseat[b, i, k] = a - 2
        S.fd[b, i] = k + 1
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
