"""An ordered, bounded map over worker processes, local or on a Dask cluster.

The audit of one session document is a pure function of its bytes, so work
can go to other processes and come back in input order: output with
``--jobs N`` is identical to one job.  At most ``window`` batches are in
flight, so memory stays bounded however large the input.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from itertools import islice
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def ordered_map(
    fn: Callable[[T], R],
    items: Iterable[T],
    jobs: int,
    *,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    spawn: bool = False,
) -> Generator[R, None, None]:
    """``map(fn, items)`` over ``jobs`` processes, in order, with bounded look-ahead.

    ``initializer(*initargs)`` runs once in each worker (in this process with one job),
    for state sent once rather than with every item.  ``spawn`` starts the workers afresh
    instead of forking this process: a must when it holds a DuckDB connection.  Closed
    early (an error, a consumer that stops), the work still queued is cancelled and the
    workers are not waited for; run to its end, the workers are joined, so that none is
    left for the interpreter's exit to wake through a closed pipe (``Bad file descriptor``
    printed at exit).
    """
    if jobs <= 1:
        if initializer is not None:
            initializer(*initargs)
        yield from map(fn, items)
        return
    context = multiprocessing.get_context("spawn") if spawn else None
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=initializer, initargs=initargs)
    yield from _results(fn, iter(items), pool, 2 * jobs, deque())


def mapped_now(
    fn: Callable[[T], R], items: Iterable[T], pool: ProcessPoolExecutor, window: int
) -> Generator[R, None, None]:
    """``ordered_map`` over started workers, ``window`` items in flight, the first of them
    handed out now rather than when the first result is asked for: the workers begin
    while the caller still prepares to take the results."""
    rest = iter(items)
    pending: deque[Future[R]] = deque(pool.submit(fn, item) for item in islice(rest, window))
    return _results(fn, rest, pool, window, pending)


def _results(
    fn: Callable[[T], R],
    items: Iterator[T],
    pool: ProcessPoolExecutor,
    window: int,
    pending: deque[Future[R]],
) -> Generator[R, None, None]:
    """The results of ``pending`` then of ``items``, in order, ``window`` in flight; the
    pool shut down as ``ordered_map`` says."""
    finished = False
    try:
        for item in items:
            if len(pending) >= window:
                yield pending.popleft().result()
            pending.append(pool.submit(fn, item))
        while pending:
            yield pending.popleft().result()
        finished = True
    finally:
        pool.shutdown(wait=finished, cancel_futures=not finished)


def started_pool(
    jobs: int, *, initializer: Callable[..., None], initargs: tuple[Any, ...]
) -> ProcessPoolExecutor:
    """``jobs`` workers forked now, for ``mapped_now`` later: a forked worker starts
    with this process's modules imported, where a spawned one starts an interpreter and
    imports them again.  Call it before this process opens what a child must not inherit
    (a DuckDB database); the initializer can wait there for state known only after that.
    Spawned except on Linux."""
    pool = ProcessPoolExecutor(
        jobs, mp_context=early_context(), initializer=initializer, initargs=initargs
    )
    pool.submit(_nothing)  # forking, the first task starts every worker
    return pool


def early_context() -> multiprocessing.context.BaseContext:
    """How ``started_pool`` starts its workers, for the queues they are to share."""
    method = "fork" if sys.platform == "linux" else "spawn"  # macOS's libraries are not fork-safe
    return multiprocessing.get_context(method)


def _nothing() -> None:
    pass


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
