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
# counted by card before the kinds are joined.  A hand is summed where it lies, each card
# looked up by its place in the deck in a list of the 52 cards' chances under the deal's
# rules, pam and trump (0 for a kind never played): unnesting every hand and grouping the
# cards back by seat took five times as long and, over a million deals, more memory than
# the whole screen may have (benchmarks/results/collusion-speed.md).  A seat with no cards
# known has no strength (NULL), as none at all.
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
# The 52 cards' chances, in the deck's order, under each rules (``fp``), Pam and trump: a
# few hundred rows, which a hand meets by its deal's rules (``of_hand``).
DECK = """
CREATE OR REPLACE TEMP TABLE strength_deck AS
SELECT g.fp, k.pam, k.trump,
       list(coalesce(c.chance, 0) ORDER BY enum_code(k.card::card)) AS chances
FROM (SELECT DISTINCT fp FROM {deals}) g
CROSS JOIN strength_kinds k
LEFT JOIN strength_chances c ON c.fp = g.fp AND c.kind = k.kind AND c.rank = k.rank
GROUP BY ALL
"""


def of_hand(hand: str, deck: str) -> str:
    """The SQL of the strength of the hand ``hand`` (a list of cards) from the row ``deck``
    of ``strength_deck`` that its deal's rules, Pam and trump meet: NULL for no cards."""
    return f"list_sum(list_transform({hand}, lambda x: {deck}.chances[enum_code(x) + 1]))::INTEGER"


# Each seat's strength as a table (the report's leaks).  The collusion screen computes it in
# the row of each declaration instead: a join on the deal and the player multiplies the rows
# of a player seated more than once in a deal (a stranger's database: 3,000 times over made
# 9 million rows, and the window over them more than DuckDB's memory).
HANDS = f"""
CREATE OR REPLACE TEMP TABLE strength_hands AS
SELECT f.deal_id, st.player, {of_hand("st.hand", "d")} AS strength
FROM seats st
JOIN {{deals}} f USING (session_id, deal_index)
LEFT JOIN strength_deck d ON d.fp = f.fp AND d.pam = f.pam AND d.trump = f.trump
"""
TEMP_TABLES = ("strength_deck", "strength_chances")  # what CHANCES and DECK make
