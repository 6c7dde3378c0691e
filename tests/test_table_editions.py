"""The editions the table referee offers come from one place, the core's list of shipped
tables (`flip7ref.core.edition.edition_ids`, through `flip7ref.table.record.table_editions`):
the start page's list, a new game, a saved game, ``--edition`` and the static build follow it,
so a third table installed under ``spec/editions/`` appears without a change to the table.

Skips when the ``[table]`` extra is not installed (fails in CI, which installs it).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

import flip7ref.core.edition as core_edition
from flip7ref.core import spec
from flip7ref.core.errors import OptionError, SpecError
from flip7ref.core.spec import edition_ids, load_edition_file, spec_dir
from flip7ref.table.record import DEFAULT_EDITION, editions_in_words, table_editions
from flip7ref.table.server import _defaults_query
from flip7ref.table.session import TableGame
from tests.helpers import house_text
from tests.table_helpers import require_table_extra

require_table_extra()

from starlette.testclient import TestClient  # noqa: E402

from flip7ref.table.app import create_app  # noqa: E402

THREE = {"names": ["Ann", "Bob", "Cy"], "dealer": 0}


@pytest.fixture
def third_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A third table ``house`` (Flip 7 with rule ids ``HR-``) installed beside the shipped
    two: a spec folder holding the three, which the core's `edition_ids` lists."""
    folder = tmp_path / "spec"
    (folder / "editions").mkdir(parents=True)
    (folder / "schema").symlink_to(spec_dir() / "schema")
    for name in ("flip7", "vengeance"):
        (folder / "editions" / f"{name}.yaml").symlink_to(spec_dir() / "editions" / f"{name}.yaml")
    house = folder / "editions" / "house.yaml"
    house.write_text(house_text(), encoding="utf-8")
    monkeypatch.setattr(core_edition, "spec_dir", lambda: folder)
    monkeypatch.setitem(spec._SHIPPED, "house", load_edition_file(house))
    return "house"


def test_the_table_offers_the_shipped_editions(tmp_path: Path) -> None:
    assert table_editions() == edition_ids() == ("flip7", "vengeance") and DEFAULT_EDITION == "flip7"
    client = TestClient(create_app(tmp_path / "games"))
    meta = client.get("/api/meta").json()
    assert [e["id"] for e in meta["editions"]] == ["flip7", "vengeance"] and meta["default_edition"] == "flip7"
    r = client.post("/api/games", json={**THREE, "edition": "chess"})
    assert (r.status_code, r.json()["error"]) == (400, "edition: expected 'flip7' or 'vengeance'")
    assert TableGame.create(tmp_path / "games", THREE).game.edition.id == "flip7"  # no edition named: the default
    house = tmp_path / "house.yaml"
    house.write_text(house_text(), encoding="utf-8")
    with pytest.raises(OptionError) as info:
        _defaults_query(argparse.Namespace(edition=str(house), option=[]))
    assert str(info.value) == f"--edition: the table knows flip7 and vengeance (their ids), not {str(house)!r}"


def test_a_third_installed_table_appears_everywhere(tmp_path: Path, third_table: str) -> None:
    assert table_editions() == ("flip7", "house", "vengeance")
    assert editions_in_words() == "'flip7', 'house' or 'vengeance'"
    assert editions_in_words("and", quote=False) == "flip7, house and vengeance"
    folder = tmp_path / "games"
    client = TestClient(create_app(folder))
    meta = client.get("/api/meta").json()
    assert [e["id"] for e in meta["editions"]] == ["flip7", "house", "vengeance"]
    r = client.post("/api/games", json={**THREE, "edition": "chess"})
    assert r.json()["error"] == "edition: expected 'flip7', 'house' or 'vengeance'"
    game = client.post("/api/games", json={**THREE, "edition": third_table, "mode": "dealer", "seed": 3}).json()
    rule = client.get(f"/api/games/{game['id']}/rule/hr-073").json()
    assert rule == {"id": "HR-073", "text": spec._SHIPPED["house"].rules["HR-073"].text}
    assert TableGame.load(folder / f"{game['id']}.json").game.edition.id == "house"
    manual = TableGame.create(folder, {**THREE, "edition": third_table, "mode": "manual"})
    assert TableGame.load(folder / f"{manual.id}.json").game.edition.id == "house"  # a score pad's record names it
    assert _defaults_query(argparse.Namespace(edition=third_table, option=[])) == "edition=house"


def test_a_saved_score_pad_of_an_unknown_edition_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    manual = TableGame.create(folder, {**THREE, "mode": "manual"})
    record = folder / f"{manual.id}.table.json"
    data = json.loads(record.read_text(encoding="utf-8"))
    record.write_text(json.dumps({**data, "edition": "chess"}), encoding="utf-8")
    with pytest.raises(SpecError) as info:
        TableGame.load(folder / f"{manual.id}.json")
    assert str(info.value) == f"{record}, at edition: expected 'flip7' or 'vengeance'"


@pytest.mark.parametrize("edition", ["house", "chess"])
def test_an_imported_transcript_never_names_a_file_as_its_edition(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edition: str
) -> None:
    """A transcript's edition is a shipped table's id: a name that happens to be a file in the
    server's working folder (here a house table called ``house``) is not read as a table."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "house").write_text(house_text(), encoding="utf-8")
    games = tmp_path / "games"
    client = TestClient(create_app(games))
    gid = client.post("/api/games", json=THREE).json()["id"]
    transcript = json.loads((games / f"{gid}.json").read_text(encoding="utf-8"))
    before = sorted(p.name for p in games.iterdir())
    r = client.post("/api/games/import", json={"transcript": {**transcript, "edition": edition}})
    assert r.status_code == 400
    error = r.json()["error"]
    assert error.startswith("the file cannot be imported: ") and error.endswith(
        f".json, at /edition: expected 'flip7' or 'vengeance', found {edition!r}"
    )
    assert sorted(p.name for p in games.iterdir()) == before  # the imported files are taken back


@pytest.mark.parametrize("given", ["flip7.yaml", "x" * 5000, "../../etc/passwd"])
def test_the_table_edition_flag_takes_an_id_never_a_file(tmp_path: Path, given: str) -> None:
    """A copy of the Flip 7 table (id ``flip7``) given by path was taken for the shipped table
    and its content ignored; a name too long for a file name ended in an OSError."""
    (tmp_path / "flip7.yaml").write_text((spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(OptionError) as info:
        _defaults_query(argparse.Namespace(edition=str(tmp_path / given) if given == "flip7.yaml" else given, option=[]))
    shown = repr(str(tmp_path / given)) if given == "flip7.yaml" else repr(given)
    shown = shown if len(shown) <= 200 else shown[:197] + "..."
    assert str(info.value) == f"--edition: the table knows flip7 and vengeance (their ids), not {shown}"
