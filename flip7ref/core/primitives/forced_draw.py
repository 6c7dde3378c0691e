"""Primitive ``forced_draw`` (Flip Three, Flip Four; F7-070..F7-078, V-043, V-044).

The target takes ``count`` cards one by one (`ForcedDraw`, a chance node each
time).  Action cards named in ``set_aside`` wait until the draw is done
(F7-073); then they are assigned (`Assign`, a decision per card) and take effect
in assignment order (`Resolve`, F7-074, F7-075), or are resolved one by one in
reveal order as if just received (`InOrder`, V-044).  The draw ends early when
the target busts (F7-071; set-aside cards by ``on_bust``), holds seven numbers
without a Flip 7 (a barred target, D-V-26; V-044) or the deck is exhausted (F7-115); its card is discarded at the end (F7-078).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, cast

import attrs
from mypy_extensions import mypyc_attr  # native_class=False: stays a plain Python class when compiled (docs/build.md)

from flip7ref.core import events
from flip7ref.core.frames import Frame, action_card, register_frame
from flip7ref.core.lines import bars_flip7, holds_seven, own_draw_lifts_bar, wipes
from flip7ref.core.model import ACTIVE, BUSTED, CHANCE, MODIFIER, NUMBER, STAYED, Action, Player, target
from flip7ref.core.pile import supply
from flip7ref.core.primitives.base import Effect, primitive
from flip7ref.core.targets import eligible, receive, receive_number, targets_for

if TYPE_CHECKING:
    from flip7ref.core.game_tables import GameTables
    from flip7ref.core.work import Work


@primitive("forced_draw")
@mypyc_attr(native_class=False)
@attrs.frozen
class ForcedDrawEffect(Effect):
    """The chosen seat must take ``count`` cards (F7-070, V-043).

    Attributes:
        count: cards to draw.
        set_aside: card-kind codes set aside when revealed inside the draw (F7-073).
        on_bust: ``discard`` or ``resolve``: the set-aside cards when the target busts
            (option ``flip_three_bust``).
        assigner: ``target`` or ``giver``: who assigns set-aside cards.
        then_stay: whether the target must stay once the draw is over (V-043).
        resolution: ``assign-all-first`` (all assigned, then resolved in that order,
            F7-074) or ``in-order`` (each resolved in reveal order as if just received, V-044).
    """

    count: int = 0
    set_aside: frozenset[int] = frozenset()
    on_bust: str = "discard"
    assigner: str = "target"
    then_stay: bool = False
    resolution: str = "assign-all-first"

    def play(self, w: Work, code: int, chooser: int, seat: int) -> None:
        w.frames.append(ForcedDraw(seat, chooser, code, self.count))
        w.emit(events.forced_draw_started(seat, w.cid(code), chooser, self.count))


def _effect(game: GameTables, code: int) -> ForcedDrawEffect:
    """The effect of the forced-draw card ``code`` (see `flip7ref.core.primitives.choose_cards.effect_of`)."""
    return cast(ForcedDrawEffect, game.effect[code])


class ForcedDraw(Frame):
    """A forced draw (Flip Three) in progress (F7-070..F7-073).

    Attributes:
        target: the seat taking the cards.
        giver: the seat that played the card on the target.
        card: the code of the card being resolved (it is discarded at the end, F7-078).
        remaining: cards still to draw.
        set_aside: codes of cards revealed inside and set aside, in reveal order.
    """

    name: ClassVar[str] = "forced_draw"
    FIELDS: ClassVar[tuple[str, ...]] = ("target", "giver", "card", "remaining", "set_aside")
    KINDS: ClassVar[tuple[str, ...]] = ("int", "int", "int", "int", "tuple[int, ...]")

    target: Final[int]
    giver: Final[int]
    card: Final[int]
    remaining: Final[int]
    set_aside: Final[tuple[int, ...]]

    def __init__(self, target: int, giver: int, card: int, remaining: int, set_aside: tuple[int, ...] = ()) -> None:
        self.target = target
        self.giver = giver
        self.card = card
        self.remaining = remaining
        self.set_aside = set_aside

    def key(self) -> tuple[Any, ...]:
        return (self.target, self.giver, self.card, self.remaining, self.set_aside)

    def decider(self) -> int:
        return CHANCE

    def check(self, game: GameTables, players: int) -> tuple[str, str] | None:
        drawn = game.effect[self.card]
        if isinstance(drawn, ForcedDrawEffect) and self.remaining > drawn.count:
            return ("remaining", f"at most {drawn.count} cards still to draw")
        return action_card(game, self.card)

    def reveal(self, w: Work, code: int) -> None:
        w.emit(events.dealt(self.target, w.cid(code), w.cid(self.card)))
        aside = code in _effect(w.game, self.card).set_aside  # F7-073: Freeze / Flip Three wait until the three are done
        set_aside = (*self.set_aside, code) if aside else self.set_aside
        w.frames.append(ForcedDraw(self.target, self.giver, self.card, self.remaining - 1, set_aside))
        if aside:
            w.emit(events.set_aside(self.target, w.cid(code)))
        else:
            g = w.game
            if (
                g.category[code] == NUMBER
                and w.players[self.target].flip7_barred
                and own_draw_lifts_bar(g, self.giver, self.target)
            ):
                receive_number(w, code, self.target, lifted=True)  # V-086, D-V-35: her own Flip Four
            else:
                receive(w, code, self.target)
            if g.wipe_set_aside == "wiped" and wipes(g, code):  # D-V-31 (b): the wipe takes the waiting modifiers too
                self._wipe_set_aside(w)

    def _wipe_set_aside(self, w: Work) -> None:
        """Unlucky 7 entered the target's line (V-033) under option ``unlucky7_flip_four:
        wiped`` (D-V-31): the modifiers set aside by this draw go to the discard pile with
        the line, in one more ``line_wiped`` event; its set-aside actions still wait."""
        g = w.game
        top = w.frames[-1]
        assert isinstance(top, ForcedDraw)
        mods = tuple(c for c in top.set_aside if g.category[c] == MODIFIER)
        if not mods:
            return
        rest = tuple(c for c in top.set_aside if g.category[c] != MODIFIER)
        w.frames[-1] = ForcedDraw(top.target, top.giver, top.card, top.remaining, rest)
        w.to_discard(*mods)
        w.emit(events.line_wiped(self.target, tuple(w.cid(c) for c in mods)))

    def settle(self, w: Work) -> bool:
        if w.players[self.target].status is BUSTED:  # F7-071
            w.frames.pop()
            self.finish(w, "bust")
            return True
        if self.remaining <= 0:
            w.frames.pop()
            self.finish(w, "complete")
            return True
        if holds_seven(w.game, w.players[self.target].line):  # V-044 (Dutch FAQ): stop at seven numbers, even barred (D-V-26)
            w.frames.pop()
            self.finish(w, "seven numbers")
            return True
        return supply(w, self)

    def held_cards(self) -> tuple[int, ...]:
        return (self.card, *self.set_aside)

    def end_with_round(self, w: Work) -> None:
        w.emit(events.forced_draw_ended(self.target, w.cid(self.card), "round ended"))
        for c in self.set_aside:
            if c != self.card:  # a set-aside copy of the draw's own card goes unannounced (as since 0.1.0)
                w.emit(events.discarded(w.cid(c), None, "round ended"))
        w.to_discard(*self.held_cards())

    def exhaust(self, w: Work) -> None:
        self.finish(w, "exhausted")

    def finish(self, w: Work, outcome: str) -> None:
        """End the draw: discard its card (F7-078); the target stays if the card says so
        (V-043); set-aside cards are assigned unless the target busted (F7-073, option
        ``flip_three_bust``)."""
        eff = _effect(w.game, self.card)
        w.to_discard(self.card)
        w.emit(events.forced_draw_ended(self.target, w.cid(self.card), outcome))
        if eff.then_stay and w.players[self.target].status is ACTIVE:  # V-043: then stay, even with The Zero
            w.set_status(self.target, STAYED)
            w.emit(events.stayed(self.target, w.cid(self.card)))
        if eff.then_stay and not w.players[self.target].flip7_barred and bars_flip7(w.game, w.players[self.target]):
            w.bar_flip7(self.target)  # D-V-26: stopped by Just One More while holding The Zero
        if not self.set_aside:
            return
        if outcome == "bust" and eff.on_bust == "discard":
            for c in self.set_aside:
                w.to_discard(c)
                w.emit(events.discarded(w.cid(c), self.target, "target busted"))
            return
        chooser = self.target if eff.assigner == "target" else self.giver
        if eff.resolution == "in-order":  # V-044: one by one, in reveal order
            below = w.frames[-1] if w.frames else None
            if isinstance(below, InOrder) and not below.cards:
                w.frames[-1] = InOrder(chooser, self.set_aside)  # an emptied queue is replaced, not stacked on
            else:
                w.frames.append(InOrder(chooser, self.set_aside))
        else:
            w.frames.append(Assign(chooser, self.target, self.set_aside))


register_frame(ForcedDraw)

class Assign(Frame):
    """A decision: ``chooser`` assigns set-aside cards in reveal order (F7-073, F7-074).

    Attributes:
        chooser: who assigns.
        owner: the forced draw's target (receives set-aside Second Chances).
        cards: the set-aside card codes, in reveal order.
        targets: the seats chosen so far (-1: no eligible seat, discarded).
    """

    name: ClassVar[str] = "assign"
    FIELDS: ClassVar[tuple[str, ...]] = ("chooser", "owner", "cards", "targets")
    KINDS: ClassVar[tuple[str, ...]] = ("int", "int", "tuple[int, ...]", "tuple[target, ...]")

    chooser: Final[int]
    owner: Final[int]
    cards: Final[tuple[int, ...]]
    targets: Final[tuple[int, ...]]

    def __init__(self, chooser: int, owner: int, cards: tuple[int, ...], targets: tuple[int, ...] = ()) -> None:
        self.chooser = chooser
        self.owner = owner
        self.cards = cards
        self.targets = targets

    def key(self) -> tuple[Any, ...]:
        return (self.chooser, self.owner, self.cards, self.targets)

    def allowed(self, game: GameTables, players: Sequence[Player]) -> tuple[int, ...]:
        """The seats the next card may be assigned to."""
        card = self.cards[len(self.targets)]
        eff = game.effect[card]
        return targets_for(game, players, card, self.chooser, eff.targets if eff is not None else "active")

    def decider(self) -> int:
        return self.chooser

    def legal(self, game: GameTables, players: Sequence[Player]) -> list[Action]:
        return [target(s) for s in self.allowed(game, players)]

    def pending(self, game: GameTables) -> tuple[str, str | None]:
        return ("assign", game.card_ids[self.cards[len(self.targets)]])

    def check(self, game: GameTables, players: int) -> tuple[str, str] | None:
        """A target is a seat, or -1 where no seat could take the card (`settle` writes it
        and goes on with the next card, which a table may let some seat take); a card is
        still to be assigned (an assignment complete is resolved at once, F7-074)."""
        if any(t >= players for t in self.targets):
            return ("targets", f"a list of seats 0..{players - 1}, or -1 for a card no seat could take")
        if len(self.targets) >= len(self.cards):
            return ("targets", f"fewer targets than cards ({len(self.cards)}): a complete assignment is resolved at once")
        return None

    def decide(self, w: Work, act: Action) -> None:
        seat = act.args[0]
        w.emit(events.assigned(self.chooser, w.cid(self.cards[len(self.targets)]), seat))
        w.frames.append(Assign(self.chooser, self.owner, self.cards, (*self.targets, seat)))

    def settle(self, w: Work) -> bool:
        g = w.game
        if len(self.targets) == len(self.cards):
            items = tuple((c, t, self.chooser) for c, t in zip(self.cards, self.targets, strict=True))
            below = w.frames[-2] if len(w.frames) > 1 else None
            if isinstance(below, Resolve) and (g.set_aside_order == "queue" or not below.items):
                # F7-074, D-F7-13 (publisher, BGG-FAQ c16(c)): the cards of a nested Flip Three
                # join the queue after the assignments made before them (an empty queue is
                # simply continued, so the stack never grows without a card, F7-116).
                w.frames.pop()
                w.frames[-1] = Resolve((*below.items, *items))
            else:  # newest-first: they act before the outer queue goes on
                w.frames[-1] = Resolve(items)
            return True
        card = self.cards[len(self.targets)]
        eff = g.effect[card]
        if eff is not None and eff.guards_bust():  # a set-aside Second Chance goes to the forced draw's target
            w.frames[-1] = Assign(self.chooser, self.owner, self.cards, (*self.targets, self.owner))
            return True
        if not self.allowed(g, w.players):
            w.frames[-1] = Assign(self.chooser, self.owner, self.cards, (*self.targets, -1))
            return True
        return False

    def held_cards(self) -> tuple[int, ...]:
        return self.cards


register_frame(Assign)

class Resolve(Frame):
    """Assigned cards taking effect in assignment order: ``(card, target, chooser)`` items
    (F7-074, F7-075)."""

    name: ClassVar[str] = "resolve"
    FIELDS: ClassVar[tuple[str, ...]] = ("items",)
    KINDS: ClassVar[tuple[str, ...]] = ("tuple[tuple[int, int, int], ...]",)
    automatic: ClassVar[bool] = True

    items: Final[tuple[tuple[int, int, int], ...]]

    def __init__(self, items: tuple[tuple[int, int, int], ...]) -> None:
        self.items = items

    def key(self) -> tuple[Any, ...]:
        return (self.items,)

    def settle(self, w: Work) -> bool:
        if not self.items:
            w.frames.pop()
            return True
        (card, seat, chooser), rest = self.items[0], self.items[1:]
        w.frames[-1] = Resolve(rest)
        eff = w.game.effect[card]
        if seat >= 0 and eff is not None:
            eff.assigned(w, card, chooser, seat)
        elif seat >= 0 and seat in eligible(w.players, "active"):  # a set-aside card that is no action (a house table)
            receive(w, card, seat)  # it arrives like a drawn card (F7-035), as Assign offered it to an active seat
        else:
            w.to_discard(card)
            w.emit(events.discarded(w.cid(card), seat if seat >= 0 else None, "target no longer eligible"))
        return True

    def held_cards(self) -> tuple[int, ...]:
        return tuple(item[0] for item in self.items)


register_frame(Resolve)

class InOrder(Frame):
    """Set-aside cards resolved one by one in reveal order, each as if ``chooser`` had
    just received it (V-044); carried out even if the chooser busts meanwhile."""

    name: ClassVar[str] = "in_order"
    FIELDS: ClassVar[tuple[str, ...]] = ("chooser", "cards")
    KINDS: ClassVar[tuple[str, ...]] = ("int", "tuple[int, ...]")
    automatic: ClassVar[bool] = True

    chooser: Final[int]
    cards: Final[tuple[int, ...]]

    def __init__(self, chooser: int, cards: tuple[int, ...]) -> None:
        self.chooser = chooser
        self.cards = cards

    def key(self) -> tuple[Any, ...]:
        return (self.chooser, self.cards)

    def settle(self, w: Work) -> bool:
        if not self.cards:
            w.frames.pop()
            return True
        w.frames[-1] = InOrder(self.chooser, self.cards[1:])
        card, g = self.cards[0], w.game
        if g.late_bust == "actions-only" and g.category[card] == MODIFIER and w.players[self.chooser].status is BUSTED:
            # D-V-32 (b): once the target has busted (a set-aside Just One More), only the actions are carried out
            w.to_discard(card)
            w.emit(events.discarded(w.cid(card), self.chooser, "target busted"))
            return True
        receive(w, card, self.chooser)
        return True

    def held_cards(self) -> tuple[int, ...]:
        return self.cards


register_frame(InOrder)
