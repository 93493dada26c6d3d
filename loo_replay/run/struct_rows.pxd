# C types for struct_rows.py (pure-Python mode: struct_rows.py is the source): an audited
# deal and its replay's result read as the extension types they are.
from loo_replay.engine.replay_base cimport DealResult
from loo_replay.engine.session cimport DealAudit
