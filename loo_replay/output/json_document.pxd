# C types for json_document.py (pure-Python mode: json_document.py is the source): a deal's
# verdict is read as the extension type it is, field by field as struct members.
from loo_replay.engine.session cimport DealAudit
