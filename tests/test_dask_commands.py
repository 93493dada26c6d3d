"""``--scheduler`` on every command that audits many logs (issue 52): ``ingest``, ``audit``,
``report``, ``fairness``, ``bundle`` and ``verify CASE.zip`` (whose audit it re-runs) give
on a Dask cluster what they give with ``--jobs 1``, byte for byte, the judging of loaded
deals and the replay pages done on the cluster; and a scheduler nobody listens on is one
``loo-replay:`` line with ``cli/failures.py``'s exit status, before anything is made.
One real ``distributed.LocalCluster`` for the file stands in for a remote cluster, as in
test_dask.py."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dask_helpers import local_cluster
from db_helpers import ROOT, SAMPLES, dump, run

from loo_replay.cli.failures import status_of
from loo_replay.errors import SchedulerError

pytestmark = pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="no Dask")

DEAD = "tcp://127.0.0.1:9"  # nobody listens on the discard port
# The time a derived page says it was computed (docs/reports.md), which two runs differ in.
COMPUTED = re.compile(rb"<dt>Computed</dt><dd>[^<]*</dd>")
EPOCH = "1700000000"  # SOURCE_DATE_EPOCH: a bundle's bytes do not depend on the clock


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with local_cluster() as address:
        yield address


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two small logs, a JSON document and a JSON Lines file, in a folder."""
    folder = tmp_path_factory.mktemp("dask-commands") / "logs"
    folder.mkdir()
    for name in ("three-card-club-night.json", "hoyle-evening.jsonl"):
        shutil.copy(SAMPLES / name, folder / name)
    return folder


