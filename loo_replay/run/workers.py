"""An ordered, bounded map over worker processes, local or on a Dask cluster; and one
piece of work in a process of its own (``apart``).

The audit of one session document is a pure function of its bytes, so work
can go to other processes and come back in input order: output with
``--jobs N`` is identical to one job.  At most ``window`` batches are in
flight, so memory stays bounded however large the input.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import islice
from multiprocessing.connection import Connection
from multiprocessing.context import (
    BaseContext,
    ForkContext,
    ForkProcess,
    SpawnContext,
    SpawnProcess,
)
from typing import Any, TypeVar, cast

from loo_replay.errors import SchedulerError, WorkerDied, first_line

T = TypeVar("T")
R = TypeVar("R")

# How long a Dask scheduler has to answer before ``--scheduler`` gives up: a scheduler
# that is up answers in milliseconds, even across a network.
SCHEDULER_TIMEOUT = 5.0


def ordered_map(
    fn: Callable[[T], R],
    items: Iterable[T],
    jobs: int,
    *,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    spawn: bool = False,
    here: Callable[[T], R] | None = None,
) -> Generator[R, None, None]:
    """``map(fn, items)`` over ``jobs`` processes, in order, with bounded look-ahead.

    ``initializer(*initargs)`` runs once in each worker (in this process with one job),
    for state sent once rather than with every item.  ``spawn`` starts the workers afresh
    instead of forking this process: a must when it holds a DuckDB connection.  ``here``:
    this process is one of the ``jobs``, and works an item with ``here`` (what ``fn`` does,
    with this process's own state; no initializer) whenever its ``jobs - 1`` workers have
    two items each: one process fewer, whose imports and pools are not paid again.
    Closed early (an error, a consumer that stops), the work still queued is cancelled and
    the workers are not waited for; run to its end, the workers are joined, so that none is
    left for the interpreter's exit to wake through a closed pipe (``Bad file descriptor``
    printed at exit).
    """
    if here is not None and jobs <= 1:
        yield from map(here, items)
        return
    if jobs <= 1:
        if initializer is not None:
            initializer(*initargs)
        yield from map(fn, items)
        return
    method = "spawn" if spawn else multiprocessing.get_start_method()
    workers = jobs if here is None else jobs - 1
    pool = ProcessPoolExecutor(
        workers,
        mp_context=_quiet(method),
        initializer=_quiet_worker,
        initargs=(initializer, *initargs),
    )
    yield from _results(fn, iter(items), pool, 2 * workers, deque(), here=here)


# Ctrl-C in a terminal reaches every process of the command.  It is for the main process,
# which stops the pool and cleans up; a worker finishes its item and says nothing.  So a
# worker is started with SIGINT blocked (a blocked signal stays blocked across fork and
# exec, where a Python handler does not), and ignores it before unblocking it: a Ctrl-C
# while a spawned interpreter is still importing prints no traceback either.  And it is a
# daemon, ended at the main process's exit: a Ctrl-C between the pool's starting a worker
# and starting the thread that would tell it to stop left it waiting for work, and the
# main process waiting for it, for ever.


class _QuietStart:
    daemon: bool

    def start(self) -> None:
        self.daemon = True
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            super().start()  # type: ignore[misc]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


class _QuietForkProcess(_QuietStart, ForkProcess):
    pass


class _QuietSpawnProcess(_QuietStart, SpawnProcess):
    pass


class _QuietForkContext(ForkContext):
    Process = _QuietForkProcess


class _QuietSpawnContext(SpawnContext):
    Process = _QuietSpawnProcess


def _quiet(method: str) -> BaseContext:
    """The context of ``method`` (fork or spawn) whose processes start with SIGINT blocked."""
    return _QuietForkContext() if method == "fork" else _QuietSpawnContext()


def _quiet_worker(initializer: Callable[..., None] | None, *initargs: Any) -> None:
    """A worker's start: Ctrl-C ignored, then let through (to be ignored), then
    ``initializer(*initargs)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if initializer is not None:
        initializer(*initargs)


def apart(fn: Callable[..., R], *args: Any) -> R:
    """``fn(*args)`` in a process of its own, spawned (this process may hold DuckDB), its
    result or its error handed back: what the work leaves allocated (DuckDB's, pyarrow's
    pools) goes back to the system when the process ends, not kept beside what this
    process does next.  Ctrl-C, which reaches the child from the terminal or is passed on
    from here, stops the work there as it would here (its open transaction rolled back);
    this process waits for the child to end before its KeyboardInterrupt goes on."""
    context = _QuietSpawnContext()
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_apart, args=(send, fn, args), name="loo-replay apart")
    child.start()
    send.close()
    try:
        ok, value = receive.recv()
    except EOFError:  # it died without a word: killed, out of memory
        raise WorkerDied(WORKER_DIED) from None
    except BaseException:  # Ctrl-C here (and there, from a terminal): its work stops too
        if child.pid is not None and child.is_alive():
            os.kill(child.pid, signal.SIGINT)
        raise
    finally:
        child.join()
        receive.close()
    if not ok:
        raise value
    return cast(R, value)


