"""Rulings: what decided a step of the game, and what it would be under every reading of a disputed option."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flip7ref.checking.replay import step_event_rules
from flip7ref.core.errors import Flip7RefError
from flip7ref.core.game import Game
from flip7ref.core.state import CHANCE, State
from flip7ref.table.narration import Narration
from flip7ref.table.record import TableError
from flip7ref.table.wording import move_words, option_view, reading_view, say


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
                **option_view(ed, spec, self.lang), "value": value,
                "readings": [{**reading_view(ed, spec, r, self.lang), "holders": list(r.holders),
                              "in_force": r.name == value, "default": r.name == default} for r in spec.readings],
            })  # fmt: skip
        return out

    def ruling(self, step: object) -> dict[str, Any]:
        """What decided history step ``step`` (0-based), in the game's language: each event
        with its rule ids and texts, the options in force on those rules (reading in force
        and default), and for each disputed option what the step gives under every reading
        (the game replayed from the start under that reading).

        Returns:
            ``{"step", "move", "events": [{"text", "type", "rules": [{"id", "text"}]}],
            "rules": [{"id", "text"}], "options": [...], "summary": [sentences]}``; an
            option is `option_view` plus ``value`` and ``readings`` (`reading_view` plus
            ``holders``, ``in_force``, ``default``), and a disputed one ``played``: per
            reading ``reading``, ``label``, ``in_force`` and ``text`` (what happens, in
            words), plus ``events``, ``statuses`` and ``next`` or ``diverges`` (``step``,
            ``why``).  ``summary`` says what happened and, for each disputed option, what
            the other readings would have done.

        Raises:
            TableError: ``step`` is not a step of the game.
        """
        self._not_manual()
        moves = self.state.history()
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step < len(moves):
            raise TableError(f"step: expected a step number 0..{max(0, len(moves) - 1)}", status=404)
        st = self.states[step + 1]
        ed = self.game.edition
        events: list[dict[str, Any]] = []
        cited: list[str] = []
        shown = st.last_events()
        for e, rids in zip(shown, step_event_rules(shown, ed), strict=True):
            cited.extend(rids)
            events.append({"text": self.describe(e), "type": e.type, "rules": [self._rule(r) for r in rids]})
        card = self.states[step].pending()[1]
        if card is not None:  # the card the decision was about
            cited.extend(ed.card(card).rules)
        cited = list(dict.fromkeys(cited))
        options = self._options_for(cited)
        lang = self.lang
        if events:
            summary = [say(lang, "happened", events="; ".join(str(e["text"]) for e in events))]
        else:
            summary = [say(lang, "nothing_happened", move=move_words(self.states[step], moves[step], self.names, lang))]
        for opt in options:
            if opt["dispute"] and len(opt["readings"]) > 1:
                opt["played"] = played = self._played(step, opt)
                here = next(p for p in played if p["in_force"])
                question = opt["question"] or opt["summary"]
                summary.append(say(lang, "disputed", dispute=opt["dispute"], question=question, label=here["label"]))
                summary += [say(lang, "under", label=p["label"], what=p["text"]) for p in played if not p["in_force"]]
        return {
            "step": step, "move": moves[step], "events": events, "rules": [self._rule(r) for r in cited],
            "options": options, "summary": summary,
        }  # fmt: skip

    def _played(self, step: int, option: dict[str, Any]) -> list[dict[str, Any]]:
        """The game up to ``step`` replayed under each reading of ``option`` (an entry of
        `_options_for`), told in the game's language."""
        moves = self.state.history()[: step + 1]
        lang = self.lang
        mine = [self._describe(e, self.game) for e in self.states[step + 1].last_events()]
        out = []
        for r in option["readings"]:
            entry: dict[str, Any] = {"reading": r["name"], "label": r["label"], "in_force": r["in_force"]}
            state: State | None = None
            try:
                g = Game(self.game.edition, self.game.players, {**self.game.options, option["name"]: r["name"]})
                state = g.new_initial_state(self.seed if self.mode == "dealer" else None, dealer=self.dealer)
                for i, move in enumerate(moves):
                    try:
                        state = state.apply_move(move)
                    except Flip7RefError:
                        words = move_words(state, move, self.names, lang)
                        if i == step:
                            why = say(lang, "diverged_here", move=words)
                        else:
                            why = say(lang, "diverged_before", step=i + 1, move=words)
                        entry["diverges"] = {"step": i, "why": why}
                        entry["text"] = why
                        state = None
                        break
            except Flip7RefError as exc:  # the reading cannot even start this game
                entry["diverges"] = {"step": 0, "why": str(exc)}
                entry["text"] = str(exc)
                state = None
            if state is not None:
                entry["events"] = told = [self._describe(e, g) for e in state.last_events()]
                entry["statuses"] = {self.names[s]: state.status(s).value for s in range(state.num_players)}
                if state.is_terminal():
                    entry["next"] = say(lang, "next_over")
                elif state.current_player == CHANCE:
                    entry["next"] = say(lang, "next_card")
                else:
                    entry["next"] = say(lang, "next_decides", who=self.names[state.current_player])
                entry["text"] = say(lang, "same") if told == mine else "; ".join(told) + "; " + entry["next"] + "."
            out.append(entry)
        return out
