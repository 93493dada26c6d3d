"""Attacks on the readers, each built at a small scale and run through the real command in a
subprocess: a gzip of spaces, a line longer than the limit, a deal of thousands of events,
a string of megabytes, a number past a double, nesting past the depth, a three-card deal
seating a thousand players, a ruleset that is a device.  Each asserts the message (the
limit and the option that raises it), where the document lands (the JSON audit's
``errors``, the database's ``rejects``), that the good sessions beside it are still
audited, and the peak memory of the command (docs/limits.md, "Limits on what is read")."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest
from db_helpers import SAMPLES, sql
from peak_helpers import PEAK_MB, measured


def session(sid: str) -> dict[str, Any]:
    """A real session (16 deals, with findings) under the id ``sid``."""
    doc: dict[str, Any] = json.loads((SAMPLES / "wrong-payouts.json").read_bytes())
    doc["session"]["id"] = sid
    return doc


def line(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc).encode() + b"\n"


def validate(*args: str | Path) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    """The JSON audit of ``validate ARGS``, within the memory ceiling."""
    result, peak = measured("validate", "--format", "json", *args)
    assert peak < PEAK_MB, f"{peak} MB"
    return json.loads(result.stdout), result


def sessions(audit: dict[str, Any]) -> dict[str, int]:
    """Each session's id and its deals audited (none rejected in a good session)."""
    return {s["id"]: sum(d["status"] != "rejected" for d in s["deals"]) for s in audit["sessions"]}


def test_a_gzip_of_spaces_is_read_no_further_than_its_ratio(tmp_path: Path) -> None:
    """32 MB of spaces in 32 KB of gzip, beside a good log: the bomb is one rejected
    document naming the ratio and its option, the good log is audited, and the command
    neither holds nor decompresses the whole bomb."""
    bomb = tmp_path / "bomb.jsonl.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as out:
        for _ in range(32):
            out.write(b" " * (1 << 20))
    (tmp_path / "good.jsonl").write_bytes(line(session("good")))
    audit, result = validate(tmp_path)
    assert result.returncode == 2, result.stderr
    (error,) = audit["errors"]
    assert error["file"].endswith("bomb.jsonl.gz")
    assert "gzip ratio limit of 200" in error["message"]
    assert "--max-gzip-ratio" in error["message"]
    assert sessions(audit) == {"good": 16}


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("name", ["long.jsonl", "long.jsonl.gz"])
def test_a_line_past_the_limit_is_skipped_and_the_next_line_read(
    tmp_path: Path, name: str, jobs: str
) -> None:
    """A 3 MB line between two sessions, with the limit at 1 MB: that line is rejected with
    its number, the limit and the option, and both sessions around it are audited; with
    two jobs a plain file is read by the workers, piece by piece."""
    long = line({"format": "loo-hand-log", "meta": {"x": os.urandom(1_500_000).hex()}})
    data = line(session("before")) + long + line(session("after"))
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    audit, result = validate(path, "--max-document-bytes", "1000000", "--jobs", jobs)
    assert result.returncode == 2, result.stderr
    assert "loo-replay: 1 document(s) could not be read or parsed" in result.stderr
    (error,) = audit["errors"]
    assert error["line"] == 2
    assert f"a line of {len(long) - 1:,} bytes" in error["message"]
    assert (
        "document bytes limit of 1,000,000 (raise it with --max-document-bytes)"
        in (error["message"])
    )
    assert sessions(audit) == {"before": 16, "after": 16}
    raised, result = validate(path, "--max-document-bytes", "4000000", "--jobs", jobs)
    assert [e["line"] for e in raised["errors"]] == [2]  # read now, and not a session
    assert "document bytes" not in raised["errors"][0]["message"]


def test_a_file_past_the_limit_is_one_rejected_document(tmp_path: Path) -> None:
    (tmp_path / "big.json").write_bytes(json.dumps(session("big")).encode())
    (tmp_path / "good.json").write_bytes(json.dumps(session("good")).encode())
    audit, _ = validate(tmp_path, "--max-document-bytes", "2000")
    assert [e["file"].rsplit("/", 1)[-1] for e in audit["errors"]] == ["big.json", "good.json"]
    assert "a file of more than 2,000 bytes" in audit["errors"][0]["message"]
    audit, _ = validate(tmp_path)
    assert sessions(audit) == {"big": 16, "good": 16}


