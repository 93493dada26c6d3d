# C types for columns.py (pure-Python mode: columns.py is the source): the frames' hot path
# adds a value to a column with a direct C call and a C store.
cimport cython
cimport cpython.array
from loo_replay.engine.legal cimport card_of

cdef cpython.array.array _room_for(Py_ssize_t n)

@cython.final
cdef class Ints:
    cdef cpython.array.array data
    cdef long long* at
    cdef Py_ssize_t n
    cdef Py_ssize_t cap
    cdef list null_at
    cpdef Ints fresh(self)
    cpdef Py_ssize_t room(self)
    cdef void add(self, long long value)
    cdef void add_null(self)
    cpdef append(self, object value)
    cdef void _grow(self)
    cdef void _found(self)
    cdef _narrowed(self, bint wide)
    cdef bytearray _bits(self)

@cython.final
cdef class Texts:
    cdef Ints codes
    cdef dict index
    cdef list texts
    cpdef Texts fresh(self)
    cpdef Py_ssize_t code(self, object text) except -1
    cdef void add(self, long long code)
    cpdef append(self, object value)

@cython.final
cdef class CardLists:
    cdef Ints cards
    cdef Ints offsets
    cdef list null_at
    cpdef CardLists fresh(self)
    cpdef append(self, object values)
    cpdef append_mask(self, long long mask)
