"""What the fairness tests count, in SQL over the tables ``ingest`` fills.

One query per test family, each one scan of the dealt hands grouped by the
scope (a session, a venue, or everything): no Python loop over deals.  Only
audited deals with every hand known count (misdeals and rejected deals are
not fair or unfair deals, and a deal recorded with hands left out shows too
few of its cards).  A card's position is its seat counted clockwise from the eldest
(0) to the dealer (seated - 1), the Miss next (seated).  The trumps come from a
small table of masks of the engine's trump order, registered beside the data.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa  # type: ignore[import-untyped]

from loo_replay.db.settings import sized
from loo_replay.engine.cards import canonical
from loo_replay.engine.tables import TRUMP_ORDER
from loo_replay.logs.parse import MOST_SEATED

# DuckDB's memory for a run over the whole database (the fairness tests, the collusion
# screen): a million deals' joins do not fit in the 128 MB the loaders use, and spill to
# disk beyond this; with Python's share (the imports, a batch of tests, the largest law: 83 MB
# for the repeated hands of a million deals; the collusion screen's deals behind its flags)
# the process stays within issue 53's 600 MB (benchmarks/fairness.py and
# benchmarks/results/collusion-speed.md measure it).  `report --jobs 2` runs both in a
# process of its own beside its main process and the spawn's resource tracker (94 MB): at a
# million deals both at 300 MB peaked at 564 MB, at 220 MB at 482 (505 with the fairness
# code of e08b654), the same results; at 180 MB the screen's counts ran out (they held 172
# MB): little to spare (benchmarks/results/million.md).
MEMORY = "220MB"
SCOPES = {  # --by -> the SQL that names each deal's group (fixed text, never user input)
    "session": "f.session_id",
    "venue": "coalesce(f.venue, '')",
    "all": "'all'",
}


def _mask(cards: list[int]) -> int:
    return sum(1 << c for c in cards)


def trump_masks() -> pa.Table:
    """(pam, turn_up, top_card, trumps, top1, top3): once the turn-up is set aside, the trumps
    as a 52-bit mask (bit ``enum_code`` of a card, 2S to AC), docs/rules.md §3's top trump (the
    next one down when the best is turned) and the top three."""
    rows: dict[str, list[Any]] = {
        k: [] for k in ("pam", "turn_up", "top_card", "trumps", "top1", "top3")
    }
    for pam in (False, True):
        for turned in range(52):
            order = [c for c in TRUMP_ORDER[pam][turned // 13] if c != turned]
            rows["pam"].append(pam)
            rows["turn_up"].append(canonical(turned))
            rows["top_card"].append(canonical(order[0]))
            rows["trumps"].append(_mask(order))
            rows["top1"].append(_mask(order[:1]))
            rows["top3"].append(_mask(order[:3]))
    return pa.table(rows)


# The deals, cards, neighbours and hands of the whole database, made once per run into
# temporary tables (a read-only connection may make them), keyed by a number per deal;
# each scope's counts below are aggregations of them.
# Only deals whose seats are as loo-replay loads them count (``SEATED_AS_LOADED``, which
# the collusion screen shares): one row per seated player, one dealer, no more players than
# the reader accepts (``logs.parse.MOST_SEATED``).  A stranger's database may seat a player
# millions of times in a deal: its cards and hands, and the players grouped from them,
# would multiply past any memory bound (docs/limits.md, "A database from someone else").
# ``z``: each deal's seats summed up (its dealer's seat and hand size), ``d`` the deal, both
# found by ``{key}``: a session's id (the collusion screen) or its integer key (the fairness
# counts, whose joins of every card on an integer are 2.5 times cheaper than on a text; a
# database whose keys do not follow its ids only loses the deals they muddle, never
# multiplies them, since every join of a run is on the same columns).
def seated_as_loaded(key: str) -> str:
    """``SEATED_AS_LOADED`` with deals found by ``key`` (``session_id`` or ``session_key``)."""
    return f"""