def test_a_deal_of_thousands_of_events_is_rejected_before_it_is_replayed(
    tmp_path: Path,
) -> None:
    """Five thousand shown flushes in one deal: that deal is rejected at its events, with
    the limit and the option, before any is replayed; the other deals and the other
    session are audited.  Loaded, the rejected deal is in ``rejects``."""
    doc = session("flushes")
    deal = doc["deals"][0]
    deal["events"] = [{"type": "show_flush", "player": deal["dealer"]}] * 5000
    path = tmp_path / "flushes.jsonl.gz"
    path.write_bytes(gzip.compress(line(doc) + line(session("good"))))
    audit, _ = validate(path)
    first = audit["sessions"][0]["deals"][0]
    assert first["status"] == "rejected"
    (error,) = first["errors"]
    assert error["path"] == "/deals/0/events"
    assert "5,000 events in one deal" in error["message"]
    assert "deal events limit of 1,000 (raise it with --max-deal-events)" in error["message"]
    assert sessions(audit) == {"flushes": 15, "good": 16}

    db = tmp_path / "loo.duckdb"
    loaded, peak = measured("ingest", path, "--db", db, "--no-analysis")
    assert peak < PEAK_MB, f"{peak} MB"
    assert loaded.returncode == 0, loaded.stderr
    ((kind, where, message),) = sql(db, "SELECT kind, path, message FROM rejects")
    assert (kind, where) == ("deal", "/deals/0/events")
    assert "--max-deal-events" in message
    assert sql(db, "SELECT count(*) FROM deals") == [(31,)]


def test_a_string_of_megabytes_is_rejected_before_the_database(tmp_path: Path) -> None:
    """A 2 MB string in a session's meta: the document is rejected, in the audit's errors
    and in ``rejects``, naming the string limit and its option; the next line loads."""
    doc = session("long-string")
    doc["session"]["meta"] = {"note": "x" * (2 << 20)}
    path = tmp_path / "strings.jsonl"
    path.write_bytes(line(doc) + line(session("good")))
    audit, _ = validate(path)
    (error,) = audit["errors"]
    assert "a string of 2,097,152 characters" in error["message"]
    assert "(raise it with --max-string-length)" in error["message"]
    assert sessions(audit) == {"good": 16}

    db = tmp_path / "loo.duckdb"
    loaded, peak = measured("ingest", path, "--db", db, "--no-analysis")
    assert peak < PEAK_MB, f"{peak} MB"
    assert loaded.returncode == 2, loaded.stderr
    ((kind, line_number, message),) = sql(db, "SELECT kind, line, message FROM rejects")
    assert (kind, line_number) == ("document", 1)
    assert "--max-string-length" in message
    assert sql(db, "SELECT DISTINCT session_id FROM deals") == [("good",)]


@pytest.mark.parametrize(
    ("number", "said"),
    [
        ("1e400", "the number 1e400 is too large to be read"),
        ("-1E+999", "the number -1E+999 is too large to be read"),
        ("9" * 150, "a number of 150 characters: over the number length limit of 100"),
    ],
)
def test_a_number_past_a_double_or_the_length_is_rejected(
    tmp_path: Path, number: str, said: str
) -> None:
    good = json.dumps(session("good"))
    bad = good.replace('"id": "good"', f'"id": "big-number", "meta": {{"n": {number}}}', 1)
    (tmp_path / "numbers.jsonl").write_text(f"{bad}\n{good}\n")
    audit, _ = validate(tmp_path / "numbers.jsonl")
    (error,) = audit["errors"]
    assert said in error["message"]
    assert sessions(audit) == {"good": 16}


def test_nesting_past_the_depth_is_rejected_and_the_option_raises_it(tmp_path: Path) -> None:
    doc = session("deep")
    nested: Any = 1
    for _ in range(150):
        nested = {"a": nested}
    doc["session"]["meta"] = nested
    path = tmp_path / "deep.json"
    path.write_bytes(json.dumps(doc).encode())
    audit, _ = validate(path)
    (error,) = audit["errors"]
    assert (
        "nested 101 deep: over the depth limit of 100 (raise it with --max-depth)"
        in (error["message"])
    )
    audit, _ = validate(path, "--max-depth", "200")
    assert audit["errors"] == [] and sessions(audit) == {"deep": 16}


def test_a_deal_seating_more_than_the_pack_deals_to_is_rejected(tmp_path: Path) -> None:
    """A three-card session of a thousand players, hands left out: no pack of 52 deals to
    them, so the deal is rejected, not audited clean; seventeen players with hands of
    three and the miss (54 cards) neither, sixteen (51) are dealt."""
    players = [f"p{i}" for i in range(1000)]
    doc = {
        "format": "loo-hand-log",
        "version": 1,
        "session": {
            "id": "crowd",
            "ruleset": "three-card",
            "players": [{"id": p} for p in players],
        },
        "deals": [
            {"deal": 1, "dealer": "p0"},
            {"deal": 2, "dealer": "p0", "players": players[:17]},
            {"deal": 3, "dealer": "p0", "players": players[:16]},
        ],
    }
    path = tmp_path / "crowd.jsonl"
    path.write_bytes(line(doc) + line(session("good")))
    audit, _ = validate(path)
    crowd = audit["sessions"][0]["deals"]
    assert [d["status"] for d in crowd[:2]] == ["rejected", "rejected"]
    assert crowd[2]["status"] != "rejected"
    assert crowd[0]["errors"] == [
        {
            "path": "/session/players",
            "message": "1000 players seated: one pack of 52 cards deals hands of 3 to 17 at most",
        }
    ]
    assert crowd[1]["errors"] == [
        {
            "path": "/deals/1/players",
            "message": "17 players seated: one pack of 52 cards deals hands of 3 and the miss "
            "to 16 at most",
        }
    ]
    assert sessions(audit)["good"] == 16


