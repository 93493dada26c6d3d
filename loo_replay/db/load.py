"""Batches of frames into the database: what to keep, and one transaction per file.

A session is keyed by its id; its content by the document's digest and the
fingerprint of the rules it was audited under.  Loading the same content
again adds nothing; other content under a loaded id is a conflict, unless
``replace``, which deletes the old rows first.  An id that reads the same as a
loaded one (``lookalike.id_key``: the same after NFC normalisation, invisible
characters left out) is a conflict too, or with ``replace`` takes its place.  Loading ``a`` then ``b`` in
one run is the same as two runs: a session earlier in the input counts as
loaded for the ones after it.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterable
from typing import Any

import duckdb
import orjson
import pyarrow as pa  # type: ignore[import-untyped]
from msgspec.structs import asdict

from loo_replay.db import documents, keys
from loo_replay.db.content import Covers, raise_version, record
from loo_replay.db.errors import with_remedy
from loo_replay.db.tables import SESSION_TABLES
from loo_replay.engine import records
from loo_replay.engine.options import OptionError, Options
from loo_replay.engine.records import field, fields, replace
from loo_replay.errors import first_line
from loo_replay.evidence.seals import same_but_seals
from loo_replay.lookalike import id_key, spelled
from loo_replay.run.audit import Summary
from loo_replay.run.compressed import TABLE as DOCUMENTS
from loo_replay.run.frames import (
    SCHEMAS,
    TABLES,
    Batch,
    DocumentItem,
    FileItem,
    SessionItem,
    rows_in,
    rules_fingerprint,
)
from loo_replay.run.rows import RejectRow


@records.record(frozen=False)
class Counts:
    """What happened to the input; ``loaded + rejected + skipped + conflicts == deals``."""

    deals: int = 0  # deals in the input's session documents
    loaded: int = 0  # into ``deals``
    rejected: int = 0  # into ``rejects`` (log errors)
    skipped: int = 0  # their session was already loaded with the same content and rules
    conflicts: int = 0  # their session id is loaded with other content or rules
    sessions: int = 0
    replaced: int = 0  # sessions whose earlier content was deleted (--replace)
    documents: int = 0  # unreadable documents newly kept in ``rejects``
    documents_known: int = 0  # unreadable documents already there
    unloaded: int = 0  # documents DuckDB could not store: in ``rejects`` with its reason

    def __sub__(self, other: Counts) -> Counts:
        return Counts(**{name: getattr(self, name) - getattr(other, name) for name in fields(self)})

    def __add__(self, other: Counts) -> Counts:
        return Counts(**{name: getattr(self, name) + getattr(other, name) for name in fields(self)})

    def copy(self) -> Counts:
        return replace(self)


CONTENT, RULES, VERSION, LOOKALIKE = "content", "rules", "version", "lookalike"

# The loader inserts a table's kept rows once this many deals are waiting, not batch by batch:
# a statement costs DuckDB about 2 million instructions of its own, and inserting 8,000 deals
# at a time instead of each batch (2,000) took 6% fewer of loading's instructions
# (docs/performance.md).  The rows wait as the Arrow tables the workers sent, 1.4 kB a deal.
INSERT_DEALS = 8_000

# DuckDB writes a commit to its write-ahead log, then copies the log into the file once it
# holds this much (its ``checkpoint_threshold``).  A transaction that brings more documents
# than that is checkpointed straight into the file instead: the 30 MB of documents of 100,000
# three-card deals were written twice, and the commit took 0.35 to 0.44 s of CPU against 0.22
# to 0.28 (docs/performance.md, "The loader").
CHECKPOINT_BYTES = 16 << 20


@records.record
class Conflict:
    """A session id already loaded from other content, under other rules, or audited by
    another version of loo-replay, or an id that reads the same as a loaded one (``kind``;
    ``stored_id``, the loaded id, for LOOKALIKE)."""

    session_id: str
    file: str
    line: int | None
    stored_file: str
    stored_line: int | None
    kind: str  # CONTENT | RULES | VERSION | LOOKALIKE
    stored_id: str | None = None

    def message(self, show: Callable[[str], str] = str) -> str:
        """One sentence; ``show`` turns a recorded log name into the one to print."""
        stored = _where(show(self.stored_file), self.stored_line)
        if self.kind == LOOKALIKE:
            return (
                f"session {self.session_id!r} in {_where(show(self.file), self.line)} "
                f"conflicts: its id reads the same as session {self.stored_id!r}, loaded from "
                f"{stored} ({spelled(self.session_id)} and {spelled(self.stored_id or '')}: "
                "they differ only in Unicode normalisation or invisible characters); the "
                "database keeps that one. To load this one in its place, run the command "
                "again with --replace, or give the session another id"
            )
        what, fix = {
            CONTENT: (f"was loaded from {stored} with different content", "load this content"),
            RULES: (
                f"was loaded from {stored} under other rules (--ruleset/--set, or the log's)",
                "re-audit it under these rules",
            ),
            VERSION: (
                "was audited by another version of loo-replay",
                "re-audit it with this version",
            ),
        }[self.kind]
        return (
            f"session {self.session_id!r} in {_where(show(self.file), self.line)} conflicts: it "
            f"{what}; the database keeps that audit. To {fix}, run the command again with "
            "--replace"
        )


def _where(file: str, line: int | None) -> str:
    return file if line is None else f"{file} line {line}"


@records.record(frozen=False)
class _Stored:
    digest: str
    fingerprint: str
    file: str
    line: int | None
    ruleset: str | None = None
    rules: str | None = None  # every option in force, JSON text

    def conflict_kind(self, digest: str, fingerprint: str) -> str:
        """Why a session of ``digest`` audited to ``fingerprint`` is not this one."""
        if digest != self.digest:
            return CONTENT
        try:
            options = None if self.rules is None else Options.from_dotted(orjson.loads(self.rules))
        except (OptionError, ValueError):
            return RULES
        return VERSION if rules_fingerprint(self.ruleset, options) == fingerprint else RULES


@records.record(frozen=False)
class _Mark:
    """What the loader knew when a transaction began, to be set back if it rolls back: the
    counts and lists as they were, the last key given, and the entries of ``stored`` and
    ``documents`` made since (None: the id was not stored)."""

    counts: Counts
    summary: Summary
    lengths: tuple[int, int, int]  # conflicts, file_errors, skipped_ids
    last_key: int
    stored: dict[str, _Stored | None] = field(default_factory=dict)
    documents: list[tuple[str, int | None, str]] = field(default_factory=list)


@records.record(frozen=False)
class Loader:
    """Decides for each session of a batch and loads the batch's kept rows."""

    con: duckdb.DuckDBPyConnection
    replace: bool = False
    # A new connection, for when a failed commit left DuckDB's instance unusable (its
    # database "invalidated": a commit that runs out of memory while it writes can).
    reopen: Callable[[], duckdb.DuckDBPyConnection] | None = None
    counts: Counts = field(default_factory=Counts)
    conflicts: list[Conflict] = field(default_factory=list)
    file_errors: list[str] = field(default_factory=list)
    summary: Summary = field(default_factory=Summary)  # what this run's audit found
    skipped_ids: list[str] = field(default_factory=list)  # found as loaded: counts are there
    stored: dict[str, _Stored] = field(default_factory=dict)
    read_as: dict[str, str] = field(default_factory=dict)  # id_key -> the stored id
    documents: set[tuple[str, int | None, str]] = field(default_factory=set)
    # Sessions loaded before their documents were kept (docs/database.md, ``documents``):
    # ``replace`` loads them again, though their content is the same, to keep the document.
    undocumented: set[str] = field(default_factory=set)
    # Each session kept from the batch being loaded, its key (db/keys.py), set beside its
    # rows as they are kept: one more than the last given, in the order the sessions are
    # kept, so that the keys grow along every table's rows.
    keys: dict[str, int] = field(default_factory=dict)
    last_key: int = 0
    waiting: dict[str, list[pa.Table]] = field(default_factory=dict)  # kept rows not inserted
    waiting_deals: int = 0
    mark: _Mark | None = None  # of the open transaction
    document_bytes: int = 0  # of the documents the open transaction stores
    changed: bool = False  # the open transaction stores or deletes rows: a new content version
    failed: duckdb.Error | None = None  # by ``insert_waiting``, raised by the next call
    # What each file's documents came to (keyed by their recorded name), for ingest to say
    # at the file's end: a batch holds many small files (``logs.pieces.share``).
    by_file: dict[str, Counts] = field(default_factory=dict)

    def __post_init__(self) -> None:
        rows = self.con.execute(
            "SELECT session_id, digest, rules_fingerprint, file, line, ruleset, rules FROM sessions"
        ).fetchall()
        self.stored = {sid: _Stored(*rest) for sid, *rest in rows}
        self.read_as = {id_key(sid): sid for sid in self.stored}
        self.last_key = self._last_key()
        docs = self.con.execute(  # a document is kept once, unreadable or not loaded
            "SELECT file, line, digest FROM rejects WHERE kind IN ('document', 'session')"
        ).fetchall()
        self.documents = {(f, ln, d) for f, ln, d in docs}
        if self.replace:
            undocumented = self.con.execute(
                f"SELECT session_id FROM sessions ANTI JOIN {DOCUMENTS} USING (session_id)"
            ).fetchall()
            self.undocumented = {sid for (sid,) in undocumented}

    def _last_key(self) -> int:
        """The largest session key stored (a loader of an older schema, which has none,
        says 0: tests/test_db_schema.py)."""
        return keys.last_key(self.con)

    def known(self) -> dict[str, tuple[str, str]]:
        """(digest, fingerprint) per loaded session id, for auditors to skip what is loaded;
        empty with ``replace``, where an earlier file of the run may change what is loaded."""
        if self.replace:
            return {}
        return {sid: (s.digest, s.fingerprint) for sid, s in self.stored.items()}

    # -- transactions ------------------------------------------------------------

    def begin(self) -> None:
        self.con.begin()
        self.document_bytes = 0
        self.changed = False
        lengths = (len(self.conflicts), len(self.file_errors), len(self.skipped_ids))
        self.mark = _Mark(self.counts.copy(), replace(self.summary), lengths, self.last_key)

    def commit(self, last: bool = False) -> None:
        """Commit the open transaction; the ``last`` of the load is checkpointed straight
        into the file, whatever it holds: DuckDB checkpoints at close what the log holds,
        so a last commit through the log wrote its rows twice (the documents of 40,000
        three-card deals, 12 MB: the commit and close 0.14 CPU s against 0.09)."""
        self._failed_before()
        self.flush()
        if self.changed:  # every derived result marked stale, with the rows (db/content.py)
            raise_version(self.con)
        if self.document_bytes < CHECKPOINT_BYTES and not last:
            self.con.commit()
        else:  # a checkpoint would follow the log's writing: no log
            self.con.execute("SET checkpoint_threshold = '0b'")
            try:
                self.con.commit()
            finally:
                self.con.execute("RESET checkpoint_threshold")
        self.mark = None

    def rollback(self) -> None:
        """Undo the open transaction in the database and here: the loader is as it was at
        ``begin``, so that its documents can be loaded again."""
        self.waiting.clear()
        self.keys.clear()
        self.waiting_deals = 0
        self.failed = None
        self.changed = False
        with contextlib.suppress(duckdb.Error):  # no transaction open: nothing to undo
            self.con.rollback()
        self._revive()
        mark, self.mark = self.mark, None
        if mark is None:
            return
        self.counts, self.summary = mark.counts, mark.summary
        conflicts, errors, skipped = mark.lengths
        del self.conflicts[conflicts:], self.file_errors[errors:], self.skipped_ids[skipped:]
        for sid, was in mark.stored.items():
            if was is None:
                self.stored.pop(sid, None)
            else:
                self.stored[sid] = was
        self.read_as = {id_key(sid): sid for sid in self.stored}
        self.documents.difference_update(mark.documents)
        self.last_key = mark.last_key  # the keys given since were never stored

    def _revive(self) -> None:
        """A new connection if the one in use no longer answers."""
        if self.reopen is None:
            return
        try:
            self.con.execute("SELECT 1").fetchall()
        except duckdb.Error:
            with contextlib.suppress(duckdb.Error):
                self.con.close()
            self.con = self.reopen()

    def load_alone(self, batches: Iterable[Batch]) -> None:
        """Each document of ``batches`` in a transaction of its own, where a file's whole
        transaction failed: one that DuckDB cannot store (out of memory, say) costs itself
        alone, kept in ``rejects`` with DuckDB's reason, and the others are loaded."""
        for batch in batches:
            for item in batch.items:
                self.begin()
                failed = None
                try:
                    self.load(Batch([item], batch.tables))
                    self.commit()
                except duckdb.InterruptException:
                    raise
                except duckdb.Error as exc:
                    failed = with_remedy(first_line(str(exc)))
                if failed is not None:
                    self.rollback()
                    assert not isinstance(item, FileItem), "a file's error has no rows"
                    self._not_loaded(item, failed)

    def _not_loaded(self, item: SessionItem | DocumentItem, reason: str) -> None:
        """Count ``item`` as rejected, say why, and keep it in ``rejects`` (kind ``session``,
        or ``document``) without its bytes, which may be what DuckDB could not take; once
        per file, line and digest, like an unreadable document."""
        c = self.counts
        c.unloaded += 1
        where = _where(item.file, item.line)
        if isinstance(item, SessionItem):
            c.sessions += 1
            c.deals += item.deals
            c.rejected += item.deals
            if item.counts is not None:
                self.summary.merge(item.counts)
            kind, sid, what = "session", item.session_id, f"session {item.session_id!r} in {where}"
        else:
            self.summary.unreadable += 1
            kind, sid, what = "document", None, f"the document in {where}"
        message = f"DuckDB could not store it: {reason}"
        self.file_errors.append(f"{what} was not loaded ({message}); it is kept in rejects")
        key = (item.file, item.line, item.digest)
        if key in self.documents:
            return
        self.documents.add(key)
        row = RejectRow(
            kind=kind,
            session_id=sid,
            deal_index=None,
            deal=None,
            dealer=None,
            file=item.file,
            line=item.line,
            path="",
            message=message,
            errors=[{"path": "", "message": message}],
            raw=b"",
            digest=item.digest,
        )
        self.con.begin()
        insert_table(self.con, "rejects", pa.Table.from_pylist([asdict(row)], SCHEMAS["rejects"]))
        raise_version(self.con)
        self.con.commit()

    def insert_waiting(self) -> None:
        """Insert the rows waiting now, in the open transaction: ingest calls it while the
        workers finish the input's last pieces and the next is not ready, so that what is
        left to insert after the last is one piece's rows.  DuckDB's failure here is the
        transaction's: ``load`` or ``commit`` raises it next, where a failure is handled
        (``db.ingest``)."""
        if self.mark is None or self.failed is not None:
            return
        try:
            self.flush()
        except duckdb.InterruptException:
            raise
        except duckdb.Error as exc:
            self.failed = exc

    def _failed_before(self) -> None:
        if self.failed is not None:
            raise self.failed

    def flush(self) -> None:
        """Insert the rows waiting, one statement a table, in the tables' order."""
        for name in (*TABLES, DOCUMENTS):
            tables = self.waiting.pop(name, None)
            if tables:
                self._insert(name, tables[0] if len(tables) == 1 else pa.concat_tables(tables))
        self.waiting_deals = 0

    # -- one batch -----------------------------------------------------------------

    def load(self, batch: Batch) -> None:
        """Decide for every item of ``batch`` and keep the rows of those kept, inserted once
        ``INSERT_DEALS`` deals wait (``flush``; ``commit`` inserts the rest)."""
        self._failed_before()
        keep: dict[int, SessionItem | DocumentItem] = {}  # id(item) -> item, in input order
        pending: dict[str, SessionItem] = {}  # session id -> item kept in this batch
        deletes: list[str] = []
        c = self.counts
        file: str | None = None  # whose documents are being counted, since ``at``
        at = c
        for item in batch.items:
            if not isinstance(item, FileItem) and item.file != file:
                if file is not None:
                    self._counted(file, at)
                file, at = item.file, c.copy()
            if isinstance(item, FileItem):
                self.file_errors.append(item.message)
                self.summary.unreadable_files += 1
            elif isinstance(item, DocumentItem):
                self.summary.unreadable += 1
                key = (item.file, item.line, item.digest)
                if key in self.documents:
                    c.documents_known += 1
                else:
                    self.documents.add(key)
                    if self.mark is not None:
                        self.mark.documents.append(key)
                    keep[id(item)] = item
                    c.documents += 1
            else:
                self._decide(item, keep, pending, deletes, batch)
        if file is not None:
            self._counted(file, at)
        if deletes:
            self.flush()  # a replaced session's rows may be among those waiting
            self._delete(deletes)
        kept = list(keep.values())  # in input order: a replacing item comes after the replaced
        self.changed = self.changed or bool(kept or deletes)
        given = [self.keys[i.session_id] if isinstance(i, SessionItem) else None for i in kept]
        for name in TABLES:
            ranges = [i.rows[name] for i in kept]
            table = rows_in(batch.tables[name], ranges)
            if table.num_rows:
                runs = zip(given, [stop - start for start, stop in ranges], strict=True)
                self.waiting.setdefault(name, []).append(keys.keyed(table, runs))
        kept_documents = documents.kept(batch, [i for i in kept if isinstance(i, SessionItem)])
        if kept_documents.num_rows:
            ids = kept_documents.column("session_id").to_pylist()
            kept_documents = keys.keyed(kept_documents, [(self.keys[sid], 1) for sid in ids])
            self.waiting.setdefault(DOCUMENTS, []).append(kept_documents)
            self.document_bytes += kept_documents.nbytes
        self.keys.clear()
        self.waiting_deals += sum(i.deals for i in kept if isinstance(i, SessionItem))
        if self.waiting_deals >= INSERT_DEALS:
            self.flush()

    def _counted(self, file: str, at: Counts) -> None:
        """What the documents of ``file`` since the counts were ``at`` came to."""
        was = self.by_file.get(file)
        now = self.counts - at
        self.by_file[file] = now if was is None else was + now

    def file_counts(self, file: str) -> Counts:
        """What the documents of ``file`` came to since it was last asked (and forgotten)."""
        return self.by_file.pop(file, None) or Counts()

    def _decide(
        self,
        item: SessionItem,
        keep: dict[int, SessionItem | DocumentItem],
        pending: dict[str, SessionItem],
        deletes: list[str],
        batch: Batch,
    ) -> None:
        c = self.counts
        c.sessions += 1
        c.deals += item.deals
        sid = item.session_id
        stored = self.stored.get(sid)
        same = (
            stored is not None
            and stored.fingerprint == item.fingerprint
            and sid not in self.undocumented
            and (stored.digest == item.digest or self._only_seals_differ(item, batch))
        )
        if same:
            c.skipped += item.deals
            self.skipped_ids.append(sid)
            return
        if not item.audited or item.counts is None:
            raise RuntimeError(f"session {sid!r} was not audited but must be loaded")
        self.summary.merge(item.counts)
        alike = None if stored is not None else self.read_as.get(id_key(sid))
        if alike is not None:
            if not self.replace:
                c.conflicts += item.deals
                was = self.stored[alike]
                self.conflicts.append(
                    Conflict(sid, item.file, item.line, was.file, was.line, LOOKALIKE, alike)
                )
                return
            self._forget(alike, keep, pending, deletes)
        if stored is not None:
            if not self.replace:
                c.conflicts += item.deals
                kind = stored.conflict_kind(item.digest, item.fingerprint)
                self.conflicts.append(
                    Conflict(sid, item.file, item.line, stored.file, stored.line, kind)
                )
                return
            self._forget(sid, keep, pending, deletes)
        keep[id(item)] = item
        pending[sid] = item
        self.last_key += 1  # a replaced session's rows go: its new ones come last, so a new key
        self.keys[sid] = self.last_key
        if self.mark is not None:
            self.mark.stored.setdefault(sid, stored)
        self.stored[sid] = _Stored(item.digest, item.fingerprint, item.file, item.line)
        self.read_as[id_key(sid)] = sid
        c.loaded += item.deals - item.rejected
        c.rejected += item.rejected

    def _only_seals_differ(self, item: SessionItem, batch: Batch) -> bool:
        """Whether ``item``'s document is the loaded one but for its seals (sealed since,
        or sealed again): the same session, not a conflict (docs/evidence.md).  Asked only
        of a session loaded with other bytes, so an ingest without conflicts never asks."""
        if self.replace:
            return False
        new = documents.sent_document(batch, item)
        try:
            old = documents.read_document(self.con, item.session_id)
        except (documents.DocumentDamaged, documents.DocumentTooLarge):
            return False
        return new is not None and old is not None and same_but_seals(old.raw, new)

    def _forget(
        self,
        alike: str,
        keep: dict[int, SessionItem | DocumentItem],
        pending: dict[str, SessionItem],
        deletes: list[str],
    ) -> None:
        """``replace`` of the session ``alike`` (the new one's id, or one that reads the same):
        its rows go, or, loaded earlier in this batch, never reach the database."""
        self.counts.replaced += 1
        earlier = pending.pop(alike, None)
        if earlier is not None:
            del keep[id(earlier)]
        else:
            deletes.append(alike)
        if self.mark is not None:
            self.mark.stored.setdefault(alike, self.stored[alike])
        del self.stored[alike]

    def _delete(self, ids: list[str]) -> None:
        """Every row of the sessions ``ids`` (``replace``), found by their keys; ``rejects``
        by id, where a session's rejected document has no key."""
        found = self.con.execute(
            "SELECT list(session_key) FROM sessions WHERE session_id IN (SELECT unnest(?::VARCHAR[]))",
            [ids],
        ).fetchall()
        by_key = found[0][0] or []
        for table in (*SESSION_TABLES, DOCUMENTS):
            if table == "rejects":
                where, params = "session_id IN (SELECT unnest(?::VARCHAR[]))", [ids]
            else:
                where = (
                    "session_key IN (SELECT unnest(?::BIGINT[])) "
                    "AND session_id IN (SELECT unnest(?::VARCHAR[]))"
                )
                params = [by_key, ids]
            self.con.execute(f"DELETE FROM {table} WHERE {where}", params)

    def _insert(self, name: str, table: pa.Table) -> None:
        insert_table(self.con, name, table)


