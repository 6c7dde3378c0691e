"""The immutable game state and the interpreter's transitions.

A `State` never changes: `State.apply` and `State.apply_chance`
return a new state.  Pending work is an explicit stack of *frames* (the deal,
a draw, a forced draw such as Flip Three, a target choice, the assignment of
set-aside cards, a queue of cards to resolve); ``current_player``,
``legal_actions`` and ``chance_outcomes`` read the top frame.

Shape (after OpenSpiel): ``current_player`` is a seat (0..players-1),
`CHANCE` or `TERMINAL`; at a chance node ``chance_outcomes()`` lists
the card kinds that can be drawn with exact `fractions.Fraction`
probabilities; at a decision node ``legal_actions()`` lists `Action`
values in a stable order whose string forms parse back with `Action.parse`.

Internally a transition copies the state into a scratch `_Work`, runs
the rules on it, settles every automatic step (dealing, resolving queues,
reshuffling, scoring a round, starting the next) and freezes the result.
"""

from __future__ import annotations

import functools
import operator
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, ClassVar, NamedTuple, TypeVar, cast

import attrs
from mypy_extensions import mypyc_attr  # native_class=False: stays a plain Python class when compiled (docs/build.md)

from .errors import CardError, IllegalActionError, OptionError, SerializationError
from .game import Effect, Game, install_state_builders
from .model import CHANCE as CHANCE  # re-exported: their home was this module
from .model import MODIFIER, NUMBER
from .model import TERMINAL as TERMINAL
from .model import Player as Player
from .model import Status as Status
from .position import CardPool, check_data_fields, check_depth, check_edition_field, check_seat, check_state
from .scoring import flip7_count, score_points

STATE_FORMAT = 1

# The fast lanes of State.apply / State.apply_chance for the commonest steps (a Hit,
# a Stay, a plain card for a Hit or in the deal); tests switch them off to compare
# with the general path.
_FAST_LANES = True


# --------------------------------------------------------------------------- frames


@mypyc_attr(native_class=False)
class _Frame:
    """Base of the frame classes: ``name`` is the frame's kind (``Deal.name == "deal"``), a class
    attribute set by `_kind` after the class is made (mypyc records class-body attributes
    as annotations, which attrs would take for fields)."""

    __slots__ = ()
    name: ClassVar[str]


_FrameClass = TypeVar("_FrameClass", bound=type[_Frame])


def _kind(name: str) -> Callable[[_FrameClass], _FrameClass]:
    def named(cls: _FrameClass) -> _FrameClass:
        cls.name = name
        return cls

    return named


@_kind("deal")
@mypyc_attr(native_class=False)
@attrs.frozen
class Deal(_Frame):
    """The initial deal is under way; ``position`` indexes the deal order (F7-020)."""

    position: int


@_kind("deal_offer")
@mypyc_attr(native_class=False)
@attrs.frozen
class DealOffer(_Frame):
    """A decision in the deal: the deal reached ``seat``, who already holds cards (from
    an early Flip Three), so they are asked Hit or Stay at their slot before the deal
    goes on (F7-025, option ``deal_after_early_cards`` = ``offer``)."""

    seat: int


@_kind("draw")
@mypyc_attr(native_class=False)
@attrs.frozen
class Draw(_Frame):
    """A chance node: one card goes to ``seat`` (``reason``: ``deal`` or ``hit``)."""

    seat: int
    reason: str


@_kind("forced_draw")
@mypyc_attr(native_class=False)
@attrs.frozen
class ForcedDraw(_Frame):
    """A forced draw (Flip Three) in progress (F7-070..F7-073).

    Attributes:
        target: the seat taking the cards.
        giver: the seat that played the card on the target.
        card: the code of the card being resolved (it is discarded at the end, F7-078).
        remaining: cards still to draw.
        set_aside: codes of cards revealed inside and set aside, in reveal order.
    """

    target: int
    giver: int
    card: int
    remaining: int
    set_aside: tuple[int, ...] = ()


@_kind("choose_target")
@mypyc_attr(native_class=False)
@attrs.frozen
class ChooseTarget(_Frame):
    """A decision: ``chooser`` picks a seat in ``allowed`` for ``card``.

    ``purpose`` is ``play`` (the card's effect hits the chosen seat), ``give``
    (a spare Second Chance is handed over, F7-082) or ``keep_or_give`` (the
    chooser may keep it by choosing themselves).
    """

    card: int
    chooser: int
    allowed: tuple[int, ...]
    purpose: str


@_kind("assign")
@mypyc_attr(native_class=False)
@attrs.frozen
class Assign(_Frame):
    """A decision: ``chooser`` assigns set-aside cards in reveal order (F7-073, F7-074).

    Attributes:
        chooser: who assigns.
        owner: the forced draw's target (receives set-aside Second Chances).
        cards: the set-aside card codes, in reveal order.
        targets: the seats chosen so far (-1: no eligible seat, discarded).
    """

    chooser: int
    owner: int
    cards: tuple[int, ...]
    targets: tuple[int, ...] = ()


@_kind("resolve")
@mypyc_attr(native_class=False)
@attrs.frozen
class Resolve(_Frame):
    """Assigned cards taking effect in assignment order: ``(card, target, chooser)`` items."""

    items: tuple[tuple[int, int, int], ...]


@_kind("in_order")
@mypyc_attr(native_class=False)
@attrs.frozen
class InOrder(_Frame):
    """Set-aside cards resolved one by one in reveal order, each as if ``chooser`` had
    just received it (V-044); carried out even if the chooser busts meanwhile."""

    chooser: int
    cards: tuple[int, ...]


@_kind("choose_cards")
@mypyc_attr(native_class=False)
@attrs.frozen
class ChooseCards(_Frame):
    """A decision: ``chooser`` picks the card(s) a Swap, Steal or Discard moves.

    Attributes:
        card: the action card being resolved.
        chooser: who picks.
        resolver: the player the action was played on (who swaps, steals or discards).
    """

    card: int
    chooser: int
    resolver: int


@_kind("flip7_choice")
@mypyc_attr(native_class=False)
@attrs.frozen
class Flip7Choice(_Frame):
    """A decision (Brutal Mode, V-082): the Flip 7 maker takes +15 or gives another player -15."""

    seat: int


Frame = Deal | DealOffer | Draw | ForcedDraw | ChooseTarget | Assign | Resolve | InOrder | ChooseCards | Flip7Choice
FRAME_TYPES: dict[str, type[Any]] = {
    t.name: t
    for t in (Deal, DealOffer, Draw, ForcedDraw, ChooseTarget, Assign, Resolve, InOrder, ChooseCards, Flip7Choice)
}


# --------------------------------------------------------------------------- actions & events

_VERBS = ("hit", "stay", "target", "steal", "discard", "swap")
_ARITY = {"hit": 0, "stay": 0, "target": 1, "steal": 2, "discard": 2, "swap": 4}


@mypyc_attr(native_class=False)
@attrs.frozen(order=True)
class Action:
    """A decision a player can take.

    ``hit`` and ``stay`` answer an offer (F7-030); ``target N`` chooses seat N for
    the card in question (a Freeze, a Flip Three, a spare Second Chance, a
    set-aside card, a modifier; in Brutal Mode after a Flip 7, oneself for +15 or
    another seat for -15).  ``steal S I`` takes card I (0-based, in the order of
    ``State.line``) of seat S; ``discard S I`` discards it; ``swap S I T J``
    exchanges card I of seat S with card J of seat T.  ``str(action)`` gives the
    string form; `parse` reads it.
    """

    verb: str
    args: tuple[int, ...] = ()

    def __str__(self) -> str:
        return " ".join([self.verb, *(str(a) for a in self.args)])

    @classmethod
    def parse(cls, text: Any) -> Action:
        """Parse a string form such as ``"hit"``, ``"stay"`` or ``"target 2"``.

        Raises:
            IllegalActionError: when the text is not an action of this vocabulary.
        """
        if not isinstance(text, str):
            raise IllegalActionError(repr(text), [], "expected an action's string form, such as 'hit' or 'target 2'")
        words = text.strip().lower().split()
        if not words or words[0] not in _VERBS:
            raise IllegalActionError(text, [], f"unknown action (known verbs: {', '.join(_VERBS)})")
        try:
            args = tuple(int(w) for w in words[1:])
        except ValueError:
            raise IllegalActionError(text, [], "arguments must be whole numbers (seats and card positions)") from None
        arity = _ARITY[words[0]]
        if len(args) != arity:
            raise IllegalActionError(text, [], f"{words[0]!r} takes {arity} number{'s' if arity != 1 else ''}")
        return cls(words[0], args)

    def sort_key(self) -> tuple[int, tuple[int, ...]]:
        """Key for the stable order of legal actions."""
        return (_VERBS.index(self.verb), self.args)


HIT = Action("hit")
STAY = Action("stay")
_TARGETS: dict[int, Action] = {}


def _target(seat: int) -> Action:
    """``Action("target", (seat,))``, shared (actions are immutable values)."""
    action = _TARGETS.get(seat)
    if action is None:
        action = _TARGETS[seat] = Action("target", (seat,))
    return action


class Event(NamedTuple):
    """Something that happened, in the canonical event vocabulary (an immutable named tuple).

    Attributes:
        type: the event name (``dealt``, ``busted``, ``stayed``, ``frozen``,
            ``flip7``, ``second_chance_used``, ``round_scored``, ``game_won``...).
        data: ``(key, value)`` pairs; values are ints, strings, None or tuples.
    """

    type: str
    data: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key`` in the event's data, or ``default``."""
        for k, v in self.data:
            if k == key:
                return v
        return default

    def to_dict(self) -> dict[str, Any]:
        """The event as a JSON-able dict: ``{"type": ..., key: value...}``."""
        out: dict[str, Any] = {"type": self.type}
        for k, v in self.data:
            out[k] = list(v) if isinstance(v, tuple) else v
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Event:
        """Rebuild an event from `to_dict` output."""
        items = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k != "type")
        return cls(str(data["type"]), items)


class _Log(NamedTuple):
    """One link of a state's history: the move that led to the state and its events."""

    parent: _Log | None
    move: str
    events: tuple[Event, ...]
    start: State | None = None  # the state the history starts from; None: the state holding this link


