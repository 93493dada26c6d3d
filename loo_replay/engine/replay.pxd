# C types for replay.py (pure-Python mode: replay.py is the source).  The replay's state and
# tricks are extension types, and it calls legality as C functions.
from loo_replay.engine.model cimport Trick
from loo_replay.engine.state cimport DealState
from loo_replay.engine.legal cimport add_card, legal_cards
