"""The shipped tables known to pass the schema (flip7ref.core.checked_tables): a start without the
table cache skips jsonschema for them, and only for them (docs/build.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

from flip7ref import SpecError
from flip7ref.core import checked_tables, spec
from flip7ref.core.checked_tables import CHECKED, DATA_DIGEST, DATA_FILE, blake2b, checked_table, known_valid, table_digest
from flip7ref.core.edition import edition_ids
from flip7ref.core.spec import load_edition_file, parse_edition, spec_dir

SCHEMA = spec_dir() / "schema" / "edition.schema.json"


@pytest.fixture(autouse=True)
def no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLIP7REF_NO_CACHE", "1")


def test_the_list_holds_exactly_the_shipped_tables_as_they_are_now() -> None:
    now = {table_digest((spec_dir() / "editions" / f"{name}.yaml").read_bytes(), SCHEMA.read_bytes()) for name in edition_ids()}
    assert now == CHECKED, "a shipped table, the schema or the checking code changed: python tools/record_checked_tables.py"
    assert len(CHECKED) == 2


@pytest.mark.parametrize("name", ["flip7", "vengeance"])
def test_a_shipped_table_loads_the_same_with_or_without_the_schema_steps(name: str) -> None:
    path = spec_dir() / "editions" / f"{name}.yaml"
    assert known_valid(path, SCHEMA)
    from flip7ref.core.textfiles import read_yaml_file

    full = parse_edition(read_yaml_file(path, "t"), str(path), digest=_digest(path))
    quick = load_edition_file(path)
    assert attrs.asdict(quick) == attrs.asdict(full)
    assert len(quick.digest) == 32  # the file's bytes (Edition.digest): what a Game compares besides the path


def _digest(path: Path) -> str:
    return blake2b(path.read_bytes(), digest_size=16).hexdigest()


def test_a_changed_table_is_validated_in_full(tmp_path: Path) -> None:
    copy = tmp_path / "flip7.yaml"
    text = (spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8")
    assert "\ncards:\n" in text
    copy.write_text(text.replace("\ncards:\n", "\nnot_a_key: 1\ncards:\n", 1), encoding="utf-8")
    assert not known_valid(copy, SCHEMA)
    with pytest.raises(SpecError, match="expected only the properties the schema defines"):
        load_edition_file(copy)


def test_a_copy_of_a_shipped_table_elsewhere_is_known_by_its_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "mine.yaml"
    shutil.copy(spec_dir() / "editions" / "vengeance.yaml", copy)
    assert known_valid(copy, SCHEMA)
    calls: list[str] = []
    monkeypatch.setattr("flip7ref.core.schema.validate", lambda *a: calls.append("validate"))
    assert load_edition_file(copy).id == "vengeance"
    assert calls == []


def test_an_unreadable_file_is_not_known(tmp_path: Path) -> None:
    assert not known_valid(tmp_path / "missing.yaml", SCHEMA)


def _modules_loaded(code: str) -> set[str]:
    env = {**os.environ, "FLIP7REF_NO_CACHE": "1"}
    argv = [sys.executable, "-c", code + "; print(' '.join(sorted(sys.modules)))"]
    run = subprocess.run(argv, env=env, capture_output=True, text=True, check=True, cwd=Path(spec.__file__).parent.parent)
    return set(run.stdout.split())


def test_a_start_without_the_cache_imports_neither_jsonschema_nor_yaml() -> None:
    loaded = _modules_loaded("import sys, flip7ref; flip7ref.Game('flip7', 4); flip7ref.Game('vengeance', 3)")
    assert "flip7ref.core.spec" in loaded and "json" in loaded
    assert "jsonschema" not in loaded
    assert "yaml" not in loaded  # the shipped tables' data comes from checked_tables.json


def test_a_table_not_shipped_is_read_from_its_yaml(tmp_path: Path) -> None:
    copy = tmp_path / "flip7.yaml"
    copy.write_text((spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8") + "# a comment\n", encoding="utf-8")
    loaded = _modules_loaded(f"import sys, flip7ref.core.spec as s; s.load_edition_file({str(copy)!r})")
    assert "yaml" in loaded and "jsonschema" in loaded


def test_the_shipped_data_is_the_yaml_of_each_table_and_matches_its_digest() -> None:
    """checked_tables.json holds, for each listed digest, what the YAML parses into (tools/record_checked_tables.py)."""
    from flip7ref.core.textfiles import read_yaml_file

    raw = DATA_FILE.read_bytes()
    assert blake2b(raw, digest_size=32).hexdigest() == DATA_DIGEST, "python tools/record_checked_tables.py"
    for name in edition_ids():
        path = spec_dir() / "editions" / f"{name}.yaml"
        known, data = checked_table(path, SCHEMA)
        assert known
        assert data == read_yaml_file(path, "t")
        assert list(data) == list(read_yaml_file(path, "t"))  # type: ignore[call-overload]


def test_shipped_data_that_does_not_match_its_digest_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A checked_tables.json changed by hand (here: another card count) is ignored; the YAML is read."""
    bad = tmp_path / "checked_tables.json"
    bad.write_bytes(DATA_FILE.read_bytes().replace(b'"count":', b'"count":1', 1))
    monkeypatch.setattr(checked_tables, "DATA_FILE", bad)
    path = spec_dir() / "editions" / "flip7.yaml"
    assert checked_table(path, SCHEMA) == (True, None)
    from flip7ref.core.textfiles import read_yaml_file

    expected = parse_edition(read_yaml_file(path, "t"), str(path), digest=_digest(path))
    assert attrs.asdict(load_edition_file(path)) == attrs.asdict(expected)
    monkeypatch.setattr(checked_tables, "DATA_FILE", tmp_path / "missing.json")
    assert checked_table(path, SCHEMA) == (True, None)
