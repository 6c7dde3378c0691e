"""The three recipes of CONTRIBUTING.md, done as written: a new card, a new option, a new primitive.

Each test writes a copy of the shipped Flip 7 table with the recipe's change into a
scratch folder and plays it, through the library and the command line. The primitive
recipe needs code inside flip7ref/ (a module, an import line in the registry, a value in
the schema); the test makes the same three additions for the length of the test only
(the class below, registered; the schema's enum extended in memory) and undoes them.

The cards and options made here are house rules of the recipes, not rules of an edition,
so these tests cite no rule ids.
"""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import attrs
import pytest
import yaml

from flip7ref import Action, Game, SpecError, State
from flip7ref.cli import main
from flip7ref.core import events
from flip7ref.core.model import Status, make_player
from flip7ref.core.primitives.base import PRIMITIVES, Effect, primitive
from flip7ref.play.games import play
from flip7ref.play.strategies import ThresholdStrategy

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _own_table_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables of these tests are cached in the scratch folder, not in the user's cache."""
    monkeypatch.setenv("FLIP7REF_CACHE_DIR", str(tmp_path / "cache"))


def shipped_flip7() -> dict[str, Any]:
    """The shipped Flip 7 table as plain data, to copy and change."""
    data: dict[str, Any] = yaml.safe_load((ROOT / "spec" / "editions" / "flip7.yaml").read_text(encoding="utf-8"))
    return data


def write_table(folder: Path, name: str, data: dict[str, Any]) -> str:
    path = folder / name
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return str(path)


def draw(state: State) -> State:
    """Reveal the top cards of a stacked pile until a seat decides."""
    while state.is_chance_node():
        state = state.apply_chance(state.next_card())
    return state


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- Recipe 1: a new card built from an existing primitive -------------------------------------------------------

FLIP_TWO = {
    "id": "flip_two",
    "category": "action",
    "count": 3,
    "names": {"en": "Flip Two!"},
    "effect": {
        "primitive": "forced_draw",  # Flip Three's primitive with count 2
        "targets": "active",
        "self_target": {"option": "self_target"},
        "count": 2,
        "set_aside": {"option": "second_chance_in_flip_three",
                      "values": {"immediate": ["freeze", "flip_three", "flip_two"],
                                 "set-aside": ["freeze", "flip_three", "flip_two", "second_chance"]}},
        "on_bust": {"option": "flip_three_bust"},
        "assigner": {"option": "set_aside_assigner"},
        "then_stay": False,
    },
    "rules": ["F7-007", "F7-070"],
}  # fmt: skip


def flip_two_table(folder: Path) -> str:
    data = shipped_flip7()
    data["edition"]["id"] = "flip7-flip-two"
    data["edition"]["title"] = "Flip 7 with Flip Two"
    data["cards"].append(copy.deepcopy(FLIP_TWO))
    return write_table(folder, "flip-two.yaml", data)


def test_recipe_new_card_plays_from_a_yaml_entry(tmp_path: Path) -> None:
    """A Flip Two (forced_draw, count 2) added to a copied table: 3 more cards in the deck; played on
    seat 1, it makes them take exactly two cards, then the offers go on."""
    game = Game(flip_two_table(tmp_path), 2)
    assert len(game.deck) == len(Game("flip7", 2).deck) + 3 == 97
    state = draw(game.new_initial_state(stack=["5", "flip_two", "3", "4", "9"]))  # seat 1 is dealt 5, seat 0 Flip Two
    assert state.current_player == 0 and state.legal_action_strings() == ["target 0", "target 1"]
    state = draw(state.apply(Action.parse("target 1")))
    log = [e.to_dict() for e in state.events()]
    assert {"type": "forced_draw_started", "seat": 1, "card": "flip_two", "by": 0, "count": 2} in log
    assert [e["card"] for e in log if e["type"] == "dealt" and e.get("via") == "flip_two"] == ["3", "4"]
    assert {"type": "forced_draw_ended", "seat": 1, "card": "flip_two", "outcome": "complete"} in log
    assert state.current_player == 1 and state.legal_action_strings() == ["hit", "stay"]


