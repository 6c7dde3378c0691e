"""The exceptions flip7ref raises.

Every error a user can cause is a subclass of `Flip7RefError`, so a
caller (and the command line) can tell a user mistake from a bug.  Errors about
bad input are also `ValueError` subclasses, after python-chess.
"""

from __future__ import annotations

from collections.abc import Sequence


class Flip7RefError(Exception):
    """Base class of every error flip7ref raises on purpose."""


class SpecError(Flip7RefError, ValueError):
    """An edition table (or another spec file) is malformed.

    Attributes:
        file: the file that is wrong (a path as text).
        path: where inside the file, as a JSON-pointer-like string (``/cards/3/count``);
            empty when the whole file is at fault.
        expected: what was expected there, in words.

    The message reads ``FILE, at PATH: expected ...`` (or, for a schema
    violation, the validator's description of the problem).
    """

    def __init__(self, file: str, path: str, expected: str, *, problem: str | None = None) -> None:
        self.file = file
        self.path = path
        self.expected = expected
        where = f"{file}, at {path}" if path else file
        super().__init__(f"{where}: {problem or 'expected ' + expected}")


class OptionError(Flip7RefError, ValueError):
    """An option name or value is not one the edition table defines."""


class StrategyError(OptionError):
    """A ``--strategy module:Class`` cannot be imported or built, does not fit the
    `Strategy` protocol, or chose an illegal action."""


class DecisionTimeoutError(StrategyError):
    """A strategy did not choose a decision within the time limit set for it
    (``--decision-timeout``, `flip7ref.proc.timelimit.TimedStrategy`)."""


class LimitReached(Flip7RefError):
    """Work stopped at a limit the caller set (a number of states, a number of seconds:
    ``max_states``, ``max_seconds``), or was refused before it started because it would
    have passed it.  The command line exits with status 3 (docs/cli.md), not 2: the
    request was well formed, but larger than allowed."""


class CardError(Flip7RefError, ValueError):
    """A card name is unknown, or a line of cards cannot exist."""


class IllegalActionError(Flip7RefError, ValueError):
    """An action (or chance outcome) was applied where it is not legal.

    Attributes:
        action: the string form of the rejected action.
        legal: the string forms of the actions that were legal.
        why: why the action was refused, in words.
    """

    def __init__(self, action: str, legal: Sequence[str], why: str) -> None:
        self.action = action
        self.legal = tuple(legal)
        self.why = why
        listed = ", ".join(self.legal) if self.legal else "none"
        super().__init__(f"illegal action {action!r}: {why}; legal here: {listed}")


class GameTooLongError(Flip7RefError, RuntimeError):
    """A driven game did not end within the allowed number of moves (e.g. strategies
    that never score, or an enormous target score)."""


class SerializationError(Flip7RefError, ValueError):
    """Serialized state data is malformed or belongs to another table."""


class WriteError(Flip7RefError, OSError):
    """A file could not be written (a full disk, a refused permission, a missing folder);
    the file keeps the content it had (flip7ref writes a temporary file, then renames it:
    `flip7ref.core.textfiles.write_file_atomic`).

    Attributes:
        file: the file that could not be written (a path as text).
        reason: why, in words (the system's message, e.g. ``No space left on device``).

    The message reads ``could not write FILE: REASON; its previous content is kept`` (or
    ``...; nothing was written`` for a file that did not exist, or ``...; KEPT`` as given).
    """

    def __init__(self, file: str, reason: str, *, existed: bool = True, kept: str | None = None) -> None:
        self.file = file
        self.reason = reason
        kept = kept or ("its previous content is kept" if existed else "nothing was written")
        Exception.__init__(self, f"could not write {file}: {reason}; {kept}")

    def __str__(self) -> str:
        return str(self.args[0])
