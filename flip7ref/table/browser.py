"""The static build's Python side: runs in Pyodide, in the Web Worker of the page that
``flip7ref table --static DIR`` writes (see `flip7ref.table.static_build`).

The worker unpacks ``flip7ref.zip`` (this package's sources, attrs, mypy_extensions),
mounts the browser's IndexedDB at the data folder, then calls `start` once and
`request` for every ``/api`` call of the page.  `request` runs the very routes of the
server (`flip7ref.table.routes.handle`) on the very games (`TableGame`), so a game
played in the browser saves the same files (transcript and ``.table.json``) as on the
server.  The edition tables come pre-checked (pickled at build time by `load_edition`),
so neither PyYAML nor jsonschema is needed here; nothing imports Starlette.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

from flip7ref.checking import replay
from flip7ref.core import i18n
from flip7ref.core.spec import preload_shipped
from flip7ref.table.routes import MAX_BODY, MAX_IMPORT, Table, handle, parse_body

_TABLE: list[Table] = []


def _replay_only(data: object, schema_name: str, file: str) -> None:
    """The browser's stand-in for `flip7ref.core.schema.validate` when a transcript is read:
    jsonschema needs rpds-py, a compiled module the npm package of Pyodide does not hold,
    so the JSON Schema is not checked here.  A transcript is still checked step by step
    by the replay of `TableGame.load` (an illegal step is refused, naming the step), and a
    file of another shape is refused by `flip7ref.table.routes` ("not a transcript")."""


def start(folder: str, editions: str) -> None:
    """Set up the games: the data folder ``folder`` (IndexedDB-backed in the browser) and
    the pickled edition tables at ``editions`` (a ``{id: Edition}`` dict).

    Raises:
        OptionError: the pickle holds something else than the shipped tables.
        OSError: a file cannot be read.
    """
    with open(editions, "rb") as fh:
        preload_shipped(pickle.load(fh))  # written by static_build from the same tables
    texts = Path(editions).with_name("i18n.pickle")  # the rule texts in every language, beside it
    if texts.exists():
        with open(texts, "rb") as fh:
            i18n.preload(pickle.load(fh))
    vars(replay)["validate"] = _replay_only  # no jsonschema here: see _replay_only
    _TABLE[:] = [Table(Path(folder))]


def request(method: str, path: str, query: str, headers: str, body: str) -> str:
    """Answer one API call of the page.

    Args:
        method: ``GET`` or ``POST``.
        path: ``/api/...`` without the query.
        query, headers: JSON objects of strings (header names in lower case).
        body: the request's body as text (empty for a GET).

    Returns:
        A JSON object: ``status``, ``type`` (media type), ``headers`` and ``body`` (text).

    Raises:
        RuntimeError: `start` was not called.
    """
    if not _TABLE:
        raise RuntimeError("flip7ref.table.browser.start() must run first")
    raw = body.encode("utf-8")
    limit = MAX_IMPORT if path == "/api/games/import" else MAX_BODY

    def read() -> dict[str, Any]:
        return parse_body(raw, limit)

    reply = handle(_TABLE[0], method, path, json.loads(query or "{}"), json.loads(headers or "{}"), read)
    return json.dumps({"status": reply.status, "type": reply.media_type, "headers": reply.headers, "body": reply.text()})
