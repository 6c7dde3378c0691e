"""Single-rule mutant engines: the reference with exactly one rule broken, served over the protocol.

Usage: ``python tests/engines/mutants.py NAME`` serves the mutant ``NAME`` (see `MUTANTS`)
over the engine protocol (conformance/PROTOCOL.md) until ``stop``; ``NAME+NAME+...`` serves
the reference with every named mutant's rule broken at once (`Combined`, `parse`: a multi-bug
engine, declaring the editions of its members); ``--list`` prints the catalogue.  Each
mutant declares only its own edition, with every option and reading of the reference, so the
harness checks it on that edition's cases under the cases' own readings.

A mutant is made in one of two ways, and breaks one rule only:

- ``table``: a patched copy of the edition's YAML table (a card's effect, a trait, a scoring
  step, a threshold, or the default reading of one option) — a house rule is a YAML file;
- ``patch``: one reference function or primitive method replaced while the mutant plays (in
  every module that imported it by name, or in its owner module alone when ``local``).  The fast lanes are switched off meanwhile
  (`flip7ref.core.state._FAST_LANES`): they call the same rule functions but hold their own
  references to some of them.

`Mutant.observe` plays a request as the mutant does; `Mutant.active` installs the mutant in
this process for a ``with`` block and takes it out again, so that the reference can be run
beside it (tests/test_mutant_blame.py runs the harness in-process that way).
"""

from __future__ import annotations

import contextlib
import copy
import json
import sys
import tempfile
import types
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import yaml

