"""``flip7ref table``: start the table referee's web server (uvicorn), print its address,
open it in the browser, end cleanly on Ctrl-C."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import signal
import sys
import threading
import webbrowser
from pathlib import Path
from types import FrameType

from flip7ref.core.errors import OptionError
from flip7ref.table.record import DEFAULT_EDITION, editions_in_words, table_editions
from flip7ref.table.session import TableGame

GRACE_SECONDS = 2
"""How long, on Ctrl-C or SIGTERM, the server waits for the requests in flight to finish
(uvicorn's ``timeout_graceful_shutdown``) before it cancels them and ends: a client that
never sends the rest of its request cannot keep it running."""


class _Stopped(Exception):
    """SIGTERM arrived (after uvicorn's graceful shutdown)."""


def _stop(signum: int, frame: FrameType | None) -> None:
    raise _Stopped


def _not_cancelled(record: logging.LogRecord) -> bool:
    """A filter of uvicorn's error log: drop what it says of the requests it cancels because
    the server is stopping (`GRACE_SECONDS` passed: one line, and a ``CancelledError``
    traceback each); keep the rest."""
    import asyncio

    exc = record.exc_info[1] if record.exc_info else None
    return not isinstance(exc, asyncio.CancelledError) and "timeout graceful shutdown exceeded" not in record.getMessage()


def default_folder() -> Path:
    """Where games are saved: ``$FLIP7REF_TABLE_DATA``, else ``$XDG_DATA_HOME/flip7ref/table``,
    else ``~/.local/share/flip7ref/table``."""
    env = os.environ.get("FLIP7REF_TABLE_DATA")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "flip7ref" / "table"


def is_local(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _print_qr(address: str) -> None:
    """The address as a QR code on the console (segno, the ``[table]`` extra), for the
    other phones at the table to scan."""
    import segno

    print(f"flip7ref table: for the other phones: {address}", flush=True)
    segno.make(address, error="m").terminal(compact=True)
    sys.stdout.flush()


def _defaults_query(args: argparse.Namespace) -> str:
    """Check --edition and --option and turn them into the start page's query string."""
    from urllib.parse import urlencode

    from flip7ref.cli._common import parse_options
    from flip7ref.core.edition import short_repr
    from flip7ref.core.game import Game
    from flip7ref.core.spec import load_edition

    options = parse_options(args.option)
    given = args.edition or DEFAULT_EDITION  # None: not given (the default)
    if given not in table_editions():  # an id, never a file: a table file with a shipped id is not that table
        known = editions_in_words("and", quote=False)
        raise OptionError(f"--edition: the table knows {known} (their ids), not {short_repr(given, 200)}")
    edition = load_edition(given)
    Game(edition, max(2, int(edition.thresholds.get("min_players", 1))), options)  # raises OptionError
    pairs = [("edition", edition.id), *((f"o.{k}", v) for k, v in options.items())]
    return urlencode(pairs)


def _check_resumed(args: argparse.Namespace, first: TableGame) -> None:
    """Refuse an ``--edition`` or ``--option`` given with ``--resume`` that the saved game
    ``first`` contradicts (it keeps its own); an agreeing one is accepted.

    Args:
        args: the parsed ``table`` flags: ``edition`` (an id, or None when not given),
            ``option`` (``NAME=VALUE`` strings, or None) and ``resume`` (the file).
        first: the game loaded from ``args.resume``.

    Raises:
        OptionError: a contradiction, naming the flag's value and the saved game's (exit 2).
    """
    from flip7ref.cli._common import parse_options
    from flip7ref.core.game import Game

    saved = first.game
    drop = "drop {} or start a new game"
    if args.edition is not None and args.edition != saved.edition.id:
        raise OptionError(
            f"--edition {args.edition}: the saved game {args.resume} is {saved.edition.id}; {drop.format('--edition')}"
        )
    options = parse_options(args.option)
    try:
        asked = Game(saved.edition, saved.players, options).options
    except OptionError as exc:
        raise OptionError(f"--option: {exc}; the saved game {args.resume} is {saved.edition.id}; "
                          f"{drop.format('--option')}") from None  # fmt: skip
    for name in options:
        if asked[name] != saved.options[name]:
            raise OptionError(
                f"--option {name}={options[name]}: the saved game {args.resume} plays {name}={saved.options[name]}; "
                f"{drop.format('--option')}"
            )


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C; returns the exit status.

    Raises:
        OptionError: a bad --port, --edition or --option, a --data folder that is a file or
            cannot be made or written in, a --resume file that cannot be read or replayed, or
            an --edition or --option its saved game contradicts (exit status 2).
    """
    import uvicorn

    from flip7ref.table.app import create_app
    from flip7ref.table.routes import lan_address
    from flip7ref.table.session import TableError

    if not 0 < args.port < 65536:
        raise OptionError(f"--port: expected 1..65535, got {args.port}")
    folder = Path(args.data) if args.data else default_folder()
    if folder.exists() and not folder.is_dir():
        raise OptionError(f"--data: expected a folder for the saved games, but {folder} is a file")
    try:  # made now: one that cannot be is refused here, not by a 500 on every new game
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OptionError(f"--data {folder}: expected a folder for the saved games; it cannot be made: "
                          f"{exc.strerror or exc}") from None  # fmt: skip
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OptionError(f"--data {folder}: expected a folder for the saved games; it cannot be written in (permission denied)")
    first = None
    if args.resume:
        try:
            first = TableGame.load(args.resume)
        except TableError as exc:
            raise OptionError(f"--resume: {exc}") from None
        _check_resumed(args, first)
    local = is_local(args.host)
    app = create_app(folder, token_required=not local, first=first)
    table = app.state.table
    if table.cleaned:
        print(f"flip7ref table: removed {len(table.cleaned)} temporary file(s) left by a server stopped mid-save", flush=True)
    # the edition and options given on the command line preselect the start page
    query = _defaults_query(args)
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    base = f"http://{shown}:{args.port}"
    path = f"/game/{first.id}" if first else "/"
    params = []
    if not local:
        params.append(f"token={first.token if first else table.token}")
        print(
            f"flip7ref table: WARNING: listening on {args.host}: anyone on this network who has the address with its "
            "token can open the games; give it only to the players",
            file=sys.stderr,
        )
    if query and not first:
        params.append(query)
    url = base + path + ("?" + "&".join(params) if params else "")
    print(f"flip7ref table: {url}  (games saved in {folder}; Ctrl-C ends)", flush=True)
    if not local:  # phones scan the address (with the machine's network address) instead of typing it
        lan = lan_address()
        if lan is not None:
            _print_qr(url.replace(f"//{shown}:", f"//{lan}:", 1))
    config = uvicorn.Config(
        app, host=args.host, port=args.port, log_level="warning", lifespan="off", timeout_graceful_shutdown=GRACE_SECONDS
    )
    server = uvicorn.Server(config)
    if not args.no_browser:
        threading.Timer(0.8, lambda: webbrowser.open(url)).start()
    # uvicorn shuts down gracefully on SIGINT/SIGTERM, then raises the signal again:
    # end here, with the message, rather than die of it
    previous = signal.signal(signal.SIGTERM, _stop)
    errors = logging.getLogger("uvicorn.error")
    errors.addFilter(_not_cancelled)
    try:
        server.run()
    except (KeyboardInterrupt, _Stopped):
        pass
    except SystemExit:  # uvicorn exits when it cannot bind the address
        server.started = False
    finally:
        signal.signal(signal.SIGTERM, previous)
        errors.removeFilter(_not_cancelled)
    if not server.started:
        print(f"flip7ref table: error: could not listen on {args.host}:{args.port}", file=sys.stderr)
        return 2
    print("flip7ref table: stopped; every game is saved", flush=True)
    return 0
