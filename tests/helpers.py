"""Helpers shared by the rule, worked-example and option tests of both editions.

The first group plays stacked positions (reveal the top card, hit, apply
decisions) and reads them (events of one type, card ids of a pile, every line).
The second group is the machinery of the option tests: an option file holds its
``SCENARIOS`` (option -> a function playing one reading), ``CASES`` (option ->
reading -> outcome) and ``RULES``, and its thin test functions call the checks
below with them and the edition id.  The ``@pytest.mark.rules`` markers stay on
the test functions (``tests/test_rule_coverage.py`` reads them from the
``test_*.py`` files).  The third group plays seeded games to every state and finds where
flip7ref binds a function, for the tests that replace a rule's function and compare the
fast lanes with the general path.  `house_text` writes a house table with rule ids of its own.
"""

from __future__ import annotations

import random
import re
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from typing import Any

import pytest

from flip7ref import CHANCE, CardError, Event, Game, OptionError, State, load_edition
from flip7ref.checking.conformance import draw_to_decision
from flip7ref.core.scoring import score_cards

Scenarios = Mapping[str, Callable[[str | int], Any]]
Cases = Mapping[str, Mapping[str | int, Any]]

HIT_STAY = ("hit", "stay")
HIT = ("hit",)

# --------------------------------------------------------------------------- playing and reading positions


def flip(state: State, n: int = 1) -> State:
    """Reveal the top card of the ordered pile ``n`` times (each at a chance node)."""
    for _ in range(n):
        assert state.current_player == CHANCE
        state = state.apply_chance(state.next_card() or "")
    return state


def hit(state: State) -> State:
    """The seat on offer hits and the top card of the pile is revealed."""
    return flip(state.apply("hit"))


def play(state: State, *moves: str) -> State:
    """Apply decisions in order, drawing the stacked cards before, between and after them."""
    state = draw_to_decision(state)
    for move in moves:
        state = draw_to_decision(state.apply(move))
    return state


def mid_round(
    lines: Mapping[int, list[str]],
    draw: Sequence[str] = (),
    *,
    game: Game,
    dealer: int,
    turn: int | None = None,
    statuses: Mapping[int, str] | None = None,
    totals: list[int] | None = None,
) -> State:
    """A mid-round position of ``game``: these lines, ``draw`` on top of the pile, ``turn`` (default: dealer's left) to act."""
    return game.new_position(dealer=dealer, turn=turn, lines=lines, statuses=statuses, draw=list(draw), totals=totals)


def of_type(events: Sequence[Event], kind: str) -> list[dict[str, object]]:
    """The events of one type, as dicts without their type."""
    return [{k: v for k, v in e.to_dict().items() if k != "type"} for e in events if e.type == kind]


def ids(game: Game, zone: Sequence[int]) -> Counter[str]:
    """Card ids of a zone (draw or discard pile, a deck) with their counts."""
    return Counter(game.card_ids[c] for c in zone)


def score_of(game: Game, cards: Sequence[str]) -> int:
    """The round score of a line given by card ids."""
    return score_cards(game, cards).score


def all_lines(state: State) -> list[list[str]]:
    """The card ids of every seat's line, seat by seat."""
    return [state.line(i) for i in range(state.num_players)]


# --------------------------------------------------------------------------- option scenarios common to both editions


def offers_in_turn(state: State, seats: int) -> tuple[tuple[str, ...], ...]:
    """The legal actions offered to seats 0..seats-1 in turn, each seat but the last hitting after its offer."""
    offers = []
    for seat in range(seats):
        assert state.current_player == seat and state.pending() == ("offer", None)
        offers.append(tuple(state.legal_action_strings()))
        if seat < seats - 1:
            state = play(state, "hit")
    return tuple(offers)


def scenario_tie(edition: str, value: str | int) -> Any:
    """Totals 195/193/150, seats score 10/12/3 (205/205 tie); round 2 deals 2 3 4 and all stay."""
    g = Game(edition, 3, {"tie": value})
    s = g.new_position(
        dealer=2, turn=0, lines={0: ["10"], 1: ["12"], 2: ["3"]}, statuses={1: "stayed", 2: "stayed"},
        totals=[195, 193, 150], draw=["2", "3", "4"],
    )  # fmt: skip
    s = play(s, "stay")
    first = s.is_terminal()
    while not s.is_terminal():
        s = play(s, "stay")
    ties = [e.get("leaders") for e in s.events() if e.type == "tie_another_round"]
    return first, s.winners, s.round, s.totals, ties


