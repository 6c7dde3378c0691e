"""What the page shows: the whole game as JSON-able data (`Views.view`), an edition's start-page catalogue."""

from __future__ import annotations

from typing import Any

from flip7ref.checking.replay import rules_at
from flip7ref.core.events import card_name
from flip7ref.core.frames import DECISION_KINDS, OWN_DECISION_KINDS
from flip7ref.core.primitives.forced_draw import ForcedDraw
from flip7ref.core.spec import Edition
from flip7ref.core.state import CHANCE, TERMINAL, State
from flip7ref.table.rulings import Rulings
from flip7ref.table.scorepad import ScorePad
from flip7ref.table.wording import option_view, reading_view


class Views(Rulings, ScorePad):
    """`view`: the game as the page (``static/app.js``) reads it."""

    def _action_view(self, state: State, text: str) -> dict[str, Any]:
        return action_view(state, text)

    def _table_view(self, state: State, steps: list[dict[str, Any]]) -> dict[str, Any]:
        """What the page shows beyond the cards: ``round_end`` (the last step scored a
        round: the round's number, else None), ``forced`` (a Flip Three in progress:
        ``target``, ``card``, ``drawn``, ``count``, ``set_aside``), ``second_chance_used``
        (per seat, the Second Chances used this round), ``undone`` (dealer mode: every
        undo, shown to everyone) and ``notes`` ("the deck disagrees")."""
        round_end = None
        if len(self.states) > 1:
            for e in self.states[-1].last_events():
                if e.type == "round_scored":
                    round_end = e.get("round")
        forced = None
        for frame in reversed(state.frames):
            if isinstance(frame, ForcedDraw):
                eff = self.game.effect[frame.card]
                count = int(getattr(eff, "count", 0)) or frame.remaining
                forced = {
                    "target": frame.target, "card": self.game.card_ids[frame.card], "count": count,
                    "drawn": count - frame.remaining, "set_aside": [self.game.card_ids[c] for c in frame.set_aside],
                }  # fmt: skip
                break
        used: list[list[str]] = [[] for _ in range(state.num_players)]
        for st in reversed(self.states[1:]):
            if st.round != state.round:
                break
            for e in st.last_events():
                if e.type == "second_chance_used" and 0 <= e.get("seat") < state.num_players:
                    used[e.get("seat")].append(e.get("shield"))
        return {"round_end": round_end, "forced": forced, "second_chance_used": used,
                "undone": list(self.undone), "notes": list(self.notes)}  # fmt: skip

    def view(self) -> dict[str, Any]:
        """The whole game as JSON-able data for the page (see ``static/app.js``)."""
        game = self.game
        base: dict[str, Any] = {
            "id": self.id,
            "version": self.version,
            "mode": self.mode,
            "edition": game.edition.id,
            "edition_title": game.edition.title,
            "options": dict(game.options),
            "names": self.names,
            "lang": self.lang,
            "file": self.path.name,  # never the server's folder
            "card_names": {c.id: c.name(self.lang) for c in game.edition.cards},
            "categories": {c.id: c.category for c in game.edition.cards},
            "target_score": game.target_score,
            "tie": game.tie,
        }
        if self.mode == "manual":
            base.update(pad=self.pad(), undo=bool(self.manual), redo=bool(self.manual_redo), finished=self.manual_winners()[1])
            return base
        state = self.state
        current = state.current_player
        receiver = None
        if current == CHANCE and state.frames:
            top = state.frames[-1]
            receiver = getattr(top, "seat", getattr(top, "target", None))
        seats = []
        for s in range(state.num_players):
            seats.append({
                "name": self.names[s], "line": state.line(s), "kept": state.kept(s), "status": state.status(s).value,
                "total": state.totals[s], "value": state.line_value(s), "dealer": s == state.dealer,
            })  # fmt: skip
        weights = dict(state.chance_weights()) if current == CHANCE else {}
        # the fixed card grid (one-handed play): every kind in the edition's order, a card that ran out with 0 left
        chance = [{"card": c.id, "left": weights.get(c.id, 0)} for c in game.edition.cards] if current == CHANCE else []
        actions = [self._action_view(state, a) for a in state.legal_action_strings()]
        steps = []
        before = self.states[0]
        for i, (st, move) in enumerate(zip(self.states[1:], state.history(), strict=True)):
            steps.append({
                "index": i, "move": move, "card": move[len("chance ") :] if move.startswith("chance ") else None,
                "seat": None if before.current_player < 0 else before.current_player,
                "text": [self.describe(e) for e in st.last_events()],
            })  # fmt: skip
            before = st
        base.update(self._table_view(state, steps))
        base.update(
            round=state.round, dealer=state.dealer, current=current,
            who=None if current < 0 else current, receiver=receiver,
            pending=pending_view(state, self.lang), seats=seats, draw_count=len(state.draw),
            discard_count=len(state.discard), chance=chance, actions=actions, steps=steps,
            pad=self.pad(), undo=len(self.states) > 1, redo=bool(self.redo_moves),
            finished=state.is_terminal(), winners=list(state.winners), terminal=current == TERMINAL,
            rules_here=[self._rule(r) for r in rules_at(state)],
        )  # fmt: skip
        return base


