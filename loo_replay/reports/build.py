"""Everything the reports need, written into one output folder, and nothing outside it.

``out/index.html`` links a page per session (``session-<name>.html``) and
``all-sessions.html``; ``plotly.min.js``, ``report.js`` and ``report.css``
are written once beside them; each deal's replay is
``replays/<name>/deal-<N>.html``.  ``<name>`` is ``safe_filename`` of the
session id, and every path passes ``names.inside``.  The folder's manifest
(``files.claim``) lists what was written: a later run removes only that, and
refuses a folder that holds anything else (docs/limits.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import duckdb
from plotly.offline import get_plotlyjs, get_plotlyjs_version  # type: ignore[import-untyped]

from loo_replay import __version__
from loo_replay.collusion import table as collusion_table
from loo_replay.db import content
from loo_replay.db.documents import kept_document
from loo_replay.db.interrupts import start
from loo_replay.db.opening import connect
from loo_replay.db.paths import database_file
from loo_replay.db.settings import as_worker, widened, working
from loo_replay.db.stored_analysis import stored_analyses
from loo_replay.db.stored_decisions import decision_loads, stored_decisions
from loo_replay.fairness.table import stored
from loo_replay.files import claim
from loo_replay.html import Markup
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.reports import (
    across_figures,
    assets,
    collusion_page,
    decisions_page,
    figures,
    pages,
    queries,
    registry,
    session_figures,
)
from loo_replay.reports.fairness_page import FAIRNESS, fairness_page, index_notice
from loo_replay.reports.names import inside, session_page_name, write_file
from loo_replay.reports.replays import REPLAYS, STAMP, ReplayJob, ReplayOutcome, write_replays
from loo_replay.reports.rows import (
    ListedDiscrepancy,
    ListedFinding,
    ListedReject,
    PlayerTotals,
    PoolStep,
    RejectedDeal,
    SessionDiscrepancy,
    SessionFinding,
    SessionSummary,
    Standing,
    ThrownTrick,
)
from loo_replay.reports.rows import rows as as_rows
from loo_replay.run.driver import HERE, Processes

Progress = Callable[[str], None]
# Deals of the sessions whose rows are asked of DuckDB together.  A batch's queries hold
# about 23 MB of DuckDB's pool and 0.8 MB more a thousand six-player deals (its joins and
# groupings), and its frames and figures grow with it: at a million deals a process of
# `report --jobs 2` peaked at 305 MB with 20,000 and a 64 MB pool, 271 with 10,000 and 48
# MB (benchmarks/results/million.md), for 15 to 20% more of the pages' CPU (each batch's
# queries cost something of their own, whatever its size).
BATCH_DEALS = 10_000
REPLAY_ALL_LIMIT = 5_000  # deals up to which every deal gets a replay page
FINDINGS_LISTED = 2_000  # violations, discrepancies (all-sessions page), rejects (index)
ASSETS = (pages.PLOTLY_JS, pages.REPORT_JS, pages.REPORT_CSS)
# Every name a report folder's files get: what a folder without a finished manifest (written
# by a version before the manifest, or by a run that was interrupted) may hold.
REPORT_NAMES = (
    *ASSETS,
    pages.INDEX,
    *(p.file for p in registry.PAGES),
    "session-*.html",
    f"{REPLAYS}/*/deal-*.html",
    f"{REPLAYS}/*/{STAMP}",
)


@dataclass
class ReportResult:
    index: Path
    covers: content.Covers  # what the folder was written from
    sessions: int = 0
    replays: int = 0  # deals with a replay page
    replays_written: int = 0  # of which written by this run (the rest were up to date)
    only_findings: bool = False  # too many deals: pages only for deals with findings
    notes: list[tuple[str, str]] = field(default_factory=list)  # (session id, what is missing)


def write_assets(out: Path) -> None:
    """plotly.js (from the installed plotly package: no CDN), the script and the style sheet;
    an identical file is not written again."""
    for name, body in zip(
        ASSETS, (get_plotlyjs(), assets.REPORT_JS, assets.REPORT_CSS), strict=True
    ):
        data = body.encode("utf-8")
        path = inside(out, name)
        if (
            not path.is_symlink()
            and path.is_file()
            and path.stat().st_size == len(data)
            and path.read_bytes() == data
        ):
            continue
        write_file(out, name, data)


def write_reports(
    con: duckdb.DuckDBPyConnection,
    out: Path,
    *,
    source: str,
    replays: bool = True,
    workers: Processes = HERE,
    progress: Progress | None = None,
    limits: Limits = LIMITS,
) -> ReportResult:
    """Write the index, a report per session, the all-sessions report and (with ``replays``)
    every deal's replay page into ``out``, from the database ``con`` (named ``source``),
    the logs read again within ``limits``, the pages written in ``workers``;
    ``files.OutputRefused`` before anything is written when ``out`` holds other files."""
    claimed = claim(out, REPORT_NAMES, "the reports")
    write_assets(out)
    rows = as_rows(queries.sessions(con), SessionSummary)
    colours = figures.player_colours(con)
    footer = (
        f"Written by loo-replay {__version__} from {pages.text(source, 200)} · figures by "
        f"plotly.js {_plotly_js_version()} (offline, beside this page)"
    )
    result = ReportResult(inside(out, pages.INDEX), content.covered(con), len(rows))
    folder = content.Coverage(result.covers, content.now(), result.covers)  # one time a run
    outcomes: dict[str, ReplayOutcome] = {}
    if replays:
        # A page a deal is 30-40 kB: past REPLAY_ALL_LIMIT deals, pages only where the
        # rules were broken or the record is wrong, which is what a reader clicks through to.
        result.only_findings = sum(int(r["deals"]) for r in rows) > REPLAY_ALL_LIMIT
        behind = collusion_table.flagged_deals(con)  # pages besides the findings'
        for sid, indexes in decisions_page.listed_deals(con).items():
            behind[sid] = tuple(sorted({*behind.get(sid, ()), *indexes}))
        loads = decision_loads(con)  # a page judged otherwise is out of date
        jobs_list = [
            ReplayJob(
                r["session_id"],
                r["file"],
                r["line"],
                r["digest"],
                r["rules_fingerprint"],
                r["ruleset"],
                r["rules"],
                result.only_findings,
                r["analysed"] > 0,
                behind.get(r["session_id"], ()),
                loads.get(r["session_id"], ""),
            )
            for r in rows
            if not result.only_findings
            or r["violations"]
            or r["discrepancies"]
            or r["session_id"] in behind
        ]  # a session without findings is not read again when only findings get pages
        finished = 0

        def done(outcome: ReplayOutcome) -> None:
            nonlocal finished
            finished += 1
            if progress is not None:
                progress(f"replays: {finished}/{len(rows)} session(s)")

        outcomes = write_replays(
            out,
            jobs_list,
            db=database_file(con),
            workers=workers,
            done=done,
            stored=lambda session_id: stored_analyses(con, session_id),
            kept=lambda session_id: kept_document(con, session_id, limits.document_bytes),
            limits=limits,
            decided=lambda session_id: stored_decisions(con, session_id),
        )
    links = {r["session_id"]: session_page_name(r["session_id"]) for r in rows}
    for r in rows:  # in the index's order
        if (found := outcomes.get(r["session_id"])) is not None:
            result.replays += len(found.pages)
            result.replays_written += found.written
            result.notes.extend([(r["session_id"], found.note)] if found.note else [])
    _write_session_pages(con, Shared(out, colours, footer), rows, outcomes, workers, progress)
    deal_pages = {(sid, i): link for sid, o in outcomes.items() for i, link in o.pages.items()}
    write_file(
        out,
        pages.ALL_SESSIONS,
        all_sessions(
            con,
            rows,
            deal_pages,
            colours,
            links,
            source,
            footer,
            folder,
        ),
    )
    fair = stored(con)
    write_file(
        out, FAIRNESS, fairness_page(fair, content.coverage(con, content.FAIRNESS), source, footer)
    )
    pairs = collusion_table.stored(con)
    page = collusion_page.collusion_page(
        pairs,
        collusion_table.stored_acts(con),
        deal_pages,
        links,
        content.coverage(con, content.COLLUSION),
        source,
        footer,
    )
    write_file(out, collusion_page.COLLUSION, page)
    judged = decisions_page.decisions_page(con, deal_pages, links, colours, source, footer, folder)
    write_file(out, decisions_page.DECISIONS, judged)
    rejects, rejects_total = queries.listed_rejects(con, FINDINGS_LISTED)
    listed = (as_rows(rejects, ListedReject), rejects_total)
    notice = Markup(
        index_notice(fair) + collusion_page.index_notice(pairs) + decisions_page.index_notice(con)
    )
    index = pages.index_page(rows, links, source, footer, notice, listed, folder)
    write_file(out, pages.INDEX, index)
    written = [*ASSETS, *(p.file for p in registry.PAGES), pages.INDEX, *links.values()]
    for outcome in outcomes.values():
        written += [*outcome.pages.values(), *([outcome.stamp] if outcome.stamp else [])]
    claimed.finish(written)
    return result


def all_sessions(
    con: duckdb.DuckDBPyConnection,
    rows: list[SessionSummary],
    replays: Mapping[tuple[str, int], str],
    colours: dict[str, str],
    links: Mapping[str, str],
    source: str,
    footer: str,
    coverage: content.Coverage | None = None,
) -> str:
    """The all-sessions report; ``replays`` links deals' replays by (session id, index);
    ``coverage``: what the report was written from (None: the database now)."""
    names = queries.player_names(con)
    found, found_total = queries.all_findings(con, FINDINGS_LISTED)
    off, off_total = queries.all_discrepancies(con, FINDINGS_LISTED)
    across = pages.Across(
        standings=as_rows(queries.standings(con), Standing),
        names=names,
        colours=colours,
        findings=as_rows(found, ListedFinding),
        findings_total=found_total,
        discrepancies=as_rows(off, ListedDiscrepancy),
        discrepancies_total=off_total,
        replays=replays,
    )
    return pages.all_sessions_page(
        rows,
        across_figures.all_sessions_figures(con, colours, names),
        links,
        source,
        footer,
        across,
        coverage or content.live(con),
    )


@dataclass(frozen=True)
class Shared:
    """What every session page of a report shares (sent once to each worker process)."""

    out: Path
    colours: dict[str, str]
    footer: str


def _write_session_pages(
    con: duckdb.DuckDBPyConnection,
    shared: Shared,
    rows: list[SessionSummary],
    outcomes: dict[str, ReplayOutcome],
    workers: Processes,
    progress: Progress | None,
) -> None:
    """A page per session, batch by batch; with more than one job in ``workers`` the
    batches are shared out over this process, on ``con``, and ``jobs - 1`` spawned workers
    (``session_pages``), each with its own read-only connection to the same database file
    (``start_session_worker``): the process that holds the index's summaries anyway takes
    a worker's share, and for ``--jobs 2`` the tree is two processes, not three (issue 53:
    600 MB at a million deals).  On a Dask cluster they are written here: its workers may
    not see the database file (the replay pages, which need only a document, are rendered
    there).  The batches are runs of sessions in load order, so that each batch's queries
    read the few groups of rows its keys name (``queries.Sessions``)."""
    loaded = dict(con.execute("SELECT session_id, session_key FROM sessions").fetchall())
    batches = [
        (
            chunk,
            {
                r["session_id"]: outcomes[r["session_id"]]
                for r in chunk
                if r["session_id"] in outcomes
            },
        )
        for chunk in _batches(sorted(rows, key=lambda r: loaded[r["session_id"]]))
    ]
    path = _database_file(con)
    if workers.jobs <= 1 or workers.remote or path is None or len(batches) <= 1:
        _count(rows, (_pages_of(con, shared, *batch) for batch in batches), progress)
        return
    with working(con):  # this process queries as a worker does, beside them
        counts = workers.map(
            session_pages,
            batches,
            initializer=start_session_worker,
            initargs=(path, shared),
            spawn=True,  # never forked: this process holds DuckDB
            here=lambda batch: _pages_of(con, shared, *batch),
        )
        _count(rows, counts, progress)


def _count(rows: list[SessionSummary], counts: Iterator[int], progress: Progress | None) -> None:
    """The pages written, batch by batch, said as they are."""
    written = 0
    for count in counts:
        written += count
        if progress is not None:
            progress(f"session pages: {written}/{len(rows)}")


def _pages_of(
    con: duckdb.DuckDBPyConnection,
    shared: Shared,
    chunk: list[SessionSummary],
    outcomes: dict[str, ReplayOutcome],
) -> int:
    """The pages of one batch of sessions.  A batch that runs out of a worker's small pool
    (``settings.WORKER_MEMORY``; a batch is counted in deals, and a table of more seats has
    more rows a deal) is written once more with every connection's bound, not lost with the
    report (docs/limits.md, "Databases")."""
    try:
        return _batch_pages(con, shared, chunk, outcomes)
    except duckdb.OutOfMemoryException:
        with widened(con):
            return _batch_pages(con, shared, chunk, outcomes)


def _batch_pages(
    con: duckdb.DuckDBPyConnection,
    shared: Shared,
    chunk: list[SessionSummary],
    outcomes: dict[str, ReplayOutcome],
) -> int:
    """The pages of one batch of sessions: a query per table for the whole batch."""
    batch = queries.Batch(con, [r["session_id"] for r in chunk])
    for r in chunk:
        outcome = outcomes.get(r["session_id"])
        sp = session_of(
            batch,
            r,
            shared.colours,
            shared.footer,
            outcome.pages if outcome is not None else {},
            [outcome.note] if outcome is not None and outcome.note else [],
        )
        write_file(shared.out, session_page_name(r["session_id"]), pages.session_page(sp))
    return len(chunk)


def session_of(
    batch: queries.Batch,
    r: SessionSummary,
    colours: dict[str, str],
    footer: str,
    replays: Mapping[int, str],
    notes: Sequence[str] = (),
) -> pages.SessionPage:
    """What the session ``r``'s report shows, from the batch it is in; ``replays`` links
    its deals' replays by deal index (the report's files, or the explorer's URLs)."""
    sid = r["session_id"]
    return pages.SessionPage(
        session=r,
        players=as_rows(batch.frame(queries.players, sid), PlayerTotals),
        deals=as_rows(batch.frame(queries.pool_history, sid), PoolStep),
        rejected=as_rows(batch.frame(queries.rejected_deals, sid), RejectedDeal),
        findings=as_rows(batch.frame(queries.findings, sid), SessionFinding),
        discrepancies=as_rows(batch.frame(queries.discrepancies, sid), SessionDiscrepancy),
        thrown=as_rows(batch.frame(queries.thrown_tricks, sid), ThrownTrick),
        figures=session_figures.session_figures(batch, sid, colours),
        colours=colours,
        replays=replays,
        notes=notes,
        footer=footer,
    )


