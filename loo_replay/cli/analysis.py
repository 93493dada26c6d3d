"""``loo-replay analyse``: the audit of ``validate`` with each deal's double-dummy
analysis (docs/analysis.md).  Same inputs, rulesets, ``--set``, ``--jobs`` and exit
status as ``validate``: the analysis is advice and never changes the status.
"""

from __future__ import annotations

from typing import Annotated

import typer

from loo_replay.cli.options import (
    DEFAULT_SAMPLES,
    Format,
    FormatOpt,
    PathsArg,
    PrettyOpt,
    RulesetOpt,
    SamplesOpt,
    SchedulerOpt,
    SeedOpt,
    SetOpt,
    decisions_option,
    jobs_option,
    reads_logs,
    rule_choice,
)
from loo_replay.cli.output import audit_stream, finish_audit, wants_colour
from loo_replay.engine.analysis import DEFAULT_MAX_NODES
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.output.analysis import AnalysisSummary, summary_line
from loo_replay.output.decisions import DecisionSummary
from loo_replay.output.decisions import summary_line as decisions_summary_line
from loo_replay.run.driver import each_document
from loo_replay.run.render import (
    ANALYSE_TASK_BYTES,
    DECISIONS_TASK_BYTES,
    AnalyseSpec,
    Sampling,
    analyse_documents,
)


@reads_logs
def analyse(
    paths: PathsArg,
    output_format: FormatOpt = Format.text,
    ruleset: RulesetOpt = None,
    settings: SetOpt = None,
    pretty: PrettyOpt = False,
    findings_only: Annotated[
        bool,
        typer.Option(
            "--findings-only",
            help="Show only the deals with a finding (a violation, a discrepancy, a log error, "
            "a trick thrown away, an avoidable loo; with --decisions, a classed decision), "
            "and only their findings.",
        ),
    ] = False,
    max_nodes: Annotated[
        int,
        typer.Option(min=1, help="Search budget per deal; a deal over it is reported unsolved."),
    ] = DEFAULT_MAX_NODES,
    jobs: Annotated[int, jobs_option("Analyse in this many processes.")] = 1,
    scheduler: SchedulerOpt = None,
    decisions: Annotated[
        bool,
        decisions_option(
            "Judge every declaration and card on what its player knew (docs/judging-decisions.md)."
        ),
    ] = False,
    samples: SamplesOpt = DEFAULT_SAMPLES,
    seed: SeedOpt = 0,
    limits: Limits = LIMITS,
) -> None:
    """Audit the logs as validate does and say, for every card, whether it threw away a
    trick its player could have made sure of, and which loos were avoidable; with
    --decisions, what every declaration and card was worth from where its player sat."""
    choice = rule_choice(ruleset, settings)
    as_json = output_format is Format.json
    sampling = Sampling(samples, seed) if decisions else None
    spec = AnalyseSpec(
        choice, as_json, pretty, wants_colour(as_json), max_nodes, limits, sampling, findings_only
    )
    task_bytes = DECISIONS_TASK_BYTES if decisions else ANALYSE_TASK_BYTES
    analysed = each_document(paths, analyse_documents, spec, limits, jobs, scheduler, task_bytes)
    if decisions:
        finish_audit(
            analysed, audit_stream(as_json, pretty, DecisionSummary(), decisions_summary_line)
        )
    finish_audit(analysed, audit_stream(as_json, pretty, AnalysisSummary(), summary_line))