def insert_table(
    con: duckdb.DuckDBPyConnection, name: str, frame: pa.Table | pa.RecordBatchReader
) -> None:
    """Insert the rows of an Arrow table into the table ``name``, by column name: one
    statement (DuckDB's ``executemany`` inserts a row at a time).  The rows are registered
    under a name no table of a loo-replay database has, and let go after: DuckDB's scan of
    a Python variable by name is shut off with the file system (``settings.seal``).  That
    costs a millisecond or two a statement, a third of a second over 100,000 deals."""
    con.register(_ROWS, frame)
    try:
        con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM {_ROWS}")
    except BaseException:
        # In a transaction the failure aborted, letting go fails too ("Current transaction
        # is aborted"): the insert's own failure is the one to say.  A later ``register``
        # replaces what is left.
        with contextlib.suppress(duckdb.Error):
            con.unregister(_ROWS)
        raise
    con.unregister(_ROWS)


_ROWS = "loo_replay_rows"
_BATCH_ROWS = 50_000  # rows of a derived table inserted at once (``replace_rows``)


def replace_rows(
    con: duckdb.DuckDBPyConnection,
    tables: dict[
        str, tuple[tuple[str, ...], Iterable[tuple[Any, ...]] | pa.Table | pa.RecordBatchReader]
    ],
    covers: Covers,
) -> None:
    """Replace each table's rows with ``rows`` (tuples in the order of ``columns``, an Arrow
    table of those columns, or a stream of record batches of them), and record that they
    cover ``covers``, all in one transaction: a screen's run kept whole or not at all
    (fairness, collusion; db/content.py).  The rows go in by batches, so that an iterator of
    them (a fairness run's 720,000 tests) is never all held as columns too."""
    con.begin()
    try:
        for name, (columns, rows) in tables.items():
            con.execute(f"DELETE FROM {name}")
            if isinstance(rows, pa.RecordBatchReader):  # streamed: registered, read once
                insert_table(con, name, rows)
                record(con, name, covers)
                continue
            if isinstance(rows, pa.Table):
                insert_table(con, name, rows.select(list(columns)))
                record(con, name, covers)
                continue
            it = iter(rows)
            while batch := list(itertools.islice(it, _BATCH_ROWS)):
                arrays = {c: pa.array([r[i] for r in batch]) for i, c in enumerate(columns)}
                insert_table(con, name, pa.table(arrays))
            record(con, name, covers)
        con.commit()
    except BaseException:
        con.rollback()
        raise
