"""A solved solo policy stored in a file and asked without solving: `write_policy`,
`load_policy`, `StoredPolicy`.

``flip7ref solve --policy-out FILE`` writes what a compact-key solve
(`flip7ref.analysis.compact.CompactSolver`, the rules' solo turn or the published one)
knows about every decision state: its key, the choice (hit or stay), and the value,
P(bust) and P(Flip 7) of hitting then playing the policy.  ``flip7ref odds --policy FILE``
and `load_policy` answer for a line from the file alone, in milliseconds: the arrays are
mapped into memory (nothing is read but the pages a binary search touches).

The file (format 1)
-------------------
A 24-byte prefix: the magic ``b"F7POLICY"``, then four little-endian uint32: the format,
the length of the header, the CRC-32 of the header, zero.  The header: UTF-8 JSON with the
edition, options, deck (its categories and the count of every card), turn model, tie-break,
the layout of the key, the result of the whole turn from the deal, and per array its dtype,
shape, offset from the start of the data and CRC-32.  Then zero bytes up to a multiple of
64, and the arrays, each at a multiple of 64:

- ``keys`` uint64 (n,): the states' compact keys (`flip7ref.analysis.compact_model._Model`),
  sorted, each once;
- ``hit`` uint8 (n, m): 1 where the policy hits, per column of Flip Threes drawn (m = 1 for
  the rules' turn; the deck's Flip Threes plus one for the published turn);
- ``hit_values`` float64 (n, m, 3): the value, P(bust) and P(Flip 7) of hitting, then
  playing the policy.

The stay value is the line's score (rebuilt from the edition table on load, with the key's
layout checked against the header's).  The file is written atomically
(`flip7ref.core.textfiles.AtomicWriter`); a file cut short, with a damaged header, or
written for another edition, options, deck or turn model is refused with a one-line
`SpecError` naming the file and the field.
"""

from __future__ import annotations

import json
import math
import os
import struct
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs

from flip7ref.analysis.base import AnalysisError, SoloResult
from flip7ref.analysis.compact_model import _Model, _numpy
from flip7ref.core.errors import CardError, Flip7RefError, SpecError
from flip7ref.core.game import MODIFIER, NUMBER, Game
from flip7ref.core.state import State
from flip7ref.core.textfiles import AtomicWriter, check_regular_file, read_bytes_file

MAGIC = b"F7POLICY"
FORMAT = 1
"""The policy file format; raised only by a change that breaks a reader of the old one."""
_PREFIX = struct.Struct("<8sIIII")
_ALIGN = 64
_WHAT = "policy file"
_MAX_HEADER = 1 << 20


def _model_of(state: State, turn_model: str, ties: str) -> tuple[_Model, frozenset[int], int]:
    """The compact model of the root ``state``, the codes of its Freeze and Flip Three cards
    (the published turn) and the number of Flip Three cards."""
    skip: frozenset[int] = frozenset()
    flips = 0
    if turn_model == "published":
        from flip7ref.analysis.published import _actions

        skip, _, flips, _ = _actions(state)
    return _Model(state, ties, skip), skip, flips


def _layout(model: _Model, skip: frozenset[int]) -> dict[str, Any]:
    ids = model.game.card_ids
    return {
        "ranks": list(model.ranks),
        "modifiers": [ids[c] for c in model.mods],
        "shield": None if model.shield is None else ids[model.shield],
        "actions": sorted(ids[c] for c in skip),
        "mod_off": model.mod_off,
        "held_off": model.held_off,
        "seen_off": model.seen_off,
        "extra_off": model.extra_off,
        "extra_bits": model.extra_bits,
    }


