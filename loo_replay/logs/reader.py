"""Hand-log files to JSON documents, streaming, with file and line for every one.

A ``.json`` file holds one document, a ``.jsonl``/``.ndjson`` file one per
line (blank lines skipped); either may be gzip-compressed, and a directory
stands for every such file below it in sorted order.  A document that is not
JSON is yielded with its error and raw text, so nothing read is lost.
"""

from __future__ import annotations

import gzip
import io
import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def expand(paths: list[Path]) -> list[Path]:
    """The log files named by ``paths``, directories expanded recursively in sorted order."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = [p for p in path.rglob("*") if p.is_file() and log_kind(p)]
            if not found:  # a folder named for its logs that holds none: nothing to audit
                raise ReadError(
                    f"{path}: no hand logs in this folder (.json, .jsonl, .ndjson, optionally .gz)"
                )
            files.extend(sorted(found, key=lambda p: p.relative_to(path).as_posix()))
        elif path.exists():
            if log_kind(path) is None:
                raise ReadError(
                    f"{path}: not a hand log (expected .json, .jsonl, .ndjson, optionally .gz)"
                )
            files.append(path)
        else:
            raise ReadError(f"{path}: no such file or directory")
    return files


def _open(path: Path) -> io.BufferedIOBase:
    try:
        if path.name.lower().endswith(".gz"):
            return gzip.open(path, "rb")
        return path.open("rb")
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


_SLOW = object()  # what ``_fast`` returns when Python's parser must read the document


def _keys_and_colons(value: Any) -> int:
    """The keys of every object in ``value`` plus the colons in its strings; -1 where a
    float is met (orjson reads an integer beyond 64 bits as a float, Python's parser not)."""
    n = 0
    items = value
    if type(value) is dict:
        n = len(value)
        for key in value:
            if ":" in key:
                n += key.count(":")
        items = value.values()
    for item in items:
        kind = type(item)
        if kind is dict or kind is list:
            inner = _keys_and_colons(item)
            if inner < 0:
                return -1
            n += inner
        elif kind is str and ":" in item:
            n += item.count(":")
        elif kind is float:
            return -1
    return n


def _fast(raw: bytes) -> Any:
    """``raw`` parsed by orjson when that is sure to equal Python's parser with duplicate
    keys refused, else ``_SLOW``.  Without ``\\u`` escapes, each colon in the bytes is a key's
    or one inside a string kept in the value; a key said twice leaves one colon uncounted."""
    if b"\\u" in raw:
        return _SLOW
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _SLOW
    kind = type(value)
    if kind is float:
        return _SLOW
    if kind is dict or kind is list:
        try:
            if _keys_and_colons(value) != raw.count(b":"):
                return _SLOW
        except RecursionError:
            return _SLOW
    return value


def decode(doc: Document) -> Document:
    """``doc`` with its JSON parsed (or the parse error), once.

    Python's own parser reports duplicate keys (orjson keeps the last silently, and an
    audit must not guess which of two values the recorder meant), at about three times
    orjson's cost; so orjson parses first, and a count of keys and colons proves that no key
    was said twice (``_fast``), else Python's parser reads the document again and says why.
    """
    if doc.value is not None or doc.error is not None:
        return doc
    value = _fast(doc.raw)
    if value is not _SLOW:
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
                if raw.strip():
                    doc = Document(name, number, raw.rstrip(b"\r\n"))
                    yield decode(doc) if parse else doc
    except (OSError, EOFError, zlib.error) as exc:
        raise ReadError(f"{path}: cannot read: {exc}") from None
