"""``loo-replay validate``, ``rulesets`` and ``schema``: audit hand logs, show the rules they
are judged by and the format they are written in."""

from __future__ import annotations

import sys
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
from loo_replay.cli.output import audit_stream, finish_audit, wants_colour
from loo_replay.engine.options import OPTION_SPECS
from loo_replay.logs import log_schema
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.output.text import summary_line
from loo_replay.rulesets import RulesetError, builtin, builtin_names, load
from loo_replay.run.audit import Summary
from loo_replay.run.driver import each_document
from loo_replay.run.render import TASK_BYTES, RenderSpec, render_documents


@reads_logs
def validate(
    paths: PathsArg,
    output_format: FormatOpt = Format.text,
    findings_only: Annotated[
        bool,
        typer.Option(
            "--findings-only",
            help="Show only the deals with a violation, a discrepancy or a log error.",
        ),
    ] = False,
    ruleset: RulesetOpt = None,
    settings: SetOpt = None,
    pretty: PrettyOpt = False,
    jobs: Annotated[int, jobs_option("Audit in this many processes.")] = 1,
    scheduler: SchedulerOpt = None,
    limits: Limits = LIMITS,
) -> None:
    """Audit hand logs and report every finding.

    Every declaration and card is checked again by the rules engine and every pool
    settled; each session lists its deals with findings first.
    """
    choice = rule_choice(ruleset, settings)
    as_json = output_format is Format.json
    spec = RenderSpec(choice, as_json, pretty, wants_colour(as_json), findings_only, limits)
    audited = each_document(paths, render_documents, spec, limits, jobs, scheduler, TASK_BYTES)
    finish_audit(audited, audit_stream(as_json, pretty, Summary(), summary_line))


def rulesets(
    name: Annotated[str | None, typer.Argument(help="Show this ruleset in full.")] = None,
) -> None:
    """List the built-in rulesets, or show one with its options and sources."""
    if name is None:
        for n in builtin_names():
            rs = builtin(n)
            typer.echo(f"{n:16} {rs.description}")
        return
    try:
        rs = load(name)
    except RulesetError as exc:
        raise typer.BadParameter(str(exc), param_hint="NAME") from None
    typer.echo(f"{rs.name}: {rs.description}")
    typer.echo(f"source: {rs.source}")
    typer.echo("")
    for option, value in rs.options.dotted().items():
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        typer.echo(f"  {option:32} {shown:20} {OPTION_SPECS[option].meaning}")
        if option in rs.sources:
            typer.echo(f"  {'':32} ↳ {rs.sources[option]}")
        elif option not in rs.named:
            typer.echo(f"  {'':32} ↳ default (source silent)")


def schema() -> None:
    """Print the JSON Schema of the hand-log format.

    Check your own logs with any JSON Schema tool (docs/log-format.md); validate checks
    them against the rules as well.
    """
    sys.stdout.buffer.write(log_schema())