# --------------------------------------------------------------------------- the state


class _Siblings:
    """What the sibling outcomes of one chance node share (see
    ``State._fast_plain_card``): the round end of a bust by the player left alone
    (``planned`` once looked for; ``plan`` None where the general path decides),
    and with ``merge_ends`` the successor of the first such bust when it ends the
    game (``end``)."""

    __slots__ = ("end", "merge_ends", "plan", "planned")

    def __init__(self, merge_ends: bool) -> None:
        self.merge_ends = merge_ends
        self.planned = False
        self.plan: _RoundEnd | None = None
        self.end: State | None = None


class _RoundEnd(NamedTuple):
    """What a round end makes of a state, whatever lies on the table (see
    ``State._round_end_plan``): events after the step's own, the next frames,
    dealer, turn (None: unchanged), round, totals, round scores and winners."""

    events: tuple[Event, ...]
    frames: tuple[Frame, ...]
    dealer: int
    turn: int | None
    round: int
    totals: tuple[int, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]


_STATE_FIELDS = (
    "game", "players", "draw", "discard", "frames", "dealer", "turn", "round", "totals", "last_scores", "flip7",
    "round_over", "winners", "shuffle_seed", "shuffles", "bonus_to", "round_shuffles", "_log",
)  # fmt: skip


