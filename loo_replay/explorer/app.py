"""The explorer's Starlette app: a route per kind of page, each a read-only visit to the database.

Each request attaches the database read-only to the server's in-memory DuckDB
(``db.opening.visit``), reads what its page needs and detaches it before it
renders, so that nothing holds the file between requests and an ``ingest`` can
write in between.  While one writes, DuckDB's lock refuses the
read: the page says the database is busy and asks again by itself (503, with
``Retry-After``).  Every view is a URL whose query holds its filters; anything
else is a 404 page.  Only ``GET`` and ``HEAD`` are answered: nothing is ever
written.  See docs/explorer.md.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import duckdb
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from loo_replay.db import content
from loo_replay.db.content import COLLUSION as COLLUSION_RESULT
from loo_replay.db.content import FAIRNESS as FAIRNESS_RESULT
from loo_replay.db.content import Coverage, Covers
from loo_replay.db.errors import DatabaseBusy, DatabaseError, damage
from loo_replay.db.migrations import VERSION
from loo_replay.db.opening import visit, visitor
from loo_replay.explorer import deals, lists, views
from loo_replay.explorer.origin import Origin, OwnOrigin
from loo_replay.html import asset
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.logs.parse import MAX_INT
from loo_replay.output import numbers
from loo_replay.reports import figures, pages, queries, registry
from loo_replay.reports.build import all_sessions, session_of
from loo_replay.reports.collusion_page import collusion_page
from loo_replay.reports.decisions_page import decisions_page, listed_deals
from loo_replay.reports.fairness_page import fairness_page
from loo_replay.reports.rows import SessionSummary
from loo_replay.reports.rows import rows as as_rows

T = TypeVar("T")
HEADERS = {  # every answer: no sniffing, no framing, no referrer to elsewhere
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class Busy(Exception):
    """The database is being written: the request is answered with the busy page."""


class Crowded(Busy):
    """Other requests kept this one waiting its turn too long: the busy page, too."""


# How long a request waits for its turn (``Explorer.turn``) before it is answered with the
# busy page, which asks again by itself.
TURN_SECONDS = 120


@dataclass(frozen=True)
class Explorer:
    """The database a server shows, the in-memory DuckDB it is visited from, and the lock
    that gives the requests their turns."""

    db: Path
    instance: duckdb.DuckDBPyConnection
    stopping: threading.Event
    turns: threading.Lock = field(default_factory=threading.Lock)

    @contextmanager
    def turn(self) -> Iterator[None]:
        """The block run alone: one request at a time reads the database and renders its
        page, with the whole of DuckDB's memory budget (the same as ``report``'s) and no
        other's pages held beside its own, so that requests at once cannot run out of
        memory.  The others wait (uvicorn bounds how many, ``server.QUEUE``); one that
        waits ``TURN_SECONDS``, or is still waiting when the server stops, is
        ``Crowded``."""
        deadline = time.monotonic() + TURN_SECONDS
        while not self.turns.acquire(timeout=0.2):
            if self.stopping.is_set():
                raise Crowded("the explorer is stopping")
            if time.monotonic() > deadline:
                raise Crowded(
                    "the explorer answers one page at a time, and other pages kept this one "
                    f"waiting for {TURN_SECONDS} seconds"
                )
        try:
            yield
        finally:
            self.turns.release()

    @contextmanager
    def reading(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-only connection for one request, the database detached at its end;
        ``Busy`` while another process writes, ``DatabaseError`` when the file cannot be
        read."""
        try:
            with visit(self.instance, self.db) as con:
                ((version,),) = con.execute("SELECT max(version) FROM schema_version").fetchall()
                if version != VERSION:
                    raise DatabaseError(
                        f"{self.db} is at schema version {version}, this loo-replay reads "
                        f"{VERSION}; restart `loo-replay serve` (it upgrades the database when "
                        "it starts)"
                    )
                yield con
        except DatabaseBusy as exc:
            raise Busy(str(exc)) from None
        except duckdb.Error as exc:
            raise DatabaseError(f"cannot read {self.db}: {damage(str(exc))}") from None

    def read(self, what: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
        """What ``what`` reads, in one visit."""
        with self.reading() as con:
            return what(con)


# A stale result (db/content.py) is computed for its page in memory up to this many deals in
# the database, cached against the content version; past it, a run would hold the database
# for long (a million deals' fairness tests take over a minute), and the stored result is
# shown with how many deals it covers (docs/explorer.md).
COMPUTE_DEALS = 200_000
Row = dict[str, Any]


class Derived:
    """The results derived over the whole database as the pages show them: the stored one
    while it is current; else one computed here, nothing written, kept until the content
    version changes; or, over a large database, the stored one, its page saying what it
    covers.  Never a stale result as if it were current."""

    def __init__(self, compute_deals: int = COMPUTE_DEALS) -> None:
        self.compute_deals = compute_deals
        self.lock = threading.Lock()  # one computation at a time
        self.cache: dict[str, tuple[Covers, Any, datetime]] = {}

    def current(
        self,
        con: duckdb.DuckDBPyConnection,
        result: str,
        stored: Callable[[duckdb.DuckDBPyConnection], T],
        computed: Callable[[duckdb.DuckDBPyConnection], T],
    ) -> tuple[T, Coverage]:
        coverage = content.coverage(con, result)
        if coverage.current or coverage.now.deals > self.compute_deals:
            return stored(con), coverage
        with self.lock:
            hit = self.cache.get(result)
            if hit is None or hit[0] != coverage.now:
                hit = (coverage.now, computed(con), content.now())
                self.cache[result] = hit
        found: T = hit[1]
        return found, Coverage(coverage.now, hit[2], coverage.now)


def _html(page: str, status: int = 200, headers: Mapping[str, str] | None = None) -> HTMLResponse:
    return HTMLResponse(page, status, {**HEADERS, **(headers or {})})


def _query(request: Request) -> dict[str, str]:
    """The query string, each name once (the last value); no list takes a name twice."""
    return dict(request.query_params)


def _paged(listed: lists.Listed, f: lists.Filters) -> lists.Listed:
    """``listed``, unless its page is past the last: that page is not found."""
    if f.page > 1 and not listed.rows:
        raise lists.BadQuery(f"page {numbers.count(f.page)} is past the last page of this list")
    return listed


def make_app(
    db: Path,
    source: str,
    origin: Origin | None = None,
    limits: Limits = LIMITS,
    stopping: threading.Event | None = None,
) -> Starlette:
    """The app over the database at ``db`` (named ``source`` on the pages); ``origin``:
    the Host headers it answers (others get 400, against DNS rebinding), None for any;
    a stored document is replayed within ``limits``, as ``report`` reads it; once
    ``stopping`` is set, the requests waiting their turn are answered at once."""
    ex = Explorer(db, visitor(db), stopping or threading.Event())
    derived = Derived()

    def in_turn(page: Callable[[Request], Response]) -> Callable[[Request], Response]:
        """``page``, run in its request's turn (``Explorer.turn``)."""

        @functools.wraps(page)
        def answer(request: Request) -> Response:
            with ex.turn():
                return page(request)

        return answer

    def sessions(request: Request) -> Response:
        f = lists.SessionFilters.of(_query(request))
        listed, rulesets = ex.read(lambda con: (lists.sessions(con, f), lists.rulesets(con)))
        return _html(views.sessions_page(_paged(listed, f), f, rulesets, source))

    def players(request: Request) -> Response:
        f = lists.PlayerFilters.of(_query(request))
        listed = _paged(ex.read(lambda con: lists.players(con, f)), f)
        return _html(views.players_page(listed, f, source))

    def findings(request: Request) -> Response:
        f = lists.FindingFilters.of(_query(request))
        listed, codes = ex.read(lambda con: (lists.findings(con, f), lists.codes(con)))
        return _html(views.findings_page(_paged(listed, f), f, codes, source))

    def session(request: Request) -> Response:
        sid = request.query_params.get("id", "")
        return _html(ex.read(lambda con: _session_page(con, sid, source, limits)))

    def replay(request: Request) -> Response:
        sid = request.query_params.get("session", "")
        number = lists.number(request.query_params.get("deal", ""), "a deal number", MAX_INT)
        try:
            loaded = ex.read(lambda con: deals.read(con, sid, number, limits))
            page = deals.replay_page(loaded, number, limits)  # the database is closed by now
        except deals.NoReplay as exc:
            return _html(views.no_replay_page(str(exc), sid, source), 404)
        return HTMLResponse(page, headers=HEADERS)

    def across(request: Request) -> Response:
        return _html(ex.read(lambda con: _across_page(con, source)))

    def fairness(request: Request) -> Response:
        from loo_replay.fairness.table import computed, stored

        rows, coverage = ex.read(
            lambda con: derived.current(con, FAIRNESS_RESULT, stored, computed)
        )
        return _html(fairness_page(rows, coverage, source, views.footer(source)))

    def collusion(request: Request) -> Response:
        return _html(ex.read(lambda con: _collusion_page(con, derived, source)))

    def judged(request: Request) -> Response:
        return _html(ex.read(lambda con: _decisions_page(con, source)))

    def index(request: Request) -> Response:
        return RedirectResponse("/", 301, HEADERS)

    def asset_file(request: Request) -> Response:
        name = request.url.path.lstrip("/")
        kind = "text/css" if name.endswith(".css") else "text/javascript"
        text = _plotly_js() if name == pages.PLOTLY_JS else asset(name)
        # Assets change with the program only: cached for a day.
        return Response(
            text, media_type=kind, headers={**HEADERS, "Cache-Control": "max-age=86400"}
        )

    def no_icon(request: Request) -> Response:
        return Response(None, 204, HEADERS)  # browsers ask for one; there is none

    drawn = {  # every page of the registry, drawn from the database as it is now
        registry.ALL_SESSIONS: across,
        registry.FAIRNESS: fairness,
        registry.COLLUSION: collusion,
        registry.DECISIONS: judged,
    }
    routes = [
        Route("/favicon.ico", no_icon),
        Route("/", in_turn(sessions)),
        Route("/players", in_turn(players)),
        Route("/findings", in_turn(findings)),
        Route("/session", in_turn(session)),
        Route("/replay", in_turn(replay)),
        *(Route("/" + p.file, in_turn(drawn[p])) for p in registry.PAGES),
        Route("/" + pages.INDEX, index),
        *(
            Route("/" + name, asset_file)
            for name in (pages.REPORT_CSS, pages.REPORT_JS, pages.PLOTLY_JS, views.EXPLORER_CSS)
        ),
    ]

    async def not_found(request: Request, exc: Exception) -> Response:
        if isinstance(exc, HTTPException) and exc.status_code == 405:
            return Response("only GET and HEAD", 405, {**HEADERS, "Allow": "GET, HEAD"})
        why = (
            str(exc)
            if isinstance(exc, deals.NoSuchDeal | lists.BadQuery)
            else f"nothing is at {request.url.path[:200]}"
        )
        return _html(views.not_found_page(why, source), 404)

    async def busy(request: Request, exc: Exception) -> Response:
        retry = {"Retry-After": str(views.RETRY_SECONDS)}
        page = views.busy_page(str(exc), source, crowded=isinstance(exc, Crowded))
        return _html(page, 503, retry)

    async def unreadable(request: Request, exc: Exception) -> Response:
        if ex.stopping.is_set():  # a read under way, stopped by Ctrl-C: not the database's fault
            return await busy(request, Crowded("the explorer is stopping"))
        return _html(views.error_page(str(exc), source), 500)

    middleware = [] if origin is None else [Middleware(OwnOrigin, origin=origin, headers=HEADERS)]
    return Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={
            404: not_found,
            405: not_found,
            deals.NoSuchDeal: not_found,
            lists.BadQuery: not_found,
            Busy: busy,
            DatabaseError: unreadable,
        },
    )


