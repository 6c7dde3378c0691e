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
"""

from __future__ import annotations

import contextlib
import csv
import functools
import io
import json
import os
import re
import secrets
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import CardError, Flip7RefError, IllegalActionError, OptionError, SpecError
from ..game import MODIFIER, NUMBER, Game
from ..replay import event_rules, load_transcript, rules_at, transcript
from ..scoring import score_line
from ..spec import Edition, load_edition
from ..state import CHANCE, TERMINAL, Event, State, Status, game_end
from ..text import card_name, describe

MODES = ("referee", "dealer", "manual")
"""``referee``: real cards, each revealed card entered; ``dealer``: a seeded virtual
deck deals; ``manual``: only round scores are typed in."""

LANGS = ("en", "nl", "de", "fr", "no")
MAX_PLAYERS = 18
MAX_NAME = 40
META_FORMAT = 1
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class TableError(Flip7RefError):
    """A request the table refuses: the message says why; ``rules`` the rule ids behind it."""

    def __init__(self, message: str, rules: Sequence[str] = (), status: int = 400) -> None:
        super().__init__(message)
        self.rules = tuple(rules)
        self.status = status


class StaleError(TableError):
    """The request was made on an older version of the game (someone else's step won)."""

    def __init__(self, version: int) -> None:
        super().__init__(f"state changed: the game is at version {version}; here is the new state", status=409)


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temporary file, fsync, rename).

    Raises:
        OSError: the folder cannot be written (the old file is left as it was).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def new_game_id() -> str:
    """A fresh game id: the UTC time and a few random letters (``20261201-081500-k3f9``)."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(2)


def _meta_path(path: Path) -> Path:
    name = path.name[: -len(".json")] if path.name.endswith(".json") else path.name
    return path.with_name(name + ".table.json")


def _check_names(names: object, low: int) -> list[str]:
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise TableError("names: expected a list of player names (strings), seat 0 first")
    clean = [" ".join(n.split())[:MAX_NAME] for n in names]
    if not low <= len(clean) <= MAX_PLAYERS:
        raise TableError(f"names: expected {low} to {MAX_PLAYERS} players, got {len(clean)}")
    if any(not n for n in clean):
        raise TableError("names: a player's name is empty")
    if len(set(clean)) != len(clean):
        raise TableError("names: two players have the same name")
    return clean


def _token(meta: Mapping[str, Any]) -> str:
    """The game's token from its ``.table.json`` (a fresh one when missing or not a token)."""
    token = meta.get("token")
    if isinstance(token, str) and re.fullmatch(r"[A-Za-z0-9_-]{8,64}", token):
        return token
    return secrets.token_urlsafe(12)


