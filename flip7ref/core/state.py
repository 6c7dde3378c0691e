"""The immutable game state: queries, transitions and history (docs/core.md).

A `State` never changes: `State.apply` and `State.apply_chance` return a new state.
Pending work is an explicit stack of frames (`flip7ref.core.frames`) whose top answers
``current_player`` (a seat, `CHANCE` or `TERMINAL`, after OpenSpiel), ``legal_actions``
(in a stable order; string forms parse back) and ``chance_outcomes`` (exact fractions).
A transition runs the rules on a scratch `flip7ref.core.work.Work` and freezes the result; the
commonest steps take a fast lane (`flip7ref.core.lanes`) that calls the same rule functions.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, cast

from flip7ref.core import lanes
from flip7ref.core.engine import (  # game_end: re-exported
    Deal,
    DealOffer,
    Draw,
    Flip7Choice,
    decide,
    game_end,
    offer,
    reveal,
    settle,
)
from flip7ref.core.errors import IllegalActionError, OptionError
from flip7ref.core.frames import FRAME_TYPES, Frame
from flip7ref.core.game_tables import GameTables
from flip7ref.core.history import Log, chain, new_log
from flip7ref.core.lines import may_stay
from flip7ref.core.model import (  # CHANCE..Status: re-exported
    _ARITY,
    CHANCE,
    HIT,
    STAY,
    TERMINAL,
    Action,
    Event,
    Player,
    Status,
    is_among,
)
from flip7ref.core.primitives.choose_cards import ChooseCards
from flip7ref.core.primitives.forced_draw import Assign, ForcedDraw, InOrder, Resolve
from flip7ref.core.scoring import seat_score
from flip7ref.core.state_data import StateData
from flip7ref.core.state_fields import FIELD_NAMES
from flip7ref.core.targets import ChooseTarget
from flip7ref.core.work import Work

if TYPE_CHECKING:
    from fractions import Fraction

__all__ = [
    "CHANCE", "FRAME_TYPES", "HIT", "STATE_FORMAT", "STAY", "TERMINAL", "Action", "Assign", "ChooseCards",
    "ChooseTarget", "Deal", "DealOffer", "Draw", "Event", "Flip7Choice", "ForcedDraw", "Frame", "InOrder", "Player",
    "Resolve", "State", "Status", "game_end",
]  # fmt: skip

# The fast lanes of State.apply / State.apply_chance; tests switch them off to compare with the general path.
_FAST_LANES = True

STATE_FORMAT = 1
"""The version of the serialized state format (`State.to_dict`)."""

# flip7ref.core.serialize sits above this module (it reads whole states and the position checks),
# so this module never imports it: serialize installs `State.to_dict`'s and `State.from_dict`'s
# functions here when it is imported, and importing any part of the package imports it
# (flip7ref/__init__.py does).
_SERIALIZERS: dict[str, Callable[..., Any]] = {}


def install_serializers(*, to_dict: Callable[[State, bool], dict[str, Any]], from_dict: Callable[..., State]) -> None:
    """Install the functions behind `State.to_dict` (``to_dict(state, log)``) and `State.from_dict`
    (``from_dict(cls, data, game)``, which checks the data's depth first)."""
    _SERIALIZERS["to_dict"] = to_dict
    _SERIALIZERS["from_dict"] = from_dict


_STATE_FIELDS: Final = FIELD_NAMES
"""The fields of `State`, in constructor order: declared once, in `flip7ref.core.state_fields`
(with their types, defaults and JSON forms).  The code the compiled build needs spelled out
(the class body, ``__init__``, ``_make``, ``_fields``; `flip7ref.core.work.Work`; the fast
lanes' ``_make`` calls) is written from that table by tools/gen_state_fields.py
(tests/test_state_fields.py runs its ``--check``); the pure build's layout
(`flip7ref.core.layout`), ``__repr__``, the position's fields and `flip7ref.core.serialize`
read it."""
_DISCARD: Final = _STATE_FIELDS.index("discard")
_LOG: Final = _STATE_FIELDS.index("_log")


class State(StateData):
    # state-fields: state-class
    """An immutable game position.

    Attributes:
        game: the `Game` (edition, options, player count; its tables, `GameTables`).
        players: one `Player` per seat.
        draw: the draw pile as card codes, top first.  In an *ordered* state (a seeded or stacked game) the
            order is the real order of the pile; in an open state it is sorted and only the counts matter.
        discard: the discard pile (card codes); a multiset for equality.
        frames: the pending-work stack, bottom first (`flip7ref.core.frames`).
        dealer: the seat dealing this round.
        turn: the seat whose Hit-or-Stay offer is next.
        round: the round number, from 1.
        totals: running totals in points, per seat.
        last_scores: the round scores of the last finished round (empty before).
        flip7: the seat that made Flip 7 this round, or None.
        round_over: the round ended early (empty deck under ``empty_deck: end-round``).
        winners: the winning seats once the game is over (empty before).
        shuffle_seed: the seed of deterministic reshuffles; None for an open state.
        shuffles: reshuffles done so far (part of the reshuffle seed).
        bonus_to: Brutal Mode (V-082): the seat the Flip 7 maker chose, itself for +15 or another seat for
            -15; None otherwise.
        round_shuffles: reshuffles of the discard pile in the current round (F7-116, V-075: at most
            ``game.reshuffles`` of them; after that an empty deck is exhausted, F7-115).
        shuffle_mark: under reading ``unlimited`` of option ``reshuffles`` (F7-117, V-076), the cards in
            front of players plus the players out of the round at the round's last reshuffle (-1: none yet,
            or another reading); a reshuffle needs more than that.

    States compare equal when their positions are equal (the history is not
    compared).  Use `history` and `events` for what led here.

    A native class when compiled with mypyc (docs/build.md): its fields are
    ``Final`` (read-only from Python); in the pure build `__setattr__` refuses
    assignment.  It cannot be subclassed.  The fields are declared in
    `flip7ref.core.state_fields`; this docstring, ``_make``, ``_fields`` and the
    annotations and ``__init__`` of its base class `flip7ref.core.state_data.StateData` are
    written from there by tools/gen_state_fields.py.
    """

    def _make(
        self, game: GameTables, players: tuple[Player, ...], draw: tuple[int, ...], discard: tuple[int, ...],
        frames: tuple[Frame, ...], dealer: int, turn: int, round: int, totals: tuple[int, ...], last_scores: tuple[int, ...],
        flip7: int | None, round_over: bool, winners: tuple[int, ...], shuffle_seed: str | None, shuffles: int,
        bonus_to: int | None, round_shuffles: int, shuffle_mark: int, _log: Log | None,
    ) -> State:
        """A new state with these fields: the constructor for the modules this one
        imports (`flip7ref.core.lanes`), which cannot import it back."""
        return State(
            game, players, draw, discard, frames, dealer, turn, round, totals, last_scores, flip7, round_over, winners,
            shuffle_seed, shuffles, bonus_to, round_shuffles, shuffle_mark, _log,
        )  # fmt: skip

    def _fields(self) -> tuple[Any, ...]:
        """Every field in constructor order (the history link last)."""
        return (
            self.game, self.players, self.draw, self.discard, self.frames, self.dealer, self.turn, self.round, self.totals,
            self.last_scores, self.flip7, self.round_over, self.winners, self.shuffle_seed, self.shuffles, self.bonus_to,
            self.round_shuffles, self.shuffle_mark, self._log,
        )  # fmt: skip
    # state-fields: end

    def _work(self) -> Work:
        """A scratch copy of this state for one transition (`flip7ref.core.work.Work`, which
        sits below this module): the constructor for the modules this one imports
        (`flip7ref.core.lanes`), as `_make` is."""
        # state-fields: work-copy
        return Work(
            self.game, list(self.players), self.draw, self.discard, list(self.frames), self.dealer, self.turn, self.round,
            list(self.totals), self.last_scores, self.flip7, self.round_over, self.winners, self.shuffle_seed, self.shuffles,
            self.bonus_to, self.round_shuffles, self.shuffle_mark,
        )  # fmt: skip
        # state-fields: end

    def _freeze(self, w: Work, move: str, first: bool = False) -> State:
        """The state the scratch copy ``w`` holds, its history one link longer than this
        state's (the state the transition started from, which ``w`` was copied from) by
        ``move`` with ``w``'s events; with ``first``, a new game whose history starts there."""
        if first:
            log = new_log((None, move, tuple(w.events), None))
        else:
            log = new_log((self._log, move, tuple(w.events), self.initial_state()))
        # state-fields: work-freeze
        return self._make(
            w.game, tuple(w.players), w.draw, w.discard, tuple(w.frames), w.dealer, w.turn, w.round, tuple(w.totals),
            w.last_scores, w.flip7, w.round_over, w.winners, w.shuffle_seed, w.shuffles, w.bonus_to, w.round_shuffles,
            w.shuffle_mark, log,
        )  # fmt: skip
        # state-fields: end

    def __reduce__(self) -> tuple[Any, ...]:
        return (State, self._fields())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in _STATE_FIELDS[:-1])
        return f"State({fields})"

    # -- identity -------------------------------------------------------------

    def _position(self) -> tuple[Any, ...]:
        """The fields that make the position: every field but the history, the discard pile as a multiset."""
        fields = self._fields()
        return (*fields[:_DISCARD], tuple(sorted(self.discard)), *fields[_DISCARD + 1 : _LOG])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self._position() == other._position()

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self._position())

    # -- OpenSpiel-shaped queries ---------------------------------------------

    @property
    def current_player(self) -> int:
        """The seat to decide, `CHANCE` at a chance node, `TERMINAL` at the end."""
        if self.winners:
            return TERMINAL
        if not self.frames:
            return self.turn
        top = self.frames[-1]
        if type(top) is Draw:  # the commonest frame: a card to draw (a shortcut of Draw.decider)
            return CHANCE
        return top.decider()

    def is_terminal(self) -> bool:
        """Whether the game is over (F7-120)."""
        return bool(self.winners)

    def is_chance_node(self) -> bool:
        """Whether the next step is a card drawn from the pile."""
        return self.current_player == CHANCE

    def legal_actions(self) -> list[Action]:
        """The decisions open now, in a stable order (empty at chance and terminal nodes).

        At an offer: ``hit``, and ``stay`` when the player may stay (F7-033, option
        ``stay_requires``).  At a target choice or an assignment: ``target N`` for
        every eligible seat N, ascending.  At a Swap, Steal or Discard: the card
        picks (V-045..V-047).
        """
        if self.winners:
            return []
        if not self.frames:
            return offer(self.game, self.players, self.turn)
        return self.frames[-1].legal(self.game, self.players)

    def legal_action_strings(self) -> list[str]:
        """``[str(a) for a in self.legal_actions()]``."""
        return [str(a) for a in self.legal_actions()]

    def chance_outcomes(self) -> list[tuple[str, Fraction]]:
        """The card kinds the next draw can reveal, with exact probabilities.

        Returns:
            ``(card id, probability)`` pairs in table order; the probabilities are
            `Fraction` values summing to 1 (the share of each
            kind among the cards in the draw pile).  Empty when this is not a
            chance node.
        """
        from fractions import Fraction  # here, not at import: fractions costs start-up time

        total = len(self.draw)
        return [(card, Fraction(count, total)) for card, count in self.chance_weights()]

    def chance_weights(self) -> list[tuple[str, int]]:
        """The chance outcomes as whole-number weights: ``(card id, copies in the
        draw pile)`` in table order; each probability is copies / draw-pile size
        (`chance_outcomes` gives them as fractions).  Empty when this is
        not a chance node."""
        if self.current_player != CHANCE:
            return []
        counts = Counter(self.draw)
        ids = self.game.card_ids
        return [(ids[k], counts[k]) for k in sorted(counts)]

    def sample_chance(self, rng: Any = None) -> str:
        """Pick the next chance outcome.

        In an ordered state (seeded or stacked) this is the top card of the pile
        and ``rng`` is ignored; in an open state a card is drawn at random with
        ``rng`` (which must then be given), weighted by the chance outcomes.

        Args:
            rng (random.Random | None): the random source of an open state.

        Returns:
            The card id drawn (``"7"``), for `apply_chance`.

        Raises:
            IllegalActionError: when this is not a chance node, or an open state
                is sampled without ``rng``.
        """
        if self.current_player != CHANCE:
            raise IllegalActionError("chance", self.legal_action_strings(), "this is not a chance node")
        if self.shuffle_seed is not None:
            return self.game.card_ids[self.draw[0]]
        if not isinstance(rng, random.Random):
            raise IllegalActionError("chance", [], "an open state needs a random.Random to sample a card")
        return self.game.card_ids[rng.choice(self.draw)]

    def next_card(self) -> str | None:
        """The id of the card on top of an ordered pile (None when open or empty)."""
        if self.shuffle_seed is None or not self.draw:
            return None
        return self.game.card_ids[self.draw[0]]

    # -- transitions ------------------------------------------------------------

    def apply(self, action: Any) -> State:
        """Take a decision and return the resulting state.

        Args:
            action (Action | str): an `Action` or its string form (``"hit"``,
                ``"target 2"``).

        Returns:
            The next state, settled up to the next decision, chance node or the end.

        Raises:
            IllegalActionError: the action is not among ``legal_actions()`` (the
                message names it and the legal ones), or the state is a chance or
                terminal node.
        """
        if not self.frames and not self.winners and _FAST_LANES and self.game.fast_lanes:
            # the verb of a Hit or a Stay (by identity first: an Action's == is Python-level code)
            if action is HIT or action is STAY:
                verb = action.verb
            elif type(action) is str:
                verb = action
            elif type(action) is Action and not action.args:
                verb = action.verb
            else:
                verb = ""
            # a Hit at an offer (F7-030, F7-031) or a Stay (F7-034): their lanes, where they apply
            fast = lanes.offer_hit(self) if verb == "hit" else lanes.stay(self) if verb == "stay" else None
            if fast is not None:
                return cast(State, fast)  # a lane builds with self._make: a State
        legal = self.legal_actions()
        if isinstance(action, str):
            try:
                act = Action.parse(action)
            except IllegalActionError as exc:
                raise IllegalActionError(exc.action, [str(a) for a in legal], exc.why) from None
        elif isinstance(action, Action) and action.verb in _ARITY and len(action.args) == _ARITY[action.verb]:
            act = action
        else:
            raise IllegalActionError(repr(action), [str(a) for a in legal], "expected an Action or its string form")
        if not is_among(act, legal):
            seat = self.current_player
            if seat == TERMINAL:
                who = "the game is over"
            else:
                who = "a card must be drawn first" if seat == CHANCE else f"seat {seat} is to decide"
            raise IllegalActionError(str(act), [str(a) for a in legal], who)
        return self._apply_legal(act)

    def successors(self) -> list[tuple[Action, State]]:
        """Every legal action with the state it leads to, in `legal_actions` order (for
        search and one-move lookahead: each action is checked once, not again by `apply`).

        Returns:
            ``(action, successor)`` pairs; empty at chance and terminal nodes.
        """
        return [(act, self._apply_legal(act)) for act in self.legal_actions()]

    def _apply_legal(self, act: Action) -> State:
        """`apply` of an action known to be legal (one of `legal_actions`),
        without checking it again: for strategies that try every legal action."""
        work = self._work()
        decide(work, act)
        settle(work)
        return self._freeze(work, str(act))

    def apply_chance(self, card: Any) -> State:
        """Reveal ``card`` as the next drawn card and return the resulting state.

        Args:
            card (str): a card id (or alias, or name) present in the draw pile.  In an
                ordered state any card of the pile may be named; the first copy
                from the top is taken.

        Raises:
            IllegalActionError: this is not a chance node, or no such card is in
                the draw pile.
            CardError: the card name is unknown to the edition.
        """
        game = self.game
        code = game.codes.get(card) if type(card) is str else None
        if code is None:
            code = game.code(card)
        pile = self.draw
        if _FAST_LANES and game.fast_lanes and self.frames and not self.winners and pile and (pile[0] == code or code in pile):
            fast = lanes.plain_card(self, code)
            if fast is not None:
                return cast(State, fast)  # a lane builds with self._make: a State
        if self.current_player != CHANCE:
            raise IllegalActionError(f"chance {card}", self.legal_action_strings(), "this is not a chance node")
        try:
            index = self.draw.index(code)
        except ValueError:
            possible = [c for c, _ in self.chance_outcomes()]
            raise IllegalActionError(f"chance {card}", possible, "that card is not in the draw pile") from None
        return self._card_drawn(code, index)

    def _card_drawn(self, code: int, index: int) -> State:
        """`apply_chance`'s general path: card ``code``, at ``index`` of the pile, drawn at this chance node."""
        work = self._work()
        pile = work.draw
        work.draw = pile[index + 1 :] if index == 0 else pile[:index] + pile[index + 1 :]
        reveal(work, code)
        settle(work)
        return self._freeze(work, f"chance {self.game.card_ids[code]}")

    def apply_move(self, move: Any) -> State:
        """Apply a history entry: ``"chance CARD"`` or an action's string form."""
        if not isinstance(move, str):
            raise IllegalActionError(repr(move), self.legal_action_strings(), "expected a history entry (a string)")
        if move.startswith("chance "):
            return self.apply_chance(move[len("chance ") :])
        return self.apply(move)

    def chance_successors(self, *, merge_ends: bool = False) -> list[tuple[str, int, State]]:
        """Every chance outcome with the state it leads to, for exhaustive search.

        Returns:
            ``(card id, copies in the draw pile, successor)`` triples in table
            order: the pairs of `chance_weights`, each with
            ``self.apply_chance(card)`` (the probability of a triple is copies /
            draw-pile size).  Empty when this is not a chance node.

        The successors of a card drawn for a Hit are built together, sharing the
        work they have in common (the round end of every bust of a player left
        alone, F7-040, F7-100); the result is the same as applying each card.

        Args:
            merge_ends: for exhaustive search of a round that ends the game (the
                solver): every card that busts the player left alone and so ends
                the game gives the successor of the first such card, not its own
                (the positions differ only in which number lies on the discard
                pile: the same scores, totals and winners, no future, F7-101,
                F7-120).
        """
        weights = self.chance_weights()
        if not weights:
            return []
        if not (_FAST_LANES and self.game.fast_lanes):
            return [(card, count, self.apply_chance(card)) for card, count in weights]
        codes = self.game.codes
        shared = lanes.Siblings(merge_ends)
        out: list[tuple[str, int, State]] = []
        for card, count in weights:
            child = lanes.plain_card(self, codes[card], shared)
            out.append((card, count, self.apply_chance(card) if child is None else cast(State, child)))
        return out

    # -- history --------------------------------------------------------------

    def history(self) -> list[str]:
        """Every move since the initial state: action strings and ``"chance CARD"``."""
        return [log.move for log in chain(self._log) if log.move]

    def events(self) -> list[Event]:
        """Every event emitted since the game started, in order."""
        return [e for log in chain(self._log) for e in log.events]

    def initial_state(self) -> State:
        """The state this game's history starts from (itself for an initial state)."""
        log = self._log
        if log is None or log.start is None:
            return self
        return cast(State, log.start)  # a Log holds its start untyped (history.py sits below this module)

    def replay(self) -> list[State]:
        """Replay `history` from `initial_state`; returns every state.

        The last state equals ``self`` (the interpreter is deterministic given its
        moves); the list starts with the initial state.
        """
        states = [self.initial_state()]
        for move in self.history():
            states.append(states[-1].apply_move(move))
        return states

    def pending(self) -> tuple[str, str | None]:
        """What the decision at hand is about: ``(kind, card id)``.

        ``kind`` is ``offer`` (Hit or Stay), ``play`` (choose the target of the
        card), ``give`` (hand a spare Second Chance on), ``keep_or_give``,
        ``assign`` (assign a set-aside card), ``cards`` (pick the cards of a
        Swap, Steal or Discard), ``flip7_bonus`` (Brutal Mode: +15 for oneself or
        -15 for another seat), ``chance`` or ``terminal``.
        """
        if self.winners:
            return ("terminal", None)
        if not self.frames:
            return ("offer", None)
        return self.frames[-1].pending(self.game)

    def last_events(self) -> tuple[Event, ...]:
        """The events emitted by the move that produced this state."""
        return self._log.events if self._log is not None else ()

    # -- derived facts --------------------------------------------------------

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return len(self.players)

    def _seat(self, seat: object) -> int:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.players):
            raise OptionError(f"seat: expected a seat 0..{len(self.players) - 1}, got {seat!r}")
        return seat

    def status(self, seat: Any) -> Status:
        """The `Status` of ``seat`` in the current round.

        Raises:
            OptionError: ``seat`` is not a seat of this game.
        """
        return self.players[self._seat(seat)].status

    def line(self, seat: Any) -> list[str]:
        """Card ids of ``seat``'s line (numbers and modifiers), in order received.

        Raises:
            OptionError: ``seat`` is not a seat of this game.
        """
        return [self.game.card_ids[c] for c in self.players[self._seat(seat)].line]

    def kept(self, seat: Any) -> list[str]:
        """Card ids of the action cards lying in front of ``seat``.

        Raises:
            OptionError: ``seat`` is not a seat of this game.
        """
        return [self.game.card_ids[c] for c in self.players[self._seat(seat)].kept]

    def line_value(self, seat: Any) -> int:
        """What ``seat``'s line would score if the round ended now (points): the round
        score `flip7ref.core.scoring.seat_score` gives it (F7-100..F7-102, V-030, V-081, V-082),
        with this state's Flip 7 and Brutal Mode choice.

        Raises:
            OptionError: ``seat`` is not a seat of this game.
        """
        s = self._seat(seat)
        p = self.players[s]
        return seat_score(self.game, s, p.line, p.status is Status.BUSTED, self.flip7, self.bonus_to)

    def round_scores(self) -> tuple[int, ...]:
        """The round scores (points) of the last finished round, one per seat."""
        return self.last_scores

    def returns(self) -> tuple[int, ...]:
        """The running totals (points), one per seat (OpenSpiel's ``returns``)."""
        return self.totals

    def winner(self) -> int | None:
        """The single winner's seat, or None (game not over, or a shared win)."""
        return self.winners[0] if len(self.winners) == 1 else None

    def may_stay(self, seat: Any) -> bool:
        """Whether ``seat`` may answer a Hit-or-Stay offer with Stay now (F7-033, option
        ``stay_requires``; not with The Zero in the line, V-031).

        Raises:
            OptionError: ``seat`` is not a seat of this game.
        """
        return may_stay(self.game, self.players[self._seat(seat)])

    def cards_in_play(self) -> Counter[int]:
        """Every card code the state holds, in every zone (for conservation checks)."""
        count: Counter[int] = Counter(self.draw)
        count.update(self.discard)
        for p in self.players:
            count.update(p.line)
            count.update(p.kept)
        for f in self.frames:
            count.update(f.held_cards())
        return count

    # -- serialization ----------------------------------------------------------

    def to_dict(self, *, log: Any = True) -> dict[str, Any]:
        """The state as plain JSON-able data (card ids, not codes; `flip7ref.core.serialize`).

        Args:
            log (bool): include the history and the events (needed to resume
                `history` and `events` after `from_dict`).
        """
        to_dict: Callable[[State, bool], dict[str, Any]] = _SERIALIZERS["to_dict"]
        return to_dict(self, bool(log))

    @classmethod
    def from_dict(cls, data: Any, game: Any = None) -> State:
        """Rebuild a state from `to_dict` output.

        Args:
            data (Mapping[str, Any]): the serialized state (parsed JSON).
            game (Game | None): the game to attach; by default one is built from the data's
                edition id (a shipped edition: a table file is used only through
                this argument), player count and options.

        Raises:
            SerializationError: a missing or malformed field (named in the message);
                data nested deeper than `flip7ref.core.position.MAX_DEPTH`; an
                ``edition`` that is not a shipped id (or not ``game``'s edition).
            PositionError: (a SerializationError) a position no game can reach, with
                the message `Game.new_position` gives for the same cards (see
                `flip7ref.core.position`).
        """
        from_dict: Callable[..., State] = _SERIALIZERS["from_dict"]
        return from_dict(cls, data, game)


if __file__.endswith(".py"):  # the pure build (flip7ref.compiled is False): State over slots
    from flip7ref.core.layout import over_slots

    globals()["State"] = over_slots(State, _STATE_FIELDS, "_make")
