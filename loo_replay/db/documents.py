"""Each loaded session's document, compressed, so that any deal replays from the database alone.

The workers send each audited document with their batch (``run/compressed.py``); the
loader keeps those of the sessions it keeps, in the ``documents`` table
(docs/database.md).  ``serve`` reads one back per replay (docs/explorer.md).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pyarrow as pa  # type: ignore[import-untyped]

from loo_replay.engine.records import record
from loo_replay.logs.limits import over
from loo_replay.run.compressed import CODEC, SENT, TABLE
from loo_replay.run.frames import Batch, SessionItem, rows_in

if TYPE_CHECKING:  # DuckDB is imported where it is used
    import duckdb

_KEPT = pa.schema([("session_id", pa.string()), *SENT])


def kept(batch: Batch, items: Sequence[SessionItem]) -> pa.Table:
    """The documents of the audited ``items`` of ``batch``, keyed by their session id: a
    document is found by its line and digest, unique within the piece a batch comes from."""
    sent = batch.tables.get(TABLE)
    if sent is None or not items:
        return _KEPT.empty_table()
    at = {
        (line, digest): i
        for i, (line, digest) in enumerate(
            zip(sent.column("line").to_pylist(), sent.column("digest").to_pylist(), strict=True)
        )
    }
    ids, rows = [], []
    for item in items:
        row = at.get((item.line, item.digest))
        if row is not None:
            ids.append(item.session_id)
            rows.append(row)
    picked = rows_in(sent, [(row, row + 1) for row in rows])
    return pa.Table.from_arrays([pa.array(ids, pa.string()), *picked.columns], schema=_KEPT)


def sent_document(batch: Batch, item: SessionItem) -> bytes | None:
    """The bytes of ``item``'s document as its worker sent them with ``batch``."""
    sent = batch.tables.get(TABLE)
    if sent is None:
        return None
    lines, digests = sent.column("line").to_pylist(), sent.column("digest").to_pylist()
    for row, key in enumerate(zip(lines, digests, strict=True)):
        if key == (item.line, item.digest):
            size = sent.column("size")[row].as_py()
            body = sent.column("body")[row].as_py()
            raw: bytes = CODEC.decompress(body, decompressed_size=size, asbytes=True)
            return raw
    return None


_DIGEST = re.compile(r"[0-9a-f]{64}")  # sha256, as ``Compressed.add`` is given it
_MOST_RATIO = 255  # LZ4 writes a byte at least for every 255 it stands for


@record
class Stored:
    raw: bytes
    digest: str


class DocumentDamaged(ValueError):
    """The stored bytes do not decompress to the digest they were loaded with."""


class DocumentTooLarge(ValueError):
    """The stored document is larger than the reader's limit: it is not decompressed.  Its
    message names the limit and the option that raises it (docs/limits.md)."""

    def __init__(self, size: int, most: int) -> None:
        super().__init__(
            over("document_bytes", most, f"a document of {size:,} bytes, more than {most:,}")
        )
        self.size = size


def read_document(
    con: duckdb.DuckDBPyConnection, session_id: str, most: int | None = None
) -> Stored | None:
    """A loaded session's document as read at ingest, or None when the database has none
    for it (loaded before documents were kept); ``DocumentDamaged`` if it is not the same,
    ``DocumentTooLarge`` past ``most`` bytes (docs/limits.md), before decompressing it."""
    import duckdb

    # By the index of migration 9, the one row's bytes alone (migration 12): its size first,
    # so that a body past the limit is not even read.
    where = f"FROM {TABLE} WHERE session_id = ? LIMIT 1"
    try:
        found = con.execute(f"SELECT size, digest {where}", [session_id]).fetchall()
    except duckdb.CatalogException:  # a database older than the table: read, not upgraded
        return None
    if not found:
        return None
    size, digest = found[0]
    # A database may come from anyone (docs/database.md, "A database from someone else"):
    # the size is checked before it sizes a buffer, the bytes against the digest after.
    if not isinstance(size, int) or size < 0 or not _DIGEST.fullmatch(str(digest)):
        raise DocumentDamaged(f"the stored document of {session_id!r} is damaged")
    if most is not None and size > most:
        raise DocumentTooLarge(size, most)
    ((body,),) = con.execute(f"SELECT body {where}", [session_id]).fetchall()
    if size > _MOST_RATIO * len(body) + 64:  # more than LZ4 can make of these bytes
        raise DocumentDamaged(f"the stored document of {session_id!r} is damaged")
    try:
        raw = CODEC.decompress(body, decompressed_size=size, asbytes=True)
    except (OSError, ValueError, SystemError):  # pyarrow's errors for bytes that are not LZ4
        raise DocumentDamaged(f"the stored document of {session_id!r} is damaged") from None
    if len(raw) != size or hashlib.sha256(raw).hexdigest() != digest:
        raise DocumentDamaged(f"the stored document of {session_id!r} is not the one loaded")
    return Stored(raw, digest)


def kept_document(con: duckdb.DuckDBPyConnection, session_id: str, most: int) -> bytes | None:
    """The bytes of a session as loaded, if the database keeps an intact copy of at most
    ``most`` bytes: None sends the caller back to the log, which is the source (a damaged
    copy is a cache lost); ``DocumentTooLarge`` past ``most``."""
    try:
        stored = read_document(con, session_id, most)
    except DocumentDamaged:
        return None
    return None if stored is None else stored.raw
