"""The state of a deal in progress, shared by the replay, legality and replayer."""

from __future__ import annotations

import cython

from loo_replay.engine.model import Trick
from loo_replay.engine.options import Options
from loo_replay.engine.tables import NO_TRUMP, SUIT_MASK_TABLE, TRUMP_ORDER


class DealState:
    """Mutable replay state; ``hands`` are masks of the cards each seat still holds.

    Compiled, it is an extension type with C fields (state.pxd): legality and the solver
    read its masks as C integers.
    """

    options: Options
    seats: tuple[str, ...]
    dealer: cython.int
    hands: list[int]
    order: list[list[int]]  # each seat's cards in the order received, for display
    trump: cython.int
    turned: cython.ulonglong  # mask of cards turned up to fix trumps
    played: cython.ulonglong  # mask of cards played to tricks
    active: list[int]  # clockwise from the eldest
    retired: set[int]
    tricks: list[Trick]
    announce: bool  # "Pam, be civil" announced with the current lead
    pam: bool
    suit_masks: tuple[int, ...]  # the suits as cards belong to them now
    trump_mask: cython.ulonglong  # every trump, Pam included where he counts

    def __init__(
        self,
        options: Options,
        seats: tuple[str, ...],
        dealer: int,
        hands: list[int],
        order: list[list[int]],
        trump: int = NO_TRUMP,
        turned: int = 0,
        played: int = 0,
        active: list[int] | None = None,
        retired: set[int] | None = None,
        tricks: list[Trick] | None = None,
        announce: bool = False,
    ) -> None:
        self.options = options
        self.seats = seats
        self.dealer = dealer
        self.hands = hands
        self.order = order
        self.turned = turned
        self.played = played
        self.active = [] if active is None else active
        self.retired = set() if retired is None else retired
        self.tricks = [] if tricks is None else tricks
        self.announce = announce
        self.pam = options.deal_pam
        self.fix_trump(trump)

    def copy(self, tricks: list[Trick] | None = None, announce: bool = False) -> DealState:
        """A copy whose hands, players and tricks go on without this one's: a search steps
        it, or a position is kept as it stood."""
        return DealState(
            options=self.options,
            seats=self.seats,
            dealer=self.dealer,
            hands=list(self.hands),
            order=self.order,
            trump=self.trump,
            turned=self.turned,
            played=self.played,
            active=list(self.active),
            retired=set(self.retired),
            tricks=tricks,
            announce=announce,
        )

    def fix_trump(self, suit: int) -> None:
        """Trumps are ``suit`` from now on (``NO_TRUMP`` for none)."""
        self.trump = suit
        self.suit_masks = SUIT_MASK_TABLE[self.pam][suit]
        self.trump_mask = 0 if suit == NO_TRUMP else self.suit_masks[suit]

    @property
    def trick(self) -> Trick | None:
        """The trick being played, or None between tricks."""
        return self.current()

    def current(self) -> Trick | None:
        """``trick`` as a method, which compiled modules call as C (state.pxd)."""
        if self.tricks:
            last: Trick = self.tricks[-1]
            if last.winner is None:
                return last
        return None

    def playing(self) -> list[int]:
        """Seats still playing cards: active and not retired, clockwise from the eldest."""
        return [s for s in self.active if s not in self.retired]

    def top_trump(self) -> int | None:
        """The card ``lead.top_trump`` calls for, if not yet played (docs/rules.md §3)."""
        for card in TRUMP_ORDER[self.pam][self.trump]:
            if not self.turned >> card & 1:
                return None if self.played >> card & 1 else card
        return None

    def held(self, seat: int) -> tuple[int, ...]:
        """The cards ``seat`` holds, in the order he received them."""
        mask = self.hands[seat]
        return tuple(c for c in self.order[seat] if mask >> c & 1)
