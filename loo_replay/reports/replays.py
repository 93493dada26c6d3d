"""Replay pages for every deal of the reported sessions, from their documents read again.

The database holds verdicts, not the engine's step-by-step state, so a
session's document is read again: the copy the database keeps
(``documents``, db/documents.py), or, for a session loaded before documents
were kept or whose copy is damaged, its log (``sessions.file``, found from
the database's folder by ``db.paths.log_path``, and ``line``).  It is checked
against the digest it was loaded with, audited under exactly the options it
was loaded under (``sessions.rules``), and each deal rendered with
``render_page``, linked to its session and its neighbours.  A session whose
pages are already written for the same content, rules and program is left
alone (``stamp.json``), so a second ``report`` costs little; sessions are
shared out over the processes the command gives (``run.driver.Processes``), each
rendering a session's pages (``render_task``); on a Dask cluster, whose workers may not
see the output folder, a session's pages come back and are written here
(``render_returned``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from loo_replay import __version__
from loo_replay.db.documents import DocumentTooLarge
from loo_replay.db.paths import log_path
from loo_replay.engine.options import OptionError
from loo_replay.engine.vocab import Status
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.logs.reader import Document, ReadError, read_documents
from loo_replay.reports.names import inside, safe_filename, session_page_name, write_file
from loo_replay.rulesets import loaded_choice
from loo_replay.run.audit import SessionReport, audit_document
from loo_replay.run.driver import HERE, Processes
from loo_replay.run.frames import rules_fingerprint

if TYPE_CHECKING:
    from loo_replay.engine.analysis import DealAnalysis
    from loo_replay.engine.judging import DealDecisions
    from loo_replay.replayer.steps import DealReplay

REPLAYS = "replays"
STAMP = "stamp.json"


@dataclass(frozen=True)
class ReplayJob:
    """One session whose deals need pages: where its log is and what it was loaded as."""

    session_id: str
    file: str
    line: int | None
    digest: str
    fingerprint: str
    ruleset: str | None
    rules: str | None  # every option in force, JSON text
    only_findings: bool = False  # pages only for deals with a violation or discrepancy
    analysed: bool = True  # loaded with the analysis: the pages show it too
    also: tuple[int, ...] = ()  # deal indexes with pages besides the findings': behind a flag
    judged: str = ""  # how its decisions were judged ("100/0": K/seed), when they were


@dataclass
class ReplayOutcome:
    session_id: str
    pages: dict[int, str] = field(default_factory=dict)  # deal_index -> link from the out folder
    note: str | None = None  # why some or all pages are missing
    written: int = 0  # pages written now (0 when reused)
    stamp: str | None = None  # the stamp's link from the out folder, once written


def folder(session_id: str) -> str:
    """The session's replay folder, relative to the output folder."""
    return f"{REPLAYS}/{safe_filename(session_id)}"


def _program_key() -> str:
    """What else a page depends on: this program's version and the replay page's assets."""
    from loo_replay.replayer import assets

    text = f"{__version__}\n{assets.PAGE_CSS}\n{assets.PAGE_JS}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _key(job: ReplayJob) -> str:
    also = ",".join(map(str, job.also))
    return (
        f"{job.digest}:{job.fingerprint}:{job.only_findings}:{also}:{job.analysed}:{job.judged}:"
        f"{_program_key()}"
    )


def _reuse(out: Path, job: ReplayJob) -> ReplayOutcome | None:
    """The pages written by an earlier run, if they are for this very content and rules."""
    try:
        stamp = orjson.loads(inside(out, *folder(job.session_id).split("/"), STAMP).read_bytes())
    except (OSError, orjson.JSONDecodeError, ValueError):
        return None
    if not isinstance(stamp, dict) or stamp.get("key") != _key(job):
        return None
    pages = {int(k): str(v) for k, v in dict(stamp.get("pages", {})).items()}
    if not all(inside(out, *link.split("/")).is_file() for link in pages.values()):
        return None
    link = f"{folder(job.session_id)}/{STAMP}"
    return ReplayOutcome(job.session_id, pages, stamp.get("note"), stamp=link)


def _replayable(
    report: SessionReport,
    job: ReplayJob,
    stored: dict[int, DealAnalysis],
    decided: dict[int, DealDecisions],
) -> Iterator[tuple[int, int, str, DealReplay]]:
    """(deal index, number, page name, replay) of each deal that gets a page, one at a time;
    the analyses ``stored`` and the decisions ``decided`` by the load are used, not searched
    again; every page has the seat views."""
    from loo_replay.replayer.judged import as_loaded
    from loo_replay.replayer.steps import ReplayError, build_replay

    taken: set[str] = set()
    for index, deal in enumerate(report.deals):
        if deal.status == Status.REJECTED or deal.result is None or deal.number is None:
            continue
        findings = deal.violations or deal.discrepancies
        if job.only_findings and not findings and index not in job.also:
            continue
        try:
            rp = build_replay(report, deal, job.analysed, analysis=stored.get(index))
            rp = as_loaded(rp, decided.get(index))
        except ReplayError:
            continue
        name = f"deal-{deal.number}.html"
        if name in taken:  # deal numbers of audited deals increase; be safe anyway
            name = f"deal-{deal.number}-{index}.html"
        taken.add(name)
        yield index, deal.number, name, rp


