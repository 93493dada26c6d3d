"""The database commands of ``loo-replay``: ingest, stats, query, export.

Registered on the app in ``loo_replay/cli/__init__.py``, whose ``main`` says the
library's errors (``cli/failures.py``).  Exit status: 0 done, 1 conflicts (ingest), 2 bad
usage, unreadable input, or a database that is busy, missing or refuses the SQL.
The database modules are imported inside the commands so that ``validate``
does not pay for loading DuckDB and Arrow.
"""

from __future__ import annotations

import csv
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from loo_replay.cli.failures import refused_as
from loo_replay.cli.options import (
    DEFAULT_SAMPLES,
    PathsArg,
    RulesetOpt,
    SamplesOpt,
    SchedulerOpt,
    SeedOpt,
    SetOpt,
    decisions_option,
    jobs_option,
    reads_logs,
    rule_choice,
)
from loo_replay.cli.output import StatusLine, unread_lines
from loo_replay.errors import Interrupted
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.rulesets import RuleChoice

if TYPE_CHECKING:  # imported by the commands themselves: validate loads no database
    from loo_replay.db.ingest import IngestResult
    from loo_replay.db.judge_loaded import Judged
    from loo_replay.db.load import Counts
    from loo_replay.run.driver import Processes
    from loo_replay.run.render import Sampling

DEFAULT_DB = Path("loo.duckdb")
# What an interrupted load says (docs/limits.md, "Interrupts and errors").
ROLLED_BACK = "interrupted; the file being loaded was rolled back: run the command again"
JUDGED_KEPT = (
    "interrupted; the deals judged so far are kept: run the command again to judge the rest"
)

DbOpt = Annotated[Path, typer.Option("--db", metavar="FILE", help="The DuckDB database file.")]
ReplaceOpt = Annotated[
    bool, typer.Option("--replace", help="Load a session whose id is loaded with other content.")
]
NoAnalysisOpt = Annotated[
    bool,
    typer.Option(
        "--no-analysis",
        help="Load no double-dummy analysis (the analysis_* tables); faster.",
    ),
]
DecisionsOpt = Annotated[
    bool,
    decisions_option(
        "Judge every declaration and card on what its player knew, as analyse "
        "--decisions does, into the decisions tables (docs/database.md)."
    ),
]