def write_policy(path: str | Path, game: Game, categories: Sequence[str], turn_model: str, ties: str,
                 layers: Sequence[tuple[Any, Any, Any]], result: SoloResult) -> int:  # fmt: skip
    """Write the policy of a solve to ``path`` atomically; the number of bytes written.

    Args:
        path: the file (its folder must exist).
        game: the one-player game solved (its edition and non-default options are recorded).
        categories: the deck, as `flip7ref.analysis.solo_deck_position` takes it.
        turn_model: ``"rules"`` or ``"published"``.
        ties: ``"hit"`` or ``"stay"``, the solve's tie-break.
        layers: `CompactSolver.value_layers` of a solve with ``keep_values=True``.
        result: the solve's result (the whole turn from the deal).

    Raises:
        WriteError: the file cannot be written (it keeps its previous content).
        AnalysisError: ``layers`` is empty or its keys are not distinct.
    """
    np = _numpy("a policy file")
    from flip7ref.analysis.positions import solo_deck_position

    if not layers:
        raise AnalysisError("no solved policy to write: solve with keep_values=True first")
    root = solo_deck_position(game, categories)
    model, skip, _ = _model_of(root, turn_model, ties)
    keys = np.concatenate([k for k, _, _ in layers])
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    if len(keys) > 1 and not bool((keys[1:] != keys[:-1]).all()):
        raise AnalysisError("the solve's keys are not distinct: the policy cannot be stored by key")
    hit = np.concatenate([h for _, h, _ in layers]).astype(np.uint8)[order]
    values = np.concatenate([v for _, _, v in layers])[order]
    arrays = [("keys", np.ascontiguousarray(keys, dtype="<u8")), ("hit", np.ascontiguousarray(hit)),
              ("hit_values", np.ascontiguousarray(values, dtype="<f8"))]  # fmt: skip
    entries = []
    offset = 0
    for name, arr in arrays:
        entries.append({"name": name, "dtype": arr.dtype.str, "shape": list(arr.shape), "offset": offset,
                        "crc32": zlib.crc32(memoryview(arr).cast("B"))})  # fmt: skip
        offset += -(-arr.nbytes // _ALIGN) * _ALIGN
    header = {
        "what": "flip7ref solo policy",
        "format": FORMAT,
        "edition": game.edition.id,
        "options": game.non_default_options(),
        "categories": list(categories),
        "deck": len(root.draw),
        "deck_cards": dict(sorted(Counter(game.card_ids[c] for c in root.draw).items())),
        "turn_model": turn_model,
        "ties": ties,
        "modes": int(hit.shape[1]),
        "states": len(keys),
        "key": _layout(model, skip),
        "root": {
            "value": float(result.value),
            "bust": float(result.bust),
            "flip7": float(result.flip7),
            "states": result.states,
        },
        "arrays": entries,
    }
    text = json.dumps(header, sort_keys=True).encode("utf-8")
    start = -(-(_PREFIX.size + len(text)) // _ALIGN) * _ALIGN
    with AtomicWriter(path, binary=True) as out:
        out.write(_PREFIX.pack(MAGIC, FORMAT, len(text), zlib.crc32(text), 0))
        out.write(text)
        out.write(b"\0" * (start - _PREFIX.size - len(text)))
        for _, arr in arrays:
            out.write(memoryview(arr).cast("B"))
            out.write(b"\0" * (-arr.nbytes % _ALIGN))
    return start + offset


@attrs.frozen
class PolicyAnswer:
    """What the stored policy says at one line.

    Attributes:
        line: the card ids in front of the player (numbers, modifiers, a held Second Chance).
        seen: the card ids gone (cancelled duplicates, used Second Chances, Flip Threes drawn).
        flip_threes: Flip Threes drawn so far (the published turn; 0 in the rules' turn).
        best: ``"hit"`` or ``"stay"``, the policy's choice (``"hit"`` at the deal: no choice).
        hit, stay: the expected round score of hitting (then the policy) and of staying
            (``stay`` is None at the deal, where the first card is forced).
        hit_bust, hit_flip7: P(bust) and P(Flip 7) of hitting, then the policy.
        p_bust, p_flip7: P(bust) and P(Flip 7) from this line to the end of the turn under the
            policy (0 when it stays).
        forced: the line is the deal's first card (no choice).
    """

    line: tuple[str, ...]
    seen: tuple[str, ...]
    flip_threes: int
    best: str
    hit: float
    stay: float | None
    hit_bust: float
    hit_flip7: float
    p_bust: float
    p_flip7: float
    forced: bool

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "line": list(self.line), "seen": list(self.seen), "flip_threes": self.flip_threes, "best": self.best,
            "values": {"hit": self.hit, **({} if self.stay is None else {"stay": self.stay})},
            "hit_bust": self.hit_bust, "hit_flip7": self.hit_flip7, "bust": self.p_bust, "flip7": self.p_flip7,
            "forced": self.forced,
        }  # fmt: skip


def _split(cards: str | Iterable[str]) -> list[str]:
    if isinstance(cards, str):
        return [c.strip() for c in cards.split(",") if c.strip()]
    return list(cards)


class StoredPolicy:
    """A policy file opened by `load_policy`: answers for any line of its deck's solo turn.

    Attributes:
        path: the file.
        header: its JSON header (edition, options, categories, deck, turn_model, ties, root...).
        game: the one-player game of the header's edition and options.
        states: the number of states stored.
        root: the whole turn from the deal: ``{"value", "bust", "flip7", "states"}``.

    A line is a list of card ids or one comma-separated string (``"3,11,x2"``); ``seen`` the
    cards gone from the round: duplicates a Second Chance cancelled, the Second Chances used
    or given up, and (published turn) the Flip Threes drawn.  The empty line with nothing
    seen is the deal's first card.
    """

    def __init__(self, path: Path, header: dict[str, Any], arrays: dict[str, Any], game: Game, model: _Model,
                 skip: frozenset[int]) -> None:  # fmt: skip
        self.path = path
        self.header = header
        self.game = game
        self._keys = arrays["keys"]
        self._hit = arrays["hit"]
        self._values = arrays["hit_values"]
        self._model = model
        self._skip = skip
        self.states = int(header["states"])
        self.root: dict[str, Any] = dict(header["root"])

    def _key(self, line: list[str], seen: list[str]) -> tuple[int, int, bool]:
        """``(key, Flip Threes drawn, forced)`` of a line; raises CardError."""
        from flip7ref.analysis.positions import line_position

        game, model = self.game, self._model
        where = f"line {','.join(line) or '(empty)'}" + (f" with {','.join(seen)} seen" if seen else "")
        try:
            state = line_position(game, line, seen)
        except Flip7RefError as exc:
            raise CardError(f"{where}: {exc}") from None
        player = state.players[0]
        if state.pending()[0] != "offer":
            raise CardError(f"line {','.join(line)}: the player holding it is not offered Hit or Stay (the round is over)")
        deck = self.header["deck_cards"]
        used = Counter(game.card_ids[c] for c in (*player.line, *player.kept, *state.discard))
        for card, n in used.items():
            if n > deck.get(card, 0):
                raise CardError(f"{card!r}: the stored deck ({self.header['deck']} cards) holds {deck.get(card, 0)}, "
                                f"the line and the cards seen {n}")  # fmt: skip
        key = 0
        for c in player.line:
            if game.category[c] == NUMBER:
                key |= 1 << model.rank_bit[game.rank[c]]
            elif game.category[c] == MODIFIER:
                key |= 1 << (model.mod_off + model.mods.index(c))
        held = len(player.kept)
        flips = 0
        extras: Counter[int] = Counter()
        shields = held
        for c in state.discard:
            if game.category[c] == NUMBER:
                extras[model.rank_bit[game.rank[c]]] += 1
            elif c == model.shield:
                shields += 1
            elif c in self._skip and type(game.effect[c]).__name__ == "ForcedDrawEffect":
                flips += 1
            else:
                raise CardError(f"{game.card_ids[c]!r} among the cards seen: no decision of the stored "
                                f"{self.header['turn_model']} turn follows it")  # fmt: skip
        limit = (1 << model.extra_bits) - 1
        if any(n > limit for n in extras.values()) or shields >= 1 << (model.extra_off - model.seen_off):
            raise CardError(f"{where}: more cards seen than the stored {self.header['turn_model']} turn can leave gone")
        key |= (1 if held else 0) << model.held_off
        key |= shields << model.seen_off
        for bit, n in extras.items():
            key |= n << (model.extra_off + bit * model.extra_bits)
        return key, flips, not player.line and not player.kept and not state.discard

    def query(self, line: str | Iterable[str] = (), seen: str | Iterable[str] = ()) -> PolicyAnswer:
        """The stored answer at ``line`` (card ids, or ``"3,11,x2"``) with ``seen`` gone.

        Raises:
            CardError: an unknown card, a line no round reaches (a duplicate number, seven
                numbers), more copies than the stored deck holds, or a line the stored turn
                never offers a choice at (not among the states of the file).
        """
        np = _numpy("a policy file")
        cards, gone = _split(line), _split(seen)
        key, flips, forced = self._key(cards, gone)
        row = int(np.searchsorted(self._keys, np.uint64(key)))
        if row >= len(self._keys) or int(self._keys[row]) != key or flips >= self._hit.shape[1]:
            raise CardError(f"line {','.join(cards) or '(empty)'}" + (f" with {','.join(gone)} seen" if gone else "")
                            + f": not a decision of the stored policy (no play of the {self.header['turn_model']} "
                            f"turn over its {self.header['deck']} cards reaches it)")  # fmt: skip
        hits = bool(self._hit[row, flips])
        value, bust, flip7 = (float(x) for x in self._values[row, flips])
        stay = None if forced else float(self._model.score(np.array([key], dtype=np.uint64), False)[0])
        return PolicyAnswer(tuple(cards), tuple(gone), flips, "hit" if hits else "stay", value, stay, bust, flip7,
                            bust if hits else 0.0, flip7 if hits else 0.0, forced)  # fmt: skip

    def action_values(self, line: str | Iterable[str], seen: str | Iterable[str] = ()) -> dict[str, float]:
        """``{"hit": value, "stay": value}`` at ``line`` (only ``"hit"`` at the deal): the expected
        round score of each action, then the policy.  Raises CardError as `query`."""
        a = self.query(line, seen)
        return {"hit": a.hit} if a.stay is None else {"hit": a.hit, "stay": a.stay}

    def best_action(self, line: str | Iterable[str], seen: str | Iterable[str] = ()) -> str:
        """``"hit"`` or ``"stay"``: the stored policy's choice at ``line``.  Raises CardError as `query`."""
        return self.query(line, seen).best

    def p_bust(self, line: str | Iterable[str], seen: str | Iterable[str] = ()) -> float:
        """P(bust) from ``line`` to the end of the turn under the policy.  Raises CardError as `query`."""
        return self.query(line, seen).p_bust

    def p_flip7(self, line: str | Iterable[str], seen: str | Iterable[str] = ()) -> float:
        """P(Flip 7) from ``line`` to the end of the turn under the policy.  Raises CardError as `query`."""
        return self.query(line, seen).p_flip7

    def verify(self) -> None:
        """Read every array and check its CRC-32 against the header (the whole file is read).

        Raises:
            SpecError: an array's bytes differ from what was written.
        """
        arrays = {"keys": self._keys, "hit": self._hit, "hit_values": self._values}
        for entry in self.header["arrays"]:
            if zlib.crc32(memoryview(arrays[entry["name"]]).cast("B")) != entry["crc32"]:
                raise SpecError(str(self.path), f"/arrays/{entry['name']}", "the bytes its CRC-32 names (the file is damaged)")


def _bad(path: Path, field: str, expected: str) -> SpecError:
    return SpecError(str(path), field, expected)


_DTYPES = {"keys": "<u8", "hit": "|u1", "hit_values": "<f8"}
"""The one dtype of each array (as written): another is refused, never reinterpreted."""
_RANKS = {"keys": 1, "hit": 2, "hit_values": 3}


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _check_header(path: Path, header: Any) -> None:
    """Refuse a header whose fields have the wrong type or range (one `SpecError` naming the
    field), so nothing later meets a string where a number was written or an array of
    another dtype (an object dtype would read raw bytes as pointers)."""
    if not isinstance(header, dict):
        raise _bad(path, "", "a policy file header (a JSON object)")
    kinds: dict[str, tuple[type, str]] = {"edition": (str, "string"), "options": (dict, "object"),
                                          "categories": (list, "list"), "deck_cards": (dict, "object"),
                                          "key": (dict, "object"), "root": (dict, "object"),
                                          "arrays": (list, "list")}  # fmt: skip
    for name, (kind, json_name) in kinds.items():
        if name not in header:
            raise _bad(path, f"/{name}", "a policy file header with it (missing)")
        if not isinstance(header[name], kind):
            raise _bad(path, f"/{name}", f"a JSON {json_name}")
    for name in ("deck", "states", "modes"):
        if not _is_count(header.get(name)):
            raise _bad(path, f"/{name}", "a whole number of at least 0")
    for name, allowed in (("turn_model", ("rules", "published")), ("ties", ("hit", "stay"))):
        if header.get(name) not in allowed:
            raise _bad(path, f"/{name}", f"one of {', '.join(allowed)}")
    if not all(isinstance(c, str) for c in header["categories"]):
        raise _bad(path, "/categories", "a list of strings")
    for name in ("value", "bust", "flip7"):
        if type(header["root"].get(name)) not in (int, float):
            raise _bad(path, f"/root/{name}", "a number")
    if not _is_count(header["root"].get("states")):
        raise _bad(path, "/root/states", "a whole number of at least 0")
    seen = set()
    for i, e in enumerate(header["arrays"]):
        where = f"/arrays/{i}"
        if not isinstance(e, dict) or e.get("name") not in _DTYPES or e["name"] in seen:
            raise _bad(path, where, "an object named keys, hit or hit_values, each once")
        seen.add(e["name"])
        if e.get("dtype") != _DTYPES[e["name"]]:
            raise _bad(path, f"{where}/dtype", f"{json.dumps(_DTYPES[e['name']])} for {e['name']}, "
                       f"found {json.dumps(e.get('dtype'))}")  # fmt: skip
        shape = e.get("shape")
        if not isinstance(shape, list) or len(shape) != _RANKS[e["name"]] or not all(map(_is_count, shape)):
            raise _bad(path, f"{where}/shape", f"{_RANKS[e['name']]} whole numbers of at least 0")
        if not _is_count(e.get("offset")) or e["offset"] % _ALIGN:
            raise _bad(path, f"{where}/offset", f"a whole number of at least 0, a multiple of {_ALIGN}")
        if type(e.get("crc32")) is not int:
            raise _bad(path, f"{where}/crc32", "a whole number")
    if seen != set(_DTYPES):
        raise _bad(path, "/arrays", "the arrays keys, hit and hit_values")


def load_policy(path: str | Path, *, edition: str | None = None, options: dict[str, Any] | None = None,
                categories: Sequence[str] | None = None, turn_model: str | None = None) -> StoredPolicy:  # fmt: skip
    """Open a policy file written by `write_policy` (``flip7ref solve --policy-out``).

    Only the prefix and header are read; the arrays are mapped into memory, so opening
    and asking cost milliseconds whatever the file's size.

    Args:
        path: the file.
        edition: the edition id the caller expects (None: any); checked against the header.
        options: the option readings expected (None: any).
        categories: the card categories of the deck expected (None: any).
        turn_model: ``"published"`` or ``"rules"`` expected (None: any).

    Returns:
        A `StoredPolicy`.

    Raises:
        SpecError: the file is missing, not a regular file, not a policy file, of another
            format, cut short, its header damaged, or written for another edition, options,
            deck or turn model than asked, or than the edition table now gives (naming the
            file and the header's field).
    """
    np = _numpy("a policy file")
    from flip7ref.analysis.positions import solo_deck_position

    p = Path(path)
    raw = read_bytes_file(p, _WHAT, head=_PREFIX.size)
    if len(raw) < _PREFIX.size or raw[:8] != MAGIC:
        raise _bad(p, "", "a flip7ref policy file (written by flip7ref solve --policy-out)")
    _, fmt, size, crc, _ = _PREFIX.unpack(raw)
    if fmt != FORMAT:
        raise _bad(p, "/format", f"policy file format {FORMAT}, found {fmt}")
    if size > _MAX_HEADER:
        raise _bad(p, "", f"a header of at most {_MAX_HEADER:,} bytes (the file is damaged)")
    text = read_bytes_file(p, _WHAT, head=_PREFIX.size + size)[_PREFIX.size :]
    if len(text) != size or zlib.crc32(text) != crc:
        raise _bad(p, "", "a header matching its CRC-32 (the file is damaged or cut short)")
    try:
        header = json.loads(text)
    except ValueError as exc:
        raise _bad(p, "", f"a policy file header ({type(exc).__name__}: {exc})") from None
    _check_header(p, header)
    try:
        entries = {e["name"]: e for e in header["arrays"]}
        start = -(-(_PREFIX.size + size) // _ALIGN) * _ALIGN
        need = start + max(e["offset"] + math.prod(e["shape"]) * np.dtype(e["dtype"]).itemsize for e in entries.values())
        names = ("edition", "options", "categories", "deck", "deck_cards", "turn_model", "ties", "key", "root", "states")
        missing = [n for n in names if n not in header]
    except (ValueError, KeyError, TypeError) as exc:
        raise _bad(p, "", f"a policy file header ({type(exc).__name__}: {exc})") from None
    if missing or set(entries) != {"keys", "hit", "hit_values"}:
        raise _bad(p, "", f"a policy file header with {', '.join(missing) or 'the arrays keys, hit and hit_values'}")
    check_regular_file(p, _WHAT)
    found = os.stat(p).st_size
    if found < need:
        raise _bad(p, "", f"{need:,} bytes as its header says, found {found:,} (the file is cut short)")
    asked = {"edition": edition, "options": options, "categories": list(categories) if categories is not None else None,
             "turn_model": turn_model}  # fmt: skip
    for field, want in asked.items():
        if field == "categories" and want is not None and sorted(want) == sorted(header[field]):
            continue
        if want is not None and header[field] != want:
            raise _bad(p, f"/{field}", f"{field} {json.dumps(want)} as asked, found {json.dumps(header[field])}")
    try:
        game = Game(header["edition"], 1, dict(header["options"]))
        root = solo_deck_position(game, header["categories"])
        model, skip, flips = _model_of(root, header["turn_model"], header["ties"])
    except (Flip7RefError, ValueError, TypeError) as exc:
        raise _bad(p, "", f"a policy file this edition table can rebuild ({exc})") from None
    rebuilt = dict(sorted(Counter(game.card_ids[c] for c in root.draw).items()))
    if rebuilt != header["deck_cards"]:
        raise _bad(p, "/deck_cards", f"the deck the edition table gives now, {json.dumps(rebuilt)}")
    layout = _layout(model, skip)
    for field, value in layout.items():
        if header["key"].get(field) != value:
            raise _bad(p, f"/key/{field}", f"{json.dumps(value)} as the edition table gives now, found "
                       f"{json.dumps(header['key'].get(field))}")  # fmt: skip
    modes = flips + 1 if header["turn_model"] == "published" else 1
    if header["modes"] != modes:
        raise _bad(p, "/modes", f"{modes} columns, found {header['modes']}")
    arrays = {}
    try:
        for name, e in entries.items():
            arrays[name] = np.memmap(p, dtype=np.dtype(e["dtype"]), mode="r", offset=start + e["offset"],
                                     shape=tuple(e["shape"]))  # fmt: skip
    except (OSError, ValueError) as exc:
        raise _bad(p, "", f"a readable {_WHAT} ({type(exc).__name__}: {exc})") from None
    if arrays["keys"].shape != (header["states"],) or arrays["hit"].shape != (header["states"], modes) \
            or arrays["hit_values"].shape != (header["states"], modes, 3):  # fmt: skip
        raise _bad(p, "/arrays", f"arrays of {header['states']} states and {modes} columns")
    return StoredPolicy(p, header, arrays, game, model, skip)
