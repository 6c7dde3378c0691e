"""One case under every reading of a dispute, side by side: each outcome as rows
(`outcome_rows`), and the table of them (`reading_table`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from flip7ref.checking.catalogue import Dispute, DisputeReading
from flip7ref.checking.conformance import Case
from flip7ref.checking.runs import Run
from flip7ref.core.game_tables import GameTables
from flip7ref.core.text import card_name, describe

if TYPE_CHECKING:  # rich is imported when a table is built (a fast start for the other commands)
    from rich.table import Table


def _seats(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{seat} {v}" for seat, v in values.items())


def _cards(game: GameTables, ids: Sequence[str], lang: str = "en") -> str:
    return " ".join(card_name(game, c, lang) for c in ids) or "—"


def _next(observed: Mapping[str, Any]) -> str:
    nxt = observed.get("next") or {}
    if nxt.get("player") == "terminal":
        return "game over"
    return f"seat {nxt.get('player')}: {', '.join(nxt.get('legal') or ())}"


def outcome_rows(run: Run, lang: str = "en") -> dict[str, str]:
    """The outcome of a run as labelled display values (one string per row).

    Args:
        run: a played case.
        lang: language of card names (`flip7ref.core.text.LANGS`).

    Returns:
        Row label -> value: for a scoring case ``score`` and ``Flip 7``; otherwise
        ``statuses``, ``lines``, ``kept``, ``round``, ``round scores``, ``totals``,
        ``next`` (who is asked next and their legal actions) and ``winners``; plus
        ``stopped`` when play stopped early.  Values are "—" when there is none.
    """
    rows: dict[str, str] = {}
    if run.stopped:
        rows["stopped"] = run.stopped
    obs = run.observed
    if not obs:
        return rows
    if "score" in obs:
        rows["score"] = str(obs["score"])
        rows["Flip 7"] = "yes" if obs.get("flip7") else "no"
        return rows
    if "orders" in obs:  # a perft case
        rows["deal orders"] = str(obs["orders"])
        rows["outcomes"] = "\n".join(f"{k}: {v}" for k, v in obs["outcomes"].items())
        rows["scores"] = "\n".join(f"{k}: {v}" for k, v in obs["scores"].items())
        return rows
    game = run.states[-1].game
    rows["statuses"] = _seats(obs["statuses"])
    rows["lines"] = "\n".join(f"{seat}: {_cards(game, ids, lang)}" for seat, ids in obs["lines"].items())
    kept = {seat: ids for seat, ids in obs["kept"].items() if ids}
    rows["kept"] = "\n".join(f"{seat}: {_cards(game, ids, lang)}" for seat, ids in kept.items()) or "—"
    rows["round"] = str(obs["round"])
    rows["round scores"] = " ".join(map(str, obs["round_scores"])) or "—"
    rows["totals"] = " ".join(map(str, obs["totals"]))
    rows["next"] = _next(obs)
    rows["winners"] = " ".join(f"seat {w}" for w in obs["winners"]) or "—"
    return rows


def _event_tails(runs: Sequence[Run], lang: str = "en") -> list[str]:
    """The events of each run after the longest prefix they all share, described."""
    lists = [run.states[-1].events() if run.states else [] for run in runs]
    common = 0
    while all(len(ev) > common for ev in lists) and all(ev[common] == lists[0][common] for ev in lists):
        common += 1
    out = []
    for run, events in zip(runs, lists, strict=True):
        if not run.states:
            out.append("—")
            continue
        game = run.states[-1].game
        tail = [describe(e, game, lang) for e in events[common:]]
        head = f"(after {common} shared events)\n" if common else ""
        out.append(head + ("\n".join(tail) if tail else "nothing more"))
    return out


def _check(run: Run) -> str:
    if run.diffs is None:
        return "not reached"
    return "holds" if not run.diffs else f"fails: {run.diffs[0]}"


def side_by_side(played: Sequence[tuple[DisputeReading, Run]], lang: str = "en") -> tuple[dict[str, list[str]], list[str]]:
    """The rows of the side-by-side table of one case under every reading.

    Args:
        played: the output of `play_readings` for that case.
        lang: language of card names.

    Returns:
        ``(values, differing)``: each row label with its display value under each reading
        (in reading order; ``events`` the events after those all runs share, ``case's
        expect`` whether the case's expectation holds), and the labels whose values differ
        between readings (never ``case's expect``).
    """
    runs = [run for _, run in played]
    rows = [outcome_rows(run, lang) for run in runs]
    labels = list(dict.fromkeys(label for r in rows for label in r))
    values: dict[str, list[str]] = {label: [r.get(label, "—") for r in rows] for label in labels}
    values["events"] = _event_tails(runs, lang)
    values["case's expect"] = [_check(run) for run in runs]
    differing = [label for label, vals in values.items() if len(set(vals)) > 1 and label != "case's expect"]
    return values, differing


def reading_table(
    dispute: Dispute, case: Case, played: Sequence[tuple[DisputeReading, Run]], lang: str = "en"
) -> tuple[Table, list[str]]:
    """The side-by-side table of one case under every reading.

    Args:
        dispute: the dispute.
        case: the case.
        played: the output of `play_readings` for that case.
        lang: language of card names.

    Returns:
        ``(table, differing)``: a rich table with a row per outcome field and a column
        per reading, and the labels of the rows whose values differ between readings.
    """
    values, differing = side_by_side(played, lang)
    pinned = (case.get("reading") or {}).get("value")
    if pinned is None and dispute.option is not None:
        pinned = (case.get("options") or {}).get(dispute.option)
    actions = ", ".join(case.get("actions") or ()) or "none"
    from rich.table import Table
    from rich.text import Text

    title = Text(f"{case['id']}: {case['title']}", style="bold")
    caption = f"actions: {actions}; rules {', '.join(case['rules'])}"
    if pinned is not None:
        caption += f"; the case is written for {dispute.option}={pinned}"
    table = Table(title=title, caption=Text(caption), show_lines=True, title_justify="left", caption_justify="left")
    table.add_column("")
    for reading, _ in played:
        marks = [m for m, on in (("default", reading.default), ("the case's", str(reading.value) == str(pinned))) if on]
        head = f"{dispute.option}={reading.value}" + (f"\n({', '.join(marks)})" if marks else "")
        table.add_column(Text(head), overflow="fold")
    for label, vals in values.items():
        differs = label in differing
        table.add_row(Text(f"≠ {label}" if differs else label, style="bold" if differs else ""), *(Text(v) for v in vals))
    return table, differing
