"""``loo-replay record``: start a session, or resume one, and hand it to the prompts."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from loo_replay.cli_options import SetOpt, rule_choice
from loo_replay.cli_output import fail, wants_colour
from loo_replay.logs.parse import Bad, parse_document
from loo_replay.recorder.book import entries_of, session_entry
from loo_replay.recorder.journal import (
    Entry,
    Journal,
    JournalError,
    journal_path,
    live,
    read_journal,
    write_atomic,
)
from loo_replay.recorder.judge import RecorderError
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
            if file.exists() or journal.exists():
                fail(f"{file} already exists: carry on with loo-replay record --resume {file}")
            session = _session(file, players, ruleset, settings, chips, session_id, venue)
            entries, opened = [session_entry(session)], Journal(journal, new=True)
            opened.append(entries[0])
        from loo_replay.recorder.prompts import Recorder, encoded  # prompt_toolkit, when recording

        recorder = Recorder(file, opened, entries, colour=wants_colour(False))
        if recorder.standing.errors:  # a log written elsewhere whose last deal is rejected
            first = recorder.standing.errors[0]
            raise RecorderError(f"{file}: its last deal is not a game to carry on: {first.message}")
        write_atomic(file, encoded(recorder.entries))  # the log catches up with the journal
    except (OSError, JournalError, RecorderError) as exc:
        fail(str(exc))
    try:
        recorder.run()
    finally:
        opened.close()


def _resumed(file: Path, journal: Path) -> tuple[list[Entry], Journal]:
    """The entries to carry on from: the journal's, or the log's when the journal is gone."""
    if journal.exists():
        entries, _ = read_journal(journal)
        entries = live(entries)
        if not entries or entries[0]["kind"] != "session":
            raise JournalError(f"{journal}: does not begin with a session")
        typer.echo(f"Resuming from the journal {journal}")
        return entries, Journal(journal, new=False)
    if not file.exists():
        raise RecorderError(f"{file}: no such file to resume, and no journal beside it")
    try:
        doc = json.loads(file.read_text("utf-8"))
        parse_document(doc)
        entries = entries_of(doc)
    except (ValueError, KeyError, TypeError, Bad) as exc:
        raise RecorderError(f"{file}: cannot resume from it: {exc}") from None
    typer.echo(f"Resuming from {file} alone (no journal): a new journal {journal}")
    opened = Journal(journal, new=True)
    for entry in entries:
        opened.append(entry)
    return entries, opened


def _session(
    file: Path,
    players: str | None,
    ruleset: str,
    settings: list[str] | None,
    chips: int | None,
    session_id: str | None,
    venue: str | None,
) -> dict[str, Any]:
    """The session header, checked by the log reader itself."""
    if ruleset not in builtin_names():
        fail(f"unknown ruleset {ruleset!r}; built-in rulesets: {', '.join(builtin_names())}")
    choice = rule_choice(ruleset, settings)
    if players is None:
        from prompt_toolkit import prompt  # loaded only to ask (every command starts faster)

        try:
            players = prompt("Players in clockwise seating order (e.g. ann bob cat dan): ")
        except (EOFError, KeyboardInterrupt):
            fail("no players given (--players ann,bob,cat)")
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
