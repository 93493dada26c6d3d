"""The figures of the all-sessions page (``build.all_sessions``): loo rates, the loo-rate grid,
violations by ruleset, pool sizes and the analysis over every session, as plain Plotly figure
specs (the shared helpers and why plain dicts: ``figures``)."""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import polars as pl

from loo_replay.output import numbers, wording
from loo_replay.reports import queries
from loo_replay.reports.figures import (
    POOL,
    Colours,
    Figure,
    Names,
    _colour,
    _empty,
    _rate,
    _rate_hover,
    _rate_text,
    _unique_labels,
    analysis_figure,
    figure,
    label,
    log_axis,
    nothing_found,
    trace,
)

GRID_SESSIONS = 200  # sessions in the all-sessions loo-rate grid, the latest


def loo_rates_figure(
    con: duckdb.DuckDBPyConnection, colours: Colours, names: Names | None = None
) -> Figure:
    """Every player's loo rate over all sessions (as the ``player_stats`` view has it)."""
    title = "Loo rate per player, all sessions"
    frame = (
        queries.loo_rates_by_session(con)
        .group_by("player")
        .agg(pl.col("played").sum(), pl.col("looed").sum())
        .filter(pl.col("played") > 0)
        .with_columns((pl.col("looed") / pl.col("played")).alias("rate"))
        .sort(["rate", "player"], descending=[True, False])
    )
    if frame.is_empty():
        return _empty(title, "Nobody played a deal with known amounts.")
    rows = frame.to_dicts()
    shown = wording.display_names([r["player"] for r in rows], names)
    labels = [label(shown[r["player"]]) for r in rows]
    bars = trace(
        "bar",
        x=labels,
        y=frame["rate"].to_list(),
        text=[_rate_text(r["looed"], r["played"]) for r in rows],
        textposition="outside",
        marker={"color": [_colour(colours, r["player"]) for r in rows]},
        hovertext=[
            _rate_hover(n, r["looed"], r["played"]) for n, r in zip(labels, rows, strict=True)
        ],
        hoverinfo="text",
        name="loo rate",
    )
    return figure(
        [bars],
        title,
        360,
        axes={"xaxis": {"type": "category"}, "yaxis": {"tickformat": ".0%", "range": [0, 1.1]}},
    )


def loo_rates_by_session_figure(
    con: duckdb.DuckDBPyConnection, names: Names | None = None
) -> Figure:
    """A player × session grid of loo rates, sessions in date order: the latest
    ``GRID_SESSIONS`` of them (a wider grid is unreadable, and heavy for the page)."""
    title = "Loo rate per player and session"
    everyone = queries.session_ids(con)
    order = everyone[-GRID_SESSIONS:]
    if len(order) < len(everyone):
        title += (
            f" (the latest {numbers.count(len(order))} of {numbers.count(len(everyone))} sessions)"
        )
    frame = queries.loo_rates_by_session(con).filter(pl.col("session_id").is_in(order))
    if frame.is_empty():
        return _empty(title, "No deals yet.")
    players = sorted(set(frame["player"].to_list()))
    shown = {p: label(t) for p, t in wording.display_names(players, names).items()}
    cells = {(r["player"], r["session_id"]): r for r in frame.to_dicts()}
    z: list[list[float | None]] = []
    text: list[list[str]] = []
    hover: list[list[str]] = []
    for p in players:
        z_row, t_row, h_row = [], [], []
        for sid in order:
            r = cells.get((p, sid))
            looed, played = (r["looed"], r["played"]) if r else (0, 0)
            z_row.append(_rate(looed, played))
            t_row.append(_rate_text(looed, played) if r else "")
            h_row.append(
                f"{label(sid)}<br>"
                + (_rate_hover(shown[p], looed, played) if r else f"{shown[p]} did not sit")
            )
        z.append(z_row)
        text.append(t_row)
        hover.append(h_row)
    many = len(order) > 30
    grid = trace(
        "heatmap",
        x=[label(s) for s in _unique_labels(order)],
        y=[shown[p] for p in players],
        z=z,
        text=None if many else text,
        texttemplate=None if many else "%{text}",
        hovertext=hover,
        hoverinfo="text",
        colorscale=[[0.0, "#f3efe4"], [0.5, "#e9a25f"], [1.0, "#a4302a"]],
        zmin=0,
        zmax=1,
        colorbar={"title": {"text": "rate", "side": "right"}, "tickformat": ".0%"},
        xgap=2,
        ygap=2,
    )
    return figure(
        [grid],
        title,
        (210 if many else 250) + 34 * len(players),
        margin={"l": 70, "r": 20, "t": 56, "b": 60 if many else 150},
        axes={
            "xaxis": {
                "type": "category",
                "tickangle": -35,
                "showticklabels": not many,
                "showgrid": False,
            },
            "yaxis": {"type": "category", "autorange": "reversed", "showgrid": False},
        },
    )


