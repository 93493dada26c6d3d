"""Cards as ints 0-51 and card sets as int bit masks.

A card is ``suit * 13 + rank`` with ranks 0-12 for 2..A and suits in the
order S H D C of docs/log-format.md.  Masks are plain ints with bit ``card`` set;
the helpers here are the only place that knows the layout.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import cython

RANKS = "23456789TJQKA"
SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
ACE = 12
JACK = 9
PAM = CLUBS * 13 + JACK  # the jack of clubs
FULL_DECK = (1 << 52) - 1
SUIT_MASKS: tuple[int, ...] = tuple(0x1FFF << (13 * s) for s in range(4))


class CardError(ValueError):
    """A value that is not a card in any notation docs/log-format.md accepts."""


def _spellings() -> dict[str, int]:
    table: dict[str, int] = {}
    for s, (letter, symbol) in enumerate(zip(SUITS, SUIT_SYMBOLS, strict=True)):
        for r, rank in enumerate(RANKS):
            ranks = [rank, "10"] if rank == "T" else [rank]
            for rk in ranks:
                for su in (letter, symbol):
                    for text in {rk + su, (rk + su).lower()}:
                        table[text] = s * 13 + r
    return table


CARD_SPELLINGS: dict[str, int] = _spellings()  # exact spellings, upper and lower case


def parse_card(text: object) -> int:
    """Card number for ``text`` (``"10H"``, ``"TH"``, ``"th"``, ``"10♥"``)."""
    if isinstance(text, str):
        card = CARD_SPELLINGS.get(text)
        if card is None:
            card = CARD_SPELLINGS.get(text.upper())
        if card is not None:
            return card
    raise CardError(
        f"{text!r} is not a card (rank A K Q J T|10 9..2, then suit S H D C or ♠ ♥ ♦ ♣)"
    )


def suit_of(card: int) -> int:
    return card // 13


def rank_of(card: int) -> int:
    return card % 13


def canonical(card: int) -> str:
    """Two ASCII characters, rank then suit: ``TH``."""
    return RANKS[card % 13] + SUITS[card // 13]


def display(card: int) -> str:
    """What people read: ``10♥``."""
    rank = RANKS[card % 13]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[card // 13]


ONE: int = cython.declare(cython.ulonglong, 1)  # ``ONE << card``: a one-card mask, in 64 bits


def mask_of(cards: Iterable[int]) -> cython.ulonglong:
    """The mask of ``cards`` (each 0-51)."""
    mask: cython.ulonglong = 0
    card: cython.int
    for card in cards:
        mask |= ONE << card
    return mask


def cards_of(mask: int) -> Iterator[int]:
    """The cards of ``mask`` in ascending order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def display_cards(cards: Iterable[int]) -> str:
    return " ".join(display(c) for c in cards)
