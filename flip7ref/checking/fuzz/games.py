"""Random games for `flip7ref.checking.fuzz`: a game (`Trial`), played on the reference (`play`), and the piles,
tables and strategies the generators of `flip7ref.checking.fuzz.portfolio` draw them from."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from flip7ref.checking.fuzz.corpus import scripted, seeded
from flip7ref.checking.harness import supports
from flip7ref.checking.verdict import engine_options
from flip7ref.core.edition import CATEGORIES
from flip7ref.core.errors import Flip7RefError
from flip7ref.core.game import Game
from flip7ref.core.spec import load_edition
from flip7ref.core.state import CHANCE, TERMINAL, State

ACTION = CATEGORIES.index("action")
"""The category code of action cards (`flip7ref.core.game.Game.category`)."""
NUMBER = CATEGORIES.index("number")
"""The category code of number cards (`flip7ref.core.game.Game.category`)."""
MAX_DECISIONS = 120
"""The most decisions in one game."""
MAX_ROUNDS = 3
"""The most rounds in one game (its starting round and two more)."""
MIN_PLAYERS = 3
"""Flip 7 is for three or more players: games use at least three when the engine plays them."""


@attrs.frozen
class Trial:
    """One game: its setup and its decisions.

    Attributes:
        edition: the edition id.
        options: the readings played (the non-default ones, as `engine_options` gives them).
        players: the player count.
        dealer: the dealing seat.
        draw: the pile, top first (card ids; the deck's other cards are out of play).
        choices: each decision as an index into the legal actions there (taken modulo their number).
        totals: the starting totals, or None (all 0).
        round: the starting round number.
        discard: the starting discard pile (card ids).
        position: for a game starting in the middle of a round, its ``lines``, ``kept``,
            ``statuses`` and ``turn`` (as setup keys, in JSON); empty for a fresh round.
    """

    edition: str
    options: Mapping[str, Any]
    players: int
    dealer: int
    draw: tuple[str, ...]
    choices: tuple[int, ...]
    totals: tuple[int, ...] | None = None
    round: int = 1
    discard: tuple[str, ...] = ()
    position: str = ""

    def key(self) -> tuple[Any, ...]:
        """A hashable key of the trial (its options as sorted pairs)."""
        fields = attrs.astuple(self, recurse=False)
        return (fields[0], tuple(sorted(self.options.items())), *fields[2:])

    def cards(self) -> int:
        """The cards the game starts with: pile, discard pile and (mid-round) those on the table."""
        table = json.loads(self.position) if self.position else {}
        lying = sum(len(v) for key in ("lines", "kept") for v in (table.get(key) or {}).values())
        return len(self.draw) + len(self.discard) + lying

    def setup(self) -> dict[str, Any]:
        """The case ``setup`` of the game: a fresh round dealt from ``draw``, or the position."""
        out: dict[str, Any] = {"players": self.players, "dealer": self.dealer, "deal": True, "draw": list(self.draw)}
        if self.position:
            del out["deal"]
            out.update(json.loads(self.position))
        if self.round != 1:
            out["round"] = self.round
        if self.totals is not None and any(self.totals):
            out["totals"] = list(self.totals)
        if self.discard:
            out["discard"] = list(self.discard)
        return out


@attrs.frozen
class Played:
    """A `Trial` played on the reference.

    Attributes:
        actions: the actions taken (one per decision, as strings).
        states: the decision state after each prefix of ``actions`` (``states[k]``: after ``k``).
        horizon: the first step whose outcome depends on how a shuffle ordered the pile (the game
            stops there), or None.
        cut: at the horizon, how many of its events come before that shuffle.
        round_starts: round number -> (the state where its deal begins, its first decision's index).
    """

    actions: tuple[str, ...]
    states: tuple[State, ...]
    horizon: int | None
    cut: int
    round_starts: Mapping[int, tuple[State, int]]


Policy = Callable[[State, list[str]], int]


def case_base(trial: Trial) -> dict[str, Any]:
    """The case keys of a trial before its actions: edition, options, setup and kind."""
    return {"edition": trial.edition, "options": dict(trial.options), "setup": trial.setup(), "kind": "transition"}


def _shuffle_matters(before: State, after: State) -> bool:
    """Whether ``after`` followed a shuffle whose order matters (its new pile not all alike)."""
    return after.shuffles > before.shuffles and len(set(after.draw)) > 1


_GAMES: dict[tuple[Any, ...], Game] = {}


def _start(trial: Trial) -> State:
    """The starting state of a trial, as `flip7ref.checking.conformance.build_state` builds a case's (its
    `Game` kept between trials: building one takes milliseconds, and a game is immutable)."""
    setup = trial.setup()
    key = (trial.edition, trial.players, tuple(sorted(trial.options.items())))
    if key not in _GAMES:
        if len(_GAMES) > 64:
            _GAMES.clear()
        _GAMES[key] = Game(trial.edition, trial.players, dict(trial.options))
    seats = {name: {int(k): v for k, v in (setup.get(name) or {}).items()} for name in ("lines", "kept", "statuses")}
    return _GAMES[key].new_position(
        dealer=setup["dealer"], turn=setup.get("turn"), draw=setup["draw"], discard=setup.get("discard", ()),
        totals=setup.get("totals"), round_number=setup.get("round", 1), seed=0, rest="out",
        deal=setup.get("deal", False), **seats,
    )  # fmt: skip


def play(trial: Trial, policy: Policy | None = None, limit: int = MAX_DECISIONS, rounds: int = MAX_ROUNDS) -> Played:
    """Play a trial on the reference: its choices, then (with ``policy``, when generating) the
    policy's, until the game ends, ``limit`` decisions, ``rounds`` rounds (with a policy) or the
    first shuffle whose order matters.

    Raises:
        Flip7RefError: the setup is not a valid position (e.g. too few cards to deal).
    """
    state = _start(trial)
    horizon: int | None = None
    cut = 0
    starts: dict[int, tuple[State, int]] = {state.round: (state, 0)}
    actions: list[str] = []
    choices = list(trial.choices)

    def settle(current: State) -> State:
        nonlocal horizon, cut
        for _ in range(10_000):
            if current.current_player != CHANCE:
                return current
            card = current.next_card()
            assert card is not None
            nxt = current.apply_chance(card)
            watch(current, nxt)
            current = nxt
        raise Flip7RefError("no decision within 10,000 draws")

    def watch(before: State, after: State) -> None:
        nonlocal horizon, cut
        if horizon is None and _shuffle_matters(before, after):
            horizon, cut = len(actions), len(after.events())
        if after.round != before.round and after.round not in starts:
            starts[after.round] = (after, len(actions))

    state = settle(state)
    states = [state]
    while horizon is None and state.current_player != TERMINAL and len(actions) < limit:
        legal = state.legal_action_strings()
        index = len(actions)
        if index < len(choices):
            choice = choices[index]
        elif policy is not None and state.round < trial.round + rounds:
            choice = policy(state, legal)
            choices.append(choice)
        else:
            break
        action = legal[choice % len(legal)]
        actions.append(action)
        after = state.apply(action)
        watch(state, after)
        state = settle(after)
        states.append(state)
    return Played(tuple(actions), tuple(states), horizon, cut, starts)


def _policies(rng: random.Random, players: int) -> list[tuple[str, float, int]]:
    """One random strategy per seat: stay at a line value (threshold), stay at random, or always
    hit; and where it aims its actions: at random (-1), at the seat whose line holds the most
    cards (`players`), or always at one other seat, its victim (a seat number); in about one game
    in three every other seat aims at the same victim."""
    out: list[tuple[str, float, int]] = []
    victim = rng.randrange(players) if rng.random() < 0.3 else None  # now and then all gang up on one seat
    for seat in range(players):
        kind = rng.choice(("threshold", "threshold", "random", "hitter"))
        value = float(rng.randint(6, 40)) if kind == "threshold" else rng.uniform(0.05, 0.6)
        if victim is not None:
            aim = victim if seat != victim else players
        else:
            aim = rng.choice((-1, players, rng.choice([s for s in range(players) if s != seat] or [seat])))
        out.append((kind, value, aim))
    return out


def _aimed(state: State, legal: list[str], aim: int) -> int | None:
    """For a choice of target (every legal action ``target N``), the index of the one aimed at:
    the seat ``aim`` when it is a target, or (``aim`` beyond the seats) the leader, as a player
    aiming at the most dangerous line would choose: one holding a card that forbids staying (The
    Zero, whose holder a Just One More stops at 0), else the most numbers, else the most cards
    (the first such); else None (choose at random)."""
    seats = [a.split(" ", 1)[1] for a in legal if a.startswith("target ")]
    if aim < 0 or len(seats) != len(legal) or not all(s.isdigit() for s in seats):
        return None
    numbers = [int(s) for s in seats]
    if aim < state.num_players:
        return numbers.index(aim) if aim in numbers else None
    game = state.game
    ranks = []
    for n in numbers:
        line = state.players[n].line
        ranks.append((any(c in game.no_stay for c in line), sum(game.category[c] == NUMBER for c in line), len(line)))
    return ranks.index(max(ranks))


def _policy(rng: random.Random, seats: Sequence[tuple[str, float, int]]) -> Policy:
    def choose(state: State, legal: list[str]) -> int:
        kind, value, aim = seats[state.current_player % len(seats)]
        if "hit" in legal and "stay" in legal:
            if kind == "threshold":
                stay = state.line_value(state.current_player) >= value
            elif kind == "random":
                stay = rng.random() < value
            else:
                stay = False
            return legal.index("stay" if stay else "hit")
        aimed = _aimed(state, legal, aim) if rng.random() < 0.85 else None
        return rng.randrange(len(legal)) if aimed is None else aimed

    return choose


def _readings(
    rng: random.Random, impl: Mapping[str, Any], edition: str, share: float = 0.3, base: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Readings for one game: ``base`` (default none), then each declared option now and then
    (with chance ``share``) at a random declared reading (a random target score when the engine
    takes whole numbers), as the engine will play them."""
    offered = ((impl.get("editions") or {}).get(edition) or {}).get("options") or {}
    spec = load_edition(edition).options
    wanted: dict[str, Any] = dict(base or {})
    for name in sorted(offered):
        readings = [r for r in offered[name] or () if name in spec]
        if readings and rng.random() < share:
            wanted[name] = rng.choice(readings)
    if "target_score" in spec and rng.random() < share * 2 / 3:
        wanted["target_score"] = rng.randint(20, 150)
    return engine_options(impl, {"edition": edition, "options": wanted})


def _fresh_first(deck: list[str]) -> list[str]:
    """``deck`` reordered so that every kind of card comes once before any comes twice (then
    the second copies, and so on), each pass in the deck's order: rounds with long lines, where
    Flip 7s and the rules about them (The Zero, a stayed line receiving cards) come into play."""
    seen: dict[str, int] = {}
    ranked = []
    for position, card in enumerate(deck):
        seen[card] = seen.get(card, 0) + 1
        ranked.append((seen[card], position, card))
    return [card for _, _, card in sorted(ranked)]


def _pile(rng: random.Random, game: Game, positions: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A random pile and discard pile: the whole deck shuffled, sometimes each kind's first copy
    first (`_fresh_first`); a short pile; the action cards first (about one in three); a few
    kinds of card.  A short pile sometimes comes with a discard
    pile (for an engine playing positions), so that it is reshuffled within the first round."""
    deck = [game.card_ids[c] for c in game.deck]
    rng.shuffle(deck)
    mode = rng.random()
    if mode < 0.15:  # each kind's first copy before any second one: long lines, few busts
        return tuple(_fresh_first(deck)), ()
    if mode < 0.45:
        return tuple(deck), ()
    if mode < 0.85:
        if mode >= 0.7:  # the action cards first, one in three or so among the others
            actions = [c for c in deck if game.category[game.code(c)] == ACTION]
            others = [c for c in deck if game.category[game.code(c)] != ACTION]
            deck = []
            while actions or others:
                source = actions if actions and (not others or rng.random() < 0.35) else others
                deck.append(source.pop())
            if rng.random() < 0.5:
                return tuple(deck), ()
        size = rng.randint(game.players + 2, 45)
        if positions and rng.random() < 0.5:
            return tuple(deck[:size]), tuple(deck[size : size + rng.randint(3, 30)])
        return tuple(deck[:size]), ()
    kinds = set(rng.sample(sorted(set(deck)), rng.randint(1, 4)))
    few = [c for c in deck if c in kinds]
    if len(few) < game.players + 1:
        return tuple(deck), ()
    return tuple(few[: rng.randint(game.players + 1, max(game.players + 1, min(len(few), 30)))]), ()


def _near_flip7(rng: random.Random, game: Game) -> tuple[tuple[str, ...], str]:
    """A table in the middle of a round, near Flip 7s (for an engine playing positions): each
    seat holds up to six different numbers (now and then a modifier too; in half the tables one
    seat holds a card that forbids staying, such as The Zero, when the edition has one), a seat
    holding no such card has sometimes stayed; the pile is the rest of the deck, shuffled
    or each kind's first copy first, with two or three action cards near its top when such a
    card is in play (and now and then otherwise).  Rounds that long are rare from a fresh deal, and the rules
    about a line near seven numbers (Flip 7, a stayed line receiving cards) are played there.

    Returns:
        The pile (top first) and the table as `Trial.position` (JSON).
    """
    deck = [game.card_ids[c] for c in game.deck]
    rng.shuffle(deck)
    lines: dict[str, list[str]] = {}
    statuses: dict[str, str] = {}
    unstoppable = sorted({c for c in deck if game.code(c) in game.no_stay})
    holder = rng.randrange(game.players) if unstoppable and rng.random() < 0.5 else None
    for seat in range(game.players):
        numbers = sorted({c for c in deck if game.category[game.code(c)] == NUMBER})
        modifiers = sorted({c for c in deck if game.category[game.code(c)] not in (NUMBER, ACTION)})
        line = rng.sample(numbers, rng.randint(0, min(6, len(numbers))))
        left = [c for c in unstoppable if c in deck]
        if seat == holder and left and not any(c in unstoppable for c in line):  # now and then The Zero is in play
            line = [*line[:5], rng.choice(left)]
        if modifiers and rng.random() < 0.3:
            line.insert(rng.randrange(len(line) + 1), rng.choice(modifiers))
        for card in line:
            deck.remove(card)
        if line:
            lines[str(seat)] = line
            if rng.random() < 0.2 and not any(game.code(c) in game.no_stay for c in line):
                statuses[str(seat)] = "stayed"
    active = [seat for seat in range(game.players) if str(seat) not in statuses]
    if not active:
        statuses.pop(str(game.players - 1), None)
        active = [game.players - 1]
    table = {"lines": lines, "statuses": statuses, "turn": rng.choice(active)}
    pile = _fresh_first(deck) if rng.random() < 0.5 else deck
    if holder is not None or rng.random() < 0.3:  # action cards come next, each after a number or two
        actions = [c for c in pile if game.category[game.code(c)] == ACTION]
        rng.shuffle(actions)
        top = actions[: rng.randint(2, 3)]
        for card in top:
            pile.remove(card)
        rest = iter(pile)
        head = [x for card in top for x in (card, *[c for _, c in zip(range(rng.randint(0, 2)), rest, strict=False)])]
        pile = [*head, *rest]
    return tuple(pile), json.dumps(table, sort_keys=True)


def _totals(rng: random.Random, target: int, players: int) -> tuple[int, ...] | None:
    """Starting totals: none mostly; now and then near the target (so the game ends), or with two
    seats tied at about the target (so a tie at the end is likely)."""
    mode = rng.random()
    if mode < 0.7:
        return None
    totals = [max(0, target - rng.randint(1, max(1, min(target, 60)))) for _ in range(players)]
    if mode < 0.85:
        return tuple(totals)
    tied = max(0, target + rng.randint(-10, 10))
    for seat in rng.sample(range(players), 2):
        totals[seat] = tied
    return tuple(totals)


def player_range(impl: Mapping[str, Any]) -> tuple[int, int]:
    """The player counts games use: the engine's declared bounds (protocol v2 ``players``),
    at least `MIN_PLAYERS` when the engine plays that many, at most 6."""
    bounds = impl.get("players")
    low, high = bounds if isinstance(bounds, list) and len(bounds) == 2 else (None, None)
    low = 1 if low is None else int(low)
    high = 6 if high is None else min(int(high), 6)
    if high >= MIN_PLAYERS:
        low = max(low, MIN_PLAYERS)
    return low, max(low, high)


def _played(trial: Trial, policy: Policy, rounds: int = MAX_ROUNDS) -> tuple[Trial, Played] | None:
    try:
        played = play(trial, policy, rounds=rounds)
    except Flip7RefError:
        return None
    if not played.actions and played.horizon is None:
        return None
    choices = tuple(st.legal_action_strings().index(a) for st, a in zip(played.states, played.actions, strict=False))
    return attrs.evolve(trial, choices=choices), played


def _from_case(
    rng: random.Random, impl: Mapping[str, Any], edition: str, players: tuple[int, int]
) -> tuple[Trial, Played] | None:
    """A game from the table of a random shipped case (`flip7ref.checking.fuzz.corpus.seeded`) under its
    own readings as the engine plays them, a few changed at random: its decisions while legal,
    then a random strategy per seat, to the end of that round (short games: the engine is asked
    the game so far at every decision)."""
    made = seeded(rng, edition, lambda own: _readings(rng, impl, edition, 0.1, own), players)
    if made is None:
        return None
    fields, script, count, options = made
    if fields["totals"] is None:  # now and then near the end of the game, as fresh games are
        try:
            target = Game(edition, count, dict(options)).target_score
        except Flip7RefError:
            return None
        fields["totals"] = _totals(rng, target, count)
    trial = Trial(edition, options, count, choices=(), **fields)
    if supports(impl, {**case_base(trial), "id": "", "rules": [], "source": ""}) is not None:
        return None
    return _played(trial, scripted(script, _policy(rng, _policies(rng, count))), rounds=1)
