"""Lookup tables for trick taking under every trump state, built once.

Trump states are 0-3 (a suit) and ``NO_TRUMP``.  With Pam on and trumps
fixed, the jack of clubs belongs to the trump suit only and outranks its ace;
these tables are the one place that encodes it.
"""

from __future__ import annotations

from loo_replay.engine.cards import ACE, CLUBS, PAM, SUIT_MASKS

NO_TRUMP = 4
PAM_POWER = 100
TRUMP_BASE = 50


def _suit_masks(pam: bool, trump: int) -> tuple[int, ...]:
    masks = list(SUIT_MASKS)
    if pam and trump != NO_TRUMP:
        masks[CLUBS] &= ~(1 << PAM)
        masks[trump] |= 1 << PAM
    return tuple(masks)


def _effective_suit(card: int, pam: bool, trump: int) -> int:
    if pam and trump != NO_TRUMP and card == PAM:
        return trump
    return card // 13


def _power(card: int, pam: bool, trump: int, led: int) -> int:
    suit = _effective_suit(card, pam, trump)
    if pam and trump != NO_TRUMP and card == PAM:
        return PAM_POWER
    if suit == trump:
        return TRUMP_BASE + card % 13
    if suit == led:
        return card % 13
    return -1


def _trump_order(pam: bool, trump: int) -> tuple[int, ...]:
    if trump == NO_TRUMP:
        return ()
    cards = sorted(
        (c for c in range(52) if _effective_suit(c, pam, trump) == trump),
        key=lambda c: _power(c, pam, trump, trump),
        reverse=True,
    )
    return tuple(cards)


# Indexed [pam][trump]: the four suit masks as cards belong to them.
SUIT_MASK_TABLE = tuple(tuple(_suit_masks(p, t) for t in range(5)) for p in (False, True))
# Indexed [pam][trump][card]: the suit a card counts as.
EFFECTIVE_SUIT = tuple(
    tuple(tuple(_effective_suit(c, p, t) for c in range(52)) for t in range(5))
    for p in (False, True)
)
# Indexed [pam][trump][led][card]: how strongly a card plays to a trick; -1 cannot win.
POWER = tuple(
    tuple(
        tuple(tuple(_power(c, p, t, led) for c in range(52)) for led in range(4)) for t in range(5)
    )
    for p in (False, True)
)
# POWER as one bytes object, each power + 1 at ((pam * 5 + trump) * 4 + led) * 52 + card: read
# by ``legal.power`` as a C char, where the tuples would be four boxed lookups.
POWER_BYTES = bytes(
    p + 1 for by_pam in POWER for by_trump in by_pam for row in by_trump for p in row
)
# Indexed [pam][trump]: the trumps from highest to lowest.
TRUMP_ORDER = tuple(tuple(_trump_order(p, t) for t in range(5)) for p in (False, True))
ACES = tuple(s * 13 + ACE for s in range(4))
