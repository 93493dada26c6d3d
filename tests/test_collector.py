"""The garbage collector runs a hundred times less often while logs are audited and loaded,
and no less often than that when those overlap (ingest loads around its own audit)."""

from __future__ import annotations

import gc

from loo_replay.gc_thresholds import RARE, fewer_collections


def test_fewer_collections_raises_the_threshold_once_even_nested_and_restores_it() -> None:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        with fewer_collections():
            assert gc.get_threshold() == (RARE, 10, 10)
            with fewer_collections():
                assert gc.get_threshold() == (RARE, 10, 10)  # not RARE times a hundred
            assert gc.get_threshold() == (RARE, 10, 10)
        assert gc.get_threshold() == (700, 10, 10)
        gc.set_threshold(10 * RARE, 10, 10)  # a user's own rarer collections are kept
        with fewer_collections():
            assert gc.get_threshold() == (10 * RARE, 10, 10)
    finally:
        gc.set_threshold(*before)
