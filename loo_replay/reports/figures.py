"""What the report's figures share; each page's own figures live beside it
(``session_figures``, ``across_figures``, ``fairness_page``, ``decisions_page``).

Each figure function asks ``queries`` for its frame and returns a figure: the
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
from loo_replay.output import numbers, wording
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
    return f"{numbers.count(n)} {what if n == 1 else many or what + 's'}"


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
    return f"{numbers.count(looed)}/{numbers.count(played)}" if played else "–"


def _rate_hover(who: str, looed: int, played: int) -> str:
    if not played:
        return f"{who}: never played with amounts known"
    return (
        f"{who}: looed {numbers.count(looed)} of {numbers.count(played)} deals played "
        f"({numbers.percent(looed / played)})"
    )


def deal_axis(deals: Iterable[int | None]) -> dict[str, Any]:
    """A deal axis ticked at whole deals, at most about fifteen ticks."""
    last = max((d for d in deals if d is not None), default=1)
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 10**9) if s * 15 >= last)
    return {"title": {"text": "deal"}, "tick0": 0, "dtick": step, "zeroline": False}


def log_axis(values: Iterable[int | None]) -> bool:
    """Whether the pool balloons: the largest positive pool over the smallest exceeds 100."""
    positive = [v for v in values if v is not None and v > 0]
    return bool(positive) and max(positive) > LOG_RATIO * min(positive)


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


def _unique_labels(ids: Sequence[str]) -> list[str]:
    """Session ids as axis categories: cut ones that would merge are numbered apart."""
    seen: Counter[str] = Counter()
    out = []
    for sid in ids:
        cut = safe(sid, 40)
        seen[cut] += 1
        out.append(cut if seen[cut] == 1 else f"{cut} ({seen[cut]})")
    return out
