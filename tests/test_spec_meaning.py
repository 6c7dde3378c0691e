"""Edition tables checked for meaning, and YAML read bounded (issue 14 item 6).

A table that passes the schema but names a reading the interpreter does not
implement for a key, gives a key an option's reading names where it wants a
set of players or a boolean, repeats a key, or is an alias bomb, a huge file
or a huge count, is a SpecError naming the file, the path and what was
allowed.  The bad inputs also run from the command line in
tests/test_bad_inputs.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from flip7ref import SpecError, load_edition, load_edition_file
from flip7ref.core import textfiles
from flip7ref.core.spec import MAX_DECK_CARDS, MAX_YAML_NODES, parse_yaml, read_yaml_file, spec_dir
from flip7ref.core.textfiles import _yaml_loader

EDITIONS = spec_dir() / "editions"


def _table(tmp_path: Path, edition: str, *pairs: tuple[str, str]) -> Path:
    text = (EDITIONS / f"{edition}.yaml").read_text(encoding="utf-8")
    for old, new in pairs:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / f"{edition}-variant.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _refused(path: Path) -> SpecError:
    with pytest.raises(SpecError) as info:
        load_edition_file(path)
    return info.value


def test_the_c_loader_reads_the_shipped_tables_as_the_python_loader_does() -> None:
    if yaml.__with_libyaml__:
        assert _yaml_loader() is yaml.CSafeLoader
    for path in EDITIONS.glob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        assert parse_yaml(text, str(path)) == yaml.load(text, Loader=yaml.SafeLoader)


@pytest.mark.rules("F7-020", "F7-030")
def test_an_unknown_reading_names_file_path_and_the_allowed_values(tmp_path: Path) -> None:
    path = _table(
        tmp_path,
        "flip7",
        ("      dealer:\n        summary: The dealer first", "      dealer-right:\n        summary: The dealer first"),
    )
    error = _refused(path)
    assert error.file == str(path)
    assert error.path == "/options/start_seat/readings/dealer-right"
    assert error.expected == "one of 'dealer-left', 'dealer'"


@pytest.mark.rules("V-014")
def test_a_values_entry_is_checked_where_it_is_written(tmp_path: Path) -> None:
    path = _table(tmp_path, "vengeance", ('values: {"yes": false, "no": true}}', 'values: {"yes": false, "no": sometimes}}'))
    error = _refused(path)
    assert error.path == "/round/stay_protects/values/no"
    assert str(error).endswith(
        "reading 'no' of option 'stayed_targetable' gives /round/stay_protects the value 'sometimes', which the "
        "interpreter does not implement; expected one of true, false"
    )


@pytest.mark.rules("V-050", "V-081")
def test_a_nested_option_reference_names_both_readings(tmp_path: Path) -> None:
    path = _table(
        tmp_path,
        "vengeance",
        (
            '"false": {option: stayed_targetable, values: {"yes": non_busted, "no": active}}',
            '"false": {option: stayed_targetable, values: {"yes": everyone, "no": active}}',
        ),
    )
    error = _refused(path)
    assert error.path == "/round/modifier_targets/values/false/values/yes"
    assert "reading 'false' of option 'brutal' with reading 'yes' of option 'stayed_targetable'" in str(error)
    assert error.expected == "one of 'active', 'non_busted', 'active_or_busted', 'any'"


@pytest.mark.rules("V-053")
def test_a_scoring_step_condition_must_be_a_boolean(tmp_path: Path) -> None:
    path = _table(
        tmp_path,
        "vengeance",
        (
            'unless: {option: brutal, values: {"false": false, "true": true}}',
            'unless: {option: brutal, values: {"false": false, "true": often}}',
        ),
    )
    assert _refused(path).path == "/scoring/3/unless/values/true"


def test_a_deck_beyond_the_limit_is_refused(tmp_path: Path) -> None:
    pairs = [(f"rank: {n}, count: {n},", f"rank: {n}, count: 1000,") for n in range(1, 13)]
    error = _refused(_table(tmp_path, "flip7", *pairs))
    assert error.path == "/cards"
    assert str(error).endswith(f"expected at most {MAX_DECK_CARDS:,} cards in one deck (the counts add up to 12,016)")


def test_anchors_aliases_and_merge_keys_that_stay_small_are_read(tmp_path: Path) -> None:
    path = tmp_path / "ok.yaml"
    path.write_text("base: &b {a: 1, b: 2}\nmore:\n  <<: *b\n  c: 3\nlist: [*b, *b]\n", encoding="utf-8")
    assert read_yaml_file(path, "test file") == {
        "base": {"a": 1, "b": 2},
        "more": {"a": 1, "b": 2, "c": 3},
        "list": [{"a": 1, "b": 2}, {"a": 1, "b": 2}],
    }


def test_an_alias_bomb_is_refused_before_it_is_built(tmp_path: Path) -> None:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 12)]  # 10**12 nodes expanded
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SpecError) as info:
        read_yaml_file(path, "test file")
    assert f"expected at most {MAX_YAML_NODES:,} YAML nodes once aliases are expanded" in str(info.value)


@pytest.mark.parametrize(
    ("text", "where", "key"),
    [
        ("a: 1\nb: {c: 1, c: 2}\n", "line 2, column 11", "c"),
        ("- {x: 1}\n- {y: 1, y: 1}\n", "line 2, column 10", "y"),
        ("1: a\n1: b\n", "line 2, column 1", "1"),
    ],
)
def test_a_key_twice_in_a_mapping_is_refused(tmp_path: Path, text: str, where: str, key: str) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as info:
        read_yaml_file(path, "test file")
    assert info.value.path == where
    assert f"key {key!r} is also at" in str(info.value)


def test_keys_that_differ_in_type_are_not_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "keys.yaml"
    path.write_text('1: int\n"1": str\n', encoding="utf-8")
    assert read_yaml_file(path, "test file") == {1: "int", "1": "str"}


def test_a_shipped_id_is_never_read_from_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "flip7").write_text("password: hunter2\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert load_edition("flip7").path == EDITIONS / "flip7.yaml"
    with pytest.raises(SpecError, match=r"^flip7, at /: found \{'password': 'hunter2'\}"):
        load_edition("./flip7")  # a path, given as one, is read


def test_the_python_loader_keeps_the_bounds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without libyaml the pure-Python SafeLoader reads the tables, with the same checks."""
    monkeypatch.setattr(textfiles, "_yaml_loader", lambda: yaml.SafeLoader)
    shipped = EDITIONS / "flip7.yaml"
    assert read_yaml_file(shipped, "edition table file") == yaml.load(
        shipped.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader
    )
    path = tmp_path / "dup.yaml"
    path.write_text("a: 1\na: 2\n", encoding="utf-8")
    with pytest.raises(SpecError, match="key 'a' is also at line 1, column 1"):
        read_yaml_file(path, "test file")
