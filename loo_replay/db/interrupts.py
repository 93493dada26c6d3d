"""Ctrl-C during a long DuckDB statement (docs/limits.md, "Interrupts and errors"), and the
time bound of a statement (``bounded``; docs/limits.md, "A database from someone else").

DuckDB looks for Ctrl-C now and then while it runs a statement, but when its own threads do
the work, the calling thread may wait for them without looking, and a long query then runs
on to its end.  ``interruptible`` watches for the signal on a thread of its own: CPython
writes the number of every signal it catches to its wakeup pipe at once, whatever the main
thread is doing, and the watcher interrupts the connection, so that the statement ends
with DuckDB's interrupt error and the KeyboardInterrupt follows.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import signal
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Any, cast

import duckdb

from loo_replay.db.errors import DatabaseError


@contextlib.contextmanager
def interruptible(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Within the block, Ctrl-C interrupts ``con``'s statement.  The wakeup pipe in use
    before (``cli.main``'s) still hears of every signal.  Outside the main thread, which
    alone may set the pipe, it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    read, write = os.pipe()
    os.set_blocking(write, False)
    earlier = signal.set_wakeup_fd(write, warn_on_full_buffer=False)

    done = threading.Event()

    def watch() -> None:
        while data := os.read(read, 512):  # ends when the block closes the pipe
            if earlier != -1:
                with contextlib.suppress(OSError):
                    os.write(earlier, data)
            if signal.SIGINT.value in data:
                # Again and again until the block ends: DuckDB forgets an interrupt that
                # comes before it has begun the statement.
                while not done.wait(0.05):
                    con.interrupt()
                return

    watcher = threading.Thread(target=watch, name="duckdb-interrupt", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        signal.set_wakeup_fd(earlier, warn_on_full_buffer=False)
        os.close(write)
        watcher.join()
        os.close(read)


# The longest one statement of ``report``, ``stats`` or ``serve`` may run (docs/limits.md,
# "A database from someone else"): over a million deals a scan of each table takes about a
# second (docs/performance.md), so only a database made to be slow (rows that join each
# other a billion times over) comes near it.
READ_SECONDS = 120.0
SECONDS_ENV = "LOO_REPLAY_DB_SECONDS"


class StatementTooLong(DatabaseError):
    """A read ran past the time bound and was stopped; the message names the bound."""


def read_seconds() -> float:
    """The time bound of one statement, from ``LOO_REPLAY_DB_SECONDS`` or ``READ_SECONDS``."""
    text = os.environ.get(SECONDS_ENV, "").strip()
    if not text:
        return READ_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= 10**6:
        raise DatabaseError(
            f"{SECONDS_ENV}={text[:40]!r} is not a number of seconds from 0 to 1,000,000"
        )
    return seconds


class Bounded:
    """A connection whose every statement is stopped once it has run ``seconds``
    (``StatementTooLong``), and by Ctrl-C on the main thread (``interruptible``).  It
    stands in for the connection it wraps: each method call is one statement's time,
    and a relation it returns is timed as it runs (``sql(...).pl()``)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, seconds: float) -> None:
        self.con = con
        self.seconds = seconds
        self.since: float | None = None  # when the running call began
        self.expired = False  # the running call was interrupted for its time
        self.done = threading.Event()
        self.watcher = threading.Thread(target=self._watch, name="duckdb-clock", daemon=True)

    def _watch(self) -> None:
        while not self.done.wait(_TICK):
            since = self.since
            if since is None:
                continue
            if _STOPPING.is_set():
                self.con.interrupt()
            elif time.monotonic() - since > self.seconds:
                self.expired = True
                self.con.interrupt()  # again each tick: one before the statement is lost

    def timed(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        self.expired = False
        self.since = time.monotonic()
        try:
            result = call(*args, **kwargs)
        except duckdb.InterruptException:
            if self.expired:
                raise StatementTooLong(
                    f"a read of the database ran longer than {self.seconds:g} s, the bound of "
                    f"{SECONDS_ENV} (docs/limits.md): the database is too big or made to be "
                    f"slow; set {SECONDS_ENV} higher to let it run"
                ) from None
            raise
        finally:
            self.since = None
        if result is self.con:
            return self
        if isinstance(result, duckdb.DuckDBPyRelation):
            return _Relation(self, result)
        return result

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.con, name)
        if not callable(found) or name in _UNTIMED:
            return found
        return functools.partial(self.timed, found)


_TICK = 0.05
_UNTIMED = frozenset({"interrupt", "close", "cursor", "register", "unregister"})


class _Relation:
    """A relation of a ``Bounded`` connection: what it runs is timed the same way."""

    def __init__(self, clock: Bounded, relation: duckdb.DuckDBPyRelation) -> None:
        self.clock = clock
        self.relation = relation

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.relation, name)
        if not callable(found):
            return found
        return functools.partial(self.clock.timed, found)


_ACTIVE: weakref.WeakSet[Bounded] = weakref.WeakSet()


@contextlib.contextmanager
def bounded(
    con: duckdb.DuckDBPyConnection, seconds: float | None = None
) -> Iterator[duckdb.DuckDBPyConnection]:
    """``con`` as a ``Bounded`` connection for the block: each statement stopped after
    ``seconds`` (``read_seconds()`` unless given), and by Ctrl-C.  It is typed as the
    connection it stands in for, whose methods it has."""
    clock = start(con, seconds)
    try:
        with interruptible(con):
            yield cast(duckdb.DuckDBPyConnection, clock)
    finally:
        stop(clock)


def start(con: duckdb.DuckDBPyConnection, seconds: float | None = None) -> Bounded:
    """A ``Bounded`` connection, watched until ``stop`` (or for a worker process's life)."""
    clock = Bounded(con, read_seconds() if seconds is None else seconds)
    clock.watcher.start()
    _ACTIVE.add(clock)
    return clock


def stop(clock: Bounded) -> None:
    clock.done.set()
    clock.watcher.join()
    _ACTIVE.discard(clock)


def interrupt_all() -> None:
    """From now on, stop the statements of every ``Bounded`` connection as soon as they
    run (``serve`` as it stops: a request's read does not hold the process)."""
    _STOPPING.set()
    for clock in list(_ACTIVE):
        if clock.since is not None:
            clock.con.interrupt()


_STOPPING = threading.Event()
