# The C layout of solver.py's Search (pure-Python mode: solver.py is the source, this file
# adds the C types): its position is the engine's DealState and Trick, read as C values.
from loo_replay.engine.model cimport Trick
from loo_replay.engine.state cimport DealState
from loo_replay.engine.legal cimport card_of, lay, legal_hand, lift, power

cpdef int taker(long long undo) noexcept

cdef class Search:
    cdef public DealState state
    cdef public tuple playing
    cdef public int n
    cdef public Trick trick
    cdef public int left
    cdef public list won
    cdef public long nodes
    cdef object o
    cdef unsigned long long[::1] hold
    cdef int win_seat
    cdef int start
    cdef unsigned long long[::1] stack
    cdef int[::1] order
    cdef bint first_lead
    cdef int size
    cdef unsigned long long trick_mask
    cdef unsigned long long in_play
    cdef public long max_nodes
    cdef dict tables
    cdef dict table
    cdef dict move_cache
    cdef int player
    cdef bint pam_announced
    cdef unsigned long long special
    cdef bint two_players
    cdef unsigned long long turned
    cdef unsigned long long played
    cdef int trump
    cdef unsigned long long trump_mask
    cdef bint announce
    cdef bint pam
    cdef tuple effective
    cdef int live
    cdef int leader

    cdef unsigned long long _cards_of(self, Trick trick)
    cdef _trumps(self)
    cpdef int to_move(self) noexcept
    cpdef long long play(self, int move)
    cpdef unplay(self, long long undo)
    cpdef bint _announcing(self, int card)
    cdef unsigned long long _special(self)
    cdef unsigned long long _reduced_mask(self, int seat)
    cdef _reduced(self, int seat)
    cpdef study(self, int player)
    cdef int _top_trumps(self, int player)
    cdef bint _cannot_win_trick(self, int player)
    cdef int _last_trick_winner(self) noexcept
    cdef bint _sure_to_win(self, int seat, moves)
    cdef _cheapest_winners(self, moves)
    cdef object _key(self)
    cpdef bint can(self, int k)
