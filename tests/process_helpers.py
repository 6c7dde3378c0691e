"""Reading the process table (Linux ``/proc``) in tests: which processes are left behind."""

from __future__ import annotations

from pathlib import Path


def processes() -> list[tuple[int, str, int, int]]:
    """Every process as ``(pid, state, parent pid, process group)``; state ``"Z"`` is a zombie
    (an empty list where ``/proc`` is missing)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone while read
            continue
        found.append((int(stat.parent.name), fields[0], int(fields[1]), int(fields[2])))
    return found


def live_in_group(pgid: int) -> list[int]:
    """The live (not zombie) processes of process group ``pgid``."""
    return [pid for pid, state, _, group in processes() if group == pgid and state != "Z"]


def live_children(parent: int) -> set[int]:
    """The live (not zombie) child processes of ``parent``."""
    return {pid for pid, state, ppid, _ in processes() if ppid == parent and state != "Z"}


def zombie_children(parent: int) -> list[int]:
    """The children of ``parent`` that have exited and were not waited for."""
    return [pid for pid, state, ppid, _ in processes() if ppid == parent and state == "Z"]
