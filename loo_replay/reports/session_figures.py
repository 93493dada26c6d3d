"""The figures of a session's page (``pages.session_page``): the pool, the loos, the chips,
the violations and the analysis of one session, each asked of ``queries`` for its frame and
returned as a plain Plotly figure spec (the shared helpers and why plain dicts: ``figures``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from loo_replay.output import numbers, wording
from loo_replay.reports import queries
from loo_replay.reports.figures import (
    CARRIED,
    EVENTS,
    POOL,
    Colours,
    Figure,
    Trace,
    _colour,
    _empty,
    _rate,
    _rate_hover,
    _rate_text,
    _shown,
    analysis_figure,
    deal_axis,
    figure,
    label,
    log_axis,
    nothing_found,
    session_names,
    trace,
)


def pool_figure(source: queries.Source, session_id: str) -> Figure:
    """The pool at each deal and the pool carried, with the loos (on the carried pool, where
    they are paid), flushes and misdeals (on the deal's pool) and revokes (on the carried pool,
    where the forfeits go) marked; rejected deals as dotted lines."""
    title = "Pool over the deals"
    batch = queries.batch_of(source, session_id)
    frame = batch.frame(queries.pool_history, session_id)
    rejected = batch.frame(queries.rejected_deals, session_id)
    if frame.is_empty():
        return _empty(title, "No audited deals in this session.")
    rows = frame.to_dicts()
    names = session_names(batch, session_id)
    log = log_axis([*frame["pool_start"].to_list(), *frame["pool_next"].to_list()])
    lines = pool_lines(rows, rejected["deal"].to_list(), log)
    deals, start, carried = lines["deal"], lines["pool_start"], lines["pool_next"]
    hover = [_deal_hover(r, names) if r else "" for r in lines["row"]]
    traces = [
        trace(
            "scatter",
            x=deals,
            y=start,
            name="pool at the deal",
            mode="lines+markers",
            line={"color": POOL, "width": 2.5},
            marker={"size": 5},
            hovertext=hover,
            hoverinfo="text",
        ),
        trace(
            "scatter",
            x=deals,
            y=carried,
            name="pool carried",
            mode="lines",
            line={"color": CARRIED, "width": 1.5, "dash": "dot"},
            hovertext=hover,
            hoverinfo="text",
        ),
    ]
    for kind, found in _pool_events(rows, names).items():
        points = [p for p in found if p[1] > 0] if log else found
        if not points:
            continue
        colour, symbol = EVENTS[kind]
        traces.append(
            trace(
                "scatter",
                x=[p[0] for p in points],
                y=[p[1] for p in points],
                name=kind,
                mode="markers",
                marker={
                    "color": colour,
                    "symbol": symbol,
                    "size": [p[2] for p in points],
                    "line": {"color": "white", "width": 1},
                },
                hovertext=[p[3] for p in points],
                hoverinfo="text",
            )
        )
    gone = [d for d in rejected["deal"].to_list() if d is not None]
    red = "#b0473b"
    return figure(
        traces,
        title + (" (log scale: the pool balloons)" if log else ""),
        400,
        hovermode="closest",
        axes={
            "xaxis": deal_axis(deals),
            "yaxis": {"title": {"text": "chips"}, "type": "log" if log else "linear"}
            | ({} if log else {"rangemode": "tozero"}),
        },
        shapes=[
            {
                "type": "line",
                "x0": d,
                "x1": d,
                "y0": 0,
                "y1": 1,
                "xref": "x",
                "yref": "paper",
                "line": {"color": red, "width": 1, "dash": "dot"},
            }
            for d in gone
        ],
        annotations=[
            {
                "x": d,
                "y": 1.0,
                "yref": "paper",
                "text": f"deal {d} rejected",
                "showarrow": False,
                "textangle": -90,
                "xanchor": "right",
                "yanchor": "top",
                "font": {"size": 10, "color": red},
            }
            for d in gone
        ],
    )


def pool_lines(
    rows: Sequence[Mapping[str, Any]], rejected: Sequence[int | None], log: bool
) -> dict[str, list[Any]]:
    """The points of the two pool lines in deal order: a rejected deal is a gap (nothing is
    known of its pool), and so is an empty pool on a log axis (a gap, not a plunge)."""
    points = [(r["deal"], r) for r in rows] + [(d, None) for d in rejected if d is not None]
    points.sort(key=lambda p: p[0])

    def y(row: Mapping[str, Any] | None, key: str) -> Any:
        value = None if row is None else row[key]
        return None if log and value is not None and value <= 0 else value

    return {
        "deal": [d for d, _ in points],
        "pool_start": [y(r, "pool_start") for _, r in points],
        "pool_next": [y(r, "pool_next") for _, r in points],
        "row": [r for _, r in points],
    }


def _deal_hover(r: Mapping[str, Any], names: Mapping[str, str]) -> str:
    pool = "pool unknown" if r["pool_start"] is None else f"{r['pool']} pool {r['pool_start']}"
    carried = "?" if r["pool_next"] is None else r["pool_next"]
    outcome = str(r["outcome"] or r["status"]).replace("_", " ")
    return (
        f"deal {r['deal']} · dealer {_shown(names, r['dealer'])}<br>{pool} · {label(outcome)}"
        f"<br>carried {carried}"
    )


def _pool_events(
    rows: Sequence[Mapping[str, Any]], names: Mapping[str, str]
) -> dict[str, list[tuple[int, int, int, str]]]:
    """(deal, y, marker size, hover) per kind of event; y falls back to the other pool."""
    events: dict[str, list[tuple[int, int, int, str]]] = {k: [] for k in EVENTS}
    for r in rows:
        at_deal = r["pool_start"] if r["pool_start"] is not None else r["pool_next"]
        carried = r["pool_next"] if r["pool_next"] is not None else r["pool_start"]
        deal = r["deal"]
        if r["loos"] and carried is not None:
            who = ", ".join(
                f"{_shown(names, p)} {amount}"
                for p, amount in zip(r["looed"] or [], r["loo_amounts"] or [], strict=False)
            )
            events["loo"].append(
                (deal, carried, 7 + 2 * min(r["loos"], 6), f"deal {deal}: looed {who}")
            )
        if r["outcome"] == "flush" and at_deal is not None:
            events["flush"].append((deal, at_deal, 13, f"deal {deal}: a flush takes the pool"))
        if r["status"] == "misdeal" and at_deal is not None:
            events["misdeal"].append((deal, at_deal, 11, f"deal {deal}: misdeal"))
        if r["revokes"] and carried is not None:
            who = ", ".join(
                f"{_shown(names, p)} ({label(c)})"
                for p, c in zip(r["revokers"] or [], r["revoke_codes"] or [], strict=False)
            )
            events["revoke"].append((deal, carried, 17, f"deal {deal}: revoke by {who}"))
    return events


def _rate_bars(
    x: list[str],
    rows: list[dict[str, Any]],
    hovered: list[str],
    prefix: str = "",
    *,
    marker: dict[str, Any],
    name: str,
    **placed: Any,
) -> Trace:
    """One panel's bars of a loo rate: each row's ``{prefix}looed`` over its
    ``{prefix}played``, labelled on the bar and in the hover under ``hovered``'s name."""
    looed, played = f"{prefix}looed", f"{prefix}played"
    return trace(
        "bar",
        x=x,
        y=[_rate(r[looed], r[played]) for r in rows],
        text=[_rate_text(r[looed], r[played]) for r in rows],
        textposition="outside",
        marker=marker,
        name=name,
        hovertext=[_rate_hover(h, r[looed], r[played]) for h, r in zip(hovered, rows, strict=True)],
        hoverinfo="text",
        **placed,
    )