def scenario_target_score(edition: str, value: str | int) -> Any:
    """Totals 40/0; seat 0 stays on 12, seat 1 stayed on 3 (totals 52/3): does the game end?"""
    g = Game(edition, 2, {"target_score": value})
    s = g.new_position(dealer=1, turn=0, lines={0: ["12"], 1: ["3"]}, statuses={1: "stayed"}, totals=[40, 0])
    s = play(s, "stay")
    return s.is_terminal(), s.winners, s.round, s.totals


def scenario_decks(edition: str, value: str | int) -> Any:
    """3 seats: seat 0 holds a 0 and a second 0 is stacked on the pile (only possible with two decks)."""
    g = Game(edition, 3, {"decks": value})
    try:
        s = g.new_position(dealer=2, turn=0, lines={0: ["0"]}, draw=["0"])
    except CardError as exc:
        assert "'0'" in str(exc)
        return len(g.deck), "CardError"
    s = play(s, "hit")
    return len(g.deck), s.status(0), s.line(0), sum(s.cards_in_play().values())


# --------------------------------------------------------------------------- option cases and checks

# (target, whether the 52-point total of scenario_target_score ends the game)
TARGET_THRESHOLDS = [
    pytest.param(51, True, id="51"),
    pytest.param(52, True, id="52"),
    pytest.param(53, False, id="53"),
    pytest.param("53", False, id="'53'"),
]

# (players, decks option, decks in play)
DECK_COUNTS = [
    pytest.param(18, "auto", 1, id="18-auto"),
    pytest.param(19, "auto", 2, id="19-auto"),
    pytest.param(37, "auto", 3, id="37-auto"),
    pytest.param(19, 1, 1, id="19-one"),
    pytest.param(4, 3, 3, id="4-three"),
]

# (integer option, out-of-range value, the range the message names)
INTEGERS_OUT_OF_RANGE = [
    pytest.param("target_score", 0, "expected 1..10000", id="target-0"),
    pytest.param("target_score", -5, "expected 1..10000", id="target-neg"),
    pytest.param("decks", 0, "expected 1..8", id="decks-0"),
    pytest.param("decks", 9, "expected 1..8", id="decks-9"),
]


def reading_cases(cases: Cases, option: str) -> list[Any]:
    """The (reading, expected outcome) parameters of one option, one per reading."""
    return [pytest.param(reading, expected, id=str(reading)) for reading, expected in cases[option].items()]


def check_reading(scenarios: Scenarios, option: str, reading: str | int, expected: Any) -> None:
    """The option's scenario played under ``reading`` gives the expected outcome."""
    assert scenarios[option](reading) == expected


def check_readings_differ(scenarios: Scenarios, cases: Cases, option: str) -> None:
    """Every reading plays out as tabled and every two readings of the option give different outcomes."""
    played = {reading: scenarios[option](reading) for reading in cases[option]}
    assert played == cases[option]
    for a, b in combinations(played, 2):
        assert played[a] != played[b], f"{option}: readings {a!r} and {b!r} give the same outcome"


def check_cases_cover(
    edition: str,
    scenarios: Scenarios,
    cases: Cases,
    rules: Mapping[str, tuple[str, ...]],
    tests: Mapping[str, Any],
) -> None:
    """Every option and reading has a case, integer options a non-default integer, and ``test_<option>`` the table's rules."""
    options = load_edition(edition).options
    assert set(cases) == set(options)
    assert set(scenarios) == set(options)
    assert set(rules) == set(options)
    for name, spec in options.items():
        readings = {r.name for r in spec.readings}
        named = {k for k in cases[name] if isinstance(k, str)}
        assert named == readings, f"{name}: cases {sorted(named)} vs readings {sorted(readings)}"
        extra = [k for k in cases[name] if isinstance(k, int)]
        if spec.integer is None:
            assert extra == [], f"{name} is not an integer option"
        else:
            assert extra, f"{name}: no case with a non-default integer"
            assert all(spec.coerce(k) == k and k != spec.coerce(spec.default) for k in extra)
        assert rules[name] == spec.rules
        test = tests[f"test_{name}"]
        marks = [m.args for m in getattr(test, "pytestmark", []) if m.name == "rules"]
        assert marks == [spec.rules], f"test_{name} cites {marks}, the table says {spec.rules}"


def check_default_options(edition: str, defaults: Mapping[str, str | int], deck_size: int) -> None:
    """A 4-player game takes the table's default for every option: a 200 target and one deck of ``deck_size`` cards."""
    g = Game(edition, 4)
    assert dict(g.options) == defaults
    assert dict(g.options) == {n: o.coerce(o.default) for n, o in load_edition(edition).options.items()}
    assert g.non_default_options() == {}
    assert g == Game(edition, 4, defaults)
    assert (g.target_score, g.decks, len(g.deck)) == (200, 1, deck_size)


