"""The conformance suite: loading cases, running them on the reference, comparing outcomes.

A case (``spec/schema/case.schema.json``) fixes the cards with a stacked pile,
lists decisions in their string forms and states what must follow.  Running a
case means: build the position, then for each decision first draw the top card
at every chance node, then apply the decision; after the last one, draw until
the next decision (or the end).  The *observed outcome* is a plain dict (events,
statuses, lines, kept cards, round, round scores, totals, who is asked next and
their legal actions, winners, the draw pile); `compare` checks it against
the case's ``expect`` and explains the first difference.

Foreign engines produce observed outcomes through the protocol of
``conformance/PROTOCOL.md`` (see `flip7ref.checking.harness`).
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from flip7ref.checking.cases import Case as Case  # re-exported: the importers of conformance name it
from flip7ref.checking.perft import expectations as perft_expectations
from flip7ref.core.edition import edition_ids
from flip7ref.core.errors import Flip7RefError, SpecError
from flip7ref.core.game import Game
from flip7ref.core.scoring import score_cards
from flip7ref.core.spec import load_edition, read_yaml_file, validate
from flip7ref.core.state import CHANCE, TERMINAL, State
from flip7ref.core.textfiles import MAX_YAML_BYTES, read_bytes_file

SUITE_VERSION = "1.6.0"
"""The version of the conformance suite (its cases, their expectations and the checking
rules); ``conformance/CHANGELOG.md`` says what changed.  Reports name it."""


def cases_dir() -> Path:
    """The folder of the shipped cases (``conformance/cases``, one sub-folder per edition).

    Raises:
        SpecError: when the folder cannot be found (a broken installation).
    """
    here = Path(__file__).resolve().parent.parent  # the package's folder
    for candidate in (here / "_conformance" / "cases", here.parent / "conformance" / "cases"):
        if candidate.is_dir():
            return candidate
    raise SpecError(str(here), "", "a conformance/cases folder beside the package")


_LOADED: dict[tuple[str, str], list[Case]] = {}
"""Case files already read and validated, by path and a hash of their bytes: reading and
validating the whole suite takes about a second; a deep copy of it, a few milliseconds."""


def load_case_file(path: str | Path) -> list[Case]:
    """Load and validate one case file (a file read before, with the same bytes, is not
    parsed and validated again: a fresh copy of its cases is returned).

    Raises:
        SpecError: the file is missing, not YAML, or violates ``case.schema.json``
            (naming the file, the path inside it and what was expected).
    """
    p = Path(path)
    # read_bytes_file refuses a named pipe, a folder or a device before reading (a pipe would hang)
    key = (str(p.resolve()), hashlib.sha256(read_bytes_file(p, "case file", limit=MAX_YAML_BYTES)).hexdigest())
    if key in _LOADED:
        return copy.deepcopy(_LOADED[key])
    cases = _read_case_file(p)
    _LOADED[key] = copy.deepcopy(cases)
    return cases


def _read_case_file(p: Path) -> list[Case]:
    data = read_yaml_file(p, "case file")
    validate(data, "case", str(p))
    assert isinstance(data, dict)
    cases = list(data["cases"])
    for i, case in enumerate(cases):
        if data.get("edition") and case["edition"] != data["edition"]:
            raise SpecError(str(p), f"/cases/{i}/edition", f"the file's edition {data['edition']!r}")
        check_case_ids(case, str(p), i)
    return cases


def check_case_ids(case: Mapping[str, Any], file: str, index: int) -> None:
    """Check that a case of a shipped edition has that edition's ids: its case id the
    table's rule prefix (``F7-C0100`` for ``flip7``), and each rule it cites a rule of the
    table's catalogue or of another shipped table's (a Vengeance case may cite ``F7-100``).
    A case of an edition that is not shipped is left to the run (which reports it).

    Args:
        case: one case, valid by ``case.schema.json``.
        file: the case file's name, for the message.
        index: the case's position in the file's ``cases``.

    Raises:
        SpecError: naming ``file``, ``/cases/INDEX/id`` or ``/cases/INDEX/rules/J`` and the id expected.
    """
    if case["edition"] not in edition_ids():
        return
    edition = load_edition(case["edition"])
    prefix = edition.rule_prefix
    if prefix and case["id"].partition("-")[0] != prefix:
        raise SpecError(
            file,
            f"/cases/{index}/id",
            f"a case id {prefix}-Cnnnn (the rule prefix of edition {edition.id!r}), found {case['id']}",
        )
    for j, rid in enumerate(case["rules"]):
        if rid not in edition.rules and not any(rid in load_edition(name).rules for name in edition_ids()):
            raise SpecError(
                file,
                f"/cases/{index}/rules/{j}",
                f"a rule id of edition {edition.id!r} (as {next(iter(edition.rules), prefix + '-001')}) "
                f"or of another shipped table, found {rid}",
            )


def load_cases(paths: Iterable[str | Path] | None = None) -> list[Case]:
    """Load every case of the given files or folders (default: the shipped suite).

    Returns:
        The cases in file order (files sorted by path).

    Raises:
        SpecError: a malformed file, or a case id used twice (both places named).
    """
    return [case for _, _, case in load_located_cases(paths)]


def load_located_cases(paths: Iterable[str | Path] | None = None) -> list[tuple[str, int, Case]]:
    """Like `load_cases`, with where each case is: ``(file, index in the file's cases, case)``.

    Raises:
        SpecError: a malformed file, or a case id used twice (both places named).
    """
    files: list[Path] = []
    for root in [cases_dir()] if paths is None else [Path(p) for p in paths]:
        files.extend(sorted(root.rglob("*.yaml")) if root.is_dir() else [root])
    seen: dict[str, str] = {}
    out: list[tuple[str, int, Case]] = []
    for f in files:
        for i, case in enumerate(load_case_file(f)):
            if case["id"] in seen:
                raise SpecError(str(f), f"id {case['id']}", f"a case id not used before (also in {seen[case['id']]})")
            seen[case["id"]] = str(f)
            out.append((str(f), i, case))
    return out


def _seat_map(data: Mapping[str, Any] | None) -> dict[int, Any]:
    return {int(k): v for k, v in (data or {}).items()}


def build_state(case: Case) -> State:
    """The reference's starting state for a (non-scoring) case.

    Raises:
        Flip7RefError: the case's edition, options or cards are not valid.
    """
    setup = case["setup"]
    game = Game(case["edition"], setup["players"], case.get("options") or {})
    return game.new_position(
        dealer=setup["dealer"],
        turn=setup.get("turn"),
        lines=_seat_map(setup.get("lines")),
        kept=_seat_map(setup.get("kept")),
        statuses=_seat_map(setup.get("statuses")),
        draw=setup["draw"],
        discard=setup.get("discard", ()),
        totals=setup.get("totals"),
        round_number=setup.get("round", 1),
        seed=0,
        rest=setup.get("rest", "out"),
        deal=setup.get("deal", False),
    )


def draw_to_decision(state: State, limit: int = 10_000) -> State:
    """Draw the top card at every chance node until a decision or the end."""
    for _ in range(limit):
        if state.current_player != CHANCE:
            return state
        card = state.next_card()
        assert card is not None
        state = state.apply_chance(card)
    raise Flip7RefError(f"no decision within {limit} draws")


def outcome(state: State) -> dict[str, Any]:
    """The observed outcome of a state, in the protocol's shape."""
    ids = state.game.card_ids
    player = state.current_player
    return {
        "events": [e.to_dict() for e in state.events()],
        "statuses": {str(i): p.status.value for i, p in enumerate(state.players)},
        "lines": {str(i): state.line(i) for i in range(state.num_players)},
        "kept": {str(i): state.kept(i) for i in range(state.num_players)},
        "round": state.round,
        "round_scores": list(state.last_scores),
        "totals": list(state.totals),
        "next": {"player": "terminal" if player == TERMINAL else player, "legal": state.legal_action_strings()},
        "winners": list(state.winners),
        "draw": [ids[c] for c in state.draw],
        "discard_count": len(state.discard),
    }


def observe(case: Case) -> dict[str, Any]:
    """Run a case on the reference interpreter and return the observed outcome.

    A case may carry ``actors`` (as the harness sends it): the seat taking each action;
    an action taken by another seat than the one to act is refused.

    Raises:
        Flip7RefError: the case cannot be set up, or one of its actions is illegal or
            is not the acting seat's (the message names the action, its position and the
            legal ones).
    """
    if case["kind"] == "scoring":
        b = score_cards(Game(case["edition"], 1, case.get("options") or {}), case["line"])
        return {"score": b.score, "flip7": b.flip7}
    if case["kind"] == "perft":
        return perft_expectations(case)
    state = draw_to_decision(build_state(case))
    actors = case.get("actors")
    for i, action in enumerate(case.get("actions") or ()):
        if isinstance(actors, list) and i < len(actors) and actors[i] != state.current_player:
            who = "a card is to be drawn" if state.current_player == CHANCE else f"it is seat {state.current_player}'s decision"
            raise Flip7RefError(f"action {i + 1} ({action!r}) is seat {actors[i]}'s by the case, but {who}")
        try:
            state = draw_to_decision(state.apply(action))
        except Flip7RefError as exc:
            raise Flip7RefError(f"action {i + 1} ({action!r}): {exc}") from None
    return outcome(state)


def _event_matches(expected: Mapping[str, Any], observed: object) -> bool:
    return isinstance(observed, Mapping) and all(observed.get(k) == v for k, v in expected.items())


@attrs.frozen
class Difference:
    """One difference between an expected and an observed outcome.

    Attributes:
        key: the ``expect`` key (``events``, ``events_include``, ``lines``, ``next``...).
        index: the event index (``events``), the seat (``statuses``, ``lines``, ``kept``,
            as a string), the sub-key (``next``), the event type (``events_exclude``), or None.
        text: the difference in words (``lines[2]: expected [...], observed [...]``).
        other: the event concerned: the expected one (``events_include``), the engine's
            extra one (``events`` beyond the reference's) or the engine's excluded one
            (``events_exclude``), else None.  For an ``events_include`` entry the engine
            emitted out of order, ``index`` is where it did.
    """

    key: str
    index: int | str | None
    text: str
    other: Any = None


def compare_detailed(expect: Mapping[str, Any], observed: Mapping[str, Any]) -> list[Difference]:
    """Compare an observed outcome with a case's ``expect``; one `Difference` per
    difference, in the order of ``expect``'s keys (the first first)."""
    diffs: list[Difference] = []
    for key, want in expect.items():
        have = observed.get(key)
        if key == "events":
            got = list(have or [])
            for i, ev in enumerate(want):
                if i >= len(got):
                    diffs.append(Difference(key, i, f"events[{i}]: expected {ev}, observed nothing (only {len(got)} events)"))
                    break
                if not _event_matches(ev, got[i]):
                    diffs.append(Difference(key, i, f"events[{i}]: expected {ev}, observed {got[i]}"))
                    break
            else:
                if len(got) > len(want):
                    extra = got[len(want)]
                    text = f"events[{len(want)}]: expected no more events, observed {extra}"
                    diffs.append(Difference(key, len(want), text, extra if isinstance(extra, Mapping) else None))
        elif key == "events_include":
            got = list(observed.get("events") or [])
            pos = 0
            for ev in want:
                while pos < len(got) and not _event_matches(ev, got[pos]):
                    pos += 1
                if pos >= len(got):
                    earlier = next((j for j, e in enumerate(got) if _event_matches(ev, e)), None)
                    if earlier is None:
                        diffs.append(Difference(key, None, f"events: expected {ev} (in this order), not observed", ev))
                    else:
                        after = want.index(ev)
                        where = f"after {want[after - 1]}" if after else "first"
                        text = f"events: expected {ev} {where}, observed it out of order (at events[{earlier}])"
                        diffs.append(Difference(key, earlier, text, ev))
                    break
                pos += 1
        elif key == "events_exclude":
            seen_events = [e for e in observed.get("events") or [] if isinstance(e, Mapping)]
            for t in want:
                hit = next((e for e in seen_events if e.get("type") == t), None)
                if hit is not None:
                    diffs.append(Difference(key, t, f"events: expected no {t!r} event, observed one: {dict(hit)}", hit))
        elif key in ("statuses", "lines", "kept"):
            for seat, value in want.items():
                seen = have.get(str(seat)) if isinstance(have, Mapping) else None
                if seen != value:
                    diffs.append(Difference(key, str(seat), f"{key}[{seat}]: expected {value}, observed {seen}"))
        elif key == "next":
            seen_next = have if isinstance(have, Mapping) else {}
            for sub, value in want.items():
                if seen_next.get(sub) != value:
                    diffs.append(Difference(key, sub, f"next.{sub}: expected {value}, observed {seen_next.get(sub)}"))
        elif have != want:
            diffs.append(Difference(key, None, f"{key}: expected {want}, observed {have}"))
    return diffs


def compare(expect: Mapping[str, Any], observed: Mapping[str, Any]) -> list[str]:
    """Compare an observed outcome with a case's ``expect``; one line per difference, the first first."""
    return [d.text for d in compare_detailed(expect, observed)]


@attrs.frozen
class CaseResult:
    """The result of one case on one engine.

    Attributes:
        case_id: the case's id.
        edition: its edition.
        rules: its rule ids.
        source: where its expected outcome comes from.
        status: ``pass``, ``fail``, ``skip`` or ``error``.
        message: the first difference (fail), the reason (skip) or the error.
        diffs: every difference found (fail), or what the reference expected (error).
        blame: the rule ids of the first difference (fail) or of the step an engine
            refused (error); empty for a pass or skip.  The table of a run counts
            failures under these, passes under ``rules``.  At most three
            (`flip7ref.checking.shortlist.MAX_BLAMED`).
        reasons: for each rule of ``blame``, why it is suspected.
        expected: for a fail or error: the options the engine was checked under, the
            seat taking each action and the legal actions there, and the expected outcome.
        other_reading: for a case that pins a dispute reading (its ``reading``) checked under
            another reading, the engine's: what was pinned and what was played (a pass then
            says nothing about the pinned reading and is counted apart); else empty.
        fault: for an ``error``, whether it is an engine fault: the engine broke the protocol on
            the case (hung, exited, printed a line that is no valid answer, answered another
            ``seq``), so no rule is blamed and a run's table counts it apart.
    """

    case_id: str
    edition: str
    rules: tuple[str, ...]
    source: str
    status: str
    message: str = ""
    diffs: tuple[str, ...] = ()
    blame: tuple[str, ...] = ()
    reasons: tuple[str, ...] = attrs.field(default=(), eq=False)
    expected: Mapping[str, Any] | None = attrs.field(default=None, eq=False)
    other_reading: str = ""
    fault: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON-able dict (one line of a JSON-lines report)."""
        extra: dict[str, Any] = {"blame": list(self.blame)} if self.blame else {}
        if self.reasons:
            extra["reasons"] = list(self.reasons)
        if self.expected is not None:
            extra["expected"] = dict(self.expected)
        if self.other_reading:
            extra["other_reading"] = self.other_reading
        if self.fault:
            extra["engine_fault"] = True
        return {
            **extra,
            "case": self.case_id,
            "edition": self.edition,
            "rules": list(self.rules),
            "source": self.source,
            "status": self.status,
            "message": self.message,
            "diffs": list(self.diffs),
        }


def judge(case: Case, observed: Mapping[str, Any]) -> CaseResult:
    """Turn an observed outcome into a pass or a fail with its explanation."""
    diffs = compare(case["expect"], observed)
    common = {"case_id": case["id"], "edition": case["edition"], "rules": tuple(case["rules"]), "source": case["source"]}
    if diffs:
        return CaseResult(**common, status="fail", message=diffs[0], diffs=tuple(diffs))
    return CaseResult(**common, status="pass")


def errored(case: Case, status: str, message: str) -> CaseResult:
    """A result for a case that was skipped or errored."""
    return CaseResult(case["id"], case["edition"], tuple(case["rules"]), case["source"], status, message)


def select(
    cases: Sequence[Case],
    *,
    editions: Sequence[str] | None = None,
    ids: Sequence[str] | None = None,
    rules: Sequence[str] | None = None,
) -> list[Case]:
    """The cases matching every given filter (edition ids, case ids, rule ids)."""
    out = []
    for case in cases:
        if editions and case["edition"] not in editions:
            continue
        if ids and case["id"] not in ids:
            continue
        if rules and not set(rules) & set(case["rules"]):
            continue
        out.append(case)
    return out


def run_reference(case: Case) -> CaseResult:
    """Run one case in-process on the reference interpreter and judge it."""
    try:
        observed = observe(case)
    except Flip7RefError as exc:
        return errored(case, "error", str(exc))
    return judge(case, observed)
