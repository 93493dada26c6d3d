"""The recorder's journal and the log written from it (docs/record.md: every entry on disk
before the next prompt; a kill loses at most the entry being typed; ``--resume`` carries
on; the file written is an ordinary hand log)."""

from __future__ import annotations

from pathlib import Path

import pytest

from loo_replay.logs.paths import expand
from loo_replay.logs.reader import Document, decode
from loo_replay.recorder.book import document, entries_of, session_entry
from loo_replay.recorder.journal import (
    Journal,
    JournalError,
    journal_path,
    live,
    read_journal,
    write_atomic,
)
from loo_replay.rulesets import RuleChoice
from loo_replay.run.audit import SessionReport, audit_document
from tests.loo_helpers import read_logs

ROOT = Path(__file__).resolve().parents[1]
SESSION = {"id": "j", "players": [{"id": p} for p in ("ann", "bob", "cat")]}


def _play(player: str, card: str) -> dict[str, object]:
    return {"kind": "event", "event": {"type": "play", "player": player, "card": card}}


def test_record_journal_entries_are_read_back_in_order(tmp_path: Path) -> None:
    path = tmp_path / "g.json.journal"
    journal = Journal(path, new=True)
    entries = [session_entry(SESSION), {"kind": "deal", "deal": 1, "dealer": "ann"}]
    for entry in entries:
        journal.append(entry)
    journal.close()
    assert read_journal(path) == (entries, path.stat().st_size)


def test_record_a_torn_last_line_is_the_entry_being_typed_and_is_dropped(tmp_path: Path) -> None:
    """A kill in the middle of a write leaves a line without its newline: it was never
    acknowledged, so it is left out, and the next append starts on a clean line."""
    path = tmp_path / "g.json.journal"
    journal = Journal(path, new=True)
    journal.append(session_entry(SESSION))
    journal.close()
    whole = path.stat().st_size
    with path.open("ab") as f:
        f.write(b'{"kind": "deal", "de')
    assert read_journal(path) == ([session_entry(SESSION)], whole)
    again = Journal(path, new=False)
    again.append({"kind": "deal", "deal": 1, "dealer": "bob"})
    again.close()
    assert read_journal(path)[0][-1] == {"kind": "deal", "deal": 1, "dealer": "bob"}


def test_record_a_broken_line_inside_the_journal_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "g.json.journal"
    path.write_bytes(b'{"kind": "session", "session": {}}\nnot json\n{"kind": "undo"}\n')
    with pytest.raises(JournalError, match=":2: not a journal entry"):
        read_journal(path)


def test_record_a_new_journal_never_overwrites_an_old_one(tmp_path: Path) -> None:
    path = tmp_path / "g.json.journal"
    path.write_bytes(b"")
    with pytest.raises(FileExistsError):
        Journal(path, new=True)


def test_record_undo_takes_back_the_entry_before_it_never_the_session() -> None:
    s, d = session_entry(SESSION), {"kind": "deal", "deal": 1, "dealer": "ann"}
    undo = {"kind": "undo"}
    assert live([s, d, _play("bob", "AD"), undo]) == [s, d]
    assert live([s, d, _play("bob", "AD"), undo, undo, undo, undo]) == [s]
    assert live([s, d, undo, _play("bob", "AD")]) == [s, _play("bob", "AD")]


def test_record_the_journal_lives_beside_the_log_under_a_name_readers_skip(tmp_path: Path) -> None:
    """docs/log-format.md Files: a folder of logs is read whole; the journal must not be read."""
    log = tmp_path / "game.json"
    write_atomic(log, b"{}")
    journal_path(log).write_bytes(b"")
    assert journal_path(log).name == "game.json.journal"
    assert expand([tmp_path]).files == [log]
    assert not list(tmp_path.glob(".*.tmp"))  # the temporary file was renamed, not left


def test_record_the_log_is_built_from_the_entries_in_the_order_typed() -> None:
    entries = [
        session_entry(SESSION),
        {"kind": "deal", "deal": 1, "dealer": "ann"},
        {"kind": "turn_up", "card": "9D"},
        {"kind": "event", "event": {"type": "declare", "player": "bob", "action": "play"}},
        {"kind": "hand", "player": "cat", "cards": ["KH", "7S", "2C"]},
        {"kind": "deal", "deal": 2, "dealer": "bob"},
        {"kind": "misdeal"},
    ]
    doc = document(entries)
    assert doc["deals"] == [
        {
            "deal": 1,
            "dealer": "ann",
            "hands": {"cat": ["KH", "7S", "2C"]},
            "turn_up": "9D",
            "events": [{"type": "declare", "player": "bob", "action": "play"}],
        },
        {"deal": 2, "dealer": "bob", "misdeal": True},
    ]


def _sample_documents() -> list[object]:
    """The session documents of sample_logs/ whose header is sound (the recorder resumes
    only such a log)."""
    docs = []
    for doc in read_logs([ROOT / "sample_logs"]):
        if isinstance(doc, Document):
            report = audit_document(doc, RuleChoice())
            if isinstance(report, SessionReport) and not report.errors:
                docs.append(decode(doc).value)
    return docs


def test_record_every_sample_log_comes_back_whole_from_its_entries() -> None:
    """A resume from the log alone loses nothing: hands, Miss, ``recorded``, ``meta``."""
    docs = _sample_documents()
    assert docs
    for doc in docs:
        assert document(entries_of(doc)) == doc  # type: ignore[arg-type]
