"""The general path: settling the pending work, the deal, the offers, round end and game end.

`settle` runs every automatic step of a `flip7ref.core.work.Work` until a decision, a
chance node or the end of the game: the Brutal Mode Flip 7 choice (V-082), the
round end (F7-050, F7-110: `round_over`), the turn moving on to the next active player
(F7-030), and otherwise the top frame's own step (`flip7ref.core.frames.Frame.settle`).
A round is closed by `close_round` (its plan, `plan_round_end`: scores, totals, the game
end; then the table cleared) and the next opened by `open_round` (shuffles, the turn, the
deal's first step), pure functions over plain values that the general path
(`end_round`, `start_round`) and the fast lanes (`flip7ref.core.lanes`) both call.
This module also owns the frames of the deal and the offers (`Deal`,
`DealOffer`, `Draw`) and of the Brutal Mode choice (`Flip7Choice`).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, NamedTuple

from flip7ref.core import events
from flip7ref.core.frames import Frame, register_frame
from flip7ref.core.lines import may_stay, stays
from flip7ref.core.model import ACTIVE, CHANCE, HIT, STAY, STAYED, Action, Event, Player, target, tuple_maker
from flip7ref.core.pile import shuffled, supply
from flip7ref.core.scoring import flip7_choice_seats, round_scores
from flip7ref.core.targets import receive

if TYPE_CHECKING:
    from flip7ref.core.game_tables import GameTables
    from flip7ref.core.work import Work

NO_CARDS: Final = Player()
"""An active player with nothing in front of them (players are immutable: shared)."""


# --------------------------------------------------------------------------- seats and the deal


def first_seat(game: GameTables, dealer: int, n: int) -> int:
    """The first seat of the deal and offer order among ``n`` seats: the dealer's
    left, the dealer last (F7-020), or the dealer first (option ``start_seat``)."""
    return dealer if game.start_seat == "dealer" else (dealer + 1) % n


def round_over(players: Sequence[Player] | None, flip7: int | None, declared: bool) -> bool:
    """The one decider of whether the round is over (F7-050, F7-110, F7-115): a Flip 7
    made (``flip7``, its maker's seat, or None) ends it at once, pending work with it
    (F7-052); so does an exhausted deck under option ``empty_deck`` = ``end-round``
    (``declared``: `flip7ref.core.state.State.round_over`); and, once no work is pending,
    nobody left to act among ``players`` (no seat `ACTIVE`).  ``players`` None: work is
    still pending, so the players are not asked (the general path's `settle`).
    `offered_next`, `settle` and, through them, the fast lanes and the position checks ask
    it.  Raises nothing."""
    if flip7 is not None or declared:
        return True
    if players is None:
        return False
    for p in players:  # noqa: SIM110 - a plain loop: the fast lanes ask at every card
        if p.status is ACTIVE:
            return False
    return True


def offered_next(players: Sequence[Player], turn: int, flip7: int | None, over: bool) -> int | None:
    """The seat offered a card next with no work pending: None when `round_over` says the
    round is over (a Flip 7 made, ``flip7``, its maker's seat; the round declared over,
    ``over``: `flip7ref.core.state.State.round_over`; nobody left to act), else the first
    active seat from ``turn`` on, going left (F7-030).  `settle`, the fast lanes and the
    position checks ask it.  Raises nothing."""
    if round_over(players, flip7, over):
        return None
    n = len(players)
    for _ in range(n):
        if players[turn].status is ACTIVE:
            return turn
        turn = (turn + 1) % n
    return None


def has_early_cards(game: GameTables, p: Player) -> bool:
    """Whether ``p`` holds cards before being dealt (F7-025): a card in the line, or a
    held card other than a Second Chance, or a Second Chance where option
    ``deal_after_second_chance`` is ``early-cards`` (F7-026, D-F7-31)."""
    if p.line:
        return True
    if not p.kept:
        return False
    if game.early_second_chance == "early-cards":
        return True
    for c in p.kept:
        eff = game.effect[c]
        if eff is None or not eff.guards_bust():
            return True
    return False


def next_deal(game: GameTables, players: Sequence[Player], dealer: int, position: int) -> tuple[int, int | None, bool]:
    """The deal goes on from ``position`` in the deal order (F7-020): ``(position
    after it, seat reached, offer)``, or ``(n, None, False)`` when the deal is over.
    A seat not active is passed over.  A seat holding early cards (F7-025, option
    ``deal_after_early_cards``) is asked Hit or Stay there (``offer`` True, reading
    ``offer``), passed over (``skip``) or dealt (``deal``); a held Second Chance
    alone counts as early cards only under option ``deal_after_second_chance`` =
    ``early-cards`` (F7-026)."""
    n = len(players)
    first = first_seat(game, dealer, n)
    how = game.early_cards
    while position < n:
        seat = (first + position) % n
        position += 1
        p = players[seat]
        if p.status is not ACTIVE:
            continue
        if how == "deal" or not has_early_cards(game, p):
            return position, seat, False
        if how == "offer":
            return position, seat, True
    return position, None, False


def offer(game: GameTables, players: Sequence[Player], seat: int) -> list[Action]:
    """The legal answers of ``seat`` to a Hit-or-Stay offer: Hit, and Stay when allowed (F7-033)."""
    return [HIT, STAY] if may_stay(game, players[seat]) else [HIT]


def answer_offer(w: Work, seat: int, act: Action) -> None:
    """``seat`` answers an offer: a Hit draws one card (F7-030, F7-031), a Stay banks the line (F7-034)."""
    if act.verb == "hit":
        w.frames.append(Draw(seat, "hit"))
    else:
        w.players[seat] = stays(w.players[seat])
        w.emit(events.stayed(seat))


class Deal(Frame):
    """The initial deal is under way; ``position`` indexes the deal order (F7-020)."""

    name: ClassVar[str] = "deal"
    FIELDS: ClassVar[tuple[str, ...]] = ("position",)
    KINDS: ClassVar[tuple[str, ...]] = ("int",)
    automatic: ClassVar[bool] = True

    position: Final[int]

    def __init__(self, position: int) -> None:
        self.position = position

    def key(self) -> tuple[Any, ...]:
        return (self.position,)

    def check(self, game: GameTables, players: int) -> tuple[str, str] | None:
        return None if self.position <= players else ("position", f"a place in the deal order 0..{players}")

    def settle(self, w: Work) -> bool:
        position, dealt_to, offered = next_deal(w.game, w.players, w.dealer, self.position)
        if dealt_to is None:
            w.frames.pop()
            return True
        w.frames[-1] = Deal(position)
        w.frames.append(DealOffer(dealt_to) if offered else Draw(dealt_to, "deal"))  # F7-025
        return True


register_frame(Deal)

class SeatDecision(Frame):
    """Base of the frames whose one field is the seat that decides (`DealOffer`, `Flip7Choice`)."""

    FIELDS: ClassVar[tuple[str, ...]] = ("seat",)
    KINDS: ClassVar[tuple[str, ...]] = ("int",)

    seat: Final[int]

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def key(self) -> tuple[Any, ...]:
        return (self.seat,)

    def decider(self) -> int:
        return self.seat


class DealOffer(SeatDecision):
    """A decision in the deal: the deal reached ``seat``, who already holds cards (from
    an early Flip Three), so they are asked Hit or Stay at their slot before the deal
    goes on (F7-025, option ``deal_after_early_cards`` = ``offer``)."""

    name: ClassVar[str] = "deal_offer"

    def legal(self, game: GameTables, players: Sequence[Player]) -> list[Action]:
        return offer(game, players, self.seat)

    def pending(self, game: GameTables) -> tuple[str, str | None]:
        return ("offer", None)

    def decide(self, w: Work, act: Action) -> None:
        answer_offer(w, self.seat, act)  # the deal goes on afterwards


register_frame(DealOffer)

DRAW_REASONS: Final = ("deal", "hit")
"""Why a `Draw` draws: the initial deal (F7-020) or a Hit (F7-031)."""


class Draw(Frame):
    """A chance node: one card goes to ``seat`` (``reason``: ``deal`` or ``hit``)."""

    name: ClassVar[str] = "draw"
    FIELDS: ClassVar[tuple[str, ...]] = ("seat", "reason")
    KINDS: ClassVar[tuple[str, ...]] = ("int", "str")

    seat: Final[int]
    reason: Final[str]

    def __init__(self, seat: int, reason: str) -> None:
        self.seat = seat
        self.reason = reason

    def key(self) -> tuple[Any, ...]:
        return (self.seat, self.reason)

    def check(self, game: GameTables, players: int) -> tuple[str, str] | None:
        return None if self.reason in DRAW_REASONS else ("reason", f"one of {', '.join(DRAW_REASONS)}")

    def decider(self) -> int:
        return CHANCE

    def reveal(self, w: Work, code: int) -> None:
        w.emit(events.dealt(self.seat, w.cid(code), self.reason))
        receive(w, code, self.seat)

    def settle(self, w: Work) -> bool:
        return supply(w, self)

    def exhaust(self, w: Work) -> None:
        if self.reason == "hit" and w.players[self.seat].status is ACTIVE:  # F7-115: the Hit becomes a Stay
            w.set_status(self.seat, STAYED)
            w.emit(events.stayed(self.seat, "empty deck"))


register_frame(Draw)


class Flip7Choice(SeatDecision):
    """A decision (Brutal Mode, V-082): the Flip 7 maker takes +15 or gives another player -15."""

    name: ClassVar[str] = "flip7_choice"

    def legal(self, game: GameTables, players: Sequence[Player]) -> list[Action]:
        return [target(s) for s in flip7_choice_seats(game, players, self.seat)]  # V-085

    def pending(self, game: GameTables) -> tuple[str, str | None]:
        return ("flip7_bonus", None)

    def decide(self, w: Work, act: Action) -> None:
        seat = act.args[0]
        w.bonus_to = seat
        points = w.game.flip7_bonus * (1 if seat == self.seat else -1)
        w.emit(events.flip7_bonus_chosen(self.seat, seat, points))


register_frame(Flip7Choice)

_DRAWS: Final[dict[str, dict[int, Draw]]] = {}
"""The shared `Draw` frames, by reason, then seat (cheaper to look up than a key tuple)."""
_DEALS: Final[dict[int, Deal]] = {}


def draw_frame(seat: int, reason: str) -> Draw:
    """``Draw(seat, reason)``, shared (frames are immutable values; the lanes build one at every Hit)."""
    try:
        return _DRAWS[reason][seat]  # subscripts, no method calls, when the frame exists
    except KeyError:
        pass
    frame = _DRAWS.setdefault(reason, {})[seat] = Draw(seat, reason)
    return frame


def deal_frame(position: int) -> Deal:
    """``Deal(position)``, shared like `draw_frame`."""
    try:
        return _DEALS[position]
    except KeyError:
        pass
    frame = _DEALS[position] = Deal(position)
    return frame


# --------------------------------------------------------------------------- transitions


def decide(w: Work, act: Action) -> None:
    """Carry out the legal decision ``act``: the turn's Hit-or-Stay offer when nothing is
    pending (the turn passes on), else the top frame's decision."""
    if not w.frames:
        seat = w.turn
        w.turn = w.next_seat(seat)
        answer_offer(w, seat, act)
        return
    w.frames.pop().decide(w, act)


def reveal(w: Work, code: int) -> None:
    """Card ``code`` (already taken off the pile) is drawn for the top frame."""
    w.frames.pop().reveal(w, code)


def settle(w: Work) -> None:
    """Run every automatic step until a decision, a chance node or the end.

    The round ends (F7-110, F7-050) when `offered_next`, its decider, offers nobody: a Flip
    7 has been made (after its maker's Brutal Mode choice, V-082) or the round is declared
    over, or no active player is left to be offered a card; pending work ends with it."""
    g = w.game
    while not w.winners:
        if w.flip7 is not None and g.flip7_choice and w.bonus_to is None:  # V-082
            if not (w.frames and isinstance(w.frames[-1], Flip7Choice)):
                w.frames.append(Flip7Choice(w.flip7))
            return
        if w.frames and not round_over(None, w.flip7, w.round_over):  # F7-052: a round over ends its work
            if not w.frames[-1].settle(w):
                return  # a decision or a chance node
            continue
        seat = offered_next(w.players, w.turn, w.flip7, w.round_over)
        if seat is None:
            end_round(w)  # F7-050, F7-110
            continue
        w.turn = seat
        return


# --------------------------------------------------------------------------- round end and game end


def game_end(game: GameTables, totals: Sequence[int]) -> tuple[tuple[int, ...], bool]:
    """The game-end rule (F7-120, F7-121, option ``tie``), after a round scored into
    ``totals`` (points per seat): ``(leaders, over)``.  No leaders while nobody has
    reached the target score; the game is over when someone has and one leader has
    the highest total, or every leader wins (option ``tie``); tied leaders
    otherwise play another round.

    Raises:
        ValueError: ``totals`` is empty.
    """
    best = max(totals)
    if best < game.target_score:
        return (), False
    if totals.count(best) == 1:
        return (totals.index(best),), True
    return tuple([i for i, t in enumerate(totals) if t == best]), game.tie == "shared-win"


class RoundEnd(NamedTuple):
    """What a round end decides (`plan_round_end`).

    Attributes:
        scores: the round's score per seat (points).
        totals: the running totals after it.
        scored: the ``round_scored`` event.
        after: the events after the table is cleared: ``game_won``, or
            ``tie_another_round``, or none.
        winners: the winning seats when the game is over, else empty.
        dealer: the next round's dealer (the seat on the dealer's left, F7-112); when the
            game is over, the dealer of its last round.
    """

    scores: tuple[int, ...]
    totals: tuple[int, ...]
    scored: Event
    after: tuple[Event, ...]
    winners: tuple[int, ...]
    dealer: int


_round_end: Final = tuple_maker(RoundEnd)
"""``RoundEnd(*fields)`` built in C (`flip7ref.core.model.tuple_maker`)."""


def plan_round_end(
    game: GameTables, players: Sequence[Player], totals: Sequence[int], round: int, dealer: int, flip7: int | None,
    bonus_to: int | None,
) -> RoundEnd:
    """Score the round (F7-100..F7-102, F7-050; V-081, V-082) and decide the game end
    (F7-120, F7-121) or the next dealer (F7-112)."""
    scores = round_scores(game, players, flip7, bonus_to)
    new = tuple(map(operator.add, totals, scores))
    scored = events.round_scored(round, scores, new, flip7)
    leaders, over = game_end(game, new)
    if leaders and over:
        return _round_end((scores, new, scored, (events.game_won(leaders, new, round),), leaders, dealer))
    after = (events.tie_another_round(leaders),) if leaders else ()
    return _round_end((scores, new, scored, after, (), (dealer + 1) % len(players)))


class RoundClose(NamedTuple):
    """A round closed (`close_round`).

    Attributes:
        plan: the round end's `RoundEnd` (scores, totals, events, winners, next dealer).
        players: the table after it, one `Player` per seat.
        discard: the discard pile after it (card codes).
    """

    plan: RoundEnd
    players: tuple[Player, ...]
    discard: tuple[int, ...]


_round_close: Final = tuple_maker(RoundClose)


def close_round(
    game: GameTables, players: Sequence[Player], discard: tuple[int, ...], totals: Sequence[int], round: int, dealer: int,
    flip7: int | None, bonus_to: int | None, plan: RoundEnd | None = None,
) -> RoundClose:
    """The one round close of the general path (`end_round`) and the fast lanes, over plain
    values: ``players`` (one `Player` per seat), the ``discard`` pile (card codes), the
    running ``totals``, the ``round`` number, its ``dealer``, the Flip 7 maker ``flip7``
    and the Brutal Mode bonus seat ``bonus_to`` (None when none).  The round is scored and
    the game end or the next dealer decided (`plan_round_end`; ``plan``: that plan when it
    is already made, the lanes' sibling outcomes sharing it), then the table is cleared:
    every card in front of a player, line then kept cards, seat by seat, joins the discard
    pile (F7-083: no Second Chance carries over; F7-111), and every seat is active with
    nothing in front of it.  Pending work is the caller's (`end_round`: F7-052, D-V-09).
    Raises nothing."""
    if plan is None:
        plan = plan_round_end(game, players, totals, round, dealer, flip7, bonus_to)
    pile = list(discard)
    for p in players:
        pile += p.line
        pile += p.kept
    return _round_close((plan, (NO_CARDS,) * len(players), tuple(pile)))


class RoundOpen(NamedTuple):
    """A round opened (`open_round`).

    Attributes:
        draw: the draw pile after any fresh shuffle or reshuffle (card codes).
        discard: the discard pile after it.
        shuffles: the game's shuffle count after it.
        turn: the seat offers start from (F7-030).
        frames: the pending work once the deal has taken its first step (F7-020).
        events: ``round_started``, then ``reshuffled`` when the round starts with one.
    """

    draw: tuple[int, ...]
    discard: tuple[int, ...]
    shuffles: int
    turn: int
    frames: tuple[Frame, ...]
    events: tuple[Event, ...]


_round_open: Final = tuple_maker(RoundOpen)


def open_round(
    game: GameTables, players: Sequence[Player], dealer: int, number: int, draw: tuple[int, ...], discard: tuple[int, ...],
    shuffles: int, shuffle_seed: str | None, first: bool = False,
) -> RoundOpen:
    """The one round opening of the general path (`start_round`) and the fast lanes, over
    plain values: round ``number`` begins with ``dealer`` dealing (F7-112) at the table
    ``players`` (as `close_round` left it), from the ``draw`` and ``discard`` piles (card
    codes), after ``shuffles`` shuffles of the game seeded ``shuffle_seed`` (None: an open
    pile, kept sorted).  A fresh shuffle of the whole deck under option ``between_rounds``
    (D-F7-20; not for round 1, ``first``, whose pile is already fresh), a reshuffle of the
    discard pile when the deck is empty (F7-113; as between rounds, not one of the round's
    own, F7-116: the caller sets the round's count to 0), offers starting where the deal
    starts (F7-030), and the deal's first step (F7-020, F7-025, `next_deal`).  Raises nothing."""
    started = events.round_started(number, dealer)
    if game.between_rounds == "fresh-shuffle" and not first:  # D-F7-20 (b)
        cards = sorted(game.deck)
        discard = ()
        shuffles += 1
        if shuffle_seed is not None:
            shuffled(cards, shuffle_seed, shuffles)
        draw = tuple(cards)
    evs: tuple[Event, ...] = (started,)
    if not draw and discard:  # F7-113: a round that finds the deck empty starts from a reshuffle
        cards = sorted(discard)
        discard = ()
        shuffles += 1
        if shuffle_seed is not None:
            shuffled(cards, shuffle_seed, shuffles)
        draw = tuple(cards)
        evs = (started, events.reshuffled(len(cards)))
    n = len(players)
    turn = first_seat(game, dealer, n)
    frames: tuple[Frame, ...] = ()
    if game.initial_deal:
        position, seat, offered = next_deal(game, players, dealer, 0)
        if seat is not None:
            frames = (deal_frame(position), DealOffer(seat) if offered else draw_frame(seat, "deal"))
    return _round_open((draw, discard, shuffles, turn, frames, evs))


def end_round(w: Work) -> None:
    """Apply the round's close (`close_round`) to ``w``: the round scored, pending work
    ended with the round (F7-052, D-V-09), the table cleared, then the game ended or the
    next round started (`start_round`)."""
    closed = close_round(w.game, w.players, w.discard, w.totals, w.round, w.dealer, w.flip7, w.bonus_to)
    plan = closed.plan
    w.totals = list(plan.totals)
    w.last_scores = plan.scores
    w.emit(plan.scored)
    w.discard = closed.discard
    for f in reversed(w.frames):
        f.end_with_round(w)
    w.frames.clear()
    w.players = list(closed.players)
    w.round_closed()  # the fields a round's close resets (``round_close`` in flip7ref.core.state_fields)
    for e in plan.after:
        w.emit(e)
    if plan.winners:
        w.winners = plan.winners
        return
    start_round(w, plan.dealer, w.round + 1)


def start_round(w: Work, dealer: int, number: int, *, first: bool = False) -> None:
    """Apply the round's opening (`open_round`) to ``w``: round ``number`` with ``dealer``
    dealing, the round's own reshuffle count reset (F7-116); settling goes on from the
    deal's first step."""
    opened = open_round(w.game, w.players, dealer, number, w.draw, w.discard, w.shuffles, w.shuffle_seed, first)
    w.dealer = dealer
    w.round = number
    w.draw = opened.draw
    w.discard = opened.discard
    w.shuffles = opened.shuffles
    w.turn = opened.turn
    for e in opened.events:
        w.emit(e)
    w.round_opened()  # the fields a round's opening resets, F7-116 (``round_open`` in flip7ref.core.state_fields)
    w.frames.extend(opened.frames)
