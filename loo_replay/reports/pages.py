"""The report pages as HTML text: a session's report, the index, the all-sessions report.

Pages are strings; ``build`` decides where they go.  Every text from a log
is escaped here (``text``), figures travel as JSON in ``<script
type="application/json">`` with ``< > &`` escaped so no text can end the
element, and the shared ``report.js`` draws them with the ``plotly.min.js``
written beside the pages: nothing is fetched from the network.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from loo_replay.db.content import Coverage, computed_when
from loo_replay.engine.model import UNCHECKED_CHECKS
from loo_replay.html import Markup, card, escape, script_json
from loo_replay.output import numbers, wording
from loo_replay.output.text import safe
from loo_replay.reports import registry
from loo_replay.reports.figures import Figure, label, nothing_found
from loo_replay.reports.rows import (
    ListedDiscrepancy,
    ListedFinding,
    ListedReject,
    PlayerTotals,
    PoolStep,
    RejectedDeal,
    SessionDiscrepancy,
    SessionFinding,
    SessionSummary,
    Standing,
    ThrownTrick,
)

PLOTLY_JS = "plotly.min.js"
REPORT_JS = "report.js"
REPORT_CSS = "report.css"
INDEX = "index.html"
ALL_SESSIONS = registry.ALL_SESSIONS.file

POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; base-uri 'none'; form-action 'none'"
)


def text(value: object, limit: int = 200) -> Markup:
    """Untrusted text for HTML: control characters and bidi overrides escaped, cut, escaped."""
    return Markup(label(value, limit))


def _num(value: object) -> str:
    return "–" if value is None else numbers.count(value) if isinstance(value, int) else text(value)


def figure_html(key: str, fig: Figure) -> str:
    """A figure's place on the page and its data; ``data-traces`` says how many traces it
    has, so a test can check that the browser drew them all."""
    element = f"fig-{key}"
    return (
        f'<div class="figure" id="{element}" data-figure="{escape(key)}" '
        f'data-traces="{len(fig["data"])}"></div>'
        f'<script type="application/json" id="{element}-data">'
        f"{script_json(fig)}</script>"
    )


def when(started_at: str | None) -> str:
    """``2026-11-20T19:30:00Z`` as ``2026-11-20 19:30 UTC``; other text as given."""
    if not started_at:
        return "date unknown"
    try:
        moment = datetime.datetime.fromisoformat(started_at)
    except ValueError:
        return safe(started_at, 60)
    day = moment.strftime("%Y-%m-%d")
    if (moment.hour, moment.minute, moment.second) == (0, 0, 0) and "T" not in started_at:
        return day
    zone = moment.tzname()
    return f"{day} {moment.strftime('%H:%M')}" + (f" {zone}" if zone else "")


def dot(colour: str) -> Markup:
    return Markup(f'<span class="dot" style="background:{escape(colour)}"></span>')


def page(title: str, masthead: str, body: str, footer: str) -> str:
    """A whole page around ``body``; the style sheet and scripts are files beside it."""
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{title}</title>",
            f'<link rel="stylesheet" href="{REPORT_CSS}">',
            f'<script src="{PLOTLY_JS}" defer></script>',
            f'<script src="{REPORT_JS}" defer></script>',
            "</head>",
            "<body>",
            f'<header class="masthead">{masthead}</header>',
            '<noscript><p class="notice">The figures need JavaScript; the tables below '
            "do not.</p></noscript>",
            f"<main>{body}</main>",
            f"<footer>{footer}</footer>",
            "</body>",
            "</html>",
            "",
        ]
    )


def nav(*links: tuple[str, str]) -> str:
    return "<nav>" + "".join(f'<a href="{escape(h)}">{t}</a>' for h, t in links) + "</nav>"


def _facts(items: Iterable[tuple[str, Markup]], coverage: Coverage | None = None) -> str:
    return (
        '<dl class="facts">'
        + "".join(f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in items)
        + (covers_facts(coverage) if coverage is not None else "")
        + "</dl>"
    )


def covers_facts(c: Coverage) -> str:
    """A derived page's facts (inside its ``dl.facts``): the sessions and deals it covers at
    which content version, and when it was computed."""
    if c.covers is None:
        covered = "unknown (computed before loo-replay recorded it)"
    else:
        covered = (
            f"{numbers.count(c.covers.sessions)} session(s), {numbers.count(c.covers.deals)} deal(s), "
            f"content version {numbers.count(c.covers.version)}"
        )
    return (
        f"<div><dt>Covers</dt><dd>{covered}</dd></div>"
        f"<div><dt>Computed</dt><dd>{computed_when(c.computed_at)}</dd></div>"
    )


def stale_notice(c: Coverage) -> str:
    """Nothing for a result that covers the database as it is; else how much it covers, and
    what brings it up to date."""
    if c.current:
        return ""
    run = "run <code>loo-replay report</code>."
    if c.covers is None:
        return (
            f'<p class="notice stale">This page does not cover the {numbers.count(c.now.deals)} deals of '
            f"the database (content version {numbers.count(c.now.version)}), or not knowingly: it was "
            f"never computed, or before loo-replay recorded what a result covers: {run}</p>"
        )
    return (
        f'<p class="notice stale">This page covers {numbers.count(c.covers.deals)} of {numbers.count(c.now.deals)} '
        f"deals: {run} It was computed at content version {numbers.count(c.covers.version)}; the "
        f"database has been loaded into since (content version {numbers.count(c.now.version)}).</p>"
    )


def _tile(number: object, what: str, tone: str = "") -> str:
    return f'<div class="tile {tone}"><div class="n">{_num(number)}</div><div class="what">{what}</div></div>'


def table(head: Sequence[tuple[str, bool]], rows: Iterable[str]) -> str:
    """A table: ``head`` is (title, numeric); ``rows`` are ready ``<tr>`` elements.  Where
    it is wider than its panel (a phone), ``report.js`` stacks it, each cell labelled with
    its column (docs/reports.md, "Screens and paper")."""
    cells = "".join(f'<th class="num">{t}</th>' if n else f"<th>{t}</th>" for t, n in head)
    return (
        f'<div class="wide"><table class="stackable"><thead><tr>{cells}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


_NONE = Markup('<span class="muted">–</span>')


def _text_or_dash(value: object) -> str:
    return "–" if value is None else text(value)


def _td(value: object, numeric: bool = False, nowrap: bool = False) -> str:
    """A cell: markup as it is; other values as numbers (``numeric``) or text, escaped."""
    shown = value if isinstance(value, Markup) else _num(value) if numeric else _text_or_dash(value)
    classes = " ".join(c for c, on in (("num", numeric), ("nowrap", nowrap)) if on)
    return f'<td class="{classes}">{shown}</td>' if classes else f"<td>{shown}</td>"


def _code(code: str, family: str | None = None) -> Markup:
    revoke = " revoke" if family == "revoke" else ""
    return Markup(f'<span class="code{revoke}">{text(code, 60)}</span>')


def panel(title: str, content: str, lead: str = "", extra: str = "") -> str:
    lead_html = f'<p class="lead">{lead}</p>' if lead else ""
    return f'<section class="panel {extra}"><h2>{title}</h2>{lead_html}{content}</section>'


def figure_panel(key: str, fig: Figure) -> str:
    return f'<section class="panel">{figure_html(key, fig)}</section>'


# -- a session -----------------------------------------------------------------------------


@dataclass
class SessionPage:
    """What a session's report shows; rows are those of ``queries`` (``rows``)."""

    session: SessionSummary
    players: Sequence[PlayerTotals]
    deals: Sequence[PoolStep]
    rejected: Sequence[RejectedDeal]
    findings: Sequence[SessionFinding]
    discrepancies: Sequence[SessionDiscrepancy]
    figures: Mapping[str, Figure]
    colours: Mapping[str, str]
    replays: Mapping[int, str] = field(default_factory=dict)  # deal_index -> relative link
    thrown: Sequence[ThrownTrick] = ()  # lost-trick and avoidable-loo notes
    notes: Sequence[str] = ()
    footer: str = ""
    seals: str | None = None  # whether the session's seals hold, where that was checked


