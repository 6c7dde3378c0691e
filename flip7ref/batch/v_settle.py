"""The batched Vengeance engine's automatic steps: settling every game to its next decision.

`VSettling` runs the reference's `flip7ref.core.engine.settle` loop over arrays: a Flip 7 ends
the round; with nothing pending the turn passes to the next active seat (or the round
ends, V-012); else the frame on top of each game's stack takes one step (the deal, a
forced draw, the in-order resolution of a Flip Four's set-aside cards, a card pick with
nothing to pick), in every game that needs one, until each game is at a decision or over.
"""

from __future__ import annotations

import numpy as np

from flip7ref.batch.v_rules import ACTIVE, BUSTED, DEAL, DEAL_OFFER, DRAW, IN_ORDER, NONE, PICK, STAYED, Arr, VRules, _any
from flip7ref.core import events as ev
from flip7ref.core.model import Event

_STOP = -1


class VSettling(VRules):
    """The automatic steps of `flip7ref.batch.vengeance.VengeanceState` (see the module)."""

    def _settle(self, g: Arr) -> None:
        """Run automatic steps until every game of ``g`` is at a decision or over."""
        while g.size:
            g = g[~self.done[g]]
            if g.size == 0:
                return
            top = self._top(g)
            f7 = self.flip7[g] >= 0
            if _any(f7):
                self._round_end(g[f7])
                g = np.concatenate([g[~f7], g[f7]])
                continue
            nxt = []
            t = g[top == NONE]
            if t.size:
                out = self._turn_step(t)
                if out.size:
                    nxt.append(out)
            for kind, handler in ((DEAL, self._deal_step), (DRAW, self._fd_step), (IN_ORDER, self._in_order_step)):
                sub = g[top == kind]
                if sub.size:
                    handler(sub)
                    nxt.append(sub)
            sub = g[top == PICK]
            if sub.size:
                more = self._pick_step(sub)
                if more.size:
                    nxt.append(more)
            g = np.concatenate(nxt) if nxt else g[:0]

    # ------------------------------------------------------------------ the turn and the deal

    def _turn_step(self, g: Arr) -> Arr:
        """V-012: the next active seat from the turn on is offered Stop or One more; nobody
        active ends the round.  Returns the games that settle on."""
        P = self.P
        seats = (self.turn[g][:, None] + np.arange(P)) % P
        act = self.status[g[:, None], seats] == ACTIVE
        has = act.any(1)
        gh = g[has]
        self.turn[gh] = seats[has, act[has].argmax(1)]
        out: Arr = g[~has]
        if out.size:
            self._round_end(out)
        return out

    def _deal_step(self, g: Arr) -> None:
        """V-011, V-018 (`flip7ref.core.engine.Deal`): the deal goes on to the next active seat,
        dealt a card, or asked at its slot when it already holds cards; past the last seat
        the deal is over."""
        P = self.P
        top = self.dtop[g]
        num = self.is_num[self.deck[g, np.minimum(top, self.D - 1)]] & (top < self.dend[g])
        if _any(num):  # a number on top of the pile: perhaps a run of them to deal
            self._deal_run(g[num])
        i = self.sp[g] - 1
        pos0 = self.fa[g, i]
        pp = pos0[:, None] + np.arange(P)
        seats = (self.dealer[g][:, None] + 1 + pp) % P
        act = (pp < P) & (self.status[g[:, None], seats] == ACTIVE)
        has = act.any(1)
        over = g[~has]
        self.sp[over] -= 1
        g, i, pp, seats, act = g[has], i[has], pp[has], seats[has], act[has]
        if g.size == 0:
            return
        j = act.argmax(1)
        r = np.arange(g.size)
        seat = seats[r, j]
        self.fa[g, i] = pp[r, j] + 1
        early = self.llen[g, seat] > 0
        if _any(early):
            self._push(g[early], DEAL_OFFER, seat[early])
        gd, sd = g[~early], seat[~early]
        if gd.size:
            code = self._draw(gd)
            ok = code >= 0
            gd, sd, code = gd[ok], sd[ok], code[ok]
            self._emit(gd, lambda i, b: ev.dealt(int(sd[i]), self.ids[code[i]], "deal"))
            self._receive(gd, sd, code)

    def _deal_run(self, g: Arr) -> None:
        """The deal's next seats at once, as `_deal_step` would deal them one by one: the
        number cards from the top of the pile, one to each active seat with an empty line in
        deal order, up to the first card that is not a number, the first seat holding cards
        or the pile's end (a number entering an empty line neither busts, wipes nor makes a
        Flip 7)."""
        if self._before_draw is not None:
            self._before_draw(g)
        P, D = self.P, self.D
        i = self.sp[g] - 1
        j = np.arange(P)
        pp = self.fa[g, i][:, None] + j
        seats = (self.dealer[g][:, None] + 1 + pp) % P
        act = (pp < P) & (self.status[g[:, None], seats] == ACTIVE)
        early = act & (self.llen[g[:, None], seats] > 0)
        elig = act & ~early & (np.cumsum(early, 1) == 0)  # active empty lines before the first early seat
        rank = np.cumsum(elig, 1) - 1  # which card from the top each eligible position gets
        pos = self.dtop[g][:, None] + j
        codes = self.deck[g[:, None], np.minimum(pos, D - 1)].astype(np.int64)
        plain = self.is_num[codes] & (pos < self.dend[g][:, None])
        run = np.where(plain.all(1), P, np.argmin(plain, 1))  # numbers from the top
        dealt = elig & (rank < run[:, None])
        n = dealt.sum(1)
        some = n > 0
        if not _any(some):
            return
        g, i, pp, seats, dealt, rank, codes, n = (
            g[some],
            i[some],
            pp[some],
            seats[some],
            dealt[some],
            rank[some],
            codes[some],
            n[some],
        )
        gg = np.broadcast_to(g[:, None], dealt.shape)[dealt]
        ss = seats[dealt]
        cc = np.take_along_axis(codes, np.maximum(rank, 0), 1)[dealt]
        self.line[gg, ss, cc] += 1
        self.lorder[gg, ss, 0] = cc
        self.llen[gg, ss] = 1
        for k in range(int(n.max())):  # the cards from the top, one a game at a time
            m = n > k
            self.unseen[g[m], codes[m, k]] -= 1
        self.dtop[g] += n.astype(np.int32)
        last = P - 1 - np.argmax(dealt[:, ::-1], 1)
        self.fa[g, i] = pp[np.arange(g.size), last] + 1
        if self.log is not None:
            for r, b in enumerate(g.tolist()):
                for jj in np.flatnonzero(dealt[r]).tolist():
                    self.log[b].append(ev.dealt(int(seats[r, jj]), self.ids[codes[r, rank[r, jj]]], "deal"))

    def _hit(self, g: Arr, s: Arr) -> None:
        """A Hit draws one card for seat ``s`` (V-013); with no card left it becomes a Stay (V-072)."""
        code = self._draw(g)
        ex = code < 0
        if _any(ex):
            ge, se = g[ex], s[ex]
            st = self.status[ge, se] == ACTIVE
            self.status[ge[st], se[st]] = STAYED
            s2 = se[st]
            self._emit(ge[st], lambda i, b: ev.stayed(int(s2[i]), "empty deck"))
            g, s, code = g[~ex], s[~ex], code[~ex]
        self._emit(g, lambda i, b: ev.dealt(int(s[i]), self.ids[code[i]], "hit"))
        self._receive(g, s, code)

    # ------------------------------------------------------------------ forced draws

    def _fd_step(self, g: Arr) -> None:
        """`flip7ref.core.primitives.forced_draw.ForcedDraw.settle`: the draw ends on a bust, when
        complete or at seven numbers (V-044); else its next card: set aside (a Flip Four's
        actions and modifiers, V-044) or received at once."""
        i = self.sp[g] - 1
        t = self.fa[g, i].astype(np.int64)
        busted = self.status[g, t] == BUSTED
        complete = ~busted & (self.fd[g, i] <= 0)
        row = self.line[g, t]
        seven = ~busted & ~complete & (self.llen[g, t] >= self.F7N) & ((row * self.is_num).sum(1) >= self.F7N)
        for mask, outcome in ((busted, "bust"), (complete, "complete"), (seven, "seven numbers")):
            if _any(mask):
                self.sp[g[mask]] -= 1
                self._fd_finish(g[mask], i[mask], outcome)
        draw = ~(busted | complete | seven)
        g, i, t = g[draw], i[draw], t[draw]
        if g.size == 0:
            return
        code = self._draw(g)
        ex = code < 0
        if _any(ex):
            self.sp[g[ex]] -= 1
            self._fd_finish(g[ex], i[ex], "exhausted")
            g, i, t, code = g[~ex], i[~ex], t[~ex], code[~ex]
        self.fd[g, i] -= 1
        card = self.fc[g, i]
        self._emit(g, lambda k, b: ev.dealt(int(t[k]), self.ids[code[k]], self.ids[card[k]]))
        aside = self.aside[card, code]
        if _any(aside):
            ga, ia, ta, ca = g[aside], i[aside], t[aside], code[aside]
            n = self.fn[ga, ia]
            self.fcards[ga, ia, n] = ca
            self.fn[ga, ia] = n + 1
            self._emit(ga, lambda k, b: ev.set_aside(int(ta[k]), self.ids[ca[k]]))
        r = ~aside
        self._receive(g[r], t[r], code[r])

    def _fd_finish(self, g: Arr, i: Arr, outcome: str) -> None:
        """`ForcedDraw.finish` for the draws in slot ``i`` (already popped): the card is
        discarded; Just One More makes its target stay (V-043) and bars a Zero holder's Flip 7
        (D-V-26); the set-aside cards are discarded on a bust, else resolved in reveal order
        by the target (V-044)."""
        t = self.fa[g, i].astype(np.int64)
        card = self.fc[g, i].astype(np.int64)
        self.discard[g, card] += 1
        self._emit(g, lambda k, b: ev.forced_draw_ended(int(t[k]), self.ids[card[k]], outcome))
        ts = self.then_stay[card]
        if _any(ts):
            gs, tt, cs = g[ts], t[ts], card[ts]
            st = self.status[gs, tt] == ACTIVE
            self.status[gs[st], tt[st]] = STAYED
            t2, c2 = tt[st], cs[st]
            self._emit(gs[st], lambda k, b: ev.stayed(int(t2[k]), self.ids[c2[k]]))
            bar = (self.status[gs, tt] != BUSTED) & (self.line[gs, tt, self.ZERO] > 0)
            self.barred[gs[bar], tt[bar]] = True
        n = self.fn[g, i]
        has = n > 0
        if not _any(has):
            return
        g, i, t, n = g[has], i[has], t[has], n[has]
        cards = self.fcards[g, i].copy()
        if outcome == "bust":
            for j in range(self.W):
                m = n > j
                gj, cj, tj = g[m], cards[m, j].astype(np.int64), t[m]
                self.discard[gj, cj] += 1

                def busted(k: int, b: int, cj: Arr = cj, tj: Arr = tj) -> Event:
                    return ev.discarded(self.ids[cj[k]], int(tj[k]), "target busted")

                self._emit(gj, busted)
            return
        below = self._top(g)
        k = np.maximum(self.sp[g] - 1, 0)
        reuse = (below == IN_ORDER) & (self.fn[g, k] == 0)
        slot = k.copy()
        if _any(~reuse):
            slot[~reuse] = self._push(g[~reuse], IN_ORDER, t[~reuse])
        self.fa[g, slot] = t
        self.fcards[g, slot] = cards
        self.fn[g, slot] = n

    def _in_order_step(self, g: Arr) -> None:
        """`flip7ref.core.primitives.forced_draw.InOrder.settle`: the next set-aside card arrives
        for the Flip Four's target, as if just received (V-044, D-V-32 ``all``)."""
        i = self.sp[g] - 1
        empty = self.fn[g, i] == 0
        self.sp[g[empty]] -= 1
        h = ~empty
        gh, ih = g[h], i[h]
        if gh.size:
            code = self.fcards[gh, ih, 0].astype(np.int64)
            self.fcards[gh, ih, :-1] = self.fcards[gh, ih, 1:].copy()
            self.fcards[gh, ih, -1] = -1
            self.fn[gh, ih] -= 1
            self._receive(gh, self.fa[gh, ih].astype(np.int64), code)

    # ------------------------------------------------------------------ card picks

    def _picks(self, g: Arr) -> Arr:
        """(n, A) the legal card picks of the ``PICK`` frame on top of each game of ``g``
        (`flip7ref.core.primitives.steal`, ``swap``, ``discard_card``: ``choices``)."""
        from flip7ref.batch.v_rules import _DISCARD, _STEAL, _SWAP

        P, n = self.P, g.size
        i = self.sp[g] - 1
        card = self.fa[g, i]
        me = self.fc[g, i]
        prim = self.prim[card]
        has = self.line[g][:, :, self.kcodes] > 0  # (n, P, K)
        face = self._faceup(g)
        out = np.zeros((n, self.A), bool)
        st = prim == _STEAL
        if _any(st):
            start, size = self.blocks["steal"]
            ok = face[st] & (np.arange(P)[None, :] != me[st, None])
            out[st, start : start + size] = (has[st] & ok[:, :, None]).reshape(-1, size)
        di = prim == _DISCARD
        if _any(di):
            start, size = self.blocks["discard"]
            ok = np.arange(P)[None, :] == me[di, None]
            out[di, start : start + size] = (has[di] & ok[:, :, None]).reshape(-1, size)
        sw = prim == _SWAP
        if _any(sw) and len(self.pairs):
            start, size = self.blocks["swap"]
            a, b = self.pairs[:, 0], self.pairs[:, 1]
            fa = has[sw][:, a, :] & face[sw][:, a, None]
            fb = has[sw][:, b, :] & face[sw][:, b, None]
            out[sw, start : start + size] = (fa[:, :, :, None] & fb[:, :, None, :]).reshape(-1, size)
        return out

    def _pick_step(self, g: Arr) -> Arr:
        """`flip7ref.core.primitives.choose_cards.ChooseCards.settle`: with nothing to pick the
        card is discarded unused (V-048); else it waits for the pick (a decision)."""
        none = ~self._picks(g).any(1)
        g = g[none]
        if g.size:
            i = self.sp[g] - 1
            card = self.fa[g, i].astype(np.int64)
            res = self.fc[g, i]
            self.sp[g] -= 1
            self.discard[g, card] += 1
            self._emit(g, lambda k, b: ev.discarded(self.ids[card[k]], int(res[k]), "no valid target"))
        return g

    # ------------------------------------------------------------------ round end

    def line_values(self, g: Arr | None = None) -> Arr:
        """(n, P) what each line would score now (V-060: numbers, ÷2 rounding down, negatives,
        floor 0, The Zero scores 0 unless Flip 7, +15 for the Flip 7's maker; 0 when busted)."""
        if g is None:
            g = np.arange(self.B)
        line = self.line[g].astype(np.int64)
        v = line @ self.rank
        if self.HALF >= 0:
            v = np.where(line[:, :, self.HALF] > 0, v // self.DIV, v)
        v = np.maximum(v + line @ self.addv, 0)
        maker = self.flip7[g][:, None] == np.arange(self.P)[None, :]
        v = np.where((line[:, :, self.ZERO] > 0) & ~maker, 0, v)
        v = v + np.where(maker, self.bonus, 0)
        return np.where(self.status[g] == BUSTED, 0, v).astype(np.int32)

    def _round_end(self, g: Arr) -> None:
        """V-060, V-070, V-071: score the round, the table and pending work to the discard pile,
        then the game ends (V-073, V-074 another round on a tie) or the next round starts."""
        P = self.P
        score = self.line_values(g)
        tot = self.totals[g] + score
        self.totals[g] = tot
        self.last_scores[g] = score
        self.scored[g] = True
        if self.log is not None:
            self._round_end_events(g)
        self.discard[g] += self.line[g].sum(1)
        for b in g.tolist():  # the cards of the pending work, top first
            for k in range(int(self.sp[b]) - 1, -1, -1):
                for c in self._held(b, k):
                    self.discard[b, c] += 1
        self.line[g] = 0
        self.lorder[g] = -1
        self.llen[g] = 0
        self.status[g] = ACTIVE
        self.barred[g] = False
        self.flip7[g] = -1
        self.sp[g] = 0
        best = tot.max(1)
        lead = tot == best[:, None]
        over = (best >= self.target) & (lead.sum(1) == 1)
        self.done[g[over]] = True
        self.winners[g[over]] = lead[over]
        if self.log is not None:
            for k, b in enumerate(g.tolist()):
                leaders = tuple(np.flatnonzero(lead[k]).tolist())
                if over[k]:
                    self.log[b].append(ev.game_won(leaders, tuple(tot[k].tolist()), int(self.rnd[b])))
                elif best[k] >= self.target:
                    self.log[b].append(ev.tie_another_round(leaders))
        g = g[~over]
        if g.size:
            self.dealer[g] = (self.dealer[g] + 1) % P
            self.rnd[g] += 1
            self._start_round(g)
            self._deal_step(g)  # the deal's first step at once (the settling loop's next step)

    def _held(self, b: int, k: int) -> list[int]:
        """The cards frame ``k`` of game ``b`` holds (`flip7ref.core.frames.Frame.held_cards`)."""
        t = int(self.ft[b, k])
        if t in (DEAL, DEAL_OFFER):
            return []
        if t == DRAW:
            return [int(self.fc[b, k]), *(int(c) for c in self.fcards[b, k, : self.fn[b, k]].tolist())]
        if t == IN_ORDER:
            return [int(c) for c in self.fcards[b, k, : self.fn[b, k]].tolist()]
        return [int(self.fa[b, k])]  # CHOOSE, PICK

    def _round_end_events(self, g: Arr) -> None:
        assert self.log is not None
        ids = self.ids
        for b in g.tolist():
            log = self.log[b]
            f = int(self.flip7[b])
            log.append(ev.round_scored(int(self.rnd[b]), tuple(self.last_scores[b].tolist()),
                                       tuple(self.totals[b].tolist()), f if f >= 0 else None))  # fmt: skip
            for k in range(int(self.sp[b]) - 1, -1, -1):
                t = int(self.ft[b, k])
                if t == DRAW:
                    card = int(self.fc[b, k])
                    log.append(ev.forced_draw_ended(int(self.fa[b, k]), ids[card], "round ended"))
                    for c in self.fcards[b, k, : self.fn[b, k]].tolist():
                        if c != card:
                            log.append(ev.discarded(ids[c], None, "round ended"))
                else:
                    for c in self._held(b, k):
                        log.append(ev.discarded(ids[c], None, "round ended"))

    def _start_round(self, g: Arr) -> None:
        """V-071, V-011: the round starts from the dealer's left; a deck found empty is
        refilled from the discard pile first (not one of the round's reshuffles)."""
        self.turn[g] = (self.dealer[g] + 1) % self.P
        self._emit(g, lambda i, b: ev.round_started(int(self.rnd[b]), int(self.dealer[b])))
        empty = g[(self.dtop[g] >= self.dend[g]) & (self.discard[g].sum(1) > 0)]
        if empty.size:
            self._reshuffle(empty)
        self.rshuf[g] = 0
        self._push(g, DEAL, 0)
