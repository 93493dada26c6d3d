"""The engine's words as types: a misspelt status or outcome is a mypy error, not a silent
miss.  Each is a ``StrEnum``, so its members are the very strings of the JSON output, the
hand logs and the database (``Outcome.ALL_PASSED == "all_passed"``)."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """Where a replayed deal stands."""

    DECLARING = "declaring"
    PLAYING = "playing"
    OVER = "over"


class Status(StrEnum):
    """What the audit made of a deal (LOG-FORMAT: a deal's ``status``)."""

    AUDITED = "audited"
    MISDEAL = "misdeal"
    REJECTED = "rejected"


class Outcome(StrEnum):
    """How a deal ended (docs/rules.md §2.6, §2.8, §5)."""

    PLAYED = "played"
    ALL_PASSED = "all_passed"
    UNOPPOSED = "unopposed"
    FLUSH = "flush"
    REVOKE = "revoke"
    MISDEAL = "misdeal"


class Knowledge(StrEnum):
    """How much of a deal the record shows (docs/log-format.md, "Hands left out"): every hand, or not."""

    FULL = "full"
    PARTIAL = "partial"


class Action(StrEnum):
    """A declaration (docs/rules.md §2.5)."""

    PLAY = "play"
    PASS = "pass"
    TAKE_MISS = "take_miss"
    DEFEND = "defend"


class FindingClass(StrEnum):
    """A finding is a revoke (a card the rules of §3-§4 forbade) or another violation."""

    REVOKE = "revoke"
    VIOLATION = "violation"
