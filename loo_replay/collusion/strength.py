"""A hand's strength: the tricks it is expected to take, from a table of the cards' trick
chances (docs/collusion.md, "Hand strength").

A card's chance is the share of the tricks that cards like it took when played, over the
loaded deals of the same rules: "like it" is the same rank and kind (a trump, a plain
card, or Pam), so each chance rests on many plays.  A hand's strength is the sum of its
cards' chances: how many tricks it would take if each card won as often as its kind does.
It is computed in SQL beside the data, from the engine's own tables of which card beats
which (``engine/tables.py``), registered as small tables; nothing here knows the rules.
"""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa  # type: ignore[import-untyped]

from loo_replay.engine.cards import SUITS, canonical
from loo_replay.engine.tables import EFFECTIVE_SUIT, PAM_POWER, POWER

TRUMPS = (*SUITS, "N")  # the engine's trump states 0-4 as spelled here; N (NO_TRUMP): none
BAND = 250  # strength per band, when strength is a stratum: a quarter of a trick


def card_kinds() -> pa.Table:
    """(pam, trump, card, suit, kind, rank): the suit each card counts as and its kind."""
    rows: dict[str, list[Any]] = {k: [] for k in ("pam", "trump", "card", "suit", "kind", "rank")}
    for pam in (False, True):
        for t, trump in enumerate(TRUMPS):
            for card in range(52):
                suit = EFFECTIVE_SUIT[pam][t][card]
                power = POWER[pam][t][suit][card]
                kind = "pam" if power == PAM_POWER else "trump" if suit == t else "plain"
                rows["pam"].append(pam)
                rows["trump"].append(trump)
                rows["card"].append(canonical(card))
                rows["suit"].append(SUITS[suit])
                rows["kind"].append(kind)
                rows["rank"].append(card % 13)
    return pa.table(rows)


def card_powers() -> pa.Table:
    """(pam, trump, led, card, power): how strongly a card plays to a trick whose suit led
    is ``led``; -1 cannot win it (``engine.tables.POWER``)."""
    rows: dict[str, list[Any]] = {k: [] for k in ("pam", "trump", "led", "card", "power")}
    for pam in (False, True):
        for t, trump in enumerate(TRUMPS):
            for led in range(4):
                for card in range(52):
                    rows["pam"].append(pam)
                    rows["trump"].append(trump)
                    rows["led"].append(SUITS[led])
                    rows["card"].append(canonical(card))
                    rows["power"].append(POWER[pam][t][led][card])
    return pa.table(rows)


def register(con: duckdb.DuckDBPyConnection) -> None:
    """The two tables above as ``strength_kinds`` and ``strength_powers``."""
    con.register("strength_kinds", card_kinds())
    con.register("strength_powers", card_powers())


def unregister(con: duckdb.DuckDBPyConnection) -> None:
    con.unregister("strength_kinds")
    con.unregister("strength_powers")


# Over the loaded ``plays`` and ``seats`` of the deals in ``{deals}``, a table of
# (deal_id, session_id, deal_index, fp, pam, trump): each card kind's chance, then each
# seat's strength, both in thousandths of a trick: integers add up the same in any order,
# so a hand's band never depends on how DuckDB's threads happened to sum.  The plays are
# counted by card before the kinds are joined, and the hands meet a table of each card's
# chance (a few hundred rows): a join of every deal with every card's kind came first
# otherwise, five times the plays (docs/performance.md, "The collusion screen").
CHANCES = """
CREATE OR REPLACE TEMP TABLE strength_chances AS
WITH by_card AS (
    SELECT f.fp, f.pam, f.trump, p.card::VARCHAR AS card, count(*) AS played,
           count(*) FILTER (WHERE p.wins) AS won
    FROM plays p
    JOIN {deals} f USING (session_id, deal_index)
    WHERE NOT p.dead
    GROUP BY ALL
)
SELECT b.fp, k.kind, k.rank, round(1000 * sum(b.won) / sum(b.played))::INTEGER AS chance
FROM by_card b
JOIN strength_kinds k ON k.pam = b.pam AND k.trump = b.trump AND k.card = b.card
GROUP BY ALL
"""
HANDS = """
CREATE OR REPLACE TEMP TABLE strength_hands AS
WITH card_chance AS (
    SELECT c.fp, k.pam, k.trump, k.card, c.chance
    FROM strength_chances c JOIN strength_kinds k ON k.kind = c.kind AND k.rank = c.rank
),
held AS (
    SELECT f.deal_id, f.fp, f.pam, f.trump, st.seat, st.player,
           unnest(st.hand)::VARCHAR AS card
    FROM seats st JOIN {deals} f USING (session_id, deal_index)
)
SELECT h.deal_id, any_value(h.player) AS player, sum(coalesce(c.chance, 0))::INTEGER AS strength
FROM held h
LEFT JOIN card_chance c ON c.fp = h.fp AND c.pam = h.pam AND c.trump = h.trump AND c.card = h.card
GROUP BY h.deal_id, h.seat
"""
TEMP_TABLES = ("strength_hands", "strength_chances")
