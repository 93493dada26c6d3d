"""What the fairness tests count, in SQL over the tables ``ingest`` fills.

One query per test family, each one scan of the dealt cards grouped by the
scope (a session, a venue, or everything): no Python loop over deals.  Only
audited deals count (misdeals and rejected deals are not fair or unfair
deals).  A card's position is its seat counted clockwise from the eldest
(0) to the dealer (seated - 1), the Miss next (seated).  The top trumps come
from a small table of the engine's trump order, registered beside the data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa  # type: ignore[import-untyped]

from loo_replay.engine.cards import SUITS, canonical
from loo_replay.engine.tables import TRUMP_ORDER

SCOPES = {  # --by -> the SQL that names each deal's group (fixed text, never user input)
    "session": "d.session_id",
    "venue": "coalesce(s.venue, '')",
    "all": "'all'",
}


def trump_ranks() -> pa.Table:
    """(pam, turn_up, card, tr): each trump's place from the top once the turn-up is set
    aside; tr = 1 is RULES.md §3's top trump (the next one down when the best is turned)."""
    rows: dict[str, list[Any]] = {"pam": [], "turn_up": [], "card": [], "tr": []}
    for pam in (False, True):
        for turned in range(52):
            order = [c for c in TRUMP_ORDER[pam][turned // 13] if c != turned]
            for place, card in enumerate(order, start=1):
                rows["pam"].append(pam)
                rows["turn_up"].append(canonical(turned))
                rows["card"].append(canonical(card))
                rows["tr"].append(place)
    return pa.table(rows)


def trumps_left(pam: bool, suit: str) -> int:
    """Trumps among the 51 cards beside the turn-up."""
    return len(TRUMP_ORDER[pam][SUITS.index(suit)]) - 1


# The deals, hands and cards of the scope, made once into temporary tables (a read-only
# connection may make them); every count below reads them.
_BASE = (
    """
CREATE OR REPLACE TEMP TABLE fair AS
    SELECT d.session_id, d.deal_index, {grp} AS grp, d.dealer, d.seated AS n, d.turn_up,
           d.miss,
           coalesce(TRY_CAST(json_extract_string(s.rules, '$."deal.pam"') AS BOOLEAN), false)
               AS pam
    FROM deals d JOIN sessions s USING (session_id)
    WHERE d.status = 'audited'
""",
    """
CREATE OR REPLACE TEMP TABLE held AS
WITH seated AS (
    SELECT f.*, st.player, st.seat, st.hand,
           max(st.seat) FILTER (WHERE st.dealer)
               OVER (PARTITION BY st.session_id, st.deal_index) AS dealer_seat
    FROM fair f JOIN seats st USING (session_id, deal_index)
)
SELECT grp, session_id, deal_index, dealer, n, turn_up, miss IS NOT NULL AS has_miss, pam,
       player, (seat - dealer_seat - 1 + n) % n AS pos, hand, len(hand) AS h
FROM seated
UNION ALL
SELECT grp, session_id, deal_index, dealer, n, turn_up, true, pam, NULL, n, miss, len(miss)
FROM fair WHERE miss IS NOT NULL
""",
    """
CREATE OR REPLACE TEMP TABLE cards AS
WITH unnested AS (SELECT *, unnest(hand) AS card FROM held)
SELECT u.*, t.tr
FROM unnested u
LEFT JOIN fairness_trumps t ON t.pam = u.pam AND t.turn_up = u.turn_up AND t.card = u.card
""",
)

_DEALT = """
SELECT grp, dealer, count(*) AS deals FROM fair GROUP BY ALL
"""

_SEATS = """
SELECT grp, n, h, has_miss, turn_up IS NOT NULL AS tu,
       CASE WHEN tr = 1 THEN 'top' WHEN card[1] = 'A' THEN 'ace'
            WHEN card[1] IN ('K', 'Q', 'J') THEN 'court' ELSE 'other' END AS cls,
       pos, count(*) AS cards
FROM cards GROUP BY ALL
"""

# One row per deal (its eldest's): the classes of the turn-up and of the top trump, from
# which the cards of each class outside the turn-up follow.
_KINDS = """
SELECT h.grp, h.n, h.h, h.has_miss, h.turn_up IS NOT NULL AS tu,
       h.turn_up[1] AS turned, t.card[1] AS top, count(*) AS deals
FROM held h
LEFT JOIN fairness_trumps t ON t.pam = h.pam AND t.turn_up = h.turn_up AND t.tr = 1
WHERE h.pos = 0 AND h.player IS NOT NULL
GROUP BY ALL
"""

_HANDS = """
SELECT grp, dealer, player, h, pam, suit,
       count(*) AS deals,
       count(*) FILTER (WHERE best = 1) AS top1,
       count(*) FILTER (WHERE best <= 3) AS top3,
       count(*) FILTER (WHERE trumps >= 2) AS two
FROM (
    SELECT grp, session_id, deal_index, dealer, player, h, pam, turn_up[2] AS suit,
           min(tr) AS best, count(tr) AS trumps
    FROM cards WHERE turn_up IS NOT NULL AND player IS NOT NULL
    GROUP BY ALL
)
GROUP BY ALL
"""

_TURN_UP = """
SELECT grp, dealer, turn_up[2] AS suit, turn_up[1] IN ('A', 'K') AS high, count(*) AS deals
FROM fair WHERE turn_up IS NOT NULL GROUP BY ALL
"""

_SHUFFLE = """
WITH played AS (
    SELECT session_id, deal_index, card,
           lead(card) OVER (PARTITION BY session_id, deal_index ORDER BY trick, position) AS after
    FROM plays
),
placed AS (
    SELECT session_id, deal_index, grp, dealer, card, pos, n + has_miss::INTEGER AS places, h
    FROM cards
)
SELECT a.grp, a.dealer, a.places, a.h, (b.pos - a.pos + a.places) % a.places AS distance,
       count(*) AS pairs
FROM played p
JOIN placed a ON a.session_id = p.session_id AND a.deal_index = p.deal_index + 1
             AND a.card = p.card
JOIN placed b ON b.session_id = p.session_id AND b.deal_index = p.deal_index + 1
             AND b.card = p.after
GROUP BY ALL
"""

_REPEATED_HANDS = """
SELECT grp, h, sum(c)::BIGINT AS hands, sum(c * (c - 1) // 2)::BIGINT AS equal_pairs
FROM (SELECT grp, h, list_sort(hand) AS k, count(*) AS c FROM held
      WHERE player IS NOT NULL GROUP BY ALL)
GROUP BY ALL
"""

_SAME_DEAL_PAIRS = """
SELECT grp, h, sum(n * (n - 1) // 2)::BIGINT AS pairs
FROM held WHERE pos = 0 AND player IS NOT NULL GROUP BY ALL
"""

_REPEATED_DEALS = """
SELECT grp, n, h, has_miss, sum(c)::BIGINT AS deals,
       sum(c * (c - 1) // 2)::BIGINT AS equal_pairs
FROM (
    SELECT grp, n, h, has_miss, k, count(*) AS c
    FROM (SELECT grp, session_id, deal_index, any_value(n) AS n, any_value(h) AS h,
                 bool_or(has_miss) AS has_miss, list_sort(list(list_sort(hand))) AS k
          FROM held GROUP BY ALL)
    GROUP BY ALL
)
GROUP BY ALL
"""


@dataclass(frozen=True)
class Counts:
    """The rows of every query for one scope, as tuples in the queries' column order."""

    scope: str
    dealt: list[tuple[Any, ...]]
    seats: list[tuple[Any, ...]]
    kinds: list[tuple[Any, ...]]
    hands: list[tuple[Any, ...]]
    turn_up: list[tuple[Any, ...]]
    shuffle: list[tuple[Any, ...]]
    repeated_hands: list[tuple[Any, ...]]
    same_deal_pairs: list[tuple[Any, ...]]
    repeated_deals: list[tuple[Any, ...]]


QUERIES = (
    _DEALT,
    _SEATS,
    _KINDS,
    _HANDS,
    _TURN_UP,
    _SHUFFLE,
    _REPEATED_HANDS,
    _SAME_DEAL_PAIRS,
    _REPEATED_DEALS,
)


def count(con: duckdb.DuckDBPyConnection, scope: str) -> Counts:
    """Run the queries for ``scope`` (a key of ``SCOPES``)."""
    con.register("fairness_trumps", trump_ranks())
    try:
        for statement in _BASE:
            con.execute(statement.format(grp=SCOPES[scope]))
        rows = [con.execute(q).fetchall() for q in QUERIES]
    finally:
        for table in ("cards", "held", "fair"):
            con.execute(f"DROP TABLE IF EXISTS temp.{table}")
        con.unregister("fairness_trumps")
    return Counts(scope, *rows)
