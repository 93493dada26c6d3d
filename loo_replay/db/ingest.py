"""``ingest``: audit hand logs and load them, each file whole in one transaction.

The loader is a sink of the run layer's driver (``run.driver``), which plans
the input into shares of pieces (a piece of a big file, or small whole files
together: ``logs.pieces.share``) and has them audited in input order, in this
process, in ``jobs`` worker processes or on a Dask cluster, by ingest's work
(``run.load_work``); they are loaded here in input order, by this process alone
(DuckDB has one writer).  A transaction opens with a share and commits with a
share that ends a file once it holds enough deals or files (small files share
one), so a process killed mid-ingest leaves whole files behind and a rerun
skips them and completes the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from loo_replay.db.errors import DatabaseError
from loo_replay.db.paths import log_name
from loo_replay.engine.records import record
from loo_replay.gc_thresholds import fewer_collections
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.logs.paths import Skipped
from loo_replay.logs.pieces import PIECE_BYTES, Share
from loo_replay.rulesets import RuleChoice
from loo_replay.run.audit import Summary
from loo_replay.run.columns import clean
from loo_replay.run.driver import Workers, in_process, on_dask, plan
from loo_replay.run.frames import Batch
from loo_replay.run.load_work import (
    BATCH_DEALS,
    Auditor,
    Packed,
    init_worker,
    unpack_batches,
    work,
    work_carried,
)
from loo_replay.run.render import Sampling

if TYPE_CHECKING:  # imported by ``ingest`` once its workers have started
    import duckdb

    from loo_replay.db.load import Conflict, Counts, Loader

# One transaction per file, but no more uncommitted deals than this, so that a process
# killed in a huge file loses at most this much work.  Not fewer: DuckDB writes a big
# transaction's full row groups to the file as they fill (its memory stayed at 290 MB over a
# million deals in one), and a commit costs more than the rows it holds: committing every
# 30,000 deals cost a fifth more of loading's instructions than one commit at the end
# (docs/performance.md).
TRANSACTION_DEALS = 1_000_000

# Small files share a transaction, committed at the end of the share that brings it to this
# many deals or files (or at the input's end): 3,000 files of one deal each had cost a commit
# and an insert a table each, 23 ms a file against 8 ms a session of one file.  A file is
# still whole or absent after a kill or a Ctrl-C, and a rerun skips what was committed.  A
# share holds GROUP_FILES small files at most (and piece_bytes of them).
GROUP_DEALS = 10_000
GROUP_FILES = 250

# With --decisions a deal costs a thousand audits and more (docs/performance.md, "Judging
# decisions at load time"): pieces of about 50 three-card deals keep both workers busy on a
# file that would otherwise be one piece, audited by one of them.
DECISIONS_PIECE_BYTES = 1 << 16

# Pieces in flight per worker: being audited, or done and waiting for the loader.  While the
# loader commits a file (a third of a second at 100,000 deals), two each left the workers
# idle.
AHEAD = 3

Progress = Callable[[int, int], None]  # (bytes of input just done, deals so far)
FileDone = Callable[[str, "Counts"], None]  # (file, what happened to it)


@record(frozen=False)
class IngestResult:
    counts: Counts
    conflicts: list[Conflict]
    file_errors: list[str]  # files that could not be read (or broke off), entries skipped
    files: int
    summary: Summary  # what the audit asked for found in the input, loaded or not
    judged: int  # sessions of the database with judged decisions, after the load
    stale: list[str]  # the derived results this load marked stale (db/content.py), if any

    @property
    def exit_code(self) -> int:
        """2 when no logs were found, a file or document could not be read or parsed, an
        entry of a folder was skipped, or DuckDB could not store a document (docs/log-format.md;
        docs/limits.md), 1 conflicts, else 0 (rejected deals are loaded, not failures)."""
        if self.summary.exit_code == 2 or self.counts.unloaded:
            return 2
        return 1 if self.conflicts else 0


def ingest(
    paths: Iterable[Path],
    db_path: Path,
    choice: RuleChoice,
    *,
    replace: bool = False,
    analyse: bool = True,
    jobs: int = 1,
    scheduler: str | None = None,
    piece_bytes: int = PIECE_BYTES,
    batch_deals: int = BATCH_DEALS,
    progress: Progress | None = None,
    file_done: FileDone | None = None,
    limits: Limits = LIMITS,
    decisions: Sampling | None = None,  # --decisions: each loaded deal's decisions judged
    group: tuple[int, int] = (GROUP_DEALS, GROUP_FILES),
) -> IngestResult:
    """Audit ``paths`` and load them into the database at ``db_path`` (created or upgraded),
    each document read within ``limits``; with ``analyse``, each loaded deal's double-dummy
    analysis too.  The audit runs here, in ``jobs`` worker processes, or on the Dask cluster
    at ``scheduler``; the loading, here, small files together until a transaction holds
    ``group``'s deals or files."""
    if decisions is not None:
        piece_bytes = min(piece_bytes, DECISIONS_PIECE_BYTES)
    planned = plan(paths, piece_bytes, group[1], lambda f: log_name(f, db_path))
    found, shares = planned.found, planned.shares
    workers: Workers[Share, Packed, Batch] | None = None
    if scheduler is None and jobs > 1 and len(shares) > 1:
        setup = (choice, batch_deals, analyse, limits, decisions)
        workers = Workers(shares, jobs, work, unpack_batches, init_worker, setup, AHEAD)
        if replace or not db_path.exists():
            workers.start({})  # nothing to skip: they need not wait for the database
    # DuckDB only now: its import (a fifth of a second) overlaps the workers' first pieces,
    # and no worker has it in memory.
    import duckdb

    from loo_replay.db.content import stale, version
    from loo_replay.db.errors import damage
    from loo_replay.db.load import Loader
    from loo_replay.db.opening import open_db
    from loo_replay.db.queries import judged_sessions, loaded_counts

    con = None
    loader: Loader | None = None
    try:

        def writer() -> duckdb.DuckDBPyConnection:
            con = open_db(db_path)
            # The loader's statements are small (a batch of rows each) and the audit's
            # workers have the other cores: DuckDB's second thread only cost CPU, a fifth of
            # loading's (docs/performance.md).
            con.execute("SET threads = 1")
            return con

        con = writer()
        loader = Loader(con, replace, writer)
        before = version(con)  # raised by each transaction that changes what is stored
        loader.file_errors += [*found.errors, *map(str, found.skipped)]
        loader.summary.unreadable_files += len(found.errors)
        loader.summary.skipped_entries += len(found.skipped)
        _record_skipped(con, found.skipped, db_path)
        known = loader.known()
        if workers is not None:
            workers.start(known)  # started already when there was no database to read
            # What the loader holds is inserted while the last pieces are audited, not
            # after, when a core would be idle (docs/performance.md, "The loader").
            results = workers.results(loader.insert_waiting)
        elif scheduler is not None:
            carry = (choice, known, batch_deals, analyse, limits, decisions)
            results = on_dask(
                shares, carry, limits, scheduler, piece_bytes, work_carried, unpack_batches
            )
        else:
            auditor = Auditor(choice, known, batch_deals, analyse, limits, decisions)
            results = in_process(shares, auditor.batches)

        def again(piece: Share) -> Iterable[Batch]:  # a piece audited anew, here
            return Auditor(choice, known, batch_deals, analyse, limits, decisions).batches(piece)

        # Closing the results stops the workers at once if loading fails; the batches
        # unpacked here are as acyclic as the audit's rows.
        with closing(results), fewer_collections():
            _load(loader, results, progress, file_done, again, group, len(shares))
        loader.summary.merge(loaded_counts(loader.con, loader.skipped_ids))
        judged = judged_sessions(loader.con)
        marked = stale(loader.con) if version(loader.con) != before else []
    except duckdb.InterruptException:  # Ctrl-C while DuckDB was working
        raise KeyboardInterrupt from None
    except duckdb.Error as exc:
        raise DatabaseError(
            f"loading into {db_path} failed ({damage(str(exc))}); the file being loaded "
            "was rolled back"
        ) from None
    finally:
        if workers is not None:
            workers.stop()
        if con is not None:
            con.close()
        if loader is not None:
            loader.con.close()  # a new one if a failed commit invalidated the first
    return IngestResult(
        loader.counts,
        loader.conflicts,
        loader.file_errors,
        len(found.files),
        loader.summary,
        judged,
        marked,
    )


