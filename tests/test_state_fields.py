"""State's fields are declared once: the table `flip7ref.core.state_fields.FIELDS` (issue 43 item 5).

The compiled build needs the fields written out (a native class's body, ``__init__``,
``_make``, ``_fields``; `flip7ref.core.work.Work`'s copy, freeze and round resets; the fast
lanes' ``_make`` calls): tools/gen_state_fields.py writes them from the table, and its
``--check`` must find the checked-in code up to date.  The JSON form and its type checks loop
over the table.  Adding a field is a row in the table and a run of the tool: the last test
does that to a copy of the package and plays, serializes and reads back a game with it.
These tests check the source tree's plumbing, so they cite no rule ids.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import flip7ref
from flip7ref import Game, State
from flip7ref.core.state import _STATE_FIELDS
from flip7ref.core.state_fields import FIELD_NAMES, FIELDS

ROOT = Path(flip7ref.__file__).parent.parent
PACKAGE = ROOT / "flip7ref" / "core"  # the rule core's room
TOOL = ROOT / "tools" / "gen_state_fields.py"
pytestmark = pytest.mark.skipif(not TOOL.exists(), reason="the source tree's tools/ (not an installed wheel)")


def _run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=120, check=False)


def _tree(module: str) -> ast.Module:
    return ast.parse((PACKAGE / module).read_text(encoding="utf-8"))


def _class(tree: ast.Module, name: str) -> ast.ClassDef:
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef:
    return next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name)


def _annotated(cls: ast.ClassDef) -> list[str]:
    return [n.target.id for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]


def _params(fn: ast.FunctionDef) -> list[str]:
    return [a.arg for a in fn.args.args[1:]]


def test_the_generated_code_is_up_to_date() -> None:
    done = _run_tool("--check")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_check_fails_on_a_hand_edit_and_names_the_file(tmp_path: Path) -> None:
    root = _copy_tree(tmp_path)
    work = root / "flip7ref" / "core" / "work.py"
    work.write_text(work.read_text(encoding="utf-8").replace("self.turn = turn\n", ""), encoding="utf-8")
    done = _run_tool("--check", "--root", str(root))
    assert (done.returncode, done.stdout) == (1, "differs from the table: flip7ref/core/work.py\n")
    assert done.stderr == "run: python tools/gen_state_fields.py\n"
    assert _run_tool("--root", str(root)).stdout == "written: flip7ref/core/work.py\n"
    assert "        self.turn = turn\n" in work.read_text(encoding="utf-8")
    assert _run_tool("--check", "--root", str(root)).returncode == 0


def test_a_malformed_marker_is_a_one_line_error(tmp_path: Path) -> None:
    root = _copy_tree(tmp_path)
    lanes = root / "flip7ref" / "core" / "lanes.py"
    text = lanes.read_text(encoding="utf-8")
    lanes.write_text(text.replace("make(s, players=players,", "make(s, player=players,", 1), encoding="utf-8")
    done = _run_tool("--root", str(root))
    line = text[: text.index("make(s, players=players,")].count("\n") + 1
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"gen_state_fields: flip7ref/core/lanes.py:{line}: not fields of State: ['player']\n"


DEALER = 'Field("dealer", "int", "the seat dealing this round.", json="int")'


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ('Field("dealer", "int", "doc", (), "", "int", False, (), (), False, 9)',
         "{table}:{line}: expected a table that loads (TypeError: Field.__new__() takes from 4 to 11 positional "
         "arguments but 12 were given)"),
        ('Field("dealer" "int"(', "{table}:{line}: expected Python source (invalid syntax)"),
        ('Field(3, "int", "the seat dealing this round.", json="int")',
         "{table}: FIELDS[5] (3): name: expected a string, got 3"),
        ('Field("dealer", "int", "the seat dealing this round.", json="int", default=5)',
         "{table}: FIELDS[5] ('dealer'): default: expected () or (value,), got 5"),
    ],
)  # fmt: skip
def test_a_malformed_table_row_is_a_one_line_error(tmp_path: Path, row: str, expected: str) -> None:
    root = _copy_tree(tmp_path)
    table = root / "flip7ref" / "core" / "state_fields.py"
    text = table.read_text(encoding="utf-8")
    assert text.count(DEALER) == 1
    table.write_text(text.replace(DEALER, row), encoding="utf-8")
    done = _run_tool("--root", str(root))
    line = text[: text.index(DEALER)].count("\n") + 1
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "gen_state_fields: " + expected.format(table=table, line=line) + "\n"


def test_a_missing_tree_a_second_begin_marker_and_bytes_not_utf8_are_one_line_errors(tmp_path: Path) -> None:
    done = _run_tool("--root", str(tmp_path / "nowhere"))
    assert (done.returncode, done.stdout) == (2, "")
    missing = tmp_path / "nowhere" / "flip7ref" / "core" / "state_fields.py"
    assert done.stderr == f"gen_state_fields: {missing}: cannot read the field table (No such file or directory)\n"
    root = _copy_tree(tmp_path)
    keys = root / "flip7ref" / "analysis" / "keys.py"
    text = keys.read_text(encoding="utf-8")
    begin = "        # state-fields: solver-key\n"
    keys.write_text(text.replace(begin, begin * 2), encoding="utf-8")
    line = text[: text.index(begin)].count("\n") + 1
    done = _run_tool("--root", str(root))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"gen_state_fields: flip7ref/analysis/keys.py:{line + 1}: expected '# state-fields: end' of the block begun at "
        f"line {line} first, found a second begin marker\n"
    )
    keys.write_text(text, encoding="utf-8")
    (root / "flip7ref" / "core" / "zz.py").write_bytes(b"\xff# state-fields: x\n")
    done = _run_tool("--root", str(root))
    expected = "gen_state_fields: flip7ref/core/zz.py: expected UTF-8 text (invalid start byte at byte 0)\n"
    assert (done.returncode, done.stderr) == (2, expected)


def test_a_malformed_block_leaves_every_file_as_it_was(tmp_path: Path) -> None:
    """A block to rewrite in one file and a malformed marker in a later one: nothing is written."""
    root = _copy_tree(tmp_path)
    keys = root / "flip7ref" / "analysis" / "keys.py"
    keys.write_text(keys.read_text(encoding="utf-8").replace("        state.turn,\n", "", 1), encoding="utf-8")
    before = keys.read_bytes()
    work = root / "flip7ref" / "core" / "work.py"
    text = work.read_text(encoding="utf-8")
    work.write_text(text.replace("# state-fields: work-round", "# state-fields: work-rnd", 1), encoding="utf-8")
    line = text[: text.index("# state-fields: work-round")].count("\n") + 1
    done = _run_tool("--root", str(root))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"gen_state_fields: flip7ref/core/work.py:{line}: unknown block 'work-rnd' (expected one of")
    assert keys.read_bytes() == before and not list(root.rglob("*.gen-tmp"))


def test_the_state_class_spells_its_fields_in_the_declared_order() -> None:
    cls = _class(_tree("state.py"), "State")
    data = _class(_tree("state_data.py"), "StateData")
    fields = list(FIELD_NAMES)
    assert list(_STATE_FIELDS) == fields
    assert _annotated(data) == fields
    assert _params(_method(data, "__init__")) == fields
    assert _params(_method(data, "_make")) == fields
    assert _params(_method(cls, "_make")) == fields
    assert _annotated(cls) == []  # the fields are StateData's
    work = _class(_tree("work.py"), "Work")
    assert _annotated(work) == [*fields[:-1], "events"]


def test_the_fields_at_run_time_follow_the_declaration() -> None:
    s = Game("flip7", 3).new_position(lines={0: ["5"]}, draw=["7"], seed=2).apply("hit")
    assert s._fields() == tuple(getattr(s, name) for name in _STATE_FIELDS)
    assert State(*s._fields()) == s and State(**dict(zip(_STATE_FIELDS, s._fields(), strict=True))) == s
    last = FIELDS[-2]
    assert repr(s).startswith("State(game=Game('flip7', players=3, options={}), players=(")
    assert repr(s).endswith(f", {last.name}={last.default[0]!r})") and "_log" not in repr(s)
    # the position: every field but the history, the discard pile as a multiset
    discard = _STATE_FIELDS.index("discard")
    fields = s._fields()
    assert s._position() == (*fields[:discard], tuple(sorted(s.discard)), *fields[discard + 1 : -1])


def test_the_json_form_holds_every_plain_field_in_table_order() -> None:
    data = Game("flip7", 3).new_initial_state(seed=2).to_dict()
    plain = [f.name for f in FIELDS if f.json != "custom" and not f.omit_default]
    assert list(data) == ["format", "edition", "players", "options", *plain, "draw", "discard", "seats", "frames", "log"]
    assert "shuffle_mark" not in data  # written only once set: reading unlimited of option reshuffles (F7-117)
    game = Game("flip7", 2, {"reshuffles": "unlimited"})
    s = game.new_position(dealer=1, turn=0, lines={0: ["5"], 1: ["6"]}, statuses={1: "stayed"}, discard=["7"], rest="out")
    s = s.apply("hit")  # the deck is empty: the discard pile is reshuffled, marking the progress (2 cards + 1 out)
    assert s.shuffle_mark == 3 and s.to_dict()["shuffle_mark"] == 3 and State.from_dict(s.to_dict()) == s


def _copy_tree(tmp_path: Path) -> Path:
    """The package and the tool copied to ``tmp_path`` (no caches, no compiled modules)."""
    root = tmp_path / "tree"
    shutil.copytree(ROOT / "flip7ref", root / "flip7ref", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    (root / "spec").symlink_to(ROOT / "spec")  # the edition tables, read beside the package
    (root / "tools").mkdir()
    shutil.copy2(TOOL, root / "tools" / TOOL.name)
    return root


_NEW_ROW = """\
    Field(
        "hits", "int", "Hits answered so far in the round (a demonstration field).", default=(0,), json="int",
        omit_default=True, round_open=(0,),
    ),