def bundled(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``loo-replay bundle ARGS`` with a fixed SOURCE_DATE_EPOCH."""
    result = subprocess.run(
        [sys.executable, "-m", "loo_replay", "bundle", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH},
        timeout=600,
    )
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    return result


@pytest.fixture(scope="module")
def case(logs: Path) -> Path:
    """A bundle of the logs with the analysis and the collusion screen, made with one job."""
    here = logs.parent / "case-jobs"
    here.mkdir()
    result = bundled(logs, "--analysis", "--jobs", "1", "--out", "case.zip", cwd=here)
    assert result.returncode == 0, result.stderr
    return here / "case.zip"


def test_ingest_on_dask_loads_and_says_what_one_job_does(
    logs: Path, cluster: str, tmp_path: Path
) -> None:
    runs = {
        how: run("ingest", logs, "--db", tmp_path / f"{how}.duckdb", *extra)
        for how, extra in (("one", ("--jobs", "1")), ("dask", ("--scheduler", cluster)))
    }
    for result in runs.values():
        assert result.returncode == 0, result.stderr
    assert runs["dask"].stdout == runs["one"].stdout
    assert runs["dask"].stderr == runs["one"].stderr
    assert dump(tmp_path / "dask.duckdb") == dump(tmp_path / "one.duckdb")
    assert "loaded" in runs["one"].stdout


def test_audit_on_dask_says_and_writes_what_one_job_does(
    logs: Path, cluster: str, tmp_path: Path
) -> None:
    """The same lines, the same database; the reports are written in both."""
    runs = {}
    for how, extra in (("one", ("--jobs", "1")), ("dask", ("--scheduler", cluster))):
        (tmp_path / how).mkdir()
        runs[how] = run("audit", logs, "--no-replays", *extra, cwd=tmp_path / how)
    assert runs["one"].returncode == 1, runs["one"].stderr  # the club night's findings
    assert runs["dask"].returncode == runs["one"].returncode
    assert runs["dask"].stdout == runs["one"].stdout
    assert dump(tmp_path / "dask" / "loo.duckdb") == dump(tmp_path / "one" / "loo.duckdb")
    assert (tmp_path / "dask" / "reports" / "index.html").is_file()


def test_fairness_of_logs_on_dask_is_the_one_of_one_job(logs: Path, cluster: str) -> None:
    runs = {
        how: run("fairness", logs, "--format", "json", *extra)
        for how, extra in (("one", ("--jobs", "1")), ("dask", ("--scheduler", cluster)))
    }
    assert runs["one"].returncode in (0, 1), runs["one"].stderr
    assert runs["dask"].returncode == runs["one"].returncode
    assert runs["dask"].stdout == runs["one"].stdout
    assert '"deals"' in runs["one"].stdout


def test_a_bundle_made_on_dask_is_the_same_bytes(
    logs: Path, case: Path, cluster: str, tmp_path: Path
) -> None:
    result = bundled(logs, "--analysis", "--scheduler", cluster, "--out", "case.zip", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "case.zip").read_bytes() == case.read_bytes()


def test_verify_re_runs_a_bundles_audit_on_dask(case: Path, cluster: str) -> None:
    runs = {
        how: run("verify", case, *extra)
        for how, extra in (("one", ("--jobs", "1")), ("dask", ("--scheduler", cluster)))
    }
    assert runs["one"].returncode == 0, runs["one"].stdout + runs["one"].stderr
    assert runs["dask"].returncode == 0, runs["dask"].stdout + runs["dask"].stderr
    assert runs["dask"].stdout == runs["one"].stdout
    assert "the audit re-run gives the same 4 output(s)" in runs["one"].stdout


def test_scheduler_is_for_a_bundles_audit_not_for_logs(logs: Path) -> None:
    result = run("verify", logs, "--scheduler", DEAD)
    assert result.returncode == 2
    assert "--scheduler re-runs a bundle's audit" in result.stderr


def ran_on(cluster: str) -> set[str]:
    """The names of the work the cluster's scheduler has run tasks of (``judge_task``,
    ``render_returned``, …): Dask names a task by its function."""
    from distributed import Client

    with Client(cluster, timeout=30) as client:
        return set(client.run_on_scheduler(_task_prefixes))


def _task_prefixes(dask_scheduler: Any) -> list[str]:
    return list(dask_scheduler.task_prefixes)


def folder(out: Path) -> dict[str, bytes]:
    """Every file of a report folder, the time each derived page was computed aside."""
    return {
        p.relative_to(out).as_posix(): COMPUTED.sub(b"", p.read_bytes())
        for p in out.rglob("*")
        if p.is_file()
    }


def test_report_on_dask_writes_the_folder_of_one_job(
    logs: Path, cluster: str, tmp_path: Path
) -> None:
    """The replay pages are rendered on the cluster and written here; every file of the
    folder is the one of ``--jobs 1`` (the database named alike in both: the pages say it)."""
    loaded = tmp_path / "loaded.duckdb"
    assert run("ingest", logs, "--db", loaded).returncode == 0
    runs, folders = {}, {}
    for how, extra in (("one", ("--jobs", "1")), ("dask", ("--scheduler", cluster))):
        (tmp_path / how).mkdir()
        shutil.copy(loaded, tmp_path / how / "loo.duckdb")
        runs[how] = run("report", *extra, cwd=tmp_path / how)
        assert runs[how].returncode == 0, runs[how].stderr
        folders[how] = folder(tmp_path / how / "reports")
    assert runs["dask"].stdout == runs["one"].stdout
    assert "replay page(s)" in runs["one"].stdout
    assert any(name.startswith("replays/") for name in folders["one"])
    assert folders["dask"] == folders["one"]
    assert "render_returned" in ran_on(cluster)


def test_loaded_deals_are_judged_on_dask_as_by_one_job(
    logs: Path, cluster: str, tmp_path: Path
) -> None:
    """Deals loaded without ``--decisions`` are judged from their stored documents by a
    later ``ingest --decisions`` (``db.judge_loaded``): on the cluster, into the same rows."""
    loaded = tmp_path / "loaded.duckdb"
    assert run("ingest", logs, "--db", loaded, "--no-analysis").returncode == 0
    runs = {}
    for how, extra in (("one", ("--jobs", "1")), ("dask", ("--scheduler", cluster))):
        db = tmp_path / f"{how}.duckdb"
        shutil.copy(loaded, db)
        args = ("--decisions", "--samples", "5", "--no-analysis", "--db", db)
        runs[how] = run("ingest", logs, *args, *extra)
        assert runs[how].returncode == 0, runs[how].stderr
    assert runs["dask"].stdout == runs["one"].stdout
    assert "loaded before" in runs["one"].stdout  # judged by the judging of loaded deals
    one, dask = dump(tmp_path / "one.duckdb"), dump(tmp_path / "dask.duckdb")
    assert one["decision_deals"] and dask == one
    assert "judge_task" in ran_on(cluster)


@pytest.mark.parametrize("command", ["ingest", "audit", "report", "fairness", "bundle", "verify"])
def test_a_dead_scheduler_is_one_line_and_the_status_of_the_table(
    command: str, logs: Path, case: Path, tmp_path: Path
) -> None:
    args: dict[str, tuple[str | Path, ...]] = {
        "ingest": (logs, "--db", tmp_path / "x.duckdb"),
        "audit": (logs, "--db", tmp_path / "x.duckdb", "--out", tmp_path / "reports"),
        "report": ("--db", tmp_path / "x.duckdb", "--out", tmp_path / "reports"),
        "fairness": (logs,),
        "bundle": (logs, "--out", tmp_path / "x.zip"),
        "verify": (case,),
    }
    result = run(command, *args[command], "--scheduler", DEAD, cwd=ROOT)
    assert result.returncode == status_of(SchedulerError) == 2
    said = [line for line in result.stderr.splitlines() if "scheduler" in line]
    assert len(said) == 1, result.stderr
    assert said[0].startswith(f"loo-replay: --scheduler {DEAD}: no Dask scheduler answers there")
    for made in ("x.zip", "x.duckdb", "x.duckdb.wal", "reports"):  # said before anything is made
        assert not (tmp_path / made).exists(), made


@pytest.mark.parametrize("command", ["ingest", "audit", "report"])
def test_a_dead_scheduler_leaves_a_database_as_it_was(
    command: str, logs: Path, tmp_path: Path
) -> None:
    db = tmp_path / "x.duckdb"
    assert run("ingest", logs, "--db", db, "--no-analysis").returncode == 0
    before = db.read_bytes()
    out = ("--out", tmp_path / "reports")
    args = {"ingest": (logs,), "audit": (logs, *out), "report": out}[command]
    result = run(command, *args, "--db", db, "--scheduler", DEAD, cwd=ROOT)
    assert result.returncode == 2, result.stderr
    assert f"--scheduler {DEAD}: no Dask scheduler answers there" in result.stderr
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.duckdb"]


@pytest.mark.parametrize("command", ["validate", "ingest", "audit", "report"])
def test_jobs_and_a_scheduler_are_refused_together(
    command: str, logs: Path, tmp_path: Path
) -> None:
    """The work runs in processes here or on a cluster: a usage error, before anything is
    made or any scheduler asked."""
    args: dict[str, tuple[str | Path, ...]] = {
        "validate": (logs,),
        "ingest": (logs, "--db", "x.duckdb"),
        "audit": (logs, "--db", "x.duckdb"),
        "report": ("--db", "x.duckdb"),
    }
    result = run(command, *args[command], "--jobs", "2", "--scheduler", DEAD, cwd=tmp_path)
    assert result.returncode == 2
    assert "--jobs runs the work in processes here, --scheduler on a Dask cluster" in (
        result.stderr
    )
    assert "no Dask scheduler answers" not in result.stderr
    assert list(tmp_path.iterdir()) == []
