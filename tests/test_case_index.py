"""The light index of the shipped conformance suite (flip7ref.checking.case_index): it agrees with
the validated suite, is cached by content, and the look-ups through it find what a
search of the whole suite finds."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path
from typing import Any

import pytest

from flip7ref.checking import case_index as ci
from flip7ref.checking import conformance
from flip7ref.checking.catalogue import attached_cases, disputes
from flip7ref.checking.conformance import cases_dir, load_cases
from flip7ref.checking.runs import find_case
from flip7ref.core.errors import SpecError
from flip7ref.docs import cases_by_dispute, cases_by_rule


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty cache folder of its own and no index remembered from before; the cache folder."""
    monkeypatch.setenv("FLIP7REF_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("FLIP7REF_NO_CACHE", raising=False)
    ci.case_index.cache_clear()
    yield tmp_path / "cache"
    ci.case_index.cache_clear()


@pytest.fixture
def suite_copy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fresh: Path) -> Path:
    """A copy of the shipped case files standing in for the shipped suite; its folder."""
    root = tmp_path / "cases"
    shutil.copytree(cases_dir(), root)
    monkeypatch.setattr(conformance, "cases_dir", lambda: root)
    return root


def test_the_index_agrees_with_the_validated_suite(fresh: Path) -> None:
    cases = load_cases()
    entries = ci.case_index()
    assert [e["id"] for e in entries] == [c["id"] for c in cases]
    assert len({e["file"] for e in entries}) == 27 and len(entries) > 300  # the whole suite, not one file
    files = {f: conformance.load_case_file(cases_dir() / f) for f in {e["file"] for e in entries}}
    for entry, case in zip(entries, cases, strict=True):
        assert entry["edition"] == case["edition"]
        assert entry["rules"] == list(case.get("rules") or [])
        assert entry.get("reading") == case.get("reading")
        assert entry["options"] == dict(case.get("options") or {})
        assert case in files[entry["file"]]
    assert cases_by_rule(entries) == cases_by_rule(cases)
    assert cases_by_dispute(entries) == cases_by_dispute(cases)
    assert cases_by_rule(entries)["F7-073"][:2] == ["F7-C0505", "F7-C0702"]


def test_look_ups_through_the_index_find_what_the_whole_suite_finds(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cases = load_cases()
    by_file = functools.cache(conformance.load_case_file)  # each file validated once in this test
    monkeypatch.setattr(conformance, "load_case_file", by_file)
    for case_id in ("F7-C0100", "v-c0045", " F7-C0505 "):
        assert find_case(case_id) == find_case(case_id, cases)
    for d in disputes(None):
        assert attached_cases(d) == attached_cases(d, cases), d.id
    assert sum(len(attached_cases(d)) for d in disputes(None)) > 0


def test_the_index_is_cached_by_content(suite_copy: Path, fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = ci.case_index()
    (stored,) = fresh.glob("case-index-*.pickle")
    ci.case_index.cache_clear()

    def no_build(*_: Any) -> Any:
        raise AssertionError("read the files although the cache was fresh")

    with monkeypatch.context() as m:
        m.setattr(ci, "_build", no_build)
        assert ci.case_index() == first  # read from the cache
    ci.case_index.cache_clear()
    turns = suite_copy / "flip7" / "turns.yaml"
    text = turns.read_text(encoding="utf-8")
    assert text.count("rules: [F7-031, F7-035]") == 1
    turns.write_text(text.replace("rules: [F7-031, F7-035]", "rules: [F7-031, F7-035, F7-036]"), encoding="utf-8")
    changed = {e["id"]: e for e in ci.case_index()}  # the file changed: the index is built again
    assert changed["F7-C0300"]["rules"] == ["F7-031", "F7-035", "F7-036"]
    (newer,) = fresh.glob("case-index-*.pickle")  # the index of the old files is gone
    assert newer != stored


def test_two_suite_folders_keep_an_index_each(suite_copy: Path, fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two installations sharing the cache folder (say a source tree and a compiled wheel) keep one
    index each instead of evicting each other's at every run."""
    ci.case_index()
    other = suite_copy.parent / "other" / "cases"
    shutil.copytree(suite_copy, other)
    monkeypatch.setattr(conformance, "cases_dir", lambda: other)
    ci.case_index.cache_clear()
    ci.case_index()
    assert len(list(fresh.glob("case-index-*.pickle"))) == 2


def test_no_cache_builds_the_same_index(monkeypatch: pytest.MonkeyPatch, fresh: Path) -> None:
    cached = ci.case_index()
    ci.case_index.cache_clear()
    monkeypatch.setenv("FLIP7REF_NO_CACHE", "1")
    assert ci.case_index() == cached
    ci.case_index.cache_clear()


def test_a_broken_shipped_case_file_is_named(suite_copy: Path) -> None:
    bad = suite_copy / "vengeance" / "swap.yaml"
    bad.write_text("cases: [1, 2]\n", encoding="utf-8")
    wanted = r"swap\.yaml, at /: found {'cases': \[1, 2\]}; expected the required properties 'format', 'cases'"
    with pytest.raises(SpecError, match=wanted):
        ci.case_index()
    bad.write_text("cases: [{id: X\n", encoding="utf-8")
    with pytest.raises(SpecError, match=r"swap\.yaml, at line 2, column 1: expected valid YAML"):
        ci.case_index()


def test_a_case_moved_after_indexing_is_refused_by_name(suite_copy: Path) -> None:
    entry = ci.case_index()[0]
    stale = {**entry, "id": "F7-C9999"}
    with pytest.raises(SpecError, match=r"expected a case with id F7-C9999 \(the case index says so\)"):
        ci.load_shipped_cases([stale])


def _forge(fresh: Path, value: object) -> Path:
    """Put ``value`` in the index cache where the shipped suite's index is looked up; its file."""
    import pickle

    root = cases_dir()
    files = ci._files(root)
    cache = ci._cache_file(root, files, [f.read_bytes() for f in files])
    assert cache is not None and cache.parent == fresh
    fresh.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(pickle.dumps(value))
    return cache


@pytest.mark.parametrize(
    "forged",
    [
        pytest.param((("F7-C0505", "flip7"),), id="a-tuple-of-tuples"),
        pytest.param((), id="an-empty-tuple"),
        pytest.param(
            ({"id": "F7-C0505", "edition": "flip7", "rules": ["F7-073"], "options": {}, "file": "x.yaml"},), id="one-entry"
        ),
        pytest.param([], id="a-list"),
    ],
)
def test_a_forged_index_cache_is_rebuilt(fresh: Path, forged: object, capsys: pytest.CaptureFixture[str]) -> None:
    """A cache file holding something else than the suite's index (issue 41 item 7: a tuple of
    tuples gave a traceback, an empty tuple made `rules F7-073` list no case with exit 0) is
    not used: the index is built from the files and the cache written again."""
    from flip7ref.cli import main

    expected = ci._build(cases_dir(), ci._files(cases_dir()), [f.read_bytes() for f in ci._files(cases_dir())])
    cache = _forge(fresh, forged)
    assert main(["rules", "F7-073"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    (line,) = [line for line in out.splitlines() if line.startswith("cases (")]
    assert line.startswith("cases (26)  F7-C0505, F7-C0702, ")
    ci.case_index.cache_clear()
    import pickle

    assert pickle.loads(cache.read_bytes()) == expected  # written again, as built
    assert ci.case_index() == expected
