"""The judged decisions page of the reports (docs/judging-decisions.md, "In the database and
the reports"): was each declaration and card right, given what its player knew?

Reads the tables ``ingest --decisions`` loads.  Per player, accuracy and the tricks' worth
their decisions lost per deal (chips over each deal's worth of a trick, so unlike stakes
add up), each with its standard error and counts, "too few to judge" under 30 decisions,
overall and session by session; each session's costliest
decisions, linked to their deals' replay pages; and the "leak" table: how often each
player stood against how often standing was right, by the strength of the hand held (the
collusion screen's measure, docs/collusion.md, "Hand strength").  A database with nothing
judged gets a page that says so and how to judge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import duckdb
import polars as pl

from loo_replay.db.content import Coverage, live
from loo_replay.html import Markup, escape
from loo_replay.output import numbers, wording
from loo_replay.output.decisions import TOO_FEW, TOO_FEW_WORDS, judged_cells
from loo_replay.reports import pages, queries, registry
from loo_replay.reports.figures import (
    Colours,
    Figure,
    Names,
    _colour,
    _empty,
    _plural,
    _unique_labels,
    figure,
    label,
    trace,
)
from loo_replay.reports.pages import INDEX, figure_panel, page, panel, table, text

DECISIONS = registry.DECISIONS.file
COSTLIEST = 10  # decisions listed per session
SESSIONS_LISTED = 50  # the latest sessions whose costliest decisions are listed
TITLE = "Loo · judged decisions"


def _players(rows: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> str:
    body = (
        f"<tr><td>{text(names[r['player']], 80)}</td>"
        f'<td class="num">{numbers.count(r["decisions"])}</td>'
        f'<td class="num">{numbers.count(r["deals_judged"])}</td>'
        + "".join(f'<td class="num">{shown}</td>' for shown in judged_cells(r, "–"))
        + f'<td class="num">{numbers.count(r["inaccuracies"])}</td>'
        f'<td class="num">{numbers.count(r["mistakes"])}</td>'
        f'<td class="num">{numbers.count(r["blunders"])}</td></tr>'
        for r in rows
    )
    head = [("player", False), ("decisions", True), ("deals", True), ("accuracy", True),
            ("tricks lost a deal", True), ("inaccuracies", True), ("mistakes", True),
            ("blunders", True)]  # fmt: skip
    return table(head, body)


def _costliest(
    sid: str,
    rows: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
    replays: Mapping[tuple[str, int], str],
    links: Mapping[str, str],
) -> str:
    """One session's costliest decisions, each deal linked to its replay page."""

    def row(r: Mapping[str, Any]) -> str:
        deal = numbers.count(r["deal"])
        if (replay := replays.get((sid, r["deal_index"]))) is not None:
            deal = f'<a href="{escape(replay)}#event-{r["event"]}">{deal} ▸</a>'
        what = "declaration" if r["kind"] == "declare" else f"card, trick {r['trick']}"
        return (
            f'<tr><td class="num">{deal}</td><td>{text(names[r["player"]], 80)}</td>'
            f"<td>{what}</td>"
            f"<td>{text(r['chosen'], 40)} ({numbers.signed_fixed(r['chosen_value'], 2)})</td>"
            f"<td>{text(r['best'], 40)} ({numbers.signed_fixed(r['best_value'], 2)})</td>"
            f'<td class="num">{numbers.estimate(r["loss"], r["loss_se"], 2)}</td>'
            f"<td>{text(r['severity'] or '–', 20)}</td><td>{text(r['message'], 400)}</td></tr>"
        )

    head = [("deal", True), ("player", False), ("decision", False), ("chosen", False),
            ("best", False), ("chips lost", True), ("class", False),
            ("in words", False)]  # fmt: skip
    title = text(sid, 128)
    if (link := links.get(sid)) is not None:
        title = Markup(f'<a href="{escape(link)}">{title}</a>')
    return panel(
        f"The costliest decisions of {title}",
        table(head, (row(r) for r in rows)),
        f"Up to {COSTLIEST} decisions that lost chips, the most first; the chosen and the "
        "best option with their expected chips (replay pages where the report wrote them).",
    )


