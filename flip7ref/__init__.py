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

from flip7ref.core import serialize as _serialize  # noqa: F401 - installs State.to_dict and State.from_dict
from flip7ref.core import state as _state_module
from flip7ref.core.errors import (
    CardError,
    Flip7RefError,
    GameTooLongError,
    IllegalActionError,
    OptionError,
    SerializationError,
    SpecError,
    StrategyError,
)
from flip7ref.core.game import Game
from flip7ref.core.model import CHANCE, TERMINAL, Player, Status
from flip7ref.core.scoring import ScoreBreakdown, score_cards, score_line
from flip7ref.core.spec import Edition, edition_ids, load_edition, load_edition_file
from flip7ref.core.state import Action, Event, State

__version__ = "0.1.0"

compiled: bool = not str(getattr(_state_module, "__file__", "")).endswith(".py")
"""True when the interpreter's core was compiled with mypyc (``pip install .``; see docs/build.md),
False for the pure-Python build (``pip install -e .``, or ``FLIP7REF_PURE=1`` at install time)."""
if compiled:  # mypyc keeps only signatures in the classes' __doc__: help(Game) shows the source's again
    from flip7ref.core.compiled_docs import restore as _restore_docs

    _restore_docs(("flip7ref.core.game", "flip7ref.core.state", "flip7ref.core.model"))


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