def violations_by_ruleset_figure(con: duckdb.DuckDBPyConnection) -> Figure:
    """Violations per rule × ruleset (the ``violations_by_rule`` view)."""
    title = "Violations by rule and ruleset"
    frame = queries.violations_by_rule(con)
    if frame.is_empty():
        sessions = queries.sessions(con)
        deals, rejected, partial = (
            int(sessions[k].sum()) for k in ("deals", "rejected", "partial")
        )
        found = nothing_found("violations", deals - rejected, rejected, partial)
        return _empty(title, "<br>".join(found))
    codes = list(dict.fromkeys(frame["code"].to_list()))
    rulesets = sorted(set(frame["ruleset"].to_list()))
    cells = {(r["code"], r["ruleset"]): r for r in frame.to_dicts()}
    z = [
        [cells[(c, rs)]["violations"] if (c, rs) in cells else None for rs in rulesets]
        for c in codes
    ]
    hover = [
        [
            f"{label(c)} under {label(rs)}: "
            + (
                f"{cells[(c, rs)]['violations']} in {cells[(c, rs)]['deals']} deal(s), "
                f"{cells[(c, rs)]['penalized']} penalised"
                if (c, rs) in cells
                else "none"
            )
            for rs in rulesets
        ]
        for c in codes
    ]
    grid = trace(
        "heatmap",
        x=[label(rs) for rs in rulesets],
        y=[label(c) for c in codes],
        z=z,
        text=[["" if v is None else str(v) for v in row] for row in z],
        texttemplate="%{text}",
        hovertext=hover,
        hoverinfo="text",
        colorscale=[[0.0, "#e8eef3"], [1.0, "#2f4b7c"]],
        colorbar={"title": {"text": "violations", "side": "right"}, "dtick": _dtick(z)},
        xgap=2,
        ygap=2,
    )
    return figure(
        [grid],
        title,
        max(300, 150 + 30 * len(codes)),
        margin={"l": 140, "r": 20, "t": 56, "b": 90},
        axes={
            "xaxis": {"type": "category", "tickangle": -30, "showgrid": False},
            "yaxis": {"type": "category", "autorange": "reversed", "showgrid": False},
        },
    )


def _dtick(z: Sequence[Sequence[int | None]]) -> int | None:
    """Whole-number ticks for small counts (a colour bar of 1, 1.5, 2 violations is silly)."""
    most = max((v for row in z for v in row if v is not None), default=0)
    return 1 if most <= 10 else None


def pool_sizes_figure(con: duckdb.DuckDBPyConnection) -> Figure:
    """The spread of the pool at the deal in each session: a box from the quartiles, whiskers
    to the least and greatest pool (log scale when one balloons).  The boxes are computed by
    the database (``queries.pool_sizes``), so the page stays small at a million deals."""
    title = "Pool sizes per session"
    frame = queries.pool_sizes(con)
    order = queries.session_ids(con)
    if frame.is_empty():
        return _empty(title, "No known pools yet.")
    names = dict(zip(order, _unique_labels(order), strict=True))
    spread = {r["session_id"]: r for r in frame.to_dicts()}
    present = [s for s in order if s in spread]
    rows = [spread[s] for s in present]
    log = log_axis([*frame["least"].to_list(), *frame["greatest"].to_list()])
    box = trace(
        "box",
        x=[label(names[s]) for s in present],
        q1=[r["q1"] for r in rows],
        median=[r["median"] for r in rows],
        q3=[r["q3"] for r in rows],
        lowerfence=[r["least"] for r in rows],
        upperfence=[r["greatest"] for r in rows],
        name="pool at the deal",
        marker={"color": POOL},
        line={"color": POOL},
        fillcolor="rgba(31,111,74,0.18)",
        hovertext=[f"{label(names[s])}: {spread[s]['deals']} deal(s)" for s in present],
    )
    return figure(
        [box],
        title + (" (log scale)" if log else ""),
        420,
        showlegend=False,
        margin={"l": 60, "r": 20, "t": 56, "b": 140},
        axes={
            "xaxis": {
                "type": "category",
                "categoryorder": "array",
                "categoryarray": [label(names[s]) for s in present],
                "tickangle": -35,
                "showticklabels": len(present) <= 40,
            },
            "yaxis": {"title": {"text": "chips"}, "type": "log" if log else "linear"},
        },
    )


def all_sessions_figures(
    con: duckdb.DuckDBPyConnection, colours: Colours, names: Names | None = None
) -> dict[str, Figure]:
    """Every figure of the all-sessions report, by its element id on the page."""
    return {
        "loo-rates": loo_rates_figure(con, colours, names),
        "loo-by-session": loo_rates_by_session_figure(con, names),
        "violations-by-ruleset": violations_by_ruleset_figure(con),
        "pool-sizes": pool_sizes_figure(con),
        "analysis": all_analysis_figure(con, names),
    }


def all_analysis_figure(con: duckdb.DuckDBPyConnection, names: Names | None = None) -> Figure:
    """The analysis figure over every session, a bar group per player."""
    frame = (
        queries.analysis_by_player(con, queries.sessions_of(con, queries.session_ids(con)))
        .group_by("player", maintain_order=True)
        .agg(pl.col("analysed", "thrown", "avoidable", "loos").sum())
        .sort("player")
    )
    rows = frame.to_dicts()
    shown = wording.display_names([r["player"] for r in rows], names)
    labels = {p: label(t) for p, t in shown.items()}
    return analysis_figure(rows, labels, "Tricks thrown away and avoidable loos, all sessions")
