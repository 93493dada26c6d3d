"""Attacks on ``loo-replay record`` (docs/record.md): quitting just after naming the next
dealer, escape sequences pasted at a prompt, made-up or foreign journals given to
``--resume``, an empty journal; each driven through the real command in a pseudo-terminal,
and the journal and log it leaves read back."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pexpect
import pytest
from db_helpers import run
from record_helpers import answer, spawn

from loo_replay.recorder.book import document, written
from loo_replay.recorder.journal import journal_path, live, read_journal

SESSION = {
    "id": "club",
    "ruleset": "three-card",
    "started_at": "2026-01-02T20:00:00Z",
    "players": [{"id": "ann"}, {"id": "bob"}, {"id": "cat"}],
}


def ended(child: pexpect.spawn) -> int:
    """The exit status, once the recorder has said its last word."""
    child.expect(pexpect.EOF)
    child.close()
    assert "Traceback" not in (child.before or "")
    return int(child.exitstatus if child.exitstatus is not None else -1)


def write_journal(path: Path, entries: list[dict[str, object]]) -> None:
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in entries))


def first_deal() -> list[dict[str, object]]:
    """A deal begun as the recorder writes it: ann deals, K♥ turned, bob and cat play."""
    return [
        {"kind": "session", "session": SESSION},
        {"kind": "deal", "deal": 1, "dealer": "ann"},
        {"kind": "turn_up", "card": "KH"},
        {"kind": "event", "event": {"type": "declare", "player": "bob", "action": "play"}},
        {"kind": "event", "event": {"type": "declare", "player": "cat", "action": "play"}},
        {"kind": "event", "event": {"type": "declare", "player": "ann", "action": "pass"}},
        {"kind": "event", "event": {"type": "play", "player": "bob", "card": "AH"}},
    ]


def test_quitting_just_after_the_next_dealer_writes_no_empty_deal(tmp_path: Path) -> None:
    child = spawn("club.json", "--players", "ann,bob,cat", cwd=tmp_path)
    answer(child, "deal 1 · dealer [ann]", "")
    answer(child, "deal 1 · turn-up", "kh")
    answer(child, "deal 1 · bob declares (play/pass/miss)", "x")
    answer(child, "deal 1 · cat declares (play/pass/miss)", "x")
    answer(child, "deal 2 · dealer [bob]", "")  # the next dealer accepted ...
    answer(child, "deal 2 · turn-up", "q")  # ... and the scorer stops at once
    assert ended(child) == 0
    log = tmp_path / "club.json"
    doc = json.loads(log.read_text("utf-8"))
    assert [d["deal"] for d in doc["deals"]] == [1]  # no empty deal 2
    audit = run("validate", log, "--format", "json")
    assert audit.returncode == 0, audit.stdout
    summary = json.loads(audit.stdout)["summary"]
    assert (summary["deals"], summary["misdeals"], summary["violations"]) == (1, 0, 0)
    # The journal keeps the dealer named: the resume says where the deal stands and asks on.
    child = spawn("--resume", "club.json", cwd=tmp_path)
    child.expect_exact("1 deal(s) recorded so far")
    child.expect_exact("deal 2 · dealer bob · nothing declared · no trick taken")
    answer(child, "deal 2 · turn-up", "q")
    assert ended(child) == 0
    assert json.loads(log.read_text("utf-8")) == doc


def test_resuming_says_where_the_open_deal_stands(tmp_path: Path) -> None:
    log = tmp_path / "club.json"
    entries = first_deal()
    write_journal(journal_path(log), entries)
    log.write_bytes(orjson.dumps(written(entries)))
    child = spawn("--resume", "club.json", cwd=tmp_path)
    child.expect_exact(
        "deal 1 · dealer ann · turn-up K♥ · declared bob play, cat play, ann pass · no trick taken"
    )
    answer(child, "deal 1 · trick 1 · cat plays", "2h")
    child.expect_exact("trick 1 to bob (A♥)")
    answer(child, "deal 1 · trick 2 · bob plays", "q")
    assert ended(child) == 0
    child = spawn("--resume", "club.json", cwd=tmp_path)
    child.expect_exact("declared bob play, cat play, ann pass · tricks 1 to bob")
    answer(child, "deal 1 · trick 2 · bob plays", "q")
    assert ended(child) == 0


def test_pasted_escape_sequences_are_neither_stored_nor_echoed(tmp_path: Path) -> None:
    child = spawn("club.json", "--players", "ann,bob,cat", cwd=tmp_path)
    child.expect_exact("deal 1 · dealer [ann]>")
    # A bracketed paste carrying a colour, a title, a bell and a bidi override in "bob" ...
    child.send("\x1b[200~b\x1b[31mo\x1b]0;title\x07\u202eb\x1b[0m\x1b[201~\r")
    # ... a colour typed outside a paste, which prompt_toolkit reads as a mouse report ...
    answer(child, "deal 1 · turn-up", "\x1b[31mkh")
    # ... and an escape in a declaration, refused with the text cleaned.
    answer(child, "deal 1 · cat declares (play/pass/miss)", "\x1b[1mzz")
    child.expect_exact("✗ 'zz' is not a declaration")
    answer(child, "deal 1 · cat declares (play/pass/miss)", "q")
    assert ended(child) == 0
    log = tmp_path / "club.json"
    entries = live(read_journal(journal_path(log))[0])
    assert entries[1:] == [
        {"kind": "deal", "deal": 1, "dealer": "bob"},
        {"kind": "turn_up", "card": "KH"},
    ]
    for stored in (log, journal_path(log)):
        assert not any(c < 0x20 and c != 0x0A for c in stored.read_bytes())
    shown = (tmp_path / "terminal.log").read_text("utf-8")
    for raw in ("\x1b[31m", "\x1b[200~", "\x1b]0;", "\x07", "\u202e", "Unhandled exception"):
        assert raw not in shown


def test_a_made_up_entry_is_refused_naming_its_line(tmp_path: Path) -> None:
    log = tmp_path / "club.json"
    card_twice: dict[str, object] = {
        "kind": "event",
        "event": {"type": "play", "player": "cat", "card": "AH"},
    }
    write_journal(journal_path(log), [*first_deal(), card_twice])
    before = journal_path(log).read_bytes()
    result = run("record", "--resume", log)
    assert result.returncode == 2
    message = result.stderr.strip()
    assert "\n" not in message
    assert message.startswith(f"loo-replay: {journal_path(log)}:8: the recorder refuses")
    assert "A♥" in message
    assert journal_path(log).read_bytes() == before and not log.exists()


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (b'{"kind": "deal", "deal": 2, "dealer": "zed"}', ":8: the recorder refuses"),
        (b'{"kind": "teleport"}', ":8: 'teleport' is not an entry the recorder writes"),
        (b'{"kind": "deal", "deal": "2"}', ":8: a deal entry without its deal"),
        (b'{"kind": "session", "session": {}}', ":8: a journal begins with its session"),
        (b"[1, 2]", ":8: not a journal entry"),
    ],
)
def test_a_line_the_recorder_never_writes_is_refused(
    tmp_path: Path, line: bytes, said: str
) -> None:
    log = tmp_path / "club.json"
    write_journal(journal_path(log), first_deal())
    with journal_path(log).open("ab") as f:
        f.write(line + b"\n" + orjson.dumps({"kind": "undo"}) + b"\n")
    result = run("record", "--resume", log)
    assert result.returncode == 2
    assert f"{journal_path(log)}{said}" in result.stderr
    assert result.stderr.count("\n") == 1


def test_an_undo_with_nothing_to_undo_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "club.json"
    write_journal(journal_path(log), [first_deal()[0], {"kind": "undo"}])
    result = run("record", "--resume", log)
    assert result.returncode == 2
    assert f"{journal_path(log)}:2: an undo with nothing to undo" in result.stderr


def test_the_journal_of_another_session_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "club.json"
    log.write_bytes(orjson.dumps(document(first_deal())))
    # Another evening's journal, of a session by the same name (club.json in another folder).
    other: dict[str, object] = {
        "kind": "session",
        "session": {**SESSION, "started_at": "2026-02-06T20:00:00Z"},
    }
    write_journal(journal_path(log), [other, *first_deal()[1:3]])
    result = run("record", "--resume", log)
    assert result.returncode == 2
    assert (
        f"loo-replay: {journal_path(log)} is the journal of another session than {log}'s "
        "(its started_at differs: '2026-02-06T20:00:00Z' against '2026-01-02T20:00:00Z')"
    ) in result.stderr
    # And one of a session by another name.
    write_journal(journal_path(log), [{"kind": "session", "session": {**SESSION, "id": "x"}}])
    result = run("record", "--resume", log)
    assert result.returncode == 2
    assert "(its id differs: 'x' against 'club')" in result.stderr


def test_an_empty_journal_resumes_from_the_log_or_starts_afresh(tmp_path: Path) -> None:
    # A crash before the journal's first line: with a log beside it, the log is carried on.
    log = tmp_path / "club.json"
    entries = first_deal()
    log.write_bytes(orjson.dumps(written(entries)))
    journal_path(log).write_bytes(b'{"kind": "sess')  # torn: not a whole line
    child = spawn("--resume", "club.json", cwd=tmp_path)
    child.expect_exact("alone (an empty journal): a new journal")
    answer(child, "deal 1 · trick 1 · cat plays", "q")
    assert ended(child) == 0
    assert live(read_journal(journal_path(log))[0]) == entries
    # Without a log, there is nothing to resume, and a new session may start there.
    fresh = tmp_path / "fresh.json"
    journal_path(fresh).write_bytes(b"")
    result = run("record", "--resume", fresh)
    assert result.returncode == 2
    assert "nothing to resume" in result.stderr and "--players" in result.stderr
    child = spawn("fresh.json", "--players", "ann,bob,cat", cwd=tmp_path)
    answer(child, "deal 1 · dealer [ann]", "q")
    assert ended(child) == 0
    assert read_journal(journal_path(fresh))[0][0]["kind"] == "session"


def test_the_recorder_takes_its_keyboard_and_screen_as_given(tmp_path: Path) -> None:
    """The prompts driven in this process through a pipe: a bracketed paste whose colours
    and title are dropped, a Ctrl-C that stops the recorder with everything saved."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from loo_replay.recorder.journal import Journal
    from loo_replay.recorder.prompts import Recorder

    log = tmp_path / "club.json"
    write_journal(journal_path(log), [{"kind": "session", "session": SESSION}])
    said: list[str] = []
    with create_pipe_input() as keys:
        keys.send_text("\x1b[200~\x1b]0;pwned\x07c\x1b[31mat\x1b[0m\x1b[201~\r")
        keys.send_text("\x03")
        journal = Journal(journal_path(log), new=False)
        recorder = Recorder(
            log, journal, [first_deal()[0]], said.append, False, (keys, DummyOutput())
        )
        assert recorder.run() is True  # stopped by Ctrl-C
        journal.close()
    assert live(read_journal(journal_path(log))[0])[1] == {
        "kind": "deal",
        "deal": 1,
        "dealer": "cat",
    }
    assert json.loads(log.read_text("utf-8"))["deals"] == []  # a deal only begun
    assert said[-1] == f"Saved {log}: loo-replay validate {log}"
