"""``loo-replay ingest`` on real DuckDB files: idempotent, conflicts, --replace, counts that
add up, every input deal in ``deals`` or ``rejects``, --jobs, pieces of big files, the lock."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from db_helpers import SAMPLES, counts, dump, run, sql

from loo_replay.db import load
from loo_replay.db.ingest import ingest
from loo_replay.rulesets import RuleChoice
from loo_replay.run import load_work


@pytest.fixture(scope="module")
def samples_db(samples_ingested: Path) -> Path:
    """sample_logs/ ingested once a worker (conftest.py; shared, read-only by the tests
    using it)."""
    return samples_ingested


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory of simulated logs with violations and corrupted records, in every form."""
    tmp = tmp_path_factory.mktemp("sim")
    made = run(
        "simulate",
        "--ruleset",
        "hoyle-pam",
        "--players",
        "5",
        "--deals",
        "25",
        "--sessions",
        "12",
        "--violations",
        "0.3",
        "--corrupt",
        "0.2",
        "--out",
        tmp / "all.jsonl",
    )
    assert made.returncode == 0, made.stderr
    lines = (tmp / "all.jsonl").read_bytes().splitlines(keepends=True)
    logs = tmp / "logs"
    logs.mkdir()
    (logs / "a.jsonl").write_bytes(b"".join(lines[:5]) + b"{not json\n")
    with gzip.open(logs / "b.jsonl.gz", "wb") as f:
        f.write(b"".join(lines[5:9]))
    (logs / "c.json").write_bytes(lines[9])
    (logs / "d.ndjson").write_bytes(b"\n".join(lines[10:]))
    return logs


def test_ingest_twice_keeps_one_copy_of_everything(samples_db: Path, tmp_path: Path) -> None:
    """Every table the same, the analysis's rows too (test_db_analysis asked that apart with
    the same two commands)."""
    db = tmp_path / "loo.duckdb"
    shutil.copy(samples_db, db)
    before = dump(db)
    again = run("ingest", SAMPLES, "--db", db)
    assert again.returncode == 0, again.stderr
    c = counts(again)
    assert (c["loaded"], c["rejected"], c["skipped"], c["conflicts"]) == (0, 0, 320, 0)
    assert dump(db) == before


def test_counts_add_up_and_every_deal_is_in_deals_or_rejects(samples_db: Path) -> None:
    summary = json.loads(run("validate", SAMPLES, "--format", "json").stdout)["summary"]
    assert summary["deals"] == 320
    ((deals,),) = sql(samples_db, "SELECT count(*) FROM deals")
    ((rejects,),) = sql(samples_db, "SELECT count(*) FROM rejects WHERE kind = 'deal'")
    assert deals == summary["audited"] + summary["misdeals"]
    assert rejects == summary["rejected"]
    # session by session: the document's deals, each in exactly one of the two tables
    missing = sql(
        samples_db,
        "SELECT s.session_id, s.deals, "
        "  (SELECT count(*) FROM deals d WHERE d.session_id = s.session_id), "
        "  (SELECT count(*) FROM rejects r WHERE r.session_id = s.session_id) "
        "FROM sessions s",
    )
    assert len(missing) == summary["sessions"]
    assert all(n == a + r for _, n, a, r in missing), missing
    assert sql(
        samples_db,
        "SELECT count(*) FROM deals d JOIN rejects r USING (session_id, deal_index)",
    ) == [(0,)]
    assert sql(samples_db, "SELECT count(*) FROM findings") == [(summary["violations"],)]
    assert sql(samples_db, "SELECT count(*) FROM discrepancies") == [(summary["discrepancies"],)]