def loaded_report(
    job: ReplayJob, raw: bytes, limits: Limits = LIMITS, first: int | None = None
) -> SessionReport | str:
    """The session as it was loaded: the document ``raw`` audited under exactly the rules
    it was loaded under, or one sentence why its deals cannot be replayed (the bytes or
    the rules are not those loaded).  ``first``: only the first deals, up to that many,
    are audited (a deal's verdict depends on the deals before it alone)."""
    if hashlib.sha256(raw).hexdigest() != job.digest:
        return (
            f"{job.file} has changed since the session was loaded, so its deals have no "
            "replay pages; load it again with `loo-replay ingest --replace`"
        )
    try:
        choice = loaded_choice(job.ruleset, job.rules)
    except (OptionError, ValueError) as exc:
        return f"the session's rules cannot be read back ({exc}); no replay pages"
    if first is not None:
        raw = _first_deals(raw, first)
    report = audit_document(Document(job.file, job.line, raw), choice, limits=limits)
    if not isinstance(report, SessionReport) or report.id != job.session_id:
        return f"{job.file} no longer holds this session; no replay pages"
    if rules_fingerprint(report.ruleset, report.options) != job.fingerprint:
        return (
            "the session was audited under other rules or by another version of loo-replay, "
            "so its deals have no replay pages; re-audit it with `loo-replay ingest --replace`"
        )
    return report


def _first_deals(raw: bytes, first: int) -> bytes:
    """The document with its first ``first`` deals alone; as it is when orjson cannot read
    it back (a number past 64 bits), or it is not a session document."""
    try:
        doc = orjson.loads(raw)
        doc["deals"] = doc["deals"][:first]
        return orjson.dumps(doc)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError, TypeError, KeyError):
        return raw


Write = Callable[[str, str | bytes], object]  # a file of the output folder, by its link


def render_session(
    out: Path,
    job: ReplayJob,
    raw: bytes,
    stored: dict[int, DealAnalysis] | None = None,
    limits: Limits = LIMITS,
    decided: dict[int, DealDecisions] | None = None,
    write: Write | None = None,
) -> ReplayOutcome:
    """Audit the document ``raw`` as loaded (within ``limits``) and write a page per deal that can be replayed,
    each linked to its session's report and to the previous and next deal with a page;
    ``stored`` holds the deals' analyses as loaded, ``decided`` their judged decisions, by
    deal index.  The pages go into ``out``, or to ``write`` when it is given."""
    from loo_replay.replayer.html import Links, render_page

    def into_out(link: str, data: str | bytes) -> object:
        return write_file(out, link, data)

    put = into_out if write is None else write
    outcome = ReplayOutcome(job.session_id)
    report = loaded_report(job, raw, limits)
    if isinstance(report, str):
        outcome.note = report
        return outcome
    base = folder(job.session_id)  # pages of other content there go once the report ends
    session = f"../../{session_page_name(job.session_id)}"  # from replays/<folder>/
    previous: tuple[int, str] | None = None
    pending: tuple[int, int, str, DealReplay] | None = None  # written once its next is known
    for found in [*_replayable(report, job, stored or {}, decided or {}), None]:
        if pending is not None:
            index, number, name, rp = pending
            following = None if found is None else (found[1], found[2])
            page = render_page(rp, Links(session, previous, following))
            put(f"{base}/{name}", page)
            outcome.pages[index] = f"{base}/{name}"
            outcome.written += 1
            previous = (number, name)
        pending = found
    stamp = {"key": _key(job), "pages": outcome.pages, "note": outcome.note}
    outcome.stamp = f"{base}/{STAMP}"
    put(outcome.stamp, orjson.dumps(stamp, option=orjson.OPT_NON_STR_KEYS))
    return outcome


RenderTask = (
    tuple[str, ReplayJob, bytes, dict[int, "DealAnalysis"], Limits, dict[int, "DealDecisions"]]
    | ReplayOutcome
)
Files = list[tuple[str, str | bytes]]  # the files a session's pages are, by link, in order


def render_task(task: RenderTask) -> ReplayOutcome:
    """The work of a worker process: a session's pages from its document (``render_session``
    into the output folder), or the outcome already known (its log is gone)."""
    if isinstance(task, ReplayOutcome):
        return task
    out, job, raw, stored, limits, decided = task
    return render_session(Path(out), job, raw, stored, limits, decided)