from flip7ref.checking import conformance, harness
from flip7ref.checking.conformance import observe as reference_observe
from flip7ref.core import engine, events, lines, pile, scoring, state, targets
from flip7ref.core.engine import Deal, Draw
from flip7ref.core.errors import Flip7RefError
from flip7ref.core.game import Game
from flip7ref.core.model import NUMBER, Status, make_player
from flip7ref.core.primitives import bust_shield, forced_draw, freeze, steal, swap
from flip7ref.core.spec import Edition, load_edition, spec_dir

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
        local: for ``patch``: replace the name in its owner module only, not in every module
            bound to the same function (a helper the owner imported by name and shares with
            others: ``targets.enter`` serves both Swap and Steal, so breaking it everywhere would
            break two rules).
    """

    name: str
    rule: str
    edition: str
    description: str
    how: str
    table: Callable[[Table], None] | None = attrs.field(default=None, repr=False)
    patch: Patch | None = attrs.field(default=None, repr=False)
    local: bool = False

    def table_path(self) -> str:
        """The patched edition table written to a temporary file (once per process); its path."""
        return _table_path(self)

    def table_edition(self) -> Edition:
        """The patched edition table, loaded once per process."""
        if self.name not in _EDITIONS:
            _EDITIONS[self.name] = load_edition(self.table_path())
        return _EDITIONS[self.name]

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
                for holder in [owner] if self.local else _holders(owner, attr, old):
                    saved.append((holder, attr, holder.__dict__[attr]))
                    setattr(holder, attr, new)
            yield
        finally:
            for holder, attr, old in reversed(saved):
                setattr(holder, attr, old)
            state._FAST_LANES = lanes

    def observe(self, case: Mapping[str, Any]) -> dict[str, Any]:
        """The outcome the mutant observes for a request (as `flip7ref.checking.conformance.observe`).

        Raises:
            Flip7RefError: as the reference does (an illegal action...).
        """
        played = dict(case)
        if self.table is not None and played.get("edition") == self.edition:
            played["edition"] = self.table_edition()
        with self.active(), _shared_games():
            return reference_observe(played)

    def implementation(self, version: int = harness.PROTOCOL_VERSION) -> dict[str, Any]:
        """The mutant's ``start`` description: the reference's, its own edition only."""
        impl = _REFERENCE_IMPLEMENTATION(version)
        return dict(impl, name=f"mutant-{self.name}", editions={self.edition: impl["editions"][self.edition]})


_REFERENCE_IMPLEMENTATION = harness.implementation
_GAMES: dict[tuple[Any, ...], Game] = {}


@contextlib.contextmanager
def _shared_games() -> Iterator[None]:
    """`flip7ref.checking.conformance.build_state` builds each `Game` once per edition, players and
    options (games are immutable values), which spares the mutants most of their set-up time."""

    def game(edition: Any, players: Any, options: Any = None) -> Game:
        key = (id(edition) if isinstance(edition, Edition) else edition, players, json.dumps(options, sort_keys=True))
        if key not in _GAMES:
            _GAMES[key] = Game(edition, players, options)
        return _GAMES[key]

    saved = conformance.Game
    conformance.Game = game  # type: ignore[assignment,misc]
    try:
        yield
    finally:
        conformance.Game = saved  # type: ignore[misc]


_PATHS: dict[str, str] = {}
_EDITIONS: dict[str, Edition] = {}


def _table_path(mutant: Mutant) -> str:
    return _patched_table(mutant.name, mutant.edition, [mutant])


def _edition_data(edition: str) -> Table:
    data: Table = yaml.safe_load((spec_dir() / "editions" / f"{edition}.yaml").read_text(encoding="utf-8"))
    return data


def _patched_table(key: str, edition: str, members: Sequence[Mutant]) -> str:
    """The edition table with every table edit of ``members`` applied, written to a temporary
    file once per process under ``key``; its path."""
    if key not in _PATHS:
        data = _edition_data(edition)
        for m in members:
            assert m.table is not None
            m.table(data)
        path = Path(tempfile.mkdtemp(prefix="flip7-mutant-")) / f"{edition}-{key.replace('+', '_')}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        _PATHS[key] = str(path)
    return _PATHS[key]


def _changed(before: Any, after: Any, at: tuple[Any, ...] = ()) -> set[tuple[Any, ...]]:
    """The paths (keys and indices) where two loaded tables differ."""
    if isinstance(before, dict) and isinstance(after, dict):
        out: set[tuple[Any, ...]] = set()
        for k in before.keys() | after.keys():
            out |= _changed(before.get(k), after.get(k), (*at, k)) if k in before and k in after else {(*at, k)}
        return out
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return set().union(*(_changed(b, a, (*at, i)) for i, (b, a) in enumerate(zip(before, after, strict=True))))
    return set() if before == after else {at}


def _touches(m: Mutant) -> set[tuple[Any, ...]]:
    """What a mutant changes: the table paths it edits, or the (owner, attribute) it replaces."""
    if m.patch is not None:
        return {("patch", owner, attr) for owner, attr in m.patch()}
    assert m.table is not None
    data = _edition_data(m.edition)
    edited = copy.deepcopy(data)
    m.table(edited)
    return {(m.edition, *path) for path in _changed(data, edited)}


def _overlap(a: set[tuple[Any, ...]], b: set[tuple[Any, ...]]) -> bool:
    return any(x[: len(y)] == y or y[: len(x)] == x for x in a for y in b)


@attrs.frozen
class Combined:
    """Several mutants at once (``mutants.py A+B+C``): every member's bug in one engine.

    Table mutants of one edition edit one copy of its table together; patch mutants are all
    installed.  It declares the editions of its members.

    Attributes:
        members: the mutants, in the order named.
    """

    members: tuple[Mutant, ...]

    @property
    def name(self) -> str:
        """The members' names joined by ``+``."""
        return "+".join(m.name for m in self.members)

    @property
    def rules(self) -> tuple[str, ...]:
        """The rules broken, one per member."""
        return tuple(m.rule for m in self.members)

    def _tables(self, edition: str) -> list[Mutant]:
        return [m for m in self.members if m.table is not None and m.edition == edition]

    def table_edition(self, edition: str) -> Edition:
        """The edition table with its members' edits, loaded once per process."""
        key = f"{self.name}@{edition}"
        if key not in _EDITIONS:
            _EDITIONS[key] = load_edition(_patched_table(key, edition, self._tables(edition)))
        return _EDITIONS[key]

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """Every member's patch installed for the ``with`` block (`Mutant.active`)."""
        with contextlib.ExitStack() as stack:
            for m in self.members:
                stack.enter_context(m.active())
            yield

    def observe(self, case: Mapping[str, Any]) -> dict[str, Any]:
        """The outcome the combined mutant observes (as `Mutant.observe`).

        Raises:
            Flip7RefError: as the reference does.
        """
        played = dict(case)
        edition = played.get("edition")
        if isinstance(edition, str) and self._tables(edition):
            played["edition"] = self.table_edition(edition)
        with self.active(), _shared_games():
            return reference_observe(played)

    def implementation(self, version: int = harness.PROTOCOL_VERSION) -> dict[str, Any]:
        """The reference's ``start`` description, its members' editions only."""
        impl = _REFERENCE_IMPLEMENTATION(version)
        editions = {m.edition: impl["editions"][m.edition] for m in self.members}
        return dict(impl, name=f"mutant-{self.name}", editions=editions)


