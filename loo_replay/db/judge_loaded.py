"""The loaded deals whose decisions are not judged yet, judged from the database's copies of
their logs (``ingest --decisions`` and ``audit --decisions``; docs/judging-decisions.md, "In
the database and the reports").

A load with ``--decisions`` judges the deals it loads in its own workers (``run.load_work``).
The deals loaded before, by a load without ``--decisions`` or from logs that have since
moved or gone, are judged here: each session's document is read back from the
``documents`` table, audited under the rules it was loaded under (``sessions.rules``, as
``collusion.unanalysed`` does), and each deal with no ``decision_deals`` row is judged by
``judge_deal`` with the deal's replay still on it, as the load's workers judge it, into the
same rows (``run.decision_rows``).  Deals judged before with other ``--samples`` or
``--seed`` are kept and counted; with ``replace`` they are judged again.

The work (``judge_task``) goes to the processes the command gives (``run.driver.Processes``,
started afresh: this process holds the database; or the workers of a Dask cluster, which
need no file of this machine: a task carries its document) in tasks of a few deals, and the rows are
committed as they come back (``Committer``), so an interrupted run keeps what it judged and
the next judges the rest.  Each commit raises the content version for the reports alone
(``db.content``): the decisions page and the decision summaries are stale; the fairness
tests and the collusion screen, which read no decision, are not.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import closing, suppress
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa  # type: ignore[import-untyped]

from loo_replay.db import content, keys
from loo_replay.db.documents import DocumentDamaged, DocumentTooLarge, read_document
from loo_replay.db.errors import DatabaseError, damage
from loo_replay.db.load import insert_table
from loo_replay.db.opening import open_db
from loo_replay.engine.judging import judge_deal
from loo_replay.engine.options import OptionError
from loo_replay.engine.session import DealAudit
from loo_replay.engine.vocab import Status
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.logs.reader import Document
from loo_replay.rulesets import loaded_choice
from loo_replay.run.audit import SessionReport, audit_document
from loo_replay.run.columns import clean
from loo_replay.run.decision_rows import decision_rows
from loo_replay.run.driver import HERE, Processes
from loo_replay.run.frames import Columns
from loo_replay.run.render import Sampling
from loo_replay.run.rows import DecisionDealRow, DecisionRow, schema

# Deals a task judges, at least: a few seconds of a worker's time at 100 worlds, so that the
# last tasks leave no worker idle for long.  A session of many deals is cut into at most
# TASKS_A_SESSION tasks of more, each auditing the session again (an audit costs about a
# thousandth of the judging) with its own copy of the document.
TASK_DEALS = 8
TASKS_A_SESSION = 8
# Rows are committed once this many seconds have passed since the last commit (and at the
# end): an interruption loses at most this much judging, and a few commits cost little.
COMMIT_SECONDS = 2.0

NO_DOCUMENT = "no_document"  # the session was loaded before the database kept documents
CHANGED = "changed"  # its document is damaged, too large, or no longer audits as loaded

Progress = Callable[[int, int], None]  # (deals judged so far, deals to judge)


@dataclass
class Judged:
    """What ``judge_loaded`` found and did, deals counted."""

    sampling: Sampling
    loaded: int = 0  # the deals of the database
    judged: int = 0  # judged here now
    again: int = 0  # of those, judged before with other settings (``replace``)
    same: int = 0  # judged before with these settings: left as they are
    kept: list[tuple[int, int, int]] = field(default_factory=list)  # (K, seed, deals) kept
    missing: dict[str, int] = field(default_factory=dict)  # why -> deals not judged
    stale: list[str] = field(default_factory=list)  # the derived results now stale, if judged


@dataclass(frozen=True)
class Task:
    """A few deals of one loaded session, to judge from its document."""

    session_id: str
    file: str
    line: int | None
    ruleset: str | None
    rules: str | None
    raw: bytes
    indexes: tuple[int, ...]
    sampling: Sampling
    limits: Limits


Rows = list[DecisionDealRow | DecisionRow]


def judge_task(task: Task) -> tuple[Task, Rows | None]:
    """A task's deals judged, as rows; None when the document no longer audits to the
    session loaded (another id, a deal not audited, rules that no longer resolve).  Run in a
    worker process, or here with one job."""
    try:
        choice = loaded_choice(task.ruleset, task.rules)
    except (OptionError, ValueError):
        return task, None
    wanted = set(task.indexes)
    rows: Rows = []
    s = task.sampling

    def each(report: SessionReport, index: int, deal: DealAudit) -> None:
        if index not in wanted or report.options is None:
            return
        if deal.status == Status.REJECTED or deal.result is None:
            return  # loaded as audited: the document is not what was loaded
        wanted.discard(index)
        judged = judge_deal(deal, report.options, s.samples, s.seed, report.id)
        rows.extend(decision_rows(task.session_id, index, deal, judged, s))

    # The session's id is its log's place where the log gives none (``run.audit``): the
    # document is read as the file and line the load read it at.
    doc = Document(task.file, task.line, task.raw)
    report = audit_document(doc, choice, keep=False, each=each, limits=task.limits)
    if not isinstance(report, SessionReport) or clean(report.id) != task.session_id or wanted:
        return task, None
    return task, rows


_SETTINGS = """
SELECT j.samples, j.seed, count(*)
FROM deals d JOIN decision_deals j USING (session_id, deal_index)
GROUP BY ALL ORDER BY count(*) DESC, j.samples, j.seed
"""

# The sessions with deals to judge, in the order they were loaded: the deals with no
# ``decision_deals`` row, and, with ``replace``, those judged with other settings.
_TO_JUDGE = """
SELECT d.session_id, any_value(s.file), any_value(s.line), any_value(s.ruleset),
       any_value(s.rules), list(d.deal_index ORDER BY d.deal_index)
