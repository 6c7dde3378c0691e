"""Tests that kill surviving mutants of the round-end fast lane (state.py, scoring.py).

They pin exact values on the code added with the round-end lane: the shared
frame and event builders, ``State.chance_successors`` and the round end its
siblings share, ``State._round_end_plan`` / ``_fast_round_end``, the round
scores and the flags ``score_points`` passes on.  See docs/mutation-testing.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import flip7ref.core.state as state_module
from flip7ref import Event, Game, State, Status
from flip7ref.core import engine, events, scoring
from flip7ref.core import lanes as fast_lanes
from flip7ref.core.errors import SpecError
from flip7ref.core.scoring import score_line, score_points
from flip7ref.core.spec import spec_dir
from flip7ref.core.state import Deal, Draw


def _general(monkeypatch: pytest.MonkeyPatch, s: State, card: str) -> State:
    """``s.apply_chance(card)`` by the general path (lanes off)."""
    monkeypatch.setattr(state_module, "_FAST_LANES", False)
    try:
        return s.apply_chance(card)
    finally:
        monkeypatch.setattr(state_module, "_FAST_LANES", True)


def _same(a: State, b: State) -> None:
    assert a == b and a.last_events() == b.last_events() and a.history() == b.history() and a.to_dict() == b.to_dict()


def _count_plans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the calls of ``State._round_end_plan`` (one entry per call) from now on."""
    calls: list[int] = []
    plan = fast_lanes.round_end

    def counting(self: State, *args: object) -> object:
        calls.append(1)
        return plan(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(fast_lanes, "round_end", counting)
    return calls


@pytest.mark.rules("F7-020", "F7-040")
def test_shared_frames_and_events_are_built_when_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The caches of frames and dealt events start empty in a fresh process: a miss
    builds the right value, stores it and hands out the same object next time."""
    monkeypatch.setattr(engine, "_DEALS", {})
    monkeypatch.setattr(engine, "_DRAWS", {})
    monkeypatch.setattr(events, "_DEALT", {})
    deals, draws, dealts = engine._DEALS, engine._DRAWS, events._DEALT
    deal = engine.deal_frame(3)
    assert type(deal) is Deal and deal == Deal(3) and deal.position == 3
    assert deals == {3: Deal(3)} and engine.deal_frame(3) is deal
    assert engine.deal_frame(4) == Deal(4) and engine.deal_frame(4) is not deal
    draw = engine.draw_frame(2, "hit")
    assert type(draw) is Draw and (draw.seat, draw.reason) == (2, "hit")
    assert draws == {"hit": {2: Draw(2, "hit")}} and engine.draw_frame(2, "hit") is draw
    assert engine.draw_frame(2, "deal") == Draw(2, "deal") and engine.draw_frame(1, "hit") == Draw(1, "hit")
    dealt = events.dealt(1, "x2", "deal")
    assert dealt == Event("dealt", (("seat", 1), ("card", "x2"), ("via", "deal")))
    assert type(dealt) is Event and dealt.type == "dealt"
    assert dealts == {"deal": {"x2": {1: dealt}}} and events.dealt(1, "x2", "deal") is dealt
    assert events.dealt(1, "x2", "hit") == Event("dealt", (("seat", 1), ("card", "x2"), ("via", "hit")))
    assert events.dealt(0, "5", "deal") == Event("dealt", (("seat", 0), ("card", "5"), ("via", "deal")))


@pytest.mark.rules("F7-020", "F7-030")
def test_lanes_with_empty_caches_deal_a_round_like_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole deal and a Hit through the lanes, starting from empty caches: the same
    frames and events as the general path."""
    game = Game("flip7", 3)
    moves = ["chance 5", "chance 9", "chance x2", "hit", "chance 4"]
    monkeypatch.setattr(engine, "_DEALS", {})
    monkeypatch.setattr(engine, "_DRAWS", {})
    monkeypatch.setattr(events, "_DEALT", {})
    fast = [game.new_initial_state(stack=["5", "9", "x2", "4"], dealer=2)]
    for move in moves:
        fast.append(fast[-1].apply_move(move))
    assert fast[1].frames == (Deal(2), Draw(1, "deal")) and fast[2].frames == (Deal(3), Draw(2, "deal"))
    assert fast[3].frames == () and fast[4].frames == (Draw(0, "hit"),)
    assert fast[1].last_events() == (Event("dealt", (("seat", 0), ("card", "5"), ("via", "deal"))),)
    assert fast[5].last_events() == (Event("dealt", (("seat", 0), ("card", "4"), ("via", "hit"))),)
    monkeypatch.setattr(state_module, "_FAST_LANES", False)
    slow = [game.new_initial_state(stack=["5", "9", "x2", "4"], dealer=2)]
    for move in moves:
        slow.append(slow[-1].apply_move(move))
    assert fast == slow and [s.events() for s in fast] == [s.events() for s in slow]


@pytest.mark.rules("F7-040", "F7-100", "F7-101", "F7-111")
def test_successor_of_a_bust_that_empties_the_pile_reshuffles(monkeypatch: pytest.MonkeyPatch) -> None:
    """The last active player busts on the last card of the pile: the next round needs
    a reshuffle before its deal, so the shared round end must not be used."""
    game = Game("flip7", 2)
    s = game.new_position(
        turn=0, lines={0: ["5"], 1: ["9"]}, statuses={1: "stayed"}, draw=["5"], seed=None, rest="out"
    ).apply("hit")
    successors = s.chance_successors()
    assert [(card, count) for card, count, _ in successors] == [("5", 1)]
    child = successors[0][2]
    _same(child, _general(monkeypatch, s, "5"))
    _same(child, s.apply_chance("5"))
    assert (child.round, child.dealer, child.totals, child.last_scores, child.shuffles) == (2, 1, (0, 9), (0, 9), 1)
    assert [game.card_ids[c] for c in child.draw] == ["5", "5", "9"] and child.discard == ()
    assert child.frames == (Deal(1), Draw(0, "deal")) and child.current_player == -1
    assert [e.type for e in child.last_events()] == ["dealt", "busted", "round_scored", "round_started", "reshuffled"]


def _solo_bust_node() -> State:
    """A solo player whose total is at the target, holding four numbers and x2: every
    duplicate ends the round and the game (a bust scores 0); the other cards go on."""
    game = Game("flip7", 1)
    return game.new_position(
        turn=0, lines={0: ["12", "11", "3", "9", "x2"]}, totals=[200], seed=None
    ).apply("hit")


@pytest.mark.rules("F7-040", "F7-101", "F7-120")
def test_chance_successors_with_the_lanes_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the fast lanes switched off, chance_successors applies every outcome by the
    general path (the lanes are not used) and gives the same triples."""
    s = _solo_bust_node()
    fast = s.chance_successors()

    def refuse(*_args: object) -> None:
        raise AssertionError("a fast lane was used with _FAST_LANES off")

    monkeypatch.setattr(state_module, "_FAST_LANES", False)
    monkeypatch.setattr(fast_lanes, "plain_card", refuse)
    slow = s.chance_successors()
    assert [(c, n) for c, n, _ in slow] == [(c, n) for c, n, _ in fast] == s.chance_weights()
    for (card, _, a), (_, _, b) in zip(fast, slow, strict=True):
        assert a == b and a.last_events() == b.last_events() and a.history() == b.history(), card
    outcomes = {card: child for card, _, child in slow}
    assert outcomes["12"].is_terminal() and outcomes["12"].totals == (200,) and outcomes["12"].last_scores == (0,)
    assert outcomes["12"].history()[-1] == "chance 12" and outcomes["5"].line(0)[-1] == "5"


@pytest.mark.rules("F7-040", "F7-101", "F7-120")
def test_chance_successors_plan_one_round_end_for_all_busts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The busts of a player left alone share one planned round end (the work the
    siblings have in common is done once), and each child is still exact."""
    s = _solo_bust_node()
    calls = _count_plans(monkeypatch)
    successors = s.chance_successors()
    busts = [card for card, _, child in successors if child.last_scores == (0,)]
    assert busts == ["3", "9", "11", "12"] and len(calls) == 1
    for card, _, child in successors:
        _same(child, _general(monkeypatch, s, card))
    for card in busts:
        child = {c: k for c, _, k in successors}[card]
        assert child.is_terminal() and child.winners == (0,) and child.totals == (200,)
        assert [e.type for e in child.last_events()] == ["dealt", "busted", "round_scored", "game_won"]


@pytest.mark.rules("F7-100", "F7-101", "F7-111", "F7-112")
def test_round_end_lane_deals_the_next_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """A round end with cards left for the next deal is taken by the lane itself (it
    does not decline to the general path): scores, totals, the next dealer, the first
    deal frame and the events, all as the general path gives them."""
    game = Game("flip7", 3)
    s = game.new_position(
        turn=2, lines={0: ["5", "x2"], 1: ["12", "3", "12"], 2: ["7", "+4"]}, statuses={0: "stayed", 1: "busted"},
        totals=[10, 20, 30], seed=1, dealer=1,
    )  # fmt: skip
    lane = fast_lanes.fast_round_end(s, list(s.players), s.draw, 2, None, "stay", [])
    assert lane is not None
    assert (lane.round, lane.dealer, lane.turn, lane.totals, lane.last_scores) == (2, 2, 0, (20, 20, 41), (10, 0, 11))
    assert lane.frames == (Deal(1), Draw(0, "deal")) and lane.draw == s.draw and lane.winners == ()
    after = s.apply("stay")
    assert after.last_events() == (
        Event("stayed", (("seat", 2),)),
        Event("round_scored", (("round", 1), ("scores", (10, 0, 11)), ("totals", (20, 20, 41)), ("flip7", None))),
        Event("round_started", (("round", 2), ("dealer", 2))),
    )
    assert [game.card_ids[c] for c in after.discard] == ["5", "x2", "12", "3", "12", "7", "+4"]
    assert after.current_player == -1 and after.next_card() == game.card_ids[s.draw[0]]
    monkeypatch.setattr(state_module, "_FAST_LANES", False)
    _same(after, s.apply("stay"))


@pytest.mark.rules("F7-120", "F7-121")
@pytest.mark.parametrize("lanes", [True, False])
def test_shared_win_tie_at_the_target_ends_the_game(lanes: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """tie: shared-win: two leaders tied at the target both win at once, by the lane and
    by the general settling alike (no further round)."""
    game = Game("flip7", 2, {"tie": "shared-win"})
    s = game.new_position(turn=1, lines={0: ["5"], 1: ["12", "3"]}, statuses={0: "stayed"}, totals=[195, 185], seed=1)
    if lanes:  # the lane ends the game itself (it does not decline to the general path)
        stayed = list(s.players)
        stayed[1] = stayed[1]._replace(status=Status.STAYED)
        lane = fast_lanes.fast_round_end(s, stayed, s.draw, 1, None, "stay", [])
        assert lane is not None and lane.winners == (0, 1) and lane.totals == (200, 200)
    monkeypatch.setattr(state_module, "_FAST_LANES", lanes)
    after = s.apply("stay")
    assert after.is_terminal() and after.winners == (0, 1) and after.totals == (200, 200) and after.round == 1
    assert after.last_scores == (5, 15) and after.frames == () and after.turn == 0
    assert after.last_events()[1:] == (
        Event("round_scored", (("round", 1), ("scores", (5, 15)), ("totals", (200, 200)), ("flip7", None))),
        Event("game_won", (("winners", (0, 1)), ("totals", (200, 200)), ("rounds", 1))),
    )


@pytest.mark.rules("F7-050", "F7-100", "F7-101", "F7-091")
@pytest.mark.parametrize(
    ("options", "scores"),
    [({}, (75, 11, 0)), ({"flip7_bonus": "all-non-busted"}, (75, 26, 0))],
)
def test_flip7_by_a_hit_scores_the_bonus(
    options: dict[str, str], scores: tuple[int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Flip 7 drawn for a Hit ends the round through the round-end lane: the maker
    scores (1+..+7) x2 +4 and the 15-point bonus; with all-non-busted the player who
    stayed gets the bonus too, the busted one nothing."""
    game = Game("flip7", 3, options)
    s = game.new_position(
        turn=0, lines={0: ["1", "2", "3", "4", "5", "6", "x2", "+4"], 1: ["9", "+2"], 2: ["8", "10", "8"]},
        statuses={1: "stayed", 2: "busted"}, totals=[10, 20, 30], draw=["7"], seed=1,
    ).apply("hit")  # fmt: skip
    made = list(s.players)
    made[0] = made[0]._replace(line=(*made[0].line, game.code("7")))
    lane = fast_lanes.fast_round_end(s, made, s.draw[1:], 0, 0, "chance 7", [])
    assert lane is not None and lane.last_scores == scores
    after = s.apply_chance("7")
    totals = (10 + scores[0], 20 + scores[1], 30)
    assert (after.round, after.totals, after.last_scores, after.flip7) == (2, totals, scores, None)
    assert after.last_events()[1:3] == (
        Event("flip7", (("seat", 0),)),
        Event("round_scored", (("round", 1), ("scores", scores), ("totals", totals), ("flip7", 0))),
    )
    _same(after, _general(monkeypatch, s, "7"))


@pytest.mark.rules("V-080", "V-081", "V-082")
def test_round_scores_of_busted_players_and_brutal_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    """The round scores of one table under Vengeance and Brutal Mode: a busted player
    scores 0, or its added modifiers alone in Brutal Mode (-6 under brutal_busted
    all-negatives, the ÷2 of another line does not count; 0 under the default
    given-after-bust, as the -6 lay in the line before the bust, V-084); a Flip 7 bonus
    goes to the maker, or is taken off the seat the maker chose (V-082)."""
    brutal = Game("vengeance", 3, {"brutal": "true", "brutal_busted": "all-negatives"})
    plain = Game("vengeance", 3)
    s = brutal.new_position(
        turn=0, lines={0: ["3", "5", "-4", "/2"], 1: ["9", "-2"], 2: ["8", "10", "-6", "8"]},
        statuses={1: "stayed", 2: "busted"}, totals=[10, 20, 30], seed=1,
    )  # fmt: skip
    players = s.players
    assert scoring.round_scores(brutal, players, None, None) == (0, 7, -6)
    assert scoring.round_scores(Game("vengeance", 3, {"brutal": "true"}), players, None, None) == (0, 7, 0)
    assert scoring.round_scores(plain, players, None, None) == (0, 7, 0)
    assert scoring.round_scores(plain, players, 1, None) == (0, 22, 0)
    assert scoring.round_scores(brutal, players, 1, 1) == (0, 22, -6)
    assert scoring.round_scores(brutal, players, 1, 0) == (-15, 7, -6)
    assert scoring.round_scores(brutal, players, 1, 2) == (0, 7, -21)
    after = s.apply("stay")
    assert (after.round, after.totals, after.last_scores) == (2, (10, 27, 24), (0, 7, -6))
    monkeypatch.setattr(state_module, "_FAST_LANES", False)
    _same(after, s.apply("stay"))


@pytest.mark.rules("F7-040", "F7-101", "F7-112")
def test_chance_successors_share_the_next_round_of_busts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Busts of the last active player that start the next round (its deal needs a
    card: the pile holds plenty) share one planned round end too; every child is the
    applied outcome, with the scores, dealer and first deal frame of round 2."""
    game = Game("flip7", 2)
    s = game.new_position(
        turn=0, lines={0: ["12", "11", "x2"], 1: ["9", "+4"]}, statuses={1: "stayed"}, totals=[10, 20], seed=None
    ).apply("hit")
    calls = _count_plans(monkeypatch)
    successors = s.chance_successors()
    assert len(calls) == 1
    children = {card: child for card, _, child in successors}
    for card in ("11", "12"):
        child = children[card]
        assert (child.round, child.dealer, child.totals, child.last_scores) == (2, 1, (10, 33), (0, 13))
        assert child.frames == (Deal(1), Draw(0, "deal")) and child.current_player == -1
        assert [e.type for e in child.last_events()] == ["dealt", "busted", "round_scored", "round_started"]
    assert children["5"].round == 1 and children["5"].line(0) == ["12", "11", "x2", "5"]
    for card, _, child in successors:
        _same(child, _general(monkeypatch, s, card))


@pytest.mark.rules("F7-050", "F7-100")
def test_score_points_passes_its_flags_to_a_pipeline_without_sum(tmp_path: Path) -> None:
    """A table whose pipeline does not sum numbers is refused when it is read (a pipeline
    without the sum is no scoring of Flip 7: edition_check.check_structure); under the
    shipped table the caller's bonus flag still counts."""
    text = (spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8")
    step = "  - step: sum_numbers        # (1) add the number cards\n"
    assert text.count(step) == 1
    path = tmp_path / "variant.yaml"
    path.write_text(text.replace(step, ""), encoding="utf-8")
    with pytest.raises(SpecError, match=r"at /scoring: expected a scoring pipeline with a 'sum_numbers' step"):
        Game(str(path), 3)
    # seven plain numbers under the shipped table: the line decides the Flip 7, the bonus flag still counts
    f = Game("flip7", 3)
    seven = [f.code(c) for c in ("0", "1", "2", "3", "4", "5", "6")]
    assert score_points(f, seven) == 36 and score_points(f, seven, bonus=False) == 21 == score_line(f, seven, bonus=False).score


@pytest.mark.rules("F7-091", "F7-092", "V-051", "V-052", "V-080")
@pytest.mark.parametrize(
    ("edition", "options", "floors", "modifiers"),
    [
        ("flip7", {}, False, ["+10", "+2", "+4", "+6", "+8", "x2"]),
        ("vengeance", {}, True, ["-10", "-2", "-4", "-6", "-8", "/2"]),
        ("vengeance", {"brutal": "true"}, False, ["-10", "-2", "-4", "-6", "-8", "/2"]),
    ],
)
def test_game_flags_of_the_modifier_fast_path(
    edition: str, options: dict[str, str], floors: bool, modifiers: list[str]
) -> None:
    """The shipped tables qualify for score_points' modifier fast path: every modifier
    card is plain (no trait, an operation), the pipeline is sum / multiply / add then
    steps that change nothing short of a Flip 7; the floor at zero goes with Brutal Mode."""
    g = Game(edition, 3, options)
    assert sorted(g.card_ids[i] for i, plain in enumerate(g.plain_modifier) if plain) == modifiers
    assert len(g.plain_modifier) == len(g.card_ids)
    assert g.modifier_pipeline is True and g.floors_at_zero is floors and g.adds_flip7_bonus is True


@pytest.mark.rules("V-053", "F7-050", "F7-100")
def test_a_pipeline_in_another_order_takes_the_full_pipeline(tmp_path: Path) -> None:
    """A house-rule Vengeance table that adds the Flip 7 bonus before the floor at
    zero: not the modifier fast path's order, so score_points gives the full
    pipeline's value (the bonus floored together with the line: 0, not 15)."""
    text = (spec_dir() / "editions" / "vengeance.yaml").read_text(encoding="utf-8")
    old = "  - step: add_modifiers\n  - step: floor_zero\n"
    last = "  - step: zero_unless_flip7\n  - step: flip7_bonus\n"
    assert text.count(old) == 1 and text.count(last) == 1
    bonus_first = "  - step: add_modifiers\n  - step: flip7_bonus\n  - step: floor_zero\n"
    text = text.replace(last, "  - step: zero_unless_flip7\n").replace(old, bonus_first)
    path = tmp_path / "bonus-first.yaml"
    path.write_text(text, encoding="utf-8")
    g = Game(str(path), 3)
    assert g.scoring[:4] == ("sum_numbers", "multiply", "add_modifiers", "flip7_bonus")
    assert g.modifier_pipeline is False
    line = [g.code(c) for c in ("1", "-10", "-8")]  # 1 - 18 = -17; with the bonus first: max(0, -2) = 0
    assert score_points(g, line, flip7=True) == score_line(g, line, flip7=True).score == 0
    shipped = Game("vengeance", 3)
    assert score_points(shipped, [shipped.code(c) for c in ("1", "-10", "-8")], flip7=True) == 15


@pytest.mark.rules("F7-120", "F7-121")
def test_game_end_after_a_round() -> None:
    """The one decision both round ends use: nobody at the target goes on; one leader
    at or past it wins; tied leaders play on, or all win with ``tie: shared-win``."""
    game = Game("flip7", 3)
    shared = Game("flip7", 3, {"tie": "shared-win"})
    assert engine.game_end(game, [199, 150, 0]) == ((), False)
    assert engine.game_end(game, [150, 200, 199]) == ((1,), True)
    assert engine.game_end(game, (230, 150, 230)) == ((0, 2), False)
    assert engine.game_end(shared, (230, 150, 230)) == ((0, 2), True)
    assert engine.game_end(shared, (210, 250, 230)) == ((1,), True)


@pytest.mark.rules("F7-020", "F7-030")
def test_first_seat_of_the_deal_and_offers() -> None:
    """The deal and the offers start at the dealer's left, or at the dealer with
    ``start_seat: dealer``, wrapping round the table."""
    assert engine.first_seat(Game("flip7", 4), 3, 4) == 0  # the dealer's left
    assert engine.first_seat(Game("flip7", 4), 1, 4) == 2
    assert engine.first_seat(Game("flip7", 4, {"start_seat": "dealer"}), 3, 4) == 3
