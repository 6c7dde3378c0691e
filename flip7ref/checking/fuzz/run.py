"""The fuzzing run (`fuzz`) and the case file it writes (`final_case`, `write_case`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import yaml

from flip7ref.checking.conformance import Case, compare_detailed, load_case_file
from flip7ref.checking.engine_process import EngineError, faults_stop
from flip7ref.checking.fuzz.lockstep import FULL_EVERY, Check, EngineFault, Found, Lockstep
from flip7ref.checking.fuzz.portfolio import Portfolio
from flip7ref.checking.fuzz.shrink import shrink
from flip7ref.checking.harness import Engine, run_in_process
from flip7ref.checking.lockstep import OUTCOME_KEYS, as_written
from flip7ref.checking.verdict import only_events
from flip7ref.core.errors import OptionError
from flip7ref.core.spec import edition_ids, load_edition
from flip7ref.core.textfiles import write_file_atomic

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
        WriteError: the file cannot be written (naming it; written atomically, so never half).
    """
    path = folder / name
    data = {"format": 1, "edition": case["edition"], "topic": topic, "cases": [dict(case)]}
    write_file_atomic(path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120))
    return path


def finding_key(check: Check, types: Sequence[str] | None) -> tuple[Any, ...]:
    """What groups differences into one finding: the first blamed rule and the difference's
    shape (the verdict and the first key the engine got wrong).  Several bugs of one engine
    are told apart by it; the same bug met in another game, where more rules happen to be
    blamed after the first or more keys differ downstream, is the same finding."""
    wrong = differing_keys(check, types)
    return (tuple(check.result.blame or ())[:1], check.result.status, tuple(wrong[:1]))


@attrs.frozen
class Finding:
    """One distinct difference of a run (`finding_key`), shrunk and written.

    Attributes:
        found: the difference after shrinking.
        key: its `finding_key` once shrunk (later differences with it, or with its key as first
            met, are repeats).
        source: the generator of the game where it showed first; ``game`` its index there.
        found_after: seconds from the run's start to it (before shrinking).
        shrink_tried: candidate games tried while shrinking; ``shrink_seconds`` the time it took.
        original_size: its size (`Found.size`) before shrinking.
        path: the case file written; ``case`` the case.
        verified: the written case run again: ``(engine status, reference status)``.
        repeats: how many games showed it (1: only the first).
    """

    found: Found
    key: tuple[Any, ...]
    source: str
    game: int
    found_after: float
    shrink_tried: int
    shrink_seconds: float
    original_size: tuple[int, ...]
    path: Path
    case: Case
    verified: tuple[str, str]
    repeats: int = 1


