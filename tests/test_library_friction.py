"""What a researcher meets first in the library: the warning before an exact solve of hours,
the public projection that drops action cards, ``new_position``'s shapes of seats and cards,
and docstrings that ``help()`` shows in the compiled build as well."""

from __future__ import annotations

import inspect
import pickle
import random
import warnings
from pathlib import Path

import pytest

from flip7ref import Game, State
from flip7ref.analysis import (
    AnalysisError,
    LargeSolveWarning,
    SoloSolver,
    line_position,
    position_estimate,
    restrict_categories,
    solo_deck_position,
    solo_projection,
)
from flip7ref.core.errors import CardError, OptionError
from flip7ref.core.state import Action
from flip7ref.play.games import simulate
from flip7ref.play.strategies import OptimalSoloStrategy, RandomStrategy, Strategy, ThresholdStrategy, strategy_name


def test_an_exact_solve_with_action_cards_unseen_warns_before_it_starts() -> None:
    state = solo_deck_position(Game("flip7", 1), ["number", "modifier", "action"])
    states, rough, cpu = position_estimate(state)
    assert (states, rough) == (16_777_216, True) and cpu > 3600
    with warnings.catch_warnings():
        warnings.simplefilter("error", LargeSolveWarning)  # the warning stops the solve before it begins
        with pytest.raises(LargeSolveWarning, match=r"^exact solve with action cards still unseen: about 16,777,216 states"):
            SoloSolver().solve(state)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LargeSolveWarning)  # bounded by max_seconds: no warning, the limit stops it
        with pytest.raises(AnalysisError, match="max-seconds"):
            SoloSolver(max_seconds=0.2, max_states=10**9).solve(state)
        assert SoloSolver().solve(solo_deck_position(Game("flip7", 1), ["number"])).value > 0  # no action card: silent


def test_restrict_categories_drops_the_unseen_action_cards_and_keeps_the_line() -> None:
    game = Game("flip7", 3)
    full = game.new_position(lines={0: ["8", "x2"], 1: ["3"]}, kept={0: ["second_chance"]}, discard=["freeze", "5"], seed=None,
                             turn=0)  # fmt: skip
    solo = solo_projection(full)
    restricted = restrict_categories(solo)
    sg = restricted.game
    assert [sg.card_ids[c] for c in restricted.players[0].line] == ["8", "x2"]
    assert [sg.card_ids[c] for c in restricted.players[0].kept] == ["second_chance"]
    assert not any(sg.category[c] == 2 for c in restricted.draw)  # no action card left to draw
    assert len(restricted.draw) == sum(sg.category[c] != 2 for c in solo.draw)
    assert [sg.card_ids[c] for c in restricted.discard] == ["5"]
    assert position_estimate(solo)[1] and not position_estimate(restricted)[1]  # no longer an order-of-magnitude solve
    assert restricted.legal_actions() == solo.legal_actions() and restricted.line_value(0) == 16
    with pytest.raises(OptionError, match="one-player position"):
        restrict_categories(full)
    with pytest.raises(OptionError, match="unknown 'actions'"):
        restrict_categories(solo, ["actions"])
    assert "Caveat" in (restrict_categories.__doc__ or "")
    assert isinstance(line_position(Game("flip7", 1), ["8"]), State)


def test_new_position_takes_seat_lists_and_card_codes_as_well_as_mappings_and_names() -> None:
    game = Game("flip7", 2)
    by_name = game.new_position(lines={0: ["8", "x2"]}, kept={1: ["second_chance"]}, draw=["3", "4"], discard=["5"])
    codes = [game.code(c) for c in ("8", "x2", "3", "4", "5", "second_chance")]
    by_code = game.new_position(lines=[[codes[0], codes[1]], []], kept=[[], [codes[5]]], draw=[codes[2], "4"],
                                discard=[codes[4]])  # fmt: skip
    assert by_code == by_name
    again = game.new_position(lines=[list(by_name.players[0].line)], kept={1: list(by_name.players[1].kept)},
                              draw=list(by_name.draw[:2]), discard=list(by_name.discard))  # a state's own codes  # fmt: skip
    assert again.players == by_name.players and again.draw[:2] == by_name.draw[:2]
    stacked = game.new_initial_state(seed=1, stack=[codes[2], "4"])
    assert stacked.draw[:2] == game.new_initial_state(seed=1, stack=["3", "4"]).draw[:2]
    with pytest.raises(CardError, match=r"^draw: expected card names \(strings such .*\) or card codes 0\.\.21, got 22$"):
        game.new_position(draw=[22])
    with pytest.raises(OptionError, match=r"lines seat: expected a seat 0\.\.1, got 2"):
        game.new_position(lines=[[], [], ["3"]])
    doc = Game.new_position.__doc__ or Game.__doc__ or ""  # compiled: in the class's Methods section (compiled_docs)
    assert "or its code, an int" in " ".join(doc.split())


