"""The explorer's lists (sessions, players, findings): filters from a URL's query, one page
of rows asked of DuckDB with bound parameters, and how many rows match in all.

A filter is what its URL says, so that a view is a link to share: every value comes
from the query string, is bounded and checked here, and reaches DuckDB only as a
parameter.  A search is a case-insensitive substring, never a pattern.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import duckdb

PAGE_ROWS = 50  # rows a page of a list
TEXT_LIMIT = 200  # characters of a search or filter value kept; the rest is dropped
SESSION_SORTS = {  # the sessions' orders (``sort=``), the first the default
    "date": "s.started_at NULLS LAST, s.session_id",
    "latest": "s.started_at DESC NULLS LAST, s.session_id",
    "violations": "violations DESC, s.started_at NULLS LAST, s.session_id",
    "deals": "s.deals DESC, s.session_id",
}
PLAYER_SORTS = {
    "net": "net DESC, player",
    "violations": "violations DESC, player",
    "loo-rate": "loo_rate DESC NULLS LAST, player",
    "deals": "deals DESC, player",
    "player": "player",
}
SHOWING = ("", "violations", "discrepancies", "clean")  # sessions with ... (``with=``)


class BadQuery(ValueError):
    """A query string value that is not one the list knows: the page is not found."""


def _text(query: Mapping[str, str], key: str) -> str:
    return query.get(key, "").strip()[:TEXT_LIMIT]


def _choice(
    query: Mapping[str, str], key: str, allowed: tuple[str, ...] | Mapping[str, str]
) -> str:
    value = query.get(key, "")
    if value == "":
        return next(iter(allowed))
    if value not in allowed:
        raise BadQuery(f"{key}={value[:40]!r} is not one of the choices")
    return value


def number(value: str, what: str, most: int) -> int:
    """``value`` as a whole number from 1 to ``most``, written in ASCII digits; else
    ``BadQuery``.  ``str.isdigit`` is no test: ``²`` passes it and ``int`` refuses it, and
    ``int`` refuses a number past 4,300 digits."""
    if not _NUMBER.fullmatch(value) or not 1 <= int(value) <= most:
        raise BadQuery(f"{value[:40]!r} is not {what}")
    return int(value)


_NUMBER = re.compile(r"[0-9]{1,16}")  # digits enough for any bound here (2**53), no more


def _page(query: Mapping[str, str]) -> int:
    return number(query.get("page", "1"), "a page number", 1_000_000)


@dataclass(frozen=True)
class Filters:
    """What a list shows; ``link`` gives its URL back, with a page or a value changed."""

    page: int = 1

    def link(self, path: str, **changed: object) -> str:
        from urllib.parse import urlencode

        values = {f.name: getattr(self, f.name) for f in fields(self)} | changed
        kept = {k: v for k, v in values.items() if v not in ("", None) and (k, v) != ("page", 1)}
        return path + ("?" + urlencode(kept) if kept else "")

    @property
    def offset(self) -> int:
        return (self.page - 1) * PAGE_ROWS


@dataclass(frozen=True)
class SessionFilters(Filters):
    q: str = ""  # in the id, venue, file, or a player's id or name
    ruleset: str = ""
    player: str = ""  # sessions this player id sat in
    with_: str = ""  # SHOWING
    sort: str = "date"

    @classmethod
    def of(cls, query: Mapping[str, str]) -> SessionFilters:
        return cls(
            _page(query),
            _text(query, "q"),
            _text(query, "ruleset"),
            _text(query, "player"),
            _choice(query, "with", SHOWING),
            _choice(query, "sort", SESSION_SORTS),
        )

    def link(self, path: str, **changed: object) -> str:
        link = super().link(path, **changed)
        return link.replace("with_=", "with=")


@dataclass(frozen=True)
class PlayerFilters(Filters):
    q: str = ""  # in the id or a name
    sort: str = "net"

    @classmethod
    def of(cls, query: Mapping[str, str]) -> PlayerFilters:
        return cls(_page(query), _text(query, "q"), _choice(query, "sort", PLAYER_SORTS))


@dataclass(frozen=True)
class FindingFilters(Filters):
    q: str = ""  # in the message
    code: str = ""
    player: str = ""
    session: str = ""

    @classmethod
    def of(cls, query: Mapping[str, str]) -> FindingFilters:
        return cls(
            _page(query),
            _text(query, "q"),
            _text(query, "code"),
            _text(query, "player"),
            _text(query, "session"),
        )


@dataclass(frozen=True)
class Listed:
    """One page of a list: its rows as dicts, and how many rows match in all."""

    rows: list[dict[str, Any]]
    total: int


def _listed(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, object]) -> Listed:
    """The page of ``sql`` (whose rows carry ``count(*) OVER ()`` as ``total_rows``)."""
    cursor = con.execute(sql, params)
    names = [d[0] for d in cursor.description or ()]
    rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
    total = int(rows[0].pop("total_rows")) if rows else 0
    for r in rows[1:]:
        del r["total_rows"]
    return Listed(rows, total)


def sessions(con: duckdb.DuckDBPyConnection, f: SessionFilters) -> Listed:
    """A page of sessions with their counts (those of the reports' sessions table), as ``f``
    filters and orders them."""
    showing = {
        "": "TRUE",
        "violations": "violations > 0",
        "discrepancies": "discrepancies > 0",
        "clean": "violations = 0 AND discrepancies = 0",
    }[f.with_]
    return _listed(
        con,
        f"""
        WITH d AS (
            SELECT session_id, sum(violations)::BIGINT AS violations,
                   sum(discrepancies)::BIGINT AS discrepancies,
                   count(*) FILTER (WHERE knowledge = 'partial') AS partial,
                   max(greatest(pool_start, pool_next)) AS pool_max
            FROM deals GROUP BY session_id
        ),
        p AS (
            SELECT session_id, count(*) AS players,
                   bool_or($player = '' OR player = $player) AS has_player,
                   bool_or(contains(lower(player), $q) OR contains(lower(coalesce(name, '')), $q))
                       AS player_matches
            FROM players GROUP BY session_id
        ),
        r AS (
            SELECT session_id, count(*) AS rejected FROM rejects
            WHERE kind = 'deal' GROUP BY session_id
        ),
        listed AS (
            SELECT s.session_id, s.started_at, s.venue, s.ruleset, s.deals,
                   coalesce(d.violations, 0) AS violations,
                   coalesce(d.discrepancies, 0) AS discrepancies,
                   coalesce(r.rejected, 0) AS rejected,
                   coalesce(p.players, 0) AS players,
                   coalesce(d.partial, 0) AS partial, d.pool_max
            FROM sessions s
            LEFT JOIN d USING (session_id) LEFT JOIN p USING (session_id)
            LEFT JOIN r USING (session_id)
            WHERE ($q = '' OR contains(lower(s.session_id), $q)
                   OR contains(lower(coalesce(s.venue, '')), $q)
                   OR contains(lower(s.file), $q) OR coalesce(p.player_matches, FALSE))
              AND ($ruleset = '' OR s.ruleset = $ruleset)
              AND ($player = '' OR coalesce(p.has_player, FALSE))
        )
        SELECT *, count(*) OVER () AS total_rows FROM listed s
        WHERE {showing}
        ORDER BY {SESSION_SORTS[f.sort]}
        LIMIT {PAGE_ROWS} OFFSET $offset
        """,
        {
            "q": f.q.lower(),
            "ruleset": f.ruleset,
            "player": f.player,
            "offset": f.offset,
        },
    )


def rulesets(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The rulesets the loaded sessions were audited under, for the filter's choices."""
    rows = con.execute(
        "SELECT DISTINCT ruleset FROM sessions WHERE ruleset IS NOT NULL ORDER BY 1"
    ).fetchall()
    return [str(r[0]) for r in rows]


def players(con: duckdb.DuckDBPyConnection, f: PlayerFilters) -> Listed:
    """A page of players over every session (the report's standings), as ``f`` asks."""
    return _listed(
        con,
        f"""
        WITH t AS (
            SELECT player, count(DISTINCT session_id) AS sessions, count(*) AS deals,
                   count(*) FILTER (WHERE active) AS played,
                   count(*) FILTER (WHERE active AND looed) AS looed,
                   count(*) FILTER (WHERE active AND looed IS NOT NULL) AS played_known,
                   coalesce(sum(net), 0)::BIGINT AS net
            FROM seats GROUP BY player
        ),
        v AS (
            SELECT player, count(*) AS violations,
                   count(*) FILTER (WHERE family = 'revoke') AS revokes
            FROM findings GROUP BY player
        ),
        n AS (
            SELECT p.player, arg_max(p.name, s.started_at) AS name
            FROM players p JOIN sessions s USING (session_id)
            WHERE p.name IS NOT NULL GROUP BY p.player
        ),
        listed AS (
            SELECT t.player, n.name, t.sessions, t.deals, t.played, t.looed, t.played_known,
                   CASE WHEN t.played_known > 0 THEN t.looed / t.played_known END AS loo_rate,
                   t.net, coalesce(v.violations, 0) AS violations,
                   coalesce(v.revokes, 0) AS revokes
            FROM t LEFT JOIN v USING (player) LEFT JOIN n USING (player)
            WHERE $q = '' OR contains(lower(t.player), $q)
                  OR contains(lower(coalesce(n.name, '')), $q)
        )
        SELECT *, count(*) OVER () AS total_rows FROM listed
        ORDER BY {PLAYER_SORTS[f.sort]}
        LIMIT {PAGE_ROWS} OFFSET $offset
        """,
        {"q": f.q.lower(), "offset": f.offset},
    )


def findings(con: duckdb.DuckDBPyConnection, f: FindingFilters) -> Listed:
    """A page of violations, sessions in date order and deals in order, as ``f`` filters."""
    return _listed(
        con,
        """
        SELECT f.session_id, f.deal_index, f.deal, f.code, f.family, f.player, p.name,
               f.trick, f.card::VARCHAR AS card, f.penalized, f.penalty, f.message,
               count(*) OVER () AS total_rows
        FROM findings f JOIN sessions s USING (session_id)
        LEFT JOIN players p USING (session_id, player)
        WHERE ($q = '' OR contains(lower(f.message), $q))
          AND ($code = '' OR f.code = $code OR f.family = $code)
          AND ($player = '' OR f.player = $player)
          AND ($session = '' OR f.session_id = $session)
        ORDER BY s.started_at NULLS LAST, f.session_id, f.deal_index, f.finding
        LIMIT $limit OFFSET $offset
        """,
        {
            "q": f.q.lower(),
            "code": f.code,
            "player": f.player,
            "session": f.session,
            "limit": PAGE_ROWS,
            "offset": f.offset,
        },
    )


def codes(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int]]:
    """Each finding code with its count, for the filter's choices."""
    rows = con.execute("SELECT code, count(*) FROM findings GROUP BY code ORDER BY code").fetchall()
    return [(str(c), int(n)) for c, n in rows]
