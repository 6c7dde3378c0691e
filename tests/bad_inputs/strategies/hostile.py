"""Hostile strategy plug-ins for the bad-input corpus (corpus.yaml): each breaks the
`Strategy` protocol one way and must give one line naming it, never a hang or a traceback."""

from __future__ import annotations

import os
import random
import time
from typing import Any


class _Legal:
    name = "legal"

    def choose(self, state: Any, rng: random.Random) -> Any:
        return state.legal_actions()[0]


class Sleeper(_Legal):
    """Never answers (sleeps for an hour)."""

    name = "sleeper"

    def choose(self, state: Any, rng: random.Random) -> Any:
        time.sleep(3600)


class Spinner(_Legal):
    """Loops for ever, swallowing every Exception."""

    name = "spinner"

    def choose(self, state: Any, rng: random.Random) -> Any:
        while True:
            try:
                sum(range(1000))
            except Exception:
                continue


class PrepareRaises(_Legal):
    name = "prepare-raises"

    def prepare(self, game: Any) -> None:
        raise RuntimeError("no policy file")


class PrepareExits(_Legal):
    name = "prepare-exits"

    def prepare(self, game: Any) -> None:
        raise SystemExit(9)


class NameRaises(_Legal):
    @property
    def name(self) -> str:  # type: ignore[override]
        raise ValueError("no name today")


class HardExit(_Legal):
    """Ends its process at once, with no word (os._exit)."""

    name = "hard-exit"

    def choose(self, state: Any, rng: random.Random) -> Any:
        os._exit(0)