def check_target_threshold(edition: str, target: str | int, ends: bool) -> None:
    """The target is taken as an integer, and a 52-point total ends the game exactly when it reaches the target."""
    g = Game(edition, 2, {"target_score": target})
    assert g.options["target_score"] == int(target)
    assert g.target_score == int(target)
    assert scenario_target_score(edition, target)[0] is ends


def named_options(edition: str) -> list[str]:
    """The options of the edition that take named readings only (no integer)."""
    return [o for o, spec in load_edition(edition).options.items() if spec.integer is None]


def option_error(edition: str, options: Mapping[str, object]) -> str:
    """The message of the OptionError a 4-player game with these options raises."""
    with pytest.raises(OptionError) as info:
        Game(edition, 4, options)
    return str(info.value)


def check_option_error(edition: str, options: Mapping[str, object], pattern: str) -> None:
    """A 4-player game with these options raises an OptionError whose message matches ``pattern``."""
    with pytest.raises(OptionError, match=pattern):
        Game(edition, 4, options)


def check_unknown_option_name(edition: str, name: str, value: str) -> str:
    """An unknown option name raises OptionError naming it and listing the known options; returns the message."""
    message = option_error(edition, {name: value})
    assert f"'{name}'" in message
    for option in load_edition(edition).options:
        assert option in message
    return message


def check_unknown_option_value(edition: str, option: str) -> None:
    """An unknown value raises OptionError naming the option, the value and every allowed reading."""
    message = option_error(edition, {option: "bogus-reading"})
    assert f"option {option}:" in message
    assert "'bogus-reading'" in message
    spec = load_edition(edition).options[option]
    for reading in spec.readings:
        assert reading.name in message
    if spec.integer is not None:
        assert "whole number" in message


def check_integer_out_of_range(edition: str, option: str, value: int, bound: str) -> None:
    """An integer outside an integer option's range raises OptionError naming the option and the range."""
    assert option_error(edition, {option: value}) == f"option {option}: {value} is out of range ({bound})"


def check_named_option_rejects_integers(edition: str, option: str) -> None:
    """A named (non-integer) option does not accept a number."""
    check_option_error(edition, {option: 1}, rf"^option {option}: unknown value 1 ")


# --------------------------------------------------------------------------- seeded games and rebinding


def mixed_strategies() -> list[Any]:
    """The strategies of `seeded_trace`, one per seat in turn (a threshold of 25, random, a
    threshold of 40): mixed so that players stay holding cards."""
    from flip7ref.play.strategies import RandomStrategy, ThresholdStrategy

    return [ThresholdStrategy(25), RandomStrategy(), ThresholdStrategy(40)]


def seeded_trace(game: Game, seed: int, lanes: bool) -> list[State]:
    """Every state of seeded game ``seed`` (at most 4,000), played by `mixed_strategies`, with
    the fast lanes on or off (``flip7ref.core.state._FAST_LANES``, put back after)."""
    import flip7ref.core.state as state_module

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(state_module, "_FAST_LANES", lanes)
        rng = random.Random(seed)
        strategies = mixed_strategies()
        s = game.new_initial_state(seed=seed)
        out = [s]
        while not s.is_terminal() and len(out) < 4000:
            if s.is_chance_node():
                s = s.apply_chance(s.sample_chance(rng))
            else:
                s = s.apply(strategies[s.current_player % len(strategies)].choose(s, rng))
            out.append(s)
    return out


def flip7ref_bindings(obj: object) -> list[tuple[object, str]]:
    """Every ``(module, name)`` of a loaded flip7ref module (the package too) bound to ``obj``."""
    out: list[tuple[object, str]] = []
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "flip7ref" or name.startswith("flip7ref.")):
            continue
        for attr, value in list(vars(module).items()):
            if value is obj:
                out.append((module, attr))
    return out


def house_text() -> str:
    """The shipped Flip 7 table as a house table ``house`` (YAML text): rule ids ``F7-NNN``
    renamed ``HR-NNN`` and dispute ids ``D-F7-NN`` renamed ``D-HR-NN``."""
    from flip7ref.core.spec import spec_dir

    text = (spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8")
    text = re.sub(r"\bD-F7-([0-9]{2})\b", r"D-HR-\1", text)
    text = re.sub(r"\bF7-([0-9]{2}[0-9A-Z])\b", r"HR-\1", text)
    return text.replace("\n  id: flip7\n", "\n  id: house\n", 1)
