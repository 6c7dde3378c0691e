"""The batched engines follow the edition table, or refuse it in one line (flip7ref/batch/tables.py).

Each test copies a shipped table, changes one fact the table states as data (the Flip 7 bonus or
line length, a modifier's amount, the multiplier, the divisor, a forced draw's count, the hold
limit, the target score) and plays seeded random games in lockstep with the reference
interpreter on the changed table (`flip7ref.batch.lockstep.compare`: every observation, mask
and event).  A second comparison runs the batched engine on the *unchanged* table against the
reference on the changed one and must find a difference: the fact is exercised by the games,
and an engine that hard-coded it would fail.  A table structure an engine does not implement
is refused with one `OptionError` naming the table and the fact, for both backends.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numpy")
pytest.importorskip("gymnasium")  # the reference's encoding, used by the lockstep comparison

import yaml

from flip7ref import Game
from flip7ref.batch import lockstep
from flip7ref.batch.core import BatchState
from flip7ref.batch.vengeance import VengeanceState
from flip7ref.core.edition import spec_dir
from flip7ref.core.errors import OptionError

ONE = {"reshuffles": 1}  # reading 1 of reshuffles, as these tests were written (the batch plays unlimited too)

HAS_NUMBA = importlib.util.find_spec("numba") is not None
BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.skipif(not HAS_NUMBA, reason="numba not installed"))]

Table = dict[str, Any]


def _card(table: Table, card_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in table["cards"] if c["id"] == card_id)
    return found


def _option_default(name: str, value: object) -> Callable[[Table], None]:
    def change(table: Table) -> None:
        table["options"][name]["default"] = value

    return change


def _threshold(name: str, value: int) -> Callable[[Table], None]:
    def change(table: Table) -> None:
        table["thresholds"][name] = value

    return change


def _modifier(card_id: str, value: int) -> Callable[[Table], None]:
    def change(table: Table) -> None:
        _card(table, card_id)["modifier"]["value"] = value

    return change


def _effect(card_id: str, key: str, value: object) -> Callable[[Table], None]:
    def change(table: Table) -> None:
        _card(table, card_id)["effect"][key] = value

    return change


def _copy(tmp_path: Path, edition: str, *changes: Callable[[Table], None], name: str = "house") -> str:
    """A copy of the shipped table ``edition`` with ``changes`` applied, under a new id."""
    table = yaml.safe_load((spec_dir() / "editions" / f"{edition}.yaml").read_text(encoding="utf-8"))
    table["edition"]["id"] = f"{edition}-{name}"
    for change in changes:
        change(table)
    path = tmp_path / f"{edition}-{name}.yaml"
    path.write_text(yaml.safe_dump(table, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return str(path)


def _hard_coded(monkeypatch: pytest.MonkeyPatch, make: Any, edition: str) -> None:
    """Make `lockstep.compare` build its batched engine on the table ``edition`` without the
    fact's change, as an engine that hard-coded the fact would play, while the reference plays
    the changed table."""
    shipped = Game(edition, 4)

    def build(game: Game, *args: Any, **kwargs: Any) -> Any:
        return make(Game(shipped.edition, game.players, game.non_default_options()), *args, **kwargs)

    if make is VengeanceState:  # compare imports it inside the function, from its module
        import flip7ref.batch.vengeance as module

        monkeypatch.setattr(module, "VengeanceState", build)
    else:
        monkeypatch.setattr(lockstep, "BatchState", build)


Change = Callable[[Table], None]


def _changes(fact: Change | tuple[Change, ...]) -> tuple[Change, ...]:
    """A fact's changes: the last is the fact, those before it are made to both tables."""
    return fact if isinstance(fact, tuple) else (fact,)


BASE_FACTS: dict[str, Change | tuple[Change, ...]] = {
    # random play seldom makes a Flip 7: both tables need only four numbers for one here
    "flip7_bonus 15 -> 40 (F7-050)": (_threshold("flip7_distinct", 4), _threshold("flip7_bonus", 40)),
    "flip7_distinct 7 -> 5 (F7-050)": _threshold("flip7_distinct", 5),
    "+4 adds 9 (F7-090)": _modifier("+4", 9),
    "x2 multiplies by 3 (F7-091)": _modifier("x2", 3),
    "Flip Three draws 2 (F7-070)": _effect("flip_three", "count", 2),
    "Second Chance hold limit 2 (F7-082)": _effect("second_chance", "hold_limit", 2),
    "target_score 200 -> 60 (F7-120)": _option_default("target_score", 60),
}


@pytest.mark.parametrize("fact", list(BASE_FACTS))
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_base_engine_follows_a_changed_fact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fact: str, backend: str) -> None:
    *before, change = _changes(BASE_FACTS[fact])
    path = _copy(tmp_path, "flip7", *before, change)
    result = lockstep.compare(4, 40, seed=3, batch=40, edition=path, backend=backend, options=ONE)
    assert result["games"] == 40 and result["decisions"] > 500
    _hard_coded(monkeypatch, BatchState, _copy(tmp_path, "flip7", *before, name="before"))
    with pytest.raises(lockstep.Difference):
        lockstep.compare(4, 40, seed=3, batch=40, edition=path, backend=backend, options=ONE)


VENGEANCE_FACTS: dict[str, Change | tuple[Change, ...]] = {
    "flip7_bonus 15 -> 40 (V-022)": (_threshold("flip7_distinct", 4), _threshold("flip7_bonus", 40)),
    "flip7_distinct 7 -> 5 (V-022)": _threshold("flip7_distinct", 5),
    "-4 adds -7 (V-051)": _modifier("-4", -7),
    "/2 divides by 3 (V-052)": _modifier("/2", 3),
    "Flip Four draws 3 (V-044)": _effect("flip_four", "count", 3),
    "Just One More draws 2 (V-043)": _effect("just_one_more", "count", 2),
    "target_score 200 -> 60 (V-073)": _option_default("target_score", 60),
}


