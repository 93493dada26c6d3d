"""Each audited session's document, compressed by the worker that audited it and sent with
its batch, so that any deal replays from the database alone (``db/documents.py`` keeps
those of the sessions the loader keeps).

The tables hold verdicts, not every event a replay steps through; the document's bytes
do, and they are what the session's ``digest`` was taken of.  The workers compress them
(LZ4, in parallel with the audit), keyed by line and digest.
"""

from __future__ import annotations

import pyarrow as pa  # type: ignore[import-untyped]

from loo_replay.run.frames import Batch

TABLE = "documents"  # the batch's table of them, and the database's
# The LZ4 frame format: simulated logs shrink 4.3 times at about 5 times zlib level 1's
# speed, which shrinks them 5.7 times; ingest is bound by CPU, the file is not
# (docs/performance.md, "Keeping the documents").
CODEC = pa.Codec("lz4")
SENT = pa.schema(  # as the workers send them, before the loader knows which are kept
    [("line", pa.int32()), ("digest", pa.string()), ("size", pa.int64()), ("body", pa.binary())]
)


class Compressed:
    """The documents a worker audited since its last batch, compressed."""

    def __init__(self) -> None:
        self.rows: list[tuple[int | None, str, int, bytes]] = []

    def add(self, raw: bytes, line: int | None, digest: str) -> None:
        self.rows.append((line, digest, len(raw), CODEC.compress(raw, asbytes=True)))

    def attach(self, batch: Batch) -> Batch:
        """``batch`` with these documents as one more of its tables; none are left here."""
        columns = [[row[i] for row in self.rows] for i in range(len(SENT))]
        batch.tables[TABLE] = pa.Table.from_arrays(
            [pa.array(c, f.type) for c, f in zip(columns, SENT, strict=True)], schema=SENT
        )
        self.rows = []
        return batch
