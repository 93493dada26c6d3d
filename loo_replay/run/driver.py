"""The one driver of work over the input's logs: its files expanded and planned into shares
(``logs.pieces``), each share's work run in this process, in ``jobs`` worker processes or
on a Dask cluster, and the results handed back in input order to the command's sink (the
database's loader, ``db.ingest``).

The paths of a command line are expanded here, once (``Given``): the command line's check
(``unreadable``), the progress bar's whole (``input_bytes``) and the plan are one walk of
the folders, and no module outside ``run/`` walks them.

The work is the sink's: functions at a module's top level, so that a worker process or a
Dask task can run them.  A worker's state comes once, through its initializer, and one
part of it late (``Workers.start``): the workers are forked before the sink opens what no
child may inherit (a DuckDB database), and learn then what it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing, suppress
from dataclasses import dataclass
from multiprocessing.queues import SimpleQueue
from pathlib import Path
from typing import Any, Generic, TypeVar

from loo_replay.logs.limits import Limits
from loo_replay.logs.paths import Expanded, Skipped, entries, expand
from loo_replay.logs.pieces import PIECE_BYTES, Share, plan_pieces, read_piece, share
from loo_replay.logs.reader import Document, ReadError, read_documents
from loo_replay.run.workers import dask_map, early_context, mapped_now, started_pool

B = TypeVar("B")  # what the sink takes: a batch of rows
P = TypeVar("P")  # what a worker sends back for a share: its batches, packed

Results = Generator[tuple[Share, Iterable[B]], None, None]


class Given(list[Path]):
    """The paths of a command line and what they hold, expanded once when given: the
    check of the command line and the work that follows see the same files, and the
    folders are walked once per command."""

    def __init__(self, paths: Iterable[Path]) -> None:
        super().__init__(paths)
        self.found = expand(self)


def expanded(paths: Iterable[Path]) -> Expanded:
    """What ``paths`` hold: expanded when they were given (``Given``), else now."""
    return paths.found if isinstance(paths, Given) else expand(paths)


def unreadable(paths: Iterable[Path]) -> list[str]:
    """The paths that cannot be read at all (missing, not a hand log, a folder with none),
    one sentence each."""
    return expanded(paths).errors


def input_bytes(paths: Iterable[Path]) -> int:
    """The bytes of the log files under ``paths`` on disk: a progress bar's whole, which the
    planned pieces count down (``Piece.size``); a file that cannot be examined counts 0 (it
    is said when it is read)."""
    total = 0
    for file in expanded(paths).files:
        with suppress(OSError):
            total += file.stat().st_size
    return total


U = TypeVar("U")  # what a caller makes of an input it cannot read


def documents(
    paths: Iterable[Path], limits: Limits, unread: Callable[[str, str], U]
) -> Iterator[Document | U]:
    """Every document under ``paths`` in order, read within ``limits`` (parsed, as one
    process reads them: ``verify`` of logs, which seals and codes check), and in its place
    ``unread(where, why)`` for each path, folder entry or file that cannot be read."""
    for given in paths:
        try:
            found = entries(given)
        except ReadError as exc:
            yield unread(str(given), str(exc))
            continue
        for entry in found:
            if isinstance(entry, Skipped):
                yield unread(entry.path, str(entry))
                continue
            try:
                yield from read_documents(entry, limits=limits)
            except ReadError as exc:
                yield unread(str(entry), str(exc))


@dataclass(frozen=True)
class Input:
    """The input's files (what was found, skipped or unreadable), planned into shares."""

    found: Expanded
    shares: list[Share]


def plan(
    paths: Iterable[Path], piece_bytes: int, share_files: int, name: Callable[[Path], str]
) -> Input:
    """``paths`` expanded (once: ``Given``) and planned into pieces of about
    ``piece_bytes``, small whole files gathered into shares of ``share_files`` at most;
    each file's documents are named ``name(file)``."""
    found = expanded(paths)
    pieces = plan_pieces(found.files, piece_bytes, [name(f) for f in found.files])
    return Input(found, share(pieces, piece_bytes, share_files))


def in_process(shares: list[Share], work: Callable[[Share], Iterable[B]]) -> Results[B]:
    """Each share's work, here, when its results are asked for."""
    for pieces in shares:
        yield pieces, work(pieces)


