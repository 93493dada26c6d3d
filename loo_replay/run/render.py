"""validate's and analyse's work on a task's documents: each audited (and analysed, and its
decisions judged) and rendered, in a worker process or here.

The driver (``run.driver.each_document``) reads the documents and runs this work in input
order, in one process or many; the work returns ``Rendered`` documents, so that only bytes
cross process boundaries, and the command's sink (``output.stream``) writes them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from loo_replay.engine.records import record
from loo_replay.gc_thresholds import fewer_collections
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.output.json_document import Rendered, rendered_json
from loo_replay.output.text import rendered_text
from loo_replay.rulesets import RuleChoice
from loo_replay.run.audit import AuditItem, Documents, SessionReport, UnreadableFile, audit_document

if TYPE_CHECKING:  # the analysis is imported where it runs: validate does without it
    from loo_replay.engine.analysis import DealAnalysis
    from loo_replay.engine.judging import DealDecisions

# Input bytes per task: enough to amortise a process hop, few enough that the last tasks
# leave no worker idle for long and memory stays small
# (docs/performance.md, "What remains between the ratio and 1").
TASK_BYTES = 1 << 20


@record
class RenderSpec:
    choice: RuleChoice
    json: bool
    indent: bool = False
    colour: bool = False
    findings_only: bool = False  # only the deals with findings
    limits: Limits = LIMITS  # what one document may hold (logs/limits.py)


def render_documents(spec: RenderSpec, documents: Documents) -> Iterator[Rendered]:
    """validate's work: audit and render each document."""
    with fewer_collections():
        for doc in documents:
            if isinstance(doc, UnreadableFile):
                item: AuditItem = doc
            else:  # rendering reads the verdicts only: their replays go deal by deal
                item = audit_document(doc, spec.choice, keep=False, limits=spec.limits)
            if spec.json:
                yield rendered_json(item, spec.indent, spec.findings_only)
            else:
                yield rendered_text(item, spec.colour, spec.findings_only)


# Input bytes per task, a quarter of validate's: a deal's search is slow, and a worker left
# with the last task leaves the other idle for as long as the task takes
# (docs/performance.md, "The double-dummy analysis at load time").
ANALYSE_TASK_BYTES = 1 << 18
# With --decisions a deal costs a thousand audits and more (docs/performance.md, "Judging
# decisions"): tasks of a few sessions' deals keep both workers busy to the end.
DECISIONS_TASK_BYTES = 1 << 13


@record
class AnalyseSpec:
    choice: RuleChoice
    json: bool
    indent: bool
    colour: bool
    max_nodes: int
    limits: Limits = LIMITS
    decisions: Sampling | None = None  # --decisions (docs/judging-decisions.md)
    findings_only: bool = False  # only the deals with findings, and only their findings


@record
class Sampling:
    """``--samples`` and ``--seed`` of ``--decisions`` (the commands' defaults:
    ``cli.options.DEFAULT_SAMPLES`` and 0)."""

    samples: int
    seed: int = 0


def analyse_documents(spec: AnalyseSpec, documents: Documents) -> Iterator[Rendered]:
    """analyse's work: audit, analyse (and with ``--decisions`` judge) and render each
    document."""
    from loo_replay.engine.analysis import SKIPPED, DealAnalysis, analyse_deal, start_of_play
    from loo_replay.output.analysis import rendered_analysis
    from loo_replay.output.decisions import Judged

    for doc in documents:
        if isinstance(doc, UnreadableFile):
            yield rendered_analysis(doc, [], spec.json, spec.indent, spec.colour)
            continue
        item = audit_document(doc, spec.choice, start_of_play, limits=spec.limits)
        analyses: list[DealAnalysis] = []
        judged: list[DealDecisions] = []
        if isinstance(item, SessionReport):
            options = item.options
            analyses = [
                analyse_deal(d, options, spec.max_nodes)
                if options is not None
                else DealAnalysis(SKIPPED, str(d.status))
                for d in item.deals
            ]
            if spec.decisions is not None:
                judged = _judged(item, spec.decisions)
        only = spec.findings_only
        if spec.decisions is None:
            yield rendered_analysis(
                item, analyses, spec.json, spec.indent, spec.colour, None, None, only
            )
            continue
        extra = Judged(judged)
        yield rendered_analysis(
            item, analyses, spec.json, spec.indent, spec.colour, extra.summary(), extra, only
        )


def _judged(item: SessionReport, sampling: Sampling) -> list[DealDecisions]:
    from loo_replay.engine.judging import SKIPPED, DealDecisions, judge_deal

    options = item.options
    if options is None:
        return [DealDecisions(SKIPPED, "not_audited") for _ in item.deals]
    return [judge_deal(d, options, sampling.samples, sampling.seed, item.id) for d in item.deals]
