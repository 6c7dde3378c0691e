"""The fuzzing run (`fuzz`) and the case file it writes (`final_case`, `write_case`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import yaml

from ..checking import only_events
from ..conformance import Case, compare_detailed, load_case_file
from ..errors import OptionError
from ..harness import Engine, EngineError, run_in_process
from ..spec import edition_ids
from .lockstep import FULL_EVERY, OUTCOME_KEYS, Check, EngineFault, Found, Lockstep, as_written
from .portfolio import Portfolio
from .shrink import shrink

EVENT_KEYS = ("events", "events_include")
"""The ``expect`` keys holding events (written as the suite writes them, `as_written`)."""


def differing_keys(check: Check, types: Sequence[str] | None) -> list[str]:
    """The ``expect`` keys the engine's outcome got wrong (all of them when it gave none)."""
    assert check.prepared is not None
    expect = check.prepared.expect
    if check.observed is None:
        return list(expect)
    observed = dict(check.observed)
    if types is not None:
        expect = only_events(expect, types)
        observed["events"] = [e for e in observed.get("events") or [] if e.get("type") in set(types)]
    wrong = {d.key for d in compare_detailed(expect, observed)}
    return [k for k in expect if k in wrong] or list(expect)


def final_case(found: Found, ident: str, title: str, source: str, types: Sequence[str] | None) -> dict[str, Any]:
    """The case to write for a difference: the game up to its first difference (with the forced
    choices an auto-resolving engine takes itself), expecting the reference's outcome on the keys
    the engine got wrong (events as the suite writes them, `as_written`), citing the blamed rules."""
    check = found.check
    assert check.prepared is not None
    prepared = check.prepared
    keys = differing_keys(check, types)
    case = dict(found.case)
    case.update(id=ident, title=title, source=source)
    case["rules"] = list(check.result.blame or case["rules"])
    case["actions"] = list(prepared.actions)
    case["expect"] = {k: as_written(prepared.expect[k]) if k in EVENT_KEYS else prepared.expect[k] for k in keys}
    return case


def write_case(case: Case, folder: Path, name: str, topic: str) -> Path:
    """Write one case as a case file (``format: 1``) in ``folder``; returns its path.

    Raises:
        OSError: the file cannot be written.
    """
    path = folder / name
    data = {"format": 1, "edition": case["edition"], "topic": topic, "cases": [dict(case)]}
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120), encoding="utf-8")
    return path


@attrs.frozen
class Report:
    """What a fuzzing run did.

    Attributes:
        engine: the engine's name and version (from its handshake).
        seed: the seed.
        games: games played.
        steps: run requests sent.
        skipped: steps the engine skipped (each ends its game).
        seconds: the run's wall time.
        found: the difference found (after shrinking), or None.
        found_after: seconds from the start to the first difference (before shrinking).
        game: the index of the game that differed first among its generator's games.
        source: that game's generator (`flip7ref.fuzz.portfolio.SOURCES`).
        per_source: per generator, the games it drew (those the engine could play or not).
        shrink_tried: candidate games tried while shrinking.
        shrink_seconds: seconds spent shrinking.
        original_size: the difference's size (`Found.size`) before shrinking.
        path: the case file written.
        case: the case written.
        verified: the written case run again: ``(engine status, reference status)``.
        not_compared: outcome keys the engine does not report (not compared).
        faults: the engine's faults (it hung, exited, printed a malformed or oversized line):
            each ended its game, blames no rule and writes no case; the run stops after
            `MAX_FAULTS`.
    """

    engine: str
    seed: int | str
    games: int
    steps: int
    skipped: int
    seconds: float
    found: Found | None = None
    found_after: float | None = None
    game: int | None = None
    source: str | None = None
    per_source: Mapping[str, int] = attrs.field(factory=dict)
    shrink_tried: int = 0
    shrink_seconds: float = 0.0
    original_size: tuple[int, ...] = ()
    path: Path | None = None
    case: Case | None = None
    verified: tuple[str, str] | None = None
    not_compared: tuple[str, ...] = ()
    faults: tuple[EngineFault, ...] = ()


MAX_FAULTS = 3
"""Engine faults after which a fuzzing run stops (each may cost a whole timeout)."""


def known_editions(impl: Mapping[str, Any], wanted: Sequence[str] | None) -> list[str]:
    """The editions to fuzz: those the engine declares and the reference has (only ``wanted``
    ones when given).

    Raises:
        OptionError: none is left (naming what the engine declares).
    """
    declared = sorted(impl.get("editions") or {})
    ours = [e for e in declared if e in edition_ids() and (not wanted or e in wanted)]
    if not ours:
        asked = f" among --edition {', '.join(wanted)}" if wanted else ""
        declares = ", ".join(declared) or "none"
        raise OptionError(f"the engine declares no edition the reference has{asked} (it declares: {declares})")
    return ours


