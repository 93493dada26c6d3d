"""The collusion page of the reports: do two players play for each other?  (docs/collusion.md)

Reads the ``collusion`` tables, brought up to date by ``report`` and ``audit``, and says
what they cover.  Per pair and test,
the share of opportunities in which the two acted for each other against the share each
player's conduct toward the others gives, with the band independence allows; each flag
worded "a pattern unlikely among independent players", never a verdict on the people, with
the deals behind it linked to their replays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from loo_replay.collusion.screen import ACTS_LISTED, UNLIKELY
from loo_replay.db.content import Coverage
from loo_replay.html import Markup, escape
from loo_replay.output import numbers
from loo_replay.reports import pages, registry
from loo_replay.reports.fairness_page import band_figure
from loo_replay.reports.pages import INDEX, figure_panel, page, panel, table, text

COLLUSION = registry.COLLUSION.file


def _pair(r: Mapping[str, Any]) -> str:
    return f"{r['player_a']} and {r['player_b']}"


def _label(r: Mapping[str, Any]) -> str:
    return text(f"{r['player_a']}–{r['player_b']}: {r['test']}", 90)


def _tests(rows: Sequence[Mapping[str, Any]]) -> str:
    body = (
        "<tr>"
        f"<td>{text(_pair(r), 130)}</td><td>{text(r['test'])}</td>"
        f'<td class="num">{numbers.count(r["opportunities"])}</td>'
        f'<td class="num">{numbers.p_value(r["p_value"])}</td>'
        f'<td class="num">{numbers.p_value(r["p_adjusted"])}</td>'
        f"<td>{'<strong>flagged</strong> ' if r['flagged'] else ''}{text(r['message'], 400)}</td>"
        "</tr>"
        for r in rows
    )
    head = [("pair", False), ("test", False), ("opportunities", True), ("p", True),
            ("adjusted", True), ("what was seen", False)]  # fmt: skip
    return table(head, body)


def _deals(
    pair: tuple[str, str],
    acts: Sequence[Mapping[str, Any]],
    replays: Mapping[tuple[str, int], str],
    links: Mapping[str, str],
) -> str:
    """The deals of the acts behind one pair's flags, each linked to its replay page."""
    mine = [a for a in acts if (a["player_a"], a["player_b"]) == pair]

    def row(a: Mapping[str, Any]) -> str:
        sid = a["session_id"]
        session = text(sid, 128)
        if (link := links.get(sid)) is not None:
            session = Markup(f'<a href="{escape(link)}">{session}</a>')
        deal = "–" if a["deal"] is None else numbers.count(a["deal"])
        if (replay := replays.get((sid, a["deal_index"]))) is not None:
            deal = f'<a href="{escape(replay)}">{deal} ▸</a>'
        return (
            f'<tr><td>{session}</td><td class="num">{deal}</td><td>{text(a["test"])}</td>'
            f'<td>{text(a["owner"], 60)}</td><td class="num">{numbers.count(a["acts"])}</td></tr>'
        )

    head = [("session", False), ("deal", True), ("test", False), ("who acted", False),
            ("acts", True)]  # fmt: skip
    total = mine[0]["of"] if mine else 0
    more = total - ACTS_LISTED
    lead = (
        "The deals in which one of them acted for the other where the test compared them "
        "with the others (replay pages where the report wrote them)"
        + (
            f"; the first {numbers.count(ACTS_LISTED)} of {numbers.count(total)}."
            if more > 0
            else "."
        )
    )
    return panel(
        f"The deals behind the flag: {text(pair[0], 60)} and {text(pair[1], 60)}",
        table(head, (row(a) for a in mine[:ACTS_LISTED])),
        lead,
    )