def loo_figure(source: queries.Source, session_id: str, colours: Colours) -> Figure:
    """Loo frequency: per player, per player by declaration (his own hand or the Miss), and by
    seat from the dealer (1 = the eldest, on the dealer's left).  Bars are rates; the text on
    them is looed/played."""
    title = "Loo frequency (looed / deals played)"
    batch = queries.batch_of(source, session_id)
    by_player = batch.frame(queries.loo_by_declaration, session_id)
    by_position = batch.frame(queries.loo_by_position, session_id)
    if by_player.is_empty() or int(by_player["played"].sum()) == 0:
        return _empty(title, "Nobody played a deal with known amounts.")
    rows = by_player.to_dicts()
    shown = session_names(batch, session_id)
    names = [_shown(shown, r["player"]) for r in rows]
    traces = [
        _rate_bars(
            names,
            rows,
            names,
            marker={"color": [_colour(colours, r["player"]) for r in rows]},
            name="all deals played",
            showlegend=False,
        )
    ]
    for kind, colour, pattern, title_kind in (
        ("own", "#5b7f95", "", "own hand"),
        ("miss", "#d08c3c", "/", "the Miss"),
    ):
        traces.append(
            _rate_bars(
                names,
                rows,
                [f"{n} with {title_kind}" for n in names],
                f"{kind}_",
                marker={"color": colour, "pattern": {"shape": pattern}},
                name=title_kind,
                xaxis="x2",
                yaxis="y2",
            )
        )
    positions = by_position.to_dicts()
    seats = [_position_name(r["position"], r["dealer"]) for r in positions]
    traces.append(
        _rate_bars(
            seats,
            positions,
            [f"seat {seat}" for seat in seats],
            marker={"color": "#7d8f69"},
            name="by seat",
            showlegend=False,
            xaxis="x3",
            yaxis="y3",
        )
    )
    rate_axis = {"tickformat": ".0%", "range": [0, 1.15]}
    axes: dict[str, dict[str, Any]] = {}
    subtitles = []
    for k, (start, end, subtitle) in enumerate(_PANELS, start=1):
        suffix = "" if k == 1 else str(k)
        axes[f"xaxis{suffix}"] = {
            "domain": [start, end],
            "anchor": f"y{suffix}",
            "type": "category",
        }
        if k == len(_PANELS):  # "1 eldest" on two lines, away from the "0%" it ran into
            axes[f"xaxis{suffix}"] |= {
                "tickvals": seats,
                "ticktext": [s.replace(" ", "<br>") for s in seats],
                "range": [-0.9, len(seats) - 0.5],
            }
        axes[f"yaxis{suffix}"] = rate_axis | {"anchor": f"x{suffix}"}
        subtitles.append(
            {
                "text": subtitle,
                "x": (start + end) / 2,
                "y": 1.0,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 12, "color": "#5a6b62"},
            }
        )
    return figure(
        traces,
        title,
        400,
        margin={"l": 60, "r": 20, "t": 70, "b": 110},
        axes=axes,
        annotations=subtitles,
        barmode="group",
        bargap=0.25,
        # At the foot of the figure, under the names however long (a legend just under the
        # plot covered the slanted names of the panel above it).
        legend={
            "orientation": "h",
            "x": 0.5,
            "xanchor": "center",
            "yref": "container",
            "y": 0.0,
            "yanchor": "bottom",
        },
    )


