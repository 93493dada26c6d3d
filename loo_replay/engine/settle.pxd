# C types for settle.py (pure-Python mode: settle.py is the source): the replay's result is
# read as the extension type it is, field by field as struct members.
from loo_replay.engine.replay cimport DealResult
