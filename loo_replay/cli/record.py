"""``loo-replay record``: start a session, or resume one, and hand it to the prompts."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from loo_replay.cli.options import SetOpt, rule_choice
from loo_replay.cli.output import fail, wants_colour
from loo_replay.evidence.seals import BROKEN, check
from loo_replay.logs.parse import Bad, parse_document
from loo_replay.output.text import safe
from loo_replay.recorder.book import entries_of, session_entry
from loo_replay.recorder.entry import typed
from loo_replay.recorder.journal import (
    Entry,
    Journal,
    JournalError,
    journal_path,
    read_journal,
    said,
    write_atomic,
)
from loo_replay.recorder.judge import RecorderError
from loo_replay.recorder.reading import bounded_lines
from loo_replay.recorder.resume import checked_entries
from loo_replay.rulesets import DEFAULT, builtin_names


def record(
    file: Annotated[
        Path, typer.Argument(help="The hand log to write (.json); its journal goes beside it.")
    ],
    resume: Annotated[
        bool, typer.Option("--resume", help="Carry on recording FILE (from its journal).")
    ] = False,
    players: Annotated[
        str | None,
        typer.Option(metavar="IDS", help="The players in clockwise seating order: ann,bob,cat."),
    ] = None,
    ruleset: Annotated[str, typer.Option(metavar="NAME", help="A built-in ruleset.")] = DEFAULT,
    settings: SetOpt = None,
    chips: Annotated[int | None, typer.Option(min=0, help="Every player's starting stack.")] = None,
    session_id: Annotated[
        str | None, typer.Option("--id", help="The session's id (default: FILE's name).")
    ] = None,
    venue: Annotated[str | None, typer.Option(help="Where the game is played.")] = None,
) -> None:
    """Record a game at the table, judged by the rules engine as you type.

    Asks for each deal in the order things happen (dealer, turn-up, declarations,
    exchanges, every card), refuses impossible entries with the reason, flags a failure
    to follow at once, and shows each deal's settlement.  Every entry is on disk before
    the next prompt; u undoes the last one.
    """
    journal = journal_path(file)
    # Entries from a pipe or a file are read line by line; prompt_toolkit is for a keyboard
    # (from a regular file it had read nothing, and a long line from a pipe cost quadratic time).
    lines = None if sys.stdin.isatty() else bounded_lines(sys.stdin.buffer)
    if file.suffix.lower() != ".json":
        fail(f"{file}: the recorder writes one session document, a .json file")
    starting = {"--players": players, "--set": settings, "--chips": chips, "--id": session_id}
    starting |= {"--venue": venue, "--ruleset": None if ruleset == DEFAULT else ruleset}
    given = [name for name, value in starting.items() if value is not None]
    if resume and given:
        fail(f"{', '.join(given)} start a session; --resume carries on with the log's own")
    try:
        if resume:
            entries, opened = _resumed(file, journal)
        else:
            if file.exists() or not _unused(journal):
                fail(f"{file} already exists: carry on with loo-replay record --resume {file}")
            session = _session(file, players, ruleset, settings, chips, session_id, venue, lines)
            entries = [session_entry(session)]
            opened = _new_journal(journal, entries)
        from loo_replay.recorder.prompts import Recorder, encoded  # prompt_toolkit, when recording

        recorder = Recorder(file, opened, entries, print, colour=wants_colour(False))
        if recorder.standing.errors:  # a log written elsewhere whose last deal is rejected
            first = recorder.standing.errors[0]
            raise RecorderError(f"{file}: its last deal is not a game to carry on: {first.message}")
        settled = len(recorder.standing.audits)
        write_atomic(file, encoded(recorder.entries, settled))  # the log catches up
    except OSError as exc:
        fail(safe(said(exc, file), 400))
    except (JournalError, RecorderError) as exc:
        fail(safe(str(exc), 400))
    try:
        interrupted = recorder.run(resumed=resume, lines=lines)
    finally:
        opened.close()
    if recorder.behind is not None:
        fail(
            safe(
                f"{file} is behind its journal ({recorder.behind}): loo-replay record "
                f"--resume {file} writes it again once there is room",
                400,
            )
        )
    if interrupted:
        raise typer.Exit(130)


def _unused(journal: Path) -> bool:
    """No journal, or one without a whole line: a crash, or a full disk, before its first
    entry was written.  Such a journal is replaced."""
    try:
        return not read_journal(journal)[0]
    except FileNotFoundError:
        return True
    except JournalError:
        return False


def _new_journal(journal: Path, entries: list[Entry]) -> Journal:
    """A new journal of ``entries``, in place of none or of an unused one; if the disk
    refuses them, none is left behind."""
    if journal.exists():
        journal.unlink()  # unused: nothing in it (``_unused``)
    opened = Journal(journal, new=True)
    try:
        for entry in entries:
            opened.append(entry)
    except BaseException:
        opened.close()
        journal.unlink()
        raise
    return opened


def _resumed(file: Path, journal: Path) -> tuple[list[Entry], Journal]:
    """The entries to carry on from: the journal's, every one checked
    (``checked_entries``), or the log's when there is no journal or an unused one."""
    entries = [] if _unused(journal) else checked_entries(journal, file)
    if entries:
        typer.echo(f"Resuming from the journal {safe(str(journal))}")
        return entries, Journal(journal, new=False)
    if not file.exists():
        raise RecorderError(
            f"{file}: nothing to resume (no log, and no entry in a journal beside it); "
            f"start the session with loo-replay record {file} --players IDS"
        )
    try:
        doc = json.loads(file.read_text("utf-8"))
        parse_document(doc)
        entries = entries_of(doc)
    except (ValueError, KeyError, TypeError, Bad) as exc:
        raise RecorderError(f"{file}: cannot resume from it: {exc}") from None
    seals = check(doc)
    if seals.status == BROKEN:  # carrying on would seal the change over
        raise RecorderError(
            f"{file}: its seals are broken at {seals.at}: it was changed after it was "
            f"sealed (loo-replay seal --renew {file} if the change is meant)"
        )
    none = "an empty journal" if journal.exists() else "no journal"
    typer.echo(
        f"Resuming from {safe(str(file))} alone ({none}): a new journal {safe(str(journal))}"
    )
    return entries, _new_journal(journal, entries)


