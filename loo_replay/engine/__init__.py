"""The rules engine: pure functions over ints and bit masks, no I/O.

Cards are ints 0-51 (``suit * 13 + rank``), card sets are int bit masks, and
every rule of ``docs/rules.md`` lives here once: the replay, the legality of each
card (``legal.legal_cards``), the settlement and the session chain.
"""
