"""The table referee's web application (Starlette): the page, its assets and a JSON API.

Routes (every ``/api`` answer is JSON; an error is ``{"error": message, "rules":
[...]}``, plus ``"rule_texts": [{"id", "text"}]`` (those rules in words, in the game's
language) for a refusal the game wrote, with status 400 bad request, 403 missing
token, 404 unknown game or step, 409 state changed (with ``"state"``: the game as it now is), 413 body too large,
500 the game could not be saved):

- ``GET /`` and ``GET /game/{id}``: the page (``static/index.html``); ``/static/...``
- ``GET /api/meta`` (``?lang=`` one of the languages, default ``en``): editions with
  their options and readings in that language, languages, the interface texts, the
  saved games
- ``POST /api/games``: a new game (see `TableGame.create`)
- ``POST /api/games/open``: open a saved game by id
- ``GET /api/games/{id}``: the game's view
- ``POST /api/games/{id}/{op}`` with ``op`` in ``reveal`` (``card``), ``deal``,
  ``act`` (``action``), ``undo``, ``redo``, ``fix`` (``step``, ``card``),
  ``scores`` (``scores``); every body carries the ``version`` last seen
- ``GET /api/games/{id}/ruling/{step}``: the rulings of one step
- ``GET /api/games/{id}/scores.csv``: the score pad as CSV

When the server listens beyond this machine (``token_required``), every ``/api``
request needs a token (``?token=`` or the ``X-Table-Token`` header): the server's
token for the start page, or the game's own token for that game.  The token is
checked before anything else, so a client without one learns nothing (403 whether or
not the game exists); no answer names a folder of the server.

Loading a saved game (reading, validating and replaying its transcript) runs in a
worker thread, so one large game does not hold up the other clients.  At start-up the
temporary files of a server killed mid-save are removed from the data folder.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import Flip7RefError
from ..spec import load_edition
from .files import clean_stale_tmp, read_meta
from .session import LANGS, StaleError, TableError, TableGame, edition_catalogue, saved_games, valid_id

STATIC = Path(__file__).parent / "static"
MAX_BODY = 16 * 1024
OPS = ("reveal", "deal", "act", "undo", "redo", "fix", "scores")


class Table:
    """The server's games: loaded on first use from the data folder, one lock each."""

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
            TableError: 404 when there is no such game.
        """
        if not valid_id(game_id):
            raise TableError(f"no game {game_id!r}", status=404)
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
        """``text`` without the folders of the server (the data folder, a resumed game's)."""
        with self._guard:
            folders = {str(self.folder), *(str(tg.path.parent) for tg in self.games.values())}
        for folder in sorted(folders | {str(Path(f).absolute()) for f in folders}, key=len, reverse=True):
            text = text.replace(folder + "/", "").replace(folder + "\\", "")
        return text

    def lock(self, game_id: str) -> threading.Lock:
        with self._guard:
            return self.locks.setdefault(game_id, threading.Lock())


def _error(exc: TableError, state: dict[str, Any] | None = None, table: Table | None = None) -> JSONResponse:
    message = table.hide_paths(str(exc)) if table is not None else str(exc)
    body: dict[str, Any] = {"error": message, "rules": list(exc.rules)}
    if exc.rule_texts:  # the rules in words, in the game's language (a refusal the game wrote)
        body["rule_texts"] = list(exc.rule_texts)
    if state is not None:
        body["state"] = state
    return JSONResponse(body, status_code=exc.status)


def _token_of(request: Request) -> str:
    return request.query_params.get("token") or request.headers.get("x-table-token", "")


def _check_token(table: Table, request: Request, game_id: str | None) -> None:
    """Refuse (403) a request without the server's token or, for game ``game_id``, that
    game's token; the same answer whether or not the game exists."""
    if not table.token_required:
        return
    given = _token_of(request).encode("utf-8", "replace")  # bytes: compare_digest refuses non-ASCII text
    ok = secrets.compare_digest(given, table.token.encode())
    if not ok and game_id is not None:
        token = table.token_of_game(game_id)
        ok = token is not None and secrets.compare_digest(given, token.encode())
    if not ok:
        raise TableError("this table needs its token: open the address printed when the server started", status=403)


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object body, read chunk by chunk up to `MAX_BODY` bytes (also
    when no Content-Length announces the size).

    Raises:
        TableError: 413 for a larger body, 400 for one that is not a JSON object.
    """
    size = request.headers.get("content-length")
    too_large = TableError(f"request body too large (at most {MAX_BODY} bytes)", status=413)
    if size is not None and (not re.fullmatch(r"[0-9]{1,12}", size) or int(size) > MAX_BODY):
        raise too_large
    chunks: list[bytes] = []
    got = 0
    async for chunk in request.stream():
        got += len(chunk)
        if got > MAX_BODY:  # a chunked body (no Content-Length): stop reading here
            raise too_large
        chunks.append(chunk)
    raw = b"".join(chunks)
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


def create_app(folder: str | Path, *, token_required: bool = False, first: TableGame | None = None) -> Starlette:
    """The Starlette application of the table referee.

    Args:
        folder: the data folder where games are saved (created when needed).
        token_required: require a token on every API request (a server reachable
            from other machines).
        first: a game to serve from the start (``--resume``).

    Returns:
        The application; ``app.state.table`` is its `Table`.
    """
    table = Table(Path(folder), token_required=token_required)
    if first is not None:
        table.add(first)

    def guarded(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            try:
                return await handler(request)
            except TableError as exc:
                return _error(exc, table=table)
            except Flip7RefError as exc:
                return _error(TableError(str(exc)), table=table)
            except Exception as exc:  # never a traceback to the page; one line on the console
                print(f"flip7ref table: internal error on {request.url.path}: {type(exc).__name__}: {exc}")
                traceback.print_exc(limit=3)
                return JSONResponse({"error": f"internal error: {type(exc).__name__}", "rules": []}, status_code=500)

        return run

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    @guarded
    async def meta(request: Request) -> Response:
        try:  # the texts and editions are public; the saved games need the server's token
            _check_token(table, request, None)
            saved = await run_in_threadpool(saved_games, table.folder)  # a damaged file is listed as such
        except TableError:
            saved = None
        texts = json.loads((STATIC / "i18n.json").read_text(encoding="utf-8"))
        lang = request.query_params.get("lang", "en")  # the language of the editions' rule texts
        lang = lang if lang in LANGS else "en"
        return JSONResponse({
            "editions": [edition_catalogue(load_edition(e), lang) for e in ("flip7", "vengeance")],
            "langs": list(LANGS), "texts": texts, "saved": saved or [], "authorized": saved is not None,
            "token_required": table.token_required,
        })  # fmt: skip

    @guarded
    async def create(request: Request) -> Response:
        _check_token(table, request, None)
        data = await _body(request)
        try:
            tg = TableGame.create(table.folder, data)
        except OSError as exc:
            raise TableError(f"could not save the game in the data folder: {exc.strerror or exc}", status=500) from None
        table.add(tg)
        return JSONResponse({"id": tg.id, "token": tg.token, "state": tg.view()})

    @guarded
    async def open_saved(request: Request) -> Response:
        _check_token(table, request, None)
        data = await _body(request)
        gid = data.get("id")
        if not isinstance(gid, str):
            raise TableError("id: expected a saved game's id")
        tg = await run_in_threadpool(table.get, gid)
        return JSONResponse({"id": tg.id, "token": tg.token, "state": tg.view()})

    @guarded
    async def show(request: Request) -> Response:
        _check_token(table, request, request.path_params["gid"])
        tg = await run_in_threadpool(table.get, request.path_params["gid"])
        with table.lock(tg.id):
            return JSONResponse(tg.view())

    @guarded
    async def change(request: Request) -> Response:
        op = request.path_params["op"]
        if op not in OPS:
            raise TableError(f"unknown operation {op!r} (known: {', '.join(OPS)})", status=404)
        _check_token(table, request, request.path_params["gid"])
        tg = await run_in_threadpool(table.get, request.path_params["gid"])
        data = await _body(request)
        fields = {"reveal": {"card"}, "act": {"action"}, "fix": {"step", "card"}, "scores": {"scores"}}.get(op, set())
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
                    note["kept"] = tg.fix(version, data.get("step"), data.get("card"))
                else:
                    tg.enter_scores(version, data.get("scores"))
            except StaleError as exc:
                return _error(exc, tg.view(), table)
            return JSONResponse({**note, "state": tg.view()})

    @guarded
    async def ruling(request: Request) -> Response:
        _check_token(table, request, request.path_params["gid"])
        tg = await run_in_threadpool(table.get, request.path_params["gid"])
        raw = request.path_params["step"]
        if not re.fullmatch(r"[0-9]{1,9}", raw):  # not str.isdigit(): '²' is a digit int() refuses
            raise TableError("step: expected a step number", status=404)
        with table.lock(tg.id):
            return JSONResponse(tg.ruling(int(raw)))

    @guarded
    async def scores_csv(request: Request) -> Response:
        _check_token(table, request, request.path_params["gid"])
        tg = await run_in_threadpool(table.get, request.path_params["gid"])
        with table.lock(tg.id):
            text = tg.csv()
        return PlainTextResponse(
            text, media_type="text/csv", headers={"Content-Disposition": f'attachment; filename="{tg.id}-scores.csv"'}
        )

    @guarded
    async def not_found(request: Request) -> Response:
        raise TableError(f"no such address: {request.url.path}", status=404)

    routes = [
        Route("/", page),
        Route("/game/{gid}", page),
        Route("/api/meta", meta),
        Route("/api/games", create, methods=["POST"]),
        Route("/api/games/open", open_saved, methods=["POST"]),
        Route("/api/games/{gid}", show),
        Route("/api/games/{gid}/scores.csv", scores_csv),
        Route("/api/games/{gid}/ruling/{step}", ruling),
        Route("/api/games/{gid}/{op}", change, methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
        Route("/api/{rest:path}", not_found, methods=["GET", "POST"]),
    ]
    async def http_error(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        detail = getattr(exc, "detail", "") or "error"
        return JSONResponse({"error": f"{detail}: {request.method} {request.url.path}", "rules": []}, status_code=status)

    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    app.state.table = table
    return app
