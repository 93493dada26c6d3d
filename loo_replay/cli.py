"""The ``loo-replay`` command line: parse options, call the library, render, exit.

Errors from the library become one sentence and an exit status here and
nowhere else: 0 nothing found, 1 findings, 2 bad usage or unreadable input.
"""

from __future__ import annotations

import gc
import math
import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer

from loo_replay import __version__, build, build_status
from loo_replay.cli_options import (
    Format,
    FormatOpt,
    PathsArg,
    PlainCommand,
    PrettyOpt,
    RulesetOpt,
    SchedulerOpt,
    SetOpt,
    jobs_option,
    reads_logs,
    rule_choice,
)
from loo_replay.cli_output import finish_audit, wants_colour
from loo_replay.db import commands as db_commands
from loo_replay.engine.options import OPTION_SPECS
from loo_replay.fairness import commands as fairness_commands
from loo_replay.logs import log_schema
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.output.audit_json import Summary
from loo_replay.output.text import summary_line
from loo_replay.parallel import SchedulerError
from loo_replay.pipeline import RenderSpec, rendered
from loo_replay.replayer import commands as replay_commands
from loo_replay.rulesets import RulesetError, builtin, builtin_names, load

app = typer.Typer(
    help="Audit, settle, load and replay recorded games of Loo (Lanterloo).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: no <bool> metavars, no boxes, paragraphs rewrapped
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.command(cls=PlainCommand)
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
    pieces = rendered(paths, spec, jobs, scheduler, limits=limits)
    finish_audit(pieces, as_json, pretty, Summary(), summary_line)


@app.command(cls=PlainCommand)
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


@app.command(cls=PlainCommand)
def schema() -> None:
    """Print the JSON Schema of the hand-log format.

    Check your own logs with any JSON Schema tool (docs/log-format.md); validate checks
    them against the rules as well.
    """
    sys.stdout.buffer.write(log_schema())


def _share(help: str) -> Any:
    """A share of deals, 0 to 1: click's range lets ``nan`` through (no comparison with it
    is false), so it is refused here, by name."""

    def finite(value: float) -> float:
        if math.isnan(value):
            raise typer.BadParameter(f"{value} is not a number between 0 and 1")
        return value

    return typer.Option(min=0.0, max=1.0, callback=finite, help=help)


def _seed(value: int) -> int:
    """The seed goes into each session's ``meta``, a JSON integer of 64 bits."""
    if not -(2**63) <= value < 2**63:
        raise typer.BadParameter(f"{value} is not a 64-bit integer (-2**63 to 2**63 - 1)")
    return value


@app.command(cls=PlainCommand)
def simulate(
    ruleset: Annotated[
        str, typer.Option(metavar="NAME", help="A built-in ruleset.")
    ] = "three-card",
    players: Annotated[int, typer.Option(help="Seats at the table.")] = 5,
    deals: Annotated[int, typer.Option(min=1, help="Deals per session.")] = 20,
    sessions: Annotated[int, typer.Option(min=1, help="Sessions to write.")] = 1,
    seed: Annotated[
        int, typer.Option(callback=_seed, help="Same seed, same bytes (a 64-bit integer).")
    ] = 1,
    violations: Annotated[float, _share("Share of deals with an injected violation.")] = 0.0,
    corrupt: Annotated[float, _share("Share of deals with a corrupted record.")] = 0.0,
    out: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help=".json, .jsonl or .jsonl.gz (its folder is created if need be); the ground "
            "truth goes beside it as .truth.json.  Default: the sessions on standard output.",
        ),
    ] = None,
    crooked_dealer: Annotated[
        str | None,
        typer.Option(
            metavar="PLAYER[:RATE]",
            help="When PLAYER deals, with chance RATE (0.5) they take the best trump.",
        ),
    ] = None,
    shuffle: Annotated[
        str,
        typer.Option(metavar="uniform|riffle:K", help="Deal from K riffles of the last deal."),
    ] = "uniform",
) -> None:
    """Write simulated sessions, with their ground truth.

    Bots play every deal through the engine, choosing from the legal cards and
    declarations; violations and corrupted records are injected on request.
    """
    from loo_replay.simulate import Simulator, parse_crooked, parse_shuffle, write_simulation

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
        out.parent.mkdir(parents=True, exist_ok=True)
        write_simulation(out, docs, sessions, sim.truth)
    except (OSError, ValueError) as exc:
        raise typer.BadParameter(str(exc), param_hint="--out") from None
    typer.echo(f"wrote {sessions} session(s) of {deals} deal(s) to {out}", err=True)


