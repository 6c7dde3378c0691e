"""The edition tables load, validate against their schema, and bad tables fail clearly."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from flip7ref import Game, OptionError, SpecError, edition_ids, load_edition, load_edition_file
from flip7ref.core.spec import load_schema, spec_dir

FLIP7 = spec_dir() / "editions" / "flip7.yaml"


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _table() -> dict[str, object]:
    data = yaml.safe_load(FLIP7.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_shipped_schemas_are_valid_json_schemas() -> None:
    """Every schema under spec/schema is itself a valid draft 2020-12 schema."""
    names = sorted(p.name.removesuffix(".schema.json") for p in (spec_dir() / "schema").glob("*.schema.json"))
    assert "edition" in names
    for name in names:
        jsonschema.Draft202012Validator.check_schema(load_schema(name))


def test_shipped_editions_load() -> None:
    """flip7 is shipped and loads with its cards, options and rule catalogue."""
    assert "flip7" in edition_ids()
    edition = load_edition("flip7")
    assert edition.title == "Flip 7"
    assert len(edition.cards) == 22
    assert len(edition.rules) >= 66
    assert {"initial_deal", "stay_requires", "tie", "target_score", "decks"} <= set(edition.options)


def test_every_option_names_a_recorded_dispute() -> None:
    """Options that model a dispute point at a dispute entry that names them back."""
    edition = load_edition("flip7")
    for name, spec in edition.options.items():
        if spec.dispute is None:
            continue
        dispute = edition.disputes[spec.dispute]
        assert dispute["option"] == name, spec.dispute
        assert {r.name for r in spec.readings} <= {r["name"] for r in dispute["readings"]}
        assert dispute["default"] == spec.default


def test_dispute_and_rule_sources_are_registered() -> None:
    """Every source key cited by a rule is in the table's source register."""
    edition = load_edition("flip7")
    for rule in edition.rules.values():
        for key in rule.sources:
            assert key in edition.sources, f"{rule.id} cites unknown source {key}"


def test_schema_error_names_file_and_path(tmp_path: Path) -> None:
    """A wrong field type is reported with the file, the path inside it and what was expected."""
    data = _table()
    cards = data["cards"]
    assert isinstance(cards, list)
    cards[3]["count"] = "three"
    path = _write(tmp_path, data)
    with pytest.raises(SpecError) as info:
        load_edition_file(path)
    assert info.value.file == str(path)
    assert info.value.path == "/cards/3/count"
    assert "integer" in str(info.value)
    assert str(path) in str(info.value)


def test_missing_section_is_reported(tmp_path: Path) -> None:
    """A table without its scoring section names the missing property."""
    data = _table()
    del data["scoring"]
    with pytest.raises(SpecError) as info:
        load_edition_file(_write(tmp_path, data))
    assert "scoring" in str(info.value)


def test_unknown_option_reference_is_reported(tmp_path: Path) -> None:
    """A card parameter that refers to an option the table lacks is a spec error."""
    data = _table()
    rnd = data["round"]
    assert isinstance(rnd, dict)
    rnd["stay_requires"] = {"option": "no_such_option"}
    with pytest.raises(SpecError) as info:
        load_edition_file(_write(tmp_path, data))
    assert info.value.path == "/round/stay_requires/option"
    assert "no_such_option" in str(info.value)


def test_duplicate_card_id_is_reported(tmp_path: Path) -> None:
    """Two cards with one id are rejected, naming the second one."""
    data = _table()
    cards = data["cards"]
    assert isinstance(cards, list)
    cards[5]["id"] = "4"
    with pytest.raises(SpecError) as info:
        load_edition_file(_write(tmp_path, data))
    assert info.value.path == "/cards/5/id"


def test_default_must_be_a_reading(tmp_path: Path) -> None:
    """An option whose default is not one of its readings is rejected."""
    data = _table()
    options = data["options"]
    assert isinstance(options, dict)
    options["tie"]["default"] = "coin-flip"
    with pytest.raises(SpecError) as info:
        load_edition_file(_write(tmp_path, data))
    assert info.value.path == "/options/tie/default"


def test_malformed_yaml_names_the_line(tmp_path: Path) -> None:
    """YAML syntax errors give the file and the line."""
    path = tmp_path / "bad.yaml"
    path.write_text("format: 1\ncards: [\n  - {id: 1\n", encoding="utf-8")
    with pytest.raises(SpecError) as info:
        load_edition_file(path)
    assert str(path) in str(info.value)
    assert "line" in info.value.path
    assert "valid YAML" in str(info.value)


def test_missing_file_and_unknown_edition() -> None:
    """A missing table file is a SpecError; an unknown edition id an OptionError listing the known ones."""
    with pytest.raises(SpecError):
        load_edition_file("/nonexistent/table.yaml")
    with pytest.raises(OptionError) as info:
        Game("flip8", 4)
    assert "flip7" in str(info.value)


def test_a_variant_table_needs_no_python(tmp_path: Path) -> None:
    """A house-rule table (Flip 8: eight distinct numbers, +20) runs through the same interpreter."""
    data = _table()
    data["edition"] = {"id": "flip8", "title": "Flip 8 (house rule)"}
    data["thresholds"] = {"flip7_distinct": 8, "flip7_bonus": 20, "players_per_deck": 18, "min_players": 1}
    path = _write(tmp_path, data)
    game = Game(str(path), 1)
    line = ["0", "1", "2", "3", "4", "5", "6"]
    s = game.new_position(lines={0: line[:-1]}, draw=["6", "7"])
    s = s.apply("hit")
    s = s.apply_chance("6")
    assert s.round == 1 and s.line(0) == line  # seven numbers are not enough here
    s = s.apply("hit")
    s = s.apply_chance("7")
    assert s.round_scores() == (28 + 20,)


def test_state_json_is_plain(tmp_path: Path) -> None:
    """A serialized state is plain JSON (strings, numbers, lists, dicts)."""
    state = Game("flip7", 3).new_initial_state(seed=3)
    text = json.dumps(state.to_dict())
    assert json.loads(text)["edition"] == "flip7"
