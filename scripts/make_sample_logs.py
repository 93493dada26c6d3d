"""Regenerate sample_logs/ deterministically from the simulator (run from the repo root).

Each file shows a newcomer one family of rulesets or one kind of finding;
README.md lists them.  The broken-deals file is a simulated session with
deals spoiled by hand: a card the player never held, a card played twice.
The table-recorded file is a simulated session written down as a scorer at a
real table sees it: no hands, no Miss unless someone took it.
"""

from __future__ import annotations

import copy
import gzip
import re
import sys
from pathlib import Path
from typing import Any

import orjson

from loo_replay.rulesets import builtin
from loo_replay.simulate import Crooked, Simulator

OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("sample_logs")
NAMES = {
    "ann": "Ann Pepys",
    "bob": "Robert Hooke",
    "cat": "Catherine Sedley",
    "dan": "Daniel Defoe",
    "eve": "Evelyn Boscawen",
    "fay": "Fay Fielding",
}


def session(
    ruleset: str,
    sid: str,
    players: int,
    deals: int,
    seed: int,
    venue: str,
    violations: float = 0.0,
    corrupt: float = 0.0,
    at: str = "19:30",
    crooked: Crooked | None = None,
) -> dict[str, Any]:
    """A simulated session that started at ``at`` (UTC) on the date its id ends with."""
    sim = Simulator(builtin(ruleset).options, ruleset, players, seed, violations, corrupt, crooked)
    doc = sim.session(sid, deals)
    s = doc["session"]
    s["players"] = [{"id": p["id"], "name": NAMES.get(p["id"], p["id"])} for p in s["players"]]
    s["venue"] = venue
    s["started_at"] = started_at(sid, at)
    return doc


def started_at(sid: str, at: str) -> str:
    """The id's date (``club-night-2026-11-20``) at ``at`` o'clock: the id and the session's
    date must agree."""
    day = re.search(r"\d{4}-\d{2}-\d{2}$", sid)
    assert day is not None, f"a sample session id ends with its date: {sid}"
    return f"{day.group()}T{at}:00Z"


def with_revokes(sid: str, seed: int) -> Any:
    """The first three-card session from ``seed`` on with three kinds of revoke and a card
    played out of turn."""
    from loo_replay.engine.model import REVOKE_CODES
    from loo_replay.logs.reader import Document
    from loo_replay.rulesets import RuleChoice
    from loo_replay.run.audit import SessionReport, audit_document

    while True:
        doc = session("three-card", sid, 6, 24, seed, "White's", violations=0.5)
        report = audit_document(Document("", None, b"", doc), RuleChoice())
        assert isinstance(report, SessionReport)
        codes = {v.code for d in report.deals for v in d.violations}
        if len(codes & set(REVOKE_CODES)) >= 3 and "out-of-turn" in codes:
            return doc
        seed += 1


def with_flush(
    ruleset: str, sid: str, players: int, deals: int, seed: int, venue: str, at: str
) -> Any:
    """The first session from ``seed`` on in which a flush ends a deal."""
    from loo_replay.logs.reader import Document
    from loo_replay.rulesets import RuleChoice
    from loo_replay.run.audit import SessionReport, audit_document

    while True:
        doc = session(ruleset, sid, players, deals, seed, venue, 0.2, at=at)
        report = audit_document(Document("", None, b"", doc), RuleChoice())
        assert isinstance(report, SessionReport)
        if any(d.outcome == "flush" for d in report.deals):
            return doc
        seed += 1


def at_the_table(doc: dict[str, Any]) -> dict[str, Any]:
    """The session as a scorer at the table writes it (docs/record.md): the hands and the Miss
    left out of every deal that was played or passed (a misdeal is seen by all, and kept),
    but for the hand of a player who showed a flush: he laid it on the table."""
    doc = copy.deepcopy(doc)
    for deal in doc["deals"]:
        if not deal.get("misdeal") and deal.get("events"):
            shown = {e["player"] for e in deal["events"] if e["type"] == "show_flush"}
            deal["hands"] = {p: h for p, h in deal["hands"].items() if p in shown}
            if not deal["hands"]:
                del deal["hands"]
            deal.pop("miss", None)
    return doc


