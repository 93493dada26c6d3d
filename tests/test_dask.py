"""The audit on a Dask cluster equals a local run (issue: fast at scale, beyond one machine).

A real ``distributed.LocalCluster`` with worker processes on this machine stands
in for a remote cluster: the same scheduler protocol, the same pickling.
"""

from __future__ import annotations

import io
from pathlib import Path

from dask_helpers import local_cluster

from loo_replay.logs.limits import LIMITS
from loo_replay.output.json_document import write_audit
from loo_replay.rulesets import RuleChoice
from loo_replay.run.driver import each_document
from loo_replay.run.render import RenderSpec, render_documents

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"


def audit_bytes(scheduler: str | None = None, jobs: int = 1) -> bytes:
    out = io.BytesIO()
    spec = RenderSpec(RuleChoice(), True)
    write_audit(each_document([SAMPLES], render_documents, spec, LIMITS, jobs, scheduler), out)
    return out.getvalue()


def test_audit_on_a_dask_cluster_is_identical_to_a_local_run() -> None:
    local = audit_bytes()
    with local_cluster() as address:
        remote = audit_bytes(address)
    assert remote == local
    assert b'"sessions":14' in local


def test_local_jobs_give_identical_output() -> None:
    assert audit_bytes(jobs=2) == audit_bytes(jobs=1)
