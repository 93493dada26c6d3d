"""Building sessions by hand for tests: a deal as the log would have it, audited; and the
logs under a path read and audited as the commands do, through the driver."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from loo_replay.engine.cards import PAM, SUITS, canonical, mask_of, parse_card
from loo_replay.engine.legal import add_card, legal_cards
from loo_replay.engine.model import Trick
from loo_replay.engine.replay import Replay
from loo_replay.engine.session import DealAudit
from loo_replay.engine.state import DealState
from loo_replay.engine.tables import ACES, NO_TRUMP
from loo_replay.logs.limits import LIMITS
from loo_replay.logs.reader import Document
from loo_replay.rulesets import RuleChoice, builtin
from loo_replay.run.audit import (
    AuditItem,
    Documents,
    SessionReport,
    UnreadableFile,
    audit_document,
    audit_documents,
)
from loo_replay.run.driver import each_document

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
    hands: dict[str, str] | None,
    events: list[dict[str, Any]] | None = None,
    *,
    number: int = 1,
    dealer: str = "cat",
    miss: str | None = None,
    turn_up: str | None = None,
    players: tuple[str, ...] | None = None,
    misdeal: bool = False,
    recorded: dict[str, Any] | None = None,
    pool_start: int | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A deal as the log has it, the one deal builder of the tests; hands and the Miss are
    written ``"AD 4S 7H"``, and ``hands`` None leaves them out (a misdeal may have none);
    ``pool_start`` is the pool carried into a session's first deal (``recorded.pool_start``).
    For a position in the middle of a deal, see ``position``."""
    d: dict[str, Any] = {"deal": number, "dealer": dealer}
    if players is not None:
        d["players"] = list(players)
    if hands is not None:
        d["hands"] = {p: cards.split() for p, cards in hands.items()}
    if miss is not None:
        d["miss"] = miss.split()
    if turn_up is not None:
        d["turn_up"] = turn_up
    if misdeal:
        d["misdeal"] = True
    d["events"] = [] if events is None else events
    if pool_start is not None:
        recorded = {**(recorded or {}), "pool_start": pool_start}
    if recorded is not None:
        d["recorded"] = recorded
    d.update(extra)
    return d


def position(
    hands: str,
    *,
    trump: str | None,
    trick: int = 1,
    table: str = "",
    gone: str = "",
    turned: str = "",
    ruleset: str = "three-card",
    rules: dict[str, Any] | None = None,
    announce: bool = False,
) -> DealState:
    """A position in the middle of a deal, written compactly, so that a rule at trick 3 is
    tested without scripting tricks 1 and 2:

    ``position("ann: KD 4S | bob: 7H 9D | cat: QD 2C", trump="D", trick=3, table="ann 4S")``

    ``hands`` are what each player holds now, clockwise from the eldest, the dealer last;
    everyone is in the play.  ``table`` is the trick so far (``"ann 4S bob 7H"``), ``gone``
    the cards of the tricks before, ``turned`` the cards turned up for trumps.  The cards
    on the table are played through ``legal.add_card``, as the replay plays them."""
    options = builtin(ruleset).options.override(rules or {})
    rows = [row.split(":") for row in hands.split("|")]
    seats = tuple(name.strip() for name, _ in rows)
    held = [[parse_card(c) for c in cards.split()] for _, cards in rows]
    state = DealState(
        options=options,
        seats=seats,
        dealer=len(seats) - 1,
        hands=[mask_of(h) for h in held],
        order=held,
        active=list(range(len(seats))),
        played=mask_of([parse_card(c) for c in gone.split()]),
        turned=mask_of([parse_card(c) for c in turned.split()]),
        announce=announce,
    )
    state.fix_trump(NO_TRUMP if trump is None else SUITS.index(trump))
    state.tricks = [Trick(number=n, leader=0, winner=0) for n in range(1, trick)]
    words = table.split()
    if words:
        leader = seats.index(words[0])
        current = Trick(number=trick, leader=leader)
        current.order = [(leader + i) % len(seats) for i in range(len(seats))]
        state.tricks.append(current)
        for name, card in zip(words[::2], words[1::2], strict=True):
            seat, number = seats.index(name), parse_card(card)
            state.hands[seat] |= 1 << number  # held until played
            state.order[seat].append(number)
            add_card(state, current, seat, number, legal_cards(state, seat))
    return state


def legal_now(state: DealState, seat: str) -> list[str]:
    """What ``seat`` may play in ``state``, as the log spells cards, in hand order."""
    index = state.seats.index(seat)
    mask = legal_cards(state, index)
    return [canonical(c) for c in state.held(index) if mask >> c & 1]


def legal_choices(replay: Replay, seat: int, unseen: int | None = None) -> list[tuple[int, bool]]:
    """Every card ``legal_cards`` allows ``seat``, and both announcements of the ace of
    trumps led where "Pam, be civil" is announced and Pam is still in a hand in play (the
    solver's moves, found without it); given the cards ``seat`` has not seen, where Pam is
    among them instead (the options as the player knew them, docs/judging-decisions.md §1)."""
    state = replay.state
    o = state.options
    leading = state.trick is None or not state.trick.live
    held = 0  # where Pam makes announcing a choice
    if unseen is None:
        for s in state.playing():
            held |= state.hands[s]
    else:
        held = unseen
    out = []
    for card in range(52):
        if legal_cards(state, seat) >> card & 1:
            out.append((card, False))
            if (
                leading
                and o.deal_pam
                and o.follow_pam_civil == "announced"
                and state.trump != NO_TRUMP
                and card == ACES[state.trump]
                and held >> PAM & 1
            ):
                out.append((card, True))
    return out


def audited(paths: Iterable[Path], choice: RuleChoice | None = None) -> Iterator[AuditItem]:
    """Every session under ``paths`` audited in order, as ``replay`` audits its file: the
    driver in this process running ``audit_documents``."""
    setup = (choice or RuleChoice(), LIMITS)
    return each_document(paths, audit_documents, setup, LIMITS)


def _as_read(_: None, documents: Documents) -> Iterator[Document | UnreadableFile]:
    yield from documents


def read_logs(paths: Iterable[Path]) -> Iterator[Document | UnreadableFile]:
    """Every document under ``paths`` in order as the driver reads it (not yet parsed: the
    audit parses it), an unreadable file in its place."""
    return each_document(paths, _as_read, None, LIMITS)
