"""The possible worlds of docs/judging-decisions.md, "What the player knew": drawn uniformly.

A world gives every card the judged player has not seen to a place they cannot see:
the hands of the others who still matter (sizes known), the rest lying anywhere else.
A world is possible when every card played so far by the others is a legal card of
their hand at the time (the engine's ``legal_cards``, in play order): their hand then
is their hand in the world plus the cards they have played since.

Drawing is by rejection, in two steps that keep the distribution exactly uniform:

- ``avoid``: a card that alone, added to what a player is known to have held, makes
  one of their cards illegal can be in no possible hand of theirs (holding more cards
  only adds obligations), so each player's hand is drawn from the cards they may hold,
  the most constrained player first; the draw is then accepted with probability
  prod C(a, s) / C(A, s) (a: the cards left to them when drawn, A: the most that can be
  left to them), which makes every assignment that avoids those cards equally likely;
- every played card is then checked against ``legal_cards`` for the world's hands
  (what a pair of cards reveals, as two trumps do for a lead, is caught here).

The one exception to "more cards, more obligations" is leading under
``lead.highest_trump = "two_players"`` (a run down from the highest trump may be
completed by another card): those leads give no cards to avoid and are only checked.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from math import comb

import cython

from loo_replay.engine.legal import card_of, legal_cards
from loo_replay.engine.records import record
from loo_replay.engine.state import DealState

DRAWS_PER_WORLD = 2000  # draws tried for one world before the decision is left unjudged


@record
class Check:
    """One card ``seat`` played: ``state`` is the position just before it (a copy of its
    own), ``later`` the cards ``seat`` played from it up to the decision, this one
    included."""

    state: DealState
    seat: int
    card: int
    later: int

    def legal(self, hand: int) -> bool:
        """Whether the card was legal had ``seat`` held ``hand`` besides ``later``."""
        self.state.hands[self.seat] = hand | self.later
        return bool(legal_cards(self.state, self.seat) >> self.card & 1)

    def reveals(self) -> bool:
        """Whether a single card can make this one illegal for every hand holding it."""
        st = self.state
        trick = st.current()
        leading = trick is None or not trick.live
        two_players = st.options.lead_highest_trump == "two_players"
        return not (leading and two_players and len(st.playing()) == 2)


@cython.cfunc
def _below(getrandbits: Callable[[int], int], n: cython.int) -> cython.int:
    """A whole number below ``n``, each equally likely (``getrandbits`` and rejection,
    as ``random`` itself draws, without its checks)."""
    bits: cython.int = 0
    while n >> bits:
        bits += 1
    r: cython.int = getrandbits(bits)
    while r >= n:
        r = getrandbits(bits)
    return r


@cython.ccall
def cards_of(mask: cython.ulonglong) -> list[int]:
    """The cards of ``mask`` in ascending order, as a list to draw from."""
    out: list[int] = []
    low: cython.ulonglong
    while mask:
        low = mask & (~mask + 1)
        out.append(card_of(low))
        mask ^= low
    return out


class Worlds:
    """The worlds of one decision: ``sizes`` (place -> cards it holds) over ``unseen``."""

    def __init__(
        self,
        unseen: int,
        sizes: dict[int, int],
        checks: list[Check],
        rng: random.Random,
        possible: Callable[[dict[int, int]], bool] | None = None,
    ) -> None:
        """``possible``: what else a world must satisfy (no flush where none was shown)."""
        self.unseen = unseen
        self.sizes = sizes
        self.possible = possible
        self.checks = checks
        self.rng = rng
        allowed = dict.fromkeys(sizes, unseen)
        for check in checks:
            if check.reveals():
                for card in cards_of(allowed[check.seat]):
                    if not check.legal(1 << card):
                        allowed[check.seat] &= ~(1 << card)
        self.allowed = allowed
        self.order = sorted(sizes, key=lambda p: (allowed[p].bit_count(), p))
        # The most cards each place can find left when its turn comes: those it may hold,
        # and no more than the earlier places leave of the unseen.  A place that may hold
        # any card always finds exactly that many, and weighs nothing in the ratio.
        self.bound = {}
        left = unseen.bit_count()
        for p in self.order:
            self.bound[p] = comb(min(allowed[p].bit_count(), left), sizes[p])
            left -= sizes[p]

    def draw(self) -> dict[int, int] | None:
        """One world, uniformly among the possible ones; None when ``DRAWS_PER_WORLD``
        draws found none."""
        rng = self.rng
        getrandbits = rng.getrandbits
        taken: cython.ulonglong
        hand: cython.ulonglong
        free: cython.ulonglong
        one: cython.ulonglong = 1
        need: cython.int
        size: cython.int
        i: cython.int
        j: cython.int
        card: cython.int
        # The cards a place may hold, ascending: a C array compiled (mypy cannot type it).
        pool = cython.declare(cython.int[52])  # type: ignore[misc, valid-type]
        for _ in range(DRAWS_PER_WORLD):
            taken = 0
            ratio = 1.0
            hands: dict[int, int] = {}
            for place in self.order:
                free = self.allowed[place] & ~taken
                size = 0
                for card in range(52):
                    if free >> card & 1:
                        pool[size] = card
                        size += 1
                need = self.sizes[place]
                if size < need:
                    break
                ratio *= comb(size, need) / self.bound[place]
                hand = 0
                for i in range(need):  # the first cards of a shuffle (Fisher-Yates)
                    j = i + _below(getrandbits, size - i)
                    pool[i], pool[j] = pool[j], pool[i]
                    hand |= one << pool[i]
                hands[place] = hand
                taken |= hand
            else:
                if (
                    rng.random() < ratio
                    and all(c.legal(hands[c.seat]) for c in self.checks)
                    and (self.possible is None or self.possible(hands))
                ):
                    return hands
        return None
