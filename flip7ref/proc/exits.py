"""The exit statuses of every ``flip7ref`` command (docs/cli.md), in one place: the CLI
(`flip7ref.cli`) and the supervisor of plug-in commands (`flip7ref.proc.supervise`) both return them."""

from __future__ import annotations

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_LIMIT, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 3, 130, 143
"""Success, a check failed, a user mistake (a plug-in's failure included), a limit the user set
reached, interrupted with Ctrl-C, stopped by SIGTERM."""

EXIT_BROKEN_PIPE = 141
"""Stdout was closed by the program reading it (``flip7ref options | head -1``): the run ends
quietly, with the status a shell gives a command that SIGPIPE ended (128 + 13), as 130 and
143 are those of SIGINT and SIGTERM."""

EXIT_ENGINE_FAULT = 4
"""``conformance fuzz``: the engine failed the protocol (hung, exited, printed a malformed or
oversized line) and no rule difference was found."""