# The loo figure's three panels: (start, end, title) across the width.
_PANELS = (
    (0.0, 0.26, "per player"),
    (0.33, 0.67, "by declaration"),
    (0.74, 1.0, "by seat from the dealer"),
)


def _position_name(position: int, dealer: bool) -> str:
    if position == 1:
        return "1 eldest"
    return f"{position} dealer" if dealer else str(position)


def chips_figure(source: queries.Source, session_id: str, colours: Colours) -> Figure:
    """Each player's chips over the deals: his stack where the session gave every player
    one and the audit tracked them (from the starting stack at deal 0), else his net chips
    so far."""
    batch = queries.batch_of(source, session_id)
    players = batch.frame(queries.players, session_id).to_dicts()
    frame = batch.frame(queries.chips, session_id)
    traces = []
    mine: dict[str, list[tuple[int, int | None, int]]] = {p["player"]: [] for p in players}
    for player, deal, stack, total in frame.select("player", "deal", "stack", "total").iter_rows():
        mine.setdefault(player, []).append((deal, stack, total))  # in deal order
    stacks = bool(players) and all(p["chips"] is not None for p in players)
    shown = session_names(batch, session_id)
    owing = False
    if stacks and frame["stack"].is_not_null().any():
        title = "Stacks over the deals"
        for p in players:
            name, points = _shown(shown, p["player"]), mine[p["player"]]
            x = [0, *(deal for deal, _, _ in points)]
            y = [p["chips"], *(stack for _, stack, _ in points)]
            owing = owing or any(v is not None and v < 0 for v in y)
            traces.append(_chip_line(name, x, y, _colour(colours, p["player"]), "stack"))
        axis = "chips in hand"
    else:
        title = "Net chips over the deals"
        for p in players:
            name, points = _shown(shown, p["player"]), mine[p["player"]]
            if not points:
                continue
            x = [deal for deal, _, _ in points]
            y = [total for _, _, total in points]
            traces.append(_chip_line(name, x, y, _colour(colours, p["player"]), "net so far"))
        axis = "net chips so far"
    if not traces:
        return _empty(title, "No player sat in an audited deal.")
    debts = _debt_marks() if owing else {}
    deals = [x for trace in traces for x in trace["x"] if x is not None]
    return figure(
        traces,
        title,
        400,
        hovermode="x unified",
        axes={
            # half a deal of room past the last: its dot and step stand clear of the edge
            "xaxis": deal_axis(deals) | {"range": [min(deals), max(deals) + 0.5]},
            "yaxis": {"title": {"text": axis}}
            | ({"zerolinecolor": "#b0473b", "zerolinewidth": 2} if owing else {}),
        },
        **debts,
    )


