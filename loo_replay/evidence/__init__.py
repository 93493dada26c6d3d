"""Evidence that a log is the game that was played: seals, their codes, and ``verify``; and
the parts of an evidence bundle that need nothing above the readers: the BagIt bag, the
in-toto statement, the DSSE envelope and the zip read safely (the bundles themselves are
``bundles/``) (docs/evidence.md)."""
