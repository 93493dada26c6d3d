# The C layout of state.py's DealState (pure-Python mode: state.py is the source).
from loo_replay.engine.model cimport Trick
from loo_replay.engine.options cimport Options

cdef class DealState:
    cdef public Options options
    cdef public tuple seats
    cdef public int dealer
    cdef public list hands
    cdef public list order
    cdef public int trump
    cdef public unsigned long long turned
    cdef public unsigned long long played
    cdef public list active
    cdef public set retired
    cdef public list tricks
    cdef public bint announce
    cdef public bint pam
    cdef public tuple suit_masks
    cdef public unsigned long long trump_mask
    cpdef Trick current(self)
    cpdef list playing(self)
