"""The explorer's own pages as HTML text: the three lists with their filters and pager, and
the pages that say why there is nothing to show (not found, busy, an error).

They are the report's pages (``reports.pages.page``: its style sheet, script and
layout) with a form to filter by; every value from the database or the URL is
escaped (``pages.text``, ``html.escape``).  The lists link each other, the
reused report pages and the replays by URLs whose query holds the whole view.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

from loo_replay import __version__
from loo_replay.explorer.deals import deal_link, session_link
from loo_replay.explorer.lists import (
    PAGE_ROWS,
    PLAYER_SORTS,
    SESSION_SORTS,
    FindingFilters,
    Listed,
    PlayerFilters,
    SessionFilters,
)
from loo_replay.html import Markup, escape
from loo_replay.output import numbers, wording
from loo_replay.reports import pages, registry
from loo_replay.reports.pages import _code, _td, panel, table, text
from loo_replay.reports.rows import SessionSummary

# The reports' policy, but for a form sent to this server by GET: the filters.
POLICY = pages.POLICY.replace("form-action 'none'", "form-action 'self'")
EXPLORER_CSS = "explorer.css"
RETRY_SECONDS = 2  # a busy page asks again after this long
SESSIONS, PLAYERS, FINDINGS = "/", "/players", "/findings"
NAV = (
    (SESSIONS, "sessions"),
    (PLAYERS, "players"),
    (FINDINGS, "findings"),
    *(("/" + p.file, p.label) for p in registry.PAGES),
)


def explorer_page(title: str, heading: str, body: str, source: str, head: str = "") -> str:
    """A page in the reports' layout, with the explorer's links above and its style sheet;
    ``head``: an element to add to the page's head (the busy page's refresh)."""
    masthead = (
        "<nav>" + "".join(f'<a href="{escape(h)}">{t}</a>' for h, t in NAV) + "</nav>"
        '<div class="kicker">Loo explorer · read-only</div>'
        f"<h1>{heading}</h1>"
    )
    html = pages.page(
        escape(title),
        masthead,
        f'<link rel="stylesheet" href="/{EXPLORER_CSS}">{body}',
        footer(source),
    )
    policy = f'content="{pages.POLICY}">'
    assert policy in html, "the reports' page carries its policy"
    return html.replace(policy, f'content="{POLICY}">{head}', 1)


def footer(source: str) -> str:
    return f"loo-replay {__version__} · serving {text(source, 200)}, read-only"


# -- the form and the pager ------------------------------------------------------------------


def _field(label: str, control: str) -> str:
    return f'<label class="field"><span>{label}</span>{control}</label>'


def _search(name: str, value: str, placeholder: str) -> str:
    return _field(
        "Search",
        f'<input type="search" name="{name}" value="{escape(value)}" '
        f'placeholder="{escape(placeholder)}" maxlength="200">',
    )


def _select(label: str, name: str, value: str, options: Iterable[tuple[str, str]]) -> str:
    shown = "".join(
        f'<option value="{escape(v)}"{" selected" if v == value else ""}>{text(t, 80)}</option>'
        for v, t in options
    )
    return _field(label, f'<select name="{name}">{shown}</select>')


def _form(action: str, fields: Sequence[str], hidden: dict[str, str] | None = None) -> str:
    kept = "".join(
        f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">'
        for k, v in (hidden or {}).items()
        if v
    )
    return (
        f'<form class="filters" method="get" action="{escape(action)}" role="search">'
        + "".join(fields)
        + kept
        + f'<button type="submit">Show</button> <a class="reset" href="{escape(action)}">clear</a>'
        + "</form>"
    )


def _pager(listed: Listed, page: int, link: Any) -> str:
    """Where this page is among all the rows, and links to the pages around it."""
    if not listed.total:
        return '<p class="pager muted">Nothing matches these filters.</p>'
    last = -(-listed.total // PAGE_ROWS)
    first_row = (page - 1) * PAGE_ROWS + 1
    shown = (
        f"rows {numbers.count(first_row)}–{numbers.count(first_row + len(listed.rows) - 1)} of {numbers.count(listed.total)}"
        f" · page {numbers.count(page)} of {numbers.count(last)}"
    )
    steps = [(1, "« first"), (page - 1, "‹ previous"), (page + 1, "next ›"), (last, "last »")]
    links = " ".join(
        f'<a href="{escape(link(page=n))}" rel="{"prev" if n < page else "next"}">{t}</a>'
        for n, t in steps
        if 1 <= n <= last and n != page
    )
    return f'<p class="pager"><span>{shown}</span> {links}</p>'


def _link(href: str, shown: object, limit: int = 128) -> Markup:
    return Markup(f'<a href="{escape(href)}">{text(shown, limit)}</a>')


# -- the lists -------------------------------------------------------------------------------


def sessions_page(listed: Listed, f: SessionFilters, rulesets: Sequence[str], source: str) -> str:
    form = _form(
        SESSIONS,
        [
            _search("q", f.q, "session, venue, file or player"),
            _select("Ruleset", "ruleset", f.ruleset, [("", "any"), *((r, r) for r in rulesets)]),
            _select(
                "Showing",
                "with",
                f.with_,
                [
                    ("", "every session"),
                    ("violations", "with violations"),
                    ("discrepancies", "with discrepancies"),
                    ("clean", "with neither"),
                ],
            ),
            _select("Order", "sort", f.sort, [(k, k.replace("-", " ")) for k in SESSION_SORTS]),
        ],
        {"player": f.player},
    )
    links = {r["session_id"]: session_link(r["session_id"]) for r in listed.rows}
    shown = pages._sessions_table(cast(list[SessionSummary], listed.rows), links)
    lead = (
        f"Sessions that player <code>{text(f.player, 80)}</code> sat in. "
        f'<a href="{escape(f.link(SESSIONS, player=""))}">Every player</a>.'
        if f.player
        else "Each session links to its report, and its report to every deal's replay."
    )
    pager = _pager(listed, f.page, lambda **c: f.link(SESSIONS, **c))
    body = form + panel("Sessions", pager + shown + pager, lead)
    return explorer_page("Loo explorer · sessions", "Sessions", body, source)


def players_page(listed: Listed, f: PlayerFilters, source: str) -> str:
    form = _form(
        PLAYERS,
        [
            _search("q", f.q, "player id or name"),
            _select("Order", "sort", f.sort, [(k, k.replace("-", " ")) for k in PLAYER_SORTS]),
        ],
    )
    rows = []
    for r in listed.rows:
        who = text(r["player"], 80)
        if r["name"] and r["name"] != r["player"]:
            who = Markup(f'{text(r["name"], 80)} <span class="muted">{who}</span>')
        rows.append(
            "<tr>"
            + _td(who)
            + _td(
                _link(
                    SessionFilters(player=r["player"]).link(SESSIONS), numbers.count(r["sessions"])
                ),
                True,
            )
            + _td(r["deals"], True)
            + _td(r["played"], True)
            + _td(r["looed"], True)
            + _td(numbers.rate(r["looed"], r["played_known"]), True)
            + _td(pages._signed(r["net"]), True)
            + _td(
                _link(
                    FindingFilters(player=r["player"]).link(FINDINGS),
                    numbers.count(r["violations"]),
                )
                if r["violations"]
                else Markup("0"),
                True,
            )
            + _td(r["revokes"], True)
            + "</tr>"
        )
    head = [
        ("Player", False),
        ("Sessions", True),
        ("Deals", True),
        ("Played", True),
        ("Looed", True),
        ("Loo rate", True),
        ("Net chips", True),
        ("Violations", True),
        ("Revokes", True),
    ]
    lead = (
        "Every player over every session, by id: net chips are payouts less loos, "
        "penalties and antes; the loo rate is of the deals they played."
    )
    pager = _pager(listed, f.page, lambda **c: f.link(PLAYERS, **c))
    body = form + panel("Players", pager + table(head, rows) + pager, lead)
    return explorer_page("Loo explorer · players", "Players", body, source)


def findings_page(
    listed: Listed, f: FindingFilters, codes: Sequence[tuple[str, int]], source: str
) -> str:
    form = _form(
        FINDINGS,
        [
            _search("q", f.q, "words of the message"),
            _select(
                "Rule broken",
                "code",
                f.code,
                [("", "any"), *((c, f"{c} ({numbers.count(n)})") for c, n in codes)],
            ),
        ],
        {"player": f.player, "session": f.session},
    )
    rows = []
    shown = wording.told_apart((r["player"], r["name"] or r["player"]) for r in listed.rows)
    for r in listed.rows:
        player = text(shown[r["player"], r["name"] or r["player"]], 120)
        rows.append(
            '<tr class="violation">'
            + _td(_link(session_link(r["session_id"]), r["session_id"]), nowrap=True)
            + _td(_link(deal_link(r["session_id"], r["deal"]), f"{r['deal']} ▸"), True)
            + _td(_code(r["code"], r["family"]))
            + _td(player)
            + _td(r["trick"], True)
            + _td(r["card"] or "–")
            + _td(
                r["penalty"] if r["penalized"] else Markup('<span class="muted">none</span>'), True
            )
            + _td(Markup(f'<span class="msg">{text(r["message"], 600)}</span>'))
            + "</tr>"
        )
    head = [
        ("Session", False),
        ("Deal", True),
        ("Rule", False),
        ("Player", False),
        ("Trick", True),
        ("Card", False),
        ("Penalty", True),
        ("What happened", False),
    ]
    scope = [
        f"player <code>{text(f.player, 80)}</code>" if f.player else "",
        f"session <code>{text(f.session, 80)}</code>" if f.session else "",
    ]
    said = " and ".join(s for s in scope if s)
    lead = (
        f'Violations of {said}. <a href="{escape(FINDINGS)}">Every violation</a>.'
        if said
        else "Every violation of the rules the audit found; each deal links to its replay."
    )
    pager = _pager(listed, f.page, lambda **c: f.link(FINDINGS, **c))
    body = form + panel("Violations", pager + table(head, rows) + pager, lead)
    return explorer_page("Loo explorer · findings", "Findings", body, source)


# -- nothing to show ---------------------------------------------------------------------------


def _said(heading: str, title: str, said: str, source: str, head: str = "") -> str:
    """A page that says, in ``said`` (ready HTML), why it shows nothing else."""
    page = f"Loo explorer · {heading.lower()}"
    return explorer_page(page, heading, panel(title, said), source, head)


def not_found_page(why: str, source: str) -> str:
    links = f'<a href="{SESSIONS}">Every session</a> · <a href="{FINDINGS}">every finding</a>'
    return _said("Not found", "Not found", f"<p>{text(why, 400)}</p><p>{links}</p>", source)


def busy_page(why: str, source: str, *, crowded: bool = False) -> str:
    """The database is being written (an ``ingest``), or other requests kept this one
    waiting too long (``crowded``): the page asks again by itself."""
    again = f"this page asks again every {RETRY_SECONDS} seconds and shows itself once"
    if crowded:
        heading, then = (
            "The explorer is busy",
            f"It is answering other pages; {again} its turn comes.",
        )
    else:
        heading, then = (
            "The database is busy",
            (f"Another loo-replay is writing to it; {again} the writing is done."),
        )
    said = f"<p>{text(why, 400)}.</p><p>{then}</p>"
    refresh = f'\n<meta http-equiv="refresh" content="{RETRY_SECONDS}">'
    return _said("Busy", heading, said, source, refresh)


def error_page(why: str, source: str) -> str:
    return _said("Error", "The database cannot be read", f"<p>{text(why, 600)}</p>", source)


def no_replay_page(why: str, session_id: str, source: str) -> str:
    back = f'<a href="{escape(session_link(session_id))}">The session\'s report</a>'
    return _said("No replay", "No replay", f"<p>{text(why, 600)}</p><p>{back}</p>", source)
