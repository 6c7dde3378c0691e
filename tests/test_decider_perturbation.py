"""One decider per rule, proved on every path: each decider of `flip7ref.core.deciders.DECIDERS`
is rebound to a deliberately wrong answer, and every surface must follow it.

A rule restated anywhere (a second copy of the rule, inline or in another function) keeps
the right answer where the decider now gives the wrong one, so the surfaces disagree:

- ``play``: seeded games played through `State.apply` / `State.apply_chance` with the fast
  lanes off show the wrong answer (a row's own witness);
- ``lanes``: the same games with the fast lanes on reach the same states, move for move;
- ``simulate``: `flip7ref.play.games.play` (the simulate loop) ends each game in the same state;
- ``reload``: every state reached reloads unchanged (`State.to_dict` / `State.from_dict`,
  whose position checks ask the deciders), and the last one with its log replayed;
- ``scoring``: `State.line_value`, `round_scores` and `seat_breakdown` give the decider's
  round score for every seat of every state;
- ``scorepad``: the table's score pad rebuilds every round's scores (no breakdown left out);
- ``strategies``: the threshold strategy decides an offer by the decider's score and Stay;
- ``rl``: the RL observation's line values are the decider's scores.

The rebinding replaces the function object at its home and at every module of flip7ref that
bound it by name (``from .lines import is_duplicate``); a method is replaced on its class.
A second test plants a restatement and shows the check reports it.  Pure build only:
compiled modules cannot be rebound.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from helpers import flip7ref_bindings, mixed_strategies, seeded_trace

import flip7ref
from flip7ref import Game, State
from flip7ref.core.deciders import DECIDERS
from flip7ref.core.model import BUSTED, NUMBER, STAYED, Player, make_player

pytestmark = pytest.mark.skipif(flip7ref.compiled, reason="rebinds functions at runtime: compiled modules bind them for good")

SEEDS = range(6)
"""The seeded games played per row (each with the fast lanes off and on, and simulated)."""


def _resolve(path: str) -> tuple[Any, str]:
    """``(owner, name)`` of a dotted path: a module and a function, or a class and a method."""
    parts = path.split(".")
    for i in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:i])
        try:
            owner: Any = __import__(module, fromlist=["_"])
        except ImportError:
            continue
        for name in parts[i:-1]:
            owner = getattr(owner, name)
        return owner, parts[-1]
    raise AssertionError(path)


@contextmanager
def rebound(path: str, wrong: Callable[[Any], Any]) -> Iterator[Any]:
    """Rebind the decider at ``path`` to ``wrong(original)`` everywhere it is bound, and
    clear the per-game caches of decided values; yields the original."""
    import flip7ref.core.position as position

    owner, name = _resolve(path)
    original = getattr(owner, name)
    replacement = wrong(original)
    with pytest.MonkeyPatch.context() as mp:
        if isinstance(owner, type):
            mp.setattr(owner, name, replacement)  # a method: every call looks it up on the class
        else:
            places = flip7ref_bindings(original)
            assert (owner, name) in places, path
            for module, attr in places:
                mp.setattr(module, attr, replacement)
        mp.setattr(position, "_LONE_SCORES", {})  # seat_score's values cached per game
        yield original


# --------------------------------------------------------------------------- playing


def _simulated(game: Game, seed: int) -> State:
    import flip7ref.core.state as state_module
    import flip7ref.play.games as play_module

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(state_module, "_FAST_LANES", True)
        return play_module.play(game.new_initial_state(seed=seed), mixed_strategies(), random.Random(seed))


# --------------------------------------------------------------------------- the surfaces


def _seat_values(s: State) -> list[int]:
    """Every seat's round score now, by the (rebound) decider."""
    import flip7ref.core.scoring as scoring

    return [scoring.seat_score(s.game, seat, p.line, p.status is BUSTED, s.flip7, s.bonus_to) for seat, p in enumerate(s.players)]


def _scoring(s: State) -> str | None:
    import flip7ref.core.scoring as scoring

    values = _seat_values(s)
    shown = [s.line_value(seat) for seat in range(len(s.players))]
    if shown != values:
        return f"State.line_value {shown} != seat_score {values}"
    scored = list(scoring.round_scores(s.game, s.players, s.flip7, s.bonus_to))
    if scored != values:
        return f"round_scores {scored} != seat_score {values}"
    broken = [
        scoring.seat_breakdown(s.game, seat, p.line, p.status is BUSTED, s.flip7, s.bonus_to).score
        for seat, p in enumerate(s.players)
    ]
    return None if broken == values else f"seat_breakdown {broken} != seat_score {values}"