def table_recorded(sid: str, seed: int) -> Any:
    """The first four-player three-card session from ``seed`` on whose record, hands left
    out, proves a revoke and every finding and amount the full hands give."""
    from loo_replay.logs.reader import Document
    from loo_replay.rulesets import RuleChoice
    from loo_replay.run.audit import SessionReport, audit_document

    def audited(doc: dict[str, Any]) -> SessionReport:
        report = audit_document(Document("", None, b"", doc), RuleChoice())
        assert isinstance(report, SessionReport)
        return report

    while True:
        full = session("three-card", sid, 4, 20, seed, "Ann's kitchen", violations=0.15)
        doc = at_the_table(full)
        deals, known = audited(doc).deals, audited(full).deals
        proved = any(v.proved_by is not None for d in deals for v in d.violations)
        same = [[v.code for v in d.violations] for d in deals] == [
            [v.code for v in d.violations] for d in known
        ]
        no_misdeal = all(d.status != "misdeal" for d in deals)
        if proved and same and no_misdeal and not any(d.discrepancies for d in deals):
            doc["session"]["meta"] = {"recorded": "at the table: hands were never written down"}
            return doc
        seed += 1


def write_json(name: str, doc: dict[str, Any]) -> None:
    (OUT / name).write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")


def broken(doc: dict[str, Any]) -> dict[str, Any]:
    """Spoil two deals: a card not held (deal 3) and a card played twice (deal 5)."""
    doc = copy.deepcopy(doc)
    for deal in doc["deals"]:
        plays = [e for e in deal["events"] if e["type"] == "play"]
        if deal["deal"] == 3 and plays:
            plays[0]["card"] = "2C" if plays[0]["card"] != "2C" else "3C"
            held = {c for h in deal["hands"].values() for c in h} | set(deal.get("miss", []))
            if plays[0]["card"] in held:  # make sure it is a card nobody was dealt
                free = sorted(
                    {r + s for r in "23456789TJQKA" for s in "SHDC"} - held - {deal.get("turn_up")}
                )
                plays[0]["card"] = free[0]
        if deal["deal"] == 5 and len(plays) > 3:
            same = [p for p in plays if p["player"] == plays[0]["player"]]
            if len(same) > 1:
                same[1]["card"] = same[0]["card"]
    return doc


def main() -> None:
    OUT.mkdir(exist_ok=True)
    write_json(
        "three-card-club-night.json",
        session("three-card", "club-night-2026-11-20", 5, 24, 1, "The Cocoa Tree"),
    )
    write_json("three-card-revokes.json", with_revokes("revokes-2026-11-22", 2))
    write_json(
        "five-card-pam.json",
        session("five-card", "pam-loo-2026-11-23", 5, 20, 3, "Almack's", violations=0.2),
    )
    hoyle = [
        session("hoyle", "hoyle-single-double-2026-11-24", 5, 20, 4, "Boodle's"),
        session("hoyle-irish", "hoyle-irish-2026-11-24", 5, 16, 5, "Boodle's", at="21:00"),
        with_flush("hoyle-flushes", "hoyle-flushes-2026-11-24", 6, 20, 6, "Boodle's", "22:30"),
    ]
    (OUT / "hoyle-evening.jsonl").write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in hoyle))
    write_json(
        "hoyle-unlimited-balloon.json",
        session("hoyle-unlimited", "unlimited-2026-11-25", 6, 24, 7, "Crockford's"),
    )
    modern = [
        session("modern", "modern-2026-11-26", 4, 16, 8, "online table 12", 0.25),
        session(
            "modern-pam", "modern-pam-2026-11-26", 5, 16, 9, "online table 12", 0.25, at="21:00"
        ),
        session(
            "modern-irish", "modern-irish-2026-11-26", 5, 16, 10, "online table 7", 0.25, at="22:30"
        ),
    ]
    with gzip.GzipFile(OUT / "modern-online.jsonl.gz", "wb", mtime=0) as gz:
        for d in modern:
            gz.write(orjson.dumps(d) + b"\n")
    write_json(
        "wrong-payouts.json",
        session("three-card", "wrong-payouts-2026-11-27", 5, 16, 11, "The Cocoa Tree", 0.1, 0.3),
    )
    # dan takes the top trump in most deals he deals: `loo-replay fairness` flags him
    crooked = session("three-card", "crooked-dealer-2026-11-28", 4, 80, 13, "The Cocoa Tree",
                      crooked=Crooked("dan", 0.6))  # fmt: skip
    (OUT / "three-card-crooked-dealer.jsonl").write_bytes(orjson.dumps(crooked) + b"\n")
    write_json("three-card-table-recorded.json", table_recorded("kitchen-table-2026-11-29", 14))
    write_json(
        "broken-deals.json",
        broken(
            session("three-card", "broken-deals-2026-11-21", 5, 8, 12, "a transcribed score sheet")
        ),
    )


if __name__ == "__main__":
    main()
