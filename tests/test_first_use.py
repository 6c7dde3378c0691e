"""The command line as a new user meets it: bare ``flip7ref``, ``--version``, help texts,
``docs`` in a folder it did not write, loose ``rules --search``, the source legend.

These tests check the tooling around the rules, not game behaviour, so they cite no rule ids.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import flip7ref
from flip7ref import docs, load_edition
from flip7ref.checking.harness import PROTOCOL_VERSION
from flip7ref.cli import build_parser, main, version_text
from flip7ref.cli.analysis import solve_spinner_text

ROOT = Path(__file__).resolve().parent.parent


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_bare_command_lists_every_command_one_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    """`flip7ref` alone prints each command once on a line of its own with its help, on stderr, and exits 2
    (a usage mistake, as argparse treats a missing argument)."""
    code, err, out = run(capsys)  # the list goes to stderr (docs/cli.md: a usage mistake, exit 2)
    assert code == 2 and err == ""
    names = list(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    assert {"simulate", "trace", "rules", "dispute", "conformance", "solve", "docs"} <= set(names)
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    assert listed == names
    for line in out.splitlines():
        if line.startswith("  "):
            assert len(line.split(None, 1)) == 2, f"a command without its one-line help: {line!r}"
    tournament = next(line for line in out.splitlines() if line.split()[:1] == ["tournament"])
    assert "95% confidence" in tournament and "%%" not in out  # argparse's escape is not printed


def test_version_names_package_protocol_and_formats(capsys: pytest.CaptureFixture[str]) -> None:
    """`--version` names the package version, the engine protocol version and the three format versions."""
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    build = "compiled with mypyc" if flip7ref.compiled else "pure Python"
    assert out.splitlines()[0] == f"flip7ref {flip7ref.__version__} ({build})"
    assert f"engine protocol {PROTOCOL_VERSION};" in out
    schema = json.loads((ROOT / "spec" / "schema" / "case.schema.json").read_text(encoding="utf-8"))
    assert f"case format {schema['properties']['format']['const']};" in out
    from flip7ref.checking.conformance import SUITE_VERSION

    assert f"conformance suite {SUITE_VERSION};" in out
    assert re.search(r"transcript format \d+; edition table format \d+$", out.splitlines()[1])
    assert out.splitlines()[2].startswith("running from ")  # tests/test_install.py checks the folder
    assert out.strip() == version_text()


def test_version_loads_no_command_group() -> None:
    """`flip7ref --version` builds the top-level parser alone: no command group's module is imported
    (it imported all seven, about 0.05 s of CPU of its 0.14 s; issue 42)."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom flip7ref.cli import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "groups = {'flip7ref.cli.' + g for g in ('play', 'conformance', 'analysis', 'tournament', 'table')}\n"
        "groups.add('flip7ref.docs.commands')\n"
        "print(sorted(groups & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


def test_version_matches_pyproject() -> None:
    """`flip7ref.__version__` is the version pyproject.toml builds."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'\nversion = "{flip7ref.__version__}"\n' in text


def test_trace_help_does_not_mention_workers(capsys: pytest.CaptureFixture[str]) -> None:
    """trace takes no --workers, so its help does not talk of one; simulate's does."""
    with pytest.raises(SystemExit):
        main(["trace", "--help"])
    assert "--workers" not in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    assert "--workers" in capsys.readouterr().out


def test_solve_spinner_names_the_time_of_its_own_deck() -> None:
    """A numbers deck's spinner does not quote the numbers+modifiers time."""
    assert "25 s" not in solve_spinner_text(["number"])
    assert "second" in solve_spinner_text(["number"])
    assert "about 25 s of CPU" in solve_spinner_text(["number", "modifier"])
    assert "25 s" not in solve_spinner_text(["number", "action"])


# --------------------------------------------------------------------------- docs in a foreign folder


