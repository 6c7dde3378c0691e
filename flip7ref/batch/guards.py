"""The checks every public entry of the batched engines makes before it touches an array.

The compiled kernel (`flip7ref.batch.kernel`) reads and writes the state's arrays without
bounds checks: a game index past the batch, or a negative one, would read and write outside
them (the process dies later, or spins).  So every index, action, seed and batch size that
reaches either engine is checked here first, once for all of them:
`flip7ref.batch.core.BatchState` (both backends),
`flip7ref.batch.vengeance.VengeanceState`, the vector envs (`flip7ref.batch.vector_env`) and
the batched policies call these functions, so a bad value gets the same `OptionError`, with
the same message, whichever engine or backend it was given to, and nothing has changed when
it is raised.

- game indices: a 1-D sequence of whole numbers (an integer array; not a bool mask, not
  floats), each ``0 <= g < batch``, none listed twice where the games are stepped or dealt;
- action indices: a 1-D sequence of whole numbers, one per game (an index that is not legal
  stays what it always was: an action not taken);
- the seed of a batch: a whole number >= 0; the seeds of single games: whole numbers or
  strings, as `flip7ref.Game.new_initial_state` takes them;
- a batch size: a whole number >= 1 whose arrays fit in the memory available (`allocate`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Sequence
from numbers import Integral
from typing import Any, cast

import numpy as np

from flip7ref.core.errors import OptionError

Arr = np.ndarray[Any, Any]

__all__ = [
    "action_indices",
    "allocate",
    "available_memory",
    "base_seed",
    "batch_size",
    "game_indices",
    "game_seeds",
    "legal_choices",
    "seats",
]

_INT64 = np.dtype(np.int64)


def _whole(x: object) -> bool:
    """``x`` is a whole number (a Python or NumPy integer, not a bool)."""
    return isinstance(x, Integral) and not isinstance(x, (bool, np.bool_))


def _integers(value: object, name: str, what: str) -> Arr:
    """``value`` as a 1-D array of an integer dtype (the array itself when it is one).

    Raises:
        OptionError: not 1-D, or an element that is not a whole number (named by its index).
    """
    if type(value) is np.ndarray:
        arr: Arr = value
    elif isinstance(value, (str, bytes)) or value is None:
        raise OptionError(f"{name}: expected a 1-D sequence of {_plural(what)}, got {value!r}")
    else:
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError):  # a ragged nesting
            raise OptionError(f"{name}: expected a 1-D sequence of {_plural(what)}, got {_show(value)}") from None
    if arr.ndim != 1:
        raise OptionError(f"{name}: expected a 1-D sequence of {_plural(what)}, got {_show(value, arr)}")
    if arr.dtype.kind in "iu":
        return arr
    if arr.size == 0:  # [] is a float64 array
        return np.zeros(0, np.int64)
    if arr.dtype.kind == "b":
        raise OptionError(f"{name}: expected {_plural(what)} (whole numbers), got a bool array (a mask: np.flatnonzero(mask))")
    if isinstance(value, np.ndarray) and arr.dtype.kind != "O":
        raise OptionError(f"{name}: expected {_plural(what)} (whole numbers), got a {arr.dtype} array")
    items = arr.tolist() if isinstance(value, np.ndarray) else list(cast(Iterable[object], value))
    for i, x in enumerate(items):
        if not _whole(x):
            raise OptionError(f"{name}[{i}]: expected {_article(what)} (a whole number), got {x!r}")
    # whole numbers NumPy found no integer dtype for (past 64 bits, or int8 beside uint64 made float64):
    # kept exact as Python ints, the caller's range check names any that does not fit
    out: Arr = np.empty(len(items), object)
    out[:] = [int(cast(Integral, x)) for x in items]
    return out


def _plural(what: str) -> str:
    return what[: -len("index")] + "indices" if what.endswith("index") else what + "s"


def _article(what: str) -> str:
    return f"an {what}" if what[0] in "aeiou" else f"a {what}"


def _show(value: object, arr: Arr | None = None) -> str:
    if arr is not None and arr.ndim != 0:
        return f"shape {arr.shape}"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _in_range(arr: Arr, low: int, high: int) -> int:
    """The index of the first element of ``arr`` outside ``low..high``, or -1."""
    if arr.dtype.kind == "O":
        return next((i for i, x in enumerate(arr.tolist()) if not low <= x <= high), -1)
    if int(arr.min()) >= low and int(arr.max()) <= high:
        return -1
    return int(np.flatnonzero((arr < low) | (arr > high))[0])


def _as_int64(arr: Arr) -> Arr:
    """``arr`` (integers within int64) as a C-contiguous int64 array, the compiled loop's
    argument type (the array itself when it is one)."""
    if arr.dtype == _INT64 and arr.flags.c_contiguous:
        return arr
    return np.ascontiguousarray(arr, dtype=np.int64) if arr.dtype.kind != "O" else np.array(arr.tolist(), np.int64)


def game_indices(games: object, batch: int, *, repeats: bool = False, name: str = "games") -> Arr:
    """``games`` checked as indices of the games of a batch of ``batch``: a C-contiguous
    int64 array (``games`` itself when it is one).

    Args:
        games: a 1-D sequence of whole numbers (a list, a tuple, an integer NumPy array).
        batch: the number of games.
        repeats: a game may be listed more than once (reading, copying); stepping and dealing
            take each game at most once.
        name: the argument's name in the message.

    Raises:
        OptionError: not a 1-D sequence of whole numbers (a bool mask, floats, strings,
            None), an index outside ``0..batch - 1`` (negative ones included), or a game
            listed twice (unless ``repeats``).
    """
    arr = _integers(games, name, "game index")
    if arr.size == 0:
        return _as_int64(arr)
    bad = _in_range(arr, 0, batch - 1)
    if bad >= 0:
        raise OptionError(f"{name}[{bad}]: expected a game index 0..{batch - 1}, got {arr[bad]}")
    g = _as_int64(arr)
    if not repeats and g.size > 1 and not np.all(g[1:] > g[:-1]):  # increasing: no repeat (the usual case)
        order = np.sort(g, kind="stable")
        twice = np.flatnonzero(order[1:] == order[:-1])
        if twice.size:
            value = int(order[twice[0]])
            first, second = np.flatnonzero(g == value)[:2].tolist()
            raise OptionError(f"{name}[{second}]: game {value} is listed twice (also {name}[{first}]); a game moves once a call")
    return g


def action_indices(actions: object, count: int, *, flat: bool = False, name: str = "actions") -> Arr:
    """``actions`` checked as one action index per game of ``count`` games: a C-contiguous
    int64 array.  An index outside the game's actions is kept (it is an action not taken,
    as one not legal is); one past 64 bits is refused.

    Args:
        actions: a 1-D sequence of whole numbers (``flat``: any shape of ``count`` elements).
        count: the number of games stepped.
        flat: accept any shape with ``count`` elements (the vector envs' batched space).

    Raises:
        OptionError: not a sequence of whole numbers (strings, None, floats, a bool mask),
            or not ``count`` of them.
    """
    if flat and type(actions) is np.ndarray and actions.ndim != 1 and actions.size == count:
        actions = actions.reshape(count)
    if not (type(actions) is np.ndarray and actions.ndim == 1 and actions.dtype.kind in "iu"):
        actions = _integers(actions, name, "action index")
    assert isinstance(actions, np.ndarray)
    if actions.shape != (count,):
        raise OptionError(f"{name}: expected {count} action indices, got shape {actions.shape}")
    if actions.dtype.kind == "O" or (actions.dtype.kind == "u" and actions.dtype.itemsize == 8):
        top = np.iinfo(np.int64).max
        bad = _in_range(actions, -top - 1, top)
        if bad >= 0:
            raise OptionError(f"{name}[{bad}]: expected an action index, got {actions[bad]} (past 64 bits)")
    return _as_int64(actions)


def legal_choices(actions: object, legal: Arr, name: str = "actions") -> Arr:
    """``actions``, what a batched policy chose, checked as one *legal* action index per row
    of ``legal``: a C-contiguous int64 array.  Unlike `action_indices`, which keeps an
    illegal index as an action not taken, a policy that chooses one is wrong.

    Args:
        actions: the policy's output: a 1-D sequence of whole numbers (an integer NumPy array
            of any shape with one element per row is taken flat).
        legal: (k, A) bool or 0/1 array, the legal actions of each of the k games.
        name: what chose them, in the message.

    Raises:
        OptionError: not ``k`` whole numbers (floats, a bool mask, None, another shape), or
            an index outside ``0..A - 1`` or not legal in its row (the first such row named,
            with its legal indices).
    """
    rows, width = legal.shape
    a = action_indices(actions, rows, flat=True, name=name)
    inside = (a >= 0) & (a < width)
    ok = inside.copy()
    ok[inside] = legal[np.flatnonzero(inside), a[inside]].astype(bool)
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        allowed = np.flatnonzero(legal[i]).tolist()
        raise OptionError(f"{name}[{i}]: chose action {a[i]}, not legal in that game; expected one of {allowed}")
    return a


def base_seed(seed: object, name: str = "seed") -> int:
    """``seed`` checked as the seed of a batch (game ``i`` gets ``seed + i``; NumPy's
    generator is seeded with it): a whole number >= 0, returned as an int.

    Raises:
        OptionError: anything else (a negative number, a string, a float, a bool, None).
    """
    if not _whole(seed) or int(cast(Integral, seed)) < 0:
        raise OptionError(f"{name}: expected a whole number >= 0, got {seed!r}")
    return int(cast(Integral, seed))


def game_seeds(seeds: object, count: int) -> Sequence[int | str] | None:
    """``seeds`` checked as the seeds of ``count`` new games, one each: whole numbers or
    strings, as `flip7ref.Game.new_initial_state` takes them (None: the next whole numbers).

    Raises:
        OptionError: not a sequence (a string alone included), not ``count`` seeds, or a
            seed that is neither a whole number nor a string (named by its index).
    """
    if seeds is None:
        return None
    if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__len__") or not hasattr(seeds, "__getitem__"):
        raise OptionError(f"seeds: expected a sequence of seeds (one per game), got {_show(seeds)}")
    items = seeds.tolist() if isinstance(seeds, np.ndarray) else list(cast(Iterable[object], seeds))
    if len(items) != count:
        raise OptionError(f"seeds: expected {count} seeds (one per game), got {len(items)}")
    for i, sd in enumerate(items):
        if not (_whole(sd) or isinstance(sd, str)):
            raise OptionError(f"seeds[{i}]: expected a whole number or a string, got {sd!r}")
    return cast(list[int | str], items)


def batch_size(batch: object, name: str = "batch") -> int:
    """``batch`` checked as a number of games: a whole number >= 1, returned as an int.

    Raises:
        OptionError: anything else.
    """
    if not _whole(batch) or int(cast(Integral, batch)) < 1:
        raise OptionError(f"{name}: expected a whole number >= 1, got {batch!r}")
    return int(cast(Integral, batch))


def seats(observer: object, players: int, batch: int) -> Arr | int:
    """``observer`` checked as the seat of an observation: one seat for every game, or one
    per game (a 1-D sequence of ``batch``), each ``0..players - 1``.

    Raises:
        OptionError: not a whole number or a sequence of ``batch`` of them, or a seat out of range.
    """
    if _whole(observer):
        s = int(cast(Integral, observer))
        if not 0 <= s < players:
            raise OptionError(f"observer: expected a seat 0..{players - 1}, got {s}")
        return s
    arr = _integers(observer, "observer", "seat")
    if arr.shape != (batch,):
        raise OptionError(f"observer: expected one seat or {batch} seats (one per game), got shape {arr.shape}")
    bad = _in_range(arr, 0, players - 1)
    if bad >= 0:
        raise OptionError(f"observer[{bad}]: expected a seat 0..{players - 1}, got {arr[bad]}")
    return _as_int64(arr)


# ---------------------------------------------------------------------- memory

DEAL_SCRATCH = 16
"""Bytes per card of a game's deck the first deal needs beside the state (NumPy's shuffle:
a float64 key and an int64 position per card)."""


def available_memory() -> int | None:
    """The bytes of memory a new allocation may take: the memory available now
    (``MemAvailable`` of ``/proc/meminfo``, else the physical memory), and no more than the
    process's address-space limit when one is set; None where neither can be read."""
    found: list[int] = []
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
                    break
    except (OSError, ValueError, IndexError):
        pass
    if not found:
        with contextlib.suppress(AttributeError, OSError, ValueError):
            found.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY and soft > 0:
            found.append(int(soft))
    except (ImportError, OSError, ValueError):  # pragma: no cover - not on Windows
        pass
    return min(found) if found else None


