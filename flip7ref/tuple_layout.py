"""The pure build's layout of an immutable value class: the same class over a tuple.

Compiled with mypyc, `flip7ref.state.State` is a native class whose ``Final`` fields
Python code cannot assign.  Interpreted, a plain class would need a Python-level
``__setattr__`` to refuse assignment, and every new instance would pay for going
around it.  A tuple subclass is immutable for free, is built in one C call and reads a
field through the C-level accessor of named tuples; so the pure build re-creates the
class over a tuple (docs/build.md): the class body's methods unchanged, ``__init__``
turned into ``__new__`` (same arguments and defaults), the class's factory method
(``make``) into one ``tuple.__new__``, assignment refused, and a tuple's ordering
switched off (``<`` raises ``TypeError``, as for the native class).

This module is imported only by the pure build.
"""

from __future__ import annotations

from typing import Any, TypeVar

_C = TypeVar("_C")
_MISSING: Any = object()  # an argument not given

try:  # the C-level item accessor behind collections.namedtuple (CPython 3.8+)
    from collections import _tuplegetter  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other interpreters
    from operator import itemgetter

    def _tuplegetter(index: int, doc: str) -> Any:
        return property(itemgetter(index), doc=doc)


def over_tuple(native: type[_C], fields: tuple[str, ...], make: str) -> type[_C]:
    """``native`` re-created as a tuple subclass.

    Args:
        native: the class as written (its ``__init__`` takes ``fields`` in order).
        fields: the field names, in constructor order.
        make: the name of the method that builds a new instance from every field,
            positionally (``State._make``).

    Returns:
        A class of the same name and methods whose instances are tuples of the
        fields; setting an attribute raises ``AttributeError`` ("... is immutable").
    """
    name = native.__name__
    namespace = {k: v for k, v in vars(native).items() if k not in ("__dict__", "__weakref__", "__init__")}
    defaults = native.__init__.__defaults__ or ()
    required = len(fields) - len(defaults)
    position = {field: i for i, field in enumerate(fields)}

    def __new__(cls: type[_C], *args: Any, **kwargs: Any) -> _C:
        # the constructor's own arguments and defaults (inspect.Signature.bind would cost
        # a tenth of a millisecond a game: Game.new_initial_state names its fields)
        if len(args) > len(fields):
            raise TypeError(f"{name}() takes {len(fields)} arguments ({len(args)} given)")
        values: list[Any] = [*args, *[_MISSING] * (len(fields) - len(args))]
        for key, value in kwargs.items():
            i = position.get(key)
            if i is None or values[i] is not _MISSING:
                raise TypeError(f"{name}() got an unexpected or repeated argument {key!r}")
            values[i] = value
        for i in range(len(fields)):
            if values[i] is _MISSING:
                if i < required:
                    raise TypeError(f"{name}() missing the argument {fields[i]!r}")
                values[i] = defaults[i - required]
        return tuple.__new__(cls, values)  # type: ignore[type-var]

    def build(self: object, *values: Any) -> _C:
        return tuple.__new__(rebuilt, values)  # type: ignore[type-var]

    def __setattr__(self: object, attribute: str, value: object) -> None:
        raise AttributeError(f"{name} is immutable: cannot set {attribute!r} (apply a move to get a new state)")

    def unordered(self: object, other: object) -> bool:
        return NotImplemented  # type: ignore[no-any-return]  # values are not ordered (a tuple's order is not theirs)

    build.__doc__ = getattr(native, make).__doc__
    namespace.update({"__slots__": (), "__new__": __new__, make: build, "__setattr__": __setattr__})
    namespace.update(dict.fromkeys(("__lt__", "__le__", "__gt__", "__ge__"), unordered))
    for index, field in enumerate(fields):
        namespace[field] = _tuplegetter(index, f"See `{name}` ({field}).")
    rebuilt: type[_C] = type(name, (tuple,), namespace)
    return rebuilt
