"""Decisions judged on a Dask cluster equal a local run: docs/judging-decisions.md (the seeds).

A real ``distributed.LocalCluster`` with worker processes stands in for a remote
cluster, as in test_dask.py: the same scheduler protocol, the same pickling.
"""

from __future__ import annotations

import io
from pathlib import Path

from dask_helpers import local_cluster

from loo_replay.engine.analysis import DEFAULT_MAX_NODES
from loo_replay.logs.limits import LIMITS
from loo_replay.output.decisions import DecisionSummary
from loo_replay.output.json_document import write_audit
from loo_replay.rulesets import RuleChoice
from loo_replay.run.driver import each_document
from loo_replay.run.render import ANALYSE_TASK_BYTES, AnalyseSpec, Sampling, analyse_documents

CLUB = Path(__file__).resolve().parents[1] / "sample_logs" / "three-card-club-night.json"


def judged_bytes(scheduler: str | None = None) -> bytes:
    spec = AnalyseSpec(RuleChoice(), True, False, False, DEFAULT_MAX_NODES, decisions=Sampling(3))
    work = each_document([CLUB], analyse_documents, spec, LIMITS, 1, scheduler, ANALYSE_TASK_BYTES)
    out = io.BytesIO()
    write_audit(work, out, summary=DecisionSummary())
    return out.getvalue()


def test_decisions_on_a_dask_cluster_are_identical_to_a_local_run() -> None:
    local = judged_bytes()
    with local_cluster() as address:
        remote = judged_bytes(address)
    assert remote == local
    assert b'"decisions":{"status":"judged"' in local
