"""Generated rules reference, the `rules` and `coverage` commands (work in progress)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this module's subcommands to the ``flip7ref`` parser."""