def session_page(sp: SessionPage) -> str:
    s = sp.session
    title = f"Loo · {text(s['session_id'], 80)}"
    names = {p["player"]: p["name"] for p in sp.players}
    shown = wording.display_names(names, names)
    masthead = (
        nav((INDEX, "← all sessions"), (ALL_SESSIONS, "across sessions"))
        + '<div class="kicker">Loo session report</div>'
        + f"<h1>{text(s['session_id'], 128)}</h1>"
        + _facts(
            [
                (
                    "Venue",
                    text(s["venue"])
                    if s["venue"]
                    else Markup('<span class="muted">not given</span>'),
                ),
                ("Ruleset", text(s["ruleset"] or "?", 80)),
                ("Date", text(when(s["started_at"]))),
                ("Players", escape(len(sp.players))),
                ("Log", Markup(text(s["file"], 120) + (f":{s['line']}" if s["line"] else ""))),
                *([("Seals", text(sp.seals, 200))] if sp.seals is not None else []),
            ]
        )
    )
    f = sp.figures
    body = [_notes(sp.notes, s), _session_tiles(s)]
    body.append(figure_panel("pool", f["pool"]))
    body.append(figure_panel("loo", f["loo"]))
    body.append(figure_panel("chips", f["chips"]))
    body.append(figure_panel("violations", f["violations"]))
    body.append(figure_panel("analysis", f["analysis"]))
    body.append(_players_table(sp, names))
    body.append(_deals_table(sp, shown))
    body.append(_findings_table(sp, names))
    body.append(_discrepancies_table(sp, names))
    body.append(_thrown_table(sp, names))
    return page(title, masthead, "".join(body), sp.footer)


