"""Ingest's workers: each share of the input (``logs/pieces.py``) audited into batches of frames.

Shares depend on the files only, never on the number of workers, so every
``--jobs`` loads the same rows.  This module imports no database: it is what
worker processes run.
"""

from __future__ import annotations

import hashlib
import signal
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

import pyarrow as pa  # type: ignore[import-untyped]

from loo_replay.engine.analysis import analyse_deal, start_of_play
from loo_replay.engine.options import OptionError
from loo_replay.engine.session import DealAudit
from loo_replay.gc_thresholds import fewer_collections
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.logs.parse import Bad, parse_document
from loo_replay.logs.pieces import Share, read_piece
from loo_replay.logs.reader import Document, ReadError, decode
from loo_replay.rulesets import RuleChoice, resolve
from loo_replay.run.audit import SessionReport, UnreadableDocument, audit_document
from loo_replay.run.columns import clean
from loo_replay.run.compressed import Compressed
from loo_replay.run.driver import Carried
from loo_replay.run.frames import Batch, FrameBuilder, Item, SessionItem, rules_fingerprint
from loo_replay.run.render import Sampling

if TYPE_CHECKING:  # the queue a worker is given; multiprocessing is not imported to load here
    from multiprocessing.queues import SimpleQueue

BATCH_DEALS = 2000  # deals per frame batch within a piece: bounds memory for big .gz files


class Auditor:
    """Audits pieces into batches; sessions already loaded with the same content and rules
    (``known``: id -> (digest, rules fingerprint)) are counted, not audited again."""

    def __init__(
        self,
        choice: RuleChoice,
        known: Mapping[str, tuple[str, str]],
        batch_deals: int = BATCH_DEALS,
        analyse: bool = False,
        limits: Limits = LIMITS,
        decisions: Sampling | None = None,
    ) -> None:
        self.choice = choice
        self.limits = limits  # what one document may hold (logs/limits.py)
        self.at_play = start_of_play if analyse else None  # the audit keeps it for the analysis
        self.decisions = decisions  # --decisions: each deal judged (docs/judging-decisions.md)
        self.known = known
        self.digests = {digest for digest, _ in known.values()}
        self.batch_deals = batch_deals
        # One builder for every piece: each batch's columns start at the last one's size.
        # A piece broken off by an error may leave rows in it, but that error ends the
        # ingest, so they never reach a batch that is loaded.
        self.builder = FrameBuilder()
        judged = decisions is not None
        self.each = self._analysed if analyse or judged else self.builder.deal

    def batches(self, share: Share) -> Iterator[Batch]:
        """The batches of a share's pieces, read one after another: many small files make
        one batch, not one each."""
        return self.batches_of(read_piece(piece, self.limits) for piece in share)

    def batches_of(self, files: Iterable[Iterable[Document]]) -> Iterator[Batch]:
        """The batches of documents read elsewhere (``work_carried``) or from a share, a
        file's documents after another's: a file that cannot be read or breaks off
        (``ReadError``) is said, and the next file is read."""
        with fewer_collections():
            yield from self._batches(files)

    def _batches(self, files: Iterable[Iterable[Document]]) -> Iterator[Batch]:
        builder = self.builder
        documents = Compressed()  # each audited session's bytes, for its replays
        for docs in files:
            try:
                for doc in docs:
                    skipped = self._already_loaded(doc)
                    if skipped is not None:
                        builder.skipped(skipped)
                    else:
                        item = audit_document(
                            doc,
                            self.choice,
                            self.at_play,
                            keep=False,
                            each=self.each,
                            limits=self.limits,
                        )
                        if isinstance(item, UnreadableDocument):
                            builder.unreadable(item)
                        else:
                            closed = builder.close_session(item)
                            documents.add(doc.raw, closed.line, closed.digest)
                    if builder.deal_count >= self.batch_deals:
                        yield documents.attach(builder.batch())
            except ReadError as exc:
                builder.file_error(str(exc))
        yield documents.attach(builder.batch())

    def _analysed(self, report: SessionReport, index: int, deal: DealAudit) -> None:
        """A deal's rows, then, if it was audited, its double-dummy analysis
        (docs/analysis.md) and its judged decisions (docs/judging-decisions.md)."""
        if self.builder.deal(report, index, deal) and report.options is not None:
            if self.at_play is not None:
                self.builder.analysis(index, deal, analyse_deal(deal, report.options))
            if self.decisions is not None:  # the judging imported only then
                from loo_replay.engine.judging import judge_deal

                s = self.decisions
                judged = judge_deal(deal, report.options, s.samples, s.seed, report.id)
                self.builder.decisions(index, deal, judged, s)

    def _already_loaded(self, doc: Document) -> SessionItem | None:
        """The session ``doc`` holds, if it is loaded already with the same bytes and rules;
        the document is parsed here only then (the audit reads it otherwise)."""
        if not self.digests:
            return None
        digest = hashlib.sha256(doc.raw).hexdigest()
        if digest not in self.digests:
            return None
        doc = decode(doc, self.limits)
        if doc.error is not None:
            return None
        try:
            parsed = parse_document(doc.value)
        except Bad:
            return None
        sid = clean(parsed.session_id or f"{doc.file}:{doc.line or 1}")  # as run/audit.py names it
        stored = self.known.get(sid)
        if stored is None or stored[0] != digest:
            return None
        fingerprint = ""
        if parsed.header is not None:
            try:
                ruleset, options = resolve(self.choice, parsed.header.ruleset, parsed.header.rules)
                fingerprint = rules_fingerprint(ruleset, options)
            except OptionError:
                pass
        if fingerprint != stored[1]:
            return None
        deals = len(parsed.raw_deals)
        file = clean(doc.file)
        return SessionItem(sid, digest, fingerprint, file, doc.line, deals, 0, audited=False)


