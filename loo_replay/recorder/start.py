"""A recording started or resumed: the session's header checked, its journal made or
checked and opened, and the log brought up to its journal before the first prompt.

``record`` wires these together and says what they return; every refusal is a
``RecorderError`` or a ``JournalError`` naming the file, and the disk's own refusal an
``OutputError`` naming the file it concerns (``journal.said``), each one sentence for the
command line to say (docs/record.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from loo_replay.errors import LooReplayError, OutputError
from loo_replay.evidence.seals import BROKEN, check
from loo_replay.logs.parse import Bad, parse_document
from loo_replay.output.text import safe
from loo_replay.recorder.book import entries_of, session_entry
from loo_replay.recorder.journal import (
    Entry,
    Journal,
    JournalError,
    journal_path,
    read_journal,
    said,
    write_atomic,
)
from loo_replay.recorder.judge import RecorderError, Standing
from loo_replay.recorder.resume import checked_entries
from loo_replay.recorder.sealed import encoded
from loo_replay.rulesets import builtin_names


@dataclass(frozen=True, slots=True)
class Opening:
    """The entries to record on from, their journal open for appending, and what to say
    of where they came from (None for a new session)."""

    entries: list[Entry]
    journal: Journal
    note: str | None = None


@contextmanager
def _disk(file: Path) -> Iterator[None]:
    """The disk's refusal (an ``OSError``) as an ``OutputError`` naming its file."""
    try:
        yield
    except LooReplayError:
        raise
    except OSError as exc:
        raise OutputError(said(exc, file)) from None


def refuse_existing(file: Path) -> None:
    """A new session is not written over a log, nor over a journal that holds an entry:
    either may hold a game."""
    with _disk(file):
        if file.exists() or not unused(journal_path(file)):
            raise RecorderError(
                f"{file} already exists: carry on with loo-replay record --resume {file}"
            )


def known_ruleset(ruleset: str) -> None:
    """The recorder records under a built-in ruleset only."""
    if ruleset not in builtin_names():
        raise RecorderError(
            f"unknown ruleset {ruleset!r}; built-in rulesets: {', '.join(builtin_names())}"
        )


def session_header(
    file: Path,
    players: str,
    ruleset: str,
    overrides: Mapping[str, Any],
    chips: int | None,
    session_id: str | None,
    venue: str | None,
) -> dict[str, Any]:
    """The session header of a new recording, checked by the log reader itself: the
    players as typed (``ann,bob,cat`` or ``ann bob cat``), the id FILE's name unless given."""
    ids = [p for p in re.split(r"[\s,]+", players) if p]
    session: dict[str, Any] = {
        "id": session_id or file.stem,
        "ruleset": ruleset,
        "started_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "players": [{"id": p} for p in ids],
    }
    if overrides:
        session["rules"] = dict(overrides)
    if venue:
        session["venue"] = venue
    if chips is not None:
        session["chips"] = {p: chips for p in ids}
    parsed = parse_document(
        {"format": "loo-hand-log", "version": 1, "session": session, "deals": []}
    )
    if parsed.header_error is not None:
        raise RecorderError(f"{parsed.header_error.path}: {parsed.header_error.message}")
    return session


def start(file: Path, session: dict[str, Any]) -> Opening:
    """A new journal beside ``file`` holding the session's header."""
    entries = [session_entry(session)]
    with _disk(file):
        return Opening(entries, _new_journal(journal_path(file), entries))


def resume(file: Path) -> Opening:
    """The entries to carry on from: the journal's, every one checked
    (``checked_entries``), or the log's when there is no journal or an unused one."""
    journal = journal_path(file)
    with _disk(file):
        entries = [] if unused(journal) else checked_entries(journal, file)
        if entries:
            return Opening(
                entries,
                Journal(journal, new=False),
                f"Resuming from the journal {safe(str(journal))}",
            )
        entries = _log_entries(file)
        none = "an empty journal" if journal.exists() else "no journal"
        return Opening(
            entries,
            _new_journal(journal, entries),
            f"Resuming from {safe(str(file))} alone ({none}): a new journal {safe(str(journal))}",
        )


def catch_up(file: Path, entries: list[Entry], standing: Standing) -> None:
    """The log rewritten from the journal's entries (it may be an entry behind), its
    settled deals sealed; refused when its last deal is one the engine rejects (a log
    written elsewhere): there is no game to carry on."""
    if standing.errors:
        first = standing.errors[0]
        raise RecorderError(f"{file}: its last deal is not a game to carry on: {first.message}")
    with _disk(file):
        write_atomic(file, encoded(entries, len(standing.audits)))


def unused(journal: Path) -> bool:
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
        journal.unlink()  # unused: nothing in it (``unused``)
    opened = Journal(journal, new=True)
    try:
        for entry in entries:
            opened.append(entry)
    except BaseException:
        opened.close()
        journal.unlink()
        raise
    return opened


def _log_entries(file: Path) -> list[Entry]:
    """The entries that give the log at ``file`` back, when no journal holds any; refused
    when there is no log, it is not one, or its seals are broken (carrying on would seal
    the change over)."""
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
    if seals.status == BROKEN:
        raise RecorderError(
            f"{file}: its seals are broken at {seals.at}: it was changed after it was "
            f"sealed (loo-replay seal --renew {file} if the change is meant)"
        )
    return entries
