"""The engine's verdict on what has been typed so far, and what to ask next.

Nothing here knows a rule: the log the entries stand for is read by the same parser as
``validate`` (``parse_document``, ``parse_deal``), the deals before the open one go through
``SessionReplay`` as in any audit, and the open deal is replayed event by event with
``Replay``.  The proposals (the dealer due, the player due to declare, the player on turn)
and the legal declarations are the engine's own answers; a "revoke if … later" hint asks
``legal_cards`` what the player could not have held.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from loo_replay.engine.cards import (
    FULL_DECK,
    SUIT_MASKS,
    SUIT_SYMBOLS,
    cards_of,
    display,
    parse_card,
)
from loo_replay.engine.legal import legal_cards
from loo_replay.engine.model import PASS, PLAY, DealRecord, Exchange, LogError, Play
from loo_replay.engine.options import Options
from loo_replay.engine.replay import DealContext, Replay, deal_plan
from loo_replay.engine.session import DealAudit, DealInput, SessionReplay
from loo_replay.engine.vocab import Action, Phase
from loo_replay.errors import InputError
from loo_replay.logs.parse import SessionHeader, parse_deal, parse_document
from loo_replay.recorder.book import document
from loo_replay.recorder.journal import Entry
from loo_replay.rulesets import RuleChoice, resolve


class Stage(StrEnum):
    """What the recorder asks for next, in the order things happen at the table."""

    DEALER = "dealer"  # a new deal: who deals
    TURN_UP = "turn_up"  # the card turned at the deal for trumps
    DECLARE = "declare"
    EXCHANGE = "exchange"
    PLAY = "play"
    TRUMP_TURN = "trump_turn"  # on_void: a card turned during play


@dataclass(frozen=True)
class Ask:
    """The next question: its stage, the deal, the player proposed, the declarations the
    engine allows him, and the cards that could be typed (for completion)."""

    stage: Stage
    deal: int
    player: str | None = None
    actions: tuple[Action, ...] = ()
    cards: int = FULL_DECK


@dataclass(frozen=True)
class Closed:
    """The deals before the open one as the log has them, and the session audit carried
    through them (never changed once made: a later judgement that audits more deals works
    on a copy).  Judging the next entry then audits only what follows them, so that every
    entry of a long evening, or of a long journal resumed, costs the same."""

    session: Any
    raw: list[Any]
    chain: SessionReplay
    audits: tuple[DealAudit, ...]


@dataclass
class Standing:
    """The session as typed so far, judged."""

    header: SessionHeader
    options: Options
    audits: list[DealAudit]  # every closed deal
    ask: Ask
    errors: list[LogError] = field(default_factory=list)  # why the last entry is impossible
    replay: Replay | None = None  # the open deal, replayed up to the last entry
    hints: dict[int, str] = field(default_factory=dict)  # play event index: "revoke if …"
    closed: Closed | None = None  # the deals before the open one, for the next judgement


class RecorderError(InputError, ValueError):
    """A log or journal the recorder cannot go on from (a bad session header)."""


def _ended(entries: list[Entry]) -> bool:
    """The scorer closed the open deal early (``end``)."""
    for entry in reversed(entries):
        if entry["kind"] == "deal":
            return False
        if entry["kind"] == "end":
            return True
    return False


def judge(entries: list[Entry], earlier: Standing | None = None) -> Standing:
    """Judge ``entries`` (the live ones, the session first); ``earlier``, the judgement of
    entries they extend or take back, spares auditing the deals closed in both again."""
    doc = document(entries)
    parsed = parse_document(doc)
    if parsed.header is None:
        error = parsed.header_error
        raise RecorderError(f"{error.path}: {error.message}" if error else "no session")
    header = parsed.header
    _, options = resolve(RuleChoice(), header.ruleset, header.rules)
    raw = doc["deals"]
    closed = _closed(doc["session"], raw[:-1], header, options, earlier)
    chain, audits = closed.chain, list(closed.audits)
    if not raw:
        return Standing(header, options, audits, Ask(Stage.DEALER, 1, header.players[0]))
    deal = parse_deal(raw[-1], f"/deals/{len(raw) - 1}", header)
    rec = deal.record
    if rec is None:
        return Standing(header, options, audits, Ask(Stage.DEALER, 0), list(deal.errors))
    context = chain.open_deal(rec.number, rec.seats[rec.dealer], rec.seats, None).context
    known = _known(raw[-1])
    ended = _ended(entries)
    standing = None if ended else _open_deal(header, options, audits, rec, context, known)
    if standing is None:  # the deal is over: settle it with everything before it
        chain = copy.deepcopy(chain)
        settled = chain.audit(deal)
        if settled.errors and ended:
            return Standing(header, options, audits, Ask(Stage.PLAY, 0), settled.errors)
        audits.append(settled)
        ask = Ask(Stage.DEALER, rec.number + 1, _dealer_due(chain, rec))
        standing = Standing(header, options, audits, ask)
    standing.hints = hints(rec, options, context, known)
    standing.closed = closed
    return standing


def _closed(
    session: Any,
    raw: list[Any],
    header: SessionHeader,
    options: Options,
    earlier: Standing | None,
) -> Closed:
    """The deals ``raw`` audited in turn, from where ``earlier`` left off when it judged
    the same session and the same first deals."""
    known = earlier.closed if earlier is not None else None
    if (
        known is None
        or known.session != session
        or len(known.raw) > len(raw)
        or raw[: len(known.raw)] != known.raw
    ):
        known = Closed(session, [], SessionReplay(header.players, options, header.chips), ())
    if len(known.raw) == len(raw):
        return known
    chain = copy.deepcopy(known.chain)
    audits = [*known.audits]
    for i in range(len(known.raw), len(raw)):
        audits.append(chain.audit(parse_deal(raw[i], f"/deals/{i}", header)))
    return Closed(session, raw, chain, tuple(audits))


def _open_deal(
    header: SessionHeader,
    options: Options,
    audits: list[DealAudit],
    rec: DealRecord,
    context: DealContext,
    known: int,
) -> Standing | None:
    """The open deal replayed: what to ask next, or None when it is over."""
    number = rec.number
    if rec.misdeal:
        return None
    if deal_plan(options, context).turn_up and rec.turn_up is None:
        ask = Ask(Stage.TURN_UP, number, cards=FULL_DECK & ~known)
        return Standing(header, options, audits, ask)
    replay = Replay(rec, options, context)
    for event in rec.events:
        replay.apply(event)
    r = replay.result
    standing = Standing(header, options, audits, Ask(Stage.PLAY, number), list(r.errors))
    standing.replay = replay
    if r.errors:
        return standing
    if replay.phase is Phase.OVER:
        return None
    if replay.phase is Phase.DECLARING:
        due = _declaring(replay, rec, options)
        if due is not None:
            standing.ask = due
            return standing
        replay.begin_play()  # may end the deal (all passed, unopposed, a flush): no one on turn
        if replay.result.errors:
            standing.errors = list(replay.result.errors)
            return standing
    if replay.turn_due:
        dealer = rec.seats[rec.dealer]
        standing.ask = Ask(Stage.TRUMP_TURN, number, dealer, cards=FULL_DECK & ~known)
        return standing
    seat = replay.on_turn()
    if seat is None:
        return None
    standing.ask = Ask(Stage.PLAY, number, rec.seats[seat], cards=_possible(rec, seat, known))
    return standing


def why_must(replay: Replay) -> str:
    """Why the open deal is a must (docs/rules.md §2.3), in the words the recorder says
    when it skips the declarations: the pool by ``declare.must``, else club law."""
    if deal_plan(replay.o, replay.context).must_pool:
        return "a single pool, only this deal's antes, is a must here: declare.must"
    return "a club turned up makes a must: declare.club_law"


def _declaring(replay: Replay, rec: DealRecord, options: Options) -> Ask | None:
    """The declaration or exchange due next, or None when play may begin."""
    r = replay.result
    if r.must:
        return None  # every player plays: nothing to declare
    decl = r.declarations
    others = replay.clockwise[:-1]
    if not (decl[rec.dealer] is None and all(decl[s] == PASS for s in others)):
        due = next((s for s in replay.clockwise if decl[s] is None), None)
        if due is not None:
            return Ask(Stage.DECLARE, rec.number, rec.seats[due], replay.legal_actions(due))
    if options.deal_exchange and sum(d not in (PASS, None) for d in decl) >= 2:
        exchanged = {e.seat for e in rec.events if isinstance(e, Exchange)}
        for seat in replay.clockwise:
            if decl[seat] == PLAY and seat not in exchanged:
                return Ask(Stage.EXCHANGE, rec.number, rec.seats[seat])
    return None


def _known(raw: dict[str, Any]) -> int:
    """Every card the deal's record shows somewhere (hands, Miss, turn-ups, events)."""
    cards: list[str] = [c for hand in raw.get("hands", {}).values() for c in hand]
    cards += raw.get("miss", [])
    if "turn_up" in raw:
        cards.append(raw["turn_up"])
    for ev in raw.get("events", []):
        cards += [ev[k] for k in ("card",) if k in ev]
        cards += ev.get("discard", []) + ev.get("draw", [])
    mask = 0
    for card in cards:
        mask |= 1 << parse_card(card)
    return mask


