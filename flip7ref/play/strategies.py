"""Strategies that choose decisions, for simulation, traces and tournaments.

A strategy is any object that fits the `Strategy` protocol: a ``name``
and a ``choose(state, rng)`` method returning one of ``state.legal_actions()``.
`parse_strategy` builds the ones named on the command line: ``random``,
``threshold:N``, ``always-hit``, ``optimal-solo``, and a user's own class given
as ``module:Class`` (or ``path/to/file.py:Class``).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import random
import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar, Protocol

from mypy_extensions import mypyc_attr  # native_class=False: stays a plain Python class when compiled (docs/build.md)

from flip7ref.core.errors import Flip7RefError, OptionError, StrategyError
from flip7ref.core.game import Game
from flip7ref.core.game_tables import GameTables
from flip7ref.core.lines import may_stay
from flip7ref.core.model import target
from flip7ref.core.scoring import seat_score
from flip7ref.core.state import HIT, STAY, Action, State


@mypyc_attr(native_class=False)  # a compiled protocol is a trait, which a user's class may not subclass
class Strategy(Protocol):
    """Chooses a decision at a decision node: the protocol every strategy fits,
    the shipped ones and a user's own (``--strategy module:Class``).

    Required:

    - ``name`` (``str``): how tables and summaries name the strategy.  A class
      loaded with ``--strategy module:Class`` that has none is named
      ``module:Class``.
    - ``choose(state, rng) -> Action``: called at every decision node of the
      seat the strategy plays (``state.current_player`` is that seat, never a
      chance node); returns one of ``state.legal_actions()`` (an
      `Action`; its string form such as ``"hit"`` is
      accepted too).  ``rng`` (`random.Random`) is the only randomness it
      may use, so that a seeded run is repeatable.  The decisions are Hit or
      Stay (``state.pending()[0] == "offer"``) and, in the middle of an action
      card, targets, picks of cards, a spare Second Chance, Brutal Mode's
      choice (see ``state.pending()``).  An action that is not legal stops the
      run with a `StrategyError` naming the strategy.

    Optional:

    - ``prepare(game)``: called once per run before any game, e.g. to solve or
      load a policy (``optimal-solo`` does).
    - ``action_distribution(state) -> [(Action, Fraction), ...]``: a mixed
      strategy, evaluated exactly by `SoloSolver`.

    A class given as ``module:Class`` is built with no arguments.  With
    ``--workers N`` or ``--cluster`` the object is pickled to the workers: its
    module must be importable there (installed, or on ``PYTHONPATH``).
    """

    name: str

    def choose(self, state: State, rng: random.Random) -> Action:
        """Return one of ``state.legal_actions()`` (the state is a decision node)."""
        ...


@mypyc_attr(native_class=False)
class RandomStrategy:
    """Picks a legal action uniformly at random with the given rng."""

    # ``self: Any``: a compiled method of a plain class would refuse a subclass's instance

    name = "random"

    def choose(self: Any, state: State, rng: random.Random) -> Action:
        """A uniformly random legal action."""
        return rng.choice(state.legal_actions())

    def action_distribution(self: Any, state: State) -> list[tuple[Action, Fraction]]:
        """Every legal action with its probability (all alike), for exact evaluation."""
        legal = state.legal_actions()
        return [(a, Fraction(1, len(legal))) for a in legal]


@mypyc_attr(native_class=False)
class ThresholdStrategy:
    """Hits until the line is worth at least ``threshold`` points, then stays.

    Other decisions, so that every decision of every edition has an answer:

    - Freeze, Flip Three, Flip Four, Just One More, Discard, and modifiers that
      lower a score (-N, ÷2) go to the leader (highest running total plus line
      value) other than itself when possible;
    - Swap and Steal go to itself (the resolver picks the cards); a modifier that
      raises a score goes to itself;
    - picking the cards of a Swap, Steal or Discard: the pick that leaves its own
      line value furthest ahead of the best other line, looking one move ahead;
    - a spare Second Chance goes to the player with the lowest total, a first one
      is kept;
    - Brutal Mode after a Flip 7: -15 to the leading rival if one is level or
      ahead, else +15 to itself.

    Args:
        threshold (int): points (>= 0) at which the player stays.

    Raises:
        OptionError: ``threshold`` is not a whole number.
    """

    # every method takes ``self: Any``: compiled, a method of a plain class checks that
    # ``self`` is exactly that class, refusing a user's subclass (docs/build.md)
    threshold: int
    name: str

    def __init__(self: Any, threshold: Any) -> None:
        if isinstance(threshold, bool) or not isinstance(threshold, int):
            raise OptionError(f"threshold: expected a whole number of points, got {threshold!r}")
        self.threshold = threshold
        self.name = f"threshold:{threshold}"

    def choose(self: Any, state: State, rng: random.Random) -> Action:
        """The threshold decision for the player to act (no randomness used)."""
        if state.pending()[0] == "offer":  # an offer of Hit or Stay (F7-030, F7-033; at a deal slot, F7-025)
            seat = state.current_player  # an offer goes to an active (not busted) player
            game, p = state.game, state.players[seat]
            value = seat_score(game, seat, p.line, False, state.flip7, state.bonus_to)
            if value >= self.threshold and may_stay(game, p):  # State.may_stay's decider, the seat known to be valid
                return STAY
            return HIT
        return _other_decision(state)


def _other_decision(state: State) -> Action:
    """Every decision but Hit-or-Stay, as `ThresholdStrategy` documents."""
    legal = state.legal_actions()
    seat = state.current_player
    kind, card = state.pending()
    seats = [a.args[0] for a in legal if a.args and a.verb == "target"]
    if kind == "cards" or not seats:  # the cards to move, or a plug-in primitive's decision: look one move ahead
        best = max(state.successors(), key=lambda pair: (_advantage(state, pair[1], seat), [-x for x in pair[0].args]))
        return best[0]
    if kind == "keep_or_give" and seat in seats:
        return target(seat)
    if kind == "give":
        return target(min(seats, key=lambda s: (state.totals[s], s)))
    others = [s for s in seats if s != seat] or seats

    def standing(s: int) -> tuple[int, int]:
        return (state.totals[s] + state.line_value(s), -s)

    leader = max(others, key=standing)
    if kind == "flip7_bonus":
        return target(leader if state.totals[leader] >= state.totals[seat] or seat not in seats else seat)  # V-085 decides seats
    if card is not None and seat in seats and _helps_receiver(state, card):
        return target(seat)
    return target(leader)


@mypyc_attr(native_class=False)
class OptimalSoloStrategy:
    """Hit or Stay as the exact optimal solo policy says; other decisions as
    `ThresholdStrategy`.

    The policy is the one that maximises the expected round score of one player
    alone in a round with a fresh deck of the edition's number and modifier
    cards (see `flip7ref.analysis`; for Flip 7 worth 20.2291054307 points per
    round).  At an offer the player's numbers and modifiers are looked up in it;
    cards seen elsewhere and the other players are not taken into account.  The
    policy is solved at the first decision of each game table and options (about
    a minute for Flip 7 in one process; ``workers`` processes share the solve,
    see `SoloSolver`) and kept for the life of the
    process; `prepare` solves it ahead of time.

    It is for Flip 7 only: Vengeance's numbers and modifiers make far more solo
    states than `MAX_SOLO_STATES` (its Unlucky 7 sends lines to the discard pile).  ``progress`` (settable) is
    called as ``progress(states solved, states expected)`` while the policy is
    solved; ``cluster`` (settable) is a Dask client to solve it on.

    Args:
        categories (tuple[str, ...]): the card categories of the solo deck solved over.
        workers (int): processes to solve the policy in (``SoloSolver(workers=...)``).

    Raises (from `prepare` / the first decision):
        OptionError: the edition's numbers and modifiers make too many solo
            states to solve exactly (more than `MAX_SOLO_STATES`): the
            message says optimal-solo is for Flip 7 only.
    """

    MAX_SOLO_STATES = 400_000  # Flip 7 needs 262,143; larger solves take many minutes
    _tables: ClassVar[dict[object, dict[tuple[int, ...], bool]]] = {}
    categories: Any
    workers: Any
    progress: Callable[[int, int], None] | None
    cluster: Any
    name: str

    def __init__(self: Any, categories: Any = ("number", "modifier"), *, workers: Any = 1) -> None:
        self.categories = categories
        self.workers = workers  # processes to solve the policy in (SoloSolver(workers=...))
        self.progress = None
        self.cluster = None
        self.name = "optimal-solo" if categories == ("number", "modifier") else f"optimal-solo[{','.join(categories)}]"

    def _key(self: Any, game: Game) -> tuple[object, ...]:
        return game.edition.id, str(game.edition.path), tuple(sorted(game.options.items())), self.categories

    def to_solve(self: Any, game: Game) -> int:
        """The decision states `prepare` will solve for ``game`` (an estimate; 0 when the
        policy is solved already), refused at once, before anything is solved, when too many.

        Args:
            game: the game to play (its edition and options; any player count).

        Raises:
            OptionError: more than `MAX_SOLO_STATES` (the message says optimal-solo is for
                Flip 7 only).
        """
        from flip7ref.analysis import check_solo_policy

        if self._key(game) in OptimalSoloStrategy._tables:
            return 0
        try:
            return check_solo_policy(game, self.MAX_SOLO_STATES, self.categories)
        except OptionError as exc:
            raise OptionError(f"strategy {self.name} is for Flip 7 only: {exc}") from None

    def prepare(self: Any, game: Game) -> dict[tuple[int, ...], bool]:
        """Solve (or fetch) the policy for ``game``'s edition and options:
        ``{sorted line codes: stay?}``."""
        from flip7ref.analysis import solo_policy_table

        key = self._key(game)
        table: dict[tuple[int, ...], bool] | None = OptimalSoloStrategy._tables.get(key)
        if table is None:
            try:
                table = solo_policy_table(
                    game, self.MAX_SOLO_STATES, self.categories, workers=self.workers,
                    progress=self.progress, cluster=self.cluster,
                )  # fmt: skip
            except OptionError as exc:
                raise OptionError(f"strategy {self.name} is for Flip 7 only: {exc}") from None
            self._tables[key] = table
        return table

    def __getstate__(self: Any) -> dict[str, object]:
        # the solved tables travel with the strategy to worker processes
        return {"categories": self.categories, "name": self.name, "tables": dict(self._tables)}

    def __setstate__(self: Any, state: dict[str, object]) -> None:
        self.categories = state["categories"]
        self.name = state["name"]
        self.workers = 1
        self.progress = None
        self.cluster = None
        self._tables.update(state["tables"])

    def choose(self: Any, state: State, rng: random.Random) -> Action:
        """The optimal solo Hit-or-Stay decision; other decisions as threshold:N."""
        if state.pending()[0] != "offer":
            return _other_decision(state)
        seat = state.current_player
        stay = self.prepare(state.game).get(tuple(sorted(state.players[seat].line)))
        if stay is None:  # a line the solo deck cannot make (e.g. after a Swap): threshold:20
            stay = state.line_value(seat) >= 20
        return STAY if stay and state.may_stay(seat) else HIT


def _helps_receiver(state: State, card: str) -> bool:
    """Whether a card is best played on oneself (Swap, Steal, a score-raising modifier)."""
    return helps_receiver(state.game, card)


def helps_receiver(game: GameTables, card: str) -> bool:
    """Whether `ThresholdStrategy` plays card ``card`` (a card id of ``game``) on itself when
    it may: a Swap, a Steal (the primitive's ``helps_target``), a modifier that raises a score
    (``x2``, ``+N``).  The batched Vengeance policy reads it too (`flip7ref.batch.v_policies`)."""
    code = game.codes[card]  # a card id from State.pending
    effect = game.effect[code]
    if effect is not None:
        return effect.helps_target()
    modifier = game.modifier[code]
    return modifier is not None and (modifier[0] == "multiply" or (modifier[0] == "add" and modifier[1] > 0))


def _advantage(before: State, after: State, seat: int) -> int:
    """Own points minus the best rival's, after a move (round scores if the round ended)."""
    if after.round != before.round or after.is_terminal():
        values = list(after.last_scores)
    else:
        values = [after.line_value(s) for s in range(after.num_players)]
    rivals = [v for s, v in enumerate(values) if s != seat]
    return values[seat] - (max(rivals) if rivals else 0)


def prepare_strategies(strategies: Any, game: Game) -> None:
    """Call ``prepare(game)`` of every strategy that has one (`Strategy`), once each, in order.

    Args:
        strategies (Sequence[Strategy]): the strategies of a run.
        game (Game): the game they are about to play.

    Raises:
        StrategyError: a user's ``prepare`` raised (or called ``sys.exit``): the
            message names the strategy and the exception, in one line.
        Flip7RefError: whatever flip7ref error a ``prepare`` raised (e.g. the
            `OptionError` of optimal-solo outside Flip 7), unchanged.
    """
    for strategy in strategies:
        try:
            prepare = getattr(strategy, "prepare", None)
            if prepare is not None:  # e.g. optimal-solo solves its policy once, before any worker starts
                prepare(game)
        except Flip7RefError:
            raise
        except (Exception, SystemExit) as exc:  # the user's code failed: say whose, not a traceback
            raise StrategyError(
                f"strategy {strategy_name(strategy)!r} failed in prepare(): {type(exc).__name__}: {exc}"
            ) from None


def worker_lost(strategies: Any, what: str) -> StrategyError:
    """The error of a run whose worker process ended without a word (``os._exit``, a
    signal, a crash of the interpreter) while it played ``what`` (e.g. ``"games 0-49"``):
    it names the run's strategies, the likely cause."""
    names = ", ".join(dict.fromkeys(repr(strategy_name(s)) for s in strategies))
    return StrategyError(
        f"a worker process ended abruptly while playing {what} with strategy {names} "
        "(did a strategy call os._exit() or crash the interpreter?)"
    )


def strategy_name(strategy: object) -> str:
    """The ``name`` of a strategy for messages; its class name when reading ``name``
    fails or gives something that is not a string (never raises)."""
    try:
        name = getattr(strategy, "name", None)
    except Exception:
        name = None
    return name if isinstance(name, str) else type(strategy).__name__


_NEVER = 10**9  # a threshold no line reaches: always-hit


def parse_strategy(text: Any) -> Strategy:
    """Build a strategy from its name: ``random``, ``threshold:N`` (N >= 0 points),
    ``always-hit`` (hits at every offer; other decisions as threshold:N) or
    ``optimal-solo`` (`OptimalSoloStrategy`).

    Any other ``module:Class`` (``module`` a dotted module name importable from
    the current directory or ``sys.path``, or a ``.py`` file's path; ``Class`` a
    class or factory in it, dotted for nested names) is imported and called with
    no arguments; the object must fit `Strategy`.

    Args:
        text (str): the name, as ``--strategy`` takes it.

    Raises:
        OptionError: ``text`` is not a string, an unknown strategy name or a malformed threshold.
        StrategyError: ``module:Class`` cannot be imported, built, or does not
            fit the protocol (no callable ``choose``, a ``name`` that is not a string).
    """
    if not isinstance(text, str):
        raise OptionError(f"strategy: expected a strategy name such as 'threshold:20', got {text!r}")
    name, _, arg = text.strip().partition(":")
    if name == "random" and not arg:
        return RandomStrategy()
    if name == "optimal-solo" and not arg:
        return OptimalSoloStrategy()
    if name == "always-hit" and not arg:
        always = ThresholdStrategy(_NEVER)
        always.name = "always-hit"
        return always
    if name == "threshold":
        if not (arg.strip().isascii() and arg.strip().isdigit()):
            raise OptionError(f"strategy {text!r}: expected threshold:N with N a whole number of points, e.g. threshold:20")
        return ThresholdStrategy(int(arg))
    if is_plugin_spec(text):
        return load_strategy(text.strip())
    raise OptionError(
        f"unknown strategy {text!r} (expected random, threshold:N, always-hit, optimal-solo or module:Class)"
    )


BUILT_IN = ("random", "threshold", "always-hit", "optimal-solo")
"""The names of the shipped strategies (`parse_strategy`); any other ``NAME:ARG`` is a plug-in."""


def is_plugin_spec(text: object) -> bool:
    """Whether ``text`` (a ``--strategy`` value) names a user's plug-in, ``module:Class`` or
    ``file.py:Class``, rather than a shipped strategy (`BUILT_IN`); never raises."""
    if not isinstance(text, str):
        return False
    name, _, arg = text.strip().partition(":")
    return bool(arg) and name not in BUILT_IN


def load_strategy(spec: str) -> Strategy:
    """Import and build a user's strategy from ``module:Class`` (see `parse_strategy`).

    The current directory is searched first for ``module`` (as a command run
    there expects); a ``.py`` path is loaded from that file.

    Raises:
        StrategyError: the module or the attribute cannot be found or imported,
            building the object fails, or it does not fit `Strategy`.
    """
    module_name, _, attr = spec.rpartition(":")
    if not module_name or not attr:
        raise StrategyError(f"strategy {spec!r}: expected module:Class, e.g. mybots:Greedy")
    where = f"strategy {spec!r}"
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise StrategyError(f"{where}: no file {module_name}")
            unit = importlib.util.spec_from_file_location(path.stem, path)
            if unit is None or unit.loader is None:  # pragma: no cover - a .py file always has a loader
                raise StrategyError(f"{where}: cannot load {module_name}")
            module = importlib.util.module_from_spec(unit)
            module.__dict__["__flip7ref_file__"] = str(path.resolve())  # sent to Dask workers (flip7ref.proc.cluster)
            sys.modules.setdefault(path.stem, module)
            unit.loader.exec_module(module)
        else:
            if os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
    except StrategyError:
        raise
    except ModuleNotFoundError as exc:
        raise StrategyError(f"{where}: no module named {exc.name!r} (is it on PYTHONPATH or in this directory?)") from None
    except (Exception, SystemExit) as exc:  # the user's module failed (or exited) while importing
        raise StrategyError(f"{where}: importing {module_name} failed: {type(exc).__name__}: {exc}") from None
    target: object = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise StrategyError(f"{where}: module {module_name} has no attribute {attr!r}")
        target = getattr(target, part)
    if not callable(target):
        raise StrategyError(f"{where}: {attr} is not a class or a factory (got {type(target).__name__})")
    try:
        strategy = target()
    except (Exception, SystemExit) as exc:
        raise StrategyError(f"{where}: {attr}() failed: {type(exc).__name__}: {exc}") from None
    if not callable(getattr(strategy, "choose", None)):
        raise StrategyError(f"{where}: a {type(strategy).__name__} has no method choose(state, rng); see the Strategy protocol")
    try:
        label = getattr(strategy, "name", None)
    except (Exception, SystemExit) as exc:  # a property that raises
        raise StrategyError(f"{where}: reading its name failed: {type(exc).__name__}: {exc}") from None
    if label is None:
        try:
            strategy.name = spec
        except AttributeError:
            raise StrategyError(f"{where}: a {type(strategy).__name__} has no name and none can be set") from None
    elif not isinstance(label, str):
        raise StrategyError(f"{where}: its name must be a string, got {type(label).__name__}")
    fits: Strategy = strategy  # checked above: choose() and a name (no runtime_checkable: mypyc compiles this module)
    return fits
