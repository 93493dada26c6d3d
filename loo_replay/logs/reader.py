"""Hand-log files to JSON documents, streaming, with file and line for every one.

A ``.json`` file holds one document, a ``.jsonl``/``.ndjson`` file one per
line (blank lines skipped); either may be gzip-compressed, and a directory
stands for every such file below it in sorted order.  A document that is not
JSON is yielded with its error and raw text, so nothing read is lost.
Which files a command line names is ``logs/paths.py``'s to say.
"""

from __future__ import annotations

import gzip
import json
import zlib
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import cython
import orjson

SUFFIXES = (".json", ".jsonl", ".ndjson")
# ``loo-replay simulate`` writes its ground truth beside its logs; it is not a hand log.
TRUTH_SUFFIX = ".truth.json"


class ReadError(OSError):
    """A path that cannot be read at all: missing, unreadable, not gzip."""


@dataclass(frozen=True, slots=True)
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


# A read buffer that holds a whole session line: with the default 8 KiB, reading a line of
# a hundred deals (about 150 KB) cost a fortieth of validating it.  Not for gzip: a larger
# buffer over a truncated file would lose the lines read before the break with it.
READ_BUFFER = 1 << 20


def _open(path: Path) -> gzip.GzipFile | BinaryIO:
    try:
        if path.name.lower().endswith(".gz"):
            return gzip.open(path, "rb")
        return path.open("rb", buffering=READ_BUFFER)
    except OSError as exc:
        raise ReadError(f"{path}: cannot open: {exc.strerror or exc}") from None


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
def _plain_json(raw: bytes) -> cython.bint:
    """Whether ``raw`` (JSON orjson has read) says no key twice in one object and holds no
    number that orjson and Python's parser might read apart (a fraction, an exponent, more
    than 18 digits: orjson reads an integer beyond 64 bits as a float).  Keys are compared
    as bytes, so a key with an escape sends the document to Python's parser too.  Compiled,
    this is a C loop over the bytes that makes no Python object: the key spans of the open
    objects and where each open container's keys begin (-1 for an array) are read through
    typed memoryviews of three arrays (in pure Python, the arrays themselves)."""
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
            if depth == DEPTH_HELD:
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
            if end - i > 18 or (end < n and (text[end] == 46 or text[end] | 32 == 101)):
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


def plain_value(raw: bytes) -> Any:
    """``raw`` parsed by orjson when that is sure to equal Python's parser with duplicate
    keys refused (``_plain_json``), else ``NOT_PLAIN``."""
    if b"\\u" in raw:
        return NOT_PLAIN
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return NOT_PLAIN
    return value if _plain_json(raw) else NOT_PLAIN


def decode(doc: Document) -> Document:
    """``doc`` with its JSON parsed (or the parse error), once.

    Python's own parser reports duplicate keys (orjson keeps the last silently, and an
    audit must not guess which of two values the recorder meant), at about three times
    orjson's cost; so orjson parses first, and a count of keys and colons proves that no key
    was said twice (``plain_value``), else Python's parser reads the document again and says why.
    """
    if doc.value is not None or doc.error is not None:
        return doc
    value = plain_value(doc.raw)
    if value is not NOT_PLAIN:
        return Document(doc.file, doc.line, doc.raw, value)
    try:
        text = doc.raw.decode("utf-8")
        value = json.loads(text, object_pairs_hook=_object, parse_constant=_constant)
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, UnicodeDecodeError):
            reason = f"not UTF-8 (byte {exc.start}: {exc.reason})"
        elif isinstance(exc, RecursionError):
            reason = "not valid JSON: nested too deeply"
        else:
            reason = f"not valid JSON: {exc}"
        return Document(doc.file, doc.line, doc.raw, error=reason)
    return Document(doc.file, doc.line, doc.raw, value)


def read_documents(path: Path, parse: bool = True, name: str | None = None) -> Iterator[Document]:
    """Every document of one file, in order; ``ReadError`` if the file breaks off.
    With ``parse=False`` documents carry their bytes only (parsed later, elsewhere);
    they are named ``name`` (default: the path)."""
    name = str(path) if name is None else name
    stream = _open(path)
    try:
        with stream:
            if log_kind(path) == "json":
                doc = Document(name, None, stream.read())
                yield decode(doc) if parse else doc
                return
            for number, raw in enumerate(stream, start=1):
                if not raw.isspace():  # a blank line; ``strip`` would copy every line to say so
                    doc = Document(name, number, raw.rstrip(b"\r\n"))
                    yield decode(doc) if parse else doc
    except (OSError, EOFError, zlib.error) as exc:
        raise ReadError(f"{path}: cannot read: {exc}") from None