def _finding(
    lockstep: Lockstep, found: Found, source: str, index: int, ident: str, seed: int | str, out: str | Path,
    found_after: float, shrink_seconds: float, avoid: Collection[tuple[Any, ...]] = (),
) -> Finding:  # fmt: skip
    """Shrink a difference (for at most ``shrink_seconds``; never onto another finding of
    ``avoid``, the keys already made), write its case to ``out`` and run it again."""
    types = lockstep.impl.get("events")
    key = finding_key(found.check, types)
    original = found.size()
    shrink_began = time.monotonic()

    def known(smaller: Found) -> bool:  # a smaller game showing another finding already made is not this one
        other = finding_key(smaller.check, types)
        return other != key and other in avoid

    found, tried = shrink(lockstep, found, shrink_began + shrink_seconds, avoid=known)
    shrunk_in = time.monotonic() - shrink_began
    what = "the engine errored where the reference plays on"
    if found.check.observed is not None:
        what = f"the engine differed from the reference on {found.check.result.message.split(':', 1)[0]}"
    game = f"{source} game {index}"
    title = f"fuzz: seed {seed}, {game}: {found.trial.players} players, {found.step} actions; {what}"
    cited = f"flip7ref conformance fuzz --seed {seed} ({game}); the expected outcome is the reference's"
    case = final_case(found, ident, title, cited, lockstep.impl.get("events"))
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = write_case(case, folder, f"fuzz-{seed}-{source}-{index}.yaml", "found by flip7ref conformance fuzz")
    written = load_case_file(path)[0]
    on_engine = lockstep.check(written).result.status
    on_reference = run_in_process([written])[0].status
    return Finding(found, key, source, index, found_after, tried, shrunk_in, original, path, case, (on_engine, on_reference))


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
        found: the first difference found (after shrinking), or None; the fields down to
            ``verified`` are those of the first finding (``findings[0]``).
        found_after: seconds from the start to the first difference (before shrinking).
        game: the index of the game that differed first among its generator's games.
        source: that game's generator (`flip7ref.checking.fuzz.portfolio.SOURCES`).
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
            `flip7ref.checking.engine_process.MAX_FAULTS`.
        findings: every distinct difference found (`finding_key`), in the order found.
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
    findings: tuple[Finding, ...] = ()


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
    keep_going: bool = True,
) -> Report:
    """Fuzz an engine: random games in lockstep until ``games`` games or ``seconds`` seconds (or
    `flip7ref.checking.engine_process.MAX_FAULTS` engine faults; with ``keep_going`` false, the first difference).  Each distinct
    difference (`finding_key`: first blamed rule, verdict, first key wrong) is a finding: shrunk (for
    at most ``shrink_seconds`` more, never onto another finding already made), written to ``out``
    and run again; a later game showing it again only counts a repeat.  An engine fault (a hang
    past ``timeout``, an exit, a line that is not JSON, too long, too deep or holds a number that
    is not finite) is not a difference: it
    ends its game, is listed in `Report.faults` and writes no case.

    The games come from a portfolio of generators, each given a fair share of the work
    (`flip7ref.checking.fuzz.portfolio`); game ``k`` of generator ``G`` with seed ``s`` is the same game in
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
    from flip7ref.checking.harness import _v1
    from flip7ref.checking.verdict import check_declaration

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
        findings: list[Finding] = []
        owner: dict[tuple[Any, ...], int] = {}  # finding key (as met, and once shrunk) -> its finding's index
        repeats: list[int] = []  # per finding, the games that showed it
        portfolio = Portfolio(impl, seed)
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
            if found is not None:
                key = finding_key(found.check, impl.get("events"))
                if key in owner:
                    repeats[owner[key]] += 1
                else:
                    ident = f"{load_edition(found.trial.edition).rule_prefix}-C{9000 + len(findings):04d}"  # the edition's prefix
                    finding = _finding(
                        lockstep, found, source.name, index, ident, seed, out, time.monotonic() - began, shrink_seconds,
                        avoid=owner,
                    )  # fmt: skip
                    shrunk = finding_key(finding.found.check, impl.get("events"))
                    if shrunk in owner:  # shrunk onto a finding already made: a repeat of it
                        finding.path.unlink(missing_ok=True)
                        owner[key] = owner[shrunk]
                        repeats[owner[shrunk]] += 1
                    else:
                        owner[key] = owner[shrunk] = len(findings)
                        findings.append(attrs.evolve(finding, key=shrunk))
                        repeats.append(1)
                if not keep_going:
                    break
            if faults_stop(len(lockstep.faults)):  # every fault of the run counts (conformance run: in a row)
                break
        per_source = {s.name: n for s, n in zip(portfolio.sources, portfolio.games, strict=True)}
        missing = tuple(k for k in OUTCOME_KEYS if lockstep.keys is not None and k not in lockstep.keys)
        findings = [attrs.evolve(f, repeats=n) for f, n in zip(findings, repeats, strict=True)]
        report = Report(
            name, seed, played_games, lockstep.requests, lockstep.skipped, time.monotonic() - began, not_compared=missing,
            per_source=per_source, faults=tuple(lockstep.faults), findings=tuple(findings),
        )  # fmt: skip
        if not findings:
            return report
        f = findings[0]
        return attrs.evolve(
            report, found=f.found, found_after=f.found_after, game=f.game, source=f.source, shrink_tried=f.shrink_tried,
            shrink_seconds=f.shrink_seconds, original_size=f.original_size, path=f.path, case=f.case, verified=f.verified,
        )  # fmt: skip
    finally:
        engine.close()