class UnknownMutant(ValueError):
    """A mutant name that is not in the catalogue, or members that cannot be combined."""


def parse(spec: str) -> Mutant | Combined:
    """The mutant ``spec`` names: one name (`MUTANTS`), or several joined by ``+`` (`Combined`).

    Raises:
        UnknownMutant: a name not in the catalogue (the message lists the valid ones), a name
            given twice, or two members changing the same table field or function (one would
            hide the other), or two members breaking the same rule.
    """
    names = spec.split("+")
    unknown = [n for n in names if n not in MUTANTS]
    if unknown:
        raise UnknownMutant(f"unknown mutant {', '.join(repr(n) for n in unknown)}; the mutants are: {', '.join(MUTANTS)}")
    if len(names) == 1:
        return MUTANTS[names[0]]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UnknownMutant(f"mutant {', '.join(twice)} named twice in {spec!r}")
    members = tuple(MUTANTS[n] for n in names)
    rules = [m.rule for m in members]
    same = sorted({r for r in rules if rules.count(r) > 1})
    if same:
        raise UnknownMutant(f"mutants of {spec!r} break the same rule {', '.join(same)}: their findings could not be told apart")
    touched = [_touches(m) for m in members]
    for i, a in enumerate(members):
        for j in range(i + 1, len(members)):
            if _overlap(touched[i], touched[j]):
                raise UnknownMutant(
                    f"mutants {a.name} and {members[j].name} change the same table field or function; one would hide the other"
                )
    return Combined(members)


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
    original = targets.receive_number

    def receive_number(w: Any, code: int, seat: int) -> None:
        before = w.players[seat].status
        original(w, code, seat)
        p = w.players[seat]
        if before is not Status.BUSTED and p.status is Status.BUSTED and p.line and p.line[-1] == code:
            w.set_line(seat, p.line[:-1])
            w.to_discard(code)

    return {(targets, "receive_number"): receive_number}


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


def _spare_chance_without_choice() -> dict[tuple[Any, str], Any]:
    """F7-082 broken: a spare Second Chance goes to the first eligible player in seat order,
    without its receiver choosing."""
    original = bust_shield.BustShield.receive

    def receive(self: Any, w: Any, code: int, seat: int) -> None:
        p = w.players[seat]
        if bust_shield.held(w.game, p) < self.hold_limit and p.status is not Status.BUSTED:
            original(self, w, code, seat)
            return
        receivers = [s for s in self._receivers(w) if s != seat]
        if not receivers:
            original(self, w, code, seat)
            return
        w.set_kept(receivers[0], (*w.players[receivers[0]].kept, code))
        w.emit(events.second_chance_given(seat, receivers[0], w.cid(code)))

    return {(bust_shield.BustShield, "receive"): receive}


def _empty_deck_hit_nothing() -> dict[tuple[Any, str], Any]:
    """F7-115 broken: a Hit when the deck and the discard pile are empty does nothing (the
    player stays active and the turn passes) instead of counting as a Stay."""

    def exhaust(self: Any, w: Any) -> None:
        return None

    return {(Draw, "exhaust"): exhaust}


def _set_aside_as_assigned() -> dict[tuple[Any, str], Any]:
    """F7-074 broken: each set-aside card takes effect as soon as it is assigned, not after the
    last one has a recipient."""
    original = forced_draw.Assign.settle

    def settle(self: Any, w: Any) -> bool:
        if self.targets and self.targets[-1] != -2:
            card, seat = self.cards[len(self.targets) - 1], self.targets[-1]
            done = (*self.targets[:-1], -2)
            w.frames[-1] = forced_draw.Assign(self.chooser, self.owner, self.cards, done)
            w.frames.append(forced_draw.Resolve(((card, seat, self.chooser),)))
            return True
        if len(self.targets) == len(self.cards):
            w.frames.pop()
            return True
        return bool(original(self, w))

    return {(forced_draw.Assign, "settle"): settle}


def _without(pile: tuple[int, ...], code: int) -> tuple[int, ...]:
    """``pile`` without its first ``code`` (a Work's discard pile is a tuple)."""
    i = pile.index(code)
    return pile[:i] + pile[i + 1 :]


def _own_card_reshuffled() -> dict[tuple[Any, str], Any]:
    """F7-114 broken: a reshuffle in the middle of a Flip Three takes that Flip Three card itself
    into the new deck (it can come up again inside its own resolution)."""
    original = pile.reshuffle

    def reshuffle(w: Any) -> None:
        w.to_discard(*[f.card for f in w.frames if isinstance(f, forced_draw.ForcedDraw)])
        original(w)

    return {(pile, "reshuffle"): reshuffle}


