"""``loo-replay analyse``: the audit of ``validate`` with each deal's double-dummy
analysis (docs/analysis.md).  Same inputs, rulesets, ``--set``, ``--jobs`` and exit
status as ``validate``: the analysis is advice and never changes the status.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import typer

from loo_replay.cli.options import (
    Format,
    FormatOpt,
    PathsArg,
    PrettyOpt,
    RulesetOpt,
    SchedulerOpt,
    SetOpt,
    jobs_option,
    reads_logs,
    rule_choice,
)
from loo_replay.cli.output import finish_audit, wants_colour
from loo_replay.engine.analysis import (
    DEFAULT_MAX_NODES,
    SKIPPED,
    DealAnalysis,
    analyse_deal,
    start_of_play,
)
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.output.analysis import AnalysisSummary, rendered_analysis, summary_line
from loo_replay.output.json_document import Rendered
from loo_replay.rulesets import RuleChoice
from loo_replay.run.audit import SessionReport, UnreadableFile, audit_document
from loo_replay.run.render import Task, documents, rendered

# Input bytes per task, a quarter of validate's: a deal's search is slow, and a worker left
# with the last task leaves the other idle for as long as the task takes
# (docs/performance.md, "The double-dummy analysis at load time").
ANALYSE_TASK_BYTES = 1 << 18


@dataclass(frozen=True)
class AnalyseSpec:
    choice: RuleChoice
    json: bool
    indent: bool
    colour: bool
    max_nodes: int
    limits: Limits = LIMITS


def analyse_batch(task: tuple[Task, AnalyseSpec]) -> list[Rendered]:
    """Audit, analyse and render a task's documents (in a worker process or here)."""
    source, spec = task
    batch = []
    for doc in documents(source, spec.limits):
        if isinstance(doc, UnreadableFile):
            batch.append(rendered_analysis(doc, [], spec.json, spec.indent, spec.colour))
            continue
        item = audit_document(doc, spec.choice, start_of_play, limits=spec.limits)
        analyses: list[DealAnalysis] = []
        if isinstance(item, SessionReport):
            options = item.options
            analyses = [
                analyse_deal(d, options, spec.max_nodes)
                if options is not None
                else DealAnalysis(SKIPPED, str(d.status))
                for d in item.deals
            ]
        batch.append(rendered_analysis(item, analyses, spec.json, spec.indent, spec.colour))
    return batch


@reads_logs
def analyse(
    paths: PathsArg,
    output_format: FormatOpt = Format.text,
    ruleset: RulesetOpt = None,
    settings: SetOpt = None,
    pretty: PrettyOpt = False,
    max_nodes: Annotated[
        int,
        typer.Option(min=1, help="Search budget per deal; a deal over it is reported unsolved."),
    ] = DEFAULT_MAX_NODES,
    jobs: Annotated[int, jobs_option("Analyse in this many processes.")] = 1,
    scheduler: SchedulerOpt = None,
    limits: Limits = LIMITS,
) -> None:
    """Audit the logs as validate does and say, for every card, whether it threw away a
    trick its player could have made sure of, and which loos were avoidable."""
    choice = rule_choice(ruleset, settings)
    as_json = output_format is Format.json
    spec = AnalyseSpec(choice, as_json, pretty, wants_colour(as_json), max_nodes, limits)
    analysed = rendered(paths, spec, jobs, scheduler, analyse_batch, ANALYSE_TASK_BYTES, limits)
    finish_audit(analysed, as_json, pretty, AnalysisSummary(), summary_line)
