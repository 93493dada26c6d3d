"""``collusion PATH...`` loads its logs with ``--jobs 1``, ``--jobs 2`` or on a Dask cluster
and screens the same database (docs/collusion.md): a real ``distributed.LocalCluster`` with
worker processes stands in for a remote cluster, as in test_dask.py."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from dask_helpers import local_cluster
from db_helpers import dump, run

from loo_replay.db.ingest import ingest
from loo_replay.rulesets import RuleChoice
from loo_replay.run.render import Sampling

K2 = Sampling(2, 0)  # every decision judged on two worlds: the tables' rows, quickly


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with local_cluster() as address:
        yield address


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two logs of four sessions with cat and dan colluding, a plain one and a gzip one."""
    folder = tmp_path_factory.mktemp("collusion-dask")
    for name, seed in (("a.jsonl", "4"), ("b.jsonl.gz", "5")):
        result = run("simulate", "--players", "6", "--sessions", "4", "--deals", "30",
                     "--seed", seed, "--colluders", "cat,dan:1", "--out", folder / name)  # fmt: skip
        assert result.returncode == 0, result.stderr
    return folder


def test_collusion_of_logs_is_the_same_with_two_jobs_and_on_a_dask_cluster(
    logs: Path, cluster: str
) -> None:
    runs = {
        how: run("collusion", logs, "--format", "json", *extra)
        for how, extra in (
            ("one", ("--jobs", "1")),
            ("two", ("--jobs", "2")),
            ("dask", ("--scheduler", cluster)),
        )
    }
    for result in runs.values():
        assert result.returncode == 1, result.stderr
        assert result.stdout == runs["one"].stdout
    doc = json.loads(runs["one"].stdout)
    assert doc["deals"] == 240 and len(doc["pairs"]) == 15
    assert [p["pair"] for p in doc["pairs"] if p["flagged"]] == [["cat", "dan"]]


def test_ingest_on_dask_loads_what_one_process_loads(
    logs: Path, cluster: str, tmp_path: Path
) -> None:
    """Carried to the workers a session a task, and with a gzip file broken off halfway,
    the cluster's load is row for row the local one, the read error and the judged
    decisions included."""
    shutil.copytree(logs, tmp_path / "in")
    whole = (logs / "b.jsonl.gz").read_bytes()
    (tmp_path / "in" / "c.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    loaded = {}
    for how, scheduler in (("here", None), ("dask", cluster)):
        db = tmp_path / f"{how}.duckdb"
        result = ingest(
            [tmp_path / "in"], db, RuleChoice(), scheduler=scheduler, piece_bytes=1, decisions=K2
        )
        assert len(result.file_errors) == 1 and "c.jsonl.gz" in result.file_errors[0]
        loaded[how] = (dump(db), result.counts, result.file_errors)
    assert loaded["dask"] == loaded["here"]
    assert loaded["here"][1].deals > 240  # c.jsonl.gz's sessions before the break too
    assert len(loaded["here"][0]["decisions"]) > 1000  # judged on the workers alike