JOIN (SELECT {key}, deal_index, count(*) AS seat_rows,
             any_value(seat) FILTER (WHERE dealer) AS seat,
             any_value(len(hand)) FILTER (WHERE dealer) AS h,
             count(*) FILTER (WHERE dealer) AS dealers
      FROM seats GROUP BY {key}, deal_index) z
  ON z.{key} = d.{key} AND z.deal_index = d.deal_index
  AND z.seat_rows = d.seated AND z.dealers = 1 AND d.seated <= {MOST_SEATED}
"""


SEATED_AS_LOADED = seated_as_loaded("session_id")
# A hand's mask: the bits of its cards; NULL for a hand of no card, which is no hand (only a
# database changed by hand has one; a card listed twice there counts once).
_MASK = "list_bit_or(list_transform({cards}, lambda c: 1::BIGINT << enum_code(c)))"
_RANKS = {  # docs/fairness.md's classes of cards-to-seats outside the top trump, as masks
    "ace": _mask([s * 13 + 12 for s in range(4)]),
    "court": _mask([s * 13 + r for s in range(4) for r in (9, 10, 11)]),
    "other": _mask([s * 13 + r for s in range(4) for r in range(9)]),
}
_BASE = (
    f"""
CREATE OR REPLACE TEMP TABLE fairness_deals AS
SELECT f.*, bit_count(t.trumps) AS trumps, NULL::INTEGER AS g FROM (
    SELECT d.rowid AS deal_id, nx.rowid AS next_id, d.session_key, d.session_id, d.deal_index,
           s.venue, d.dealer,
           d.seated AS n, d.miss IS NOT NULL AS has_miss, d.turn_up,
           coalesce(TRY_CAST(json_extract_string(s.rules, '$."deal.pam"') AS BOOLEAN), false)
               AS pam,
           z.seat AS dealer_seat, z.h
    FROM deals d
    JOIN sessions s USING (session_key, session_id)
    {seated_as_loaded("session_key")}
    LEFT JOIN deals nx ON nx.session_key = d.session_key AND nx.deal_index = d.deal_index + 1
                      AND nx.status = 'audited' AND nx.knowledge = 'full'
    WHERE d.status = 'audited' AND d.knowledge = 'full'
) f
LEFT JOIN fairness_trump_masks t ON t.pam = f.pam AND t.turn_up = f.turn_up  -- trumps beside it
""",
    # Each hand (a seat's, the Miss's) as a 52-bit mask, with its trumps and its cards of each
    # class of cards-to-seats counted on it, so that no query needs a row per card or to sort
    # (docs/fairness.md, "Speed").  A card's position is its seat counted clockwise from the
    # eldest (0) to the dealer (seated - 1), the Miss next (seated).
    f"""
CREATE OR REPLACE TEMP TABLE fairness_hands AS
WITH dealt AS (
    SELECT f.deal_id, st.player, (st.seat - f.dealer_seat - 1 + f.n) % f.n AS pos,
           {_MASK.format(cards="st.hand")} AS hand, f.pam, f.turn_up
    FROM seats st JOIN fairness_deals f USING (session_key, deal_index)
    UNION ALL
    SELECT f.deal_id, NULL, f.n, {_MASK.format(cards="d.miss")}, f.pam, f.turn_up
    FROM deals d JOIN fairness_deals f USING (session_key, deal_index)
    WHERE d.miss IS NOT NULL
)
SELECT x.deal_id, x.player, x.pos, x.player IS NULL AS miss, x.hand,
       coalesce(x.hand & t.top3 <> 0, false) AS top3,
       coalesce(bit_count(x.hand & t.trumps), 0) AS trumps,
       coalesce(bit_count(x.hand & t.top1), 0) AS top,
       bit_count(x.hand & {_RANKS["ace"]} & ~coalesce(t.top1, 0)) AS ace,
       bit_count(x.hand & {_RANKS["court"]} & ~coalesce(t.top1, 0)) AS court,
       bit_count(x.hand & {_RANKS["other"]} & ~coalesce(t.top1, 0)) AS other