def test_rejects_keep_the_deal_json_and_unreadable_documents_their_bytes(
    simulated: Path, tmp_path: Path
) -> None:
    db = tmp_path / "loo.duckdb"
    result = run("ingest", simulated, "--db", db)
    # docs/log-format.md, exit status: an unreadable document is kept, and makes the status 2
    assert result.returncode == 2, result.stderr
    assert "1 document(s) could not be read or parsed" in result.stderr
    c = counts(result)
    assert c["deals"] == 12 * 25 and c["loaded"] + c["rejected"] == c["deals"]
    assert "1 unreadable document(s): 1 kept in rejects" in result.stdout
    ((file, line, raw, message),) = sql(
        db, "SELECT file, line, raw, message FROM rejects WHERE kind = 'document'"
    )
    assert (Path(file).name, line, raw) == ("a.jsonl", 6, b"{not json")
    assert "not valid JSON" in message
    # a deal is rejected because of its session's rules: every deal of it, verbatim
    bad = json.loads((simulated / "c.json").read_bytes())
    bad["session"]["id"] = "bad-rules"
    bad["session"]["rules"] = {"stakes.loo": "sometimes"}
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    result = run("ingest", tmp_path / "bad.json", "--db", db)
    assert counts(result)["rejected"] == 25
    raws = sql(db, "SELECT raw FROM rejects WHERE session_id = 'bad-rules' ORDER BY deal_index")
    assert [r for (r,) in raws] == [orjson.dumps(d) for d in bad["deals"]]
    (errors,) = sql(db, "SELECT errors FROM sessions WHERE session_id = 'bad-rules'")[0]
    assert errors[0]["path"].startswith("/session/rules")


def _altered(source: Path, target: Path) -> str:
    """``source`` with one recorded payout changed; returns the session id."""
    doc = json.loads(source.read_text())
    recorded = doc["deals"][0].setdefault("recorded", {})
    recorded["pool_next"] = recorded.get("pool_next", 0) + 1
    target.write_text(json.dumps(doc))
    return str(doc["session"]["id"])


def test_same_id_other_content_is_a_conflict_naming_both_files(
    samples_db: Path, tmp_path: Path
) -> None:
    db = tmp_path / "loo.duckdb"
    shutil.copy(samples_db, db)
    before = dump(db)
    changed = tmp_path / "changed.json"
    sid = _altered(SAMPLES / "wrong-payouts.json", changed)
    result = run("ingest", changed, "--db", db)
    assert result.returncode == 1
    assert counts(result)["conflicts"] == 16
    message = " ".join(result.stderr.split())
    assert f"session {sid!r}" in message
    assert str(changed) in message and "wrong-payouts.json" in message
    assert "--replace" in message
    assert dump(db) == before


