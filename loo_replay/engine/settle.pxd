# C types for settle.py (pure-Python mode: settle.py is the source): the replay's result is
# read as the extension type it is, field by field as struct members, and the settlement
# is one too, for the session that reads it.
from loo_replay.engine.replay_base cimport DealResult
from loo_replay.engine.options cimport Options

cdef class Settlement:
    cdef public object pool_start
    cdef public object pool
    cdef public dict payouts
    cdef public dict looed
    cdef public dict penalties
    cdef public object pool_next
    cpdef object paid_by(self, int seat)  # a Python int: loos grow past 64 bits
