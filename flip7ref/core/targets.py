"""Cards that need a target: who may be chosen, the choice, and a card's arrival.

`receive` routes a card that arrives for a seat (F7-035): a number enters the
line (`receive_number`, deciding with `flip7ref.core.lines`), a modifier joins the line or is given away (V-050), an
action card goes to its effect's `receive` hook (by default: the receiver
chooses a target, `offer_target`).  `ChooseTarget` is the decision frame of a
target choice; `play` carries out a card on the chosen seat through its effect.
`enter` takes a card moved from another line (a Swap, a Steal) into a line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final

from flip7ref.core import events
from flip7ref.core.frames import DECISION_KINDS, OWN_DECISION_KINDS, Frame, register_frame
from flip7ref.core.lines import entry_place, guard_of, is_duplicate, line_grows, wipes
from flip7ref.core.model import ACTIVE, BUSTED, FROZEN, MODIFIER, NUMBER, STAYED, Action, Player, Status, target

if TYPE_CHECKING:
    from flip7ref.core.game_tables import GameTables
    from flip7ref.core.work import Work

TARGET_STATUSES: Final[dict[str, tuple[Status, ...]]] = {
    "active": (ACTIVE,),  # F7-061, F7-072
    "non_busted": (ACTIVE, STAYED, FROZEN),  # V-042
    "active_or_busted": (ACTIVE, BUSTED),  # Brutal Mode with protected stays
    "any": tuple(Status),  # Brutal Mode (V-081)
}
"""The statuses a card's ``targets`` value admits (the edition schema admits no other value).
Tuples, not sets: a membership test compares by identity and never calls the enum's
Python-level ``__hash__``."""


def eligible(players: Sequence[Player], targets: str) -> tuple[int, ...]:
    """Seats whose status the ``targets`` value admits (one of `TARGET_STATUSES`)."""
    allowed = TARGET_STATUSES[targets]
    return tuple([i for i, p in enumerate(players) if p.status in allowed])  # a list first: cheaper than a generator


def faceup(game: GameTables, players: Sequence[Player]) -> list[int]:
    """Seats whose line shows cards that actions can move: not busted (V-021), and not
    stayed or frozen where staying protects the line (D-V-02 (b))."""
    if game.stay_protects:
        return [i for i, p in enumerate(players) if p.status is ACTIVE and p.line]
    return [i for i, p in enumerate(players) if p.status is not BUSTED and p.line]


def targets_for(game: GameTables, players: Sequence[Player], code: int, chooser: int, targets: str) -> tuple[int, ...]:
    """Seats ``chooser`` may play card ``code`` on (F7-061, F7-072, V-042, options
    ``self_target`` and ``unusable_actions``): eligible seats on which the card can
    be carried out (V-041, V-048)."""
    allowed = eligible(players, targets)
    eff = game.effect[code]
    if eff is None:
        return allowed
    usable = tuple([s for s in allowed if eff.executable(game, players, s)])
    if usable and game.unusable_actions == "fizzle":  # D-V-28 (b): anyone eligible, while someone can use it
        usable = allowed
    if eff.self_target == "only-when-alone" and len(usable) > 1 and chooser in usable:
        usable = tuple(s for s in usable if s != chooser)
    return usable


PURPOSES: Final = ("play", "give", "keep_or_give")
"""What a `ChooseTarget` decision of the interpreter is for (its ``purpose``); a primitive may
use a decision kind it registered (`flip7ref.core.frames.register_decision_kind`)."""


class ChooseTarget(Frame):
    """A decision: ``chooser`` picks a seat in ``allowed`` for ``card``.

    ``purpose`` is ``play`` (the card's effect hits the chosen seat), ``give``
    (a spare Second Chance is handed over, F7-082) or ``keep_or_give`` (the
    chooser may keep it by choosing themselves).
    """

    name: ClassVar[str] = "choose_target"
    FIELDS: ClassVar[tuple[str, ...]] = ("card", "chooser", "allowed", "purpose")
    KINDS: ClassVar[tuple[str, ...]] = ("int", "int", "tuple[int, ...]", "str")

    card: Final[int]
    chooser: Final[int]
    allowed: Final[tuple[int, ...]]
    purpose: Final[str]

    def __init__(self, card: int, chooser: int, allowed: tuple[int, ...], purpose: str) -> None:
        self.card = card
        self.chooser = chooser
        self.allowed = allowed
        self.purpose = purpose

    def key(self) -> tuple[Any, ...]:
        return (self.card, self.chooser, self.allowed, self.purpose)

    def decider(self) -> int:
        return self.chooser

    def legal(self, game: GameTables, players: Sequence[Player]) -> list[Action]:
        return [target(s) for s in self.allowed]

    def pending(self, game: GameTables) -> tuple[str, str | None]:
        return (self.purpose, game.card_ids[self.card])

    def check(self, game: GameTables, players: int) -> tuple[str, str] | None:
        if self.purpose not in PURPOSES and (self.purpose not in DECISION_KINDS or self.purpose in OWN_DECISION_KINDS):
            return ("purpose", f"one of {', '.join(PURPOSES)} (or a decision kind a primitive registered)")
        if not all(0 <= s < players for s in self.allowed):
            return ("allowed", f"seats 0..{players - 1}")
        if game.effect[self.card] is None and game.category[self.card] != MODIFIER:
            return ("card", "an action card")
        return None

    def decide(self, w: Work, act: Action) -> None:
        seat = act.args[0]
        w.emit(events.target_chosen(self.chooser, w.cid(self.card), seat))
        eff = w.game.effect[self.card]
        if eff is None:  # a modifier given away (V-050, V-081)
            play(w, self.card, self.chooser, seat)
        else:
            eff.chosen(w, self, seat)

    def held_cards(self) -> tuple[int, ...]:
        return (self.card,)


register_frame(ChooseTarget)


def offer_target(w: Work, code: int, chooser: int, targets: str) -> None:
    """An action (or a modifier given away) needs a target: a decision for ``chooser``;
    with no seat to choose the card is discarded."""
    allowed = targets_for(w.game, w.players, code, chooser, targets)
    if not allowed:
        w.to_discard(code)
        w.emit(events.discarded(w.cid(code), chooser, "no valid target"))
        return
    w.frames.append(ChooseTarget(code, chooser, allowed, "play"))


def play(w: Work, code: int, chooser: int, seat: int) -> None:
    """Carry out card ``code``, played by ``chooser``, on ``seat``: a modifier joins the
    line (V-050); an action card's effect is applied (its primitive's `play`)."""
    if w.game.category[code] == MODIFIER:
        w.set_line(seat, (*w.players[seat].line, code))
        return
    eff = w.game.effect[code]
    assert eff is not None
    eff.play(w, code, chooser, seat)


def receive(w: Work, code: int, seat: int) -> None:
    """A card arrives for ``seat`` (F7-035): numbers join the line or bust,
    modifiers join the line (or are given away, V-050), action cards are resolved
    at once through their effect."""
    g = w.game
    cat = g.category[code]
    if cat == NUMBER:
        receive_number(w, code, seat)
    elif cat == MODIFIER:
        if g.modifiers_to == "receiver":
            w.set_line(seat, (*w.players[seat].line, code))
        else:
            offer_target(w, code, seat, g.modifier_targets)  # V-050, V-081
    else:
        eff = g.effect[code]
        assert eff is not None
        eff.receive(w, code, seat)


def receive_number(w: Work, code: int, seat: int, lifted: bool = False) -> None:
    """A number card arrives for ``seat`` (F7-035, F7-040, F7-041, F7-050; V-020, V-033, V-036);
    ``lifted``: a Flip 7 bar does not hold for this card (V-086, `own_draw_lifts_bar`).

    Unlucky 7 wipes the line (V-033); a duplicate is first offered to a bust guard
    (F7-080), else the player busts (D-V-27: under ``busted_cards: discard`` the
    line goes to the discard pile at once); otherwise the card joins the line and
    may make a Flip 7."""
    g = w.game
    p = w.players[seat]
    if wipes(g, code):
        wiped = tuple(c for c in p.line if g.category[c] in (NUMBER, MODIFIER))
        w.to_discard(*wiped)
        w.set_line(seat, (code,))
        if wiped:
            w.emit(events.line_wiped(seat, tuple(g.card_ids[c] for c in wiped)))
        return
    busts = is_duplicate(g, p.line, code)
    if busts:
        guard = guard_of(g, p)
        if guard is not None:
            eff = g.effect[guard]
            assert eff is not None
            eff.use_guard(w, seat, code, guard)
            return
    after, made = line_grows(g, p, code, busts, w.flip7, lifted)
    w.players[seat] = after
    if busts:  # F7-040, F7-041
        w.emit(events.busted(seat, g.card_ids[code]))
        if g.busted_cards == "discard":  # D-V-27 (b): the busted line goes to the discard pile at once
            for c in (*p.line, code):
                w.emit(events.discarded(g.card_ids[c], seat, "busted"))
            w.to_discard(*p.line, code)
            w.set_line(seat, ())
        return
    if made:  # F7-050, V-022
        w.flip7 = seat
        w.emit(events.flip7(seat))


def enter(w: Work, code: int, seat: int, place: int | None = None) -> None:
    """A card moved from another line enters ``seat``'s line: the receiving rules apply
    to a number (a duplicate busts, Unlucky 7 wipes, Lucky 13 allows a pair, Flip 7
    counts, V-037); a modifier simply joins.  ``place``: the index the card had (a Swap
    or a Steal); where it then lies is `entry_place`'s (V-087)."""
    if w.game.category[code] == NUMBER:
        receive_number(w, code, seat)
    else:
        w.set_line(seat, (*w.players[seat].line, code))
    line = w.players[seat].line
    if place is None or not line or line[-1] != code:  # wiped with the line or discarded with a bust
        return
    k = entry_place(w.game, line, place)
    if k != len(line) - 1:
        w.set_line(seat, (*line[:k], code, *line[k:-1]))
