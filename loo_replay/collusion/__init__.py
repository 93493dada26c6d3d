"""The [collusion](docs/collusion.md) screen: do two players treat each other differently
from how they treat everyone else?

``opportunities`` counts each behaviour's opportunities in SQL (``strength`` values the
hands), ``stats`` tests a pair's share against the others', ``screen`` judges every pair's
tests together, and ``calibrate`` runs it on simulated sessions whose colluders are known.
"""
