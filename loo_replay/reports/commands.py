"""``loo-replay report`` and ``loo-replay audit``: the reports, and everything in one command.

``audit`` is ``ingest`` (the same code path: one audit pass that loads the
database) followed by ``report`` from the database, and ends with a summary
of its input.  Exit status as for ``validate``: 0 nothing found, 1
violations, discrepancies, rejected deals, unreadable documents (or, as for
``ingest``, a conflict), 2 bad usage, unreadable input or an unusable
database.  ``report`` exits 0 once written, 2 if it cannot be.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

import typer

from loo_replay.cli_options import PathsArg, RulesetOpt, SetOpt, rule_choice
from loo_replay.cli_output import StatusLine, fail
from loo_replay.db.commands import DEFAULT_DB, DbOpt, ReplaceOpt, make_db_folder
from loo_replay.output.text import safe

DEFAULT_OUT = Path("reports")
OutOpt = Annotated[
    Path, typer.Option("--out", help="The folder to write the reports into (created if need be).")
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
    typer.Option(
        "--jobs",
        "-j",
        min=1,
        help="Write session pages and replays (auditing the logs again) in this many processes.",
    ),
]


def _write(
    db: Path, out: Path, replays: bool, jobs: int, status: StatusLine
) -> tuple[int, int, int]:
    """The reports of the database at ``db`` in ``out``: (sessions, replay pages, written)."""
    from loo_replay.db.queries import open_for_reading
    from loo_replay.db.schema import DatabaseError
    from loo_replay.reports.build import write_reports
    from loo_replay.reports.names import OutsideOutput

    try:
        con = open_for_reading(db)
        try:
            result = write_reports(
                con, out, source=str(db), replays=replays, jobs=jobs, progress=status
            )
        finally:
            con.close()
    except DatabaseError as exc:
        fail(str(exc))
    except (OSError, OutsideOutput) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        fail(f"cannot write the reports to {safe(str(out))}: {safe(reason, 400)}")
    finally:
        status.close()
    for sid, note in result.notes:
        typer.echo(f"loo-replay: session {safe(sid)}: {safe(note, 400)}", err=True)
    if result.only_findings:
        typer.echo(
            "loo-replay: more than 5,000 deals: replay pages only for deals with findings",
            err=True,
        )
    return result.sessions, result.replays, result.replays_written


def report(
    db: DbOpt = DEFAULT_DB,
    out: OutOpt = DEFAULT_OUT,
    replays: ReplaysOpt = True,
    jobs: JobsOpt = 1,
) -> None:
    """Write HTML reports from the database: a page per session with Plotly figures, an
    all-sessions page, an index, and a replay page per deal; they work offline."""
    sessions, pages, written = _write(db, out, replays, jobs, StatusLine())
    typer.echo(_where(out, sessions, pages, written, replays))


def _where(out: Path, sessions: int, pages: int, written: int, replays: bool) -> str:
    extra = f", {pages} replay page(s), {written} new" if replays else ""
    return f"reports: {out / 'index.html'} ({sessions} session report(s){extra})"


def audit(
    paths: PathsArg,
    db: DbOpt = DEFAULT_DB,
    out: OutOpt = DEFAULT_OUT,
    ruleset: RulesetOpt = None,
    settings: SetOpt = None,
    replace: ReplaceOpt = False,
    jobs: JobsOpt = 1,
    replays: ReplaysOpt = True,
) -> None:
    """Validate, load and report in one command: audit the logs into the database, write the
    reports from it, and sum up what the input holds."""
    from loo_replay.db.ingest import ingest as run_ingest
    from loo_replay.db.queries import open_for_reading
    from loo_replay.db.schema import DatabaseError
    from loo_replay.fairness.table import refresh as refresh_fairness
    from loo_replay.logs.reader import ReadError, expand
    from loo_replay.reports.queries import input_summary

    choice = rule_choice(ruleset, settings)
    files: list[str] = []
    for given in paths:
        with contextlib.suppress(ReadError):  # ingest reports it
            files.extend(str(p) for p in expand([given]))
    make_db_folder(db)
    status = StatusLine()
    try:
        result = run_ingest(
            paths,
            db,
            choice,
            replace=replace,
            jobs=jobs,
            progress=lambda _size, deals: status(f"auditing: {deals:,} deal(s)"),
        )
    except DatabaseError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("interrupted; the file being loaded was rolled back: run the command again", 130)
    finally:
        status.close()
    for conflict in result.conflicts:
        typer.echo(f"loo-replay: {safe(conflict.message(), 600)}", err=True)
    for error in result.file_errors:
        typer.echo(f"loo-replay: {safe(error, 600)}", err=True)
    c = result.counts
    typer.echo(
        f"loaded {c.loaded} deal(s), {c.rejected} rejected (kept in rejects), {c.skipped} "
        f"already loaded, {c.conflicts} in conflict, from {result.files} file(s) into {db}"
    )
    try:
        con = open_for_reading(db)
        try:
            found = input_summary(con, files)
        finally:
            con.close()
        fair = refresh_fairness(db)
    except DatabaseError as exc:
        fail(str(exc))
    sessions, pages, written = _write(db, out, replays, jobs, StatusLine())
    f = found
    line = (
        f"{f['sessions']} session(s), {f['deals']} deal(s): {f['audited']} audited, "
        f"{f['misdeals']} misdeal(s), {f['rejected']} rejected; {f['violations']} "
        f"violation(s), {f['discrepancies']} discrepancy(ies)"
    )
    if f["unreadable"]:
        line += f"; {f['unreadable']} unreadable document(s)"
    typer.echo(line)
    if fair.flagged:
        typer.echo(f"fairness: {len(fair.flagged)} test(s) flagged as unlikely under fair dealing")
    typer.echo(_where(out, sessions, pages, written, replays))
    if result.file_errors:
        raise typer.Exit(2)
    flagged = f["violations"] + f["discrepancies"] + f["rejected"] + f["unreadable"]
    flagged += len(fair.flagged)
    raise typer.Exit(1 if flagged or result.conflicts else 0)
