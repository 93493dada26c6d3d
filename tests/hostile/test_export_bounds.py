"""``export`` with a stranger's session ids and after a kill, through the real command with
its peak memory (docs/limits.md, "What is written and removed"): an id of 28 CJK characters
or of 128 slashes is past any file system's 255 bytes once URL-escaped, so partitions are
named by a digest of the id; the working folder of an export killed with SIGKILL is removed
by the next, and nothing that does not prove itself such a folder is touched."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
from db_helpers import ROOT, SAMPLES
from peak_helpers import PEAK_MB, measured

from loo_replay.db.tables import PER_DEAL_TABLES
from loo_replay.files import STAGE_MARKER, move_tree, staging

IDS = ["漢" * 28, "/" * 128, "plain-night"]


def session(sid: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((SAMPLES / "wrong-payouts.json").read_bytes())
    doc["session"]["id"] = sid
    return doc


def test_any_valid_id_fits_the_file_system(tmp_path: Path) -> None:
    log = tmp_path / "strangers.jsonl"
    log.write_text("".join(json.dumps(session(sid)) + "\n" for sid in IDS))
    db = tmp_path / "loo.duckdb"
    loaded, _ = measured("ingest", log, "--db", db, "--no-analysis")
    assert loaded.returncode == 0, loaded.stderr
    out = tmp_path / "parquet"
    result, peak = measured("export", "--db", db, "--parquet", out)
    assert result.returncode == 0, result.stderr
    assert peak < PEAK_MB, f"{peak} MB"
    for table in PER_DEAL_TABLES:
        if table.startswith(("analysis", "decision")):
            continue  # loaded with --no-analysis: empty
        names = {p.name for p in (out / table).iterdir()}
        digests = {hashlib.sha256(sid.encode()).hexdigest()[:16] for sid in IDS}
        assert names == {f"session={d}" for d in digests}, table
    deals = pl.read_parquet(out / "deals" / "**" / "*.parquet", hive_partitioning=True)
    assert sorted(set(deals["session_id"])) == sorted(IDS)
    assert deals.filter(pl.col("session_id") == IDS[0]).height == 16


# A writer of loo-replay's in a working folder of its own, killed with SIGKILL: it runs no
# ``finally`` (what a kill -9 during ``export`` leaves).
KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from loo_replay.files import staging
with staging(Path(sys.argv[1])) as stage:
    (stage / "deals").mkdir()
    (stage / "deals" / "data_0.parquet").write_bytes(b"PAR1" * 1000)
    print(stage.name, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_an_export_removes_the_working_folder_of_a_killed_one_and_nothing_else(
    tmp_path: Path,
) -> None:
    db = tmp_path / "loo.duckdb"
    loaded, _ = measured("ingest", SAMPLES / "wrong-payouts.json", "--db", db, "--no-analysis")
    assert loaded.returncode == 0, loaded.stderr
    out = tmp_path / "parquet"
    out.mkdir()
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_WRITER, str(out)], capture_output=True, text=True, cwd=ROOT
    )
    assert killed.returncode == -signal.SIGKILL
    stale = out / killed.stdout.strip()
    assert (stale / "deals" / "data_0.parquet").exists()
    # Not proven stale, so kept: no marker; a marker of a living process (this one); a
    # marker of another machine; a link to a stale folder.
    unmarked = out / ".loo-unmarked"
    unmarked.mkdir()
    alive = out / ".loo-alive"
    alive.mkdir()
    marker = json.loads((stale / STAGE_MARKER).read_bytes())
    (alive / STAGE_MARKER).write_text(json.dumps(marker | {"pid": os.getpid(), "started": None}))
    elsewhere = out / ".loo-elsewhere"
    elsewhere.mkdir()
    (elsewhere / STAGE_MARKER).write_text(json.dumps(marker | {"host": "another-machine"}))
    (out / ".loo-link").symlink_to(stale)
    result, peak = measured("export", "--db", db, "--parquet", out)
    assert result.returncode == 0, result.stderr
    assert peak < PEAK_MB, f"{peak} MB"
    assert not stale.exists()
    assert unmarked.is_dir() and alive.is_dir() and elsewhere.is_dir()
    assert (out / ".loo-link").is_symlink()
    assert not (out / STAGE_MARKER).exists()
    left = sorted(p.name for p in out.iterdir() if p.name.startswith(".loo-"))
    assert left == [
        ".loo-alive",
        ".loo-elsewhere",
        ".loo-link",
        ".loo-replay-manifest.json",
        ".loo-unmarked",
    ]


def test_the_working_folder_of_ten_thousand_partitions_is_emptied_as_it_is_moved(
    tmp_path: Path,
) -> None:
    """An export of a million deals makes 80,000 session folders in its working folder
    (benchmarks/results/million.md): each is removed as its files are moved, so that the
    working folder holds its marker alone, and nothing is left once the export ends, not a
    walk over every empty folder at its end."""
    out = tmp_path / "parquet"
    out.mkdir()
    tables, sessions = ("deals", "seats"), 5_000
    with staging(out) as stage:
        for table in tables:
            for n in range(sessions):
                folder = stage / table / f"session={n:016x}"
                folder.mkdir(parents=True)
                (folder / "data_0.parquet").write_bytes(b"PAR1" + n.to_bytes(4, "big"))
        moved = move_tree(stage, out)
        assert [p.name for p in stage.iterdir()] == [STAGE_MARKER]
    assert len(moved) == len(set(moved)) == len(tables) * sessions
    assert (out / "seats" / f"session={4_999:016x}" / "data_0.parquet").read_bytes() == (
        b"PAR1" + (4_999).to_bytes(4, "big")
    )
    assert sorted(p.name for p in out.iterdir()) == sorted(tables)
