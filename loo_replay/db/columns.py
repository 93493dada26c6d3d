"""The loader's columns: values stored as they come, Arrow arrays made once a batch.

A column of integers (or booleans, or card numbers) keeps its values as
64-bit integers in an ``array``; compiled, each value is one C store, and
Arrow takes the stored bytes as they are.  A column of texts keeps a code per
row and each distinct text once (a session id, a player's id), and becomes a
dictionary-encoded Arrow array of those codes and texts, as card names are
codes into the 52 names: no name is copied per row, in the worker or on the
way to the loader, and DuckDB stores the names.  Before, every value was a
Python object in a list that Arrow converted one object at a time; on 30,000
deals that conversion took 0.8 s, then 0.3 (docs/performance.md).  Nulls are
rare, so a column keeps where they are, not a flag per value.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any

import cython
import pyarrow as pa  # type: ignore[import-untyped]

from loo_replay.engine.cards import canonical
from loo_replay.engine.legal import card_of
from loo_replay.engine.model import DEAD

CARD_CODES = tuple(canonical(c) for c in range(52))  # ``TH``: how the database names cards
CARD_NAMES = pa.array(CARD_CODES, pa.string())
_INT64 = pa.int64()
_INT32 = pa.int32()
_BOOL = pa.bool_()
INT_KINDS = (_INT64, _INT32, _BOOL)  # the Arrow types an ``Ints`` column writes (and card names)
_CARDS_TYPE = pa.list_(pa.dictionary(_INT64, pa.string()))
_START = 256  # values a column has room for at first; it doubles when full
NOT_JUDGED: int = cython.declare(cython.longlong, DEAD)  # DEAD as a C constant


class Ints:
    """Integers as 64-bit values; None, and an integer beyond 64 bits (unlimited loo's
    ballooning amounts), are null, as Arrow made them before.  In a column whose Arrow
    type is a string, the integers are card numbers, and the column holds their names."""

    data: array[int]  # compiled, also seen as a C array of ``cap`` long longs at ``at``
    n: int
    cap: int
    null_at: list[int]

    def __init__(self) -> None:
        self.data = array("q", bytes(8 * _START))
        self.n = 0
        self.cap = _START
        self.null_at = []
        self._found()

    def __len__(self) -> int:
        return self.n

    def add(self, value: cython.longlong) -> None:
        if self.n == self.cap:
            self._grow()
        if cython.compiled:
            self.at[self.n] = value
        else:
            self.data[self.n] = value
        self.n += 1

    def add_null(self) -> None:
        self.null_at.append(self.n)
        self.add(0)

    def append(self, value: object) -> None:
        """Any value of the column: an integer, a boolean or None."""
        if value is None:
            self.add_null()
            return
        try:
            self.add(value)  # type: ignore[arg-type]
        except OverflowError:
            self.add_null()

    def _grow(self) -> None:
        self.data.frombytes(bytes(8 * self.cap))
        self.cap *= 2
        self._found()

    def _found(self) -> None:
        """Where the values are now (compiled: the array's C storage, which moves as it
        grows)."""
        if cython.compiled:
            self.at = self.data.data.as_longlongs  # type: ignore[attr-defined]

    def array(self, kind: Any) -> Any:
        """The values as an Arrow array of ``kind``: 64- or 32-bit integers, booleans, or a
        string for card names (dictionary-encoded, the values indices into the 52 names).
        The narrower buffers are written here, not cast by Arrow, whose ``cast`` imports
        ``pyarrow.compute``: 50 ms in each worker, and half of the tables' making."""
        n = self.n
        if kind == _INT32:
            data = pa.py_buffer(self._int32s())
        elif kind == _BOOL:
            data = pa.py_buffer(self._bits())
        elif kind == _INT64 or pa.types.is_string(kind):
            data = pa.py_buffer(self.data)
        else:
            raise TypeError(f"an Ints column does not write {kind}")
        values = pa.Array.from_buffers(
            _INT64 if pa.types.is_string(kind) else kind,
            n,
            [_validity(n, self.null_at), data],
            len(self.null_at),
        )
        return _named(values, CARD_NAMES) if pa.types.is_string(kind) else values

    def _int32s(self) -> object:
        """The values as 32-bit integers, in a buffer; one that does not fit is an
        ``OverflowError`` (the columns of that type hold positions and counts)."""
        n: cython.Py_ssize_t = self.n
        if not cython.compiled:
            return array("i", self.data[:n])
        out = bytearray(4 * n)
        raw: cython.p_char = out  # type: ignore[name-defined]
        to: cython.pointer(cython.int) = cython.cast(  # type: ignore[valid-type]
            cython.pointer(cython.int),  # type: ignore[attr-defined]
            raw,
        )
        i: cython.Py_ssize_t
        value: cython.longlong
        for i in range(n):
            value = self.at[i]
            if value != cython.cast(cython.int, value):
                raise OverflowError(f"{value} does not fit in 32 bits")
            to[i] = cython.cast(cython.int, value)
        return out

    def _bits(self) -> bytearray:
        """The values as Arrow's booleans: a bit each, the first value the lowest bit."""
        n: cython.Py_ssize_t = self.n
        out = bytearray((n + 7) >> 3)
        i: cython.Py_ssize_t
        if cython.compiled:
            to: cython.pointer(cython.uchar) = out  # type: ignore[valid-type]
            for i in range(n):
                if self.at[i]:
                    to[i >> 3] |= 1 << (i & 7)
        else:
            for i in range(n):
                if self.data[i]:
                    out[i >> 3] |= 1 << (i & 7)
        return out


