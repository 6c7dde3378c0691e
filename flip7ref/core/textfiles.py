"""Reading input files safely: bounded text files and bounded, safe YAML.

Every text file flip7ref reads (edition tables, case files, transcripts, serialized
states) goes through `read_text_file`: a size limit, UTF-8, and every failure turned
into a `flip7ref.core.errors.SpecError` naming the file.  YAML is read by safe loading
only (PyYAML's C loader ``CSafeLoader`` where libyaml is available, else
``SafeLoader``), and bounded: a file size limit, a limit on nesting and on the size
of the document once its aliases are expanded (an alias-expansion bomb is refused
before it is built), and no duplicate key.

Every file flip7ref reads as a whole byte string (the digests of the table cache, the case
index and the checked tables) goes through `read_bytes_file`, which refuses anything but a
regular file (a folder, a named pipe, a device, a socket) before it reads a byte: reading a
named pipe would wait for a writer forever.  Every file a command writes goes through
`write_file_atomic` (or `AtomicWriter` for a file written in pieces, or several files
renamed together): a temporary file in the same folder, then a rename, so a full disk or a
refused write leaves the file as it was and raises a `flip7ref.core.errors.WriteError` naming it.
(The reports written as a run goes, ``--report`` and ``--log``, are streams by design:
`flip7ref.cli._common.Report`.)
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

from flip7ref.core.errors import SpecError, WriteError

if TYPE_CHECKING:  # yaml is imported when first needed: most runs read the table cache
    import yaml

MAX_TEXT_BYTES = 16 * 1024 * 1024
"""The largest text file (case file, transcript, serialized state) flip7ref reads, in bytes."""
MAX_YAML_BYTES = 4 * 1024 * 1024
"""The largest YAML file (edition table, case file) flip7ref reads, in bytes."""
MAX_YAML_NODES = 1_000_000
"""The most YAML nodes (scalars, lists, mappings) a document may hold once its aliases are expanded."""
MAX_YAML_DEPTH = 64
"""The deepest nesting of lists and mappings a YAML document may have."""

def _yaml_loader() -> Any:
    """PyYAML's safe loader class: libyaml's C parser (CSafeLoader) where available."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


_KINDS = (
    (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
)  # fmt: skip


def _not_regular(mode: int) -> str | None:
    """What a file of stat mode ``mode`` is when it is not a regular file (e.g. ``"a folder"``), else None."""
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _KINDS if test(mode)), "a special file")


def _refuse(path: Path, what: str, kind: str) -> SpecError:
    return SpecError(str(path), "", f"{what} (a regular file), found {kind}")


def _unreadable(path: Path, what: str, exc: OSError) -> SpecError:
    if isinstance(exc, FileNotFoundError):
        return SpecError(str(path), "", f"an existing {what}")
    why = f"{type(exc).__name__}: {exc.strerror or exc}"
    return SpecError(str(path), "", f"a readable {what} ({why})")


_FLAGS = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
"""Flags of every file opened here: not inherited by child processes; bytes as they are (Windows)."""


