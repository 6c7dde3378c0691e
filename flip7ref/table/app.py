"""The table referee's web application (Starlette): the page, its assets and the JSON API.

The API's routes and answers are `flip7ref.table.routes` (no web framework there: the
static build runs the same code in the browser); this module puts them on the web:

- ``GET /`` and ``GET /game/{id}``: the page (``static/index.html``); ``/static/...``;
  ``GET /favicon.ico``: the page's icon
- ``GET``/``POST /api/...``: `flip7ref.table.routes.handle`, run in a worker thread (loading
  a saved game reads, validates and replays its transcript: one large game does not hold
  up the other clients); the body is read here, at most `MAX_BODY` bytes
  (`MAX_IMPORT` for an import), also when no Content-Length announces the size.

At start-up the temporary files of a server killed mid-save are removed from the data folder.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from flip7ref.table.routes import MAX_BODY, MAX_IMPORT, OPS, STATIC, Table, handle, parse_body
from flip7ref.table.session import TableError, TableGame

__all__ = ["MAX_BODY", "OPS", "STATIC", "Table", "create_app"]


async def _raw_body(request: Request, limit: int = MAX_BODY) -> bytes:
    """The request's body, read chunk by chunk up to ``limit`` bytes.

    Raises:
        TableError: 413 for a larger body (announced, or read past the limit).
    """
    size = request.headers.get("content-length")
    too_large = TableError(f"request body too large (at most {limit} bytes)", status=413)
    if size is not None and (not re.fullmatch(r"[0-9]{1,12}", size) or int(size) > limit):
        raise too_large
    chunks: list[bytes] = []
    got = 0
    async for chunk in request.stream():
        got += len(chunk)
        if got > limit:  # a chunked body (no Content-Length): stop reading here
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object body (at most `MAX_BODY` bytes).

    Raises:
        TableError: 413 for a larger body, 400 for one that is not a JSON object.
    """
    return parse_body(await _raw_body(request))


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

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def api(request: Request) -> Response:
        path = request.url.path
        limit = MAX_IMPORT if path == "/api/games/import" else MAX_BODY
        raw: bytes | TableError = b""
        if request.method == "POST":
            try:
                raw = await _raw_body(request, limit)
            except TableError as exc:  # refused when the route reads the body: a token is checked first
                raw = exc

        def body() -> dict[str, Any]:
            if isinstance(raw, TableError):
                raise raw
            return parse_body(raw, limit)

        headers = {k.lower(): v for k, v in reversed(request.headers.items())}  # the first of a repeated header
        reply = await run_in_threadpool(handle, table, request.method, path, dict(request.query_params), headers, body)
        if isinstance(reply.payload, str):
            return Response(reply.payload, status_code=reply.status, media_type=reply.media_type, headers=reply.headers)
        return JSONResponse(reply.payload, status_code=reply.status, headers=reply.headers)

    async def favicon(request: Request) -> Response:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    routes = [
        Route("/", page),
        Route("/game/{gid}", page),
        Route("/favicon.ico", favicon),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
        Route("/api/{rest:path}", api, methods=["GET", "POST"]),
    ]

    async def http_error(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        detail = getattr(exc, "detail", "") or "error"
        return JSONResponse({"error": f"{detail}: {request.method} {request.url.path}", "rules": []}, status_code=status)

    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    app.state.table = table
    return app
