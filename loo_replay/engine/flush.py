"""Flushes (docs/rules.md §5.3): what counts as one and which flush wins."""

from __future__ import annotations

from loo_replay.engine.cards import PAM, SUIT_MASKS, cards_of
from loo_replay.engine.options import Options
from loo_replay.engine.tables import NO_TRUMP, SUIT_MASK_TABLE


def is_flush(hand: int, trump: int, o: Options) -> bool:
    """All trumps (``trumps``), or all one suit, or Pam and one suit (``pam_wild``)."""
    if o.flush_kind == "none" or not hand:
        return False
    masks = SUIT_MASK_TABLE[o.deal_pam][trump]
    if o.flush_kind == "trumps":
        return is_trump_flush(hand, trump, o)
    if any(hand & ~m == 0 for m in masks):
        return True
    if o.flush_pam_wild and o.deal_pam and hand >> PAM & 1:
        rest = hand & ~(1 << PAM)
        return any(rest & ~m == 0 for m in SUIT_MASKS)
    return False


def is_trump_flush(hand: int, trump: int, o: Options) -> bool:
    """Every card a trump (Pam is one whenever trumps are fixed)."""
    return trump != NO_TRUMP and hand & ~SUIT_MASK_TABLE[o.deal_pam][trump][trump] == 0


def flush_key(hand: int, position: int, trump: int, o: Options) -> tuple[object, ...]:
    """Sort key: the smallest key holds the best flush (``flush.rank``)."""
    has_pam = o.deal_pam and bool(hand >> PAM & 1)
    if o.flush_rank == "elder":
        return (position,)
    if o.flush_rank == "pam_then_elder":
        return (not has_pam, position)
    values = sorted(
        (13 if (has_pam and card == PAM) else card % 13 for card in cards_of(hand)), reverse=True
    )
    return (not is_trump_flush(hand, trump, o), [-v for v in values], position)


def best_flush(hands: dict[int, int], order: list[int], trump: int, o: Options) -> int | None:
    """The seat whose flush wins among ``hands`` (seat -> mask), ``order`` from the eldest."""
    flushes = [s for s in order if s in hands and is_flush(hands[s], trump, o)]
    if not flushes:
        return None
    return min(flushes, key=lambda s: flush_key(hands[s], order.index(s), trump, o))
