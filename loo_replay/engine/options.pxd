# options.py's Options as an extension type (pure-Python mode: options.py is the source):
# the engine reads an option as a struct member, not by name through the type's attribute
# look-up (about a hundred look-ups a deal).  Flags are C ints; choices stay the strings
# they are, and chip amounts Python integers, which TOML may make as large as it likes.
cimport cython

@cython.dataclasses.dataclass(frozen=True)
cdef class Options:
    cdef readonly int deal_hand_size
    cdef readonly bint deal_miss
    cdef readonly object deal_trump
    cdef readonly object deal_trump_in_must
    cdef readonly bint deal_exchange
    cdef readonly bint deal_pam
    cdef readonly object stakes_ante
    cdef readonly object stakes_ante_by
    cdef readonly object stakes_loo
    cdef readonly object stakes_loo_amount
    cdef readonly object stakes_loo_cap
    cdef readonly object stakes_loo_scope
    cdef readonly object declare_must
    cdef readonly bint declare_club_law
    cdef readonly bint declare_last_must_play_single
    cdef readonly bint declare_dealer_defends
    cdef readonly object lead_top_trump
    cdef readonly object lead_highest_trump
    cdef readonly int lead_trump_if
    cdef readonly bint lead_trump_after_trick
    cdef readonly bint follow_head
    cdef readonly object follow_void
    cdef readonly object follow_pam_civil
    cdef readonly bint follow_pam_civil_strict
    cdef readonly object flush_kind
    cdef readonly object flush_pools
    cdef readonly object flush_when
    cdef readonly bint flush_pam_wild
    cdef readonly object flush_rank
    cdef readonly object flush_looes
    cdef readonly object flush_pay
    cdef readonly bint flush_exempt_pam
    cdef readonly object penalties_revoke
    cdef readonly object penalties_revoke_amount
    cdef readonly object penalties_out_of_turn
    cdef readonly object penalties_declare_out_of_turn
    cdef readonly object penalties_misdeal
    cdef readonly object penalties_misdeal_redeal
