"""Writing the generated documents under ``docs/``: what is stale, what ``flip7ref docs`` may overwrite."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from flip7ref.core.errors import OptionError
from flip7ref.core.textfiles import read_bytes_file, read_text_file, write_file_atomic
from flip7ref.docs.render import GENERATED_MARK


def default_docs_dir() -> Path:
    """Where ``flip7ref docs`` writes by default.

    Returns:
        The ``docs/`` folder of the source checkout the package runs from (a folder
        with ``pyproject.toml`` beside the package), else ``docs`` in the current folder.
    """
    root = Path(__file__).resolve().parents[2]  # flip7ref/docs/this.py -> the checkout
    if (root / "pyproject.toml").is_file() and (root / "spec" / "editions").is_dir():
        return root / "docs"
    return Path("docs")


def stale_files(out: Path, docs: Mapping[str, str]) -> list[str]:
    """Compare generated documents with the files under ``out``.

    Args:
        out: the docs folder.
        docs: the documents from `generate`.

    Returns:
        Relative paths that are missing or differ, then Markdown files under
        ``out/rules`` that are no longer generated; sorted. Empty when current.
    """
    bad = [rel for rel, text in docs.items() if not _current(out / rel, text)]
    rules = out / "rules"
    extra = [f"rules/{p.name}" for p in sorted(rules.glob("*.md")) if is_generated(p)] if rules.is_dir() else []
    return sorted(set(bad) | {rel for rel in extra if rel not in docs})


def _current(path: Path, text: str) -> bool:
    """Whether the regular file at ``path`` holds ``text`` (line ends ``\r\n`` read as ``\n``);
    False when it is missing or not a regular file (a named pipe is never opened).

    Raises:
        SpecError: the file cannot be read or is not UTF-8 (`flip7ref.core.textfiles.read_text_file`).
    """
    if not path.is_file():
        return False
    return read_text_file(path, "generated document").replace("\r\n", "\n") == text


def is_generated(path: Path) -> bool:
    """Whether the file at ``path`` was written by ``flip7ref docs`` (starts with `GENERATED_MARK`);
    False for anything but a regular file (a named pipe is never opened).

    Raises:
        SpecError: the file exists but cannot be read (`flip7ref.core.textfiles.read_bytes_file`).
    """
    if not path.is_file():
        return False
    head = read_bytes_file(path, "generated document", head=len(GENERATED_MARK.encode()))
    return head.decode("utf-8", errors="replace") == GENERATED_MARK


def foreign_files(out: Path, docs: Mapping[str, str]) -> list[str]:
    """The files under ``out`` that ``flip7ref docs`` would overwrite but did not write (no marker), sorted."""
    return sorted(rel for rel in docs if (out / rel).is_file() and not is_generated(out / rel))


def write_docs(out: Path, docs: Mapping[str, str]) -> list[str]:
    """Write the generated documents under ``out`` and delete retired ``rules/*.md`` files.

    Args:
        out: the docs folder (created if missing).
        docs: the documents from `generate`.

    Only files that ``flip7ref docs`` wrote (they start with `GENERATED_MARK`) are
    overwritten or deleted: a folder holding someone's own ``disputes.md`` is refused
    before anything is written.

    Returns:
        The relative paths written or deleted (those that changed), sorted.

    Each file is written atomically (`flip7ref.core.textfiles.write_file_atomic`: a temporary file
    beside it, then a rename): a file that cannot be written (a full disk) keeps its previous
    content, never a partial page.

    Raises:
        OptionError: a file to be written exists and was not written by ``flip7ref docs``.
        WriteError: a file cannot be written (naming it); it keeps its previous content.
        OSError: the folder cannot be made, or a retired file removed.
    """
    foreign = foreign_files(out, docs)
    if foreign:
        raise OptionError(
            f"{', '.join(str(out / rel) for rel in foreign)}: not written by 'flip7ref docs' (no generated-file marker on "
            "the first line); refusing to overwrite; nothing written. Give another folder with --out DIR"
        )
    changed = stale_files(out, docs)
    for rel in changed:
        path = out / rel
        if rel in docs:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_file_atomic(path, docs[rel])
        else:
            path.unlink()
    return changed
