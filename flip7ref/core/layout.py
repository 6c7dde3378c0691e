"""The pure build's layouts of the immutable value classes: the same class over slots or a tuple.

Compiled with mypyc, `flip7ref.core.state.State` and `flip7ref.core.history.Log` are native
classes whose ``Final`` fields Python code cannot assign.  Interpreted, a plain class
would need a Python-level ``__setattr__`` to refuse assignment, and every new instance
would pay for going around it.  So the pure build re-creates each class (docs/build.md):
the class body's methods unchanged, ``__init__`` turned into ``__new__`` (same arguments
and defaults), the class's factory method (``make``) into a direct build, assignment
refused, no ordering (``<`` raises ``TypeError``, as for the native class).  Two layouts:

- `over_slots` (`State`, whose fields are read at every step): the fields are slots of a
  plain holder class; an instance is built as a holder (CPython's specialized slot
  stores, no ``__setattr__`` in the way) and then given the class, whose ``__setattr__``
  refuses assignment.  A slot is read about twice as fast as a tuple's field accessor
  (CPython 3.11 specializes slot reads, not descriptor calls), and the build costs about
  what a ``tuple.__new__`` with the fields read by index does.
- `over_tuple` (`Log`, one per transition and seldom read): a tuple subclass, built in
  one C call.

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


def _class_body(native: type) -> dict[str, Any]:
    """The class body of ``native`` that both layouts keep: its methods and attributes, less
    the instance dictionary, weak references and ``__init__`` (the layout gives ``__new__``)."""
    return {k: v for k, v in vars(native).items() if k not in ("__dict__", "__weakref__", "__init__")}


def _refusing_assignment(name: str) -> Any:
    """The ``__setattr__`` of both layouts: every assignment raises ``AttributeError``."""

    def __setattr__(self: object, attribute: str, value: object) -> None:
        raise AttributeError(f"{name} is immutable: cannot set {attribute!r} (apply a move to get a new state)")

    return __setattr__


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
    namespace = _class_body(native)
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

    def unordered(self: object, other: object) -> bool:
        return NotImplemented  # type: ignore[no-any-return]  # values are not ordered (a tuple's order is not theirs)

    build.__doc__ = getattr(native, make).__doc__
    namespace.update({"__slots__": (), "__new__": __new__, make: build, "__setattr__": _refusing_assignment(name)})
    namespace.update(dict.fromkeys(("__lt__", "__le__", "__gt__", "__ge__"), unordered))
    for index, field in enumerate(fields):
        namespace[field] = _tuplegetter(index, f"See `{name}` ({field}).")
    rebuilt: type[_C] = type(name, (tuple,), namespace)
    return rebuilt


def over_slots(native: type[_C], fields: tuple[str, ...], make: str) -> type[_C]:
    """``native`` re-created over slots.

    Args:
        native: the class as written (its ``__init__`` takes ``fields`` in order).
        fields: the field names, in constructor order (Python identifiers).
        make: the name of the method that builds a new instance from every field,
            positionally (``State._make``).

    Returns:
        A class of the same name and methods whose instances hold the fields in slots
        (of a private base class, ``_NAMESlots``); setting or deleting an attribute raises
        ``AttributeError`` ("... is immutable"); subclassing it raises ``TypeError`` (a
        native class cannot be subclassed either); it pickles by its fields (the class
        body's ``__reduce__``, else one returning every field).

    Raises:
        ValueError: a field is not an identifier, or is a name the generated constructor
            uses itself (``cls``, ``self``, ``new``, ``_new``, ``_holder``, ``_cls``,
            ``_default_N``, a leading ``__``).
    """
    name = native.__name__
    taken = {"cls", "self", "new", "_new", "_holder", "_cls"}  # the generated functions' own names
    bad = [f for f in fields if not f.isidentifier() or f.startswith(("__", "_default_")) or f in taken]
    if bad:
        raise ValueError(f"over_slots({name}): field names must be identifiers other than the constructor's own, got {bad!r}")
    holder = type(f"_{name}Slots", (), {"__slots__": fields, "__module__": native.__module__})
    defaults = native.__init__.__defaults__ or ()
    required = len(fields) - len(defaults)
    params = ", ".join((*fields[:required], *(f"{field}=_default_{i}" for i, field in enumerate(fields[required:]))))
    stores = "".join(f"    new.{field} = {field}\n" for field in fields)
    source = (
        f"def __new__(cls, {params}):\n    new = _new(_holder)\n{stores}    new.__class__ = _cls\n    return new\n"
        f"def build(self, {', '.join(fields)}):\n    new = _new(_holder)\n{stores}    new.__class__ = _cls\n    return new\n"
    )  # the holder takes the stores (no __setattr__ in their way), then the instance gets its class
    env: dict[str, Any] = {"_new": object.__new__, "_holder": holder}
    env.update({f"_default_{i}": value for i, value in enumerate(defaults)})
    exec(source, env)  # the fields are checked identifiers of the class as written
    new, build = env["__new__"], env["build"]
    new.__qualname__, build.__qualname__ = f"{name}.__new__", f"{name}.{make}"
    build.__doc__ = getattr(native, make).__doc__

    def __delattr__(self: object, attribute: str) -> None:
        raise AttributeError(f"{name} is immutable: cannot delete {attribute!r}")

    def __reduce__(self: object) -> tuple[Any, ...]:
        return (rebuilt, tuple(getattr(self, field) for field in fields))

    def __init_subclass__(cls: type, /, **kwargs: Any) -> None:
        raise TypeError(f"{name} cannot be subclassed")

    namespace = _class_body(native)
    namespace.setdefault("__reduce__", __reduce__)
    namespace.update(
        {"__slots__": (), "__new__": new, make: build, "__setattr__": _refusing_assignment(name),
         "__delattr__": __delattr__,
         "__init_subclass__": classmethod(__init_subclass__)}
    )  # fmt: skip
    rebuilt: type[_C] = type(name, (holder,), namespace)
    env["_cls"] = rebuilt
    return rebuilt
