# C types for declarations.py (pure-Python mode: declarations.py is the source): the
# replay holds its deal's ``Declaring`` as an extension type with C fields.
from loo_replay.engine.options cimport Options

cdef class Declaring:
    cdef public Options o
    cdef public bint single
    cdef public int dealer
    cdef public list clockwise
    cdef public tuple names
