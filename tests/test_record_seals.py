"""``loo-replay record`` seals each deal as it is settled (docs/evidence.md, docs/record.md):
the code shown with the settlement, withdrawn by an undo, listed at the end, kept in the
journal and checked by ``--resume``; and the log it writes verifies with those codes."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect
from db_helpers import run
from record_helpers import answer, spawn

from loo_replay.evidence.seals import SEALED, check
from loo_replay.recorder.journal import journal_path

CODE = r"[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}"


def _all_pass(child: pexpect.spawn, deal: int, dealer: str, others: tuple[str, str]) -> str:
    """A deal every player passes; the code shown when it is settled."""
    answer(child, f"deal {deal} · dealer [{dealer}]", "")
    answer(child, f"deal {deal} · turn-up", "jh")
    answer(child, f"{others[0]} declares (play/pass/miss)", "pass")
    answer(child, f"{others[1]} declares (play/pass/miss)", "pass")
    child.expect(rf"code ({CODE}): deal {deal} sealed")
    return str(child.match.group(1))


def test_record_shows_each_deals_code_withdraws_it_on_undo_and_lists_them_at_the_end(
    tmp_path: Path,
) -> None:
    log = tmp_path / "night.json"
    child = spawn("night.json", "--players", "ann,bob,cat", "--chips", "20", cwd=tmp_path)
    first = _all_pass(child, 1, "ann", ("bob", "cat"))
    answer(child, "deal 2 · dealer [bob]", "u")  # the deal settled is opened again
    child.expect_exact(f"code {first} of deal 1 withdrawn")
    child.expect_exact("undone: declare cat pass")
    answer(child, "cat declares (play/pass/miss)", "pass")
    child.expect(rf"code ({CODE}): deal 1 sealed")
    assert child.match.group(1) == first  # the same deal again: the same seal
    answer(child, "deal 2 · dealer [bob]", "q")
    child.expect_exact("Codes of the deals sealed")
    child.expect_exact(f"deal 1  {first}")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    doc = json.loads(log.read_text())
    assert check(doc).status == SEALED
    sid = doc["session"]["id"]
    result = run("verify", log, "--code", f"{sid}:1={first.lower()}")
    assert result.returncode == 0, result.stdout
    assert f"deal 1 {first}: match" in result.stdout


def test_record_resume_checks_the_seals_the_journal_kept(tmp_path: Path) -> None:
    log = tmp_path / "night.json"
    child = spawn("night.json", "--players", "ann,bob,cat", cwd=tmp_path)
    _all_pass(child, 1, "ann", ("bob", "cat"))
    answer(child, "deal 2 · dealer [bob]", "q")
    child.expect(pexpect.EOF)
    child.close()
    journal = journal_path(log)
    text = journal.read_text()
    assert text.count('"seal"') == 1  # the closing entry of deal 1 keeps its seal
    # the journal changed after the deal was sealed: another card turned up
    assert text.count('"card":"JH"') == 1
    journal.write_text(text.replace('"card":"JH"', '"card":"QH"'))
    child = spawn("--resume", "night.json", cwd=tmp_path)
    child.expect_exact("the seal kept for deal 1 is not the deal's")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
