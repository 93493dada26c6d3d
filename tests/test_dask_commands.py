"""``--scheduler`` on every command that audits many logs (issue 52): ``ingest``, ``audit``,
``fairness``, ``bundle`` and ``verify CASE.zip`` (whose audit it re-runs) give on a Dask
cluster what they give with ``--jobs 1``, byte for byte; and a scheduler nobody listens on
is one ``loo-replay:`` line with ``cli/failures.py``'s exit status.  One real
``distributed.LocalCluster`` for the file stands in for a remote cluster, as in
test_dask.py."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from dask_helpers import local_cluster
from db_helpers import ROOT, SAMPLES, dump, run

from loo_replay.cli.failures import status_of
from loo_replay.errors import SchedulerError

pytestmark = pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="no Dask")

DEAD = "tcp://127.0.0.1:9"  # nobody listens on the discard port
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
    """The same lines, the same database; the reports are written here in both."""
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


@pytest.mark.parametrize("command", ["ingest", "audit", "fairness", "bundle", "verify"])
def test_a_dead_scheduler_is_one_line_and_the_status_of_the_table(
    command: str, logs: Path, case: Path, tmp_path: Path
) -> None:
    args: dict[str, tuple[str | Path, ...]] = {
        "ingest": (logs, "--db", tmp_path / "x.duckdb"),
        "audit": (logs, "--db", tmp_path / "x.duckdb", "--out", tmp_path / "reports"),
        "fairness": (logs,),
        "bundle": (logs, "--out", tmp_path / "x.zip"),
        "verify": (case,),
    }
    result = run(command, *args[command], "--scheduler", DEAD, cwd=ROOT)
    assert result.returncode == status_of(SchedulerError) == 2
    said = [line for line in result.stderr.splitlines() if "scheduler" in line]
    assert len(said) == 1, result.stderr
    assert said[0].startswith(f"loo-replay: --scheduler {DEAD}: no Dask scheduler answers there")
    assert not (tmp_path / "x.zip").exists()
