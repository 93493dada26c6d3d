"""Replay pages of a large database: only deals with findings get one (README, Reports).

Past 5,000 deals a page for every deal would cost gigabytes; the pages a reader
needs are those of the deals where a rule was broken or the record is wrong.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import orjson

from loo_replay.logs.reader import read_documents
from loo_replay.reports.replays import ReplayJob, render_session
from loo_replay.rulesets import RuleChoice
from loo_replay.run.audit import SessionReport, audit_document
from loo_replay.run.frames import rules_fingerprint

SAMPLE = Path(__file__).resolve().parents[1] / "sample_logs" / "wrong-payouts.json"


def job_for(only_findings: bool) -> tuple[ReplayJob, bytes, SessionReport]:
    (doc,) = list(read_documents(SAMPLE))
    report = audit_document(doc, RuleChoice())
    assert isinstance(report, SessionReport) and report.options is not None
    job = ReplayJob(
        report.id,
        str(SAMPLE),
        None,
        report.digest,
        rules_fingerprint(report.ruleset, report.options),
        report.ruleset,
        orjson.dumps(report.options.dotted()).decode(),
        only_findings,
    )
    return job, doc.raw, report


def test_only_findings_writes_pages_for_deals_with_violations_or_discrepancies(
    tmp_path: Path,
) -> None:
    job, raw, report = job_for(only_findings=True)
    outcome = render_session(tmp_path, job, raw)
    flagged = {i for i, d in enumerate(report.deals) if d.violations or d.discrepancies}
    assert flagged and set(outcome.pages) == flagged
    assert len(list(tmp_path.rglob("deal-*.html"))) == len(flagged)


def test_every_deal_gets_a_page_otherwise(tmp_path: Path) -> None:
    job, raw, report = job_for(only_findings=False)
    outcome = render_session(tmp_path, job, raw)
    assert len(outcome.pages) == sum(d.status != "rejected" for d in report.deals)


def test_deals_behind_a_collusion_flag_get_pages_beside_the_findings(tmp_path: Path) -> None:
    """``also``: the deals the collusion page lists (``collusion_acts``) are replayable
    past 5,000 deals too."""
    job, raw, report = job_for(only_findings=True)
    flagged = {i for i, d in enumerate(report.deals) if d.violations or d.discrepancies}
    clean = [i for i, d in enumerate(report.deals) if i not in flagged and d.status != "rejected"]
    outcome = render_session(tmp_path, replace(job, also=(clean[0],)), raw)
    assert clean and set(outcome.pages) == flagged | {clean[0]}
