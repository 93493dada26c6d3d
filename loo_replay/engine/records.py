"""Records: classes of named fields, made cheaply as a module is imported.

``@record`` makes a class as ``@dataclass(frozen=True)`` does (``@record(frozen=False)``, as
``@dataclass``; ``slots=True``, as dataclass's): an ``__init__`` of the fields in order, with
their defaults (``field(default_factory=...)`` and ``field(repr=False)`` as dataclass's) and
a call of ``__post_init__`` where the class has one; ``__repr__``, ``__eq__`` and, frozen,
``__hash__``, all as dataclass writes them, so that they print, compare and hash alike; and a
frozen record refuses assignment.  ``fields`` names a record's fields, ``replace`` copies one
with some changed.  Type checkers read ``record`` as a dataclass (``dataclass_transform``).

Why not ``dataclass``: Python 3.11 writes each of a dataclass's methods as text and compiles
it, 1 to 4 million instructions a class, as its module is imported, and a command imports
dozens of them before it reads its first byte (docs/performance.md, "Start-up").  Here every
method but ``__init__`` is one function shared by all records, and ``__init__`` is compiled
the first time the class is called: a record made and never called costs nothing more.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")

_FIELDS = "__record_fields__"  # the fields' names, in order, the base classes' first
_MISSING: Any = type("_Missing", (), {"__repr__": lambda self: "MISSING"})()
_set = object.__setattr__
_CLASS_VARIABLES = ("ClassVar", "typing.ClassVar")  # annotations of no field
_MADE = frozenset({"__init__", "__repr__", "__eq__", "__setattr__", "__delattr__"})


class FrozenInstanceError(AttributeError):
    """A field of a frozen record was assigned or deleted."""


class Field:
    """A field's default, or the factory that makes it, and whether its repr is shown."""

    __slots__ = ("default", "factory", "repr")

    def __init__(self, default: Any, factory: Any, repr: bool) -> None:
        self.default, self.factory, self.repr = default, factory, repr


def field(
    *,
    default: Any = _MISSING,
    default_factory: Callable[[], Any] = _MISSING,
    repr: bool = True,
) -> Any:
    """A field's default, or the factory called for each new record, as ``dataclasses.field``."""
    return Field(default, default_factory, repr)


def fields(item: object) -> tuple[str, ...]:
    """The names of the fields of a record or record class, in order."""
    names: tuple[str, ...] = getattr(item, _FIELDS)
    return names


def replace(item: T, /, **changes: Any) -> T:
    """A copy of the record ``item`` with ``changes``, made by its ``__init__``."""
    values = {name: getattr(item, name) for name in fields(item)}
    values.update(changes)
    return type(item)(**values)


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(*, frozen: bool = True, slots: bool = False) -> Callable[[type[T]], type[T]]: ...
@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(
    cls: type[T] | None = None, /, *, frozen: bool = True, slots: bool = False
) -> type[T] | Callable[[type[T]], type[T]]:
    """The class made a record (see the module's docstring)."""

    def make(cls: type[T]) -> type[T]:
        return _make(cls, frozen, slots)

    return make if cls is None else make(cls)


