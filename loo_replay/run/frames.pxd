# C types for frames.py (pure-Python mode: frames.py is the source).  The builder reads an
# audited deal as the extension type it is: struct members, not attributes looked up by name.
from loo_replay.engine.session cimport DealAudit
