"""``loo-replay report`` and ``loo-replay audit``: the reports, and everything in one command.

``audit`` is ``ingest`` (the same code path: one audit pass that loads the
database) followed by ``report`` from the database, and ends with a summary
of what that audit found in its input, as ``validate`` would print it.  Exit
status as for ``validate``: 0 nothing found, 1 violations, discrepancies,
rejected deals (or, as for ``ingest``, a conflict), or the database's fairness
tests or collusion screen flagging something (as ``fairness`` and ``collusion``
exit 1 when they do: docs/collusion.md), 2 bad usage, no logs,
unreadable input, an unusable database, or replay pages that could not be
written.  ``report`` exits 0 once written, 2 if it cannot be, or not all of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from loo_replay.cli.database import (
    DEFAULT_DB,
    DbOpt,
    DecisionsOpt,
    NoAnalysisOpt,
    Progress,
    ReplaceOpt,
    check_database,
    collusion_line,
    decisions_lines,
    judge_loaded_deals,
    judging,
    load_logs,
)
from loo_replay.cli.failures import refused_as
from loo_replay.cli.options import (
    DEFAULT_SAMPLES,
    PathsArg,
    RulesetOpt,
    SamplesOpt,
    SeedOpt,
    SetOpt,
    jobs_option,
    reads_logs,
    rule_choice,
    scheduler_option,
)
from loo_replay.cli.output import StatusLine, fail, unread_lines
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.output.text import safe

if TYPE_CHECKING:  # imported by the commands themselves: validate loads no database
    from loo_replay.derived.steps import UpToDate
    from loo_replay.run.driver import Processes

DEFAULT_OUT = Path("reports")
OutOpt = Annotated[
    Path,
    typer.Option(
        "--out", metavar="FOLDER", help="The folder to write the reports into (created if need be)."
    ),
]
ReplaysOpt = Annotated[
    bool,
    typer.Option(
        "--replays/--no-replays",
        help="Write a replay page for every deal (past 5,000 deals, for every deal with "
        "findings); the logs are read again for them.",
    ),
]
JobsOpt = Annotated[
    int,
    jobs_option(
        "Write session pages and replays (auditing the logs again) in this many processes."
    ),
]
ReportSchedulerOpt = Annotated[
    str | None,
    scheduler_option(
        "Write the replay pages (auditing the logs again) on the Dask cluster at this address "
        "(the dask extra); the session pages are written here."
    ),
]


def _write(
    db: Path, out: Path, replays: bool, workers: Processes, status: StatusLine, limits: Limits
) -> tuple[int, int, int, int]:
    """The reports of the database at ``db`` in ``out``, the logs read again for the replay
    pages within ``limits``, the pages written in ``workers``: (sessions, replay pages,
    written, sessions whose replay pages could not all be written, each said on stderr)."""
    from loo_replay.db.opening import opened
    from loo_replay.derived.steps import record_reports
    from loo_replay.reports.build import write_reports
    from loo_replay.reports.names import OutsideOutput

    try:
        with refused_as(f"cannot write the reports to {out}", OutsideOutput):
            with opened(db, timed=True) as con:  # each statement bounded in time, and Ctrl-C
                result = write_reports(
                    con,
                    out,
                    source=str(db),
                    replays=replays,
                    workers=workers,
                    progress=status,
                    limits=limits,
                )
            record_reports(db, result.covers, out)
    finally:
        status.close()
    for sid, note in result.notes:
        typer.echo(f"loo-replay: session {safe(sid)}: {safe(note, 400)}", err=True)
    if result.only_findings:
        typer.echo(
            "loo-replay: more than 5,000 deals: replay pages only for deals with findings",
            err=True,
        )
    return result.sessions, result.replays, result.replays_written, len(result.notes)


@reads_logs
def report(
    db: DbOpt = DEFAULT_DB,
    out: OutOpt = DEFAULT_OUT,
    replays: ReplaysOpt = True,
    jobs: JobsOpt = 1,
    scheduler: ReportSchedulerOpt = None,
    limits: Limits = LIMITS,
) -> None:
    """Write the HTML reports from the database.

    A page per session with Plotly figures, an all-sessions page, an index, and a replay
    page per deal; they work offline.  The logs are read again for the replay pages, from
    wherever this runs.
    """
    from loo_replay.run.driver import reached

    workers = reached(jobs, scheduler)  # a dead scheduler: said before anything is written
    _up_to_date(db, workers)
    sessions, pages, written, missing = _write(db, out, replays, workers, StatusLine(), limits)
    typer.echo(_where(out, sessions, pages, written, replays))
    if missing:
        fail(f"replay pages of {missing} session(s) could not be written (see above)")


def _up_to_date(db: Path, workers: Processes, collusion: bool = True) -> UpToDate:
    """The stored fairness tests and collusion screen recomputed where a load marked them
    stale (``derived.steps``), in a process of their own with more than one job."""
    from loo_replay.derived.steps import refresh_stale

    current = refresh_stale(db, collusion=collusion, workers=workers)
    if current.unwritten:
        typer.echo(
            f"loo-replay: {safe(str(db))} cannot be written now (read-only, or in use): the "
            "stale fairness tests and collusion screen are reported as stored, and their "
            "pages say how many deals they cover",
            err=True,
        )
    return current


def _claim(out: Path) -> None:
    """Refuse ``out`` before any work when it holds files loo-replay did not write."""
    from loo_replay.files import claim
    from loo_replay.reports.build import REPORT_NAMES

    claim(out, REPORT_NAMES, "the reports")


def _where(out: Path, sessions: int, pages: int, written: int, replays: bool) -> str:
    extra = f", {pages} replay page(s), {written} new" if replays else ""
    return f"reports: {out / 'index.html'} ({sessions} session report(s){extra})"


@reads_logs
def audit(
    paths: PathsArg,
    db: DbOpt = DEFAULT_DB,
    out: OutOpt = DEFAULT_OUT,
    ruleset: RulesetOpt = None,
    settings: SetOpt = None,
    replace: ReplaceOpt = False,
    jobs: JobsOpt = 1,
    scheduler: Annotated[
        str | None,
        scheduler_option(
            "Audit the logs into the database, judge their decisions and write the replay "
            "pages on the Dask cluster at this address (the dask extra); the session pages "
            "are written here."
        ),
    ] = None,
    replays: ReplaysOpt = True,
    no_analysis: NoAnalysisOpt = False,
    decisions: DecisionsOpt = False,
    samples: SamplesOpt = DEFAULT_SAMPLES,
    seed: SeedOpt = 0,
    limits: Limits = LIMITS,
) -> None:
    """Validate, load and report in one command.

    Audit the logs into the database, write the reports from it, and sum up what this
    audit found in the input.  Exit status 1 for findings or conflicts, and when the
    database's fairness tests or its collusion screen flag anything; 2 for bad usage or
    input that could not be read.
    """
    from loo_replay.output.text import summary_line
    from loo_replay.run.driver import input_bytes, reached

    choice = rule_choice(ruleset, settings)
    sampling = judging(decisions, samples, seed)
    workers = reached(jobs, scheduler)  # a dead scheduler: said before anything is made
    check_database(db)
    _claim(out)
    status = Progress(input_bytes(paths), "auditing: ")
    result = load_logs(
        paths,
        db,
        choice,
        replace,
        jobs,
        status,
        status.close,
        analyse=not no_analysis,
        limits=limits,
        decisions=sampling,
        scheduler=scheduler,
    )
    c = result.counts
    typer.echo(
        f"loaded {c.loaded} deal(s), {c.rejected} rejected (kept in rejects), {c.skipped} "
        f"already loaded, {c.conflicts} in conflict, from {result.files} file(s) into {db}"
    )
    judged = judge_loaded_deals(db, sampling, replace, workers, limits)
    for line in decisions_lines(sampling, c, result.judged, judged):
        typer.echo(line)
    current = _up_to_date(db, workers, collusion=not no_analysis)
    if no_analysis:
        typer.echo(
            "collusion: not screened after a load with --no-analysis (the screen would "
            "analyse the deals); loo-replay collusion --db screens this database"
        )
    pairs = 0 if no_analysis else current.collusion_flagged
    sessions, pages, written, missing = _write(db, out, replays, workers, StatusLine(), limits)
    s = result.summary
    typer.echo(summary_line(s))
    if result.conflicts:
        typer.echo(
            f"{len(result.conflicts)} session(s) in conflict: counted above as audited now, "
            "but the database and the reports keep their earlier audit (see above)"
        )
    if current.fairness_flagged:
        typer.echo(
            f"fairness: {current.fairness_flagged} test(s) flagged as unlikely under fair dealing"
        )
    if pairs:
        typer.echo(collusion_line(pairs))
    typer.echo(_where(out, sessions, pages, written, replays))
    for line in unread_lines(s):
        typer.echo(f"loo-replay: {line}", err=True)
    if missing:
        typer.echo(
            f"loo-replay: replay pages of {missing} session(s) could not be written (see above)",
            err=True,
        )
        raise typer.Exit(2)
    raise typer.Exit(
        max(s.exit_code, result.exit_code, 1 if current.fairness_flagged or pairs else 0)
    )