def _verdict(rows: Sequence[Mapping[str, Any]]) -> str:
    flagged = [r for r in rows if r["flagged"]]
    pairs = {(r["player_a"], r["player_b"]) for r in flagged}
    tested = sum(r["status"] == "tested" for r in rows)
    few = sum(r["status"] == "too_few" for r in rows)
    closed = sum(r["status"] == "no_opportunities" for r in rows)
    unjudged = (
        f"{numbers.count(few)} of {numbers.count(len(rows))} tests had too few opportunities to judge"
        + (f" and {numbers.count(closed)} had none under the rules" if closed else "")
    )
    if flagged:
        return (
            f"<p><strong>{len(pairs)} pair(s) flagged: {UNLIKELY}.</strong> A flag says "
            "that two players treated each other better than they treated their other "
            "tablemates, more than chance among independent players gives; not that they "
            f"cheated, nor that they agreed anything; {unjudged}.</p>"
        ) + _tests(flagged)
    judged = (
        f" The other {numbers.count(tested)} are consistent with independent play."
        if tested
        else ""
    )
    return f'<p class="nothing">Nothing flagged; {unjudged}.{judged}</p>'


def collusion_page(
    rows: Sequence[Mapping[str, Any]],
    acts: Sequence[Mapping[str, Any]],
    replays: Mapping[tuple[str, int], str],
    links: Mapping[str, str],
    coverage: Coverage,
    source: str,
    footer: str,
) -> str:
    """The whole page; ``rows`` and ``acts`` are the stored tables' (``collusion.table``),
    ``replays`` the replay pages by (session id, deal index), ``links`` the session pages,
    ``coverage`` what the tables cover."""
    pairs = sorted({(r["player_a"], r["player_b"]) for r in rows})
    tested = [r for r in rows if r["status"] == "tested"]
    alpha = float(rows[0]["alpha"]) if rows else 0.01
    masthead = (
        pages.nav((INDEX, "← all sessions"), *registry.before(registry.COLLUSION))
        + '<div class="kicker">Loo audit reports</div>'
        f"<h1>{registry.COLLUSION.heading}</h1>"
        f'<dl class="facts"><div><dt>Database</dt><dd>{text(source, 120)}</dd></div>'
        f"<div><dt>Pairs</dt><dd>{numbers.count(len(pairs))}</dd></div>"
        f"<div><dt>Tests</dt><dd>{numbers.count(len(rows))} ({numbers.count(len(tested))} with enough opportunities)"
        f"</dd></div><div><dt>Alpha</dt><dd>{numbers.p_value(alpha)}, Holm-adjusted</dd></div>"
        f"{pages.covers_facts(coverage)}</dl>"
    )
    notice = pages.stale_notice(coverage)
    if not rows:
        body = panel(
            "No collusion screen yet",
            "<p>Run <code>loo-replay report</code> or <code>loo-replay audit PATH</code> (each "
            "screens the database when a load has changed it, <code>audit --no-analysis</code> "
            "excepted) or <code>loo-replay collusion --db FILE</code>.</p>",
        )
        return page("Loo · collusion", masthead, notice + body, footer)
    flagged = sorted({(r["player_a"], r["player_b"]) for r in rows if r["flagged"]})
    fig = band_figure(
        tested,
        _label,
        "Each pair toward each other, against each toward the others",
        "independent play",
        "share acted on",
        row=30,  # the names stand apart on a phone, where the title and legend take more
    )
    body = (
        notice
        + panel("What the screen found", _verdict(rows))
        + (figure_panel("collusion-observed", fig) if tested else "")
        + "".join(_deals(p, acts, replays, links) for p in flagged)
        + panel(
            "Every test",
            _tests(rows),
            "Four tests for every pair that sat together; below a test's fewest comparable "
            "opportunities it says so instead of giving a p-value.",
        )
    )
    return page("Loo · collusion", masthead, body, footer)


def index_notice(rows: Sequence[Mapping[str, Any]]) -> Markup:
    """The index's line when a pair is flagged, else nothing."""
    pairs = {(r["player_a"], r["player_b"]) for r in rows if r["flagged"]}
    if not pairs:
        return Markup("")
    return Markup(
        f'<p class="notice"><a href="{escape(COLLUSION)}">Collusion: {len(pairs)} pair(s) '
        f"flagged, {UNLIKELY}</a>.</p>"
    )
