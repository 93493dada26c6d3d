# C types for replay.py (pure-Python mode: replay.py is the source).  The replay's tricks
# are extension types, and it calls legality as C functions.  The fields are ReplayBase's
# (replay_base.pxd); ``DealResult`` is cimported from here too.
from loo_replay.engine.model cimport Play, Trick
from loo_replay.engine.state cimport DealState
from loo_replay.engine.legal cimport add_card, legal_cards
from loo_replay.engine.replay_base cimport DealResult
from loo_replay.engine.replay_declaring cimport DeclaringReplay

cdef class Replay(DeclaringReplay):
    cdef bint _take(self, event) except -1
    cdef bint _play(self, Play ev) except -1
    cdef Trick _new_trick(self, Play ev)
    cdef long long _judge(self, Play ev, Trick trick, int seat, int card) except? -3
    cdef _close_trick(self, Trick trick)
    cdef _turn_up(self, ev)
