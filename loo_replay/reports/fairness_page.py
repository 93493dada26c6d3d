"""The fairness page of the reports: were the cards dealt fairly?  (docs/fairness.md)

Reads the ``fairness`` table, brought up to date by ``report`` and ``audit`` (or, in the
explorer, the tests run for the page), and says what it covers.  Per test, what was
observed against what fair dealing gives and the band it allows at the
run's alpha; a funnel of the players' own-deal rates of holding the top trump;
every flag worded "unlikely under fair dealing" with its numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from loo_replay.db.content import Coverage
from loo_replay.fairness.stats import binomial_band
from loo_replay.fairness.table import SHOWN, Listing
from loo_replay.html import Markup, escape
from loo_replay.output import numbers
from loo_replay.reports import registry
from loo_replay.reports.figures import INK, Figure, figure, trace
from loo_replay.reports.pages import (
    INDEX,
    covers_facts,
    figure_panel,
    nav,
    page,
    panel,
    stale_notice,
    table,
    text,
)

FAIRNESS = registry.FAIRNESS.file
FLAG = "#b3261e"
FAIR = "#1f6f4a"
BAND = "#c9c2b2"


def _subject(row: Mapping[str, Any]) -> str:
    parts = [f"{k} {v}" for k, v in row["subject"].items()]
    where = "all deals" if row["scope"] == "all" else f"{row['scope']} {row['grp']}"
    return ", ".join([where, *parts])


def _label(row: Mapping[str, Any]) -> str:
    return text(f"{row['test']}: {_subject(row)}", 90)


def observed_figure(rows: Sequence[Mapping[str, Any]]) -> Figure:
    """Each test's observed rate, the rate fair dealing gives, and the band it allows.
    Counts of repeats are left out (their scale is not a rate)."""
    tested = [
        r for r in rows if r["p_value"] is not None and r["test"] != "repeated-deal"
    ]  # fmt: skip
    return band_figure(
        tested, _label, "Observed against fair dealing (the least likely tests)", "fair dealing"
    )


def band_figure(
    tested: Sequence[Mapping[str, Any]],
    label: Callable[[Mapping[str, Any]], str],
    title: str,
    null: str,
    axis: str = "rate",
    row: int = 22,
) -> Figure:
    """The least likely of ``tested`` (rows with ``observed``, ``expected``, ``band_low``,
    ``band_high``, ``p_value``, ``flagged``, ``message``): observed, what ``null`` gives, and
    the band it allows, ``row`` pixels a test; the fairness and collusion pages' figure."""
    shown = sorted(tested, key=lambda r: r["p_value"])[:SHOWN][::-1]
    labels = [label(r) for r in shown]
    bands = trace(
        "scatter", name=f"band {null} allows", mode="lines",
        x=[v for r in shown for v in (r["band_low"], r["band_high"], None)],
        y=[v for lab in labels for v in (lab, lab, None)],
        line={"color": BAND, "width": 6}, hoverinfo="skip",
    )  # fmt: skip
    expected = trace(
        "scatter", name=f"{null} gives", mode="markers", x=[r["expected"] for r in shown],
        y=labels, marker={"symbol": "line-ns-open", "size": 14, "color": INK},
    )  # fmt: skip
    observed = trace(
        "scatter", name="observed", mode="markers", x=[r["observed"] for r in shown], y=labels,
        marker={"size": 9, "color": [FLAG if r["flagged"] else FAIR for r in shown]},
        text=[text(r["message"], 300) for r in shown], hoverinfo="text",
    )  # fmt: skip
    return figure(
        [bands, expected, observed],
        title,
        max(240, 60 + row * len(shown)),
        margin={"l": 20, "r": 20, "t": 56, "b": 50},
        axes={"xaxis": {"title": {"text": axis}, "tickformat": ".0%"}},
    )


def funnel_figure(rows: Sequence[Mapping[str, Any]], alpha: float) -> Figure:
    """The players' rates of holding the top trump when dealing, by deals dealt, inside the
    funnel fair dealing allows at ``alpha`` (drawn for the deals-weighted fair rate)."""
    points = sorted(
        (
            r
            for r in rows
            if r["test"] == "dealer-hand"
            and r["subject"].get("measure") == "top trump"
            and r["p_value"] is not None
        ),
        key=lambda r: not r["flagged"],
    )  # fmt: skip  (the flagged first: report.js keeps their names where names would collide)
    if not points:
        return figure([], "Holding the top trump when dealing: too few deals yet", 150)
    fair = sum(r["expected"] * r["deals"] for r in points) / sum(r["deals"] for r in points)
    top = max(r["deals"] for r in points)
    ns = sorted({max(1, round(top * k / 60)) for k in range(1, 61)} | {1, 2, 5, 10})
    low, high = zip(*(binomial_band(n, fair, alpha) for n in ns), strict=True)
    walls = [
        trace("scatter", name=name, mode="lines", x=ns, y=list(wall),
              line={"color": BAND, "dash": "dot"}, hoverinfo="skip", showlegend=i == 0)
        for i, (name, wall) in enumerate((("band fair dealing allows", high), ("", low)))
    ]  # fmt: skip
    dots = trace(
        "scatter", name="player (dealing)", mode="markers+text",
        x=[r["deals"] for r in points], y=[r["observed"] for r in points],
        text=[text(r["subject"].get("player"), 20) for r in points], textposition="top center",
        marker={"size": 9, "color": [FLAG if r["flagged"] else FAIR for r in points]},
        hovertext=[text(r["message"], 300) for r in points], hoverinfo="text",
    )  # fmt: skip
    line = trace(
        "scatter", name="fair dealing gives", mode="lines", x=[ns[0], ns[-1]], y=[fair, fair],
        line={"color": INK, "width": 1},
    )  # fmt: skip
    return figure(
        [*walls, line, dots],
        "Holding the top trump when dealing: each player against the funnel of fair dealing",
        420,
        axes={
            "xaxis": {"title": {"text": "deals dealt"}},
            "yaxis": {"title": {"text": "share of their deals"}, "tickformat": ".0%"},
        },
    )


