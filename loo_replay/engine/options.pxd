# options.py's Options as an extension type (pure-Python mode: options.py is the source):
# the engine reads an option as a struct member, not by name through the type's attribute
# look-up (docs/performance.md, "What remains between the ratio and 1").  Flags are C
# ints; choices are strings, the very objects of the choices in OPTION_SPECS (so a
# comparison with one is an identity), and chip amounts Python integers, which TOML may
# make as large as it likes.
cimport cython

@cython.dataclasses.dataclass(frozen=True)
cdef class Options:
    cdef readonly int deal_hand_size
    cdef readonly bint deal_miss
    cdef readonly str deal_trump
    cdef readonly str deal_trump_in_must
    cdef readonly bint deal_exchange
    cdef readonly bint deal_pam
    cdef readonly object stakes_ante
    cdef readonly str stakes_ante_by
    cdef readonly str stakes_loo
    cdef readonly object stakes_loo_amount
    cdef readonly object stakes_loo_cap
    cdef readonly str stakes_loo_scope
    cdef readonly str declare_must
    cdef readonly bint declare_club_law
    cdef readonly bint declare_last_must_play_single
    cdef readonly bint declare_dealer_defends
    cdef readonly str lead_top_trump
    cdef readonly str lead_highest_trump
    cdef readonly int lead_trump_if
    cdef readonly bint lead_trump_after_trick
    cdef readonly bint follow_head
    cdef readonly str follow_void
    cdef readonly str follow_pam_civil
    cdef readonly bint follow_pam_civil_strict
    cdef readonly str flush_kind
    cdef readonly str flush_pools
    cdef readonly str flush_when
    cdef readonly bint flush_pam_wild
    cdef readonly str flush_rank
    cdef readonly str flush_looes
    cdef readonly str flush_pay
    cdef readonly bint flush_exempt_pam
    cdef readonly str penalties_revoke
    cdef readonly object penalties_revoke_amount
    cdef readonly object penalties_out_of_turn
    cdef readonly object penalties_declare_out_of_turn
    cdef readonly object penalties_misdeal
    cdef readonly str penalties_misdeal_redeal
