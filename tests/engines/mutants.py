"""Single-rule mutant engines: the reference with exactly one rule broken, served over the protocol.

Usage: ``python tests/engines/mutants.py NAME`` serves the mutant ``NAME`` (see `MUTANTS`)
over the engine protocol (conformance/PROTOCOL.md) until ``stop``; ``--list`` prints the
catalogue.  Each mutant declares only its own edition, with every option and reading of the
reference, so the harness checks it on that edition's cases under the cases' own readings.

A mutant is made in one of two ways, and breaks one rule only:

- ``table``: a patched copy of the edition's YAML table (a card's effect, a trait, a scoring
  step, a threshold, or the default reading of one option) — a house rule is a YAML file;
- ``patch``: one reference function or primitive method replaced while the mutant plays (in
  every module that imported it by name).  The fast lanes are switched off meanwhile
  (`flip7ref.state._FAST_LANES`): they call the same rule functions but hold their own
  references to some of them.

`Mutant.observe` plays a request as the mutant does; `Mutant.active` installs the mutant in
this process for a ``with`` block and takes it out again, so that the reference can be run
beside it (tests/test_mutant_blame.py runs the harness in-process that way).
"""

from __future__ import annotations

import contextlib
import json
import sys
import tempfile
import types
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs
import yaml

import flip7ref.harness
from flip7ref import engine, events, harness, lines, pile, scoring, state, targets
from flip7ref.conformance import observe as reference_observe
from flip7ref.engine import Deal, Draw
from flip7ref.model import NUMBER, Status, make_player
from flip7ref.primitives import bust_shield, forced_draw, freeze, steal, swap
from flip7ref.spec import spec_dir

Table = dict[str, Any]
Patch = Callable[[], dict[tuple[Any, str], Any]]


@attrs.frozen
class Mutant:
    """One mutant engine.

    Attributes:
        name: its name on the command line.
        rule: the rule id it breaks (a rule of ``edition``'s catalogue).
        edition: the edition it plays (the only one it declares).
        description: the broken rule in one line.
        how: ``table`` (a patched copy of the edition table) or ``patch`` (one function replaced).
        table: for ``table``: edits a loaded copy of the edition's YAML in place.
        patch: for ``patch``: returns ``{(owner, attribute): replacement}``, one function or
            method (an owner is a module or a class).
    """

    name: str
    rule: str
    edition: str
    description: str
    how: str
    table: Callable[[Table], None] | None = attrs.field(default=None, repr=False)
    patch: Patch | None = attrs.field(default=None, repr=False)

    def table_path(self) -> str:
        """The patched edition table written to a temporary file (once per process); its path."""
        return _table_path(self)

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """Install the mutant's patch in this process for the ``with`` block (nothing for a
        ``table`` mutant, whose cases are played on its own table), fast lanes off."""
        if self.patch is None:
            yield
            return
        saved: list[tuple[Any, str, Any]] = []
        lanes = state._FAST_LANES
        try:
            state._FAST_LANES = False
            for (owner, attr), new in self.patch().items():
                old = getattr(owner, attr)
                for holder in _holders(owner, attr, old):
                    saved.append((holder, attr, holder.__dict__[attr]))
                    setattr(holder, attr, new)
            yield
        finally:
            for holder, attr, old in reversed(saved):
                setattr(holder, attr, old)
            state._FAST_LANES = lanes

    def observe(self, case: Mapping[str, Any]) -> dict[str, Any]:
        """The outcome the mutant observes for a request (as `flip7ref.conformance.observe`).

        Raises:
            Flip7RefError: as the reference does (an illegal action...).
        """
        played = dict(case)
        if self.table is not None and played.get("edition") == self.edition:
            played["edition"] = self.table_path()
        with self.active():
            return reference_observe(played)

    def implementation(self, version: int = harness.PROTOCOL_VERSION) -> dict[str, Any]:
        """The mutant's ``start`` description: the reference's, its own edition only."""
        impl = _REFERENCE_IMPLEMENTATION(version)
        return dict(impl, name=f"mutant-{self.name}", editions={self.edition: impl["editions"][self.edition]})


