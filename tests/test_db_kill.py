"""A process killed (SIGKILL) in the middle of ``ingest`` leaves whole files in the database:
those of the transactions committed before it, small files sharing one (docs/database.md,
"ingest"), so the database is as it was before the group in progress.  Running the same
command again converges to what one uninterrupted run loads.  Here a transaction holds
GROUP files (the real command with the group made smaller: the default of 250 files would
put every file of these logs in one)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import duckdb
import pytest
from db_helpers import ROOT, counts, dump, run

from loo_replay.db.ingest import GROUP_DEALS, ingest
from loo_replay.db.load import Loader
from loo_replay.rulesets import RuleChoice
from loo_replay.run.frames import Batch

FILES = 12
SESSIONS_PER_FILE = 4
DEALS_PER_FILE = SESSIONS_PER_FILE * 30
GROUP = 3  # files a transaction
assert FILES % GROUP == 0 and GROUP * DEALS_PER_FILE < GROUP_DEALS

# The real command line, small files committed GROUP at a time.
_CLI = f"""
from loo_replay.db.ingest import GROUP_DEALS, ingest
ingest.__kwdefaults__["group"] = (GROUP_DEALS, {GROUP})
from loo_replay.__main__ import main
main()
"""


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Many files of simulated sessions: enough work that a kill lands mid-ingest."""
    tmp = tmp_path_factory.mktemp("kill")
    made = run(
        "simulate",
        "--ruleset",
        "three-card",
        "--players",
        "5",
        "--deals",
        "30",
        "--sessions",
        str(FILES * SESSIONS_PER_FILE),
        "--violations",
        "0.2",
        "--out",
        tmp / "all.jsonl",
    )
    assert made.returncode == 0, made.stderr
    lines = (tmp / "all.jsonl").read_bytes().splitlines(keepends=True)
    logs = tmp / "logs"
    logs.mkdir()
    paths = []
    for k in range(FILES):
        path = logs / f"part-{k:02}.jsonl"
        path.write_bytes(b"".join(lines[k * SESSIONS_PER_FILE : (k + 1) * SESSIONS_PER_FILE]))
        paths.append(path)
    return logs


def _whole_files_only(db: Path) -> int:
    """Every file in the database has all its sessions, every session all its deals, and
    the files are those of whole groups, the first in input order: none of the group in
    progress."""
    con = duckdb.connect(str(db))  # read-write, as the next ingest would: replays a WAL
    try:
        per_file = Counter(f for (f,) in con.execute("SELECT file FROM sessions").fetchall())
        incomplete = con.execute(
            "SELECT s.session_id FROM sessions s WHERE s.deals != "
            "(SELECT count(*) FROM deals d WHERE d.session_id = s.session_id) + "
            "(SELECT count(*) FROM rejects r WHERE r.session_id = s.session_id)"
        ).fetchall()
    finally:
        con.close()
    assert incomplete == []
    assert all(n == SESSIONS_PER_FILE for n in per_file.values()), per_file
    names = sorted(Path(f).name for f in per_file)
    assert names == [f"part-{k:02}.jsonl" for k in range(len(names))], names
    assert len(names) % GROUP == 0, names
    return len(names)


def _kill_after_a_group(command: list[str]) -> None:
    proc = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stderr is not None
    # a group's files are said as it commits; the next group loads
    committed = [proc.stderr.readline() for _ in range(GROUP)]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    proc.stderr.close()
    assert all(line.startswith("loaded ") for line in committed), committed
    assert proc.returncode == -signal.SIGKILL, "the ingest finished before it could be killed"


def _rerun_converges(logs: Path, killed_db: Path, clean_db: Path, at_least: int = GROUP) -> None:
    loaded = _whole_files_only(killed_db)
    assert at_least <= loaded < FILES

    rerun = run("ingest", logs, "--db", killed_db)
    assert rerun.returncode == 0, rerun.stderr
    c = counts(rerun)
    assert c["skipped"] == loaded * DEALS_PER_FILE
    assert c["loaded"] + c["rejected"] == (FILES - loaded) * DEALS_PER_FILE

    assert _whole_files_only(killed_db) == FILES
    assert dump(killed_db) == dump(clean_db)


