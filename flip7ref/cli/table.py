"""``flip7ref table``: the table referee web page (optional extra ``[table]``)."""

from __future__ import annotations

import argparse
import importlib.util
import sys

from flip7ref.cli._common import add_common
from flip7ref.core.spec import edition_ids
from flip7ref.proc.install import extra_hint


def cmd_table(args: argparse.Namespace) -> int:
    from flip7ref.table import MISSING_HINT

    if args.static:  # a folder of files: needs Pyodide, not the server's extra
        from flip7ref.table.static_build import run as build_static

        return build_static(args.static, args.pyodide)
    if args.pyodide:
        print("flip7ref: error: --pyodide goes with --static DIR (the static page it builds)", file=sys.stderr)
        return 2

    if importlib.util.find_spec("starlette") is None or importlib.util.find_spec("uvicorn") is None:
        print(f"flip7ref: error: {MISSING_HINT}", file=sys.stderr)
        return 2
    from flip7ref.table.server import run

    return run(args)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "table",
        help="the table referee: a local web page for a real game (cards, rulings, score pad, undo)",
        description="Serve the table referee: record a real game card by card (or deal from a seeded virtual deck, "
        "or keep only a score pad), see whose decision it is, the rule behind every step, the score pad; "
        f"undo and redo; every step saved as a transcript. Needs the [table] extra: {extra_hint('table')}.",
    )
    add_common(
        p, players=None,
        edition_help="edition id (known: " + ", ".join(edition_ids()) + "; default flip7; with --resume: the saved "
        "game's, and another one is refused)",
    )  # fmt: skip
    p.set_defaults(edition=None)  # None: not given, so that --resume can tell a contradiction from the default
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default %(default)s: this machine only; "
                   "0.0.0.0 lets phones on the network join, with a per-game token)")
    p.add_argument("--port", type=int, default=8077, help="port (default %(default)s)")
    p.add_argument("--no-browser", action="store_true", help="do not open the page in the browser")
    p.add_argument("--resume", metavar="FILE", help="resume a saved game (its transcript .json)")
    p.add_argument("--data", metavar="DIR", help="data folder for saved games (default $FLIP7REF_TABLE_DATA, "
                   "else ~/.local/share/flip7ref/table)")
    p.add_argument("--static", metavar="DIR", help="instead of serving, write the page as a folder of static files that "
                   "runs the referee in the browser (offline once loaded, games saved in the browser; docs/table.md)")
    p.add_argument("--pyodide", metavar="PATH", help="with --static: the npm package pyodide to copy (default: found in "
                   "node_modules or ~/.cache/flip7ref/npm; npm install --prefix ~/.cache/flip7ref/npm pyodide)")
    p.set_defaults(func=cmd_table)
