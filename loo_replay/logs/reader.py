"""Hand-log files to JSON documents, streaming, with file and line for every one.

A ``.json`` file holds one document, a ``.jsonl``/``.ndjson`` file one per
line (blank lines skipped); either may be gzip-compressed, and a directory
stands for every such file below it in sorted order.  A document that is not
JSON is yielded with its error and raw text, so nothing read is lost.
Which files a command line names is ``logs/paths.py``'s to say.

The input is a stranger's, so reading stops at ``Limits`` (``logs/limits.py``): a line
or file is read at most one document's limit at a time, a longer one is skipped to its
end unheld and yielded as a rejected document, and a gzip file that grows past its ratio
is read no further.
"""

from __future__ import annotations

import gzip
import json
import math
import zlib
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, BinaryIO

import cython
import orjson

from loo_replay.engine.records import record
from loo_replay.errors import InputError
from loo_replay.logs.limits import LIMITS, RATIO_FLOOR, Limits, over
from loo_replay.lookalike import SURROGATE, escaped, safe

SUFFIXES = (".json", ".jsonl", ".ndjson")
# ``loo-replay simulate`` writes its ground truth beside its logs; it is not a hand log.
TRUTH_SUFFIX = ".truth.json"


class ReadError(InputError, OSError):
    """A path that cannot be read at all: missing, unreadable, not gzip."""


@record(slots=True)
class Document:
    file: str
    line: int | None  # 1-based line for JSON Lines, None for a .json file
    raw: bytes
    value: Any = None
    error: str | None = None  # set when ``raw`` is not a JSON document


def log_kind(path: Path) -> str | None:
    """``json`` or ``jsonl`` for a hand-log file name, else None."""
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith(TRUTH_SUFFIX):
        return None
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return "json" if suffix == ".json" else "jsonl"
    return None


# A file's bytes as read: plain, or decompressed as they are read.
Stream = BinaryIO | gzip.GzipFile

# A read buffer that holds a whole session line, which the default 8 KiB made costly
# (docs/performance.md, "The validate path: where a deal's time goes").  Not for gzip: a
# larger buffer over a truncated file would lose the lines read before the break with it.
READ_BUFFER = 1 << 20


def _open(path: Path) -> tuple[Stream, IO[bytes] | None]:
    """The file's bytes as a stream, and for gzip the compressed file under it (whose
    position is the compressed bytes read so far), else None."""
    try:
        if path.name.lower().endswith(".gz"):
            packed = path.open("rb")
            return gzip.GzipFile(fileobj=packed, mode="rb"), packed
        return path.open("rb", buffering=READ_BUFFER), None
    except OSError as exc:
        raise ReadError(f"{path}: cannot open: {exc.strerror or exc}") from None


# What a line past the limit is skipped by, a piece at a time.
SKIP_BYTES = 1 << 20


def _bomb(packed: IO[bytes] | None, read: int, limits: Limits) -> str | None:
    """Why reading stops, when ``read`` bytes came from too few compressed ones."""
    if packed is None or read <= RATIO_FLOOR:
        return None
    size = packed.tell()
    if read <= limits.gzip_ratio * size:
        return None
    what = f"gzip that grew from {size:,} bytes to {read:,} and more"
    return over("gzip_ratio", limits.gzip_ratio, what)