# -- worker processes ------------------------------------------------------------

_worker: Auditor | None = None


Known = Mapping[str, tuple[str, str]]  # session id -> (digest, rules fingerprint), loaded


def init_worker(
    choice: RuleChoice,
    batch_deals: int,
    analyse: bool,
    limits: Limits,
    decisions: Sampling | None,
    known: SimpleQueue[Known | None],
) -> None:
    """The workers' initializer (``run.driver.Workers``): the rules, and the loaded
    sessions once they arrive on ``known`` (ingest forks its workers before it opens the
    database that lists them); None there means it stopped first, and the worker will get
    no share.

    Ctrl-C is for the main process, which rolls back and stops the pool; a worker
    only finishes its piece (and prints no traceback of its own)."""
    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    loaded = known.get()
    if loaded is not None:
        _worker = Auditor(choice, loaded, batch_deals, analyse, limits, decisions)


# A share's batches as they travel from a worker: each batch's items, and its tables as
# Arrow IPC streams.  The pool pickles it once; pickled here first, every byte of the
# tables was copied twice more on each side.
Packed = list[tuple[list[Item], dict[str, bytes]]]


def work(share: Share) -> Packed:
    """Audit one share of pieces in a worker."""
    assert _worker is not None, "init_worker was not called"
    return pack_batches(list(_worker.batches(share)))


def pack_batches(batches: list[Batch]) -> Packed:
    return [(b.items, {name: _ipc(t) for name, t in b.tables.items()}) for b in batches]


def unpack_batches(packed: Packed) -> list[Batch]:
    return [
        Batch(items, {name: pa.ipc.open_stream(raw).read_all() for name, raw in tables.items()})
        for items, tables in packed
    ]


def _ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue())


# -- on a Dask cluster -------------------------------------------------------------


def work_carried(task: Carried) -> tuple[bool, Packed]:
    """Audit a task carried to a Dask worker (``run.driver.carried``; no initializer there:
    the task says it all, ``setup`` being the ``Auditor``'s arguments); whether it ends its
    share, and its batches."""
    return task.last, pack_batches(list(Auditor(*task.setup).batches_of(task.documents())))
