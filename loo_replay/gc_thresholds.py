"""The cyclic garbage collector, run less often while logs are audited."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

RARE = 70_000  # allocations between collections: a hundred times Python's default


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the cyclic garbage collector a hundred times less often meanwhile (never more
    often than it ran before; nested, as ingest's loading around its own audit, it stays
    a hundred times, not ten thousand).

    Audits and rows are acyclic data in large numbers; with the default
    thresholds the collector rescans them over and over (docs/performance.md, "What
    limits `ingest` and `report`").  Cycles are still collected, just in bigger sweeps.
    """
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], RARE), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