def _table(rows: Sequence[Mapping[str, Any]]) -> str:
    body = (
        "<tr>"
        f"<td>{text(r['test'])}</td><td>{text(_subject(r), 160)}</td>"
        f'<td class="num">{numbers.count(r["deals"])}</td>'
        f'<td class="num">{numbers.p_value(r["p_value"])}</td>'
        f'<td class="num">{numbers.p_value(r["p_adjusted"])}</td>'
        f"<td>{'<strong>flagged</strong> ' if r['flagged'] else ''}{text(r['message'], 400)}</td>"
        "</tr>"
        for r in rows
    )
    head = [("test", False), ("on", False), ("deals", True), ("p", True),
            ("adjusted", True), ("what was seen", False)]  # fmt: skip
    return table(head, body)


def fairness_page(tests: Listing, coverage: Coverage, source: str, footer: str) -> str:
    """The whole page; ``tests`` the ``fairness`` table's listing (``table.stored``), or a
    run's as it would be stored, and ``coverage`` what it covers."""
    rows = tests.rows
    flagged = [r for r in rows if r["flagged"]]  # the first listed: the flagged come first
    masthead = (
        nav((INDEX, "← all sessions"), *registry.before(registry.FAIRNESS))
        + '<div class="kicker">Loo audit reports</div>'
        f"<h1>{registry.FAIRNESS.heading}</h1>"
        f'<dl class="facts"><div><dt>Database</dt><dd>{text(source, 120)}</dd></div>'
        f"<div><dt>Tests</dt><dd>{numbers.count(tests.tests)} ({numbers.count(tests.tested)} with enough deals)</dd></div>"
        f"<div><dt>Alpha</dt><dd>{numbers.p_value(tests.alpha)}, Holm-adjusted</dd></div>{covers_facts(coverage)}</dl>"
    )
    notice = stale_notice(coverage)
    if not tests.tests:
        body = panel(
            "No fairness tests yet",
            "<p>Run <code>loo-replay report</code> or <code>loo-replay audit PATH</code> (each "
            "runs the tests when a load has changed the database) or "
            "<code>loo-replay fairness --db FILE</code>.</p>",
        )
        return page("Loo · fairness", masthead, notice + body, footer)
    untested = tests.tests - tests.tested
    unjudged = f"{numbers.count(untested)} of {numbers.count(tests.tests)} tests had too few deals to judge"
    if tests.flagged:
        verdict = (
            f"<p><strong>{tests.flagged} test(s) flagged as unlikely under fair dealing.</strong> "
            "A flag says that the cards fell in a way fair dealing rarely gives, not who did "
            f"what nor why{'; ' + unjudged if untested else ''}.</p>"
        )
    elif untested:  # "nothing flagged" alone would claim what these tests could not judge
        verdict = (
            f'<p class="nothing">Nothing flagged; {unjudged}. The other {numbers.count(tests.tested)} are '
            "consistent with fair dealing.</p>"
        )
    else:
        verdict = (
            '<p class="nothing">Nothing flagged: every test is consistent with fair dealing.</p>'
        )
    listed = "The six tests of the fairness audit over each session and over all deals; "
    listed += "below a test's fewest deals it says so instead of giving a p-value."
    if tests.unlisted:
        listed += (
            f" The first {numbers.count(len(rows))} of {numbers.count(tests.tests)} are listed, "
            "the flagged first; every one: <code>loo-replay fairness --db FILE --format json"
            "</code> or <code>loo-replay query --db FILE 'SELECT * FROM fairness'</code>."
        )
    body = (
        notice
        + panel("What the tests found", verdict + (_table(flagged) if flagged else ""))
        + figure_panel("fairness-observed", observed_figure(tests.least_likely))
        + figure_panel("fairness-funnel", funnel_figure(tests.dealing, tests.alpha))
        + panel("Every test", _table(rows), listed)
    )
    return page("Loo · fairness", masthead, body, footer)


def index_notice(tests: Listing) -> Markup:
    """The index's line when anything is flagged, else nothing."""
    if not tests.flagged:
        return Markup("")
    return Markup(
        f'<p class="notice"><a href="{escape(FAIRNESS)}">Fairness: {tests.flagged} test(s) '
        "flagged as unlikely under fair dealing</a>.</p>"
    )
