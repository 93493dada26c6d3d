"""An ordered, bounded map over worker processes, local or on a Dask cluster.

The audit of one session document is a pure function of its bytes, so work
can go to other processes and come back in input order: output with
``--jobs N`` is identical to one job.  At most ``window`` batches are in
flight, so memory stays bounded however large the input.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from itertools import islice
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch


def ordered_map(fn: Callable[[T], R], items: Iterable[T], jobs: int) -> Iterator[R]:
    """``map(fn, items)`` over ``jobs`` processes, in order, with bounded look-ahead."""
    if jobs <= 1:
        yield from map(fn, items)
        return
    window = 2 * jobs
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: deque[Future[R]] = deque()
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def dask_map(fn: Callable[[T], R], items: Iterable[T], scheduler: str) -> Iterator[R]:
    """``map(fn, items)`` on the Dask cluster at ``scheduler``, in order, bounded.

    Needs the ``dask`` extra (``pip install 'loo-replay[dask]'``); each task is a pure
    function of its input, so results equal a local run's.
    """
    try:
        from distributed import Client
    except ImportError as exc:  # the extra is optional
        raise RuntimeError("--scheduler needs Dask: pip install 'loo-replay[dask]'") from exc
    with Client(scheduler) as client:  # type: ignore[no-untyped-call]
        window = 4 * max(1, sum(client.nthreads().values()))
        pending: deque[Any] = deque()
        for item in items:
            pending.append(client.submit(fn, item, pure=False))
            if len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
