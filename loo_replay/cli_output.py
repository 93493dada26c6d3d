"""What the commands print besides their results: a fatal message, a status line (both on
stderr, so that standard output stays the result alone), and the end of an audit.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable
from typing import NoReturn, TypeVar

import typer

from loo_replay.output.audit_json import Piece, Summary, write_audit

S = TypeVar("S", bound=Summary)


def unread_lines(files: int, documents: int, nothing: bool) -> list[str]:
    """Why the input makes exit status 2 (LOG-FORMAT.md): files or documents that could not
    be read or parsed, or no hand logs at all.  Each goes to stderr as ``loo-replay: …``."""
    lines = []
    if files:
        lines.append(f"{files} input file(s) or folder(s) could not be read")
    if documents:
        lines.append(f"{documents} document(s) could not be read or parsed")
    if nothing:
        lines.append("no hand logs found in the input")
    return lines


def fail(message: str, code: int = 2) -> NoReturn:
    """End the command with ``loo-replay: message`` and exit status ``code``."""
    typer.echo(f"loo-replay: {message}", err=True)
    raise typer.Exit(code)


class StatusLine:
    """One self-rewriting line on a terminal's stderr, drawn only once a run has lasted a
    second (short runs stay quiet), never when stderr is not a terminal."""

    def __init__(self) -> None:
        self.on = sys.stderr.isatty()
        self.start = time.monotonic()
        self.drawn = False

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def __call__(self, message: str) -> None:
        if not self.on or self.elapsed() < 1.0:
            return
        self.drawn = True
        sys.stderr.write(f"\r\033[K{message}")
        sys.stderr.flush()

    def close(self) -> None:
        """Clear the line, if one was drawn, before the command's last words."""
        if self.drawn:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            self.drawn = False


def wants_colour(as_json: bool) -> bool:
    """Colours for text on a terminal, unless NO_COLOR is set."""
    return not as_json and sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def finish_audit(
    pieces: Iterable[Piece], as_json: bool, pretty: bool, summary: S, last: Callable[[S], str]
) -> NoReturn:
    """Write an audit's rendered pieces (the JSON document, or the text and its last line
    ``last(summary)``), then exit with its status (LOG-FORMAT.md, exit status)."""
    if as_json:
        write_audit(pieces, sys.stdout.buffer, pretty, summary)
    else:
        for piece in pieces:
            summary.merge(piece.counts)
            for line in piece.lines:
                typer.echo(line)
        typer.echo("")
        typer.echo(last(summary))
    for line in unread_lines(summary.unreadable_files, summary.unreadable, summary.nothing_read):
        typer.echo(f"loo-replay: {line}", err=True)
    raise typer.Exit(summary.exit_code)
