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


def decode(doc: Document) -> Document:
    """``doc`` with its JSON parsed (or the parse error), once.

    Python's own parser, not orjson, because it reports duplicate keys (orjson keeps the
    last silently, and an audit must not guess which of two values the recorder meant);
    it costs about 30 µs a deal.
    """
    if doc.value is not None or doc.error is not None:
        return doc
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