def _record_skipped(con: duckdb.DuckDBPyConnection, skipped: list[Skipped], db: Path) -> None:
    """A row in ``rejects`` (kind ``skipped``) for each entry of a folder that was skipped,
    once per entry and reason however often it is met."""
    if not skipped:
        return
    from loo_replay.db.content import raise_version

    con.begin()
    try:
        ((before,),) = con.execute("SELECT count(*) FROM rejects").fetchall()
        con.executemany(
            "INSERT INTO rejects (kind, file, path, message, errors, raw, digest) "
            "SELECT 'skipped', $file, '', $why, [], ''::BLOB, sha256('') WHERE NOT EXISTS "
            "(SELECT 1 FROM rejects WHERE kind = 'skipped' AND file = $file AND message = $why)",
            [{"file": log_name(Path(s.path), db), "why": s.reason} for s in skipped],
        )
        ((after,),) = con.execute("SELECT count(*) FROM rejects").fetchall()
        if after != before:  # the index lists them: the reports are stale
            raise_version(con)
        con.commit()
    except BaseException:
        con.rollback()
        raise


def _load(
    loader: Loader,
    results: Iterable[tuple[Share, Iterable[Batch]]],
    progress: Progress | None,
    file_done: FileDone | None,
    again: Callable[[Share], Iterable[Batch]],
    group: tuple[int, int],
    shares: int,
) -> None:
    """Load the ``shares`` ``results`` in transactions of whole files: a transaction commits at the end of
    a share (``logs.pieces.share``) that ends a file once it holds ``group``'s deals or files
    (GROUP_DEALS, GROUP_FILES), else the next share joins it (many small files cost a
    commit and an insert a table for the group, not for each; docs/performance.md).  When
    DuckDB fails in one (a session too big for its memory, say), it is rolled back and its
    files, audited ``again``, are loaded file by file, a document at a time: the one that
    fails again costs itself alone (``Loader.load_alone``).  The last commit is a checkpoint
    (``Loader.commit``)."""
    opened = 0  # deals in the input when the open transaction began
    held: list[Share] = []  # the shares of the open transaction
    done: list[tuple[str, Counts]] = []  # its whole files, said once it commits
    try:
        for n, (pieces, batches) in enumerate(results, 1):
            if not held:
                loader.begin()
                opened = loader.counts.deals
            held.append(pieces)
            ended = [p for p in pieces if p.last]
            # A huge file commits at a piece's end (a session boundary) once the piece has
            # brought its open transaction to TRANSACTION_DEALS, so that uncommitted rows
            # never outgrow memory; a rerun skips the sessions in.
            files = len(done) + len(ended)
            last = n == shares
            committed = _load_share(loader, batches, pieces[-1].last, files, opened, group, last)
            done += [(p.file, loader.file_counts(clean(p.name))) for p in ended]
            if committed is None:
                del batches  # the failed rows, before the pieces are audited again
                _one_by_one(loader, held, again, done, file_done)
                held, done = [], []
            elif committed:
                _said(done, file_done)
                held, done = [], []
            if progress is not None:
                progress(sum(p.size for p in pieces), loader.counts.deals)
        if held and _commit(loader, True) is None:
            _one_by_one(loader, held, again, done, file_done)
        else:
            _said(done, file_done)
    except BaseException:
        loader.rollback()  # the files being loaded leave no trace
        raise


