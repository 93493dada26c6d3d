"""The errors the library raises for the command line to say: one small hierarchy.

Every error a user can put right derives from ``LooReplayError``, and its message is one
sentence for them; ``loo_replay/cli/`` turns it into ``loo-replay: …`` and an exit status.
The subclasses say what failed; the database's errors (``db/errors.py``) derive from the
base too.  Errors that had another base (``OSError``, ``ValueError``) keep it beside these,
so that code catching it still does.  The engine raises its own (``OptionError``, ``CardError``): it imports nothing above it.
"""

from __future__ import annotations


class LooReplayError(Exception):
    """A failure the user can put right; the message is one sentence for them."""


class InputError(LooReplayError):
    """Input that cannot be used: a log, a ruleset, a journal, a deal asked for, a typed entry."""


class OutputError(LooReplayError):
    """Output that cannot be written where asked."""


class WorkerError(LooReplayError):
    """The processes or the cluster that do the work cannot be used."""


class SchedulerError(WorkerError, RuntimeError):
    """``--scheduler`` names no cluster that can be used (none answers, or no Dask)."""


def first_line(text: str) -> str:
    """A library's message (DuckDB's, Dask's) to one sentence: they carry context lines and
    hints after the first."""
    return text.strip().splitlines()[0] if text.strip() else text
