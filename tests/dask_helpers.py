"""A real ``distributed.LocalCluster`` with two worker processes, standing in for a remote
cluster: the same scheduler protocol, the same pickling.  Its scheduler's HTTP server takes
a free port (``:0``): on 8787, Dask's default even without a dashboard, two test files'
clusters running at once on the two test workers collided and one warned."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest


@contextmanager
def local_cluster() -> Iterator[str]:
    """The cluster's scheduler address, for ``--scheduler``.  Dask is imported here, by the
    test that asks, not while the tests are collected (0.4 s on both workers)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        yield cluster.scheduler_address
