"""The static build of the table referee without a browser: ``flip7ref table --static``
(where Pyodide comes from, what the folder holds), the routes it adds (import, transcript
and table-file downloads) and its Python side (`flip7ref.table.browser`) run here in CPython.
The browser itself: tests/test_table_static_browser.py."""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from pathlib import Path
from typing import Any

import pytest

from flip7ref.checking import replay
from flip7ref.cli import main
from flip7ref.core.errors import OptionError
from flip7ref.core.spec import load_edition, preload_shipped
from flip7ref.table import browser
from flip7ref.table.static_build import INSTALL_HINT, MARKER, PYODIDE_FILES, build, find_pyodide

THREE = {"edition": "flip7", "names": ["Ann", "Bob", "Cy"], "dealer": 0}
STEPS = [("reveal", {"card": "5"}), ("reveal", {"card": "flip_three"}), ("act", {"action": "target 1"}),
         ("reveal", {"card": "8"}), ("reveal", {"card": "second_chance"}), ("reveal", {"card": "8"})]  # fmt: skip


@pytest.fixture
def fake_pyodide(tmp_path: Path) -> Path:
    """A folder with the npm package's file names (the build copies them as they are)."""
    folder = tmp_path / "node_modules" / "pyodide"
    folder.mkdir(parents=True)
    for name in PYODIDE_FILES:
        (folder / name).write_text(json.dumps({"version": "0.0-test"}) if name == "package.json" else f"// {name}\n")
    return folder


