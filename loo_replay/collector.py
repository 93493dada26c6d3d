"""The cyclic garbage collector, run less often while logs are audited."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the cyclic garbage collector a hundred times less often meanwhile.

    Audits and rows are acyclic data in large numbers; with the default
    thresholds the collector rescans them over and over (it took 9 of 15
    seconds of an ingest, and 4% of validate's instructions).  Cycles are
    still collected, just in bigger sweeps.
    """
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], 1) * 100, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
