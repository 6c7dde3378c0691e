"""The regression corpus of bad inputs (tests/bad_inputs/corpus.yaml, issue 14 item 8).

Every entry is a bad edition table, case file, transcript, serialized state or
command line that a fix of issue 14 (or before) turned into one clear line:
on the command line exit status 2 and exactly that line on stderr, never a
traceback; through the API a SerializationError with exactly that message.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from flip7ref import SerializationError, State
from flip7ref.checking.harness import serve
from flip7ref.cli import main
from flip7ref.core.spec import spec_dir
from tests.process_helpers import live_children

pytestmark = pytest.mark.timeout(20)  # pytest-timeout: each entry within 20 s, or it fails as a hang

CORPUS = Path(__file__).parent / "bad_inputs"
ENTRIES: list[dict[str, Any]] = yaml.safe_load((CORPUS / "corpus.yaml").read_text(encoding="utf-8"))["entries"]


def _input(entry: dict[str, Any], tmp_path: Path) -> Path | None:
    """The file the entry reads: one of the corpus, a derived table or a generated file."""
    if "file" in entry:
        return CORPUS / str(entry["file"])
    if "derive" in entry:
        edition, *pairs = entry["derive"]
        text = (spec_dir() / "editions" / f"{edition}.yaml").read_text(encoding="utf-8")
        for old, new in pairs:
            assert text.count(old) == 1, f"{entry['id']}: {old!r} is not found exactly once"
            text = text.replace(old, new)
        path = tmp_path / f"{entry['id']}.yaml"
        path.write_text(text, encoding="utf-8")
        return path
    if entry.get("generate", [None])[0] == "padding":
        path = tmp_path / f"{entry['id']}.yaml"
        text = (spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8")
        path.write_text(text + "#" * entry["generate"][1] + "\n", encoding="utf-8")
        return path
    if entry.get("generate", [None])[0] == "without":  # a shipped table with one top-level section left out
        _, edition, section = entry["generate"]
        data = yaml.safe_load((spec_dir() / "editions" / f"{edition}.yaml").read_text(encoding="utf-8"))
        del data[section]
        path = tmp_path / f"{entry['id']}.yaml"
        path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
        return path
    if entry.get("generate", [None])[0] == "fifo":  # a named pipe no one writes to: reading it would hang
        if not hasattr(os, "mkfifo"):
            pytest.skip("no named pipes here (os.mkfifo)")
        path = tmp_path / f"{entry['id']}.yaml"
        os.mkfifo(path)
        return path
    if entry.get("generate", [None])[0] == "transcript-padding":  # a transcript file past the size limit
        path = tmp_path / f"{entry['id']}.json"
        path.write_bytes(b" " * entry["generate"][1] + b"{}")
        return path
    return None


def _children() -> set[int]:
    """This process's live child processes (Linux: /proc; elsewhere an empty set)."""
    return live_children(os.getpid())


def _open_files() -> set[str]:
    """What this process's file descriptors point at (Linux: /proc/self/fd; elsewhere empty)."""
    found = set()
    for fd in Path("/proc/self/fd").glob("*"):
        with contextlib.suppress(OSError):
            found.add(f"{fd.name}:{os.readlink(fd)}")
    return found


@pytest.fixture(autouse=True)
def _leaves_nothing_behind() -> Iterator[None]:
    """Every entry leaves no process running and no file open (0 leaks), checked after it."""
    children, files = _children(), _open_files()
    yield
    deadline = time.monotonic() + 2
    while _children() - children and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _children() - children == set(), "an entry left a process running"
    assert _open_files() - files == set(), "an entry left a file open"


def _params(kind: str) -> list[Any]:
    """The entries of one kind, each marked with the rules it cites."""
    return [
        pytest.param(e, id=e["id"], marks=[pytest.mark.rules(*e["rules"])] if e.get("rules") else [])
        for e in ENTRIES
        if e["kind"] == kind
    ]


def _fill(text: str, path: Path | None, tmp_path: Path | None = None) -> str:
    return text.replace("{input}", str(path)).replace("{corpus}", str(CORPUS)).replace("{tmp}", str(tmp_path))


def test_the_corpus_ids_are_unique_and_every_file_is_used() -> None:
    ids = [e["id"] for e in ENTRIES]
    assert len(ids) == len(set(ids))
    used = {e["file"] for e in ENTRIES if "file" in e}
    present = {str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*") if p.is_file() and p.name != "corpus.yaml"}
    assert used == present
    assert {e["kind"] for e in ENTRIES} == {"cli", "state"}


@pytest.mark.parametrize("entry", _params("cli"))
def test_a_bad_command_line_input_exits_2_with_one_line(entry: dict[str, Any], tmp_path: Path, capsys: Any) -> None:
    if "needs" in entry and importlib.util.find_spec(entry["needs"]) is None:
        pytest.skip(f"needs {entry['needs']} (an optional extra)")
    path = _input(entry, tmp_path)
    args = [_fill(a, path, tmp_path) for a in entry["args"]]
    try:
        # supervised: as the `flip7ref` command runs a plug-in (a child process; its own output is not captured here)
        status: object = main(args, supervise=True) if entry.get("supervised") else main(args)
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2
    lines = err.rstrip("\n").split("\n")
    if entry.get("usage"):
        assert lines[0].startswith("usage: ")
        lines = lines[-1:]
    assert len(lines) == 1
    # "{n}" in an expected message stands for a line or column number of a table derived
    # from a shipped one (those move whenever the shipped table is edited)
    expected = re.escape(_fill(entry["stderr"], path)).replace(re.escape("{n}"), r"\d+")
    assert re.fullmatch(expected, lines[0]), (lines[0], entry["stderr"])
    assert "Traceback" not in err
    if "writes_nothing" in entry:  # a refused command leaves no file behind, not even a half-written one
        assert not Path(_fill(entry["writes_nothing"], path, tmp_path)).exists()


@pytest.mark.parametrize("entry", _params("state"))
def test_a_bad_serialized_state_is_one_serialization_error(entry: dict[str, Any]) -> None:
    if "generate" in entry:
        data = json.loads((CORPUS / "states" / "round_over_no.json").read_text(encoding="utf-8"))
        data["round_over"] = False
        if entry["generate"][0] == "frames":
            data["draw"] = ["5"]
            data["frames"] = [{"frame": "draw", "seat": 0, "reason": "hit"}] * entry["generate"][1]
        else:
            deep: Any = []
            for _ in range(entry["generate"][1]):
                deep = [deep]
            data["options"] = deep
    else:
        data = json.loads((CORPUS / entry["file"]).read_text(encoding="utf-8"))
    with pytest.raises(SerializationError) as info:
        State.from_dict(data)
    assert str(info.value) == entry["error"]
    assert "\n" not in str(info.value)


def test_the_protocol_server_answers_a_request_nested_too_deeply_and_goes_on() -> None:
    """`flip7ref conformance serve`: a request 5,000 lists deep (too deep for the JSON decoder) or
    80 deep (decoded, deeper than the protocol's 64 levels) gets an errored answer, not a traceback;
    the server goes on."""
    lines = ["[" * 5000 + "]" * 5000, json.dumps({"cmd": "start", "x": json.loads("[" * 80 + "]" * 80)}), '{"cmd": "stop"}']
    out = io.StringIO()
    assert serve(io.StringIO("\n".join(lines) + "\n"), out) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert answers == [
        {"seq": None, "errored": True, "message": "request nested more than 64 levels deep"},
        {"seq": None, "errored": True, "message": "request nested more than 64 levels deep"},
    ]

