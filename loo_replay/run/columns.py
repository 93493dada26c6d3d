"""The loader's columns: values stored as they come, Arrow arrays made once a batch.

A column of integers (or booleans, or card numbers) keeps its values as
64-bit integers in an ``array``; compiled, each value is one C store, and
Arrow takes the stored bytes as they are.  A column of texts keeps a code per
row and each distinct text once (a session id, a player's id), and becomes a
dictionary-encoded Arrow array of those codes (32 bits) and texts, as card
names are 8-bit codes into the 52 names: no name is copied per row, in the
worker or on the way to the loader, and DuckDB stores the names.  Before,
every value was a Python object in a list that Arrow converted one object at
a time; on 30,000 deals that conversion took 0.8 s, then 0.3
(docs/performance.md).  Nulls are rare, so a column keeps where they are,
not a flag per value.  A batch's columns start at the size of the last
batch's (``fresh``).
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
_INT8 = pa.int8()
_BOOL = pa.bool_()
INT_KINDS = (_INT64, _INT32, _BOOL)  # the Arrow types an ``Ints`` column writes (and card names)
_CARDS_TYPE = pa.list_(pa.dictionary(_INT8, pa.string()))
_START = 256  # values a new column has room for at first; it doubles when full
NOT_JUDGED: int = cython.declare(cython.longlong, DEAD)  # DEAD as a C constant


_LONG_LONGS = array("q")


def _room_for(n: cython.Py_ssize_t) -> array[int]:
    """Storage for ``n`` 64-bit values.  Compiled, it is allocated and not written: a
    value is stored before it is read, and Arrow reads the first ``n``.  Zeroing the room,
    then copying it into the array, was a tenth of making a batch's frames."""
    if not cython.compiled:
        return array("q", bytes(8 * n))
    return cpython.array.clone(_LONG_LONGS, n, False)  # type: ignore[name-defined,no-any-return]  # noqa: F821


class Ints:
    """Integers as 64-bit values; None, and an integer beyond 64 bits (unlimited loo's
    ballooning amounts), are null, as Arrow made them before.  In a column whose Arrow
    type is a string, the integers are card numbers, and the column holds their names."""

    data: array[int]  # compiled, also seen as a C array of ``cap`` long longs at ``at``
    at: cython.p_longlong  # compiled only
    n: cython.Py_ssize_t
    cap: cython.Py_ssize_t
    null_at: list[int]

    def __init__(self, cap: int = _START) -> None:
        self.data = _room_for(cap)
        self.n = 0
        self.cap = cap
        self.null_at = []
        self._found()

    def __len__(self) -> int:
        return self.n

    def fresh(self) -> Ints:
        """An empty column with this one's ``room``."""
        return Ints(self.room())

    def room(self) -> cython.Py_ssize_t:
        """What the next batch's column is to have room for: this one's room, or what it
        holds and a quarter more.  Columns start at their size, not at 256 values doubled
        again and again, and a piece's last, short batch does not shrink them."""
        return max(self.cap, self.n + (self.n >> 2))

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
        if cython.compiled:  # reallocated, the room added left as it is
            cpython.array.resize(self.data, 2 * self.cap)  # type: ignore[name-defined]  # noqa: F821
        else:
            self.data.frombytes(bytes(8 * self.cap))
        self.cap *= 2
        self._found()

    def _found(self) -> None:
        """Where the values are now (compiled: the array's C storage, which moves as it
        grows)."""
        if cython.compiled:
            self.at = self.data.data.as_longlongs  # type: ignore[attr-defined]

    def array(self, kind: Any) -> Any:
        """The values as an Arrow array of ``kind``: 64-, 32- or 8-bit integers, booleans,
        or a string for card names (dictionary-encoded, the values 8-bit indices into the
        52 names).  The narrower buffers are written here, not cast by Arrow, whose ``cast``
        imports ``pyarrow.compute``: 50 ms in each worker, and half of the tables' making."""
        n = self.n
        if pa.types.is_string(kind):
            return _named(self.array(_INT8), CARD_NAMES)
        if kind in (_INT32, _INT8):
            data = pa.py_buffer(self._narrowed(kind == _INT32))
        elif kind == _BOOL:
            data = pa.py_buffer(self._bits())
        elif kind == _INT64:
            data = pa.py_buffer(self.data)
        else:
            raise TypeError(f"an Ints column does not write {kind}")
        return pa.Array.from_buffers(kind, n, [_validity(n, self.null_at), data], len(self.null_at))

    def _narrowed(self, wide: cython.bint) -> object:
        """The values as 32-bit integers (``wide``) or 8-bit ones, in a buffer; one that does
        not fit is an ``OverflowError`` (such columns hold positions, counts and codes into
        a batch's texts or the 52 card names)."""
        n: cython.Py_ssize_t = self.n
        if not cython.compiled:
            return array("i" if wide else "b", self.data[:n])
        out = bytearray((4 if wide else 1) * n)
        raw: cython.p_char = out  # type: ignore[name-defined]
        to: cython.pointer(cython.int) = cython.cast(  # type: ignore[valid-type]
            cython.pointer(cython.int),  # type: ignore[attr-defined]
            raw,
        )
        i: cython.Py_ssize_t
        value: cython.longlong
        for i in range(n):
            value = self.at[i]
            if wide:
                if value != cython.cast(cython.int, value):
                    raise OverflowError(f"{value} does not fit in 32 bits")
                to[i] = cython.cast(cython.int, value)
            else:
                if value != cython.cast(cython.schar, value):
                    raise OverflowError(f"{value} does not fit in 8 bits")
                raw[i] = cython.cast(cython.schar, value)
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

    def __init__(self, cap: int = _START) -> None:
        self.codes = Ints(cap)
        self.index = {None: 0}
        self.texts = [None]

    def fresh(self) -> Texts:
        """An empty column sized as ``Ints.fresh``; the texts are the next batch's own."""
        return Texts(self.codes.room())

    def __len__(self) -> int:
        return len(self.codes)

    def code(self, text: object) -> cython.Py_ssize_t:
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
        """Dictionary-encoded: each distinct text once (None too, as code 0), a 32-bit code
        a row (a batch holds fewer rows than that)."""
        return _named(self.codes.array(_INT32), array_of(self.texts, kind))


class CardLists:
    """Lists of card numbers (``Cards``/``OptCards`` columns), one after another, and where
    each list starts; Arrow makes the names by taking from the 52 card names."""

    cards: Ints
    offsets: Ints  # where each list starts in ``cards``, then where the last ends
    null_at: list[int]  # lists that are None

    def __init__(self, lists: int = _START, cards: int = _START) -> None:
        self.cards = Ints(cards)
        self.offsets = Ints(lists + 1)
        self.offsets.add(0)
        self.null_at = []

    def fresh(self) -> CardLists:
        """An empty column sized as ``Ints.fresh``, for lists and for cards."""
        return CardLists(self.offsets.room() - 1, self.cards.room())

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
        values = self.cards.array(pa.string())  # card names
        validity = _validity(n, self.null_at)
        return pa.ListArray.from_buffers(
            _CARDS_TYPE, n, [validity, offsets], len(self.null_at), 0, [values]
        )


class Objects:
    """Any other values (lists of texts, structs, bytes), as Python objects."""

    def __init__(self) -> None:
        self.values: list[Any] = []

    def fresh(self) -> Objects:
        """An empty column (a list makes its own room)."""
        return Objects()

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
