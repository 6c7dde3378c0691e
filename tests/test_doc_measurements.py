"""Every figure the documentation quotes as a measurement names the command that produced it.

The pages checked are README.md and the hand-written pages under docs/ (the generated
docs/rules/ and docs/disputes.md are skipped), as the site shows them: a page that includes a
repository file (``--8<-- "conformance/README.md"``) is checked with that file's text.

The rule, in three parts:

1. A *measured figure* is a number written, outside code (fenced blocks, `inline code` and a
   link's text, which repeats a heading, are not read), with one of these units: a ratio
   written at once before ``×`` (``1.12×``; not ``390×844`` or ``1.2 × 10⁹``); a rate
   (``games/s``, ``draws/s``, ``decisions/s``, ``steps/s``, ``transitions/s``, or
   ``... per second``); a time (``ns``, ``µs``, ``ms``, ``s``, ``min``, ``minutes``, ``hours``, after
   a space); an instruction count (``M instructions``, ``M a game``); a memory size (``MB``,
   ``GB``).  A table whose header row names such a unit (``games/s``, ``CPU time``,
   ``wall / CPU (s)``, ``×``) is a table of measured figures.
2. Its *section* -- the lines from the heading above it to the next heading of any level --
   names the command that produced it: ``benchmarks/NAME.py``, ``tools/NAME.py``, a
   ``flip7ref ...`` command written as code, or ``pytest ... tests/NAME.py`` (a timed
   walk-through).  A dated record whose command is lost is removed, not kept (git keeps it).
3. A measured time says whether it is CPU or wall time: its paragraph (a table's paragraph
   includes the one just before it) says ``CPU`` or ``wall``.

A time is a *setting*, not a measurement, when its line says ``timeout``, ``limit``,
``default``, ``apart``, ``within`` or ``waits`` (a scheduler that must answer within 20 s, a
harness that waits 10 s by default): it needs neither a command nor a label.  Anything else
that is not a measurement is written without a figure ("in a few seconds").

These tests check the documentation, so they cite no rule ids.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_NUMBER = r"(?<![\w.,])\d(?:[\d,]*\d)?(?:\.\d+)?"
_RANGE = r"(?:\s*\([^()]*\))?"  # "3,320 (3,287–3,421) steps/s": the figure, its range, its unit
UNITS = {
    "ratio": re.compile(_NUMBER + r"×(?!\s*\d)"),
    "rate": re.compile(
        _NUMBER + _RANGE + r"\s?(?:[kM]\s)?(?:[\w-]+\s){0,2}?"
        r"(?:games|draws|decisions|steps|transitions|states)(?:/s\b|\s+(?:a|per)\s+(?:CPU-)?second\b)"
    ),
    "time": re.compile(_NUMBER + _RANGE + r"\s(?:ns|µs|ms|s|min|minutes?|hours?)\b(?!/)"),
    "instructions": re.compile(_NUMBER + r"\s?[MG]\s(?:instructions|a game)\b"),
    "memory": re.compile(_NUMBER + r"\s?(?:MB|GB)\b"),
}
TABLE_UNITS = re.compile(r"/s\b|×|\bCPU\b|\bwall\b|\btime\b|\bseconds\b|µs|\binstructions\b")
SETTING = re.compile(r"\b(?:timeout|limit|default|apart|within|waits?)\b", re.IGNORECASE)
COMMAND = re.compile(
    r"\b(?:benchmarks|tools)/[\w-]+\.py\b|(?:^|`)\s*(?:\$\s)?flip7ref\s[a-z]|\bpytest\s[^`\n]*tests/\w+\.py"
    r"|\bpython3?\s+tests/[\w/-]+\.py\b",  # a measuring script of the tests' own (tests/engines/mutant_runs.py)
    re.MULTILINE,
)
LABEL = re.compile(r"\bCPU\b|\bwall\b")
INCLUDE = re.compile(r'^--8<-- "([^"]+)"\s*$', re.MULTILINE)


@dataclass(frozen=True)
class Figure:
    """One measured figure: where it is, what it says, and what its section lacks."""

    line: int
    text: str
    unit: str
    problem: str


def _shown(path: Path) -> str:
    """The page's text as the site shows it: snippet includes replaced by the included file."""
    text = path.read_text(encoding="utf-8")
    return INCLUDE.sub(lambda m: (ROOT / m.group(1)).read_text(encoding="utf-8"), text)


def _prose(line: str) -> str:
    """The line without its inline code and its links' text."""
    return re.sub(r"\[[^\]]*\]\(", "[](", re.sub(r"`[^`]*`", "``", line))