def _notes(notes: Sequence[str], s: SessionSummary) -> str:
    shown: list[str] = [text(n, 400) for n in notes]
    if s["partial"]:
        shown.insert(0, _partial_notice(s))
    if s["errors"]:
        shown.insert(
            0,
            f"The session document has {s['errors']} log error(s): "
            f"{text(s['first_error'] or '', 300)}",
        )
    return "".join(f'<div class="notice">{n}</div>' for n in shown)


def _partial_notice(s: SessionSummary) -> str:
    """What a record with hands left out could not show (docs/log-format.md, "Hands left out")."""
    unchecked = [c for c in UNCHECKED_CHECKS if c in s["unchecked"]]
    return (
        f"{numbers.count(s['partial'])} of {numbers.count(s['deals'])} deals were recorded with hands left out, as at "
        "a real table: each card is judged against the hand its player's later cards prove, "
        "and a revoke is found where the record proves it. Not checked for want of the "
        f"cards: {text(', '.join(unchecked), 300)}. The double-dummy analysis skips these deals."
    )


def _session_tiles(s: SessionSummary) -> str:
    return (
        '<section class="tiles">'
        + "".join(
            [
                _tile(s["deals"], "deals in the log"),
                _tile(s["audited"], "audited", "good"),
                _tile(s["misdeals"], "misdeals", "warn" if s["misdeals"] else ""),
                _tile(s["rejected"], "rejected (log errors)", "bad" if s["rejected"] else ""),
                _tile(s["violations"], "violations", "bad" if s["violations"] else "good"),
                _tile(
                    s["discrepancies"], "discrepancies", "warn" if s["discrepancies"] else "good"
                ),
                _tile(s["loos"], "loos paid"),
                _tile(s["flushes"], "flushes"),
                _tile(s["pool_max"], "largest pool"),
            ]
            + ([_tile(s["partial"], "with hands left out", "warn")] if s["partial"] else [])
        )
        + "</section>"
    )


def _player_cell(player: str, colours: Mapping[str, str], name: str | None = None) -> str:
    """The player by the name the log gives (the id beside it, quieter), else by id."""
    colour = colours.get(player, "#9e9e9e")
    shown = f"{dot(colour)}<strong>{text(name or player, 80)}</strong>"
    if name:
        shown += f' <span class="muted">{text(player, 64)}</span>'
    return f'<td class="player">{shown}</td>'


