"""The batched kernel says, once, that numba is compiling it (flip7ref.batch.compile_notice).

The brief's decision: numba stays the default batch backend, with a line on its first compile.
The listener goes through numba's own event API; a compile of any other module's function says
nothing, and a kernel loaded from numba's disk cache fires no compile event at all.  These tests
check the batched engine's tooling, not a rule, so they cite no rule ids.
"""

from __future__ import annotations

import types

import pytest

pytest.importorskip("numba")
import numba
from numba.core import event

from flip7ref.batch import compile_notice
from flip7ref.batch.state import kernel_of


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that has not been told yet (and is watching, as the numba backend makes it)."""
    kernel_of("numba")
    monkeypatch.setitem(compile_notice._STATE, "told", False)


def _compile_of(module: str) -> None:
    """Fire numba's compile event as numba does, for a function of ``module``."""
    fake = types.SimpleNamespace(py_func=types.SimpleNamespace(__module__=module))
    with event.trigger_event("numba:compile", data={"dispatcher": fake, "args": (), "return_type": None}):
        pass


def test_a_kernel_compile_prints_the_notice_once(fresh: None, capsys: pytest.CaptureFixture[str]) -> None:
    _compile_of("flip7ref.batch.kernel")
    _compile_of("flip7ref.batch.kernel")
    captured = capsys.readouterr()
    assert captured.err == compile_notice.NOTICE + "\n" and captured.out == ""


def test_another_modules_compile_says_nothing(fresh: None, capsys: pytest.CaptureFixture[str]) -> None:
    @numba.njit(cache=False)  # type: ignore[misc, unused-ignore]
    def plus_one(x: int) -> int:
        return x + 1

    assert plus_one(41) == 42  # a real compile: numba fires the event for this test's module
    _compile_of("somebody.else")
    assert capsys.readouterr().err == ""
    assert compile_notice._STATE["told"] is False


def test_watching_twice_registers_one_listener(fresh: None) -> None:
    listeners = event._registered["numba:compile"]  # numba's registry of listeners by event kind
    before = len(listeners)
    compile_notice.watch_compiles()
    kernel_of("numba")
    assert len(listeners) == before
