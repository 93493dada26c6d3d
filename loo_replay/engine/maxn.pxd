# The C layout of maxn.py's MaxN (pure-Python mode: maxn.py is the source): the solver's
# Search read as the extension type it is, its moves and key called as C.
from loo_replay.engine.legal cimport card_of
from loo_replay.engine.solver cimport Search, taker

cdef inline int _place(int card)
cdef inline int _card_at(int place)
cpdef int order_key(int move)

cdef class MaxN:
    cdef public Search search
    cdef public int judged
    cdef int[::1] shift
    cdef dict table
    cdef public long long nodes
    cdef int first
    cpdef int tricks(self, long long packed, int seat)
    cpdef long long finish(self)
    cpdef long long after(self, int move)