class QueryFormat(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


def check_database(db: Path) -> None:
    """End the command, exit status 2, when ``--db`` names a file that could not be loaded
    into (``check_db``) or a folder that cannot be made, before any log is read or the
    output folder made.  No file there: nothing to look at, and DuckDB is not imported
    yet, so that ingest forks its workers without it and imports it while they audit the
    first pieces (docs/performance.md, "What limits ingest")."""
    make_db_folder(db)
    try:
        db.stat()
    except FileNotFoundError:  # a new database: what else stat can say, check_db says
        return
    except OSError:
        pass
    from loo_replay.db.opening import check_db

    check_db(db)


def make_db_folder(db: Path) -> None:
    """The database file's folder, created if need be: DuckDB makes the file, not its folder."""
    with refused_as(f"cannot create the folder of {db}"):
        db.parent.mkdir(parents=True, exist_ok=True)


class Progress:
    """The status line of an ingest: share of input bytes and deals, and the rate; after
    ``what``, the command's step (``auditing: ``; ``judging: ``, whose ``size`` and
    ``total`` count deals, not bytes)."""

    def __init__(self, total: int, what: str = "") -> None:
        self.total = max(total, 1)
        self.done = 0
        self.what = what
        self.line = StatusLine()

    def __call__(self, size: int, deals: int) -> None:
        self.done += size
        share = min(self.done / self.total, 1.0)
        bar = "#" * int(share * 30)
        rate = deals / max(self.line.elapsed(), 1e-6)
        self.line(f"{self.what}[{bar:30}] {share:4.0%} {deals:,} deals, {rate:,.0f}/s ")

    def close(self) -> None:
        self.line.close()


@reads_logs
def ingest(
    paths: PathsArg,
    db: DbOpt = DEFAULT_DB,
    ruleset: RulesetOpt = None,
    settings: SetOpt = None,
    replace: ReplaceOpt = False,
    jobs: Annotated[int, jobs_option("Audit in this many processes.")] = 1,
    scheduler: SchedulerOpt = None,
    no_analysis: NoAnalysisOpt = False,
    decisions: DecisionsOpt = False,
    samples: SamplesOpt = DEFAULT_SAMPLES,
    seed: SeedOpt = 0,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="One line per file as it commits.")
    ] = False,
    limits: Limits = LIMITS,
) -> None:
    """Audit hand logs and load them into a DuckDB database.

    One transaction per file; a rerun skips what is loaded.  The database records where
    each log is: relative to the database's folder when the log lies under it, else by its
    absolute path.
    """
    from loo_replay.output.text import safe
    from loo_replay.run.driver import input_bytes, reached

    _arrow_without_numpy()
    choice = rule_choice(ruleset, settings)
    sampling = judging(decisions, samples, seed)
    workers = reached(jobs, scheduler)  # a dead scheduler: said before the database is made
    check_database(db)
    progress = Progress(input_bytes(paths))

    def file_done(file: str, c: Counts) -> None:
        if verbose:
            typer.echo(
                f"loaded {safe(file)}: {c.loaded} deal(s), {c.rejected} rejected, "
                f"{c.skipped} skipped, {c.conflicts} in conflict",
                err=True,
            )

    result = load_logs(
        paths,
        db,
        choice,
        replace,
        jobs,
        progress,
        progress.close,
        file_done,
        not no_analysis,
        limits,
        sampling,
        scheduler,
    )
    c = result.counts
    typer.echo(
        f"{c.deals} deal(s) in {c.sessions} session(s) from {result.files} file(s): "
        f"{c.loaded} loaded, {c.rejected} rejected (log errors, kept in rejects), "
        f"{c.skipped} skipped (already loaded), {c.conflicts} in conflict"
    )
    if c.replaced:
        typer.echo(f"{c.replaced} session(s) replaced")
    if c.documents or c.documents_known:
        typer.echo(
            f"{c.documents + c.documents_known} unreadable document(s): {c.documents} kept "
            f"in rejects, {c.documents_known} already there"
        )
    judged = judge_loaded_deals(db, sampling, replace, workers, limits)
    for line in decisions_lines(sampling, c, result.judged, judged):
        typer.echo(line)
    stale = stale_after(result.stale, judged)
    if stale:
        typer.echo(f"marked stale: {', '.join(stale)} (loo-replay report brings them up to date)")
    s = result.summary
    for line in unread_lines(s):
        typer.echo(f"loo-replay: {line}", err=True)
    raise typer.Exit(result.exit_code)


