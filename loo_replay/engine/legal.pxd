# C signatures of legal.py for the compiled modules that call it (pure-Python mode:
# legal.py is the source, this file adds the C types).
from loo_replay.engine.model cimport Trick
from loo_replay.engine.options cimport Options
from loo_replay.engine.state cimport DealState

cdef const unsigned char* _DEBRUIJN
cdef const unsigned char* _POWER

cpdef add_card(DealState state, Trick trick, int seat, int card, long long legal, int event=*)
cpdef bint lay(DealState state, Trick trick, int seat, int card) noexcept
cpdef void lift(DealState state, Trick trick, int seat, int card, int led, int lead, int win_power, bint trumped) noexcept
cpdef unsigned long long legal_cards(DealState state, int seat) except? 0
cpdef unsigned long long legal_hand(DealState state, unsigned long long hand) except? 0
cpdef int card_of(unsigned long long low) noexcept
cpdef int power(bint pam, int trump, int led, int card) noexcept