def _possible(rec: DealRecord, seat: int, known: int) -> int:
    """The cards ``seat`` may still hold as far as the record shows: his listed hand's, or
    every card not seen anywhere."""
    hand = rec.hands[seat]
    return sum(1 << c for c in hand) & ~known if hand is not None else FULL_DECK & ~known


def hints(rec: DealRecord, options: Options, context: DealContext, known: int) -> dict[int, str]:
    """For each card played in turn from an unknown hand and not yet found a revoke, the
    cards whose later showing would prove it one: those with which ``legal_cards`` would
    not have allowed it."""
    out: dict[int, str] = {}
    replay = Replay(rec, options, context)
    unseen = FULL_DECK & ~known
    plays = Counter(e.seat for e in rec.events if isinstance(e, Play))
    for event in rec.events:
        if (
            isinstance(event, Play)
            and rec.hands[event.seat] is None
            and plays[event.seat] < options.deal_hand_size  # else his whole hand is known
        ):
            replay.begin_play()  # idempotent: the first card closes the declarations anyway
            if replay.on_turn() == event.seat:
                proof = _proof(replay, event.seat, event.card, unseen)
                if proof:
                    out[event.index] = _flag(replay, event, proof)
        replay.apply(event)
    for v in replay.result.violations:
        out.pop(v.event if v.event is not None else -1, None)
    return out


