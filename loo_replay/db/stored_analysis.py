"""A loaded session's double-dummy analyses read back from the database.

``ingest`` and ``audit`` analyse every deal once and store it (``analysis_deals``,
``analysis_players``, ``analysis_notes``, ``analysis_cards``); the replay pages read it
here instead of searching each deal again.  A solved deal whose cards were not stored
(loaded before ``analysis_cards`` existed) is left out, and its page analyses it anew.
"""

from __future__ import annotations

import duckdb

from loo_replay.db.keys import BY_KEY, session_rows
from loo_replay.engine.analysis import SOLVED, CardStep, DealAnalysis, Note, PlayerAnalysis
from loo_replay.engine.cards import CARD_SPELLINGS


def _card(code: str) -> int:
    return CARD_SPELLINGS[code]


def _cards(codes: list[str] | None) -> tuple[int, ...]:
    return tuple(CARD_SPELLINGS[c] for c in codes or ())


def stored_analyses(
    con: duckdb.DuckDBPyConnection,
    session_id: str,
    deal_index: int | None = None,
    session_key: int | None = None,
) -> dict[int, DealAnalysis]:
    """Each analysed deal of ``session_id`` by deal index (only ``deal_index``'s, if given:
    one replay served), as ``analyse_deal`` gave it (the deal's ``total`` of cards aside,
    which nothing shown reads).  Its rows are found by the session's key (``db/keys.py``;
    looked up unless given)."""
    key = session_rows(con, session_id, deal_index, session_key)
    if key is None:
        return {}
    one = "" if deal_index is None else " AND deal_index = ?"
    players: dict[int, list[PlayerAnalysis]] = {}
    # In the analysis's order: clockwise from the eldest hand, the dealer's left.
    for index, *row in con.execute(
        f"""
        SELECT a.deal_index, a.player, a.guarantee, a.tricks, a.lost
        FROM analysis_players a
        JOIN seats s USING (session_key, session_id, deal_index, player)
        JOIN seats d ON d.session_key = s.session_key AND d.session_id = s.session_id
            AND d.deal_index = s.deal_index AND d.dealer
        JOIN deals USING (session_key, session_id, deal_index)
        WHERE a.session_key = ? AND a.session_id = ?{one.replace("deal_index", "a.deal_index")}
        ORDER BY a.deal_index, (s.seat - d.seat - 1 + deals.seated) % deals.seated
        """,
        key,
    ).fetchall():
        players.setdefault(index, []).append(PlayerAnalysis(*row))
    notes: dict[int, list[Note]] = {}
    for index, code, player, message, trick, card, before, after, better in con.execute(
        f"""
        SELECT deal_index, code, player, message, trick, card, before, after, better
        FROM analysis_notes WHERE {BY_KEY}{one} ORDER BY deal_index, note
        """,
        key,
    ).fetchall():
        notes.setdefault(index, []).append(
            Note(
                code,
                player,
                message,
                trick,
                None if card is None else _card(card),
                before,
                after,
                _cards(better),
            )
        )
    steps: dict[int, list[CardStep]] = {}
    for index, seat, trick, card, before, after, better, announced in con.execute(
        f"""
        SELECT deal_index, seat, trick, card, before, after, better, announced
        FROM analysis_cards WHERE {BY_KEY}{one} ORDER BY deal_index, step
        """,
        key,
    ).fetchall():
        steps.setdefault(index, []).append(
            CardStep(seat, trick, _card(card), before, after, _cards(better), announced)
        )
    out: dict[int, DealAnalysis] = {}
    for index, status, reason, nodes, cards, stopped in con.execute(
        f"""
        SELECT deal_index, status, reason, nodes, cards, stopped
        FROM analysis_deals WHERE {BY_KEY}{one}
        """,
        key,
    ).fetchall():
        if status == SOLVED and cards and index not in steps:
            continue
        out[index] = DealAnalysis(
            status,
            reason,
            nodes,
            cards,
            stopped=stopped,
            players=tuple(players.get(index, ())),
            notes=tuple(notes.get(index, ())),
            steps=tuple(steps.get(index, ())),
        )
    return out
