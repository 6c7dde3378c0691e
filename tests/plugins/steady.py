"""A well-behaved strategy plug-in for the command-line tests (tests/test_supervise.py,
tests/test_interrupt.py): ``--strategy tests/plugins/steady.py:Steady``."""

from __future__ import annotations

import random
from typing import Any


class Steady:
    """Takes the first legal action at every decision (a Hit at an offer)."""

    name = "steady"

    def choose(self, state: Any, rng: random.Random) -> Any:
        return state.legal_actions()[0]
