"""The table cache: a checked edition table is kept under a digest of its input (docs/build.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

import attrs
import pytest

from flip7ref import Game, SpecError
from flip7ref.core import spec
from flip7ref.core.spec import load_edition_file, spec_dir


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FLIP7REF_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("FLIP7REF_NO_CACHE", raising=False)
    copy = tmp_path / "flip7.yaml"
    shutil.copy(spec_dir() / "editions" / "flip7.yaml", copy)
    return copy


def test_a_second_load_reads_the_cache_and_gives_the_same_table(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = load_edition_file(table)
    files = list((table.parent / "cache").glob("edition-*.pickle"))
    assert len(files) == 1

    def parse_again(*args: object) -> None:
        raise AssertionError("the table was parsed again")

    monkeypatch.setattr(spec, "parse_edition", parse_again)
    second = load_edition_file(table)
    assert second is not first and attrs.asdict(second) == attrs.asdict(first)
    assert Game(second, 4) == Game(first, 4)
    assert Game(second, 4).new_initial_state(seed=3).to_dict() == Game(first, 4).new_initial_state(seed=3).to_dict()


def test_a_changed_table_is_read_again(table: Path) -> None:
    load_edition_file(table)
    (before,) = (table.parent / "cache").glob("edition-*.pickle")
    text = table.read_text(encoding="utf-8")
    table.write_text(text.replace("title:", "title: x", 1) if "title: " in text else text + "\n", encoding="utf-8")
    load_edition_file(table)
    (after,) = (table.parent / "cache").glob("edition-*.pickle")  # the old text's file is removed
    assert after != before
    table.write_text("edition: [", encoding="utf-8")  # broken now: the cache of the old text is not used
    with pytest.raises(SpecError):
        load_edition_file(table)


def test_a_corrupt_cache_file_is_ignored(table: Path) -> None:
    good = load_edition_file(table)
    (cache,) = (table.parent / "cache").glob("edition-*.pickle")
    cache.write_bytes(b"not a pickle")
    assert attrs.asdict(load_edition_file(table)) == attrs.asdict(good)


def test_no_cache_when_switched_off(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLIP7REF_NO_CACHE", "1")
    load_edition_file(table)
    assert not (table.parent / "cache").exists()


def test_an_unwritable_cache_folder_is_skipped(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = table.parent / "file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("FLIP7REF_CACHE_DIR", str(blocker / "cache"))  # a folder inside a file: cannot be made
    assert load_edition_file(table).id == "flip7"


LOADED_AT_START = (
    "import sys, flip7ref\n"
    "flip7ref.Game('flip7', 4).new_initial_state(seed=1)\n"
    "print(' '.join(sorted(sys.modules)))\n"
)


def test_a_start_from_the_cache_reads_no_yaml_and_checks_no_schema(tmp_path: Path) -> None:
    """A table read from the cache loads none of what reading and checking a table file needs
    (yaml, jsonschema, and flip7ref's modules for them), nor rich: a fast start (docs/build.md)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "FLIP7REF_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("FLIP7REF_NO_CACHE", None)
    runs = [
        set(subprocess.run([sys.executable, "-c", LOADED_AT_START], env=env, capture_output=True, text=True, check=True,
                           cwd=tmp_path).stdout.split())
        for _ in range(2)
    ]  # fmt: skip
    # flip7ref.core.textfiles is loaded: the table file's bytes (the cache key) are read through its
    # read_bytes_file, which refuses a named pipe unread (issue 41); it imports no parser
    parsing = {"yaml", "jsonschema", "flip7ref.core.schema", "flip7ref.core.edition_check"}
    # the first run checks the table (edition_check) but neither jsonschema nor yaml: a shipped table is known
    # to pass the schema and its data is shipped parsed (flip7ref.core.checked_tables)
    assert {"flip7ref.core.edition_check"} <= runs[0], "the first run checks the table: the check below would prove nothing"
    assert not {"yaml", "jsonschema"} & runs[0]
    assert not (parsing | {"rich"}) & runs[1]
    # nor what only writing the cache needs (tempfile brings in shutil, bz2 and lzma), nor hashlib (it loads
    # OpenSSL; the cache key is the built-in BLAKE2)
    assert not {"tempfile", "shutil", "bz2", "lzma", "hashlib"} & runs[1]
    # nor fractions (only State.chance_outcomes builds a Fraction; it imports decimal)
    assert "fractions" not in runs[1]
    assert {"flip7ref.core.spec", "flip7ref.core.edition", "flip7ref.core.state"} <= runs[1]


def test_the_cache_folder_keeps_only_the_most_recently_used_files(table: Path) -> None:
    """Issue 42: the user cache grew without bound (one file per table path ever read). A write
    prunes the folder to spec.CACHE_KEEP pickles, the least recently used (a hit touches its file)
    going first; stale temporary files of an interrupted write go too; npm/ and others stay."""
    import os

    cache = table.parent / "cache"
    load_edition_file(table)
    (mine,) = cache.glob("edition-*.pickle")
    for i in range(spec.CACHE_KEEP + 5):  # older files of other table paths, the oldest first
        old = cache / f"edition-{i:016x}-0.pickle"
        old.write_bytes(b"x")
        os.utime(old, (1_000_000 + i, 1_000_000 + i))
    os.utime(mine, (900_000, 900_000))  # the least recently used...
    assert load_edition_file(table) is not None  # ...until this hit touches it
    stale, fresh = cache / ".edition-abc", cache / ".edition-def"
    stale.write_bytes(b""), fresh.write_bytes(b"")
    os.utime(stale, (1_000_000, 1_000_000))
    (cache / "npm").mkdir()
    (cache / "other.txt").write_text("kept", encoding="utf-8")
    copy = table.with_name("second.yaml")
    shutil.copy(table, copy)
    load_edition_file(copy)  # a write: the folder is pruned
    left = sorted(p.name for p in cache.iterdir())
    pickles = [name for name in left if name.endswith(".pickle")]
    assert len(pickles) == spec.CACHE_KEEP
    assert mine.name in pickles and "edition-0000000000000000-0.pickle" not in pickles
    assert [f"edition-{i:016x}-0.pickle" for i in range(7, spec.CACHE_KEEP + 5)] == sorted(
        name for name in pickles if name.endswith("-0.pickle")
    )
    assert ".edition-abc" not in left and {".edition-def", "npm", "other.txt"} <= set(left)