def uncommanded(text: str) -> list[Figure]:
    """The measured figures of a page's ``text`` that break the rule (module docstring), in order.

    Args:
        text: the Markdown of one page.

    Returns:
        One `Figure` per measured figure whose section names no command (``problem``
        ``"no command in its section"``) or, for a time, whose paragraph says neither CPU
        nor wall (``"not labelled CPU or wall"``).
    """
    lines = text.splitlines()
    code = [False] * len(lines)
    fenced = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            code[i] = True
        else:
            code[i] = fenced
    heads = [i for i, line in enumerate(lines) if not code[i] and line.startswith("#")]
    bounds = [0, *heads, len(lines)]
    found: list[Figure] = []
    for start, end in itertools.pairwise(bounds):
        section = "\n".join(lines[start:end])
        commanded = COMMAND.search(section) is not None
        paragraphs = _paragraphs(lines, code, start, end)
        for i in range(start, end):
            if code[i] or i in heads:
                continue
            prose = _prose(lines[i])
            hits = sorted((m.start(), unit, m.group(0)) for unit, rx in UNITS.items() for m in rx.finditer(prose))
            if _table_header(lines, i) and TABLE_UNITS.search(prose):
                hits.append((0, "table", prose.strip()))
            for _, unit, words in hits:
                if unit == "time" and SETTING.search(prose):
                    continue  # a timeout or a limit: a setting, not a measurement
                if not commanded:
                    found.append(Figure(i + 1, words, unit, "no command in its section"))
                elif unit == "time" and not LABEL.search(paragraphs[i]):
                    found.append(Figure(i + 1, words, unit, "not labelled CPU or wall"))
    return found


def _table_header(lines: list[str], i: int) -> bool:
    """Whether line ``i`` is a table's header row (the next line is its |---| separator)."""
    return lines[i].lstrip().startswith("|") and i + 1 < len(lines) and re.match(r"\s*\|[\s:|-]+\|\s*$", lines[i + 1]) is not None


def _paragraphs(lines: list[str], code: list[bool], start: int, end: int) -> dict[int, str]:
    """Each line of the section mapped to the prose of its paragraph (a table's includes the one before)."""
    blocks: list[list[int]] = []
    for i in range(start, end):
        if code[i] or not lines[i].strip():
            if blocks and blocks[-1]:
                blocks.append([])
            continue
        if not blocks:
            blocks.append([])
        blocks[-1].append(i)
    blocks = [b for b in blocks if b]
    out: dict[int, str] = {}
    for k, block in enumerate(blocks):
        words = " ".join(_prose(lines[i]) for i in block)
        if lines[block[0]].lstrip().startswith("|") and k > 0:
            words = " ".join(_prose(lines[i]) for i in blocks[k - 1]) + " " + words
        for i in block:
            out[i] = words
    return out


def _generated(page: Path) -> bool:
    return page.read_text(encoding="utf-8").startswith("<!-- Generated by `flip7ref docs`")


PAGES = [
    "README.md",
    *sorted(
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "docs").rglob("*.md")
        if not _generated(p) and p.name != "disputes.md" and "rules" not in p.relative_to(ROOT / "docs").parts[:1]
    ),
]


@pytest.mark.parametrize("page", PAGES)
def test_every_measured_figure_names_its_command(page: str) -> None:
    """A measured figure's section names the command that produced it, and a time says CPU or wall."""
    bad = uncommanded(_shown(ROOT / page))
    assert not bad, f"{page}: figures quoted as measurements without their command or CPU/wall label:\n" + "\n".join(
        f"  {page}:{f.line}: {f.text!r} ({f.unit}): {f.problem}" for f in bad
    )


PLANTED = """# A page

## Speed

The engine plays 1,234 games/s on this machine, 1.5× the old one.

## Speed, with its command

`python benchmarks/bench.py --games 300` (CPU time of one process, load average 2):
1,234 games/s, 1.5× the old one.

| build | CPU time |
| --- | --- |
| pure | 3.2 s |

## A solve

`flip7ref solve --cards numbers` takes 0.3 s.

## A setting

The scheduler must answer within 20 s; the harness waits 10 s by default.
"""


def test_the_check_finds_planted_figures_without_their_command() -> None:
    """A test of the test: figures without a command, a time without CPU or wall, and settings let be."""
    found = [(f.line, f.text, f.unit, f.problem) for f in uncommanded(PLANTED)]
    assert found == [
        (5, "1,234 games/s", "rate", "no command in its section"),
        (5, "1.5×", "ratio", "no command in its section"),
        (18, "0.3 s", "time", "not labelled CPU or wall"),
    ]


def test_the_check_reads_tables_and_ignores_code() -> None:
    """A table of timings under a heading with no command is found by its header; code is not read."""
    page = "## Timings\n\n```sh\nsleep 5 s\n```\n\n| build | CPU (s) |\n| --- | --- |\n| pure | 3.2 |\n"
    found = [(f.line, f.unit) for f in uncommanded(page)]
    assert found == [(7, "table")]
