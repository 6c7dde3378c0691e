"""The reference rules as an OpenSpiel game: ``pyspiel.load_game("python_flip7ref")``.

Importing this module registers the game with pyspiel.  It is sequential, with
explicit stochastic chance: every chance node lists the card kinds the next draw
can reveal with the interpreter's exact probabilities (`State.chance_outcomes`,
as floats); a chance action is a card kind's code (its position in the edition
table, ``Game.card_ids``).  The game has no hidden cards: it is perfect
information, the draw pile being an unordered multiset (an *open* state of the
interpreter) rather than a seeded order.

Player actions use the index of `ActionIndex`;
observation tensors use `ObservationEncoder` (both
documented in ``docs/rl.md``).

Parameters (``pyspiel.load_game("python_flip7ref", {...})``):

- ``edition`` (str, ``flip7``): ``flip7`` or ``vengeance``;
- ``players`` (int, 2);
- ``options`` (str, empty): option values as ``name:value`` pairs separated by
  ``;``, e.g. ``"brutal:true;target_score:50"``;
- ``reward`` (str, ``win``): returns at the end, ``win`` (+1 for every winner,
  -1 for every other seat) or ``points`` (the final running totals);
- ``max_moves`` (int, 5000): decisions (of any seat; chance outcomes are not
  counted, as in the Gymnasium and PettingZoo environments) after which the game
  stops as a draw with zero returns.  ``max_game_length`` counts chance outcomes
  too: ``max_moves * (deck size + 1)``, and the game also stops there (a bound no
  real game comes near: a decision is followed by fewer draws than the deck holds);
- ``seats`` (str, ``relative``): the seat layout of player actions and observation
  tensors, ``relative`` (the acting / observing seat first, the others in turn order
  after it) or ``absolute`` (the table's seats; ``docs/rl.md``).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pyspiel

from flip7ref.core.errors import IllegalActionError, OptionError
from flip7ref.core.game import Game
from flip7ref.core.observation_layout import POINTS_BOUND
from flip7ref.core.state import CHANCE, TERMINAL, State
from flip7ref.rl.actions import ActionIndex
from flip7ref.rl.encoding import ObservationEncoder
from flip7ref.rl.episode import DEFAULT_MAX_MOVES, check_common

SHORT_NAME = "python_flip7ref"
MAX_PLAYERS = 36

_DEFAULTS: dict[str, Any] = {
    "edition": "flip7",
    "players": 2,
    "options": "",
    "reward": "win",
    "max_moves": DEFAULT_MAX_MOVES,
    "seats": "relative",
}


def _game_type(utility: Any) -> Any:
    """The registered game type with ``utility`` (a ``pyspiel.GameType.Utility``)."""
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Flip 7 (flip7ref reference rules)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=1,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_DEFAULTS,
    )


_GAME_TYPE = _game_type(pyspiel.GameType.Utility.GENERAL_SUM)
_ZERO_SUM_TYPE = _game_type(pyspiel.GameType.Utility.ZERO_SUM)


def is_zero_sum(game: Game, reward: str) -> bool:
    """Whether the OpenSpiel game's returns always add up to 0: two players, the ``win``
    reward, and a tie rule that never lets both win (``tie: shared-win`` would give +1 to
    each).  A game stopped at ``max_moves`` returns zeros, which add up to 0 too."""
    return game.players == 2 and reward == "win" and game.options.get("tie") != "shared-win"


def parse_options(text: str) -> dict[str, str]:
    """Read ``"name:value;name:value"`` (``=`` also separates a name from its value).

    Raises:
        OptionError: a pair without a separator.
    """
    out: dict[str, str] = {}
    for pair in filter(None, (p.strip() for p in text.split(";"))):
        sep = min((i for i in (pair.find(":"), pair.find("=")) if i >= 0), default=-1)
        if sep <= 0:
            raise OptionError(f"options: expected name:value pairs separated by ';', got {pair!r}")
        out[pair[:sep].strip()] = pair[sep + 1 :].strip()
    return out


class _Shared:
    """Immutable values shared by every state of a game (copying a state never copies them).

    Pickled (OpenSpiel's ``serialize``) as the game's parameters and the interpreter's
    state as data (`State.to_dict` without its log), not as the game: a few KB.
    """

    __slots__ = ("actions", "encoder", "game", "max_moves", "params", "reward", "state")

    def __init__(
        self, game: Game, actions: ActionIndex, encoder: ObservationEncoder, reward: str, max_moves: int, state: State,
        params: tuple[tuple[str, Any], ...] = (),
    ) -> None:  # fmt: skip
        self.game, self.actions, self.encoder = game, actions, encoder
        self.reward, self.max_moves, self.state, self.params = reward, max_moves, state, params

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore_shared, (self.params, self.state.to_dict(log=False)))

    def with_state(self, state: State) -> _Shared:
        return _Shared(self.game, self.actions, self.encoder, self.reward, self.max_moves, state, self.params)


@functools.lru_cache(maxsize=16)
def _loaded(params: tuple[tuple[str, Any], ...]) -> Flip7Game:
    """The game of ``params`` (cached: deserializing many states builds it once)."""
    game = pyspiel.load_game(SHORT_NAME, dict(params))
    assert isinstance(game, Flip7Game)
    return game


def _restore_shared(params: tuple[tuple[str, Any], ...], data: dict[str, Any]) -> _Shared:
    """A pickled `_Shared` back: the game from its parameters, the state from its data."""
    start = _loaded(params)._start
    return start.with_state(State.from_dict(data, start.game))


class Flip7Game(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game of an edition, options and player count (see the module docstring).

    Attributes:
        flip7ref_game: the interpreter's `Game`.
        actions: the `ActionIndex` (``actions.encode(state.flip7ref_state, action)``
            turns an interpreter `Action` into a player action).
        encoder: the `ObservationEncoder` of the observation tensors.

    Raises:
        OptionError: an unknown edition, option, reward or seat layout, or too few players.
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = {**_DEFAULTS, **(params or {})}
        reward, max_moves = str(merged["reward"]), int(merged["max_moves"])
        check_common(reward, max_moves)
        game = Game(str(merged["edition"]), int(merged["players"]), parse_options(str(merged["options"])))
        seats = str(merged["seats"])
        actions, encoder = ActionIndex(game, seats), ObservationEncoder(game, seats)
        low, high = (-1.0, 1.0) if reward == "win" else (-float(POINTS_BOUND), float(POINTS_BOUND))
        zero_sum = is_zero_sum(game, reward)
        info = pyspiel.GameInfo(
            num_distinct_actions=actions.size,
            max_chance_outcomes=len(game.card_ids),
            num_players=game.players,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=max_moves * (len(game.deck) + 1),
        )
        super().__init__(_ZERO_SUM_TYPE if zero_sum else _GAME_TYPE, info, merged)
        key = tuple(sorted((k, merged[k]) for k in _DEFAULTS))
        self._start = _Shared(game, actions, encoder, reward, max_moves, game.new_initial_state(seed=None), key)
        self.flip7ref_game = game
        self.actions = actions
        self.encoder = encoder

    def new_initial_state(self) -> Flip7State:
        """The start of a game: an open state (the pile unordered), before the first card."""
        return Flip7State(self, self._start)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Flip7Observer:
        """The observer of observation tensors and strings (the game is fully observed)."""
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        return Flip7Observer(self._start.encoder)


class Flip7State(pyspiel.State):  # type: ignore[misc]
    """A position: the interpreter's open `State` and the move count."""

    def __init__(self, game: Flip7Game, shared: _Shared) -> None:
        super().__init__(game)
        self._shared = shared
        self._moves = 0  # every move, chance outcomes included
        self._decisions = 0

    @property
    def flip7ref_state(self) -> State:
        """The interpreter's state (immutable)."""
        return self._shared.state

    def _stopped(self) -> bool:
        sh = self._shared
        return self._decisions >= sh.max_moves or self._moves >= sh.max_moves * (len(sh.game.deck) + 1)

    def current_player(self) -> int:
        """The seat to decide, ``pyspiel.PlayerId.CHANCE`` or ``TERMINAL``."""
        player = self._shared.state.current_player
        if player == TERMINAL or self._stopped():
            return int(pyspiel.PlayerId.TERMINAL)
        if player == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        return player

    def _legal_actions(self, player: int) -> list[int]:
        return self._shared.actions.legal_indices(self._shared.state)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(card code, probability)`` for every card kind in the draw pile (exact shares, as floats)."""
        game = self._shared.game
        return [(game.codes[card], float(p)) for card, p in self._shared.state.chance_outcomes()]

    def _apply_action(self, action: int) -> None:
        sh = self._shared
        state = sh.state
        if state.current_player == CHANCE:
            new = state.apply_chance(self._chance_card(action))
        else:
            new = state.apply(sh.actions.decode(state, action))
            self._decisions += 1
        self._shared = sh.with_state(new)
        self._moves += 1

    def _chance_card(self, action: object) -> str:
        """The card id of chance action ``action`` (a card kind's code).

        Raises:
            IllegalActionError: not a whole number from 0 to the last code (a negative
                one is refused, not counted from the end); the message lists the
                legal chance actions.
        """
        ids = self._shared.game.card_ids
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= int(action) < len(ids):
            legal = [str(code) for code, _ in self.chance_outcomes()]
            raise IllegalActionError(str(action), legal, f"a chance action is a card kind's code, 0..{len(ids) - 1}")
        return ids[int(action)]  # apply_chance refuses a kind with no card left in the draw pile

    def _action_to_string(self, player: int, action: int) -> str:
        sh = self._shared
        if player == pyspiel.PlayerId.CHANCE:
            ids = sh.game.card_ids
            known = not isinstance(action, bool) and isinstance(action, (int, np.integer)) and 0 <= int(action) < len(ids)
            return f"chance {ids[int(action)]}" if known else f"chance {action} (no such card kind)"
        try:
            return str(sh.actions.decode(sh.state, action))
        except Exception:
            return sh.actions.describe(action)

    def is_terminal(self) -> bool:
        """Whether the game is over (or stopped at ``max_moves``)."""
        return self._shared.state.is_terminal() or self._stopped()

    def returns(self) -> list[float]:
        """Per seat: ``win`` +1 / -1, or ``points`` the running totals, at the end; zeros before."""
        state = self._shared.state
        if not state.is_terminal():
            return [0.0] * state.num_players
        if self._shared.reward == "win":
            return [1.0 if s in state.winners else -1.0 for s in range(state.num_players)]
        return [float(t) for t in state.totals]

    def __str__(self) -> str:
        s = self._shared.state
        seats = "; ".join(
            f"{i}:{s.status(i).value}[{' '.join(s.line(i) + s.kept(i))}] {s.totals[i]}" for i in range(s.num_players)
        )
        return f"round {s.round} dealer {s.dealer} {s.pending()[0]} | {seats}"


class Flip7Observer:
    """OpenSpiel's PyObserver: ``tensor`` (float32) and its named sections in ``dict``."""

    def __init__(self, encoder: ObservationEncoder) -> None:
        self._encoder = encoder
        self.tensor = np.zeros(encoder.size, np.float32)
        self.dict = {name: self.tensor[start : start + size] for name, (start, size) in encoder.sections.items()}

    def set_from(self, state: Flip7State, player: int) -> None:
        """Fill ``tensor`` with the observation of ``state`` for seat ``player``."""
        self.tensor[:] = self._encoder.encode_array(state.flip7ref_state, player)

    def string_from(self, state: Flip7State, player: int) -> str:
        """The observation as text (the same for every seat: nothing is hidden)."""
        return str(state)


@functools.cache
def register() -> None:
    """Register ``python_flip7ref`` with pyspiel (done on import; idempotent)."""
    pyspiel.register_game(_GAME_TYPE, Flip7Game)


register()
