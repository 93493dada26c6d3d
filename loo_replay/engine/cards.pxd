# C signatures of cards.py for the compiled modules that call it (pure-Python mode: cards.py
# is the source, this file adds the C types): the replay makes every hand's mask with it.
cpdef unsigned long long mask_of(object cards) except? 0