def _offer(s: State) -> list[str]:
    """The answers of an offer at ``s`` (``["hit", "stay"]`` or ``["hit"]``), else []."""
    if s.is_chance_node() or s.is_terminal() or s.frames:
        return []
    legal = [str(a) for a in s.legal_actions()]
    return legal if "hit" in legal else []


def _strategy(s: State) -> str | None:
    import flip7ref.core.lines as lines
    from flip7ref.play.strategies import ThresholdStrategy

    if not _offer(s):
        return None
    seat = s.current_player
    p = s.players[seat]
    stay = _seat_values(s)[seat] >= 25 and lines.may_stay(s.game, p)
    chose = ThresholdStrategy(25).choose(s, random.Random(0))
    want = "stay" if stay else "hit"
    return None if str(chose) == want else f"threshold:25 chose {chose} where the deciders say {want}"


def _rl(s: State, encoder: Any) -> str | None:
    from flip7ref.rl.incremental import clip_points

    start, size = encoder.sections["line_values"]
    vector = encoder.encode_array(s, None)
    got = [float(v) for v in vector[start : start + size]]
    want = [clip_points(v) for v in _seat_values(s)]
    return None if got == want else f"line_values {got} != seat_score {want}"


def _reload(s: State) -> str | None:
    try:
        back = State.from_dict(json.loads(json.dumps(s.to_dict(log=False))), s.game)
    except flip7ref.Flip7RefError as exc:
        return f"refused: {exc}"
    return None if back == s else "changed on reload"


def _scorepad(game: Game, seed: int, states: list[State]) -> str | None:
    from flip7ref.table.scorepad import ScorePad

    pad = ScorePad(
        game_id="perturbation", path=Path("perturbation.json"), game=game, mode="dealer", names=["a", "b", "c"][: game.players],
        dealer=0, seed=seed, lang="en", token="t", created="",
    )  # fmt: skip
    pad.states = list(states)
    for row in pad.score_pad()["rounds"]:
        if None in row["breakdown"]:
            return f"round {row['round']}: scores {row['scores']} not rebuilt by seat_breakdown"
    return None


def check(row: Row, seeds: Sequence[int] = SEEDS) -> dict[str, str]:
    """Play ``row``'s games under its wrong decider: ``{surface: the first disagreement}``
    (empty when every surface follows the decider)."""
    from flip7ref.rl.encoding import ObservationEncoder

    game = Game(row.edition, 3, dict(row.options))
    assert game.fast_lanes, row
    fails: dict[str, str] = {}

    def fail(surface: str, why: str) -> None:
        fails.setdefault(surface, why)

    traces = []
    with ExitStack() as stack:
        stack.enter_context(rebound(row.function, row.wrong))
        for function, wrong in row.also:
            stack.enter_context(rebound(function, wrong))
        encoder = ObservationEncoder(game)
        for seed in seeds:
            general = seeded_trace(game, seed, lanes=False)
            traces.append(general)
            fast = seeded_trace(game, seed, lanes=True)
            if [t.history() for t in fast] != [t.history() for t in general] or fast != general:
                at = next(
                    (i for i, (a, b) in enumerate(zip(fast, general, strict=False)) if a != b), min(len(fast), len(general))
                )
                fail(
                    "lanes", f"seed {seed}: the fast lanes leave the general path at move {at}: {general[at - 1].history()[-3:]}"
                )
            try:
                if _simulated(game, seed) != general[-1]:
                    fail("simulate", f"seed {seed}: flip7ref.play.games.play ends in another state")
            except flip7ref.Flip7RefError as exc:
                fail("simulate", f"seed {seed}: {exc}")
            why = _scorepad(game, seed, general)
            if why:
                fail("scorepad", f"seed {seed}: {why}")
            for i, s in enumerate(general):
                for surface, probe in (("reload", _reload), ("scoring", _scoring), ("strategies", _strategy)):
                    why = probe(s)
                    if why:
                        fail(surface, f"seed {seed}, move {i}: {why}")
                if not s.is_chance_node():
                    why = _rl(s, encoder)
                    if why:
                        fail("rl", f"seed {seed}, move {i}: {why}")
            try:
                if State.from_dict(json.loads(json.dumps(general[-1].to_dict())), game) != general[-1]:
                    fail("reload", f"seed {seed}: the game's log replays to another state")
            except flip7ref.Flip7RefError as exc:
                fail("reload", f"seed {seed}: the game's log is refused: {exc}")
        if not row.witness(traces):
            fail("play", "play does not show the wrong answer")
    return fails


