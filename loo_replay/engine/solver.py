# cython: boundscheck=False, wraparound=False
"""The paranoid double-dummy guarantee G of docs/analysis.md, "What a player can make sure of", by AND-OR search.

``Search`` holds one deal's position as a ``DealState`` of the engine, one
``Trick`` and the hands as C integers, and steps it with ``lay``/``lift``: every
move is a card that ``legal_hand`` (``legal_cards`` for a hand held apart)
allows in that state (the ace of trumps, led under ``follow.pam_civil =
"announced"``, is two moves: announced or not), and trick winners come from the
engine's own ``lay``.  A move allocates no Python object.  ``can(k)`` asks whether
the player under study can make sure of ``k`` more tricks, whatever the
others do together; it is a zero-window search with a transposition table
per player, equivalent cards reduced to one, ordered moves and quick
cut-offs that are sound for every option of docs/rules.md §7.

The module is compiled by Cython in pure-Python mode (setup.py): ``Search`` is
then an extension type whose counters and masks are C integers; the annotations
``cython.int`` and ``cython.ulonglong`` read as ``int`` to Python and mypy, so
this source runs the same uncompiled.
"""

from __future__ import annotations

from array import array

import cython

from loo_replay.engine.cards import PAM
from loo_replay.engine.legal import card_of, lay, legal_hand, lift, power
from loo_replay.engine.model import DEAD, Trick
from loo_replay.engine.options import Options
from loo_replay.engine.replay import Replay
from loo_replay.engine.state import DealState
from loo_replay.engine.tables import ACES, EFFECTIVE_SUIT, NO_TRUMP, POWER, TRUMP_ORDER

ANNOUNCE = 64  # a move is a card, plus ANNOUNCE for the ace of trumps led with "Pam, be civil"
CARD = 63
# These and the tables' constants as C values: read at every node, a Python global is boxed.
C_ANNOUNCE: int = cython.declare(cython.int, ANNOUNCE)
C_CARD: int = cython.declare(cython.int, CARD)
C_NO_TRUMP: int = cython.declare(cython.int, NO_TRUMP)
C_PAM: int = cython.declare(cython.int, PAM)
Moves = tuple[int, ...]  # moves in the order they are tried
TABLE_LIMIT = 400_000  # entries per table before it is cleared: bounded memory, same answers
ONE: int = cython.declare(cython.ulonglong, 1)  # ``ONE << card``: a mask of one card, in 64 bits


@cython.cfunc
@cython.inline
def _bounds(lower: cython.int, upper: cython.int) -> int:
    """A table entry: what the player under study is sure of at least, and at most, from a
    position, as one int below 256 (a hand has 5 cards at most), which Python never allocates."""
    return lower << 4 | upper


@cython.ccall
@cython.exceptval(check=False)
def taker(undo: cython.longlong) -> cython.int:
    """Who took the trick the move of ``undo`` (``Search.play``) completed; -1 if none."""
    return (undo & 127) - 1


class OverBudget(Exception):
    """The search passed its node budget (docs/analysis.md, "Budget and honesty")."""


