"""The ``flip7ref`` command line, one module per command group.

Groups: :mod:`.play` (``simulate``, ``trace``, ``score``, ``options``),
:mod:`.conformance` (``conformance run``/``serve``, ``replay``), :mod:`.analysis`
(``odds``, ``solve``); ``docs``, ``rules``, ``coverage`` (:mod:`flip7ref.docs`);
``dispute``, ``explain`` (:mod:`flip7ref.explore`).  User mistakes (unknown
edition, option, card, strategy...) print one line on stderr and exit with
status 2; a failed check exits with 1; success exits with 0.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__
from ..errors import Flip7RefError


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``flip7ref`` command."""
    from .. import docs, explore
    from . import analysis, conformance, play, table

    parser = argparse.ArgumentParser(
        prog="flip7ref",
        description="Rules reference and interpreter for Flip 7 and Flip 7: With a Vengeance.",
    )
    parser.add_argument("--version", action="version", version=f"flip7ref {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in (play, conformance, docs, explore, analysis, table):
        group.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 user error, 130
    interrupted with Ctrl-C)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except Flip7RefError as exc:
        print(f"flip7ref: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("flip7ref: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return 0
    except OSError as exc:  # pragma: no cover - e.g. writing to a full disk
        print(f"flip7ref: error: {exc.strerror or exc}", file=sys.stderr)
        return 1
