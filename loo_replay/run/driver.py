"""The one driver of work over the input's logs: its files expanded and planned into shares
(``logs.pieces``), each share's work run in this process, in ``jobs`` worker processes or
on a Dask cluster, and the results handed back in input order to the command's sink: the
database's loader (``db.ingest``), or the text or JSON stream of validate and analyse
(``output.stream``), whose work on a share's documents is ``run.render``'s.

The paths of a command line are expanded here, once (``Given``): the command line's check
(``unreadable``), the progress bar's whole (``input_bytes``) and the plan are one walk of
the folders, and no module outside ``run/`` walks them.

The work is a function at a module's top level, so that a worker process or a Dask task
can run it.  A worker's state comes once, through its initializer, and for ingest one
part of it late (``Workers.start``): the workers are forked before the sink opens what no
child may inherit (a DuckDB database), and learn then what it holds.

An output's own work over what the database holds (the report's pages, the judging of
loaded deals) runs through ``Processes``, which the command chooses (``reached``: in
``--jobs`` processes, or on the Dask cluster of ``--scheduler``, reached before the
command makes anything): the output names its work and consumes the results in order,
and starts no worker itself.  A worker process that dies is ``errors.WorkerDied``
(``run.workers``), whatever the work.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from loo_replay.logs.limits import Limits
from loo_replay.logs.paths import Expanded, Skipped, entries, expand
from loo_replay.logs.pieces import PIECE_BYTES, Piece, Share, plan_pieces, read_piece, share
from loo_replay.logs.reader import Document, ReadError, log_kind, read_documents
from loo_replay.run.audit import Documents, UnreadableFile

if TYPE_CHECKING:
    from multiprocessing.queues import SimpleQueue

# ``run.workers`` (multiprocessing, concurrent.futures: about 0.1 billion instructions) is
# imported where workers start, not here: one job in this process needs none of it
# (docs/performance.md, "Start-up").

B = TypeVar("B")  # what the sink takes: a batch of rows, a rendered document
P = TypeVar("P")  # what a worker sends back for a share: its batches, packed
T = TypeVar("T")  # what a worker is handed: a share, or a task of carried documents
S = TypeVar("S")  # what a document's work is made of: validate's or analyse's spec
R = TypeVar("R")  # what a document's work makes of it: its rendering

Results = Generator[tuple[Share, Iterable[B]], None, None]


# What a walk of paths finds, in order: a log file, an entry skipped, or the sentence that
# says why a path cannot be read at all.
Walked = list[Path | Skipped | str]


def walk(paths: Iterable[Path]) -> Walked:
    """What ``paths`` hold, in order (``logs.paths.entries`` of each)."""
    found: Walked = []
    for given in paths:
        try:
            found.extend(entries(given))
        except ReadError as exc:
            found.append(str(exc))
    return found


class Given(list[Path]):
    """The paths of a command line and what they hold, expanded once when given: the
    check of the command line and the work that follows see the same files, and the
    folders are walked once per command (``walked``, in order, for the audits that say
    each entry skipped in its place)."""

    def __init__(self, paths: Iterable[Path]) -> None:
        super().__init__(paths)
        self.walked = walk(self)
        self.found = Expanded(
            [e for e in self.walked if isinstance(e, Path)],
            [e for e in self.walked if isinstance(e, Skipped)],
            [e for e in self.walked if isinstance(e, str)],
        )


def expanded(paths: Iterable[Path]) -> Expanded:
    """What ``paths`` hold: expanded when they were given (``Given``), else now."""
    return paths.found if isinstance(paths, Given) else expand(paths)


def walked(paths: Iterable[Path]) -> Walked:
    """What ``paths`` hold, in order: walked when they were given (``Given``), else now."""
    return paths.walked if isinstance(paths, Given) else walk(paths)


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


class Input(NamedTuple):
    """The input's files (what was found, skipped or unreadable), planned into shares.

    This module's types are named tuples and plain classes, not dataclasses: validate
    imports it, and a frozen dataclass costs an import the parsing and compiling of the
    methods it generates, some 3 million instructions each (callgrind)."""

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


class Workers(Generic[T, P, B]):
    """``jobs`` worker processes, started now (forked, on Linux: each starts with this
    process's modules imported, where a spawned worker started an interpreter and imported
    them again), each running ``initializer(*initargs, late)`` if there is one, where
    ``late`` is a queue that brings the state known only later (``start``), or None when
    the work stops first.  Each of ``shares`` (or tasks) is worked by ``work`` and its
    result unpacked here by ``unpack``."""

    def __init__(
        self,
        shares: Iterable[T],
        jobs: int,
        work: Callable[[T], P],
        unpack: Callable[[P], Iterable[B]],
        initializer: Callable[..., None] | None = None,
        initargs: tuple[Any, ...] = (),
        ahead: int = 2,
    ) -> None:
        self.jobs = jobs
        from loo_replay.run.workers import early_context, started_pool

        self.late: SimpleQueue[Any] | None = None
        if initializer is not None:
            self.late = early_context().SimpleQueue()
            initargs = (*initargs, self.late)
        self.sent = False
        self.shares = shares
        self.handed: deque[T] = deque()  # handed out, their results not yet taken
        self.work = work
        self.unpack = unpack
        self.ahead = ahead  # shares in flight per worker
        self.done: Generator[P, None, None] | None = None  # once shares are handed out
        self.taken = False  # a result was asked for
        self.idle: Callable[[], None] | None = None  # ``results``'s, while the last finish
        self.pool = started_pool(jobs, initializer=initializer, initargs=initargs)

    def start(self, late: Any = None) -> None:
        """Send the workers ``late`` and hand out the first shares now; once, later calls do
        nothing."""
        if self.done is None:
            from loo_replay.run.workers import mapped_now

            self.send(late)
            self.done = mapped_now(
                self.work, self._handing(), self.pool, self.ahead * self.jobs, self._waiting
            )

    def _handing(self) -> Iterator[T]:
        for item in self.shares:
            self.handed.append(item)
            yield item

    def results(
        self, idle: Callable[[], None] | None = None
    ) -> Generator[tuple[T, Iterable[B]], None, None]:
        """The shares' results (``start`` first), in input order; at most ``ahead`` shares
        per worker are in flight.  Once every share is handed out, ``idle`` is called
        before waiting for one that is not done."""
        assert self.done is not None, "start hands the shares out"
        self.taken = True
        self.idle = idle
        with closing(self.done):  # closing this generator stops the workers at once
            for data in self.done:
                yield self.handed.popleft(), self.unpack(data)

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
        if not self.sent and self.late is not None:
            self.sent = True
            for _ in range(self.jobs):
                self.late.put(late)


# -- on a Dask cluster -------------------------------------------------------------


class Carried:
    """Documents of a share read by this process and carried to a Dask worker, which may
    not see this machine's files, or for validate to a local worker (a gzip file).  Not a
    tuple: Dask would look for its own futures in one, document by document."""

    __slots__ = ("files", "last", "setup")

    def __init__(
        self, setup: Any, files: list[tuple[list[Document], str | None]], last: bool
    ) -> None:
        self.setup = setup  # what the task's work is made of: it goes with every task
        self.files = files  # each file's documents, and why it broke off
        self.last = last  # the share's last task

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
    from loo_replay.run.workers import dask_map

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


# -- work on each document, in input order: validate's and analyse's ------------------

# Whole files at most in a share for the workers: enough to pay a message to a worker once
# for many small files, few enough that a share's results stay small.
SHARE_FILES = 250

Work = Callable[[S, Documents], Iterator[R]]  # a top-level function: each document's result


def planned(
    paths: Iterable[Path], piece_bytes: int | None, share_files: int = SHARE_FILES
) -> list[Share | UnreadableFile]:
    """``paths`` expanded (once: ``Given``) and planned as ``plan`` plans them, but with
    each path that cannot be read and each entry skipped in its place among the shares, as
    the audit reports them; with ``piece_bytes`` None each file is whole (one process
    streams it)."""
    units: list[Share | UnreadableFile] = []
    files: list[Path] = []

    def flush() -> None:
        pieces = plan_pieces(files, piece_bytes)
        units.extend(share(pieces, piece_bytes or PIECE_BYTES, share_files))
        files.clear()

    for entry in walked(paths):
        if isinstance(entry, Path):
            files.append(entry)
            continue
        flush()
        if isinstance(entry, Skipped):
            units.append(UnreadableFile(str(entry), entry.path, skipped=True))
        else:
            units.append(UnreadableFile(entry))
    flush()
    return units


def share_documents(pieces: Share, limits: Limits) -> Documents:
    """A share's documents, read within ``limits``; a file that breaks off is an
    ``UnreadableFile`` after the documents read before."""
    for piece in pieces:
        try:
            yield from read_piece(piece, limits)
        except ReadError as exc:
            yield UnreadableFile(str(exc))


def _carried_documents(task: Carried) -> Documents:
    for docs in task.documents():
        try:
            yield from docs
        except ReadError as exc:
            yield UnreadableFile(str(exc))


Task = Share | Carried | UnreadableFile


class _Job(Generic[S, R]):
    """A task's work where it runs (here, a worker process or a Dask worker): ``work`` on
    its documents, read within ``limits``."""

    __slots__ = ("limits", "setup", "work")

    def __init__(self, work: Work[S, R], setup: S, limits: Limits) -> None:
        self.work = work
        self.setup = setup
        self.limits = limits

    def documents(self, task: Task) -> Documents:
        if isinstance(task, UnreadableFile):
            return iter((task,))
        if isinstance(task, Carried):
            return _carried_documents(task)
        return share_documents(task, self.limits)

    def __call__(self, task: Task) -> list[R]:
        return list(self.work(self.setup, self.documents(task)))


def tasks(
    units: list[Share | UnreadableFile], limits: Limits, task_bytes: int, carry_all: bool
) -> Iterator[Task]:
    """The units as tasks for workers, in order.  A gzip JSON Lines file, which cannot be
    cut without reading it and may hold any number of documents, is read here and carried
    in tasks of about ``task_bytes`` (a worker's results stay that small); so is every
    share with ``carry_all``.  The rest the workers read themselves."""
    for unit in units:
        if not isinstance(unit, tuple):
            yield unit
        elif carry_all:
            yield from carried(unit, None, limits, task_bytes)
        else:
            held: list[Piece] = []
            for piece in unit:
                if piece.stop is not None or log_kind(Path(piece.file)) != "jsonl":
                    held.append(piece)
                    continue
                if held:
                    yield tuple(held)
                    held = []
                yield from carried((piece,), None, limits, task_bytes)
            if held:
                yield tuple(held)


def each_document(
    paths: Iterable[Path],
    work: Work[S, R],
    setup: S,
    limits: Limits,
    jobs: int = 1,
    scheduler: str | None = None,
    task_bytes: int = PIECE_BYTES,
) -> Iterator[R]:
    """``work(setup, documents)`` on every document under ``paths``, read within
    ``limits``, each result in input order, with a path that cannot be read, an entry
    skipped and a file that broke off in its place: in this process (each file streamed
    whole), in ``jobs`` worker processes (pieces of about ``task_bytes``, two a
    worker in flight) or on the Dask cluster at ``scheduler`` (documents read
    here and carried).  Output is the same whatever the jobs: the pieces depend on the
    files only, and results come back in order."""
    job = _Job(work, setup, limits)
    if scheduler is None and jobs <= 1:
        for unit in planned(paths, None):
            yield from work(setup, job.documents(unit))
        return
    if scheduler is not None:
        from loo_replay.run.workers import dask_map

        carried_all = tasks(planned(paths, None), limits, task_bytes, True)
        for batch in dask_map(job, carried_all, scheduler):
            yield from batch
        return
    units = planned(paths, task_bytes)
    workers = Workers(tasks(units, limits, task_bytes, False), jobs, job, _batch)
    try:
        workers.start()
        for _, rendered in workers.results():
            yield from rendered
    finally:
        workers.stop()


def _batch(batch: list[R]) -> list[R]:
    return batch


# -- the outputs' own work, over processes or a Dask cluster ----------------------------


class Processes:
    """The processes a command gives an output's own work (the report's session and replay
    pages, the judging of loaded deals): ``jobs`` of them here (``--jobs``), or the workers
    of the Dask cluster at ``scheduler`` (``--scheduler``); the output hands its work to
    ``map`` and takes the results in order, as a sink.  One job: the work runs here, as
    the results are asked for.  A plain class, as this module's types are (``Input``'s
    note)."""

    __slots__ = ("jobs", "scheduler")

    def __init__(self, jobs: int = 1, scheduler: str | None = None) -> None:
        self.jobs = jobs
        self.scheduler = scheduler

    @property
    def remote(self) -> bool:
        """The work runs on a Dask cluster, whose workers may not see this machine's files:
        an output hands them what they read and takes back what they make."""
        return self.scheduler is not None

    def map(
        self,
        work: Callable[[T], R],
        items: Iterable[T],
        *,
        initializer: Callable[..., None] | None = None,
        initargs: tuple[Any, ...] = (),
        spawn: bool = False,
        here: Callable[[T], R] | None = None,
    ) -> Generator[R, None, None]:
        """``map(work, items)`` in ``jobs`` processes, in input order, at most two items a
        process in flight (``run.workers.ordered_map``); ``initializer(*initargs)`` once in
        each, for state sent once rather than with every item.  ``spawn`` starts them
        afresh rather than forked: a must when this process holds a DuckDB connection.
        ``here``: this process is one of the ``jobs`` and works items too, with ``here``
        (``ordered_map``).  On a Dask cluster (``run.workers.dask_map``: in order, bounded)
        the initializer runs before each item, in the worker that takes it, and ``here`` is
        not used.  ``work`` and ``initializer`` are functions at a module's top level."""
        from loo_replay.run.workers import dask_map, ordered_map

        if self.scheduler is not None:
            boxed = (_Boxed(item) for item in items)
            return dask_map(_Started(work, initializer, initargs), boxed, self.scheduler)
        return ordered_map(
            work,
            items,
            self.jobs,
            initializer=initializer,
            initargs=initargs,
            spawn=spawn,
            here=here,
        )

    def apart(self, work: Callable[..., R], *args: Any) -> R:
        """``work(*args)``, a function at a module's top level, in a process of its own
        when the command has more than one job here (``run.workers.apart``), so that what it
        leaves allocated is given back before the rest of the command's work: the fairness
        tests and the collusion screen a report refreshes first (issue 53: their 230 MB of
        pyarrow's pool stayed beside the pages' worker).  One job, or a Dask cluster: here,
        without a process's start-up."""
        if self.jobs <= 1 or self.scheduler is not None:
            return work(*args)
        from loo_replay.run.workers import apart

        return apart(work, *args)