@mypyc_attr(native_class=False)  # a tuple subclass: mypyc compiles its methods but not its layout
class State(tuple[Any, ...]):
    """An immutable game position.

    Attributes:
        game: the `Game` (edition, options, player count).
        players: one `Player` per seat.
        draw: the draw pile as card codes, top first.  In an *ordered* state (a
            seeded or stacked game) the order is the real order of the pile; in an
            open state it is sorted and only the counts matter.
        discard: the discard pile (card codes).
        frames: the pending-work stack, bottom first.
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
        bonus_to: Brutal Mode (V-082): the seat the Flip 7 maker chose, itself for
            +15 or another seat for -15; None otherwise.
        round_shuffles: reshuffles of the discard pile in the current round
            (F7-116, V-075: at most ``game.reshuffles`` of them; after that an empty
            deck is exhausted, F7-115).

    States compare equal when their positions are equal (the history is not
    compared).  Use `history` and `events` for what led here.
    """

    # A tuple underneath (built with tuple.__new__, read through the same C-level
    # accessors as a named tuple): creating a state is the interpreter's commonest
    # step, and this is several times faster than a frozen attrs class.
    __slots__ = ()

    # the fields (read through the accessors installed below the class)
    game: Game
    players: tuple[Player, ...]
    draw: tuple[int, ...]
    discard: tuple[int, ...]
    frames: tuple[Frame, ...]
    dealer: int
    turn: int
    round: int
    totals: tuple[int, ...]
    last_scores: tuple[int, ...]
    flip7: int | None
    round_over: bool
    winners: tuple[int, ...]
    shuffle_seed: str | None
    shuffles: int
    bonus_to: int | None
    round_shuffles: int
    _log: _Log | None

    def __new__(
        cls, game: Game, players: tuple[Player, ...], draw: tuple[int, ...], discard: tuple[int, ...],
        frames: tuple[Frame, ...], dealer: int, turn: int, round: int, totals: tuple[int, ...],
        last_scores: tuple[int, ...], flip7: int | None, round_over: bool, winners: tuple[int, ...],
        shuffle_seed: str | None, shuffles: int, bonus_to: int | None = None, round_shuffles: int = 0,
        _log: _Log | None = None,
    ) -> State:
        return tuple.__new__(cls, (
            game, players, draw, discard, frames, dealer, turn, round, totals, last_scores, flip7, round_over,
            winners, shuffle_seed, shuffles, bonus_to, round_shuffles, _log,
        ))  # fmt: skip

    def __getnewargs__(self) -> tuple[Any, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in _STATE_FIELDS[:-1])
        return f"State({fields})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"State is immutable: cannot set {name!r} (apply a move to get a new state)")

    # -- identity -------------------------------------------------------------

    def _position(self) -> tuple[Any, ...]:
        return (
            self.game, self.players, self.draw, tuple(sorted(self.discard)), self.frames, self.dealer, self.turn,
            self.round, self.totals, self.last_scores, self.flip7, self.round_over, self.winners,
            self.shuffle_seed, self.shuffles, self.bonus_to, self.round_shuffles,
        )  # fmt: skip

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self._position() == other._position()

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self._position())

    def __lt__(self, other: object) -> bool:
        return NotImplemented

    def __le__(self, other: object) -> bool:
        return NotImplemented

    def __gt__(self, other: object) -> bool:
        return NotImplemented

    def __ge__(self, other: object) -> bool:
        return NotImplemented

    # -- OpenSpiel-shaped queries ---------------------------------------------

    @property
    def current_player(self) -> int:
        """The seat to decide, `CHANCE` at a chance node, `TERMINAL` at the end."""
        if self.winners:
            return TERMINAL
        if not self.frames:
            return self.turn
        top = self.frames[-1]
        if isinstance(top, (Draw, ForcedDraw)):
            return CHANCE
        if isinstance(top, (ChooseTarget, Assign, ChooseCards)):
            return top.chooser
        if isinstance(top, (Flip7Choice, DealOffer)):
            return top.seat
        raise AssertionError(f"unsettled frame on top: {top!r}")  # pragma: no cover

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
        every eligible seat N, ascending.
        """
        if self.winners or not self.frames:
            if self.winners:
                return []
            return [HIT, STAY] if self._may_stay(self.turn) else [HIT]
        top = self.frames[-1]
        if isinstance(top, DealOffer):  # F7-025: Hit or Stay at the deal slot
            return [HIT, STAY] if self._may_stay(top.seat) else [HIT]
        if isinstance(top, ChooseTarget):
            return [_target(s) for s in top.allowed]
        if isinstance(top, Assign):
            return [_target(s) for s in _assign_allowed(self.game, self.players, top)]
        if isinstance(top, ChooseCards):
            return _card_choices(self.game, self.players, top)
        if isinstance(top, Flip7Choice):
            return [_target(s) for s in range(len(self.players))]
        return []

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
            action: an `Action` or its string form (``"hit"``, ``"target 2"``).

        Returns:
            The next state, settled up to the next decision, chance node or the end.

        Raises:
            IllegalActionError: the action is not among ``legal_actions()`` (the
                message names it and the legal ones), or the state is a chance or
                terminal node.
        """
        if (
            not self.frames
            and self.draw
            and not self.winners
            and (action is HIT or action == "hit" or (type(action) is Action and action.verb == "hit" and not action.args))
            and _FAST_LANES
        ):
            # The fast lane of a Hit at an offer (F7-030, F7-031): the general path
            # below gives the same state; tests/test_fast_lanes.py checks that.
            turn = (self.turn + 1) % len(self.players)
            return self._derive(self.players, self.draw, (_draw_frame(self.turn, "hit"),), turn, "hit", ())
        if (
            not self.frames
            and not self.winners
            and (action is STAY or action == "stay" or (type(action) is Action and action.verb == "stay" and not action.args))
            and _FAST_LANES
        ):
            fast = self._fast_stay()
            if fast is not None:
                return fast
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
        if act not in legal:
            seat = self.current_player
            if seat == TERMINAL:
                who = "the game is over"
            else:
                who = "a card must be drawn first" if seat == CHANCE else f"seat {seat} is to decide"
            raise IllegalActionError(str(act), [str(a) for a in legal], who)
        return self._apply_legal(act)

    def _apply_legal(self, act: Action) -> State:
        """`apply` of an action known to be legal (one of `legal_actions`),
        without checking it again: for strategies that try every legal action."""
        work = _Work(self)
        _apply_action(work, act)
        _settle(work)
        return work.freeze(self, str(act))

    def apply_chance(self, card: Any) -> State:
        """Reveal ``card`` as the next drawn card and return the resulting state.

        Args:
            card: a card id (or alias, or name) present in the draw pile.  In an
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
        if _FAST_LANES and self.frames and not self.winners and code in self.draw:
            fast = self._fast_plain_card(code)
            if fast is not None:
                return fast
        if self.current_player != CHANCE:
            raise IllegalActionError(f"chance {card}", self.legal_action_strings(), "this is not a chance node")
        try:
            index = self.draw.index(code)
        except ValueError:
            possible = [c for c, _ in self.chance_outcomes()]
            raise IllegalActionError(f"chance {card}", possible, "that card is not in the draw pile") from None
        work = _Work(self)
        work.draw.pop(index)
        _apply_chance(work, code)
        _settle(work)
        return work.freeze(self, f"chance {self.game.card_ids[code]}")

    def _derive(
        self, players: tuple[Player, ...], draw: tuple[int, ...], frames: tuple[Frame, ...], turn: int, move: str,
        events: tuple[Event, ...],
    ) -> State:
        """A successor that differs in players, draw pile, frames and turn only."""
        log = _new_log((self._log, move, events, _start_of(self)))
        return _new_state((
            self.game, players, draw, self.discard, frames, self.dealer, turn, self.round, self.totals,
            self.last_scores, self.flip7, self.round_over, self.winners, self.shuffle_seed, self.shuffles,
            self.bonus_to, self.round_shuffles, log,
        ))  # fmt: skip

    def _fast_plain_card(self, code: int, shared: _Siblings | None = None) -> State | None:
        """The fast lane of a card drawn for a Hit or in the deal (F7-020, F7-035,
        F7-040, F7-041), or None when the general path is needed: a card with a
        trait, an action card, a modifier given away, a Second Chance that saves,
        a Flip 7, a bust that ends the round or happens in the deal, a reshuffle.
        Gives the same state as the general path (tests/test_fast_lanes.py).

        ``shared`` (from `chance_successors`): siblings drawn at the same
        chance node share the round end of a bust by the last active player
        (the same scores, totals and next round whichever number busts, as a
        busted player scores 0, F7-101); with ``shared.merge_ends``, the whole
        successor when that round end is the end of the game."""
        frames = self.frames
        top = frames[-1]
        if type(top) is not Draw:
            return None
        dealing = top.reason == "deal"
        if dealing and (len(frames) != 2 or type(frames[0]) is not Deal):
            return None
        if not dealing and len(frames) != 1:
            return None
        g = self.game
        cat = g.category[code]
        if g.traits[code] or not (cat == NUMBER or (cat == MODIFIER and g.modifiers_to == "receiver")):
            return None
        seat = top.seat
        p = self.players[seat]
        busted = False
        if cat == NUMBER:
            rank = g.rank[code]
            category, ranks, traits = g.category, g.rank, g.traits
            numbers = 0
            for c in p.line:
                if category[c] == NUMBER:
                    if ranks[c] == rank:
                        if p.kept or traits[c] or dealing:
                            return None
                        busted = True
                    numbers += 1
            if busted and g.busted_cards == "discard":
                return None  # D-V-27 (b): the line is discarded (general path)
            if busted and shared is not None and shared.end is not None:
                return shared.end  # the game-ending bust of a sibling (merge_ends)
        line = (*p.line, code)
        made = not busted and cat == NUMBER and numbers + 1 >= g.flip7_distinct and flip7_count(g, line) >= g.flip7_distinct
        index = self.draw.index(code)
        draw = self.draw[1:] if index == 0 else self.draw[:index] + self.draw[index + 1 :]
        changed = list(self.players)
        changed[seat] = _new_player((line, p.kept, Status.BUSTED if busted else Status.ACTIVE))
        card = g.card_ids[code]
        dealt = _dealt_event(seat, card, top.reason)
        if made:  # F7-050: the round ends (general settling from here)
            return self._finish(changed, draw, frames[:-1], self.turn, seat, "chance " + card,
                                [dealt, _new_event(("flip7", (("seat", seat),)))])  # fmt: skip
        events = (dealt, _new_event(("busted", (("seat", seat), ("card", card))))) if busted else (dealt,)
        n = len(changed)
        turn = self.turn
        next_frames: tuple[Frame, ...] = ()
        if dealing:
            deal = frames[0]
            assert type(deal) is Deal
            position, dealt_to, offer = _next_deal(g, changed, self.dealer, deal.position)
            if dealt_to is not None:
                if not draw or offer:
                    return None  # a reshuffle first, or a Hit-or-Stay offer at the slot (general path)
                next_frames = (_deal_frame(position), _draw_frame(dealt_to, "deal"))
        if not next_frames:
            for _ in range(n):
                if changed[turn].status is Status.ACTIVE:
                    break
                turn = (turn + 1) % n
            else:  # nobody left to act: the round ends (general settling from here)
                if shared is not None and busted and g.busted_score != "modifiers" and draw:
                    if not shared.planned:
                        shared.plan = self._round_end_plan(changed, None, True)
                        shared.planned = True
                    plan = shared.plan
                    if plan is not None:
                        end = self._round_end_state(plan, changed, draw, self.turn, "chance " + card, events)
                        if shared.merge_ends and plan.winners:
                            shared.end = end
                        return end
                return self._finish(changed, draw, (), self.turn, None, "chance " + card, list(events))
        return self._derive(tuple(changed), draw, next_frames, turn, "chance " + card, events)

    def _finish(
        self, players: list[Player], draw: tuple[int, ...], frames: tuple[Frame, ...], turn: int,
        flip7: int | None, move: str, events: list[Event],
    ) -> State:
        """Hand a step a fast lane began over to the general settling (a round end...)."""
        if not frames:
            fast = self._fast_round_end(players, draw, turn, flip7, move, events)
            if fast is not None:
                return fast
        work = _Work(self)
        work.players = players
        work.draw = list(draw)
        work.frames = list(frames)
        work.turn = turn
        if flip7 is not None:
            work.flip7 = flip7
        work.events = events
        _settle(work)
        return work.freeze(self, move)

    def _fast_round_end(
        self, players: list[Player], draw: tuple[int, ...], turn: int, flip7: int | None, move: str, events: list[Event]
    ) -> State | None:
        """The fast lane of a round end with no pending work (F7-050, F7-100..F7-102,
        F7-083, F7-111, F7-112, F7-120, F7-121), or None for the general path: a
        Brutal Mode choice (V-082), a tie that needs another round, a fresh
        shuffle between rounds, a reshuffle before the first card of the deal.
        Gives the same state as the general path (tests/test_fast_lanes.py)."""
        plan = self._round_end_plan(players, flip7, bool(draw))
        if plan is None:
            return None
        return self._round_end_state(plan, players, draw, turn, move, events)

    def _round_end_plan(self, players: Sequence[Player], flip7: int | None, cards_left: bool) -> _RoundEnd | None:
        """What a round end with no pending work makes of this state's totals, round
        and dealer (see `_fast_round_end`); ``cards_left``: whether the draw
        pile holds a card for the next deal."""
        g = self.game
        if flip7 is not None and g.flip7_choice:
            return None
        scores = _round_scores(g, players, flip7, None)
        totals = tuple(map(operator.add, self.totals, scores))
        number = self.round
        scored = _new_event(("round_scored", (("round", number), ("scores", scores), ("totals", totals), ("flip7", flip7))))
        n = len(players)
        leaders, over = _game_end(g, totals)
        if leaders:
            if not over:
                return None  # another round for the tied leaders (general path)
            won = _new_event(("game_won", (("winners", leaders), ("totals", totals), ("rounds", number))))
            return _new_round_end(((scored, won), (), self.dealer, None, number, totals, scores, leaders))
        if g.between_rounds == "fresh-shuffle":
            return None
        if not cards_left:
            return None  # the next round starts with a reshuffle (general path)
        dealer = (self.dealer + 1) % n  # F7-112: the player on the dealer's left deals next
        started = _new_event(("round_started", (("round", number + 1), ("dealer", dealer))))
        frames: tuple[Frame, ...] = ()
        if g.initial_deal:
            position, dealt_to, _ = _next_deal(g, (_NO_CARDS,) * n, dealer, 0)
            assert dealt_to is not None
            frames = (_deal_frame(position), _draw_frame(dealt_to, "deal"))
        turn = _first_seat(g, dealer, n)  # F7-030
        return _new_round_end(((scored, started), frames, dealer, turn, number + 1, totals, scores, ()))

    def _round_end_state(
        self, plan: _RoundEnd, players: Sequence[Player], draw: tuple[int, ...], turn: int, move: str,
        events: Sequence[Event],
    ) -> State:
        """The state a planned round end leads to (the table cleared, F7-083, F7-111)."""
        discard = list(self.discard)
        for p in players:  # F7-083: Second Chances never carry over
            discard += p.line
            discard += p.kept
        log = _new_log((self._log, move, (*events, *plan.events), _start_of(self)))
        return _new_state((
            self.game, (_NO_CARDS,) * len(players), draw, tuple(discard), plan.frames, plan.dealer,
            turn if plan.turn is None else plan.turn, plan.round, plan.totals, plan.scores, None, False,
            plan.winners, self.shuffle_seed, self.shuffles, None, 0 if plan.turn is not None else self.round_shuffles,
            log,
        ))  # fmt: skip

    def chance_successors(self) -> list[tuple[str, int, State]]:
        """Every chance outcome with the state it leads to, for exhaustive search.

        Returns:
            ``(card id, copies in the draw pile, successor)`` triples in table
            order: the pairs of `chance_weights`, each with
            ``self.apply_chance(card)`` (the probability of a triple is copies /
            draw-pile size).  Empty when this is not a chance node.

        The successors of a card drawn for a Hit are built together, sharing the
        work they have in common (the round end of every bust of a player left
        alone, F7-040, F7-100); the result is the same as applying each card.
        """
        return self._chance_successors(merge_ends=False)

    def _chance_successors(self, *, merge_ends: bool) -> list[tuple[str, int, State]]:
        """`chance_successors`; with ``merge_ends``, for exhaustive search
        of a round that ends the game (the solver): every card that busts the
        player left alone and so ends the game gives the successor of the first
        such card, not its own (the positions differ only in which number lies
        on the discard pile: the same scores, totals and winners, no future,
        F7-101, F7-120)."""
        weights = self.chance_weights()
        if not weights:
            return []
        if not _FAST_LANES:
            return [(card, count, self.apply_chance(card)) for card, count in weights]
        codes = self.game.codes
        shared = _Siblings(merge_ends)
        out = []
        for card, count in weights:
            child = self._fast_plain_card(codes[card], shared)
            out.append((card, count, self.apply_chance(card) if child is None else child))
        return out

    def _fast_stay(self) -> State | None:
        """The fast lane of a Stay that leaves someone to act (F7-034), or None."""
        seat = self.turn
        p = self.players[seat]
        if not _may_stay(self.game, p):
            return None
        changed = list(self.players)
        changed[seat] = _new_player((p.line, p.kept, Status.STAYED))
        n = len(changed)
        turn = (seat + 1) % n
        for _ in range(n):
            if changed[turn].status is Status.ACTIVE:
                break
            turn = (turn + 1) % n
        else:  # the last player stays: the round ends (general settling from here)
            return self._finish(changed, self.draw, (), turn, None, "stay", [_new_event(("stayed", (("seat", seat),)))])
        return self._derive(tuple(changed), self.draw, (), turn, "stay", (_new_event(("stayed", (("seat", seat),))),))

    def apply_move(self, move: Any) -> State:
        """Apply a history entry: ``"chance CARD"`` or an action's string form."""
        if not isinstance(move, str):
            raise IllegalActionError(repr(move), self.legal_action_strings(), "expected a history entry (a string)")
        if move.startswith("chance "):
            return self.apply_chance(move[len("chance ") :])
        return self.apply(move)

    # -- history --------------------------------------------------------------

    def _logs(self) -> list[_Log]:
        out = []
        node = self._log
        while node is not None:
            out.append(node)
            node = node.parent
        out.reverse()
        return out

    def history(self) -> list[str]:
        """Every move since the initial state: action strings and ``"chance CARD"``."""
        return [log.move for log in self._logs() if log.move]

    def events(self) -> list[Event]:
        """Every event emitted since the game started, in order."""
        return [e for log in self._logs() for e in log.events]

    def initial_state(self) -> State:
        """The state this game's history starts from (itself for an initial state)."""
        return _start_of(self)

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
        top = self.frames[-1]
        ids = self.game.card_ids
        if isinstance(top, DealOffer):
            return ("offer", None)
        if isinstance(top, ChooseTarget):
            return (top.purpose, ids[top.card])
        if isinstance(top, Assign):
            return ("assign", ids[top.cards[len(top.targets)]])
        if isinstance(top, ChooseCards):
            return ("cards", ids[top.card])
        if isinstance(top, Flip7Choice):
            return ("flip7_bonus", None)
        return ("chance", None)

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
        """Card ids of ``seat``'s line (numbers and modifiers), in order received."""
        return [self.game.card_ids[c] for c in self.players[self._seat(seat)].line]

    def kept(self, seat: Any) -> list[str]:
        """Card ids of the action cards lying in front of ``seat``."""
        return [self.game.card_ids[c] for c in self.players[self._seat(seat)].kept]

    def line_value(self, seat: Any) -> int:
        """What ``seat``'s line would score if the round ended now (points)."""
        p = self.players[self._seat(seat)]
        return 0 if p.status is Status.BUSTED else score_points(self.game, p.line)

    def round_scores(self) -> tuple[int, ...]:
        """The round scores (points) of the last finished round, one per seat."""
        return self.last_scores

    def returns(self) -> tuple[int, ...]:
        """The running totals (points), one per seat (OpenSpiel's ``returns``)."""
        return self.totals

    def winner(self) -> int | None:
        """The single winner's seat, or None (game not over, or a shared win)."""
        return self.winners[0] if len(self.winners) == 1 else None

    def _may_stay(self, seat: int) -> bool:
        return _may_stay(self.game, self.players[seat])

    def cards_in_play(self) -> Counter[int]:
        """Every card code the state holds, in every zone (for conservation checks)."""
        count: Counter[int] = Counter(self.draw)
        count.update(self.discard)
        for p in self.players:
            count.update(p.line)
            count.update(p.kept)
        for f in self.frames:
            count.update(_frame_cards(f))
        return count

    # -- serialization ----------------------------------------------------------

    def to_dict(self, *, log: Any = True) -> dict[str, Any]:
        """The state as plain JSON-able data (card ids, not codes).

        Args:
            log: include the history and the events (needed to resume
                `history` and `events` after `from_dict`).
        """
        ids = self.game.card_ids
        data: dict[str, Any] = {
            "format": STATE_FORMAT,
            "edition": self.game.edition.id,
            "players": self.num_players,
            "options": dict(self.game.options),
            "dealer": self.dealer,
            "turn": self.turn,
            "round": self.round,
            "totals": list(self.totals),
            "last_scores": list(self.last_scores),
            "flip7": self.flip7,
            "round_over": self.round_over,
            "winners": list(self.winners),
            "shuffle_seed": self.shuffle_seed,
            "shuffles": self.shuffles,
            "bonus_to": self.bonus_to,
            "round_shuffles": self.round_shuffles,
            "draw": [ids[c] for c in self.draw],
            "discard": [ids[c] for c in self.discard],
            "seats": [
                {"line": [ids[c] for c in p.line], "kept": [ids[c] for c in p.kept], "status": p.status.value}
                for p in self.players
            ],
            "frames": [_frame_to_dict(f, ids) for f in self.frames],
        }
        if log:
            data["log"] = [{"move": lg.move, "events": [e.to_dict() for e in lg.events]} for lg in self._logs()]
            start = self.initial_state()
            if start is not self:
                data["start"] = start.to_dict(log=False)
        return data

    @classmethod
    def from_dict(cls, data: Any, game: Any = None) -> State:
        """Rebuild a state from `to_dict` output.

        Args:
            data: the serialized state.
            game: the game to attach; by default one is built from the data's
                edition id (a shipped edition: a table file is used only through
                this argument), player count and options.

        Raises:
            SerializationError: a missing or malformed field (named in the message);
                data nested deeper than `flip7ref.position.MAX_DEPTH`; an
                ``edition`` that is not a shipped id (or not ``game``'s edition).
            PositionError: (a SerializationError) a position no game can reach, with
                the message `Game.new_position` gives for the same cards (see
                `flip7ref.position`).
        """
        check_depth(data)
        return _state_from_dict(data, game)