def _flip_three_card_kept() -> dict[tuple[Any, str], Any]:
    """F7-078 broken: the Flip Three card leaves the game when it finishes instead of going to
    the discard pile."""
    original = forced_draw.ForcedDraw.finish

    def finish(self: Any, w: Any, outcome: str) -> None:
        original(self, w, outcome)
        if self.card in w.discard:
            w.discard = _without(w.discard, self.card)

    return {(forced_draw.ForcedDraw, "finish"): finish}


def _resume_after_target() -> dict[tuple[Any, str], Any]:
    """F7-079 broken: after a Flip Three, play resumes on the left of its target instead of on
    the left of the player who drew it."""
    original = forced_draw.ForcedDraw.finish

    def finish(self: Any, w: Any, outcome: str) -> None:
        original(self, w, outcome)
        if not any(isinstance(f, Deal) for f in w.frames):
            w.turn = w.next_seat(self.target)

    return {(forced_draw.ForcedDraw, "finish"): finish}


def _round_cards_vanish() -> dict[tuple[Any, str], Any]:
    """F7-111 broken: at the end of a round the cards in front of the players leave the game
    instead of going to the discard pile."""
    original = engine.end_round

    def end_round(w: Any) -> None:
        held = [c for p in w.players for c in (*p.line, *p.kept)]
        original(w)
        for c in held:
            if c in w.discard:
                w.discard = _without(w.discard, c)

    return {(engine, "end_round"): end_round}


def _totals_not_added() -> dict[tuple[Any, str], Any]:
    """F7-102 broken: a round's scores replace the running totals instead of adding to them."""
    original = engine.plan_round_end

    def plan_round_end(game: Any, players: Any, totals: Any, round: int, dealer: int, flip7: Any, bonus_to: Any) -> Any:
        return original(game, players, [0] * len(totals), round, dealer, flip7, bonus_to)

    return {(engine, "plan_round_end"): plan_round_end}


def _dealer_stays() -> dict[tuple[Any, str], Any]:
    """F7-112 broken: the same player deals every round (the deal does not pass to the left)."""
    original = engine.plan_round_end

    def plan_round_end(game: Any, players: Any, totals: Any, round: int, dealer: int, flip7: Any, bonus_to: Any) -> Any:
        plan = original(game, players, totals, round, dealer, flip7, bonus_to)
        return plan._replace(dealer=dealer)

    return {(engine, "plan_round_end"): plan_round_end}


def _freeze_no_effect() -> dict[tuple[Any, str], Any]:
    """F7-060 broken: the frozen player is not taken out of the round (the Freeze lies in front
    of them and they go on playing)."""

    def play(self: Any, w: Any, code: int, chooser: int, seat: int) -> None:
        p = w.players[seat]
        w.players[seat] = make_player((p.line, (*p.kept, code) if self.keep_card else p.kept, p.status, p.flip7_barred))
        if not self.keep_card:
            w.to_discard(code)
        w.emit(events.frozen(seat, chooser))

    return {(freeze.Freeze, "play"): play}


def _duplicate_no_bust() -> dict[tuple[Any, str], Any]:
    """F7-040 broken: a repeated number joins the line without a bust."""

    def is_duplicate(game: Any, line: Any, code: int) -> bool:
        return False

    return {(lines, "is_duplicate"): is_duplicate}


def _modifiers_count_toward_seven() -> dict[tuple[Any, str], Any]:
    """F7-090 broken: each modifier counts toward the seven of a Flip 7 like a new number."""
    original = lines.flip7_count

    def flip7_count(game: Any, line: Any) -> int:
        mods = len({c for c in line if game.category[c] != NUMBER})
        return int(original(game, line)) + mods

    def holds_seven(game: Any, line: Any) -> bool:
        return flip7_count(game, line) >= game.flip7_distinct

    return {(lines, "holds_seven"): holds_seven}


def _zero_not_counted() -> dict[tuple[Any, str], Any]:
    """F7-005 broken: the 0 does not count as one of the seven different numbers."""

    def distinct_numbers(game: Any, line: Any) -> int:
        return len({game.rank[c] for c in line if game.category[c] == NUMBER and game.rank[c] != 0})

    return {(lines, "distinct_numbers"): distinct_numbers}