def reached(jobs: int, scheduler: str | None) -> Processes:
    """The processes of ``--jobs`` or ``--scheduler``, the scheduler reached now
    (``run.workers.reach``: ``SchedulerError`` when it cannot be used), before the command
    makes anything: a dead scheduler leaves no empty database or report folder behind."""
    if scheduler is not None:
        from loo_replay.run.workers import reach

        reach(scheduler)
    return Processes(jobs, scheduler)


class _Boxed(Generic[T]):
    """An item for a Dask worker.  Not a tuple: Dask would look for its own futures in one
    (``Carried``'s note)."""

    __slots__ = ("item",)

    def __init__(self, item: T) -> None:
        self.item = item


class _Started(Generic[T, R]):
    """``work`` on a boxed item, where a Dask worker runs it, ``initializer(*initargs)``
    first when there is one."""

    __slots__ = ("initargs", "initializer", "work")

    def __init__(
        self,
        work: Callable[[T], R],
        initializer: Callable[..., None] | None,
        initargs: tuple[Any, ...],
    ) -> None:
        self.work = work
        self.initializer = initializer
        self.initargs = initargs

    @property
    def __name__(self) -> str:
        """The work's name, which Dask names its tasks by (``judge_task-…``)."""
        return getattr(self.work, "__name__", "work")

    def __call__(self, boxed: _Boxed[T]) -> R:
        if self.initializer is not None:
            self.initializer(*self.initargs)
        return self.work(boxed.item)


HERE = Processes(1)  # every item's work in this process
