"""``record --resume``: the journal checked before anything is carried on from it.

A journal is trusted no more than any other input (docs/record.md, "Resuming"): it must be
this log's, every line must be an entry the recorder writes, and every entry must pass the
judge the prompt asked when it was typed; the first line that fails is named, and nothing
is written.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from loo_replay.recorder.journal import Entry, JournalError, live, read_journal
from loo_replay.recorder.judge import RecorderError, Standing, judge
from loo_replay.recorder.sealed import last_seal

# Each kind of entry the recorder writes, and the fields it always has (docs/record.md).
_FIELDS: dict[str, dict[str, type]] = {
    "session": {"session": dict},
    "deal": {"deal": int, "dealer": str},
    "turn_up": {"card": str},
    "event": {"event": dict},
    "hand": {"player": str, "cards": list},
    "miss": {"cards": list},
    "misdeal": {},
    "end": {},
    "undo": {},
}


def checked_entries(journal: Path, log: Path) -> list[Entry]:
    """The live entries of ``journal``, each replayed through ``judge`` as the prompt did
    when it was typed; none when the journal holds no whole line (a crash before its first
    one).  ``JournalError`` names the first line that is not an entry the recorder would
    have kept, or a journal of another session than ``log``'s."""
    entries: list[Entry] = []
    standing: Standing | None = None
    for number, entry in enumerate(read_journal(journal)[0], start=1):
        where = f"{journal}:{number}"
        kind = entry["kind"]
        fields = _FIELDS.get(kind)
        if fields is None:
            raise JournalError(f"{where}: {kind!r} is not an entry the recorder writes")
        for name, wanted in fields.items():
            value = entry.get(name)
            if not isinstance(value, wanted) or isinstance(value, bool):
                raise JournalError(f"{where}: a {kind} entry without its {name}")
        if (kind == "session") != (number == 1):
            raise JournalError(f"{where}: a journal begins with its session, and only there")
        if kind == "undo":
            if len(entries) < 2:
                raise JournalError(f"{where}: an undo with nothing to undo")
            entries = live([*entries, entry])
            continue
        try:
            trial = judge([*entries, entry], standing)
        except RecorderError as exc:
            raise JournalError(f"{where}: {exc}") from None
        if trial.errors:
            refused = trial.errors[0].message
            raise JournalError(f"{where}: the recorder refuses this entry: {refused}")
        if "seal" in entry:
            _same_seal(entry, [*entries, entry], trial, where)
        entries.append(entry)
        standing = trial
    if entries:
        _same_session(entries[0]["session"], journal, log)
    return entries


def _same_seal(entry: Entry, entries: list[Entry], standing: Standing, where: str) -> None:
    """The seal an entry kept is the one its deal has now: the journal was not changed
    after the deal was sealed (its code noted at the table would not match)."""
    settled = len(standing.audits)
    now = last_seal(entries, settled) if settled else None
    if now != entry["seal"]:
        number = standing.audits[-1].number if settled else None
        raise JournalError(
            f"{where}: the seal kept for deal {number} is not the deal's: the journal was "
            "changed after the deal was sealed"
        )


def _same_session(session: dict[str, object], journal: Path, log: Path) -> None:
    """The journal is the log's own: the log, when there is one, has its session header.
    (A crash between the journal's first line and the log's first writing leaves no log.)"""
    try:
        theirs = orjson.loads(log.read_bytes())["session"]
        if isinstance(theirs, dict):
            theirs = {k: v for k, v in theirs.items() if k != "seal"}  # sealed on writing
    except FileNotFoundError:
        return
    except OSError as exc:
        raise JournalError(f"{log}: cannot be read ({exc.strerror})") from None
    except (orjson.JSONDecodeError, TypeError, KeyError):
        raise JournalError(
            f"{log} is not a hand log: move it away to resume from {journal} alone"
        ) from None
    if theirs == session:
        return
    if not isinstance(theirs, dict):
        theirs = {}
    differ = next(k for k in sorted({*session, *theirs}) if session.get(k) != theirs.get(k))
    raise JournalError(
        f"{journal} is the journal of another session than {log}'s (its {differ} differs: "
        f"{session.get(differ)!r} against {theirs.get(differ)!r}); resume the log it belongs to"
    )