def _busted_scores_modifiers() -> dict[tuple[Any, str], Any]:
    """F7-101 broken: a busted player scores their modifiers."""

    def busted_points(game: Any, line: Any) -> int:
        return sum(m[1] for c in line if (m := game.modifier[c]) is not None and m[0] == "add")

    return {(scoring, "busted_points"): busted_points}


def _chance_draws_again() -> dict[tuple[Any, str], Any]:
    """F7-081 broken: after a Second Chance cancels the duplicate of a Hit, the player draws a
    replacement card."""
    original = bust_shield.BustShield.use_guard

    def use_guard(self: Any, w: Any, seat: int, code: int, guard: int) -> None:
        original(self, w, seat, code, guard)
        if not w.frames:
            w.frames.append(Draw(seat, "hit"))

    return {(bust_shield.BustShield, "use_guard"): use_guard}


def _steal_no_receiving_rules() -> dict[tuple[Any, str], Any]:
    """V-046 broken: a stolen card joins the thief's line without the receiving rules (a repeat
    does not bust, a new number makes no Flip 7)."""

    def enter(w: Any, code: int, seat: int, place: int | None = None) -> None:  # at the end (V-087's default)
        w.set_line(seat, (*w.players[seat].line, code))

    return {(steal, "enter"): enter}


def _swap_no_receiving_rules() -> dict[tuple[Any, str], Any]:
    """V-045 broken: swapped cards join their new lines without the receiving rules (a repeat
    does not bust)."""

    def enter(w: Any, code: int, seat: int, place: int | None = None) -> None:  # at the end (V-087's default)
        w.set_line(seat, (*w.players[seat].line, code))

    return {(swap, "enter"): enter}


def _zero_may_stay() -> dict[tuple[Any, str], Any]:
    """V-031 broken: a ``no_stay`` card (The Zero) no longer forbids Stay; everything else
    that reads that trait (Just One More's bar on the holder's Flip 7, V-038) is left as it is,
    which removing the trait from the table would not do."""
    real = lines.may_stay

    def may_stay(game: Any, p: Any) -> bool:
        if not game.no_stay or not any(c in game.no_stay for c in p.line):
            return real(game, p)
        need = game.stay_requires
        if need == "nothing":
            return True
        if need == "number-card":
            return any(game.category[c] == NUMBER for c in p.line)
        return bool(p.line or p.kept)

    return {(lines, "may_stay"): may_stay}


def _lucky13_triple() -> dict[tuple[Any, str], Any]:
    """V-036 broken: with Lucky 13 in the line, any number of 13s may join it (a third does not bust)."""

    def repeat_allowed(game: Any, same: Any) -> bool:
        return len(same) <= 1 or any("pair_allowed" in game.traits[c] for c in same)

    return {(lines, "repeat_allowed"): repeat_allowed}


def _chance_ends_flip_three() -> dict[tuple[Any, str], Any]:
    """F7-077 broken: a Second Chance that cancels a repeated number inside a Flip Three ends the
    Flip Three (its remaining cards are not flipped; the cards set aside are still assigned)."""
    original = bust_shield.BustShield.use_guard

    def use_guard(self: Any, w: Any, seat: int, code: int, guard: int) -> None:
        original(self, w, seat, code, guard)
        top = w.frames[-1] if w.frames else None
        if isinstance(top, forced_draw.ForcedDraw) and top.target == seat:
            w.frames[-1] = forced_draw.ForcedDraw(top.target, top.giver, top.card, 0, top.set_aside)

    return {(bust_shield.BustShield, "use_guard"): use_guard}


def _tie_first_seat() -> dict[tuple[Any, str], Any]:
    """F7-121 broken: when the top total at game end is shared, the first tied seat wins (no
    other round is played)."""
    original = engine.game_end

    def game_end(game: Any, totals: Any) -> tuple[tuple[int, ...], bool]:
        leaders, over = original(game, totals)
        return (leaders[:1], True) if len(leaders) > 1 else (leaders, over)

    return {(engine, "game_end"): game_end}


def _empty_deck_crash() -> dict[tuple[Any, str], Any]:
    """F7-115 broken: a draw when the deck and the discard pile are both empty is refused with
    an error (the engine fails instead of turning the Hit into a Stay or ending the Flip Three)."""

    def exhaust(self: Any, w: Any) -> None:
        raise Flip7RefError("cannot draw: the deck and the discard pile are empty")

    return {(Draw, "exhaust"): exhaust, (forced_draw.ForcedDraw, "exhaust"): exhaust}


MUTANTS: dict[str, Mutant] = {}
"""Every mutant by name."""