class Texts:
    """Texts as a code per row into the distinct texts of the batch (None is code 0)."""

    codes: Ints
    index: dict[str | None, int]
    texts: list[str | None]

    def __init__(self) -> None:
        self.codes = Ints()
        self.index = {None: 0}
        self.texts = [None]

    def __len__(self) -> int:
        return len(self.codes)

    def code(self, text: object) -> int:
        """``text``'s code, for a hot path to add it to many rows without looking it up."""
        code: int | None = self.index.get(text)  # type: ignore[call-overload]
        if code is None:
            code = len(self.texts)
            self.index[text] = code  # type: ignore[index]
            self.texts.append(text)  # type: ignore[arg-type]
        return code

    def add(self, code: cython.longlong) -> None:
        self.codes.add(code)

    def append(self, value: object) -> None:
        self.add(self.code(value))

    def array(self, kind: Any) -> Any:
        """Dictionary-encoded: each distinct text once (None too, as code 0), a code a row."""
        return _named(self.codes.array(_INT64), array_of(self.texts, kind))


class CardLists:
    """Lists of card numbers (``Cards``/``OptCards`` columns), one after another, and where
    each list starts; Arrow makes the names by taking from the 52 card names."""

    cards: Ints
    offsets: Ints  # where each list starts in ``cards``, then where the last ends
    null_at: list[int]  # lists that are None

    def __init__(self) -> None:
        self.cards = Ints()
        self.offsets = Ints()
        self.offsets.add(0)
        self.null_at = []

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def append(self, values: object) -> None:
        """A list of card numbers, or None."""
        if values is None:
            self.null_at.append(len(self.offsets) - 1)
        else:
            cards = self.cards
            for card in values:  # type: ignore[attr-defined]
                cards.add(card)
        self.offsets.add(len(self.cards))

    def append_mask(self, mask: cython.longlong) -> None:
        """The cards of a legal mask, lowest first; ``DEAD`` (a dead card, never judged) is
        None."""
        if mask == NOT_JUDGED:
            self.append(None)
            return
        cards = self.cards
        while mask:
            low: cython.longlong = mask & -mask
            cards.add(card_of(low))
            mask ^= low
        self.offsets.add(len(cards))

    def array(self, kind: Any) -> Any:
        n = len(self)
        offsets = self.offsets.array(pa.int32()).buffers()[1]
        values = _named(self.cards.array(_INT64), CARD_NAMES)
        validity = _validity(n, self.null_at)
        return pa.ListArray.from_buffers(
            _CARDS_TYPE, n, [validity, offsets], len(self.null_at), 0, [values]
        )


class Objects:
    """Any other values (lists of texts, structs, bytes), as Python objects."""

    def __init__(self) -> None:
        self.values: list[Any] = []

    def __len__(self) -> int:
        return len(self.values)

    def append(self, value: object) -> None:
        self.values.append(value)

    def array(self, kind: Any) -> Any:
        return array_of(self.values, kind)


def _named(codes: Any, names: Any) -> Any:
    """``codes`` into ``names``, as Arrow's dictionary encoding: DuckDB stores the names,
    and neither the worker that builds the array nor the pipe to the loader copies a name
    per row (as ``take`` did, a third of the bytes between the processes)."""
    return pa.DictionaryArray.from_arrays(codes, names, safe=False)


def _validity(n: int, null_at: list[int]) -> Any:
    """Arrow's validity bitmap of ``n`` values with nulls at ``null_at``; None without."""
    if not null_at:
        return None
    bits = bytearray(b"\xff") * ((n + 7) >> 3)
    for i in null_at:
        bits[i >> 3] &= ~(1 << (i & 7)) & 0xFF
    return pa.py_buffer(bits)


def clean(value: Any) -> Any:
    """``value`` with lone surrogates (which JSON's ``\\ud800`` escapes can make) replaced by
    ``?``: Arrow and DuckDB take only valid UTF-8, and a log must not stop a load."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "replace").decode("utf-8")
        return value
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()}
    return value


def array_of(values: Sequence[Any], kind: Any) -> Any:
    """An Arrow array; only when Arrow refuses a value is every value looked at."""
    try:
        return pa.array(values, type=kind)
    except OverflowError:  # amounts grown past 64 bits (unlimited loo, ballooning pools)
        return pa.array(
            [v if v is None or _I64_MIN <= v <= _I64_MAX else None for v in values], type=kind
        )
    except (UnicodeEncodeError, pa.ArrowException):
        return pa.array(clean(values), type=kind)


_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1