_REFERENCE_IMPLEMENTATION = harness.implementation
_PATHS: dict[str, str] = {}


def _table_path(mutant: Mutant) -> str:
    if mutant.name not in _PATHS:
        assert mutant.table is not None
        data = yaml.safe_load((spec_dir() / "editions" / f"{mutant.edition}.yaml").read_text(encoding="utf-8"))
        mutant.table(data)
        path = Path(tempfile.mkdtemp(prefix="flip7-mutant-")) / f"{mutant.edition}-{mutant.name}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        _PATHS[mutant.name] = str(path)
    return _PATHS[mutant.name]


def _holders(owner: Any, attr: str, old: Any) -> list[Any]:
    """The owner, and for a module-level function every flip7ref module bound to it by name."""
    if not isinstance(owner, types.ModuleType):
        return [owner]
    found = [owner]
    for name, module in list(sys.modules.items()):
        if module is owner or not (name == "flip7ref" or name.startswith("flip7ref.")):
            continue
        if getattr(module, attr, None) is old and attr in module.__dict__:
            found.append(module)
    return found


# --------------------------------------------------------------------------- table edits


def _card(data: Table, card_id: str) -> dict[str, Any]:
    return next(c for c in data["cards"] if str(c["id"]) == card_id)


def _default(option: str, reading: str) -> Callable[[Table], None]:
    """A table edit: option ``option`` defaults to ``reading``."""

    def edit(data: Table) -> None:
        data["options"][option]["default"] = reading

    return edit


def _effect(card_id: str, **fields: Any) -> Callable[[Table], None]:
    def edit(data: Table) -> None:
        _card(data, card_id)["effect"].update(fields)

    return edit


def _traits(card_id: str, traits: list[str]) -> Callable[[Table], None]:
    def edit(data: Table) -> None:
        _card(data, card_id)["traits"] = traits

    return edit


def _scoring(*steps: str) -> Callable[[Table], None]:
    def edit(data: Table) -> None:
        by_step = {s["step"]: s for s in data["scoring"]}
        data["scoring"] = [by_step.get(s, {"step": s}) for s in steps]

    return edit


def _threshold(name: str, value: int) -> Callable[[Table], None]:
    def edit(data: Table) -> None:
        data["thresholds"][name] = value

    return edit


def _round(key: str, value: Any) -> Callable[[Table], None]:
    def edit(data: Table) -> None:
        data["round"][key] = value

    return edit


# --------------------------------------------------------------------------- patches


def _freeze_discarded() -> dict[tuple[Any, str], Any]:
    """F7-062 broken: the Freeze goes to the discard pile at once instead of staying in front."""

    def play(self: Any, w: Any, code: int, chooser: int, seat: int) -> None:
        p = w.players[seat]
        w.players[seat] = make_player((p.line, p.kept, Status.FROZEN, p.flip7_barred))
        w.to_discard(code)
        w.emit(events.frozen(seat, chooser))

    return {(freeze.Freeze, "play"): play}


def _first_offer_to_resolver() -> dict[tuple[Any, str], Any]:
    """F7-030 broken: after the deal, the first offer goes to the last player who resolved an
    action (chose its target) during the deal, not to the first seat of the deal order."""
    original = targets.play

    def play(w: Any, code: int, chooser: int, seat: int) -> None:
        if any(isinstance(f, Deal) for f in w.frames):
            w.turn = chooser
        original(w, code, chooser, seat)

    return {(targets, "play"): play}


def _flip7_others_zero() -> dict[tuple[Any, str], Any]:
    """F7-051 broken: when a round ends on a Flip 7, the players who did not make it score 0."""
    original = scoring.seat_score

    def seat_score(game: Any, seat: int, line: Any, busted: bool, flip7: int | None, bonus_to: int | None) -> int:
        if flip7 is not None and seat != flip7:
            return 0
        return int(original(game, seat, line, busted, flip7, bonus_to))

    return {(scoring, "seat_score"): seat_score}


