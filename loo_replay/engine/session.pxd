# session.py's SessionAudit as an extension type (pure-Python mode: session.py is the
# source): what it carries from deal to deal is C struct members, not an instance
# dictionary.  The replay's result is read as the extension type it is.
from loo_replay.engine.replay cimport DealResult

cdef class SessionAudit:
    cdef public object players
    cdef public object o
    cdef public object at_play
    cdef public object total
    cdef public object stacks
    cdef public object carry
    cdef public object prev
    cdef public object first_number
    cdef public object round_antes