def _make(cls: type[T], frozen: bool, slots: bool) -> type[T]:
    if own_methods := sorted(_MADE & vars(cls).keys()):
        raise TypeError(f"{cls.__qualname__} defines {', '.join(own_methods)}: a record makes them")
    inherited: tuple[str, ...] = getattr(cls, _FIELDS, ())
    annotations = vars(cls).get("__annotations__", {})  # not inspect's: --version imports this
    own = [n for n, a in annotations.items() if not str(a).startswith(_CLASS_VARIABLES)]
    specs: dict[str, Field] = dict(getattr(cls, "__record_specs__", {}))
    for name in own:
        given = cls.__dict__.get(name, _MISSING)
        specs[name] = given if isinstance(given, Field) else Field(given, _MISSING, True)
    names = inherited + tuple(n for n in own if n not in inherited)
    made: dict[str, Any] = {
        _FIELDS: names,
        "__record_specs__": specs,
        "__record_key__": _key(names),
        "__record_shown__": tuple(n for n in names if specs[n].repr),
        "__record_frozen__": frozen,
        "__match_args__": names,
        "__repr__": _repr,
        "__eq__": _eq,
        "__hash__": _hash if frozen else None,
    }
    if frozen:
        made.update(__setattr__=_frozen, __delattr__=_frozen)
    # A default stays a class attribute, as dataclass leaves it; a factory does not.
    defaults = {n: specs[n].default for n in own if specs[n].default is not _MISSING}
    if slots:  # a new class, as dataclass makes it: a slot cannot have a class attribute
        body = {k: v for k, v in cls.__dict__.items() if k not in (*own, "__dict__", "__weakref__")}
        body.update(made, __slots__=tuple(own))
        if frozen:
            body.update(__getstate__=_getstate, __setstate__=_setstate)
        new: type[T] = type(cls.__name__, cls.__bases__, body)
        new.__qualname__ = cls.__qualname__
        cls = new
    else:
        for name in own:
            if name in defaults:
                setattr(cls, name, defaults[name])
            elif name in cls.__dict__:
                delattr(cls, name)
        for name, value in made.items():
            setattr(cls, name, value)
    cls.__init__ = _lazy_init(cls)  # type: ignore[method-assign]
    return cls


def _key(names: tuple[str, ...]) -> Callable[[object], tuple[Any, ...]]:
    """The fields' values as one tuple, as dataclass compares and hashes them."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        get = attrgetter(names[0])
        return lambda item: (get(item),)
    return lambda item: ()


def _repr(self: object) -> str:
    cls = type(self)
    shown: tuple[str, ...] = cls.__record_shown__  # type: ignore[attr-defined]
    values = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
    return f"{cls.__qualname__}({values})"


def _eq(self: object, other: object) -> Any:
    if other.__class__ is self.__class__:
        key = type(self).__record_key__  # type: ignore[attr-defined]
        return key(self) == key(other)
    return NotImplemented


def _hash(self: object) -> int:
    return hash(type(self).__record_key__(self))  # type: ignore[attr-defined]


def _frozen(self: object, name: str, *value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _getstate(self: object) -> tuple[Any, ...]:
    return tuple(getattr(self, name) for name in fields(self))


def _setstate(self: object, state: tuple[Any, ...]) -> None:
    for name, value in zip(fields(self), state, strict=True):
        _set(self, name, value)


def _lazy_init(cls: type) -> Callable[..., None]:
    """An ``__init__`` that compiles the class's own the first time it is called, puts it in
    the class and runs it."""

    def __init__(self: object, *args: Any, **kwargs: Any) -> None:
        made = _init(cls)
        cls.__init__ = made  # type: ignore[misc]
        made(self, *args, **kwargs)

    return __init__


def _init(cls: type) -> Callable[..., None]:
    """The ``__init__`` dataclass would write for ``cls``, compiled."""
    specs: dict[str, Field] = cls.__record_specs__  # type: ignore[attr-defined]
    frozen: bool = cls.__record_frozen__  # type: ignore[attr-defined]
    space: dict[str, Any] = {"_set": _set, "_M": _MISSING}
    params, lines = ["self"], []
    for name in fields(cls):
        spec = specs[name]
        value = name
        if spec.factory is not _MISSING:
            space[f"_f_{name}"] = spec.factory
            params.append(f"{name}=_M")
            value = f"_f_{name}() if {name} is _M else {name}"
        elif spec.default is not _MISSING:
            space[f"_d_{name}"] = spec.default
            params.append(f"{name}=_d_{name}")
        else:
            params.append(name)
        lines.append(f"_set(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    if hasattr(cls, "__post_init__"):
        lines.append("self.__post_init__()")
    source = f"def __init__({', '.join(params)}):\n " + "\n ".join(lines or ["pass"]) + "\n"
    exec(source, space)  # the source: the class's field names alone
    made: Callable[..., None] = space["__init__"]
    made.__qualname__ = f"{cls.__qualname__}.__init__"
    return made