def read_lines(
    stream: Stream,
    name: str,
    limits: Limits,
    packed: IO[bytes] | None = None,
    first: int = 1,
    size: int | None = None,
) -> Iterator[Document]:
    """The documents of a JSON Lines stream (blank lines skipped), numbered from ``first``,
    at most ``size`` bytes of it (default: to its end).  A line longer than
    ``limits.document_bytes`` is skipped to its end, a piece at a time, and yielded as a
    rejected document; a gzip stream (``packed``: the file under it) past the ratio yields
    a rejected document and ends."""
    most = limits.document_bytes
    left = -1 if size is None else size
    read = 0
    number = first - 1
    while left:
        raw = stream.readline(most + 2 if left < 0 else min(most + 2, left))
        if not raw:
            return
        number += 1
        read += len(raw)
        left -= len(raw) if left > 0 else 0
        if len(raw) - raw.endswith(b"\n") > most:
            length = len(raw)
            while not raw.endswith(b"\n") and left:
                raw = stream.readline(SKIP_BYTES if left < 0 else min(SKIP_BYTES, left))
                length += len(raw)
                read += len(raw)
                left -= len(raw) if left > 0 else 0
                bomb = _bomb(packed, read, limits)
                if bomb is not None:  # the file is read no further: that is the one reason
                    yield Document(name, number, b"", error=bomb)
                    return
                if not raw:
                    break
            length -= raw.endswith(b"\n")
            what = f"a line of {length:,} bytes"
            yield Document(name, number, b"", error=over("document_bytes", most, what))
        elif not raw.isspace():  # a blank line; ``strip`` would copy every line to say so
            yield Document(name, number, raw.rstrip(b"\r\n"))
        bomb = _bomb(packed, read, limits)
        if bomb is not None:
            yield Document(name, number, b"", error=bomb)
            return


class _Duplicate(ValueError):
    pass


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise _Duplicate(f"duplicate key {key!r} in one object: a record must not say two things")
    return obj


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


NOT_PLAIN = object()  # what ``plain_value`` returns when Python's parser must read the JSON


# keys of the open objects _plain_json compares, and the open objects and arrays it
# follows; past those, Python's parser reads the document
KEYS_HELD: int = cython.declare(cython.Py_ssize_t, 512)
DEPTH_HELD: int = cython.declare(cython.Py_ssize_t, 64)


@cython.cfunc
def _plain_json(
    raw: bytes,
    depth_most: cython.Py_ssize_t,
    string_most: cython.Py_ssize_t,
    number_most: cython.Py_ssize_t,
) -> cython.bint:
    """Whether ``raw`` (JSON orjson has read) says no key twice in one object and holds no
    number that orjson and Python's parser might read apart (a fraction, an exponent, more
    than 18 digits: orjson reads an integer beyond 64 bits as a float).  Keys are compared
    as bytes, so a key with an escape sends the document to Python's parser too.  Compiled,
    this is a C loop over the bytes that makes no Python object: the key spans of the open
    objects and where each open container's keys begin (-1 for an array) are read through
    typed memoryviews of three arrays (in pure Python, the arrays themselves).  A document
    nested deeper than ``depth_most`` (at most ``DEPTH_HELD``), with a string of more than
    ``string_most`` bytes or a number of more than ``number_most`` characters goes to
    Python's parser too, which judges the limits."""
    text: cython.p_const_uchar = raw
    n: cython.Py_ssize_t = len(raw)
    escapes: cython.bint = b"\\" in raw
    key_at = cython.declare(cython.longlong[::1], array("q", bytes(8 * KEYS_HELD)))  # type: ignore[misc]
    key_size = cython.declare(cython.longlong[::1], array("q", bytes(8 * KEYS_HELD)))  # type: ignore[misc]
    first_key = cython.declare(cython.longlong[::1], array("q", bytes(8 * DEPTH_HELD)))  # type: ignore[misc]
    keys: cython.Py_ssize_t = 0
    depth: cython.Py_ssize_t = 0
    i: cython.Py_ssize_t = 0
    end: cython.Py_ssize_t
    k: cython.Py_ssize_t
    c: cython.uchar
    want_key: cython.bint = False
    while i < n:
        c = text[i]
        if c == 34:  # a string: a key, or a value whose bytes matter not
            end = i + 1
            if cython.compiled or escapes:
                while text[end] != 34:
                    if text[end] == 92:
                        if want_key:
                            return False
                        end += 1
                    end += 1
            else:
                end = raw.find(b'"', end)
            if end - i > string_most + 1:  # the bytes between the quotes
                return False
            if want_key:
                if keys == KEYS_HELD:
                    return False
                for k in range(first_key[depth - 1], keys):
                    if key_size[k] == end - i and _same(text, key_at[k], i, end - i):
                        return False
                key_at[keys] = i
                key_size[keys] = end - i
                keys += 1
                want_key = False
            i = end + 1
        elif c == 123 or c == 91:  # { [
            if depth >= depth_most:
                return False
            first_key[depth] = keys if c == 123 else -1
            depth += 1
            want_key = c == 123
            i += 1
        elif c == 125 or c == 93:  # } ]
            depth -= 1
            if first_key[depth] >= 0:
                keys = first_key[depth]
            want_key = False
            i += 1
        elif c == 44:  # ,
            want_key = first_key[depth - 1] >= 0
            i += 1
        elif c == 45 or 48 <= c <= 57:  # a number
            end = i + 1
            while end < n and 48 <= text[end] <= 57:
                end += 1
            if end - i > 18 or end - i > number_most:
                return False
            if end < n and (text[end] == 46 or text[end] | 32 == 101):
                return False  # . e E
            i = end
        else:  # white space, a colon, true, false, null
            i += 1
    return True


