"""The opportunities of each behaviour (docs/collusion.md, "The behaviours"), in SQL over
the tables ``ingest`` fills and its double-dummy analysis.

Every opportunity has a test, its owner (the player whose conduct is judged), the
tablemates it concerns (``targets``), whether the owner acted, and its stratum, the
comparable situation as text; they are counted as they are found, in ``collusion_cells``,
one row for each test, owner, targets and stratum.  Only audited deals with every hand
known count.  The counts the tests need come back grouped: per owner and stratum, and per
owner, stratum and target; no Python loop over deals.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

import duckdb

from loo_replay.collusion import strength, unanalysed
from loo_replay.fairness.counts import SEATED_AS_LOADED, roomy
from loo_replay.logs.parse import MOST_SEATED

TESTS = ("gift-tricks", "stepping-aside", "not-beating", "loo-saving")
# A unit's test as a byte, not a string beside each of a million deals' six million units
# (docs/performance.md, "The collusion screen").
_TEST = f"ENUM({', '.join(repr(t) for t in TESTS)})"

_PLAYED = """
CREATE OR REPLACE TEMP TABLE collusion_played AS
SELECT f.deal_id, f.fp, f.n, f.pam, f.trump, p.trick, p.position, p.player, p.legal_cards,
       p.card::VARCHAR AS card, t.led::VARCHAR AS led_card, t.cards - t.dead AS in_trick