FROM dealt x
LEFT JOIN fairness_trump_masks t ON t.pam = x.pam AND t.turn_up = x.turn_up
WHERE x.hand IS NOT NULL
""",
    # Where each card lies in a deal, in one row a deal: the cards dealt, and bit k of each
    # card's position as the mask ``b{k}`` (positions are under 32: ``MOST_SEATED``), so that
    # placing a card played is arithmetic on a row per deal, not a join on every card dealt.
    """
CREATE OR REPLACE TEMP TABLE fairness_places AS
SELECT deal_id, count(*) AS places, bit_or(hand) AS dealt,
"""
    + ",\n".join(
        f"       coalesce(bit_or(hand) FILTER (WHERE pos & {1 << k} <> 0), 0) AS b{k}"
        for k in range(5)
    )
    + """
FROM fairness_hands GROUP BY deal_id
""",
    # Each card played, where it lies in the next deal (dealt there: in a hand or the Miss):
    # neighbours are found by equality joins (the next card of a trick, or the first of the
    # next after its last), not by a window over every card played, so that DuckDB can spill.
    """
CREATE OR REPLACE TEMP TABLE fairness_placed AS
SELECT next_id, trick, position, last, place, places FROM (
    SELECT f.next_id, p.trick, p.position, p.position = t.cards AS last, m.places, m.dealt,
           enum_code(p.card) AS c,
"""
    + " | ".join(f"(((m.b{k} >> c) & 1) << {k})" for k in range(5))
    + """ AS place
    FROM plays p
    JOIN fairness_deals f USING (session_key, deal_index)
    JOIN tricks t USING (session_key, deal_index, trick)
    JOIN fairness_places m ON m.deal_id = f.next_id
)
WHERE (dealt >> c) & 1 = 1
""",
    """
CREATE OR REPLACE TEMP TABLE fairness_pairs AS
SELECT x.next_id AS deal_id, (y.place - x.place + x.places) % x.places AS distance
FROM fairness_placed x
JOIN fairness_placed y ON y.next_id = x.next_id AND y.trick = x.trick
                      AND y.position = x.position + 1
UNION ALL
SELECT x.next_id, (y.place - x.place + x.places) % x.places
FROM fairness_placed x
JOIN fairness_placed y ON y.next_id = x.next_id AND y.trick = x.trick + 1 AND y.position = 1
WHERE x.last
""",
)
# The deals ``fairness_deals`` leaves out for their seats, for the output to say so.
LEFT_OUT = """
SELECT (SELECT count(*) FROM deals WHERE status = 'audited' AND knowledge = 'full')
     - (SELECT count(*) FROM fairness_deals)
"""
# Each query's rows over the sessions or venues, kept until they are read a batch of groups
# at a time (``count_batches``).
GROUPED = tuple(f"fairness_grouped_{i}" for i in range(9))
TEMP_TABLES = (
    *GROUPED,
    "fairness_names",
    "fairness_hands",
    "fairness_pairs",
    "fairness_placed",
    "fairness_places",
    "fairness_deals",
)

_DEALT = """
SELECT {grp} AS grp, f.dealer, count(*) AS deals FROM fairness_deals f GROUP BY ALL
"""

# The cards of each class dealt to each position: the hands' counts summed, one row a class.
_SEATS = """
SELECT grp, n, h, has_miss, tu, cls, pos, cards FROM (
    SELECT {grp} AS grp, f.n, f.h, f.has_miss, f.turn_up IS NOT NULL AS tu, x.pos,
           sum(x.top)::BIGINT AS top, sum(x.ace)::BIGINT AS ace,
           sum(x.court)::BIGINT AS court, sum(x.other)::BIGINT AS other
    FROM fairness_hands x JOIN fairness_deals f USING (deal_id)
    GROUP BY ALL
) UNPIVOT (cards FOR cls IN (top, ace, court, other))
WHERE cards > 0
"""

# The classes of each deal's turn-up and top trump, from which the cards of each class
# outside the turn-up follow.
_KINDS = """
SELECT {grp} AS grp, f.n, f.h, f.has_miss, f.turn_up IS NOT NULL AS tu,
       f.turn_up[1] AS turned, t.top_card[1] AS top, count(*) AS deals
