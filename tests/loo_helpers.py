"""Building sessions by hand for tests: a deal as the log would have it, audited."""

from __future__ import annotations

from typing import Any

from loo_replay.audit import SessionReport, audit_document
from loo_replay.engine.session import DealAudit
from loo_replay.logs.reader import Document
from loo_replay.rulesets import RuleChoice

PLAYERS = ("ann", "bob", "cat", "dan", "eve")


def session_doc(
    deals: list[dict[str, Any]],
    *,
    ruleset: str = "three-card",
    rules: dict[str, Any] | None = None,
    players: tuple[str, ...] = PLAYERS,
    chips: dict[str, int] | None = None,
    sid: str = "test-session",
) -> dict[str, Any]:
    """A whole hand-log document around ``deals``."""
    session: dict[str, Any] = {
        "id": sid,
        "ruleset": ruleset,
        "players": [{"id": p} for p in players],
    }
    if rules:
        session["rules"] = rules
    if chips is not None:
        session["chips"] = chips
    return {"format": "loo-hand-log", "version": 1, "session": session, "deals": deals}


def audit_session(doc: dict[str, Any], choice: RuleChoice | None = None) -> SessionReport:
    report = audit_document(Document("test.json", None, b"", doc), choice or RuleChoice())
    assert isinstance(report, SessionReport), report
    return report


def audit_deals(deals: list[dict[str, Any]], **kw: Any) -> list[DealAudit]:
    return audit_session(session_doc(deals, **kw)).deals


def audit_deal(deal: dict[str, Any], **kw: Any) -> DealAudit:
    """Audit one deal as the only (first) deal of a session."""
    (audit,) = audit_deals([deal], **kw)
    return audit


def codes(audit: DealAudit) -> list[str]:
    return [v.code for v in audit.violations]


def declare(player: str, action: str) -> dict[str, Any]:
    return {"type": "declare", "player": player, "action": action}


def play(player: str, card: str, **extra: Any) -> dict[str, Any]:
    return {"type": "play", "player": player, "card": card, **extra}


def plays(*pairs: str) -> list[dict[str, Any]]:
    """``plays("eve AD", "ann QD")`` -> play events."""
    out = []
    for pair in pairs:
        player, card = pair.split()
        out.append(play(player, card))
    return out


def trick_plays(*rows: str) -> list[dict[str, Any]]:
    """``trick_plays("ann AD bob 2D", ...)`` -> play events, a trick a row."""
    out: list[dict[str, Any]] = []
    for row in rows:
        words = row.split()
        out.extend(play(p, c) for p, c in zip(words[::2], words[1::2], strict=True))
    return out


def declarations(*pairs: str) -> list[dict[str, Any]]:
    return [declare(*pair.split()) for pair in pairs]


def deal_doc(
    number: int,
    dealer: str,
    hands: dict[str, str],
    events: list[dict[str, Any]],
    miss: str | None = None,
    turn_up: str | None = None,
) -> dict[str, Any]:
    d: dict[str, Any] = {
        "deal": number,
        "dealer": dealer,
        "hands": {p: cards.split() for p, cards in hands.items()},
    }
    if miss is not None:
        d["miss"] = miss.split()
    if turn_up is not None:
        d["turn_up"] = turn_up
    d["events"] = events
    return d
