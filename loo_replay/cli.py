"""The ``loo-replay`` command line: parse options, call the library, render, exit.

Errors from the library become one sentence and an exit status here and
nowhere else: 0 nothing found, 1 findings, 2 bad usage or unreadable input.
"""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import orjson
import typer

from loo_replay import __version__
from loo_replay.cli_options import PathsArg, RulesetOpt, SetOpt, rule_choice
from loo_replay.db import commands as db_commands
from loo_replay.engine.options import OPTION_SPECS
from loo_replay.fairness import commands as fairness_commands
from loo_replay.output.audit_json import Summary, write_audit
from loo_replay.output.text import summary_line
from loo_replay.pipeline import RenderSpec, rendered
from loo_replay.replayer import commands as replay_commands
from loo_replay.rulesets import RulesetError, builtin, builtin_names, load
from loo_replay.simulate import Simulator, parse_crooked, parse_shuffle, write_simulation

app = typer.Typer(
    help="Audit, settle, load and replay recorded games of Loo (Lanterloo).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class Format(StrEnum):
    text = "text"
    json = "json"


@app.command()
def validate(
    paths: PathsArg,
    output_format: Annotated[
        Format, typer.Option("--format", help="text for people, json for programs.")
    ] = Format.text,
    ruleset: RulesetOpt = None,
    settings: SetOpt = None,
    pretty: Annotated[bool, typer.Option(help="Indent the JSON output.")] = False,
    jobs: Annotated[int, typer.Option(min=1, help="Audit in this many processes.")] = 1,
    scheduler: Annotated[
        str | None,
        typer.Option(help="Audit on the Dask cluster at this address (the dask extra)."),
    ] = None,
) -> None:
    """Re-check every declaration and card of the logs and report every finding."""
    choice = rule_choice(ruleset, settings)
    as_json = output_format is Format.json
    colour = not as_json and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    pieces = rendered(paths, RenderSpec(choice, as_json, pretty, colour), jobs, scheduler)
    if as_json:
        summary = write_audit(pieces, sys.stdout.buffer, indent=pretty)
    else:
        summary = Summary()
        for piece in pieces:
            summary.merge(piece.counts)
            for line in piece.lines:
                typer.echo(line)
        typer.echo("")
        typer.echo(summary_line(summary))
    for_errors = summary.unreadable_files
    if for_errors:
        typer.echo(f"loo-replay: {for_errors} input file(s) could not be read", err=True)
    raise typer.Exit(summary.exit_code)


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
    crooked_dealer: Annotated[
        str | None,
        typer.Option(
            metavar="PLAYER[:RATE]",
            help="When PLAYER deals, with chance RATE (0.5) he takes the best trump.",
        ),
    ] = None,
    shuffle: Annotated[
        str,
        typer.Option(metavar="uniform|riffle:K", help="Deal from K riffles of the last deal."),
    ] = "uniform",
) -> None:
    """Write simulated sessions played by bots through the engine, with ground truth."""
    try:
        crooked = None if crooked_dealer is None else parse_crooked(crooked_dealer)
        riffles = parse_shuffle(shuffle)
        sim = Simulator(
            builtin(ruleset).options, ruleset, players, seed, violations, corrupt, crooked, riffles
        )
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

from loo_replay.reports import commands as report_commands  # noqa: E402  (registered last)

app.command()(report_commands.report)
app.command()(report_commands.audit)
app.command()(fairness_commands.fairness)


def main() -> None:
    app()
