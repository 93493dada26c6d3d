"""Evidence that a log is the game that was played: seals, their codes, and ``verify``
(docs/evidence.md)."""
