"""The batched engine's automatic steps: settling every game up to its next decision.

`Settling` runs the reference's `flip7ref.core.engine.settle` loop over arrays: the slot on top
of each game's pending work (`flip7ref.batch.rules`) takes one step (the turn passing on,
the deal, a Flip Three, an assignment, the queue of assigned cards, the round end) in every
game that needs one, until each game is at a decision or over.
"""

from __future__ import annotations

import numpy as np

from flip7ref.batch.rules import _AS, _DEAL, _FD, _ROUND_END, _RQ, _STOP, _TURN, ACTIVE, BUSTED, Arr, Rules, _all, _any, set_rows
from flip7ref.core import events as ev
from flip7ref.core.model import Event


class Settling(Rules):
    """The automatic steps of `flip7ref.batch.core.BatchState` (see the module)."""

    # ------------------------------------------------------------------ settling

    def _top(self, g: Arr) -> Arr:
        t = np.full(g.size, _TURN, np.int8)
        t[self.deal_on[g]] = _DEAL
        t[self.dealoffer[g] >= 0] = _STOP
        t[self.rq_on[g]] = _RQ
        t[self.fd_on[g]] = _FD
        t[self.as_on[g]] = _AS
        t[self.as_ready[g]] = _STOP
        t[self.ct_on[g]] = _STOP
        t[self.offer_ready[g]] = _STOP
        t[(self.flip7[g] >= 0) | self.rover[g]] = _ROUND_END
        t[self.done[g]] = _STOP
        return t

    def _settle(self, g: Arr) -> None:
        """Run automatic steps (`flip7ref.core.engine.settle`) until every game in ``g`` is at a
        decision or over."""
        while g.size:
            top = self._top(g)
            keep = top != _STOP
            if not _any(keep):
                return
            g, top = g[keep], top[keep]
            if _all(top == _TURN):  # the commonest case: the turn passes on
                g = self._turn_step(g)
                continue
            nxt = []
            for kind, handler in (
                (_TURN, self._turn_step), (_ROUND_END, self._round_end), (_FD, self._fd_step),
                (_DEAL, self._deal_step), (_AS, self._assign_step), (_RQ, self._rq_step),
            ):  # fmt: skip
                sub = g[top == kind]
                if sub.size:
                    more = handler(sub)
                    nxt.append(sub if more is None else more)
            g = np.concatenate(nxt) if len(nxt) > 1 else nxt[0]

    def _turn_step(self, g: Arr) -> Arr:
        """F7-030: the next active seat from the turn on is offered Hit or Stay; nobody
        active ends the round (F7-110)."""
        P = self.P
        seats = (self.turn.take(g)[:, None] + np.arange(P)) % P
        act = self.status.reshape(-1).take(g[:, None] * P + seats) == ACTIVE
        has = act.any(1)
        first = act.argmax(1)
        gh = g[has]
        self.turn[gh] = seats[has, first[has]]
        self.offer_ready[gh] = True
        out: Arr = g[~has]
        if out.size:
            self._round_end(out)  # F7-110, at once
        return out  # only the games whose round ends settle on

    def _deal_step(self, g: Arr) -> None:
        """F7-020, F7-025: the deal goes on to the next active seat: dealt a card, or asked
        Hit or Stay at its slot when it already holds cards; past the last seat it is over.
        A run of seats with empty lines whose cards are numbers and modifiers is dealt at
        once (`_deal_run`): no duplicate, Flip 7 or decision can arise there."""
        P = self.P
        j = np.arange(P)
        pp = self.deal_pos.take(g)[:, None] + j
        seats = (self.dealer.take(g)[:, None] + 1 + pp) % P
        ks = g[:, None] * P + seats
        act = (pp < P) & (self.status.reshape(-1).take(ks) == ACTIVE)
        early = act & (self.llen.reshape(-1).take(ks) > 0)
        before = np.cumsum(early, 1) == 0  # positions before the first seat holding early cards
        elig = act & ~early & before
        rank = np.cumsum(elig, 1) - 1  # the card each eligible position gets, counted from the top
        pos = self.dtop.take(g)[:, None] + j
        codes = self.deck.reshape(-1).take(g[:, None] * self.D + np.minimum(pos, self.D - 1)).astype(np.int64)
        plain = self.is_plain[codes] & (pos < self.dend.take(g)[:, None])
        run = np.where(plain.all(1), P, np.argmin(plain, 1))  # cards from the top until an action (or the pile's end)
        dealt = elig & (rank < run[:, None])
        some = dealt.any(1)
        if _any(some):
            gr = g[some]
            self._deal_run(gr, seats[some], dealt[some], rank[some], codes[some])
            last = P - 1 - np.argmax(dealt[some][:, ::-1], 1)
            self.deal_pos[gr] = pp[some, last] + 1
            done = ~(act[some] & ~dealt[some] & (np.arange(P) > last[:, None])).any(1)
            self.deal_on[gr[done]] = False  # nobody left to deal to
            g, pp, seats, act = g[~some], pp[~some], seats[~some], act[~some]
            if g.size == 0:
                return
        has = act.any(1)
        self.deal_on[g[~has]] = False
        if not _any(has):
            return
        j = act.argmax(1)[has]
        g = g[has]
        seat = seats[has, j]
        self.deal_pos[g] = pp[has, j] + 1
        early1 = self.llen.reshape(-1).take(g * P + seat) > 0
        if _any(early1):
            self.dealoffer[g[early1]] = seat[early1]
            g, seat = g[~early1], seat[~early1]
        code = self._draw(g)
        ok = code >= 0
        if self.log is not None:
            self._emit(g[ok], lambda i, b: ev.dealt(int(seat[ok][i]), self.ids[code[ok][i]], "deal"))
        if _all(ok):
            self._receive(g, seat, code)
        elif _any(ok):
            self._receive(g[ok], seat[ok], code[ok])

    def _deal_fresh(self, g: Arr) -> None:
        """F7-020 at a round's start (every seat active, every line empty, nothing dealt yet):
        the cards from the top up to the first action card (or the pile's end) go one to a
        seat from the dealer's left, as `_deal_step` would deal them; the deal of a game
        that met an action card goes on in `_deal_step`.  Flat indices, one pass per array."""
        P, C = self.P, self.C
        j = np.arange(P)
        pos = self.dtop[g, None] + j
        codes = self.deck[g[:, None], np.minimum(pos, self.D - 1)]
        plain = self.is_plain[codes] & (pos < self.dend[g, None])
        run = np.where(plain.all(1), P, np.argmin(plain, 1))
        dealt = j < run[:, None]
        seats = (self.dealer[g, None] + 1 + j) % P
        gg = np.broadcast_to(g[:, None], dealt.shape)[dealt]
        cc = codes[dealt].astype(np.intp)
        k = gg * P + seats[dealt]  # flat (game, seat)
        self.line.reshape(-1)[k * C + cc] = 1
        self.lorder.reshape(-1)[k * self.lorder.shape[2]] = cc
        self.llen.reshape(-1)[k] = 1
        self.nnum.reshape(-1)[k] = self.is_num[cc]
        self.numsum.reshape(-1)[k] = self.rank[cc]
        self.modsum.reshape(-1)[k] = self.addv[cc]
        self.x2.reshape(-1)[k] = self.isx2[cc]
        unseen = self.unseen.reshape(-1)
        for jj in range(int(run.max(initial=0))):  # one card a game at a time: no index repeats
            m = run > jj
            unseen[g[m] * C + codes[m, jj]] -= 1
        self.dtop[g] += run.astype(np.int32)
        self.deal_pos[g] = run
        self.deal_on[g[run == P]] = False
        if self.log is not None:
            for i, b in enumerate(g.tolist()):
                for jj in range(int(run[i])):
                    self.log[b].append(ev.dealt(int(seats[i, jj]), self.ids[codes[i, jj]], "deal"))

    def _deal_run(self, g: Arr, seats: Arr, dealt: Arr, rank: Arr, codes: Arr) -> None:
        """Deal position ``j`` of each game (where ``dealt``) the card ``rank[j]`` from the top
        (``codes``): numbers and modifiers to seats with empty lines (F7-020)."""
        P, C = self.P, self.C
        gg = np.broadcast_to(g[:, None], dealt.shape)[dealt]
        ss = seats[dealt]
        cc = np.take_along_axis(codes, np.maximum(rank, 0), 1)[dealt]
        k = gg * P + ss  # flat (game, seat); each once
        self.line.reshape(-1)[k * C + cc] += 1
        self.lorder.reshape(-1)[k * self.lorder.shape[2]] = cc
        self.llen.reshape(-1)[k] = 1
        self.nnum.reshape(-1)[k] += self.is_num[cc]
        self.numsum.reshape(-1)[k] += self.rank[cc]
        self.modsum.reshape(-1)[k] += self.addv[cc]
        self.x2.reshape(-1)[k] |= self.isx2[cc]
        n = dealt.sum(1)
        unseen = self.unseen.reshape(-1)
        for jj in range(int(n.max(initial=0))):  # the cards from the top, one a game at a time
            m = n > jj
            unseen[g[m] * C + codes[m, jj]] -= 1
        self.dtop[g] += n.astype(np.int32)
        if self.log is not None:
            for i, b in enumerate(g.tolist()):
                for j in np.flatnonzero(dealt[i]).tolist():
                    self.log[b].append(ev.dealt(int(seats[i, j]), self.ids[codes[i, rank[i, j]]], "deal"))

    def _fd_step(self, g: Arr) -> None:
        """A Flip Three's steps (`flip7ref.core.primitives.forced_draw.ForcedDraw.settle`), repeated in
        each game while it stays on top (no target choice pushed, no Flip 7 made): its cards
        one by one, then its end."""
        while g.size:
            t = self.fd_target[g].astype(np.int64)
            busted = self.status[g, t] == BUSTED
            complete = ~busted & (self.fd_rem[g] <= 0)
            if _any(busted):
                self._fd_finish(g[busted], True, "bust")
            if _any(complete):
                self._fd_finish(g[complete], False, "complete")
            draw = ~(busted | complete)
            g, t = g[draw], t[draw]
            if g.size == 0:
                return
            code = self._draw(g)
            ex = code < 0
            if _any(ex):
                self._fd_finish(g[ex], False, "exhausted")  # F7-115: the forced draw ends
                g, t, code = g[~ex], t[~ex], code[~ex]
            self.fd_rem[g] -= 1
            if self.log is not None:
                self._emit_cards(g, t, code, "dealt")
            aside = self.aside[code]  # F7-073: the table's set_aside
            if _any(aside):
                ga = g[aside]
                self.fd_aside[ga, self.fd_n[ga]] = code[aside]
                self.fd_n[ga] += 1
                ta, ca = t[aside], code[aside]
                if self.log is not None:
                    self._emit_cards(ga, ta, ca, "set_aside")
            rest = ~aside
            if _any(rest):
                self._receive(g[rest], t[rest], code[rest])
            g = g[~self.ct_on[g] & (self.flip7[g] < 0)]

    def _emit_cards(self, g: Arr, seats: Arr, codes: Arr, kind: str) -> None:
        """Record ``dealt`` (inside the Flip Three) or ``set_aside`` events, one per game of ``g``."""
        assert self.log is not None
        for i, b in enumerate(g.tolist()):
            seat, card = int(seats[i]), self.ids[codes[i]]
            self.log[b].append(ev.dealt(seat, card, self.ids[self.F3]) if kind == "dealt" else ev.set_aside(seat, card))

    def _fd_finish(self, g: Arr, bust: bool, outcome: str) -> None:
        """F7-078: the Flip Three is discarded; its set-aside cards are discarded on a bust
        (F7-073, D-F7-10 ``discard``), else assigned by its target (D-F7-12 ``target``)."""
        self.fd_on[g] = False
        self.discard[g, self.fd_card[g]] += 1
        self._emit(g, lambda i, b: ev.forced_draw_ended(int(self.fd_target[b]), self.ids[self.F3], outcome))
        n = self.fd_n[g]
        if not _any(n > 0):
            return
        for j in range(self.f3n):
            m = n > j
            if not _any(m):
                break
            gj = g[m]
            if bust:
                self.discard[gj, self.fd_aside[gj, j]] += 1
                cj = self.fd_aside[gj, j]

                def busted(i: int, b: int, cj: Arr = cj) -> Event:
                    return ev.discarded(self.ids[cj[i]], int(self.fd_target[b]), "target busted")

                self._emit(gj, busted)
        if bust:
            self.fd_n[g] = 0
            return
        g = g[n > 0]
        self.as_on[g] = True
        self.as_ready[g] = False
        self.as_chooser[g] = self.fd_target[g]
        self.as_cards[g] = self.fd_aside[g]
        self.as_n[g] = self.fd_n[g]
        self.as_k[g] = 0
        self.as_targets[g] = -1
        self.fd_n[g] = 0

    def _assign_step(self, g: Arr) -> None:
        """`flip7ref.core.primitives.forced_draw.Assign.settle`: all assigned, the cards join the
        queue (F7-074, D-F7-13 ``queue``); a card with no active seat to go to is marked
        discarded; else the assigner decides."""
        full = self.as_k[g] >= self.as_n[g]
        if _any(full):
            gf = g[full]
            if not _all(self.rq_on[gf]):
                new = gf[~self.rq_on[gf]]
                self.rq_on[new] = True
                self.rq_head[new] = 0
                self.rq_tail[new] = 0
            for j in range(self.f3n):
                m = self.as_n[gf] > j
                if not _any(m):
                    break
                gj = gf[m]
                tail = self.rq_tail[gj]
                self.rq_card[gj, tail] = self.as_cards[gj, j]
                self.rq_seat[gj, tail] = self.as_targets[gj, j]
                self.rq_chooser[gj, tail] = self.as_chooser[gj]
                self.rq_tail[gj] += 1
            self.as_on[gf] = False
        g = g[~full]
        if g.size == 0:
            return
        some = (self.status[g] == ACTIVE).any(1)
        none = g[~some]
        self.as_targets[none, self.as_k[none]] = -1
        self.as_k[none] += 1
        self.as_ready[g[some]] = True

    def _rq_step(self, g: Arr) -> None:
        """`flip7ref.core.primitives.forced_draw.Resolve.settle`: the next assigned card acts on its
        seat if still active (F7-074, F7-075), else is discarded."""
        empty = self.rq_head[g] >= self.rq_tail[g]
        self.rq_on[g[empty]] = False
        g = g[~empty]
        if g.size == 0:
            return
        h = self.rq_head[g]
        card = self.rq_card[g, h].astype(np.int64)
        seat = self.rq_seat[g, h].astype(np.int64)
        chooser = self.rq_chooser[g, h].astype(np.int64)
        self.rq_head[g] += 1
        ok = (seat >= 0) & (self.status[g, np.maximum(seat, 0)] == ACTIVE)
        if _any(~ok):
            self.discard[g[~ok], card[~ok]] += 1
            cn, sn = card[~ok], seat[~ok]
            why = "target no longer eligible"
            self._emit(g[~ok], lambda i, b: ev.discarded(self.ids[cn[i]], int(sn[i]) if sn[i] >= 0 else None, why))
        if _any(ok):
            self._play(g[ok], chooser[ok], seat[ok], card[ok])

    def _round_end(self, g: Arr) -> None:
        """F7-100..F7-102, F7-050: score the round; F7-111: the table to the discard pile;
        F7-120, F7-121: the game ends, or the next round starts (F7-112)."""
        P = self.P
        live = self.status.take(g, 0) != BUSTED
        numbers = self.numsum.take(g, 0) * (1 + self.x2.take(g, 0) * self.mult1)  # F7-091: the factor of the table
        score = np.where(live, numbers + self.modsum.take(g, 0), 0).astype(np.int32)
        f = self.flip7.take(g)
        made = f >= 0
        if _any(made):
            score[np.flatnonzero(made), f[made]] += self.bonus
        tot = self.totals.take(g, 0) + score
        set_rows(self.totals, g, tot)
        set_rows(self.last_scores, g, score)
        self.scored[g] = True
        if self.log is not None:
            self._round_end_events(g)
        disc = self.discard
        table = self.line.take(g, 0).sum(1, dtype=np.int16)
        table[:, self.SC] += self.sc.take(g, 0).sum(1, dtype=np.int16)
        table[:, self.FREEZE] += self.frz.take(g, 0).sum(1, dtype=np.int16)
        set_rows(disc, g, disc.take(g, 0) + table)
        for on, cards in ((self.ct_on, self.ct_card), (self.fd_on, self.fd_card)):
            m = g[on[g]]
            if m.size:
                disc[m, cards[m]] += 1
        fd = g[self.fd_on[g]]
        for j in range(self.f3n):
            m = fd[self.fd_n[fd] > j]
            if m.size:
                disc[m, self.fd_aside[m, j]] += 1
        ag = g[self.as_on[g]]
        for j in range(self.f3n):
            m = ag[self.as_n[ag] > j]
            if m.size:
                disc[m, self.as_cards[m, j]] += 1
        rg = g[self.rq_on[g]]
        for j in range(self.Q):
            m = rg[self.rq_head[rg] + j < self.rq_tail[rg]]
            if not m.size:
                break
            disc[m, self.rq_card[m, self.rq_head[m] + j]] += 1
        self._clear_table(g)
        best = tot.max(1)
        lead = tot == best[:, None]
        over = (best >= self.target) & (lead.sum(1) == 1)
        self.done[g[over]] = True
        self.winners[g[over]] = lead[over]
        if self.log is not None:
            for i, b in enumerate(g.tolist()):
                leaders = tuple(np.flatnonzero(lead[i]).tolist())
                if over[i]:
                    self.log[b].append(ev.game_won(leaders, tuple(tot[i].tolist()), int(self.rnd[b])))
                elif best[i] >= self.target:
                    self.log[b].append(ev.tie_another_round(leaders))
        g = g[~over]
        if g.size:
            self.dealer[g] = (self.dealer[g] + 1) % P
            self.rnd[g] += 1
            self._start_round(g)
            self._deal_fresh(g)  # the deal's first cards at once

    def _round_end_events(self, g: Arr) -> None:
        """The events of a round end before the table is cleared: ``round_scored``, then the
        pending work ending with the round, top first (`flip7ref.core.frames.Frame.end_with_round`)."""
        assert self.log is not None
        ids = self.ids
        for b in g.tolist():
            log = self.log[b]
            f = int(self.flip7[b])
            scores, totals = tuple(self.last_scores[b].tolist()), tuple(self.totals[b].tolist())
            log.append(ev.round_scored(int(self.rnd[b]), scores, totals, f if f >= 0 else None))
            held: list[int] = []
            if self.ct_on[b]:
                held.append(int(self.ct_card[b]))
            if self.as_on[b]:
                held.extend(self.as_cards[b, : self.as_n[b]].tolist())
            for c in held:
                log.append(ev.discarded(ids[c], None, "round ended"))
            if self.fd_on[b]:
                log.append(ev.forced_draw_ended(int(self.fd_target[b]), ids[self.fd_card[b]], "round ended"))
                for c in self.fd_aside[b, : self.fd_n[b]].tolist():
                    if c != self.fd_card[b]:  # as the reference: a set-aside copy of the draw's own card goes unannounced
                        log.append(ev.discarded(ids[c], None, "round ended"))
            if self.rq_on[b]:
                for c in self.rq_card[b, self.rq_head[b] : self.rq_tail[b]].tolist():
                    log.append(ev.discarded(ids[c], None, "round ended"))