try:  # the C-level item accessor behind collections.namedtuple (CPython 3.8+)
    from collections import _tuplegetter  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other interpreters
    from operator import itemgetter

    def _tuplegetter(index: int, doc: str) -> Any:
        return property(itemgetter(index), doc=doc)


for _index, _name in enumerate(_STATE_FIELDS):
    type.__setattr__(State, _name, _tuplegetter(_index, f"See `State` ({_name})."))

_new_state = cast(Callable[[tuple[Any, ...]], State], functools.partial(tuple.__new__, State))
# The same shortcut for the named tuples the fast lanes build at every step (their
# generated __new__ is Python code; these build the same tuples at C speed).
_new_player = cast(Callable[[tuple[Any, ...]], Player], functools.partial(tuple.__new__, Player))
_new_event = cast(Callable[[tuple[Any, ...]], Event], functools.partial(tuple.__new__, Event))
_new_log = cast(Callable[[tuple[Any, ...]], _Log], functools.partial(tuple.__new__, _Log))
_new_round_end = cast(Callable[[tuple[Any, ...]], _RoundEnd], functools.partial(tuple.__new__, _RoundEnd))

_DRAWS: dict[tuple[int, str], Draw] = {}
_DEALT: dict[tuple[int, str, str], Event] = {}


def _draw_frame(seat: int, reason: str) -> Draw:
    """``Draw(seat, reason)``, shared (frames are immutable values; the lanes build
    one at every Hit and deal)."""
    frame = _DRAWS.get((seat, reason))
    if frame is None:
        frame = _DRAWS[seat, reason] = Draw(seat, reason)
    return frame


_DEALS: dict[int, Deal] = {}


def _deal_frame(position: int) -> Deal:
    """``Deal(position)``, shared like `_draw_frame`."""
    frame = _DEALS.get(position)
    if frame is None:
        frame = _DEALS[position] = Deal(position)
    return frame


def _dealt_event(seat: int, card: str, via: str) -> Event:
    """The ``dealt`` event of ``card`` to ``seat`` (shared: events are immutable)."""
    event = _DEALT.get((seat, card, via))
    if event is None:
        event = _DEALT[seat, card, via] = Event("dealt", (("seat", seat), ("card", card), ("via", via)))
    return event


def _start_of(state: State) -> State:
    """The state ``state``'s history starts from."""
    log = state._log
    if log is None or log.start is None:
        return state
    return log.start


# --------------------------------------------------------------------------- helpers on values


def _frame_cards(f: Frame) -> tuple[int, ...]:
    if isinstance(f, ForcedDraw):
        return (f.card, *f.set_aside)
    if isinstance(f, ChooseTarget):
        return (f.card,)
    if isinstance(f, Assign):
        return f.cards
    if isinstance(f, Resolve):
        return tuple(item[0] for item in f.items)
    if isinstance(f, InOrder):
        return f.cards
    if isinstance(f, ChooseCards):
        return (f.card,)
    return ()


def _may_stay(game: Game, p: Player) -> bool:
    """F7-033 and option ``stay_requires``; a ``no_stay`` trait card forbids it."""
    if game.no_stay and any(c in game.no_stay for c in p.line):
        return False
    need = game.stay_requires
    if need == "nothing":
        return True
    if need == "number-card":
        return any(game.category[c] == NUMBER for c in p.line)
    return bool(p.line or p.kept)


_TARGET_STATUSES: dict[str, frozenset[Status]] = {
    "active": frozenset({Status.ACTIVE}),  # F7-061, F7-072
    "non_busted": frozenset({Status.ACTIVE, Status.STAYED, Status.FROZEN}),  # V-042
    "active_or_busted": frozenset({Status.ACTIVE, Status.BUSTED}),  # Brutal Mode with protected stays
    "any": frozenset(Status),  # Brutal Mode (V-081)
}


def _eligible(game: Game, players: Sequence[Player], targets: str) -> tuple[int, ...]:
    """Seats a card may go to, by the table's ``targets`` value (one of ``_TARGET_STATUSES``;
    the edition schema admits no other)."""
    allowed = _TARGET_STATUSES[targets]
    return tuple(i for i, p in enumerate(players) if p.status in allowed)


def _targets(game: Game, players: Sequence[Player], code: int, chooser: int, targets: str) -> tuple[int, ...]:
    """Seats ``chooser`` may play card ``code`` on (F7-061, F7-072, V-042, option ``self_target``)."""
    eligible = _eligible(game, players, targets)
    allowed = tuple(s for s in eligible if _executable(game, players, code, s))
    if allowed and game.unusable_actions == "fizzle":  # D-V-28 (b): anyone eligible, while someone can use it
        allowed = eligible
    eff = game.effect[code]
    if eff is not None and eff.self_target == "only-when-alone" and len(allowed) > 1 and chooser in allowed:
        allowed = tuple(s for s in allowed if s != chooser)
    return allowed


def _faceup(game: Game, players: Sequence[Player]) -> list[int]:
    """Seats whose line shows cards that actions can move: not busted (V-021), and not
    stayed or frozen where staying protects the line (D-V-02 (b))."""
    if game.stay_protects:
        return [i for i, p in enumerate(players) if p.status is Status.ACTIVE and p.line]
    return [i for i, p in enumerate(players) if p.status is not Status.BUSTED and p.line]


def _executable(game: Game, players: Sequence[Player], code: int, resolver: int) -> bool:
    """Whether ``resolver`` could carry out action ``code`` now (V-041, V-048)."""
    eff = game.effect[code]
    if eff is None:
        return True
    shown = _faceup(game, players)
    if eff.primitive == "swap":
        if eff.scope == "own-and-other":
            return resolver in shown and len(shown) >= 2
        return len(shown) >= 2
    if eff.primitive == "steal":
        return any(s != resolver for s in shown)
    if eff.primitive == "discard_card":
        return resolver in shown
    return True


