"""The recorder's journal: one JSON line per entry, appended and fsynced before the next
prompt, so a kill loses at most the entry being typed.

A JSON document cannot be appended to in place, so the journal beside the log
(``game.json.journal``) is the record of what was typed, and the hand log is rewritten
from it after every entry, atomically (a temporary file, fsync, ``os.replace``, fsync of
the folder): the log on disk is always a whole document, at most one entry behind the
journal.  Undo is itself an entry (``{"kind": "undo"}``), so nothing is ever rewritten in
the journal; ``live`` folds the undos away.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from loo_replay import files
from loo_replay.errors import InputError
from loo_replay.files import fsync_folder
from loo_replay.logs.reader import Document, decode

JOURNAL_SUFFIX = ".journal"
Entry = dict[str, Any]


class JournalError(InputError, ValueError):
    """A journal that is not one: a line in the middle that is not a JSON object."""


def journal_path(log: Path) -> Path:
    """Where the journal of ``log`` lives: beside it, ``game.json.journal`` (a name the
    readers of hand logs skip)."""
    return log.with_name(log.name + JOURNAL_SUFFIX)


def read_journal(path: Path) -> tuple[list[Entry], int]:
    """Every whole entry of the journal and the length in bytes of the whole lines; a last
    line cut short by a kill is left out (it was the entry being typed)."""
    data = path.read_bytes()
    entries: list[Entry] = []
    good = 0
    for number, line in enumerate(data.splitlines(keepends=True), start=1):
        if not line.endswith(b"\n"):
            break  # torn: the write of the last entry did not finish
        # The log reader's own parse: a key said twice, a nesting or a string past its
        # limits is refused here as in a hand log, never read as its last value.
        read = decode(Document(path.name, number, line.rstrip(b"\r\n")))
        if read.error is not None:
            raise JournalError(f"{path}:{number}: not a journal entry ({read.error})")
        entry = read.value
        if not isinstance(entry, dict) or not isinstance(entry.get("kind"), str):
            raise JournalError(f"{path}:{number}: not a journal entry (no kind)")
        entries.append(entry)
        good += len(line)
    return entries, good


def said(exc: OSError, about: Path) -> str:
    """An operating system's error in words, with the file it concerns (the one it names,
    else ``about``): ``game.json.journal: No space left on device``."""
    return f"{exc.filename or about}: {exc.strerror or exc}"


def live(entries: Iterable[Entry]) -> list[Entry]:
    """The entries that stand once every ``undo`` has taken back the entry before it."""
    out: list[Entry] = []
    for entry in entries:
        if entry["kind"] == "undo":
            if out and out[-1]["kind"] != "session":
                out.pop()
        else:
            out.append(entry)
    return out


class Journal:
    """An open journal: ``append`` returns once the entry is on disk."""

    def __init__(self, path: Path, *, new: bool) -> None:
        self.path = path
        if new:
            path.open("xb").close()  # never overwrite a journal: it may hold a game
            fsync_folder(path.parent)
        _, good = read_journal(path)
        # Unbuffered: a write the disk refuses must not stay in a buffer to be written later.
        self._file = path.open("r+b", buffering=0)
        self._file.truncate(good)  # drop a torn last line before appending
        self._file.seek(good)

    def append(self, entry: Entry) -> None:
        """Write ``entry`` and fsync it; if that fails (a full disk, Ctrl-C), the journal is
        cut back to its whole lines before the error goes on: the entry was not kept."""
        data = memoryview(orjson.dumps(entry) + b"\n")
        start = self._file.tell()
        try:
            while data:
                data = data[self._file.write(data) :]
            os.fsync(self._file.fileno())
        except BaseException as exc:
            with contextlib.suppress(OSError):
                self._file.truncate(start)
                self._file.seek(start)
            if isinstance(exc, OSError) and exc.filename is None:
                exc.filename = str(self.path)  # say which file the disk refused
            raise

    def close(self) -> None:
        self._file.close()


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` so that a reader, or a crash, sees the old file or the new
    one, never a part, and the new name survives a crash (``files.write_atomic``)."""
    files.write_atomic(path, data, durable=True)
