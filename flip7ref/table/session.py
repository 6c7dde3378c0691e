"""One game at the table: the history of immutable states, undo/redo, saving, the score pad.

This module knows nothing of HTTP; `flip7ref.table.app` puts it on the web.
A `TableGame` keeps every state since the start (``states[0]`` is the
initial state, ``states[-1]`` the current one) and the moves undone (for redo).
Every change bumps ``version``; a change that names an older version is refused
with `StaleError` (two phones tapping at once: one step wins).

Files, under the data folder (or where ``--resume`` found the game):

- ``<id>.json`` — the game as a transcript (``spec/schema/transcript.schema.json``),
  readable by ``flip7ref replay`` and ``flip7ref explain --transcript``;
- ``<id>.table.json`` — what a transcript cannot hold: the names, the mode, the
  seed of a dealt deck, the language, the moves undone, the token, and in manual
  mode the round scores typed in.

Both are written atomically (a temporary file in the same folder, flushed, then
renamed over the old one), after every step.

The class is put together from parts, one job each: `.record` (the attributes
every part reads, the errors), `.files` (atomic writes, saved games, `load`),
`.narration` (events in words), `.scorepad` (the score pad, CSV), `.rulings`
(what decided a step) and `.views` (the page's data); this module holds the
changes (create, reveal, deal, act, undo, redo, fix, note, language, switch to
the score pad, enter scores) and saving, and re-exports the names other modules
use; `.corrections` says which later steps a correction keeps.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from flip7ref.checking.replay import rules_at, transcript
from flip7ref.core.errors import CardError, Flip7RefError, IllegalActionError, OptionError
from flip7ref.core.game import Game
from flip7ref.core.spec import load_edition
from flip7ref.core.state import CHANCE, State
from flip7ref.core.text import card_name
from flip7ref.table.corrections import mover, receiver, replay_keeping, step_summary
from flip7ref.table.files import Resuming, atomic_write, meta_file, new_game_id, saved_games, valid_id
from flip7ref.table.record import (
    DEFAULT_EDITION,
    LANGS,
    MAX_NAME,
    MAX_PLAYERS,
    META_FORMAT,
    MODES,
    StaleError,
    TableError,
    editions_in_words,
    round_problem,
    table_editions,
)
from flip7ref.table.views import Views, edition_catalogue
from flip7ref.table.wording import check_names, choices, move_words, option_refusal, refusal, say, score_refusal


class TableGame(Views, Resuming):
    """A game at the table; see the module docstring.

    Build one with `create` or `load`; read it with `view`;
    change it with `reveal`, `deal`, `act`, `undo`,
    `redo`, `fix`, `note`, `set_lang`, `to_manual` and (manual mode) `enter_scores`.  Every
    change takes the ``version`` the caller saw and raises `StaleError`
    when the game has moved on; a refused change leaves the game and its files
    as they were.
    """

    # ------------------------------------------------------------------ construction

    @classmethod
    def create(cls, folder: Path, request: Mapping[str, Any]) -> TableGame:
        """A new game from a start-page request and save it under ``folder``.

        Args:
            folder: the data folder.
            request: ``edition`` (id), ``names`` (list of str, seat 0 first),
                ``dealer`` (seat), ``mode`` (``referee``/``dealer``/``manual``),
                ``options`` (name -> reading), ``seed`` (dealer mode; int or word),
                ``lang`` (``en``/``nl``/``de``/``fr``/``no``).

        Raises:
            TableError: a missing or malformed field (named in the message).
            OptionError: an unknown edition or option reading.
            OSError: the folder cannot be written.
        """
        if not isinstance(request, Mapping):
            raise TableError("expected a JSON object")
        unknown = set(request) - {"edition", "names", "dealer", "mode", "options", "seed", "lang"}
        if unknown:
            raise TableError(f"unknown field {sorted(unknown)[0]!r} (expected edition, names, dealer, mode, options, seed, lang)")
        lang = request.get("lang", "en")
        if lang not in LANGS:
            raise TableError(f"lang: expected one of {', '.join(LANGS)}")
        lang = str(lang)  # the language of the refusals below, which a player can cause
        edition = request.get("edition", DEFAULT_EDITION)
        if not isinstance(edition, str) or edition not in table_editions():
            raise TableError(f"edition: expected {editions_in_words()}")
        mode = request.get("mode", "referee")
        if mode not in MODES:
            raise TableError(f"mode: expected one of {', '.join(MODES)}")
        ed = load_edition(edition)
        names = check_names(request.get("names"), max(1, int(ed.thresholds.get("min_players", 1))), lang)
        options = request.get("options") or {}
        if not isinstance(options, dict) or not all(type(v) in (str, int) for v in options.values()):
            raise TableError("options: expected an object of option names to readings")
        for name, value in options.items():
            if name in ed.options:
                option_refusal(ed, name, value, lang)
        game = Game(ed, len(names), options)
        dealer = request.get("dealer", 0)
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < len(names):
            raise TableError(say(lang, "dealer_bad", n=len(names)))
        seed = request.get("seed")
        if mode == "dealer":
            if seed is None or seed == "":
                seed = secrets.randbelow(10**9)
            if isinstance(seed, bool) or not isinstance(seed, (int, str)) or (isinstance(seed, str) and len(seed) > 64):
                raise TableError(say(lang, "seed_bad"))
            if isinstance(seed, str) and re.fullmatch(r"[0-9]+", seed.strip()):  # not isdigit(): '²' is one
                seed = int(seed.strip())
        else:
            seed = None
        gid = new_game_id()
        while (folder / f"{gid}.table.json").exists() or (folder / f"{gid}.json").exists():
            gid = new_game_id()  # two games started in the same second with the same letters
        tg = cls(
            game_id=gid, path=folder / f"{gid}.json", game=game, mode=str(mode), names=names, dealer=dealer,
            seed=seed, lang=str(lang), token=secrets.token_urlsafe(12),
            created=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        )  # fmt: skip
        tg.save()
        return tg

    # ------------------------------------------------------------------ saving

    def meta(self) -> dict[str, Any]:
        """The ``.table.json`` content."""
        data: dict[str, Any] = {
            "format": META_FORMAT,
            "id": self.id,
            "mode": self.mode,
            "names": self.names,
            "lang": self.lang,
            "token": self.token,
            "created": self.created,
            "version": self.version,
            "edition": self.game.edition.id,
            "options": self.game.non_default_options(),
        }
        if self.mode == "dealer":
            data["seed"] = self.seed
        if self.mode == "manual":
            data["rounds"] = self.manual
            data["redo_rounds"] = self.manual_redo
        else:
            data["redo"] = self.redo_moves
            data["steps"] = len(self.states) - 1  # the transcript's steps this redo list belongs to
        if self.undone:
            data["undone"] = self.undone
        if self.notes:
            data["notes"] = self.notes
        if self.fixes:
            data["fixes"] = self.fixes
        return data

    def save(self) -> None:
        """Write the transcript and the ``.table.json`` atomically (transcript last).

        Raises:
            OSError: the folder cannot be written (the files keep their last content).
        """
        atomic_write(meta_file(self.path), json.dumps(self.meta(), indent=1, ensure_ascii=False) + "\n")
        if self.mode != "manual":
            data = transcript(self.states[-1], engine="flip7ref table")
            atomic_write(self.path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")

    # ------------------------------------------------------------------ changes

    def _check_version(self, version: object) -> None:
        if isinstance(version, bool) or not isinstance(version, int):
            raise TableError("version: expected the game's version number (a whole number) as last seen")
        if version != self.version:
            raise StaleError(self.version)

    def _commit(self, states: list[State], redo: list[str]) -> None:
        """Make ``states``/``redo`` the game's and save; restore the old ones if saving fails."""
        old = (self.states, self.redo_moves, self.version)
        self.states, self.redo_moves, self.version = states, redo, self.version + 1
        try:
            self.save()
        except OSError as exc:
            self.states, self.redo_moves, self.version = old
            raise TableError(f"could not save the game to {self.path.name}: {exc.strerror or exc}", status=500) from None

    def refusal(self, card: str) -> TableError:
        """Why ``card`` cannot be the next card revealed (the state is at a chance node)."""
        state = self.state
        try:
            code = self.game.code(card)
        except CardError:
            return self._unknown_card(card)
        kind = self.game.kinds[code]
        cid = kind.id
        total = kind.count * self.game.decks
        where: Counter[str] = Counter()
        for seat, p in enumerate(state.players):
            n = p.line.count(code) + p.kept.count(code)
            if n:
                where[f"player {self.names[seat]}"] += n
        n = list(state.discard).count(code)
        if n:
            where["discard"] += n
        elsewhere = total - sum(where.values())
        if elsewhere > 0:
            where["aside"] += elsewhere
        lang, ed = self.lang, self.game.edition
        spots = ", ".join(
            say(lang, "spot_player", n=v, name=k[len("player ") :]) if k.startswith("player ") else say(lang, f"spot_{k}", n=v)
            for k, v in where.items()
        )
        deck = say(lang, "deck_many", decks=self.game.decks) if self.game.decks > 1 else say(lang, "deck_one")
        rules = kind.rules + tuple(r for r in ("F7-003", "V-004") if r in ed.rules)
        return refusal(lang, ed, "no_copy_left", rules, card=card_name(self.game, cid, lang), deck=deck, total=total, spots=spots)

    def _unknown_card(self, text: str) -> TableError:
        """The refusal of a card name the edition does not know."""
        example = next((c for c in self.game.edition.cards if c.category == "action"), self.game.edition.cards[-1])
        return refusal(
            self.lang, self.game.edition, "unknown_card", text=text.strip(), game=self.game.edition.title,
            example=card_name(self.game, example.id, self.lang).rstrip("!"),
        )  # fmt: skip

    def _receiver(self, state: State) -> str:
        """The name of the player the next card goes to (a chance node's top frame), else "?"."""
        top = state.frames[-1] if state.frames else None
        seat = getattr(top, "seat", getattr(top, "target", None))
        return self.names[seat] if isinstance(seat, int) and 0 <= seat < len(self.names) else "?"

    def _say(self, key: str, rules: tuple[str, ...] = (), **values: object) -> TableError:
        """A refusal in the game's language (`flip7ref.table.wording.refusal`)."""
        return refusal(self.lang, self.game.edition, key, rules, **values)

    def reveal(self, version: object, card: object) -> None:
        """Referee mode: the card just turned over (a card id, alias or name).

        Raises:
            StaleError: ``version`` is not the current one.
            TableError: not a chance node, not referee mode, or no copy of the card
                can still be in the draw pile (the reason and the rule ids).
        """
        self._check_version(version)
        self._not_manual()
        if self.mode != "referee":
            raise self._say("virtual_deck")
        if not isinstance(card, str) or not card.strip() or len(card) > 40:
            raise TableError("card: expected a card id or name, such as '7' or 'second_chance'")
        state = self.state
        if state.current_player != CHANCE:
            raise self._not_chance(state)
        try:
            cid = self.game.card_ids[self.game.code(card.strip())]
        except CardError:
            raise self._unknown_card(card) from None
        if cid not in dict(state.chance_weights()):
            raise self.refusal(cid)
        self._commit([*self.states, state.apply_chance(cid)], [])

    def deal(self, version: object) -> None:
        """Dealer mode: turn over the top card of the virtual deck.

        Raises:
            StaleError, TableError: stale version, wrong mode, or not a chance node.
        """
        self._check_version(version)
        self._not_manual()
        if self.mode != "dealer":
            raise self._say("real_cards")
        state = self.state
        if state.current_player != CHANCE:
            raise self._not_chance(state)
        self._commit([*self.states, state.apply_chance(state.sample_chance())], [])

    def _not_chance(self, state: State) -> TableError:
        if state.is_terminal():
            return self._say("game_over", rules_at(state))
        who = self.names[state.current_player]
        return self._say("no_card_now", rules_at(state), who=who, choices=choices(state, self.names, self.lang))

    def act(self, version: object, action: object) -> None:
        """A decision (``hit``, ``stay``, ``target 2``, ``swap 0 1 2 0``...).

        Raises:
            StaleError: ``version`` is not the current one.
            TableError: not a legal action now (the message names the legal ones and
                the rule ids that decide).
        """
        self._check_version(version)
        self._not_manual()
        if not isinstance(action, str) or len(action) > 40:
            raise TableError("action: expected an action's string form, such as 'hit' or 'target 2'")
        state = self.state
        if state.current_player == CHANCE:
            raise self._say("card_first", rules_at(state), who=self._receiver(state))
        try:
            after = state.apply(action)
        except IllegalActionError:
            if state.is_terminal():
                raise self._say("game_over", rules_at(state)) from None
            if action.strip().startswith("chance "):  # a card typed while a player must decide
                raise self._not_chance(state) from None
            words = move_words(state, action.strip(), self.names, self.lang)
            who = self.names[state.current_player]
            raise self._say("not_allowed", rules_at(state), move=words[:1].upper() + words[1:], who=who,
                            choices=choices(state, self.names, self.lang)) from None  # fmt: skip
        redo = self.redo_moves[:-1] if self.redo_moves and self.redo_moves[-1] == str(action).strip() else []
        self._commit([*self.states, after], redo)

    def undo(self, version: object) -> None:
        """Take the last step back (it can be redone).

        Raises:
            StaleError, TableError: stale version, or nothing to undo.
        """
        self._check_version(version)
        if self.mode == "manual":
            if not self.manual:
                raise self._say("nothing_undo")
            self._commit_manual(self.manual[:-1], [*self.manual_redo, self.manual[-1]])
            return
        if self.fixes and self.fixes[-1]["after"] == self.state.history():
            self._undo_fix()
            return
        if len(self.states) < 2:
            raise self._say("nothing_undo")
        move = self.states[-1].history()[-1]
        if self.mode == "dealer":  # D: everyone sees the undo; the card under it stays the next card
            mark = {"step": len(self.states) - 2, "move": move, "seat": mover(self.states[-2]),
                    "text": [self.describe(e) for e in self.states[-1].last_events()]}  # fmt: skip
            self.undone.append(mark)
            try:
                self._commit(self.states[:-1], [*self.redo_moves, move])
            except TableError:
                self.undone.remove(mark)
                raise
            return
        self._commit(self.states[:-1], [*self.redo_moves, move])

    def _undo_fix(self) -> None:
        """Undo the last correction: the history as it was before it."""
        record = self.fixes[-1]
        states = [self.states[0]]
        try:
            for move in record["before"]:
                states.append(states[-1].apply_move(move))
        except Flip7RefError as exc:
            raise TableError(f"the correction cannot be undone: {exc}") from None
        self.fixes = self.fixes[:-1]
        try:
            self._commit(states, list(record["redo"]))
        except TableError:
            self.fixes = [*self.fixes, record]
            raise

    def redo(self, version: object) -> None:
        """Take the last undone step again.

        Raises:
            StaleError, TableError: stale version, or nothing to redo.
        """
        self._check_version(version)
        if self.mode == "manual":
            if not self.manual_redo:
                raise self._say("nothing_redo")
            self._commit_manual([*self.manual, self.manual_redo[-1]], self.manual_redo[:-1])
            return
        if not self.redo_moves:
            raise self._say("nothing_redo")
        move = self.redo_moves[-1]
        self._commit([*self.states, self.states[-1].apply_move(move)], self.redo_moves[:-1])

    def fix(self, version: object, step: object, card: object, preview: object = False) -> dict[str, Any]:
        """Referee mode: correct the card entered at history step ``step`` (0-based) and
        replay the later steps, each kept with the seat that really made it
        (`flip7ref.table.corrections.replay_keeping`).

        Args:
            version: the version the caller saw.
            step: the step to correct (a card, ``chance ...``).
            card: the right card (an id, alias or name).
            preview: True to only say what the correction would change.

        Returns:
            ``{"step", "old", "new", "kept": [step indices], "dropped": [{"index",
            "seat", "move", "text"}...]}``.  Without ``preview`` the correction is made
            (one step for undo: `undo` brings the old history back).

        Raises:
            StaleError, TableError: stale version, not referee mode, ``step`` is not a
                card, or the new card cannot be there.
        """
        self._check_version(version)
        self._not_manual()
        if self.mode != "referee":
            raise self._say("fix_mode")
        if not isinstance(preview, bool):
            raise TableError("preview: expected true (only say what the correction changes) or false")
        moves = self.state.history()
        if not moves:  # "a step number 0..-1" once
            raise TableError("step: no step to correct yet (no card has been turned over)")
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step < len(moves):
            raise TableError(f"step: expected a step number 0..{len(moves) - 1}")
        if not moves[step].startswith("chance "):
            words = move_words(self.states[step], moves[step], self.names, self.lang)
            raise self._say("fix_decision", step=step + 1, move=words)
        if not isinstance(card, str) or not card.strip():
            raise TableError("card: expected a card id or name")
        before = self.states[step]
        try:
            cid = self.game.card_ids[self.game.code(card.strip())]
        except CardError:
            raise self._unknown_card(card) from None
        saved = self.states
        self.states = self.states[: step + 1]
        try:
            if cid not in dict(before.chance_weights()):
                raise self.refusal(cid)
        finally:
            self.states = saved
        later, kept, dropped = replay_keeping(before.apply_chance(cid), self.states, moves, step + 1)
        plan: dict[str, Any] = {
            "step": step, "old": moves[step][len("chance ") :], "new": cid, "kept": kept,
            "dropped": [{"index": i, **step_summary(self.names, self.states[i], moves[i], self.describe)} for i in dropped],
        }  # fmt: skip
        if preview is True:
            return plan
        states = [*self.states[: step + 1], before.apply_chance(cid), *later]
        record = {"before": moves, "redo": list(self.redo_moves), "after": states[-1].history()}
        old_fixes = self.fixes
        self.fixes = [*self.fixes, record]
        try:
            self._commit(states, [])
        except TableError:
            self.fixes = old_fixes
            raise
        return plan

    def note(self, version: object, card: object) -> None:
        """Referee mode, "the deck disagrees": record that ``card`` was turned over
        although the cards entered say none can be left (a note for the players to sort
        out, with ✎ on the step that was wrong; the game itself does not change).

        Raises:
            StaleError, TableError: stale version, not referee mode, no card now, or
                not a card of the edition.
        """
        self._check_version(version)
        self._not_manual()
        if self.mode != "referee":
            raise TableError("only a game refereed with real cards can note a card the deck disagrees with")
        if self.state.current_player != CHANCE:
            raise self._not_chance(self.state)
        if not isinstance(card, str) or not card.strip() or len(card) > 40:
            raise TableError("card: expected a card id or name, such as '7' or 'second_chance'")
        try:
            cid = self.game.card_ids[self.game.code(card.strip())]
        except CardError as exc:
            raise TableError(str(exc)) from None
        entry = {"step": len(self.states) - 1, "card": cid, "seat": receiver(self.state)}
        self._commit_meta(lambda: self.notes.append(entry), lambda: self.notes.remove(entry))

    def set_lang(self, version: object, lang: object) -> None:
        """The game's language (card names, narration, texts) from now on.

        Raises:
            StaleError, TableError: stale version, or not one of `LANGS`.
        """
        self._check_version(version)
        if lang not in LANGS:
            raise TableError(f"lang: expected one of {', '.join(LANGS)}")
        old = self.lang
        self._commit_meta(lambda: setattr(self, "lang", str(lang)), lambda: setattr(self, "lang", old))

    def to_manual(self, version: object) -> None:
        """Go on as a score pad only: the scores of the rounds played so far become the
        pad's first rounds; the round in progress is left out (its cards are not scored).
        The transcript file keeps the steps played.

        Raises:
            StaleError, TableError: stale version, already a score pad, or the game is over.
        """
        self._check_version(version)
        self._not_manual()
        if self.state.is_terminal():
            raise self._say("game_over", rules_at(self.state))
        rounds = [list(r["scores"]) for r in self.score_pad()["rounds"]]

        def switch() -> None:
            self.mode, self.manual, self.manual_redo = "manual", rounds, []

        old_mode = self.mode

        def back() -> None:
            self.mode, self.manual = old_mode, []

        self._commit_meta(switch, back)

    def _commit_meta(self, change: Callable[[], None], revert: Callable[[], None]) -> None:
        """Make a change that is not a step (``change``), bump the version and save;
        ``revert`` it if saving fails."""
        change()
        self.version += 1
        try:
            self.save()
        except OSError as exc:
            revert()
            self.version -= 1
            raise TableError(f"could not save the game to {self.path.name}: {exc.strerror or exc}", status=500) from None

    # ------------------------------------------------------------------ manual score pad

    def _commit_manual(self, rounds: list[list[int]], redo: list[list[int]]) -> None:
        old = (self.manual, self.manual_redo, self.version)
        self.manual, self.manual_redo, self.version = rounds, redo, self.version + 1
        try:
            self.save()
        except OSError as exc:
            self.manual, self.manual_redo, self.version = old
            raise TableError(f"could not save the game to {self.path.name}: {exc.strerror or exc}", status=500) from None

    def enter_scores(self, version: object, scores: object) -> None:
        """Manual mode: one round's scores, one whole number per seat (points).

        Raises:
            StaleError, TableError: stale version, not manual mode, the game is over,
                or a malformed list (negative scores only where the edition allows them).
        """
        self._check_version(version)
        if self.mode != "manual":
            raise self._say("pad_only")
        if self.manual_winners()[1]:
            raise self._say("game_over", ("F7-120",) if "F7-120" in self.game.edition.rules else ("V-073",))
        n = len(self.names)
        if not (isinstance(scores, list) and len(scores) == n and all(type(v) is int for v in scores)):
            raise self._say("score_count", n=n)
        problem = round_problem(self.game, scores)
        if problem is not None:
            raise score_refusal(self.game, self.lang, self.names, scores, problem)
        self._commit_manual([*self.manual, list(scores)], [])


__all__ = [
    "LANGS",
    "MAX_NAME",
    "MAX_PLAYERS",
    "MODES",
    "OptionError",
    "StaleError",
    "TableError",
    "TableGame",
    "atomic_write",
    "edition_catalogue",
    "new_game_id",
    "saved_games",
    "valid_id",
]