def test_other_rules_for_the_same_file_is_a_conflict_too(samples_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    shutil.copy(samples_db, db)
    result = run(
        "ingest", SAMPLES / "wrong-payouts.json", "--db", db, "--set", "stakes.loo=unlimited"
    )
    assert result.returncode == 1
    assert "under other rules (--ruleset/--set" in result.stderr
    bad = run("ingest", SAMPLES / "wrong-payouts.json", "--db", db, "--set", "follow.voids=any")
    assert bad.returncode == 2 and "unknown option 'follow.voids'" in bad.stderr


def test_replace_swaps_the_session_and_leaves_no_trace_of_the_old(
    samples_db: Path, tmp_path: Path
) -> None:
    db = tmp_path / "loo.duckdb"
    shutil.copy(samples_db, db)
    before = dump(db)
    changed = tmp_path / "changed.json"
    sid = _altered(SAMPLES / "wrong-payouts.json", changed)
    result = run("ingest", changed, "--db", db, "--replace")
    assert result.returncode == 0, result.stderr
    assert counts(result)["loaded"] == 16 and "1 session(s) replaced" in result.stdout
    after = dump(db)
    for table in ("deals", "seats", "plays", "tricks", "players"):
        assert len(after[table]) == len(before[table]), table
    ((file, digest),) = sql(db, "SELECT file, digest FROM sessions WHERE session_id = ?", sid)
    assert file == "changed.json"  # beside the database: recorded relative to its folder
    old = next(r for r in before["sessions"] if r[0] == sid)
    assert digest != old[1]
    # the altered record is now compared: one more discrepancy (or one fewer) on deal 1
    assert after["discrepancies"] != before["discrepancies"]
    assert run("ingest", changed, "--db", db).returncode == 0  # and it is now the loaded one


def test_same_id_twice_in_one_run_is_a_conflict(tmp_path: Path) -> None:
    changed = tmp_path / "changed.json"
    _altered(SAMPLES / "wrong-payouts.json", changed)
    db = tmp_path / "loo.duckdb"
    result = run("ingest", SAMPLES / "wrong-payouts.json", changed, "--db", db)
    assert result.returncode == 1
    c = counts(result)
    assert (c["loaded"], c["conflicts"]) == (16, 16)
    replaced = run(
        "ingest",
        SAMPLES / "wrong-payouts.json",
        changed,
        "--db",
        tmp_path / "r.duckdb",
        "--replace",
    )
    assert replaced.returncode == 0
    assert sql(tmp_path / "r.duckdb", "SELECT file FROM sessions") == [("changed.json",)]


def test_replace_within_a_file_drops_the_earlier_rows_still_waiting_for_their_insert(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loader inserts rows many batches at a time (``load.INSERT_DEALS``): a session
    replaced later in the same file, one batch a session, leaves only the later content,
    as when the earlier rows were already in the database."""
    changed = tmp_path / "changed.json"
    sid = _altered(SAMPLES / "wrong-payouts.json", changed)
    original = orjson.dumps(orjson.loads((SAMPLES / "wrong-payouts.json").read_bytes()))
    both, alone = tmp_path / "both.jsonl", tmp_path / "alone.jsonl"
    both.write_bytes(original + b"\n" + changed.read_bytes() + b"\n")
    alone.write_bytes(changed.read_bytes() + b"\n")
    monkeypatch.setattr(load, "INSERT_DEALS", 1_000_000)
    db, expected = tmp_path / "both.duckdb", tmp_path / "alone.duckdb"
    result = ingest([both], db, RuleChoice(), replace=True, batch_deals=1)
    assert (result.counts.replaced, result.counts.loaded) == (1, 32)
    ingest([alone], expected, RuleChoice(), batch_deals=1)
    assert sql(db, "SELECT count(*) FROM deals WHERE session_id = ?", sid) == [(16,)]
    per_deal = ("deals", "seats", "tricks", "plays", "findings", "discrepancies", "players")
    got, want = dump(db), dump(expected)
    for table in per_deal:  # the same rows, under the replacing session's key: 2, not 1
        assert {r[-1] for r in got[table]} == {2} and {r[-1] for r in want[table]} == {1}
        assert [r[:-1] for r in got[table]] == [r[:-1] for r in want[table]], table
    assert sql(db, "SELECT line, session_key FROM sessions") == [(2, 2)]


def test_jobs_2_loads_the_same_database_as_jobs_1(simulated: Path, tmp_path: Path) -> None:
    one, two = tmp_path / "one.duckdb", tmp_path / "two.duckdb"
    judged = ("--decisions", "--samples", "2")  # the decisions tables too
    a = run("ingest", simulated, SAMPLES, "--db", one, "--jobs", "1", *judged)
    b = run("ingest", simulated, SAMPLES, "--db", two, "--jobs", "2", *judged)
    assert a.returncode == b.returncode == 2, a.stderr + b.stderr  # an unreadable document
    assert counts(a) == counts(b)
    first, second = dump(one), dump(two)
    assert all(first[t] for t in first), "every table has rows"
    assert first == second


def test_workers_started_before_the_database_learn_what_it_holds(
    simulated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ingest's workers are forked before the database is opened, and are sent the loaded
    sessions once it is read: a second run audits none of them again.  (A forked worker
    inherits this process's modules, so the audit forbidden here is forbidden there.)"""
    logs = [simulated / "c.json", simulated / "d.ndjson"]  # every document readable
    db = tmp_path / "loo.duckdb"
    first = ingest(logs, db, RuleChoice(), piece_bytes=30_000, jobs=2)
    assert first.counts.loaded > 0

    def audit_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("a loaded session was audited again")

    monkeypatch.setattr(load_work, "audit_document", audit_again)
    again = ingest(logs, db, RuleChoice(), piece_bytes=30_000, jobs=2)
    assert again.counts.skipped == first.counts.deals
    assert again.counts.loaded == 0


_NO_DUCKDB_IN_WORKERS = """
import sys
from pathlib import Path

from loo_replay.run import load_work
from loo_replay.db.ingest import ingest
from loo_replay.rulesets import RuleChoice

assert "duckdb" not in sys.modules, "importing ingest imported DuckDB"
audit_document = load_work.audit_document


def audited_without_duckdb(*args, **kwargs):
    assert "duckdb" not in sys.modules, "a worker holds DuckDB"
    return audit_document(*args, **kwargs)


load_work.audit_document = audited_without_duckdb
result = ingest([Path(sys.argv[1])], Path(sys.argv[2]), RuleChoice(), piece_bytes=1, jobs=2)
assert "duckdb" in sys.modules
print(result.counts.loaded)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux")
def test_ingest_forks_its_workers_before_it_imports_duckdb(tmp_path: Path) -> None:
    """DuckDB's import then overlaps the workers' first pieces, and no worker holds it: a
    fresh interpreter (this one has DuckDB) checks in every audit a worker makes."""
    log = SAMPLES / "hoyle-evening.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", _NO_DUCKDB_IN_WORKERS, str(log), str(tmp_path / "loo.duckdb")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == sql(tmp_path / "loo.duckdb", "SELECT count(*) FROM deals")[0][0] > 0


def test_a_big_file_cut_into_pieces_loads_as_one(simulated: Path, tmp_path: Path) -> None:
    log = tmp_path / "big.jsonl"
    log.write_bytes(
        (simulated / "a.jsonl").read_bytes() + b"\n\n" + (simulated / "d.ndjson").read_bytes()
    )
    whole, cut, cut2 = tmp_path / "whole.duckdb", tmp_path / "cut.duckdb", tmp_path / "cut2.duckdb"
    ingest([log], whole, RuleChoice())
    result = ingest([log], cut, RuleChoice(), piece_bytes=30_000, batch_deals=7)
    ingest([log], cut2, RuleChoice(), piece_bytes=30_000, jobs=2)
    assert result.counts.deals == 7 * 25 and result.counts.documents == 1
    assert dump(whole) == dump(cut) == dump(cut2)
    lines = log.read_bytes().split(b"\n")
    for sid, line in sql(whole, "SELECT session_id, line FROM sessions"):
        assert json.loads(lines[line - 1])["session"]["id"] == sid


def test_an_unreadable_file_exits_2_and_keeps_what_was_read(tmp_path: Path) -> None:
    data = gzip.decompress((SAMPLES / "modern-online.jsonl.gz").read_bytes())
    packed = gzip.compress(data)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    db = tmp_path / "loo.duckdb"
    result = run("ingest", cut, "--db", db)
    assert result.returncode == 2
    assert "cannot read" in result.stderr
    first = json.loads(data.split(b"\n")[0])["session"]["id"]
    assert sql(db, "SELECT count(*) FROM sessions WHERE session_id = ?", first) == [(1,)]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_database_held_by_another_process_is_one_clear_sentence(
    tmp_path: Path, jobs: str
) -> None:
    """With two jobs the workers are started before the database is opened; they are
    stopped, and the command ends as with one (``run`` would time out on a hang)."""
    db = tmp_path / "loo.duckdb"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys; c = duckdb.connect(sys.argv[1]); print('ready', flush=True); "
            "sys.stdin.read()",
            str(db),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        result = run("ingest", SAMPLES, "--db", db, "--jobs", jobs, timeout=120)
        assert result.returncode == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1
        assert f"{db} is in use by another process (PID {holder.pid})" in lines[0]
        assert "try again" in lines[0]
    finally:
        holder.communicate("", timeout=30)


@pytest.mark.parametrize("case", ["new file, folder cannot be made", "--replace, not DuckDB"])
def test_workers_told_at_once_that_nothing_is_loaded_stop_when_the_database_fails(
    tmp_path: Path, case: str
) -> None:
    """With no database to read (a new file, or ``--replace``, which skips nothing), the
    workers start auditing without waiting for it; when it then cannot be opened, they are
    stopped and the command ends in one sentence, as when they waited."""
    blocker = tmp_path / "a-file"
    blocker.write_text("{}")
    if case.startswith("new"):
        db, extra, said = blocker / "loo.duckdb", [], "cannot create the folder"
    else:
        db, extra, said = blocker, ["--replace"], "not a valid DuckDB database file"
    result = run("ingest", SAMPLES, "--db", db, "--jobs", "2", *extra, timeout=120)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], result.stderr


def test_a_lone_surrogate_is_a_log_error_and_huge_numbers_do_not_stop_a_load(
    tmp_path: Path,
) -> None:
    """JSON escapes can spell lone surrogates, which are no text: the document is a log
    error, kept in ``rejects`` with its bytes, and the session beside it loads, its deal
    with a number too big for 64 bits rejected with its JSON as it was."""
    doc = json.loads((SAMPLES / "wrong-payouts.json").read_text())
    doc["deals"][2]["recorded"]["pool_next"] = 10**30
    odd = json.loads((SAMPLES / "wrong-payouts.json").read_text())
    odd["session"]["id"] = "odd-\udc00-id"
    odd["session"]["venue"] = "caf\ud800"
    log = tmp_path / "odd.jsonl"
    log.write_text(json.dumps(doc) + "\n" + json.dumps(odd) + "\n")
    db = tmp_path / "loo.duckdb"
    result = run("ingest", log, "--db", db)
    assert result.returncode == 2, result.stderr
    assert counts(result)["rejected"] == 1
    assert sql(db, "SELECT session_id FROM sessions") == [(doc["session"]["id"],)]
    ((raw,),) = sql(db, "SELECT raw FROM rejects WHERE kind = 'deal'")
    assert json.loads(raw) == doc["deals"][2]
    ((message, raw),) = sql(db, "SELECT message, raw FROM rejects WHERE kind = 'document'")
    assert message.startswith("a lone surrogate (\\ud800) in the string")
    assert raw == json.dumps(odd).encode()
    again = run("ingest", log, "--db", db)
    assert counts(again)["skipped"] == 16


def test_rows_inserted_while_waiting_load_as_a_commit_would_and_a_failure_waits(
    tmp_path: Path,
) -> None:
    """``Loader.insert_waiting``, which ingest calls while its workers finish the last
    pieces, inserts what a commit would have; DuckDB's failure there is raised by the
    loader's next call, where ingest handles failures, and a rollback forgets it."""
    import duckdb

    from loo_replay.db.opening import open_db
    from loo_replay.logs.pieces import plan_pieces

    piece = plan_pieces([SAMPLES / "hoyle-evening.jsonl"])[0]
    batches = list(load_work.Auditor(RuleChoice(), {}).batches((piece,)))

    def loader_of(db: Path) -> load.Loader:
        loader = load.Loader(open_db(db))
        loader.begin()
        for batch in batches:
            loader.load(batch)
        assert loader.waiting  # fewer deals than an insert takes
        return loader

    plain = loader_of(tmp_path / "plain.duckdb")
    plain.commit()
    plain.con.close()
    early = loader_of(tmp_path / "early.duckdb")
    early.insert_waiting()
    assert not early.waiting and early.failed is None
    early.commit()
    early.con.close()
    assert dump(tmp_path / "plain.duckdb") == dump(tmp_path / "early.duckdb")

    failing = loader_of(tmp_path / "failing.duckdb")
    failing.con.execute("DROP TABLE tricks")  # in the transaction: the insert fails
    failing.insert_waiting()  # says nothing yet
    with pytest.raises(duckdb.Error, match="tricks"):
        failing.commit()
    failing.rollback()
    assert failing.failed is None
    failing.begin()
    for batch in batches:
        failing.load(batch)
    failing.commit()
    failing.con.close()
    assert dump(tmp_path / "failing.duckdb") == dump(tmp_path / "plain.duckdb")


def test_a_new_database_is_checked_without_duckdb_and_a_bad_file_still_refused(
    tmp_path: Path,
) -> None:
    """No file at --db: nothing to look at, so ingest forks its workers before it imports
    DuckDB (docs/performance.md, "What limits ingest"); a file there is looked at first."""
    bad = tmp_path / "bad.duckdb"
    bad.write_bytes(b"not a database at all, whatever its name says" * 200)
    script = (
        "import sys; from pathlib import Path\n"
        "from loo_replay.cli.database import check_database\n"
        "from loo_replay.db.errors import DatabaseError\n"
        f"check_database(Path({str(tmp_path / 'new' / 'loo.duckdb')!r}))\n"
        "print('duckdb' in sys.modules)\n"
        "try:\n"
        f"    check_database(Path({str(bad)!r}))\n"
        "except DatabaseError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    imported, refused = done.stdout.splitlines()
    assert imported == "False"
    assert refused == f"cannot open {bad}: it is not a valid DuckDB database file"
    assert (tmp_path / "new").is_dir() and not (tmp_path / "new" / "loo.duckdb").exists()