# --------------------------------------------------------------------------- the wrong answers


class Row(NamedTuple):
    """A decider's perturbation: ``wrong(original)`` is the wrong decider; ``witness``
    tells, from the games played (lists of states), that play followed it."""

    function: str
    wrong: Callable[[Any], Any]
    witness: Callable[[list[list[State]]], bool]
    edition: str = "flip7"
    options: tuple[tuple[str, Any], ...] = ()
    also: tuple[tuple[str, Callable[[Any], Any]], ...] = ()
    """Other deciders rebound with this one, when the wrong answer reaches a rule another
    decider owns (a bar for everyone must also last without The Zero, or V-037 lifts it)."""
    seeds: Sequence[int] = SEEDS


def _steps(traces: list[list[State]]) -> Iterator[tuple[State, State]]:
    for states in traces:
        yield from itertools.pairwise(states)


def _events(s: State) -> list[Any]:
    return list(s.last_events())


def _numbers(game: Game, line: Sequence[int]) -> list[int]:
    return [game.rank[c] for c in line if game.category[c] == NUMBER]


def _two_twelves(traces: list[list[State]]) -> bool:
    return any(
        _numbers(s.game, p.line).count(12) == 2 and p.status is not BUSTED for states in traces for s in states for p in s.players
    )


def _twelve_busts(traces: list[list[State]]) -> bool:
    return any(
        e.type == "busted" and e.get("card") == "12" and 12 not in _numbers(a.game, a.players[e.get("seat")].line)
        for a, b in _steps(traces)
        for e in _events(b)
    )


def _unlucky_seven_joins(traces: list[list[State]]) -> bool:
    return any(
        any("wipe_on_enter" in s.game.traits[c] for c in p.line[1:]) for states in traces for s in states for p in s.players
    )


def _stay_beside_the_zero(traces: list[list[State]]) -> bool:
    return any(
        any(e.type == "stayed" for e in _events(b)) and any(c in a.game.no_stay for c in a.players[a.current_player].line)
        for a, b in _steps(traces)
        if not a.is_chance_node() and not a.is_terminal()
    )


def _twelve_wipes(traces: list[list[State]]) -> bool:
    return any(
        any(e.type == "line_wiped" for e in _events(b)) and any(e.type == "dealt" and e.get("card") == "12" for e in _events(b))
        for _, b in _steps(traces)
    )


def _flip7_of_six(traces: list[list[State]]) -> bool:
    made = [(a, e.get("seat")) for a, b in _steps(traces) for e in _events(b) if e.type == "flip7"]
    return bool(made) and all(len(set(_numbers(a.game, a.players[seat].line))) == 5 for a, seat in made)


def _past_seven(traces: list[list[State]]) -> bool:
    return any(
        len(set(_numbers(s.game, p.line))) >= s.game.flip7_distinct and p.status is not BUSTED
        for states in traces for s in states for p in s.players
    )  # fmt: skip


def _barred_without_zero(traces: list[list[State]]) -> bool:
    return any(p.flip7_barred for states in traces for s in states for p in s.players)


def _bar_outlives_the_zero(traces: list[list[State]]) -> bool:
    """A player still barred after The Zero left their line (V-037 rebound to "the bar lasts")."""
    return any(
        p.flip7_barred and not any(c in s.game.no_stay for c in p.line) for states in traces for s in states for p in s.players
    )


def _stay_at_three(traces: list[list[State]]) -> bool:
    import flip7ref.core.lines as lines

    refused = 0
    for states in traces:
        for s in states:
            legal = _offer(s)
            if not legal:
                continue
            p = s.players[s.current_player]
            if ("stay" in legal) != (len(p.line) >= 3 and lines.may_stay(s.game, p)):
                return False
            refused += len(p.line) < 3
    return refused > 0


def _bust_beside_second_chance(traces: list[list[State]]) -> bool:
    return any(
        any(e.type == "busted" for e in _events(b))
        and any(b.game.card_ids[c] == "second_chance" for p in b.players for c in p.kept)
        for _, b in _steps(traces)
    )


