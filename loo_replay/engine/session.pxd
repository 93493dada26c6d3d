# session.py's SessionReplay as an extension type (pure-Python mode: session.py is the
# source): what it carries from deal to deal is C struct members, not an instance
# dictionary.  The replay's result is read as the extension type it is.
from loo_replay.engine.replay_base cimport DealResult
from loo_replay.engine.settle cimport Settlement
from loo_replay.engine.options cimport Options

# The verdict on a deal, set field by field as struct members; public for its readers.
cdef class DealAudit:
    cdef public object number
    cdef public object status
    cdef public object dealer
    cdef public object pool
    cdef public object pool_start
    cdef public object trump
    cdef public object outcome
    cdef public bint must
    cdef public object tricks
    cdef public object payouts
    cdef public object looed
    cdef public object penalties
    cdef public object pool_next
    cdef public object stacks
    cdef public object antes
    cdef public object violations
    cdef public object discrepancies
    cdef public object errors
    cdef public object notes
    cdef public object knowledge
    cdef public object unchecked
    cdef public object result
    cdef public object settlement
    cdef public object context

cdef class SessionReplay:
    cdef public object players
    cdef public Options o
    cdef public object at_play
    cdef public object total
    cdef public object stacks
    cdef public object carry
    cdef public object prev
    cdef public object first_number
    cdef public object round_antes
