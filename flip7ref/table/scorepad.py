"""The score pad: round scores with their breakdowns, running totals, winners; as CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from flip7ref.core.game import MODIFIER, NUMBER
from flip7ref.core.scoring import seat_breakdown
from flip7ref.core.state import Event, State, Status, game_end
from flip7ref.table.record import TableRecord

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(text: str) -> str:
    """``text`` for a CSV cell: with a ``'`` in front when it starts like a formula
    (`FORMULA_STARTS`), so that a spreadsheet shows it as text instead of running it."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


class ScorePad(TableRecord):
    """The score pad of a game: `pad`, `score_pad`, `manual_winners`, `csv`."""

    def manual_winners(self) -> tuple[tuple[int, ...], bool]:
        """Manual mode: ``(leaders, over)`` after the rounds typed in (the same rule
        as the interpreter's: F7-120, F7-121 and the ``tie`` option)."""
        if not self.manual:
            return (), False
        totals = [sum(r[i] for r in self.manual) for i in range(len(self.names))]
        return game_end(self.game, totals)

    def pad(self) -> dict[str, Any]:
        """The score pad as the page shows it: ``rounds`` (each with ``round``, ``scores``,
        ``totals`` and ``breakdown``), ``totals``, ``winners`` and ``tied``; from the
        round scores typed in on a manual score pad, else `score_pad`."""
        if self.mode != "manual":
            return self.score_pad()
        leaders, over = self.manual_winners()
        totals = [sum(r[i] for r in self.manual) for i in range(len(self.names))]
        rows, running = [], [0] * len(self.names)
        for i, r in enumerate(self.manual):
            running = [a + b for a, b in zip(running, r, strict=True)]
            rows.append({"round": i + 1, "scores": r, "totals": running, "breakdown": None})
        return {"rounds": rows, "totals": totals, "winners": list(leaders) if over else [],
                "tied": list(leaders) if leaders and not over else []}  # fmt: skip

    def score_pad(self) -> dict[str, Any]:
        """Per-round scores with breakdowns, running totals, winners and ties.

        A breakdown (numbers, ×2 or ÷2, modifiers, Flip 7 bonus, Brutal Mode's
        penalty) is rebuilt from the round's final lines: the lines just before
        the step that ended the round, with that step's events applied (cards
        dealt, a Swap, Steal or Discard, an Unlucky 7 wipe, a Second Chance used),
        then scored by :func:`flip7ref.core.scoring.seat_breakdown` as the interpreter
        scores a round (F7-100..F7-102, F7-050; V-081, V-082).  It is left out
        (None) for a seat where the rebuilt score is not the round's score.
        """
        rounds: list[dict[str, Any]] = []
        tied: list[int] = []
        prev = self.states[0]
        for st, move in zip(self.states[1:], self.state.history(), strict=True):
            for e in st.last_events():
                if e.type == "round_scored":
                    scores = list(e.get("scores"))
                    rounds.append({
                        "round": e.get("round"), "scores": scores, "totals": list(e.get("totals")),
                        "flip7": e.get("flip7"), "breakdown": self._breakdowns(prev, st.last_events(), scores, move),
                    })  # fmt: skip
                    tied = []
                elif e.type == "tie_another_round":
                    tied = list(e.get("leaders"))
            prev = st
        state = self.state
        return {"rounds": rounds, "totals": list(state.totals), "winners": list(state.winners), "tied": tied}

    def _final_lines(
        self, prev: State, events: Sequence[Event], move: str
    ) -> tuple[list[list[int]], list[bool], int | None, int | None]:
        """``(lines, busted, flip7, bonus_to)`` of each seat when the round in
        ``events`` (one step's events after ``prev``, made by ``move``) was scored."""
        g = self.game
        lines = [list(p.line) for p in prev.players]
        busted = [p.status is Status.BUSTED for p in prev.players]
        bonus_to = prev.bonus_to
        words = move.split()
        at = [int(w) for w in words[1:]] if words and words[0] in ("steal", "discard", "swap") else []

        def take(seat: int, card: str, index: int | None = None) -> None:
            line, code = lines[seat], g.codes[card]
            if index is not None and index < len(line) and line[index] == code:
                del line[index]
            elif code in line:
                del line[len(line) - 1 - line[::-1].index(code)]  # the last copy: the one just received

        for e in events:
            t, seat = e.type, e.get("seat")
            if t == "round_scored":
                return lines, busted, e.get("flip7"), bonus_to
            if t == "dealt" and g.category[g.codes[e.get("card")]] in (NUMBER, MODIFIER):
                lines[seat].append(g.codes[e.get("card")])
            elif t == "busted":
                busted[seat] = True
            elif t == "second_chance_used" or (t == "discarded" and e.get("reason") == "busted" and seat is not None):
                take(seat, e.get("card"))
            elif t == "line_wiped":  # V-033: the Unlucky 7 stays, the rest goes
                for c in e.get("cards"):
                    take(seat, c)
            elif t == "stolen":  # V-046: from the target's line to the stealer's
                take(e.get("target"), e.get("card"), at[1] if at else None)
                lines[seat].append(g.codes[e.get("card")])
            elif t == "card_discarded":  # V-047
                take(seat, e.get("card"), at[1] if at else None)
            elif t == "swapped":  # V-045
                a, b = e.get("first"), e.get("second")
                take(a, e.get("first_card"), at[1] if at else None)
                take(b, e.get("second_card"), at[3] if at else None)
                lines[a].append(g.codes[e.get("second_card")])
                lines[b].append(g.codes[e.get("first_card")])
            elif t == "flip7_bonus_chosen":  # V-082
                bonus_to = e.get("target")
        return lines, busted, None, bonus_to

    def _breakdowns(self, prev: State, events: Sequence[Event], scores: Sequence[int], move: str) -> list[dict[str, Any] | None]:
        g = self.game
        lines, busted, flip7, bonus_to = self._final_lines(prev, events, move)
        out: list[dict[str, Any] | None] = []
        for seat, line in enumerate(lines):
            b = seat_breakdown(g, seat, line, busted[seat], flip7, bonus_to)  # as the interpreter scores a seat
            if b.score != scores[seat]:
                out.append(None)
                continue
            mods = [g.card_ids[c] for c in line if g.category[c] == MODIFIER]
            out.append({
                "numbers": b.numbers, "multiplied": b.multiplied, "modifiers": b.modifiers, "bonus": b.bonus,
                "flip7": b.flip7, "busted": b.busted, "penalty": -b.penalty, "score": b.score,
                "cards": [g.card_ids[c] for c in line], "modifier_cards": mods,
            })  # fmt: skip
        return out

    def csv(self) -> str:
        """The score pad as CSV: a header of names, one row per round, a totals row.

        A name that a spreadsheet would read as a formula (starting with ``=``, ``+``,
        ``-``, ``@``, a tab or a carriage return) is written with a ``'`` in front."""
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["round", *(spreadsheet_text(n) for n in self.names)])
        pad = self.pad()
        for row in pad["rounds"]:
            writer.writerow([row["round"], *row["scores"]])
        writer.writerow(["total", *pad["totals"]])
        if pad["winners"]:
            writer.writerow(["winner", *("yes" if i in pad["winners"] else "" for i in range(len(self.names)))])
        return out.getvalue()