@app.callback(invoke_without_command=True)
def _root(
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
) -> None:
    if version:
        typer.echo(f"loo-replay {__version__}, {build()}")
        raise typer.Exit(0)


app.command(cls=PlainCommand)(replay_commands.replay)


app.command(cls=PlainCommand)(db_commands.ingest)
app.command(cls=PlainCommand)(db_commands.stats)
app.command(cls=PlainCommand)(db_commands.query)
app.command(cls=PlainCommand)(db_commands.export)

from loo_replay import analysis_commands  # noqa: E402
from loo_replay.recorder import commands as record_commands  # noqa: E402
from loo_replay.reports import commands as report_commands  # noqa: E402  (registered last)

app.command(cls=PlainCommand)(report_commands.report)
app.command(cls=PlainCommand)(report_commands.audit)
app.command(cls=PlainCommand)(analysis_commands.analyse)
app.command(cls=PlainCommand)(fairness_commands.fairness)
app.command(cls=PlainCommand)(record_commands.record)


class _Interrupts:
    """Whether Ctrl-C reached this process while the command ran.  Python's own handler
    stays (DuckDB interrupts a query only under it); its KeyboardInterrupt unwinds the
    command through its cleanups (a transaction rolled back, temporary files removed,
    workers stopped), and may come out as another error (DuckDB's "Query interrupted").
    CPython writes the number of every signal it catches to the wakeup pipe, whatever
    becomes of it: that says it was an interrupt."""

    def __init__(self) -> None:
        self.on = signal.getsignal(signal.SIGINT) is signal.default_int_handler  # not nohup
        if self.on:
            self.read, write = os.pipe()
            os.set_blocking(self.read, False)
            os.set_blocking(write, False)
            signal.set_wakeup_fd(write, warn_on_full_buffer=False)

    def seen(self) -> bool:
        try:
            return self.on and signal.SIGINT.value in os.read(self.read, 4096)
        except BlockingIOError:
            return False


def main() -> None:
    # NumPy (which pyarrow and SciPy import) starts an OpenBLAS thread per core that
    # competes with the audit's own processes while doing nothing of use here: nothing we
    # call is a parallel matrix product.  One thread, for this process and the workers it
    # starts, unless the user chose otherwise (docs/performance.md).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    status = build_status()
    if not status.compiled and not status.requested:  # the speed figures do not hold
        print(
            f"loo-replay: running as pure Python, several times slower: {status.reason}",
            file=sys.stderr,
        )
    interrupts = _Interrupts()
    try:
        app(prog_name="loo-replay")  # the same name in help and errors, however it was started
    except SchedulerError as exc:
        print(f"loo-replay: {exc}", file=sys.stderr)
        sys.exit(2)
    except BaseException as exc:
        # Ctrl-C: whatever the command was doing is undone; no traceback (docs/limits.md).
        # Exit status 130 says so, whatever became of the KeyboardInterrupt on its way.
        code = exc.code if isinstance(exc, SystemExit) else None
        if (isinstance(exc, SystemExit) and code in (0, None)) or not interrupts.seen():
            raise
        if code != 130:  # not the command's own exit on the interrupt, said or not
            print("loo-replay: interrupted", file=sys.stderr)
        sys.exit(130)
    finally:
        # The command is done: the collector's last pass at the interpreter's exit would
        # look at every object left (a fifth of a second after an ingest, with one core
        # idle).  Frozen, they are still freed by their counts and their finalizers run.
        gc.freeze()
