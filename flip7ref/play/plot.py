"""Pictures of tournament results (``--plot FILE.png``; matplotlib, in the
``[plot]`` extra: ``pip install '.[plot]'`` in a checkout; docs/install.md)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from flip7ref.core.errors import OptionError
from flip7ref.core.textfiles import write_file_atomic
from flip7ref.play.tournament import ReadingResult, TournamentResult
from flip7ref.proc.install import extra_hint

INSTALL = extra_hint("plot")


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise OptionError(f"--plot needs matplotlib, which is not installed: {INSTALL}") from None
    matplotlib.use("Agg")  # files only, no window
    import matplotlib.pyplot as plt

    return plt


def plot_tournament(path: str | Path, baseline: TournamentResult, readings: Sequence[ReadingResult] = ()) -> Path:
    """Draw ``baseline``'s final-score distributions (a step histogram per
    strategy) and the win rates with their 95 % intervals — for the baseline and,
    when ``readings`` are given, for every reading — into ``path`` (PNG, or any
    format matplotlib knows by the suffix).

    Returns:
        The path written.

    Raises:
        OptionError: matplotlib is not installed, or the suffix is not an image
            format matplotlib writes.
        WriteError: the file cannot be written (naming it; written atomically: it keeps
            its previous content).
    """
    plt = _pyplot()
    path = Path(path)
    played = [r for r in readings if r.result is not None]
    rows = [("baseline", baseline), *((f"{r.option}={r.reading}", r.result) for r in played if r.result is not None)]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, max(4.5, 0.32 * len(rows) + 2)),
                                      gridspec_kw={"width_ratios": [1, 1.3]})  # fmt: skip
    for entry in baseline.entries:
        values = sorted(entry.scores.elements())
        if values:
            left.hist(values, bins=30, histtype="step", linewidth=1.5, label=entry.name)
    options = ", ".join(f"{k}={v}" for k, v in baseline.options.items()) or "defaults"
    left.set_title(f"final totals, {baseline.edition} ({options}), {baseline.games} games")
    left.set_xlabel("final total (points)")
    left.set_ylabel("seat-games")
    left.legend(fontsize="small")
    count = len(baseline.entries)
    height = 0.8 / max(1, count)
    for k, entry in enumerate(baseline.entries):
        ys, xs, lo, hi = [], [], [], []
        for y, (_, result) in enumerate(rows):
            e = result.entries[k]
            low, high = e.win_interval()
            ys.append(y + (k - (count - 1) / 2) * height)
            xs.append(e.win_rate)
            lo.append(e.win_rate - low)
            hi.append(high - e.win_rate)
        right.errorbar(xs, ys, xerr=[lo, hi], fmt="o", markersize=3, capsize=2, label=entry.name)
    right.set_yticks(range(len(rows)), [label for label, _ in rows], fontsize="small")
    right.invert_yaxis()
    right.axvline(1 / baseline.players, color="grey", linewidth=0.8, linestyle=":")
    right.set_xlabel("win rate per seat-game, 95% Wilson interval")
    right.set_title("win rates by reading" if played else "win rates")
    right.legend(fontsize="small", loc="best", framealpha=0.6)
    fig.tight_layout()
    image = io.BytesIO()  # drawn in memory, then written atomically: a full disk leaves no half image
    try:
        fig.savefig(image, dpi=110, format=Path(path).suffix[1:].lower() or None)
    except ValueError as exc:  # an unknown format
        raise OptionError(f"--plot {path}: {exc}") from None
    finally:
        plt.close(fig)
    write_file_atomic(path, image.getvalue())
    return path
