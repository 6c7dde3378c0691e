"""State's fields are declared once: ``flip7ref.core.state._STATE_FIELDS``.

The compiled build needs the fields written out (a native class's body, ``__init__``,
``_make``, ``_fields``; `flip7ref.core.work.Work`'s copy; the fast lanes' ``_make`` calls),
so this test reads those places in the source and checks that each follows the one
declaration, in its order; the rest (the pure build's layout, ``__repr__``, the
position, `flip7ref.core.serialize`) is derived from it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import flip7ref
from flip7ref import Game, State
from flip7ref.core.state import _STATE_FIELDS

PACKAGE = Path(flip7ref.__file__).parent / "core"  # the rule core's room


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


def _calls(tree: ast.AST, attribute: str) -> list[ast.Call]:
    return [
        n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == attribute
    ]


def test_the_state_class_spells_its_fields_in_the_declared_order() -> None:
    cls = _class(_tree("state.py"), "State")
    fields = list(_STATE_FIELDS)
    assert _annotated(cls) == fields
    assert _params(_method(cls, "__init__")) == fields
    assert _params(_method(cls, "_make")) == fields
    init = _method(cls, "__init__")
    assigned = [t.attr for n in init.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Attribute)]
    assert assigned == fields
    made = next(n for n in ast.walk(_method(cls, "_make")) if isinstance(n, ast.Call))
    assert [a.id for a in made.args if isinstance(a, ast.Name)] == fields
    listed = next(n.value for n in ast.walk(_method(cls, "_fields")) if isinstance(n, ast.Return))
    assert isinstance(listed, ast.Tuple) and [e.attr for e in listed.elts if isinstance(e, ast.Attribute)] == fields


def test_the_fields_at_run_time_follow_the_declaration() -> None:
    s = Game("flip7", 3).new_position(lines={0: ["5"]}, draw=["7"], seed=2).apply("hit")
    assert s._fields() == tuple(getattr(s, name) for name in _STATE_FIELDS)
    assert State(*s._fields()) == s and State(**dict(zip(_STATE_FIELDS, s._fields(), strict=True))) == s
    assert repr(s).startswith("State(game=Game('flip7', players=3, options={}), players=(")
    assert repr(s).endswith(", round_shuffles=0, shuffle_mark=-1)") and "_log" not in repr(s)
    # the position: every field but the history, the discard pile as a multiset
    assert s._position() == (*s._fields()[:3], tuple(sorted(s.discard)), *s._fields()[4:18])


def test_work_copies_every_field_and_freezes_them_in_order() -> None:
    tree = _tree("work.py")
    work = _class(tree, "Work")
    assert _annotated(work) == [*_STATE_FIELDS[:-1], "events"]
    freeze = _calls(_method(work, "freeze"), "_make")
    assert len(freeze) == 1
    seen = []
    for arg in freeze[0].args:  # self.NAME, tuple(self.NAME), or the new history link
        inner = arg.args[0] if isinstance(arg, ast.Call) else arg
        seen.append(inner.attr if isinstance(inner, ast.Attribute) else inner.id if isinstance(inner, ast.Name) else "?")
    assert seen == [*_STATE_FIELDS[:-1], "log"]


def test_every_make_call_of_the_fast_lanes_gives_every_field() -> None:
    calls = _calls(_tree("lanes.py"), "_make")
    assert calls and all(len(c.args) == len(_STATE_FIELDS) and not c.keywords for c in calls)


def test_the_json_form_holds_every_field() -> None:
    tree = _tree("serialize.py")
    built = next(
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id == "fields"
    )
    assert isinstance(built.value, ast.Dict)
    assert [k.value for k in built.value.keys if isinstance(k, ast.Constant)] == list(_STATE_FIELDS[:-1])
    data = Game("flip7", 3).new_initial_state(seed=2).to_dict()
    written_as = {"game": "edition", "players": "seats", "_log": "log"}
    unmarked = {"shuffle_mark"}  # written only once set: reading unlimited of option reshuffles (F7-117)
    assert {written_as.get(f, f) for f in _STATE_FIELDS if f not in unmarked} <= set(data)
    assert "shuffle_mark" not in data
    game = Game("flip7", 2, {"reshuffles": "unlimited"})
    s = game.new_position(dealer=1, turn=0, lines={0: ["5"], 1: ["6"]}, statuses={1: "stayed"}, discard=["7"], rest="out")
    s = s.apply("hit")  # the deck is empty: the discard pile is reshuffled, marking the progress (2 cards + 1 out)
    assert s.shuffle_mark == 3 and s.to_dict()["shuffle_mark"] == 3 and State.from_dict(s.to_dict()) == s