def _order_keys(pam: bool, trump: int) -> tuple[int, ...]:
    """How strong each card is as a lead of its own suit: the order moves are tried in."""
    suit_power = POWER[pam][trump]
    return tuple(suit_power[card // 13][card] for card in range(52))


ORDER_KEYS = tuple(tuple(_order_keys(p, t) for t in range(5)) for p in (False, True))


@cython.cclass
class Search:
    """One deal's position from a replay at the start of play (or later), with the search.

    ``advance`` plays the recorded cards; ``future`` and ``can`` answer for a player.
    """

    state: DealState
    playing: tuple[int, ...]
    n: cython.int  # players in the deal
    # The trick under way: the search's one Trick, its C fields kept as legality reads them
    # (its ``cards`` and ``win`` stay as they were at the start; ``win_seat`` says who wins).
    trick: Trick
    left: cython.int  # tricks not yet complete
    won: list[int]  # tricks taken, by seat
    nodes: cython.long
    o: Options
    hold: array[int]  # what each seat holds now, by seat; the state's hands are not kept
    win_seat: cython.int  # who wins the trick under way so far (-1 before its lead)
    start: cython.int  # the number of the trick under way at the start
    # Of each trick completed since the start, by its number less ``start``: its cards before
    # the last (dead ones aside) and its seats, for ``unplay`` to put it back.
    stack: array[int]
    order: array[int]  # at ``leader * n + i``: the seat ``i`` places after ``leader`` in a trick
    first_lead: cython.bint
    size: cython.int
    trick_mask: cython.ulonglong
    in_play: cython.ulonglong
    max_nodes: cython.long
    tables: dict[int, dict[object, int]]
    table: dict[object, int]  # position -> its bounds, packed by ``_bounds``
    move_cache: dict[object, tuple[int, ...]]
    player: cython.int
    pam_announced: cython.bint
    special: cython.ulonglong  # ``_special`` under the trumps now
    two_players: cython.bint  # ``lead.highest_trump = "two_players"``, read at every node
    turned: cython.ulonglong  # the cards turned up to fix trumps: they never move
    # The state's values the search reads at every node, kept beside it as C values.
    played: cython.ulonglong
    trump: cython.int
    trump_mask: cython.ulonglong
    announce: cython.bint
    pam: cython.bint
    effective: tuple[int, ...]  # EFFECTIVE_SUIT under the trumps now
    live: cython.int  # the trick's ``live`` and ``leader``
    leader: cython.int

    def __init__(self, replay: Replay, max_nodes: int) -> None:
        real = replay.state
        o = real.options
        self.o = o
        self.state = real.copy()
        playing = real.playing()
        self.hold = array("Q", real.hands)
        self.playing = tuple(playing)
        n = self.n = len(playing)
        self.order = array("i", bytes(4 * n * len(real.seats)))
        for i, seat in enumerate(playing):
            for j in range(n):
                self.order[seat * n + j] = playing[(i + j) % n]
        self.first_lead = replay.method == "first_lead"
        self.size = o.deal_hand_size
        current = real.trick
        if current is None:
            trick = Trick(number=len(real.tricks) + 1, leader=replay.leader)
        else:
            trick = current.copy()
        self.state.announce = real.announce and trick.live != 0
        self.state.tricks = [trick]
        self.trick = trick
        self.live = trick.live  # cards played to it in turn, and its leader: the trick's own
        self.leader = trick.leader
        self.win_seat = trick.cards[trick.win][0] if trick.live else -1
        self.start = trick.number
        self.trick_mask = self._cards_of(trick)
        in_play = self.trick_mask
        for seat in playing:
            in_play |= real.hands[seat]
        self.in_play = in_play  # every card still to be played or on the table, at the start
        self.left = self.size - trick.number + 1  # tricks not yet complete
        self.stack = array("Q", bytes(16 * (self.left + 1)))
        self.won = list(replay.result.tricks_won)
        self.max_nodes = max_nodes
        self.nodes = 0
        self.tables = {s: {} for s in playing}
        self.table = {}
        self.move_cache = {}
        self.player = -1
        self.pam_announced = o.deal_pam and o.follow_pam_civil == "announced"
        self.two_players = o.lead_highest_trump == "two_players"
        self.turned = self.state.turned
        self.pam = o.deal_pam
        self.played = self.state.played
        self.announce = self.state.announce
        self._trumps()

    @cython.cfunc
    def _cards_of(self, trick: Trick) -> cython.ulonglong:
        """The mask of the cards played to ``trick``, dead ones aside: their owners say who
        played them."""
        mask: cython.ulonglong = 0
        card: cython.int
        for _, card, legal, _ in trick.cards:
            if legal != DEAD:
                mask |= ONE << card
        return mask

    @cython.cfunc
    def _trumps(self) -> None:
        """Take the trump suit, its mask and its tables from the state."""
        st = self.state
        self.trump = st.trump
        self.trump_mask = st.trump_mask
        self.effective = EFFECTIVE_SUIT[self.pam][self.trump]
        self.special = self._special()

    # -- stepping --------------------------------------------------------------

    @cython.ccall
    @cython.exceptval(check=False)
    def to_move(self) -> cython.int:
        """The seat due to play now (-1 once the deal is over)."""
        if self.left == 0:
            return -1
        return self.order[self.leader * self.n + self.live]

    @cython.ccall
    def play(self, move: cython.int) -> cython.longlong:
        """Play ``move`` for the seat due; the undo record for ``unplay``, packed in one C
        integer so that a node allocates nothing for it (``taker`` reads who took the trick
        the move completed).  From bit 0: that taker + 1 (0: no trick completed, 7 bits); the
        trick's led + 1 (3), winning seat + 1 (7), win_power + 2 (8), trumped (1), lead + 1
        (7) and leader (7) before the move; the announcement before (1); whether the move
        fixed trumps (1); the card (6)."""
        st = self.state
        trick = self.trick
        live: cython.int = self.live
        seat: cython.int = self.order[self.leader * self.n + live]
        card: cython.int = move & C_CARD
        undo: cython.longlong = (trick.led + 1) << 7 | (self.win_seat + 1) << 10
        undo |= (trick.win_power + 2) << 17 | trick.trumped << 25
        undo |= cython.cast(cython.longlong, trick.lead + 1) << 26
        undo |= cython.cast(cython.longlong, self.leader) << 33
        undo |= cython.cast(cython.longlong, st.announce) << 40
        undo |= cython.cast(cython.longlong, card) << 42
        if not live:
            st.announce = self.announce = bool(move & C_ANNOUNCE)
            if self.first_lead and self.trump == C_NO_TRUMP:
                st.fix_trump(card // 13)
                self._trumps()
                undo |= cython.cast(cython.longlong, 1) << 41
        if lay(st, trick, seat, card):
            self.win_seat = seat
        self.hold[seat] &= ~(ONE << card)
        self.played |= ONE << card
        if live + 1 < self.n:
            self.live = live + 1
            self.trick_mask |= ONE << card
            return undo
        winner: cython.int = self.win_seat
        depth: cython.int = 2 * (trick.number - self.start)
        self.stack[depth] = self.trick_mask
        self.stack[depth + 1] = trick.seats
        self.left -= 1
        trick.number += 1  # the next trick, in the same Trick
        trick.leader = winner
        trick.live = 0
        trick.lead = trick.led = -1
        trick.win_power = -2
        trick.trumped = False
        trick.seats = 0
        self.live = 0
        self.leader = winner
        self.win_seat = -1
        self.trick_mask = 0
        st.announce = self.announce = False  # an announcement lasts for its trick
        return undo | (winner + 1)

    @cython.ccall
    def unplay(self, undo: cython.longlong) -> None:
        st = self.state
        trick = self.trick
        if taker(undo) != -1:
            trick.number -= 1
            depth: cython.int = 2 * (trick.number - self.start)
            self.trick_mask = self.stack[depth]
            trick.seats = self.stack[depth + 1]
            trick.live = self.n
            self.left += 1
            self.leader = trick.leader = undo >> 33 & 127
            self.live = self.n - 1
        else:
            self.live -= 1
        card: cython.int = undo >> 42 & 63
        self.trick_mask &= ~(ONE << card)
        seat: cython.int = self.order[self.leader * self.n + self.live]
        lift(
            st,
            trick,
            seat,
            card,
            (undo >> 7 & 7) - 1,
            (undo >> 26 & 127) - 1,
            (undo >> 17 & 255) - 2,
            bool(undo >> 25 & 1),
        )
        self.win_seat = (undo >> 10 & 127) - 1
        self.hold[seat] |= ONE << card
        self.played = st.played
        st.announce = self.announce = bool(undo >> 40 & 1)
        if undo >> 41 & 1:
            st.fix_trump(NO_TRUMP)
            self._trumps()

    def rehand(self, hands: list[int]) -> None:
        """Give the players still playing the hands of ``hands`` (by seat), the position
        otherwise the same: a possible world of docs/judging-decisions.md.  Called at the position the
        search was made at; what was remembered of the old hands is forgotten."""
        in_play: cython.ulonglong = self.trick_mask
        for seat in self.playing:
            self.hold[seat] = hands[seat]
            in_play |= hands[seat]
        self.in_play = in_play
        self.move_cache.clear()
        for table in self.tables.values():
            table.clear()

    def move(self, card: int, announce: bool) -> int:
        """The move of a recorded card: an announcement that changes nothing is no move."""
        leading = not self.live
        return card | ANNOUNCE if announce and leading and self._announcing(card) else card

    def advance(self, card: int, announce: bool) -> int:
        """Play a recorded card for good; the trick's winner when it completes it, else -1."""
        winner: int = taker(self.play(self.move(card, announce)))
        if winner != -1:
            self.won[winner] += 1
        return winner

    @cython.ccall
    def _announcing(self, card: cython.int) -> cython.bint:
        """Whether leading ``card`` is the two moves announce / not announce (docs/rules.md §4.1)."""
        trump: cython.int = self.trump
        if not self.pam_announced or trump == C_NO_TRUMP or card != ACES[trump]:
            return False
        others: cython.ulonglong = 0
        for seat in self.playing:
            others |= self.hold[seat]
        return bool(others >> C_PAM & 1)

    # -- moves -----------------------------------------------------------------

    def legal_moves(self) -> tuple[int, ...]:
        """Every legal move of the seat due, in card order: what a player could choose."""
        st = self.state
        seat = self.to_move()
        out: list[int] = []
        mask: cython.ulonglong = legal_hand(st, self.hold[seat])
        leading = not self.live
        while mask:
            low: cython.ulonglong = mask & -mask
            card = card_of(low)
            mask ^= low
            out.append(card)
            if leading and self.pam_announced and self._announcing(card):
                out.append(card | ANNOUNCE)
        return tuple(out)

    @cython.cfunc
    def _special(self) -> cython.ulonglong:
        """Cards that never stand for another under the trumps now: Pam and the ace of
        trumps where "Pam, be civil" can bind, and the top trump where it must be led
        (docs/rules.md §3, §4.1)."""
        o = self.o
        trump: cython.int = self.trump
        mask: cython.ulonglong = 0
        if trump == NO_TRUMP:
            return mask
        if o.deal_pam:
            mask |= ONE << PAM
            if o.follow_pam_civil != "off":
                mask |= ONE << ACES[trump]
        if o.lead_top_trump != "off":
            for card in TRUMP_ORDER[o.deal_pam][trump]:
                if not self.turned >> card & 1:
                    mask |= ONE << card
                    break
        return mask

    @cython.cfunc
    def _reduced_mask(self, seat: cython.int) -> cython.ulonglong:
        """The legal cards of ``seat`` with equivalent cards reduced to the lowest.  Two of
        the player's cards are equivalent when no card that anyone else still holds or has
        on the table lies between them in their suit (with ``two_players``, no trump still
        out of play either, since its run is reckoned over played cards only)."""
        st = self.state
        trump: cython.int = self.trump
        hand: cython.ulonglong = self.hold[seat]
        legal: cython.ulonglong = legal_hand(st, hand)  # cheaper than remembering it
        keep: cython.ulonglong
        low: cython.ulonglong
        card: cython.int
        if trump == C_NO_TRUMP or legal & (legal - 1) == 0:
            keep = legal
        else:
            trick_cards: cython.ulonglong = self.trick_mask
            played: cython.ulonglong = self.played
            trump_mask: cython.ulonglong = self.trump_mask
            blockers: cython.ulonglong = (self.in_play & ~played | trick_cards) & ~hand
            if self.two_players:
                dead: cython.ulonglong = (played & ~trick_cards) | self.turned | hand
                blockers |= trump_mask & ~dead
            special: cython.ulonglong = self.special
            keep = 0
            last: cython.int
            suited: cython.ulonglong
            suit_mask: cython.ulonglong  # a C value: a C and, not Python's
            for suit_mask in st.suit_masks:
                suited = legal & suit_mask
                if not suited:
                    continue
                last = -1  # the last card kept of a run, by card number
                while suited:
                    low = suited & -suited
                    card = card_of(low)
                    suited ^= low
                    if (
                        last < 0
                        or (special >> card | special >> last) & 1
                        or blockers & ((ONE << card) - (ONE << (last + 1)))
                    ):
                        keep |= low
                    last = card
        return keep

    @cython.cfunc
    def _reduced(self, seat: cython.int) -> Moves:
        """The moves of ``_reduced_mask``, weakest first."""
        trump: cython.int = self.trump
        leading: cython.bint = not self.live
        keep: cython.ulonglong = self._reduced_mask(seat)
        moves: list[int] = []
        low: cython.ulonglong
        card: cython.int
        keys = ORDER_KEYS[self.pam][trump]
        ranked: list[int] = []  # each card as its order key and the card: weakest first,
        rank: cython.int  # cards of one strength in card order, by a sort of plain ints
        while keep:
            low = keep & -keep
            card = card_of(low)
            rank = keys[card]
            ranked.append(rank << 6 | card)
            keep ^= low
        ranked.sort()
        announcing: cython.bint = leading and self.pam_announced
        move: cython.int
        for rank in ranked:
            move = rank & C_CARD
            moves.append(move)
            if announcing and self._announcing(move):
                moves.append(move | C_ANNOUNCE)
        return tuple(moves)

    # -- the search --------------------------------------------------------------

    @cython.ccall
    def study(self, player: cython.int) -> None:
        """Answer for ``player`` from now on (each player has a table of their own)."""
        self.player = player
        self.table = self.tables[player]

    def future(self, player: int, low: int = 0, guess: int = 0, high: int = 99) -> int:
        """The tricks ``player`` can make sure of from here on, knowing at least ``low`` and
        at most ``high``.  A ``guess`` (what they took in the end, say) is asked first:
        right, it spares the proofs of every smaller number; the answer is exact either way."""
        self.study(player)
        f = max(0, low)
        top = min(self.left, high)
        if f + 1 < guess <= top:
            if self.can(guess):
                f = guess
            else:
                top = guess - 1
        while f < top and self.can(f + 1):
            f += 1
        return f

    @cython.cfunc
    def _top_trumps(self, player: cython.int) -> cython.int:
        """How many of the highest trumps still in play ``player`` holds: each takes a trick."""
        trump: cython.int = self.trump
        if trump == C_NO_TRUMP:
            return 0
        hand: cython.ulonglong = self.hold[player]
        if not hand & self.trump_mask:
            return 0
        live: cython.ulonglong = self.in_play & ~self.played | self.trick_mask
        count: cython.int = 0
        card: cython.int
        for card in TRUMP_ORDER[self.pam][trump]:
            if hand >> card & 1:
                count += 1
            elif live >> card & 1:
                break
        return count

    @cython.cfunc
    def _cannot_win_trick(self, player: cython.int) -> cython.bint:
        """Whether ``player`` is already beaten in the trick being played."""
        trick = self.trick
        if not self.live:
            return False
        if trick.seats >> player & 1:
            return self.win_seat != player
        led: cython.int = trick.led
        hand: cython.ulonglong = self.hold[player]
        win: cython.int = trick.win_power
        low: cython.ulonglong
        while hand:
            low = hand & -hand
            if power(self.pam, self.trump, led, card_of(low)) > win:
                return False
            hand ^= low
        return True

    @cython.cfunc
    @cython.exceptval(check=False)
    def _last_trick_winner(self) -> cython.int:
        """Who takes the last trick: each player holds one card, the one move
        ``legal_cards`` can leave them, so the trick is played out without a search."""
        trick = self.trick
        first: cython.int = self.leader * self.n
        pam: cython.bint = self.pam
        trump: cython.int = self.trump
        best: cython.int
        winner: cython.int
        start: cython.int
        led: cython.int
        now: cython.int
        i: cython.int
        card: cython.int
        if self.live:
            led = trick.led
            best, winner = trick.win_power, self.win_seat
            start = self.live
        else:
            card = card_of(self.hold[self.leader])
            led = self.effective[card]
            best, winner = power(pam, trump, led, card), self.leader
            start = 1
        seat: cython.int
        for i in range(start, self.n):
            seat = self.order[first + i]
            now = power(pam, trump, led, card_of(self.hold[seat]))
            if now > best:
                best, winner = now, seat
        return winner

    @cython.cfunc
    def _sure_to_win(self, seat: cython.int, moves: Moves) -> cython.bint:
        """Whether one of ``moves`` beats the table and every card the players after
        ``seat`` in this trick hold: it takes the trick whatever they play."""
        trick = self.trick
        later: cython.ulonglong = 0
        first: cython.int = self.leader * self.n
        i: cython.int
        for i in range(self.live + 1, self.n):
            later |= self.hold[self.order[first + i]]
        pam: cython.bint = self.pam
        trump: cython.int = self.trump
        low: cython.ulonglong
        mine: cython.int
        card: cython.int
        led: cython.int
        if self.live:
            led = trick.led
            threat: cython.int = trick.win_power
            while later:
                low = later & -later
                threat = max(threat, power(pam, trump, led, card_of(low)))
                later ^= low
            for move in moves:  # noqa: SIM110  (a loop compiles to C, a generator does not)
                if power(pam, trump, led, move & C_CARD) > threat:
                    return True
            return False
        if trump == C_NO_TRUMP:
            return False  # the lead may fix trumps (``first_lead``)
        effective = self.effective
        rest: cython.ulonglong
        for move in moves:
            card = move & C_CARD
            led = effective[card]
            mine = power(pam, trump, led, card)
            rest = later
            while rest:
                low = rest & -rest
                if power(pam, trump, led, card_of(low)) > mine:
                    break
                rest ^= low
            else:
                return True
        return False

    @cython.cfunc
    def _cheapest_winners(self, moves: Moves) -> Moves:
        """``moves`` with the cards that beat the table first, lowest first, then the rest
        lowest first: how the others take a trick from the player under study."""
        trick = self.trick
        led: cython.int = trick.led
        win: cython.int = trick.win_power
        beat: list[int] = []
        rest: list[int] = []
        for m in moves:
            (beat if power(self.pam, self.trump, led, m & C_CARD) > win else rest).append(m)
        return tuple(beat + rest)

    @cython.cfunc
    def _key(self) -> object:
        """The position, for the tables: the hands are the deal's less the cards played, and
        each card's owner says who played it to the trick under way.  At a trick's start
        (most entries) it is one 62-bit int, cheap to build and hash, else that int beside
        the trick's cards.  A seat number fits in 6 bits (52 cards, 52 seats at most)."""
        leader: cython.ulonglong = self.leader  # 64-bit before shifting
        trump: cython.ulonglong = self.trump
        announce: cython.ulonglong = self.announce
        packed: cython.ulonglong = self.played | leader << 52 | trump << 58 | announce << 61
        if self.live or self.trick_mask:
            return (packed, self.trick_mask)
        return packed

    @cython.ccall
    def can(self, k: cython.int) -> cython.bint:
        """Whether the player under study can make sure of ``k`` >= 1 more tricks."""
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise OverBudget
        left: cython.int = self.left
        if k > left:
            return False
        trick = self.trick
        player: cython.int = self.player
        live: cython.int = self.live
        key = self._key()
        table = self.table
        entry = table.get(key)
        lower: cython.int
        upper: cython.int
        if entry is None:
            lower, upper = 0, left
        else:
            packed: cython.int = entry
            lower, upper = packed >> 4, packed & 15
            if lower >= k:
                return True
            if upper < k:
                return False
        if left == 1:
            taken: cython.int = 1 if self._last_trick_winner() == player else 0
            table[key] = _bounds(taken, taken)
            return taken == 1
        beaten: cython.bint = live != 0 and self._cannot_win_trick(player)
        if beaten and k >= left:
            table[key] = _bounds(lower, left - 1)
            return False
        if self.hold[player] & self.trump_mask:
            top: cython.int = self._top_trumps(player)
            if top >= k:
                table[key] = _bounds(top, upper)
                return True
        moves = self.move_cache.get(key)
        seat: cython.int = self.order[self.leader * self.n + live]
        if moves is None:
            moves = self._reduced(seat)
            if len(self.move_cache) >= TABLE_LIMIT:
                self.move_cache.clear()
            self.move_cache[key] = moves
        mine: cython.bint = seat == player
        if mine and k == 1 and self._sure_to_win(seat, moves):
            table[key] = _bounds(1, upper)
            return True
        result: cython.bint = not mine
        if mine:
            order = moves[::-1]  # their strongest first
        elif beaten:
            order = moves  # they are beaten: the others keep their strength
        elif trick.seats >> player & 1:
            order = self._cheapest_winners(moves)
        else:
            order = moves[::-1]  # they are still to play: the others play high
        ok: cython.bint
        need: cython.int
        undo: cython.longlong
        for move in order:
            undo = self.play(move)
            need = k - 1 if taker(undo) == player else k
            ok = need <= 0 or self.can(need)
            self.unplay(undo)
            if ok == mine:
                result = ok
                break
        if len(table) >= TABLE_LIMIT:
            table.clear()
        if result:
            table[key] = _bounds(k, upper)
        else:
            table[key] = _bounds(lower, k - 1)
        return result