@pytest.fixture
def no_pyodide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No Pyodide anywhere find_pyodide looks."""
    monkeypatch.delenv("FLIP7REF_PYODIDE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    monkeypatch.chdir(empty)


def test_pyodide_is_found_in_a_node_modules_above_or_given(fake_pyodide: Path, monkeypatch: pytest.MonkeyPatch,
                                                            no_pyodide: None) -> None:  # fmt: skip
    project = fake_pyodide.parent.parent
    (project / "sub").mkdir()
    monkeypatch.chdir(project / "sub")
    assert find_pyodide() == fake_pyodide
    assert find_pyodide(str(project)) == fake_pyodide  # the folder holding node_modules/
    monkeypatch.setenv("FLIP7REF_PYODIDE", str(fake_pyodide))
    assert find_pyodide() == fake_pyodide


def test_without_pyodide_the_build_says_how_to_get_it(no_pyodide: None, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    assert main(["table", "--static", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("flip7ref: error: --static needs Pyodide (the Python runtime for the browser): install it with: "
                   f"{INSTALL_HINT} (or give --pyodide DIR, the folder of node_modules/pyodide)")  # fmt: skip
    assert not (tmp_path / "out").exists()
    assert main(["table", "--static", str(tmp_path / "out"), "--pyodide", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == (f"flip7ref: error: --pyodide: {tmp_path} is not the npm package pyodide "
                                               f"(no pyodide.mjs); get it with: {INSTALL_HINT}")  # fmt: skip
    assert main(["table", "--pyodide", str(tmp_path)]) == 2
    assert "--pyodide goes with --static DIR" in capsys.readouterr().err


def _zip(out: Path) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO((out / "flip7ref.zip").read_bytes()))


def test_the_folder_holds_the_page_the_runtime_and_the_python_code(fake_pyodide: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    manifest = build(out, fake_pyodide)
    assert manifest["pyodide"] == "0.0-test"
    for name in ("index.html", "standalone.js", "worker.js", "sw.js", "manifest.webmanifest", "static/app.js",
                 "static/i18n.json", "pyodide/pyodide.asm.wasm", "pyodide/NOTICE.txt", MARKER):  # fmt: skip
        assert (out / name).is_file(), name
    assert set(manifest["files"]) == {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    page = (out / "index.html").read_text()
    assert '"/' not in page  # every address relative: the folder may be served under any path
    assert page.index('src="standalone.js"') < page.index('src="static/app.js"')
    sw = (out / "sw.js").read_text()
    assert json.dumps(manifest["build"]) in sw and '"pyodide/pyodide.asm.wasm"' in sw and '"./"' in sw
    names = set(_zip(out).namelist())
    for name in ("flip7ref/table/routes.py", "flip7ref/table/browser.py", "flip7ref/core/state.py",
                 "flip7ref/table/static/events.json", "flip7ref/spec/editions/flip7.yaml", "attrs/__init__.py",
                 "attr/_make.py", "mypy_extensions.py", "editions.pickle"):  # fmt: skip
        assert name in names, name
    assert not any(n.startswith(("yaml/", "jsonschema/", "starlette/", "rich/")) for n in names)
    again = build(out, fake_pyodide)  # a second build replaces the first: the same bytes, the same digest
    assert again["build"] == manifest["build"]


def test_the_shipped_tables_are_those_load_edition_checks(fake_pyodide: Path, tmp_path: Path) -> None:
    build(tmp_path / "site", fake_pyodide)
    editions = pickle.loads(_zip(tmp_path / "site").read("editions.pickle"))
    assert sorted(editions) == ["flip7", "vengeance"]
    for name, edition in editions.items():
        here = load_edition(name)
        assert edition.cards == here.cards and edition.rules == here.rules and edition.options == here.options
        assert str(edition.path) == f"/lib/flip7ref/flip7ref/spec/editions/{name}.yaml"  # not a folder of this machine


def test_a_folder_with_other_files_is_refused(fake_pyodide: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    assert main(["table", "--static", str(out), "--pyodide", str(fake_pyodide)]) == 2
    assert capsys.readouterr().err.strip() == (f"flip7ref: error: --static: {out} is not empty and holds no earlier static "
                                               f"build ({MARKER}): give a new folder")  # fmt: skip
    assert (out / "notes.txt").read_text() == "keep me" and len(list(out.iterdir())) == 1
    with pytest.raises(OptionError, match="is a file"):
        build(out / "notes.txt", fake_pyodide)


def test_preload_shipped_takes_only_the_shipped_tables() -> None:
    flip7 = load_edition("flip7")
    preload_shipped({"flip7": flip7})
    assert load_edition("flip7") is flip7
    with pytest.raises(OptionError, match="'vengeance' is not the shipped edition table"):
        preload_shipped({"vengeance": flip7})
    with pytest.raises(OptionError, match="'house' is not the shipped edition table"):
        preload_shipped({"house": flip7})


# ------------------------------------------------------------------ the browser's Python side, here


@pytest.fixture
def in_browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`browser.start` on a data folder, as the worker calls it (its schema stand-in undone afterwards)."""
    monkeypatch.setitem(vars(replay), "validate", vars(replay)["validate"])
    editions = tmp_path / "editions.pickle"
    editions.write_bytes(pickle.dumps({e: load_edition(e) for e in ("flip7", "vengeance")}))
    browser.start(str(tmp_path / "games"), str(editions))
    return tmp_path / "games"