def _session_page(
    con: duckdb.DuckDBPyConnection, session_id: str, source: str, limits: Limits = LIMITS
) -> str:
    """The session's report page, each deal linked to its replay here, and whether its
    seals hold (``deals.seals_line``)."""
    summary = next((r for r in _summaries(con) if r["session_id"] == session_id), None)
    if summary is None:
        raise deals.NoSuchDeal(f"no session {session_id[:200]!r} in the database")
    batch = queries.Batch(con, [session_id])
    numbers = batch.frame(queries.pool_history, session_id).select("deal_index", "deal").rows()
    replays = {index: deals.deal_link(session_id, number) for index, number in numbers}
    colours = figures.player_colours(con)
    sp = session_of(batch, summary, colours, views.footer(source), replays)
    return pages.session_page(replace(sp, seals=deals.seals_line(con, session_id, limits)))


def _summaries(con: duckdb.DuckDBPyConnection) -> list[SessionSummary]:
    return as_rows(queries.sessions(con), SessionSummary)


def _across_page(con: duckdb.DuckDBPyConnection, source: str) -> str:
    """The all-sessions report, its findings linked to their replays here."""
    rows = _summaries(con)
    listed = con.execute(
        "SELECT DISTINCT session_id, deal_index, deal FROM deals "
        "WHERE violations > 0 OR discrepancies > 0"
    ).fetchall()
    replays = {(sid, index): deals.deal_link(sid, deal) for sid, index, deal in listed}
    links = {r["session_id"]: deals.session_link(r["session_id"]) for r in rows}
    colours = figures.player_colours(con)
    return all_sessions(con, rows, replays, colours, links, source, views.footer(source))


