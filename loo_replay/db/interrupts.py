"""Ctrl-C during a long DuckDB statement (docs/limits.md, "Interrupts and errors").

DuckDB looks for Ctrl-C now and then while it runs a statement, but when its own threads do
the work, the calling thread may wait for them without looking, and a long query then runs
on to its end.  ``interruptible`` watches for the signal on a thread of its own: CPython
writes the number of every signal it catches to its wakeup pipe at once, whatever the main
thread is doing, and the watcher interrupts the connection, so that the statement ends
with DuckDB's interrupt error and the KeyboardInterrupt follows.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

import duckdb


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
