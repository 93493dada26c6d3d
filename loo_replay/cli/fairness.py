"""``loo-replay fairness``: are the deals fair?  (docs/fairness.md)

Reads a database, or logs loaded for the occasion into a temporary one by
``ingest`` itself, so both run the same SQL.  Exit status: 0 nothing
flagged, 1 a test flagged, 2 bad usage or unreadable input.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from loo_replay.cli.options import (
    Format,
    FormatOpt,
    RulesetOpt,
    SchedulerOpt,
    SetOpt,
    jobs_option,
    reads_logs,
    rule_choice,
)
from loo_replay.cli.output import finish_screen, loaded_logs, one_source, see_page
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.reports.registry import FAIRNESS

if TYPE_CHECKING:  # imported when run: DuckDB and SciPy load only for this command
    from loo_replay.fairness.verdicts import Report


class By(StrEnum):
    session = "session"
    player = "player"
    venue = "venue"
    all = "all"


@reads_logs
def fairness(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Hand-log files or directories (or give --db).", show_default=False),
    ] = None,
    db: Annotated[Path | None, typer.Option("--db", help="A database loaded by ingest.")] = None,
    by: Annotated[
        list[By] | None,
        typer.Option(
            help="Test each session, player, venue, or all deals; repeatable. "
            "Default: each session, and all deals."
        ),
    ] = None,
    alpha: Annotated[
        float, typer.Option(help="Flag a test when its Holm-adjusted p-value is below this.")
    ] = 0.01,
    output_format: FormatOpt = Format.text,
    ruleset: RulesetOpt = None,
    settings: SetOpt = None,
    jobs: Annotated[int, jobs_option("Audit the logs in this many processes.")] = 1,
    scheduler: SchedulerOpt = None,
    limits: Limits = LIMITS,
) -> None:
    """Test whether the cards were dealt fairly: six statistical tests, Holm-adjusted."""
    from loo_replay.fairness.verdicts import DEFAULT_BY

    one_source(
        paths, db, alpha, ruleset=ruleset is not None, set=bool(settings), jobs=jobs != 1,
        scheduler=scheduler is not None,
    )  # fmt: skip
    scopes = [b.value for b in by] if by else list(DEFAULT_BY)
    unread: list[str] = []
    if db is not None:
        report: Report = _from_db(db, scopes, alpha)
    else:
        assert paths
        choice = rule_choice(ruleset, settings)
        with loaded_logs(paths, choice, limits, jobs, scheduler) as (loaded, unread):
            report = _from_db(loaded, scopes, alpha)
    as_json = output_format is Format.json
    lines = [] if as_json else text_lines(report, see_page(paths, db, FAIRNESS.file))
    finish_screen(report.as_json(lazy=True), lines, as_json, unread, bool(report.flagged))


def _from_db(db: Path, scopes: list[str], alpha: float) -> Report:
    """The tests run now; the stored table kept too when it is stale and this is its run
    (``derived.steps.fairness_now``)."""
    from loo_replay.derived.steps import fairness_now
    from loo_replay.fairness.table import ALPHA
    from loo_replay.fairness.verdicts import DEFAULT_BY

    return fairness_now(db, scopes, alpha, set(scopes) == set(DEFAULT_BY) and alpha == ALPHA)


def text_lines(report: Report, next_step: str) -> list[str]:
    """The flagged tests in full and where to look next, how many deals each test with too
    few needs, then (last) how many were flagged, consistent or had too few deals (docs/fairness.md, "Small
    samples"); "nothing could be judged" when no test had its deals."""
    lines = [f"fairness of {report.deals} deal(s) at alpha {report.alpha:g}"]
    if report.left_out:
        lines.append(
            f"{report.left_out} deal(s) left out: their seats are not as loo-replay loads them"
            " (docs/limits.md)"
        )
    for v in report.flagged:
        where = "all deals" if v.scope == "all" else f"{v.scope} {v.group}"
        lines.append(f"FLAGGED {v.test} ({where}): {v.message}")
    if report.flagged:
        lines.append(next_step)
    lines.extend(_needs(report))
    tested = report.judged
    few = report.tests - tested
    flagged = len(report.flagged)
    if tested:
        lines.append(
            f"{report.tests} test(s): {flagged} flagged as unlikely under fair dealing, "
            f"{tested - flagged} consistent with it, {few} with too few deals"
            " (--format json lists every test)"
        )
    else:
        lines.append(
            f"nothing could be judged: each of the {few} test(s) had too few deals, "
            "so nothing was flagged (--format json lists every test)"
        )
    return lines


def _needs(report: Report) -> list[str]:
    """For each test with too few deals somewhere: the deals it needs and the most it had."""
    return [
        f"too few deals for {test}: it needs {need}; the most any of its tests had was {most}"
        for test, (need, most) in report.needs.items()
    ]
