"""What the reports show, asked of DuckDB with bound parameters and returned as Polars frames.

One function per figure or table, so that a test can compare a figure's
traces with the frame it was drawn from and with values worked out by hand.
Rates follow the ``player_stats`` view: looed among the deals a player
played whose amounts are known.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

import duckdb
import polars as pl

from loo_replay.collusion import strength
from loo_replay.db.queries import PLAYER_DECISIONS

MISS_DECLARATIONS = ("take_miss", "defend")
SESSION_ORDER = "s.started_at NULLS LAST, s.session_id"  # earliest first; ``s`` is sessions


def _frame(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, object]) -> pl.DataFrame:
    """The result as Polars (DuckDB 2 has ``.pl()`` on relations, no longer on cursors)."""
    frame: pl.DataFrame = con.sql(sql, params=params).pl()
    return frame


def sessions(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every session with its counts, earliest first: the index and the summaries."""
    return _frame(
        con,
        f"""
        WITH d AS (
            SELECT
                session_id,
                count(*) FILTER (WHERE status = 'audited') AS audited,
                count(*) FILTER (WHERE status = 'misdeal') AS misdeals,
                count(*) FILTER (WHERE outcome = 'flush') AS flushes,
                count(*) FILTER (WHERE knowledge = 'partial') AS partial,
                list_distinct(flatten(list(unchecked))) AS unchecked,
                sum(violations) AS violations,
                sum(discrepancies) AS discrepancies,
                max(greatest(pool_start, pool_next)) AS pool_max
            FROM deals GROUP BY session_id
        ),
        l AS (SELECT session_id, count(*) AS loos FROM seats WHERE loo > 0 GROUP BY session_id),
        r AS (
            SELECT session_id, count(*) AS rejected FROM rejects
            WHERE kind = 'deal' GROUP BY session_id
        ),
        p AS (SELECT session_id, count(*) AS players FROM players GROUP BY session_id),
        a AS (
            SELECT session_id, count(*) AS analysed,
                   count(*) FILTER (WHERE status = 'solved') AS solved
            FROM analysis_deals GROUP BY session_id
        )
        SELECT
            s.session_id, s.file, s.line, s.digest, s.rules_fingerprint, s.ruleset, s.rules,
            s.started_at, s.venue, s.deals,
            coalesce(d.audited, 0) AS audited,
            coalesce(d.misdeals, 0) AS misdeals,
            coalesce(r.rejected, 0) AS rejected,
            coalesce(d.violations, 0)::BIGINT AS violations,
            coalesce(d.discrepancies, 0)::BIGINT AS discrepancies,
            coalesce(l.loos, 0) AS loos,
            coalesce(d.flushes, 0) AS flushes,
            coalesce(d.partial, 0) AS partial,
            coalesce(d.unchecked, []::VARCHAR[]) AS unchecked,
            d.pool_max,
            coalesce(p.players, 0) AS players,
            coalesce(a.analysed, 0) AS analysed,
            coalesce(a.solved, 0) AS solved,
            len(s.errors) AS errors,
            CASE WHEN len(s.errors) > 0 THEN s.errors[1].message END AS first_error
        FROM sessions s
        LEFT JOIN d USING (session_id)
        LEFT JOIN r USING (session_id)
        LEFT JOIN l USING (session_id)
        LEFT JOIN p USING (session_id)
        LEFT JOIN a USING (session_id)
        ORDER BY {SESSION_ORDER}
        """,
        {},
    )


