"""Every command of the ``flip7ref`` parser against the one convention of docs/cli.md: flag
spellings, ``--json`` wherever results are printed, ``--lang`` with the same languages,
a mistyped flag answered with that command's own usage, and the exit statuses."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from flip7ref.checking.conformance import load_cases
from flip7ref.cli import (
    EXIT_BROKEN_PIPE,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_LIMIT,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_USAGE,
    build_parser,
    main,
)
from flip7ref.core.text import LANGS

CLI_DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"

NO_JSON = {
    "conformance serve": "speaks the engine protocol on stdin/stdout",
    "conformance export": "writes JSON files; prints one line naming them",
    "conformance summary": "prints Markdown made from a JSON-lines report",
    "table": "serves a web page",
}
"""The commands without ``--json``, each with the reason (the same list is in docs/cli.md)."""

WITH_LANG = {"trace", "explain", "rules", "dispute"}
"""The commands that print card names in words (the others print card ids, or no card at all)."""

REQUIRED = {
    "replay": ["t.json"],
    "score": ["3"],
    "conformance summary": ["r.jsonl"],
    "conformance export": ["--out", "x"],
    "conformance fuzz": ["--engine", "x"],
    "explain": ["--case", "F7-C0100"],
}
"""Arguments a command needs before argparse looks at the rest (nothing runs: parsing fails first)."""


def _commands(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, argparse.ArgumentParser]:
    """Every runnable command, ``"simulate"`` or ``"conformance run"``, with its parser."""
    out: dict[str, argparse.ArgumentParser] = {}
    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    if sub is None:
        return {prefix.strip(): parser}
    for name, child in sub.choices.items():
        out.update(_commands(child, f"{prefix}{name} "))
    return out


COMMANDS = _commands(build_parser())


def _option(parser: argparse.ArgumentParser, flag: str) -> argparse.Action | None:
    return next((a for a in parser._actions if flag in a.option_strings), None)


def test_every_command_is_walked_and_documented() -> None:
    assert {"simulate", "tournament", "conformance run", "conformance serve", "rules", "table"} <= set(COMMANDS)
    text = CLI_DOC.read_text(encoding="utf-8")
    for name in COMMANDS:
        assert f"`{name}`" in text, f"docs/cli.md does not name the command {name!r}"
    for name, why in NO_JSON.items():
        assert f"`{name}`" in text and why in text, f"docs/cli.md does not give {name!r} without --json, or why"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_results_can_be_printed_as_json(name: str) -> None:
    action = _option(COMMANDS[name], "--json")
    if name in NO_JSON:
        assert action is None
        return
    assert action is not None, f"{name}: no --json"
    assert isinstance(action, argparse._StoreTrueAction) and action.dest == "json" and action.help


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_lang_takes_the_same_languages_everywhere(name: str) -> None:
    action = _option(COMMANDS[name], "--lang")
    assert (action is not None) == (name in WITH_LANG), f"{name}: --lang {'missing' if action is None else 'unexpected'}"
    if action is not None:
        assert tuple(action.choices or ()) == LANGS == ("en", "nl", "de", "fr", "no")
        assert action.default in ("en", None)  # None: card names only when asked (rules), read as English


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_flag_spellings(name: str) -> None:
    """Strategies with a repeatable --strategy (tournament keeps --strategies as a deprecated alias);
    every flag is spelled in lower case with hyphens, and says what it does."""
    parser = COMMANDS[name]
    strategy = _option(parser, "--strategy")
    if strategy is not None:
        assert isinstance(strategy, argparse._AppendAction)
    assert _option(parser, "--strategies") is None or name == "tournament"
    if name in ("simulate", "trace", "tournament"):
        assert strategy is not None
    for action in parser._actions:
        for flag in action.option_strings:
            assert re.fullmatch(r"-[a-z]|--[a-z][a-z0-9]*(-[a-z0-9]+)*", flag), f"{name}: flag {flag!r}"
        assert action.help, f"{name}: {action.option_strings or action.dest} has no help"
        if action.dest == "strategies":
            assert action.help.startswith("deprecated")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_prints_no_doubled_percent_sign(name: str) -> None:
    """argparse %-formats a flag's help but not a command's description: "95%%" there prints as is."""
    text = COMMANDS[name].format_help()
    assert "%%" not in text, f"{name}: --help prints '%%'"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_mistyped_flag_shows_that_commands_usage(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main([*name.split(), *REQUIRED.get(name, []), "--bogus"])
    out, err = capsys.readouterr()
    assert stop.value.code == EXIT_USAGE == 2 and out == ""
    assert err.startswith(f"usage: flip7ref {name} ")
    assert err.endswith(f"\nflip7ref {name}: error: unrecognized arguments: --bogus\n")


def test_bare_flip7ref_is_a_usage_mistake_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == EXIT_USAGE
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("usage: flip7ref COMMAND [options]") and "\n  simulate " in err


def test_the_exit_statuses_are_the_documented_ones() -> None:
    assert (EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_LIMIT, EXIT_INTERRUPTED, EXIT_TERMINATED) == (0, 1, 2, 3, 130, 143)
    assert EXIT_BROKEN_PIPE == 141
    text = CLI_DOC.read_text(encoding="utf-8")
    for code in (0, 1, 2, 3, 130, 141, 143):
        assert re.search(rf"^\| {code} \|", text, re.M), f"docs/cli.md: no row for exit status {code}"


def test_a_limit_reached_is_exit_3_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--cards", "numbers", "--max-states", "100"]) == EXIT_LIMIT
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("flip7ref: limit reached: --cards numbers needs about 4,096 states, more than --max-states 100")


# ---------------------------------------------------------------- what the new --json flags print


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, object]:
    import json

    code = main(list(argv))
    out, err = capsys.readouterr()
    assert err == "", err
    return code, json.loads(out)


@pytest.mark.rules("F7-121")
def test_options_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = _json(capsys, "options", "--json")
    assert code == 0 and isinstance(data, dict) and data["edition"] == "flip7" and len(data["options"]) == 18
    tie = next(o for o in data["options"] if o["name"] == "tie")
    assert tie["default"] == "another-round" and tie["dispute"] == "D-F7-22" and tie["rules"] == ["F7-121"]
    assert [r["name"] for r in tie["readings"]] == ["another-round", "shared-win"] and tie["integer"] is None
    code, data = _json(capsys, "options", "--edition", "vengeance", "--json")
    assert [o["integer"] for o in data["options"] if o["integer"]] == [[1, 10000], [1, 8], [0, 8]]  # type: ignore[index]


@pytest.mark.rules("F7-073")
def test_rules_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = _json(capsys, "rules", "F7-073", "--json", "--lang", "de")
    assert code == 0 and isinstance(data, dict)
    assert data["id"] == "F7-073" and data["edition"] == "flip7" and data["confidence"] == "H"
    assert data["cards"] == [{"id": "flip_three", "name": "Drei am Stück"}]
    citing = sorted(c["id"] for c in load_cases() if "F7-073" in c["rules"])
    assert sorted(data["cases"]) == citing and len(citing) >= 24 and data["cases"][:2] == ["F7-C0505", "F7-C0702"]
    assert [d["id"] for d in data["disputes"]] == ["D-F7-10", "D-F7-11", "D-F7-12"]
    assert [o["name"] for o in data["options"]] == ["flip_three_bust", "set_aside_assigner"]
    code, data = _json(capsys, "rules", "--search", "zzzz nothing", "--json")
    assert (code, data) == (1, {"rules": []})
    code, data = _json(capsys, "rules", "--search", "freeze myself", "--json")
    assert code == 0 and isinstance(data, dict) and data["rules"][0]["id"] == "F7-061"


def test_coverage_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = _json(capsys, "coverage", "--json")
    assert code == 0 and isinstance(data, dict) and data["uncovered"] == [] and data["unknown"] == []
    assert data["editions"] == ["flip7", "vengeance"] and data["tests_read"] is True
    first = data["rules"][0]
    assert first["rule"] == "F7-001" and first["cases"] == ["F7-C0004"]
    assert "test_rules_flip7.py::test_identity_publisher_and_designer" in first["tests"]


@pytest.mark.rules("F7-073")
def test_dispute_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = _json(capsys, "dispute", "D-F7-10", "--json")
    assert code == 0 and isinstance(data, dict) and data["option"] == "flip_three_bust"
    assert [(r["name"], r["value"], r["default"]) for r in data["readings"]] == [
        ("discard", "discard", True), ("resolve", "resolve", False), ("keep-flipping", None, False)]  # fmt: skip
    cases = {c["id"]: c for c in data["cases"]}
    assert list(cases) == ["F7-C1019", "F7-C1020", "F7-C1021", "F7-C5017"]
    assert [(r["value"], r["holds"]) for r in cases["F7-C1019"]["runs"]] == [("discard", True), ("resolve", False)]
    assert cases["F7-C1019"]["differing"] == ["next", "events"] and cases["F7-C5017"]["differing"] == []
    code, data = _json(capsys, "dispute", "--json", "--edition", "flip7")
    assert code == 0 and isinstance(data, dict) and data["disputes"][0]["id"] == "D-F7-01"


def test_dispute_lang_names_the_cards_in_that_language(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dispute", "D-F7-10", "--lang", "de"]) == 0
    out = capsys.readouterr().out
    assert "2: Stopp" in out and "2: Freeze" not in out


@pytest.mark.rules("F7-080", "F7-081")
def test_explain_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, data = _json(capsys, "explain", "--case", "F7-C0100", "--json")
    assert code == 0 and isinstance(data, dict) and data["played_to_end"] is True and data["diffs"] == []
    assert [s["number"] for s in data["steps"]] == [1, 2]
    last = data["steps"][-1]["events"][-1]
    assert last == {"rules": ["F7-080", "F7-081"], "text": "seat 0 uses Second Chance! against a second 8"}
    assert main(["trace", "--seed", "3", "--transcript"]) == 0
    transcript = tmp_path / "t.json"
    transcript.write_text(capsys.readouterr().out, encoding="utf-8")
    code, data = _json(capsys, "explain", "--transcript", str(transcript), "--json")
    assert code == 0 and isinstance(data, dict) and data["agrees"] is True and data["divergence"] is None
    assert data["players"] == 3 and data["steps"][0]["events"][0]["rules"] == ["F7-112", "F7-020", "F7-010"]


def test_conformance_run_and_docs_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = _json(capsys, "conformance", "run", "--case", "F7-C0100", "--case", "V-C0045", "--json")
    assert code == 0 and isinstance(data, dict) and data["passed"] is True and data["cases"] == 2
    assert data["totals"] == {"pass": 2, "pass_other_reading": 0, "fail": 0, "skip": 0, "error": 0}
    assert data["coverage"]["all"] == {"ran": 2, "cases": 2}
    assert [r["case"] for r in data["results"]] == ["F7-C0100", "V-C0045"]
    code, data = _json(capsys, "docs", "--check", "--json")
    assert code == 0 and isinstance(data, dict) and data["stale"] == [] and data["written"] == []
    assert data["files"] == ["disputes.md", "rules/flip7.md", "rules/vengeance.md"]


def test_a_flag_names_one_thing_in_every_command() -> None:
    """A flag shared by several commands fills the same setting in each (docs/cli.md: a flag
    names one kind of thing everywhere): ``solve --policy`` took a strategy and ``odds --policy``
    a file, until odds' became ``--policy-file``. A hidden deprecated alias is not counted."""
    dests: dict[str, dict[str, list[str]]] = {}
    for name, parser in COMMANDS.items():
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:
                continue
            for flag in action.option_strings:
                dests.setdefault(flag, {}).setdefault(action.dest, []).append(name)
    assert {flag: found for flag, found in dests.items() if len(found) > 1} == {}
    assert dests["--policy"] == {"policy": ["solve"]} and dests["--policy-file"] == {"policy_file": ["odds"]}
    assert sorted(dests["--no-progress"]["no_progress"]) == ["bench-agents", "simulate", "solve", "tournament", "train-agent"]