def render_returned(task: RenderTask) -> tuple[ReplayOutcome, Files]:
    """The work of a Dask worker, which may not see the output folder: a session's pages
    rendered as ``render_task`` renders them, and handed back to be written here."""
    if isinstance(task, ReplayOutcome):
        return task, []
    _, job, raw, stored, limits, decided = task
    files: Files = []
    outcome = render_session(
        Path(), job, raw, stored, limits, decided, lambda link, data: files.append((link, data))
    )
    return outcome, files


def _documents(
    jobs: list[ReplayJob],
    db: Path,
    limits: Limits,
    kept: Callable[[str], bytes | None] | None = None,
) -> Iterator[tuple[ReplayJob, bytes] | ReplayOutcome]:
    """Each job's document bytes: the database's copy (``kept``) where it has one, else
    from its log, each file read once within ``limits``; an outcome instead when it
    cannot be."""
    by_file: dict[str, list[ReplayJob]] = {}
    for job in jobs:
        try:
            raw = kept(job.session_id) if kept is not None else None
        except DocumentTooLarge as exc:  # past a limit now (docs/limits.md)
            note = f"its stored document cannot be read again ({exc}); no replay pages"
            yield ReplayOutcome(job.session_id, note=note)
            continue
        if raw is not None:
            yield job, raw
        else:
            by_file.setdefault(job.file, []).append(job)
    for file, wanted in by_file.items():
        lines = {job.line: job for job in wanted}
        found: set[int | None] = set()
        try:
            for doc in read_documents(log_path(file, db), parse=False, name=file, limits=limits):
                job_at = lines.get(doc.line)
                if job_at is not None and job_at.line not in found:
                    found.add(job_at.line)
                    if doc.error is not None:  # past a limit now (docs/limits.md)
                        note = f"its log cannot be read again ({doc.error}); no replay pages"
                        yield ReplayOutcome(job_at.session_id, note=note)
                    else:
                        yield job_at, doc.raw
                    if len(found) == len(lines):
                        break
        except (ReadError, OSError) as exc:
            why = str(exc)
            for job in wanted:
                if job.line not in found:
                    yield ReplayOutcome(
                        job.session_id,
                        note=f"its log cannot be read again ({why}), so its deals have no "
                        "replay pages; if the log has moved, load it from where it is now "
                        "with `loo-replay ingest --replace`",
                    )
            continue
        for job in wanted:
            if job.line not in found:
                yield ReplayOutcome(
                    job.session_id, note=f"{file} no longer holds this session; no replay pages"
                )


def write_replays(
    out: Path,
    jobs: Iterable[ReplayJob],
    *,
    db: Path,
    workers: Processes = HERE,
    done: Callable[[ReplayOutcome], None] | None = None,
    stored: Callable[[str], dict[int, DealAnalysis]] | None = None,
    kept: Callable[[str], bytes | None] | None = None,
    limits: Limits = LIMITS,
    decided: Callable[[str], dict[int, DealDecisions]] | None = None,
) -> dict[str, ReplayOutcome]:
    """Replay pages for every deal of ``jobs`` (loaded into the database at ``db``) under
    ``out/replays``, rendered in ``workers``; per session id, which deal has which page, and a note where pages
    are missing.  ``stored`` reads a session's analyses as loaded, ``decided`` its judged
    decisions (of a job whose ``judged`` says it has some) and ``kept`` its document (by
    this process, which holds the database)."""
    outcomes: dict[str, ReplayOutcome] = {}
    todo: list[ReplayJob] = []
    for job in jobs:
        reused = _reuse(out, job)
        if reused is not None:
            outcomes[job.session_id] = reused
        else:
            todo.append(job)

    documents = _documents(todo, db, limits, kept)
    tasks = (
        (
            str(out),
            *item,
            stored(item[0].session_id) if stored and item[0].analysed else {},
            limits,
            decided(item[0].session_id) if decided and item[0].judged else {},
        )
        if isinstance(item, tuple)
        else item
        for item in documents
    )
    # Spawned, never forked: the calling process holds DuckDB.  At most two documents per
    # process wait in memory.
    rendering = workers if len(todo) > 1 else HERE
    for outcome in _rendered(out, rendering, tasks):
        outcomes[outcome.session_id] = outcome
        if done is not None:
            done(outcome)
    return outcomes


def _rendered(
    out: Path, rendering: Processes, tasks: Iterable[RenderTask]
) -> Iterator[ReplayOutcome]:
    """Each task's outcome, in order, its pages written into ``out`` by the worker process,
    or, on a Dask cluster (``Processes.remote``), handed back and written here."""
    if not rendering.remote:
        yield from rendering.map(render_task, tasks, spawn=True)
        return
    for outcome, files in rendering.map(render_returned, tasks):
        for link, data in files:
            write_file(out, link, data)
        yield outcome