FROM fairness_deals f
LEFT JOIN fairness_trump_masks t ON t.pam = f.pam AND t.turn_up = f.turn_up
GROUP BY ALL
"""

_HANDS = """
SELECT {grp} AS grp, f.dealer, x.player, f.h, f.trumps, count(*) AS deals,
       count(*) FILTER (WHERE x.top = 1) AS top1,
       count(*) FILTER (WHERE x.top3) AS top3,
       count(*) FILTER (WHERE x.trumps >= 2) AS two
FROM fairness_hands x JOIN fairness_deals f USING (deal_id)
WHERE f.turn_up IS NOT NULL AND NOT x.miss
GROUP BY ALL
"""

_TURN_UP = """
SELECT {grp} AS grp, f.dealer, f.turn_up[2] AS suit, f.turn_up[1] IN ('A', 'K') AS high,
       count(*) AS deals
FROM fairness_deals f WHERE f.turn_up IS NOT NULL GROUP BY ALL
"""

_SHUFFLE = """
SELECT {grp} AS grp, f.dealer, f.n + f.has_miss::INTEGER AS places, f.h, p.distance,
       count(*) AS pairs
FROM fairness_pairs p JOIN fairness_deals f USING (deal_id)
GROUP BY ALL
"""

_REPEATED_HANDS = """
SELECT grp, h, sum(c)::BIGINT AS hands, sum(c * (c - 1) // 2)::BIGINT AS equal_pairs
FROM (SELECT {grp} AS grp, f.h, x.hand, count(*) AS c
      FROM fairness_hands x JOIN fairness_deals f USING (deal_id)
      WHERE NOT x.miss GROUP BY ALL)
GROUP BY ALL
"""

_SAME_DEAL_PAIRS = """
SELECT {grp} AS grp, f.h, sum(f.n * (f.n - 1) // 2)::BIGINT AS pairs
FROM fairness_deals f GROUP BY ALL
"""

# A deal's key: the sum of its hands' hashes, the same whoever got which hand (two deals
# of different hands share it with a chance of about 2**-64).
_REPEATED_DEALS = """
SELECT grp, n, h, has_miss, sum(c)::BIGINT AS deals,
       sum(c * (c - 1) // 2)::BIGINT AS equal_pairs
FROM (
    SELECT {grp} AS grp, f.n, f.h, f.has_miss, x.deal, count(*) AS c
    FROM (SELECT deal_id, sum(hash(hand)) AS deal FROM fairness_hands GROUP BY deal_id) x
    JOIN fairness_deals f USING (deal_id)
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


@contextlib.contextmanager
def roomy(con: duckdb.DuckDBPyConnection, temp_tables: tuple[str, ...]) -> Iterator[None]:
    """DuckDB's memory raised to ``MEMORY`` (``db.settings.sized``: or the bound the user
    set) and insertion order let go (less memory; no order is needed) for a run over the
    whole database; afterwards ``temp_tables`` are dropped and the settings are as they
    were.  The collusion screen's counts run in it too."""
    ((order, limit),) = con.execute(
        "SELECT current_setting('preserve_insertion_order'), current_setting('memory_limit')"
    ).fetchall()
    con.execute("SET preserve_insertion_order = false")
    sized(con, MEMORY)
    try:
        yield
    finally:
        # A connection that Ctrl-C closed has nothing left to drop or restore.
        with contextlib.suppress(duckdb.ConnectionException):
            for table in temp_tables:
                con.execute(f"DROP TABLE IF EXISTS temp.{table}")
            con.execute(f"SET preserve_insertion_order = {bool(order)}")
            con.execute("SET memory_limit = ?", [limit])


@contextlib.contextmanager
def prepared(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """The temporary tables every scope's counts read, dropped afterwards."""
    con.register("fairness_trump_masks", trump_masks())
    try:
        with roomy(con, TEMP_TABLES):
            for statement in _BASE:
                con.execute(statement)
            for spent in ("fairness_placed", "fairness_places"):  # read only by the tables above
                con.execute(f"DROP TABLE temp.{spent}")
            yield
    finally:
        con.unregister("fairness_trump_masks")


def count(con: duckdb.DuckDBPyConnection, scope: str) -> Counts:
    """The counts of ``scope`` (a key of ``SCOPES``), inside ``prepared(con)``."""
    rows = [_rows(con, q.format(grp=SCOPES[scope])) for q in QUERIES]
    return Counts(scope, *rows)


def _rows(
    con: duckdb.DuckDBPyConnection,
    query: str,
    parameters: Sequence[object] = (),
    names: Sequence[str] | None = None,
) -> list[tuple[Any, ...]]:
    """The rows of ``query`` as tuples of Python values, as ``fetchall`` gives them, read as
    columns: DuckDB's ``fetchall`` makes a Python object a value itself, more than twice the
    CPU of NumPy's ``tolist`` a column (docs/fairness.md, "Speed").  The first column, a
    group's place, is named from ``names`` where given.  Every count is a BIGINT (a sum is
    cast: NumPy would read DuckDB's HUGEINT as a float)."""
    columns = [c.tolist() for c in con.execute(query, parameters).fetchnumpy().values()]
    if names is not None:
        columns[0] = [names[g] for g in columns[0]]
    return list(zip(*columns, strict=True))


GROUPS_A_BATCH = 200  # sessions (or venues) whose counts are fetched at once: about 30,000 rows


def count_batches(
    con: duckdb.DuckDBPyConnection, scope: str, groups: int = GROUPS_A_BATCH
) -> Iterator[Counts]:
    """The counts of ``scope``, inside ``prepared(con)``, a batch of ``groups`` groups at a
    time in the groups' order (Python's, as the tests sort them): each query's rows are kept
    in a temporary table and fetched by batch, so that the rows of 10,000 sessions (2.8
    million over a million deals) are never all held in Python (docs/fairness.md, "Speed").
    The queries group each deal by its group's place in that order (``g``), an integer, and
    keep their rows in batch order, so that a batch's fetch reads its own rows only."""
    if scope == "all":
        yield count(con, scope)
        return
    grp = SCOPES[scope]
    found = con.execute(f"SELECT DISTINCT {grp} FROM fairness_deals f").fetchall()
    names = sorted(g for (g,) in found)
    places = pa.table({"grp": names, "g": pa.array(range(len(names)), pa.int32())})
    con.register("fairness_places", places)
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE fairness_names AS FROM fairness_places")
    finally:
        con.unregister("fairness_places")
    con.execute(f"UPDATE fairness_deals f SET g = n.g FROM fairness_names n WHERE n.grp = {grp}")
    try:
        for table, query in zip(GROUPED, QUERIES, strict=True):
            con.execute(
                f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT q.grp // {groups} AS batch, q.* "
                f"FROM ({query.format(grp='f.g')}) q ORDER BY batch"
            )
        for batch in range(-(-len(names) // groups)):
            rows = [
                _rows(con, f"SELECT * EXCLUDE (batch) FROM {table} WHERE batch = ?", [batch], names)
                for table in GROUPED
            ]
            yield Counts(scope, *rows)
    finally:
        for table in (*GROUPED, "fairness_names"):
            con.execute(f"DROP TABLE IF EXISTS temp.{table}")
