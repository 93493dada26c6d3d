"""The paranoid double-dummy guarantee G of ANALYSIS.md §2, by AND-OR search.

``Search`` holds one deal's position as a ``DealState`` of the engine and
steps it with ``add_card``/``take_back``: every move is a card that
``legal_cards`` allows in that state (the ace of trumps, led under
``follow.pam_civil = "announced"``, is two moves: announced or not), and
trick winners come from the engine's own ``Trick``.  ``can(k)`` asks whether
the player under study can make sure of ``k`` more tricks, whatever the
others do together; it is a zero-window search with a transposition table
per player, equivalent cards reduced to one, ordered moves and quick
cut-offs that are sound for every option of RULES.md §7.

The hot loop uses plain ints, tuples and dicts only, so that a compiler of
typed Python (Cython in pure-Python mode) can take it as it is.
"""

from __future__ import annotations

from loo_replay.engine.cards import PAM
from loo_replay.engine.legal import add_card, legal_cards, take_back
from loo_replay.engine.model import DEAD, Trick
from loo_replay.engine.replay import Replay
from loo_replay.engine.state import DealState
from loo_replay.engine.tables import ACES, EFFECTIVE_SUIT, NO_TRUMP, POWER, TRUMP_ORDER

ANNOUNCE = 64  # a move is a card, plus ANNOUNCE for the ace of trumps led with "Pam, be civil"
CARD = 63
# What ``play`` returns for ``unplay``: the winner of the trick it completed (or -1), the
# trick, its (led, win, win_power, trumped) before, the announcement before, whether the
# move fixed trumps (``deal.trump = "first_lead"``) and the mask of the trick's cards before.
Undo = tuple[int, Trick, tuple[int, int, int, bool], bool, bool, int]
TABLE_LIMIT = 400_000  # entries per table before it is cleared: bounded memory, same answers


class OverBudget(Exception):
    """The search passed its node budget (ANALYSIS.md §4)."""


