"""The library's errors as the command line says them: one ``loo-replay: …`` line on
standard error and an exit status, for every command, here and nowhere else.

The commands let the errors of ``loo_replay/errors.py`` (and their subclasses in ``db/``,
``run/``, ``evidence/`` and the rest) go up to ``main``, which hands them to ``said``.
``STATUSES`` holds the one table of exit statuses (docs/limits.md, "Exit statuses"),
keyed by the classes of the hierarchy: an error takes the status of its nearest class
in the table.  ``refused_as`` turns the system's refusal of a file (an ``OSError``, not
the library's) into such an error, saying what the command was doing with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer

from loo_replay.db.errors import DatabaseError
from loo_replay.errors import (
    InputError,
    Interrupted,
    LooReplayError,
    OutputError,
    RejectedDeal,
    WorkerError,
)
from loo_replay.lookalike import safe

# The exit status of each kind of error; a class not named takes its nearest base's.
STATUSES: dict[type[LooReplayError], int] = {
    LooReplayError: 2,  # what the user can put right: a port in use, and the rest below
    InputError: 2,  # a log, ruleset, key, journal, archive or deal asked for unusable
    OutputError: 2,  # an output folder or file refused, or not writable
    WorkerError: 2,  # no Dask scheduler answers
    DatabaseError: 2,  # a database missing, busy, foreign, newer, damaged; SQL refused
    RejectedDeal: 1,  # the deal asked for is a finding: rejected by the audit
    Interrupted: 130,  # Ctrl-C, with what was undone
}

# The characters of a message said, at most: a stranger's file name or DuckDB's words
# can be long.
MESSAGE_CHARS = 600


def status_of(kind: type[LooReplayError]) -> int:
    """The exit status of an error of class ``kind``: its nearest class in ``STATUSES``."""
    return next(STATUSES[c] for c in kind.__mro__ if c in STATUSES)


def said(exc: LooReplayError) -> int:
    """``exc`` said on stderr, its message made safe to print, its details indented under
    it; its exit status."""
    message = safe(str(exc), MESSAGE_CHARS)
    typer.echo(f"loo-replay: {message}{':' if exc.details else ''}", err=True)
    for line in exc.details:
        typer.echo(f"  {line}", err=True)
    return status_of(type(exc))


def reason(exc: BaseException) -> str:
    """Why the system refused: its own words (``No space left on device``)."""
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    if isinstance(exc, OSError):
        return str(exc.strerror or exc)
    return str(exc)


@contextmanager
def refused_as(
    what: str,
    *also: type[Exception],
    error: type[LooReplayError] = OutputError,
    naming: str | None = None,
) -> Iterator[None]:
    """Within the block, an ``OSError`` (or one of ``also``) becomes ``error``, saying
    ``what: reason`` (``cannot write case.zip: Permission denied``), and the file the
    system names when it is not ``naming``; the library's own errors, some of which are
    ``OSError`` too, go up as they are."""
    refusals: tuple[type[Exception], ...] = (OSError, *also)
    try:
        yield
    except LooReplayError:
        raise
    except refusals as exc:
        named = getattr(exc, "filename", None)
        where = f" ({named})" if naming is not None and named and str(named) != naming else ""
        raise error(f"{what}: {reason(exc)}{where}") from None