def allocate(state: Any, alloc: Callable[[], None], batch: int, deck: int) -> None:
    """Allocate the arrays of ``batch`` games of ``state`` (``alloc()``, which reads
    ``state.B``), after checking they fit: the arrays ``alloc`` makes for one game (their
    shapes and dtypes, made once with ``state.B = 1`` and dropped) times ``batch``, plus
    the first deal's scratch (`DEAL_SCRATCH` bytes per card of the ``deck``), against
    `available_memory`.

    Raises:
        OptionError: the games need more memory than is available (the message names the
            bytes), or NumPy could not allocate them.
    """
    before = set(vars(state))
    state.B = 1
    alloc()
    made = [k for k in vars(state) if k not in before]
    per_game = sum(int(v.nbytes) for k in made if isinstance(v := vars(state)[k], np.ndarray)) + DEAL_SCRATCH * deck
    for k in made:
        delattr(state, k)
    state.B = batch
    need = f"batch: {batch:,} games need {per_game * batch:,} bytes of memory ({per_game:,} a game)"
    room = available_memory()
    if room is not None and per_game * batch > room:
        raise OptionError(f"{need}, more than the {room:,} bytes available")
    try:
        alloc()
    except MemoryError:
        raise OptionError(f"{need}, more than can be allocated") from None
