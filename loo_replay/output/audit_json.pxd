# C types for audit_json.py (pure-Python mode: audit_json.py is the source): a deal's
# verdict is read as the extension type it is, field by field as struct members.
from loo_replay.engine.session cimport DealAudit