"""

_PLAY = """\
import random, sys
sys.path.insert(0, sys.argv[1])
import flip7ref
import flip7ref.core.state
from flip7ref import Game, State
flip7ref.core.state._FAST_LANES = False  # the demonstration's rule code is on the general path only
assert flip7ref.__file__.startswith(sys.argv[1]), flip7ref.__file__
rng, seen = random.Random(4), set()
s = Game("flip7", 3).new_initial_state(seed=4)
while not s.is_terminal():
    s = s.apply_chance(s.sample_chance()) if s.is_chance_node() else s.apply(rng.choice(s.legal_actions()))
    seen.add(s.hits)
    data = s.to_dict()
    assert ("hits" in data) == (s.hits != 0) and State.from_dict(data) == s
assert s == State.from_dict(s.to_dict()) and s.replay()[-1] == s
print(sorted(seen)[:2], s.hits)
"""


def test_adding_a_field_is_one_row_and_a_run_of_the_tool(tmp_path: Path) -> None:
    """A field added to a copy of the package: its row in the table, the tool run, and one line of
    rule code that sets it (here the general path's Hit; the play turns the fast lanes off).
    Two files are edited by hand and four written by the tool; the copy imports, plays a game,
    resets the field at each round's opening and reads its JSON back."""
    root = _copy_tree(tmp_path)
    table = root / "flip7ref" / "core" / "state_fields.py"
    text = table.read_text(encoding="utf-8")
    anchor = '    Field("_log",'
    table.write_text(text.replace(anchor, _NEW_ROW + anchor, 1), encoding="utf-8")
    done = _run_tool("--root", str(root))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "".join(f"written: flip7ref/core/{name}.py\n" for name in ("lanes", "state", "state_data", "work"))
    engine = root / "flip7ref" / "core" / "engine.py"  # the rule code: count the Hits of a round
    source = engine.read_text(encoding="utf-8")
    hit = "def decide(w: Work, act: Action) -> None:\n"
    assert hit in source
    engine.write_text(source.replace(hit, hit + "    w.hits += act.verb == 'hit'\n", 1), encoding="utf-8")
    changed = sorted(
        str(path.relative_to(root))
        for path in (root / "flip7ref").rglob("*.py")
        if path.read_bytes() != (ROOT / path.relative_to(root)).read_bytes()
    )
    generated = ["flip7ref/core/lanes.py", "flip7ref/core/state.py", "flip7ref/core/state_data.py", "flip7ref/core/work.py"]
    assert changed == sorted(["flip7ref/core/engine.py", "flip7ref/core/state_fields.py", *generated])
    script = tmp_path / "play.py"
    script.write_text(textwrap.dedent(_PLAY), encoding="utf-8")
    played = subprocess.run(
        [sys.executable, "-P", str(script), str(root)], capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path
    )
    assert played.returncode == 0, played.stderr
    assert played.stdout.startswith("[0, 1] ")  # zero at a round's opening, then counting


def test_every_json_kind_of_the_table_has_its_check() -> None:
    """A plain field with a default is type-checked by its kind before a state is built (a kind
    without its check would let a wrong JSON type reach the compiled State)."""
    from flip7ref.core.position import _KIND_CHECKS, PositionError, check_data_fields
    from flip7ref.core.state_fields import JSON_KINDS, PLAIN_FIELDS

    assert {f.json for f in PLAIN_FIELDS} <= set(_KIND_CHECKS) and set(_KIND_CHECKS) < JSON_KINDS
    for field in PLAIN_FIELDS:
        if field.default:
            with pytest.raises(PositionError, match=f"^state data: {field.name}: expected .*, got ('x'|\\['x'\\])$"):
                check_data_fields({field.name: "x"} if field.json != "str?" else {field.name: ["x"]})