def _players_table(sp: SessionPage, names: Mapping[str, str | None]) -> str:
    stacks = any(p["chips"] is not None for p in sp.players)
    head = [
        ("Seat", True),
        ("Player", False),
        ("Deals", True),
        ("Played", True),
        ("Passed", True),
        ("Took the Miss", True),
        ("Looed", True),
        ("Loo rate", True),
        ("Loo chips", True),
        ("Tricks", True),
        ("Net chips", True),
    ]
    if stacks:
        head += [("Start", True), ("End", True)]
    head.append(("Violations", True))
    rows = []
    for p in sp.players:
        cells = [
            _td(p["seat"] + 1, True),
            _player_cell(p["player"], sp.colours, names.get(p["player"])),
            _td(p["deals"], True),
            _td(p["played"], True),
            _td(p["passed"], True),
            _td(p["took_miss"], True),
            _td(p["looed"], True),
            _td(numbers.rate(p["looed"], p["played_known"]), True),
            _td(p["loo_chips"], True),
            _td(p["tricks"], True),
            _td(_signed(p["net"]), True),
        ]
        if stacks:
            cells += [
                _td(_stack(p["chips"]), True),
                _td(_stack(p["last_stack"]), True),
            ]
        violations = p["violations"]
        cells.append(
            _td(Markup(f'<span class="pill bad">{violations}</span>') if violations else 0, True)
        )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return panel("Players", table(head, rows))


def _stack(value: int | None) -> Markup:
    """A stack; below zero, the debt it is ("owes 811,188", in red)."""
    if value is None:
        return Markup("–")
    shown = text(wording.stack(value))
    return Markup(f'<span class="red">{shown}</span>') if value < 0 else shown


def _signed(value: int | None) -> Markup:
    if value is None:
        return Markup("–")
    shown = numbers.signed(value)
    return Markup(f'<span class="red">{shown}</span>' if value < 0 else shown)


def _deals_table(sp: SessionPage, shown: Mapping[str, str]) -> str:
    """Every deal in order, each linked to its replay page where it has one."""
    codes: dict[int, list[str]] = {}
    for f in sp.findings:
        codes.setdefault(f["deal_index"], []).append(f["code"])
    off: dict[int, int] = {}
    for x in sp.discrepancies:
        off[x["deal_index"]] = off.get(x["deal_index"], 0) + 1
    entries: list[tuple[int, str]] = []
    for d in sp.deals:
        index = d["deal_index"]
        tone = "violation" if d["violations"] else "discrepancy" if d["discrepancies"] else ""
        pool = (
            "unknown"
            if d["pool_start"] is None
            else f"{numbers.count(d['pool_start'])} {text(d['pool'] or '')}"
        )
        outcome = text(str(d["outcome"] or d["status"]).replace("_", " "))
        if d["knowledge"] == "partial":
            outcome = Markup(f'{outcome} <span class="pill warn">hands left out</span>')
        looed = ", ".join(
            f"{text(shown.get(p, p), 80)} {a}"
            for p, a in zip(d["looed"] or [], d["loo_amounts"] or [], strict=False)
        )
        found = " ".join(_code(c) for c in codes.get(index, []))
        if off.get(index):
            found += f' <span class="pill warn">{off[index]} discrepanc{"y" if off[index] == 1 else "ies"}</span>'
        link = sp.replays.get(index)
        replay = f'<a href="{escape(link)}">replay ▸</a>' if link else _NONE
        entries.append(  # one f-string a row: the table is most of a big report's time
            (
                index,
                f'<tr class="{tone}" data-deal="{d["deal"]}"><td class="num">{_num(d["deal"])}'
                f"</td><td>{_text_or_dash(shown.get(d['dealer'], d['dealer']))}</td>"
                f'<td class="nowrap">{pool}</td><td>{outcome}</td>'
                f'<td class="num">{_num(d["pool_next"])}</td><td>{looed or _NONE}</td>'
                f'<td>{found or _NONE}</td><td class="nowrap">{replay}</td></tr>',
            )
        )
    for r in sp.rejected:
        cells = [
            _td(r["deal"], True),
            _td(r["dealer"]),
            _td(_NONE),
            _td(Markup("<strong>rejected</strong>")),
            _td(None, True),
            _td(Markup("")),
            _td(
                Markup(
                    f'<span class="msg">{text(r["path"], 120)}: {text(r["message"], 300)}</span>'
                )
            ),
            _td(_NONE),
        ]
        entries.append((r["deal_index"], '<tr class="rejected">' + "".join(cells) + "</tr>"))
    entries.sort(key=lambda e: e[0])
    head = [
        ("Deal", True),
        ("Dealer", False),
        ("Pool", False),
        ("Outcome", False),
        ("Carried", True),
        ("Looed", False),
        ("Findings", False),
        ("Replay", False),
    ]
    lead = "Each audited deal links to a page that steps through it trick by trick."
    return panel("Deals", table(head, (e[1] for e in entries)), lead)


