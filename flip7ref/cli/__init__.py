"""The ``flip7ref`` command line, one module per command group.

Groups: `.play` (``simulate``, ``trace``, ``score``, ``options``),
`.conformance` (``conformance run``/``serve``, ``replay``), `.analysis`
(``odds``, ``solve``), `.tournament` (``tournament``); ``docs``, ``rules``, ``coverage`` (`flip7ref.docs`);
``dispute``, ``explain`` (`flip7ref.explore`).  Every command follows the
convention of docs/cli.md: results on stdout (``--json`` for one JSON document),
errors on stderr in one line; exit status 0 success, 1 a check failed, 2 a user
mistake (unknown edition, option, card, strategy, a mistyped flag: the usage of
that command first, as argparse does), 3 a limit the user set was reached
(`flip7ref.core.errors.LimitReached`), 130 Ctrl-C, 143 SIGTERM.  Bare ``flip7ref``
prints the commands, one line each, on stderr and exits with 2: a missing command
is a usage mistake like any missing argument (argparse's convention), so a script
that forgets it fails.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from flip7ref import __version__, compiled
from flip7ref.core.errors import Flip7RefError, LimitReached
from flip7ref.proc.exits import EXIT_BROKEN_PIPE as EXIT_BROKEN_PIPE
from flip7ref.proc.exits import EXIT_FAILED as EXIT_FAILED  # the exit statuses (docs/cli.md), here for the commands
from flip7ref.proc.exits import EXIT_INTERRUPTED as EXIT_INTERRUPTED
from flip7ref.proc.exits import EXIT_LIMIT as EXIT_LIMIT
from flip7ref.proc.exits import EXIT_OK as EXIT_OK
from flip7ref.proc.exits import EXIT_TERMINATED as EXIT_TERMINATED
from flip7ref.proc.exits import EXIT_USAGE as EXIT_USAGE


def version_text() -> str:
    """What ``flip7ref --version`` prints: the package version, then the conformance suite's
    version (`flip7ref.checking.conformance.SUITE_VERSION`), the engine protocol
    version (`flip7ref.checking.harness.PROTOCOL_VERSION`) and the format versions of the
    conformance cases, transcripts and edition tables (the ``format`` constant of
    ``spec/schema/{case,transcript,edition}.schema.json``); the first line also says
    whether the core running is compiled with mypyc or pure Python
    (`flip7ref.compiled`, docs/build.md); the last lines name the folder it runs from and
    another installed copy that it hides, if any (`flip7ref.proc.install.running_text`)."""
    from flip7ref.checking.conformance import SUITE_VERSION
    from flip7ref.checking.harness import PROTOCOL_VERSION
    from flip7ref.core.spec import load_schema
    from flip7ref.proc.install import running_text

    fmt = {name: load_schema(name)["properties"]["format"]["const"] for name in ("case", "transcript", "edition")}
    return (
        f"flip7ref {__version__} ({'compiled with mypyc' if compiled else 'pure Python'})\n"
        f"conformance suite {SUITE_VERSION}; engine protocol {PROTOCOL_VERSION}; case format {fmt['case']}; "
        f"transcript format {fmt['transcript']}; edition table format {fmt['edition']}\n"
        f"{running_text()}"
    )


class _Version(argparse.Action):
    """``--version``: print `version_text` and exit 0 (computed only when asked)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(version_text())
        parser.exit()


def command_list(parser: argparse.ArgumentParser) -> str:
    """The commands of ``parser``, one line each (``  NAME  help``), for bare ``flip7ref``."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    # a help string is an argparse format string ("95%%" prints "95%"), shown here unformatted
    rows = [(a.dest, (a.help or "").replace("%%", "%")) for a in sub._choices_actions]
    width = max(len(name) for name, _ in rows)
    lines = [f"usage: {parser.prog} COMMAND [options]   ({parser.prog} COMMAND --help for one command)", "", "commands:"]
    lines += [f"  {name:<{width}}  {text}" for name, text in rows]
    return "\n".join(lines)


GROUPS = ("play", "conformance", "docs", "explore", "analysis", "tournament", "rl", "table")
"""The command groups, in the order ``flip7ref`` lists their commands (`COMMANDS` maps each command to one)."""

COMMANDS = {
    "simulate": "play", "trace": "play", "score": "play", "options": "play",
    "replay": "conformance", "conformance": "conformance",
    "docs": "docs", "rules": "docs", "coverage": "docs",
    "dispute": "explore", "explain": "explore",
    "odds": "analysis", "solve": "analysis",
    "tournament": "tournament", "bench-agents": "tournament",
    "train-agent": "rl",
    "table": "table",
}  # fmt: skip
"""Each command and the group that registers it, so that running one command imports only its group
(a test checks this against what the groups register)."""


_GROUP_MODULES = {
    "play": ".play", "conformance": ".conformance", "docs": "..docs.commands", "explore": "..explore.commands",
    "analysis": ".analysis", "tournament": ".tournament", "rl": ".rl", "table": ".table",
}  # fmt: skip
"""The module of each command group (relative to this package); each has ``register(sub)``."""


def _register(group: str, sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Import one command group's module and add its commands to ``sub``."""
    importlib.import_module(_GROUP_MODULES[group], __package__).register(sub)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``flip7ref`` command.

    Args:
        command: a command name (a key of `COMMANDS`) to build the parser for that command's
            group only, which imports only that group's modules (a fast start for one command);
            ``"--version"`` for the top level alone; None, or a name that is not a command,
            for the parser of every command.
    """
    parser = argparse.ArgumentParser(
        prog="flip7ref",
        description="Rules reference and interpreter for Flip 7 and Flip 7: With a Vengeance.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the versions of flip7ref, its protocol and formats")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # `flip7ref --version` prints and exits while the top level is parsed: no command group is needed
    for group in (COMMANDS[command],) if command in COMMANDS else () if command == "--version" else GROUPS:
        _register(group, sub)
    return parser


def chosen_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub)command ``args`` chose, e.g. that of ``conformance run``;
    ``parser`` itself when no command was given."""
    while True:
        sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        name = getattr(args, sub.dest, None) if sub is not None else None
        if sub is None or name not in sub.choices:
            return parser
        parser = sub.choices[name]