@pytest.mark.parametrize("name", ["Game", "State", "SoloSolver"])
def test_help_shows_the_class_docstrings(name: str) -> None:
    """``help(Game)`` and the others show their documentation in the compiled build too
    (mypyc keeps only a signature in a native class's ``__doc__``; flip7ref puts the source's back)."""
    import flip7ref
    import flip7ref.analysis

    cls = getattr(flip7ref.analysis if name == "SoloSolver" else flip7ref, name)
    doc = inspect.getdoc(cls) or ""
    assert len(doc) > 200 and "\n--\n" not in doc, (flip7ref.compiled, doc[:200])
    method = {"Game": "new_position", "State": "apply", "SoloSolver": "solve"}[name]
    own = inspect.getdoc(getattr(cls, method)) or ""  # compiled: None (mypyc's; it cannot be set)
    assert len(own) > 100 or f"\n{method}:\n" in doc, (flip7ref.compiled, method)  # then in the class's Methods section
    text = pydoc_text(cls)
    assert doc.splitlines()[0] in text


def test_compiled_docs_reads_a_class_and_its_public_methods() -> None:
    from flip7ref.core.compiled_docs import class_docs

    source = '''
class Thing:
    """A thing."""

    def double(self) -> int:
        """Twice x.

        More.
        """

    def _hidden(self) -> None:
        """Not shown."""

    def plain(self) -> None:
        pass
'''
    assert class_docs(source, ("Thing",)) == {"Thing": "A thing.\n\nMethods:\n\ndouble:\n    Twice x.\n    \n    More."}


def pydoc_text(obj: object) -> str:
    """What ``help(obj)`` prints, as plain text."""
    import pydoc

    return pydoc.plain(pydoc.render_doc(obj))


def test_compiled_docs_are_read_only_when_asked_for(tmp_path: Path) -> None:
    """`restore` installs a `SourceDoc`: ``import flip7ref`` parses no source (start-up, issue
    30); the class's ``__doc__`` and ``help()`` read it the first time they are asked."""
    from flip7ref.core.compiled_docs import SourceDoc

    source = tmp_path / "thing.py"
    source.write_text('class Thing:\n    """A thing."""\n\n    def double(self) -> int:\n        """Twice."""\n',
                      encoding="utf-8")  # fmt: skip
    doc = SourceDoc(source, "Thing", ("Thing",))
    assert doc.doc is None  # nothing read yet
    thing = type("Thing", (), {"__doc__": doc})  # a heap type's __doc__ getter calls __get__
    assert thing.__doc__ == "A thing.\n\nMethods:\n\ndouble:\n    Twice."
    assert thing().__doc__ == thing.__doc__ and doc.doc == thing.__doc__
    source.unlink()
    assert thing.__doc__ == "A thing.\n\nMethods:\n\ndouble:\n    Twice."  # read once, kept
    assert SourceDoc(tmp_path / "gone.py", "Thing", ("Thing",)).__get__(None) == ""
    import flip7ref

    if flip7ref.compiled:
        assert isinstance(vars(flip7ref.Game)["__doc__"], SourceDoc)


class _Cautious(ThresholdStrategy):
    """A user's subclass of a shipped strategy that calls the base class (issue 44)."""

    def __init__(self) -> None:
        super().__init__(15)
        self.name = "cautious"

    def choose(self, state: State, rng: random.Random) -> Action:
        return super().choose(state, rng)


class _FirstLegal(Strategy):
    """A user's strategy that subclasses the protocol explicitly (issue 44)."""

    name = "first-legal"

    def choose(self, state: State, rng: random.Random) -> Action:
        return state.legal_actions()[0]


class _Coin(RandomStrategy):
    """A subclass that inherits every method."""

    name = "coin"


def test_a_user_subclasses_the_shipped_strategies_and_plays_in_either_build() -> None:
    """Compiled, ``Strategy`` was a trait and the strategies' methods refused a subclass's
    ``self`` (``TypeError``); the pure and compiled builds must give the same games."""
    game = Game("flip7", 3)
    lineup = [_Cautious(), _FirstLegal(), _Coin()]
    summary = simulate(game, 4, "subclass", lineup).as_dict()
    same = simulate(game, 4, "subclass", [ThresholdStrategy(15), _FirstLegal(), _Coin()]).as_dict()
    assert summary["games"] == 4
    assert {k: v for k, v in summary.items() if k != "games_per_second"} == {
        k: v for k, v in same.items() if k != "games_per_second"
    }
    assert pickle.loads(pickle.dumps(_Cautious())).threshold == 15
    assert strategy_name(_Cautious()) == "cautious"
    solo: OptimalSoloStrategy = OptimalSoloStrategy.__new__(type("Solo", (OptimalSoloStrategy,), {}))
    OptimalSoloStrategy.__init__(solo)
    assert solo.name == "optimal-solo"
