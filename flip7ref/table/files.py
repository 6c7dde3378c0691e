"""The files of a game at the table: writing them atomically, finding saved games, resuming one.

``<id>.json`` is the game as a transcript, ``<id>.table.json`` the rest (names,
mode, seed, language, moves undone, token; the round scores on a manual score
pad); see `flip7ref.table.session`.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Self

from flip7ref.checking.replay import _checkpoint, load_transcript, parse_json, rules_at
from flip7ref.core.errors import Flip7RefError, IllegalActionError, OptionError, SpecError
from flip7ref.core.game import Game
from flip7ref.core.state import CHANCE, game_end
from flip7ref.core.textfiles import read_text_file
from flip7ref.table.record import (
    DEFAULT_EDITION,
    GAME_ID,
    LANGS,
    MODES,
    TableError,
    TableRecord,
    editions_in_words,
    problem_text,
    round_problem,
    table_editions,
)
from flip7ref.table.wording import check_names

MAX_META_BYTES = 4 * 1024 * 1024
"""The largest ``.table.json`` read (one holds names, options and round scores: a few KiB)."""

STALE_TMP_SECONDS = 60
"""A temporary file of `atomic_write` older than this (or of a process that has ended) is
left over from a server killed mid-save, and is removed at start-up."""

_TMP = re.compile(r"^\..+\.json\.(?:p(\d{1,10})\.)?[A-Za-z0-9_]+\.tmp$")


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temporary file, fsync, rename).

    Raises:
        OSError: the folder cannot be written (the old file is left as it was).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    # the pid in the name lets a later start-up tell a file of a dead server from one being written
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.p{os.getpid()}.", suffix=".tmp", dir=path.parent)
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


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (on Windows, where signal 0 would end it: always True)."""
    if os.name == "nt" or pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except PermissionError:  # another user's process
        return True
    except (OSError, OverflowError, ValueError):
        return False
    return True


def clean_stale_tmp(folder: Path, *, now: float | None = None) -> list[str]:
    """Remove the temporary files `atomic_write` left in ``folder`` when a server was
    killed mid-save: those older than `STALE_TMP_SECONDS`, or whose name carries the pid
    of a process that no longer runs.  Other files are never touched.

    Returns:
        The names of the files removed (a file that cannot be removed is skipped).
    """
    removed: list[str] = []
    if not folder.is_dir():
        return removed
    now = time.time() if now is None else now
    try:
        entries = list(folder.iterdir())
    except OSError:
        return removed
    for entry in entries:
        match = _TMP.fullmatch(entry.name)
        if match is None:
            continue
        try:
            old = now - entry.lstat().st_mtime > STALE_TMP_SECONDS
            if not entry.is_file() or not (old or (match[1] is not None and not _alive(int(match[1])))):
                continue
            entry.unlink()
        except OSError:
            continue
        removed.append(entry.name)
    return removed


def read_meta(path: Path) -> dict[str, Any]:
    """Read a ``.table.json``: a JSON object of at most `MAX_META_BYTES`.

    Raises:
        SpecError: the file is missing, unreadable, not UTF-8, not JSON, holds a number
            too long to read or nests too deep, or is not an object (the file is named).
    """
    text = read_text_file(path, "saved game file (.table.json)", limit=MAX_META_BYTES)
    raw = parse_json(text, str(path))
    if not isinstance(raw, dict):
        raise SpecError(str(path), "(root)", "a JSON object")
    return raw


def new_game_id() -> str:
    """A fresh game id: the UTC time and a few random letters (``20261201-081500-k3f9``)."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(2)


def meta_file(path: Path) -> Path:
    name = path.name[: -len(".json")] if path.name.endswith(".json") else path.name
    return path.with_name(name + ".table.json")


def token_from(meta: Mapping[str, Any]) -> str:
    """The game's token from its ``.table.json`` (a fresh one when missing or not a token)."""
    token = meta.get("token")
    if isinstance(token, str) and re.fullmatch(r"[A-Za-z0-9_-]{8,64}", token):
        return token
    return secrets.token_urlsafe(12)


def saved_games(folder: Path) -> list[dict[str, Any]]:
    """The games saved under ``folder``, newest first.

    Returns:
        One dict per ``*.table.json``: ``id``, ``names``, ``edition``, ``mode``,
        ``created`` for a readable one; for a damaged one (not UTF-8, not JSON, too
        deep, a number too long, not an object, no valid id) ``{"file": name,
        "damaged": why}``, with the file's name only, never its folder.
    """
    out: list[dict[str, Any]] = []
    if not folder.is_dir():
        return out
    for meta_path in sorted(folder.glob("*.table.json"), reverse=True):
        try:
            meta = read_meta(meta_path)
        except SpecError as exc:
            out.append({"file": meta_path.name, "damaged": f"expected {exc.expected}" if exc.expected else "unreadable"})
            continue
        gid = meta.get("id")
        if not (isinstance(gid, str) and GAME_ID.fullmatch(gid) and meta_path.name == f"{gid}.table.json"):
            out.append({"file": meta_path.name, "damaged": "expected the game's id, the file's name without .table.json"})
            continue
        entry = {k: meta.get(k) for k in ("id", "names", "edition", "mode", "created")}
        names = entry["names"]
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
            entry["names"] = []
        for key in ("edition", "mode", "created"):
            if not isinstance(entry[key], str):
                entry[key] = ""
        out.append(entry)
    return out