def main(argv: Sequence[str] | None = None, *, supervise: bool | None = None) -> int:
    """Run the command line; returns the exit status (`EXIT_OK` 0, `EXIT_FAILED` 1 a check
    failed, `EXIT_USAGE` 2 a user mistake, `EXIT_LIMIT` 3 a limit reached, 130 interrupted
    with Ctrl-C, `EXIT_BROKEN_PIPE` 141 stdout closed by its reader; argparse's own errors
    exit 2 through SystemExit).

    Args:
        argv: the words after ``flip7ref``; None reads ``sys.argv``.
        supervise: run a command that loads a strategy plug-in in a child process, so that a
            plug-in ending the process (``os._exit``) is reported in one line, exit 2
            (`flip7ref.proc.supervise`; not with ``--in-process``, nor where ``os.fork`` is missing).
            None: when ``argv`` is None (the ``flip7ref`` command itself), not for a call with words.

    Every command: stdout closed by the program reading it (``flip7ref options | head -1``)
    ends the run quietly with `EXIT_BROKEN_PIPE`, whenever it happens (``--version`` and
    argparse's help included): stdout is flushed here, and pointed at the null device
    once the pipe is found closed, so Python's own flush at exit has nothing to report.
    Stdout that cannot be written otherwise (a full disk) is one line on stderr, `EXIT_FAILED`.
    """
    try:
        try:
            status = _main(argv, supervise)
        except SystemExit:  # argparse (--version, --help, a usage error): what it printed is flushed first
            _flush_stdout()
            raise
        _flush_stdout()
        return status
    except BrokenPipeError:
        _stdout_to_devnull()
        return EXIT_BROKEN_PIPE
    except OSError as exc:  # stdout cannot take the output (`> file` on a full disk): one line, as `_run` says it
        _stdout_to_devnull()
        print(f"flip7ref: error: could not write stdout: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED


def _flush_stdout() -> None:
    if sys.stdout is not None:
        sys.stdout.flush()


def _stdout_to_devnull() -> None:
    """Point the stdout file descriptor at the null device (the recipe of Python's documentation
    on SIGPIPE), so that flushing what is left in its buffer at exit raises nothing."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, sys.stdout.fileno())
        finally:
            os.close(null)
    except (OSError, ValueError, AttributeError):  # no file descriptor (stdout replaced): nothing to flush at exit
        pass


def _main(argv: Sequence[str] | None, supervise: bool | None) -> int:
    """`main` without its handling of a closed stdout."""
    words = list(sys.argv[1:] if argv is None else argv)
    # the first word names the command (the top-level parser has no option that takes a value)
    parser = build_parser(words[0] if words else None)
    args, extra = parser.parse_known_args(words)
    if extra:  # a mistyped flag: the usage of the command it was given to, not the top level's
        chosen_parser(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command is None:  # bare `flip7ref`: the commands, one line each (exit 2, see the module docstring)
        print(command_list(parser), file=sys.stderr)
        return EXIT_USAGE
    from flip7ref.cli._common import plugin_specs

    plugins = plugin_specs(args)
    if plugins and not getattr(args, "in_process", False) and (argv is None if supervise is None else supervise):
        from flip7ref.proc.supervise import available, run_supervised

        if available():
            return run_supervised(lambda: _run(args), plugins)
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    """Run the parsed command ``args``; its exit status, a known error as one line (see `main`)."""
    from flip7ref.proc.pools import Terminated, sigterm_raises

    try:
        with sigterm_raises():  # SIGTERM unwinds: workers, engines and files are closed on the way
            return int(args.func(args))
    except Terminated:
        print("flip7ref: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except LimitReached as exc:
        print(f"flip7ref: limit reached: {exc}", file=sys.stderr)
        return EXIT_LIMIT
    except Flip7RefError as exc:
        print(f"flip7ref: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("flip7ref: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # stdout closed by its reader: `main` ends quietly
        raise
    except OSError as exc:  # pragma: no cover - e.g. writing to a full disk
        print(f"flip7ref: error: {exc.strerror or exc}", file=sys.stderr)
        return 1