def _arrow_without_numpy() -> None:
    """Import pyarrow with NumPy and cloudpickle hidden, unless pyarrow is imported already:
    it goes on without them (it checks for NumPy before any use, and takes the standard
    ``pickle`` for cloudpickle), and ingest never hands it an array of NumPy's.  They were
    0.30 billion of pyarrow's 0.53 billion instructions, paid before the workers are forked,
    with a core idle (docs/performance.md, "Targets: met and missed")."""
    if "pyarrow" in sys.modules:
        return
    hidden = [name for name in _ARROW_EXTRAS if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # its import raises ImportError
    try:
        import pyarrow  # type: ignore[import-untyped]  # noqa: F401
    finally:
        for name in hidden:
            del sys.modules[name]  # a later import finds it, as it would have


_ARROW_EXTRAS = ("numpy", "cloudpickle")  # what pyarrow imports if it can, and ingest needs not


def judging(decisions: bool, samples: int, seed: int) -> Sampling | None:
    """``--decisions``, ``--samples`` and ``--seed`` as the ingest worker takes them."""
    from loo_replay.run.render import Sampling

    return Sampling(samples, seed) if decisions else None


def judge_loaded_deals(
    db: Path, sampling: Sampling | None, replace: bool, workers: Processes, limits: Limits
) -> Judged | None:
    """With ``--decisions``, after the load: every deal of the database not judged yet
    judged from its stored document (``db.judge_loaded``) in ``workers`` (``--jobs``
    processes or the ``--scheduler`` cluster), a progress bar on a terminal.  Ctrl-C is
    ``Interrupted``, saying what the database keeps."""
    if sampling is None:
        return None
    from loo_replay.db.judge_loaded import judge_loaded

    bar = Progress(0, "judging: ")

    def progress(done: int, total: int) -> None:
        bar.total = max(total, 1)
        bar(done - bar.done, done)

    try:
        return judge_loaded(
            db,
            sampling,
            replace=replace,
            workers=workers,
            progress=progress,
            limits=limits,
        )
    except KeyboardInterrupt:
        raise Interrupted(JUDGED_KEPT) from None
    finally:
        bar.close()


def _worlds(samples: int, seed: int) -> str:
    return f"{samples:,} world(s) each (seed {seed})"


def decisions_lines(
    sampling: Sampling | None, c: Counts, sessions: int, judged: Judged | None
) -> list[str]:
    """What a load did to the judged decisions (docs/database.md, "Judged decisions"): the
    deals judged now (``c.loaded`` by the load, the others by ``judged``), those judged
    before and kept, those that could not be judged; without ``--decisions``, a line if the
    database holds ``sessions`` sessions judged."""
    if sampling is None or judged is None:
        if not sessions:
            return []
        return [
            f"decisions: not judged in this load (--decisions judges them); the {sessions} "
            "session(s) judged before keep their rows"
        ]
    from loo_replay.db.judge_loaded import CHANGED, NO_DOCUMENT

    worlds = _worlds(sampling.samples, sampling.seed)
    now = c.loaded + judged.judged
    before = judged.same - c.loaded  # judged with these settings before this command
    if now:
        line = f"decisions: {now:,} deal(s) judged now on {worlds}"
        if judged.judged:
            line += f", {judged.judged:,} of them loaded before"
        if judged.again:
            line += f" ({judged.again:,} judged before with other settings, judged again)"
        if before:
            line += f"; {before:,} judged before on the same worlds"
    elif before:
        line = f"decisions: nothing new to judge; {before:,} deal(s) judged before on {worlds}"
    else:
        line = f"decisions: nothing new to judge on {worlds}"
    lines = [line]
    lines += [
        f"decisions: kept {deals:,} deal(s) judged before on {_worlds(k, seed)}, not "
        f"{sampling.samples:,} (seed {sampling.seed}): --replace judges them again"
        for k, seed, deals in judged.kept
    ]
    missing = judged.missing
    if missing.get(NO_DOCUMENT):
        lines.append(
            f"decisions: {missing[NO_DOCUMENT]:,} deal(s) not judged: the database holds no "
            "copy of their logs (loaded by an older loo-replay); ingest them again with "
            "--replace"
        )
    if missing.get(CHANGED):
        lines.append(
            f"decisions: {missing[CHANGED]:,} deal(s) not judged: the database's copy of "
            "their logs is damaged, too large, or no longer audits as loaded; ingest them "
            "again with --replace"
        )
    return lines


def stale_after(loaded: list[str], judged: Judged | None) -> list[str]:
    """The derived results stale after the load and the judging, in ``db.content``'s order."""
    from loo_replay.db.content import RESULTS

    both = set(loaded) | set(judged.stale if judged is not None else ())
    return [r for r in RESULTS if r in both]


def collusion_line(pairs: int) -> str:
    """What audit says when the screen flags a pair."""
    return (
        f"collusion: {pairs} pair(s) flagged, a pattern unlikely among independent players "
        "(loo-replay collusion --db for the numbers)"
    )


def load_logs(
    paths: list[Path],
    db: Path,
    choice: RuleChoice,
    replace: bool,
    jobs: int,
    progress: Callable[[int, int], None],
    progress_done: Callable[[], None],
    file_done: Callable[[str, Counts], None] | None = None,
    analyse: bool = True,
    limits: Limits = LIMITS,
    decisions: Sampling | None = None,
    scheduler: str | None = None,
) -> IngestResult:
    """``ingest`` and ``audit``'s one audit pass into the database, in ``jobs`` processes or
    on the Dask cluster at ``scheduler``; its conflicts and unreadable files are said on
    stderr.  Ctrl-C is ``Interrupted``, saying what the
    database keeps."""
    from loo_replay.db.ingest import ingest as run_ingest
    from loo_replay.db.paths import shown
    from loo_replay.output.text import safe

    make_db_folder(db)
    try:
        result = run_ingest(
            paths,
            db,
            choice,
            replace=replace,
            analyse=analyse,
            jobs=jobs,
            scheduler=scheduler,
            progress=progress,
            file_done=file_done,
            limits=limits,
            decisions=decisions,
        )
    except KeyboardInterrupt:
        raise Interrupted(ROLLED_BACK) from None
    finally:
        progress_done()
    for conflict in result.conflicts:
        message = conflict.message(lambda name: shown(name, db))
        typer.echo(f"loo-replay: {safe(message, 600)}", err=True)
    for error in result.file_errors:
        typer.echo(f"loo-replay: {safe(error, 600)}", err=True)
    return result


def stats(db: DbOpt = DEFAULT_DB) -> None:
    """Per-player statistics from the database.

    Deals, declarations, loos, tricks, net chips and violations; from the double-dummy
    analysis, tricks thrown away per 100 deals played and avoidable loos; from judged
    decisions (a load with --decisions), their number, accuracy and tricks lost per deal
    with their standard errors (under 30 decisions, too few to judge), inaccuracies,
    mistakes and blunders.  Highest loo rate first.
    """
    from loo_replay.db.opening import opened
    from loo_replay.db.queries import JUDGED_COLUMNS, STATS_COLUMNS, player_stats

    with opened(db, timed=True) as con:  # each statement bounded in time, and Ctrl-C
        result = player_stats(con)
    rows = [dict(zip(result.columns, row, strict=True)) for row in result.rows]
    if not rows:
        typer.echo(f"no deals in {db} yet; load some with `loo-replay ingest`")
        return
    judged = any(r["decisions"] is not None for r in rows)
    columns = list(STATS_COLUMNS if judged else STATS_COLUMNS[:-JUDGED_COLUMNS])
    shown = (_stats_row(r, STATS_COLUMNS[:6], JUDGED_COLUMNS if judged else 0) for r in rows)
    for line in table_lines(columns, shown):
        typer.echo(line)


def _stats_row(r: dict[str, Any], first: Iterable[str], judged: int) -> tuple[Any, ...]:
    """A player's line of ``stats`` (docs/database.md, "stats"): the loo rate with the
    deals it is of; the judged decisions' accuracy and tricks lost a deal, each with its
    standard error, or "too few to judge" (``output.decisions.judged_cells``); "-" for
    a player none of whose decisions were judged.  ``first``: the columns shown as they
    are; ``judged``: the number of decision columns, 0 for none."""
    from loo_replay.output import numbers
    from loo_replay.output.decisions import judged_cells

    thrown = r["thrown_per_100"]
    cells: tuple[Any, ...] = (
        *(r[c] for c in first),
        "-" if r["loo_rate"] is None else numbers.rate(r["looed_playing"], r["played_known"]),
        r["tricks"],
        r["net_chips"],
        r["violations"],
        r["revokes"],
        None if thrown is None else numbers.fixed(thrown, 1),
        r["avoidable_loos"],
    )
    if not judged:
        return cells
    if r["decisions"] is None:
        return (*cells, *("-",) * judged)
    acc, loss = judged_cells(r, "-")
    classes = (r["inaccuracies"], r["mistakes"], r["blunders"])
    return (*cells, r["decisions"], r["deals_judged"], acc, loss, *classes)


def query(
    sql: Annotated[str, typer.Argument(help="The SQL to run (read-only).", metavar="SQL")],
    db: DbOpt = DEFAULT_DB,
    output_format: Annotated[
        QueryFormat, typer.Option("--format", help="table for people; csv or json for programs.")
    ] = QueryFormat.table,
) -> None:
    """Run SQL on the database, opened read-only.

    The tables, their columns and the views are described in docs/database.md.
    """
    from loo_replay.db.opening import opened
    from loo_replay.db.queries import bounded_memory, query_memory, run_query

    try:
        limit = query_memory()
        with opened(db, upgrade=False, sandbox=True) as con, bounded_memory(limit):
            result = run_query(con, sql)
            _write(result.columns, result.rows, output_format)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # `| head` is fine


def export(
    parquet: Annotated[
        Path,
        typer.Option("--parquet", metavar="FOLDER", help="Folder to write Parquet files into."),
    ],
    db: DbOpt = DEFAULT_DB,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace the files of an earlier export.")
    ] = False,
) -> None:
    """Write every table as Parquet files.

    The per-deal tables are partitioned by session.
    """
    from loo_replay.db.opening import reading
    from loo_replay.db.queries import export_parquet

    with reading(db):
        written = export_parquet(db, parquet, overwrite=overwrite)
    for path, rows in written:
        typer.echo(f"{path}: {rows} row(s)")