def test_recipe_new_card_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--edition FILE.yaml` plays the new table: whole games end, and the card is dealt and played in them."""
    table = flip_two_table(tmp_path)
    code, out, err = run_cli(capsys, "simulate", "--edition", table, "--players", "3", "--games", "30", "--seed", "1")
    assert (code, err) == (0, "") and "games              30  (3 players, seed 1)" in out
    game = Game(table, 3)
    played = 0
    for seed in range(10):
        end = play(game.new_initial_state(seed=seed), [ThresholdStrategy(20)], random.Random(seed))
        assert end.is_terminal()
        played += sum(e.type == "forced_draw_started" and e.to_dict()["card"] == "flip_two" for e in end.events())
    assert played > 0


def test_recipe_new_card_citing_an_unknown_rule_is_refused(tmp_path: Path) -> None:
    """A card must cite rule ids of the table's catalogue; the error names the file and the path."""
    data = shipped_flip7()
    data["cards"].append({**copy.deepcopy(FLIP_TWO), "rules": ["F7-999"]})
    table = write_table(tmp_path, "bad.yaml", data)
    with pytest.raises(SpecError) as caught:
        Game(table, 2)
    assert "/cards/22/rules/0" in str(caught.value) and "no rule F7-999" in str(caught.value)


# --- Recipe 2: a new option, a disputed point with named readings -----------------------------------------------

def busted_modifiers_table(folder: Path) -> str:
    data = shipped_flip7()
    data["options"]["busted_modifiers"] = {
        "summary": "Whether a player who busts still scores their +N cards.",
        "rules": ["F7-040"],
        "default": "lose-all",
        "readings": {
            "lose-all": {"summary": "A bust scores nothing.", "holders": ["RB31"]},
            "keep-modifiers": {"summary": "A bust still scores its +N cards.", "holders": ["house rule"]},
        },
    }
    # the table key the option decides, each reading mapped to a value the interpreter implements
    data["round"]["busted_score"] = {"option": "busted_modifiers", "values": {"lose-all": "zero", "keep-modifiers": "modifiers"}}
    return write_table(folder, "busted-modifiers.yaml", data)


def round_one_scores(table: str, reading: str) -> list[int]:
    """Seat 1 is dealt 5, draws +4, then a second 5 and busts; seat 0 holds 9 and 3 and stays."""
    game = Game(table, 2, {"busted_modifiers": reading})
    state = draw(game.new_initial_state(stack=["5", "9", "+4", "3", "5"]))
    for action in ["hit", "hit", "hit", "stay"]:  # seat 1, seat 0, seat 1 (busts), seat 0
        state = draw(state.apply(Action.parse(action)))
    assert state.players[1].status is Status.BUSTED or state.round > 1
    scored = next(e.to_dict() for e in state.events() if e.type == "round_scored")
    return list(scored["scores"])


def test_recipe_new_option_both_readings_load_and_play_differently(tmp_path: Path) -> None:
    """The same deal scores the busted seat 0 under the default reading and its +4 under the other."""
    table = busted_modifiers_table(tmp_path)
    assert Game(table, 2).options["busted_modifiers"] == "lose-all"
    assert round_one_scores(table, "lose-all") == [12, 0]
    assert round_one_scores(table, "keep-modifiers") == [12, 4]


def test_recipe_new_option_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`options` lists it with both readings; `--option NAME=READING` plays it; an unknown reading is one line, exit 2."""
    table = busted_modifiers_table(tmp_path)
    code, out, _ = run_cli(capsys, "options", "--edition", table)
    assert code == 0
    assert "busted_modifiers  (default: lose-all)" in out
    assert "- keep-modifiers: A bust still scores its +N cards." in out
    keep = "busted_modifiers=keep-modifiers"
    code, out, err = run_cli(capsys, "simulate", "--edition", table, "--games", "20", "--option", keep)
    assert (code, err) == (0, "") and "options: busted_modifiers=keep-modifiers" in out
    code, _, err = run_cli(capsys, "simulate", "--edition", table, "--games", "2", "--option", "busted_modifiers=half")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "busted_modifiers" in err


def test_recipe_new_option_reading_without_a_value_is_refused(tmp_path: Path) -> None:
    """Every reading needs its entry under `values`; the error names the table key's path."""
    data = yaml.safe_load(Path(busted_modifiers_table(tmp_path)).read_text(encoding="utf-8"))
    del data["round"]["busted_score"]["values"]["keep-modifiers"]
    with pytest.raises(SpecError) as caught:
        Game(write_table(tmp_path, "bad.yaml", data), 2)
    assert "/round/busted_score/values" in str(caught.value) and "'keep-modifiers'" in str(caught.value)


# --- Recipe 3: a new primitive ----------------------------------------------------------------------------------

@attrs.frozen
class BankIt(Effect):
    """Primitive ``bank`` (the recipe's example): the seat that receives the card stays at once
    (frozen, its line banked), with no target to choose; the card is discarded."""

    def receive(self, w: Any, code: int, seat: int) -> None:
        p = w.players[seat]
        w.players[seat] = make_player((p.line, p.kept, Status.FROZEN, p.flip7_barred))
        w.to_discard(code)
        w.emit(events.frozen(seat, seat))


def bank_table(folder: Path) -> str:
    data = shipped_flip7()
    data["cards"].append({"id": "bank_it", "category": "action", "count": 2, "names": {"en": "Bank It!"},
                          "effect": {"primitive": "bank"}, "rules": ["F7-007"]})  # fmt: skip
    return write_table(folder, "bank.yaml", data)


def test_recipe_new_primitive_needs_its_module_imported(tmp_path: Path) -> None:
    """Before a module registers the name, the table is refused at the card's `primitive`,
    naming the file and the card."""
    with pytest.raises(SpecError) as caught:
        Game(bank_table(tmp_path), 2)
    assert "bank.yaml" in str(caught.value) and "/cards/22/effect/primitive" in str(caught.value)
    assert "bank_it" in str(caught.value)


def test_recipe_new_primitive_plays_once_registered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once its module has registered it (a plug-in: no edit inside flip7ref/), a card using it
    plays: drawn on a Hit, it freezes its drawer without a target choice; the state still
    serializes and replays."""
    monkeypatch.setitem(PRIMITIVES, "bank", BankIt)  # undone after the test, like the line below
    primitive("bank")(BankIt)  # what @primitive("bank") does when the plug-in module is imported
    game = Game(bank_table(tmp_path), 2)
    state = draw(game.new_initial_state(stack=["5", "9", "bank_it", "3"]))
    state = draw(state.apply(Action.parse("hit")))  # seat 1 draws Bank It!
    assert [e.to_dict() for e in state.events()][-2:] == [
        {"type": "dealt", "seat": 1, "card": "bank_it", "via": "hit"},
        {"type": "frozen", "seat": 1, "by": 1},
    ]
    assert [p.status for p in state.players] == [Status.ACTIVE, Status.FROZEN]
    assert state.current_player == 0 and state.legal_action_strings() == ["hit", "stay"]
    assert State.from_dict(state.to_dict(), game) == state
    assert state.replay()[-1] == state
