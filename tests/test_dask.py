"""The audit on a Dask cluster equals a local run (issue: fast at scale, beyond one machine).

A real ``distributed.LocalCluster`` with worker processes on this machine stands
in for a remote cluster: the same scheduler protocol, the same pickling.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from loo_replay.output.json_document import write_audit
from loo_replay.rulesets import RuleChoice
from loo_replay.run.render import RenderSpec, rendered

distributed = pytest.importorskip("distributed")
SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"


def audit_bytes(scheduler: str | None = None, jobs: int = 1) -> bytes:
    out = io.BytesIO()
    write_audit(rendered([SAMPLES], RenderSpec(RuleChoice(), True), jobs, scheduler), out)
    return out.getvalue()


def test_audit_on_a_dask_cluster_is_identical_to_a_local_run() -> None:
    local = audit_bytes()
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        remote = audit_bytes(cluster.scheduler_address)
    assert remote == local
    assert b'"sessions":14' in local


def test_local_jobs_give_identical_output() -> None:
    assert audit_bytes(jobs=2) == audit_bytes(jobs=1)
