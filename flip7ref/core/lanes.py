"""The fast lanes: the commonest steps taken without the scratch copy and the generic dispatch.

A Hit at an offer, a Stay, a plain card drawn for a Hit or in the deal, and the
round end that follows them.  A lane skips machinery only: it decides with the
same rule functions as the general path (`flip7ref.core.lines`: duplicates, bust
guards, Flip 7, staying; `flip7ref.core.engine`: the next active seat, the deal order,
the round-end plan, the round's close and the next round's opening) and builds its events with
the same constructors (`flip7ref.core.events`).  Where a step needs more (an action
card, a trait, a guard that could cancel a bust, a Brutal Mode choice, a
reshuffle), a lane returns None or hands over to the general settling.
tests/test_fast_lanes.py takes every step both ways.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from flip7ref.core import events
from flip7ref.core.engine import (
    Deal,
    Draw,
    RoundEnd,
    close_round,
    deal_frame,
    draw_frame,
    next_deal,
    offered_next,
    open_round,
    plan_round_end,
    settle,
)
from flip7ref.core.frames import Frame
from flip7ref.core.history import Log, new_log
from flip7ref.core.lines import guard_of, is_duplicate, line_grows, may_stay, stays, wipes
from flip7ref.core.model import Event, Player

if TYPE_CHECKING:
    from flip7ref.core.state_data import StateData



class Siblings:
    """What the sibling outcomes of one chance node share (see `plain_card`): the
    round end plan of a bust by the player left alone (``planned`` once looked for;
    ``plan`` None where the general path decides), and with ``merge_ends`` the
    successor of the first such bust when it ends the game (``end``)."""

    __slots__ = ("end", "merge_ends", "plan", "planned")

    def __init__(self, merge_ends: bool) -> None:
        self.merge_ends = merge_ends
        self.planned = False
        self.plan: RoundEnd | None = None
        self.end: Any = None


_MOVES: Final[dict[str, str]] = {}
"""The history entry of each card drawn (``"chance 7"``), by card id: made once, not at every card."""


def derive(
    s: StateData, players: tuple[Player, ...], draw: tuple[int, ...], frames: tuple[Frame, ...], turn: int, move: str,
    evs: tuple[Event, ...], between: Log | None = None,
) -> StateData:
    """A successor of ``s`` that differs in players, draw pile, frames and turn only.
    ``between``: the history link of a state between the two that was not built (the
    Hit of `hit_top_card`); None: ``s`` is the successor's parent."""
    # state-fields: make return make(s, players=players, draw=draw, frames=frames, turn=turn,
    #     _log=_next_log(s, move, evs, between))
    return s._make(
        s.game, players, draw, s.discard, frames, s.dealer, turn, s.round, s.totals, s.last_scores, s.flip7, s.round_over,
        s.winners, s.shuffle_seed, s.shuffles, s.bonus_to, s.round_shuffles, s.shuffle_mark, _next_log(s, move, evs, between),
    )  # fmt: skip
    # state-fields: end


def _next_log(s: StateData, move: str, evs: tuple[Event, ...], between: Log | None = None) -> Log:
    """The history link of a successor of ``s`` reached by ``move`` with the events ``evs``
    (`derive`, both builds); after ``between`` (a link of a state not built) when given."""
    parent = s._log if between is None else between
    start = None if parent is None else parent.start  # State.initial_state, from the read link
    return new_log((parent, move, evs, s if start is None else start))


def hit(s: StateData) -> StateData:
    """A Hit at an offer with cards on the pile (F7-030, F7-031): one card to draw, the turn passes on."""
    return derive(s, s.players, s.draw, (draw_frame(s.turn, "hit"),), (s.turn + 1) % len(s.players), "hit", ())


def takes_hit(s: StateData) -> bool:
    """Whether the lane takes a Hit at ``s``: an offer (no work pending, the game not over)
    with cards on the pile, on a table whose lanes are on (`Game.fast_lanes`).  Not with
    an empty pile: it is reshuffled first (F7-113), on the general path."""
    return not s.frames and not s.winners and bool(s.draw) and s.game.fast_lanes


def offer_hit(s: StateData) -> StateData | None:
    """`hit` where `takes_hit` says, else None.  The successor is a chance node (the card
    of the Hit, F7-031).  `State.apply` and `flip7ref.play.games.play` both ask this function."""
    return hit(s) if takes_hit(s) else None


def top_card(s: StateData) -> int | None:
    """The card an ordered pile gives next, its top, for the plain-card lane: None for an
    open pile (a random card), an empty pile or a table without lanes."""
    pile = s.draw
    return pile[0] if pile and s.shuffle_seed is not None and s.game.fast_lanes else None