def valid_id(game_id: str) -> bool:
    """Whether ``game_id`` is a well-formed game id (letters, digits, ``-``, ``_``)."""
    return bool(GAME_ID.fullmatch(game_id))


def _dicts(value: object) -> list[dict[str, Any]]:
    """The JSON objects of a list read from a ``.table.json`` (anything else is left out)."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _moves(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(m, str) for m in value)


class Resuming(TableRecord):
    """`load`: a saved game resumed from its files."""

    @classmethod
    def load(cls, path: str | Path) -> Self:
        """Resume a saved game from its transcript (or, for a manual score pad, its
        ``.table.json``), replaying every step.

        Raises:
            SpecError: the file is missing, not JSON, or does not follow its schema, or its
                edition is not one the table offers (`table_editions`; a name is never read
                as a file).
            TableError: a step of the transcript is not legal (the step is named).
        """
        p = Path(path)
        if p.name.endswith(".table.json"):
            meta_path = p
            p = p.with_name(p.name[: -len(".table.json")] + ".json")
        else:
            meta_path = meta_file(p)
        meta: dict[str, Any] = read_meta(meta_path) if meta_path.exists() else {}
        mode = meta.get("mode", "referee")
        if mode not in MODES:
            raise SpecError(str(meta_path), "mode", f"one of {', '.join(MODES)}")
        if mode == "manual":
            return cls._load_manual(p, meta_path, meta)
        data = load_transcript(p)  # SpecError for whatever it cannot read (too deep, numbers too long...)
        if data["edition"] not in table_editions():  # only a shipped table: never a file the name happens to match
            found = f"expected {editions_in_words()}, found {data['edition']!r}"
            raise SpecError(str(p), "/edition", editions_in_words(), problem=found)
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
                token=token_from(meta), created=str(meta.get("created", "")),
            )  # fmt: skip
            if data.get("totals"):
                tg.states = [game.new_initial_state(seed, dealer=tg.dealer, totals=data["totals"])]
        except OptionError as exc:  # a dealer seat or totals that do not fit the players
            raise SpecError(str(p), "/dealer" if "dealer" in str(exc) else "/totals", "", problem=str(exc)) from None
        if tg.lang not in LANGS:
            tg.lang = "en"
        for i, step in enumerate(data["steps"]):
            state = tg.states[-1]
            if "checkpoint" in step:  # a score checkpoint (transcript(..., checkpoints=True)): checked
                problem = _checkpoint(state, step["checkpoint"])
                if problem is not None:
                    raise TableError(f"{p.name}: step {i}: {problem}", rules_at(state))
                continue
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
                raise TableError(f"{p.name}: step {i} cannot be replayed: {exc}", rules_at(state)) from None
        redo = meta.get("redo") or []
        tg.redo_moves = [m for m in redo if isinstance(m, str)] if isinstance(redo, list) else []
        steps = meta.get("steps")
        if isinstance(steps, int) and steps != len(tg.states) - 1:
            # the server stopped between writing the two files: the moves undone belong to
            # another point of the game, and redoing them could replay a step twice
            tg.redo_moves = []
        tg.undone, tg.notes = _dicts(meta.get("undone")), _dicts(meta.get("notes"))
        tg.fixes = [f for f in _dicts(meta.get("fixes")) if all(_moves(f.get(k)) for k in ("before", "after", "redo"))]
        tg.version = int(meta.get("version", len(tg.states) - 1)) if isinstance(meta.get("version"), int) else len(tg.states) - 1
        return tg

    @classmethod
    def _load_manual(cls, p: Path, meta_path: Path, meta: Mapping[str, Any]) -> Self:
        def bad(field: str, expected: str) -> SpecError:
            return SpecError(str(meta_path), field, expected)

        edition = meta.get("edition", DEFAULT_EDITION)
        if edition not in table_editions():
            raise bad("edition", editions_in_words())
        try:
            names = check_names(meta.get("names"), 1)
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
            token=token_from(meta), created=str(meta.get("created", "")),
        )  # fmt: skip
        for key, target in (("rounds", tg.manual), ("redo_rounds", tg.manual_redo)):
            rounds = meta.get(key) or []
            if not isinstance(rounds, list):
                raise bad(key, "a list of rounds")
            for i, row in enumerate(rounds):
                if not (isinstance(row, list) and len(row) == len(names) and all(type(v) is int for v in row)):
                    raise bad(f"{key}/{i}", f"a list of {len(names)} whole numbers")
                problem = round_problem(game, row)  # the checks of a round typed in (enter_scores)
                if problem is not None:
                    raise SpecError(str(meta_path), f"{key}/{i}", "", problem=problem_text(row, problem))
                if key == "rounds" and target and game_end(game, [sum(r[j] for r in target) for j in range(len(names))])[1]:
                    raise SpecError(str(meta_path), f"{key}/{i}", "", problem="a round after the game is over")
                target.append(list(row))
        version = meta.get("version")
        tg.version = version if isinstance(version, int) else len(tg.manual)
        return tg