# -- output ----------------------------------------------------------------------


def _write(columns: list[str], rows: Iterator[tuple[Any, ...]], fmt: QueryFormat) -> None:
    """The rows in ``fmt``.  Text from the database is a stranger's: a table escapes its
    control characters always, CSV and JSON when standard output is a terminal, which an
    escape sequence would drive; a program reading a pipe gets the text as stored (JSON
    only ever escapes it as JSON does, the same value)."""
    import orjson

    from loo_replay.db.queries import json_default, text_of
    from loo_replay.output.text import safe

    shown: Callable[[str], str] = (
        (lambda text: safe(text, sys.maxsize)) if sys.stdout.isatty() else str
    )
    if fmt is QueryFormat.table:
        for line in table_lines(columns, rows):
            typer.echo(line)
    elif fmt is QueryFormat.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow([shown(c) for c in columns])
        for row in rows:
            writer.writerow([shown(text_of(v)) for v in row])
    else:
        out = sys.stdout.buffer
        out.write(b"[")
        for k, row in enumerate(rows):
            out.write(b",\n" if k else b"\n")
            data = orjson.dumps(
                dict(zip(columns, row, strict=True)),
                default=json_default,
                option=orjson.OPT_NON_STR_KEYS,
            )  # C0 controls escaped as JSON escapes them; DEL, C1 and bidi as \uXXXX too
            out.write(data if shown is str else shown(data.decode()).encode())
        out.write(b"\n]\n")
        out.flush()