def hit_top_card(s: StateData) -> StateData | None:
    """A Hit at ``s`` and the card it draws from the top of an ordered pile, in one step:
    `hit` then `plain_card` without building the chance node between them (both history
    entries are kept: ``"hit"``, then ``"chance CARD"``).  Where the card joins the line,
    or busts it, and the turn passes on (F7-030, F7-031, F7-035, F7-040, F7-041), or the
    round ends by a Flip 7 or with nobody left to act and the round end lane takes it
    (`fast_round_end`: F7-050, F7-110); None otherwise (`takes_hit` or `top_card` says no,
    a card `plain_card` leaves to the general path, a round end the general path decides):
    then take `offer_hit` and its card."""
    code = top_card(s) if takes_hit(s) else None
    if code is None:
        return None
    seat = s.turn
    return _drawn(s, code, None, draw_frame(seat, "hit"), (seat + 1) % len(s.players), _next_log(s, "hit", ()))


def stay(s: StateData) -> StateData | None:
    """A Stay at an offer (F7-034), or None when the seat may not stay."""
    seat = s.turn
    p = s.players[seat]
    if not may_stay(s.game, p):
        return None
    changed = list(s.players)
    changed[seat] = stays(p)
    after = (seat + 1) % len(changed)
    stayed = events.stayed(seat)
    turn = offered_next(changed, after, None, False)
    if turn is None:  # the last player stays: the round ends (F7-110)
        return finish(s, changed, s.draw, (), after, None, "stay", [stayed])
    return derive(s, tuple(changed), s.draw, (), turn, "stay", (stayed,))


def plain_card(s: StateData, code: int, shared: Siblings | None = None) -> StateData | None:
    """Card ``code`` drawn for a Hit or in the deal (F7-020, F7-035, F7-040, F7-041,
    F7-050), or None when the general path is needed: a card with a trait, an
    action card, a modifier given away, a bust a guard could cancel or in the deal,
    a busted line discarded (D-V-27), an offer at the deal slot, a reshuffle.

    ``shared`` (from ``State.chance_successors``): siblings drawn at the same
    chance node share the round end of a bust by the last active player (the same
    scores, totals and next round whichever number busts, as a busted player
    scores 0, F7-101); with ``shared.merge_ends``, the whole successor when that
    round end is the end of the game."""
    frames = s.frames
    top = frames[-1]
    if type(top) is not Draw:
        return None
    if top.reason == "deal":
        if len(frames) != 2 or type(frames[0]) is not Deal:
            return None
    elif len(frames) != 1:
        return None
    return _drawn(s, code, shared, top, s.turn, None)


def _drawn(s: StateData, code: int, shared: Siblings | None, top: Draw, turn: int, between: Log | None) -> StateData | None:
    """`plain_card` for the card of ``top`` (the only frame, or a deal's): drawn at ``s``
    whose turn is ``turn``, or, with ``between`` (the link of a Hit's chance node, not built:
    `hit_top_card`), at the Hit's successor of ``s``, with its turn; then only the outcomes
    `derive` builds are taken (None for the others)."""
    frames = s.frames
    g = s.game
    if not g.lane_card[code] or wipes(g, code):  # V-033 asked of its decider, not read off the card's traits
        return None  # a card with a trait, an action card, a modifier given away (`Game.lane_card`), a wipe
    dealing = top.reason == "deal"
    seat = top.seat
    p = s.players[seat]
    busted = g.plain_number[code] and is_duplicate(g, p.line, code)  # F7-040 (a lane's number has no trait)
    if busted:
        if dealing or g.busted_cards == "discard" or guard_of(g, p) is not None:
            return None  # the general path: a bust in the deal, D-V-27 (b), F7-080
        if shared is not None and shared.end is not None:
            return shared.end  # type: ignore[no-any-return]  # the game-ending bust of a sibling (merge_ends)
    after, made = line_grows(g, p, code, busted, s.flip7)  # the general path's outcome of the card
    pile = s.draw
    if pile[0] == code:  # an ordered pile gives its top card: no search
        draw = pile[1:]
    else:
        index = pile.index(code)
        draw = pile[:index] + pile[index + 1 :]
    changed = list(s.players)
    changed[seat] = after
    card = g.card_ids[code]
    try:
        move = _MOVES[card]
    except KeyError:
        move = _MOVES[card] = "chance " + card
    dealt = events.dealt(seat, card, top.reason)
    if made:  # F7-050: the round ends
        if offered_next(changed, turn, seat, False) is not None:
            return None  # its decider says play goes on: the general path
        if between is not None:
            return fast_round_end(s, changed, draw, turn, seat, move, (dealt, events.flip7(seat)), between)
        return finish(s, changed, draw, frames[:-1], turn, seat, move, [dealt, events.flip7(seat)])
    evs = (dealt, events.busted(seat, card)) if busted else (dealt,)
    if dealing:
        deal = frames[0]
        assert type(deal) is Deal
        position, dealt_to, offered = next_deal(g, changed, s.dealer, deal.position)
        if dealt_to is not None:
            if not draw or offered:
                return None  # a reshuffle first, or a Hit-or-Stay offer at the slot (general path)
            return derive(s, tuple(changed), draw, (deal_frame(position), draw_frame(dealt_to, "deal")), turn, move, evs)
    active = offered_next(changed, turn, None, False)
    if active is not None:
        return derive(s, tuple(changed), draw, (), active, move, evs, between)
    if between is not None:  # nobody left to act after the Hit's card: the round end lane, or None
        return fast_round_end(s, changed, draw, turn, None, move, evs, between)
    # nobody left to act: the round ends (F7-110)
    if shared is not None and busted and g.bust_scores_nothing and draw:
        if not shared.planned:
            shared.plan = round_end(s, changed, None, True)
            shared.planned = True
        plan = shared.plan
        if plan is not None:
            end = round_end_state(s, plan, changed, draw, turn, move, evs)
            if shared.merge_ends and plan.winners:
                shared.end = end
            return end
    return finish(s, changed, draw, (), turn, None, move, list(evs))