def _card_choices(game: Game, players: Sequence[Player], frame: ChooseCards) -> list[Action]:
    """The legal Swap / Steal / Discard picks (V-045..V-047), in a stable order."""
    eff = game.effect[frame.card]
    assert eff is not None
    shown = _faceup(game, players)
    me = frame.resolver
    if eff.primitive == "steal":
        return [Action("steal", (s, i)) for s in shown if s != me for i in range(len(players[s].line))]
    if eff.primitive == "discard_card":
        return [Action("discard", (me, i)) for i in range(len(players[me].line))]
    out: list[Action] = []
    for a in shown:
        for b in shown:
            if b <= a or (eff.scope == "own-and-other" and me not in (a, b)):
                continue
            out.extend(Action("swap", (a, i, b, j)) for i in range(len(players[a].line)) for j in range(len(players[b].line)))
    out.sort(key=_args_of)  # all are swaps: the order of Action (verb, then args) is the order of args
    return out


def _args_of(action: Action) -> tuple[int, ...]:
    return action.args


def _assign_allowed(game: Game, players: Sequence[Player], frame: Assign) -> tuple[int, ...]:
    card = frame.cards[len(frame.targets)]
    eff = game.effect[card]
    return _targets(game, players, card, frame.chooser, eff.targets if eff is not None else "active")


# --------------------------------------------------------------------------- the scratch copy


class _Work:
    """A mutable copy of a state used while one transition runs."""

    __slots__ = (
        "bonus_to",
        "dealer",
        "discard",
        "draw",
        "events",
        "flip7",
        "frames",
        "game",
        "last_scores",
        "players",
        "round",
        "round_over",
        "round_shuffles",
        "shuffle_seed",
        "shuffles",
        "totals",
        "turn",
        "winners",
    )  # fmt: skip

    def __init__(self, s: State) -> None:
        self.game = s.game
        self.players = list(s.players)
        self.draw = list(s.draw)
        self.discard = list(s.discard)
        self.frames: list[Frame] = list(s.frames)
        self.dealer = s.dealer
        self.turn = s.turn
        self.round = s.round
        self.totals = list(s.totals)
        self.last_scores = s.last_scores
        self.flip7 = s.flip7
        self.round_over = s.round_over
        self.winners = s.winners
        self.shuffle_seed = s.shuffle_seed
        self.shuffles = s.shuffles
        self.bonus_to = s.bonus_to
        self.round_shuffles = s.round_shuffles
        self.events: list[Event] = []

    def freeze(self, parent: State | None, move: str) -> State:
        if parent is None:
            log = _new_log((None, move, tuple(self.events), None))
        else:
            log = _new_log((parent._log, move, tuple(self.events), _start_of(parent)))
        return _new_state((
            self.game, tuple(self.players), tuple(self.draw), tuple(self.discard), tuple(self.frames),
            self.dealer, self.turn, self.round, tuple(self.totals), self.last_scores, self.flip7,
            self.round_over, self.winners, self.shuffle_seed, self.shuffles, self.bonus_to, self.round_shuffles, log,
        ))  # fmt: skip

    def emit(self, type_: str, **data: Any) -> None:
        self.events.append(_new_event((type_, tuple(data.items()))))

    def cid(self, code: int) -> str:
        return self.game.card_ids[code]

    def set_player(self, seat: int, **changes: Any) -> None:
        p = self.players[seat]
        line, kept, status = changes.get("line", p.line), changes.get("kept", p.kept), changes.get("status", p.status)
        self.players[seat] = _new_player((line, kept, status))

    def active_seats(self) -> list[int]:
        return [i for i, p in enumerate(self.players) if p.status is Status.ACTIVE]

    def to_discard(self, *codes: int) -> None:
        self.discard.extend(codes)

    def next_seat(self, seat: int) -> int:
        return (seat + 1) % len(self.players)


# --------------------------------------------------------------------------- decisions


def _apply_action(w: _Work, act: Action) -> None:
    if not w.frames:
        seat = w.turn
        w.turn = w.next_seat(seat)
        if act.verb == "hit":
            w.frames.append(Draw(seat, "hit"))  # F7-030, F7-031: one card per offer
        else:
            w.set_player(seat, status=Status.STAYED)  # F7-034
            w.emit("stayed", seat=seat)
        return
    top = w.frames.pop()
    if isinstance(top, DealOffer):  # F7-025: asked at the deal slot; the deal goes on afterwards
        if act.verb == "hit":
            w.frames.append(Draw(top.seat, "hit"))
        else:
            w.set_player(top.seat, status=Status.STAYED)  # F7-034
            w.emit("stayed", seat=top.seat)
        return
    target = act.args[0]
    if isinstance(top, ChooseTarget):
        w.emit("target_chosen", seat=top.chooser, card=w.cid(top.card), target=target)
        if top.purpose == "play":
            _play(w, top.card, top.chooser, target)
        elif top.purpose == "keep_or_give" and target == top.chooser:
            _keep_shield(w, top.card, target)
        else:
            _give_shield(w, top.card, top.chooser, target)
    elif isinstance(top, Assign):
        w.emit("assigned", seat=top.chooser, card=w.cid(top.cards[len(top.targets)]), target=target)
        w.frames.append(attrs.evolve(top, targets=(*top.targets, target)))
    elif isinstance(top, ChooseCards):
        _move_cards(w, top, act)
    elif isinstance(top, Flip7Choice):  # V-082
        w.bonus_to = target
        points = w.game.flip7_bonus * (1 if target == top.seat else -1)
        w.emit("flip7_bonus_chosen", seat=top.seat, target=target, points=points)
    else:  # pragma: no cover - legal_actions guards this
        raise AssertionError(top)


def _take(w: _Work, seat: int, index: int) -> int:
    """Remove and return card ``index`` of ``seat``'s line."""
    line = list(w.players[seat].line)
    code = line.pop(index)
    w.set_player(seat, line=tuple(line))
    return code


def _enter(w: _Work, code: int, seat: int) -> None:
    """A card moved from another line enters ``seat``'s line: the receiving rules apply
    (a duplicate busts, Unlucky 7 wipes, Lucky 13 allows a pair, Flip 7 counts, V-037)."""
    if w.game.category[code] == NUMBER:
        _receive_number(w, code, seat)
    else:
        p = w.players[seat]
        w.set_player(seat, line=(*p.line, code))


def _move_cards(w: _Work, frame: ChooseCards, act: Action) -> None:
    """Carry out a Swap (V-045), Steal (V-046) or Discard (V-047), then discard the action card (V-040)."""
    ids = w.game.card_ids
    if act.verb == "steal":
        seat, index = act.args
        code = _take(w, seat, index)
        w.emit("stolen", seat=frame.resolver, card=ids[code], target=seat)
        _enter(w, code, frame.resolver)
    elif act.verb == "discard":
        seat, index = act.args
        code = _take(w, seat, index)
        w.to_discard(code)
        w.emit("card_discarded", seat=seat, card=ids[code], by=frame.chooser)
    else:
        a, i, b, j = act.args
        ca, cb = w.players[a].line[i], w.players[b].line[j]
        _take(w, a, i)
        _take(w, b, j)
        w.emit("swapped", seat=frame.resolver, first=a, first_card=ids[ca], second=b, second_card=ids[cb])
        _enter(w, cb, a)
        _enter(w, ca, b)
    w.to_discard(frame.card)


# --------------------------------------------------------------------------- receiving cards


def _apply_chance(w: _Work, code: int) -> None:
    top = w.frames.pop()
    if isinstance(top, Draw):
        w.emit("dealt", seat=top.seat, card=w.cid(code), via=top.reason)
        _receive(w, code, top.seat)
    elif isinstance(top, ForcedDraw):
        w.emit("dealt", seat=top.target, card=w.cid(code), via=w.cid(top.card))
        eff = w.game.effect[top.card]
        assert eff is not None
        aside = code in eff.set_aside  # F7-073: Freeze / Flip Three wait until the three are done
        set_aside = (*top.set_aside, code) if aside else top.set_aside
        # built directly, not with attrs.evolve: a forced draw is a common step
        w.frames.append(ForcedDraw(top.target, top.giver, top.card, top.remaining - 1, set_aside))
        if aside:
            w.emit("set_aside", seat=top.target, card=w.cid(code))
        else:
            _receive(w, code, top.target)
    else:  # pragma: no cover
        raise AssertionError(top)


def _receive(w: _Work, code: int, seat: int) -> None:
    """A card arrives for ``seat`` (F7-035): numbers join the line or bust,
    modifiers join the line, action cards are resolved at once."""
    cat = w.game.category[code]
    if cat == NUMBER:
        _receive_number(w, code, seat)
    elif cat == MODIFIER:
        if w.game.modifiers_to == "receiver":
            p = w.players[seat]
            w.set_player(seat, line=(*p.line, code))
        else:
            _offer_target(w, code, seat, w.game.modifier_targets)  # V-050, V-081
    else:
        eff = w.game.effect[code]
        assert eff is not None
        if eff.primitive == "bust_shield":
            _receive_shield(w, code, seat, eff)
        else:
            _offer_target(w, code, seat, eff.targets)