def _deal_link(sp: SessionPage, index: int, deal: object) -> Markup:
    link = sp.replays.get(index)
    shown = _num(deal)
    return Markup(f'<a href="{escape(link)}">{shown}</a>' if link else shown)


def _penalty_and_message(f: SessionFinding | ListedFinding) -> str:
    """A violation's penalty and the engine's message, as cells."""
    penalty = f["penalty"] if f["penalized"] else Markup('<span class="muted">not penalised</span>')
    return _td(penalty, True, nowrap=True) + _td(
        Markup(f'<span class="msg">{text(f["message"], 600)}</span>')
    )


def _findings_table(sp: SessionPage, names: Mapping[str, str | None]) -> str:
    if not sp.findings:
        return _nothing_found("Violations", "violations", [sp.session])
    rows = []
    for f in sp.findings:
        rows.append(
            '<tr class="violation">'
            + _td(_deal_link(sp, f["deal_index"], f["deal"]), True)
            + _player_cell(f["player"], sp.colours, names.get(f["player"]))
            + _td(_code(f["code"]))
            + _td(f["trick"], True)
            + _td(card(f["card"]))
            + _penalty_and_message(f)
            + "</tr>"
        )
    head = [
        ("Deal", True),
        ("Player", False),
        ("Rule", False),
        ("Trick", True),
        ("Card", False),
        ("Penalty", True),
        ("What the engine found", False),
    ]
    return panel("Violations", table(head, rows))


def _thrown_table(sp: SessionPage, names: Mapping[str, str | None]) -> str:
    """The analysis's notes of cards that threw a trick away, each deal linked to its replay;
    none, it says in how many deals analysed and how many were not."""
    if not sp.thrown:
        s = sp.session
        left = s["deals"] - s["rejected"] - s["solved"]
        said = f"No card threw a trick away in {numbers.count(s['solved'])} deal(s) analysed" + (
            f"; {numbers.count(left)} deal(s) could not be analysed (hands left out, no play, a "
            "violation first, past the budget, or loaded with --no-analysis)."
            if left
            else "."
        )
        return panel("Tricks thrown away", f'<p class="muted nothing">{said}</p>')
    rows = []
    for n in sp.thrown:
        better = Markup(" ".join(card(c) for c in n["better"] or [])) or _NONE
        rows.append(
            f'<tr data-code="{escape(n["code"])}">'
            + _td(_deal_link(sp, n["deal_index"], n["deal"]), True)
            + _player_cell(n["player"], sp.colours, names.get(n["player"]))
            + _td(text(n["code"]))
            + _td(n["trick"], True)
            + _td(card(n["card"]))
            + _td(better)
            + _td(Markup(f'<span class="msg">{text(n["message"], 600)}</span>'))
            + "</tr>"
        )
    head = [
        ("Deal", True),
        ("Player", False),
        ("Note", False),
        ("Trick", True),
        ("Card", False),
        ("Better", False),
        ("What the analysis found", False),
    ]
    lead = (
        "Double-dummy analysis, every hand known: the card cost its player a trick they "
        "could have made sure of. Advice, not a violation."
    )
    return panel("Tricks thrown away", table(head, rows), lead)


def _nothing_found(title: str, what: str, sessions: Sequence[SessionSummary], *more: str) -> str:
    """A panel that found nothing says in how many deals, and what it could not judge."""
    deals, rejected, partial = (
        sum(s[k] for s in sessions) for k in ("deals", "rejected", "partial")
    )  # fmt: skip
    said = nothing_found(what, deals - rejected, rejected, partial)
    return panel(title, f'<p class="muted nothing">{text(" ".join([*said, *more]), 600)}</p>')