def _order_keys(pam: bool, trump: int) -> tuple[int, ...]:
    """How strong each card is as a lead of its own suit: the order moves are tried in."""
    suit_power = POWER[pam][trump]
    return tuple(suit_power[card // 13][card] for card in range(52))


ORDER_KEYS = tuple(tuple(_order_keys(p, t) for t in range(5)) for p in (False, True))


class Search:
    """One deal's position from a replay at the start of play (or later), with the search.

    ``advance`` plays the recorded cards; ``future`` and ``can`` answer for a player.
    """

    def __init__(self, replay: Replay, max_nodes: int) -> None:
        real = replay.state
        o = real.options
        self.o = o
        self.state = DealState(
            options=o,
            seats=real.seats,
            dealer=real.dealer,
            hands=list(real.hands),
            order=real.order,
            trump=real.trump,
            turned=real.turned,
            played=real.played,
            active=list(real.active),
            retired=set(real.retired),
        )
        playing = real.playing()
        self.playing = tuple(playing)
        self.n = len(playing)
        self.rotation = {
            seat: tuple(playing[i:] + playing[:i]) for i, seat in enumerate(playing)
        }  # the order of a trick led by each seat
        self.first_lead = replay.method == "first_lead"
        self.size = o.deal_hand_size
        current = real.trick
        if current is None:
            trick = Trick(number=len(real.tricks) + 1, leader=replay.leader)
        else:
            trick = Trick(
                number=current.number,
                leader=current.leader,
                cards=list(current.cards),
                live=current.live,
                lead=current.lead,
                led=current.led,
                win=current.win,
                win_power=current.win_power,
                trumped=current.trumped,
                seats=current.seats,
            )
        self.state.announce = real.announce and trick.live != 0
        self.state.tricks = [trick]
        self.trick = trick
        self.trick_mask = 0  # the cards of the current trick (their owners say who played them)
        for _, card, legal, _ in trick.cards:
            if legal != DEAD:
                self.trick_mask |= 1 << card
        in_play = self.trick_mask
        for seat in playing:
            in_play |= real.hands[seat]
        self.in_play = in_play  # every card still to be played or on the table, at the start
        self.left = self.size - trick.number + 1  # tricks not yet complete
        self.won = list(replay.result.tricks_won)
        self.max_nodes = max_nodes
        self.nodes = 0
        self.tables: dict[int, dict[tuple[object, ...], tuple[int, int]]] = {s: {} for s in playing}
        self.table: dict[tuple[object, ...], tuple[int, int]] = {}
        self.move_cache: dict[tuple[object, ...], tuple[int, ...]] = {}
        self.legal_cache: dict[tuple[object, ...], int] = {}
        self.player = -1
        self.pam_announced = o.deal_pam and o.follow_pam_civil == "announced"
        self.special_cache: dict[int, int] = {}

    # -- stepping --------------------------------------------------------------

    def to_move(self) -> int:
        """The seat due to play now (-1 once the deal is over)."""
        if self.left == 0:
            return -1
        trick = self.trick
        return self.rotation[trick.leader][trick.live]

    def play(self, move: int) -> Undo:
        """Play ``move`` for the seat due; the undo record for ``unplay``.  Its first item is
        the winner of the trick the move completed, or -1."""
        st = self.state
        trick = self.trick
        seat = self.rotation[trick.leader][trick.live]
        card = move & CARD
        announce = st.announce
        fixed = False
        if not trick.live:
            st.announce = bool(move & ANNOUNCE)
            if self.first_lead and st.trump == NO_TRUMP:
                st.fix_trump(card // 13)
                fixed = True
        saved = (trick.led, trick.win, trick.win_power, trick.trumped)
        add_card(st, trick, seat, card, 0)
        trick_mask = self.trick_mask
        if trick.live < self.n:
            self.trick_mask = trick_mask | 1 << card
            return (-1, trick, saved, announce, fixed, trick_mask)
        winner = trick.cards[trick.win][0]
        self.left -= 1
        following = Trick(number=trick.number + 1, leader=winner)
        st.tricks[0] = following
        self.trick = following
        self.trick_mask = 0
        st.announce = False  # an announcement lasts for its trick
        return (winner, trick, saved, announce, fixed, trick_mask)

    def unplay(self, undo: Undo) -> None:
        winner, trick, saved, announce, fixed, trick_mask = undo
        st = self.state
        if winner != -1:
            self.left += 1
            st.tricks[0] = trick
            self.trick = trick
        take_back(st, trick, saved)
        self.trick_mask = trick_mask
        st.announce = announce
        if fixed:
            st.fix_trump(NO_TRUMP)

    def move(self, card: int, announce: bool) -> int:
        """The move of a recorded card: an announcement that changes nothing is no move."""
        leading = not self.trick.live
        return card | ANNOUNCE if announce and leading and self._announcing(card) else card

    def advance(self, card: int, announce: bool) -> int:
        """Play a recorded card for good; the trick's winner when it completes it, else -1."""
        winner = self.play(self.move(card, announce))[0]
        if winner != -1:
            self.won[winner] += 1
        return winner

    def _announcing(self, card: int) -> bool:
        """Whether leading ``card`` is the two moves announce / not announce (RULES.md §4.1)."""
        st = self.state
        if not self.pam_announced or st.trump == NO_TRUMP or card != ACES[st.trump]:
            return False
        others = 0
        for seat in self.playing:
            others |= st.hands[seat]
        return bool(others >> PAM & 1)

    # -- moves -----------------------------------------------------------------

    def legal_moves(self) -> tuple[int, ...]:
        """Every legal move of the seat due, in card order: what a player could choose."""
        st = self.state
        seat = self.to_move()
        out: list[int] = []
        mask = legal_cards(st, seat)
        leading = not self.trick.live
        while mask:
            low = mask & -mask
            card = low.bit_length() - 1
            mask ^= low
            out.append(card)
            if leading and self.pam_announced and self._announcing(card):
                out.append(card | ANNOUNCE)
        return tuple(out)

    def _special(self, trump: int) -> int:
        """Cards that never stand for another: Pam and the ace of trumps where "Pam, be
        civil" can bind, and the top trump where it must be led (RULES.md §3, §4.1)."""
        mask = self.special_cache.get(trump)
        if mask is None:
            o = self.o
            st = self.state
            mask = 0
            if o.deal_pam:
                mask |= 1 << PAM
                if o.follow_pam_civil != "off":
                    mask |= 1 << ACES[trump]
            if o.lead_top_trump != "off":
                for card in TRUMP_ORDER[o.deal_pam][trump]:
                    if not st.turned >> card & 1:
                        mask |= 1 << card
                        break
            self.special_cache[trump] = mask
        return mask

    def _legal(self, seat: int, hand: int, leading: bool) -> int:
        """``legal_cards`` for ``seat``, remembered by what it reads: following, the hand and
        the trick so far; leading, the hand, the trick's number and the trumps played (the
        top trump, runs of trumps)."""
        st = self.state
        if leading:
            key: tuple[object, ...] = (hand, self.trick.number, st.played & st.trump_mask, st.trump)
        else:
            key = (hand, self.trick_mask, self.trick.lead, st.announce, st.trump)
        legal = self.legal_cache.get(key)
        if legal is None:
            legal = legal_cards(st, seat)
            if len(self.legal_cache) >= TABLE_LIMIT:
                self.legal_cache.clear()
            self.legal_cache[key] = legal
        return legal

    def _reduced(self, seat: int) -> tuple[int, ...]:
        """The legal moves of ``seat`` with equivalent cards reduced to the lowest, weakest
        first.  Two of the player's cards are equivalent when no card that anyone else still holds or
        has on the table lies between them in their suit (with ``two_players``, no trump
        still out of play either, since its run is reckoned over played cards only)."""
        st = self.state
        trump = st.trump
        hand = st.hands[seat]
        leading = not self.trick.live
        legal = self._legal(seat, hand, leading)
        moves: list[int] = []
        if trump == NO_TRUMP or legal & (legal - 1) == 0:
            cards = legal
            keep = legal
        else:
            trick_cards = self.trick_mask
            blockers = (self.in_play & ~st.played | trick_cards) & ~hand
            if self.o.lead_highest_trump == "two_players":
                dead = (st.played & ~trick_cards) | st.turned | hand
                blockers |= st.trump_mask & ~dead
            special = self._special(trump)
            keep = 0
            cards = legal
            for suit_mask in st.suit_masks:
                suited = legal & suit_mask
                if not suited:
                    continue
                last = -1  # the last card kept of a run, by card number
                while suited:
                    low = suited & -suited
                    card = low.bit_length() - 1
                    suited ^= low
                    if (
                        last < 0
                        or (special >> card | special >> last) & 1
                        or blockers & ((1 << card) - (2 << last))
                    ):
                        keep |= low
                    last = card
        keys = ORDER_KEYS[st.options.deal_pam][trump]
        chosen = []
        mask = keep & cards
        while mask:
            low = mask & -mask
            chosen.append(low.bit_length() - 1)
            mask ^= low
        chosen.sort(key=keys.__getitem__)
        for card in chosen:
            moves.append(card)
            if leading and self.pam_announced and self._announcing(card):
                moves.append(card | ANNOUNCE)
        return tuple(moves)

    # -- the search --------------------------------------------------------------

    def study(self, player: int) -> None:
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

    def _top_trumps(self, player: int) -> int:
        """How many of the highest trumps still in play ``player`` holds: each takes a trick."""
        st = self.state
        trump = st.trump
        if trump == NO_TRUMP:
            return 0
        hand = st.hands[player]
        if not hand & st.trump_mask:
            return 0
        live = self.in_play & ~st.played | self.trick_mask
        count = 0
        for card in TRUMP_ORDER[st.pam][trump]:
            if hand >> card & 1:
                count += 1
            elif live >> card & 1:
                break
        return count

    def _cannot_win_trick(self, player: int) -> bool:
        """Whether ``player`` is already beaten in the trick being played."""
        trick = self.trick
        if not trick.live:
            return False
        if trick.seats >> player & 1:
            return trick.cards[trick.win][0] != player
        st = self.state
        powers = POWER[st.pam][st.trump][trick.led]
        hand = st.hands[player]
        win = trick.win_power
        while hand:
            low = hand & -hand
            if powers[low.bit_length() - 1] > win:
                return False
            hand ^= low
        return True

    def _last_trick_winner(self) -> int:
        """Who takes the last trick: each player holds one card, the one move
        ``legal_cards`` can leave them, so the trick is played out without a search."""
        st = self.state
        trick = self.trick
        suit_power = POWER[st.pam][st.trump]
        seats = self.rotation[trick.leader]
        if trick.live:
            powers = suit_power[trick.led]
            best, winner = trick.win_power, trick.cards[trick.win][0]
            start = trick.live
        else:
            card = st.hands[trick.leader].bit_length() - 1
            powers = suit_power[EFFECTIVE_SUIT[st.pam][st.trump][card]]
            best, winner = powers[card], trick.leader
            start = 1
        for seat in seats[start:]:
            power = powers[st.hands[seat].bit_length() - 1]
            if power > best:
                best, winner = power, seat
        return winner

    def _sure_to_win(self, seat: int, moves: tuple[int, ...]) -> bool:
        """Whether one of ``moves`` beats the table and every card the players after
        ``seat`` in this trick hold: it takes the trick whatever they play."""
        st = self.state
        trick = self.trick
        later = 0
        for other in self.rotation[trick.leader][trick.live + 1 :]:
            later |= st.hands[other]
        suit_power = POWER[st.pam][st.trump]
        if trick.live:
            powers = suit_power[trick.led]
            threat = trick.win_power
            while later:
                low = later & -later
                threat = max(threat, powers[low.bit_length() - 1])
                later ^= low
            return any(powers[move & CARD] > threat for move in moves)
        if st.trump == NO_TRUMP:
            return False  # the lead may fix trumps (``first_lead``)
        effective = EFFECTIVE_SUIT[st.pam][st.trump]
        for move in moves:
            card = move & CARD
            powers = suit_power[effective[card]]
            power = powers[card]
            rest = later
            while rest:
                low = rest & -rest
                if powers[low.bit_length() - 1] > power:
                    break
                rest ^= low
            else:
                return True
        return False

    def _cheapest_winners(self, moves: tuple[int, ...]) -> tuple[int, ...]:
        """``moves`` with the cards that beat the table first, lowest first, then the rest
        lowest first: how the others take a trick from the player under study."""
        trick = self.trick
        st = self.state
        powers = POWER[st.pam][st.trump][trick.led]
        win = trick.win_power
        beat = tuple(m for m in moves if powers[m & CARD] > win)
        return beat + tuple(m for m in moves if powers[m & CARD] <= win)

    def can(self, k: int) -> bool:
        """Whether the player under study can make sure of ``k`` >= 1 more tricks."""
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise OverBudget
        left = self.left
        if k > left:
            return False
        st = self.state
        trick = self.trick
        player = self.player
        # The position: hands are the deal's less the cards played, and each card's owner
        # says who played it to the trick under way.
        key = (st.played, self.trick_mask, trick.leader, st.announce, st.trump)
        table = self.table
        entry = table.get(key)
        if entry is None:
            lower, upper = 0, left
        else:
            lower, upper = entry
            if lower >= k:
                return True
            if upper < k:
                return False
        if left == 1:
            won = self._last_trick_winner() == player
            table[key] = (1, 1) if won else (0, 0)
            return won
        beaten = bool(trick.live) and self._cannot_win_trick(player)
        if beaten and k >= left:
            table[key] = (lower, left - 1)
            return False
        if st.hands[player] & st.trump_mask:
            top = self._top_trumps(player)
            if top >= k:
                table[key] = (top, upper)
                return True
        moves = self.move_cache.get(key)
        seat = self.rotation[trick.leader][trick.live]
        if moves is None:
            moves = self._reduced(seat)
            if len(self.move_cache) >= TABLE_LIMIT:
                self.move_cache.clear()
            self.move_cache[key] = moves
        mine = seat == player
        if mine and k == 1 and self._sure_to_win(seat, moves):
            table[key] = (1, upper)
            return True
        result = not mine
        if mine:
            order = moves[::-1]  # their strongest first
        elif beaten:
            order = moves  # they are beaten: the others keep their strength
        elif trick.seats >> player & 1:
            order = self._cheapest_winners(moves)
        else:
            order = moves[::-1]  # they are still to play: the others play high
        for move in order:
            undo = self.play(move)
            need = k - 1 if undo[0] == player else k
            ok = need <= 0 or self.can(need)
            self.unplay(undo)
            if ok == mine:
                result = ok
                break
        if len(table) >= TABLE_LIMIT:
            table.clear()
        table[key] = (k, upper) if result else (lower, k - 1)
        return result
