"""What the commands print besides their results: a fatal message, a status line (both on
stderr, so that standard output stays the result alone), the end of an audit, and the
common ground of the screens over a database (``fairness``, ``collusion``).
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, NoReturn, TypeVar

import orjson
import typer

from loo_replay.logs.limits import Limits
from loo_replay.output.json_document import Rendered
from loo_replay.output.stream import AuditStream
from loo_replay.rulesets import RuleChoice
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


def one_source(paths: list[Path] | None, db: Path | None, alpha: float, **for_logs: bool) -> None:
    """A screen's usage: log PATHs or ``--db FILE``, and an alpha strictly between 0 and 1.
    ``for_logs`` says which options that only reading logs uses were given (``jobs=True``
    for ``--jobs``): with ``--db`` each is refused rather than ignored."""
    if bool(paths) == (db is not None):
        raise typer.BadParameter("give log PATHs or --db FILE, not both and not neither")
    if db is not None:
        for name, given in for_logs.items():
            if given:
                raise typer.BadParameter(
                    f"--{name} applies to reading log PATHs; --db reads logs already loaded"
                )
    if not 0.0 < alpha < 1.0:
        raise typer.BadParameter(f"{alpha} is not between 0 and 1", param_hint="--alpha")


def see_page(paths: list[Path] | None, db: Path | None, page: str) -> str:
    """The command to run after a FLAGGED line, and the page to open: the reports of
    ``db``, or an audit of the logs (which loads them into loo.duckdb and writes the
    reports), docs/fairness.md, "Small samples"."""
    if db is not None:
        run = f"loo-replay report --db {shlex.quote(str(db))}"
    else:
        run = "loo-replay audit " + " ".join(shlex.quote(str(p)) for p in paths or [])
    return f"next: {run}, then open reports/{page}"


@contextmanager
def loaded_logs(
    paths: list[Path],
    choice: RuleChoice,
    limits: Limits,
    jobs: int = 1,
    scheduler: str | None = None,
) -> Iterator[tuple[Path, list[str]]]:
    """The logs loaded by ``ingest`` itself into a temporary database, removed afterwards, so
    that a screen of logs runs the SQL a screen of a database runs; its path, and why the
    input makes exit status 2.  Files that could not be read and sessions left out are said
    on stderr at once."""
    from loo_replay.db.ingest import ingest

    with tempfile.TemporaryDirectory(prefix="loo-screen-") as tmp:
        db = Path(tmp) / "screen.duckdb"
        result = ingest(paths, db, choice, jobs=jobs, scheduler=scheduler, limits=limits)
        for error in result.file_errors:
            typer.echo(f"loo-replay: {error}", err=True)
        for conflict in result.conflicts:
            typer.echo(f"loo-replay: left out: {conflict}", err=True)
        yield db, unread_lines(result.summary)


def finish_screen(
    doc: dict[str, Any], lines: list[str], as_json: bool, unread: list[str], flagged: bool
) -> NoReturn:
    """A screen's result (its JSON ``doc``, or its text ``lines``), then why the input was not
    all read, and the exit status: 2 for unread input (the rest was screened all the same,
    docs/log-format.md), 1 flagged, else 0."""
    if as_json:
        write_indented(doc, sys.stdout.buffer)
    else:
        for line in lines:
            typer.echo(line)
    for line in unread:
        typer.echo(f"loo-replay: {line}", err=True)
    raise typer.Exit(2 if unread else 1 if flagged else 0)


def write_indented(doc: dict[str, Any], out: IO[bytes]) -> None:
    """``doc`` as ``orjson.dumps(doc, option=OPT_INDENT_2)`` and a newline, byte for byte, but
    its last value, a list or any iterable of items, written an item at a time: a fairness
    run over a million deals has 720,000 tests, whose dicts and text are never all held at
    once (docs/performance.md, "Memory")."""
    *head, (key, items) = doc.items()
    opt = orjson.OPT_INDENT_2
    out.write(orjson.dumps(dict(head), option=opt)[:-2] + b",\n" if head else b"{\n")
    out.write(b"  " + orjson.dumps(key) + b": [")
    first = True
    for item in items:
        out.write(b"\n    " if first else b",\n    ")
        out.write(orjson.dumps(item, option=opt).replace(b"\n", b"\n    "))
        first = False
    out.write(b"]\n}\n" if first else b"\n  ]\n}\n")


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


def audit_stream(
    as_json: bool, pretty: bool, summary: S, last: Callable[[S], str]
) -> AuditStream[S]:
    """validate's and analyse's sink (``output.stream``) on this terminal's streams: the JSON
    document, or the text and its last line ``last(summary)``, on stdout; each entry of a
    folder that was skipped said on stderr as it goes by."""
    return AuditStream(as_json, pretty, summary, last, sys.stdout.buffer, typer.echo, _warn)


def _warn(message: str) -> None:
    typer.echo(message, err=True)


def finish_audit(rendered: Iterable[Rendered], sink: AuditStream[S]) -> NoReturn:
    """Write an audit's rendered documents into ``sink``, say why the input was not all read,
    then exit with its status (docs/log-format.md, exit status)."""
    summary = sink.write(rendered)
    for line in unread_lines(summary):
        typer.echo(f"loo-replay: {line}", err=True)
    raise typer.Exit(summary.exit_code)