def _discrepancies_table(sp: SessionPage, names: Mapping[str, str | None]) -> str:
    if not sp.discrepancies:
        unknown = sum(1 for d in sp.deals if d["pool_start"] is None)
        pools = (
            [
                f"{numbers.count(unknown)} deal(s) with the pool unknown (continuity lost) could not be settled."
            ]
            if unknown
            else []
        )
        return _nothing_found("Discrepancies", "discrepancies", [sp.session], *pools)
    rows = []
    for x in sp.discrepancies:
        rows.append(
            '<tr class="discrepancy">'
            + _td(_deal_link(sp, x["deal_index"], x["deal"]), True)
            + _discrepancy_cells(x, names)
            + _td(_signed(x["difference"]), True)
            + "</tr>"
        )
    head = [("Deal", True), *DISCREPANCY_HEAD, ("Recorded − expected", True)]
    lead = "Where the log's recorded amounts differ from what the rules give."
    return panel("Discrepancies", table(head, rows), lead)


DISCREPANCY_HEAD = [("What the record gets wrong", False)]


def _discrepancy_cells(
    x: SessionDiscrepancy | ListedDiscrepancy, names: Mapping[str, str | None]
) -> str:
    """The discrepancy in words (``wording.discrepancy``); the field as `data-field`."""
    words = wording.discrepancy(x["field"], x["recorded"], x["expected"], names)
    return (
        f'<td data-field="{text(x["field"], 120)}"><span class="msg">{text(words, 400)}</span></td>'
    )


# -- the index and the all-sessions report ----------------------------------------------------


def _sessions_table(sessions: Sequence[SessionSummary], links: Mapping[str, str]) -> str:
    rows = []
    for s in sessions:
        link = links.get(s["session_id"])
        name = text(s["session_id"], 128)
        tone = "violation" if s["violations"] else "discrepancy" if s["discrepancies"] else ""
        rows.append(
            f'<tr class="{tone}">'
            + _td(Markup(f'<a href="{escape(link)}">{name}</a>') if link else name)
            + _td(when(s["started_at"]), nowrap=True)
            + _td(s["venue"] or "–")
            + _td(s["ruleset"] or "?", nowrap=True)
            + _td(s["players"], True)
            + _td(_deals_cell(s), True)
            + _td(_count(s["violations"], "bad"), True)
            + _td(_count(s["discrepancies"], "warn"), True)
            + _td(_count(s["rejected"], "bad"), True)
            + _td(s["pool_max"], True)
            + "</tr>"
        )
    head = [
        ("Session", False),
        ("Date", False),
        ("Venue", False),
        ("Ruleset", False),
        ("Players", True),
        ("Deals", True),
        ("Violations", True),
        ("Discrepancies", True),
        ("Rejected", True),
        ("Largest pool", True),
    ]
    return table(head, rows)


def _deals_cell(s: SessionSummary) -> Markup:
    """The deals, and how many of them were recorded with hands left out."""
    if not s["partial"]:
        return Markup(_num(s["deals"]))
    return Markup(
        f'{numbers.count(s["deals"])} <span class="muted">({numbers.count(s["partial"])} hands left out)</span>'
    )


def _count(n: int, tone: str) -> Markup:
    return Markup(f'<span class="pill {tone}">{numbers.count(n)}</span>' if n else "0")


def _totals(sessions: Sequence[SessionSummary]) -> str:
    def total(
        key: Literal["deals", "violations", "discrepancies", "rejected", "loos", "partial"],
    ) -> int:
        return sum(int(s[key] or 0) for s in sessions)

    partial = total("partial")

    violations, discrepancies, rejected = (
        total("violations"),
        total("discrepancies"),
        total("rejected"),
    )
    return (
        '<section class="tiles">'
        + "".join(
            [
                _tile(len(sessions), "sessions"),
                _tile(total("deals"), "deals"),
                _tile(violations, "violations", "bad" if violations else "good"),
                _tile(discrepancies, "discrepancies", "warn" if discrepancies else "good"),
                _tile(rejected, "rejected deals", "bad" if rejected else ""),
                _tile(total("loos"), "loos paid"),
            ]
            + ([_tile(partial, "deals with hands left out", "warn")] if partial else [])
        )
        + "</section>"
    )