def _receive_number(w: _Work, code: int, seat: int) -> None:
    """A number card arrives (F7-035, F7-040, F7-050; V-020, V-033, V-036)."""
    g = w.game
    p = w.players[seat]
    rank = g.rank[code]
    if "wipe_on_enter" in g.traits[code]:  # V-033: Unlucky 7 clears the line and never busts
        wiped = tuple(c for c in p.line if g.category[c] in (NUMBER, MODIFIER))
        w.to_discard(*wiped)
        w.set_player(seat, line=(code,))
        if wiped:
            w.emit("line_wiped", seat=seat, cards=tuple(g.card_ids[c] for c in wiped))
        return
    same = [c for c in p.line if g.category[c] == NUMBER and g.rank[c] == rank]
    pair_ok = len(same) == 1 and ("pair_allowed" in g.traits[code] or "pair_allowed" in g.traits[same[0]])
    duplicate = bool(same) and not pair_ok
    if duplicate:
        shield = next((c for c in p.kept if _is_shield(g, c)), None)
        if shield is not None:  # F7-080: discard both, no bust; F7-081: the turn is over
            kept = list(p.kept)
            kept.remove(shield)
            w.set_player(seat, kept=tuple(kept))
            w.to_discard(code, shield)
            w.emit("second_chance_used", seat=seat, card=g.card_ids[code], shield=g.card_ids[shield])
            return
        w.set_player(seat, line=(*p.line, code), status=Status.BUSTED)  # F7-040, F7-041
        w.emit("busted", seat=seat, card=g.card_ids[code])
        if g.busted_cards == "discard":  # D-V-27 (b): the busted line goes to the discard pile at once
            for c in (*p.line, code):
                w.emit("discarded", card=g.card_ids[c], seat=seat, reason="busted")
            w.to_discard(*p.line, code)
            w.set_player(seat, line=())
        return
    line = (*p.line, code)
    w.set_player(seat, line=line)
    if flip7_count(g, line) >= g.flip7_distinct and w.flip7 is None and not _zero_locked(g, p.status, line):  # F7-050, V-022
        w.flip7 = seat
        w.emit("flip7", seat=seat)


def _zero_locked(g: Game, status: Status, line: tuple[int, ...]) -> bool:
    """D-V-26 (option reading ``no-flip7``, V-031, V-043): a stayed player holding The
    Zero can no longer make a Flip 7 (once Just One More has made them stop short of
    seven numbers, the Dutch text says a Flip 7 is out of reach and they keep 0)."""
    return (
        g.zero_after_stay == "no-flip7"
        and status is Status.STAYED
        and bool(g.no_stay)
        and any(c in g.no_stay for c in line)
    )


def _is_shield(g: Game, code: int) -> bool:
    eff = g.effect[code]
    return eff is not None and eff.primitive == "bust_shield"


def _held_shields(g: Game, p: Player) -> int:
    return sum(1 for c in p.kept if _is_shield(g, c))


def _receive_shield(w: _Work, code: int, seat: int, eff: Effect) -> None:
    """F7-082: keep a first Second Chance; a spare goes to an active player
    without one (the receiver chooses), else it is discarded."""
    p = w.players[seat]
    if _held_shields(w.game, p) < eff.hold_limit and p.status is not Status.BUSTED:
        if eff.first_copy == "may-give":  # D-F7-09 (b)
            others = [s for s in _shield_receivers(w, eff) if s != seat]
            if others:
                w.frames.append(ChooseTarget(code, seat, tuple(sorted([seat, *others])), "keep_or_give"))
                return
        _keep_shield(w, code, seat)
        return
    receivers = tuple(s for s in _shield_receivers(w, eff) if s != seat)
    if not receivers:
        w.to_discard(code)
        w.emit("discarded", card=w.cid(code), seat=seat, reason="no eligible player")
        return
    w.frames.append(ChooseTarget(code, seat, receivers, "give"))


def _shield_receivers(w: _Work, eff: Effect) -> list[int]:
    return [s for s in _eligible(w.game, w.players, eff.targets) if _held_shields(w.game, w.players[s]) < eff.hold_limit]


def _keep_shield(w: _Work, code: int, seat: int) -> None:
    p = w.players[seat]
    w.set_player(seat, kept=(*p.kept, code))
    w.emit("second_chance_kept", seat=seat, card=w.cid(code))


def _give_shield(w: _Work, code: int, giver: int, target: int) -> None:
    p = w.players[target]
    w.set_player(target, kept=(*p.kept, code))
    w.emit("second_chance_given", seat=giver, target=target, card=w.cid(code))


def _offer_target(w: _Work, code: int, chooser: int, targets: str) -> None:
    """An action (or a modifier given away) needs a target: a decision for ``chooser``."""
    allowed = _targets(w.game, w.players, code, chooser, targets)
    if not allowed:
        w.to_discard(code)
        w.emit("discarded", card=w.cid(code), seat=chooser, reason="no valid target")
        return
    w.frames.append(ChooseTarget(code, chooser, allowed, "play"))


def _play(w: _Work, code: int, chooser: int, target: int) -> None:
    """Apply an action card's primitive to the chosen target."""
    g = w.game
    if g.category[code] == MODIFIER:
        p = w.players[target]
        w.set_player(target, line=(*p.line, code))
        return
    eff = g.effect[code]
    assert eff is not None
    if eff.primitive == "freeze":  # F7-060, F7-062
        p = w.players[target]
        kept = (*p.kept, code) if eff.keep_card else p.kept
        w.set_player(target, status=Status.FROZEN, kept=kept)
        if not eff.keep_card:
            w.to_discard(code)
        w.emit("frozen", seat=target, by=chooser)
    elif eff.primitive == "forced_draw":  # F7-070, V-043, V-044
        w.frames.append(ForcedDraw(target, chooser, code, eff.count))
        w.emit("forced_draw_started", seat=target, card=w.cid(code), by=chooser, count=eff.count)
    elif eff.primitive in ("swap", "steal", "discard_card"):  # V-045..V-047
        picker = chooser if eff.primitive == "discard_card" and eff.chooser == "giver" else target
        w.frames.append(ChooseCards(code, picker, target))
    else:  # pragma: no cover - the schema limits primitives; later editions add more
        raise NotImplementedError(f"primitive {eff.primitive!r} is not implemented")


def _finish_forced(w: _Work, frame: ForcedDraw, outcome: str) -> None:
    """End a forced draw: discard its card (F7-078); set-aside cards are assigned
    unless the target busted (F7-073, option ``flip_three_bust``)."""
    g = w.game
    eff = g.effect[frame.card]
    assert eff is not None
    w.to_discard(frame.card)
    w.emit("forced_draw_ended", seat=frame.target, card=w.cid(frame.card), outcome=outcome)
    if eff.then_stay and w.players[frame.target].status is Status.ACTIVE:  # V-043: then stay, even with The Zero
        w.set_player(frame.target, status=Status.STAYED)
        w.emit("stayed", seat=frame.target, reason=w.cid(frame.card))
    if not frame.set_aside:
        return
    if outcome == "bust" and eff.on_bust == "discard":
        for c in frame.set_aside:
            w.to_discard(c)
            w.emit("discarded", card=w.cid(c), seat=frame.target, reason="target busted")
        return
    chooser = frame.target if eff.assigner == "target" else frame.giver
    if eff.resolution == "in-order":  # V-044: one by one, in reveal order
        if w.frames and isinstance(w.frames[-1], InOrder) and not w.frames[-1].cards:
            w.frames[-1] = InOrder(chooser, frame.set_aside)  # an emptied queue is replaced, not stacked on
        else:
            w.frames.append(InOrder(chooser, frame.set_aside))
    else:
        w.frames.append(Assign(chooser, frame.target, frame.set_aside))


# --------------------------------------------------------------------------- settling


def _settle(w: _Work) -> None:
    """Run every automatic step until a decision, a chance node or the end."""
    g = w.game
    while not w.winners:
        if w.flip7 is not None and g.flip7_choice and w.bonus_to is None:  # V-082
            if not (w.frames and isinstance(w.frames[-1], Flip7Choice)):
                w.frames.append(Flip7Choice(w.flip7))
            return
        if w.flip7 is not None or w.round_over or (not w.frames and not _anyone_active(w.players)):
            _end_round(w)  # F7-050, F7-110
            continue
        if not w.frames:
            seat = w.turn
            while w.players[seat].status is not Status.ACTIVE:
                seat = w.next_seat(seat)
            w.turn = seat
            return
        top = w.frames[-1]
        if isinstance(top, Deal):
            position, dealt_to, offer = _next_deal(g, w.players, w.dealer, top.position)
            if dealt_to is None:
                w.frames.pop()
                continue
            w.frames[-1] = Deal(position)
            w.frames.append(DealOffer(dealt_to) if offer else Draw(dealt_to, "deal"))  # F7-025
            continue
        if isinstance(top, ForcedDraw):
            if w.players[top.target].status is Status.BUSTED:  # F7-071
                w.frames.pop()
                _finish_forced(w, top, "bust")
                continue
            if top.remaining <= 0:
                w.frames.pop()
                _finish_forced(w, top, "complete")
                continue
        if isinstance(top, (Draw, ForcedDraw)):
            if w.draw:
                return
            if w.discard and w.round_shuffles < g.reshuffles:  # F7-116: a bounded number per round
                _reshuffle(w)  # F7-113, F7-114
                continue
            _exhausted(w, top)  # F7-115
            continue
        if isinstance(top, Assign):
            if len(top.targets) == len(top.cards):
                items = tuple((c, t, top.chooser) for c, t in zip(top.cards, top.targets, strict=True))
                below = w.frames[-2] if len(w.frames) > 1 else None
                if isinstance(below, Resolve) and (g.set_aside_order == "queue" or not below.items):
                    # F7-074, D-F7-13 (publisher, BGG-FAQ c16(c)): the cards of a nested Flip Three
                    # join the queue after the assignments made before them (an empty queue is
                    # simply continued, so the stack never grows without a card, F7-116).
                    w.frames.pop()
                    w.frames[-1] = Resolve((*below.items, *items))
                else:  # newest-first: they act before the outer queue goes on
                    w.frames[-1] = Resolve(items)
                continue
            card = top.cards[len(top.targets)]
            if _is_shield(g, card):  # a set-aside Second Chance goes to the forced draw's target
                w.frames[-1] = attrs.evolve(top, targets=(*top.targets, top.owner))
                continue
            if not _assign_allowed(g, w.players, top):
                w.frames[-1] = attrs.evolve(top, targets=(*top.targets, -1))
                continue
            return
        if isinstance(top, Resolve):  # F7-074, F7-075
            if not top.items:
                w.frames.pop()
                continue
            (card, target, chooser), rest = top.items[0], top.items[1:]
            w.frames[-1] = Resolve(rest)
            eff = g.effect[card]
            if target >= 0 and eff is not None and eff.primitive == "bust_shield":
                _receive_shield(w, card, target, eff)
            elif target >= 0 and eff is not None and target in _eligible(g, w.players, eff.targets):
                _play(w, card, chooser, target)
            else:
                w.to_discard(card)
                w.emit("discarded", card=w.cid(card), seat=target if target >= 0 else None, reason="target no longer eligible")
            continue
        if isinstance(top, InOrder):
            if not top.cards:
                w.frames.pop()
                continue
            w.frames[-1] = InOrder(top.chooser, top.cards[1:])
            _receive(w, top.cards[0], top.chooser)
            continue
        if isinstance(top, ChooseCards) and not _card_choices(g, w.players, top):
            w.frames.pop()
            w.to_discard(top.card)
            w.emit("discarded", card=w.cid(top.card), seat=top.resolver, reason="no valid target")
            continue
        return  # a decision: ChooseTarget, ChooseCards or Flip7Choice


