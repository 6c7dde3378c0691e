"""The compiled backend's event log: events as rows of numbers, made into events when read.

`flip7ref.batch.state.KernelState.record_events` (both editions, both backends of the kernel
`flip7ref.batch.kernel`) gives each game a buffer of `FIELDS` int32 columns (``ev``, shape ``(B, capacity, FIELDS)``,
``ev_n`` rows used).  The compiled step writes one row per event (a kind code below and up
to three numbers: seats, card codes, a reason code); a round's scores, a win and a tie take
one row and one `PAYLOAD` row per seat.  Before each automatic step (and before an action,
and a round's start) a game whose buffer has fewer than `room` rows free stops, as it does
for a reshuffle, with nothing changed yet; its rows are moved aside (`EventLog.spill`) and
it goes on.  Every write into the buffer is checked against its end as well: a row that
would fall past it is counted, not written, and the step then raises (`check`).

`EventLog` is what ``BatchState.log`` holds then: ``log[game]`` makes the game's rows into
events of `flip7ref.core.events` (the same events, in the same order, the NumPy backend
appends one by one) the first time they are read, and keeps them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, SupportsIndex

import numpy as np

from flip7ref.core import events as ev
from flip7ref.core.errors import Flip7RefError, OptionError
from flip7ref.core.model import Event

Arr = np.ndarray[Any, Any]

FIELDS = 4
"""Columns of a row: the kind, then three numbers."""

(DEALT_DEAL, DEALT_HIT, DEALT_FD, STAYED, STAYED_EMPTY, DECK_EXHAUSTED, TARGET_CHOSEN, SC_GIVEN, FROZEN,
 FD_BEGUN, ASSIGNED, SC_USED, BUSTED, FLIP7, SC_KEPT, DISCARDED, FD_ENDED, SET_ASIDE, ROUND_SCORED,
 GAME_WON, TIE, ROUND_STARTED, RESHUFFLED, PAYLOAD, LINE_WIPED, STOLEN, CARD_DISCARDED, SWAPPED,
 STAYED_CARD) = range(1, 30)  # fmt: skip
"""Row kinds (0 is never written).  ``line_wiped`` is (seat, n) then n `PAYLOAD` rows (a code
each), ``swapped`` (seat, first, its card) then one (second, its card); a forced draw's start
and cards name its card."""

REASONS = ("no valid target", "no eligible player", "target busted", "target no longer eligible", "round ended")
"""``discarded`` reasons by code (the row's third number)."""
NO_TARGET, NO_ELIGIBLE, TARGET_BUSTED, NOT_ELIGIBLE, ROUND_ENDED = range(5)

OUTCOMES = ("bust", "complete", "exhausted", "round ended", "seven numbers")
"""``forced_draw_ended`` outcomes by code."""
O_BUST, O_COMPLETE, O_EXHAUSTED, O_ROUND, O_SEVEN = range(5)


def room(players: int, held: int) -> int:
    """The most rows one automatic step, an action or a round's start can write in a game,
    with a reshuffle after it: a round end writes its scores (one row and one a seat), the
    cards pending work holds (at most ``held`` rows, a wiped line's counted in), the win or
    tie (one row and one a seat), the next round's start."""
    return 2 * (players + 1) + held + 8


def capacity(players: int, held: int, asked: int | None = None) -> int:
    """The rows of each game's buffer: ``asked``, else four times `room` (at least 128).

    Raises:
        OptionError: ``asked`` is not a whole number of at least twice `room` (a game
            whose rows are moved aside must have room for the next step).
    """
    need = 2 * room(players, held)
    if asked is None:
        return max(128, 2 * need)
    if isinstance(asked, bool) or not isinstance(asked, int | np.integer) or asked < need:
        raise OptionError(f"capacity: expected a whole number of rows >= {need} for {players} players, got {asked!r}")
    return int(asked)


def check(state: Any) -> None:
    """After a compiled run: raise if a game's rows ran past its buffer (never expected:
    `room` bounds a step's rows and a game stops before a step without that room).

    Raises:
        Flip7RefError: the games whose rows did not fit (their events are incomplete).
    """
    cap = 0 if state.ev is None else state.ev.shape[1]
    if cap and int(state.ev_n.max(initial=0)) > cap:
        bad = np.flatnonzero(state.ev_n > cap)
        raise Flip7RefError(f"event log: games {bad.tolist()[:5]} wrote more than the {cap} rows of their buffer")


_BITS = 18
_WEIGHTS = np.array([1, 1 << 5, 1 << (5 + _BITS), 1 << (5 + 2 * _BITS)], np.int64)
"""The kind (below 32) in 5 bits, each number in `_BITS`: 59 bits in all."""


def _key(part: Arr) -> Arr:
    """One int64 per row naming it whole (its kind and three numbers, each number from -1 up in
    `_BITS` bits); -1 for a row with a number out of that range (not named)."""
    p = part.astype(np.int64) + 1
    if p.size and (int(p.min()) < 0 or int(p.max()) >= 1 << _BITS):
        fits = ((p >= 0) & (p < 1 << _BITS)).all(1)
        p[~fits] = 0
        out: Arr = np.where(fits, p @ _WEIGHTS, -1)
        return out
    keys: Arr = p @ _WEIGHTS
    return keys


class EventLog:
    """``log[game]``: the events of each game of a compiled `flip7ref.batch.core.BatchState`, as a
    list of `flip7ref.core.model.Event` (made from the game's rows when read, then kept); ``log[game]
    = []`` (or None) forgets them.  Indexing takes a game index ``0..B-1``."""

    def __init__(self, owner: Any) -> None:
        self._owner = owner
        self._lists: list[list[Event] | None] = [[] for _ in range(owner.B)]
        self._spilled: list[list[Arr]] = [[] for _ in range(owner.B)]
        ids, sc = owner.ids, owner.SC
        self._ids: list[str] = [ids[c] for c in range(owner.C)]
        self._sc, self._P = self._ids[sc] if sc >= 0 else "", int(owner.P)
        self._count = [int(n) for n in owner.fcount]  # a forced draw's count by card
        self._made: dict[int, Event] = {}  # the event of each row seen (`_key`): events are immutable

    def __len__(self) -> int:
        return len(self._lists)

    def __iter__(self) -> Iterator[list[Event]]:
        for b in range(len(self)):
            yield self[b]

    def __getitem__(self, game: SupportsIndex) -> list[Event]:
        b = self._fold(game)
        return self._lists[b]  # type: ignore[return-value]  # None only after ``log[game] = None``

    def __setitem__(self, game: SupportsIndex, value: list[Event] | None) -> None:
        b = int(game)
        self._lists[b] = value
        self._spilled[b] = []
        self._owner.ev_n[b] = 0

    def copy(self, owner: Any) -> EventLog:
        """The log of ``owner``, a copy of this log's state (its buffer copied with it)."""
        new = object.__new__(EventLog)
        new.__dict__.update(self.__dict__)
        new._owner = owner
        new._lists = [None if x is None else list(x) for x in self._lists]
        new._spilled = [list(x) for x in self._spilled]
        return new

    def spill(self, games: Arr) -> None:
        """Move the rows of the games ``games`` out of their buffers (kept, not yet read)."""
        ev_, n = self._owner.ev, self._owner.ev_n
        for b in games.tolist():
            self._spilled[b].append(ev_[b, : n[b]].copy())
            n[b] = 0

    def reshuffled(self, games: Arr, cards: Arr) -> None:
        """A ``reshuffled`` row for each game of ``games`` (``cards`` in its new deck), written
        by the NumPy reshuffle between compiled runs; a full buffer is moved aside first."""
        ev_, n = self._owner.ev, self._owner.ev_n
        for b, k in zip(games.tolist(), cards.tolist(), strict=True):
            if n[b] >= ev_.shape[1]:
                self.spill(np.array([b]))
            ev_[b, n[b]] = (RESHUFFLED, k, 0, 0)
            n[b] += 1

    def _fold(self, game: SupportsIndex) -> int:
        b = int(game)
        if not 0 <= b < len(self._lists):
            raise IndexError(f"game {b} is not one of the {len(self._lists)} games")
        n = int(self._owner.ev_n[b])
        if n == 0 and not self._spilled[b]:
            return b
        parts = [*self._spilled[b], self._owner.ev[b, :n]]
        out = self._lists[b]
        if out is None:
            out = self._lists[b] = []
        out.extend(self._events(np.concatenate(parts) if len(parts) > 1 else parts[0]))
        self._spilled[b] = []
        self._owner.ev_n[b] = 0
        return b

    def _events(self, part: Arr) -> list[Event]:
        """The events of the rows ``part``: each row's event looked up by `_key` when seen before,
        the others (a round's scores, a win, a tie, rows not seen yet) made by `_decode`."""
        made = self._made
        keys = _key(part).tolist()
        got = [made.get(k) for k in keys]
        if None not in got:
            return got  # type: ignore[return-value]  # no None: checked
        rows = part.tolist()
        P = self._P
        out: list[Event] = []
        k = 0
        while True:
            try:
                j = got.index(None, k)
            except ValueError:
                out.extend(got[k:])  # type: ignore[arg-type]  # no None past k
                return out
            out.extend(got[k:j])  # type: ignore[arg-type]  # no None before j
            kind, x, y, _ = rows[j]
            if kind == ROUND_SCORED:  # the commonest row not looked up: one a round
                seats = rows[j + 1 : j + 1 + P]
                if len(seats) != P or seats[-1][0] != PAYLOAD:
                    raise Flip7RefError(f"event log: a row of kind {kind} is not followed by {P} seat rows")
                out.append(ev.round_scored(x, tuple([r[2] for r in seats]), tuple([r[3] for r in seats]), y if y >= 0 else None))
                k = j + 1 + P
                continue
            span = 1 + (P if kind in (GAME_WON, TIE) else y if kind == LINE_WIPED else 1 if kind == SWAPPED else 0)
            (e,) = self._decode(rows[j : j + span])
            if span == 1 and keys[j] >= 0:
                made[keys[j]] = e
            out.append(e)
            k = j + span

    def _decode(self, rows: list[list[int]]) -> list[Event]:
        ids, P = self._ids, self._P
        out: list[Event] = []
        k = 0
        while k < len(rows):
            kind, x, y, z = rows[k]
            k += 1
            if kind == DEALT_DEAL:
                out.append(ev.dealt(x, ids[y], "deal"))
            elif kind == DEALT_HIT:
                out.append(ev.dealt(x, ids[y], "hit"))
            elif kind == STAYED:
                out.append(ev.stayed(x))
            elif kind == STAYED_EMPTY:
                out.append(ev.stayed(x, "empty deck"))
            elif kind == DECK_EXHAUSTED:
                out.append(ev.deck_exhausted("no progress since the last reshuffle" if x else None))
            elif kind == TARGET_CHOSEN:
                out.append(ev.target_chosen(x, ids[y], z))
            elif kind == SC_GIVEN:
                out.append(ev.second_chance_given(x, y, self._sc))
            elif kind == FROZEN:
                out.append(ev.frozen(x, y))
            elif kind == ASSIGNED:
                out.append(ev.assigned(x, ids[y], z))
            elif kind == SC_USED:
                out.append(ev.second_chance_used(x, ids[y], self._sc))
            elif kind == BUSTED:
                out.append(ev.busted(x, ids[y]))
            elif kind == FLIP7:
                out.append(ev.flip7(x))
            elif kind == SC_KEPT:
                out.append(ev.second_chance_kept(x, self._sc))
            elif kind == DISCARDED:
                out.append(ev.discarded(ids[x], y if y >= 0 else None, REASONS[z]))
            elif kind == FD_ENDED:
                out.append(ev.forced_draw_ended(x, ids[y], OUTCOMES[z]))
            elif kind == SET_ASIDE:
                out.append(ev.set_aside(x, ids[y]))
            elif kind == ROUND_STARTED:
                out.append(ev.round_started(x, y))
            elif kind == RESHUFFLED:
                out.append(ev.reshuffled(x))
            elif kind == LINE_WIPED:
                out.append(ev.line_wiped(x, tuple(ids[r[1]] for r in rows[k : k + y])))
                k += y
            elif kind == STOLEN:
                out.append(ev.stolen(x, ids[y], z))
            elif kind == CARD_DISCARDED:
                out.append(ev.card_discarded(x, ids[y], z))
            elif kind == SWAPPED:
                second, card = rows[k][1], rows[k][2]
                k += 1
                out.append(ev.swapped(x, y, ids[z], second, ids[card]))
            elif kind == STAYED_CARD:
                out.append(ev.stayed(x, ids[y]))
            elif kind == DEALT_FD:
                out.append(ev.dealt(x, ids[y], ids[z]))
            elif kind == FD_BEGUN:
                out.append(ev.forced_draw_started(x, ids[z], y, self._count[z]))
            elif kind in (ROUND_SCORED, GAME_WON, TIE):
                seats = rows[k : k + P]
                k += P
                if len(seats) != P or seats[-1][0] != PAYLOAD:
                    raise Flip7RefError(f"event log: a row of kind {kind} is not followed by {P} seat rows")
                if kind == ROUND_SCORED:
                    scores, totals = tuple(r[2] for r in seats), tuple(r[3] for r in seats)
                    out.append(ev.round_scored(x, scores, totals, y if y >= 0 else None))
                else:
                    leaders = tuple(r[1] for r in seats if r[2])
                    if kind == GAME_WON:
                        out.append(ev.game_won(leaders, tuple(r[3] for r in seats), x))
                    else:
                        out.append(ev.tie_another_round(leaders))
            else:
                raise Flip7RefError(f"event log: unknown row kind {kind}")
        return out
