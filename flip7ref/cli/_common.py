"""Helpers shared by the command groups: options, games, seeds, strategies, common flags."""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

from flip7ref.core.errors import OptionError, WriteError
from flip7ref.core.game import Game
from flip7ref.core.spec import edition_ids
from flip7ref.core.textfiles import GuardedWrites
from flip7ref.proc.install import extra_hint
from flip7ref.proc.pools import Terminated as Terminated
from flip7ref.proc.pools import process_limit
from flip7ref.proc.pools import sigterm_raises as sigterm_raises

if TYPE_CHECKING:  # the strategies are imported by the commands that play (a fast start for rules, docs...)
    from rich.console import Console

    from flip7ref.play.strategies import Strategy


def parse_options(pairs: Sequence[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs or ():
        name, sep, value = pair.partition("=")
        if not sep or not name or not value:
            raise OptionError(f"--option {pair!r}: expected NAME=VALUE, e.g. --option tie=shared-win")
        out[name.strip()] = value.strip()
    return out


def make_game(args: argparse.Namespace, players: int | None = None) -> Game:
    return Game(args.edition, players if players is not None else args.players, parse_options(args.option))


def stdout_console(**kwargs: Any) -> Console:
    """A ``rich.console.Console`` on stdout (``kwargs`` as for it) whose stdout closed by its reader
    ends the command as every command does (`flip7ref.cli.main`: quietly, `EXIT_BROKEN_PIPE` 141):
    rich's own handling exits with status 1, which ``conformance run`` uses for "a case failed".

    Returns:
        The console.
    """
    from rich.console import Console

    class _PipeConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError(errno.EPIPE, "stdout closed by its reader")

    return _PipeConsole(**kwargs)


def check_workers(value: int) -> int:
    """``--workers``: a whole number of processes from 1 to `flip7ref.proc.pools.process_limit`.

    Raises:
        OptionError: below 1, or more processes than that (``--workers 100000`` once started them all).
    """
    limit = process_limit()
    if not 1 <= value <= limit:
        raise OptionError(f"--workers: expected a whole number of processes from 1 to {limit} (4 per CPU), got {value}")
    return value


def check_output(flag: str, path: str) -> None:
    """Refuse an output file that cannot be written, before any work is done.

    Raises:
        OptionError: ``path`` is a folder, or its folder is missing or not writable.
    """
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise OptionError(f"{flag} {path}: expected a file name, but this is a folder")
    if not folder.is_dir():
        raise OptionError(f"{flag} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise OptionError(f"{flag} {path}: cannot write there (permission denied)")


class Report(GuardedWrites):
    """A JSON-lines file written as a run goes (``--report``, ``--log``): each line is in the file
    at once (a run stopped by Ctrl-C, SIGTERM or a crash keeps the lines so far, and the file
    can be followed while it grows), so it is the one kind of output not written atomically;
    a write that fails (a full disk) raises a `WriteError` naming the file instead of a traceback.
    """

    def __init__(self, path: str, stream: IO[str]) -> None:
        self.path = path
        self._stream = stream

    def _failed(self, exc: OSError) -> WriteError:
        with contextlib.suppress(OSError):
            self._stream.close()
        return WriteError(self.path, str(exc.strerror or exc), kept="the lines written before it are kept")

    def close(self) -> None:
        """Flush and close the file.  Raises WriteError."""
        if self._stream.closed:
            return
        try:
            self._stream.close()
        except OSError as exc:
            raise self._failed(exc) from None


def open_report(flag: str, path: str) -> Report:
    """Open the JSON-lines file of ``flag`` (``--report``, ``--log``) for writing; the caller closes it.

    See `Report` for why this file is not written atomically (a pipe or a device such as
    ``/dev/stdout`` may be given: it is written as a stream).
    The file is line-buffered: each line `write_json_line` writes reaches the file whole, in one
    ``write`` call, so a run killed at any moment (``kill -9`` included) leaves whole lines only.

    Raises:
        OptionError: the file cannot be opened (the reason, e.g. permission denied).
    """
    try:
        return Report(path, open(path, "w", encoding="utf-8", buffering=1))
    except OSError as exc:
        raise OptionError(f"{flag} {path}: {exc.strerror or exc}") from None


class _Lines(Protocol):
    def write(self, text: str, /) -> object: ...
    def flush(self) -> None: ...


def write_json_line(stream: _Lines, record: Mapping[str, object], *, flush: bool = False) -> None:
    """Write ``record`` as one line of JSON (keys sorted), flushed at once if ``flush``
    (a report that must hold every result so far when the run is stopped)."""
    stream.write(json.dumps(record, sort_keys=True) + "\n")
    if flush:
        stream.flush()


def user_output_to_stderr() -> contextlib.AbstractContextManager[Any]:
    """While user strategies are imported and play: what they print goes to stderr, so
    it never mixes with the command's results on stdout (``--json`` stays one object)."""
    return contextlib.redirect_stdout(sys.stderr)


def parse_seed(text: str) -> int | str:
    """Seeds are whole numbers or words; ``01`` and ``1`` are the same seed."""
    text = text.strip()
    if text.isascii() and text.isdigit():
        if len(text) > 4000:  # past Python's limit on converting digits to a number
            raise OptionError(f"--seed: expected a whole number of at most 4,000 digits or a word, got {len(text):,} digits")
        return int(text)
    return text


def pick_strategies(args: argparse.Namespace, players: int) -> list[Strategy]:
    from flip7ref.play.strategies import parse_strategy

    names = args.strategy or ["threshold:20"]
    if len(names) not in (1, players):
        raise OptionError(
            f"--strategy: give one strategy for all seats, or exactly {players} (one per seat, seat 0 first); got {len(names)}"
        )
    return [parse_strategy(s) for s in names]


def add_common(p: argparse.ArgumentParser, players: int | None = 4, edition_help: str | None = None) -> None:
    """Add ``--edition``, ``--players`` (unless ``players`` is None; its default) and ``--option``;
    ``edition_help`` replaces ``--edition``'s help (a command that plays only some editions)."""
    p.add_argument(
        "--edition",
        default="flip7",
        help=edition_help
        or "edition id (known: " + ", ".join(edition_ids()) + "; default %(default)s) or the path of a .yaml table",
    )
    if players is not None:
        p.add_argument("--players", type=int, default=players, help="number of players (default %(default)s)")
    p.add_argument(
        "--option",
        "-o",
        action="append",
        metavar="NAME=VALUE",
        help="choose an option reading (repeatable); 'flip7ref options' lists them",
    )


def add_json(p: argparse.ArgumentParser, what: str) -> None:
    """Add ``--json``: print ``what`` (e.g. ``"the summary as one JSON object"``) instead of text (docs/cli.md)."""
    p.add_argument("--json", action="store_true", help=f"print {what}")


def add_lang(p: argparse.ArgumentParser, default: str | None = "en") -> None:
    """Add ``--lang``, the language of card names, one of `flip7ref.core.text.LANGS` (docs/cli.md).

    Args:
        p: the command's parser.
        default: the language when the flag is absent; None for a command that shows card
            names only when asked (``rules``), which then reads None as English.
    """
    from flip7ref.core.text import LANGS

    p.add_argument("--lang", default=default, choices=LANGS, help=f"language of card names and texts (default {default or 'en'})")


def add_strategy(p: argparse.ArgumentParser, workers: bool = True) -> None:
    """Add ``--strategy``; ``workers`` says whether the command also takes ``--workers``."""
    where = "in the --workers processes, " if workers else ""
    p.add_argument(
        "--strategy",
        action="append",
        help="random, threshold:N (stay once the line is worth N points), always-hit, optimal-solo (Flip 7 only: the "
        f"exact optimal policy of a player alone; solved at start {where}about a minute for Flip 7 in one process), "
        "or module:Class / file.py:Class (your own class fitting flip7ref.play.strategies.Strategy, built with "
        "no arguments); give it once for all seats or once per seat, seat 0 first (default threshold:20)",
    )
    add_in_process(p)


def add_in_process(p: argparse.ArgumentParser) -> None:
    """Add ``--in-process`` to a command that takes ``--strategy`` (`flip7ref.proc.supervise`)."""
    p.add_argument(
        "--in-process",
        action="store_true",
        help="run a module:Class / file.py:Class strategy in this very process (for a debugger or a profiler); "
        "by default such a command runs in a child process, so that a plug-in calling os._exit() is reported",
    )


def plugin_specs(args: argparse.Namespace) -> list[str]:
    """The ``--strategy`` (and deprecated ``--strategies``) values of ``args`` that name plug-ins,
    then ``bench-agents``' ``--agent`` and ``--opponent`` ones, in order
    (`flip7ref.play.strategies.is_plugin_spec`); empty for a command without strategies."""
    from flip7ref.play.strategies import is_plugin_spec

    given = list(getattr(args, "strategy", None) or [])
    given += list(getattr(args, "agent", None) or []) + list(getattr(args, "opponent", None) or [])
    given += [s for s in (getattr(args, "strategies", None) or "").split(",") if s]
    return [s.strip() for s in given if is_plugin_spec(s)]


def add_decision_timeout(p: argparse.ArgumentParser, workers: bool = True) -> None:
    """Add ``--decision-timeout SECONDS`` (`flip7ref.proc.timelimit`, docs/cli.md); ``workers``:
    the command also plays in processes or on a cluster (the help says the limit holds there)."""
    where = "; also in --workers processes and on --cluster workers" if workers else ""
    p.add_argument(
        "--decision-timeout",
        metavar="SECONDS",
        help="stop with an error naming the strategy and the seat when one decision of a strategy takes longer "
        f"than SECONDS (a number > 0{where}; default: no limit)",
    )


def decision_timeout(args: argparse.Namespace) -> float | None:
    """The ``--decision-timeout`` of a command in seconds, None without it.

    Raises:
        OptionError: not a number of seconds greater than 0.
    """
    from flip7ref.proc.timelimit import check_timeout

    return check_timeout(getattr(args, "decision_timeout", None))


def time_limited(strategies: Sequence[Strategy], seconds: float | None) -> list[Strategy]:
    """``strategies`` under the decision time limit ``seconds`` (unchanged when None)."""
    from flip7ref.proc.timelimit import with_time_limit

    return with_time_limit(strategies, seconds)


def add_cluster(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="run on a Dask cluster instead of --workers processes: local:N starts N worker processes here, "
        "anything else is a scheduler's address (tcp://host:8786); the result is the same as in one process. Needs "
        f"the [cluster] extra: {extra_hint('cluster')}",
    )


def cluster_client(args: argparse.Namespace) -> contextlib.AbstractContextManager[Any]:
    """A Dask client for ``--cluster`` (None without it), closed on leaving."""
    if not getattr(args, "cluster", None):
        return contextlib.nullcontext()
    from flip7ref.proc.cluster import connect

    return connect(args.cluster)


@contextlib.contextmanager
def progress_bar(show: bool, label: str, total: int | None) -> Iterator[Callable[..., None]]:
    """A rich progress bar on stderr while the block runs, if ``show``; yields
    ``update(done, total=None, label=None)`` (a no-op when not shown)."""
    if not show:
        yield lambda *a, **k: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)

        def update(done: int, total: int | None = None, label: str | None = None) -> None:
            if total is not None:
                bar.update(task, total=total)
            if label is not None:
                bar.update(task, description=label)
            bar.update(task, completed=done)

        yield update


def add_no_progress(p: argparse.ArgumentParser, what: str = "a progress bar") -> None:
    """Add ``--no-progress`` to ``p``: ``what`` (shown on stderr, on a terminal only) is never shown."""
    p.add_argument("--no-progress", action="store_true", help=f"never show {what} (it shows only on a terminal)")


def showing_progress(args: argparse.Namespace) -> bool:
    """Whether to show progress on stderr: stderr is a terminal and ``--no-progress`` was not given."""
    return sys.stderr.isatty() and not getattr(args, "no_progress", False)
