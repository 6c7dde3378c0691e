"""The table referee's JSON API without a web framework: one function, `handle`, answers
every ``/api`` request from its method, path, query, headers and body.

Two hosts call it with the same requests and get the same answers:

- the server (`flip7ref.table.app`): Starlette reads the request, runs `handle` in a
  worker thread and writes its `Reply`;
- the static build (``flip7ref table --static``, `flip7ref.table.browser`): a Web Worker
  running Pyodide passes it the page's ``fetch`` calls, so the page talks to the same
  routes and the same `TableGame` code with no server at all.

Routes (every answer is JSON unless noted; an error is ``{"error": message, "rules":
[...]}``, plus ``"rule_texts": [{"id", "text"}]`` (those rules in words, in the game's
language) for a refusal the game wrote, with status 400 bad request, 403 missing token, 404 unknown game or step,
409 state changed (with ``"state"``: the game as it now is), 413 body too large,
500 the game could not be saved):

- ``GET /api/meta`` (``?lang=`` one of the languages, default ``en``): editions with
  their options and readings in that language (the shipped tables, `table_editions`) and
  the one a new game has by default (``default_edition``), languages, the interface texts, the
  saved games
- ``POST /api/games``: a new game (see `TableGame.create`)
- ``POST /api/games/open``: open a saved game by id
- ``POST /api/games/import``: a game from a transcript file (``transcript``: the
  ``.json`` a game saves, ``table``: optionally its ``.table.json``), saved under a new id
- ``GET /api/games/{id}``: the game's view
- ``POST /api/games/{id}/{op}`` with ``op`` in ``reveal`` (``card``), ``deal``,
  ``act`` (``action``), ``undo``, ``redo``, ``fix`` (``step``, ``card``),
  ``scores`` (``scores``), ``note`` (``card``: "the deck disagrees"), ``lang``
  (``lang``), ``to_manual`` (go on as a score pad); every body carries the
  ``version`` last seen (a stale one is refused with 409).  ``fix`` with
  ``"preview": true`` only answers what the correction would change (``fix``:
  ``kept`` and ``dropped`` steps)
- ``GET /api/games/{id}/qr.svg``: a QR code of the game's address with its token
  (the address the request came to; SVG text)
- ``GET /api/games/{id}/ruling/{step}``: the rulings of one step
- ``GET /api/games/{id}/rule/{rule}``: one rule of the game's edition by its id (any case),
  in the game's language: ``{"id", "text"}`` (404 for an id the edition does not hold)
- ``GET /api/games/{id}/scores.csv``: the score pad as CSV (text)
- ``GET /api/games/{id}/transcript.json``: the game's transcript file as saved (text);
  ``GET /api/games/{id}/table.json``: its ``.table.json`` (names, mode, moves undone...)

When the table listens beyond this machine (``token_required``), every request needs a
token (``?token=`` or the ``X-Table-Token`` header): the table's token for the start
page, or the game's own token for that game.  The token is checked before anything
else, so a client without one learns nothing (403 whether or not the game exists); no
answer names a folder of the host.
"""

from __future__ import annotations

import json
import re
import secrets
import socket
import threading
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flip7ref.core.errors import Flip7RefError
from flip7ref.core.i18n import rule_text
from flip7ref.core.spec import load_edition
from flip7ref.table.files import clean_stale_tmp, meta_file, new_game_id, read_meta
from flip7ref.table.record import DEFAULT_EDITION, table_editions
from flip7ref.table.session import LANGS, StaleError, TableError, TableGame, edition_catalogue, saved_games, valid_id

STATIC = Path(__file__).parent / "static"
MAX_BODY = 16 * 1024
"""The largest request body (a step, a new game: a few hundred bytes)."""
MAX_IMPORT = 4 * 1024 * 1024
"""The largest body of ``POST /api/games/import`` (a transcript of a long game: some 100 KiB)."""
OPS = ("reveal", "deal", "act", "undo", "redo", "fix", "scores", "note", "lang", "to_manual")

SHAPE_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError)
"""What reading a transcript of the wrong shape raises where no JSON Schema checks it first
(in the browser: `flip7ref.table.browser`); on the server the schema refuses such a file."""


def not_a_transcript(exc: Exception) -> str:
    """The refusal of a file of the wrong shape (``exc``: one of `SHAPE_ERRORS`)."""
    return f"not a transcript of a game (expected the .json file a game saves; {type(exc).__name__}: {exc})"


