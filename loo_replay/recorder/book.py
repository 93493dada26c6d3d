"""Journal entries to the hand log they stand for, and back (to resume from a log alone).

An entry is one thing the scorer typed: a deal begun (its number and dealer), the card turned
up, an event of docs/log-format.md as it stands in the log, a hand or the Miss shown, a deal
declared a misdeal, a deal ended early.  The log is a pure function of the live entries, so
an undo, a resume and the file on disk always agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from loo_replay.recorder.journal import Entry

# The fields of a deal a log may carry that the recorder does not type but keeps on resume.
_KEPT = ("players", "recorded", "meta")


def session_entry(session: Mapping[str, Any], meta: Mapping[str, Any] | None = None) -> Entry:
    """The first entry: the session header (and the document's own ``meta``, if any)."""
    entry: Entry = {"kind": "session", "session": dict(session)}
    if meta is not None:
        entry["meta"] = dict(meta)
    return entry


def document(entries: list[Entry]) -> dict[str, Any]:
    """The hand log of ``entries`` (the first is the session)."""
    deals: list[dict[str, Any]] = []
    for entry in entries[1:]:
        kind = entry["kind"]
        if kind == "deal":
            deal = {"deal": entry["deal"], "dealer": entry["dealer"]}
            deal.update({k: entry[k] for k in _KEPT if k in entry})
            deals.append(deal)
            continue
        deal = deals[-1]
        if kind == "turn_up":
            deal["turn_up"] = entry["card"]
        elif kind == "event":
            deal.setdefault("events", []).append(entry["event"])
        elif kind == "hand":
            deal.setdefault("hands", {})[entry["player"]] = entry["cards"]
        elif kind == "miss":
            deal["miss"] = entry["cards"]
        elif kind == "misdeal":
            deal["misdeal"] = True
    order = ("deal", "dealer", "players", "hands", "miss", "turn_up", "misdeal", "events")
    for d in deals:
        if not d.get("misdeal"):
            d.setdefault("events", [])
    doc = {
        "format": "loo-hand-log",
        "version": 1,
        "session": entries[0]["session"],
        "deals": [{k: d[k] for k in (*order, *_KEPT) if k in d} for d in deals],
    }
    if "meta" in entries[0]:
        doc["meta"] = entries[0]["meta"]
    return doc


def written(entries: list[Entry]) -> dict[str, Any]:
    """The hand log as the recorder writes it to disk: ``document`` without a last deal in
    which nothing has happened yet (a dealer named, a card turned up or a hand shown, but
    no declaration, card, misdeal or end), which the audit would read as a deal abandoned
    before play, a misdeal.  The journal keeps its entries, so a resume asks its next
    question."""
    doc = document(entries)
    begun = max((i for i, e in enumerate(entries) if e["kind"] == "deal"), default=None)
    if begun is not None and not any(
        e["kind"] in ("event", "misdeal", "end") for e in entries[begun + 1 :]
    ):
        doc["deals"].pop()
    return doc


def entries_of(doc: Mapping[str, Any]) -> list[Entry]:
    """The entries that give ``doc`` back: a resume from the log when the journal is gone."""
    session = {k: v for k, v in doc["session"].items() if k != "seal"}  # sealed on writing
    entries = [session_entry(session, doc.get("meta"))]
    for deal in doc["deals"]:
        begun: Entry = {"kind": "deal", "deal": deal["deal"], "dealer": deal["dealer"]}
        begun.update({k: deal[k] for k in _KEPT if k in deal})
        entries.append(begun)
        if "turn_up" in deal:
            entries.append({"kind": "turn_up", "card": deal["turn_up"]})
        for player, cards in deal.get("hands", {}).items():
            entries.append({"kind": "hand", "player": player, "cards": cards})
        if "miss" in deal:
            entries.append({"kind": "miss", "cards": deal["miss"]})
        if deal.get("misdeal"):
            entries.append({"kind": "misdeal"})
        entries.extend({"kind": "event", "event": ev} for ev in deal.get("events", []))
    return entries
