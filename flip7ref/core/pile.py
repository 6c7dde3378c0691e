"""The draw pile: reshuffles and an exhausted deck (F7-113..F7-116, V-075).

`supply` is the one rule for a frame that needs a card: a card is waiting on the
pile (a chance node), or the discard pile is reshuffled into a new deck (at most
``game.reshuffles`` times in a round, F7-116), or no card is left and option
``empty_deck`` decides (F7-115): the round ends, or the draw is given up
(`flip7ref.core.frames.Frame.exhaust`).  With no card anywhere (`no_card_at_all`) the draw
is always given up, so that no move plays one empty round after another.
"""

from __future__ import annotations

import _random
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from flip7ref.core import events
from flip7ref.core.model import ACTIVE

if TYPE_CHECKING:
    from flip7ref.core.frames import Frame
    from flip7ref.core.model import Player
    from flip7ref.core.work import Work


def shuffled(cards: list[int], seed: str, count: int) -> None:
    """Put ``cards`` (card codes) in the order of the ``count``-th shuffle of a game seeded
    with ``seed``, in place: the first deck (``count`` 0, F7-010), each reshuffle of the
    discard pile (F7-113) and each fresh shuffle between rounds (D-F7-20).  Raises nothing.

    The order is the one ``random.Random(f"{seed}:{count}").shuffle(cards)`` gives on
    CPython 3.11 (a Fisher-Yates shuffle from the last position down, each position's
    partner drawn by rejection from ``getrandbits``), written out here so that the
    compiled build runs it as native code and a seeded game keeps its deal should a
    later Python change ``random.shuffle``; tests/test_fingerprint.py compares the two.
    The generator is seeded as ``random.Random`` seeds one from a string (version 2: the
    text's UTF-8 bytes followed by their SHA-512 digest, read as one big-endian number),
    without the interpreted ``Random.__init__`` and ``Random.seed``.
    """
    text = f"{seed}:{count}".encode()
    bits = _random.Random(int.from_bytes(text + _sha512(text), "big")).getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        width = n.bit_length()
        j = bits(width)
        while j >= n:
            j = bits(width)
        cards[i], cards[j] = cards[j], cards[i]


def _sha512(text: bytes) -> bytes:
    """The SHA-512 digest of ``text`` by the function `random` seeds with (imported by it, so no
    ``hashlib`` import at start-up), or by ``hashlib`` where `random` has none."""
    sha = vars(random).get("_sha512")
    if sha is None:
        import hashlib

        sha = hashlib.sha512
    digest: bytes = sha(text).digest()
    return digest


def reshuffle(w: Work) -> None:
    """F7-113: the discard pile becomes the new deck; cards on the table stay.  The new
    pile is ordered from ``shuffle_seed`` and the reshuffle count (sorted when open).
    Under reading ``unlimited`` the table's progress is marked (F7-117, `progress`)."""
    cards = sorted(w.discard)
    w.discard = ()
    w.shuffles += 1
    w.round_shuffles += 1
    if w.game.reshuffles_unlimited:
        w.shuffle_mark = progress(w.players)
    if w.shuffle_seed is not None:
        shuffled(cards, w.shuffle_seed, w.shuffles)
    w.draw = tuple(cards)
    w.emit(events.reshuffled(len(cards)))


def progress(players: Sequence[Player]) -> int:
    """What a round has achieved, for the loop guard of F7-117 and V-076: the cards lying in
    front of the players (lines and kept cards) plus the players out of the round (stayed,
    frozen or busted).  At most D + N (D cards, N players)."""
    return sum([len(p.line) + len(p.kept) + (p.status is not ACTIVE) for p in players])


def may_reshuffle(w: Work) -> bool:
    """The one decider of F7-116, F7-117 and V-075, V-076: whether the discard pile is
    reshuffled into a new deck now that the deck is empty.  There must be a discard pile;
    under a whole-number reading of option ``reshuffles`` at most that many reshuffles a
    round (F7-116); under reading ``unlimited`` every time, as the rulebooks say, unless the
    round has made no progress (`progress`) since its last reshuffle, where the cards would
    only go round again: the deck then counts as exhausted (F7-117), so every round ends."""
    if not w.discard or w.round_shuffles >= w.game.reshuffles:
        return False
    return not w.game.reshuffles_unlimited or w.shuffle_mark < 0 or progress(w.players) > w.shuffle_mark


def no_card_at_all(w: Work) -> bool:
    """Whether the work holds no card anywhere: no deck, no discard pile, nothing in front of
    a player and no card on a pending frame.  Under ``empty_deck: end-round`` such a round would
    end at its first draw and the next one at its own, for ever within one move; `supply`
    then gives the draw up instead, as under ``stay`` (docs/termination.md).  The builders
    and `State.from_dict` refuse such positions (`flip7ref.core.position.check_can_end`); only a
    table whose deck is empty could still reach one."""
    if w.draw or w.discard:
        return False
    return not any(p.line or p.kept for p in w.players) and not any(f.held_cards() for f in w.frames)


def supply(w: Work, top: Frame) -> bool:
    """``top`` (a draw on top of the stack) needs a card.

    Returns:
        False when a card is on the pile (the state is a chance node); True after
        a reshuffle (F7-113, F7-114, F7-116) or an exhausted deck (F7-115).
    """
    if w.draw:
        return False
    if may_reshuffle(w):  # F7-116, F7-117
        reshuffle(w)
        return True
    looped = bool(w.discard) and w.game.reshuffles_unlimited and w.round_shuffles < w.game.reshuffles
    w.emit(events.deck_exhausted("no progress since the last reshuffle" if looped else None))  # F7-115, F7-117
    if w.game.empty_deck == "end-round" and not no_card_at_all(w):
        w.round_over = True
        return True
    w.frames.pop()
    top.exhaust(w)
    return True