@cython.cfunc
@cython.inline
def _same(
    text: cython.p_const_uchar, a: cython.Py_ssize_t, b: cython.Py_ssize_t, size: cython.Py_ssize_t
) -> cython.bint:
    """Whether the ``size`` bytes of ``text`` at ``a`` and at ``b`` are the same."""
    k: cython.Py_ssize_t
    for k in range(size):  # noqa: SIM110  (a loop compiles to C, a generator does not)
        if text[a + k] != text[b + k]:
            return False
    return True


def plain_value(raw: bytes, limits: Limits = LIMITS, outer: cython.Py_ssize_t = 0) -> Any:
    """``raw`` parsed by orjson when that is sure to equal Python's parser with duplicate
    keys refused and to be within ``limits``, ``outer`` objects and arrays deep in its
    document (``_plain_json``), else ``NOT_PLAIN``."""
    if b"\\u" in raw:
        return NOT_PLAIN
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return NOT_PLAIN
    depth_most: cython.Py_ssize_t = min(limits.depth - outer, DEPTH_HELD)
    plain = _plain_json(raw, depth_most, limits.string_length, limits.number_length)
    return value if plain else NOT_PLAIN


class _Number:
    """Python's parser's reading of numbers, within ``Limits.number_length`` and finite:
    ``1e400`` would be infinity, and a long integer costs time quadratic in its digits."""

    def __init__(self, limits: Limits) -> None:
        self.most = limits.number_length

    def _check(self, text: str) -> None:
        if len(text) > self.most:
            what = f"a number of {len(text):,} characters"
            raise _Beyond(over("number_length", self.most, what))

    def integer(self, text: str) -> int:
        self._check(text)
        return int(text)

    def fraction(self, text: str) -> float:
        self._check(text)
        value = float(text)
        if value in (math.inf, -math.inf):
            raise _Beyond(f"the number {text} is too large to be read (beyond 1.8e308)")
        return value


def _surrogate(text: str, at: int) -> str:
    """The log error of a string with a lone surrogate: JSON's ``\\ud800`` escape names half
    of a character, which is no text (UTF-8 cannot hold it, and no two readers agree on it)."""
    shown = safe(text[max(0, at - 20) : at + 20], 60)
    return (
        f'a lone surrogate ({escaped(text[at])}) in the string "{shown}": a \\u escape '
        "from \\ud800 to \\udfff must pair with another to spell one character"
    )


class _Beyond(ValueError):
    """A document past one of the limits: its message says which and how to raise it."""