def test_docs_refuses_to_overwrite_a_file_it_did_not_write(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A user's own docs/disputes.md is neither overwritten nor joined by new files: exit 2, one line, nothing written."""
    mine = tmp_path / "disputes.md"
    mine.write_text("my own notes\n", encoding="utf-8")
    code, out, err = run(capsys, "docs", "--out", str(tmp_path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "disputes.md" in err and "not written by 'flip7ref docs'" in err
    assert mine.read_text(encoding="utf-8") == "my own notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["disputes.md"]


def test_docs_leaves_unmarked_files_under_rules_alone(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A hand-written rules/house.md is not taken for a retired generated page: kept, and --check ignores it."""
    assert run(capsys, "docs", "--out", str(tmp_path))[0] == 0
    house = tmp_path / "rules" / "house.md"
    house.write_text("# our house rules\n", encoding="utf-8")
    assert run(capsys, "docs", "--check", "--out", str(tmp_path))[0] == 0
    assert run(capsys, "docs", "--out", str(tmp_path))[0] == 0
    assert house.read_text(encoding="utf-8") == "# our house rules\n"


def test_generated_files_carry_the_marker() -> None:
    """Every generated page starts with the marker write_docs looks for."""
    for text in docs.generate().values():
        assert text.startswith(docs.GENERATED_MARK)


# --------------------------------------------------------------------------- loose search


def _ids(out: str) -> list[str]:
    return [line.split("  ", 1)[0] for line in out.splitlines() if not line.startswith(" ")]


@pytest.mark.parametrize(
    ("query", "wanted"),
    [
        ("freeze myself", "F7-061"),  # reflexive pronouns: "themselves" in the text
        ("myself freeze", "F7-061"),  # any order
        ("Can I freeze myself?", "F7-061"),  # filler words dropped
        ("freezes", "F7-060"),  # endings: "Freeze"
        ("busted stealing", "V-046"),  # "bust", "Steal"
    ],
)
def test_rules_search_is_loose(capsys: pytest.CaptureFixture[str], query: str, wanted: str) -> None:
    """Stems, any order, reflexives and filler words; both editions by default."""
    code, out, _ = run(capsys, "rules", "--search", query)
    assert code == 0
    assert wanted in _ids(out)


def test_rules_search_covers_both_editions_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --edition, --search finds Flip 7 and Vengeance rules alike; --edition narrows it."""
    code, out, _ = run(capsys, "rules", "--search", "discard")
    ids = _ids(out)
    assert code == 0 and any(i.startswith("F7-") for i in ids) and any(i.startswith("V-") for i in ids)
    code, out, _ = run(capsys, "rules", "--search", "discard", "--edition", "flip7")
    assert code == 0 and all(i.startswith("F7-") for i in _ids(out))


def test_search_words_stems() -> None:
    assert docs.search_words("Freeze myself!") == ["freez", "self"]
    assert docs.search_words("the") == ["the"]  # only filler words: kept
    assert docs.search_words("ties") == ["tie"]  # at least three letters stay


# --------------------------------------------------------------------------- source legend


def test_dispute_output_explains_every_source_abbreviation(capsys: pytest.CaptureFixture[str]) -> None:
    """`dispute D-F7-04` prints a Sources legend with the register's title of every holder it names."""
    code, out, _ = run(capsys, "dispute", "D-F7-04")
    assert code == 0
    edition = load_edition("flip7")
    legend = out.split("\nSources:\n", 1)[1].split("\n\n", 1)[0]
    holders = {h for r in edition.disputes["D-F7-04"]["readings"] for h in r["holders"]}
    assert holders and {"RB31", "TSG"} <= holders
    for key in holders:
        assert f"  {key} ({edition.sources[key]['kind']}): {edition.sources[key]['title']}" in legend


def test_disputes_page_has_a_legend_per_edition() -> None:
    """docs/disputes.md explains every source abbreviation its readings cite, with the register's title."""
    page = docs.generate()["disputes.md"]
    for edition_id in ("flip7", "vengeance"):
        edition = load_edition(edition_id)
        assert f"### Sources ({edition_id})" in page
        for key in docs.dispute_holders(edition):
            assert f"| `{key}` | {edition.sources[key]['kind']} |" in page
    assert "| `RB-ORIG` | official |" in page and "| `JKM` |" in page and "| `HP` |" in page


def test_licence_and_changelog() -> None:
    """LICENSE is the MIT licence pyproject declares; CHANGELOG.md names the versions --version prints."""
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    assert '\nlicense = "MIT"\n' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog and f"## [{flip7ref.__version__}]" in changelog
    assert f"| engine protocol | {PROTOCOL_VERSION} |" in changelog
    for name in ("case", "transcript", "edition"):
        schema = json.loads((ROOT / "spec" / "schema" / f"{name}.schema.json").read_text(encoding="utf-8"))
        label = {"case": "conformance case format", "transcript": "transcript format", "edition": "edition table format"}[name]
        assert f"| {label} | {schema['properties']['format']['const']} |" in changelog


def test_each_command_is_mapped_to_the_group_that_registers_it() -> None:
    """`flip7ref.cli.COMMANDS` names every command once, with the group whose parser has it, in the listed order."""
    from flip7ref.cli import _GROUP_MODULES, COMMANDS, GROUPS

    def names(parser: object) -> list[str]:
        return list(parser._subparsers._group_actions[0].choices)  # type: ignore[attr-defined]

    every = names(build_parser())
    assert list(COMMANDS) == every
    assert set(COMMANDS.values()) == set(GROUPS) == set(_GROUP_MODULES)
    for command, group in COMMANDS.items():
        alone = names(build_parser(command))
        assert command in alone and alone == [c for c in every if COMMANDS[c] == group]
    assert names(build_parser("no-such-command")) == every


def test_one_command_imports_only_its_group(tmp_path: Path) -> None:
    """`flip7ref score` builds the parser of its own group only: the other groups' modules (and the
    process pool of `simulate`) are not imported, so the command starts fast (docs/build.md)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from flip7ref.cli import main\n"
        "assert main(['score', '3', '11']) == 0\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    loaded = set(done.stdout.split())
    assert "flip7ref.cli.play" in loaded
    others = {"flip7ref.cli.analysis", "flip7ref.cli.conformance", "flip7ref.cli.tournament", "flip7ref.cli.table",
              "flip7ref.docs", "flip7ref.explore", "flip7ref.analysis", "flip7ref.play.tournament",
              "flip7ref.checking.harness"}  # fmt: skip
    assert not others & loaded
    assert not {"concurrent.futures.process", "multiprocessing"} & loaded


@pytest.mark.parametrize("argv", [["score", "--help"], ["--help"], ["nonsense"], ["score", "3", "11", "--bogus"]])
def test_a_parser_for_one_group_says_the_same_as_the_whole_parser(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Help and usage errors read the same whether the parser holds one group or all of them."""
    outputs = []
    for parser in (build_parser(argv[0]), build_parser()):
        with pytest.raises(SystemExit) as stop:
            parser.parse_args(argv)
        outputs.append((stop.value.code, *capsys.readouterr()))
    assert outputs[0] == outputs[1]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    if "--bogus" not in argv:
        assert (stop.value.code, *capsys.readouterr()) == outputs[1]
        return
    # a mistyped flag: main names the command it was given to, with that command's usage (docs/cli.md)
    code, out, err = stop.value.code, *capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith("usage: flip7ref score [-h]")
    assert err.endswith("\nflip7ref score: error: unrecognized arguments: --bogus\n")