def _collusion_page(con: duckdb.DuckDBPyConnection, derived: Derived, source: str) -> str:
    """The collusion page, the deals behind its flags linked to their replays here."""
    from loo_replay.collusion.table import computed, stored, stored_acts

    def both(con: duckdb.DuckDBPyConnection) -> tuple[list[Row], list[Row]]:
        return stored(con), stored_acts(con)

    (rows, acts), coverage = derived.current(con, COLLUSION_RESULT, both, computed)
    replays = {(a["session_id"], a["deal_index"]): deals.deal_link(a["session_id"], a["deal"])
               for a in acts if a["deal"] is not None}  # fmt: skip
    links = {a["session_id"]: deals.session_link(a["session_id"]) for a in acts}
    return collusion_page(rows, acts, replays, links, coverage, source, views.footer(source))


def _decisions_page(con: duckdb.DuckDBPyConnection, source: str) -> str:
    """The judged decisions page, each costly decision's deal linked to its replay here."""
    listed = listed_deals(con)
    replays = {
        (sid, index): deals.deal_link(sid, number)
        for sid, numbers in listed.items()
        for index, number in numbers.items()
    }
    links = {sid: deals.session_link(sid) for sid in listed}
    colours = figures.player_colours(con)
    return decisions_page(con, replays, links, colours, source, views.footer(source))


@functools.cache
def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs  # type: ignore[import-untyped]

    return str(get_plotlyjs())