def _bust_card_discarded() -> dict[tuple[Any, str], Any]:
    """F7-041 broken: the duplicate that busts a player goes to the discard pile at once instead
    of staying in their (face-down) line until the round ends."""
    original = lines.receive_number

    def receive_number(w: Any, code: int, seat: int) -> None:
        before = w.players[seat].status
        original(w, code, seat)
        p = w.players[seat]
        if before is not Status.BUSTED and p.status is Status.BUSTED and p.line and p.line[-1] == code:
            w.set_line(seat, p.line[:-1])
            w.to_discard(code)

    return {(lines, "receive_number"): receive_number}


def _used_chance_vanishes() -> dict[tuple[Any, str], Any]:
    """F7-080 broken: a used Second Chance leaves the game instead of going to the discard pile
    with the duplicate it cancelled."""

    def use_guard(self: Any, w: Any, seat: int, code: int, guard: int) -> None:
        p = w.players[seat]
        kept = list(p.kept)
        kept.remove(guard)
        w.set_kept(seat, tuple(kept))
        w.to_discard(code)
        w.emit(events.second_chance_used(seat, w.cid(code), w.cid(guard)))

    return {(bust_shield.BustShield, "use_guard"): use_guard}


MUTANTS: dict[str, Mutant] = {}
"""Every mutant by name."""


def _add(*mutants: Mutant) -> None:
    for m in mutants:
        assert m.name not in MUTANTS, m.name
        assert (m.table is None) != (m.patch is None), m.name
        MUTANTS[m.name] = m


_add(
    Mutant("freeze-discarded", "F7-062", "flip7", "a Freeze is discarded at once instead of staying in front of the frozen player",
           "patch", patch=_freeze_discarded),
    Mutant("first-offer-to-resolver", "F7-030", "flip7",
           "the first offer after the deal goes to the player who resolved an action during the deal", "patch",
           patch=_first_offer_to_resolver),
    Mutant("flip7-others-score-zero", "F7-051", "flip7", "on a Flip 7 the players who did not make it score 0", "patch",
           patch=_flip7_others_zero),
    Mutant("bust-card-discarded", "F7-041", "flip7", "the busting duplicate is discarded at once, not left in the line",
           "patch", patch=_bust_card_discarded),
    Mutant("used-chance-vanishes", "F7-080", "flip7", "a used Second Chance vanishes instead of going to the discard pile",
           "patch", patch=_used_chance_vanishes),
    Mutant("unlimited-reshuffles", "F7-116", "flip7", "the discard pile is reshuffled every time the deck runs out",
           "table", table=_default("reshuffles", "unlimited")),
    Mutant("x2-doubles-modifiers", "F7-091", "flip7", "x2 doubles the +N cards too (they are added before it)", "table",
           table=_scoring("sum_numbers", "add_modifiers", "multiply", "flip7_bonus")),
)  # fmt: skip


# --------------------------------------------------------------------------- serving


def serve(mutant: Mutant) -> int:
    """Serve ``mutant`` over the protocol on stdin/stdout (`flip7ref.harness.serve` with the
    mutant's description and its way of playing); the exit status (0)."""
    harness.implementation = mutant.implementation  # type: ignore[assignment]
    harness.observe = mutant.observe  # type: ignore[assignment]
    return harness.serve()


def main(argv: list[str] | None = None) -> int:
    """``mutants.py NAME`` serves a mutant; ``mutants.py --list`` prints the catalogue as JSON
    lines.  An unknown name exits 2 with the names there are."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["--list"]:
        for m in MUTANTS.values():
            print(json.dumps({"name": m.name, "rule": m.rule, "edition": m.edition, "how": m.how, "description": m.description}))
        return 0
    if len(args) != 1 or args[0] not in MUTANTS:
        print(f"usage: mutants.py NAME (one of {', '.join(MUTANTS)}) or --list", file=sys.stderr)
        return 2
    return serve(MUTANTS[args[0]])


if __name__ == "__main__":
    sys.exit(main())