def _rejects(rejects: Sequence[ListedReject], total: int) -> str:
    """What was not loaded, and why: every kind of row of ``rejects``."""
    if not total:
        return ""
    rows = [
        '<tr class="rejected">'
        + _td(r["kind"], nowrap=True)
        + _td(r["file"] if r["line"] is None else f"{r['file']} line {r['line']}")
        + _td(r["session_id"] or "–")
        + _td(r["deal"] if r["deal"] is not None else "–", True)
        + _td(f"{r['path']}: {r['message']}" if r["path"] else r["message"])
        + "</tr>"
        for r in rejects
    ]
    head = [("Kind", False), ("Where", False), ("Session", False), ("Deal", True), ("Why", False)]
    shown = (
        f"the first {numbers.count(len(rejects))} of {numbers.count(total)}"
        if len(rejects) < total
        else f"all {numbers.count(total)}"
    )
    return panel(
        "Rejects",
        table(head, rows),
        f"What was read but not loaded, {shown}: deals with a log error, documents that are "
        "not sessions, sessions the database could not store, entries of folders skipped "
        "(the <code>rejects</code> table).",
    )


def index_page(
    sessions: Sequence[SessionSummary],
    links: Mapping[str, str],
    source: str,
    footer: str,
    notice: Markup | None = None,
    rejects: tuple[Sequence[ListedReject], int] = ((), 0),
    coverage: Coverage | None = None,
) -> str:
    """``notice``: ready HTML shown above the totals (the fairness and collusion flags);
    ``rejects``: the first rows of ``rejects`` and how many there are; ``coverage``: what
    the folder was written from."""
    masthead = (
        nav(*registry.report_links())
        + '<div class="kicker">Loo audit reports</div>'
        + f"<h1>{len(sessions)} session{'s' if len(sessions) != 1 else ''}</h1>"
        + _facts([("Database", text(source, 120))], coverage)
    )
    if not sessions:
        body = panel(
            "No sessions yet",
            "<p>Load hand logs with <code>loo-replay audit PATH</code> or "
            "<code>loo-replay ingest PATH</code>, then run <code>loo-replay report</code>.</p>",
        )
    else:
        body = (
            (notice or "")
            + _totals(sessions)
            + panel(
                "Sessions",
                _sessions_table(sessions, links),
                f'One report per session, earliest first; <a href="{ALL_SESSIONS}">the '
                "all-sessions report</a> compares them.",
            )
        )
    body += _rejects(*rejects)
    return page("Loo audit reports", masthead, body, footer)


@dataclass
class Across:
    """What the all-sessions report lists besides its figures: the standings and the first
    findings of every session (rows from ``queries``), with where each deal's replay is."""

    standings: Sequence[Standing]
    names: Mapping[str, str]  # player id -> latest name the logs give
    colours: Mapping[str, str]
    findings: Sequence[ListedFinding]
    findings_total: int
    discrepancies: Sequence[ListedDiscrepancy]
    discrepancies_total: int
    replays: Mapping[tuple[str, int], str]  # (session id, deal index) -> link


def all_sessions_page(
    sessions: Sequence[SessionSummary],
    figures: Mapping[str, Figure],
    links: Mapping[str, str],
    source: str,
    footer: str,
    across: Across,
    coverage: Coverage | None = None,
) -> str:
    """``coverage``: what the page was computed from, and when."""
    masthead = (
        nav((INDEX, "← all sessions"), *registry.before(registry.ALL_SESSIONS))
        + '<div class="kicker">Loo audit reports</div>'
        + f"<h1>{registry.ALL_SESSIONS.heading}</h1>"
        + _facts([("Database", text(source, 120)), ("Sessions", escape(len(sessions)))], coverage)
    )
    f = figures
    body = (
        _totals(sessions)
        + '<div class="grid2">'
        + figure_panel("loo-rates", f["loo-rates"])
        + figure_panel("violations-by-ruleset", f["violations-by-ruleset"])
        + "</div>"
        + figure_panel("loo-by-session", f["loo-by-session"])
        + _standings(across)
        + figure_panel("pool-sizes", f["pool-sizes"])
        + figure_panel("analysis", f["analysis"])
        + panel("Sessions", _sessions_table(sessions, links))
        + _every_finding(across, links, sessions)
        + _every_discrepancy(across, links, sessions)
    )
    return page("Loo · across sessions", masthead, body, footer)


