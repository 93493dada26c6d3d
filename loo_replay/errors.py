"""The errors the library raises for the command line to say: one small hierarchy.

Every error a user can put right derives from ``LooReplayError``, and its message is one
sentence for them; ``loo_replay/cli/failures.py`` turns it into ``loo-replay: …`` and an
exit status, in one table keyed by these classes.  The subclasses say what failed; the
database's errors (``db/errors.py``) derive from the base too.  Errors that had another base (``OSError``, ``ValueError``) keep it beside these,
so that code catching it still does.  The engine raises its own (``OptionError``, ``CardError``): it imports nothing above it.
"""

from __future__ import annotations


class LooReplayError(Exception):
    """A failure the user can put right; the message is one sentence for them.  ``details``
    are lines said under it (each already made safe to print), for an error whose cause has
    parts: the log errors of a rejected deal."""

    details: tuple[str, ...] = ()


class InputError(LooReplayError):
    """Input that cannot be used: a log, a ruleset, a journal, a deal asked for, a typed entry."""


class RejectedDeal(InputError):
    """A deal asked for that the audit rejected: a finding about the log, not bad usage
    (exit status 1, as for every finding)."""


class OutputError(LooReplayError):
    """Output that cannot be written where asked."""


class WorkerError(LooReplayError):
    """The processes or the cluster that do the work cannot be used."""


class SchedulerError(WorkerError, RuntimeError):
    """``--scheduler`` names no cluster that can be used (none answers, or no Dask)."""


class WorkerDied(WorkerError):
    """A worker process of ``--jobs`` died mid-work (killed, out of memory): said by the run
    layer's driver, whatever the work (``run.workers``)."""


class Interrupted(LooReplayError):
    """Ctrl-C stopped the work; the message says what was undone (exit status 130)."""


def first_line(text: str) -> str:
    """A library's message (DuckDB's, Dask's) to one sentence: they carry context lines and
    hints after the first."""
    return text.strip().splitlines()[0] if text.strip() else text
