"""Reading and writing files safely (issue 41 items 5, 6 and 7).

* Every file read goes through `flip7ref.core.textfiles.read_bytes_file`, which refuses a named
  pipe, a device or a folder before reading a byte: `conformance run --cases F`,
  `conformance export --cases F` and `simulate --edition F` with F a named pipe hung (the
  digests read the bytes before the file-kind check).
* Every file a command writes is written atomically (`write_file_atomic`): a full disk
  leaves the previous content and one line naming the file (`docs --out` left a partial
  page; `python -m flip7ref.batch.lockstep --record` printed a traceback).
* A stdout closed by its reader (`flip7ref --version | head -1`) ends every command quietly
  (exit 141), never a `BrokenPipeError` traceback.
"""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flip7ref.batch import lockstep
from flip7ref.cli import main
from flip7ref.core.errors import SpecError, WriteError
from flip7ref.core.textfiles import AtomicWriter, read_bytes_file, read_text_file, write_file_atomic

ROOT = Path(__file__).resolve().parent.parent
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here (os.mkfifo)")
FULL = "No space left on device"


def _flip7ref(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    """Start ``python -m flip7ref ARGS`` from the checkout, with a cache folder of its own."""
    env = {**os.environ, "FLIP7REF_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.Popen(
        [sys.executable, "-m", "flip7ref", *args], cwd=ROOT, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Writing a file fails as on a full disk: the data cannot be synced to it (ENOSPC)."""

    def fsync(_fd: int) -> None:
        raise OSError(errno.ENOSPC, FULL)

    monkeypatch.setattr(os, "fsync", fsync)


# --------------------------------------------------------------------------- reading


@needs_fifo
@pytest.mark.parametrize(
    ("args", "what"),
    [
        pytest.param(["conformance", "run", "--cases", "{fifo}"], "case file", id="conformance-run"),
        pytest.param(["conformance", "export", "--cases", "{fifo}", "--out", "{tmp}/out"], "case file", id="conformance-export"),
        pytest.param(["simulate", "--edition", "{fifo}", "--games", "1"], "edition table file", id="simulate"),
        pytest.param(["conformance", "run", "--cases", "{tmp}/cases"], "case file", id="a-pipe-in-a-cases-folder"),
    ],
)
def test_a_named_pipe_is_refused_unread_by_each_command(tmp_path: Path, args: list[str], what: str) -> None:
    """Each command gives one line naming the pipe, exit 2, at once (it hung, waiting for a writer)."""
    fifo = tmp_path / "table.yaml"
    if "{tmp}/cases" in args:
        (tmp_path / "cases").mkdir()
        fifo = tmp_path / "cases" / "pipe.yaml"
    os.mkfifo(fifo)
    run = _flip7ref(tmp_path, *[a.replace("{fifo}", str(fifo)).replace("{tmp}", str(tmp_path)) for a in args])
    try:
        out, err = run.communicate(timeout=120)
    finally:
        run.kill()
    expected = f"flip7ref: error: {fifo}: expected {what} (a regular file), found a named pipe (FIFO)\n"
    assert (run.returncode, out, err) == (2, "", expected)
    assert not (tmp_path / "out").exists()


@needs_fifo
def test_read_bytes_file_refuses_every_kind_but_a_regular_file(tmp_path: Path) -> None:
    plain = tmp_path / "plain.yaml"
    plain.write_bytes(b"cases: []\n")
    assert read_bytes_file(plain, "case file") == b"cases: []\n"
    assert read_bytes_file(plain, "case file", head=5) == b"cases"
    assert read_text_file(plain, "case file") == "cases: []\n"
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    link = tmp_path / "link.yaml"
    link.symlink_to(fifo)
    cases = [
        (fifo, "a named pipe (FIFO)"), (link, "a named pipe (FIFO)"), (tmp_path, "a folder"),
        (Path(os.devnull), "a character device"),
    ]  # fmt: skip
    for path, kind in cases:
        for read in (read_bytes_file, read_text_file):
            with pytest.raises(SpecError) as info:
                read(path, "case file")
            assert str(info.value) == f"{path}: expected case file (a regular file), found {kind}"
    with pytest.raises(SpecError) as info:
        read_bytes_file(tmp_path / "missing.yaml", "case file")
    assert str(info.value) == f"{tmp_path / 'missing.yaml'}: expected an existing case file"
    with pytest.raises(SpecError) as info:
        read_bytes_file(plain, "case file", limit=4)
    assert str(info.value) == f"{plain}: expected at most 4 bytes in the case file"


# --------------------------------------------------------------------------- writing


def test_write_file_atomic_writes_text_and_bytes_and_keeps_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "page.md"
    write_file_atomic(target, "one\ntwo\n")
    assert target.read_bytes() == b"one\ntwo\n"
    target.chmod(0o640)
    write_file_atomic(target, b"\x89PNG")
    assert target.read_bytes() == b"\x89PNG"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.md"]  # no temporary file left


def test_a_full_disk_keeps_the_previous_content(tmp_path: Path, full_disk: None) -> None:
    target = tmp_path / "page.md"
    target.write_text("before\n", encoding="utf-8")
    with pytest.raises(WriteError) as info:
        write_file_atomic(target, "after\n")
    assert str(info.value) == f"could not write {target}: {FULL}; its previous content is kept"
    assert isinstance(info.value, OSError) and info.value.file == str(target)
    assert target.read_text(encoding="utf-8") == "before\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.md"]
    with pytest.raises(WriteError) as info:
        write_file_atomic(tmp_path / "new.md", "x")
    assert str(info.value) == f"could not write {tmp_path / 'new.md'}: {FULL}; nothing was written"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.md"]


def test_a_failed_rename_and_an_interrupted_write_leave_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "page.md"
    target.write_text("before\n", encoding="utf-8")
    with pytest.raises(KeyboardInterrupt), AtomicWriter(target) as out:
        out.write("half")
        raise KeyboardInterrupt
    assert target.read_text(encoding="utf-8") == "before\n"

    def replace(*_: Any) -> None:
        raise OSError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(WriteError, match=r"page\.md: Permission denied; its previous content is kept$"):
        write_file_atomic(target, "after\n")
    assert target.read_text(encoding="utf-8") == "before\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.md"]


@needs_fifo
def test_a_folder_or_a_pipe_in_the_way_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    for path, kind in ((tmp_path, "a folder"), (fifo, "a named pipe (FIFO)")):
        with pytest.raises(WriteError) as info:
            write_file_atomic(path, "x")
        assert str(info.value) == f"could not write {path}: expected a regular file, found {kind}; its previous content is kept"


def test_docs_out_on_a_full_disk_keeps_the_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """`docs --out` on a full disk: one line naming the page, exit 2, the page as it was (it was cut short)."""
    out = tmp_path / "docs"
    assert main(["docs", "--out", str(out)]) == 0
    page = out / "rules" / "flip7.md"
    stale = page.read_text(encoding="utf-8") + "an older line\n"
    page.write_text(stale, encoding="utf-8")
    capsys.readouterr()

    def fsync(_fd: int) -> None:
        raise OSError(errno.ENOSPC, FULL)

    monkeypatch.setattr(os, "fsync", fsync)
    assert main(["docs", "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"flip7ref: error: could not write {page}: {FULL}; its previous content is kept\n"
    assert page.read_text(encoding="utf-8") == stale
    assert [p.name for p in out.rglob(".*")] == []  # no temporary file left
    monkeypatch.undo()
    assert main(["docs", "--out", str(out)]) == 0 and "an older line" not in page.read_text(encoding="utf-8")


def test_lockstep_record_on_a_full_disk_keeps_the_record(tmp_path: Path, full_disk: None, capsys: Any) -> None:
    """`lockstep --record` on a full disk: one line naming the file, exit 2, the slices recorded before kept."""
    record = tmp_path / "record.txt"
    record.write_text("seeds 0-0: 1 games, 91 decisions agree\n", encoding="utf-8")
    argv = ["--games", "2", "--batch", "1", "--backend", "python", "--record", str(record)]
    assert lockstep.main(argv) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"error: --record could not write {record}: {FULL}; its previous content is kept\n")
    assert record.read_text(encoding="utf-8") == "seeds 0-0: 1 games, 91 decisions agree\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record.txt"]


def test_lockstep_record_appends_a_slice(tmp_path: Path, capsys: Any) -> None:
    record = tmp_path / "record.txt"
    record.write_text("seeds 0-0: 1 games, 91 decisions agree\n", encoding="utf-8")
    assert lockstep.main(["--games", "2", "--batch", "1", "--backend", "python", "--record", str(record)]) == 0
    lines = record.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "seeds 0-0: 1 games, 91 decisions agree" and lines[1].startswith("seeds 1-1: 1 games, ")
    assert capsys.readouterr().out.startswith("2 games, ")


# --------------------------------------------------------------------------- a closed stdout


def _closing_reader(tmp_path: Path, args: list[str], *, lines: int) -> tuple[int, str]:
    """Run ``flip7ref ARGS`` into a reader that closes the pipe after ``lines`` lines; (status, stderr)."""
    run = _flip7ref(tmp_path, *args)
    assert run.stdout is not None and run.stderr is not None
    try:
        for _ in range(lines):
            run.stdout.readline()
        run.stdout.close()
        err = run.stderr.read()
        return run.wait(timeout=120), err
    finally:
        run.kill()
        run.stderr.close()


@pytest.mark.parametrize("args", [["--version"], ["options"]], ids=["version", "options"])
def test_a_reader_closing_after_one_line_gets_no_traceback(tmp_path: Path, args: list[str]) -> None:
    """`flip7ref --version | head -1` printed a BrokenPipeError traceback in about half the runs."""
    for _ in range(20):
        status, err = _closing_reader(tmp_path, args, lines=1)
        assert "Traceback" not in err and "BrokenPipe" not in err
        assert (status, err) in ((0, ""), (141, ""))


@pytest.mark.parametrize("args", [["--version"], ["options"], ["trace", "--json"]], ids=["version", "options", "trace"])
def test_a_stdout_closed_before_any_output_ends_quietly_with_141(tmp_path: Path, args: list[str]) -> None:
    status, err = _closing_reader(tmp_path, args, lines=0)
    assert (status, err) == (141, "")


def test_help_into_a_closed_stdout_ends_quietly(tmp_path: Path) -> None:
    """argparse's help drops a failed write itself (Python 3.12 on): quiet, exit 0 or 141."""
    status, err = _closing_reader(tmp_path, ["rules", "--help"], lines=0)
    assert err == "" and status in (0, 141)


needs_dev_full = pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full (every write to it fails: ENOSPC)")


@needs_dev_full
def test_a_full_stdout_is_one_line(tmp_path: Path) -> None:
    """`flip7ref --version > /dev/full`: one line, not an OSError traceback."""
    with open("/dev/full", "w") as full:
        env = {**os.environ, "FLIP7REF_CACHE_DIR": str(tmp_path / "cache")}
        done = subprocess.run(
            [sys.executable, "-m", "flip7ref", "--version"], cwd=ROOT, env=env, stdout=full, stderr=subprocess.PIPE,
            text=True, timeout=120, check=False,
        )  # fmt: skip
    assert (done.returncode, done.stderr) == (1, f"flip7ref: error: could not write stdout: {FULL}\n")


@needs_dev_full
@pytest.mark.parametrize(
    "args",
    [["simulate", "--games", "3", "--log"], ["conformance", "run", "--case", "F7-C0001", "--report"]],
    ids=["log", "report"],
)
def test_a_report_that_cannot_be_written_is_one_line(args: list[str], capsys: Any) -> None:
    """A live report (`--log`, `--report`) on a full disk: one line naming it, exit 2."""
    assert main([*args, "/dev/full"]) == 2
    kept = "the lines written before it are kept"
    assert capsys.readouterr().err == f"flip7ref: error: could not write /dev/full: {FULL}; {kept}\n"


def test_conformance_export_on_a_full_disk_renames_nothing(tmp_path: Path, full_disk: None, capsys: Any) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "cases.json").write_text("old\n", encoding="utf-8")
    assert main(["conformance", "export", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(rf"flip7ref: error: could not write {re.escape(str(out))}/[\w.]+\.json: {FULL}; \w[\w ]+\n", err), err
    assert sorted(p.name for p in out.iterdir()) == ["cases.json"]
    assert (out / "cases.json").read_text(encoding="utf-8") == "old\n"


@needs_fifo
def test_docs_out_with_a_named_pipe_for_a_page_is_one_line(tmp_path: Path, capsys: Any) -> None:
    """A named pipe where `docs --out` writes a page is neither read nor written into (either would hang)."""
    (tmp_path / "rules").mkdir()
    fifo = tmp_path / "rules" / "flip7.md"
    os.mkfifo(fifo)
    assert main(["docs", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    found = "expected a regular file, found a named pipe (FIFO); its previous content is kept"
    assert err == f"flip7ref: error: could not write {fifo}: {found}\n"


@pytest.mark.parametrize(
    "args",
    [["conformance", "run", "--case", "F7-C0001"], ["tournament", "--games", "2", "--players", "2", "--strategy", "random"],
     ["explain", "--case", "F7-C0001"], ["coverage"]],
    ids=["conformance-run", "tournament", "explain", "coverage"],
)  # fmt: skip
def test_a_table_printed_into_a_closed_stdout_ends_with_141_not_1(tmp_path: Path, args: list[str]) -> None:
    """The commands printing with rich ended with rich's own exit status 1 (for `conformance run`:
    "a case failed") when their reader closed the pipe; they end as every command does, 141."""
    status, err = _closing_reader(tmp_path, args, lines=0)
    assert (status, err) == (141, "")