def check_regular_file(path: Path, what: str) -> None:
    """Refuse ``path`` unless it is missing or a regular file (symbolic links followed), without opening it.

    Raises:
        SpecError: ``path`` is a folder, a named pipe, a device or a socket (``PATH: expected
            WHAT (a regular file), found a named pipe (FIFO)``).
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # missing or unreadable: the reader says so
        return
    kind = _not_regular(mode)
    if kind is not None:
        raise _refuse(path, what, kind)


def read_bytes_file(path: Path, what: str, *, limit: int = MAX_TEXT_BYTES, head: int | None = None) -> bytes:
    """Read a whole regular file as bytes; anything else is refused before a byte is read.

    The file kind is checked before it is opened, and again on the opened file (opened
    without waiting, so a named pipe put there in between does not block): a named pipe, a
    device, a folder or a socket is refused, never read.

    Args:
        path: the file.
        what: what the file should be, for the message (e.g. ``"case file"``).
        limit: the largest size accepted, in bytes.
        head: read only the first ``head`` bytes (and accept a file of any size).

    Raises:
        SpecError: missing, not a regular file, larger than ``limit``, or unreadable
            (naming the file and what was expected).
    """
    check_regular_file(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | _FLAGS | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError) as exc:
        if isinstance(exc, OSError):
            raise _unreadable(path, what, exc) from None
        raise SpecError(str(path), "", f"a readable {what} (ValueError: {exc})") from None
    try:
        kind = _not_regular(os.fstat(fd).st_mode)
        if kind is not None:
            raise _refuse(path, what, kind)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=True) as handle:
            fd = -1
            raw = handle.read(limit + 1 if head is None else head)
    except OSError as exc:
        raise _unreadable(path, what, exc) from None
    finally:
        if fd >= 0:
            os.close(fd)
    if head is None and len(raw) > limit:
        raise SpecError(str(path), "", f"at most {limit:,} bytes in the {what}")
    return raw


def read_text_file(path: Path, what: str, *, limit: int = MAX_TEXT_BYTES) -> str:
    """Read a UTF-8 text file (through `read_bytes_file`), turning every failure into a SpecError naming the file.

    Args:
        path: the file.
        what: what the file should be, for the message (e.g. ``"case file"``).
        limit: the largest size accepted, in bytes.

    Raises:
        SpecError: missing, a folder or special file (a named pipe, a device), larger
            than ``limit``, unreadable, or not UTF-8.
    """
    raw = read_bytes_file(path, what, limit=limit)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SpecError(str(path), "", "UTF-8 text") from None


def read_yaml_file(path: Path, what: str) -> object:
    """Read a YAML file by safe loading, bounded, turning every failure into a SpecError.

    Raises:
        SpecError: missing, unreadable, larger than `MAX_YAML_BYTES`, not
            UTF-8, not YAML, nested deeper than `MAX_YAML_DEPTH`, more than
            `MAX_YAML_NODES` nodes once aliases are expanded (an alias bomb),
            a recursive alias, or a key given twice in one mapping.
    """
    return parse_yaml(read_text_file(path, what, limit=MAX_YAML_BYTES), str(path))


def parse_yaml(text: str, file: str) -> object:
    """Parse YAML text by safe loading, with the bounds of `read_yaml_file`.

    The document is composed into nodes first (aliases stay shared, so a bomb
    costs nothing yet), checked, and only then built into Python values.

    Raises:
        SpecError: naming ``file`` and, where known, the line and column.
    """
    import yaml

    loader = _yaml_loader()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_nodes(node, file)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise SpecError(file, where, f"valid YAML ({problem})") from None
    except RecursionError:
        raise SpecError(file, "", f"YAML nested at most {MAX_YAML_DEPTH} deep") from None
    finally:
        loader.dispose()


def _where(node: yaml.Node) -> str:
    mark = node.start_mark
    return f"line {mark.line + 1}, column {mark.column + 1}"


MAX_INT_CHARS = 4000
"""The longest whole number an edition table may write (Python converts at most 4,300 digits)."""


def _check_nodes(root: yaml.Node, file: str) -> None:
    """Refuse a composed YAML document that is too deep, too large once its
    aliases are expanded, recursive, or has a key twice in a mapping.

    A depth-first walk over the node graph (shared nodes visited once), so the
    cost is the size of the file, not of its expansion."""
    import yaml

    size: dict[int, int] = {}
    started: set[int] = set()
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 0, False)]
    while stack:
        node, depth, done = stack.pop()
        nid = id(node)
        children: list[yaml.Node] = []
        if isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        if done:
            total = 1 + sum(size[id(c)] for c in children)
            if total > MAX_YAML_NODES:
                raise SpecError(
                    file, _where(node), f"at most {MAX_YAML_NODES:,} YAML nodes once aliases are expanded (found {total:,})"
                )
            size[nid] = total
            started.discard(nid)
            continue
        if nid in size:
            continue
        if nid in started:
            raise SpecError(file, _where(node), "YAML without a recursive alias (a node that contains itself)")
        if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:int" and len(node.value) > MAX_INT_CHARS:
            # Python refuses to convert so many digits (ValueError): say where, as for every other fault
            found = f"found {len(node.value):,}"
            raise SpecError(file, _where(node), f"a whole number of at most {MAX_INT_CHARS:,} characters ({found})")
        if depth > MAX_YAML_DEPTH:
            raise SpecError(file, _where(node), f"YAML nested at most {MAX_YAML_DEPTH} deep")
        started.add(nid)
        stack.append((node, depth, True))
        if isinstance(node, yaml.MappingNode):
            seen: dict[tuple[str, str], yaml.Node] = {}
            for key, _value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    ident = (key.tag, key.value)
                    if ident in seen:
                        raise SpecError(
                            file,
                            _where(key),
                            f"each key once in a mapping (key {key.value!r} is also at {_where(seen[ident])})",
                        )
                    seen[ident] = key
        stack.extend((c, depth + 1, False) for c in reversed(children))


# --------------------------------------------------------------------------- writing


def _temporary(path: Path) -> tuple[int, Path]:
    """Create a new temporary file beside ``path`` (mode as the file's, else 0o666 less the
    umask); its descriptor and path.  Raises OSError."""
    import secrets

    while True:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FLAGS, 0o666)
        except FileExistsError:  # pragma: no cover - 32 random bits taken
            continue
        try:
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        except FileNotFoundError:
            pass
        except OSError:
            os.close(fd)
            tmp.unlink(missing_ok=True)
            raise
        return fd, tmp


def _reason(exc: OSError) -> str:
    return str(exc.strerror or exc)


class GuardedWrites:
    """Writes and flushes of an open file whose failure (a full disk) raises the `WriteError` that
    ``self._failed(exc)`` builds, not an ``OSError`` traceback: the part `AtomicWriter` and the live
    report stream of the command line (`flip7ref.cli._common.Report`) share."""

    _stream: IO[Any]

    def _failed(self, exc: OSError) -> WriteError:  # pragma: no cover - each subclass says
        raise NotImplementedError

    def write(self, data: Any) -> None:
        """Write ``data``.  Raises WriteError."""
        try:
            self._stream.write(data)
        except OSError as exc:
            raise self._failed(exc) from None

    def flush(self) -> None:
        """Flush what was written.  Raises WriteError."""
        try:
            self._stream.flush()
        except OSError as exc:
            raise self._failed(exc) from None


class AtomicWriter(GuardedWrites):
    """A file written piece by piece into a temporary file beside it, renamed over it at the end.

    Use as a context manager, or call `commit` (or `discard`) yourself.  Leaving the ``with``
    block normally commits what was written; leaving it by an exception (a failed write,
    Ctrl-C) removes the temporary file and leaves the file as it was: never a partial file.
    An existing folder, named pipe or device at ``path`` is refused, unless ``special``.

    Args:
        path: the file to write (its folder must exist).
        special: write into a named pipe or a device already at ``path`` (a stream such as a
            report): it is written directly, not replaced; False refuses one (a document).
        binary: write bytes (`write` takes bytes), not UTF-8 text with ``\n`` line ends.

    Raises:
        WriteError: from the constructor, `write`, `flush` and `commit`: the file cannot be
            written (naming it and the system's reason); the file keeps its previous content.
    """

    def __init__(self, path: str | Path, *, special: bool = False, binary: bool = False) -> None:
        self.path = Path(path)
        self._tmp: Path | None = None
        try:
            mode = os.stat(self.path).st_mode
        except (OSError, ValueError):
            mode = None
        self._existed = mode is not None
        kind = None if mode is None else _not_regular(mode)
        if kind is not None and (not special or stat.S_ISDIR(mode or 0)):
            raise WriteError(str(self.path), f"expected a regular file, found {kind}")
        try:
            if kind is not None:  # a pipe or a device: written directly, no rename over it
                fd = os.open(self.path, os.O_WRONLY | os.O_TRUNC | _FLAGS)
            else:
                fd, self._tmp = _temporary(self.path)
            self._stream: IO[Any] = (
                os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="\n")
            )
        except OSError as exc:
            raise WriteError(str(self.path), _reason(exc), existed=self._existed) from None

    def _failed(self, exc: OSError) -> WriteError:
        self.discard()
        return WriteError(str(self.path), _reason(exc), existed=self._existed)

    def ready(self) -> None:
        """Close the temporary file, synced to disk, so that `commit` only renames it (several
        files written together: each made ready, then all renamed).  Raises WriteError."""
        if self._stream.closed:
            return
        try:
            self._stream.flush()
            if self._tmp is not None:
                os.fsync(self._stream.fileno())
            self._stream.close()
        except OSError as exc:
            raise self._failed(exc) from None

    def commit(self) -> None:
        """`ready`, then rename the temporary file over the file.  Raises WriteError."""
        self.ready()
        if self._tmp is None:
            return
        try:
            os.replace(self._tmp, self.path)
            self._tmp = None
        except OSError as exc:
            raise self._failed(exc) from None

    close = commit

    def discard(self) -> None:
        """Close and remove the temporary file: the file stays as it was.  Raises nothing."""
        with contextlib.suppress(OSError):
            self._stream.close()
        if self._tmp is not None:
            self._tmp.unlink(missing_ok=True)
            self._tmp = None

    def __enter__(self) -> AtomicWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if exc is None:
            self.commit()
        else:
            self.discard()


def write_file_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8 with ``\\n`` line ends, or bytes) to ``path`` atomically: a
    temporary file in the same folder, synced, then renamed over ``path``; `AtomicWriter` in one call.

    Raises:
        WriteError: the file cannot be written (a full disk, no permission, a missing folder,
            a folder of that name), naming it; it keeps its previous content and no temporary
            file is left.
    """
    with AtomicWriter(path, binary=isinstance(data, bytes)) as out:
        out.write(data)