def _beyond(value: Any, limits: Limits) -> str | None:
    """Why ``value`` (parsed by Python's parser) is past ``limits.depth`` or
    ``limits.string_length``, or holds a lone surrogate, or None.  Only documents orjson
    could not vouch for come here, so the walk of every value costs the common case
    nothing."""
    most = limits.string_length
    held: list[tuple[Any, int]] = [(value, 1)]
    while held:
        item, depth = held.pop()
        if isinstance(item, str):
            if len(item) > most:
                return over("string_length", most, f"a string of {len(item):,} characters")
            if not item.isascii():
                found = SURROGATE.search(item)
                if found is not None:
                    return _surrogate(item, found.start())
            continue
        if not isinstance(item, (dict, list)):
            continue
        if depth > limits.depth:
            return over("depth", limits.depth, f"objects and arrays nested {depth} deep")
        if isinstance(item, dict):
            held.extend((key, depth) for key in item)
            item = item.values()
        held.extend((child, depth + 1) for child in item)
    return None


def decode(doc: Document, limits: Limits = LIMITS) -> Document:
    """``doc`` with its JSON parsed (or the parse error), once, within ``limits``.

    Python's own parser reports duplicate keys (orjson keeps the last silently, and an
    audit must not guess which of two values the recorder meant), at about three times
    orjson's cost; so orjson parses first, and a count of keys and colons proves that no key
    was said twice (``plain_value``), else Python's parser reads the document again and says why.
    """
    if doc.value is not None or doc.error is not None:
        return doc
    value = plain_value(doc.raw, limits)
    if value is not NOT_PLAIN:
        return Document(doc.file, doc.line, doc.raw, value)
    numbers = _Number(limits)
    try:
        text = doc.raw.decode("utf-8")
        value = json.loads(
            text,
            object_pairs_hook=_object,
            parse_constant=_constant,
            parse_int=numbers.integer,
            parse_float=numbers.fraction,
        )
        reason = _beyond(value, limits)
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, UnicodeDecodeError):
            reason = f"not UTF-8 (byte {exc.start}: {exc.reason})"
        elif isinstance(exc, RecursionError):
            what = f"objects and arrays nested too deeply (more than {limits.depth} levels)"
            reason = over("depth", limits.depth, what)
        elif isinstance(exc, _Beyond):
            reason = str(exc)
        else:
            reason = f"not valid JSON: {exc}"
    if reason is not None:
        return Document(doc.file, doc.line, doc.raw, error=reason)
    return Document(doc.file, doc.line, doc.raw, value)


def read_documents(
    path: Path, parse: bool = True, name: str | None = None, limits: Limits = LIMITS
) -> Iterator[Document]:
    """Every document of one file, in order, within ``limits``; ``ReadError`` if the file
    breaks off.  With ``parse=False`` documents carry their bytes only (parsed later,
    elsewhere); they are named ``name`` (default: the path)."""
    name = str(path) if name is None else name
    stream, packed = _open(path)
    try:
        with stream, packed or stream:
            if log_kind(path) == "json":
                yield _whole(stream, packed, name, limits, parse)
                return
            for doc in read_lines(stream, name, limits, packed):
                yield decode(doc, limits) if parse else doc
    except (OSError, EOFError, zlib.error) as exc:
        raise ReadError(f"{path}: cannot read: {exc}") from None


def _whole(
    stream: Stream, packed: IO[bytes] | None, name: str, limits: Limits, parse: bool
) -> Document:
    """A ``.json`` file's one document, read no further than its limits."""
    most = limits.document_bytes
    raw = stream.read(most + 1)
    bomb = _bomb(packed, len(raw), limits)
    if bomb is not None:
        return Document(name, None, b"", error=bomb)
    if len(raw) > most:
        what = f"a file of more than {most:,} bytes"
        return Document(name, None, b"", error=over("document_bytes", most, what))
    doc = Document(name, None, raw)
    return decode(doc, limits) if parse else doc