# The rows a table holds to align its columns; past them it ends, saying so: CSV and JSON
# stream every row (docs/limits.md, "query").
TABLE_ROWS = 10_000


def table_lines(columns: list[str], rows: Iterable[tuple[Any, ...]]) -> Iterator[str]:
    """An aligned text table of at most ``TABLE_ROWS`` rows; text from the database is made
    safe to print, a column of numbers is written alike (``numbers.column``: the same
    decimals throughout, a true minus sign) and aligned right."""
    from loo_replay.db.queries import text_of
    from loo_replay.output import numbers
    from loo_replay.output.text import safe

    if not columns:
        return
    columns = [safe(c, 60) for c in columns]
    kept: list[tuple[Any, ...]] = []
    more = False
    for row in rows:
        if len(kept) == TABLE_ROWS:
            more = True
            break
        kept.append(row)
    numeric = [
        all(v is None or numbers.is_number(v) for v in values) for values in zip(*kept, strict=True)
    ] or [False] * len(columns)
    shown = [
        numbers.column(values) if num else [safe(text_of(v), 60) for v in values]
        for values, num in zip(zip(*kept, strict=True), numeric, strict=True)
    ]
    cells = [list(line) for line in zip(*shown, strict=True)]
    widths = [len(c) for c in columns]
    for line in cells:
        widths = [max(w, len(v)) for w, v in zip(widths, line, strict=True)]

    def fmt(values: list[str]) -> str:
        parts = [
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    yield fmt(list(columns))
    yield "  ".join("-" * w for w in widths)
    for line in cells:
        yield fmt(line)
    if more:
        yield (
            f"(the first {TABLE_ROWS:,} rows: a table shows no more; --format csv or "
            "--format json gives every row)"
        )
    else:
        yield f"({len(cells)} row{'s' if len(cells) != 1 else ''})"