def _guard_kept(traces: list[list[State]]) -> bool:
    used = [(b, e.get("seat")) for _, b in _steps(traces) for e in _events(b) if e.type == "second_chance_used"]
    return bool(used) and all(any(b.game.card_ids[c] == "second_chance" for c in b.players[seat].kept) for b, seat in used)


def _frozen_stays(traces: list[list[State]]) -> bool:
    frozen = [(b, e.get("seat")) for _, b in _steps(traces) for e in _events(b) if e.type == "frozen"]
    return bool(frozen) and all(b.players[seat].status is STAYED for b, seat in frozen if b.players[seat].line)


def _seat0_plus_1000(traces: list[list[State]]) -> bool:
    scored = [e.get("scores") for _, b in _steps(traces) for e in _events(b) if e.type == "round_scored"]
    return bool(scored) and all(scores[0] >= 900 and max(scores[1:]) < 900 for scores in scored)


def _maker_not_offered(traces: list[list[State]]) -> bool:
    """Brutal Mode's Flip 7 choices offered, none of them the maker's own +15 (V-085 rebound)."""
    choices = [s for states in traces for s in states if s.frames and s.frames[-1].name == "flip7_choice"]
    return bool(choices) and all(f"target {s.flip7}" not in {str(a) for a in s.legal_actions()} for s in choices)


def _barred_flip7(traces: list[list[State]]) -> bool:
    """A Flip 7 made by a seat barred by Just One More (V-086 rebound: every Flip Four lifts the bar)."""
    return any(
        e.type == "flip7" and a.players[e.get("seat")].flip7_barred for a, b in _steps(traces) for e in _events(b)
    )


def _moved_to_front(traces: list[list[State]]) -> bool:
    """Stolen cards lie first in the thief's line (V-087 rebound: a moved card goes to the front)."""
    stolen = [
        (b.players[e.get("seat")].line, e.get("card"), b)
        for a, b in _steps(traces)
        if b.round == a.round
        for e in _events(b)
        if e.type == "stolen"
    ]
    shown = [(line, card, b) for line, card, b in stolen if len(line) > 1]
    return bool(shown) and all(b.game.card_ids[line[0]] == card for line, card, b in shown)


def _round_ends_at_a_stay(traces: list[list[State]]) -> bool:
    stays = [b for _, b in _steps(traces) if any(e.type == "stayed" for e in _events(b)) and not b.frames]  # no work pending
    return bool(stays) and all(p.status is not STAYED for b in stays for p in b.players)


def _dealer_steps_two(traces: list[list[State]]) -> bool:
    dealers = [
        [e.get("dealer") for _, b in itertools.pairwise(st) for e in _events(b) if e.type == "round_started"] for st in traces
    ]
    return any(len(d) > 1 for d in dealers) and all(b == (a + 2) % 3 for d in dealers for a, b in itertools.pairwise(d))


def _ends_at_half(traces: list[list[State]]) -> bool:
    finals = [states[-1] for states in traces]
    return all(s.is_terminal() and max(s.totals) < s.game.target_score for s in finals)


def _wrong_duplicate(original: Any) -> Any:
    return lambda game, line, code: False if game.rank[code] == 12 else original(game, line, code)


def _wrong_wipes(original: Any) -> Any:
    return lambda game, code: original(game, code) or (game.category[code] == NUMBER and game.rank[code] == 12)


def _wrong_holds_seven(original: Any) -> Any:
    import flip7ref.core.lines as lines

    count = lines.flip7_count
    return lambda game, line: count(game, line) >= game.flip7_distinct - 1


def _wrong_flip7_line(original: Any) -> Any:
    import flip7ref.core.lines as lines

    count = lines.flip7_count
    return lambda game, line, barred=False: not barred and count(game, line) >= game.flip7_distinct - 1


def _wrong_bar(original: Any) -> Any:
    return lambda game, p: p.status is not BUSTED  # everyone Just One More stops, whatever the reading


def _wrong_may_stay(original: Any) -> Any:
    return lambda game, p: len(p.line) >= 3 and original(game, p)


def _wrong_use_guard(original: Any) -> Any:
    def use_guard(self: Any, w: Any, seat: int, code: int, guard: int) -> None:
        original(self, w, seat, code, guard)
        p = w.players[seat]
        w.set_kept(seat, (*p.kept, guard))  # the Second Chance stays in front of its holder
        w.discard = tuple(w.discard)[:-1]

    return use_guard