def fuzz(
    command: str,
    *,
    seed: int | str = 0,
    games: int | None = None,
    seconds: float = 60.0,
    shrink_seconds: float = 30.0,
    out: str | Path = "fuzz-cases",
    timeout: float = 10.0,
    editions: Sequence[str] | None = None,
    on_game: Callable[[int], None] | None = None,
) -> Report:
    """Fuzz an engine: random games in lockstep until a difference, `MAX_FAULTS` engine faults,
    ``games`` games or ``seconds`` seconds; a difference is shrunk (for at most ``shrink_seconds``
    more) and written to ``out``.  An engine fault (a hang past ``timeout``, an exit, a line that is
    not JSON, too long, too deep or holds a number that is not finite) is not a difference: it
    ends its game, is listed in `Report.faults` and writes no case.

    The games come from a portfolio of generators, each given a fair share of the work
    (`flip7ref.fuzz.portfolio`); game ``k`` of generator ``G`` with seed ``s`` is the same game in
    every run (``random.Random(f"{s}:{G}:{k}")``) and the schedule does not depend on the
    machine's speed, so a difference found is found again with the same seed.  The engine is stopped at the end
    whatever happens (also on KeyboardInterrupt and SystemExit).

    Returns:
        The `Report`.

    Raises:
        EngineError: the engine cannot be started, refuses the handshake or declares an option
            or reading its edition does not have.
        OptionError: it declares no edition the reference has (among ``editions``).
    """
    from ..checking import check_declaration
    from ..harness import _v1

    began = time.monotonic()
    engine = Engine(command, timeout)
    try:
        impl = engine.start()
        problem = check_declaration(impl)
        if problem is not None:
            raise EngineError(f"the start response declares {problem}")
        if engine.version < 2:
            impl = _v1(impl)
        eds = known_editions(impl, editions)
        lockstep = Lockstep(engine, impl)
        name = f"{impl.get('name')} {impl.get('version')}"
        stop = began + seconds
        played_games = 0
        found: Found | None = None
        portfolio = Portfolio(impl, seed)
        source, index = portfolio.sources[0], -1
        while time.monotonic() < stop and (games is None or played_games < games):
            source, index, rng = portfolio.next()
            before = lockstep.requests
            made = source.make(rng, impl, eds)
            if made is None:
                portfolio.charge(source, 0)
                continue
            played_games += 1
            if on_game is not None:
                on_game(played_games)
            every = (index + portfolio.sources.index(source)) % FULL_EVERY == 0  # staggered: not all at once
            found = lockstep.first_difference(*made, stop, every=every)
            portfolio.charge(source, lockstep.requests - before)
            if found is not None or len(lockstep.faults) >= MAX_FAULTS:
                break
        per_source = {s.name: n for s, n in zip(portfolio.sources, portfolio.games, strict=True)}
        missing = tuple(k for k in OUTCOME_KEYS if lockstep.keys is not None and k not in lockstep.keys)
        elapsed = time.monotonic() - began
        base = Report(
            name, seed, played_games, lockstep.requests, lockstep.skipped, elapsed, not_compared=missing,
            per_source=per_source, faults=tuple(lockstep.faults),
        )  # fmt: skip
        if found is None:
            return base
        found_after = time.monotonic() - began
        original = found.size()
        shrink_began = time.monotonic()
        found, tried = shrink(lockstep, found, shrink_began + shrink_seconds)
        shrunk_in = time.monotonic() - shrink_began
        prefix = "F7" if found.trial.edition == "flip7" else "V"
        ident = f"{prefix}-C{9000 + index % 1000:04d}"
        what = "the engine errored where the reference plays on"
        if found.check.observed is not None:
            what = f"the engine differed from the reference on {found.check.result.message.split(':', 1)[0]}"
        game = f"{source.name} game {index}"
        title = f"fuzz: seed {seed}, {game}: {found.trial.players} players, {found.step} actions; {what}"
        cited = f"flip7ref conformance fuzz --seed {seed} ({game}); the expected outcome is the reference's"
        case = final_case(found, ident, title, cited, impl.get("events"))
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        path = write_case(case, folder, f"fuzz-{seed}-{source.name}-{index}.yaml", "found by flip7ref conformance fuzz")
        written = load_case_file(path)[0]
        on_engine = lockstep.check(written).result.status
        on_reference = run_in_process([written])[0].status
        return attrs.evolve(
            base, found=found, found_after=found_after, game=index, source=source.name, shrink_tried=tried,
            shrink_seconds=shrunk_in,
            original_size=original, path=path, case=case, verified=(on_engine, on_reference),
            steps=lockstep.requests, seconds=time.monotonic() - began, faults=tuple(lockstep.faults),
        )  # fmt: skip
    finally:
        engine.close()
