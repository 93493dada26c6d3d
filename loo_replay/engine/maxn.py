# cython: boundscheck=False, wraparound=False
"""The open-cards finish of docs/judging-decisions.md, "The play model": max^n with a paranoid tie-break.

Every hand is open.  At each turn the player due plays the legal move that wins them
the most tricks of the deal; among moves equal for them, the one that leaves the judged
player the fewest; among moves still equal, the lowest card (rank 2 … A, then clubs,
diamonds, hearts, spades), not announcing before announcing.  The play is then fully
determined, and so is every player's count of tricks.

``MaxN`` walks the positions of a ``Search`` of the double-dummy solver (solver.py):
its moves are the engine's ``legal_cards``, with equivalent cards reduced to the lowest
of a run (the tricks are the same whichever of them is played, and the lowest is the one
the tie-break would take), and its position key.  Results are kept in a transposition
table by position, for one world (one set of hands) and one judged player.

Compiled by Cython in pure-Python mode (setup.py, maxn.pxd).
"""

from __future__ import annotations

from array import array

import cython

from loo_replay.engine.legal import card_of
from loo_replay.engine.solver import ANNOUNCE, CARD, Search, taker

BITS: int = cython.declare(cython.int, 4)  # a player's tricks in a packed result: at most 5,
MASK: int = cython.declare(cython.int, 15)  # below 16
C_ANNOUNCE: int = cython.declare(cython.int, ANNOUNCE)  # as a C value: read at every move


@cython.cfunc
@cython.inline
def _place(card: cython.int) -> cython.int:
    """Where ``card`` stands in the order of the tie-break: rank first, then clubs,
    diamonds, hearts, spades (suits are numbered spades, hearts, diamonds, clubs)."""
    return (card % 13) * 4 + 3 - card // 13


@cython.cfunc
@cython.inline
def _card_at(place: cython.int) -> cython.int:
    """The card of a ``_place``."""
    return (3 - place % 4) * 13 + place // 4


@cython.ccall
def order_key(move: cython.int) -> cython.int:
    """Which of two moves equal for everyone is played: the lower key (docs/judging-decisions.md)."""
    return _place(move & CARD) * 2 + (1 if move & ANNOUNCE else 0)


@cython.cclass
class MaxN:
    """The max^n finish from a ``Search``'s position, for the judged seat ``judged``."""

    search: Search
    judged: cython.int
    shift: array[int]  # by seat: where its tricks sit in a packed result
    table: dict[object, int]
    nodes: cython.longlong
    first: cython.int  # the trick under way at the start

    def __init__(self, search: Search, judged: int) -> None:
        self.search = search
        self.judged = judged
        self.shift = array("i", bytes(4 * len(search.state.seats)))
        for i, seat in enumerate(search.playing):
            self.shift[seat] = BITS * i
        self.table = {}
        self.nodes = 0
        self.first = search.trick.number

    def deal(self, hands: list[int]) -> None:
        """Another world: the same position with these hands (by seat)."""
        self.search.rehand(hands)
        self.table.clear()

    @cython.ccall
    def tricks(self, packed: cython.longlong, seat: cython.int) -> cython.int:
        """``seat``'s tricks in a packed result of ``finish``."""
        return packed >> self.shift[seat] & MASK

    @cython.ccall
    def finish(self) -> cython.longlong:
        """The tricks each player takes from here to the end of the deal, packed ``BITS``
        bits a player in the order of ``search.playing``.  Positions are remembered at the
        start of a trick only: within a trick, one way leads to each position."""
        s: Search = self.search
        left: cython.int = s.left
        if left == 0:
            return 0
        value: cython.longlong
        if left == 1:
            self.nodes += 1
            value = cython.cast(cython.longlong, 1) << self.shift[s._last_trick_winner()]
            return value
        # Two ways can lead to one position only once two tricks have been completed
        # since the start (the cards of one trick say who played which): the table is
        # asked from then on, at the start of a trick.
        key: object = None
        if s.live == 0 and s.trick.number >= self.first + 2:
            key = s._key()
            hit = self.table.get(key)
            if hit is not None:
                return hit
        self.nodes += 1
        seat: cython.int = s.to_move()
        own: cython.int = self.shift[seat]
        mine: cython.int = self.shift[self.judged]
        best: cython.longlong = -1
        best_own: cython.int = -1
        best_theirs: cython.int = 99
        undo: cython.longlong
        won: cython.int
        mover: cython.int
        theirs: cython.int
        card: cython.int
        move: cython.int
        moves: cython.int
        i: cython.int
        # The moves lowest first, as the tie-break orders them: each card kept by the
        # reduction set at its ``_place`` in a mask, read back lowest bit first; a card led
        # announcing or not is two moves, the silent one first.  A later move replaces the
        # best only if it is strictly better for the mover, or as good and worse for the
        # judged player; one that wins the mover every trick left cannot be bettered.
        keep: cython.ulonglong = s._reduced_mask(seat)
        places: cython.ulonglong = 0
        low: cython.ulonglong
        while keep:
            low = keep & (~keep + 1)
            places |= cython.cast(cython.ulonglong, 1) << _place(card_of(low))
            keep ^= low
        announcing: cython.bint = s.live == 0 and s.pam_announced
        while places:
            low = places & (~places + 1)
            places ^= low
            card = _card_at(card_of(low))
            moves = 2 if announcing and s._announcing(card) else 1
            for i in range(moves):
                move = card | C_ANNOUNCE if i else card
                undo = s.play(move)
                won = taker(undo)
                value = self.finish()
                if won >= 0:
                    value += cython.cast(cython.longlong, 1) << self.shift[won]
                s.unplay(undo)
                mover = value >> own & MASK
                if mover < best_own:
                    continue
                theirs = value >> mine & MASK
                if mover > best_own or theirs < best_theirs:
                    best, best_own, best_theirs = value, mover, theirs
                    if mover == left:
                        places = 0
                        break
        if key is not None:
            self.table[key] = best
        return best

    @cython.ccall
    def after(self, move: cython.int) -> cython.longlong:
        """``finish`` after ``move`` by the seat due, the trick it may complete counted."""
        s: Search = self.search
        undo: cython.longlong = s.play(move)
        won: cython.int = taker(undo)
        value: cython.longlong = self.finish()
        if won >= 0:
            value += cython.cast(cython.longlong, 1) << self.shift[won]
        s.unplay(undo)
        return value