class Workers(Generic[P, B]):
    """``jobs`` worker processes, started now (forked, on Linux: each starts with this
    process's modules imported, where a spawned worker started an interpreter and imported
    them again), each running ``initializer(*initargs, late)``, where ``late`` is a queue
    that brings the state known only later (``start``), or None when the work stops first.
    Each share is audited by ``work`` and its result unpacked here by ``unpack``."""

    def __init__(
        self,
        shares: list[Share],
        jobs: int,
        work: Callable[[Share], P],
        unpack: Callable[[P], Iterable[B]],
        initializer: Callable[..., None],
        initargs: tuple[Any, ...],
        ahead: int,
    ) -> None:
        self.jobs = jobs
        self.late: SimpleQueue[Any] = early_context().SimpleQueue()
        self.sent = False
        self.shares = shares
        self.work = work
        self.unpack = unpack
        self.ahead = ahead  # shares in flight per worker
        self.done: Generator[P, None, None] | None = None  # once shares are handed out
        self.taken = False  # a result was asked for
        self.idle: Callable[[], None] | None = None  # ``results``'s, while the last finish
        self.pool = started_pool(jobs, initializer=initializer, initargs=(*initargs, self.late))

    def start(self, late: Any) -> None:
        """Send the workers ``late`` and hand out the first shares now; once, later calls do
        nothing."""
        if self.done is None:
            self.send(late)
            self.done = mapped_now(
                self.work, self.shares, self.pool, self.ahead * self.jobs, self._waiting
            )

    def results(self, idle: Callable[[], None] | None = None) -> Results[B]:
        """The shares' results (``start`` first), in input order; at most ``ahead`` shares
        per worker are in flight.  Once every share is handed out, ``idle`` is called
        before waiting for one that is not done."""
        assert self.done is not None, "start hands the shares out"
        self.taken = True
        self.idle = idle
        with closing(self.done):  # closing this generator stops the workers at once
            for pieces, data in zip(self.shares, self.done, strict=True):
                yield pieces, self.unpack(data)

    def _waiting(self) -> None:
        if self.idle is not None:
            self.idle()

    def stop(self) -> None:
        """No more work.  If no result was asked for (the sink could not start), the
        workers are told to end and are waited for: idle ones end at once, and busy ones
        finish their share; a pool left behind is woken at the interpreter's exit through
        a closed pipe, which prints an error.  Otherwise the shares still queued are
        dropped and busy workers are not waited for."""
        self.send(None)
        self.pool.shutdown(wait=not self.taken, cancel_futures=True)

    def send(self, late: Any) -> None:
        """Send every worker ``late`` (None: stop), once; later calls do nothing."""
        if not self.sent:
            self.sent = True
            for _ in range(self.jobs):
                self.late.put(late)


# -- on a Dask cluster -------------------------------------------------------------


@dataclass(frozen=True)
class Carried:
    """Documents of a share read by this process and carried to a Dask worker, which may
    not see this machine's files (as validate's tasks for Dask carry theirs)."""

    setup: Any  # what the task's work is made of: it goes with every task
    files: list[tuple[list[Document], str | None]]  # a file's documents, why it broke off
    last: bool  # the share's last task

    def documents(self) -> list[Iterator[Document]]:
        """Each file's carried documents, then the read error it broke off at, as
        ``read_piece`` raised it where the file is."""
        return [_read(docs, error) for docs, error in self.files]


def _read(documents: list[Document], error: str | None) -> Iterator[Document]:
    yield from documents
    if error is not None:
        raise ReadError(error)


def carried(
    share: Share, setup: Any, limits: Limits, task_bytes: int = PIECE_BYTES
) -> Iterator[Carried]:
    """A share's documents, each read within ``limits``, in tasks of about ``task_bytes``:
    a ``.gz`` or ``.json`` file is one piece however large, but not one task."""
    files: list[tuple[list[Document], str | None]] = []
    held = 0
    for piece in share:
        docs: list[Document] = []
        files.append((docs, None))
        try:
            for doc in read_piece(piece, limits):
                docs.append(doc)
                held += len(doc.raw)
                if held >= task_bytes:
                    yield Carried(setup, files, False)
                    docs, held = [], 0
                    files = [(docs, None)]
        except ReadError as exc:
            files[-1] = (docs, str(exc))
    yield Carried(setup, files, True)


def on_dask(
    shares: list[Share],
    setup: Any,
    limits: Limits,
    scheduler: str,
    task_bytes: int,
    work: Callable[[Carried], tuple[bool, P]],
    unpack: Callable[[P], Iterable[B]],
) -> Results[B]:
    """The shares' ``work`` on the Dask cluster at ``scheduler`` (``run.workers.dask_map``:
    in order, bounded), their documents read here and carried to the workers in tasks of
    about ``task_bytes``; each task's result unpacked here by ``unpack``."""
    tasks = (task for s in shares for task in carried(s, setup, limits, task_bytes))
    done = dask_map(work, tasks, scheduler)
    with closing(done):  # closed early, the cluster's client with it
        for pieces in shares:
            batches = _until_last(done, unpack)
            yield pieces, batches
            for _ in batches:  # the rest of a share the sink gave up on and works again
                pass


def _until_last(done: Iterator[tuple[bool, P]], unpack: Callable[[P], Iterable[B]]) -> Iterator[B]:
    """One share's results: those of its tasks, up to the one that ends it."""
    for last, packed in done:
        yield from unpack(packed)
        if last:
            return