def _said(done: list[tuple[str, Counts]], file_done: FileDone | None) -> None:
    """Each file of a committed transaction, with what happened to it."""
    if file_done is not None:
        for file, counts in done:
            file_done(file, counts)


def _one_by_one(
    loader: Loader,
    held: list[Share],
    again: Callable[[Share], Iterable[Batch]],
    done: list[tuple[str, Counts]],
    file_done: FileDone | None,
) -> None:
    """The failed transaction of ``held`` rolled back, and its files loaded again a
    document at a time (``Loader.load_alone``), each file's pieces audited ``again``."""
    loader.rollback()
    ended = {file for file, _ in done}
    pieces = [p for share in held for p in share]
    for file in dict.fromkeys(p.file for p in pieces):
        mine = [p for p in pieces if p.file == file]
        name = clean(mine[0].name)
        loader.file_counts(name)  # what the rolled-back transaction counted
        before = loader.counts.copy()
        loader.load_alone(batch for p in mine for batch in again((p,)))
        loader.file_counts(name)  # counted here, with the documents DuckDB could not store
        counts = loader.counts - before
        if file not in ended:  # a big file goes on in the next transaction
            loader.by_file[name] = counts
        elif file_done is not None:
            file_done(file, counts)


def _commit(loader: Loader, last: bool) -> bool | None:
    """Commit the open transaction (the ``last`` of the load?): True, or None if DuckDB
    failed."""
    import duckdb

    try:
        loader.commit(last)
    except duckdb.InterruptException:
        raise
    except duckdb.Error:
        return None
    return True


def _load_share(
    loader: Loader,
    batches: Iterable[Batch],
    last: bool,
    files: int,
    opened: int,
    group: tuple[int, int],
    last_share: bool,
) -> bool | None:
    """Load a share's batches, and commit after a file's ``last`` piece once the transaction
    opened at ``opened`` deals holds ``files`` whole files and ``group``'s deals or files,
    or after any piece once it holds TRANSACTION_DEALS: whether it committed, or None if
    DuckDB failed (the error's frames, which hold the rows, are let go at once)."""
    import duckdb

    try:
        for batch in batches:
            loader.load(batch)
        deals = loader.counts.deals - opened
        full = deals >= group[0] or files >= group[1]
        commit = (last and full) or deals >= TRANSACTION_DEALS
        if commit:
            loader.commit(last_share)
    except duckdb.InterruptException:
        raise
    except duckdb.Error:
        return None
    return commit