def call(method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    out = json.loads(browser.request(method, path, "{}", "{}", json.dumps(body) if body is not None else ""))
    return out["status"], json.loads(out["body"]) if out["type"] == "application/json" else out["body"]


def test_the_browser_answers_as_the_server_and_saves_the_same_file(in_browser: Path, tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    from starlette.testclient import TestClient

    from flip7ref.table.app import create_app

    status, made = call("POST", "/api/games", THREE)
    assert status == 200
    client = TestClient(create_app(tmp_path / "server"))
    r = client.post("/api/games", json=THREE)
    gid, version = made["id"], made["state"]["version"]
    sid, sversion = r.json()["id"], r.json()["state"]["version"]
    for op, body in STEPS:
        status, here = call("POST", f"/api/games/{gid}/{op}", {"version": version, **body})
        there = client.post(f"/api/games/{sid}/{op}", json={"version": sversion, **body}).json()
        assert status == 200 and here["state"]["steps"] == there["state"]["steps"]
        version, sversion = here["state"]["version"], there["state"]["version"]
    assert (in_browser / f"{gid}.json").read_text() == (tmp_path / "server" / f"{sid}.json").read_text()
    raw = json.loads(browser.request("GET", f"/api/games/{gid}/transcript.json", "{}", "{}", ""))
    assert raw["status"] == 200 and raw["body"] == (in_browser / f"{gid}.json").read_text()
    assert raw["headers"] == {"Content-Disposition": f'attachment; filename="{gid}.json"'}
    status, stale = call("POST", f"/api/games/{gid}/undo", {"version": version - 1})
    assert status == 409 and stale["state"]["version"] == version
    assert call("GET", "/api/nothing") == (404, {"error": "no such address: /api/nothing", "rules": []})


def test_the_browser_refuses_a_file_of_another_shape_in_words(in_browser: Path) -> None:
    """No JSON Schema in the browser: a file of the wrong shape is refused by the replay's
    reading, in one line (not an internal error)."""
    status, answer = call("POST", "/api/games/import", {"transcript": {"steps": [{"draw": "5"}]}})
    assert status == 400
    assert answer["error"] == ("the file cannot be imported: not a transcript of a game (expected the .json file a game saves; "
                               "KeyError: 'edition')")  # fmt: skip
    assert not list(in_browser.glob("*.json"))  # nothing left behind
    good = {"format": 1, "engine": "x", "edition": "flip7", "options": {}, "players": 3, "dealer": 0, "totals": [0, 0, 0],
            "steps": [{"draw": "5"}, {"draw": "12"}, {"draw": "12"}, {"seat": 2, "action": "hit"}]}  # fmt: skip
    status, answer = call("POST", "/api/games/import", {"transcript": good})
    assert status == 400 and "step 3 cannot be replayed" in answer["error"]  # the replay still checks every step


def test_import_and_the_files_of_a_game_on_the_server(tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    from starlette.testclient import TestClient

    from flip7ref.table.app import create_app

    client = TestClient(create_app(tmp_path / "games"))
    made = client.post("/api/games", json=THREE).json()
    gid, version = made["id"], 0
    for op, body in STEPS[:3]:
        version = client.post(f"/api/games/{gid}/{op}", json={"version": version, **body}).json()["state"]["version"]
    transcript = client.get(f"/api/games/{gid}/transcript.json")
    assert transcript.headers["content-disposition"] == f'attachment; filename="{gid}.json"'
    table = client.get(f"/api/games/{gid}/table.json")
    assert table.headers["content-disposition"] == f'attachment; filename="{gid}.table.json"'
    r = client.post("/api/games/import", json={"transcript": transcript.json(), "table": table.json()})
    assert r.status_code == 200, r.text
    new = r.json()
    assert new["id"] != gid and new["state"]["names"] == ["Ann", "Bob", "Cy"]
    assert [s["move"] for s in new["state"]["steps"]] == ["chance 5", "chance flip_three", "target 1"]
    alone = client.post("/api/games/import", json={"transcript": transcript.json()}).json()  # names unknown: seats
    assert alone["state"]["names"] == ["Seat 0", "Seat 1", "Seat 2"]
    bad = client.post("/api/games/import", json={"transcript": {**transcript.json(), "players": 99}})
    assert bad.status_code == 400 and bad.json()["error"].startswith("the file cannot be imported: ")
    assert client.post("/api/games/import", json={"transcript": 5}).json()["error"] == (
        "transcript: expected a transcript (the JSON object of a saved game's .json file)")
    assert client.post("/api/games/import", json={"x": 1}).json()["error"] == (
        "unknown field 'x' for import (expected transcript, table)")
    pad = client.post("/api/games", json={**THREE, "mode": "manual"}).json()["id"]
    r = client.get(f"/api/games/{pad}/transcript.json")
    assert r.status_code == 404 and r.json()["error"] == "a score pad has no transcript: its rounds are in the .table.json"
    assert len(list((tmp_path / "games").glob("*.table.json"))) == 4  # the refused imports left nothing


def test_ci_installs_the_pyodide_the_tests_run() -> None:
    from flip7ref.table.static_build import TESTED_PYODIDE

    run = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert f"npm install --prefix \"$PYODIDE_NPM\" --no-audit --no-fund --loglevel=error pyodide@{TESTED_PYODIDE}" in run
    assert f"'\"version\": \"{TESTED_PYODIDE}\"'" in run and INSTALL_HINT.endswith(f"pyodide@{TESTED_PYODIDE}")


_WITHOUT = '''
import builtins, json, sys
sys.path.insert(0, sys.argv[1])
real = builtins.__import__
def guard(name, *args, **kwargs):
    if name.split(".")[0] in ("yaml", "jsonschema", "rich", "starlette", "uvicorn", "segno"):
        raise ImportError("not in the browser: " + name)
    return real(name, *args, **kwargs)
builtins.__import__ = guard
from flip7ref.table import browser
browser.start(sys.argv[2], sys.argv[1] + "/editions.pickle")
meta = json.loads(browser.request("GET", "/api/meta", json.dumps({"lang": "nl"}), "{}", ""))
made = json.loads(browser.request("POST", "/api/games", "{}", "{}", json.dumps(
    {"edition": "flip7", "names": ["Ann", "Bob", "Cy"], "lang": "de"})))
print(json.dumps([meta["status"], json.loads(meta["body"])["editions"][0]["options"][0]["summary"], made["status"]]))
'''


def test_the_zip_runs_without_the_packages_the_browser_lacks(fake_pyodide: Path, tmp_path: Path) -> None:
    """The built flip7ref.zip alone, with PyYAML, jsonschema, rich, Starlette and segno
    unimportable (as in Pyodide): the rule texts in another language come from the
    shipped i18n.pickle, not from spec/i18n/*.yaml (which would need PyYAML)."""
    import subprocess
    import sys

    build(tmp_path / "site", fake_pyodide)
    lib = tmp_path / "lib"
    with zipfile.ZipFile(tmp_path / "site" / "flip7ref.zip") as z:
        z.extractall(lib)
    assert (lib / "i18n.pickle").is_file()
    out = subprocess.run([sys.executable, "-S", "-c", _WITHOUT, str(lib), str(tmp_path / "games")],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    status, summary, created = json.loads(out.stdout)
    assert (status, created) == (200, 200)
    from flip7ref.core import i18n

    assert summary == i18n.option_summary(load_edition("flip7"), "initial_deal", "nl") and summary.startswith("Of elke ronde")


# ------------------------------------------------------------------ what a first visit downloads (issue 45 item 6)


def _zip_of(files: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            z.writestr(name, text)
    return out.getvalue()


def test_the_standard_library_keeps_what_an_import_reaches_and_cuts_comments() -> None:
    """Module-level imports are followed (relative ones too), imports in a def or under
    ``if __name__ == "__main__"`` are not; Windows-only modules never; comments cut with
    every line kept where it was; a file that is not a zip is shipped as it is."""
    from flip7ref.table.import_closure import trim_stdlib
    from flip7ref.table.static_build import BROWSER

    std = _zip_of({
        "site.py": "import os  # the first\n", "os.py": "import posixpath\nx = 0\n# note\nx = 1  # one\n",
        "posixpath.py": "", "json/__init__.py": "from .decoder import (\n    JSONDecoder,\n)\n",
        "json/decoder.py": "import re\n", "re.py": "def f():\n    import pdb\nif __name__ == '__main__':\n    import doctest\n",
        "pdb.py": "", "doctest.py": "", "unused.py": "", "asyncio/__init__.py": "from . import windows_events\n",
        "asyncio/windows_events.py": "import _winapi\n", "csv.py": "s = '''\n# not a comment\n'''\n",
    })  # fmt: skip
    library = _zip_of({"flip7ref/__init__.py": "", "flip7ref/table/__init__.py": "",
                       "flip7ref/table/browser.py": "import json, asyncio\ndef g():\n    import csv\n"})  # fmt: skip
    with zipfile.ZipFile(io.BytesIO(trim_stdlib(std, library, BROWSER))) as z:
        kept = {name: z.read(name).decode() for name in z.namelist()}
    assert sorted(kept) == ["asyncio/__init__.py", "csv.py", "json/__init__.py", "json/decoder.py", "os.py",
                            "posixpath.py", "re.py", "site.py"]  # fmt: skip
    assert kept["os.py"] == "import posixpath\nx = 0\n\nx = 1\n" and kept["site.py"] == "import os  # the first\n"
    assert kept["csv.py"] == "s = '''\n# not a comment\n'''\n"  # a string, not a comment
    assert trim_stdlib(b"// python_stdlib.zip\n", library, BROWSER) == b"// python_stdlib.zip\n"


def test_the_first_visit_files_the_build_trims_and_the_home_screen_icon(fake_pyodide: Path, tmp_path: Path) -> None:
    """flip7ref.zip holds only what the browser imports (no CLI, no batch engine, no i18n
    YAML: the texts are i18n.pickle); worker.js knows the sizes it counts; the page links
    a 180x180 PNG for an iPhone's home screen; the lock file loses its package list."""
    from flip7ref.table.static_build import COUNTED

    (fake_pyodide / "pyodide-lock.json").write_text(json.dumps({"info": {"version": "0.0-test"}, "packages": {"numpy": {}}}))
    out = tmp_path / "site"
    manifest = build(out, fake_pyodide)
    names = set(_zip(out).namelist())
    assert "flip7ref/table/browser.py" in names and "i18n.pickle" in names
    assert not any(n.startswith(("flip7ref/cli/", "flip7ref/batch/", "flip7ref/spec/i18n/")) for n in names)
    worker = (out / "worker.js").read_text()
    sizes = {name: manifest["files"][name] for name in COUNTED}
    assert f"const SIZES = {json.dumps(sizes)};" in worker
    png = (out / "apple-touch-icon.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(png[16:20], "big") == int.from_bytes(png[20:24], "big") == 180
    assert '<link rel="apple-touch-icon" href="apple-touch-icon.png">' in (out / "index.html").read_text()
    assert json.loads((out / "pyodide" / "pyodide-lock.json").read_text()) == {"info": {"version": "0.0-test"}, "packages": {}}
    # the server's page (absolute /static/ addresses) is not published: on a site, static/ showed it unstyled
    assert not (out / "static" / "index.html").exists() and (out / "static" / "style.css").is_file()


def test_docstrings_go_as_under_python_oo_and_every_line_stays() -> None:
    from flip7ref.table.import_closure import without_docstrings

    source = ('"""Module.\n\nMore."""\nfrom __future__ import annotations\n\n\nclass A:\n    """Only a docstring."""\n\n\n'
              'def f():\n    """Doc é."""; return 1\n\n\ndef g():\n    x = "not a docstring"\n    return x\n')  # fmt: skip
    out = without_docstrings(source)
    assert out == ('\n\n\nfrom __future__ import annotations\n\n\nclass A:\n    ...\n\n\n'
                   'def f():\n    ...; return 1\n\n\ndef g():\n    x = "not a docstring"\n    return x\n')  # fmt: skip
    scope: dict[str, Any] = {}
    exec(compile(out, "m", "exec"), scope)
    assert scope["f"]() == 1 and scope["A"].__doc__ is None
    assert without_docstrings("def (:\n") == "def (:\n"  # not parsed here: unchanged
