"""``loo-replay record`` driven as a scorer drives it, in a pseudo-terminal (docs/record.md):
three deals of three-card Loo typed in with a refused card, an undo, a failure to follow
flagged at once and proved two tricks later, a ``kill -9`` in the middle of a trick and a
resume; then the log the recorder wrote, audited by the real ``validate`` and ``audit``."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pexpect
import pytest
from db_helpers import ROOT, run
from record_helpers import spawn

from loo_replay.recorder.journal import journal_path, live, read_journal
from loo_replay.rulesets import builtin

REVOKE_AMOUNT = builtin("three-card").options.penalties_revoke_amount


def _type(child: pexpect.spawn, prompt: str, text: str) -> None:
    """Wait for ``prompt`` (the text before ``>``), then type ``text`` and Enter."""
    child.expect_exact(prompt + ">")
    child.sendline(text)


def _entries(log: Path) -> list[dict[str, object]]:
    return live(read_journal(journal_path(log))[0])


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session typed in, killed once and resumed: the log file it leaves."""
    folder = tmp_path_factory.mktemp("table")
    log = folder / "club-night.json"
    child = spawn("club-night.json", "--players", "ann,bob,cat,dan", "--chips", "30", cwd=folder)
    # Deal 1: ann deals, 9♦ turned (typed with a space), bob and dan play.
    _type(child, "deal 1 · dealer [ann]", "")
    _type(child, "deal 1 · turn-up", "9 d")
    _type(child, "bob declares (play/pass/miss)", "p")
    _type(child, "cat declares (play/pass/miss)", "x")
    _type(child, "dan declares (play/pass/miss)", "p")
    _type(child, "ann declares (play/pass/miss)", "x")
    _type(child, "trick 1 · bob plays", "ad")
    _type(child, "trick 1 · dan plays", "2h")
    child.expect_exact("dan played 2♥ to A♦ (trick 1): revoke if dan shows ♦ later")
    child.expect_exact("trick 1 to bob (A♦)")
    _type(child, "trick 2 · bob plays", "K♦")
    _type(child, "trick 2 · dan plays", "dan ad")
    child.expect_exact("✗ refused: A♦")
    _type(child, "trick 2 · dan plays", "3h")
    _type(child, "trick 3 · bob plays", "u")
    child.expect_exact("undone: play dan 3♥")
    _type(child, "trick 2 · dan plays", "3s")
    _type(child, "trick 3 · bob plays", "4S")
    _type(child, "trick 3 · dan plays", "8d")
    child.expect_exact("REVOKE follow-suit in deal 1: dan played 2♥ to A♦")
    child.expect_exact("(proved by 8♦ played at trick 3)")
    child.expect_exact(f"penalties dan {REVOKE_AMOUNT}")
    child.expect_exact("stacks ann 27, bob 32, cat 30, dan 18")
    # Deal 2: bob deals; killed with the second trick half played.
    _type(child, "deal 2 · dealer [bob]", "")
    _type(child, "deal 2 · turn-up", "7c")
    for who in ("cat", "dan", "ann", "bob"):
        _type(child, f"{who} declares (play/pass/miss)", "play")
    for who, card in (("cat", "AC"), ("dan", "kc"), ("ann", "2c"), ("bob", "qc")):
        _type(child, f"trick 1 · {who} plays", card)
    _type(child, "trick 2 · cat plays", "J♣")
    child.expect_exact("trick 2 · dan plays>")
    child.send("3")  # half typed when the lid closes
    entries_before = _entries(log)
    child.kill(signal.SIGKILL)
    child.wait()
    assert entries_before[-1] == {
        "kind": "event",
        "event": {"type": "play", "player": "cat", "card": "JC"},
    }
    child = spawn("--resume", "club-night.json", cwd=folder)
    child.expect_exact("Resuming from the journal")
    _type(child, "trick 2 · dan plays", "3c")
    for who, card in (("ann", "4c"), ("bob", "5c")):
        _type(child, f"trick 2 · {who} plays", card)
    for who, card in (("cat", "6c"), ("dan", "t c"), ("ann", "9c"), ("bob", "8c")):
        _type(child, f"trick 3 · {who} plays", card)
    child.expect_exact("trick 3 to dan (10♣)")
    # Deal 3: cat deals and everyone passes: the dealer takes the pool.
    _type(child, "deal 3 · dealer [cat]", "cat")
    _type(child, "deal 3 · turn-up", "jh")
    for who in ("dan", "ann", "bob"):
        _type(child, f"{who} declares (play/pass/miss)", "pass")
    child.expect_exact("all passed")
    _type(child, "deal 4 · dealer [dan]", "q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    return log


def test_record_a_kill_loses_only_the_entry_being_typed(recorded: Path) -> None:
    """docs/record.md: every entry is on disk before the next prompt; the resumed session
    carries on where the kill left it, and the half-typed card was typed again."""
    plays = [
        e["event"]["card"]
        for e in _entries(recorded)
        if e["kind"] == "event" and e["event"]["type"] == "play"
    ]
    assert plays[6:] == ["AC", "KC", "2C", "QC", "JC", "3C", "4C", "5C", "6C", "TC", "9C", "8C"]


def test_record_writes_an_ordinary_log_that_validate_audits(recorded: Path) -> None:
    """docs/log-format.md, "Hands left out", and docs/record.md: the log has no hands (the scorer saw none), the undone and the
    refused cards are not in it, and the revoke proved by a later card is found."""
    doc = json.loads(recorded.read_text("utf-8"))
    assert [d["deal"] for d in doc["deals"]] == [1, 2, 3]
    assert all("hands" not in d and "miss" not in d for d in doc["deals"])
    dan = [e["card"] for e in doc["deals"][0]["events"] if e.get("player") == "dan" and "card" in e]
    assert dan == ["2H", "3S", "8D"]
    result = run("validate", recorded, "--format", "json")
    assert result.returncode == 1, result.stderr  # findings: the revokes
    audit = json.loads(result.stdout)
    assert audit["summary"]["audited"] == 3 and audit["summary"]["rejected"] == 0
    deals = audit["sessions"][0]["deals"]
    first = deals[0]["violations"][0]
    assert (first["code"], first["player"], first["trick"], first["card"]) == (
        "follow-suit",
        "dan",
        1,
        "2H",
    )
    assert first["proved_by"] == {"card": "8D", "trick": 3}
    assert deals[0]["penalties"] == {"dan": REVOKE_AMOUNT}
    assert deals[2]["outcome"] == "all_passed"
    assert [d["knowledge"] for d in deals] == ["partial"] * 3


def test_record_log_goes_through_audit_into_the_database_and_pages(
    recorded: Path, tmp_path: Path
) -> None:
    result = run("audit", recorded, "--db", tmp_path / "loo.duckdb", "--out", tmp_path / "pages")
    assert result.returncode == 1, result.stderr
    assert (tmp_path / "pages" / "index.html").is_file()


def test_record_resumes_from_the_log_alone_when_the_journal_is_gone(
    recorded: Path, tmp_path: Path
) -> None:
    """docs/record.md: the log is a whole record by itself; resuming from it rebuilds the
    journal and proposes what comes next."""
    log = tmp_path / recorded.name
    log.write_bytes(recorded.read_bytes())
    child = spawn("--resume", log.name, cwd=tmp_path)
    child.expect_exact("alone (no journal)")
    child.expect_exact("3 deal(s) recorded so far")
    _type(child, "deal 4 · dealer [dan]", "q")
    child.expect(pexpect.EOF)
    child.close()
    assert json.loads(log.read_text("utf-8")) == json.loads(recorded.read_text("utf-8"))
    assert journal_path(log).is_file()


def test_record_refuses_to_start_over_an_existing_log(recorded: Path) -> None:
    result = run("record", recorded, "--players", "ann,bob,cat", cwd=ROOT)
    assert result.returncode == 2
    assert "--resume" in result.stderr
    again = run("record", "--resume", recorded, "--players", "ann,bob,cat", cwd=ROOT)
    assert again.returncode == 2
    assert "--players start a session" in again.stderr