def _add(*mutants: Mutant) -> None:
    for m in mutants:
        assert m.name not in MUTANTS, m.name
        assert (m.table is None) != (m.patch is None), m.name
        MUTANTS[m.name] = m


_add(
    Mutant("freeze-discarded", "F7-062", "flip7", "a Freeze is discarded at once instead of staying in front of its target",
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
    Mutant("one-reshuffle", "F7-116", "flip7", "the discard pile is reshuffled once a round at most; then the deck is exhausted",
           "table", table=_default("reshuffles", "1")),
    Mutant("x2-doubles-modifiers", "F7-091", "flip7", "x2 doubles the +N cards too (they are added before it)", "table",
           table=_scoring("sum_numbers", "add_modifiers", "multiply", "flip7_bonus")),
)  # fmt: skip

_add(
    # --- Flip 7: deal and turns
    Mutant("deal-starts-at-dealer", "F7-020", "flip7", "the deal and the offers start with the dealer, not on the dealer's left",
           "table", table=_default("start_seat", "dealer")),
    Mutant("early-cards-dealt", "F7-025", "flip7", "a player who already holds cards is dealt a card anyway", "table",
           table=_default("deal_after_early_cards", "deal")),
    Mutant("chance-is-early-card", "F7-026", "flip7", "a held Second Chance alone counts as early cards in the deal", "table",
           table=_default("deal_after_second_chance", "early-cards")),
    Mutant("stay-needs-number", "F7-033", "flip7", "staying needs a number card (a modifier alone is not enough)", "table",
           table=_default("stay_requires", "number-card")),
    Mutant("stayed-targetable", "F7-061", "flip7", "a player who stayed (or is frozen) can still be frozen", "table",
           table=_effect("freeze", targets="non_busted")),
    # --- bust and Flip 7
    Mutant("duplicate-no-bust", "F7-040", "flip7", "a repeated number joins the line without a bust", "patch",
           patch=_duplicate_no_bust),
    Mutant("busted-targetable", "F7-061", "flip7", "a busted player can be chosen for a Freeze", "table",
           table=_effect("freeze", targets="active_or_busted")),
    Mutant("flip7-at-six", "F7-050", "flip7", "six different numbers make a Flip 7", "table",
           table=_threshold("flip7_distinct", 6)),
    Mutant("zero-not-counted", "F7-005", "flip7", "the 0 does not count toward the seven different numbers", "patch",
           patch=_zero_not_counted),
    # --- Freeze
    Mutant("freeze-no-effect", "F7-060", "flip7", "a frozen player is not taken out of the round", "patch",
           patch=_freeze_no_effect),
    Mutant("freeze-not-on-self", "F7-061", "flip7", "the drawer may not freeze themselves while others are active", "table",
           table=_effect("freeze", self_target="only-when-alone")),
    # --- Flip Three
    Mutant("flip-three-two-cards", "F7-070", "flip7", "a Flip Three draws two cards", "table",
           table=_effect("flip_three", count=2)),
    Mutant("flip-three-not-on-self", "F7-072", "flip7", "the drawer may not take their own Flip Three while others are active",
           "table", table=_effect("flip_three", self_target="only-when-alone")),
    Mutant("set-aside-after-bust", "F7-073", "flip7", "cards set aside in a Flip Three are still played when its target busts",
           "table", table=_effect("flip_three", on_bust="resolve")),
    Mutant("set-aside-as-assigned", "F7-074", "flip7", "each set-aside card takes effect as soon as it is assigned", "patch",
           patch=_set_aside_as_assigned),
    Mutant("chance-set-aside", "F7-076", "flip7", "a Second Chance flipped in a Flip Three is set aside with the actions",
           "table", table=lambda d: _card(d, "flip_three")["effect"]["set_aside"]["values"].update(
               immediate=["freeze", "flip_three", "second_chance"])),
    Mutant("flip-three-card-vanishes", "F7-078", "flip7", "the Flip Three card leaves the game instead of being discarded",
           "patch", patch=_flip_three_card_kept),
    Mutant("resume-after-target", "F7-079", "flip7", "after a Flip Three, play resumes on the left of its target", "patch",
           patch=_resume_after_target),
    Mutant("flip-three-immediate", "F7-073", "flip7",
           "a Freeze or Flip Three flipped in a Flip Three is resolved at once instead of set aside", "table",
           table=lambda d: _card(d, "flip_three")["effect"]["set_aside"]["values"].update(
               {"immediate": [], "set-aside": ["second_chance"]})),
    Mutant("chance-ends-flip-three", "F7-077", "flip7", "a Second Chance used inside a Flip Three ends it", "patch",
           patch=_chance_ends_flip_three),
    Mutant("own-card-reshuffled", "F7-114", "flip7", "a reshuffle during a Flip Three takes that Flip Three card into the deck",
           "patch", patch=_own_card_reshuffled),
    # --- Second Chance
    Mutant("chance-draws-again", "F7-081", "flip7", "after a Second Chance saves a Hit, the player draws a replacement card",
           "patch", patch=_chance_draws_again),
    Mutant("spare-chance-no-choice", "F7-082", "flip7", "a spare Second Chance goes to the next eligible seat, unchosen",
           "patch", patch=_spare_chance_without_choice),
    Mutant("two-chances-held", "F7-082", "flip7", "a player may hold two Second Chances", "table",
           table=_effect("second_chance", hold_limit=2)),
    # --- modifiers and scoring
    Mutant("modifiers-count-toward-seven", "F7-090", "flip7", "each modifier counts toward the seven of a Flip 7", "patch",
           patch=_modifiers_count_toward_seven),
    Mutant("x2-doubles-bonus", "F7-091", "flip7", "x2 doubles the Flip 7 bonus too", "table",
           table=_scoring("sum_numbers", "flip7_bonus", "multiply", "add_modifiers")),
    Mutant("busted-scores-modifiers", "F7-101", "flip7", "a busted player scores their +N cards", "patch",
           patch=_busted_scores_modifiers),
    Mutant("totals-replaced", "F7-102", "flip7", "a round's scores replace the running totals", "patch", patch=_totals_not_added),
    # --- round end, deck, game end
    Mutant("round-cards-vanish", "F7-111", "flip7", "a round's cards leave the game instead of going to the discard pile",
           "patch", patch=_round_cards_vanish),
    Mutant("dealer-stays", "F7-112", "flip7", "the same player deals every round", "patch", patch=_dealer_stays),
    Mutant("no-mid-round-reshuffle", "F7-113", "flip7", "an empty deck is never rebuilt from the discard pile in a round",
           "table", table=_default("reshuffles", "0")),
    Mutant("empty-deck-hit-nothing", "F7-115", "flip7", "a Hit on an empty deck and discard pile does nothing (no Stay)",
           "patch", patch=_empty_deck_hit_nothing),
    Mutant("empty-deck-crash", "F7-115", "flip7", "a draw on an empty deck and discard pile fails with an error",
           "patch", patch=_empty_deck_crash),
    Mutant("game-ends-at-150", "F7-120", "flip7", "the game ends when a total reaches 150", "table",
           table=_default("target_score", "150")),
    Mutant("tie-shared-win", "F7-121", "flip7", "tied leaders at game end share the win", "table",
           table=_default("tie", "shared-win")),
    Mutant("tie-first-seat", "F7-121", "flip7", "tied leaders at game end: the first tied seat wins", "patch",
           patch=_tie_first_seat),
    # --- Flip 7: With a Vengeance
    Mutant("v-deal-starts-at-dealer", "V-012", "vengeance", "the deal and the offers start with the dealer", "table",
           table=_round("start_seat", "dealer")),
    Mutant("v-stayed-not-targetable", "V-042", "vengeance", "a player who stayed cannot be chosen for an action", "table",
           table=_default("stayed_targetable", "no")),
    Mutant("v-busted-cards-discarded", "V-020", "vengeance", "a busted line goes to the discard pile at once", "table",
           table=_default("busted_cards", "discard")),
    Mutant("v-flip7-at-six", "V-022", "vengeance", "six different numbers make a Flip 7", "table",
           table=_threshold("flip7_distinct", 6)),
    Mutant("zero-scores", "V-030", "vengeance", "The Zero does not make the round score 0 without a Flip 7", "table",
           table=_scoring("sum_numbers", "multiply", "add_modifiers", "floor_zero", "flip7_bonus")),
    Mutant("zero-may-stay", "V-031", "vengeance", "a player holding The Zero may Stay", "patch", patch=_zero_may_stay),
    Mutant("unlucky7-busts", "V-033", "vengeance", "Unlucky 7 is an ordinary 7 (no wipe, it busts beside a 7)", "table",
           table=_traits("unlucky7", [])),
    Mutant("lucky13-busts", "V-036", "vengeance", "Lucky 13 lets no second 13 in", "table", table=_traits("lucky13", [])),
    Mutant("lucky13-triple", "V-036", "vengeance", "with Lucky 13, a third 13 does not bust", "patch", patch=_lucky13_triple),
    Mutant("zero-jom-flip7", "V-038", "vengeance", "The Zero's holder stopped by Just One More can still make a Flip 7",
           "table", table=_default("zero_just_one_more", "general-rules")),
    Mutant("jom-no-stay", "V-043", "vengeance", "Just One More's target does not Stay after the card", "table",
           table=_effect("just_one_more", then_stay=False)),
    Mutant("flip-four-three-cards", "V-044", "vengeance", "a Flip Four draws three cards", "table",
           table=_effect("flip_four", count=3)),
    Mutant("flip-four-immediate", "V-044", "vengeance", "actions and modifiers flipped in a Flip Four act at once", "table",
           table=_default("flip_four_cards", "immediate")),
    Mutant("swap-own-and-other", "V-045", "vengeance", "a Swap must take one of its target's own cards", "table",
           table=_default("swap_scope", "own-and-other")),
    Mutant("swap-no-receiving-rules", "V-045", "vengeance", "swapped cards never bust their new line", "patch",
           patch=_swap_no_receiving_rules, local=True),
    Mutant("steal-no-receiving-rules", "V-046", "vengeance", "a stolen card never busts nor completes a Flip 7", "patch",
           patch=_steal_no_receiving_rules, local=True),
    Mutant("discard-by-recipient", "V-047", "vengeance", "the recipient of a Discard picks the card", "table",
           table=_default("discard_chooser", "recipient")),
    Mutant("unusable-refused", "V-048", "vengeance", "an action with no card to act on is not discarded but must be played",
           "table", table=_default("unusable_actions", "refuse")),
    Mutant("modifier-to-busted", "V-050", "vengeance", "a modifier may be given to a busted player outside Brutal Mode", "table",
           table=lambda d: d["round"]["modifier_targets"]["values"].update({"false": "any"})),
    Mutant("half-after-negatives", "V-052", "vengeance", "÷2 halves the score after the negatives are taken off", "table",
           table=_scoring("sum_numbers", "add_modifiers", "multiply", "floor_zero", "zero_unless_flip7", "flip7_bonus")),
    Mutant("no-floor-at-zero", "V-053", "vengeance", "a round score may drop below 0 outside Brutal Mode", "table",
           table=_scoring("sum_numbers", "multiply", "add_modifiers", "zero_unless_flip7", "flip7_bonus")),
    Mutant("brutal-floor", "V-080", "vengeance", "Brutal Mode still floors round scores at 0", "table",
           table=lambda d: d["scoring"][3]["unless"]["values"].update({"true": False})),
    Mutant("brutal-busted-zero", "V-081", "vengeance", "in Brutal Mode a busted player scores 0", "table",
           table=_round("busted_score", "zero")),
    Mutant("brutal-no-flip7-choice", "V-082", "vengeance", "in Brutal Mode the Flip 7 maker always takes the 15 points",
           "table", table=_round("flip7_choice", False)),
    Mutant("brutal-busted-all-negatives", "V-084", "vengeance", "in Brutal Mode a busted player scores every negative held",
           "table", table=_default("brutal_busted", "all-negatives")),
)  # fmt: skip


# --------------------------------------------------------------------------- serving


def serve(mutant: Mutant | Combined) -> int:
    """Serve ``mutant`` over the protocol on stdin/stdout (`flip7ref.checking.harness.serve` with the
    mutant's description and its way of playing); the exit status (0)."""
    harness.implementation = mutant.implementation  # type: ignore[assignment]
    harness.observe = mutant.observe  # type: ignore[assignment]
    return harness.serve()


def main(argv: list[str] | None = None) -> int:
    """``mutants.py NAME`` serves a mutant, ``mutants.py A+B+C`` the reference with all of them
    broken at once (`parse`); ``mutants.py --list`` prints the catalogue as JSON lines.  An
    unknown name exits 2 with the names there are."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["--list"]:
        for m in MUTANTS.values():
            print(json.dumps({"name": m.name, "rule": m.rule, "edition": m.edition, "how": m.how, "description": m.description}))
        return 0
    if len(args) != 1 or args[0].startswith("-"):
        print(f"usage: mutants.py NAME[+NAME...] (NAME one of {', '.join(MUTANTS)}) or --list", file=sys.stderr)
        return 2
    try:
        mutant = parse(args[0])
    except UnknownMutant as exc:
        print(f"mutants.py: {exc}", file=sys.stderr)
        return 2
    return serve(mutant)


if __name__ == "__main__":
    sys.exit(main())
