"""The report's figures, drawn from the database as plain Plotly figure specs.

Each function asks ``queries`` for its frame and returns a figure: the
``{"data": [...], "layout": {...}}`` that plotly.js draws, built as dicts
because ``plotly.graph_objects`` validates every attribute in Python, most of a
large report's time (docs/performance.md, "What limits `ingest` and `report`"); where
it is written is the caller's business.  Plotly renders some HTML in labels,
legends and hover text, so every text that comes from a log (ids, names,
venues) goes through ``label`` (``loo_replay.html.escape`` after ``safe``), and none is
ever put in a hover *template*, where ``%{...}`` would be read as a field.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import duckdb
import polars as pl

from loo_replay.html import escape
from loo_replay.output import wording
from loo_replay.output.text import safe
from loo_replay.reports import queries

# Twelve colours distinct at a glance (Tableau's ten and two more); more players reuse them.
PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#e15759",
    "#76b7b2",
    "#b07aa1",
    "#edc948",
    "#9c755f",
    "#ff9da7",
    "#79706e",
    "#2f4b7c",
    "#8cd17d",
)
UNKNOWN_COLOUR = "#9e9e9e"
INK = "#22302a"
POOL = "#1f6f4a"
CARRIED = "#8aa89a"
EVENTS = {  # marker colour and symbol of what happened at a deal; the big ones drawn first,
    "revoke": ("#7b3fa0", "diamond"),  # so that a loo at the same point shows on top
    "misdeal": ("#6d6d6d", "x"),
    "flush": ("#d4a017", "star"),
    "loo": ("#c0392b", "circle"),
}
LOG_RATIO = 100  # a pool axis turns logarithmic when the largest pool exceeds the smallest x100
GRID_SESSIONS = 200  # sessions in the all-sessions loo-rate grid, the latest
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"

Colours = Mapping[str, str]
Names = Mapping[str, str | None]  # player id -> name as the log gives it
Trace = dict[str, Any]
Figure = dict[str, Any]  # {"data": [Trace, ...], "layout": {...}}, as plotly.js takes it


def label(text: object, limit: int = 80) -> str:
    """Untrusted text as Plotly (and HTML) shows it: control characters escaped, cut,
    HTML-escaped."""
    return _escaped(str(text), limit)


@functools.lru_cache(maxsize=1 << 16)
def _escaped(text: str, limit: int) -> str:
    """Cached: a report escapes the same few names and outcomes once per deal."""
    return str(escape(safe(text, limit)))


def assign_colours(seating: pl.DataFrame) -> dict[str, str]:
    """A colour per player id, the same on every page: players are taken session by session
    (``seating``: session_id, player in order), each given the palette colour least used so
    far among those not already worn at his table."""
    colours: dict[str, str] = {}
    used: Counter[str] = Counter()
    for (_sid,), group in seating.group_by("session_id", maintain_order=True):
        table = list(group["player"])
        worn = {colours[p] for p in table if p in colours}
        for player in table:
            if player in colours:
                continue
            free = [c for c in PALETTE if c not in worn] or list(PALETTE)
            colour = min(free, key=lambda c: (used[c], PALETTE.index(c)))
            colours[player] = colour
            used[colour] += 1
            worn.add(colour)
    return colours


def player_colours(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    return assign_colours(queries.seating(con))


def session_names(batch: queries.Batch, session_id: str) -> dict[str, str]:
    """The session's players as its figures show them (names where the log gives them),
    escaped for Plotly."""
    players = batch.frame(queries.players, session_id).select("player", "name").rows()
    shown = wording.display_names([p for p, _ in players], dict(players))
    return {p: label(t) for p, t in shown.items()}


def _shown(names: Mapping[str, str], player: object) -> str:
    return names.get(str(player)) or label(player)


def _colour(colours: Colours, player: str) -> str:
    return colours.get(player, UNKNOWN_COLOUR)


AXIS = {
    "gridcolor": "#ece8df",
    "linecolor": "#c9c2b2",
    "zerolinecolor": "#c9c2b2",
    "automargin": True,
}


def trace(kind: str, **attributes: Any) -> Trace:
    """A trace of ``kind`` (``scatter``, ``bar``...) as plotly.js takes it; None is unset."""
    return {"type": kind} | {k: v for k, v in attributes.items() if v is not None}


def figure(
    traces: Iterable[Any],
    title: str,
    height: int,
    *,
    margin: Mapping[str, int] | None = None,
    axes: Mapping[str, Mapping[str, Any]] | None = None,
    **extra: Any,
) -> Figure:
    """A figure with the look every figure shares: quiet grid, the report's font, the title left.
    ``axes`` maps axis names (``xaxis``, ``yaxis2``) to their settings; ``extra`` wins."""
    layout: dict[str, Any] = {
        "title": {"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 16}},
        "height": height,
        "margin": dict(margin or {"l": 60, "r": 20, "t": 56, "b": 50}),
        "font": {"family": FONT, "size": 12, "color": INK},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "hoverlabel": {"align": "left", "font": {"family": FONT}},
        # Below the plot, where a long legend wraps onto more lines without covering the
        # title (as it did above the plot on a narrow screen).
        "legend": {"orientation": "h", "yanchor": "top", "y": -0.22, "xanchor": "left", "x": 0.0},
    }
    for name, axis in {"xaxis": {}, "yaxis": {}, **(axes or {})}.items():
        layout[name] = AXIS | dict(axis)
    return {"data": list(traces), "layout": layout | extra}


def _plural(n: int, what: str, many: str | None = None) -> str:
    return f"{n:,} {what if n == 1 else many or what + 's'}"


def unjudged(rejected: int, partial: int) -> list[str]:
    """What a "nothing found" could not look at, one sentence each: the deals rejected for
    a log error (never judged) and those recorded with hands left out (judged only where
    their plays prove it; docs/log-format.md, "Hands left out")."""
    lines = []
    if rejected:
        lines.append(f"{_plural(rejected, 'rejected deal')} (log errors) could not be judged.")
    if partial:
        were = "was" if partial == 1 else "were"
        lines.append(
            f"{_plural(partial, 'deal')} with hands left out {were} judged only where the plays prove it."
        )
    return lines


def nothing_found(what: str, judged: int, rejected: int, partial: int) -> list[str]:
    """ "No violations in 24 deals judged.", then what could not be judged: the honest
    "nothing found" of every page (docs/reports.md, "Nothing found")."""
    return [f"No {what} in {_plural(judged, 'deal')} judged.", *unjudged(rejected, partial)]


def _empty(title: str, message: str) -> Figure:
    """A figure with nothing to draw says so instead of showing empty axes."""
    note = {"text": message, "showarrow": False, "x": 0.5, "y": 0.5, "xref": "paper"}
    return figure(
        [],
        title,
        150,
        axes={"xaxis": {"visible": False}, "yaxis": {"visible": False}},
        annotations=[note | {"yref": "paper", "font": {"size": 14}}],
    )


def _rate(looed: int, played: int) -> float | None:
    return looed / played if played else None


def _rate_text(looed: int, played: int) -> str:
    return f"{looed}/{played}" if played else "–"


def _rate_hover(who: str, looed: int, played: int) -> str:
    if not played:
        return f"{who}: never played with amounts known"
    return f"{who}: looed {looed} of {played} deals played ({looed / played:.0%})"


def deal_axis(deals: Iterable[int | None]) -> dict[str, Any]:
    """A deal axis ticked at whole deals, at most about fifteen ticks."""
    last = max((d for d in deals if d is not None), default=1)
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 10**9) if s * 15 >= last)
    return {"title": {"text": "deal"}, "tick0": 0, "dtick": step, "zeroline": False}


def log_axis(values: Iterable[int | None]) -> bool:
    """Whether the pool balloons: the largest positive pool over the smallest exceeds 100."""
    positive = [v for v in values if v is not None and v > 0]
    return bool(positive) and max(positive) > LOG_RATIO * min(positive)


# -- one session --------------------------------------------------------------------


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
        trace(
            "bar",
            x=names,
            y=[_rate(r["looed"], r["played"]) for r in rows],
            text=[_rate_text(r["looed"], r["played"]) for r in rows],
            textposition="outside",
            marker={"color": [_colour(colours, r["player"]) for r in rows]},
            name="all deals played",
            hovertext=[
                _rate_hover(n, r["looed"], r["played"]) for n, r in zip(names, rows, strict=True)
            ],
            hoverinfo="text",
            showlegend=False,
        )
    ]
    for kind, colour, pattern, title_kind in (
        ("own", "#5b7f95", "", "own hand"),
        ("miss", "#d08c3c", "/", "the Miss"),
    ):
        traces.append(
            trace(
                "bar",
                x=names,
                y=[_rate(r[f"{kind}_looed"], r[f"{kind}_played"]) for r in rows],
                text=[_rate_text(r[f"{kind}_looed"], r[f"{kind}_played"]) for r in rows],
                textposition="outside",
                marker={"color": colour, "pattern": {"shape": pattern}},
                name=title_kind,
                hovertext=[
                    _rate_hover(f"{n} with {title_kind}", r[f"{kind}_looed"], r[f"{kind}_played"])
                    for n, r in zip(names, rows, strict=True)
                ],
                hoverinfo="text",
                xaxis="x2",
                yaxis="y2",
            )
        )
    positions = by_position.to_dicts()
    seats = [_position_name(r["position"], r["dealer"]) for r in positions]
    traces.append(
        trace(
            "bar",
            x=seats,
            y=[_rate(r["looed"], r["played"]) for r in positions],
            text=[_rate_text(r["looed"], r["played"]) for r in positions],
            textposition="outside",
            marker={"color": "#7d8f69"},
            name="by seat",
            hovertext=[
                _rate_hover(f"seat {seat}", r["looed"], r["played"])
                for seat, r in zip(seats, positions, strict=True)
            ],
            hoverinfo="text",
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
    return figure(
        traces,
        title,
        400,
        hovermode="x unified",
        axes={
            "xaxis": deal_axis(x for trace in traces for x in trace["x"]),
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
    return trace(
        "scatter",
        x=x,
        y=y,
        name=name,
        mode="lines",
        line={"color": colour, "width": 2, "shape": "hv"},
        hovertext=[f"{name}: {_chip_text(what, v)}" for v in y],
        hoverinfo="text",
    )


def _chip_text(what: str, value: int | None) -> str:
    if value is None:
        return f"{what} ?"
    if what == "stack":
        return f"{what} {wording.stack(value)}"  # below zero, "stack owes 811,188"
    return f"{what} {'−' if value < 0 else ''}{wording.chips(abs(value))}"


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


THROWN, AVOIDABLE, LOOS = "#c0392b", "#e0a100", "#9e9e9e"  # the analysis figure's bars


def analysis_figure(
    rows: Sequence[Mapping[str, Any]], names: Mapping[str, str], title: str
) -> Figure:
    """Per player, from the double-dummy analysis: tricks thrown away, and avoidable loos
    beside all loos in the analysed deals (``queries.analysis_by_player`` rows)."""
    rows = [r for r in rows if r["analysed"]]
    if not rows:
        return _empty(title, "No analysed deal (loaded with --no-analysis, or none played out).")
    who = [_shown(names, r["player"]) for r in rows]

    def bars(key: str, what: str, colour: str) -> Trace:
        return trace(
            "bar",
            x=who,
            y=[r[key] for r in rows],
            name=what,
            marker={"color": colour},
            hovertext=[
                f"{n}: {r[key]} {what} in {r['analysed']} analysed deal(s) played"
                for n, r in zip(who, rows, strict=True)
            ],
            hoverinfo="text",
        )

    most = max(max(r["thrown"], r["loos"]) for r in rows)
    return figure(
        [
            bars("thrown", "tricks thrown away", THROWN),
            bars("avoidable", "avoidable loos", AVOIDABLE),
            bars("loos", "loos", LOOS),
        ],
        title,
        340,
        barmode="group",
        axes={"xaxis": {"type": "category"}} | ({"yaxis": {"dtick": 1}} if most <= 10 else {}),
    )


def session_analysis_figure(source: queries.Source, session_id: str) -> Figure:
    batch = queries.batch_of(source, session_id)
    rows = batch.frame(queries.analysis_by_player, session_id).to_dicts()
    title = "Tricks thrown away and avoidable loos"
    return analysis_figure(rows, session_names(batch, session_id), title)


def all_analysis_figure(con: duckdb.DuckDBPyConnection, names: Names | None = None) -> Figure:
    """The analysis figure over every session, a bar group per player."""
    frame = (
        queries.analysis_by_player(con, queries.session_ids(con))
        .group_by("player", maintain_order=True)
        .agg(pl.col("analysed", "thrown", "avoidable", "loos").sum())
        .sort("player")
    )
    rows = frame.to_dicts()
    shown = wording.display_names([r["player"] for r in rows], names)
    labels = {p: label(t) for p, t in shown.items()}
    return analysis_figure(rows, labels, "Tricks thrown away and avoidable loos, all sessions")


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


# -- across sessions ------------------------------------------------------------------


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
        title += f" (the latest {len(order):,} of {len(everyone):,} sessions)"
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


def _unique_labels(ids: Sequence[str]) -> list[str]:
    """Session ids as axis categories: cut ones that would merge are numbered apart."""
    seen: Counter[str] = Counter()
    out = []
    for sid in ids:
        cut = safe(sid, 40)
        seen[cut] += 1
        out.append(cut if seen[cut] == 1 else f"{cut} ({seen[cut]})")
    return out


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


# What each decisions figure draws, per player and session (``queries.decisions_by_session``):
# the column, the title, the axis and how a value reads in the hover.
DECISION_MEASURES = {
    "accuracy": ("Accuracy per player, session by session", "accuracy (%)", "{:.0f}%"),
    "loss_per_deal": ("Chips lost per deal, session by session", "chips per deal", "{:.2f}"),
}


def decisions_figure(
    frame: pl.DataFrame, measure: str, colours: Colours, names: Names | None = None
) -> Figure:
    """A line per player over the sessions they had decisions judged in (earliest first):
    their accuracy, or the chips their decisions lost per judged deal they sat in
    (docs/judging-decisions.md, "In the database and the reports")."""
    title, axis, shown_as = DECISION_MEASURES[measure]
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
                    f"{label(r['session_id'])}<br>{shown[player]}: "
                    f"{shown_as.format(r[measure])} ({_plural(r['decisions'], 'decision')}, "
                    f"{_plural(r['deals_judged'], 'deal')} judged)"
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