@pytest.mark.parametrize("fact", list(VENGEANCE_FACTS))
def test_the_vengeance_engine_follows_a_changed_fact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fact: str) -> None:
    *before, change = _changes(VENGEANCE_FACTS[fact])
    path = _copy(tmp_path, "vengeance", *before, change)
    result = lockstep.compare(4, 40, seed=3, batch=40, edition=path, options=ONE)
    assert result["games"] == 40 and result["decisions"] > 500
    _hard_coded(monkeypatch, VengeanceState, _copy(tmp_path, "vengeance", *before, name="before"))
    with pytest.raises(lockstep.Difference):
        lockstep.compare(4, 40, seed=3, batch=40, edition=path, options=ONE)


def _add_divide(table: Table) -> None:
    table["cards"].append({"id": "/2", "category": "modifier", "count": 1, "modifier": {"op": "divide", "value": 2},
                           "rules": ["F7-006"]})  # fmt: skip


def _second_freeze(table: Table) -> None:
    twin = dict(_card(table, "freeze"), id="deep_freeze", names={"en": "Deep Freeze"})
    twin.pop("aliases", None)
    table["cards"].append(twin)


def _no_bonus(table: Table) -> None:
    table["scoring"] = [s for s in table["scoring"] if s["step"] != "flip7_bonus"]


BASE_REFUSED = {
    "divide": (_add_divide, r"modifier '/2' has op 'divide'; the batched flip7 engine plays the ops add, multiply only"),
    "two x2": (lambda t: _card(t, "x2").update(count=2), r"the deck holds 2 multiplying cards; .* at most one \(F7-091\)"),
    "then_stay": (_effect("flip_three", "then_stay", True), r"card 'flip_three' has then_stay True; .* plays False only"),
    "keep_card": (_effect("freeze", "keep_card", False), r"card 'freeze' has keep_card False; .* plays True only"),
    "two freezes": (_second_freeze, r"the cards of primitive freeze are 'freeze', 'deep_freeze'; .* exactly one card kind"),
    "set aside": (_effect("flip_three", "set_aside", ["flip_three"]), r"the forced draw sets aside \['flip_three'\]"),
    "scoring": (_no_bonus, r"scoring is \('sum_numbers', 'multiply', 'add_modifiers'\); .* plays \("),
    "round literal": (lambda t: t["round"].update(stay_protects=False), r"stay_protects is False; .* plays True only \(F7-034\)"),
}


@pytest.mark.parametrize("case", list(BASE_REFUSED))
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_base_engine_refuses_a_structure_it_does_not_implement(tmp_path: Path, case: str, backend: str) -> None:
    change, message = BASE_REFUSED[case]
    game = Game(_copy(tmp_path, "flip7", change), 4, ONE)
    with pytest.raises(OptionError, match=r"^edition flip7-house \(flip7-house\.yaml\): " + message) as caught:
        BatchState(game, 2, backend=backend)
    assert "\n" not in str(caught.value)


def _no_lucky13(table: Table) -> None:
    del _card(table, "lucky13")["traits"]


VENGEANCE_REFUSED = {
    "x2": (lambda t: t["cards"].append({"id": "x2", "category": "modifier", "count": 1,
                                        "modifier": {"op": "multiply", "value": 2}, "rules": ["V-006"]}),
           r"modifier 'x2' has op 'multiply'; the batched vengeance engine plays the ops add, divide only"),
    "two /2": (lambda t: _card(t, "/2").update(count=2), r"the deck holds 2 dividing cards; .* at most one \(V-052\)"),
    "no pair trait": (_no_lucky13, r"the cards of trait pair_allowed are none; .* exactly one card kind .*\(V-036\)"),
    "in order": (_effect("flip_four", "resolution", "assign-all-first"), r"card 'flip_four' has resolution 'assign-all-first'"),
    "round literal": (lambda t: t["round"].update(modifiers="receiver"), r"modifiers_to is 'receiver'; .* plays 'choose' only"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(VENGEANCE_REFUSED))
def test_the_vengeance_engine_refuses_a_structure_it_does_not_implement(tmp_path: Path, case: str) -> None:
    change, message = VENGEANCE_REFUSED[case]
    game = Game(_copy(tmp_path, "vengeance", change), 4, ONE)
    with pytest.raises(OptionError, match=r"^edition vengeance-house \(vengeance-house\.yaml\): " + message) as caught:
        VengeanceState(game, 2)
    assert "\n" not in str(caught.value)


def test_a_house_table_with_the_shipped_facts_plays_like_the_shipped_one(tmp_path: Path) -> None:
    """A copy under a new id is played (the engines no longer refuse a table by its id), the
    same games as the shipped table."""
    path = _copy(tmp_path, "flip7", lambda t: None)
    a, b = (
        BatchState(Game(path, 3, ONE), 4, seed=9, backend="python"),
        BatchState(Game("flip7", 3, ONE), 4, seed=9, backend="python"),
    )
    for _ in range(60):
        acts = a.legal.argmax(1)
        a.step(acts)
        b.step(acts)
    assert (a.totals == b.totals).all() and (a.deck == b.deck).all()
    assert lockstep.engine_of(Game(path, 3, ONE)) == "flip7"
    assert lockstep.engine_of(Game("vengeance", 3, ONE)) == "vengeance"