FROM deals d
JOIN sessions s USING (session_id)
LEFT JOIN decision_deals j USING (session_id, deal_index)
WHERE j.session_id IS NULL OR ($replace AND (j.samples, j.seed) != ($samples, $seed))
GROUP BY d.session_id
ORDER BY any_value(s.file), any_value(s.line), d.session_id
"""


def judge_loaded(
    db: Path,
    sampling: Sampling,
    *,
    replace: bool = False,
    workers: Processes = HERE,
    progress: Progress | None = None,
    limits: Limits = LIMITS,
) -> Judged:
    """Judge every deal of the database at ``db`` that has no judged decisions, on
    ``sampling``'s worlds and seed (with ``replace``, those judged with other settings too),
    each session's document read within ``limits``, judged in ``workers``."""
    con = open_db(db)
    out = Judged(sampling)
    try:
        writer = Committer(con, replace)
        todo = _plan(con, out, replace)
        total = sum(len(t[-1]) for t in todo)
        if progress is not None and total:
            progress(0, total)
        tasks = _tasks(con, todo, out, limits)
        judging = workers if total > TASK_DEALS else HERE
        with closing(judging.map(judge_task, tasks, spawn=True)) as results:
            for task, rows in results:
                if rows is None:
                    out.missing[CHANGED] = out.missing.get(CHANGED, 0) + len(task.indexes)
                else:
                    writer.add(task, rows)
                    out.judged += len(task.indexes)
                if progress is not None:
                    progress(out.judged + sum(out.missing.values()), total)
        writer.commit()
        out.again = writer.again
        if out.judged:
            out.stale = content.stale(con)
    except duckdb.InterruptException:  # Ctrl-C while DuckDB was working
        raise KeyboardInterrupt from None
    except duckdb.Error as exc:
        raise DatabaseError(
            f"judging the decisions in {db} failed ({damage(str(exc))}); the deals judged "
            "before the failure are kept"
        ) from None
    finally:
        con.close()
    return out


# A session to judge: its id, file, line, ruleset and rules, and the deals' indexes.
ToJudge = tuple[str, str, int | None, str | None, str | None, list[int]]