def _wrong_freeze(original: Any) -> Any:
    def play(self: Any, w: Any, code: int, chooser: int, seat: int) -> None:
        original(self, w, code, chooser, seat)
        p: Player = w.players[seat]
        w.players[seat] = make_player((p.line, p.kept, STAYED, p.flip7_barred))

    return play


def _wrong_terms(original: Any) -> Any:
    def terms(game: Game, seat: int, busted: bool, flip7: int | None, bonus_to: int | None) -> tuple[bool, bool, int]:
        made, bonus, penalty = original(game, seat, busted, flip7, bonus_to)
        return made, bonus, penalty - (1000 if seat == 0 else 0)

    return terms


def _wrong_seat_score(original: Any) -> Any:
    return lambda game, seat, *rest: original(game, seat, *rest) + (1000 if seat == 0 else 0)


def _wrong_round_over(original: Any) -> Any:
    def round_over(players: Sequence[Player] | None, flip7: int | None, declared: bool) -> bool:
        if players is not None and any(p.status is STAYED for p in players):
            return True  # the round ends at the first Stay
        return original(players, flip7, declared)  # type: ignore[no-any-return]

    return round_over


def _wrong_plan(original: Any) -> Any:
    def plan(game: Game, players: Sequence[Player], totals: Sequence[int], round: int, dealer: int, *rest: Any) -> Any:
        out = original(game, players, totals, round, dealer, *rest)
        return out if out.winners else out._replace(dealer=(dealer + 2) % len(players))

    return plan


def _wrong_game_end(original: Any) -> Any:
    return lambda game, totals: original(game, [2 * t for t in totals])


ROWS: tuple[Row, ...] = (
    Row("flip7ref.core.lines.is_duplicate", _wrong_duplicate, _two_twelves),
    Row(
        "flip7ref.core.lines.is_duplicate",
        lambda original: (
            lambda game, line, code: original(game, line, code) or (game.rank[code] == 12 and bool(_numbers(game, line)))
        ),
        _twelve_busts,
    ),
    Row("flip7ref.core.lines.wipes", _wrong_wipes, _twelve_wipes, "vengeance"),
    Row("flip7ref.core.lines.wipes", lambda original: lambda game, code: False, _unlucky_seven_joins, "vengeance"),
    Row("flip7ref.core.lines.holds_seven", _wrong_holds_seven, _flip7_of_six),
    Row("flip7ref.core.lines.holds_seven", lambda original: lambda game, line: False, _past_seven),
    Row("flip7ref.core.lines.flip7_line", _wrong_flip7_line, _flip7_of_six),
    Row("flip7ref.core.lines.flip7_line", lambda original: lambda game, line, barred=False: False, _past_seven),
    Row(
        "flip7ref.core.lines.bars_flip7",
        _wrong_bar,
        _barred_without_zero,
        "vengeance",
        (("zero_just_one_more", "general-rules"),),
        also=(("flip7ref.core.lines.bar_lasts", lambda original: lambda game, line: True),),
    ),
    # a barred player losing The Zero is rare under these strategies: seeds found by search (754, 804, 1262 of
    # 1,500).  No "never lasts" row: a bar that never lasts contradicts the bar itself, which the position checks refuse
    Row(
        "flip7ref.core.lines.bar_lasts",
        lambda original: lambda game, line: True,
        _bar_outlives_the_zero,
        "vengeance",
        seeds=(754, 804),
    ),
    # a barred player in a Flip Four that reaches seven numbers is rare: seeds found by search (3052, 4660 of 20,000)
    Row(
        "flip7ref.core.lines.own_draw_lifts_bar",
        lambda original: lambda game, giver, target: True,
        _barred_flip7,
        "vengeance",
        seeds=(3052, 4660),
    ),
    Row("flip7ref.core.lines.entry_place", lambda original: lambda game, line, place: 0, _moved_to_front, "vengeance"),
    Row("flip7ref.core.lines.may_stay", _wrong_may_stay, _stay_at_three),
    Row("flip7ref.core.lines.may_stay", lambda original: lambda game, p: True, _stay_beside_the_zero, "vengeance"),
    Row("flip7ref.core.lines.guard_of", lambda original: lambda game, p: None, _bust_beside_second_chance),
    Row("flip7ref.core.primitives.bust_shield.BustShield.use_guard", _wrong_use_guard, _guard_kept),
    Row("flip7ref.core.primitives.freeze.Freeze.play", _wrong_freeze, _frozen_stays),
    Row("flip7ref.core.scoring.flip7_terms", _wrong_terms, _seat0_plus_1000, options=(("target_score", 4000),)),
    Row(
        "flip7ref.core.scoring.flip7_choice_seats",
        lambda original: lambda game, players, maker: tuple(s for s in original(game, players, maker) if s != maker),
        _maker_not_offered,
        "vengeance",
        (("brutal", "true"),),
    ),
    Row("flip7ref.core.scoring.seat_score", _wrong_seat_score, _seat0_plus_1000, options=(("target_score", 4000),)),
    Row("flip7ref.core.engine.round_over", _wrong_round_over, _round_ends_at_a_stay),
    Row("flip7ref.core.engine.plan_round_end", _wrong_plan, _dealer_steps_two),
    Row("flip7ref.core.engine.game_end", _wrong_game_end, _ends_at_half),
)
"""The wrong answers: one or more per decider (a wrong answer that says yes more often, and
one that says it less, catch restatements that only answer one way quickly)."""


