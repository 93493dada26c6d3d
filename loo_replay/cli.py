"""The ``loo-replay`` command line: parse options, call the library, render, exit.

Errors from the library become one sentence and an exit status here and
nowhere else: 0 nothing found, 1 findings, 2 bad usage or unreadable input.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import orjson
import typer

from loo_replay import __version__
from loo_replay.cli_options import (
    Format,
    FormatOpt,
    PathsArg,
    PrettyOpt,
    RulesetOpt,
    SchedulerOpt,
    SetOpt,
    rule_choice,
)
from loo_replay.cli_output import finish_audit, wants_colour
from loo_replay.db import commands as db_commands
from loo_replay.engine.options import OPTION_SPECS
from loo_replay.output.audit_json import Summary
from loo_replay.output.text import summary_line
from loo_replay.pipeline import RenderSpec, rendered
from loo_replay.replayer import commands as replay_commands
from loo_replay.rulesets import RulesetError, builtin, builtin_names, load
from loo_replay.simulate import Simulator, write_simulation

app = typer.Typer(
    help="Audit, settle, load and replay recorded games of Loo (Lanterloo).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.command()
def validate(
    paths: PathsArg,
    output_format: FormatOpt = Format.text,
    ruleset: RulesetOpt = None,
    settings: SetOpt = None,
    pretty: PrettyOpt = False,
    jobs: Annotated[int, typer.Option(min=1, help="Audit in this many processes.")] = 1,
    scheduler: SchedulerOpt = None,
) -> None:
    """Re-check every declaration and card of the logs and report every finding."""
    choice = rule_choice(ruleset, settings)
    as_json = output_format is Format.json
    spec = RenderSpec(choice, as_json, pretty, wants_colour(as_json))
    finish_audit(rendered(paths, spec, jobs, scheduler), as_json, pretty, Summary(), summary_line)


@app.command()
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


@app.command()
def simulate(
    ruleset: Annotated[str, typer.Option(help="A built-in ruleset.")] = "three-card",
    players: Annotated[int, typer.Option(help="Seats at the table.")] = 5,
    deals: Annotated[int, typer.Option(min=1, help="Deals per session.")] = 20,
    sessions: Annotated[int, typer.Option(min=1, help="Sessions to write.")] = 1,
    seed: Annotated[int, typer.Option(help="Same seed, same bytes.")] = 1,
    violations: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Share of deals with an injected violation.")
    ] = 0.0,
    corrupt: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Share of deals with a corrupted record.")
    ] = 0.0,
    out: Annotated[
        Path | None,
        typer.Option(help=".json, .jsonl or .jsonl.gz; ground truth goes beside as .truth.json"),
    ] = None,
) -> None:
    """Write simulated sessions played by bots through the engine, with ground truth."""
    try:
        sim = Simulator(builtin(ruleset).options, ruleset, players, seed, violations, corrupt)
    except (RulesetError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from None
    docs = sim.sessions(sessions, deals)
    if out is None:
        for doc in docs:
            sys.stdout.buffer.write(orjson.dumps(doc) + b"\n")
        return
    try:
        write_simulation(out, docs, sessions, sim.truth)
    except (OSError, ValueError) as exc:
        raise typer.BadParameter(str(exc), param_hint="--out") from None
    typer.echo(f"wrote {sessions} session(s) of {deals} deal(s) to {out}", err=True)


@app.callback(invoke_without_command=True)
def _root(
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
) -> None:
    if version:
        typer.echo(f"loo-replay {__version__}")
        raise typer.Exit(0)


app.command()(replay_commands.replay)


app.command()(db_commands.ingest)
app.command()(db_commands.stats)
app.command()(db_commands.query)
app.command()(db_commands.export)

from loo_replay import analysis_commands  # noqa: E402
from loo_replay.reports import commands as report_commands  # noqa: E402  (registered last)

app.command()(report_commands.report)
app.command()(report_commands.audit)
app.command()(analysis_commands.analyse)


def main() -> None:
    app()
