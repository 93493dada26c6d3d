# The C layout of model.py's Trick, for the compiled modules that read it (pure-Python mode:
# model.py is the source, this file adds the C types).
cdef class Trick:
    cdef public int number
    cdef public int leader
    cdef public list order
    cdef public list cards
    cdef public int live
    cdef public int lead
    cdef public object winner
    cdef public bint void
    cdef public int led
    cdef public int win
    cdef public int win_power
    cdef public bint trumped
    cdef public unsigned long long seats
