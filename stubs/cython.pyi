# The part of Cython's pure-Python mode ("import cython") that loo-replay's compiled modules
# use, typed for mypy: each C type reads as the Python type that holds its values.
import builtins
import dataclasses as dataclasses  # cython.dataclasses.dataclass: the standard one, for mypy
from collections.abc import Callable
from typing import Any, TypeAlias, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])
_C = TypeVar("_C", bound=type)

compiled: builtins.bool

int: TypeAlias = builtins.int
long: TypeAlias = builtins.int
longlong: TypeAlias = builtins.int
ulonglong: TypeAlias = builtins.int
Py_ssize_t: TypeAlias = builtins.int
uchar: TypeAlias = builtins.int
p_const_uchar: TypeAlias = builtins.bytes  # the bytes of a bytes object, read in place
bint: TypeAlias = builtins.bool

def cclass(cls: _C) -> _C: ...
def ccall(func: _F) -> _F: ...
def cfunc(func: _F) -> _F: ...
def inline(func: _F) -> _F: ...
def final(obj: _F) -> _F: ...
def locals(**types: Any) -> Callable[[_F], _F]: ...
def boundscheck(flag: builtins.bool) -> Callable[[_F], _F]: ...
def wraparound(flag: builtins.bool) -> Callable[[_F], _F]: ...
def declare(type: Any, value: Any = ..., visibility: builtins.str = ...) -> Any: ...
