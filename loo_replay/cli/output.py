"""What the commands print besides their results: a fatal message, a status line (both on
stderr, so that standard output stays the result alone), and the end of an audit.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import NoReturn, TypeVar

import typer

from loo_replay.output.json_document import Rendered, write_audit
from loo_replay.output.text import safe
from loo_replay.run.audit import Summary

S = TypeVar("S", bound=Summary)


def unread_lines(summary: Summary) -> list[str]:
    """Why the input makes exit status 2 (docs/log-format.md): files or documents that could not
    be read or parsed, entries of folders skipped, or no hand logs at all.  Each goes to
    stderr as ``loo-replay: …``."""
    s = summary
    lines = []
    if s.unreadable_files:
        lines.append(f"{s.unreadable_files} input file(s) or folder(s) could not be read")
    if s.skipped_entries:
        lines.append(f"{s.skipped_entries} entry(ies) of the input folders skipped (see above)")
    if s.unreadable:
        lines.append(f"{s.unreadable} document(s) could not be read or parsed")
    if s.nothing_read:
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
    rendered: Iterable[Rendered], as_json: bool, pretty: bool, summary: S, last: Callable[[S], str]
) -> NoReturn:
    """Write an audit's rendered documents (as the JSON document, or the text and its last line
    ``last(summary)``), then exit with its status (docs/log-format.md, exit status).  Each
    entry of a folder that was skipped is said on stderr as it goes by."""
    rendered = _warned(rendered)
    if as_json:
        write_audit(rendered, sys.stdout.buffer, pretty, summary)
    else:
        for doc in rendered:
            summary.merge(doc.counts)
            for line in doc.lines:
                typer.echo(line)
        typer.echo("")
        typer.echo(last(summary))
    s = summary
    for line in unread_lines(s):
        typer.echo(f"loo-replay: {line}", err=True)
    raise typer.Exit(summary.exit_code)


def _warned(rendered: Iterable[Rendered]) -> Iterator[Rendered]:
    for doc in rendered:
        if doc.warning is not None:
            typer.echo(f"loo-replay: {safe(doc.warning, 600)}", err=True)
        yield doc