def _flag(replay: Replay, play: Play, proof: str) -> str:
    """``cat played 2♠ to 7♥ (trick 2): revoke if cat shows ♥ later``."""
    who, card = replay.record.seats[play.seat], display(play.card)
    trick = replay.state.trick
    if trick is not None and trick.live:
        did, number = f"played {card} to {display(trick.lead)}", trick.number
    else:
        did, number = f"led {card}", len(replay.state.tricks) + (trick is None)
    return f"{who} {did} (trick {number}): revoke if {who} shows {proof} later"


def _proof(replay: Replay, seat: int, card: int, unseen: int) -> str:
    """The unseen cards that would have made ``card`` illegal for ``seat``, in words."""
    state = replay.state
    held = state.hands[seat]
    proving = 0
    for candidate in cards_of(unseen):
        state.hands[seat] = held | 1 << candidate
        if not legal_cards(state, seat) >> card & 1:
            proving |= 1 << candidate
    state.hands[seat] = held
    words = []
    for suit, mask in enumerate(SUIT_MASKS):
        part = proving & mask
        if part and part == unseen & mask:
            words.append(SUIT_SYMBOLS[suit])
        elif part:
            words.append(" or ".join(display(c) for c in cards_of(part)))
    return " or ".join(words)


def _dealer_due(chain: SessionReplay, last: DealRecord) -> str:
    """The dealer the engine expects next: the first seated player from the last dealer
    clockwise whose deal it would not call a ``dealer-rotation`` breach."""
    seats = last.seats
    for i in range(len(seats)):
        candidate = (last.dealer + 1 + i) % len(seats)  # the last dealer himself comes last
        probe = copy.deepcopy(chain)
        trial = DealRecord(last.number + 1, seats, candidate, (None,) * len(seats), misdeal=True)
        audit = probe.audit(DealInput(last.number + 1, trial, dealer=seats[candidate]))
        if not any(v.code == "dealer-rotation" for v in audit.violations):
            return seats[candidate]
    return seats[(last.dealer + 1) % len(seats)]