_WORKER: tuple[duckdb.DuckDBPyConnection, Shared] | None = None  # in a worker process


def start_session_worker(path: str, shared: Shared) -> None:
    """A worker process's start: its read-only connection to the database file at ``path``,
    and what every page shares, kept for ``session_pages``."""
    global _WORKER
    # Each statement bounded in time as the command's own (``interrupts.bounded``), for
    # the worker's life.
    con = as_worker(connect(Path(path), read_only=True))  # a small pool, one thread
    _WORKER = (cast(duckdb.DuckDBPyConnection, start(con)), shared)


def session_pages(batch: tuple[list[SessionSummary], dict[str, ReplayOutcome]]) -> int:
    """The work of a worker process: the pages of one batch of sessions (with the replay
    pages each links), written; how many."""
    assert _WORKER is not None, "start_session_worker runs first"
    return _pages_of(*_WORKER, *batch)


def _database_file(con: duckdb.DuckDBPyConnection) -> str | None:
    """The file ``con`` reads (None for an in-memory database: no worker can open it)."""
    ((path,),) = con.execute(
        "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
    ).fetchall()
    return None if path is None else str(path)


def _batches(rows: list[SessionSummary]) -> Iterator[list[SessionSummary]]:
    """The sessions in order, about ``BATCH_DEALS`` deals a batch.  Each batch costs a scan
    of each table: few batches keep that down (docs/performance.md, "What limits `ingest`
    and `report`"), and a bounded batch keeps memory independent of the database's size."""
    start, deals = 0, 0
    for end, r in enumerate(rows, start=1):
        deals += int(r["deals"])
        if deals >= BATCH_DEALS or end == len(rows):
            yield rows[start:end]
            start, deals = end, 0


def _plotly_js_version() -> str:
    return str(get_plotlyjs_version())
