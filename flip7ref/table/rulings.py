"""Rulings: what decided a step of the game, and what it would be under every reading of a disputed option."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import Flip7RefError
from ..game import Game
from ..replay import event_rules
from ..state import CHANCE
from .narration import Narration
from .record import TableError


class Rulings(Narration):
    """`ruling`: the rules, options and readings behind a step."""

    def _options_for(self, rules: Sequence[str]) -> list[dict[str, Any]]:
        ed = self.game.edition
        out = []
        for name, spec in ed.options.items():
            if not set(spec.rules) & set(rules):
                continue
            value = self.game.options[name]
            default = spec.coerce(spec.default)
            out.append({
                "name": name, "summary": spec.summary, "value": value, "default": default, "dispute": spec.dispute,
                "readings": [{"name": r.name, "summary": r.summary, "holders": list(r.holders),
                              "in_force": r.name == value, "default": r.name == default} for r in spec.readings],
            })  # fmt: skip
        return out

    def ruling(self, step: object) -> dict[str, Any]:
        """What decided history step ``step`` (0-based): each event with its rule ids
        and paraphrases, the options in force on those rules (reading in force and
        default), and for each disputed option what the step gives under every
        reading (the game replayed from the start under that reading).

        Raises:
            TableError: ``step`` is not a step of the game.
        """
        self._not_manual()
        moves = self.state.history()
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step < len(moves):
            raise TableError(f"step: expected a step number 0..{max(0, len(moves) - 1)}", status=404)
        st = self.states[step + 1]
        ed = self.game.edition
        events = []
        cited: list[str] = []
        for e in st.last_events():
            rids = event_rules(e, ed)
            cited.extend(rids)
            events.append({"text": self.describe(e), "type": e.type, "rules": [self._rule(r) for r in rids]})
        card = self.states[step].pending()[1]
        if card is not None:  # the card the decision was about
            cited.extend(ed.card(card).rules)
        cited = list(dict.fromkeys(cited))
        options = self._options_for(cited)
        for opt in options:
            if opt["dispute"] and len(opt["readings"]) > 1:
                opt["played"] = self._played(step, opt["name"], [r["name"] for r in opt["readings"]])
        return {"step": step, "move": moves[step], "events": events, "rules": [self._rule(r) for r in cited], "options": options}

    def _played(self, step: int, option: str, readings: Sequence[str]) -> list[dict[str, Any]]:
        """The game up to ``step`` replayed under each reading of ``option``."""
        moves = self.state.history()[: step + 1]
        out = []
        for reading in readings:
            entry: dict[str, Any] = {"reading": reading}
            try:
                g = Game(self.game.edition, self.game.players, {**self.game.options, option: reading})
                state = g.new_initial_state(self.seed if self.mode == "dealer" else None, dealer=self.dealer)
                for i, move in enumerate(moves):
                    try:
                        state = state.apply_move(move)
                    except Flip7RefError as exc:
                        entry["diverges"] = {"step": i, "why": str(exc)}
                        break
            except Flip7RefError as exc:
                entry["diverges"] = {"step": 0, "why": str(exc)}
            else:
                if "diverges" not in entry:
                    entry["events"] = [self._describe(e, g) for e in state.last_events()]
                    entry["statuses"] = {self.names[s]: state.status(s).value for s in range(state.num_players)}
                    entry["next"] = (
                        "game over" if state.is_terminal() else "a card" if state.current_player == CHANCE
                        else f"{self.names[state.current_player]}: {', '.join(state.legal_action_strings())}"
                    )  # fmt: skip
            out.append(entry)
        return out