def _apart(send: Connection, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """The child of ``apart``: started with SIGINT blocked (``_QuietStart``), it takes the
    first Ctrl-C as a KeyboardInterrupt once the work begins, and ignores any after it so
    that the unwinding finishes; whatever ends the work goes back whole."""

    def stop(signum: int, frame: object) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt

    outcome: tuple[bool, Any]
    try:
        signal.signal(signal.SIGINT, stop)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        outcome = (True, fn(*args))
    except BaseException as exc:  # said where the command was given
        outcome = (False, exc)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    send.send(outcome)
    send.close()


def mapped_now(
    fn: Callable[[T], R],
    items: Iterable[T],
    pool: ProcessPoolExecutor,
    window: int,
    idle: Callable[[], None] | None = None,
) -> Generator[R, None, None]:
    """``ordered_map`` over started workers, ``window`` items in flight, the first of them
    handed out now rather than when the first result is asked for: the workers begin
    while the caller still prepares to take the results.  ``idle`` is called, once every
    item is handed out, before waiting for a result that is not ready."""
    rest = iter(items)
    pending: deque[Future[R]] = deque(pool.submit(fn, item) for item in islice(rest, window))
    return _results(fn, rest, pool, window, pending, idle)


def _results(
    fn: Callable[[T], R],
    items: Iterator[T],
    pool: ProcessPoolExecutor,
    window: int,
    pending: deque[Future[R]],
    idle: Callable[[], None] | None = None,
    here: Callable[[T], R] | None = None,
) -> Generator[R, None, None]:
    """The results of ``pending`` then of ``items``, in order, ``window`` in the workers;
    with ``here``, an item that finds the workers' window full is worked in this process
    (``ordered_map``).  The pool is shut down as ``ordered_map`` says.  A worker that died
    (killed, out of memory) is ``WorkerDied`` here, the one place that knows of pools: the
    sinks see the library's error, never the pool's."""
    finished = False
    try:
        for item in items:
            if here is not None:
                while pending and pending[0].done():
                    yield pending.popleft().result()
                if sum(not f.done() for f in pending) >= window:
                    pending.append(_worked(here, item))
                    continue
            elif len(pending) >= window:
                yield pending.popleft().result()
            pending.append(pool.submit(fn, item))
        while pending:
            if idle is not None and not pending[0].done():
                idle()
            yield pending.popleft().result()
        finished = True
    except BrokenProcessPool:
        raise WorkerDied(WORKER_DIED) from None
    finally:
        pool.shutdown(wait=finished, cancel_futures=not finished)


def _worked(here: Callable[[T], R], item: T) -> Future[R]:
    """``here(item)`` worked now, in this process, as a finished future: it waits in line
    with the workers' results."""
    done: Future[R] = Future()
    done.set_result(here(item))
    return done


# What a worker's death says (``WorkerDied``): what each sink keeps is what it had committed
# or written before (a load rolls back the file it was loading).
WORKER_DIED = (
    "a worker process died (out of memory?); what was saved before is kept: run the "
    "command again, with fewer --jobs if memory is short"
)


def started_pool(
    jobs: int, *, initializer: Callable[..., None] | None, initargs: tuple[Any, ...]
) -> ProcessPoolExecutor:
    """``jobs`` workers forked now, for ``mapped_now`` later: a forked worker starts
    with this process's modules imported, where a spawned one starts an interpreter and
    imports them again.  Call it before this process opens what a child must not inherit
    (a DuckDB database); the initializer can wait there for state known only after that.
    Spawned except on Linux."""
    pool = ProcessPoolExecutor(
        jobs,
        mp_context=early_context(),
        initializer=_quiet_worker,
        initargs=(initializer, *initargs),
    )
    pool.submit(_nothing)  # forking, the first task starts every worker
    return pool


def early_context() -> BaseContext:
    """How ``started_pool`` starts its workers, for the queues they are to share."""
    return _quiet("fork" if sys.platform == "linux" else "spawn")  # macOS: not fork-safe


def _nothing() -> None:
    pass


def dask_map(fn: Callable[[T], R], items: Iterable[T], scheduler: str) -> Generator[R, None, None]:
    """``map(fn, items)`` on the Dask cluster at ``scheduler``, in order, bounded.

    Needs the ``dask`` extra (``pip install 'loo-replay[dask]'``); each task is a pure
    function of its input, so results equal a local run's.
    """
    with connected(scheduler) as client:
        window = 4 * max(1, sum(client.nthreads().values()))
        pending: deque[Any] = deque()
        for item in items:
            pending.append(client.submit(fn, item, pure=False))
            if len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def connected(scheduler: str) -> Any:
    """A client of the Dask cluster at ``scheduler`` (a context manager: closed on leaving
    it); ``SchedulerError`` when Dask is not installed or no scheduler answers within
    ``SCHEDULER_TIMEOUT``."""
    try:
        from distributed import Client
    except ImportError:  # the extra is optional
        raise SchedulerError("--scheduler needs Dask: pip install 'loo-replay[dask]'") from None
    try:
        return Client(scheduler, timeout=SCHEDULER_TIMEOUT)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        raise SchedulerError(
            f"--scheduler {scheduler}: no Dask scheduler answers there ({first_line(str(exc))})"
        ) from None


def reach(scheduler: str) -> None:
    """``SchedulerError`` now, before a command makes anything, when the Dask cluster at
    ``scheduler`` cannot be used (``connected``); the work connects again when it starts."""
    with connected(scheduler):
        pass