def _band(band: int) -> str:
    low = band * queries.LEAK_BAND / 1000
    return f"{numbers.fixed(low, 1)}–{numbers.fixed(low + queries.LEAK_BAND / 1000, 1)}"


def _share(n: int, of: int) -> str:
    return f"{numbers.count(n)} ({numbers.percent(n / of)})" if of else "–"


def _leaks(rows: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> str:
    body = (
        f"<tr><td>{text(names[r['player']], 80)}</td><td>{_band(r['band'])}</td>"
        f'<td class="num">{numbers.count(r["declarations"])}</td>'
        f'<td class="num">{_share(r["stood"], r["declarations"])}</td>'
        f'<td class="num">{_share(r["right"], r["declarations"])}</td>'
        f'<td class="num">{numbers.count(r["stood_wrongly"])}</td>'
        f'<td class="num">{numbers.count(r["passed_wrongly"])}</td></tr>'
        for r in rows
    )
    head = [("player", False), ("hand strength (tricks)", False), ("declarations", True),
            ("stood", True), ("standing was right", True), ("stood, passing better", True),
            ("passed, standing better", True)]  # fmt: skip
    return table(head, body)


def _skipped(con: duckdb.DuckDBPyConnection, counts: Mapping[str, int]) -> str:
    """The deals not judged, and why: ``3 (partial 2, on_void 1)``."""
    reasons = ", ".join(
        f"{reason} {numbers.count(n)}" for reason, n in queries.decisions_skipped(con)
    )
    return f"{numbers.count(counts['skipped'])}" + (f" ({reasons})" if reasons else "")


def _unjudged(counts: Mapping[str, int]) -> str:
    """The fact of the deals loaded but not judged yet, if any, and what judges them."""
    left = counts["loaded"] - counts["judged"] - counts["skipped"]
    if left <= 0:
        return ""
    return (
        f"<div><dt>Not judged yet</dt><dd>{numbers.count(left)} loaded deal(s): <code>loo-replay ingest "
        "PATH --decisions</code> judges them</dd></div>"
    )


def _settings(con: duckdb.DuckDBPyConnection) -> str:
    """K, the worlds each decision was judged on, and the seed: ``100 (seed 0)``, or each
    with its deals where the deals were judged on several."""
    found = queries.decision_settings(con)
    if not found:
        return "–"
    if len(found) == 1:
        return f"{numbers.count(found[0][0])} (seed {found[0][1]})"
    return "; ".join(
        f"{numbers.count(k)} (seed {seed}) in {numbers.count(n)} deal(s)" for k, seed, n in found
    )


def _nothing(con: duckdb.DuckDBPyConnection, counts: Mapping[str, int]) -> str:
    """The honest page of a database with no decision valued: why, and how to judge."""
    how = (
        "Run <code>loo-replay audit PATH --decisions</code>, or <code>loo-replay ingest "
        "PATH --decisions</code> then <code>loo-replay report</code>: either judges every "
        "deal of the database not judged yet, those loaded before too."
    )
    if not counts["judged"] + counts["skipped"]:
        return panel(
            "No decisions judged yet",
            f'<p class="nothing">No deal of this database was loaded with its decisions '
            f"judged. {how}</p>",
        )
    said = (
        f"No decision valued in {numbers.count(counts['judged'])} deal(s) judged; deals not judged: "
        f"{_skipped(con, counts)}"
        + (
            f"; {numbers.count(counts['unjudged'])} decision(s) could not be valued"
            if counts["unjudged"]
            else ""
        )
        + "."
    )
    return panel("No decision valued", f'<p class="nothing">{text(said, 600)}</p>')


# What each decisions figure draws, per player and session (``queries.decisions_by_session``):
# the column, the title and the axis.
DECISION_MEASURES = {
    "accuracy": ("Accuracy per player, session by session", "accuracy (%)"),
    "loss_a_deal": ("Tricks lost per deal, session by session", "tricks' worth lost a deal"),
}


def _hover(r: Mapping[str, Any], measure: str) -> str:
    """A point's value with its standard error and its counts; "too few to judge" under
    30 judged decisions."""
    if measure == "accuracy":
        value = numbers.estimate(r["accuracy"], r["accuracy_se"], 1, "%")
        shown = f"accuracy {value} of {numbers.count(r['accuracy_n'])}"
    else:
        value = numbers.estimate(r["loss_a_deal"], r["loss_a_deal_se"], 2)
        shown = f"{value} tricks lost a deal"
    few = f"; {TOO_FEW_WORDS}" if r["decisions"] < TOO_FEW else ""
    decisions, deals = _plural(r["decisions"], "decision"), _plural(r["deals_judged"], "deal")
    return f"{shown} ({decisions}, {deals} judged{few})"


def decisions_figure(
    frame: pl.DataFrame, measure: str, colours: Colours, names: Names | None = None
) -> Figure:
    """A line per player over the sessions they had decisions judged in (earliest first):
    their accuracy, or the tricks' worth their decisions lost per judged deal they sat in
    (docs/judging-decisions.md, "In the database and the reports"), each point's hover
    with its standard error and counts."""
    title, axis = DECISION_MEASURES[measure]
    frame = frame.filter(pl.col(measure).is_not_null())
    if frame.is_empty():
        return _empty(title, "No decision judged had options of different worth.")
    order = list(dict.fromkeys(frame["session_id"].to_list()))
    x_of = dict(zip(order, (label(s) for s in _unique_labels(order)), strict=True))
    players = sorted(set(frame["player"].to_list()))
    shown = {p: label(t) for p, t in wording.display_names(players, names).items()}
    lines = []
    for player in players:
        rows = frame.filter(pl.col("player") == player).to_dicts()
        lines.append(
            trace(
                "scatter",
                mode="lines+markers",
                name=shown[player],
                x=[x_of[r["session_id"]] for r in rows],
                y=[r[measure] for r in rows],
                line={"color": _colour(colours, player)},
                hovertext=[
                    f"{label(r['session_id'])}<br>{shown[player]}: {_hover(r, measure)}"
                    for r in rows
                ],
                hoverinfo="text",
            )
        )
    many = len(order) > 12
    return figure(
        lines,
        title,
        380,
        margin={"l": 60, "r": 20, "t": 56, "b": 60 if many else 110},
        axes={
            "xaxis": {
                "type": "category",
                "categoryorder": "array",
                "categoryarray": list(x_of.values()),
                "tickangle": -35,
                "showticklabels": not many,
            },
            "yaxis": {"title": {"text": axis}, "rangemode": "tozero"},
        },
    )


def decisions_page(
    con: duckdb.DuckDBPyConnection,
    replays: Mapping[tuple[str, int], str],
    links: Mapping[str, str],
    colours: Colours,
    source: str,
    footer: str,
    coverage: Coverage | None = None,
) -> str:
    """The whole page; ``replays`` are the replay pages by (session id, deal index),
    ``links`` the session pages, ``coverage`` what the page is written from (None: the
    database now)."""
    counts = queries.decision_counts(con)
    masthead = (
        pages.nav((INDEX, "← all sessions"), *registry.before(registry.DECISIONS))
        + '<div class="kicker">Loo audit reports</div>'
        f"<h1>{registry.DECISIONS.heading}</h1>"
        f'<dl class="facts"><div><dt>Database</dt><dd>{text(source, 120)}</dd></div>'
        f"<div><dt>Deals judged</dt><dd>{numbers.count(counts['judged'])} of "
        f"{numbers.count(counts['judged'] + counts['skipped'])}, in {numbers.count(counts['sessions'])} session(s)</dd></div><div><dt>Not judged</dt><dd>{text(_skipped(con, counts), 300)}"
        f"</dd></div>{_unjudged(counts)}<div><dt>Decisions</dt><dd>{numbers.count(counts['decisions'])}"
        + (f" ({numbers.count(counts['unjudged'])} not valued)" if counts["unjudged"] else "")
        + "</dd></div>"
        f"<div><dt>Worlds a decision</dt><dd>{_settings(con)}</dd></div>"
        f"{pages.covers_facts(coverage or live(con))}</dl>"
    )
    if not counts["decisions"]:
        return page(TITLE, masthead, _nothing(con, counts), footer)
    # The players judged enough first, the most accurate first; then those too few to judge.
    players = sorted(
        queries.decision_players(con).to_dicts(), key=lambda r: r["decisions"] < TOO_FEW
    )
    names_given = queries.player_names(con)
    everyone = {r["player"] for r in players}
    by_session = queries.decisions_by_session(con)
    costly = queries.costliest_decisions(con, COSTLIEST)
    leak_rows = queries.leaks(con).to_dicts()
    everyone |= set(costly["player"].to_list()) | {r["player"] for r in leak_rows}
    names = wording.display_names(sorted(everyone), names_given)
    lead = (
        "Every declaration and card with a choice, valued in chips over the deals that were "
        "possible from where the player sat (the other hands unseen), the rest played out "
        "with every hand open. Accuracy: 100 when the best option was chosen, 0 for the "
        "worst; the ± is its standard error, over the number of decisions whose options "
        "differed in worth. Tricks lost a deal: the chips each decision lost over what a "
        "trick was worth in its deal (so that unlike stakes add up), per judged deal sat "
        f"in, ± its standard error. Under {TOO_FEW} judged decisions a player is "
        f"{TOO_FEW_WORDS}: a handful of decisions says little. Advice, not a finding; "
        "docs/judging-decisions.md says how sure each figure is."
    )
    sessions = list(dict.fromkeys(costly["session_id"].to_list()))[-SESSIONS_LISTED:]
    body = (
        panel("Each player over every session", _players(players, names), lead)
        + figure_panel(
            "decision-accuracy",
            decisions_figure(by_session, "accuracy", colours, names_given),
        )
        + figure_panel(
            "decision-loss",
            decisions_figure(by_session, "loss_a_deal", colours, names_given),
        )
        + panel(
            "Standing, by the hand held",
            _leaks(leak_rows, names)
            if leak_rows
            else '<p class="nothing">No judged declaration had passing among its options.</p>',
            "The declarations where passing was an option: how often each player stood "
            "(played, took the Miss or defended) against how often standing was the best "
            "option, by the strength of the hand (its expected tricks, docs/collusion.md). "
            "A leak shows as standing much more, or much less, than was right.",
        )
        + "".join(
            _costliest(
                sid, costly.filter(costly["session_id"] == sid).to_dicts(), names, replays, links
            )
            for sid in sessions
        )
    )
    if not sessions:
        body += panel(
            "The costliest decisions",
            '<p class="nothing">No decision judged lost chips against the best option.</p>',
        )
    return page(TITLE, masthead, body, footer)


def listed_deals(con: duckdb.DuckDBPyConnection) -> dict[str, dict[int, int]]:
    """The deals of the decisions this page lists, by session: deal index -> deal number.
    The report gives them replay pages where it gives pages only to deals with findings;
    the explorer links them to its replays."""
    costly = queries.costliest_decisions(con, COSTLIEST)
    out: dict[str, dict[int, int]] = {}
    for sid, index, number in costly.select("session_id", "deal_index", "deal").rows():
        out.setdefault(sid, {})[index] = number
    return out


def index_notice(con: duckdb.DuckDBPyConnection) -> Markup:
    """The index's line to the page when decisions were judged, else nothing (the
    navigation links the page either way)."""
    counts = queries.decision_counts(con)
    if not counts["decisions"]:
        return Markup("")
    return Markup(
        f'<p class="notice"><a href="{escape(DECISIONS)}">Judged decisions: '
        f"{numbers.count(counts['decisions'])} in {numbers.count(counts['judged'])} deal(s)</a>.</p>"
    )
