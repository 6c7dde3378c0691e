"""flip7ref: the rules of Flip 7 as data, and a pure, immutable interpreter for them.

Quick start::

    import flip7ref
    game = flip7ref.Game("flip7", players=4)
    state = game.new_initial_state(seed=1)
    while not state.is_terminal():
        if state.is_chance_node():
            state = state.apply_chance(state.sample_chance())
        else:
            state = state.apply(state.legal_actions()[0])
    print(state.totals, state.winners)
"""

from . import builders as _builders  # noqa: F401 - installs Game's state builders
from . import state as _state_module
from .errors import (
    CardError,
    Flip7RefError,
    GameTooLongError,
    IllegalActionError,
    OptionError,
    SerializationError,
    SpecError,
    StrategyError,
)
from .game import Game
from .model import CHANCE, TERMINAL, Player, Status
from .scoring import ScoreBreakdown, score_cards, score_line
from .spec import Edition, edition_ids, load_edition, load_edition_file
from .state import Action, Event, State

__version__ = "0.1.0"

compiled: bool = not str(getattr(_state_module, "__file__", "")).endswith(".py")
"""True when the interpreter's core was compiled with mypyc (``pip install .``; see docs/build.md),
False for the pure-Python build (``pip install -e .``, or ``FLIP7REF_PURE=1`` at install time)."""
if compiled:  # mypyc keeps only signatures in the classes' __doc__: help(Game) shows the source's again
    from .compiled_docs import restore as _restore_docs

    _restore_docs(("flip7ref.game", "flip7ref.state", "flip7ref.model"))


__all__ = [
    "CHANCE",
    "TERMINAL",
    "Action",
    "CardError",
    "Edition",
    "Event",
    "Flip7RefError",
    "Game",
    "GameTooLongError",
    "IllegalActionError",
    "OptionError",
    "Player",
    "ScoreBreakdown",
    "SerializationError",
    "SpecError",
    "State",
    "Status",
    "StrategyError",
    "__version__",
    "compiled",
    "edition_ids",
    "load_edition",
    "load_edition_file",
    "score_cards",
    "score_line",
]