def _row(function: str, index: int = 0) -> Row:
    return [r for r in ROWS if r.function == function][index]


def test_every_decider_has_a_perturbation() -> None:
    assert list(dict.fromkeys(r.function for r in ROWS)) == [d.function for d in DECIDERS]


@pytest.mark.parametrize(
    "row",
    [
        pytest.param(
            r,
            id=f"{r.function}-{r.witness.__name__.strip('_')}",
        )
        for r in ROWS
    ],
)
def test_every_path_follows_the_decider(row: Row) -> None:
    """The decider rebound to a wrong answer: play shows it, and every surface follows."""
    assert check(row, row.seeds) == {}


def _restated_duplicate(game: Game, line: Sequence[int], code: int) -> bool:
    """F7-040 and V-036 written again (a restatement planted for the test of the test)."""
    same = [c for c in line if game.rank[c] == game.rank[code] and game.category[c] == NUMBER]
    return bool(same) and not (len(same) == 1 and any("pair_allowed" in game.traits[c] for c in (*same, code)))


def _restated_flip7(game: Game, line: Sequence[int], barred: bool = False) -> bool:
    """F7-050 written again: seven different ranks, the player not barred."""
    return not barred and len({game.rank[c] for c in line if game.category[c] == NUMBER}) >= game.flip7_distinct


def _restated_offered_next(players: Sequence[Player], turn: int, flip7: int | None, over: bool) -> int | None:
    """F7-110 written again: the first active seat from ``turn`` on, unless the round is over."""
    if flip7 is not None or over:
        return None
    seats = [(turn + i) % len(players) for i in range(len(players))]
    return next((s for s in seats if players[s].status.value == "active"), None)


def _restated_seat_score(original: Any) -> Callable[..., int]:
    def seat_score(*args: Any) -> int:  # the same answer as the decider, from another function
        return int(original(*args))

    return seat_score


@pytest.mark.parametrize(
    ("module", "name", "plant", "row", "caught"),
    [
        ("flip7ref.core.lanes", "is_duplicate", lambda _: _restated_duplicate, ("flip7ref.core.lines.is_duplicate", 0),
         {"lanes", "reload", "simulate"}),
        ("flip7ref.core.lanes", "offered_next", lambda _: _restated_offered_next, ("flip7ref.core.engine.round_over", 0),
         {"lanes", "reload", "simulate"}),
        ("flip7ref.core.position", "flip7_line", lambda _: _restated_flip7, ("flip7ref.core.lines.flip7_line", 1), {"reload"}),
        ("flip7ref.play.strategies", "seat_score", _restated_seat_score, ("flip7ref.core.scoring.seat_score", 0), {"strategies"}),
        ("flip7ref.rl.incremental", "seat_score", _restated_seat_score, ("flip7ref.core.scoring.seat_score", 0), {"rl"}),
    ],
)  # fmt: skip
def test_a_planted_restatement_is_caught(
    module: str, name: str, plant: Callable[[Any], Any], row: tuple[str, int], caught: set[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The test of the test: a restatement bound in one module (its own function, right
    under the true rules) leaves that surface behind the wrong decider, and `check` names it."""
    owner = __import__(module, fromlist=["_"])
    monkeypatch.setattr(owner, name, plant(getattr(owner, name)))
    fails = check(_row(*row), seeds=range(3))
    assert set(fails) == caught, fails