FROM plays p
JOIN collusion_deals f USING (session_id, deal_index)
JOIN tricks t USING (session_id, deal_index, trick)
WHERE NOT p.dead AND NOT f.must_beat AND f.trick_fixed
"""
# When no deal's rules leave letting a card hold open (under every built-in ruleset), the
# plays are not read at all: DuckDB joined all of them to their tricks before it found
# none, 6.6 CPU s and 140 MB spilled over a million deals
# (benchmarks/results/collusion-speed.md).
_NONE_OPEN = (
    "SELECT NOT coalesce(bool_or(NOT must_beat AND trick_fixed), false) FROM collusion_deals"
)
# What the tests need of the opportunities that share an owner, a list of tablemates
# concerned and a stratum: a cell.  How many, how many acts, and the deals of the acts (for
# the deals behind a flag, ``table.py``).  The opportunities themselves are never kept: as a
# table of a row each, with its stratum as text, they were six million rows over a million
# deals, 850 MB spilled to disk and two thirds of the screen's time
# (benchmarks/results/collusion-speed.md); their cells are some ten thousand rows.  A
# stratum is grouped by its parts and written as text once per cell.
_CELL = (
    "count(*) AS units, count(*) FILTER (WHERE acted) AS acts, "
    "list(deal_id) FILTER (WHERE acted) AS deals"
)
# The cells of each behaviour are made by a statement of their own: in one statement
# DuckDB ran the declarations' window beside the thrown tricks' joins, each short of
# memory, and spilled 2.2 GB to disk over a million deals, 11.2 CPU s where the four
# statements take 5.8 (benchmarks/results/collusion-speed.md).
_CELLS = f"""
CREATE OR REPLACE TEMP TABLE collusion_cells (
    test {_TEST}, owner VARCHAR, targets VARCHAR[], stratum VARCHAR, units BIGINT,
    acts BIGINT, deals BIGINT[]
)
"""
# Deals a share of the declarations (``_STEPPING``) holds at most.
CHUNK_DEALS = 250_000
# The declarations of a share of the deals (those whose ``deal_id`` leaves ``$chunk`` over
# ``$chunks``), run once for each share (``_chunks``): the window over a million deals'
# 5.7 million declarations spilled 370 MB to disk within DuckDB's memory, 5.8 CPU s, where
# four shares of 250,000 deals spill none, 4.8 (benchmarks/results/collusion-speed.md).
# A share's cells and another's may have the same key: every count of the cells sums them.
_STEPPING = f"""
INSERT INTO collusion_cells
WITH declared AS (
    SELECT f.deal_id, f.fp, f.n, st.player,
           (st.seat - f.dealer_seat - 1 + f.n) % f.n AS pos,
           st.declaration <> 'pass' AS stood,
           least(coalesce({strength.of_hand("st.hand", "d")}, 0) // {strength.BAND}, 40)
               AS band
    FROM seats st
    JOIN collusion_deals f USING (session_id, deal_index)
    LEFT JOIN strength_deck d ON d.fp = f.fp AND d.pam = f.pam AND d.trump = f.trump
    WHERE NOT f.must AND st.declaration IS NOT NULL AND f.deal_id % $chunks = $chunk
),
stepping AS (
    SELECT player AS owner, targets, NOT stood AS acted, fp, n,
           pos = n - 1 AS dealer, standers, band, top // 2 AS top, deal_id
    FROM (
        SELECT *, count(*) FILTER (WHERE stood) OVER before AS standers,
               max(band) FILTER (WHERE stood) OVER before AS top,
               list(player) FILTER (WHERE stood) OVER before AS targets
        FROM declared
        WINDOW before AS (PARTITION BY deal_id ORDER BY pos
                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    )
    WHERE standers > 0
)
SELECT 'stepping-aside', owner, targets,
       concat_ws('/', fp, n, dealer, standers, band, top) AS stratum, {_CELL}
FROM stepping GROUP BY owner, targets, fp, n, dealer, standers, band, top
"""
_BASE = (
    # must_beat: the rules make a player who can beat the trick do so (heading, then
    # over-trumping), so letting a card hold is never a choice.  trick_fixed: the trump a
    # deal ends with held from its first card (no on_void turn during play), so a card's
    # power in each trick is known from it.  fp: the rules as a small number (the
    # fingerprint's rank), which every stratum's text begins with.  A declaration's
    # standers before it come from a window over the deal's declarations, not a join of
    # each with those before it and a group by (docs/performance.md, "The collusion screen").
    # Only deals whose seats are as loo-replay loads them count, as in the fairness tests
    # (``SEATED_AS_LOADED``).  A stranger's database may seat a player thousands of times
    # in a deal, and the lists of who stood before each declaration grow as the square of
    # a deal's seats (docs/limits.md, "A database from someone else").
    f"""
CREATE OR REPLACE TEMP TABLE collusion_deals AS
WITH s AS (
    SELECT session_id, dense_rank() OVER (ORDER BY rules_fingerprint) AS fp,
           coalesce(TRY_CAST(json_extract_string(rules, '$."deal.pam"') AS BOOLEAN), false)
               AS pam,
           json_extract_string(rules, '$."deal.trump"') AS method,
           json_extract_string(rules, '$."deal.trump_in_must"') AS in_must,
           coalesce(TRY_CAST(json_extract_string(rules, '$."follow.head"') AS BOOLEAN), true)
               AND json_extract_string(rules, '$."follow.void"') = 'overtrump' AS must_beat
    FROM sessions
)
SELECT d.rowid AS deal_id, d.session_id, d.deal_index, s.fp, d.seated AS n, d.must,
       coalesce(d.trump, 'N') AS trump, s.pam, s.must_beat, z.seat AS dealer_seat,
       coalesce(CASE WHEN d.must AND s.in_must <> 'same' THEN s.in_must ELSE s.method END, '')
           <> 'on_void' AS trick_fixed
FROM deals d
JOIN s USING (session_id)
{SEATED_AS_LOADED}
WHERE d.status = 'audited' AND d.knowledge = 'full'
""",
    strength.CHANCES.format(deals="collusion_deals"),
    strength.DECK.format(deals="collusion_deals"),
    # The cards of deals whose rules may leave the choice open, then each with the trick as
    # it stood before it: the best power so far and who held it.  The cards first, in a
    # table of their own: in one statement DuckDB joined every trick to the card tables'
    # product before the plays, 31 million rows for 20,000 six-player deals of which none
    # qualified (docs/performance.md, "The collusion screen").
    _PLAYED,
    """
CREATE OR REPLACE TEMP TABLE collusion_open AS
WITH played AS (
    SELECT b.deal_id, b.fp, b.n, b.pam, b.trump, b.trick, b.position, b.player,
           b.legal_cards, k.suit AS led, w.power, b.in_trick
    FROM collusion_played b
    JOIN strength_kinds k ON k.pam = b.pam AND k.trump = b.trump AND k.card = b.led_card
    JOIN strength_powers w ON w.pam = b.pam AND w.trump = b.trump AND w.led = k.suit
                          AND w.card = b.card
)
SELECT *, max(power) OVER so_far AS best, arg_max(player, power) OVER so_far AS holder
FROM played
WINDOW so_far AS (
    PARTITION BY deal_id, trick ORDER BY position
    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
""",
    _CELLS,
    _STEPPING,
    f"""
INSERT INTO collusion_cells
WITH open_choice AS (
    SELECT b.deal_id, b.trick, b.position
    FROM (
        SELECT deal_id, pam, trump, trick, position, best, led,
               unnest(legal_cards)::VARCHAR AS card
        FROM collusion_open
        WHERE position > 1 AND best >= 0 AND len(legal_cards) > 1
    ) b
    JOIN strength_powers w ON w.pam = b.pam AND w.trump = b.trump AND w.led = b.led
                          AND w.card = b.card
    GROUP BY ALL
    HAVING bool_or(w.power > b.best) AND bool_or(w.power <= b.best)
),
holding AS (
    SELECT b.player AS owner, [b.holder] AS targets, b.power <= b.best AS acted, b.fp, b.n,
           b.trick, b.position, b.in_trick, b.deal_id
    FROM collusion_open b
    JOIN open_choice USING (deal_id, trick, position)
)
SELECT 'not-beating', owner, targets, concat_ws('/', fp, n, trick, position, in_trick),
       {_CELL}
FROM holding GROUP BY owner, targets, fp, n, trick, position, in_trick
""",
    f"""
CREATE OR REPLACE TEMP TABLE collusion_thrown AS
SELECT a.session_id, a.deal_index, a.trick, a.player AS thrower, f.fp, f.n, f.deal_id,
       tr.cards - tr.dead AS in_trick
FROM (
    SELECT session_id, deal_index, player, trick FROM analysis_notes
    WHERE code = 'lost-trick'
    UNION ALL SELECT * FROM {unanalysed.TABLE}
) a
JOIN collusion_deals f USING (session_id, deal_index)
JOIN tricks tr USING (session_id, deal_index, trick)
""",
    f"""
INSERT INTO collusion_cells
WITH in_thrown AS (
    SELECT t.*, p.player, p.position, p.wins
    FROM collusion_thrown t
    JOIN plays p USING (session_id, deal_index, trick)
    WHERE NOT p.dead
),
won_before AS (
    SELECT t.session_id, t.deal_index, t.trick, tr.winner AS player, count(*) AS won
    FROM (SELECT DISTINCT session_id, deal_index, trick FROM collusion_thrown) t
    JOIN tricks tr ON tr.session_id = t.session_id AND tr.deal_index = t.deal_index
                  AND tr.trick < t.trick
    WHERE tr.winner IS NOT NULL
    GROUP BY ALL
),
receiving AS (
    SELECT r.player AS owner, [x.player] AS targets, r.wins AS acted,
           w.won IS NULL AS none_yet, r.fp, r.n, r.trick, r.in_trick,
           x.position AS thrower_position, r.position, r.deal_id
    FROM in_thrown x
    JOIN in_thrown r ON r.session_id = x.session_id AND r.deal_index = x.deal_index
                    AND r.trick = x.trick AND r.thrower = x.thrower AND r.player <> x.player
    LEFT JOIN won_before w ON w.session_id = r.session_id AND w.deal_index = r.deal_index
                          AND w.trick = r.trick AND w.player = r.player
    WHERE x.player = x.thrower
)
SELECT 'gift-tricks', owner, targets,
       concat_ws('/', fp, n, trick, in_trick, thrower_position, position), {_CELL}
FROM receiving GROUP BY owner, targets, fp, n, trick, in_trick, thrower_position, position
UNION ALL
SELECT 'loo-saving', owner, targets,
       concat_ws('/', fp, n, trick, in_trick, thrower_position, position), {_CELL}
FROM receiving WHERE none_yet
GROUP BY owner, targets, fp, n, trick, in_trick, thrower_position, position
""",
    # What only the cells were made from, let go before the counts run.
    *(
        f"DROP TABLE {t}"
        for t in ("collusion_open", "collusion_played", "collusion_thrown", *strength.TEMP_TABLES)
    ),
)
TEMP_TABLES = (
    "collusion_cells",
    "collusion_open",
    "collusion_played",
    "collusion_thrown",
    *strength.TEMP_TABLES,
    "collusion_deals",
)

_TOTALS = """
SELECT test::VARCHAR AS test, owner, stratum, total, acts FROM (
    SELECT test, owner, stratum, sum(units)::BIGINT AS total, sum(acts)::BIGINT AS acts
    FROM collusion_cells GROUP BY ALL
) ORDER BY ALL
"""
_BY_TARGET = """
SELECT test::VARCHAR AS test, owner, target, stratum, mine, my_acts FROM (
    SELECT test, owner, target, stratum, sum(units)::BIGINT AS mine,
           sum(acts)::BIGINT AS my_acts
    FROM (SELECT test, owner, stratum, units, acts, unnest(targets) AS target
          FROM collusion_cells)
    GROUP BY ALL
) ORDER BY ALL
"""
# Every pair that sat together in a loaded deal, with how many deals; ``closed``: every
# deal they shared with its cards known obliged a player who could beat the trick to
# (heading, over-trumping), so that letting a card hold was never a legal choice.  The deals
# are first counted by seating (the players, sorted, and whether the rules closed the
# choice), a few rows per session, and only those are cut into pairs: joining each deal's
# seats with each other took 8 s over a million deals
# (benchmarks/results/collusion-speed.md).  The pairs are a join of each seating's players
# with each other, which DuckDB streams: cutting each seating's list of players into its
# pairs carried the whole list into every row, as many rows as players, which for a deal of
# 3,000 seats (a stranger's database) was 9 million names held at once.  A deal of more
# seats than the reader accepts is no deal loo-replay loaded, and is left out: its pairs
# alone could outlast any bound (3 million players are 4.5 million million pairs).
_PAIRS = f"""
WITH seatings AS (
    SELECT p.players, f.must_beat, count(*) AS deals
    FROM (SELECT session_id, deal_index, list(player ORDER BY player) AS players
          FROM seats GROUP BY session_id, deal_index HAVING count(*) <= {MOST_SEATED}) p
    LEFT JOIN collusion_deals f USING (session_id, deal_index)
    GROUP BY ALL
),
seated AS (
    SELECT seating, must_beat, deals, unnest(players) AS player
    FROM (SELECT *, row_number() OVER () AS seating FROM seatings)
)
SELECT a.player, b.player, sum(a.deals)::BIGINT AS deals,
       coalesce(bool_and(a.must_beat), true) AS closed
FROM seated a JOIN seated b ON b.seating = a.seating AND a.player < b.player
GROUP BY ALL ORDER BY 1, 2
"""


@dataclass(frozen=True)
class Counts:
    totals: list[tuple[str, str, str, int, int]]  # test, owner, stratum, total, acts
    by_target: list[tuple[str, str, str, str, int, int]]  # ... target, stratum, mine, my_acts
    pairs: list[tuple[str, str, int, bool]]  # a, b, deals together, not-beating closed
    deals: int  # audited deals with every hand known
    analysed_here: int  # deals loaded without the analysis, analysed for the screen
    not_analysed: int  # deals without the analysis whose documents the database lacks


@contextlib.contextmanager
def prepared(con: duckdb.DuckDBPyConnection) -> Iterator[unanalysed.Computed]:
    """The temporary tables the counts read, dropped afterwards, with the fairness counts'
    memory for the run; first, the thrown tricks of deals loaded without the analysis."""
    strength.register(con)
    try:
        computed = unanalysed.register(con)
        with roomy(con, TEMP_TABLES):
            for statement in _BASE:
                if statement is _PLAYED and con.execute(_NONE_OPEN).fetchall() == [(True,)]:
                    statement += "AND false"
                if statement is _STEPPING:
                    chunks = _chunks(con)
                    for chunk in range(chunks):
                        con.execute(statement, {"chunks": chunks, "chunk": chunk})
                else:
                    con.execute(statement)
            yield computed
    finally:
        strength.unregister(con)
        con.unregister(unanalysed.TABLE)


def _chunks(con: duckdb.DuckDBPyConnection) -> int:
    """How many shares the declarations are counted in: at most ``CHUNK_DEALS`` deals each."""
    ((deals,),) = con.execute("SELECT count(*) FROM collusion_deals").fetchall()
    return max(1, -(-int(deals) // CHUNK_DEALS))


def count(con: duckdb.DuckDBPyConnection) -> Counts:
    """Every opportunity of the database counted."""
    with prepared(con) as computed:
        return counted(con, computed)


def counted(con: duckdb.DuckDBPyConnection, computed: unanalysed.Computed) -> Counts:
    """The counts, inside ``prepared`` (whose tables a caller may read further)."""
    totals = con.execute(_TOTALS).fetchall()
    by_target = con.execute(_BY_TARGET).fetchall()
    pairs = con.execute(_PAIRS).fetchall()
    ((deals,),) = con.execute("SELECT count(*) FROM collusion_deals").fetchall()
    return Counts(totals, by_target, pairs, int(deals), computed.deals, computed.missing)
