# C types for replay_declaring.py (pure-Python mode: replay_declaring.py is the source): the
# declaring phase's steps as C methods of the replay, on ReplayBase's fields.
from loo_replay.engine.model cimport Declare
from loo_replay.engine.cards cimport mask_of
from loo_replay.engine.declarations cimport Declaring
from loo_replay.engine.replay_base cimport DealResult, ReplayBase

cdef class DeclaringReplay(ReplayBase):
    cdef _declare(self, Declare ev)
    cdef _close_declarations(self)
    cdef _exchange(self, ev)
    cdef _show_flush(self, ev)
