"""Reading input files safely: bounded text files and bounded, safe YAML.

Every text file flip7ref reads (edition tables, case files, transcripts, serialized
states) goes through `read_text_file`: a size limit, UTF-8, and every failure turned
into a `flip7ref.errors.SpecError` naming the file.  YAML is read by safe loading
only (PyYAML's C loader ``CSafeLoader`` where libyaml is available, else
``SafeLoader``), and bounded: a file size limit, a limit on nesting and on the size
of the document once its aliases are expanded (an alias-expansion bomb is refused
before it is built), and no duplicate key.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import SpecError

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


def read_text_file(path: Path, what: str, *, limit: int = MAX_TEXT_BYTES) -> str:
    """Read a UTF-8 text file, turning every failure into a SpecError naming the file.

    Args:
        path: the file.
        what: what the file should be, for the message (e.g. ``"case file"``).
        limit: the largest size accepted, in bytes.

    Raises:
        SpecError: missing, a folder or special file, larger than ``limit``,
            unreadable, or not UTF-8.
    """
    if not path.is_file() and path.exists():
        raise SpecError(str(path), "", f"{what}, not a folder or a special file")
    try:
        with path.open("rb") as handle:
            raw = handle.read(limit + 1)
        if len(raw) > limit:
            raise SpecError(str(path), "", f"at most {limit:,} bytes in the {what}")
        return raw.decode("utf-8")
    except FileNotFoundError:
        raise SpecError(str(path), "", f"an existing {what}") from None
    except UnicodeDecodeError:
        raise SpecError(str(path), "", "UTF-8 text") from None
    except (OSError, ValueError) as exc:
        if isinstance(exc, SpecError):
            raise
        why = f"{type(exc).__name__}: {getattr(exc, 'strerror', None) or exc}"
        raise SpecError(str(path), "", f"a readable {what} ({why})") from None


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