def _standings(across: Across) -> str:
    """Per player over every session, the most chips won first."""
    shown = wording.display_names([r["player"] for r in across.standings], across.names)
    rows = []
    for r in across.standings:
        name = shown[r["player"]]
        rows.append(
            "<tr>"
            + _player_cell(r["player"], across.colours, name if name != r["player"] else None)
            + _td(r["sessions"], True)
            + _td(r["deals"], True)
            + _td(_signed(r["net"]), True)
            + _td(r["loos"], True)
            + _td(r["loo_chips"], True)
            + _td(_count(r["violations"], "bad"), True)
            + "</tr>"
        )
    head = [
        ("Player", False),
        ("Sessions", True),
        ("Deals", True),
        ("Net chips", True),
        ("Loos", True),
        ("Loo chips", True),
        ("Violations", True),
    ]
    lead = (
        "Every player over every session: net chips are payouts less loos, penalties and "
        "antes (chips of different sessions are added as they are)."
    )
    return panel("Standings", table(head, rows), lead)


def _at(across: Across, links: Mapping[str, str], r: ListedFinding | ListedDiscrepancy) -> str:
    """The session and deal of a finding, linked to the session and to the deal's replay."""
    sid = r["session_id"]
    session = text(sid, 128)
    if (link := links.get(sid)) is not None:
        session = Markup(f'<a href="{escape(link)}">{session}</a>')
    replay = across.replays.get((sid, r["deal_index"]))
    deal = Markup(_num(r["deal"]))
    if replay is not None:
        deal = Markup(f'<a href="{escape(replay)}">{deal} ▸</a>')
    return _td(session, nowrap=True) + _td(deal, True, nowrap=True)


def _shown_total(shown: int, total: int, what: str) -> str:
    """Where a list stops short (``FINDINGS_LISTED``), says so."""
    if shown >= total:
        return ""
    return (
        f" The first {numbers.count(shown)} of {numbers.count(total)} {what}, in session order; each session's report "
        "lists all of its own."
    )


def _every_finding(
    across: Across, links: Mapping[str, str], sessions: Sequence[SessionSummary]
) -> str:
    if not across.findings:
        return _nothing_found("Every violation", "violations", sessions)
    rows = []
    for f in across.findings:
        rows.append(
            '<tr class="violation">'
            + _at(across, links, f)
            + _player_cell(f["player"], across.colours, f["name"])
            + _td(_code(f["code"], f["family"]))
            + _penalty_and_message(f)
            + "</tr>"
        )
    head = [
        ("Session", False),
        ("Deal", True),
        ("Player", False),
        ("Rule", False),
        ("Penalty", True),
        ("What the engine found", False),
    ]
    lead = "Each deal links to its replay." + _shown_total(
        len(rows), across.findings_total, "violations"
    )
    return panel("Every violation", table(head, rows), lead)


def _every_discrepancy(
    across: Across, links: Mapping[str, str], sessions: Sequence[SessionSummary]
) -> str:
    if not across.discrepancies:
        return _nothing_found("Every discrepancy", "discrepancies", sessions)
    rows = []
    for x in across.discrepancies:
        names = {x["player"]: x["name"]} if x["player"] else {}
        rows.append(
            '<tr class="discrepancy">'
            + _at(across, links, x)
            + _discrepancy_cells(x, names)
            + "</tr>"
        )
    head = [("Session", False), ("Deal", True), *DISCREPANCY_HEAD]
    lead = "Where a log's recorded amounts differ from what the rules give." + _shown_total(
        len(rows), across.discrepancies_total, "discrepancies"
    )
    return panel("Every discrepancy", table(head, rows), lead)