@pytest.fixture(scope="module")
def clean_db(logs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What one uninterrupted run loads."""
    db = tmp_path_factory.mktemp("clean") / "clean.duckdb"
    result = run("ingest", logs, "--db", db)
    assert result.returncode == 0, result.stderr
    return db


def test_killed_ingest_leaves_whole_files_and_a_rerun_completes_it(
    logs: Path, clean_db: Path, tmp_path: Path
) -> None:
    killed_db = tmp_path / "killed.duckdb"
    _kill_after_a_group(
        [sys.executable, "-c", _CLI, "ingest", str(logs), "--db", str(killed_db), "-v"]
    )
    _rerun_converges(logs, killed_db, clean_db)


_SMALL_BATCHES = """
import sys
from pathlib import Path
from loo_replay.db.ingest import ingest
from loo_replay.rulesets import RuleChoice

def done(file, counts):
    print("loaded", file, file=sys.stderr, flush=True)

ingest(
    [Path(sys.argv[1])], Path(sys.argv[2]), RuleChoice(), batch_deals=5, file_done=done,
    group=(10_000, 3),
)
"""


def test_killed_between_the_inserts_of_a_group_loses_that_whole_group(
    logs: Path, clean_db: Path, tmp_path: Path
) -> None:
    """Batches of 5 deals: each group of files is many INSERTs in one transaction, so the
    kill lands after some of its rows went in, before its COMMIT."""
    killed_db = tmp_path / "killed.duckdb"
    _kill_after_a_group([sys.executable, "-c", _SMALL_BATCHES, str(logs), str(killed_db)])
    _rerun_converges(logs, killed_db, clean_db)


def test_an_error_mid_group_rolls_the_group_back(
    logs: Path, clean_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "loo.duckdb"
    real_load = Loader.load
    second = 0  # batches loaded in the second group

    def failing(self: Loader, batch: Batch) -> None:
        nonlocal second
        # in the second group (files 4 to 6), after some of its inserts: the first group
        # holds at most 360 deals, the first two more than 420 whatever is rejected
        if self.counts.deals > 3.5 * DEALS_PER_FILE:
            raise OSError("disk full")
        second += self.counts.deals > GROUP * DEALS_PER_FILE
        real_load(self, batch)

    monkeypatch.setattr(Loader, "load", failing)
    with pytest.raises(OSError, match="disk full"):
        ingest([logs], db, RuleChoice(), batch_deals=20, group=(GROUP_DEALS, GROUP))
    assert second >= 1  # the second group's rows had begun to go in
    assert _whole_files_only(db) == GROUP
    monkeypatch.undo()
    _rerun_converges(logs, db, clean_db)


def test_killed_at_random_points_many_times_stays_consistent_and_converges(
    logs: Path, clean_db: Path, tmp_path: Path
) -> None:
    """Issue 9: SIGKILL at seeded random moments, again and again on one database; after
    every kill only whole files are in it, and a last run completes it exactly."""
    import random
    import time

    rng = random.Random(2026)
    db = tmp_path / "random.duckdb"
    command = [sys.executable, "-c", _CLI, "ingest", str(logs), "--db", str(db)]
    for _ in range(10):
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.2, 2.5))
        proc.kill()
        proc.wait(timeout=60)
        if db.exists() and _has_tables(db):  # a kill before the first migration leaves none
            _whole_files_only(db)
    final = run("ingest", logs, "--db", db)
    assert final.returncode == 0, final.stderr
    assert _whole_files_only(db) == FILES
    assert dump(db) == dump(clean_db)


def _has_tables(db: Path) -> bool:
    con = duckdb.connect(str(db))  # read-write, as the next ingest would: replays a WAL
    try:
        found = con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'sessions'"
        ).fetchone()
    finally:
        con.close()
    return bool(found and found[0])
