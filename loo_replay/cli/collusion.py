"""``loo-replay collusion``: do two players treat each other differently from how they
treat everyone else?  (docs/collusion.md)

Reads a database, or logs loaded for the occasion into a temporary one by ``ingest``
itself (with the double-dummy analysis the gift and loo tests read), so both run the
same SQL.  Exit status: 0 no pair flagged, 1 a pair flagged, 2 bad usage or unreadable
input.
"""

from __future__ import annotations

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
from loo_replay.reports.registry import COLLUSION

if TYPE_CHECKING:  # imported when run: DuckDB and SciPy load only for this command
    from loo_replay.collusion.screen import Report


@reads_logs
def collusion(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Hand-log files or directories (or give --db).", show_default=False),
    ] = None,
    db: Annotated[Path | None, typer.Option("--db", help="A database loaded by ingest.")] = None,
    alpha: Annotated[
        float, typer.Option(help="Flag a pair when a test's Holm-adjusted p-value is below this.")
    ] = 0.01,
    output_format: FormatOpt = Format.text,
    ruleset: RulesetOpt = None,
    settings: SetOpt = None,
    jobs: Annotated[int, jobs_option("Audit the logs in this many processes.")] = 1,
    scheduler: SchedulerOpt = None,
    limits: Limits = LIMITS,
) -> None:
    """Screen every pair of players for playing for each other: four tests, Holm-adjusted."""
    one_source(
        paths, db, alpha, ruleset=ruleset is not None, set=bool(settings), jobs=jobs != 1,
        scheduler=scheduler is not None,
    )  # fmt: skip
    unread: list[str] = []
    if db is not None:
        report: Report = _from_db(db, alpha)
    else:
        assert paths
        choice = rule_choice(ruleset, settings)
        with loaded_logs(paths, choice, limits, jobs, scheduler) as loaded:
            report, unread = _from_db(loaded[0], alpha), loaded[1]
    as_json = output_format is Format.json
    lines = [] if as_json else text_lines(report, see_page(paths, db, COLLUSION.file))
    finish_screen(report.as_json(), lines, as_json, unread, bool(report.flagged))


def _from_db(db: Path, alpha: float) -> Report:
    """The screen run now; the stored tables kept too when they are stale and this is their
    run (``derived.steps.screen_now``)."""
    from loo_replay.collusion.table import ALPHA
    from loo_replay.derived.steps import screen_now

    return screen_now(db, alpha, alpha == ALPHA)


def text_lines(report: Report, next_step: str) -> list[str]:
    """The flagged tests in full and where to look next (the page lists the deals behind
    each flag, each with its replay), then how many were consistent, too few or not open,
    and the opportunities each test needs; "nothing could be judged" when no test had them
    (docs/collusion.md, "Small samples")."""
    from loo_replay.collusion.screen import NEEDED, NO_OPPORTUNITIES, TOO_FEW, UNLIKELY

    tests = report.tests()
    lines = [
        f"collusion screen of {report.deals} deal(s), {len(report.pairs)} pair(s) "
        f"at alpha {report.alpha:g}"
    ]
    if report.analysed_here:
        lines.append(
            f"{report.analysed_here} deal(s) loaded without the analysis were analysed "
            "for this screen from their stored documents"
        )
    if report.not_analysed:
        lines.append(
            f"{report.not_analysed} deal(s) loaded without the analysis could not be analysed "
            "(the database holds no document of their sessions): the gift-tricks and "
            "loo-saving tests count no thrown trick of theirs"
        )
    for t in tests:
        if t.flagged:
            lines.append(f"FLAGGED {t.pair[0]} and {t.pair[1]}, {t.test}: {t.message}")
    if report.flagged:
        lines.append(f"{next_step} (it lists the deals behind each flag, each with its replay)")
    most: dict[str, int] = {}
    for t in tests:
        if t.status == TOO_FEW:
            most[t.test] = max(most.get(t.test, 0), t.result.opportunities)
    lines.extend(
        f"too few opportunities for {test}: it needs {NEEDED} comparable; the most any pair "
        f"had was {n}"
        for test, n in most.items()
    )
    tested = report.judged
    flagged = sum(t.flagged for t in tests)
    few = sum(t.status == TOO_FEW for t in tests)
    closed = sum(t.status == NO_OPPORTUNITIES for t in tests)
    pairs = len(report.flagged)
    if tested:
        lines.append(
            f"{len(tests)} test(s): {flagged} flagged as {UNLIKELY} ({pairs} pair(s)), "
            f"{tested - flagged} consistent with independent play, {few} with too few "
            f"opportunities to judge, {closed} with none under the rules"
            " (--format json lists every test)"
        )
    else:
        lines.append(
            f"nothing could be judged: of the {len(tests)} test(s), {few} had too few "
            f"opportunities and {closed} none under the rules, so nothing was flagged"
            " (--format json lists every test)"
        )
    return lines