def session_ids(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The session ids in the order of ``sessions``, without its counts (a scan of every
    table): what a figure across sessions needs to lay them out."""
    rows = con.execute(f"SELECT s.session_id FROM sessions s ORDER BY {SESSION_ORDER}").fetchall()
    return [r[0] for r in rows]


def seating(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """(session_id, player) in session order then seat order: who sat with whom, for colours."""
    return _frame(
        con,
        """
        SELECT p.session_id, p.player FROM players p JOIN sessions s USING (session_id)
        ORDER BY s.started_at NULLS LAST, p.session_id, p.seat
        """,
        {},
    )


# -- per session, for a batch of sessions at once -------------------------------------------
#
# Each query takes a batch of sessions and returns their rows with a ``session_id`` column:
# one query of a table serves the whole batch (a query per session and table costs more than
# the report's drawing).  ``Batch`` splits the results by session.


class Sessions(NamedTuple):
    """A batch's sessions, as its queries name them: their ids, and the smallest and largest
    of their keys (``db.keys``; NULL when none is loaded)."""

    ids: list[str]
    lo: int | None
    hi: int | None

    @property
    def params(self) -> dict[str, object]:
        return {"ids": self.ids, "lo": self.lo, "hi": self.hi}


def sessions_of(con: duckdb.DuckDBPyConnection, ids: Iterable[str]) -> Sessions:
    """The batch of the sessions ``ids``, their keys looked up in ``sessions``."""
    wanted = list(ids)
    ((lo, hi),) = con.execute(
        "SELECT min(session_key), max(session_key) FROM sessions"
        " WHERE session_id IN (SELECT unnest($ids::VARCHAR[]))",
        {"ids": wanted},
    ).fetchall()
    return Sessions(wanted, lo, hi)


def _in_batch(table: str = "") -> str:
    """The rows of ``table`` (an alias with its dot, or none) that belong to the batch: the
    range of keys skips the groups of rows of sessions outside it (DuckDB keeps a text's
    first 8 bytes only, so the ids alone read the whole table; docs/database.md, "Session
    keys"), the ids keep the answer the one it was by id, however the keys fall."""
    return (
        f"{table}session_key BETWEEN $lo AND $hi"
        f" AND {table}session_id IN (SELECT unnest($ids::VARCHAR[]))"
    )


def players(con: duckdb.DuckDBPyConnection, batch: Sessions) -> pl.DataFrame:
    """The sessions' players in seat order with their totals: the per-player table."""
    return _frame(
        con,
        f"""
        WITH t AS (
            SELECT
                session_id,
                player,
                count(*) AS deals,
                count(*) FILTER (WHERE active) AS played,
                count(*) FILTER (WHERE declaration = 'pass') AS passed,
                count(*) FILTER (WHERE declaration IN ('take_miss', 'defend')) AS took_miss,
                count(*) FILTER (WHERE active AND looed IS NOT NULL) AS played_known,
                count(*) FILTER (WHERE active AND looed) AS looed,
                coalesce(sum(loo), 0) AS loo_chips,
                coalesce(sum(tricks), 0) AS tricks,
                coalesce(sum(net), 0) AS net,
                arg_max(stack, deal_index) FILTER (WHERE stack IS NOT NULL) AS last_stack
            FROM seats WHERE {_in_batch()}
            GROUP BY session_id, player
        ),
        f AS (
            SELECT session_id, player, count(*) AS violations FROM findings
            WHERE {_in_batch()} GROUP BY session_id, player
        )
        SELECT
            p.session_id, p.seat, p.player, p.name, p.chips,
            coalesce(t.deals, 0) AS deals,
            coalesce(t.played, 0) AS played,
            coalesce(t.passed, 0) AS passed,
            coalesce(t.took_miss, 0) AS took_miss,
            coalesce(t.played_known, 0) AS played_known,
            coalesce(t.looed, 0) AS looed,
            coalesce(t.loo_chips, 0)::BIGINT AS loo_chips,
            coalesce(t.tricks, 0)::BIGINT AS tricks,
            coalesce(t.net, 0)::BIGINT AS net,
            t.last_stack,
            coalesce(f.violations, 0) AS violations
        FROM players p
        LEFT JOIN t USING (session_id, player)
        LEFT JOIN f USING (session_id, player)
        WHERE {_in_batch("p.")}
        ORDER BY p.session_id, p.seat
        """,
        batch.params,
    )


def pool_history(con: duckdb.DuckDBPyConnection, batch: Sessions) -> pl.DataFrame:
    """One row per audited deal or misdeal: the pool at the deal and carried, and what
    happened (loos with who paid what, a flush, a misdeal, revokes)."""
    return _frame(
        con,
        f"""
        WITH l AS (
            SELECT session_id, deal_index, count(*) AS loos, sum(loo) AS loo_chips,
                   list(player ORDER BY seat) AS looed, list(loo ORDER BY seat) AS loo_amounts
            FROM seats WHERE {_in_batch()} AND loo > 0
            GROUP BY session_id, deal_index
        ),
        r AS (
            SELECT session_id, deal_index, count(*) AS revokes,
                   list(player ORDER BY finding) AS revokers,
                   list(code ORDER BY finding) AS revoke_codes
            FROM findings
            WHERE {_in_batch()} AND family = 'revoke'
            GROUP BY session_id, deal_index
        )
        SELECT
            d.session_id, d.deal_index, d.deal, d.dealer, d.status, d.pool, d.pool_start,
            d.pool_next, d.outcome, d.violations, d.discrepancies, d.knowledge,
            coalesce(l.loos, 0) AS loos, coalesce(l.loo_chips, 0)::BIGINT AS loo_chips,
            l.looed, l.loo_amounts,
            coalesce(r.revokes, 0) AS revokes, r.revokers, r.revoke_codes
        FROM deals d
        LEFT JOIN l USING (session_id, deal_index)
        LEFT JOIN r USING (session_id, deal_index)
        WHERE {_in_batch("d.")}
        ORDER BY d.session_id, d.deal_index
        """,
        batch.params,
    )


def rejected_deals(con: duckdb.DuckDBPyConnection, batch: Sessions) -> pl.DataFrame:
    """The sessions' rejected deals (log errors): where they were and the first error."""
    return _frame(
        con,
        f"""
        SELECT session_id, deal_index, deal, dealer, path, message, len(errors) AS errors
        FROM rejects
        WHERE kind = 'deal' AND {_in_batch()}
        ORDER BY session_id, deal_index
        """,
        batch.params,
    )


def loo_by_declaration(con: duckdb.DuckDBPyConnection, batch: Sessions) -> pl.DataFrame:
    """Per player (seat order): deals played and looed, in all and by how he played: his own
    hand (declared play, or a must) or the Miss (took it, or defended with it)."""
    return _frame(
        con,
        f"""
        WITH s AS (
            SELECT session_id, player, looed,
                   declaration IN ('take_miss', 'defend') AS miss
            FROM seats
            WHERE {_in_batch()} AND active
                AND looed IS NOT NULL
        )
        SELECT
            p.session_id,
            p.player,
            count(s.player) AS played,
            count(s.player) FILTER (WHERE s.looed) AS looed,
            count(s.player) FILTER (WHERE NOT coalesce(s.miss, false)) AS own_played,
            count(s.player) FILTER (WHERE NOT coalesce(s.miss, false) AND s.looed) AS own_looed,
            count(s.player) FILTER (WHERE s.miss) AS miss_played,
            count(s.player) FILTER (WHERE s.miss AND s.looed) AS miss_looed
        FROM players p LEFT JOIN s USING (session_id, player)
        WHERE {_in_batch("p.")}
        GROUP BY p.session_id, p.player, p.seat
        ORDER BY p.session_id, p.seat
        """,
        batch.params,
    )


def loo_by_position(con: duckdb.DuckDBPyConnection, batch: Sessions) -> pl.DataFrame:
    """Deals played and looed by seat relative to the dealer: position 1 is the eldest (on
    the dealer's left), the dealer is last; ``dealer`` when that position was always his."""
    return _frame(
        con,
        f"""
        WITH dl AS (
            SELECT session_id, deal_index, seat AS dealer_seat FROM seats
            WHERE {_in_batch()} AND dealer
        ),
        s AS (
            SELECT
                s.session_id,
                (s.seat - dl.dealer_seat + d.seated * 2 - 1) % d.seated + 1 AS position,
                d.seated, s.active, s.looed
            FROM seats s
            JOIN dl USING (session_id, deal_index)
            JOIN deals d USING (session_id, deal_index)
            WHERE {_in_batch("s.")} AND {_in_batch("d.")}
        )
        SELECT
            session_id,
            position,
            count(*) AS seated,
            count(*) FILTER (WHERE active AND looed IS NOT NULL) AS played,
            count(*) FILTER (WHERE active AND looed) AS looed,
            bool_and(position = seated) AS dealer
        FROM s GROUP BY session_id, position ORDER BY session_id, position
        """,
        batch.params,
    )


def chips(con: duckdb.DuckDBPyConnection, batch: Sessions) -> pl.DataFrame:
    """Each player's stack (NULL where not tracked) and net chips so far (unknown amounts
    count 0) after each deal he sat in, players in seat order."""
    return _frame(
        con,
        f"""
        SELECT s.session_id, s.deal_index, s.deal, s.player, s.stack, s.net,
               sum(coalesce(s.net, 0)) OVER (
                   PARTITION BY s.session_id, s.player ORDER BY s.deal_index
               )::BIGINT AS total
        FROM seats s JOIN players p USING (session_id, player)
        WHERE {_in_batch("s.")}
        ORDER BY s.session_id, p.seat, s.deal_index
        """,
        batch.params,
    )


def violations(con: duckdb.DuckDBPyConnection, batch: Sessions) -> pl.DataFrame:
    """Violations per rule and player, rules with the most first, players in seat order."""
    return _frame(
        con,
        f"""
        SELECT f.session_id, f.code, f.family, f.player, count(*) AS violations,
               count(*) FILTER (WHERE f.penalized) AS penalized,
               (sum(count(*)) OVER (PARTITION BY f.session_id, f.code))::BIGINT AS code_total
        FROM findings f JOIN players p USING (session_id, player)
        WHERE {_in_batch("f.")}
        GROUP BY f.session_id, f.code, f.family, f.player, p.seat
        ORDER BY f.session_id, code_total DESC, f.code, p.seat
        """,
        batch.params,
    )


def findings(con: duckdb.DuckDBPyConnection, batch: Sessions) -> pl.DataFrame:
    """Every violation in deal order, for the findings table."""
    return _frame(
        con,
        f"""
        SELECT session_id, deal_index, deal, finding, code, player, trick,
               card::VARCHAR AS card, penalized, penalty, message  -- a card ENUM is text here
        FROM findings WHERE {_in_batch()}
        ORDER BY session_id, deal_index, finding
        """,
        batch.params,
    )


def discrepancies(con: duckdb.DuckDBPyConnection, batch: Sessions) -> pl.DataFrame:
    """Every difference between the record and the audit, in deal order."""
    return _frame(
        con,
        f"""
        SELECT session_id, deal_index, deal, field, item, player, recorded, expected,
               recorded - expected AS difference
        FROM discrepancies WHERE {_in_batch()}
        ORDER BY session_id, deal_index, field
        """,
        batch.params,
    )


def analysis_by_player(con: duckdb.DuckDBPyConnection, batch: Sessions) -> pl.DataFrame:
    """Per session and player (seat order), from the double-dummy analysis: the solved deals
    they played, the tricks their cards threw away, their avoidable loos, and all their loos
    in those deals (docs/analysis.md)."""
    return _frame(
        con,
        f"""
        WITH a AS (
            SELECT a.session_id, a.player, count(*) AS analysed, sum(a.lost) AS thrown,
                   count(*) FILTER (WHERE s.looed) AS loos
            FROM analysis_players a JOIN seats s USING (session_id, deal_index, player)
            WHERE {_in_batch("a.")} AND {_in_batch("s.")}
            GROUP BY a.session_id, a.player
        ),
        n AS (
            SELECT session_id, player, count(*) AS avoidable FROM analysis_notes
            WHERE code = 'avoidable-loo' AND {_in_batch()}
            GROUP BY session_id, player
        )
        SELECT
            p.session_id, p.player,
            coalesce(a.analysed, 0) AS analysed,
            coalesce(a.thrown, 0)::BIGINT AS thrown,
            coalesce(n.avoidable, 0) AS avoidable,
            coalesce(a.loos, 0) AS loos
        FROM players p
        LEFT JOIN a USING (session_id, player)
        LEFT JOIN n USING (session_id, player)
        WHERE {_in_batch("p.")}
        ORDER BY p.session_id, p.seat
        """,
        batch.params,
    )


def thrown_tricks(con: duckdb.DuckDBPyConnection, batch: Sessions) -> pl.DataFrame:
    """Every ``lost-trick`` and ``avoidable-loo`` note in deal order, for the page's table."""
    return _frame(
        con,
        f"""
        SELECT session_id, deal_index, deal, note, code, player, trick, card, better, message
        FROM analysis_notes
        WHERE code IN ('lost-trick', 'avoidable-loo')
            AND {_in_batch()}
        ORDER BY session_id, deal_index, note
        """,
        batch.params,
    )


Query = Callable[[duckdb.DuckDBPyConnection, Sessions], pl.DataFrame]


class Batch:
    """The per-session frames of a batch of sessions: each query runs once for the whole
    batch, when first asked, and its rows are split by session."""

    def __init__(self, con: duckdb.DuckDBPyConnection, ids: Iterable[str]) -> None:
        self.con = con
        self.sessions = sessions_of(con, ids)
        self._parts: dict[Query, tuple[pl.DataFrame, dict[str, pl.DataFrame]]] = {}

    def frame(self, query: Query, session_id: str) -> pl.DataFrame:
        """``query``'s rows for ``session_id`` (empty, with the columns, if none)."""
        if query not in self._parts:
            full = query(self.con, self.sessions)
            split = full.partition_by("session_id", as_dict=True, maintain_order=True)
            self._parts[query] = (full.clear(), {str(k[0]): v for k, v in split.items()})
        empty, parts = self._parts[query]
        found = parts.get(session_id)
        return empty if found is None else found


Source = duckdb.DuckDBPyConnection | Batch


def batch_of(source: Source, session_id: str) -> Batch:
    """A batch for a figure: the one given, or one of just ``session_id``."""
    return source if isinstance(source, Batch) else Batch(source, [session_id])


# -- across sessions --------------------------------------------------------------


def loo_rates_by_session(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per session and player: deals played (amounts known) and looed."""
    return _frame(
        con,
        """
        SELECT session_id, player,
               count(*) FILTER (WHERE active AND looed IS NOT NULL) AS played,
               count(*) FILTER (WHERE active AND looed) AS looed
        FROM seats GROUP BY session_id, player
        """,
        {},
    )


def violations_by_rule(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The ``violations_by_rule`` view: violations per rule and ruleset."""
    return _frame(
        con,
        """
        SELECT code, family, coalesce(ruleset, '?') AS ruleset, violations, deals, penalized
        FROM violations_by_rule ORDER BY family, code, ruleset
        """,
        {},
    )


def pool_sizes(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The spread of the known pools at a deal, per session: least, quartiles, greatest.
    Summed up here, not drawn point by point: a million deals stay a row per session."""
    return _frame(
        con,
        """
        SELECT
            session_id,
            count(*) AS deals,
            min(pool_start) AS least,
            quantile_cont(pool_start, 0.25) AS q1,
            quantile_cont(pool_start, 0.5) AS median,
            quantile_cont(pool_start, 0.75) AS q3,
            max(pool_start) AS greatest
        FROM deals
        WHERE pool_start IS NOT NULL
        GROUP BY session_id
        ORDER BY session_id
        """,
        {},
    )


def player_names(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Each player id's name as the latest session that gives one has it (ids with no
    name are left out)."""
    rows = con.execute(
        f"""
        SELECT p.player, arg_max(p.name, row) AS name FROM (
            SELECT p.player, p.name, row_number() OVER (ORDER BY {SESSION_ORDER}) AS row
            FROM players p JOIN sessions s USING (session_id) WHERE p.name IS NOT NULL
        ) p GROUP BY p.player
        """
    ).fetchall()
    return {str(player): str(name) for player, name in rows}


def standings(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per player over every session: sessions and deals sat in, net chips (payouts less
    loos, penalties and antes), loos paid and violations; the most chips won first."""
    return _frame(
        con,
        """
        WITH t AS (
            SELECT player, count(DISTINCT session_id) AS sessions, count(*) AS deals,
                   coalesce(sum(net), 0)::BIGINT AS net,
                   count(*) FILTER (WHERE looed) AS loos,
                   coalesce(sum(loo), 0)::BIGINT AS loo_chips
            FROM seats GROUP BY player
        ),
        f AS (SELECT player, count(*) AS violations FROM findings GROUP BY player)
        SELECT t.*, coalesce(f.violations, 0) AS violations
        FROM t LEFT JOIN f USING (player)
        ORDER BY t.net DESC, t.player
        """,
        {},
    )


def all_findings(con: duckdb.DuckDBPyConnection, limit: int) -> tuple[pl.DataFrame, int]:
    """The first ``limit`` violations over every session (sessions in date order, deals in
    order), with the player's name; and how many there are in all."""
    return _first(
        con,
        "findings",
        "f.deal_index, f.deal, f.code, f.family, f.player, p.name, f.penalized, f.penalty, "
        "f.message",
        "f.finding",
        limit,
    )


def all_discrepancies(con: duckdb.DuckDBPyConnection, limit: int) -> tuple[pl.DataFrame, int]:
    """The first ``limit`` discrepancies over every session, in the order of
    ``all_findings``, with the player's name; and how many there are in all."""
    return _first(
        con,
        "discrepancies",
        "f.deal_index, f.deal, f.field, f.player, p.name, f.recorded, f.expected",
        "f.field",
        limit,
    )


def _first(
    con: duckdb.DuckDBPyConnection, table: str, columns: str, within: str, limit: int
) -> tuple[pl.DataFrame, int]:
    """The first ``limit`` rows of a per-deal table (``f``, one of this module's own names,
    never user text) in session and deal order, with the player's name; and its row count."""
    frame = _frame(
        con,
        f"""
        SELECT f.session_id, {columns}
        FROM {table} f JOIN sessions s USING (session_id)
        LEFT JOIN players p USING (session_id, player)
        ORDER BY {SESSION_ORDER}, f.deal_index, {within}
        LIMIT $limit
        """,
        {"limit": limit},
    )
    ((total,),) = con.execute(f"SELECT count(*) FROM {table}").fetchall()
    return frame, int(total)


def listed_rejects(con: duckdb.DuckDBPyConnection, limit: int) -> tuple[pl.DataFrame, int]:
    """The first ``limit`` rows of ``rejects`` (deals with a log error, unreadable
    documents, sessions DuckDB could not store, entries of folders skipped), in the order
    they were read; and how many there are in all."""
    frame = _frame(
        con,
        """
        SELECT kind, session_id, deal, file, line, path, message FROM rejects
        ORDER BY file, line NULLS FIRST, deal_index NULLS FIRST, kind, message
        LIMIT $limit
        """,
        {"limit": limit},
    )
    ((total,),) = con.execute("SELECT count(*) FROM rejects").fetchall()
    return frame, int(total)


# -- judged decisions (docs/judging-decisions.md, "In the database and the reports") -------


def decision_counts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """How much was judged: deals judged and skipped, sessions, decisions valued and not."""
    ((judged, skipped, sessions, samples),) = con.execute(
        "SELECT count(*) FILTER (WHERE status = 'judged'), count(*) FILTER (WHERE status = "
        "'skipped'), count(DISTINCT session_id), coalesce(max(samples), 0) FROM decision_deals"
    ).fetchall()
    ((decisions, unjudged, loaded),) = con.execute(
        "SELECT count(*) FILTER (WHERE chosen), count(*) FILTER (WHERE option IS NULL), "
        "(SELECT count(*) FROM deals) FROM decisions"
    ).fetchall()
    return {
        "judged": int(judged),
        "skipped": int(skipped),
        "loaded": int(loaded),  # the database's deals, judged or not
        "sessions": int(sessions),
        "samples": int(samples),
        "decisions": int(decisions),
        "unjudged": int(unjudged),
    }


def decision_settings(con: duckdb.DuckDBPyConnection) -> list[tuple[int, int, int]]:
    """The worlds and seeds the deals were judged on, (K, seed, deals), the most first."""
    rows = con.execute(
        "SELECT samples, seed, count(*) AS n FROM decision_deals GROUP BY ALL "
        "ORDER BY n DESC, samples, seed"
    ).fetchall()
    return [(int(k), int(seed), int(n)) for k, seed, n in rows]


def decisions_skipped(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int]]:
    """Why deals were not judged, and how many each reason kept out; the most first."""
    rows = con.execute(
        "SELECT coalesce(reason, '?'), count(*) AS n FROM decision_deals "
        "WHERE status = 'skipped' GROUP BY ALL ORDER BY n DESC, 1"
    ).fetchall()
    return [(str(reason), int(n)) for reason, n in rows]


def decision_players(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Each player with a decision judged, as ``stats`` counts them (``PLAYER_DECISIONS``:
    the accuracy with its count and standard error, the loss in units of each deal's trick
    per judged deal sat in, with its standard error); the most accurate first."""
    return _frame(
        con,
        f"SELECT * FROM ({PLAYER_DECISIONS}) ORDER BY accuracy DESC NULLS LAST, player",
        {},
    )


def decisions_by_session(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per session (earliest first) and player: decisions judged, their accuracy with its
    count and standard error, and the loss in units (one trick's worth of the deal) per
    judged deal sat in, with its standard error, as ``decision_players`` counts them over
    every session."""
    return _frame(
        con,
        f"""
        WITH j AS (
            SELECT c.session_id, c.player, count(*) AS decisions,
                   count(c.accuracy) AS accuracy_n, avg(c.accuracy) AS accuracy,
                   stddev_samp(c.accuracy) / sqrt(count(c.accuracy)) AS accuracy_se,
                   sum(c.loss / d.unit) AS loss_units,
                   sqrt(sum(power(c.loss_se / d.unit, 2))) AS loss_units_se
            FROM decisions c JOIN decision_deals d USING (session_id, deal_index)
            WHERE c.chosen GROUP BY c.session_id, c.player
        ),
        sat AS (
            SELECT t.session_id, t.player, count(*) AS deals
            FROM seats t JOIN decision_deals d USING (session_id, deal_index)
            WHERE d.status = 'judged' GROUP BY t.session_id, t.player
        )
        SELECT j.session_id, j.player, j.decisions, j.accuracy, j.accuracy_n, j.accuracy_se,
               sat.deals AS deals_judged, j.loss_units / sat.deals AS loss_a_deal,
               j.loss_units_se / sat.deals AS loss_a_deal_se
        FROM j JOIN sat USING (session_id, player) JOIN sessions s USING (session_id)
        ORDER BY {SESSION_ORDER}, j.player
        """,
        {},
    )


def costliest_decisions(con: duckdb.DuckDBPyConnection, per_session: int) -> pl.DataFrame:
    """Each session's ``per_session`` costliest decisions (the largest loss first), with
    the option chosen and the best; sessions earliest first."""
    return _frame(
        con,
        f"""
        WITH ranked AS (
            SELECT c.*, b.option AS best_option, b.value AS best_value,
                   row_number() OVER (
                       PARTITION BY c.session_id ORDER BY c.loss DESC, c.deal_index, c.event
                   ) AS rank
            FROM decisions c JOIN decisions b USING (session_id, deal_index, event)
            WHERE c.chosen AND b.best AND c.loss > 0
        )
        SELECT r.session_id, r.deal_index, r.deal, r.event, r.player, r.kind, r.trick,
               r.option AS chosen, r.value AS chosen_value, r.best_option AS best,
               r.best_value, r.loss, r.loss_se, r.severity, r.message
        FROM ranked r JOIN sessions s USING (session_id)
        WHERE r.rank <= $n
        ORDER BY {SESSION_ORDER}, r.rank
        """,
        {"n": per_session},
    )


LEAK_BAND = 500  # thousandths of a trick: the leak table's bands of hand strength, half a trick

# The deals whose hands the strength measure values (docs/collusion.md, "Hand strength"):
# every audited deal with every hand known, each with its rules, Pam and trump.
_STRENGTH_DEALS = """
CREATE OR REPLACE TEMP TABLE leak_deals AS
SELECT d.rowid AS deal_id, d.session_id, d.deal_index, s.rules_fingerprint AS fp,
       coalesce(TRY_CAST(json_extract_string(s.rules, '$."deal.pam"') AS BOOLEAN), false)
           AS pam,
       coalesce(d.trump, 'N') AS trump
FROM deals d JOIN sessions s USING (session_id)
WHERE d.status = 'audited' AND d.knowledge = 'full'
"""


def leaks(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per player and band of hand strength (the collusion screen's measure, the hand's
    expected tricks): the judged declarations where passing was an option, how often the
    player stood (played, took the Miss or defended) and how often standing was the best."""
    strength.register(con)
    try:
        for statement in (
            _STRENGTH_DEALS,
            strength.CHANCES.format(deals="leak_deals"),
            strength.DECK.format(deals="leak_deals"),
            strength.HANDS.format(deals="leak_deals"),
        ):
            con.execute(statement)
        return _frame(
            con,
            """
            WITH choice AS (
                SELECT session_id, deal_index, event, player,
                       bool_or(chosen AND option <> 'pass') AS stood,
                       bool_or(best AND option <> 'pass') AS right
                FROM decisions WHERE kind = 'declare' AND option IS NOT NULL
                GROUP BY session_id, deal_index, event, player
                HAVING bool_or(option = 'pass')
            )
            SELECT c.player, coalesce(h.strength, 0) // $band AS band,
                   count(*) AS declarations,
                   count(*) FILTER (WHERE c.stood) AS stood,
                   count(*) FILTER (WHERE c.right) AS right,
                   count(*) FILTER (WHERE c.stood AND NOT c.right) AS stood_wrongly,
                   count(*) FILTER (WHERE c.right AND NOT c.stood) AS passed_wrongly
            FROM choice c JOIN leak_deals f USING (session_id, deal_index)
            LEFT JOIN strength_hands h ON h.deal_id = f.deal_id AND h.player = c.player
            GROUP BY c.player, band
            ORDER BY c.player, band
            """,
            {"band": LEAK_BAND},
        )
    finally:
        for name in ("strength_hands", *strength.TEMP_TABLES, "leak_deals"):
            con.execute(f"DROP TABLE IF EXISTS {name}")
        strength.unregister(con)