def _plan(con: duckdb.DuckDBPyConnection, out: Judged, replace: bool) -> list[ToJudge]:
    """The sessions with deals to judge; ``out`` counts the deals and how they were judged."""
    s = out.sampling
    ((out.loaded,),) = con.execute("SELECT count(*) FROM deals").fetchall()
    for samples, seed, deals in con.execute(_SETTINGS).fetchall():
        if (samples, seed) == (s.samples, s.seed):
            out.same = int(deals)
        elif not replace:
            out.kept.append((int(samples), int(seed), int(deals)))
    found = con.execute(
        _TO_JUDGE, {"replace": replace, "samples": s.samples, "seed": s.seed}
    ).fetchall()
    return [(sid, file, line, ruleset, rules, list(ix)) for sid, file, line, ruleset, rules, ix
            in found]  # fmt: skip


def _tasks(
    con: duckdb.DuckDBPyConnection,
    todo: list[ToJudge],
    out: Judged,
    limits: Limits,
) -> Iterator[Task]:
    """Each session's deals to judge in tasks, its document read as the task is handed out;
    a session without a usable document is counted in ``out.missing``."""
    for sid, file, line, ruleset, rules, indexes in todo:
        try:
            stored = read_document(con, sid, limits.document_bytes)
        except (DocumentDamaged, DocumentTooLarge):
            stored, why = None, CHANGED
        else:
            why = NO_DOCUMENT
        if stored is None:
            out.missing[why] = out.missing.get(why, 0) + len(indexes)
            continue
        size = max(TASK_DEALS, -(-len(indexes) // TASKS_A_SESSION))
        for start in range(0, len(indexes), size):
            chunk = tuple(indexes[start : start + size])
            yield Task(sid, file, line, ruleset, rules, stored.raw, chunk, out.sampling, limits)


class Committer:
    """The sink of the judging: the judged rows into the database, in the order they come
    back, committed every COMMIT_SECONDS: each commit raises the content version, marking
    the reports stale (``content.raise_version``)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, replace: bool) -> None:
        self.con = con
        self.replace = replace
        self.open = False
        self.since = time.monotonic()
        self.again = 0  # deals whose rows of other settings were replaced
        self.keys: dict[str, int] = {}  # of the sessions judged, their rows' key (db/keys.py)

    def add(self, task: Task, rows: Rows) -> None:
        if not self.open:
            self.con.begin()
            self.open = True
        try:
            key = self._key(task.session_id)
            if self.replace:
                self._forget(task, key)
            for row_type in (DecisionDealRow, DecisionRow):
                table = _table(row_type, [r for r in rows if type(r) is row_type])
                if table.num_rows:
                    table = keys.keyed(table, [(key, table.num_rows)])
                    insert_table(self.con, _TABLES[row_type], table)
        except BaseException:
            self.rollback()
            raise
        if time.monotonic() - self.since >= COMMIT_SECONDS:
            self.commit()

    def _key(self, session_id: str) -> int:
        key = self.keys.get(session_id)
        if key is None:
            found = keys.key_of(self.con, session_id)
            if found is None:  # judged from the database's own list of its sessions
                raise DatabaseError(f"session {session_id!r} is no longer in the database")
            key = self.keys[session_id] = found
        return key

    def _forget(self, task: Task, session_key: int) -> None:
        """The task's deals' rows of other settings, gone before their new ones go in."""
        key = [session_key, task.session_id, list(task.indexes)]
        where = f"WHERE {keys.BY_KEY} AND list_contains(?, deal_index)"
        ((n,),) = self.con.execute(f"SELECT count(*) FROM decision_deals {where}", key).fetchall()
        self.again += int(n)
        for table in ("decisions", "decision_deals"):
            self.con.execute(f"DELETE FROM {table} {where}", key)

    def commit(self) -> None:
        if self.open:
            try:
                content.raise_version(self.con, (content.REPORTS,))
                self.con.commit()
            except BaseException:
                self.rollback()
                raise
            self.open = False
        self.since = time.monotonic()

    def rollback(self) -> None:
        if self.open:
            self.open = False
            with suppress(duckdb.Error):  # nothing to undo
                self.con.rollback()


_TABLES = {DecisionDealRow: "decision_deals", DecisionRow: "decisions"}


def _table(row_type: type[DecisionDealRow] | type[DecisionRow], rows: Rows) -> pa.Table:
    """Rows of one type as the Arrow table the loader would insert."""
    arrow = schema(row_type)
    columns = Columns(row_type, arrow)
    for row in rows:
        columns.add(row)
    return columns.table(arrow)