def finish(
    s: StateData, players: list[Player], draw: tuple[int, ...], frames: tuple[Frame, ...], turn: int, flip7: int | None,
    move: str, evs: list[Event],
) -> StateData:
    """Hand a step a lane began over to the round end (its own lane when no work is
    pending) or to the general settling."""
    if not frames:
        fast = fast_round_end(s, players, draw, turn, flip7, move, evs)
        if fast is not None:
            return fast
    work = s._work()
    work.players = players
    work.draw = draw
    work.frames = list(frames)
    work.turn = turn
    if flip7 is not None:
        work.flip7 = flip7
    work.events = evs
    settle(work)
    return s._freeze(work, move)


def fast_round_end(
    s: StateData, players: Sequence[Player], draw: tuple[int, ...], turn: int, flip7: int | None, move: str, evs: Sequence[Event],
    between: Log | None = None,
) -> StateData | None:
    """The round end lane for a table with no pending work (F7-050, F7-100..F7-102,
    F7-083, F7-111, F7-112, F7-120, F7-121), or None where the general path decides
    (see `round_end`).  ``between``: as for `derive`."""
    plan = round_end(s, players, flip7, bool(draw))
    if plan is None:
        return None
    return round_end_state(s, plan, players, draw, turn, move, evs, between, flip7)


def round_end(s: StateData, players: Sequence[Player], flip7: int | None, cards_left: bool) -> RoundEnd | None:
    """The round end plan of `flip7ref.core.engine.plan_round_end` for a table with no
    pending work, or None for the general path: a Brutal Mode choice first (V-082), a fresh
    shuffle between rounds (D-F7-20), a next round that starts with a reshuffle
    (``cards_left`` False)."""
    g = s.game
    if flip7 is not None and g.flip7_choice:
        return None
    plan = plan_round_end(g, players, s.totals, s.round, s.dealer, flip7, s.bonus_to)
    if not plan.winners and (g.between_rounds == "fresh-shuffle" or not cards_left):
        return None
    return plan


def round_end_state(
    s: StateData, plan: RoundEnd, players: Sequence[Player], draw: tuple[int, ...], turn: int, move: str, evs: Sequence[Event],
    between: Log | None = None, flip7: int | None = None,
) -> StateData:
    """The state a planned round end (``plan``, `round_end`) leads to: the round closed
    (`flip7ref.core.engine.close_round`: the table cleared), then the game over (F7-120)
    or the next round opened and dealt to its first card
    (`flip7ref.core.engine.open_round`, F7-112).  ``between``: as for `derive`."""
    closed = close_round(s.game, players, s.discard, s.totals, s.round, s.dealer, flip7, s.bonus_to, plan)
    if plan.winners:  # the game is over
        log = _next_log(s, move, (*evs, plan.scored, *plan.after), between)
        # state-fields: make return make(s, reset="close", players=closed.players, draw=draw, discard=closed.discard,
        #     frames=(), turn=turn, totals=plan.totals, last_scores=plan.scores, winners=plan.winners, _log=log)
        return s._make(
            s.game, closed.players, draw, closed.discard, (), s.dealer, turn, s.round, plan.totals, plan.scores, None, False,
            plan.winners, s.shuffle_seed, s.shuffles, None, s.round_shuffles, s.shuffle_mark, log,
        )  # fmt: skip
        # state-fields: end
    opened = open_round(s.game, closed.players, plan.dealer, s.round + 1, draw, closed.discard, s.shuffles, s.shuffle_seed)
    log = _next_log(s, move, (*evs, plan.scored, *plan.after, *opened.events), between)
    # state-fields: make return make(s, reset="open", players=closed.players, draw=opened.draw, discard=opened.discard,
    #     frames=opened.frames, dealer=plan.dealer, turn=opened.turn, round=s.round + 1, totals=plan.totals,
    #     last_scores=plan.scores, winners=(), shuffles=opened.shuffles, _log=log)
    return s._make(
        s.game, closed.players, opened.draw, opened.discard, opened.frames, plan.dealer, opened.turn, s.round + 1, plan.totals,
        plan.scores, None, False, (), s.shuffle_seed, opened.shuffles, None, 0, -1, log,
    )  # fmt: skip
    # state-fields: end
