# C types for deal_frames.py (pure-Python mode: deal_frames.py is the source).  The loader's
# hot path reads an audited deal, its replay's result and its tricks as the extension types
# they are: struct members, not attributes looked up by name for every row.
from loo_replay.engine.model cimport Trick
from loo_replay.engine.replay_base cimport DealResult
from loo_replay.engine.session cimport DealAudit
from loo_replay.run.columns cimport CardLists, Ints, Texts
