"""A state as plain JSON-able data, and back (``State.to_dict`` / ``State.from_dict``).

The format (``format: 1``, documented in docs/api and checked by
``spec/schema/state.schema.json``): the edition id, player count and options;
every zone with card ids; the seats' lines, kept cards and statuses; the pending
frames (`flip7ref.core.frames.frame_to_dict`); with ``log``, the history's moves and
events and the state the history starts from.  Reading refuses malformed data
with a `SerializationError` naming the field, and positions no game can reach
with a `flip7ref.core.position.PositionError` (the checks of `Game.new_position`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from flip7ref.core import engine as _engine  # noqa: F401 - loads the deal's frame classes into FRAME_TYPES
from flip7ref.core import primitives as _primitives  # noqa: F401 - loads the primitives' frame classes
from flip7ref.core.errors import CardError, IllegalActionError, OptionError, SerializationError
from flip7ref.core.frames import FRAME_TYPES, Frame, frame_args, frame_to_dict
from flip7ref.core.game import Game
from flip7ref.core.history import Log, chain
from flip7ref.core.model import Action, Event, Player, Status
from flip7ref.core.position import (
    PositionError,
    _short,
    check_data_fields,
    check_depth,
    check_edition_field,
    check_frame_args,
    check_state,
)
from flip7ref.core.state import STATE_FORMAT as STATE_FORMAT  # re-exported: its home was this module
from flip7ref.core.state import State, install_serializers
from flip7ref.core.state_fields import PLAIN_FIELDS

_S = TypeVar("_S", bound="State")


def state_to_dict(state: State, log: bool) -> dict[str, Any]:
    """``state.to_dict(log=log)`` (see `State.to_dict`)."""
    ids = state.game.card_ids
    data: dict[str, Any] = {
        "format": STATE_FORMAT,
        "edition": state.game.edition.id,
        "players": state.num_players,
        "options": dict(state.game.options),
    }
    for field in PLAIN_FIELDS:  # by the table (flip7ref.core.state_fields), in its order
        value = getattr(state, field.name)
        if not (field.omit_default and (value,) == field.default):
            data[field.name] = list(value) if field.json == "ints" else value
    data["draw"] = [ids[c] for c in state.draw]
    data["discard"] = [ids[c] for c in state.discard]
    data["seats"] = [_seat_to_dict(p, ids) for p in state.players]
    data["frames"] = [frame_to_dict(f, ids) for f in state.frames]
    if log:
        data["log"] = [{"move": lg.move, "events": [e.to_dict() for e in lg.events]} for lg in chain(state._log)]
        start = state.initial_state()
        if start is not state:
            data["start"] = state_to_dict(start, False)
    return data


def state_from_dict(cls: type[_S], data: Any, given: Any) -> _S:
    """Rebuild a ``cls`` (`State`) from `state_to_dict` output (see `State.from_dict`)."""

    def need(key: str, kind: type | tuple[type, ...]) -> Any:
        if key not in data:
            raise SerializationError(f"state data: missing field {key!r}")
        value = data[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
            raise SerializationError(f"state data: field {key!r} has the wrong type ({type(value).__name__})")
        return value

    if not isinstance(data, Mapping):
        raise SerializationError(f"state data: expected a JSON object (a mapping), got {type(data).__name__}")
    if given is not None and not isinstance(given, Game):
        raise SerializationError(f"game: expected a flip7ref.Game, got {type(given).__name__}")
    game: Game | None = given
    if data.get("format") != STATE_FORMAT or isinstance(data.get("format"), bool):
        raise SerializationError(f"state data: field 'format' must be {STATE_FORMAT}, got {data.get('format')!r}")
    edition = check_edition_field(data.get("edition"), game)  # a shipped id, or the game's: no path is opened
    if game is None:
        try:
            game = Game(edition, need("players", int), need("options", dict))
        except (OptionError, CardError) as exc:
            raise SerializationError(f"state data: {exc}") from None
        except RecursionError:
            raise SerializationError("state data: options: nested too deeply") from None

    def code(name: object, where: str) -> int:
        try:
            return game.code(str(name))
        except CardError:
            raise SerializationError(f"state data: {where}: unknown card {name!r}") from None

    try:
        seats = need("seats", list)
        if len(seats) != game.players:
            raise SerializationError(f"state data: field 'seats' has {len(seats)} entries, expected {game.players}")
        players = tuple(
            Player(
                tuple(code(c, f"seats/{i}/line") for c in _listed(s, "line", f"seats/{i}")),
                tuple(code(c, f"seats/{i}/kept") for c in _listed(s, "kept", f"seats/{i}")),
                _status(_field(s, "status", f"seats/{i}"), f"seats/{i}/status"),
                _barred(s.get("flip7_barred", False), f"seats/{i}/flip7_barred"),
            )
            for i, s in enumerate(seats)
        )
        frames: list[Frame] = []
        frame_data = need("frames", list)
        if len(frame_data) > game.max_pending():  # before building them: the bound of every reachable state
            raise PositionError(
                "state data: frames", f"expected at most {game.max_pending()} pending frames (Game.max_pending), "
                f"got {len(frame_data)}"
            )  # fmt: skip
        for i, f in enumerate(frame_data):
            name = _field(f, "frame", f"frames/{i}")
            kind = FRAME_TYPES.get(name) if isinstance(name, str) else None
            if kind is None:
                raise SerializationError(f"state data: frames/{i}/frame: unknown frame {_short(name)}")
            args = frame_args(kind, f, code, f"frames/{i}")
            check_frame_args(kind, args, i)  # before the values meet a compiled frame's typed fields
            frames.append(kind(*args))
        check_data_fields(data)  # before the typed fields meet the compiled State
        fields: dict[str, Any] = {  # by name: the fields are declared once (flip7ref.core.state_fields)
            "game": game,
            "players": players,
            "draw": tuple(code(c, "draw") for c in need("draw", list)),
            "discard": tuple(code(c, "discard") for c in need("discard", list)),
            "frames": tuple(frames),
        }
        for field in PLAIN_FIELDS:  # their JSON types checked here (no default) or by check_data_fields (a default)
            if field.default:
                value = data.get(field.name, field.default[0])
            else:
                value = need(field.name, list if field.json == "ints" else int)
            fields[field.name] = tuple(value) if field.json == "ints" else value
        start = state_from_dict(cls, data["start"], game) if "start" in data else None
        log: Log | None = None
        for entry in _log_entries(data.get("log"), game):
            log = Log(log, entry["move"], tuple(Event.from_dict(e) for e in entry["events"]), start)
        state = cls(**fields, _log=log)
        check_state(state)  # the one definition of a reachable position (flip7ref.core.position)
        _check_history(state, start)
        return state
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as exc:
        if isinstance(exc, SerializationError):
            raise
        what = f"missing field {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
        raise SerializationError(f"state data: malformed entry ({what})") from None


_SCALARS = (str, int, bool, type(None))


def _check_history(state: State, start: State | None) -> None:
    """Refuse a loaded history that is not the game's: its moves, played from ``start``
    (the state it starts from), must be legal, emit the loaded events, and reach ``state``;
    so ``replay()`` ends at the state.  A history of moves needs its ``start``.

    Raises:
        SerializationError: naming ``start`` or ``log/<i>`` and what the replay found.
    """
    links = chain(state._log)
    first = 1 if links and not links[0].move else 0  # a new game's first link: the events of its start, no move
    if len(links) == first:
        return
    if start is None:
        raise SerializationError("state data: start: expected the state the history starts from (a log with moves has one)")
    s = start
    for i, link in enumerate(links[first:], first):
        try:
            s = s.apply_move(link.move)
        except IllegalActionError as exc:
            raise SerializationError(f"state data: log/{i}/move: {link.move!r} is not legal there ({exc.why})") from None
        if s._log is None or s._log.events != link.events:
            raise SerializationError(f"state data: log/{i}/events: not the events {link.move!r} emits there")
    if s != state:
        raise SerializationError("state data: log: its moves, played from 'start', reach another position than this one")


def _log_entries(log: object, game: Game) -> list[Mapping[str, Any]]:
    """The ``log`` field checked: a list of ``{"move", "events"}`` objects, each move a
    history entry (``""`` for the first link only, ``"chance CARD"`` with a card of the
    game, or an action's string form) and each event an object whose ``type`` is a name
    and whose values are strings, whole numbers, true/false, null or lists of them.

    Raises:
        SerializationError: naming ``log/<i>/...`` and what was expected.
    """
    if log is None:
        return []
    if not isinstance(log, list):
        raise SerializationError(f"state data: log: expected a list of moves, got {type(log).__name__}")
    for i, entry in enumerate(log):
        where = f"state data: log/{i}"
        if not isinstance(entry, Mapping) or not isinstance(entry.get("move"), str) or not isinstance(entry.get("events"), list):
            raise SerializationError(f"{where}: expected an object with a 'move' string and an 'events' list")
        move = entry["move"]
        if move == "" and i == 0:
            pass
        elif move.startswith("chance "):
            if move[len("chance ") :] not in game.codes:
                raise SerializationError(f"{where}/move: expected 'chance' and a card id of the game, got {move[:40]!r}")
        else:
            try:
                Action.parse(move)
            except IllegalActionError:
                raise SerializationError(
                    f"{where}/move: expected a history entry ('hit', 'target 2', 'chance 7'...), got {move[:40]!r}"
                ) from None
        for j, event in enumerate(entry["events"]):
            kind = event.get("type") if isinstance(event, Mapping) else None
            if not isinstance(kind, str) or not kind.isidentifier():
                got = repr(kind)[:40]
                raise SerializationError(f"{where}/events/{j}/type: expected an event type (a name such as 'dealt'), got {got}")
            for key, value in event.items():
                items = value if isinstance(value, list) else [value]
                if not isinstance(key, str) or not all(isinstance(v, _SCALARS) for v in items):
                    raise SerializationError(
                        f"{where}/events/{j}/{str(key)[:40]}: expected a string, number, true/false, null or a list of them"
                    )
    return log


def _field(entry: object, key: str, where: str) -> Any:
    """``entry[key]``, where ``entry`` (at ``where``) must be an object holding ``key``.

    Raises:
        SerializationError: naming ``where`` (not an object) or ``where/key`` (missing).
    """
    if not isinstance(entry, Mapping):
        raise SerializationError(f"state data: {where}: expected an object, got {_short(entry)}")
    if key not in entry:
        raise SerializationError(f"state data: {where}/{key}: missing")
    return entry[key]


def _listed(entry: object, key: str, where: str) -> list[Any]:
    """``entry[key]`` that must be a list (of card ids): not a string, which would be read
    letter by letter.

    Raises:
        SerializationError: naming ``where/key`` and what it got.
    """
    value = _field(entry, key, where)
    if not isinstance(value, list):
        raise SerializationError(f"state data: {where}/{key}: expected a list of card ids, got {_short(value)}")
    return value


def _seat_to_dict(p: Player, ids: Sequence[str]) -> dict[str, Any]:
    """A seat's JSON form: ``line``, ``kept``, ``status``, and ``flip7_barred: true`` only
    when set (D-V-26), so states of every other game serialize as before."""
    seat: dict[str, Any] = {"line": [ids[c] for c in p.line], "kept": [ids[c] for c in p.kept], "status": p.status.value}
    if p.flip7_barred:
        seat["flip7_barred"] = True
    return seat


def _barred(value: object, where: str) -> bool:
    if type(value) is not bool:
        raise SerializationError(f"state data: {where}: expected true or false, got {value!r}")
    return value


def _status(value: object, where: str) -> Status:
    try:
        return Status(value)
    except ValueError:
        raise SerializationError(f"state data: {where}: expected one of active, stayed, frozen, busted, got {value!r}") from None


def _checked_from_dict(cls: type[_S], data: Any, given: Any) -> _S:
    """`State.from_dict`: refuse data nested deeper than `flip7ref.core.position.MAX_DEPTH`,
    then `state_from_dict`."""
    check_depth(data)
    return state_from_dict(cls, data, given)


install_serializers(to_dict=state_to_dict, from_dict=_checked_from_dict)