def _debt_marks() -> dict[str, Any]:
    """What says that a stack below zero is a debt: a label on the zero line (the line
    itself is drawn red)."""
    return {
        "annotations": [
            {
                "text": "0 chips: below this line, owing",
                "x": 0.0,
                "xref": "paper",
                "xanchor": "left",
                "y": 0,
                "yref": "y",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 11, "color": "#b0473b"},
            }
        ]
    }


def _chip_line(name: str, x: list[Any], y: list[Any], colour: str, what: str) -> Trace:
    """A player's chips as steps: each deal's value holds until the next deal's.  The last
    deal has no next, so its step would have no width: a dot marks it."""
    return trace(
        "scatter",
        x=x,
        y=y,
        name=name,
        mode="lines+markers",
        line={"color": colour, "width": 2, "shape": "hv"},
        marker={"color": colour, "size": [0] * (len(x) - 1) + [7]},
        hovertext=[f"{name}: {_chip_text(what, v)}" for v in y],
        hoverinfo="text",
    )


def _chip_text(what: str, value: int | None) -> str:
    if value is None:
        return f"{what} ?"
    if what == "stack":
        return f"{what} {wording.stack(value)}"  # below zero, "stack owes 811,188"
    return f"{what} {numbers.signed(value)}"  # a change: "net so far +9", "−3"


def violations_figure(source: queries.Source, session_id: str, colours: Colours) -> Figure:
    """Violations by rule (bars, most frequent first), stacked by player in his colour."""
    title = "Violations by rule and player"
    batch = queries.batch_of(source, session_id)
    frame = batch.frame(queries.violations, session_id)
    if frame.is_empty():
        deals = batch.frame(queries.pool_history, session_id)
        partial = deals.filter(pl.col("knowledge") == "partial").height
        rejected = batch.frame(queries.rejected_deals, session_id).height
        return _empty(
            title, "<br>".join(nothing_found("violations", deals.height, rejected, partial))
        )
    codes = list(dict.fromkeys(frame["code"].to_list()))
    shown = session_names(queries.batch_of(source, session_id), session_id)
    traces = []
    for (player,), mine in frame.group_by("player", maintain_order=True):
        name = _shown(shown, player)
        counts = dict(zip(mine["code"].to_list(), mine["violations"].to_list(), strict=True))
        fines = dict(zip(mine["code"].to_list(), mine["penalized"].to_list(), strict=True))
        traces.append(
            trace(
                "bar",
                x=[label(c) for c in codes],
                y=[counts.get(c, 0) for c in codes],
                name=name,
                marker={"color": _colour(colours, str(player))},
                hovertext=[
                    f"{name}: {counts.get(c, 0)} × {label(c)} ({fines.get(c, 0)} penalised)"
                    for c in codes
                ],
                hoverinfo="text",
            )
        )
    most = int(frame["code_total"].max() or 0)  # type: ignore[arg-type]
    return figure(
        traces,
        title,
        340,
        barmode="stack",
        bargap=0.35 if len(codes) > 3 else 0.75,  # a lone bar need not fill the width
        axes={
            "xaxis": {"type": "category"},
            "yaxis": {"title": {"text": "violations"}} | ({"dtick": 1} if most <= 10 else {}),
        },
    )


def session_analysis_figure(source: queries.Source, session_id: str) -> Figure:
    batch = queries.batch_of(source, session_id)
    rows = batch.frame(queries.analysis_by_player, session_id).to_dicts()
    title = "Tricks thrown away and avoidable loos"
    return analysis_figure(rows, session_names(batch, session_id), title)


def session_figures(source: queries.Source, session_id: str, colours: Colours) -> dict[str, Figure]:
    """Every figure of a session's report, by its element id on the page."""
    batch = queries.batch_of(source, session_id)
    return {
        "pool": pool_figure(batch, session_id),
        "loo": loo_figure(batch, session_id, colours),
        "chips": chips_figure(batch, session_id, colours),
        "violations": violations_figure(batch, session_id, colours),
        "analysis": session_analysis_figure(batch, session_id),
    }
