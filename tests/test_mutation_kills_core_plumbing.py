"""Tests written against surviving mutants of the new core (issue 15, docs/mutation-testing.md): plumbing."""

from __future__ import annotations

import pytest

import flip7ref.state as state_module
from flip7ref import Game


@pytest.mark.rules("V-081", "F7-101", "F7-110")
@pytest.mark.parametrize("merge_ends", [False, True])
def test_lone_busts_under_brutal_mode_are_each_scored_with_their_negatives(
    merge_ends: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last active player hits with a negative modifier given to them in Brutal Mode: a
    busted player scores the negatives in their line (V-081), so the lanes must not share one
    round end among the busts (flip7ref.lanes.plain_card); every outcome equals the general
    path's, and the busts score -4 each."""
    game = Game("vengeance", 3, {"brutal": "true"})
    s = game.new_position(
        turn=2, lines={0: ["5"], 1: ["3"], 2: ["7", "9", "-4"]}, statuses={0: "stayed", 1: "stayed"}, seed=None
    ).apply("hit")
    assert s.is_chance_node()
    lanes = s.chance_successors(merge_ends=merge_ends)
    monkeypatch.setattr(state_module, "_FAST_LANES", False)
    general = [(card, count, s.apply_chance(card)) for card, count in s.chance_weights()]
    assert [(c, n) for c, n, _ in lanes] == [(c, n) for c, n, _ in general]
    for (card, _, fast), (_, _, slow) in zip(lanes, general, strict=True):
        assert fast == slow and fast.last_events() == slow.last_events(), card
    busts = {card: after.last_scores[2] for card, _, after in general if card in ("7", "9")}
    assert busts == {"7": -4, "9": -4}
