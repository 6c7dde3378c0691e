"""Helpers shared by the command groups: options, games, seeds, strategies, common flags."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ..errors import OptionError
from ..game import Game
from ..spec import edition_ids
from ..strategies import Strategy, parse_strategy


def parse_options(pairs: Sequence[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs or ():
        name, sep, value = pair.partition("=")
        if not sep or not name or not value:
            raise OptionError(f"--option {pair!r}: expected NAME=VALUE, e.g. --option tie=shared-win")
        out[name.strip()] = value.strip()
    return out


def make_game(args: argparse.Namespace, players: int | None = None) -> Game:
    return Game(args.edition, players if players is not None else args.players, parse_options(args.option))


def parse_seed(text: str) -> int | str:
    """Seeds are whole numbers or words; ``01`` and ``1`` are the same seed."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() else text


def pick_strategies(args: argparse.Namespace, players: int) -> list[Strategy]:
    names = args.strategy or ["threshold:20"]
    if len(names) not in (1, players):
        raise OptionError(
            f"--strategy: give one strategy for all seats, or exactly {players} (one per seat, seat 0 first); got {len(names)}"
        )
    return [parse_strategy(s) for s in names]


def add_common(p: argparse.ArgumentParser, players: int | None = 4) -> None:
    p.add_argument(
        "--edition",
        default="flip7",
        help="edition id (known: " + ", ".join(edition_ids()) + "; default %(default)s) or the path of a .yaml table",
    )
    if players is not None:
        p.add_argument("--players", type=int, default=players, help="number of players (default %(default)s)")
    p.add_argument(
        "--option",
        "-o",
        action="append",
        metavar="NAME=VALUE",
        help="choose an option reading (repeatable); 'flip7ref options' lists them",
    )


def add_strategy(p: argparse.ArgumentParser, workers: bool = True) -> None:
    """Add ``--strategy``; ``workers`` says whether the command also takes ``--workers``."""
    where = "in the --workers processes, " if workers else ""
    p.add_argument(
        "--strategy",
        action="append",
        help="random, threshold:N (stay once the line is worth N points), always-hit, or optimal-solo (the exact "
        f"optimal policy of a player alone; solved at start {where}about a minute for Flip 7 in one process); give it "
        "once for all seats or once per seat, seat 0 first (default threshold:20)",
    )
