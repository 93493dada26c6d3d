# The C layout of model.py's events and Trick, for the compiled modules that read them
# (pure-Python mode: model.py is the source, this file adds the C types).
cimport cython

# The two events of every deal: their fields read as struct members, not looked up by name.
@cython.dataclasses.dataclass(frozen=True)
cdef class Declare:
    cdef readonly int index
    cdef readonly int seat
    cdef readonly object action

@cython.dataclasses.dataclass(frozen=True)
cdef class Play:
    cdef readonly int index
    cdef readonly int seat
    cdef readonly int card
    cdef readonly bint announce

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