def _next_deal(game: Game, players: Sequence[Player], dealer: int, position: int) -> tuple[int, int | None, bool]:
    """The deal goes on from ``position`` in the deal order (F7-020): ``(position
    after it, seat reached, offer)``, or ``(n, None, False)`` when the deal is over.
    A seat not active is passed over.  A seat holding early cards (F7-025, option
    ``deal_after_early_cards``) is asked Hit or Stay there (``offer`` True, reading
    ``offer``), passed over (``skip``) or dealt (``deal``); a held Second Chance
    alone counts as early cards only under option ``deal_after_second_chance`` =
    ``early-cards`` (F7-026)."""
    n = len(players)
    first = _first_seat(game, dealer, n)
    how = game.early_cards
    while position < n:
        seat = (first + position) % n
        position += 1
        p = players[seat]
        if p.status is not Status.ACTIVE:
            continue
        if how == "deal" or not _has_early_cards(game, p):
            return position, seat, False
        if how == "offer":
            return position, seat, True
    return position, None, False


def _has_early_cards(game: Game, p: Player) -> bool:
    """Whether ``p`` holds cards before being dealt (F7-025): a card in the line, or a
    held card other than a Second Chance, or a Second Chance where option
    ``deal_after_second_chance`` is ``early-cards`` (F7-026, D-F7-31)."""
    if p.line:
        return True
    if not p.kept:
        return False
    return game.early_second_chance == "early-cards" or not all(_is_shield(game, c) for c in p.kept)


def _anyone_active(players: Sequence[Player]) -> bool:
    return any(p.status is Status.ACTIVE for p in players)


def _first_seat(game: Game, dealer: int, n: int) -> int:
    """The first seat of the deal and offer order among ``n`` seats: the dealer's
    left, the dealer last (F7-020), or the dealer first (option ``start_seat``)."""
    return dealer if game.start_seat == "dealer" else (dealer + 1) % n


def _game_end(game: Game, totals: Sequence[int]) -> tuple[tuple[int, ...], bool]:
    """After a round scored into ``totals`` (points): ``(leaders, over)``.  No
    leaders while nobody has reached the target score; the game is over when
    someone has (F7-120) and one leader has the highest total, or every leader
    wins (option ``tie``); tied leaders otherwise play another round (F7-121)."""
    best = max(totals)
    if best < game.target_score:
        return (), False
    if totals.count(best) == 1:
        return (totals.index(best),), True
    return tuple([i for i, t in enumerate(totals) if t == best]), game.tie == "shared-win"


def game_end(game: Game, totals: Sequence[int]) -> tuple[tuple[int, ...], bool]:
    """The public name of the game-end rule (F7-120, F7-121, option ``tie``):
    ``totals`` are the players' totals in points after a round; returns
    ``(leaders, over)`` as seat indices and whether the game is over.  Raises
    ``ValueError`` for empty ``totals``."""
    return _game_end(game, totals)


def _reshuffle(w: _Work) -> None:
    """F7-113: the discard pile becomes the new deck; cards on the table stay."""
    cards = sorted(w.discard)
    w.discard.clear()
    w.shuffles += 1
    w.round_shuffles += 1
    if w.shuffle_seed is not None:
        random.Random(f"{w.shuffle_seed}:{w.shuffles}").shuffle(cards)
    w.draw = cards
    w.emit("reshuffled", cards=len(cards))


def _exhausted(w: _Work, top: Frame) -> None:
    """F7-115 / option ``empty_deck``: no card is left anywhere to draw."""
    w.emit("deck_exhausted")
    if w.game.empty_deck == "end-round":
        w.round_over = True
        return
    w.frames.pop()
    if isinstance(top, Draw) and top.reason == "hit" and w.players[top.seat].status is Status.ACTIVE:
        w.set_player(top.seat, status=Status.STAYED)
        w.emit("stayed", seat=top.seat, reason="empty deck")
    elif isinstance(top, ForcedDraw):
        _finish_forced(w, top, "exhausted")


_NO_CARDS = Player()  # an active player with nothing in front of them (players are immutable: shared)


def _round_scores(game: Game, players: Sequence[Player], flip7: int | None, bonus_to: int | None) -> tuple[int, ...]:
    """Each seat's round score in points (F7-100..F7-102, F7-050; V-081, V-082)."""
    g = game
    if flip7 is None and bonus_to is None and g.busted_score != "modifiers":  # no bonus, no penalty: a bust scores 0 (F7-101)
        return tuple([0 if p.status is Status.BUSTED else score_points(g, p.line) for p in players])
    scores = []
    penalised = bonus_to if bonus_to is not None and bonus_to != flip7 else None
    for seat, p in enumerate(players):
        busted = p.status is Status.BUSTED
        made = flip7 == seat
        bonus = (made and penalised is None) or (g.flip7_bonus_to == "all-non-busted" and flip7 is not None and not busted)
        if busted and g.busted_score == "modifiers":  # V-081: a busted player still scores negatives given to them
            score = sum(m[1] for c in p.line if (m := g.modifier[c]) is not None and m[0] == "add")
        elif busted:  # F7-101
            score = 0
        elif not made and not bonus:
            score = score_points(g, p.line)
        else:
            score = score_points(g, p.line, flip7=made, bonus=bonus)
        if seat == penalised:  # V-082
            score -= g.flip7_bonus
        scores.append(score)
    return tuple(scores)


def _end_round(w: _Work) -> None:
    """Score the round (F7-100..F7-102), clear the table (F7-083, F7-111), end the
    game (F7-120, F7-121) or start the next round (F7-112)."""
    g = w.game
    scores = _round_scores(g, w.players, w.flip7, w.bonus_to)
    for seat, s in enumerate(scores):
        w.totals[seat] += s
    w.last_scores = scores
    w.emit("round_scored", round=w.round, scores=tuple(scores), totals=tuple(w.totals), flip7=w.flip7)
    for p in w.players:
        w.to_discard(*p.line, *p.kept)  # F7-083: Second Chances never carry over
    for f in reversed(w.frames) if w.frames else ():  # pending work ends with the round (F7-052, D-V-09)
        if isinstance(f, ForcedDraw):
            w.emit("forced_draw_ended", seat=f.target, card=w.cid(f.card), outcome="round ended")
        for c in _frame_cards(f):
            if not (isinstance(f, ForcedDraw) and c == f.card):
                w.emit("discarded", card=w.cid(c), seat=None, reason="round ended")
        w.to_discard(*_frame_cards(f))
    w.frames.clear()
    w.players = [_NO_CARDS] * len(w.players)
    w.flip7 = None
    w.bonus_to = None
    w.round_over = False
    leaders, over = _game_end(g, w.totals)
    if leaders:
        if over:
            w.winners = leaders
            w.emit("game_won", winners=leaders, totals=tuple(w.totals), rounds=w.round)
            return
        w.emit("tie_another_round", leaders=leaders)
    _start_round(w, w.next_seat(w.dealer), w.round + 1)


def _start_round(w: _Work, dealer: int, number: int, *, first: bool = False) -> None:
    g = w.game
    w.dealer = dealer
    w.round = number
    if g.between_rounds == "fresh-shuffle" and not first:  # D-F7-20 (b); round 1's pile is already fresh
        cards = sorted(g.deck)
        w.discard.clear()
        w.shuffles += 1
        if w.shuffle_seed is not None:
            random.Random(f"{w.shuffle_seed}:{w.shuffles}").shuffle(cards)
        w.draw = cards
    w.turn = _first_seat(g, dealer, len(w.players))  # F7-030: offers start where the deal starts
    w.emit("round_started", round=number, dealer=dealer)
    if not w.draw and w.discard:  # F7-113: a round that finds the deck empty starts from a reshuffle ...
        _reshuffle(w)
    w.round_shuffles = 0  # ... which, as between rounds, is not one of the round's own (F7-116)
    if g.initial_deal:
        w.frames.append(Deal(0))


# --------------------------------------------------------------------------- construction


def initial_state(
    game: Game,
    *,
    seed: Any,
    dealer: Any,
    stack: Any,
    totals: Any,
) -> State:
    """Build round 1 of ``game`` (see `flip7ref.game.Game.new_initial_state`)."""
    n = game.players
    _check_seat("dealer", dealer, n)
    _check_totals(totals, n)
    _check_seed(seed)
    stack = _check_cards("stack", stack)
    cards = sorted(game.deck)
    shuffle_seed: str | None = None
    if seed is not None or stack:
        shuffle_seed = str(seed if seed is not None else 0)
        random.Random(f"{shuffle_seed}:0").shuffle(cards)
    top: list[int] = []
    for name in stack or ():
        code = game.code(name)
        try:
            cards.remove(code)
        except ValueError:
            raise CardError(f"stack: more copies of {game.card_ids[code]!r} than the deck holds") from None
        top.append(code)
    state = _fresh(game, tuple(Player() for _ in range(n)), tuple(top + cards), (), dealer, dealer, 0, totals, shuffle_seed)
    work = _Work(state)
    _start_round(work, dealer, 1, first=True)
    _settle(work)
    return work.freeze(None, "")


def _fresh(
    game: Game,
    players: tuple[Player, ...],
    draw: tuple[int, ...],
    discard: tuple[int, ...],
    dealer: int,
    turn: int,
    round_number: int,
    totals: Sequence[int] | None,
    shuffle_seed: str | None,
) -> State:
    """A state with nothing pending yet: no frames, no scores, no reshuffles."""
    n = len(players)
    return State(
        game=game, players=players, draw=draw, discard=discard, frames=(), dealer=dealer, turn=turn,
        round=round_number, totals=tuple(totals) if totals is not None else (0,) * n, last_scores=(), flip7=None,
        round_over=False, winners=(), shuffle_seed=shuffle_seed, shuffles=0,
    )  # fmt: skip


