"""Many small files share a transaction and are audited together (docs/database.md,
"ingest"): 300 files of one deal each, through the real command, load exactly what the same
sessions in one file load, each file said as its transaction commits, within the memory of
the hostile tests; a second run skips them all.  Read together, each file is still counted
on its own, and a bad one costs itself alone."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import orjson
import pytest
from db_helpers import counts, dump, hand_worked_doc, run, sql
from peak_helpers import PEAK_MB, measured

from loo_replay.db.ingest import GROUP_FILES, ingest
from loo_replay.db.load import Counts
from loo_replay.db.tables import PER_DEAL_TABLES
from loo_replay.logs.paths import expand
from loo_replay.logs.pieces import PIECE_BYTES, plan_pieces, share
from loo_replay.rulesets import RuleChoice
from loo_replay.run.load_work import Auditor

FILES = 300


def test_small_files_load_as_the_same_sessions_in_one_file(tmp_path: Path) -> None:
    assert GROUP_FILES < FILES  # two transactions: one full, one closed by the input's end
    whole = tmp_path / "all.jsonl"
    made = run("simulate", "--sessions", FILES, "--deals", "1", "--seed", "5", "--out", whole)
    assert made.returncode == 0, made.stderr
    folder = tmp_path / "many"
    folder.mkdir()
    for k, line in enumerate(whole.read_text().splitlines(keepends=True)):
        (folder / f"s{k:03d}.jsonl").write_text(line)
    one = run("ingest", whole, "--db", tmp_path / "one.duckdb", "--no-analysis")
    assert one.returncode == 0, one.stderr
    many, peak = measured(
        "ingest", folder, "--db", tmp_path / "many.duckdb", "--no-analysis", "--verbose"
    )
    assert many.returncode == 0, many.stderr
    assert peak < PEAK_MB, f"{peak} MB"
    assert counts(many)["loaded"] == counts(one)["loaded"] == FILES
    said = [line for line in many.stderr.splitlines() if line.startswith("loaded ")]
    assert len(said) == FILES and all(": 1 deal(s), 0 rejected" in line for line in said)
    assert "s000.jsonl:" in said[0] and "s299.jsonl:" in said[-1]
    single, split = dump(tmp_path / "one.duckdb"), dump(tmp_path / "many.duckdb")
    for table in PER_DEAL_TABLES:
        assert single[table] == split[table], table
    again = run("ingest", folder, "--db", tmp_path / "many.duckdb", "--no-analysis")
    assert counts(again)["skipped"] == FILES


def _mixed(tmp_path: Path) -> Path:
    """Small files of every kind in one folder: five sessions of one deal (the last file
    holds two), a gzip file cut off in its first line, a line that is not JSON, the first
    session again, and the first session's id with other content."""
    whole = tmp_path / "all.jsonl"
    made = run("simulate", "--sessions", 5, "--deals", "1", "--seed", "7", "--out", whole)
    assert made.returncode == 0, made.stderr
    lines = whole.read_bytes().splitlines(keepends=True)
    folder = tmp_path / "mixed"
    folder.mkdir()
    for k in range(3):
        (folder / f"a{k}.jsonl").write_bytes(lines[k])
    (folder / "a3-two.jsonl").write_bytes(lines[3] + lines[4])
    packed = gzip.compress(lines[0])
    (folder / "b-cut.jsonl.gz").write_bytes(packed[: len(packed) // 2])
    (folder / "c-junk.jsonl").write_bytes(b"not json\n")
    (folder / "d-again.jsonl").write_bytes(lines[0])
    other = json.loads(lines[0])
    other["session"]["meta"] = {"note": "the same id, other content"}
    (folder / "e-other.jsonl").write_bytes(orjson.dumps(other) + b"\n")
    return folder


def test_small_files_read_together_are_each_counted_and_a_bad_one_costs_itself(
    tmp_path: Path,
) -> None:
    folder = _mixed(tmp_path)
    files = expand([folder]).files
    assert len(share(plan_pieces(files), PIECE_BYTES, GROUP_FILES)) == 1  # audited as one
    db = tmp_path / "loo.duckdb"
    result = run("ingest", folder, "--db", db, "--no-analysis", "--verbose")
    assert result.returncode == 2, result.stderr
    said = {
        Path(line.split(": ")[0].removeprefix("loaded ")).name: line.split(": ", 1)[1]
        for line in result.stderr.splitlines()
        if line.startswith("loaded ")
    }
    none = "0 deal(s), 0 rejected, 0 skipped, 0 in conflict"
    assert said == {
        "a0.jsonl": "1 deal(s), 0 rejected, 0 skipped, 0 in conflict",
        "a1.jsonl": "1 deal(s), 0 rejected, 0 skipped, 0 in conflict",
        "a2.jsonl": "1 deal(s), 0 rejected, 0 skipped, 0 in conflict",
        "a3-two.jsonl": "2 deal(s), 0 rejected, 0 skipped, 0 in conflict",
        "b-cut.jsonl.gz": none,
        "c-junk.jsonl": none,
        "d-again.jsonl": "0 deal(s), 0 rejected, 1 skipped, 0 in conflict",
        "e-other.jsonl": "0 deal(s), 0 rejected, 0 skipped, 1 in conflict",
    }
    errors = [line for line in result.stderr.splitlines() if line.startswith("loo-replay: ")]
    assert any("b-cut.jsonl.gz" in line and "cannot read" in line for line in errors), errors
    assert any("e-other.jsonl" in line and "conflicts" in line for line in errors), errors
    c = counts(result)
    assert (c["files"], c["sessions"], c["loaded"], c["skipped"], c["conflicts"]) == (
        8,
        7,
        5,
        1,
        1,
    )
    assert sql(db, "SELECT count(*) FROM sessions") == [(5,)]
    ((file,),) = sql(db, "SELECT file FROM rejects WHERE kind = 'document'")
    assert Path(file).name == "c-junk.jsonl"
    again = run("ingest", folder, "--db", db, "--no-analysis")
    assert counts(again)["skipped"] == 6 and counts(again)["conflicts"] == 1


def test_a_share_of_small_files_is_one_batch_of_frames(tmp_path: Path) -> None:
    """What makes many small files cheap: the files of a share are audited into one batch
    (one set of Arrow tables), its items in input order, each named by its file."""
    folder = _mixed(tmp_path)
    (whole,) = share(plan_pieces(expand([folder]).files), PIECE_BYTES, GROUP_FILES)
    (batch,) = Auditor(RuleChoice(), {}).batches(whole)
    named = [Path(getattr(i, "file", "")).name for i in batch.items]
    assert named == [
        "a0.jsonl",
        "a1.jsonl",
        "a2.jsonl",
        "a3-two.jsonl",
        "a3-two.jsonl",
        "",  # b-cut.jsonl.gz broke off: a file's error, before any document
        "c-junk.jsonl",
        "d-again.jsonl",
        "e-other.jsonl",
    ]
    assert batch.tables["deals"].num_rows == 7


def test_a_session_duckdb_cannot_store_costs_its_file_not_the_others_of_its_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three small files audited as one share, the second holding a session DuckDB cannot
    store (more text than its memory, bounded small): the share's transaction is rolled
    back, its files loaded again a document at a time, and only that session is lost, kept
    in rejects; each file is said with its own counts."""
    monkeypatch.setenv("LOO_REPLAY_DB_MEMORY", "16MB")
    folder = tmp_path / "logs"
    folder.mkdir()
    for sid in ("a-good", "b-too-big", "c-good"):
        doc = hand_worked_doc(sid)
        if sid == "b-too-big":
            doc["session"]["meta"] = {f"note{k}": "x" * 900_000 for k in range(12)}
        (folder / f"{sid}.jsonl").write_bytes(orjson.dumps(doc) + b"\n")
    pieces = plan_pieces(expand([folder]).files)
    assert len(share(pieces, 64 << 20, GROUP_FILES)) == 1
    said: list[tuple[str, Counts]] = []
    db = tmp_path / "loo.duckdb"
    result = ingest(
        [folder],
        db,
        RuleChoice(),
        analyse=False,
        piece_bytes=64 << 20,
        file_done=lambda file, c: said.append((Path(file).name, c)),
    )
    assert [name for name, _ in said] == ["a-good.jsonl", "b-too-big.jsonl", "c-good.jsonl"]
    deals = said[0][1].loaded
    assert deals > 0 and said[2][1].loaded == deals
    assert (said[1][1].loaded, said[1][1].unloaded, said[1][1].sessions) == (0, 1, 1)
    assert (result.counts.loaded, result.counts.unloaded) == (2 * deals, 1)
    assert sql(db, "SELECT session_id FROM sessions ORDER BY 1") == [("a-good",), ("c-good",)]
    ((sid,),) = sql(db, "SELECT session_id FROM rejects WHERE kind = 'session'")
    assert sid == "b-too-big"