def test_a_session_of_many_players_costs_each_deal_nothing_more(tmp_path: Path) -> None:
    """A header of 100,000 players and 20,000 deals that seat them all: each deal is
    rejected before a seat is built for any of them, so the time is the bytes' (a deal
    that built its seats would take minutes)."""
    doc = {
        "format": "loo-hand-log",
        "version": 1,
        "session": {"id": "many", "players": [{"id": f"p{i}"} for i in range(100_000)]},
        "deals": [{"deal": n, "dealer": "p0"} for n in range(1, 20_001)],
    }
    path = tmp_path / "many.json"
    path.write_bytes(json.dumps(doc).encode())
    started = time.monotonic()
    audit, _ = validate(path, "--findings-only")
    assert time.monotonic() - started < 60
    assert audit["summary"]["rejected"] == 20_000


@pytest.mark.parametrize("ruleset", ["/dev/zero", "big.toml"])
def test_a_ruleset_file_is_a_regular_file_of_a_page(tmp_path: Path, ruleset: str) -> None:
    (tmp_path / "big.toml").write_text("# a comment\n" * 100_000)
    result, peak = measured(
        "validate", SAMPLES / "wrong-payouts.json", "--ruleset", ruleset, cwd=tmp_path
    )
    assert result.returncode == 2 and peak < PEAK_MB
    said = "is not a regular file" if ruleset == "/dev/zero" else "larger than 1,048,576 bytes"
    assert said in result.stderr


def test_report_reads_the_logs_again_within_its_limits(tmp_path: Path) -> None:
    """``report`` reads each document again for its replay pages (the database's copy, or
    the log of an older database), within the same limits as the audit and with the same
    options: past one, the session has no pages and the note says which limit and which
    option."""
    log = tmp_path / "game.json"
    log.write_bytes(json.dumps(session("game")).encode())
    db = tmp_path / "loo.duckdb"
    loaded, _ = measured("ingest", log, "--db", db, "--no-analysis")
    assert loaded.returncode == 0, loaded.stderr
    written, peak = measured(
        "report", "--db", db, "--out", tmp_path / "small", "--max-document-bytes", "2000"
    )
    assert peak < PEAK_MB, f"{peak} MB"
    assert "its stored document cannot be read again (a document of " in written.stderr
    assert "more than 2,000: over the document bytes limit" in written.stderr
    assert "--max-document-bytes" in written.stderr
    assert "0 replay page(s)" in written.stdout
    written, _ = measured("report", "--db", db, "--out", tmp_path / "whole")
    assert written.returncode == 0 and "16 replay page(s)" in written.stdout, written.stderr
    con = duckdb.connect(str(db))  # as loaded before documents were kept: the log is read
    con.execute("DELETE FROM documents")
    con.close()
    written, _ = measured(
        "report", "--db", db, "--out", tmp_path / "old", "--max-document-bytes", "2000"
    )
    assert "its log cannot be read again (a file of more than 2,000 bytes" in written.stderr
    assert "0 replay page(s)" in written.stdout


@pytest.mark.parametrize(
    "command",
    [
        ("validate",),
        ("analyse",),
        ("fairness",),
        ("replay", "--deal", "1"),
        ("ingest", "--db", "loo.duckdb"),
        ("audit", "--db", "loo.duckdb", "--out", "reports"),
    ],
    ids=lambda command: command[0],
)
def test_every_command_that_reads_logs_takes_the_limits(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """The options are the same on every command that reads logs: the log past the limit
    is not audited (exit status 2), and ``replay`` says why in its one line."""
    name, *rest = command
    result, peak = measured(
        name, SAMPLES / "wrong-payouts.json", *rest, "--max-document-bytes", "2000", cwd=tmp_path
    )
    assert result.returncode == 2 and peak < PEAK_MB, result.stdout + result.stderr
    if name == "replay":
        assert "over the document bytes limit of 2,000 (raise it with --max-document-bytes)" in (
            result.stderr
        )


def test_the_limits_reach_the_workers_of_ingest(tmp_path: Path) -> None:
    """With ``--jobs 2`` each file is audited in a worker process: the limit given on the
    command line is the workers' too (a 5,000-character string is far under the default)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    doc = session("noted")
    doc["session"]["meta"] = {"note": "x" * 5000}
    (logs / "a.jsonl").write_bytes(line(doc) + line(session("good")))
    (logs / "b.jsonl").write_bytes(line(session("more")))
    db = tmp_path / "loo.duckdb"
    args = ("ingest", logs, "--db", db, "--no-analysis", "--jobs", "2")
    loaded, peak = measured(*args, "--max-string-length", "4000")
    assert loaded.returncode == 2 and peak < PEAK_MB, loaded.stderr
    ((kind, message),) = sql(db, "SELECT kind, message FROM rejects")
    assert kind == "document" and "a string of 5,000 characters" in message
    assert sql(db, "SELECT DISTINCT session_id FROM deals ORDER BY 1") == [("good",), ("more",)]
