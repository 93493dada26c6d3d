# C types for replay_base.py (pure-Python mode: replay_base.py is the source).  The replay's
# state is an extension type, and it calls ``mask_of`` as a C function.  Every field of the
# replay is declared here: ``DeclaringReplay`` and ``Replay`` derive from ``ReplayBase``.
from loo_replay.engine.state cimport DealState
from loo_replay.engine.cards cimport mask_of
from loo_replay.engine.options cimport Options
from loo_replay.engine.declarations cimport Declaring

# The result of a replay: fields the replay sets as struct members (typed where they are
# C values), public for everything that reads a result.
cdef class DealResult:
    cdef public object record
    cdef public object status
    cdef public bint must
    cdef public int trump
    cdef public object outcome
    cdef public object declarations
    cdef public object active
    cdef public object miss_taker
    cdef public object defender
    cdef public object retired
    cdef public object tricks_won
    cdef public object tricks
    cdef public object revokers
    cdef public object flush_winner
    cdef public object flush_losers
    cdef public object flush_group
    cdef public object current_penalties
    cdef public object violations
    cdef public object errors
    cdef public object notes
    cdef public bint abandoned
    cdef public object hands
    cdef public object knowledge
    cdef public object unchecked
    cdef public object at_play

# The replay's own fields as C fields of an extension type: a plain class keeps them in an
# instance dictionary, and every look-up of one went through it.
cdef class ReplayBase:
    cdef public object record
    cdef bint _prove
    cdef public Options o
    cdef public object context
    cdef public int n
    cdef public list clockwise
    cdef Declaring _declaring
    cdef public DealResult result
    cdef object _phase
    cdef object _seen
    cdef int _stock
    cdef set _exchanged
    cdef object _method
    cdef int _leader
    cdef bint _turn_due
    cdef int _ignored
    cdef bint _began
    cdef bint _led
    cdef long long _legal
    cdef object _closed
    cdef unsigned long long _active_mask
    cdef object _flush_view
    cdef list _shown
    cdef object _plan
    cdef object _hands
    cdef object _miss
    cdef bint _partial
    cdef list _derived_now
    cdef list _known
    cdef bint _miss_known
    cdef bint _miss_derived
    cdef dict _where
    cdef set _unchecked
    cdef public DealState state

    cdef void _did_nothing(self) noexcept
    cdef _fix_trump(self, int card)
    cdef _deal(self)
    cdef _check_unique(self)
