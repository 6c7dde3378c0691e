"""Expectations recomputed under an engine's readings must not hang on the reference's private
shuffle: every case, under its own readings and under each other reading, is prepared with the
reference's shuffle and with another one (the reference's order reversed, monkeypatched into
the core); the two expectations are the same, or the case is skipped for that engine with a
reason (flip7ref.checking.shuffle_order)."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

import pytest

import flip7ref
from flip7ref.checking.conformance import CaseResult, load_cases
from flip7ref.checking.harness import implementation
from flip7ref.checking.shuffle_order import reverse, shuffle_dependence, shuffled_during
from flip7ref.checking.verdict import Prepared, prepare
from flip7ref.core import engine, pile
from flip7ref.explore import disputes, run_case, with_option

pytestmark = pytest.mark.skipif(flip7ref.compiled, reason="monkeypatches the pure core's shuffle")

CASES = {c["id"]: c for c in load_cases() if c["kind"] not in ("scoring", "perft")}
PILE_OPTIONS = ("reshuffles", "empty_deck", "deck_between_rounds")
"""The options that decide whether a round or a game reaches a shuffle."""


def _other_shuffle(monkeypatch: pytest.MonkeyPatch, order: str = "reversed") -> None:
    """Monkeypatch another shuffle into the core: the reference's order ``reversed``, or a random
    order seeded with ``order`` (and the game's seed and shuffle count)."""
    original = pile.shuffled

    def other_shuffle(cards: list[int], seed: str, count: int) -> None:
        original(cards, seed, count)
        if order == "reversed":
            cards.reverse()
        else:
            random.Random(f"{order}:{seed}:{count}").shuffle(cards)

    monkeypatch.setattr(pile, "shuffled", other_shuffle)
    monkeypatch.setattr(engine, "shuffled", other_shuffle)


def _declaring(case: dict[str, Any], option: str, value: str) -> dict[str, Any]:
    impl = copy.deepcopy(implementation())
    impl["editions"][case["edition"]]["options"][option] = [value]
    return impl


def _pairs(options: tuple[str, ...] | None) -> Iterator[tuple[str, str, str]]:
    """(case id, option, reading) for every reading of the options (None: every dispute's), kept
    only where the reference's run there reaches a shuffle (elsewhere no shuffle can matter)."""
    for cid, case in CASES.items():
        for dispute in disputes(case["edition"]):
            if dispute.option is None or (options is not None and dispute.option not in options):
                continue
            for reading in dispute.played:
                assert reading.value is not None
                if shuffled_during(run_case(with_option(case, dispute.option, reading.value))):
                    yield cid, dispute.option, reading.value


def _check(pairs: list[tuple[str, str, str]], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Prepare each pair with both shuffles; the ids of the pairs skipped for their shuffle."""
    first = {p: prepare(CASES[p[0]], _declaring(CASES[p[0]], p[1], p[2])) for p in pairs}
    _other_shuffle(monkeypatch)
    skipped = []
    for p in pairs:
        a, b = first[p], prepare(CASES[p[0]], _declaring(CASES[p[0]], p[1], p[2]))
        if isinstance(a, CaseResult) or isinstance(b, CaseResult):
            assert isinstance(a, CaseResult) and isinstance(b, CaseResult), p
            assert (a.status, b.status) in (("skip", "skip"), ("error", "error")), (p, a.message, b.message)
            assert a.message and b.message
            if "reshuffled pile" in a.message:  # with the other shuffle its decisions may not even be legal
                skipped.append(f"{p[0]} {p[1]}={p[2]}")
            continue
        assert isinstance(a, Prepared) and isinstance(b, Prepared)
        assert a.expect == b.expect, f"{p}: the expectation changes with the shuffle"
    monkeypatch.undo()
    return skipped


@pytest.mark.rules("F7-113", "F7-116")
def test_no_case_as_written_depends_on_the_shuffle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under its own readings every case holds on the reference with either shuffle."""
    shuffling = [cid for cid, case in CASES.items() if shuffled_during(run_case(case))]
    assert len(shuffling) >= 30  # the reshuffle cases of both editions
    _other_shuffle(monkeypatch)
    broken = [cid for cid in shuffling if run_case(CASES[cid]).diffs]
    assert broken == []


@pytest.mark.rules("F7-113", "F7-116")
def test_an_unlimited_reshuffle_reading_skips_a_case_hanging_on_the_order() -> None:
    """F7-C0806 exhausts the deck at its second empty pile; an engine reshuffling without limit
    draws from a second reshuffled pile of a 3 and a Second Chance, whose order the case does
    not fix: the case is skipped for it, with the reason, not judged on the reference's order."""
    case = CASES["F7-C0806"]
    result = prepare(case, _declaring(case, "reshuffles", "unlimited"))  # unlimited: the table default, so no option is named
    assert isinstance(result, CaseResult) and result.status == "skip"
    assert result.message == (
        "under the engine's readings (the table defaults) its expected events, statuses then depend "
        "on how the reshuffled pile is ordered, which the case does not fix"
    )
    # the same case under its own reading: the second empty pile is exhausted, nothing to depend on
    assert isinstance(prepare(case, implementation()), Prepared)


def test_shuffle_dependence_is_none_without_a_shuffle() -> None:
    """A run that never shuffles cannot depend on the order (no replay is made)."""
    case = CASES["F7-C0200"]
    run = run_case(case)
    assert not shuffled_during(run)
    assert shuffle_dependence(case, {}, case["expect"], lambda e, o: dict(e), run) is None
    assert reverse(["1", "2", "3"]) == ["3", "2", "1"]


def test_pile_readings_give_the_same_expectation_with_another_shuffle(monkeypatch: pytest.MonkeyPatch) -> None:
    """For the readings that decide whether a shuffle is reached (reshuffles, empty_deck,
    deck_between_rounds), every case prepared with either shuffle expects the same, or is
    skipped for its shuffle with either."""
    pairs = list(_pairs(PILE_OPTIONS))
    assert len(pairs) > 100
    skipped = _check(pairs, monkeypatch)
    assert "F7-C0806 reshuffles=unlimited" in skipped


@pytest.mark.slow
def test_every_reading_gives_the_same_expectation_with_another_shuffle(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same for every modelled reading of every dispute (about 13,000 runs: slow)."""
    _check(list(_pairs(None)), monkeypatch)


def _auto_resolving() -> dict[str, Any]:
    impl = copy.deepcopy(implementation())
    impl["auto_resolves_forced_choices"] = True
    return impl


@pytest.mark.rules("F7-113", "F7-116")
@pytest.mark.parametrize("order", ["reversed", "random-1", "random-2"])
def test_no_case_depends_on_the_shuffle_for_an_engine_resolving_forced_choices(
    order: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 46: an engine resolving single-choice decisions itself plays on past a case's last
    action, where the reference plays on too; every case prepared for it (and for an engine that
    does not) expects the same whatever the order of a shuffle, or is skipped for it with either.
    F7-C0609, F7-C1018, F7-C1047 and F7-C1048 played on into a reshuffle before suite 1.6.0."""
    impls = (implementation(), _auto_resolving())
    first = {(cid, i): prepare(case, impl) for cid, case in CASES.items() for i, impl in enumerate(impls)}
    _other_shuffle(monkeypatch, order)
    changed = []
    for (cid, i), a in first.items():
        b = prepare(CASES[cid], impls[i])
        if isinstance(a, CaseResult) or isinstance(b, CaseResult):
            assert isinstance(a, CaseResult) and isinstance(b, CaseResult) and a.status == b.status, (cid, i)
            continue
        if a.expect != b.expect:
            changed.append(f"{cid} {'auto' if i else 'plain'}: " + ", ".join(sorted(
                k for k in set(a.expect) | set(b.expect) if a.expect.get(k) != b.expect.get(k)
            )))  # fmt: skip
    assert changed == []


@pytest.mark.rules("F7-113")
def test_keys_hanging_on_the_order_after_forced_choices_are_left_out() -> None:
    """Issue 46: F7-C0724 under deck_between_rounds=fresh-shuffle, for an engine resolving forced
    choices: it plays on into the next round's fresh shuffle, whose order decides the lines; the
    lines are left out of the expectation, the next decision (the same for any order) is kept."""
    case = CASES["F7-C0724"]
    impl = _auto_resolving()
    impl["editions"]["flip7"]["options"]["deck_between_rounds"] = ["fresh-shuffle"]
    prepared = prepare(case, impl)
    assert isinstance(prepared, Prepared)
    assert prepared.expect == {"next": {"player": 2, "legal": ["hit", "stay"]}}
    assert prepared.forced_tail[0] == "target 1"