def _session(
    file: Path,
    players: str | None,
    ruleset: str,
    settings: list[str] | None,
    chips: int | None,
    session_id: str | None,
    venue: str | None,
    lines: Iterator[str | None] | None,
) -> dict[str, Any]:
    """The session header, checked by the log reader itself; the players, when not given,
    asked at the keyboard or read as the first of ``lines``."""
    if ruleset not in builtin_names():
        fail(f"unknown ruleset {ruleset!r}; built-in rulesets: {', '.join(builtin_names())}")
    choice = rule_choice(ruleset, settings)
    if players is None:
        try:
            players = typed(_players(lines))
        except EOFError:
            fail("no players given (--players ann,bob,cat)")
        except KeyboardInterrupt:  # Ctrl-C, read as a key: stopped, nothing written yet
            raise typer.Exit(130) from None
    ids = [p for p in re.split(r"[\s,]+", players) if p]
    session: dict[str, Any] = {
        "id": session_id or file.stem,
        "ruleset": ruleset,
        "started_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "players": [{"id": p} for p in ids],
    }
    if choice.overrides:
        session["rules"] = dict(choice.overrides)
    if venue:
        session["venue"] = venue
    if chips is not None:
        session["chips"] = {p: chips for p in ids}
    parsed = parse_document(
        {"format": "loo-hand-log", "version": 1, "session": session, "deals": []}
    )
    if parsed.header_error is not None:
        fail(f"{parsed.header_error.path}: {parsed.header_error.message}")
    return session


def _players(lines: Iterator[str | None] | None) -> str:
    """The players, asked at the keyboard, or the first of ``lines``; EOFError for none."""
    ask = "Players in clockwise seating order (e.g. ann bob cat dan): "
    if lines is None:
        from prompt_toolkit import prompt  # loaded only to ask (every command starts faster)

        return prompt(ask)
    line = next(lines, None)
    if line is None:  # the end, or a line past LINE_CHARS
        raise EOFError
    typer.echo(f"{ask}{safe(typed(line))}")
    return line