Body = Callable[[], dict[str, Any]]
"""The request's body as a JSON object, read when a route needs it (so a missing token is
refused before a malformed body); raises `TableError` 413 or 400."""


@dataclass
class Reply:
    """An answer: ``payload`` is a JSON object (``application/json``) or text."""

    status: int
    payload: dict[str, Any] | str
    media_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)

    def text(self) -> str:
        """The body as text (JSON for an object)."""
        return self.payload if isinstance(self.payload, str) else json.dumps(self.payload, ensure_ascii=False)


class Table:
    """The games of one host: loaded on first use from the data folder, one lock each."""

    def __init__(self, folder: Path, *, token_required: bool = False) -> None:
        self.folder = folder
        self.token_required = token_required
        self.token = secrets.token_urlsafe(12)
        self.games: dict[str, TableGame] = {}
        self.locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self.cleaned = clean_stale_tmp(folder)

    def add(self, tg: TableGame) -> TableGame:
        """Serve ``tg``; returns the game served under its id (an earlier one loaded at the same time wins)."""
        with self._guard:
            tg = self.games.setdefault(tg.id, tg)
            self.locks.setdefault(tg.id, threading.Lock())
            return tg

    def get(self, game_id: str) -> TableGame:
        """The game ``game_id`` (loaded from the data folder if need be).

        Raises:
            TableError: 404 when there is no such game, 400 when its files cannot be replayed.
        """
        if not valid_id(game_id):
            raise TableError(f"no game {_shown(game_id)}", status=404)
        with self._guard:
            tg = self.games.get(game_id)
        if tg is not None:
            return tg
        path = self.folder / f"{game_id}.json"
        meta = self.folder / f"{game_id}.table.json"
        if not meta.exists():
            raise TableError(f"no game {game_id!r} in the data folder", status=404)
        try:
            tg = TableGame.load(meta if not path.exists() else path)
        except Flip7RefError as exc:
            raise TableError(f"game {game_id!r} cannot be opened: {self.hide_paths(str(exc))}", status=400) from None
        except SHAPE_ERRORS as exc:  # the browser reads transcripts without the JSON Schema check
            raise TableError(f"game {game_id!r} cannot be opened: {not_a_transcript(exc)}", status=400) from None
        return self.add(tg)

    def token_of_game(self, game_id: str) -> str | None:
        """The token that opens ``game_id``: that of the game served, else the one in its
        ``.table.json`` (read, not replayed); None for no such game or no valid token."""
        if not valid_id(game_id):
            return None
        with self._guard:
            tg = self.games.get(game_id)
        if tg is not None:
            return tg.token
        try:
            token = read_meta(self.folder / f"{game_id}.table.json").get("token")
        except Flip7RefError:
            return None
        return token if isinstance(token, str) and re.fullmatch(r"[A-Za-z0-9_-]{8,64}", token) else None

    def hide_paths(self, text: str) -> str:
        """``text`` without the folders of the host (the data folder, a resumed game's)."""
        with self._guard:
            folders = {str(self.folder), *(str(tg.path.parent) for tg in self.games.values())}
        for folder in sorted(folders | {str(Path(f).absolute()) for f in folders}, key=len, reverse=True):
            text = text.replace(folder + "/", "").replace(folder + "\\", "")
        return text

    def lock(self, game_id: str) -> threading.Lock:
        """The lock of game ``game_id`` (one change at a time)."""
        with self._guard:
            return self.locks.setdefault(game_id, threading.Lock())