class TableGame:
    """A game at the table; see the module docstring.

    Build one with `create` or `load`; read it with `view`;
    change it with `reveal`, `deal`, `act`, `undo`,
    `redo`, `fix` and (manual mode) `enter_scores`.  Every
    change takes the ``version`` the caller saw and raises `StaleError`
    when the game has moved on; a refused change leaves the game and its files
    as they were.
    """

    def __init__(
        self, *, game_id: str, path: Path, game: Game, mode: str, names: list[str], dealer: int,
        seed: int | str | None, lang: str, token: str, created: str,
    ) -> None:  # fmt: skip
        self.id = game_id
        self.path = path
        self.game = game
        self.mode = mode
        self.names = names
        self.dealer = dealer
        self.seed = seed
        self.lang = lang
        self.token = token
        self.created = created
        self.version = 0
        self.states: list[State] = []
        self.redo_moves: list[str] = []
        self.manual: list[list[int]] = []
        self.manual_redo: list[list[int]] = []
        if mode != "manual":
            self.states.append(game.new_initial_state(seed if mode == "dealer" else None, dealer=dealer))

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
        edition = request.get("edition", "flip7")
        if not isinstance(edition, str) or edition not in ("flip7", "vengeance"):
            raise TableError("edition: expected 'flip7' or 'vengeance'")
        mode = request.get("mode", "referee")
        if mode not in MODES:
            raise TableError(f"mode: expected one of {', '.join(MODES)}")
        ed = load_edition(edition)
        names = _check_names(request.get("names"), max(1, int(ed.thresholds.get("min_players", 1))))
        options = request.get("options") or {}
        if not isinstance(options, dict) or not all(type(v) in (str, int) for v in options.values()):
            raise TableError("options: expected an object of option names to readings")
        game = Game(ed, len(names), options)
        dealer = request.get("dealer", 0)
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < len(names):
            raise TableError(f"dealer: expected a seat 0..{len(names) - 1}")
        seed = request.get("seed")
        if mode == "dealer":
            if seed is None or seed == "":
                seed = secrets.randbelow(10**9)
            if isinstance(seed, bool) or not isinstance(seed, (int, str)) or (isinstance(seed, str) and len(seed) > 64):
                raise TableError("seed: expected a whole number or a word")
            if isinstance(seed, str) and seed.strip().isdigit():
                seed = int(seed.strip())
        else:
            seed = None
        lang = request.get("lang", "en")
        if lang not in LANGS:
            raise TableError(f"lang: expected one of {', '.join(LANGS)}")
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

    @classmethod
    def load(cls, path: str | Path) -> TableGame:
        """Resume a saved game from its transcript (or, for a manual score pad, its
        ``.table.json``), replaying every step.

        Raises:
            SpecError: the file is missing, not JSON, or does not follow its schema.
            TableError: a step of the transcript is not legal (the step is named).
        """
        p = Path(path)
        if p.name.endswith(".table.json"):
            meta_path = p
            p = p.with_name(p.name[: -len(".table.json")] + ".json")
        else:
            meta_path = _meta_path(p)
        meta: dict[str, Any] = {}
        if meta_path.exists():
            try:
                raw = json.loads(meta_path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise SpecError(str(meta_path), "(file)", f"a readable JSON file ({exc})") from None
            if not isinstance(raw, dict):
                raise SpecError(str(meta_path), "(root)", "a JSON object")
            meta = raw
        mode = meta.get("mode", "referee")
        if mode not in MODES:
            raise SpecError(str(meta_path), "mode", f"one of {', '.join(MODES)}")
        if mode == "manual":
            return cls._load_manual(p, meta_path, meta)
        data = load_transcript(p)  # SpecError for whatever it cannot read (too deep, numbers too long...)
        try:
            game = Game(data["edition"], data["players"], data.get("options") or {})
        except OptionError as exc:
            raise SpecError(str(p), "/options", f"a game the edition allows ({exc})") from None
        names = meta.get("names")
        if not (isinstance(names, list) and len(names) == game.players and all(isinstance(n, str) for n in names)):
            names = [f"Seat {i}" for i in range(game.players)]
        seed = meta.get("seed") if mode == "dealer" else None
        if isinstance(seed, bool) or not isinstance(seed, (int, str, type(None))):
            raise SpecError(str(meta_path), "seed", "a whole number or a word (the seed of the virtual deck)")
        try:
            tg = cls(
                game_id=p.name[: -len(".json")] if p.name.endswith(".json") else p.name, path=p, game=game, mode=mode,
                names=list(names), dealer=int(data["dealer"]), seed=seed, lang=str(meta.get("lang", "en")),
                token=_token(meta), created=str(meta.get("created", "")),
            )  # fmt: skip
            if data.get("totals"):
                tg.states = [game.new_initial_state(seed, dealer=tg.dealer, totals=data["totals"])]
        except OptionError as exc:  # a dealer seat or totals that do not fit the players
            raise SpecError(str(p), "/dealer" if "dealer" in str(exc) else "/totals", "", problem=str(exc)) from None
        if tg.lang not in LANGS:
            tg.lang = "en"
        for i, step in enumerate(data["steps"]):
            state = tg.states[-1]
            try:
                if "draw" in step:
                    if state.current_player != CHANCE:
                        raise IllegalActionError("draw", state.legal_action_strings(), "a decision is due, not a card")
                    tg.states.append(state.apply_chance(step["draw"]))
                else:
                    if state.current_player == CHANCE:
                        raise IllegalActionError(step["action"], [], "a card is due, not a decision")
                    if step["seat"] != state.current_player:
                        raise IllegalActionError(step["action"], [], f"it is seat {state.current_player}'s decision")
                    tg.states.append(state.apply(step["action"]))
            except Flip7RefError as exc:
                raise TableError(f"{p}: step {i} cannot be replayed: {exc}", rules_at(state)) from None
        redo = meta.get("redo") or []
        tg.redo_moves = [m for m in redo if isinstance(m, str)] if isinstance(redo, list) else []
        steps = meta.get("steps")
        if isinstance(steps, int) and steps != len(tg.states) - 1:
            # the server stopped between writing the two files: the moves undone belong to
            # another point of the game, and redoing them could replay a step twice
            tg.redo_moves = []
        tg.version = int(meta.get("version", len(tg.states) - 1)) if isinstance(meta.get("version"), int) else len(tg.states) - 1
        return tg

    @classmethod
    def _load_manual(cls, p: Path, meta_path: Path, meta: Mapping[str, Any]) -> TableGame:
        def bad(field: str, expected: str) -> SpecError:
            return SpecError(str(meta_path), field, expected)

        edition = meta.get("edition", "flip7")
        if edition not in ("flip7", "vengeance"):
            raise bad("edition", "'flip7' or 'vengeance'")
        try:
            names = _check_names(meta.get("names"), 1)
        except TableError as exc:
            raise SpecError(str(meta_path), "names", "player names", problem=str(exc).removeprefix("names: ")) from None
        options = meta.get("options") or {}
        if not isinstance(options, dict):
            raise bad("options", "an object")
        try:
            game = Game(str(edition), len(names), options)
        except OptionError as exc:
            raise bad("options", f"options the edition allows ({exc})") from None
        tg = cls(
            game_id=p.name[: -len(".json")], path=p, game=game, mode="manual", names=list(names), dealer=0, seed=None,
            lang=str(meta.get("lang", "en")) if meta.get("lang") in LANGS else "en",
            token=_token(meta), created=str(meta.get("created", "")),
        )  # fmt: skip
        for key, target in (("rounds", tg.manual), ("redo_rounds", tg.manual_redo)):
            rounds = meta.get(key) or []
            if not isinstance(rounds, list):
                raise bad(key, "a list of rounds")
            for i, row in enumerate(rounds):
                if not (isinstance(row, list) and len(row) == len(names) and all(type(v) is int for v in row)):
                    raise bad(f"{key}/{i}", f"a list of {len(names)} whole numbers")
                target.append(list(row))
        version = meta.get("version")
        tg.version = version if isinstance(version, int) else len(tg.manual)
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
        return data

    def save(self) -> None:
        """Write the transcript and the ``.table.json`` atomically (transcript last).

        Raises:
            OSError: the folder cannot be written (the files keep their last content).
        """
        atomic_write(_meta_path(self.path), json.dumps(self.meta(), indent=1, ensure_ascii=False) + "\n")
        if self.mode != "manual":
            data = transcript(self.states[-1], engine="flip7ref table")
            atomic_write(self.path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")

    # ------------------------------------------------------------------ changes

    @property
    def state(self) -> State:
        """The current state (not in manual mode)."""
        if not self.states:
            raise TableError("this is a manual score pad: there are no cards to play")
        return self.states[-1]

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
            raise TableError(f"could not save the game to {self.path}: {exc.strerror or exc}", status=500) from None

    def _not_manual(self) -> None:
        if self.mode == "manual":
            raise TableError("this is a manual score pad: enter round scores instead")

    def refusal(self, card: str) -> TableError:
        """Why ``card`` cannot be the next card revealed (the state is at a chance node)."""
        state = self.state
        try:
            code = self.game.code(card)
        except CardError as exc:
            return TableError(str(exc))
        kind = self.game.kinds[code]
        cid = kind.id
        total = kind.count * self.game.decks
        where: Counter[str] = Counter()
        for seat, p in enumerate(state.players):
            n = p.line.count(code) + p.kept.count(code)
            if n:
                where[f"in front of {self.names[seat]}"] += n
        n = list(state.discard).count(code)
        if n:
            where["on the discard pile"] += n
        elsewhere = total - sum(where.values())
        if elsewhere > 0:
            where["set aside"] += elsewhere
        spots = ", ".join(f"{v} {k}" for k, v in where.items())
        name = card_name(self.game, cid, self.lang)
        deck = f"{self.game.decks} decks hold" if self.game.decks > 1 else "the deck holds"
        return TableError(
            f"no {name} can be revealed now: {deck} {total} and all are out ({spots})",
            kind.rules + tuple(r for r in ("F7-003", "V-004") if r in self.game.edition.rules),
        )

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
            raise TableError("this game deals from a virtual deck: use 'deal', not a card")
        if not isinstance(card, str) or not card.strip() or len(card) > 40:
            raise TableError("card: expected a card id or name, such as '7' or 'second_chance'")
        state = self.state
        if state.current_player != CHANCE:
            raise self._not_chance(state)
        try:
            cid = self.game.card_ids[self.game.code(card.strip())]
        except CardError as exc:
            raise TableError(str(exc)) from None
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
            raise TableError("this game is refereed with real cards: enter the card revealed")
        state = self.state
        if state.current_player != CHANCE:
            raise self._not_chance(state)
        self._commit([*self.states, state.apply_chance(state.sample_chance())], [])

    def _not_chance(self, state: State) -> TableError:
        if state.is_terminal():
            return TableError("the game is over", rules_at(state))
        who = self.names[state.current_player]
        legal = ", ".join(state.legal_action_strings())
        return TableError(f"no card now: {who} must decide first ({legal})", rules_at(state))

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
            raise TableError("a card must be revealed first", rules_at(state))
        try:
            after = state.apply(action)
        except IllegalActionError as exc:
            raise TableError(f"{exc}", rules_at(state)) from None
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
                raise TableError("nothing to undo")
            self._commit_manual(self.manual[:-1], [*self.manual_redo, self.manual[-1]])
            return
        if len(self.states) < 2:
            raise TableError("nothing to undo")
        move = self.states[-1].history()[-1]
        self._commit(self.states[:-1], [*self.redo_moves, move])

    def redo(self, version: object) -> None:
        """Take the last undone step again.

        Raises:
            StaleError, TableError: stale version, or nothing to redo.
        """
        self._check_version(version)
        if self.mode == "manual":
            if not self.manual_redo:
                raise TableError("nothing to redo")
            self._commit_manual([*self.manual, self.manual_redo[-1]], self.manual_redo[:-1])
            return
        if not self.redo_moves:
            raise TableError("nothing to redo")
        move = self.redo_moves[-1]
        self._commit([*self.states, self.states[-1].apply_move(move)], self.redo_moves[:-1])

    def fix(self, version: object, step: object, card: object) -> int:
        """Referee mode: correct the card entered at history step ``step`` (0-based)
        and replay the later steps as far as they stay legal.

        Returns:
            How many later steps were kept (the others are dropped).

        Raises:
            StaleError, TableError: stale version, not referee mode, ``step`` is not a
                card, or the new card cannot be there.
        """
        self._check_version(version)
        self._not_manual()
        if self.mode != "referee":
            raise TableError("only a game refereed with real cards can correct a card")
        moves = self.state.history()
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step < len(moves):
            raise TableError(f"step: expected a step number 0..{len(moves) - 1}")
        if not moves[step].startswith("chance "):
            raise TableError(f"step {step} is a decision ({moves[step]}), not a card: undo it instead")
        if not isinstance(card, str) or not card.strip():
            raise TableError("card: expected a card id or name")
        before = self.states[step]
        try:
            cid = self.game.card_ids[self.game.code(card.strip())]
        except CardError as exc:
            raise TableError(str(exc)) from None
        saved = self.states
        self.states = self.states[: step + 1]
        try:
            if cid not in dict(before.chance_weights()):
                raise self.refusal(cid)
        finally:
            self.states = saved
        states = [*self.states[: step + 1], before.apply_chance(cid)]
        kept = 0
        for move in moves[step + 1 :]:
            try:
                states.append(states[-1].apply_move(move))
            except Flip7RefError:
                break
            kept += 1
        self._commit(states, [])
        return kept

    # ------------------------------------------------------------------ manual score pad

    def _commit_manual(self, rounds: list[list[int]], redo: list[list[int]]) -> None:
        old = (self.manual, self.manual_redo, self.version)
        self.manual, self.manual_redo, self.version = rounds, redo, self.version + 1
        try:
            self.save()
        except OSError as exc:
            self.manual, self.manual_redo, self.version = old
            raise TableError(f"could not save the game to {self.path}: {exc.strerror or exc}", status=500) from None

    def enter_scores(self, version: object, scores: object) -> None:
        """Manual mode: one round's scores, one whole number per seat (points).

        Raises:
            StaleError, TableError: stale version, not manual mode, the game is over,
                or a malformed list (negative scores only where the edition allows them).
        """
        self._check_version(version)
        if self.mode != "manual":
            raise TableError("round scores are typed in only on a manual score pad")
        if self.manual_winners()[1]:
            raise TableError("the game is over", ("F7-120",) if "F7-120" in self.game.edition.rules else ("V-073",))
        n = len(self.names)
        if not (isinstance(scores, list) and len(scores) == n and all(type(v) is int for v in scores)):
            raise TableError(f"scores: expected {n} whole numbers, seat 0 first")
        g = self.game
        negatives = g.flip7_choice or (not g.floors_at_zero and any(m is not None and m[1] < 0 for m in g.modifier))
        low = -1000 if negatives else 0
        if any(not low <= v <= 1000 for v in scores):
            why = "a round score is never negative in this edition" if low == 0 else "a round score is between -1000 and 1000"
            raise TableError(f"scores: {why}")
        self._commit_manual([*self.manual, list(scores)], [])

    def manual_winners(self) -> tuple[tuple[int, ...], bool]:
        """Manual mode: ``(leaders, over)`` after the rounds typed in (the same rule
        as the interpreter's: F7-120, F7-121 and the ``tie`` option)."""
        if not self.manual:
            return (), False
        totals = [sum(r[i] for r in self.manual) for i in range(len(self.names))]
        return game_end(self.game, totals)

    # ------------------------------------------------------------------ views

    def _name_seats(self, text: str) -> str:
        def name(m: re.Match[str]) -> str:
            seat = int(m.group(1))
            return self.names[seat] if seat < len(self.names) else m.group(0)

        def names(m: re.Match[str]) -> str:
            seats = [int(x) for x in m.group(1).split(", ")]
            return ", ".join(self.names[s] for s in seats) if all(s < len(self.names) for s in seats) else m.group(0)

        return re.sub(r"\bseat (\d+)\b", name, re.sub(r"\bseats (\d+(?:, \d+)*)\b", names, text))

    def describe(self, event: Event) -> str:
        """One readable line for an event, with the players' names, in the game's
        language (``static/events.json``; English from :func:`flip7ref.text.describe`)."""
        return self._describe(event, self.game)

    @staticmethod
    def template_key(event: Event, game: Game) -> str:
        """The key of an event's template in ``static/events.json``: ``TYPE`` or
        ``TYPE/DETAIL``, where DETAIL is the ``via`` of ``dealt`` (``deal``,
        ``hit``), the ``reason`` of ``stayed`` and ``discarded`` (``card`` for a
        card id), the ``outcome`` of ``forced_draw_ended``, ``take``/``give`` for
        ``flip7_bonus_chosen`` and ``shared`` for a ``game_won`` by several seats."""
        t = event.type
        if t == "dealt" and event.get("via") in ("deal", "hit"):
            return f"dealt/{event.get('via')}"
        if t in ("stayed", "discarded", "forced_draw_ended"):
            detail = event.get("outcome" if t == "forced_draw_ended" else "reason")
            if detail is None:
                return t
            return f"{t}/{'card' if detail in game.codes else detail}"
        if t == "flip7_bonus_chosen":
            return f"{t}/{'take' if event.get('points', 0) > 0 else 'give'}"
        if t == "game_won" and len(event.get("winners", ())) > 1:
            return f"{t}/shared"
        return t

    def _describe(self, event: Event, game: Game) -> str:
        template = _event_texts().get(self.lang, {}).get(self.template_key(event, game))
        if template is None:
            return self._name_seats(describe(event, game, self.lang))
        values: dict[str, str] = {}
        for key, value in event.data:
            if key in ("seat", "target", "by", "first", "second", "dealer") and isinstance(value, int):
                values[key] = self.names[value] if 0 <= value < len(self.names) else str(value)
            elif key in ("card", "via", "shield", "first_card", "second_card", "reason") and isinstance(value, str):
                values[key] = card_name(game, value, self.lang) if value in game.codes else value
            elif key in ("winners", "leaders"):
                values[key] = ", ".join(self.names[w] for w in value)
            elif key == "cards" and isinstance(value, tuple):
                values[key] = ", ".join(card_name(game, c, self.lang) for c in value)
            elif key == "points" and isinstance(value, int):
                values[key] = f"{value:+d}"
            elif isinstance(value, tuple):
                values[key] = ", ".join(map(str, value))
            else:
                values[key] = str(value)
        try:
            return template.format(**values)
        except (KeyError, IndexError):
            return self._name_seats(describe(event, game, self.lang))

    def _rule(self, rid: str) -> dict[str, str]:
        rule = self.game.edition.rules.get(rid)
        return {"id": rid, "text": rule.text if rule else ""}

    def _action_view(self, state: State, text: str) -> dict[str, Any]:
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
        return out

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
            "file": str(self.path),
            "card_names": {c.id: c.name(self.lang) for c in game.edition.cards},
            "categories": {c.id: c.category for c in game.edition.cards},
            "target_score": game.target_score,
            "tie": game.tie,
        }
        if self.mode == "manual":
            leaders, over = self.manual_winners()
            totals = [sum(r[i] for r in self.manual) for i in range(len(self.names))]
            rows, running = [], [0] * len(self.names)
            for i, r in enumerate(self.manual):
                running = [a + b for a, b in zip(running, r, strict=True)]
                rows.append({"round": i + 1, "scores": r, "totals": running, "breakdown": None})
            base.update(
                pad={"rounds": rows, "totals": totals, "winners": list(leaders) if over else [],
                     "tied": list(leaders) if leaders and not over else []},
                undo=bool(self.manual), redo=bool(self.manual_redo), finished=over,
            )  # fmt: skip
            return base
        state = self.state
        current = state.current_player
        kind, card = state.pending()
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
        chance = [{"card": c, "left": n} for c, n in state.chance_weights()] if current == CHANCE else []
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
        base.update(
            round=state.round, dealer=state.dealer, current=current,
            who=None if current < 0 else current, receiver=receiver,
            pending={"kind": kind, "card": card}, seats=seats, draw_count=len(state.draw),
            discard_count=len(state.discard), chance=chance, actions=actions, steps=steps,
            pad=self.score_pad(), undo=len(self.states) > 1, redo=bool(self.redo_moves),
            finished=state.is_terminal(), winners=list(state.winners), terminal=current == TERMINAL,
            rules_here=[self._rule(r) for r in rules_at(state)],
        )  # fmt: skip
        return base

    def score_pad(self) -> dict[str, Any]:
        """Per-round scores with breakdowns, running totals, winners and ties.

        A breakdown (numbers, ×2 or ÷2, modifiers, Flip 7 bonus, Brutal Mode's
        penalty) is rebuilt from the round's final lines: the lines just before
        the step that ended the round, with that step's events applied (cards
        dealt, a Swap, Steal or Discard, an Unlucky 7 wipe, a Second Chance used),
        then scored by :func:`flip7ref.scoring.score_line` as the interpreter
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
        penalised = bonus_to if bonus_to is not None and bonus_to != flip7 else None
        out: list[dict[str, Any] | None] = []
        for seat, line in enumerate(lines):
            made = flip7 == seat
            shared = g.flip7_bonus_to == "all-non-busted" and flip7 is not None and not busted[seat]
            bonus = (made and penalised is None) or shared
            if made or bonus:
                b = score_line(g, line, flip7=made, busted=busted[seat], bonus=bonus)
            else:  # as the interpreter: the line alone decides
                b = score_line(g, line, busted=busted[seat])
            score = b.score
            if busted[seat] and g.busted_score == "modifiers":  # V-081: the negatives given still count
                score = b.modifiers
            penalty = -g.flip7_bonus if seat == penalised else 0
            if score + penalty != scores[seat]:
                out.append(None)
                continue
            mods = [g.card_ids[c] for c in line if g.category[c] == MODIFIER]
            out.append({
                "numbers": b.numbers, "multiplied": b.multiplied, "modifiers": b.modifiers, "bonus": b.bonus,
                "flip7": b.flip7, "busted": b.busted, "penalty": penalty, "score": score + penalty,
                "cards": [g.card_ids[c] for c in line], "modifier_cards": mods,
            })  # fmt: skip
        return out

    def csv(self) -> str:
        """The score pad as CSV: a header of names, one row per round, a totals row."""
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["round", *self.names])
        pad = self.view()["pad"]
        for row in pad["rounds"]:
            writer.writerow([row["round"], *row["scores"]])
        writer.writerow(["total", *pad["totals"]])
        if pad["winners"]:
            writer.writerow(["winner", *("yes" if i in pad["winners"] else "" for i in range(len(self.names)))])
        return out.getvalue()

    # ------------------------------------------------------------------ rulings

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


@functools.cache
def _event_texts() -> dict[str, dict[str, str]]:
    """The event templates by language (``static/events.json``)."""
    data: dict[str, dict[str, str]] = json.loads((Path(__file__).parent / "static" / "events.json").read_text(encoding="utf-8"))
    return data


def edition_catalogue(edition: Edition, lang: str = "en") -> dict[str, Any]:
    """What the start page needs of an edition: title, player limits, options with
    their readings and defaults, card names."""
    return {
        "id": edition.id,
        "title": edition.title,
        "min_players": int(edition.thresholds.get("min_players", 1)),
        "options": [
            {
                "name": o.name, "summary": o.summary, "default": o.coerce(o.default), "dispute": o.dispute,
                "integer": list(o.integer) if o.integer else None,
                "readings": [{"name": r.name, "summary": r.summary} for r in o.readings],
            }
            for o in edition.options.values()
        ],
    }  # fmt: skip


def saved_games(folder: Path) -> list[dict[str, Any]]:
    """The games saved under ``folder``, newest first: id, names, edition, mode, created."""
    out: list[dict[str, Any]] = []
    if not folder.is_dir():
        return out
    for meta_path in sorted(folder.glob("*.table.json"), reverse=True):
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        if not isinstance(meta, dict) or not _ID.fullmatch(str(meta.get("id", ""))):
            continue
        out.append({k: meta.get(k) for k in ("id", "names", "edition", "mode", "created")})
    return out


def valid_id(game_id: str) -> bool:
    """Whether ``game_id`` is a well-formed game id (letters, digits, ``-``, ``_``)."""
    return bool(_ID.fullmatch(game_id))


__all__ = [
    "LANGS",
    "MODES",
    "OptionError",
    "StaleError",
    "TableError",
    "TableGame",
    "atomic_write",
    "edition_catalogue",
    "saved_games",
    "valid_id",
]
