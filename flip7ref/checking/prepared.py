"""A case prepared for checking on one engine: `Prepared`, and the case keys sent (`REQUEST_KEYS`).

`flip7ref.checking.verdict.prepare` builds a `Prepared`; `flip7ref.checking.blame` and
`flip7ref.checking.suspects` read one without importing verdict (which imports them).
`flip7ref.checking.verdict` re-exports both names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from flip7ref.checking.cases import Case
from flip7ref.checking.runs import Run

REQUEST_KEYS = ("id", "title", "edition", "kind", "options", "setup", "actions", "line")
"""The case keys sent to an engine (never ``expect``, ``rules``, ``source`` or ``reading``)."""


@attrs.frozen
class Prepared:
    """A case ready to be checked on an engine.

    Attributes:
        case: the case as written.
        options: the options the engine plays it with (non-default values).
        run: the reference's run of the case under those options.
        expect: the expected outcome under those options.
        actors: the seat taking each of the case's actions (reference, those options).
        legal: the legal actions at each of those steps.
        changed: whether the engine's readings differ from the case's own.
    """

    case: Case
    options: Mapping[str, Any]
    run: Run = attrs.field(repr=False)
    expect: Mapping[str, Any]
    actors: tuple[int, ...]
    legal: tuple[tuple[str, ...], ...]
    changed: bool
    auto_resolve: bool = False
    forced_tail: tuple[str, ...] = ()

    @property
    def actions(self) -> tuple[str, ...]:
        """The case's actions, then the `forced_tail` (the forced choices an auto-resolving
        engine takes itself after the case's last action)."""
        return (*(self.case.get("actions") or ()), *self.forced_tail)

    def sent(self, auto_resolve: bool | None = None) -> list[int]:
        """The indices (from 0) into `actions` of the actions sent to the engine: all of them, or
        with ``auto_resolve`` (default: `auto_resolve`) those that were not the only legal one."""
        auto = self.auto_resolve if auto_resolve is None else auto_resolve
        count = min(len(self.actions), len(self.legal))
        return [i for i in range(count) if not (auto and len(self.legal[i]) == 1)]

    def case_step(self, number: int) -> int | None:
        """The index (from 0) into `actions` of the engine's "action ``number``" (counted from 1
        among the actions sent), or None when it sent fewer."""
        sent = self.sent()
        return sent[number - 1] if 0 < number <= len(sent) else None

    def request(self, *, auto_resolve: bool | None = None) -> dict[str, Any]:
        """The case as sent to the engine: `REQUEST_KEYS`, the engine's options and
        ``actors`` (the seat taking each action).

        Args:
            auto_resolve: leave out the actions that were the only legal one at their step
                (for engines declaring ``auto_resolves_forced_choices``); default: as prepared.
        """
        out = {k: self.case[k] for k in REQUEST_KEYS if k in self.case}
        out["options"] = dict(self.options)
        if "actions" in self.case:
            keep = self.sent(auto_resolve)
            out["actions"] = [self.actions[i] for i in keep]
            out["actors"] = [self.actors[i] for i in keep]
        return out