def parse_body(raw: bytes, limit: int = MAX_BODY) -> dict[str, Any]:
    """A request body (bytes) as a JSON object; an empty body is ``{}``.

    Raises:
        TableError: 413 for more than ``limit`` bytes, 400 for one that is not a JSON object.
    """
    if len(raw) > limit:
        raise TableError(f"request body too large (at most {limit} bytes)", status=413)
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except RecursionError:
        raise TableError("request body: expected a JSON object, not one nested this deep") from None
    except ValueError as exc:  # not JSON, not UTF-8, or a number too long to convert
        raise TableError(f"request body is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise TableError("request body: expected a JSON object")
    return data


def _error(table: Table, exc: TableError, state: dict[str, Any] | None = None) -> Reply:
    body: dict[str, Any] = {"error": table.hide_paths(str(exc)), "rules": list(exc.rules)}
    if exc.rule_texts:  # the rules in words, in the game's language (a refusal the game wrote)
        body["rule_texts"] = list(exc.rule_texts)
    if state is not None:
        body["state"] = state
    return Reply(exc.status, body)


def _check_token(table: Table, given_text: str, game_id: str | None) -> None:
    """Refuse (403) a request without the table's token or, for game ``game_id``, that
    game's token; the same answer whether or not the game exists."""
    if not table.token_required:
        return
    given = given_text.encode("utf-8", "replace")  # bytes: compare_digest refuses non-ASCII text
    ok = secrets.compare_digest(given, table.token.encode())
    if not ok and game_id is not None:
        token = table.token_of_game(game_id)
        ok = token is not None and secrets.compare_digest(given, token.encode())
    if not ok:
        raise TableError("this table needs its token: open the address printed when the server started", status=403)


def handle(table: Table, method: str, path: str, query: Mapping[str, str], headers: Mapping[str, str], body: Body) -> Reply:
    """Answer one ``/api`` request.

    Args:
        table: the host's games.
        method: ``GET`` or ``POST``.
        path: the request's path (``/api/...``), without the query.
        query: the query parameters (``token``).
        headers: the request headers, names in lower case (``x-table-token``).
        body: reads the body as a JSON object (see `Body`).

    Returns:
        The answer; never raises (an unexpected error is a 500 with the exception's
        type, and one line on the console).
    """
    token = query.get("token") or headers.get("x-table-token", "")
    try:
        return _route(table, method, path, token, body, headers, query)
    except TableError as exc:
        return _error(table, exc)
    except Flip7RefError as exc:
        return _error(table, TableError(str(exc)))
    except Exception as exc:  # never a traceback to the page; one line on the console
        print(f"flip7ref table: internal error on {path}: {type(exc).__name__}: {exc}")
        traceback.print_exc(limit=3)
        return Reply(500, {"error": f"internal error: {type(exc).__name__}", "rules": []})


_GAME = re.compile(r"^/api/games/([^/]+)$")
_RULE = re.compile(r"^/api/games/([^/]+)/rule/([^/]*)$")
_SUB = re.compile(r"^/api/games/([^/]+)/(scores\.csv|transcript\.json|table\.json|qr\.svg|ruling/([^/]*)|[^/]+)$")


def _route(
    table: Table, method: str, path: str, token: str, body: Body, headers: Mapping[str, str], query: Mapping[str, str]
) -> Reply:
    if path == "/api/meta" and method == "GET":
        return _meta(table, token, query.get("lang", "en"))
    if path == "/api/games" and method == "POST":
        return _create(table, token, body)
    if path == "/api/games/open" and method == "POST":
        return _open(table, token, body)
    if path == "/api/games/import" and method == "POST":
        return _import(table, token, body)
    m = _GAME.match(path)
    if m and method == "GET":
        _check_token(table, token, m[1])
        tg = table.get(m[1])
        with table.lock(tg.id):
            return Reply(200, tg.view())
    m = _RULE.match(path)
    if m and method == "GET":
        return _rule(table, token, m[1], m[2])
    m = _SUB.match(path)
    if m and method == "GET" and m[2] in ("scores.csv", "transcript.json", "table.json"):
        return _download(table, token, m[1], m[2])
    if m and method == "GET" and m[2] == "qr.svg":
        return _qr_code(table, token, m[1], headers.get("host", ""))
    if m and method == "GET" and m[3] is not None:
        return _ruling(table, token, m[1], m[3])
    if m and method == "POST" and "/" not in m[2]:
        return _change(table, token, m[1], m[2], body)
    if method not in ("GET", "POST"):
        return Reply(405, {"error": f"Method Not Allowed: {method} {path}", "rules": []})
    raise TableError(f"no such address: {path if len(path) <= 200 else path[:200] + f'... ({len(path):,} characters)'}",
                     status=404)  # fmt: skip


def _meta(table: Table, token: str, lang: str) -> Reply:
    try:  # the texts and editions are public; the saved games need the table's token
        _check_token(table, token, None)
        saved: list[dict[str, Any]] | None = saved_games(table.folder)  # a damaged file is listed as such
    except TableError:
        saved = None
    texts = json.loads((STATIC / "i18n.json").read_text(encoding="utf-8"))
    lang = lang if lang in LANGS else "en"  # the language of the editions' rule texts
    return Reply(200, {
        "editions": [edition_catalogue(load_edition(e), lang) for e in table_editions()],
        "default_edition": DEFAULT_EDITION,
        "langs": list(LANGS), "texts": texts, "saved": saved or [], "authorized": saved is not None,
        "token_required": table.token_required,
    })  # fmt: skip


def _started(tg: TableGame) -> Reply:
    return Reply(200, {"id": tg.id, "token": tg.token, "state": tg.view()})


def _create(table: Table, token: str, body: Body) -> Reply:
    _check_token(table, token, None)
    data = body()
    try:
        tg = TableGame.create(table.folder, data)
    except OSError as exc:
        raise TableError(f"could not save the game in the data folder: {exc.strerror or exc}", status=500) from None
    return _started(table.add(tg))


def _open(table: Table, token: str, body: Body) -> Reply:
    _check_token(table, token, None)
    gid = body().get("id")
    if not isinstance(gid, str):
        raise TableError("id: expected a saved game's id")
    return _started(table.get(gid))


def _import(table: Table, token: str, body: Body) -> Reply:
    """A game from its files: ``transcript`` (an object, the ``<id>.json``) and optionally
    ``table`` (the ``<id>.table.json``), checked and replayed by `TableGame.load`, then
    saved under a new id (a game imported twice is two games)."""
    _check_token(table, token, None)
    data = body()
    extra = set(data) - {"transcript", "table"}
    if extra:
        raise TableError(f"unknown field {sorted(extra)[0]!r} for import (expected transcript, table)")
    transcript, meta = data.get("transcript"), data.get("table")
    if meta is not None and not isinstance(meta, dict):
        raise TableError("table: expected the game's .table.json (a JSON object)")
    if not isinstance(transcript, dict) and not (isinstance(meta, dict) and meta.get("mode") == "manual"):
        raise TableError("transcript: expected a transcript (the JSON object of a saved game's .json file)")
    gid = new_game_id()
    while (table.folder / f"{gid}.table.json").exists() or (table.folder / f"{gid}.json").exists():
        gid = new_game_id()
    path = table.folder / f"{gid}.json"
    written: list[Path] = []
    try:
        table.folder.mkdir(parents=True, exist_ok=True)
        if isinstance(transcript, dict):
            path.write_text(json.dumps(transcript, ensure_ascii=False), encoding="utf-8")
            written.append(path)
        if isinstance(meta, dict):
            meta_file(path).write_text(json.dumps({**meta, "id": gid}, ensure_ascii=False), encoding="utf-8")
            written.append(meta_file(path))
        try:
            tg = TableGame.load(path)
        except Flip7RefError as exc:
            raise TableError(f"the file cannot be imported: {table.hide_paths(str(exc))}") from None
        except SHAPE_ERRORS as exc:
            raise TableError(f"the file cannot be imported: {not_a_transcript(exc)}") from None
        tg.save()  # both files, in the table's own form (a transcript alone gets its .table.json)
    except OSError as exc:
        for p in written:
            p.unlink(missing_ok=True)
        raise TableError(f"could not save the game in the data folder: {exc.strerror or exc}", status=500) from None
    except TableError:
        for p in written:
            p.unlink(missing_ok=True)
        raise
    return _started(table.add(tg))


def _download(table: Table, token: str, gid: str, name: str) -> Reply:
    _check_token(table, token, gid)
    tg = table.get(gid)
    with table.lock(tg.id):
        if name == "scores.csv":
            text, media = tg.csv(), "text/csv"
        elif name == "table.json":
            text, media = meta_file(tg.path).read_text(encoding="utf-8"), "application/json"
        elif tg.mode == "manual":
            raise TableError("a score pad has no transcript: its rounds are in the .table.json", status=404)
        else:
            text, media = tg.path.read_text(encoding="utf-8"), "application/json"
    filename = {"scores.csv": f"{tg.id}-scores.csv", "table.json": f"{tg.id}.table.json"}.get(name, f"{tg.id}.json")
    return Reply(200, text, media, {"Content-Disposition": f'attachment; filename="{filename}"'})


def lan_address() -> str | None:
    """This machine's address on its local network (the interface a packet to the
    outside would leave by; nothing is sent), or None without a network."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: a route lookup only
            return str(s.getsockname()[0])
    except OSError:
        return None


def qr_svg(address: str) -> str:
    """A QR code of ``address`` as an SVG document (segno, the ``[table]`` extra), dark
    modules on white with a quiet zone, scaled for a phone's camera."""
    import io

    import segno

    out = io.BytesIO()
    segno.make(address, error="m").save(out, kind="svg", scale=6, dark="#000", light="#fff", title=address, xmldecl=False)
    return out.getvalue().decode("utf-8")


def _qr_code(table: Table, token: str, gid: str, host: str) -> Reply:
    """A QR code of the game's address (with its token where one is needed), for the
    address the request came to; a request to this machine's loopback gets the
    machine's network address instead (the other phones need that one)."""
    _check_token(table, token, gid)
    tg = table.get(gid)
    name, _, port = host.rpartition(":") if re.fullmatch(r".+:[0-9]{1,5}", host) else (host, "", "")
    if name.strip("[]") in ("127.0.0.1", "localhost", "::1"):
        lan = lan_address()
        if lan is not None:
            host = f"{lan}:{port}" if port else lan
    address = f"http://{host}/game/{tg.id}"
    if table.token_required:
        address += f"?token={tg.token}"
    return Reply(200, qr_svg(address), "image/svg+xml", {"Cache-Control": "no-store"})


def _ruling(table: Table, token: str, gid: str, raw: str) -> Reply:
    _check_token(table, token, gid)
    tg = table.get(gid)
    if not re.fullmatch(r"[0-9]{1,9}", raw):  # not str.isdigit(): '²' is a digit int() refuses
        raise TableError("step: expected a step number", status=404)
    with table.lock(tg.id):
        return Reply(200, tg.ruling(int(raw)))


def _shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for an error message, cut to ``limit`` characters with its length said
    (an answer never echoes a request's whole address back)."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text):,} characters)"


def _rule(table: Table, token: str, gid: str, raw: str) -> Reply:
    _check_token(table, token, gid)
    tg = table.get(gid)
    rid = raw.strip().upper()
    text = rule_text(tg.game.edition, rid, tg.lang) if re.fullmatch(r"[A-Z0-9-]{1,20}", rid) else ""
    if not text:
        example = next(iter(tg.game.edition.rules))
        raise TableError(f"rule: {raw[:40]!r} is not a rule id of {tg.game.edition.title} (such as {example})", status=404)
    return Reply(200, {"id": rid, "text": text})


def _change(table: Table, token: str, gid: str, op: str, body: Body) -> Reply:
    if op not in OPS:
        raise TableError(f"unknown operation {op!r} (known: {', '.join(OPS)})", status=404)
    _check_token(table, token, gid)
    tg = table.get(gid)
    data = body()
    fields = {
        "reveal": {"card"}, "act": {"action"}, "fix": {"step", "card", "preview"}, "scores": {"scores"},
        "note": {"card"}, "lang": {"lang"},
    }.get(op, set())  # fmt: skip
    extra = set(data) - fields - {"version"}
    if extra:
        expected = ", ".join(["version", *sorted(fields)])
        raise TableError(f"unknown field {sorted(extra)[0]!r} for {op} (expected {expected})")
    if "version" not in data:
        raise TableError("version: missing (send the version of the game last seen)")
    version = data["version"]
    note: dict[str, Any] = {}
    with table.lock(tg.id):
        try:
            if op == "reveal":
                tg.reveal(version, data.get("card"))
            elif op == "deal":
                tg.deal(version)
            elif op == "act":
                tg.act(version, data.get("action"))
            elif op == "undo":
                tg.undo(version)
            elif op == "redo":
                tg.redo(version)
            elif op == "fix":
                note["fix"] = tg.fix(version, data.get("step"), data.get("card"), data.get("preview", False))
                note["kept"] = len(note["fix"]["kept"])
            elif op == "note":
                tg.note(version, data.get("card"))
            elif op == "lang":
                tg.set_lang(version, data.get("lang"))
            elif op == "to_manual":
                tg.to_manual(version)
            else:
                tg.enter_scores(version, data.get("scores"))
        except StaleError as exc:
            return _error(table, exc, tg.view())
        return Reply(200, {**note, "state": tg.view()})