_OWN_VERBS = ("hit", "stay", "target", "steal", "discard", "swap")
"""The verbs the page (``static/app.js``) labels itself; any other gets `action_view`'s ``label``."""


def action_view(state: State, text: str) -> dict[str, Any]:
    """One legal action as the page shows it (a button).

    Args:
        state: the state the action is legal at.
        text: the action's string form (``"target 2"``, ``"steal 1 0"``...).

    Returns:
        ``{"action": text, "verb": verb}`` plus, by verb: ``seat`` (``target``); ``seat``
        and ``card`` (``steal``, ``discard``); ``seat``, ``card``, ``seat2``, ``card2``
        (``swap``).  A verb of a plug-in primitive gets the generic view: ``args`` (its
        numbers) and ``label``, its words (``"peek_keep 1"`` reads ``"peek keep 1"``),
        which the page shows as they are.
    """
    words = text.split()
    verb, args = words[0], [int(w) for w in words[1:]]
    out: dict[str, Any] = {"action": text, "verb": verb}
    if verb == "target":
        out["seat"] = args[0]
    elif verb in ("steal", "discard"):
        out["seat"], out["card"] = args[0], state.line(args[0])[args[1]]
    elif verb == "swap":
        out["seat"], out["card"] = args[0], state.line(args[0])[args[1]]
        out["seat2"], out["card2"] = args[2], state.line(args[2])[args[3]]
    elif verb not in _OWN_VERBS:
        out["args"] = args
        out["label"] = " ".join([verb.replace("_", " "), *words[1:]])
    return out


def pending_view(state: State, lang: str = "en") -> dict[str, Any]:
    """What the decision at ``state`` is about, as the page shows it: ``{"kind": kind,
    "card": card id or None}`` (`State.pending`), plus for a decision kind of a plug-in
    primitive ``text``: the words registered with it (`flip7ref.core.frames.DECISION_KINDS`),
    ``{card}`` filled with the card's name in ``lang`` and ``{move}`` with "..."."""
    kind, card = state.pending()
    out: dict[str, Any] = {"kind": kind, "card": card}
    if kind not in OWN_DECISION_KINDS:
        words = DECISION_KINDS.get(kind) or f"decides ({kind})"
        out["text"] = words.replace("{card}", card_name(state.game, card, lang)).replace("{move}", "...")
    return out


def edition_catalogue(edition: Edition, lang: str = "en") -> dict[str, Any]:
    """What the start page needs of an edition, its texts in ``lang``: title, player
    limits, options (`option_view`) with their readings (`reading_view`) and defaults."""
    return {
        "id": edition.id,
        "title": edition.title,
        "min_players": int(edition.thresholds.get("min_players", 1)),
        "options": [
            {
                **option_view(edition, o, lang), "integer": list(o.integer) if o.integer else None,
                "readings": [reading_view(edition, o, r, lang) for r in o.readings],
            }
            for o in edition.options.values()
        ],
    }  # fmt: skip
