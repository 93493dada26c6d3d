"""The report pages that cover the whole database, in one list: the page builder, the
reports' navigation, the explorer's navigation and its routes all read it, so that a new
page is named here once (docs/design.md, "How to add a report page").

A page's navigation links the index and every page listed before it; both navigations
list them all in this order.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReportPage:
    file: str  # its name in the report folder, and its path (after "/") in the explorer
    label: str  # the words of its link in both navigations
    heading: str  # its page's <h1>
    builder: str  # module.function that draws it (docs/design.md and the test read it)


ALL_SESSIONS = ReportPage(
    "all-sessions.html",
    "across sessions",
    "Across sessions",
    "loo_replay.reports.build.all_sessions",
)
FAIRNESS = ReportPage(
    "fairness.html",
    "fairness",
    "Are the deals fair?",
    "loo_replay.reports.fairness_page.fairness_page",
)
COLLUSION = ReportPage(
    "collusion.html",
    "collusion",
    "Do two players play for each other?",
    "loo_replay.reports.collusion_page.collusion_page",
)
DECISIONS = ReportPage(
    "decisions.html",
    "decisions",
    "Was each decision right, given what its player knew?",
    "loo_replay.reports.decisions_page.decisions_page",
)
PAGES = (ALL_SESSIONS, FAIRNESS, COLLUSION, DECISIONS)


def before(page: ReportPage) -> tuple[tuple[str, str], ...]:
    """The links a page's navigation carries after the index's: the pages listed before it."""
    return tuple((p.file, p.label + " →") for p in PAGES[: PAGES.index(page)])


def report_links() -> tuple[tuple[str, str], ...]:
    """The index page's navigation: every page."""
    return tuple((p.file, p.label + " →") for p in PAGES)
