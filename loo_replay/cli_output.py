"""What the commands print besides their results: a fatal message, and a status line.

Both write to stderr, so that a command's standard output stays its result alone.
"""

from __future__ import annotations

import sys
import time
from typing import NoReturn

import typer


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