def _frame_to_dict(f: Frame, ids: tuple[str, ...]) -> dict[str, Any]:
    data: dict[str, Any] = {"frame": f.name}
    for field in attrs.fields(type(f)):
        value = getattr(f, field.name)
        if field.name in ("card",):
            value = ids[value]
        elif field.name in ("set_aside", "cards"):
            value = [ids[c] for c in value]
        elif field.name == "items":
            value = [[ids[c], t, ch] for c, t, ch in value]
        elif isinstance(value, tuple):
            value = list(value)
        data[field.name] = value
    return data


def _state_from_dict(data: Any, given: Any) -> State:
    def need(key: str, kind: type | tuple[type, ...]) -> Any:
        if key not in data:
            raise SerializationError(f"state data: missing field {key!r}")
        value = data[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
            raise SerializationError(f"state data: field {key!r} has the wrong type ({type(value).__name__})")
        return value

    if not isinstance(data, Mapping):
        raise SerializationError(f"state data: expected a JSON object (a mapping), got {type(data).__name__}")
    if given is not None and not isinstance(given, Game):
        raise SerializationError(f"game: expected a flip7ref.Game, got {type(given).__name__}")
    game: Game | None = given
    if data.get("format") != STATE_FORMAT or isinstance(data.get("format"), bool):
        raise SerializationError(f"state data: field 'format' must be {STATE_FORMAT}, got {data.get('format')!r}")
    edition = check_edition_field(data.get("edition"), game)  # a shipped id, or the game's: no path is opened
    if game is None:
        try:
            game = Game(edition, need("players", int), need("options", dict))
        except (OptionError, CardError) as exc:
            raise SerializationError(f"state data: {exc}") from None
        except RecursionError:
            raise SerializationError("state data: options: nested too deeply") from None

    def code(name: object, where: str) -> int:
        try:
            return game.code(str(name))
        except CardError:
            raise SerializationError(f"state data: {where}: unknown card {name!r}") from None

    try:
        seats = need("seats", list)
        if len(seats) != game.players:
            raise SerializationError(f"state data: field 'seats' has {len(seats)} entries, expected {game.players}")
        players = tuple(
            Player(
                tuple(code(c, f"seats/{i}/line") for c in s["line"]),
                tuple(code(c, f"seats/{i}/kept") for c in s["kept"]),
                _status(s["status"], f"seats/{i}/status"),
            )
            for i, s in enumerate(seats)
        )
        frames: list[Frame] = []
        for i, f in enumerate(need("frames", list)):
            cls = FRAME_TYPES.get(f.get("frame"))
            if cls is None:
                raise SerializationError(f"state data: frames/{i}: unknown frame {f.get('frame')!r}")
            kwargs: dict[str, Any] = {}
            for field in attrs.fields(cls):
                value = f[field.name]
                if field.name == "card":
                    value = code(value, f"frames/{i}/card")
                elif field.name in ("set_aside", "cards"):
                    value = tuple(code(c, f"frames/{i}/{field.name}") for c in value)
                elif field.name == "items":
                    value = tuple((code(c, f"frames/{i}/items"), int(t), int(ch)) for c, t, ch in value)
                elif isinstance(value, list):
                    value = tuple(value)
                kwargs[field.name] = value
            frames.append(cls(**kwargs))
        check_data_fields(data)  # before the typed fields meet the compiled State
        flip7 = data.get("flip7")
        for key in ("flip7", "bonus_to"):
            value = data.get(key)
            if value is not None and type(value) is not int:
                raise SerializationError(f"state data: {key}: expected a seat number or null, got {value!r}")
        state = State(
            game=game,
            players=players,
            draw=tuple(code(c, "draw") for c in need("draw", list)),
            discard=tuple(code(c, "discard") for c in need("discard", list)),
            frames=tuple(frames),
            dealer=need("dealer", int),
            turn=need("turn", int),
            round=need("round", int),
            totals=tuple(need("totals", list)),
            last_scores=tuple(need("last_scores", list)),
            flip7=flip7,
            round_over=data.get("round_over", False),
            winners=tuple(need("winners", list)),
            shuffle_seed=data.get("shuffle_seed"),
            shuffles=need("shuffles", int),
            bonus_to=data.get("bonus_to"),
            round_shuffles=data.get("round_shuffles", 0),
        )
        start = _state_from_dict(data["start"], game) if "start" in data else None
        log: _Log | None = None
        for entry in data.get("log") or []:
            log = _Log(log, str(entry["move"]), tuple(Event.from_dict(e) for e in entry["events"]), start)
        state = _new_state((*state[:-1], log))
        check_state(state)  # the one definition of a reachable position (flip7ref.position)
        return state
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as exc:
        if isinstance(exc, SerializationError):
            raise
        what = f"missing field {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
        raise SerializationError(f"state data: malformed entry ({what})") from None


def _status(value: object, where: str) -> Status:
    try:
        return Status(value)
    except ValueError:
        raise SerializationError(f"state data: {where}: expected one of active, stayed, frozen, busted, got {value!r}") from None


def _check_seat(name: str, value: object, players: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < players:
        raise OptionError(f"{name}: expected a seat 0..{players - 1}, got {value!r}")


def _check_totals(totals: object, players: int) -> None:
    if totals is None:
        return
    if not isinstance(totals, (list, tuple)) or not all(isinstance(t, int) and not isinstance(t, bool) for t in totals):
        raise OptionError(f"totals: expected a list of {players} whole numbers (points), got {totals!r}")
    if len(totals) != players:
        raise OptionError(f"totals: expected {players} values (one per seat), got {len(totals)}")


def _check_seed(seed: object) -> None:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, str))):
        raise OptionError(f"seed: expected a whole number or a string, got {type(seed).__name__}")


def _check_cards(name: str, cards: object) -> tuple[str, ...]:
    if cards is None:
        return ()
    if isinstance(cards, str) or not isinstance(cards, (list, tuple)):
        raise CardError(f"{name}: expected a list of card names, got {cards!r}")
    for card in cards:
        if not isinstance(card, str):
            raise CardError(f"{name}: expected card names (strings such as '7' or 'x2'), got {card!r}")
    return tuple(cards)


def position_state(
    game: Game,
    *,
    dealer: Any = 0,
    turn: Any = None,
    lines: Any = None,
    kept: Any = None,
    statuses: Any = None,
    draw: Any = (),
    discard: Any = (),
    totals: Any = None,
    round_number: Any = 1,
    seed: Any = 0,
    rest: Any = "below",
    deal: Any = False,
) -> State:
    """Build a mid-round position (after the deal) from explicit zones.

    See `flip7ref.game.Game.new_position` for the arguments.
    """
    n = game.players
    _check_seat("dealer", dealer, n)
    if turn is not None:
        _check_seat("turn", turn, n)
    _check_totals(totals, n)
    _check_seed(seed)
    if isinstance(round_number, bool) or not isinstance(round_number, int) or round_number < 1:
        raise OptionError(f"round_number: expected a whole number from 1, got {round_number!r}")
    per_seat: dict[str, Mapping[int, Any]] = {}
    for name, mapping in (("lines", lines), ("kept", kept), ("statuses", statuses)):
        if mapping is None:
            mapping = {}
        if not isinstance(mapping, Mapping):
            raise OptionError(
                f"{name}: expected a mapping from seat numbers to {'statuses' if name == 'statuses' else 'card lists'}"
            )
        for seat in mapping:
            _check_seat(f"{name} seat", seat, n)
        per_seat[name] = mapping
    lines = {s: _check_cards(f"lines[{s}]", v) for s, v in per_seat["lines"].items()}
    kept = {s: _check_cards(f"kept[{s}]", v) for s, v in per_seat["kept"].items()}
    statuses = per_seat["statuses"]
    draw = _check_cards("draw", draw)
    discard = _check_cards("discard", discard)
    pool = CardPool(game)  # the checks of flip7ref.position, shared with State.from_dict

    def take(names: Sequence[str], where: str) -> tuple[int, ...]:
        return pool.take([game.code(name) for name in names], where)

    players = []
    for seat in range(n):
        line = take((lines or {}).get(seat, ()), f"lines[{seat}]")
        held = take((kept or {}).get(seat, ()), f"kept[{seat}]")
        try:
            status = Status((statuses or {}).get(seat, "active"))
        except ValueError:
            raise OptionError(f"statuses[{seat}]: expected one of active, stayed, frozen, busted") from None
        check_seat(game, seat, line, held, status, None)
        players.append(Player(line, held, status))
    for seat in lines or {}:
        if not 0 <= seat < n:
            raise OptionError(f"lines: seat {seat} is not a seat 0..{n - 1}")
    top = take(draw, "draw")
    dis = take(discard, "discard")
    remaining = sorted(pool.left.elements())
    shuffle_seed = str(seed) if seed is not None else None
    if shuffle_seed is not None:
        random.Random(f"{shuffle_seed}:0").shuffle(remaining)
    if rest == "below":
        pile, dis = top + tuple(remaining), dis
    elif rest == "discard":
        pile, dis = top, dis + tuple(remaining)
    elif rest == "out":
        pile = top
    else:
        raise OptionError(f"rest: expected 'below', 'discard' or 'out', got {rest!r}")
    if shuffle_seed is None:  # an open pile has no order: kept sorted, only the counts matter
        pile = tuple(sorted(pile))
    turn = _first_seat(game, dealer, n) if turn is None else turn
    state = _fresh(game, tuple(players), pile, dis, dealer, turn, round_number, totals, shuffle_seed)
    work = _Work(state)
    if deal:
        if any(p.line or p.kept or p.status is not Status.ACTIVE for p in players):
            raise OptionError("deal: a round that starts with its deal has no cards on the table and no stayed players")
        _start_round(work, dealer, round_number, first=True)
    _settle(work)
    return work.freeze(None, "")


install_state_builders(initial=initial_state, position=position_state)
