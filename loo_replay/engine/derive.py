"""Hands a record leaves out, derived from the plays (docs/log-format.md, "Hands left out").

A scorer at a real table never sees the hands of the players who passed, nor
a Miss nobody took.  An active player's unknown hand is the set of cards he is
recorded playing, taken as his from the deal (after an exchange, the cards he
played are his hand after it, and the cards he discarded were his before).  A
derived hand holds only cards he played later, so judging each card against
it with ``legal_cards`` finds a revoke exactly when the record proves one.
"""

from __future__ import annotations

from loo_replay.engine.model import DEFEND, TAKE_MISS, DealRecord, Declare, Exchange, Play
from loo_replay.engine.records import record

Hand = tuple[int, ...]


@record(slots=True)
class Derived:
    """The hands a partial deal is replayed with: listed ones as given, the others derived."""

    hands: tuple[Hand, ...]
    miss: Hand | None  # listed, derived for its taker, or None (unknown, not taken)
    listed: tuple[bool, ...]  # the seat's hand is in the record
    miss_listed: bool
    # each derived card, as (seat, card), to the pointer of the event that shows it and
    # that event in words ("played by bob", "discarded by bob"); a taken Miss's under its taker
    where: dict[tuple[int, int], tuple[str, str]]


def is_partial(record: DealRecord) -> bool:
    """The record leaves out a seated player's hand (a recorded misdeal may: it is not judged)."""
    return not record.misdeal and None in record.hands


def derive(record: DealRecord) -> Derived:
    """The hands of a partial deal as far as its events show them."""
    n = len(record.seats)
    plays: list[list[Play]] = [[] for _ in range(n)]
    exchanges: list[Exchange | None] = [None] * n
    taker: int | None = None
    for ev in record.events:
        if isinstance(ev, Play):
            plays[ev.seat].append(ev)
        elif isinstance(ev, Exchange):
            if exchanges[ev.seat] is None and (ev.discard or ev.draw):
                exchanges[ev.seat] = ev
        elif isinstance(ev, Declare) and ev.action in (TAKE_MISS, DEFEND) and taker is None:
            taker = ev.seat
    where: dict[tuple[int, int], tuple[str, str]] = {}

    def own(seat: int) -> Hand:
        """What the seat held before any exchange, as far as the record shows it."""
        cards: dict[int, None] = {}
        ex = exchanges[seat]
        who = record.seats[seat]
        drawn: set[int] = set()
        if ex is not None:
            drawn.update(ex.draw)
            for i, card in enumerate(ex.discard):
                if card in cards:
                    continue
                cards[card] = None
                where[seat, card] = (f"/events/{ex.index}/discard/{i}", f"discarded by {who}")
        for ev in plays[seat]:
            if ev.card not in drawn and ev.card not in cards:
                cards[ev.card] = None
                where[seat, ev.card] = (f"/events/{ev.index}/card", f"played by {who}")
        return tuple(cards)

    hands: list[Hand] = []
    for seat, hand in enumerate(record.hands):
        if hand is not None:
            hands.append(hand)
        else:
            hands.append(() if seat == taker else own(seat))  # a taker's own hand is dead
    miss = record.miss
    if miss is None and taker is not None:
        miss = own(taker)
    return Derived(
        hands=tuple(hands),
        miss=miss,
        listed=tuple(hand is not None for hand in record.hands),
        miss_listed=record.miss is not None,
        where=where,
    )
